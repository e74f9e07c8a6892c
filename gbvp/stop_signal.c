// SPDX-License-Identifier: MIT
// SIGINT and SIGTERM as a descriptor (gbvp/stop_signal.h).
#include "gbvp/stop_signal.h"

#include <signal.h>
#include <stddef.h>
#include <sys/signalfd.h>

int sim_stop_signalfd(void)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    return signalfd(-1, &mask, SFD_CLOEXEC);
}
