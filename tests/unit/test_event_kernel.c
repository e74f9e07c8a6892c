// SPDX-License-Identifier: MIT
// Unit tests of the event kernel (event-kernel/event_kernel.h) and of the scheduler interface it exposes.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "event-kernel/rng.h"
#include "tests/unit/unit.h"

/* ---- helpers ------------------------------------------------------------------------ */

/* A log of the events that ran: each event's context is a `probe` naming it. */
typedef struct run_log {
    sim_event_kernel *k;
    int ids[64];
    sim_time times[64];
    int n;
} run_log;

typedef struct probe {
    run_log *log;
    int id;
} probe;

static void record(void *ctx)
{
    probe *p = ctx;
    run_log *log = p->log;
    if (log->n < 64) {
        log->ids[log->n] = p->id;
        log->times[log->n] = sim_event_kernel_now(log->k);
    }
    log->n++;
}

static void nothing(void *ctx)
{
    (void)ctx;
}

static uint64_t next_random(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* ---- ordering --------------------------------------------------------------------- */

static void test_kernel_runs_events_in_time_order(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    probe p[4] = { { &log, 0 }, { &log, 1 }, { &log, 2 }, { &log, 3 } };
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, SIM_NS(30), record, &p[0], NULL), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, SIM_NS(10), record, &p[1], NULL), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, SIM_NS(20), record, &p[2], NULL), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, SIM_PS(1), record, &p[3], NULL), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 4);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(log.n, 4);
    CU_ASSERT_EQUAL(log.ids[0], 3);
    CU_ASSERT_EQUAL(log.ids[1], 1);
    CU_ASSERT_EQUAL(log.ids[2], 2);
    CU_ASSERT_EQUAL(log.ids[3], 0);
    CU_ASSERT_EQUAL(log.times[0], SIM_PS(1));
    CU_ASSERT_EQUAL(log.times[3], SIM_NS(30));
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), SIM_NS(30));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 4);
    sim_event_kernel_free(k);
}

static void test_kernel_runs_same_time_events_in_scheduling_order(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    probe p[40];
    /* 40 events over two distinct times, interleaved, so ties must be broken by order. */
    for (int i = 0; i < 40; i++) {
        p[i] = (probe){ &log, i };
        CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, i % 2 ? SIM_NS(5) : SIM_NS(7), record, &p[i],
                                            NULL), 0);
    }
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(log.n, 40);
    for (int i = 0; i < 20; i++) {
        CU_ASSERT_EQUAL(log.ids[i], 2 * i + 1);
        CU_ASSERT_EQUAL(log.times[i], SIM_NS(5));
        CU_ASSERT_EQUAL(log.ids[20 + i], 2 * i);
        CU_ASSERT_EQUAL(log.times[20 + i], SIM_NS(7));
    }
    sim_event_kernel_free(k);
}

static void test_kernel_scheduler_interface_reaches_the_kernel(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    const sim_scheduler *s = sim_event_kernel_scheduler(k);
    CU_ASSERT_PTR_EQUAL(sim_event_kernel_scheduler(k), s);
    run_log log = { .k = k };
    probe a = { &log, 1 }, b = { &log, 2 };
    sim_event ea = SIM_EVENT_NONE, eb = SIM_EVENT_NONE;
    CU_ASSERT_EQUAL(sim_schedule(s, SIM_US(2), record, &a, &ea), 0);
    CU_ASSERT_EQUAL(sim_schedule(s, SIM_US(1), record, &b, &eb), 0);
    CU_ASSERT_NOT_EQUAL(ea.id, 0);
    CU_ASSERT_NOT_EQUAL(eb.id, 0);
    CU_ASSERT_NOT_EQUAL(ea.id, eb.id);
    CU_ASSERT_TRUE(sim_cancel(s, eb));
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(log.n, 1);
    CU_ASSERT_EQUAL(log.ids[0], 1);
    CU_ASSERT_EQUAL(sim_now(s), SIM_US(2));
    sim_event_kernel_free(k);
}

/* ---- cancelling ------------------------------------------------------------------- */

static void test_kernel_cancel_pending_event_prevents_it(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    probe a = { &log, 1 }, b = { &log, 2 };
    sim_event ea, eb;
    sim_event_kernel_schedule(k, 10, record, &a, &ea);
    sim_event_kernel_schedule(k, 20, record, &b, &eb);
    CU_ASSERT_TRUE(sim_event_kernel_cancel(k, ea));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(log.n, 1);
    CU_ASSERT_EQUAL(log.ids[0], 2);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 1);
    sim_event_kernel_free(k);
}

static void test_kernel_cancel_of_fired_event_returns_false(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    sim_event e;
    sim_event_kernel_schedule(k, 10, nothing, NULL, &e);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 1);
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, e));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 0);
    sim_event_kernel_free(k);
}

static void test_kernel_cancel_twice_returns_false_the_second_time(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    sim_event e;
    sim_event_kernel_schedule(k, 10, nothing, NULL, &e);
    CU_ASSERT_TRUE(sim_event_kernel_cancel(k, e));
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, e));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 0);
    sim_event_kernel_free(k);
}

static void test_kernel_cancel_of_no_event_returns_false(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    sim_event_kernel_schedule(k, 10, nothing, NULL, NULL);
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, SIM_EVENT_NONE));
    /* Handles that were never issued: slot out of range, wrong generation. */
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, (sim_event){ UINT64_MAX }));
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, (sim_event){ (uint64_t)7 << 32 }));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    sim_event_kernel_free(k);
}

