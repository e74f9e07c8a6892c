// SPDX-License-Identifier: MIT
// One end of the link: the connection state machine (listen / connect, handshake, up, down),
// the doorbells and the glue between an event loop and the rings.
//
// Everything the caller's loop must watch is gathered in one epoll descriptor (gbl_fd()):
// the listening socket (server), the connected socket (handshake replies, peer death) and our
// own doorbell eventfd. gbl_process() asks epoll what is ready without waiting and does it.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "layout.h"

enum { TAG_LISTEN = 1, TAG_CONN = 2, TAG_WAKE = 3 };
#define DEFAULT_BUDGET 1024u

struct gbl_link {
    int is_server;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char name[48];
    uint32_t ring_size_cfg;
    uint32_t features_cfg;
    unsigned budget;
    gbl_callbacks cb;
    void *ctx;

    int ep;                        /* epoll: the one descriptor the caller watches */
    int listen_fd;                 /* server only */
    int lock_fd;                   /* server only: holds PATH.lock for the server's life */
    int spare_fd;                  /* server only: freed to refuse a client when out of fds */
    int conn_fd;                   /* -1 when not connected */
    int wake_fd;                   /* our doorbell (the peer writes it) */
    int peer_wake_fd;              /* the peer's doorbell */
    enum gbl_state state;
    unsigned gen;                  /* bumped at every teardown */

    uint8_t *shm;
    size_t shm_size;
    gbl_ring tx, rx;
    uint32_t features;
    int tx_blocked;
    uint32_t tx_blocked_len;

    gbl_stats stats;
    char err[256];
    _Alignas(8) uint8_t rxbuf[GBL_REC_MAX];
};

/* Formats the reason kept for gbl_error() (through a copy: the arguments may point into it). */
static void set_errv(gbl_link *l, const char *fmt, va_list ap)
{
    char tmp[sizeof(l->err)];

    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    memcpy(l->err, tmp, sizeof(tmp));
}

/* set_errv, and a copy in why (sizeof(l->err) bytes) for a callback, which may set l->err
 * anew while it runs. */
static void keep_reason(gbl_link *l, char *why, const char *fmt, va_list ap)
{
    set_errv(l, fmt, ap);
    memcpy(why, l->err, sizeof(l->err));
}

static void set_err(gbl_link *l, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    set_errv(l, fmt, ap);
    va_end(ap);
}

static void close_fd(gbl_link *l, int *fd)
{
    if (*fd >= 0) {
        epoll_ctl(l->ep, EPOLL_CTL_DEL, *fd, NULL);
        close(*fd);
        *fd = -1;
    }
}

static int watch(gbl_link *l, int fd, uint32_t tag, uint32_t events)
{
    struct epoll_event ev = { .events = events, .data.u32 = tag };
    return epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Forgets the current connection: closes its descriptors, unmaps the rings, and returns to
 * LISTENING (server) or IDLE (client). No callback. */
static void teardown(gbl_link *l)
{
    close_fd(l, &l->conn_fd);
    close_fd(l, &l->wake_fd);
    if (l->peer_wake_fd >= 0) {
        close(l->peer_wake_fd);
        l->peer_wake_fd = -1;
    }
    gbl_shm_unmap(l->shm, l->shm_size);
    l->shm = NULL;
    l->shm_size = 0;
    memset(&l->tx, 0, sizeof(l->tx));
    memset(&l->rx, 0, sizeof(l->rx));
    l->features = 0;
    l->tx_blocked = 0;
    l->tx_blocked_len = 0;
    l->state = l->is_server ? GBL_STATE_LISTENING : GBL_STATE_IDLE;
    l->gen++;
}

/* Tears the connection down and tells the caller why. Returns err. */
static int drop(gbl_link *l, int err, const char *fmt, ...)
{
    char why[sizeof(l->err)];
    va_list ap;

    va_start(ap, fmt);
    keep_reason(l, why, fmt, ap);
    va_end(ap);
    teardown(l);
    if (err == -EPROTO)
        l->stats.protocol_errors++;
    if (l->cb.down)
        l->cb.down(l->ctx, err, why);
    return err;
}

static void ring_doorbell(gbl_link *l, int fd)
{
    uint64_t one = 1;

    if (fd >= 0 && write(fd, &one, sizeof(one)) == (ssize_t)sizeof(one))
        l->stats.doorbells_rung++;
}

/* Reads our doorbell. An eventfd never reaches its end and never fails but with EAGAIN:
 * anything else means the peer passed something else as our doorbell, which would stay
 * readable forever (a busy loop). 0, or -EPROTO. */
static int drain_doorbell(gbl_link *l)
{
    uint64_t v;
    ssize_t n;

    if (l->wake_fd < 0)
        return 0;
    do
        n = read(l->wake_fd, &v, sizeof(v));
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof(v)) {
        l->stats.wakeups++;
        return 0;
    }
    if (n < 0 && errno == EAGAIN)
        return 0;
    return drop(l, -EPROTO, "our doorbell from the peer is not an eventfd (%s)",
                n < 0 ? strerror(errno) : n == 0 ? "it reached its end" : "a short read");
}

