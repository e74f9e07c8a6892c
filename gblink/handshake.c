// SPDX-License-Identifier: MIT
// Handshake messages on the Unix socket: one SOCK_SEQPACKET message each way, the reply
// carrying the shared memory and the doorbells as SCM_RIGHTS descriptors.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "layout.h"

#define MAX_FDS 3

int gbl_hs_send(int sock, const void *msg, size_t len, const int *fds, int nfds)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
    ssize_t n;

    if (nfds < 0 || nfds > MAX_FDS)
        return -EINVAL;
    if (nfds > 0) {
        struct cmsghdr *c;
        memset(&ctl, 0, sizeof(ctl));
        mh.msg_control = ctl.buf;
        mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    do
        n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    return (size_t)n == len ? 0 : -EIO;
}

/* Room for more descriptors than any gblink message carries: the kernel rounds the control
 * buffer up and fills what fits (CMSG_SPACE for 3 holds 4), and a hostile peer may send many.
 * Whatever arrives is closed unless it is wanted; beyond this room the kernel discards the
 * rest itself and says so with MSG_CTRUNC. */
#define RECV_FDS 16

long gbl_hs_recv(int sock, void *msg, size_t cap, int *fds, int maxfds, int *nfds)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * RECV_FDS)];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { .iov_base = msg, .iov_len = cap };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
        .msg_controllen = sizeof(ctl.buf),
    };
    int got = 0, bad = 0;
    ssize_t n;

    *nfds = 0;
    do
        n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (got < maxfds) {
                fds[got++] = fd;
            } else {
                close(fd);
                bad = 1;
            }
        }
    }
    *nfds = got;
    if (bad || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
        for (int i = 0; i < got; i++)
            close(fds[i]);
        *nfds = 0;
        return -EPROTO;
    }
    return (long)n;
}