static void test_kernel_cancel_of_recycled_handle_spares_new_occupant(void)
{
    sim_event_kernel *k = sim_event_kernel_new(1);
    run_log log = { .k = k };
    probe a = { &log, 1 }, b = { &log, 2 }, c = { &log, 3 };
    sim_event ea, eb, ec;
    /* a fires; b takes a's slot (the pool holds one event). */
    sim_event_kernel_schedule(k, 10, record, &a, &ea);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 1);
    sim_event_kernel_schedule(k, 10, record, &b, &eb);
    CU_ASSERT_EQUAL(eb.id & UINT32_MAX, ea.id & UINT32_MAX);
    CU_ASSERT_NOT_EQUAL(eb.id, ea.id);
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, ea));
    /* b is cancelled, its dead entry dropped, and c takes the slot. */
    CU_ASSERT_TRUE(sim_event_kernel_cancel(k, eb));
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 0);
    sim_event_kernel_schedule(k, 10, record, &c, &ec);
    CU_ASSERT_EQUAL(ec.id & UINT32_MAX, eb.id & UINT32_MAX);
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, ea));
    CU_ASSERT_FALSE(sim_event_kernel_cancel(k, eb));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(log.n, 2);
    CU_ASSERT_EQUAL(log.ids[0], 1);
    CU_ASSERT_EQUAL(log.ids[1], 3);
    sim_event_kernel_free(k);
}

typedef struct self_cancel {
    sim_event_kernel *k;
    sim_event self;
    sim_event other;
    bool self_result;
    bool other_result;
} self_cancel;

static void cancel_self_and_other(void *ctx)
{
    self_cancel *sc = ctx;
    sc->self_result = sim_event_kernel_cancel(sc->k, sc->self);
    sc->other_result = sim_event_kernel_cancel(sc->k, sc->other);
}

static void test_kernel_callback_cannot_cancel_itself_but_can_cancel_others(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    probe p = { &log, 9 };
    self_cancel sc = { .k = k };
    sim_event_kernel_schedule(k, 5, cancel_self_and_other, &sc, &sc.self);
    sim_event_kernel_schedule(k, 5, record, &p, &sc.other);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_FALSE(sc.self_result);
    CU_ASSERT_TRUE(sc.other_result);
    CU_ASSERT_EQUAL(log.n, 0);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 1);
    sim_event_kernel_free(k);
}

static sim_time scrambled_time(int i)
{
    return (sim_time)((i * 7919) % 1000 + 1) * 10; /* a permutation of 10..10000 */
}

static int cmp_by_scrambled_time(const void *a, const void *b)
{
    sim_time x = scrambled_time(*(const int *)a), y = scrambled_time(*(const int *)b);
    return (x > y) - (x < y);
}

static void test_kernel_mass_cancel_compacts_and_keeps_order(void)
{
    /* Cancelling most events makes dead entries outnumber live ones, which compacts the
     * heap; the survivors must still run in order. */
    sim_event_kernel *k = sim_event_kernel_new(1024);
    sim_event ev[1000];
    run_log log = { .k = k };
    probe p[1000];
    for (int i = 0; i < 1000; i++) {
        p[i] = (probe){ &log, i };
        sim_event_kernel_schedule(k, scrambled_time(i), record, &p[i], &ev[i]);
    }
    for (int i = 0; i < 1000; i++)
        if (i % 50 != 0)
            CU_ASSERT_TRUE(sim_event_kernel_cancel(k, ev[i]));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 20);
    /* Refill: slots freed by compaction are reused. */
    for (int i = 0; i < 980; i++)
        CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, SIM_MS(1), nothing, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, SIM_US(100)), 0);
    int want[20];
    for (int i = 0; i < 20; i++)
        want[i] = 50 * i;
    qsort(want, 20, sizeof want[0], cmp_by_scrambled_time);
    CU_ASSERT_EQUAL(log.n, 20);
    for (int i = 0; i < 20; i++)
        CU_ASSERT_EQUAL(log.ids[i], want[i]);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 980);
    sim_event_kernel_free(k);
}

/* ---- scheduling from callbacks ---------------------------------------------------- */

typedef struct spawner {
    sim_event_kernel *k;
    run_log *log;
    probe children[3];
} spawner;

static void spawn_three_now(void *ctx)
{
    spawner *s = ctx;
    record(&(probe){ s->log, 100 });
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(sim_event_kernel_schedule(s->k, 0, record, &s->children[i], NULL), 0);
}