/* ---- construction ------------------------------------------------------------------- */

static gbl_link *link_new(int is_server, const char *path, const gbl_config *cfg,
                          const gbl_callbacks *cb, void *ctx, char *err, size_t errlen)
{
    gbl_link *l;
    uint32_t rs = cfg && cfg->ring_size ? cfg->ring_size : GBL_RING_DEFAULT;

    if (!path || strlen(path) >= sizeof(l->path)) {
        snprintf(err, errlen, "socket path %s", path ? "is too long for a Unix socket"
                                                      : "is missing");
        return NULL;
    }
    if (rs < GBL_RING_MIN || rs > GBL_RING_MAX || (rs & (rs - 1u))) {
        snprintf(err, errlen, "ring size %u is not a power of two in [%u, %u]", rs,
                 GBL_RING_MIN, GBL_RING_MAX);
        return NULL;
    }
    l = calloc(1, sizeof(*l));
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->is_server = is_server;
    memcpy(l->path, path, strlen(path) + 1);
    if (cfg && cfg->name)
        snprintf(l->name, sizeof(l->name), "%s", cfg->name);
    l->ring_size_cfg = rs;
    l->features_cfg = cfg ? cfg->features : 0;
    l->budget = cfg && cfg->budget ? cfg->budget : DEFAULT_BUDGET;
    if (cb)
        l->cb = *cb;
    l->ctx = ctx;
    l->listen_fd = l->lock_fd = l->spare_fd = l->conn_fd = l->wake_fd = l->peer_wake_fd = -1;
    l->state = is_server ? GBL_STATE_LISTENING : GBL_STATE_IDLE;
    l->ep = epoll_create1(EPOLL_CLOEXEC);
    if (l->ep < 0) {
        snprintf(err, errlen, "epoll_create1: %s", strerror(errno));
        free(l);
        return NULL;
    }
    return l;
}

static void fill_addr(struct sockaddr_un *sa, const char *path)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    memcpy(sa->sun_path, path, strlen(path) + 1);
}

/* Removes a stale socket file at path; refuses a live server or a non-socket file. */
static int clear_path(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sa;
    struct stat st;
    int fd;

    if (lstat(path, &st) < 0)
        return 0;
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a socket", path);
        return -EEXIST;
    }
    /* non-blocking: a server that is alive but not accepting (stopped, wedged) has a full
     * backlog, where a blocking connect would wait for ever */
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        fill_addr(&sa, path);
        int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
        if (rc < 0 && (errno == EAGAIN || errno == EINPROGRESS)) {
            snprintf(err, errlen, "a gblink server is listening on %s but not answering (its "
                     "queue of connections is full)", path);
            close(fd);
            return -EADDRINUSE;
        }
        if (rc == 0) {
            struct ucred who = { 0 };
            socklen_t len = sizeof(who);
            if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &who, &len) == 0 && who.pid > 0) {
                snprintf(err, errlen, "a gblink server (pid %d) is already listening on %s",
                         (int)who.pid, path);
            } else {
                snprintf(err, errlen, "a gblink server is already listening on %s", path);
            }
            close(fd);
            return -EADDRINUSE;
        }
        close(fd);
    }
    unlink(path);
    return 0;
}

/* PATH.lock, beside the socket. */
static void lock_path_of(const gbl_link *l, char *out, size_t cap)
{
    snprintf(out, cap, "%s.lock", l->path);
}

