// SPDX-License-Identifier: MIT
// The bridge reached over gblink: a gblink server on a Unix socket whose client is QEMU's
// greybus-es2 device (or any peer speaking docs/gblink.md). Records from the peer become
// bridge calls (messages, CPort control, link up and down) and are answered as gblink
// requires; messages for the AP become records. Every record for QEMU (messages and the
// answers to its requests) waits in one queue, in order, while the ring is full; the queue
// is bounded, and whatever is dropped or discarded is counted (sim_bridge_gblink_get_stats)
// and logged as a warning. The peer is untrusted: gblink checks every record, the bridge
// every message.
#ifndef GBVP_SIM_BRIDGE_GBLINK_H
#define GBVP_SIM_BRIDGE_GBLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/bridge.h"

typedef struct sim_bridge_gblink sim_bridge_gblink;

/* Most messages for the AP that wait for room in the ring. QEMU takes records out of the
 * ring until 256 messages wait for the guest (ES2_IN_QUEUE_MAX), and the ring holds
 * hundreds more; a guest that polls bulk IN drains such a burst in milliseconds. 4096 more
 * waiting here means QEMU has stopped reading (SIGSTOP, a debugger, a guest that stopped
 * polling): keeping more would only grow memory (2 KiB each, 8 MiB at this cap) for
 * messages that arrive too late to matter. QEMU drops at the same count in lockstep
 * (ES2_LOCKSTEP_QUEUE_MAX). */
#define SIM_BRIDGE_GBLINK_QUEUE_MAX 4096u
/* Places beyond it kept for answers to QEMU's requests, so that a queue full of messages
 * does not also cost the guest an answer (it would wait until its timeout): QEMU has at
 * most 32 ARPCs and one control transfer outstanding (ES2_ARPC_PENDING_MAX), twice that is
 * room enough; the reserve still bounds a peer that asks without reading. */
#define SIM_BRIDGE_GBLINK_RESULT_RESERVE 64u

/* What happened to records for QEMU, cumulative over the bridge's lifetime. Each drop and
 * discard is also logged as a warning (a flood once at its start and once summed up). */
typedef struct sim_bridge_gblink_stats {
    uint64_t queued;           /* records that found the ring full and waited for room */
    uint64_t queue_peak;       /* most records waiting at once */
    uint64_t waiting;          /* records waiting now */
    uint64_t messages_dropped; /* messages for the AP: the queue was full (or no memory) */
    uint64_t results_dropped;  /* answers to QEMU's requests: the queue was full */
    uint64_t discarded;        /* records waiting when QEMU went away or the bridge closed */
    uint64_t no_peer;          /* messages for the AP while no QEMU was connected */
    uint64_t oversize;         /* messages for the AP beyond ES2's 2048 bytes */
    uint64_t send_failed;      /* records gblink refused for another reason than room */
    uint64_t clients_refused;  /* peers turned away: another one was connected, or the
                                * process was out of file descriptors (gbl_stats.refused) */
} sim_bridge_gblink_stats;

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
/* The same with a ring of `ring_size` bytes each way (gbl_config.ring_size: a power of two
 * in [16 KiB, 64 MiB]; 0: gblink's 256 KiB). */
sim_bridge_gblink *sim_bridge_gblink_new_ring(sim_bridge *b, const char *path,
                                              const sim_bridge_gblink_lockstep *lockstep,
                                              uint32_t ring_size, sw_log_fn log, void *log_ctx,
                                              char *err, size_t errlen);
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
/* The counts of records for QEMU (see sim_bridge_gblink_stats). */
sim_bridge_gblink_stats sim_bridge_gblink_get_stats(const sim_bridge_gblink *g);

#endif
