// SPDX-License-Identifier: MIT
// Event kernel throughput in the classic hold model: Q events pending; each one, when it
// runs, schedules one successor at a uniformly random delay, so the queue stays at Q.
// The same model, through the same sim_scheduler interface, runs on sim_event_kernel and on a
// straightforward baseline kernel built on GLib's GSequence (a balanced tree, one
// allocation per event), and both must execute the identical event sequence.
//
// Prints, for Q in 10, 1000, 100000:
//   bench kernel.hold.qQ VALUE events/s
//   bench kernel.hold.qQ.baseline VALUE events/s
//   bench kernel.hold.qQ.ratio VALUE x
// VALUE is the median of several timed runs, in events per second of the thread's CPU time.
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "event-kernel/event_kernel.h"

#define MEAN_DELAY SIM_NS(1000)
#define SEED 0x9e3779b97f4a7c15u
#define VERIFY_EVENTS 200000u
#define TARGET_SECONDS 0.25
#define KERNEL_RUNS 5
#define BASELINE_RUNS 3

/* ---- the model ---------------------------------------------------------------------- */

typedef struct hold_model {
    const sim_scheduler *sched;
    uint64_t rng;
    uint64_t remaining; /* events left in this run */
    uint64_t checksum;  /* order-sensitive digest of the times of the events run */
    void (*stop)(void *runner);
    void *runner;
    int error;
} hold_model;

