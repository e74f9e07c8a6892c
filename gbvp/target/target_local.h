// SPDX-License-Identifier: MIT
// A target in this process: the simulator object (sim/simulator.h) with its AP attached
// one of three ways, and the one event loop (sim/loop.h) serving them:
//   - test-ap: the 6.1-faithful test AP (ap-model/) straight on the simulator's bridge;
//     time is simulated and jumps to what happens next;
//   - gbvp-sim: the same test AP plays QEMU's greybus-es2 device and the host across a
//     real gblink connection to the simulator's socket; time simulated in steps;
//   - guest: an AP that connects over gblink from outside (QEMU's guest kernel); time is
//     the wall clock, and the guest agent (if given) runs commands in the guest while the
//     loop keeps serving the simulator.
#ifndef GBVP_GBVP_TARGET_TARGET_LOCAL_H
#define GBVP_GBVP_TARGET_TARGET_LOCAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ap-model/ap.h"
#include "gbvp/agent/agent_client.h"
#include "gbvp/target/target.h"
#include "sim/loop.h"
#include "sim/simulator.h"

typedef enum sim_local_ap {
    SIM_LOCAL_TEST_AP,        /* "test-ap" */
    SIM_LOCAL_TEST_AP_GBLINK, /* "gbvp-sim" */
    SIM_LOCAL_GUEST,          /* "guest" */
} sim_local_ap;

/* "test-ap", "gbvp-sim", "guest" (the words of --target). 0, or -1 for another word. */
int sim_local_ap_parse(const char *name, sim_local_ap *out);

typedef struct sim_local_config {
    sim_config sim;              /* the simulator; link_path: the gblink socket (gbvp-sim,
                                  * guest; NULL for gbvp-sim picks a private one) */
    sim_local_ap ap;
    bool verbose;                /* test AP: print its trace */
    const char *agent_path;      /* guest: the agent's socket, for guest_run (may be NULL) */
    unsigned connect_timeout_s;  /* guest: wait this long for QEMU and the SVC handshake
                                  * (0: do not wait) */
} sim_local_config;

typedef struct sim_local sim_local;

/* The simulator up with its AP attached and probed (guest: connected, when
 * connect_timeout_s asks so). NULL with a reason in err. */
sim_local *sim_local_new(const sim_local_config *cfg, char *err, size_t errlen);
void sim_local_free(sim_local *l);
const sim_target *sim_local_target(sim_local *l);
sim_simulator *sim_local_simulator(sim_local *l);
sim_loop *sim_local_loop(sim_local *l);
/* The test AP (NULL for a guest). */
tap *sim_local_test_ap(sim_local *l);
/* The guest agent (NULL without one). */
sim_agent *sim_local_agent(sim_local *l);

#endif
