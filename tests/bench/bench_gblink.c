// SPDX-License-Identifier: MIT
// gblink between two processes against a Unix-socket baseline measured in the same run.
//
// For each payload size (64 B, 2048 B), the parent sends to a forked child:
//   rate:    N records back to back; the child acknowledges the last one; records/s is N over
//            the time from the first send to the acknowledgement.
//   latency: one record at a time carrying its CLOCK_MONOTONIC send time; the child notes
//            now - send time on receipt (one-way latency, wake-up included) and acknowledges;
//            the parent waits for the acknowledgement before the next. Median and p99.
// gblink runs its normal non-blocking API under poll(); the baseline is a blocking
// SOCK_SEQPACKET socketpair carrying the same 24-byte header plus payload.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gblink/gblink.h"

#define LAT_SAMPLES 20000u

typedef struct result {
    double rate;
    double p50;
    double p99;
} result;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void percentiles(uint64_t *v, size_t n, double *p50, double *p99)
{
    qsort(v, n, sizeof(*v), cmp_u64);
    *p50 = (double)v[n / 2];
    *p99 = (double)v[(n * 99) / 100];
}

/* ---- gblink ------------------------------------------------------------------------- */

typedef struct side {
    gbl_link *l;
    uint32_t n_rate;
    uint64_t received;
    uint64_t acks;
    uint32_t last_ack;
    uint64_t *lat;
    size_t nlat;
    int writable;
    int down;
    int ack_pending;
    uint16_t ack_cport;
    uint32_t ack_id;
} side;

static void wait_fd(gbl_link *l)
{
    struct pollfd p = { .fd = gbl_fd(l), .events = POLLIN };
    poll(&p, 1, 1000);
}

static void send_blocking(side *s, uint16_t type, uint16_t cport, uint32_t id, uint64_t t,
                          const void *payload, uint32_t len)
{
    for (;;) {
        int rc = gbl_send_msg(s->l, type, cport, id, t, payload, len);
        if (rc == 0)
            return;
        if (rc != -EAGAIN) {
            fprintf(stderr, "bench_gblink: send: %d %s\n", rc, gbl_error(s->l));
            exit(1);
        }
        s->writable = 0;
        while (!s->writable && !s->down) {
            wait_fd(s->l);
            gbl_process(s->l);
        }
        if (s->down)
            return;
    }
}

/* Acknowledgements are sent after gbl_process() returns, never from inside a callback. */
static void child_record(void *ctx, const gbl_record *rec)
{
    side *s = ctx;

    s->received++;
    if (rec->cport == 1 && s->nlat < LAT_SAMPLES)   /* latency phase */
        s->lat[s->nlat++] = now_ns() - rec->time_ns;
    if (rec->cport == 1 || rec->id == s->n_rate - 1) {
        s->ack_pending = 1;
        s->ack_cport = rec->cport;
        s->ack_id = rec->id;
    }
}

static void parent_record(void *ctx, const gbl_record *rec)
{
    side *s = ctx;
    if (rec->type == GBL_T_RESULT) {
        s->acks++;
        s->last_ack = rec->id;
    }
}

static void on_writable(void *ctx)
{
    ((side *)ctx)->writable = 1;
}

static void on_down(void *ctx, int err, const char *why)
{
    side *s = ctx;
    (void)err;
    s->down = 1;
    if (s->acks < 1 + LAT_SAMPLES)     /* the receiver leaves after the last ack */
        fprintf(stderr, "bench_gblink: link down: %s\n", why);
}

static void on_down_quiet(void *ctx, int err, const char *why)
{
    side *s = ctx;
    if (s->nlat < LAT_SAMPLES)
        fprintf(stderr, "bench_gblink: receiver: link down (%d): %s\n", err, why);
    s->down = 1;
}