static void test_kernel_zero_delay_from_callback_runs_after_current_event_in_order(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    spawner s = { k, &log, { { &log, 1 }, { &log, 2 }, { &log, 3 } } };
    probe before = { &log, 50 }, after = { &log, 60 }, later = { &log, 70 };
    sim_event_kernel_schedule(k, SIM_NS(4), record, &before, NULL);
    sim_event_kernel_schedule(k, SIM_NS(4), spawn_three_now, &s, NULL);
    sim_event_kernel_schedule(k, SIM_NS(4), record, &after, NULL);
    sim_event_kernel_schedule(k, SIM_NS(4) + 1, record, &later, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    /* Same-time events already queued come first, then the children in their order. */
    int want[] = { 50, 100, 60, 1, 2, 3, 70 };
    CU_ASSERT_EQUAL(log.n, 7);
    for (int i = 0; i < 7; i++)
        CU_ASSERT_EQUAL(log.ids[i], want[i]);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(log.times[i], SIM_NS(4));
    CU_ASSERT_EQUAL(log.times[6], SIM_NS(4) + 1);
    sim_event_kernel_free(k);
}

typedef struct chain {
    sim_event_kernel *k;
    int left;
    sim_time step;
    sim_time last;
} chain;

static void chain_link(void *ctx)
{
    chain *c = ctx;
    c->last = sim_event_kernel_now(c->k);
    if (--c->left > 0)
        CU_ASSERT_EQUAL(sim_event_kernel_schedule(c->k, c->step, chain_link, c, NULL), 0);
}

static void test_kernel_callbacks_schedule_successors(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    chain a = { k, 1000, 3, 0 }, b = { k, 500, 7, 0 };
    sim_event_kernel_schedule(k, 3, chain_link, &a, NULL);
    sim_event_kernel_schedule(k, 7, chain_link, &b, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(a.left, 0);
    CU_ASSERT_EQUAL(b.left, 0);
    CU_ASSERT_EQUAL(a.last, 3000);
    CU_ASSERT_EQUAL(b.last, 3500);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 1500);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), 3500);
    sim_event_kernel_free(k);
}

typedef struct reentry {
    sim_event_kernel *k;
    int step, run, run_until, run_for;
} reentry;

static void try_reentry(void *ctx)
{
    reentry *r = ctx;
    r->step = sim_event_kernel_step(r->k);
    r->run = sim_event_kernel_run(r->k);
    r->run_until = sim_event_kernel_run_until(r->k, SIM_MS(1));
    r->run_for = sim_event_kernel_run_for(r->k, 1);
}

static void test_kernel_refuses_to_run_from_inside_a_callback(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    reentry r = { .k = k };
    sim_event_kernel_schedule(k, 1, try_reentry, &r, NULL);
    sim_event_kernel_schedule(k, 2, nothing, NULL, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 1);
    CU_ASSERT_EQUAL(r.step, -EBUSY);
    CU_ASSERT_EQUAL(r.run, -EBUSY);
    CU_ASSERT_EQUAL(r.run_until, -EBUSY);
    CU_ASSERT_EQUAL(r.run_for, -EBUSY);
    CU_ASSERT_PTR_NOT_NULL(strstr(sim_event_kernel_last_error(k), "inside an event callback"));
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    sim_event_kernel_free(k);
}

/* ---- stop, step, run_until, run_for ----------------------------------------------- */

typedef struct stopper {
    sim_event_kernel *k;
    int calls;
} stopper;

static void stop_now(void *ctx)
{
    stopper *s = ctx;
    s->calls++;
    sim_event_kernel_stop(s->k);
}

static void test_kernel_stop_from_callback_ends_run_after_current_event(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    stopper s = { k, 0 };
    probe a = { &log, 1 }, b = { &log, 2 };
    sim_event_kernel_schedule(k, 10, record, &a, NULL);
    sim_event_kernel_schedule(k, 20, stop_now, &s, NULL);
    sim_event_kernel_schedule(k, 20, record, &b, NULL); /* same time, after the stopper */
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, 100), SIM_EVENT_KERNEL_STOPPED);
    CU_ASSERT_EQUAL(s.calls, 1);
    CU_ASSERT_EQUAL(log.n, 1);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), 20); /* not advanced to the limit */
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    /* The next run resumes where it stopped. */
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, 100), 0);
    CU_ASSERT_EQUAL(log.n, 2);
    CU_ASSERT_EQUAL(log.times[1], 20);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), 100);
    /* Stop also ends sim_event_kernel_run; outside a run it does nothing. */
    sim_event_kernel_schedule(k, 1, stop_now, &s, NULL);
    sim_event_kernel_schedule(k, 2, record, &a, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), SIM_EVENT_KERNEL_STOPPED);
    CU_ASSERT_EQUAL(log.n, 2);
    sim_event_kernel_stop(k);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(log.n, 3);
    sim_event_kernel_free(k);
}

static void test_kernel_stop_inside_step_does_not_stop_a_later_run(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    stopper s = { k, 0 };
    sim_event_kernel_schedule(k, 1, stop_now, &s, NULL);
    sim_event_kernel_schedule(k, 2, nothing, NULL, NULL);
    sim_event_kernel_schedule(k, 3, nothing, NULL, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 1);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 3);
    sim_event_kernel_free(k);
}

static void test_kernel_step_runs_one_event_at_a_time(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    probe a = { &log, 1 }, b = { &log, 2 };
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 0);
    sim_event_kernel_schedule(k, 5, record, &a, NULL);
    sim_event_kernel_schedule(k, 9, record, &b, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 1);
    CU_ASSERT_EQUAL(log.n, 1);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), 5);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 1);
    CU_ASSERT_EQUAL(log.n, 2);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), 9);
    CU_ASSERT_EQUAL(sim_event_kernel_step(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), 9);
    sim_event_kernel_free(k);
}

