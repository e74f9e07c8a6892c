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

/* Lockstep (docs/timing-in-sim.md): the peer must offer GBL_FEATURE_LOCKSTEP; its records
 * are handled at their stamps (advance moves the simulator's clock there and returns the
 * time it reached) and its barriers are answered with grants (sim_bridge_gblink_grant). */
typedef struct sim_bridge_gblink_lockstep {
    struct sim_lockstep *ls;                      /* borrowed */
    sim_time (*advance)(void *ctx, sim_time to);
    void *ctx;
} sim_bridge_gblink_lockstep;

/* Realtime: the clock each record from the peer is handled at. A pass of the loop takes its
 * time before it reads the ring, so a record QEMU wrote meanwhile would enter the network
 * at a time before it was sent, and the guest could see a round trip shorter than the
 * model's. With a clock, each record is handled at `now()` as it is read (`advance` runs
 * the events due until then and returns the time reached). */
typedef struct sim_bridge_gblink_clock {
    sim_time (*now)(void *ctx);
    sim_time (*advance)(void *ctx, sim_time to);
    void *ctx;
} sim_bridge_gblink_clock;

/* Listens on `path` and becomes the bridge's sink; lockstep NULL: the peer's clock is not
 * followed. NULL with a reason in err. The bridge must outlive it. */
sim_bridge_gblink *sim_bridge_gblink_new(sim_bridge *b, const char *path,
                                         const sim_bridge_gblink_lockstep *lockstep,
                                         sw_log_fn log, void *log_ctx, char *err,
                                         size_t errlen);
void sim_bridge_gblink_free(sim_bridge_gblink *g);
/* The descriptor to poll for readability. */
int sim_bridge_gblink_fd(const sim_bridge_gblink *g);
/* Whether QEMU has written records not taken yet (gbl_has_records). */
bool sim_bridge_gblink_has_records(const sim_bridge_gblink *g);
/* Accepts, reads and answers whatever the peer sent, at simulated time `now`. Returns the
 * number of records handled. With `look` false only the time is taken: the caller knows
 * the descriptor is quiet and the ring empty. */
int sim_bridge_gblink_process(sim_bridge_gblink *g, sim_time now, bool look);
/* Realtime: handle each record at `clock`'s time as it is read (NULL: at the time given to
 * sim_bridge_gblink_process). Not with lockstep, whose records carry their own time. */
void sim_bridge_gblink_read_clock(sim_bridge_gblink *g, const sim_bridge_gblink_clock *clock);
/* The peer is connected and the rings are up. */
bool sim_bridge_gblink_up(const sim_bridge_gblink *g);
/* Lockstep: answers a waiting peer with its next span (sim/lockstep.h) given the simulator's
 * next event and the time the clock is held at (SIM_TIME_MAX: none), once every message
 * stamped before it is in the ring. True when a grant went out. */
bool sim_bridge_gblink_grant(sim_bridge_gblink *g, sim_time next_event, sim_time hold);

#endif