/* One server per path: a lock on PATH.lock, held for the server's life, refuses a second
 * instance with a clear message, where probing the socket alone leaves windows (between the
 * first one's bind and listen) in which the second would replace the first's socket. The
 * file is removed, still locked, when the server ends: who locks a file that is no longer at
 * the path tries again. */
static int lock_path(gbl_link *l, char *err, size_t errlen)
{
    char lp[sizeof(l->path) + 8];

    lock_path_of(l, lp, sizeof(lp));
    for (int tries = 0; tries < 8; tries++) {
        struct stat held, now;
        int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) {
            int e = errno;
            snprintf(err, errlen, "cannot create the lock file %s: %s", lp, strerror(e));
            return -e;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            int e = errno;
            char pid[16] = "";
            ssize_t n = e == EWOULDBLOCK ? pread(fd, pid, sizeof(pid) - 1, 0) : -1;
            close(fd);
            if (e == EWOULDBLOCK) {
                pid[n > 0 ? n : 0] = '\0';
                pid[strcspn(pid, "\n")] = '\0';
                if (pid[0])
                    snprintf(err, errlen, "another gblink server (pid %s) holds %s (%s is "
                             "locked)", pid, l->path, lp);
                else
                    snprintf(err, errlen, "another gblink server holds %s (%s is locked)",
                             l->path, lp);
                return -EADDRINUSE;
            }
            snprintf(err, errlen, "locking %s: %s", lp, strerror(e));
            return -e;
        }
        if (fstat(fd, &held) == 0 && stat(lp, &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino) {
            char pid[16];
            int len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
            /* (for the message a second server gives; the lock alone decides) */
            if (ftruncate(fd, 0) == 0)
                (void)!pwrite(fd, pid, (size_t)len, 0);
            l->lock_fd = fd;
            return 0;
        }
        close(fd); /* its holder removed it as we opened it */
    }
    snprintf(err, errlen, "the lock file %s keeps being replaced", lp);
    return -EBUSY;
}

static void unlock_path(gbl_link *l)
{
    char lp[sizeof(l->path) + 8];

    if (l->lock_fd < 0)
        return;
    lock_path_of(l, lp, sizeof(lp));
    unlink(lp);
    close(l->lock_fd);
    l->lock_fd = -1;
}

/* Binds and listens on the link's path (free by now) and watches the socket. 0 or -errno. */
static int listen_on(gbl_link *l, char *err, size_t errlen)
{
    struct sockaddr_un sa;
    int rc;

    l->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    fill_addr(&sa, l->path);
    int bound = l->listen_fd >= 0 && bind(l->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    if (bound && listen(l->listen_fd, 4) == 0) {
        rc = watch(l, l->listen_fd, TAG_LISTEN, EPOLLIN);
        if (rc == 0)
            return 0;
        errno = -rc;
    }
    rc = -errno;
    snprintf(err, errlen, "listening on %s: %s", l->path, strerror(errno));
    if (bound)
        unlink(l->path);
    if (l->listen_fd >= 0)
        close(l->listen_fd);
    l->listen_fd = -1;
    return rc;
}

gbl_link *gbl_server_new(const char *path, const gbl_config *cfg, const gbl_callbacks *cb,
                         void *ctx, char *err, size_t errlen)
{
    gbl_link *l = link_new(1, path, cfg, cb, ctx, err, errlen);

    if (!l)
        return NULL;
    if (lock_path(l, err, errlen) < 0 || clear_path(path, err, errlen) < 0)
        goto fail;
    l->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (l->spare_fd < 0) {
        snprintf(err, errlen, "no file descriptor to spare for %s: %s", path, strerror(errno));
        goto fail;
    }
    if (listen_on(l, err, errlen) < 0)
        goto fail;
    return l;
fail:
    if (l->spare_fd >= 0)
        close(l->spare_fd);
    unlock_path(l);
    close(l->ep);
    free(l);
    return NULL;
}

gbl_link *gbl_client_new(const char *path, const gbl_config *cfg, const gbl_callbacks *cb,
                         void *ctx, char *err, size_t errlen)
{
    return link_new(0, path, cfg, cb, ctx, err, errlen);
}

void gbl_disconnect(gbl_link *l)
{
    if (l)
        teardown(l);
}

void gbl_free(gbl_link *l)
{
    if (!l)
        return;
    teardown(l);
    if (l->listen_fd >= 0) {
        close(l->listen_fd);
        unlink(l->path);
    }
    if (l->spare_fd >= 0)
        close(l->spare_fd);
    unlock_path(l);
    close(l->ep);
    free(l);
}

/* ---- handshake ----------------------------------------------------------------------- */

int gbl_connect(gbl_link *l)
{
    struct sockaddr_un sa;
    gbl_hs_hello h;
    int fd, rc;

    if (l->is_server || l->state != GBL_STATE_IDLE)
        return -EISCONN;
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rc = -errno;
        set_err(l, "socket: %s", strerror(errno));
        return rc;
    }
    fill_addr(&sa, l->path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        rc = -errno;
        set_err(l, "connecting to %s: %s", l->path, strerror(errno));
        close(fd);
        return rc == -EINPROGRESS ? -EAGAIN : rc;
    }
    memset(&h, 0, sizeof(h));
    h.magic = GBL_HS_HELLO_MAGIC;
    h.version_major = GBL_VERSION_MAJOR;
    h.version_minor = GBL_VERSION_MINOR;
    h.features = l->features_cfg;
    memcpy(h.name, l->name, sizeof(h.name));
    rc = gbl_hs_send(fd, &h, sizeof(h), NULL, 0);
    if (rc == 0)
        rc = watch(l, fd, TAG_CONN, EPOLLIN | EPOLLRDHUP);
    if (rc < 0) {
        set_err(l, "sending the handshake to %s: %s", l->path, strerror(-rc));
        close(fd);
        return rc;
    }
    l->conn_fd = fd;
    l->state = GBL_STATE_HANDSHAKE;
    return 0;
}

