// SPDX-License-Identifier: MIT
// The one event loop: it serves the simulator (its gblink socket and the modules' ptys, and
// its clock) together with whatever a front end adds (the control socket, standard input,
// a signal descriptor, the guest agent's channel). Each pass waits in poll() until a
// descriptor is readable, the simulator's next event is due or the caller's limit passes,
// then hands the ready descriptors to their sources and lets the simulator run up to its
// clock: the wall clock (realtime) or its next event (unpaced).
#ifndef GBVP_SIM_LOOP_H
#define GBVP_SIM_LOOP_H

#include <poll.h>
#include <stddef.h>

#include "sim/simulator.h"

typedef struct sim_loop sim_loop;

/* Something the loop watches besides the simulator. pollfds names its descriptors for the
 * next wait (at most cap; returns how many it has); ready gets the same entries back with
 * revents filled, after every wait (also when none is ready, so it can notice time);
 * idle_for (may be NULL) says how much wall-clock time may pass before it wants a look
 * without any descriptor being ready (SIM_TIME_MAX: no limit); hold_at (may be NULL) says
 * the simulated time the source needs the clock to stop at (SIM_TIME_MAX: none), which a
 * lockstep simulator grants QEMU no time beyond (sim_simulator_hold). */
typedef struct sim_loop_source {
    size_t (*pollfds)(void *ctx, struct pollfd *fds, size_t cap);
    void (*ready)(void *ctx, const struct pollfd *fds, size_t n);
    sim_time (*idle_for)(void *ctx);
    sim_time (*hold_at)(void *ctx);
    void *ctx;
} sim_loop_source;

#define SIM_LOOP_SOURCES_MAX 8
#define SIM_LOOP_FDS_MAX 64

/* A loop for `sim` (borrowed), its wall clock starting now and given to the simulator
 * (sim_simulator_set_wall_clock). NULL when out of memory. */
sim_loop *sim_loop_new(sim_simulator *sim);
/* Takes the clock back from the simulator: free the loop before the simulator. */
void sim_loop_free(sim_loop *l);
/* Adds a source (copied); returns its handle (>= 0) or -ENOSPC. */
int sim_loop_add(sim_loop *l, const sim_loop_source *src);
void sim_loop_remove(sim_loop *l, int handle);

/* Picoseconds of wall-clock time since the loop was made. */
sim_time sim_loop_wall(const sim_loop *l);
/* One pass, waiting at most `max_wait` of wall-clock time. Returns the number of ready
 * descriptors, or -errno when poll() failed (EINTR is not a failure). */
int sim_loop_once(sim_loop *l, sim_time max_wait);
/* Busy-polling: after a pass that had input or ran events, the next wait first watches the
 * gblink ring and the clock for at most `max` of wall-clock time (no system call), and
 * sleeps only for what is left. An idle loop never spins. 0 (the default): never. */
void sim_loop_set_spin(sim_loop *l, sim_time max);
typedef struct sim_loop_spin_stats {
    uint64_t spins;  /* waits that spun first */
    uint64_t input;  /* of them, ended by QEMU's input */
    uint64_t due;    /* of them, ended by the next event falling due */
    sim_time spun;   /* wall-clock time spent spinning, ps */
} sim_loop_spin_stats;
void sim_loop_get_spin_stats(const sim_loop *l, sim_loop_spin_stats *out);
/* Passes until `wall_duration` of wall-clock time has gone by. */
void sim_loop_run_for(sim_loop *l, sim_time wall_duration);

#endif
