// SPDX-License-Identifier: MIT
// The simulator's half of lockstep (docs/timing-in-sim.md, "Lockstep"): which span of
// virtual time to grant the peer (QEMU's greybus-es2 device) once it reports, at a barrier,
// how far it got. Sans-IO: the owner feeds the peer's reports and the simulator's state
// (its next event, the time a front end holds the clock at) and sends the grants it returns.
// Times are virtual nanoseconds of the link (gblink's unit).
#ifndef GBVP_SIM_LOCKSTEP_H
#define GBVP_SIM_LOCKSTEP_H

#include <stdbool.h>
#include <stdint.h>

/* No event / no hold. */
#define SIM_LOCKSTEP_NEVER UINT64_MAX

typedef struct sim_lockstep_cfg {
    uint64_t quantum_ns;     /* shortest grant: bounds how late a message reaches the peer */
    uint64_t quantum_max_ns; /* longest grant while nothing is pending (idle skip) */
} sim_lockstep_cfg;

/* Defaults: 100 us and 10 ms. */
#define SIM_LOCKSTEP_QUANTUM_NS 100000u
#define SIM_LOCKSTEP_QUANTUM_MAX_NS 10000000u

typedef struct sim_lockstep sim_lockstep;

typedef struct sim_lockstep_stats {
    uint64_t reports;  /* barriers the peer reported */
    uint64_t grants;   /* grants returned */
    uint64_t holds;    /* reports answered late because a front end held the clock; unlike
                        * the others this depends on the host (how fast the front end was) */
    uint64_t skips;    /* grants longer than the quantum (nothing pending) */
} sim_lockstep_stats;

/* NULL when out of memory or when the quanta are 0 or max < quantum. */
sim_lockstep *sim_lockstep_new(const sim_lockstep_cfg *cfg);
void sim_lockstep_free(sim_lockstep *ls);

/* A new connection: the peer starts at 0 and has been granted nothing. */
void sim_lockstep_reset(sim_lockstep *ls);

/* The peer reached `t` and waits for a grant. Returns 0, or -EINVAL when t lies before a
 * time it reported earlier (time never goes back). A t a little beyond the last grant is
 * normal: the guest stops at the first instruction boundary at or after it. */
int sim_lockstep_reached(sim_lockstep *ls, uint64_t t);

/* True while the peer waits for a grant. */
bool sim_lockstep_waiting(const sim_lockstep *ls);
/* The last time the peer reported (0 before any). */
uint64_t sim_lockstep_peer_time(const sim_lockstep *ls);
/* The last time granted to the peer, in ns of link time (0: none yet; it starts parked at 0). */
uint64_t sim_lockstep_granted(const sim_lockstep *ls);

/* The grant for a waiting peer, given the simulator's next pending event (NEVER: none) and
 * the time a front end holds the clock at (NEVER: none). True with *until set: send it, the
 * peer no longer waits. False: nothing to send (the peer is not waiting, or the clock is
 * held at or before the peer's time). The grant is the peer's time plus the quantum, or
 * longer up to the next event when that lies further away (at most quantum_max), and never
 * beyond the hold. */
bool sim_lockstep_grant(sim_lockstep *ls, uint64_t next_event, uint64_t hold, uint64_t *until);

void sim_lockstep_get_stats(const sim_lockstep *ls, sim_lockstep_stats *out);

#endif
