// SPDX-License-Identifier: MIT
// gbvp's native discrete-event kernel: the concrete scheduler behind event-kernel/scheduler.h.
//
// Time is picoseconds (sim_time). Events run in order of (time, scheduling order): two
// events due at the same time run in the order they were scheduled, including events
// scheduled with delay 0 from inside a callback, which run after the current event. A run
// is therefore deterministic for a given input. The kernel is single-threaded; nothing in
// it reads a clock or prints: errors come back as -errno and a message from
// sim_event_kernel_last_error(). See docs/event-kernel.md.
#ifndef GBVP_EVENT_KERNEL_EVENT_KERNEL_H
#define GBVP_EVENT_KERNEL_EVENT_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"

typedef struct sim_event_kernel sim_event_kernel;

/* Returned by the run functions when sim_event_kernel_stop() ended the run early. */
#define SIM_EVENT_KERNEL_STOPPED 1

/* A kernel at time 0 with room for `initial_capacity` pending events before it first grows
 * (0 picks a small default). The caller owns the kernel; NULL when out of memory. */
sim_event_kernel *sim_event_kernel_new(size_t initial_capacity);
/* Frees the kernel and every pending event (their callbacks do not run). NULL is ignored.
 * Not callable from inside a callback. */
void sim_event_kernel_free(sim_event_kernel *k);

/* The scheduler interface bound to this kernel, valid until sim_event_kernel_free(). Models hold
 * this, never the kernel itself. */
const sim_scheduler *sim_event_kernel_scheduler(sim_event_kernel *k);

/* The current time: the time of the event running, or of the last one run, or the limit
 * of the last sim_event_kernel_run_until()/run_for() that was not stopped early. */
sim_time sim_event_kernel_now(const sim_event_kernel *k);

/* Schedules fn(ctx) at now + delay. 0 on success (and *out, if given, names the event);
 * -EINVAL when fn is NULL; -ERANGE when now + delay exceeds SIM_TIME_MAX; -ENOMEM when the
 * event pool cannot grow. On error nothing is scheduled and *out is left untouched. */
int sim_event_kernel_schedule(sim_event_kernel *k, sim_time delay, sim_event_fn fn, void *ctx,
                        sim_event *out);
/* true when `event` was pending and will now never run; false for SIM_EVENT_NONE, an event
 * that already ran (or is running), one already cancelled, or a handle whose slot has
 * since been reused by another event. */
bool sim_event_kernel_cancel(sim_event_kernel *k, sim_event event);

/* Runs the earliest pending event. 1 when an event ran, 0 when none is pending, -EBUSY
 * when called from inside a callback. */
int sim_event_kernel_step(sim_event_kernel *k);
/* Runs events until none is pending. 0, SIM_EVENT_KERNEL_STOPPED or -EBUSY (inside a callback).
 * Time stays at the last event run. */
int sim_event_kernel_run(sim_event_kernel *k);
/* Runs every event due at or before `limit` (including those scheduled meanwhile), then sets
 * the time to `limit`. 0 on reaching the limit; SIM_EVENT_KERNEL_STOPPED when stopped early (time
 * stays at the event that stopped it); -EINVAL when limit is before now; -EBUSY inside a
 * callback. */
int sim_event_kernel_run_until(sim_event_kernel *k, sim_time limit);
/* sim_event_kernel_run_until(k, now + duration); -ERANGE when that exceeds SIM_TIME_MAX. */
int sim_event_kernel_run_for(sim_event_kernel *k, sim_time duration);
/* From inside a callback: the run in progress returns after the current event. Outside a
 * run it does nothing. */
void sim_event_kernel_stop(sim_event_kernel *k);

/* The time of the earliest pending event; false (and *out untouched) when none is. */
bool sim_event_kernel_next_time(sim_event_kernel *k, sim_time *out);
/* Events scheduled and neither run nor cancelled. */
size_t sim_event_kernel_pending(const sim_event_kernel *k);
/* Event slots allocated: pending events plus cancelled ones not yet reclaimed fit in it.
 * Grows by doubling when full, never shrinks. */
size_t sim_event_kernel_capacity(const sim_event_kernel *k);
/* Events run since the kernel was created, those a model handled itself through the batch
 * operations (sim_scheduler_batch) included: the same count as without them. */
uint64_t sim_event_kernel_executed(const sim_event_kernel *k);
/* Of those, the events a model handled itself (advance, take) without the queue running
 * them. */
uint64_t sim_event_kernel_batched(const sim_event_kernel *k);
/* Of those, the events a model accounted for without running them (a period skip,
 * unipro-model/up_period.h). */
uint64_t sim_event_kernel_skipped(const sim_event_kernel *k);
/* A message describing the last error returned by this kernel ("" when none yet). The text
 * stays valid until the next call that fails. */
const char *sim_event_kernel_last_error(const sim_event_kernel *k);

/* For tests only: renumber the internal sequence counter once it reaches `limit` instead of
 * 2^32, so that the renumbering path can be exercised quickly. limit must exceed the
 * largest number of events pending at once, else scheduling fails with -ENOMEM. */
void sim_event_kernel_set_seq_limit_for_test(sim_event_kernel *k, uint64_t limit);

#endif