static void test_kernel_run_until_includes_events_at_the_limit_and_advances_time(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    probe a = { &log, 1 }, b = { &log, 2 }, c = { &log, 3 };
    sim_event_kernel_schedule(k, 99, record, &a, NULL);
    sim_event_kernel_schedule(k, 100, record, &b, NULL);
    sim_event_kernel_schedule(k, 101, record, &c, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, 100), 0);
    CU_ASSERT_EQUAL(log.n, 2);
    CU_ASSERT_EQUAL(log.ids[1], 2);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), 100);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    /* With nothing due, time still advances to the limit. */
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, 100), 0);
    CU_ASSERT_EQUAL(log.n, 2);
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, 101), 0);
    CU_ASSERT_EQUAL(log.n, 3);
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, SIM_MS(2)), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), SIM_MS(2));
    /* A limit in the past is refused and changes nothing. */
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, SIM_MS(1)), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(sim_event_kernel_last_error(k), "before now"));
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), SIM_MS(2));
    sim_event_kernel_free(k);
}

static void test_kernel_run_until_runs_zero_delay_events_scheduled_at_the_limit(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    spawner s = { k, &log, { { &log, 1 }, { &log, 2 }, { &log, 3 } } };
    sim_event_kernel_schedule(k, 50, spawn_three_now, &s, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, 50), 0);
    CU_ASSERT_EQUAL(log.n, 4);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 0);
    sim_event_kernel_free(k);
}

static void test_kernel_run_for_is_relative_to_now(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    run_log log = { .k = k };
    probe a = { &log, 1 }, b = { &log, 2 };
    CU_ASSERT_EQUAL(sim_event_kernel_run_for(k, SIM_US(1)), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), SIM_US(1));
    sim_event_kernel_schedule(k, SIM_US(1), record, &a, NULL);     /* at 2 us */
    sim_event_kernel_schedule(k, SIM_US(1) + 1, record, &b, NULL); /* at 2 us + 1 ps */
    CU_ASSERT_EQUAL(sim_event_kernel_run_for(k, SIM_US(1)), 0);
    CU_ASSERT_EQUAL(log.n, 1);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), SIM_US(2));
    CU_ASSERT_EQUAL(sim_event_kernel_run_for(k, 0), 0);
    CU_ASSERT_EQUAL(log.n, 1);
    CU_ASSERT_EQUAL(sim_event_kernel_run_for(k, 1), 0);
    CU_ASSERT_EQUAL(log.n, 2);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), SIM_US(2) + 1);
    sim_event_kernel_free(k);
}

static void test_kernel_next_time_skips_cancelled_events(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    sim_time t = 12345;
    CU_ASSERT_FALSE(sim_event_kernel_next_time(k, &t));
    CU_ASSERT_EQUAL(t, 12345);
    sim_event a;
    sim_event_kernel_schedule(k, 10, nothing, NULL, &a);
    sim_event_kernel_schedule(k, 30, nothing, NULL, NULL);
    CU_ASSERT_TRUE(sim_event_kernel_next_time(k, &t));
    CU_ASSERT_EQUAL(t, 10);
    sim_event_kernel_cancel(k, a);
    CU_ASSERT_TRUE(sim_event_kernel_next_time(k, &t));
    CU_ASSERT_EQUAL(t, 30);
    sim_event_kernel_free(k);
}

/* ---- errors and limits ------------------------------------------------------------ */

static void test_kernel_refuses_time_overflow_with_message(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    sim_event e = { 42 };
    CU_ASSERT_STRING_EQUAL(sim_event_kernel_last_error(k), "");
    CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, SIM_TIME_MAX - 10), 0);
    /* Exactly SIM_TIME_MAX still fits; one more picosecond does not. */
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, 10, nothing, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, 11, nothing, NULL, &e), -ERANGE);
    CU_ASSERT_EQUAL(e.id, 42);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    CU_ASSERT_STRING_EQUAL(sim_event_kernel_last_error(k),
                           "schedule: delay 11 ps from now 18446744073709551605 ps is past "
                           "the end of simulated time (18446744073709551615 ps)");
    CU_ASSERT_EQUAL(sim_schedule(sim_event_kernel_scheduler(k), SIM_TIME_MAX, nothing, NULL, NULL),
                    -ERANGE);
    CU_ASSERT_EQUAL(sim_event_kernel_run_for(k, 11), -ERANGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(sim_event_kernel_last_error(k), "run_for: duration 11 ps"));
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), SIM_TIME_MAX);
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, 0, nothing, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, 1, nothing, NULL, NULL), -ERANGE);
    sim_event_kernel_free(k);
}

static void test_kernel_refuses_null_callback(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    CU_ASSERT_EQUAL(sim_event_kernel_schedule(k, 1, NULL, NULL, NULL), -EINVAL);
    CU_ASSERT_STRING_EQUAL(sim_event_kernel_last_error(k), "schedule: callback is NULL");
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 0);
    sim_event_kernel_free(k);
}