static uint16_t min_u16(uint16_t a, uint16_t b)
{
    return a < b ? a : b;
}

static void refuse(int fd, const char *fmt, ...)
{
    gbl_hs_accept a;
    va_list ap;

    /* Unread messages at close() turn into ECONNRESET for the peer, which would then miss
     * the reason: read what the client sent first (its descriptors, if any, are closed). */
    for (int i = 0; i < 4; i++) {
        int fds[3], nfds;
        if (gbl_hs_recv(fd, &a, sizeof(a), fds, 0, &nfds) == -EAGAIN)
            break;
    }
    memset(&a, 0, sizeof(a));
    a.magic = GBL_HS_ACCEPT_MAGIC;
    a.version_major = GBL_VERSION_MAJOR;
    a.version_minor = GBL_VERSION_MINOR;
    a.status = GBL_HS_REFUSED;
    va_start(ap, fmt);
    vsnprintf(a.reason, sizeof(a.reason), fmt, ap);
    va_end(ap);
    (void)gbl_hs_send(fd, &a, sizeof(a), NULL, 0);
}

static void start_up(gbl_link *l, int tx_ring, int rx_ring, uint32_t ring_size)
{
    gbl_ring_attach(&l->tx, l->shm, ring_size, tx_ring);
    gbl_ring_attach(&l->rx, l->shm, ring_size, rx_ring);
    l->state = GBL_STATE_UP;
    l->stats.connections++;
    l->err[0] = '\0';
}

/* Tells the caller why a client was turned away, without touching the connection there
 * may be: through notice, or through down (its "handshake failed" case) when no client is
 * connected, whom a down would mislead. */
static void report_refusal(gbl_link *l, int err, const char *fmt, ...)
{
    char why[sizeof(l->err)];
    va_list ap;

    va_start(ap, fmt);
    keep_reason(l, why, fmt, ap);
    va_end(ap);
    l->stats.refused++;
    if (l->cb.notice)
        l->cb.notice(l->ctx, err, why);
    else if (l->state == GBL_STATE_LISTENING && l->cb.down)
        l->cb.down(l->ctx, err, why);
}

static int listen_on(gbl_link *l, char *err, size_t errlen);

/* Out of descriptors, a client waiting in the backlog keeps the listening socket readable
 * for ever, a busy loop: the spare descriptor kept for this makes room to accept the client
 * and tell it why it is refused. Without a spare (another thread took the descriptor it
 * freed), the listening socket is made anew, which empties its backlog (those clients see
 * their connection reset); this server holds the path's lock, so nobody else can take it
 * meanwhile. Returns whether accepting may go on. */