static int bench_gblink(uint32_t size, uint32_t n_rate, result *out)
{
    char path[108], err[256];
    gbl_callbacks pcb = { .record = parent_record, .writable = on_writable, .down = on_down };
    uint8_t payload[4096];
    side s = { .n_rate = n_rate };
    int pfd[2];
    pid_t pid;

    memset(payload, 0x5a, sizeof(payload));
    snprintf(path, sizeof(path), "/tmp/gbl-bench-%d.sock", (int)getpid());
    s.l = gbl_server_new(path, NULL, &pcb, &s, err, sizeof(err));
    if (!s.l || pipe(pfd) < 0) {
        fprintf(stderr, "bench_gblink: %s\n", err);
        return -1;
    }
    pid = fork();
    if (pid == 0) {
        gbl_callbacks ccb = { .record = child_record, .writable = on_writable,
                              .down = on_down_quiet };
        side c = { .n_rate = n_rate, .lat = calloc(LAT_SAMPLES, sizeof(uint64_t)) };
        double r[2];

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(pfd[0]);
        c.l = gbl_client_new(path, NULL, &ccb, &c, err, sizeof(err));
        if (!c.l || !c.lat || gbl_connect(c.l) < 0)
            _exit(2);
        while (!c.down && (c.nlat < LAT_SAMPLES || c.ack_pending)) {
            gbl_result ack = { .status = 0, .request_type = GBL_T_GB_MESSAGE };
            if (c.ack_pending) {
                c.ack_pending = 0;
                send_blocking(&c, GBL_T_RESULT, c.ack_cport, c.ack_id, 0, &ack, sizeof(ack));
            }
            if (c.nlat >= LAT_SAMPLES)
                break;
            wait_fd(c.l);
            gbl_process(c.l);
        }
        percentiles(c.lat, c.nlat ? c.nlat : 1, &r[0], &r[1]);
        if (write(pfd[1], r, sizeof(r)) != (ssize_t)sizeof(r))
            _exit(3);
        gbl_free(c.l);
        free(c.lat);
        _exit(c.nlat == LAT_SAMPLES ? 0 : 4);
    }
    close(pfd[1]);
    while (gbl_state(s.l) != GBL_STATE_UP) {
        wait_fd(s.l);
        gbl_process(s.l);
    }

    uint64_t t0 = now_ns();
    for (uint32_t i = 0; i < n_rate && !s.down; i++) {
        send_blocking(&s, GBL_T_GB_MESSAGE, 0, i, 0, payload, size);
        if ((i & 63) == 0)
            gbl_process(s.l);
    }
    while (s.acks < 1 && !s.down) {
        wait_fd(s.l);
        gbl_process(s.l);
    }
    out->rate = (double)n_rate / ((double)(now_ns() - t0) / 1e9);

    for (uint32_t i = 0; i < LAT_SAMPLES && !s.down; i++) {
        send_blocking(&s, GBL_T_GB_MESSAGE, 1, i, now_ns(), payload, size);
        while (s.acks < 2 + (uint64_t)i && !s.down) {
            wait_fd(s.l);
            gbl_process(s.l);
        }
    }
    double r[2] = { 0, 0 };
    int status = 0;
    if (read(pfd[0], r, sizeof(r)) != (ssize_t)sizeof(r))
        fprintf(stderr, "bench_gblink: no latency figures from the child\n");
    close(pfd[0]);
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "bench_gblink: receiver exited with status 0x%x\n", status);
    gbl_free(s.l);
    out->p50 = r[0];
    out->p99 = r[1];
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && s.acks == 1 + LAT_SAMPLES ? 0
                                                                                   : -1;
}

/* ---- Unix-socket baseline ------------------------------------------------------------ */

typedef struct msg_hdr {           /* the same 24 bytes a gblink record header has */
    uint32_t len;
    uint16_t type;
    uint16_t cport;
    uint32_t id;
    uint32_t flags;
    uint64_t time_ns;
} msg_hdr;

