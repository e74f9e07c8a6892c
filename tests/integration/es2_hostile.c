// SPDX-License-Identifier: MIT
// es2_hostile: a gblink server that stresses QEMU's greybus-es2 device where a real
// simulator rarely goes: it stops reading its ring (backpressure), corrupts its consumer
// index, floods records, withholds or garbles lockstep time grants. It is not an SVC: it
// says hello (44 CPorts), answers every request with status OK (a log request with no
// text), and otherwise does what it is told on standard input, one command a line:
//
//   hold                  stop reading the ring from QEMU (its records pile up)
//   release               read it again
//   release-on-refusal    release as soon as QEMU is refused a send (it set the ring's
//                         space-waiting flag after this command), printing "refused"
//   corrupt               write a misaligned consumer index into the ring from QEMU (QEMU
//                         sees it the next time the ring looks full to it)
//   flood-results SECONDS results for requests never made, as fast as the ring takes them
//   flood-messages N CPORT  N Greybus messages (8-byte header, unknown type) to CPort
//   link-down | link-up   send GBL_T_LINK_DOWN / GBL_T_LINK_UP
//   stall | grant         lockstep: stop / resume answering QEMU's time reports
//   grant-huge            lockstep: answer them with a grant beyond 2^63 ns (until grant)
//   quit                  exit
//
// Every record received but time grants is printed as "rx TYPE cport=N id=N len=N" (link
// states with "reason=N"); when QEMU is first refused a send while held, "refused" is
// printed. Every command is announced with "doing COMMAND" and acknowledged with
// "did COMMAND" once done.
//
//   es2_hostile --link PATH [--ring BYTES] [--lockstep]
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gblink/gblink.h"
#include "gblink/layout.h"

#define GRANT_STEP_NS 1000000u      /* lockstep: each grant is 1 ms past QEMU's report */

typedef struct hostile {
    gbl_link *link;
    int holding;                    /* not reading the ring from QEMU */
    int release_on_refusal;
    int told_refused;
    int stalled;                    /* lockstep: time reports are not answered */
    int huge;                       /* lockstep: grants beyond 2^63 ns */
    uint64_t grants;
} hostile;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The shared memory, found in our own mappings (gblink keeps it private). NULL until up. */
static uint8_t *shm_base(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long a = 0, b;

    if (!f)
        return NULL;
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, "memfd:gblink") && sscanf(line, "%lx-%lx", &a, &b) == 2)
            break;
        a = 0;
    }
    fclose(f);
    return (uint8_t *)a;
}