static int refuse_without_descriptors(gbl_link *l, int err)
{
    char why[200];
    /* (ENOBUFS, ENOMEM: the kernel had no memory for the socket; the same remedy) */
    const char *lack = err == EMFILE || err == ENFILE ? "file descriptors" : "memory";

    if (l->spare_fd >= 0) {
        close(l->spare_fd);
        int fd = accept4(l->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        int e = errno;
        if (fd >= 0) {
            refuse(fd, "the gblink server is out of %s", lack);
            close(fd);
        }
        l->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            report_refusal(l, -err, "refused a client on %s: this process is out of %s (%s)",
                           l->path, lack, strerror(err));
            return 1;
        }
        /* accept fails for want of a descriptor before it looks for a client: with one
         * free, nobody was waiting after all */
        if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ECONNABORTED)
            return 0;
    }
    close_fd(l, &l->listen_fd);
    unlink(l->path);
    if (listen_on(l, why, sizeof(why)) < 0) {
        report_refusal(l, -err, "stopped listening on %s: out of %s (%s), and %s", l->path,
                       lack, strerror(err), why);
        return 0;
    }
    report_refusal(l, -err, "out of %s (%s): reset the clients waiting on %s", lack,
                   strerror(err), l->path);
    return 0;
}

static void server_accept(gbl_link *l)
{
    for (;;) {
        int fd = accept4(l->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            if ((e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) &&
                refuse_without_descriptors(l, e))
                continue;
            return;
        }
        if (l->state == GBL_STATE_UP) {
            refuse(fd, "another client is connected to this gblink server");
            close(fd);
            l->stats.refused++;
            continue;
        }
        if (l->state == GBL_STATE_HANDSHAKE)
            teardown(l); /* a newer client replaces one that never finished its hello */
        if (watch(l, fd, TAG_CONN, EPOLLIN | EPOLLRDHUP) < 0) {
            close(fd);
            continue;
        }
        l->conn_fd = fd;
        l->state = GBL_STATE_HANDSHAKE;
    }
}

/* Server: the client's hello arrived (or not yet). */
static int server_handshake(gbl_link *l)
{
    gbl_hs_hello h;
    gbl_hs_accept a;
    int fds[3], nfds, memfd = -1, efd[2] = { -1, -1 }, rc;
    long n = gbl_hs_recv(l->conn_fd, &h, sizeof(h), fds, 0, &nfds);

    if (n == -EAGAIN)
        return 0;
    if (n <= 0 && n != -EPROTO) {
        set_err(l, "a client left during the handshake");
        teardown(l);
        if (l->cb.notice) /* (a client that never came up: nothing went down) */
            l->cb.notice(l->ctx, n ? (int)n : -ECONNRESET, l->err);
        return 0;
    }
    if (n == -EPROTO) {
        refuse(l->conn_fd, "a gblink hello is one message of %zu bytes without descriptors",
               sizeof(h));
        return drop(l, -EPROTO, "refused a client: its hello was longer than %zu bytes or "
                    "carried file descriptors", sizeof(h));
    }
    if (n != (long)sizeof(h) || h.magic != GBL_HS_HELLO_MAGIC) {
        refuse(l->conn_fd, "not a gblink hello message");
        return drop(l, -EPROTO, "refused a client: not a gblink hello (%ld bytes)", n);
    }
    h.name[sizeof(h.name) - 1] = '\0';
    if (h.version_major != GBL_VERSION_MAJOR) {
        refuse(l->conn_fd, "server speaks gblink %u.%u, client %u.%u: incompatible",
               GBL_VERSION_MAJOR, GBL_VERSION_MINOR, h.version_major, h.version_minor);
        return drop(l, -EPROTO, "refused client \"%s\": it speaks gblink %u.%u, this server "
                    "%u.%u (major versions differ)", h.name, h.version_major,
                    h.version_minor, GBL_VERSION_MAJOR, GBL_VERSION_MINOR);
    }
    memset(&a, 0, sizeof(a));
    a.magic = GBL_HS_ACCEPT_MAGIC;
    a.version_major = GBL_VERSION_MAJOR;
    a.version_minor = min_u16(h.version_minor, GBL_VERSION_MINOR);
    a.status = GBL_HS_ACCEPTED;
    a.features = h.features & l->features_cfg;
    a.ring_size = l->ring_size_cfg;
    a.header_size = GBL_SHM_HEADER_SIZE;
    a.total_size = (uint64_t)GBL_SHM_HEADER_SIZE + 2u * (uint64_t)a.ring_size;
    a.max_payload = GBL_MAX_PAYLOAD;

    rc = gbl_shm_create(a.ring_size, a.features, a.version_minor, &memfd, &l->shm,
                        &l->shm_size, l->err, sizeof(l->err));
    if (rc < 0) {
        refuse(l->conn_fd, "server could not create the shared memory");
        return drop(l, rc, "%s", l->err);
    }
    efd[0] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    efd[1] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (efd[0] < 0 || efd[1] < 0) {
        rc = -errno;
        goto fail;
    }
    fds[0] = memfd;
    fds[1] = efd[0];               /* the client's doorbell */
    fds[2] = efd[1];               /* the server's doorbell */
    rc = gbl_hs_send(l->conn_fd, &a, sizeof(a), fds, 3);
    if (rc < 0)
        goto fail;
    close(memfd);
    l->peer_wake_fd = efd[0];
    l->wake_fd = efd[1];
    if (watch(l, l->wake_fd, TAG_WAKE, EPOLLIN) < 0)
        return drop(l, -errno, "epoll: %s", strerror(errno));
    l->features = a.features;
    start_up(l, GBL_RING_S2C, GBL_RING_C2S, a.ring_size);
    if (l->cb.up)
        l->cb.up(l->ctx);
    return 0;
fail:
    if (memfd >= 0)
        close(memfd);
    for (int i = 0; i < 2; i++)
        if (efd[i] >= 0)
            close(efd[i]);
    return drop(l, rc, "handshake with client \"%s\" failed: %s", h.name, strerror(-rc));
}

