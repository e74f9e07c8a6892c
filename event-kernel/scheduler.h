// SPDX-License-Identifier: MIT
// The scheduler interface: the only way a model sees time (docs/event-kernel.md, "The
// scheduler contract").
//
// Models hold a `const sim_scheduler *` and never call a concrete kernel, so the same model
// runs on gbvp's native event kernel or on another scheduler (SystemC) supplying these ops.
// Time is an unsigned 64-bit count of picoseconds. Events due at the same time run in the
// order they were scheduled, which makes a run deterministic for a given seed and input.
#ifndef GBVP_EVENT_KERNEL_SCHEDULER_H
#define GBVP_EVENT_KERNEL_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t sim_time; /* picoseconds */

#define SIM_TIME_MAX UINT64_MAX
#define SIM_PS(x) ((sim_time)(x))
#define SIM_NS(x) ((sim_time)(x) * 1000u)
#define SIM_US(x) ((sim_time)(x) * 1000000u)
#define SIM_MS(x) ((sim_time)(x) * 1000000000u)
#define SIM_S(x) ((sim_time)(x) * 1000000000000u)

typedef void (*sim_event_fn)(void *ctx);

/* A scheduled event. id 0 means "no event"; cancelling it, or an event that already ran or
 * was already cancelled, is harmless and returns false. */
typedef struct sim_event {
    uint64_t id;
} sim_event;

#define SIM_EVENT_NONE ((sim_event){0})

typedef struct sim_scheduler_ops {
    sim_time (*now)(void *self);
    /* 0 on success; -ERANGE when now + delay does not fit in sim_time (nothing is
     * scheduled); -ENOMEM when the kernel cannot grow. `out` may be NULL. */
    int (*schedule)(void *self, sim_time delay, sim_event_fn fn, void *ctx, sim_event *out);
    /* true when the event was pending and now will not run. */
    bool (*cancel)(void *self, sim_event event);
} sim_scheduler_ops;

typedef struct sim_scheduler {
    const sim_scheduler_ops *ops;
    void *self;
} sim_scheduler;

static inline sim_time sim_now(const sim_scheduler *s)
{
    return s->ops->now(s->self);
}

static inline int sim_schedule(const sim_scheduler *s, sim_time delay, sim_event_fn fn,
                               void *ctx, sim_event *out)
{
    return s->ops->schedule(s->self, delay, fn, ctx, out);
}

static inline bool sim_cancel(const sim_scheduler *s, sim_event event)
{
    return s->ops->cancel(s->self, event);
}

/* Optional operations that let a model run a chain of its own events without queueing
 * them (unipro-model's frame batching; docs/event-kernel.md, "The scheduler contract"). Kept
 * apart from sim_scheduler_ops so schedulers without them need no change. `self` is the
 * scheduler's. */
typedef struct sim_scheduler_batch_ops {
    /* From inside a callback of a run: when no pending event is due at or before t (t >=
     * now, within the run's limit, no stop requested), moves the clock to t, begins a new
     * event there and returns true. The caller then does what an event due at t would do:
     * it is exactly the event the scheduler would have run next. */
    bool (*advance)(void *self, sim_time t);
    /* Like schedule, but ordered before every event scheduled since the current event
     * began, as if scheduled first thing in it; at most once per event. -ENOTSUP when
     * already used in this event or outside one. */
    int (*schedule_first)(void *self, sim_time delay, sim_event_fn fn, void *ctx,
                          sim_event *out);
    /* From inside a callback of a run, when `event` is the event the scheduler would run
     * next (within the run's limit, no stop requested): takes it off the queue, moves the
     * clock to its time, begins a new event there and returns true; the caller then does
     * what its callback would do. Otherwise false and nothing changes. */
    bool (*take)(void *self, sim_event event);
    /* Period skipping (unipro-model's up_port.c): the latest time a caller may skip to, the
     * earliest pending event's time less one or the run's limit, whichever is sooner (0
     * outside a callback or with a stop requested), passing over the `n` pending events
     * `except` the caller will move itself. */
    sim_time (*horizon)(void *self, const sim_event *except, unsigned n);
    /* The place of pending `event` among events due at the same time (the order they were
     * scheduled in), UINT64_MAX when it is not pending; and the place the event running
     * reserved for schedule_first: those at or below it were scheduled before it began. */
    uint64_t (*seq_of)(void *self, sim_event event);
    uint64_t (*mark)(void *self);
    /* Like advance, counting `events` events run (the ones the caller did the work of in
     * one step); t must be within horizon() (not checked again: the caller may have
     * queued events it moves, due at t at the earliest). */
    bool (*skip)(void *self, sim_time t, uint64_t events);
    /* Events run so far (sim_event_kernel_executed). */
    uint64_t (*executed)(void *self);
} sim_scheduler_batch_ops;

/* The batch operations of s's scheduler, or NULL when it has none (gbvp's native kernel
 * has them; another scheduler's binding simply runs the models without). */
const sim_scheduler_batch_ops *sim_scheduler_batch(const sim_scheduler *s);

/* Where s's scheduler keeps its clock, for models that read the time on every frame: while
 * the scheduler lives, *clock is always sim_now(s). NULL when it has no such place (then
 * call sim_now); gbvp's native kernel has one. */
const sim_time *sim_scheduler_clock(const sim_scheduler *s);

#endif