/* A control word of the ring QEMU writes (client -> server). */
static _Atomic uint32_t *c2s(unsigned offset)
{
    uint8_t *base = shm_base();

    return base ? (_Atomic uint32_t *)(base + GBL_RING_CTRL_OFFSET(GBL_RING_C2S) + offset)
                : NULL;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static void on_record(void *ctx, const gbl_record *rec)
{
    hostile *h = ctx;

    if (rec->type == GBL_T_TIME_GRANT) {
        gbl_time_grant g;

        if (rec->len < sizeof(g) || h->stalled)
            return;
        memcpy(&g, rec->payload, sizeof(g));
        g.until_ns = h->huge ? (1ull << 63) + 16 : g.until_ns + GRANT_STEP_NS;
        if (gbl_send_msg(h->link, GBL_T_TIME_GRANT, GBL_CPORT_NONE, 0, 0, &g, sizeof(g)) == 0)
            h->grants++;
        return;
    }
    if (rec->type == GBL_T_LINK_UP || rec->type == GBL_T_LINK_DOWN) {
        gbl_link_state st = { 0 };

        if (rec->len >= sizeof(st))
            memcpy(&st, rec->payload, sizeof(st));
        say("rx %s cport=%u id=%u len=%u reason=%u", gbl_type_name(rec->type), rec->cport,
            rec->id, rec->len, st.reason);
        return;
    }
    say("rx %s cport=%u id=%u len=%u", gbl_type_name(rec->type), rec->cport, rec->id,
        rec->len);
    if (rec->type >= GBL_T_CPORT_RESET && rec->type <= GBL_T_AUDIO_CONTROL)
        gbl_send_result(h->link, rec, GBL_STATUS_OK, NULL, 0, 0);
}

static void on_up(void *ctx)
{
    hostile *h = ctx;
    gbl_hello hello = { .version_major = GBL_VERSION_MAJOR,
                        .version_minor = GBL_VERSION_MINOR, .cport_count = 44 };

    snprintf(hello.name, sizeof(hello.name), "es2_hostile");
    h->holding = h->release_on_refusal = h->told_refused = 0;
    h->stalled = 0;
    gbl_send_msg(h->link, GBL_T_HELLO, GBL_CPORT_NONE, 0, 0, &hello, sizeof(hello));
    say("up");
}

static void on_down(void *ctx, int err, const char *why)
{
    (void)ctx;
    say("down %d %s", err, why);
}

/* One turn of the event loop: records (unless holding), and the refusal watch. */
static void turn(hostile *h, int timeout_ms)
{
    struct pollfd p = { gbl_fd(h->link), POLLIN, 0 };
    _Atomic uint32_t *waiting;

    if (!h->holding)
        poll(&p, 1, timeout_ms);
    else if (timeout_ms)
        usleep(timeout_ms > 5 ? 5000 : timeout_ms * 1000);
    if (h->holding && gbl_state(h->link) == GBL_STATE_UP &&
        (waiting = c2s(GBL_CTRL_SPACE_WAITING)) && atomic_load(waiting)) {
        if (!h->told_refused) {
            h->told_refused = 1;
            say("refused");
        }
        if (h->release_on_refusal) {
            h->release_on_refusal = 0;
            usleep(20000);
            h->holding = 0;
            say("released");
        }
    }
    /* A held server still accepts a client and finishes handshakes (gbl_process reads
     * the ring only once up). */
    if (!h->holding || gbl_state(h->link) != GBL_STATE_UP)
        gbl_process(h->link);
}

static void send_or_wait(hostile *h, uint16_t type, uint16_t cport, uint32_t id,
                         const void *payload, uint32_t len, double until, unsigned *sent)
{
    for (;;) {
        int r = gbl_send_msg(h->link, type, cport, id, 0, payload, len);

        if (r == 0) {
            ++*sent;
            return;
        }
        if (r != -EAGAIN || now_s() > until)
            return;
        turn(h, 0);     /* (no sleep: the ring is refilled the moment QEMU makes room) */
    }
}

static void flood_results(hostile *h, double seconds)
{
    gbl_result res = { .status = GBL_STATUS_OK, .request_type = GBL_T_CPORT_FLAGS };
    double until = now_s() + seconds;
    unsigned sent = 0;
    uint32_t id = 0x80000000u;

    while (now_s() < until && gbl_state(h->link) == GBL_STATE_UP) {
        send_or_wait(h, GBL_T_RESULT, GBL_CPORT_NONE, id++, &res, sizeof(res), until, &sent);
        if ((sent & 63) == 0)
            turn(h, 0);
    }
    say("flooded %u results", sent);
}

static void flood_messages(hostile *h, unsigned n, uint16_t cport)
{
    uint8_t m[8] = { 8, 0, 0, 0, 0x7e, 0, 0, 0 };     /* size 8, id 0, type 0x7e */
    double until = now_s() + 30;
    unsigned sent = 0;

    for (unsigned i = 0; i < n && gbl_state(h->link) == GBL_STATE_UP && now_s() < until; i++)
        send_or_wait(h, GBL_T_GB_MESSAGE, cport, 0, m, sizeof(m), until, &sent);
    say("flooded %u messages", sent);
}

static void command(hostile *h, char *line)
{
    gbl_link_state st = { 0 };
    _Atomic uint32_t *w;
    unsigned n, cport;
    double secs;

    line[strcspn(line, "\r\n")] = 0;
    say("doing %s", line);
    if (!strcmp(line, "hold")) {
        h->holding = 1;
        h->release_on_refusal = 0;
        h->told_refused = 0;
    } else if (!strcmp(line, "release")) {
        h->holding = 0;
    } else if (!strcmp(line, "release-on-refusal")) {
        /* QEMU sets the flag when a send finds no room; clear it to see the next one
         * (it stays set, so that reading again rings QEMU's doorbell) */
        if ((w = c2s(GBL_CTRL_SPACE_WAITING)))
            atomic_store(w, 0);
        h->release_on_refusal = 1;
        h->told_refused = 0;
    } else if (!strcmp(line, "corrupt")) {
        if ((w = c2s(GBL_CTRL_TAIL))) {
            uint32_t t = atomic_load(w);

            atomic_store(w, t + 4);
            say("corrupted tail %u -> %u", t, t + 4);
        }
    } else if (sscanf(line, "flood-results %lf", &secs) == 1) {
        flood_results(h, secs);
    } else if (sscanf(line, "flood-messages %u %u", &n, &cport) == 2) {
        flood_messages(h, n, (uint16_t)cport);
    } else if (!strcmp(line, "link-down")) {
        gbl_send_msg(h->link, GBL_T_LINK_DOWN, GBL_CPORT_NONE, 0, 0, &st, sizeof(st));
    } else if (!strcmp(line, "link-up")) {
        gbl_send_msg(h->link, GBL_T_LINK_UP, GBL_CPORT_NONE, 0, 0, &st, sizeof(st));
    } else if (!strcmp(line, "stall")) {
        h->stalled = 1;
    } else if (!strcmp(line, "grant")) {
        h->stalled = 0;
        h->huge = 0;
    } else if (!strcmp(line, "grant-huge")) {
        h->huge = 1;
    } else if (*line) {
        fprintf(stderr, "es2_hostile: unknown command '%s'\n", line);
    }
    say("did %s", line);
}

int main(int argc, char **argv)
{
    gbl_callbacks cb = { .record = on_record, .up = on_up, .down = on_down };
    gbl_config cfg = { .name = "es2_hostile", .features = GBL_FEATURE_AUDIO };
    hostile h = { 0 };
    const char *path = NULL;
    char err[256], line[256];

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link") && i + 1 < argc)
            path = argv[++i];
        else if (!strcmp(argv[i], "--ring") && i + 1 < argc)
            cfg.ring_size = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--lockstep"))
            cfg.features |= GBL_FEATURE_LOCKSTEP;
        else {
            fprintf(stderr, "usage: es2_hostile --link PATH [--ring BYTES] [--lockstep]\n");
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "es2_hostile: --link PATH is required\n");
        return 2;
    }
    setvbuf(stdin, NULL, _IONBF, 0);
    h.link = gbl_server_new(path, &cfg, &cb, &h, err, sizeof(err));
    if (!h.link) {
        fprintf(stderr, "es2_hostile: %s\n", err);
        return 1;
    }
    for (;;) {
        struct pollfd in = { 0, POLLIN, 0 };

        turn(&h, 5);
        if (poll(&in, 1, 0) > 0 && (in.revents & (POLLIN | POLLHUP))) {
            if (!fgets(line, sizeof(line), stdin) || !strncmp(line, "quit", 4))
                break;
            command(&h, line);
        }
    }
    say("grants %llu", (unsigned long long)h.grants);
    gbl_free(h.link);
    return 0;
}