static void test_kernel_grows_beyond_initial_pool(void)
{
    enum { N = 100000 };
    sim_event_kernel *k = sim_event_kernel_new(2);
    CU_ASSERT_EQUAL(sim_event_kernel_capacity(k), 2);
    sim_event *ev = malloc(N * sizeof *ev);
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL_FATAL(sim_event_kernel_schedule(k, (sim_time)(N - i), nothing, NULL, &ev[i]),
                              0);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), N);
    CU_ASSERT(sim_event_kernel_capacity(k) >= N && sim_event_kernel_capacity(k) < 2 * N);
    /* Handles issued before growth still work after it. */
    CU_ASSERT_TRUE(sim_event_kernel_cancel(k, ev[0]));
    CU_ASSERT_TRUE(sim_event_kernel_cancel(k, ev[N - 1]));
    sim_time t = 0;
    CU_ASSERT_TRUE(sim_event_kernel_next_time(k, &t));
    CU_ASSERT_EQUAL(t, 2);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), N - 2);
    CU_ASSERT_EQUAL(sim_event_kernel_now(k), N - 1);
    free(ev);
    sim_event_kernel_free(k);
}

static void test_kernel_cancelled_events_do_not_accumulate(void)
{
    /* A timer re-armed and cancelled over and over (a retransmission timeout, say): the
     * cancelled entries are reclaimed, so the pool stays small. */
    sim_event_kernel *k = sim_event_kernel_new(64);
    sim_event_kernel_schedule(k, SIM_S(1), nothing, NULL, NULL);
    for (int i = 0; i < 100000; i++) {
        sim_event e;
        CU_ASSERT_EQUAL_FATAL(sim_event_kernel_schedule(k, SIM_MS(10), nothing, NULL, &e), 0);
        CU_ASSERT_TRUE_FATAL(sim_event_kernel_cancel(k, e));
    }
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 1);
    CU_ASSERT(sim_event_kernel_capacity(k) <= 256);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 1);
    sim_event_kernel_free(k);
}

static void test_kernel_steady_state_does_not_grow_the_pool(void)
{
    /* The hold model: each event schedules one successor, so the pool never grows. */
    sim_event_kernel *k = sim_event_kernel_new(0);
    chain c[100];
    for (int i = 0; i < 100; i++) {
        c[i] = (chain){ k, 1000, (sim_time)(i % 7 + 1), 0 };
        sim_event_kernel_schedule(k, (sim_time)i, chain_link, &c[i], NULL);
    }
    size_t cap = sim_event_kernel_capacity(k);
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), 100000);
    CU_ASSERT_EQUAL(sim_event_kernel_capacity(k), cap);
    sim_event_kernel_free(k);
}

static void test_kernel_free_releases_pending_events(void)
{
    /* Under ASan/valgrind: freeing a kernel with pending and cancelled events leaks nothing. */
    sim_event_kernel *k = sim_event_kernel_new(0);
    sim_event e;
    for (int i = 0; i < 1000; i++)
        sim_event_kernel_schedule(k, (sim_time)i, nothing, NULL, &e);
    sim_event_kernel_cancel(k, e);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 999);
    sim_event_kernel_free(k);
    sim_event_kernel_free(NULL);
}

/* ---- randomised checks against a reference ---------------------------------------- */

typedef struct ref_event {
    sim_time time;
    uint32_t order; /* scheduling order */
    bool cancelled;
} ref_event;

typedef struct ref_run {
    sim_event_kernel *k;
    ref_event *events;
    uint32_t *ran; /* orders, as they ran */
    size_t nran;
    size_t cap;
} ref_run;

static void ref_fire(void *ctx);

typedef struct ref_ctx {
    ref_run *run;
    uint32_t order;
} ref_ctx;

static void ref_fire(void *ctx)
{
    ref_ctx *c = ctx;
    ref_run *r = c->run;
    if (r->nran < r->cap)
        r->ran[r->nran] = c->order;
    r->nran++;
}

