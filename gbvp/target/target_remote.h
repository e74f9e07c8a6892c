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
void sim_remote_free(sim_remote *r);
const sim_target *sim_remote_target(sim_remote *r);

#endif
