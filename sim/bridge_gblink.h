// SPDX-License-Identifier: MIT
// The bridge reached over gblink: a gblink server on a Unix socket whose client is QEMU's
// greybus-es2 device (or any peer speaking docs/gblink.md). Records from the peer become
// bridge calls (messages, CPort control, link up and down) and are answered as gblink
// requires; messages for the AP become records, queued while the ring is full. The peer
// is untrusted: gblink checks every record, the bridge every message.
#ifndef GBVP_SIM_BRIDGE_GBLINK_H
#define GBVP_SIM_BRIDGE_GBLINK_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/bridge.h"

typedef struct sim_bridge_gblink sim_bridge_gblink;

/* Listens on `path` and becomes the bridge's sink. NULL with a reason in err. The bridge
 * must outlive it. */
sim_bridge_gblink *sim_bridge_gblink_new(sim_bridge *b, const char *path, sw_log_fn log,
                                         void *log_ctx, char *err, size_t errlen);
void sim_bridge_gblink_free(sim_bridge_gblink *g);
/* The descriptor to poll for readability. */
int sim_bridge_gblink_fd(const sim_bridge_gblink *g);
/* Accepts, reads and answers whatever the peer sent, at simulated time `now`. Returns the
 * number of records handled. */
int sim_bridge_gblink_process(sim_bridge_gblink *g, sim_time now);
/* The peer is connected and the rings are up. */
bool sim_bridge_gblink_up(const sim_bridge_gblink *g);

#endif