static int ref_cmp(const void *a, const void *b, void *arg)
{
    const ref_event *ev = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (ev[x].time != ev[y].time)
        return ev[x].time < ev[y].time ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void check_random_against_sort(uint64_t seed, size_t n, sim_time span,
                                      unsigned cancel_percent, uint64_t seq_limit)
{
    sim_event_kernel *k = sim_event_kernel_new(16);
    if (seq_limit)
        sim_event_kernel_set_seq_limit_for_test(k, seq_limit);
    ref_run r = { k, calloc(n, sizeof(ref_event)), calloc(n, sizeof(uint32_t)), 0, n };
    ref_ctx *ctx = calloc(n, sizeof *ctx);
    sim_event *handles = calloc(n, sizeof *handles);
    CU_ASSERT_FATAL(r.events && r.ran && ctx && handles);
    uint64_t rng = seed;
    /* Schedule in two phases separated by a partial run, so that events are added to a
     * heap with a history, and cancel a random share as we go. */
    size_t half = n / 2;
    for (size_t i = 0; i < n; i++) {
        if (i == half) {
            CU_ASSERT_EQUAL(sim_event_kernel_run_until(k, span / 4), 0);
        }
        sim_time delay = next_random(&rng) % span;
        ctx[i] = (ref_ctx){ &r, (uint32_t)i };
        r.events[i].time = sim_event_kernel_now(k) + delay;
        r.events[i].order = (uint32_t)i;
        CU_ASSERT_EQUAL_FATAL(sim_event_kernel_schedule(k, delay, ref_fire, &ctx[i], &handles[i]), 0);
        /* cancel_percent / 100 cancel attempts per schedule, on average. */
        unsigned attempts = cancel_percent / 100 + (next_random(&rng) % 100 < cancel_percent % 100);
        for (unsigned a = 0; a < attempts; a++) {
            /* Cancel a random event scheduled so far (may have run or be cancelled). */
            size_t j = next_random(&rng) % (i + 1);
            bool expect = !r.events[j].cancelled &&
                          (j >= half || i < half || r.events[j].time > span / 4);
            bool got = sim_event_kernel_cancel(k, handles[j]);
            CU_ASSERT_EQUAL(got, expect);
            if (got)
                r.events[j].cancelled = true;
        }
    }
    CU_ASSERT_EQUAL(sim_event_kernel_run(k), 0);

    /* The reference: every event not cancelled, sorted by (time, scheduling order). */
    uint32_t *want = calloc(n, sizeof *want);
    size_t nwant = 0;
    for (size_t i = 0; i < n; i++)
        if (!r.events[i].cancelled)
            want[nwant++] = (uint32_t)i;
    qsort_r(want, nwant, sizeof *want, ref_cmp, r.events);
    CU_ASSERT_EQUAL(r.nran, nwant);
    CU_ASSERT_EQUAL(sim_event_kernel_executed(k), nwant);
    size_t mismatches = 0;
    for (size_t i = 0; i < nwant && i < r.nran; i++)
        mismatches += want[i] != r.ran[i];
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT_EQUAL(sim_event_kernel_pending(k), 0);
    free(want);
    free(handles);
    free(ctx);
    free(r.ran);
    free(r.events);
    sim_event_kernel_free(k);
}

static void test_kernel_million_random_events_match_reference_sort(void)
{
    /* Times in a narrow span force many ties; a quarter of the schedules cancel one. */
    check_random_against_sort(1, 1000000, 200000, 25, 0);
}

static void test_kernel_random_events_with_heavy_cancelling_match_reference_sort(void)
{
    /* 2.5 cancel attempts per schedule: dead entries outnumber live ones, which compacts. */
    check_random_against_sort(2, 200000, 1000000, 250, 0);
}

static void test_kernel_random_events_near_and_far_match_reference_sort(void)
{
    /* Delays of picoseconds to 20 us, as a link's frames (nanoseconds apart) among its
     * timers; with and without renumbering. */
    check_random_against_sort(4, 200000, SIM_US(20), 30, 0);
    check_random_against_sort(5, 100000, SIM_US(20), 30, 90000);
}

static void test_kernel_sequence_renumbering_keeps_order(void)
{
    /* A tiny sequence limit renumbers the pending events every few hundred schedules. */
    check_random_against_sort(3, 100000, 5000, 30, 150000);
}

/* Dynamic check: events schedule and cancel others from inside callbacks. Every event
 * records when it ran; the run must be strictly increasing in (time, scheduling order)
 * and every event not cancelled must run exactly once at its time. */
typedef struct dyn_event {
    sim_time due;
    sim_event handle;
    uint8_t state; /* 0 pending, 1 ran, 2 cancelled */
} dyn_event;

typedef struct dyn_run {
    sim_event_kernel *k;
    dyn_event *ev;
    size_t n, cap;
    uint64_t rng;
    size_t last;
    sim_time last_time;
    size_t errors;
    bool streams;         /* schedule as links do (dyn_fire) rather than at random */
    struct dyn_ctx *ctxs; /* one per event, the callback's context */
} dyn_run;

typedef struct dyn_ctx {
    dyn_run *run;
    size_t index;
} dyn_ctx;

static void dyn_fire(void *ctx);

static void dyn_schedule(dyn_run *r, sim_time delay)
{
    if (r->n == r->cap)
        return;
    size_t i = r->n++;
    r->ctxs[i] = (dyn_ctx){ r, i };
    r->ev[i].due = sim_event_kernel_now(r->k) + delay;
    if (sim_event_kernel_schedule(r->k, delay, dyn_fire, &r->ctxs[i], &r->ev[i].handle))
        r->errors++;
}

static void dyn_fire(void *ctx)
{
    dyn_ctx *c = ctx;
    dyn_run *r = c->run;
    dyn_event *e = &r->ev[c->index];
    sim_time now = sim_event_kernel_now(r->k);
    if (e->state != 0 || e->due != now)
        r->errors++;
    if (now < r->last_time || (now == r->last_time && r->last != SIZE_MAX && c->index < r->last))
        r->errors++;
    e->state = 1;
    r->last = c->index;
    r->last_time = now;
    if (r->streams) {
        /* As a link's arrivals: the successor is due after every pending event, now and
         * then one due at this very time or a millisecond ahead (a timer); about 28
         * streams pending. */
        unsigned x = (unsigned)(next_random(&r->rng) % 16);
        dyn_schedule(r, x == 0   ? 0
                        : x == 1 ? SIM_MS(1)
                                 : SIM_NS(200) + next_random(&r->rng) % 4);
        if (sim_event_kernel_pending(r->k) < 28)
            dyn_schedule(r, SIM_NS(200) + next_random(&r->rng) % 4);
    } else {
        /* 0..3 children (1.5 on average) while few are pending, else 0..1: the queue
         * hovers around 4000 events, a quarter of them due at once (delay 0). */
        unsigned most = sim_event_kernel_pending(r->k) < 4000 ? 4 : 2;
        unsigned children = (unsigned)(next_random(&r->rng) % most);
        for (unsigned i = 0; i < children; i++)
            dyn_schedule(r, next_random(&r->rng) % 4 == 0 ? 0 : next_random(&r->rng) % 1000);
    }
    if (next_random(&r->rng) % 3 == 0 && r->n > 0) {
        /* One of the last 5000 scheduled (of the last 64 among streams, which run soon):
         * pending, ran or already cancelled. */
        size_t back = r->streams ? 64 : 5000;
        size_t j = r->n - 1 - next_random(&r->rng) % (r->n < back ? r->n : back);
        bool got = sim_event_kernel_cancel(r->k, r->ev[j].handle);
        if (got != (r->ev[j].state == 0))
            r->errors++;
        if (got)
            r->ev[j].state = 2;
    }
}

static void check_dynamic(bool streams)
{
    enum { CAP = 300000 };
    dyn_run r = { .k = sim_event_kernel_new(0), .cap = CAP, .rng = 99, .last = SIZE_MAX,
                  .streams = streams };
    r.ev = calloc(CAP, sizeof *r.ev);
    r.ctxs = calloc(CAP, sizeof *r.ctxs);
    sim_event_kernel_set_seq_limit_for_test(r.k, 20000);
    for (int i = 0; i < (streams ? 28 : 2000); i++)
        dyn_schedule(&r, next_random(&r.rng) % 1000);
    CU_ASSERT_EQUAL(sim_event_kernel_run(r.k), 0);
    CU_ASSERT_EQUAL(r.n, CAP);
    CU_ASSERT_EQUAL(r.errors, 0);
    size_t ran = 0, cancelled = 0;
    for (size_t i = 0; i < r.n; i++) {
        ran += r.ev[i].state == 1;
        cancelled += r.ev[i].state == 2;
    }
    CU_ASSERT_EQUAL(ran + cancelled, CAP);
    CU_ASSERT(cancelled > (streams ? CAP / 50 : CAP / 10));
    CU_ASSERT_EQUAL(sim_event_kernel_executed(r.k), ran);
    free(r.ctxs);
    free(r.ev);
    sim_event_kernel_free(r.k);
}

static void test_kernel_random_callbacks_scheduling_and_cancelling_keep_order(void)
{
    check_dynamic(false);
}

static void test_kernel_streams_of_successors_among_timers_keep_order(void)
{
    check_dynamic(true);
}

/* ---- batching (advance, take, schedule_first) ------------------------------------------ */

/* Batching must not change what runs when: a chain of events handled with advance and
 * take, among random near and far events, runs at the same times in the same order as the
 * same events all queued. */
typedef struct batch_chain {
    sim_event_kernel *k;
    const sim_scheduler_batch_ops *b; /* NULL: queue every event */
    uint64_t rng;
    unsigned links;
    uint64_t trace;                   /* a hash of (time, what) of everything that ran */
} batch_chain;

static void batch_chain_note(batch_chain *c, uint64_t what)
{
    c->trace = (c->trace ^ sim_event_kernel_now(c->k) ^ what << 48) * 0x100000001b3u;
}

static void batch_chain_other(void *ctx)
{
    batch_chain_note(ctx, 1);
}

/* Events at random times near and far, some at this very time; on a 10 ns grid, so that
 * many fall at the same time as the chain's next link and the order of scheduling decides. */
static void batch_chain_others(batch_chain *c)
{
    unsigned r = (unsigned)(next_random(&c->rng) % 8);
    if (r < 3)
        sim_event_kernel_schedule(c->k, r == 0 ? 0 : next_random(&c->rng) % 50 * SIM_NS(10),
                                  batch_chain_other, c, NULL);
    else if (r == 3)
        sim_event_kernel_schedule(c->k, SIM_US(5) + next_random(&c->rng) % SIM_US(50),
                                  batch_chain_other, c, NULL);
}

/* A link of the chain: like a port's arrival, it queues the next link first thing (the
 * queued run), or, batching, does its work and then handles the next link itself when the
 * kernel says it is next (advance, or schedule_first then take). */
static void batch_chain_link(void *ctx)
{
    batch_chain *c = ctx;
    for (;;) {
        batch_chain_note(c, 2);
        bool more = ++c->links < 20000;
        sim_time delay = next_random(&c->rng) % 4 ? next_random(&c->rng) % 20 * SIM_NS(10)
                                                  : SIM_US(4) + next_random(&c->rng) % SIM_US(4);
        if (more && !c->b)
            CU_ASSERT_EQUAL(sim_event_kernel_schedule(c->k, delay, batch_chain_link, c, NULL), 0);
        batch_chain_others(c);
        if (!more || !c->b)
            return;
        if (c->b->advance(c->k, sim_event_kernel_now(c->k) + delay))
            continue;
        sim_event next;
        CU_ASSERT_EQUAL(c->b->schedule_first(c->k, delay, batch_chain_link, c, &next), 0);
        if (!c->b->take(c->k, next))
            return;
    }
}

static uint64_t run_batch_chain(bool batch, uint64_t *executed)
{
    batch_chain c = { .k = sim_event_kernel_new(0), .rng = 77 };
    c.b = batch ? sim_scheduler_batch(sim_event_kernel_scheduler(c.k)) : NULL;
    for (int i = 0; i < 50; i++)
        sim_event_kernel_schedule(c.k, next_random(&c.rng) % SIM_US(20), batch_chain_other, &c, NULL);
    sim_event_kernel_schedule(c.k, 0, batch_chain_link, &c, NULL);
    CU_ASSERT_EQUAL(sim_event_kernel_run(c.k), 0);
    CU_ASSERT_EQUAL(c.links, 20000);
    *executed = sim_event_kernel_executed(c.k);
    if (batch)
        CU_ASSERT(sim_event_kernel_batched(c.k) > 1000);
    sim_event_kernel_free(c.k);
    return c.trace;
}

static void test_kernel_batched_chain_runs_as_the_queued_one(void)
{
    uint64_t ex_queued, ex_batched;
    uint64_t queued = run_batch_chain(false, &ex_queued);
    uint64_t batched = run_batch_chain(true, &ex_batched);
    CU_ASSERT_EQUAL(batched, queued);
    CU_ASSERT_EQUAL(ex_batched, ex_queued);
}

/* The generator is xoshiro256** seeded by splitmix64: reference outputs computed with an
 * independent implementation, so that seeds mean the same on every build. */
static void test_rng_is_seeded_xoshiro256starstar(void)
{
    static const uint64_t seed0[] = { 0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull,
                                      0x1a5f849d4933e6e0ull };
    static const uint64_t seed1[] = { 0xb3f2af6d0fc710c5ull, 0x853b559647364ceaull,
                                      0x92f89756082a4514ull };
    sim_rng a, b;
    sim_rng_seed(&a, 0);
    sim_rng_seed(&b, 1);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(sim_rng_next(&a), seed0[i]);
        CU_ASSERT_EQUAL(sim_rng_next(&b), seed1[i]);
    }
    for (int i = 0; i < 100000; i++) {
        double u = sim_rng_unit(&a);
        CU_ASSERT_FATAL(u > 0.0 && u <= 1.0);
    }
}

