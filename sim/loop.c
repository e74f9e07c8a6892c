// SPDX-License-Identifier: MIT
// The one event loop (see loop.h).
#include "sim/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

typedef struct loop_slot {
    bool used;
    sim_loop_source src;
    size_t first, count; /* its entries in the pollfd array of the current pass */
} loop_slot;

struct sim_loop {
    sim_simulator *sim;
    struct timespec t0;
    loop_slot sources[SIM_LOOP_SOURCES_MAX];
    sim_time spin;       /* busy-poll at most this long before a wait (0: never) */
    bool busy;           /* the last pass had input or ran events */
    sim_loop_spin_stats spin_st;
};

static sim_time loop_wall(void *ctx)
{
    return sim_loop_wall(ctx);
}

sim_loop *sim_loop_new(sim_simulator *sim)
{
    sim_loop *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->sim = sim;
    /* The realtime clock's waits are for the next modelled event, often a few microseconds
     * away; Linux lets a timed wait overrun by the thread's timer slack, 50 us unless told,
     * which would hold every message back by up to that much (QEMU sets 1 ns for its main
     * loop, for the same reason). */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    clock_gettime(CLOCK_MONOTONIC, &l->t0);
    if (sim)
        sim_simulator_set_wall_clock(sim, loop_wall, l);
    return l;
}

void sim_loop_free(sim_loop *l)
{
    if (l && l->sim)
        sim_simulator_set_wall_clock(l->sim, NULL, NULL);
    free(l);
}

int sim_loop_add(sim_loop *l, const sim_loop_source *src)
{
    for (int i = 0; i < SIM_LOOP_SOURCES_MAX; i++)
        if (!l->sources[i].used) {
            l->sources[i] = (loop_slot){ .used = true, .src = *src };
            return i;
        }
    return -ENOSPC;
}

void sim_loop_remove(sim_loop *l, int handle)
{
    if (handle >= 0 && handle < SIM_LOOP_SOURCES_MAX)
        l->sources[handle].used = false;
}

sim_time sim_loop_wall(const sim_loop *l)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t ns = (int64_t)(t.tv_sec - l->t0.tv_sec) * 1000000000 + (t.tv_nsec - l->t0.tv_nsec);
    return (sim_time)ns * 1000u;
}

void sim_loop_set_spin(sim_loop *l, sim_time max)
{
    l->spin = max;
}

void sim_loop_get_spin_stats(const sim_loop *l, sim_loop_spin_stats *out)
{
    *out = l->spin_st;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* Before a wait of `wait` after a busy pass: watches the gblink ring and the clock for at
 * most the spin limit, so that QEMU's next message or an event due soon is taken without
 * the sleep and wake-up (tens of microseconds on a loaded host). Returns what is left of
 * the wait: 0 when input came or the event is due. */
static sim_time spin_before_wait(sim_loop *l, sim_time wait)
{
    if (!l->spin || !l->busy || !wait || !l->sim)
        return wait;
    sim_time start = sim_loop_wall(l), limit = wait < l->spin ? wait : l->spin, spent = 0;
    bool input = false;
    while (spent < limit && !(input = sim_simulator_input_waiting(l->sim))) {
        cpu_relax();
        spent = sim_loop_wall(l) - start;
    }
    l->spin_st.spins++;
    l->spin_st.spun += spent;
    if (input) {
        l->spin_st.input++;
        return 0;
    }
    if (spent >= wait) {
        l->spin_st.due++;
        return 0;
    }
    return wait - spent;
}

int sim_loop_once(sim_loop *l, sim_time max_wait)
{
    struct pollfd fds[SIM_LOOP_FDS_MAX];
    size_t n = sim_simulator_pollfds(l->sim, fds, SIM_LOOP_FDS_MAX);
    if (n > SIM_LOOP_FDS_MAX)
        n = SIM_LOOP_FDS_MAX;
    size_t n_sim = n;
    for (int i = 0; i < SIM_LOOP_SOURCES_MAX; i++) {
        loop_slot *s = &l->sources[i];
        if (!s->used)
            continue;
        size_t want = s->src.pollfds ? s->src.pollfds(s->src.ctx, fds + n,
                                                      SIM_LOOP_FDS_MAX - n) : 0;
        s->first = n;
        s->count = want < SIM_LOOP_FDS_MAX - n ? want : SIM_LOOP_FDS_MAX - n;
        n += s->count;
    }
    sim_time wait = sim_simulator_idle_for(l->sim, sim_loop_wall(l));
    for (int i = 0; i < SIM_LOOP_SOURCES_MAX; i++) {
        loop_slot *s = &l->sources[i];
        sim_time w = s->used && s->src.idle_for ? s->src.idle_for(s->src.ctx) : SIM_TIME_MAX;
        if (w < wait)
            wait = w;
    }
    if (wait > max_wait)
        wait = max_wait;
    wait = spin_before_wait(l, wait);
    wait = (wait + 999u) / 1000u; /* ns, rounded up so the event is due on waking */
    struct timespec ts = { .tv_sec = (time_t)(wait / 1000000000u),
                           .tv_nsec = (long)(wait % 1000000000u) };
    int ready = ppoll(fds, (nfds_t)n, &ts, NULL);
    if (ready < 0 && errno != EINTR)
        return -errno;
    sim_time hold = SIM_TIME_MAX;
    for (int i = 0; i < SIM_LOOP_SOURCES_MAX; i++) {
        loop_slot *s = &l->sources[i];
        if (s->used && s->src.ready)
            s->src.ready(s->src.ctx, fds + s->first, s->count);
        sim_time h = s->used && s->src.hold_at ? s->src.hold_at(s->src.ctx) : SIM_TIME_MAX;
        if (h < hold)
            hold = h;
    }
    sim_simulator_hold(l->sim, hold);
    if (ready >= 0)
        sim_simulator_polled(l->sim, fds, n_sim);
    uint64_t events = sim_simulator_events_run(l->sim);
    sim_simulator_process(l->sim, sim_simulator_clock_now(l->sim, sim_loop_wall(l)));
    l->busy = ready > 0 || sim_simulator_events_run(l->sim) != events;
    return ready < 0 ? 0 : ready;
}

void sim_loop_run_for(sim_loop *l, sim_time wall_duration)
{
    sim_time end = sim_loop_wall(l) + wall_duration;
    for (sim_time now = sim_loop_wall(l); now < end; now = sim_loop_wall(l))
        sim_loop_once(l, end - now);
}