/* Whether fd is an eventfd, as a doorbell must be: anything else could stay readable for
 * ever (a busy loop) or raise SIGPIPE when rung. Where /proc cannot say, the doorbell's
 * reads check it instead (drain_doorbell). */
static int is_eventfd(int fd)
{
    char proc[40], target[64];
    ssize_t n;

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    n = readlink(proc, target, sizeof(target) - 1);
    if (n < 0)
        return 1;
    target[n] = '\0';
    return strcmp(target, "anon_inode:[eventfd]") == 0;
}

static void close_fds(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

/* Client: the server's reply arrived (or not yet). */
static int client_handshake(gbl_link *l)
{
    gbl_hs_accept a;
    int fds[3], nfds = 0, rc;
    long n = gbl_hs_recv(l->conn_fd, &a, sizeof(a), fds, 3, &nfds);

    if (n == -EAGAIN)
        return 0;
    if (n == 0)
        return drop(l, -ECONNRESET, "server closed the connection during the handshake");
    if (n == -EPROTO)
        return drop(l, -EPROTO, "server's handshake reply was longer than %zu bytes or "
                    "carried more than 3 descriptors", sizeof(a));
    if (n < 0)
        return drop(l, (int)n, "handshake: %s", strerror((int)-n));
    if (n != (long)sizeof(a) || a.magic != GBL_HS_ACCEPT_MAGIC) {
        close_fds(fds, nfds);
        return drop(l, -EPROTO, "server sent no valid gblink handshake reply (%ld bytes)",
                    n);
    }
    a.reason[sizeof(a.reason) - 1] = '\0';
    if (a.status != GBL_HS_ACCEPTED) {
        close_fds(fds, nfds);
        return drop(l, -EPROTO, "server refused the connection: %s", a.reason);
    }
    if (a.version_major != GBL_VERSION_MAJOR) {
        close_fds(fds, nfds);
        return drop(l, -EPROTO, "server speaks gblink %u.%u, this client %u.%u (major "
                    "versions differ)", a.version_major, a.version_minor,
                    GBL_VERSION_MAJOR, GBL_VERSION_MINOR);
    }
    if (nfds != 3) {
        close_fds(fds, nfds);
        return drop(l, -EPROTO, "server passed %d descriptors instead of 3", nfds);
    }
    for (int i = 1; i < 3; i++) {
        if (!is_eventfd(fds[i])) {
            close_fds(fds, nfds);
            return drop(l, -EPROTO, "server passed something other than an eventfd as %s "
                        "doorbell", i == 1 ? "our" : "its");
        }
    }
    rc = gbl_shm_map_peer(fds[0], &a, &l->shm, &l->shm_size, l->err, sizeof(l->err));
    close(fds[0]);
    if (rc < 0) {
        close(fds[1]);
        close(fds[2]);
        return drop(l, rc, "%s", l->err);
    }
    /* Never let a descriptor from the peer block us, whatever it really is. */
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    fcntl(fds[2], F_SETFL, O_NONBLOCK);
    l->wake_fd = fds[1];
    l->peer_wake_fd = fds[2];
    if (watch(l, l->wake_fd, TAG_WAKE, EPOLLIN) < 0)
        return drop(l, -EPROTO, "server's doorbell cannot be watched: %s", strerror(errno));
    l->features = a.features & l->features_cfg;
    start_up(l, GBL_RING_C2S, GBL_RING_S2C, a.ring_size);
    if (l->cb.up)
        l->cb.up(l->ctx);
    return 0;
}

/* UP: the socket is readable: the peer closed it (or died), or broke the protocol. */
static int conn_event(gbl_link *l)
{
    char c;
    ssize_t n = recv(l->conn_fd, &c, 1, MSG_DONTWAIT);

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n > 0)
        return drop(l, -EPROTO, "peer sent an unexpected socket message while up");
    return drop(l, -ECONNRESET, "peer closed the connection%s%s", n < 0 ? ": " : "",
                n < 0 ? strerror(errno) : "");
}