static const unit_test ordering_tests[] = {
    UNIT_TEST(test_kernel_runs_events_in_time_order),
    UNIT_TEST(test_kernel_runs_same_time_events_in_scheduling_order),
    UNIT_TEST(test_kernel_scheduler_interface_reaches_the_kernel),
    UNIT_TEST(test_kernel_zero_delay_from_callback_runs_after_current_event_in_order),
    UNIT_TEST(test_kernel_callbacks_schedule_successors),
    UNIT_TEST(test_kernel_refuses_to_run_from_inside_a_callback),
    UNIT_TESTS_END,
};

static const unit_test cancel_tests[] = {
    UNIT_TEST(test_kernel_cancel_pending_event_prevents_it),
    UNIT_TEST(test_kernel_cancel_of_fired_event_returns_false),
    UNIT_TEST(test_kernel_cancel_twice_returns_false_the_second_time),
    UNIT_TEST(test_kernel_cancel_of_no_event_returns_false),
    UNIT_TEST(test_kernel_cancel_of_recycled_handle_spares_new_occupant),
    UNIT_TEST(test_kernel_callback_cannot_cancel_itself_but_can_cancel_others),
    UNIT_TEST(test_kernel_mass_cancel_compacts_and_keeps_order),
    UNIT_TESTS_END,
};

