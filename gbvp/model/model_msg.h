// SPDX-License-Identifier: MIT
// Running a described network (model_topo.h) at the message level (unipro-model/up_msg_net.h):
// `gbvp model --timing message`. Its statistics come out through model_net.h's writers.
#ifndef GBVP_GBVP_MODEL_MODEL_MSG_H
#define GBVP_GBVP_MODEL_MODEL_MSG_H

#include <stddef.h>

#include "gbvp/model/model_topo.h"

/* Saturating, constant-rate, Poisson and rr flows without end-to-end flow control on
 * node-to-node and node-to-switch links, no faults; anything else is refused naming its
 * line. 0 or -EINVAL with the reason in err. */
int model_run_message(model *m, sim_time duration, char *err, size_t errlen);

/* What model_run_message would refuse in m before it runs anything: 0, or -EINVAL with the
 * reason in err. A sweep asks it of every configuration before the first one runs. */
int model_check_message(const model *m, char *err, size_t errlen);

#endif