static int bench_socket(uint32_t size, uint32_t n_rate, result *out)
{
    int sv[2], pfd[2];
    uint8_t buf[sizeof(msg_hdr) + 4096];
    msg_hdr h = { 0 };
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0 || pipe(pfd) < 0)
        return -1;
    /* Room for many records in flight, as the gblink ring has. */
    int sz = 256 * 1024;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    pid = fork();
    if (pid == 0) {
        uint64_t *lat = calloc(LAT_SAMPLES, sizeof(uint64_t));
        size_t nlat = 0;
        double r[2];

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(sv[0]);
        close(pfd[0]);
        while (lat && nlat < LAT_SAMPLES) {
            ssize_t n = recv(sv[1], buf, sizeof(buf), 0);
            if (n < (ssize_t)sizeof(msg_hdr))
                _exit(2);
            memcpy(&h, buf, sizeof(h));
            if (h.cport == 1)
                lat[nlat++] = now_ns() - h.time_ns;
            if (h.cport == 1 || h.id == n_rate - 1) {
                msg_hdr ack = { .len = sizeof(ack), .type = GBL_T_RESULT, .id = h.id };
                if (send(sv[1], &ack, sizeof(ack), 0) != (ssize_t)sizeof(ack))
                    _exit(3);
            }
        }
        percentiles(lat, nlat ? nlat : 1, &r[0], &r[1]);
        if (write(pfd[1], r, sizeof(r)) != (ssize_t)sizeof(r))
            _exit(4);
        free(lat);
        _exit(0);
    }
    close(sv[1]);
    close(pfd[1]);
    memset(buf, 0x5a, sizeof(buf));
    h.len = (uint32_t)sizeof(h) + size;
    h.type = GBL_T_GB_MESSAGE;

    uint64_t t0 = now_ns();
    for (uint32_t i = 0; i < n_rate; i++) {
        h.id = i;
        memcpy(buf, &h, sizeof(h));
        if (send(sv[0], buf, sizeof(h) + size, 0) < 0)
            return -1;
    }
    if (recv(sv[0], buf, sizeof(buf), 0) < (ssize_t)sizeof(msg_hdr))
        return -1;
    out->rate = (double)n_rate / ((double)(now_ns() - t0) / 1e9);

    h.cport = 1;
    for (uint32_t i = 0; i < LAT_SAMPLES; i++) {
        h.id = i;
        h.time_ns = now_ns();
        memcpy(buf, &h, sizeof(h));
        if (send(sv[0], buf, sizeof(h) + size, 0) < 0
            || recv(sv[0], buf, sizeof(buf), 0) < (ssize_t)sizeof(msg_hdr))
            return -1;
    }
    double r[2] = { 0, 0 };
    int status = 0;
    if (read(pfd[0], r, sizeof(r)) != (ssize_t)sizeof(r))
        return -1;
    close(pfd[0]);
    close(sv[0]);
    waitpid(pid, &status, 0);
    out->p50 = r[0];
    out->p99 = r[1];
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void print(const char *name, const result *g, const result *b)
{
    printf("bench gblink.%s.rate %.4g records/s\n", name, g->rate);
    printf("bench gblink.%s.rate.baseline %.4g records/s\n", name, b->rate);
    printf("bench gblink.%s.p50 %.0f ns\n", name, g->p50);
    printf("bench gblink.%s.p50.baseline %.0f ns\n", name, b->p50);
    printf("bench gblink.%s.p99 %.0f ns\n", name, g->p99);
    printf("bench gblink.%s.p99.baseline %.0f ns\n", name, b->p99);
    fflush(stdout);
}

int main(void)
{
    static const struct { const char *name; uint32_t size, n; } cases[] = {
        { "64B", 64, 1000000 },
        { "2048B", 2048, 200000 },
    };

    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        result g = { 0 }, b = { 0 };
        if (bench_gblink(cases[i].size, cases[i].n, &g) < 0
            || bench_socket(cases[i].size, cases[i].n, &b) < 0) {
            fprintf(stderr, "bench_gblink: %s failed\n", cases[i].name);
            return 1;
        }
        print(cases[i].name, &g, &b);
    }
    return 0;
}