/* ---- data path ----------------------------------------------------------------------- */

static int pump(gbl_link *l)
{
    unsigned gen = l->gen;
    int delivered = 0, consumed = 0;
    char why[200];

    while ((unsigned)delivered < l->budget) {
        uint32_t len;
        gbl_wire_record w;
        gbl_record rec;
        int rc = gbl_ring_read(&l->rx, l->rxbuf, &len, why, sizeof(why));

        if (rc < 0)
            return drop(l, -EPROTO, "%s", why);
        if (rc == 0) {
            if (consumed && gbl_ring_consumer_kick(&l->rx))
                ring_doorbell(l, l->peer_wake_fd);
            consumed = 0;
            if (gbl_ring_consumer_arm(&l->rx))
                continue;
            break;
        }
        consumed = 1;
        memcpy(&w, l->rxbuf, sizeof(w));
        rec.type = w.type;
        rec.cport = w.cport;
        rec.id = w.id;
        rec.time_ns = w.time_ns;
        rec.len = len - GBL_REC_HEADER;
        rec.payload = rec.len ? l->rxbuf + GBL_REC_HEADER : NULL;
        if (gbl_record_check(&rec, why, sizeof(why)) < 0)
            return drop(l, -EPROTO, "peer sent a bad record: %s", why);
        l->stats.received++;
        delivered++;
        if (l->cb.record)
            l->cb.record(l->ctx, &rec);
        if (l->gen != gen)
            return delivered;      /* the callback dropped or disconnected the link */
    }
    if (consumed && gbl_ring_consumer_kick(&l->rx))
        ring_doorbell(l, l->peer_wake_fd);
    if ((unsigned)delivered >= l->budget)
        ring_doorbell(l, l->wake_fd); /* more to do: keep our descriptor readable */
    if (l->tx_blocked) {
        int fits = gbl_ring_fits(&l->tx, l->tx_blocked_len, why, sizeof(why));
        if (fits < 0)
            return drop(l, -EPROTO, "%s", why);
        if (fits) {
            l->tx_blocked = 0;
            if (l->cb.writable)
                l->cb.writable(l->ctx);
        }
    }
    return delivered;
}

