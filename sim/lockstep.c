// SPDX-License-Identifier: MIT
// The simulator's half of lockstep (see lockstep.h).
#include "sim/lockstep.h"

#include <errno.h>
#include <stdlib.h>

struct sim_lockstep {
    sim_lockstep_cfg cfg;
    uint64_t peer;    /* last reported time */
    uint64_t granted; /* last grant (0: none yet; the peer starts parked at 0) */
    bool waiting;
    bool held;        /* the current report was held at least once */
    sim_lockstep_stats stats;
};

sim_lockstep *sim_lockstep_new(const sim_lockstep_cfg *cfg)
{
    if (!cfg->quantum_ns || cfg->quantum_max_ns < cfg->quantum_ns)
        return NULL;
    sim_lockstep *ls = calloc(1, sizeof *ls);
    if (ls)
        ls->cfg = *cfg;
    return ls;
}

void sim_lockstep_free(sim_lockstep *ls)
{
    free(ls);
}

void sim_lockstep_reset(sim_lockstep *ls)
{
    ls->peer = 0;
    ls->granted = 0;
    ls->waiting = false;
    ls->held = false;
}

int sim_lockstep_reached(sim_lockstep *ls, uint64_t t)
{
    /* beyond the grant is allowed: the guest stops at the first instruction boundary at or
     * after it, which may be a few nanoseconds later */
    if (t < ls->peer)
        return -EINVAL;
    ls->peer = t;
    ls->waiting = true;
    ls->held = false;
    ls->stats.reports++;
    return 0;
}

bool sim_lockstep_waiting(const sim_lockstep *ls)
{
    return ls->waiting;
}

uint64_t sim_lockstep_peer_time(const sim_lockstep *ls)
{
    return ls->peer;
}

uint64_t sim_lockstep_granted(const sim_lockstep *ls)
{
    return ls->granted;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

bool sim_lockstep_grant(sim_lockstep *ls, uint64_t next_event, uint64_t hold, uint64_t *until)
{
    if (!ls->waiting)
        return false;
    uint64_t t = ls->peer;
    if (hold <= t) {
        if (!ls->held)
            ls->stats.holds++;
        ls->held = true;
        return false;
    }
    uint64_t g = add_sat(t, ls->cfg.quantum_ns);
    if (next_event > g) { /* nothing due within the quantum: skip ahead to the event */
        uint64_t far = add_sat(t, ls->cfg.quantum_max_ns);
        g = next_event < far ? next_event : far;
    }
    if (g > hold)
        g = hold;
    if (g - t > ls->cfg.quantum_ns)
        ls->stats.skips++;
    ls->waiting = false;
    ls->granted = g;
    ls->stats.grants++;
    *until = g;
    return true;
}

void sim_lockstep_get_stats(const sim_lockstep *ls, sim_lockstep_stats *out)
{
    *out = ls->stats;
}