static uint64_t next_random(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static sim_time random_delay(hold_model *m)
{
    /* Uniform in [0, 2 * MEAN_DELAY): multiply-shift, no division. */
    return (sim_time)(((next_random(&m->rng) >> 32) * (2 * MEAN_DELAY)) >> 32);
}

static void hold_event(void *ctx)
{
    hold_model *m = ctx;
    m->checksum = m->checksum * 0x100000001b3u + sim_now(m->sched);
    int err = sim_schedule(m->sched, random_delay(m), hold_event, m, NULL);
    if (err && !m->error)
        m->error = err;
    if (--m->remaining == 0)
        m->stop(m->runner);
}

static int hold_fill(hold_model *m, size_t queue)
{
    for (size_t i = 0; i < queue; i++) {
        int err = sim_schedule(m->sched, random_delay(m), hold_event, m, NULL);
        if (err)
            return err;
    }
    return 0;
}

/* ---- the baseline kernel ------------------------------------------------------------- */

typedef struct base_event {
    sim_time time;
    uint64_t seq;
    sim_event_fn fn;
    void *ctx;
} base_event;

typedef struct baseline {
    sim_scheduler sched;
    GSequence *queue;
    GHashTable *handles; /* seq -> GSequenceIter, only for events whose handle was asked */
    sim_time now;
    uint64_t seq;
    bool stop;
} baseline;

static gint base_cmp(gconstpointer a, gconstpointer b, gpointer unused)
{
    const base_event *x = a, *y = b;
    (void)unused;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static sim_time base_now(void *self)
{
    return ((baseline *)self)->now;
}

static int base_schedule(void *self, sim_time delay, sim_event_fn fn, void *ctx,
                         sim_event *out)
{
    baseline *b = self;
    if (delay > SIM_TIME_MAX - b->now)
        return -ERANGE;
    base_event *e = g_new(base_event, 1);
    *e = (base_event){ b->now + delay, ++b->seq, fn, ctx };
    GSequenceIter *it = g_sequence_insert_sorted(b->queue, e, base_cmp, NULL);
    if (out) {
        g_hash_table_insert(b->handles, GSIZE_TO_POINTER(e->seq), it);
        out->id = e->seq;
    }
    return 0;
}

static bool base_cancel(void *self, sim_event ev)
{
    baseline *b = self;
    GSequenceIter *it = g_hash_table_lookup(b->handles, GSIZE_TO_POINTER(ev.id));
    if (!it)
        return false;
    g_hash_table_remove(b->handles, GSIZE_TO_POINTER(ev.id));
    g_sequence_remove(it);
    return true;
}

static const sim_scheduler_ops base_ops = { base_now, base_schedule, base_cancel };

static baseline *baseline_new(void)
{
    baseline *b = g_new0(baseline, 1);
    b->sched = (sim_scheduler){ &base_ops, b };
    b->queue = g_sequence_new(g_free);
    b->handles = g_hash_table_new(g_direct_hash, g_direct_equal);
    return b;
}

static void baseline_free(baseline *b)
{
    g_sequence_free(b->queue);
    g_hash_table_destroy(b->handles);
    g_free(b);
}

static void baseline_run(baseline *b)
{
    b->stop = false;
    while (!b->stop && !g_sequence_is_empty(b->queue)) {
        GSequenceIter *it = g_sequence_get_begin_iter(b->queue);
        base_event e = *(base_event *)g_sequence_get(it);
        g_hash_table_remove(b->handles, GSIZE_TO_POINTER(e.seq));
        g_sequence_remove(it);
        b->now = e.time;
        e.fn(e.ctx);
    }
}

static void baseline_stop(void *runner)
{
    ((baseline *)runner)->stop = true;
}

/* ---- driving either kernel ---------------------------------------------------------- */

static void kernel_stop(void *runner)
{
    sim_event_kernel_stop(runner);
}

static void kernel_run(void *runner)
{
    sim_event_kernel_run(runner);
}

static void base_run(void *runner)
{
    baseline_run(runner);
}

/* CPU time of this thread, not wall time: the machine is shared with other jobs, and time
 * slices given to them would otherwise count against the kernel. */
static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs `events` events and returns the rate in events/s. */
static double timed(hold_model *m, void (*run)(void *), void *runner, uint64_t events)
{
    m->remaining = events;
    double t0 = seconds();
    run(runner);
    double dt = seconds() - t0;
    return (double)events / dt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median rate over `runs` timed runs of ~TARGET_SECONDS each, after a calibration run. */
static double measure(hold_model *m, void (*run)(void *), void *runner, int runs)
{
    double rate = timed(m, run, runner, 100000);
    uint64_t events = (uint64_t)(rate * TARGET_SECONDS);
    if (events < 10000)
        events = 10000;
    double rates[8];
    for (int i = 0; i < runs; i++)
        rates[i] = timed(m, run, runner, events);
    qsort(rates, (size_t)runs, sizeof rates[0], cmp_double);
    return rates[runs / 2];
}

/* Both kernels must run the same events in the same order: compares digests. */
static int verify(size_t queue)
{
    sim_event_kernel *k = sim_event_kernel_new(queue);
    baseline *b = baseline_new();
    if (!k) {
        fprintf(stderr, "bench_kernel: out of memory\n");
        baseline_free(b);
        return -1;
    }
    hold_model mk = { sim_event_kernel_scheduler(k), SEED, VERIFY_EVENTS, 0, kernel_stop, k, 0 };
    hold_model mb = { &b->sched, SEED, VERIFY_EVENTS, 0, baseline_stop, b, 0 };
    int err = hold_fill(&mk, queue);
    if (!err)
        err = hold_fill(&mb, queue);
    if (!err) {
        sim_event_kernel_run(k);
        baseline_run(b);
    }
    int ret = 0;
    if (err || mk.error || mb.error) {
        fprintf(stderr, "bench_kernel: q%zu: scheduling failed: %s\n", queue,
                sim_event_kernel_last_error(k));
        ret = -1;
    } else if (mk.checksum != mb.checksum || sim_event_kernel_now(k) != b->now ||
               sim_event_kernel_executed(k) != VERIFY_EVENTS) {
        fprintf(stderr,
                "bench_kernel: q%zu: kernel and baseline disagree (digest %016" PRIx64
                " vs %016" PRIx64 ", time %" PRIu64 " vs %" PRIu64 " ps)\n",
                queue, mk.checksum, mb.checksum, sim_event_kernel_now(k), b->now);
        ret = -1;
    }
    sim_event_kernel_free(k);
    baseline_free(b);
    return ret;
}

static int bench_queue(size_t queue)
{
    if (verify(queue))
        return -1;

    sim_event_kernel *k = sim_event_kernel_new(0); /* grows to Q while filling, then stays */
    if (!k) {
        fprintf(stderr, "bench_kernel: out of memory\n");
        return -1;
    }
    hold_model mk = { sim_event_kernel_scheduler(k), SEED, 0, 0, kernel_stop, k, 0 };
    if (hold_fill(&mk, queue)) {
        fprintf(stderr, "bench_kernel: %s\n", sim_event_kernel_last_error(k));
        sim_event_kernel_free(k);
        return -1;
    }
    double kernel_rate = measure(&mk, kernel_run, k, KERNEL_RUNS);
    bool kernel_ok = !mk.error && sim_event_kernel_pending(k) == queue;
    sim_event_kernel_free(k);

    baseline *b = baseline_new();
    hold_model mb = { &b->sched, SEED, 0, 0, baseline_stop, b, 0 };
    hold_fill(&mb, queue);
    double base_rate = measure(&mb, base_run, b, BASELINE_RUNS);
    bool base_ok = !mb.error && (size_t)g_sequence_get_length(b->queue) == queue;
    baseline_free(b);

    if (!kernel_ok || !base_ok) {
        fprintf(stderr, "bench_kernel: q%zu: the queue did not stay at %zu events\n", queue,
                queue);
        return -1;
    }
    printf("bench kernel.hold.q%zu %.3g events/s\n", queue, kernel_rate);
    printf("bench kernel.hold.q%zu.baseline %.3g events/s\n", queue, base_rate);
    printf("bench kernel.hold.q%zu.ratio %.3g x\n", queue, kernel_rate / base_rate);
    fflush(stdout);
    return 0;
}

int main(void)
{
    static const size_t queues[] = { 10, 1000, 100000 };
    for (size_t i = 0; i < sizeof queues / sizeof queues[0]; i++)
        if (bench_queue(queues[i]))
            return 1;
    return 0;
}
