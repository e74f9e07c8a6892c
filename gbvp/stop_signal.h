// SPDX-License-Identifier: MIT
// SIGINT and SIGTERM as a descriptor: the poll loops of `gbvp sim` and `gbvp scenario
// --control` stop cleanly when it becomes readable instead of dying in a handler.
#ifndef GBVP_GBVP_STOP_SIGNAL_H
#define GBVP_GBVP_STOP_SIGNAL_H

/* Blocks SIGINT and SIGTERM in the calling thread and returns a close-on-exec signalfd that
 * is readable once one of them arrives (the caller closes it); -1 with errno set when none
 * can be made (the signals are then left as they were: they end the process). */
int sim_stop_signalfd(void);

#endif
