// SPDX-License-Identifier: MIT
// Host pseudo-terminal for the UART backend (see uart_pty.h).
#include "virtual-modules/uart_pty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

struct vm_uart_pty {
    int master, slave;
    char path[64];
};

vm_uart_pty *vm_uart_pty_open(char *err, size_t errlen)
{
    vm_uart_pty *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "uart pty: out of memory");
        return NULL;
    }
    p->slave = -1;
    p->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (p->master < 0 || grantpt(p->master) || unlockpt(p->master) ||
        ptsname_r(p->master, p->path, sizeof p->path)) {
        snprintf(err, errlen, "uart pty: cannot create a pseudo-terminal: %s",
                 strerror(errno));
        goto bad;
    }
    p->slave = open(p->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (p->slave < 0) {
        snprintf(err, errlen, "uart pty: cannot open %s: %s", p->path, strerror(errno));
        goto bad;
    }
    struct termios t;
    if (tcgetattr(p->slave, &t) == 0) {
        cfmakeraw(&t);
        tcsetattr(p->slave, TCSANOW, &t);
    }
    return p;
bad:
    vm_uart_pty_close(p);
    return NULL;
}

void vm_uart_pty_close(vm_uart_pty *p)
{
    if (!p)
        return;
    if (p->slave >= 0)
        close(p->slave);
    if (p->master >= 0)
        close(p->master);
    free(p);
}

const char *vm_uart_pty_path_of(const vm_uart_pty *p)
{
    return p->path;
}

int vm_uart_pty_fd(const vm_uart_pty *p)
{
    return p->master;
}

ssize_t vm_uart_pty_write(vm_uart_pty *p, const uint8_t *data, size_t len)
{
    ssize_t n = write(p->master, data, len);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    return n;
}

ssize_t vm_uart_pty_read(vm_uart_pty *p, uint8_t *buf, size_t cap)
{
    ssize_t n = read(p->master, buf, cap);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    return n;
}
