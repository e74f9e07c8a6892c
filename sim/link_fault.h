// SPDX-License-Identifier: MIT
// A fault on a modelled UniPro link, one type for everything that passes it on: the
// control socket's `fault` (gbvp/ctl/ctl_server.h), a scenario's gbvp.fault (gbvp/scenario/scenario.h) and
// the simulator's network (sim/network.h). Only the fields with set_* change.
#ifndef GBVP_SIM_LINK_FAULT_H
#define GBVP_SIM_LINK_FAULT_H

#include <stdbool.h>

#include "event-kernel/scheduler.h"

typedef struct sim_link_fault {
    bool set_ber, set_drop, set_down;
    double ber, drop;  /* [0, 0.01) / [0, 1) */
    bool down;         /* link down (frames on the wire lost) or up again (start-up, replay) */
    sim_time delay;    /* apply this much simulated time from now (0: at once) */
    sim_time down_for; /* with down: the link comes up again this long after going down */
} sim_link_fault;

#endif