int gbl_process(gbl_link *l)
{
    struct epoll_event ev[4];
    int n, listen_ready = 0, conn_ready = 0, wake_ready = 0, delivered = 0, rc;
    unsigned gen = l->gen;

    n = epoll_wait(l->ep, ev, 4, 0);
    for (int i = 0; i < n; i++) {
        switch (ev[i].data.u32) {
        case TAG_LISTEN: listen_ready = 1; break;
        case TAG_CONN: conn_ready = 1; break;
        case TAG_WAKE: wake_ready = 1; break;
        default: break;
        }
    }
    if (wake_ready) {
        rc = drain_doorbell(l);
        if (rc < 0)
            return rc;
    }
    if (l->state == GBL_STATE_UP) {
        rc = pump(l);
        if (rc < 0)
            return rc;
        delivered += rc;
        /* Records the peer wrote before it died are still delivered: look at the socket
         * only once the ring is empty (the budget being used up means it may not be). */
        if (conn_ready && l->state == GBL_STATE_UP && l->gen == gen
            && (unsigned)rc < l->budget) {
            rc = conn_event(l);
            if (rc < 0)
                return rc;
        }
    } else if (l->state == GBL_STATE_HANDSHAKE && conn_ready) {
        rc = l->is_server ? server_handshake(l) : client_handshake(l);
        if (rc < 0)
            return rc;
        if (l->state == GBL_STATE_UP) {
            rc = pump(l);
            if (rc < 0)
                return rc;
            delivered += rc;
        }
    }
    if (listen_ready && l->is_server) {
        server_accept(l);
        if (l->state == GBL_STATE_HANDSHAKE) {
            rc = server_handshake(l);  /* the hello is usually already there */
            if (rc < 0)
                return rc;
        }
    }
    return delivered;
}

int gbl_send(gbl_link *l, const gbl_record *rec)
{
    char why[200];
    int rc;

    if (l->state != GBL_STATE_UP)
        return -ENOTCONN;
    if (gbl_record_check(rec, why, sizeof(why)) < 0) {
        set_err(l, "refusing to send: %s", why);
        return -EINVAL;
    }
    rc = gbl_ring_write(&l->tx, rec, why, sizeof(why));
    if (rc == -EAGAIN) {
        l->tx_blocked = 1;
        l->tx_blocked_len = rec->len;
        l->stats.would_block++;
        return rc;
    }
    if (rc < 0)
        return drop(l, rc, "%s", why);
    l->stats.sent++;
    if (gbl_ring_producer_kick(&l->tx))
        ring_doorbell(l, l->peer_wake_fd);
    return 0;
}

int gbl_send_msg(gbl_link *l, uint16_t type, uint16_t cport, uint32_t id, uint64_t time_ns,
                 const void *payload, uint32_t len)
{
    gbl_record r = {
        .type = type, .cport = cport, .id = id, .time_ns = time_ns, .len = len,
        .payload = payload,
    };
    return gbl_send(l, &r);
}

int gbl_send_result(gbl_link *l, const gbl_record *request, uint8_t status,
                    const void *data, uint32_t len, uint64_t time_ns)
{
    _Alignas(8) uint8_t buf[GBL_MAX_PAYLOAD];
    gbl_result res = { .status = status, .request_type = request->type };

    if (len > GBL_MAX_PAYLOAD - sizeof(res) || (len && !data)) {
        set_err(l, "result data of %u bytes does not fit a record", len);
        return -EINVAL;
    }
    memcpy(buf, &res, sizeof(res));
    if (len)
        memcpy(buf + sizeof(res), data, len);
    return gbl_send_msg(l, GBL_T_RESULT, request->cport, request->id, time_ns, buf,
                        (uint32_t)sizeof(res) + len);
}

/* ---- accessors ----------------------------------------------------------------------- */

int gbl_fd(const gbl_link *l)
{
    return l->ep;
}

enum gbl_state gbl_state(const gbl_link *l)
{
    return l->state;
}

const char *gbl_error(const gbl_link *l)
{
    return l->err;
}

uint32_t gbl_features(const gbl_link *l)
{
    return l->state == GBL_STATE_UP ? l->features : 0;
}

bool gbl_has_records(const gbl_link *l)
{
    return l->state == GBL_STATE_UP && gbl_ring_has_data(&l->rx);
}

uint32_t gbl_ring_size(const gbl_link *l)
{
    return l->state == GBL_STATE_UP ? l->tx.size : 0;
}

void gbl_get_stats(const gbl_link *l, gbl_stats *out)
{
    *out = l->stats;
}
