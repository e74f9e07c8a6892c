// SPDX-License-Identifier: MIT
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/test_gblink_util.h"
#include "tests/unit/tmp_path.h"

static void cb_record(void *ctx, const gbl_record *rec)
{
    tep *e = ctx;

    e->received++;
    e->last = *rec;
    if (rec->len)
        memcpy(e->last_data, rec->payload, rec->len);
    e->last.payload = e->last_data;
    if (e->on_record)
        e->on_record(e, rec);
}

static void cb_up(void *ctx)
{
    tep *e = ctx;
    e->ups++;
}

static void cb_down(void *ctx, int err, const char *why)
{
    tep *e = ctx;

    e->downs++;
    e->last_err = err;
    snprintf(e->why, sizeof(e->why), "%s", why);
}

static void cb_writable(void *ctx)
{
    tep *e = ctx;
    e->writable++;
}

static void cb_notice(void *ctx, int err, const char *why)
{
    tep *e = ctx;

    e->notices++;
    e->last_err = err;
    snprintf(e->notice, sizeof(e->notice), "%s", why);
}

const gbl_callbacks tep_callbacks = {
    .record = cb_record, .up = cb_up, .down = cb_down, .writable = cb_writable,
};

const gbl_callbacks tep_callbacks_with_notice = {
    .record = cb_record, .up = cb_up, .down = cb_down, .writable = cb_writable,
    .notice = cb_notice,
};

const char *tep_path(char *buf, size_t len)
{
    static unsigned counter; /* test-only */
    char name[32];
    snprintf(name, sizeof(name), "link-%u.sock", counter++);
    return unit_tmp_path(buf, len, name);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int tep_run(tep **eps, int n, int (*done)(void *arg), void *arg, int timeout_ms)
{
    long end = now_ms() + timeout_ms;
    struct pollfd pfd[8];

    for (;;) {
        for (int i = 0; i < n; i++)
            gbl_process(eps[i]->l);
        if (done && done(arg))
            return 1;
        long left = end - now_ms();
        if (left <= 0)
            return 0;
        for (int i = 0; i < n; i++) {
            pfd[i].fd = gbl_fd(eps[i]->l);
            pfd[i].events = POLLIN;
        }
        poll(pfd, (nfds_t)n, left > 50 ? 50 : (int)left);
    }
}

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void tep_fill(uint8_t *buf, uint32_t len, uint32_t seq)
{
    uint32_t s = mix(seq + 1);

    for (uint32_t i = 0; i < len; i++) {
        if ((i & 3) == 0)
            s = mix(s + i);
        buf[i] = (uint8_t)(s >> ((i & 3) * 8));
    }
    if (len >= 4)
        memcpy(buf, &seq, 4);
}

int tep_check(const uint8_t *buf, uint32_t len, uint32_t seq)
{
    uint8_t want[GBL_MAX_PAYLOAD];

    if (len > sizeof(want))
        return 0;
    tep_fill(want, len, seq);
    return memcmp(want, buf, len) == 0;
}

uint32_t tep_len_for(uint32_t seq, uint32_t max)
{
    return 8 + mix(seq * 2654435761u) % (max - 7);
}

/* ---- fake peer ----------------------------------------------------------------------- */

int fake_connect(fake_peer *f, const char *path, uint16_t major)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    gbl_hs_hello h;

    memset(f, 0, sizeof(*f));
    f->sock = f->my_wake = f->peer_wake = -1;
    f->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    if (f->sock < 0 || connect(f->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return -errno;
    memset(&h, 0, sizeof(h));
    h.magic = GBL_HS_HELLO_MAGIC;
    h.version_major = major;
    h.version_minor = 0;
    snprintf(h.name, sizeof(h.name), "fake peer");
    return gbl_hs_send(f->sock, &h, sizeof(h), NULL, 0);
}

int fake_finish(fake_peer *f, char *reason, size_t len)
{
    gbl_hs_accept a;
    int fds[3], nfds;
    struct pollfd p = { .fd = f->sock, .events = POLLIN };
    long n;

    if (poll(&p, 1, 5000) != 1)
        return -1;
    n = gbl_hs_recv(f->sock, &a, sizeof(a), fds, 3, &nfds);
    if (n != (long)sizeof(a))
        return -1;
    if (a.status != GBL_HS_ACCEPTED) {
        a.reason[sizeof(a.reason) - 1] = '\0';
        snprintf(reason, len, "%s", a.reason);
        return 0;
    }
    if (nfds != 3)
        return -1;
    f->size = (size_t)a.total_size;
    f->ring_size = a.ring_size;
    f->base = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    close(fds[0]);
    f->my_wake = fds[1];
    f->peer_wake = fds[2];
    if (f->base == MAP_FAILED) {
        f->base = NULL;
        return -1;
    }
    gbl_ring_attach(&f->tx, f->base, f->ring_size, GBL_RING_C2S);
    gbl_ring_attach(&f->rx, f->base, f->ring_size, GBL_RING_S2C);
    return 1;
}

void fake_close(fake_peer *f)
{
    if (f->base)
        munmap(f->base, f->size);
    if (f->sock >= 0)
        close(f->sock);
    if (f->my_wake >= 0)
        close(f->my_wake);
    if (f->peer_wake >= 0)
        close(f->peer_wake);
    memset(f, 0, sizeof(*f));
    f->sock = f->my_wake = f->peer_wake = -1;
}

void fake_kick(fake_peer *f)
{
    uint64_t one = 1;
    if (write(f->peer_wake, &one, sizeof(one)) < 0)
        perror("fake_kick");
}

uint32_t *fake_ctrl(fake_peer *f, int ring, uint32_t field)
{
    return (uint32_t *)(f->base + GBL_RING_CTRL_OFFSET(ring) + field);
}

uint8_t *fake_data(fake_peer *f, int ring)
{
    return f->base + GBL_SHM_HEADER_SIZE + (size_t)ring * f->ring_size;
}

int fake_server_take(fake_server *s, tep *cli, gbl_hs_hello *hello)
{
    char err[256];
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fds[3], nfds;

    tep_path(s->path, sizeof(s->path));
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", s->path);
    s->conn = -1;
    s->listen = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s->listen < 0 || bind(s->listen, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(s->listen, 1) < 0)
        return -1;
    cli->l = gbl_client_new(s->path, NULL, &tep_callbacks, cli, err, sizeof(err));
    if (!cli->l || gbl_connect(cli->l) < 0)
        return -1;
    s->conn = accept4(s->listen, NULL, NULL, SOCK_CLOEXEC);
    if (s->conn < 0)
        return -1;
    return gbl_hs_recv(s->conn, hello, sizeof(*hello), fds, 3, &nfds) == (long)sizeof(*hello)
               ? 0 : -1;
}

void fake_server_close(fake_server *s, tep *cli)
{
    gbl_free(cli->l);
    cli->l = NULL;
    if (s->conn >= 0)
        close(s->conn);
    if (s->listen >= 0)
        close(s->listen);
    unlink(s->path);
}
