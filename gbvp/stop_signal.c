// SPDX-License-Identifier: MIT
// SIGINT and SIGTERM as a descriptor (gbvp/stop_signal.h).
#include "gbvp/stop_signal.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/signalfd.h>

int sim_stop_signalfd(void)
{
    sigset_t mask, before;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_BLOCK, &mask, &before);
    int fd = signalfd(-1, &mask, SFD_CLOEXEC);
    if (fd < 0) {
        /* blocked with no descriptor to read them, Ctrl-C and SIGTERM would be lost and
         * the process could only be killed: they keep their default action instead */
        int e = errno;
        sigprocmask(SIG_SETMASK, &before, NULL);
        errno = e;
    }
    return fd;
}
