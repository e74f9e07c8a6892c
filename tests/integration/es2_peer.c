// SPDX-License-Identifier: MIT
// es2_peer: a misbehaving gblink server for testing QEMU's greybus-es2 device against a
// simulator that goes silent, lies or drops its side of the bridge. It is not an SVC: it
// says hello and then only does what it is told on standard input:
//
//   link-down | link-up   send GBL_T_LINK_DOWN / GBL_T_LINK_UP
//   garbage               send Greybus messages the device must drop (CPort beyond the
//                         count, header size that disagrees with the record, too long) and
//                         a result for a request that was never made
//   answer on|off         from now on answer every request with status OK (default off:
//                         requests are never answered)
//   quit                  exit
//
// Every record received is printed as "rx TYPE cport=N id=N len=N".
//
//   es2_peer --link PATH [--cports N]
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gblink/gblink.h"

typedef struct peer {
    gbl_link *link;
    int answer;
    uint16_t cports;
} peer;

static void on_record(void *ctx, const gbl_record *rec)
{
    peer *p = ctx;

    printf("rx %s cport=%u id=%u len=%u\n", gbl_type_name(rec->type), rec->cport, rec->id,
           rec->len);
    if (p->answer && rec->type >= GBL_T_CPORT_RESET && rec->type <= GBL_T_AUDIO_CONTROL)
        gbl_send_result(p->link, rec, GBL_STATUS_OK, NULL, 0, 0);
    fflush(stdout);
}

static void on_up(void *ctx)
{
    peer *p = ctx;
    gbl_hello h = { .version_major = GBL_VERSION_MAJOR, .version_minor = GBL_VERSION_MINOR,
                    .cport_count = p->cports };

    snprintf(h.name, sizeof(h.name), "es2_peer");
    gbl_send_msg(p->link, GBL_T_HELLO, GBL_CPORT_NONE, 0, 0, &h, sizeof(h));
    printf("up\n");
    fflush(stdout);
}

static void on_down(void *ctx, int err, const char *why)
{
    (void)ctx;
    printf("down %d %s\n", err, why);
    fflush(stdout);
}

static void send_garbage(peer *p)
{
    uint8_t m[64] = { 0 };
    gbl_result r = { .status = GBL_STATUS_OK, .request_type = GBL_T_CPORT_FLAGS };
    int n = 0;

    m[0] = 8;                               /* a header-only message... */
    n += gbl_send_msg(p->link, GBL_T_GB_MESSAGE, 200, 0, 0, m, 8) == 0;  /* bad CPort */
    m[0] = 20;                              /* header says 20, record has 12 */
    n += gbl_send_msg(p->link, GBL_T_GB_MESSAGE, 1, 0, 0, m, 12) == 0;
    n += gbl_send_msg(p->link, GBL_T_RESULT, GBL_CPORT_NONE, 99999, 0, &r, sizeof(r)) == 0;
    printf("garbage sent %d\n", n);
    fflush(stdout);
}

static void command(peer *p, char *line)
{
    gbl_link_state st = { 0 };

    line[strcspn(line, "\r\n")] = 0;
    if (!strcmp(line, "link-down"))
        gbl_send_msg(p->link, GBL_T_LINK_DOWN, GBL_CPORT_NONE, 0, 0, &st, sizeof(st));
    else if (!strcmp(line, "link-up"))
        gbl_send_msg(p->link, GBL_T_LINK_UP, GBL_CPORT_NONE, 0, 0, &st, sizeof(st));
    else if (!strcmp(line, "garbage"))
        send_garbage(p);
    else if (!strcmp(line, "answer on"))
        p->answer = 1;
    else if (!strcmp(line, "answer off"))
        p->answer = 0;
    else if (*line)
        fprintf(stderr, "es2_peer: unknown command '%s'\n", line);
    printf("did %s\n", line);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    gbl_callbacks cb = { .record = on_record, .up = on_up, .down = on_down };
    gbl_config cfg = { .name = "es2_peer" };
    peer p = { .cports = 44 };
    const char *path = NULL;
    char err[256], line[256];

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link") && i + 1 < argc)
            path = argv[++i];
        else if (!strcmp(argv[i], "--cports") && i + 1 < argc)
            p.cports = (uint16_t)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: es2_peer --link PATH [--cports N]\n");
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "es2_peer: --link PATH is required\n");
        return 2;
    }
    /* Unbuffered: poll() on fd 0 must see every line that fgets has not consumed. */
    setvbuf(stdin, NULL, _IONBF, 0);
    p.link = gbl_server_new(path, &cfg, &cb, &p, err, sizeof(err));
    if (!p.link) {
        fprintf(stderr, "es2_peer: %s\n", err);
        return 1;
    }
    for (;;) {
        struct pollfd fds[2] = { { gbl_fd(p.link), POLLIN, 0 }, { 0, POLLIN, 0 } };

        if (poll(fds, 2, 1000) < 0 && errno != EINTR)
            break;
        gbl_process(p.link);
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            if (!fgets(line, sizeof(line), stdin) || !strncmp(line, "quit", 4))
                break;
            command(&p, line);
        }
    }
    gbl_free(p.link);
    return 0;
}