static const unit_test run_tests[] = {
    UNIT_TEST(test_kernel_stop_from_callback_ends_run_after_current_event),
    UNIT_TEST(test_kernel_stop_inside_step_does_not_stop_a_later_run),
    UNIT_TEST(test_kernel_step_runs_one_event_at_a_time),
    UNIT_TEST(test_kernel_run_until_includes_events_at_the_limit_and_advances_time),
    UNIT_TEST(test_kernel_run_until_runs_zero_delay_events_scheduled_at_the_limit),
    UNIT_TEST(test_kernel_run_for_is_relative_to_now),
    UNIT_TEST(test_kernel_next_time_skips_cancelled_events),
    UNIT_TESTS_END,
};

static const unit_test limit_tests[] = {
    UNIT_TEST(test_kernel_refuses_time_overflow_with_message),
    UNIT_TEST(test_kernel_refuses_null_callback),
    UNIT_TEST(test_kernel_grows_beyond_initial_pool),
    UNIT_TEST(test_kernel_cancelled_events_do_not_accumulate),
    UNIT_TEST(test_kernel_steady_state_does_not_grow_the_pool),
    UNIT_TEST(test_kernel_free_releases_pending_events),
    UNIT_TESTS_END,
};

static const unit_test random_tests[] = {
    UNIT_TEST(test_kernel_million_random_events_match_reference_sort),
    UNIT_TEST(test_kernel_random_events_with_heavy_cancelling_match_reference_sort),
    UNIT_TEST(test_kernel_random_events_near_and_far_match_reference_sort),
    UNIT_TEST(test_kernel_sequence_renumbering_keeps_order),
    UNIT_TEST(test_kernel_random_callbacks_scheduling_and_cancelling_keep_order),
    UNIT_TEST(test_kernel_streams_of_successors_among_timers_keep_order),
    UNIT_TEST(test_rng_is_seeded_xoshiro256starstar),
    UNIT_TESTS_END,
};

static const unit_test batch_tests[] = {
    UNIT_TEST(test_kernel_batched_chain_runs_as_the_queued_one),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "kernel_ordering", ordering_tests, 0, 0 },
    { "kernel_cancel", cancel_tests, 0, 0 },
    { "kernel_run", run_tests, 0, 0 },
    { "kernel_limits", limit_tests, 0, 0 },
    { "kernel_random", random_tests, 0, 0 },
    { "kernel_batch", batch_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
