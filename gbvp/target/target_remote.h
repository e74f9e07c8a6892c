// SPDX-License-Identifier: MIT
// A target in another process: a running simulator (gbvp sim --control PATH, or the one
// `gbvp run` starts) reached through its control socket. Every operation is one request
// and its reply (docs/control-protocol.md); time passes with `wait`, which the simulator
// answers once its clock has moved on. The guest agent, when given, is reached directly.
#ifndef GBVP_GBVP_TARGET_TARGET_REMOTE_H
#define GBVP_GBVP_TARGET_TARGET_REMOTE_H

#include <stddef.h>

#include "gbvp/target/target.h"

typedef struct sim_remote sim_remote;

/* Connects to the control socket at ctl_path (and to the guest agent at agent_path, which
 * may be NULL) and reads what the simulator offers. NULL with a reason in err. */
sim_remote *sim_remote_new(const char *ctl_path, const char *agent_path, char *err,
                           size_t errlen);
/* Like sim_remote_new, waiting agent_wait_ms for the guest agent (0: 300 s, in lockstep
 * 600 s). With agent_missing non-NULL, an agent that does not answer by then is no error:
 * *agent_missing is set, the reason is in err, and the target has no SIM_TARGET_GUEST. */
sim_remote *sim_remote_new_agent(const char *ctl_path, const char *agent_path, int agent_wait_ms,
                                 bool *agent_missing, char *err, size_t errlen);
void sim_remote_free(sim_remote *r);
const sim_target *sim_remote_target(sim_remote *r);

#endif
