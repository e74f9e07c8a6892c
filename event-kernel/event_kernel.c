// SPDX-License-Identifier: MIT
// gbvp's native event kernel (interface in event-kernel/event_kernel.h, design in docs/event-kernel.md).
//
// Two arrays, both grown by doubling and never shrunk, so steady-state scheduling does
// not allocate, and a fixed ring:
//  - nodes[]: one slot per event (callback, context, generation). Free slots form a LIFO
//    list threaded through `next_free`. A handle is generation << 32 | slot; the
//    generation changes whenever a slot is freed, so a stale handle never matches the
//    slot's next occupant.
//  - heap[]: a 4-ary min-heap of (time, seq << 32 | slot) (event-kernel/event_heap.h).
//    Entries past the last one are filler (SIM_HEAP_NONE) so that every sibling group is
//    full: whatever shortens the heap rewrites the entries it leaves.
//  - soon[]: beside the heap, a short ring of entries in (time, key) order, for the common
//    pattern of a model's stream of events each due a little after every other pending
//    one (a link's frame arrivals): such an event is appended in one comparison instead
//    of sifting through the heap. An event goes there only when it is due within
//    SOON_WINDOW and after the ring's last entry; the next event is the smaller of the
//    ring's first entry and the heap's root. Where few events fit that pattern the ring
//    is left unused for a while (SOON_JUDGE), so the heap's root reuse below is kept.
//
// Cancelling is lazy: the node forgets its callback and its entry (heap or ring) stays
// behind as "dead" until it comes first (where it is dropped) or until dead entries
// outnumber live ones, when both are compacted in O(n). Either way each cancel costs O(1)
// amortized plus, at most, one O(log n) removal later, and memory stays bounded by twice
// the peak number of pending events.
//
// When an event runs, its heap entry stays at the root while the callback runs. The first
// event the callback schedules overwrites the root and sifts down once, instead of a pop
// (sift down) plus a push (sift up): the common "event schedules its successor" pattern
// costs a single heap pass. If the callback schedules nothing, the root is popped after.
//
// Sequence numbers have 32 bits in the key. When they run out (every ~4e9 schedules) the
// heap is sorted by (time, key), which keeps it a valid heap, and the pending events are
// renumbered 0..n-1 in that order, which keeps their relative order.
#include "event-kernel/event_kernel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-kernel/event_heap.h"

#define SLOT_NONE UINT32_MAX
/* Slots are 32-bit and SLOT_NONE is reserved. */
#define MAX_SLOTS ((size_t)UINT32_MAX - 1)
#define DEFAULT_CAPACITY 64
#define SEQ_LIMIT ((uint64_t)1 << 32)
/* Compaction starts once dead entries exceed both this and the live count. */
#define COMPACT_MIN_DEAD 64
/* The soon list (see the top of this file): its room, and how far ahead an event may be
 * due to enter it (a link's next arrival at HS gears is due within a few microseconds; its
 * replay and protection timers, a millisecond ahead, would keep arrivals out). */
#define SOON_CAP 64u
#define SOON_WINDOW SIM_US(3)
/* The soon list pays when most events go through it (70 % on the 14-port switch, nearly
 * all on a link); events at random distances would split between the two structures and
 * lose the heap's root reuse. So it is judged every SOON_JUDGE inserts, and left unused
 * for SOON_REST inserts when fewer than SOON_KEEP of them went into it. */
#define SOON_JUDGE 256u
#define SOON_KEEP 128u
#define SOON_REST 4096u

typedef struct sim_event_kernel_node {
    sim_event_fn fn; /* NULL when free or cancelled */
    void *ctx;
    uint32_t gen;       /* never 0, so a handle is never SIM_EVENT_NONE */
    uint32_t next_free; /* free-list link while free */
} sim_event_kernel_node;

struct sim_event_kernel {
    sim_scheduler sched;
    sim_heap_entry *heap;
    size_t len;     /* heap entries, dead ones included */
    sim_heap_entry soon[SOON_CAP]; /* a ring sorted by (time, key), dead ones included */
    unsigned soon_head, soon_len;
    unsigned soon_tries, soon_hits; /* inserts judged so far, and those that went in */
    unsigned soon_rest;             /* inserts left before the soon list is tried again */
    size_t cap;     /* slots in nodes[] = entries room in heap[] */
    sim_event_kernel_node *nodes;
    uint32_t free_head;
    size_t live;    /* pending events */
    size_t dead;    /* cancelled entries still in the heap */
    sim_time now;
    uint64_t next_seq;
    uint64_t seq_limit;
    uint64_t executed;
    uint64_t batched;  /* of which handled by the model itself (advance, take) */
    uint64_t skipped;  /* of which stood for by a period skip, never run (skip) */
    bool in_callback;
    bool root_pending; /* heap[0] belongs to the event running and may be overwritten */
    bool running;      /* inside run/run_until */
    bool stop;
    bool mark_free;    /* mark_seq is reserved for schedule_first in the current event */
    uint64_t mark_seq; /* the sequence number the current event reserved at its start */
    sim_time limit;    /* of the run in progress */
    char error[200];
};

static int fail(sim_event_kernel *k, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(sim_event_kernel *k, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->error, sizeof k->error, fmt, ap);
    va_end(ap);
    return err;
}

static uint32_t next_gen(uint32_t gen)
{
    return gen == UINT32_MAX ? 1 : gen + 1;
}

static void free_slot(sim_event_kernel *k, uint32_t slot)
{
    sim_event_kernel_node *n = &k->nodes[slot];
    n->fn = NULL;
    n->ctx = NULL;
    n->gen = next_gen(n->gen);
    n->next_free = k->free_head;
    k->free_head = slot;
}

/* Doubles both arrays (slots and heap room go together: each slot has at most one entry). */
static int grow(sim_event_kernel *k)
{
    if (k->cap >= MAX_SLOTS)
        return fail(k, -ENOMEM, "schedule: %zu events pending, the kernel's limit", k->cap);
    size_t cap = k->cap > MAX_SLOTS / 2 ? MAX_SLOTS : k->cap * 2;
    sim_heap_entry *heap = sim_heap_alloc(cap);
    sim_event_kernel_node *nodes = heap ? realloc(k->nodes, cap * sizeof *nodes) : NULL;
    if (!nodes) {
        sim_heap_release(heap);
        return fail(k, -ENOMEM, "schedule: out of memory growing the event pool to %zu events",
                    cap);
    }
    memcpy(heap, k->heap, k->len * sizeof *heap);
    sim_heap_release(k->heap);
    k->heap = heap;
    k->nodes = nodes;
    /* Chain the new slots so that the lowest index comes out first. */
    for (size_t i = cap; i-- > k->cap;) {
        nodes[i] = (sim_event_kernel_node){ .gen = 1, .next_free = k->free_head };
        k->free_head = (uint32_t)i;
    }
    k->cap = cap;
    return 0;
}

sim_event_kernel *sim_event_kernel_new(size_t initial_capacity)
{
    sim_event_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    size_t cap = initial_capacity ? initial_capacity : DEFAULT_CAPACITY;
    if (cap > MAX_SLOTS)
        cap = MAX_SLOTS;
    k->heap = sim_heap_alloc(cap);
    k->nodes = malloc(cap * sizeof *k->nodes);
    if (!k->heap || !k->nodes) {
        sim_heap_release(k->heap);
        free(k->nodes);
        free(k);
        return NULL;
    }
    k->free_head = SLOT_NONE;
    for (size_t i = cap; i-- > 0;) {
        k->nodes[i] = (sim_event_kernel_node){ .gen = 1, .next_free = k->free_head };
        k->free_head = (uint32_t)i;
    }
    k->cap = cap;
    k->seq_limit = SEQ_LIMIT;
    return k;
}

void sim_event_kernel_free(sim_event_kernel *k)
{
    if (!k)
        return;
    sim_heap_release(k->heap);
    free(k->nodes);
    free(k);
}

/* Removes the root entry (nodes untouched). */
static void pop_root(sim_event_kernel *k)
{
    k->len--;
    k->heap[0] = k->heap[k->len];
    k->heap[k->len] = SIM_HEAP_NONE; /* entries past the end are filler (event_heap.h) */
    sim_heap_sift_down(k->heap, k->len, 0);
}

/* The i-th soonest entry of the soon list. */
static inline sim_heap_entry *soon_at(sim_event_kernel *k, unsigned i)
{
    return &k->soon[(k->soon_head + i) % SOON_CAP];
}

/* The soon list's first entry, or SIM_HEAP_NONE (which ranks after every event) when it
 * is empty: so "the ring's first comes before X" needs no emptiness test. */
static inline sim_heap_entry soon_first(const sim_event_kernel *k)
{
    return k->soon_len ? k->soon[k->soon_head] : SIM_HEAP_NONE;
}

/* Whether e, an entry or SIM_HEAP_NONE, is an event due at or before t. */
static inline bool due_by(sim_heap_entry e, sim_time t)
{
    return e.key != SIM_HEAP_NONE.key && e.time <= t;
}

static void soon_pop(sim_event_kernel *k)
{
    k->soon_head = (k->soon_head + 1) % SOON_CAP;
    k->soon_len--;
}

/* Appends e to the soon list when it is due within SOON_WINDOW, after every event in the
 * list, and there is room; otherwise it is left for the heap. Either way the order of
 * events is the same: the list and the heap are each sorted, and the next event is the
 * smaller of their first entries. */
static inline bool soon_insert(sim_event_kernel *k, sim_heap_entry e, sim_time delay)
{
    if (k->soon_rest) {
        k->soon_rest--;
        return false;
    }
    if (++k->soon_tries == SOON_JUDGE) {
        if (k->soon_hits < SOON_KEEP)
            k->soon_rest = SOON_REST;
        k->soon_tries = k->soon_hits = 0;
    }
    if (delay > SOON_WINDOW || k->soon_len == SOON_CAP ||
        (k->soon_len && sim_heap_less(e, *soon_at(k, k->soon_len - 1))))
        return false;
    *soon_at(k, k->soon_len++) = e;
    k->soon_hits++;
    return true;
}

/* The earliest heap entry that is pending or dead, not the running event's own: with the
 * root pending, one of its children (or SIM_HEAP_NONE). */
static inline sim_heap_entry heap_first(const sim_event_kernel *k)
{
    if (!k->root_pending)
        return k->len ? k->heap[0] : SIM_HEAP_NONE;
    sim_heap_entry m = SIM_HEAP_NONE;
    size_t end = k->len < 5 ? k->len : 5;
    for (size_t c = 1; c < end; c++)
        if (sim_heap_less(k->heap[c], m))
            m = k->heap[c];
    return m;
}

/* Drops the root entry of the event running, if no schedule has reused it yet. */
static void settle_root(sim_event_kernel *k)
{
    if (k->root_pending) {
        k->root_pending = false;
        pop_root(k);
    }
}

static void compact(sim_event_kernel *k)
{
    settle_root(k);
    size_t j = 0;
    for (size_t i = 0; i < k->len; i++) {
        uint32_t slot = (uint32_t)k->heap[i].key;
        if (k->nodes[slot].fn)
            k->heap[j++] = k->heap[i];
        else
            free_slot(k, slot);
    }
    for (size_t i = j; i < k->len; i++)
        k->heap[i] = SIM_HEAP_NONE; /* filler past the end, as sim_heap_sift_down reads it */
    k->len = j;
    unsigned kept = 0;
    for (unsigned i = 0; i < k->soon_len; i++) {
        sim_heap_entry e = *soon_at(k, i);
        uint32_t slot = (uint32_t)e.key;
        if (k->nodes[slot].fn)
            *soon_at(k, kept++) = e;
        else
            free_slot(k, slot);
    }
    k->soon_len = kept;
    k->dead = 0;
    sim_heap_build(k->heap, k->len);
}

static int cmp_key(const void *a, const void *b)
{
    const sim_heap_entry *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Gives the entries fresh sequence numbers 0..len-1 in the order of their old ones (which
 * keeps the order of equal times), the current event's reservation (mark_seq) included. */
static int renumber(sim_event_kernel *k)
{
    settle_root(k);
    while (k->soon_len) { /* all in the heap (room: a slot has at most one entry) */
        k->heap[k->len++] = *soon_at(k, 0);
        soon_pop(k);
    }
    if (k->len >= k->seq_limit)
        return fail(k, -ENOMEM, "schedule: %zu events pending exceed the sequence limit %" PRIu64,
                    k->len, k->seq_limit);
    qsort(k->heap, k->len, sizeof *k->heap, cmp_key);
    uint64_t r = 0;
    bool mark = k->mark_free;
    for (size_t i = 0; i < k->len; i++) {
        if (mark && (k->heap[i].key >> 32) > k->mark_seq) {
            k->mark_seq = r++;
            mark = false;
        }
        k->heap[i].key = r++ << 32 | (uint32_t)k->heap[i].key;
    }
    if (mark)
        k->mark_seq = r++;
    k->next_seq = r;
    sim_heap_build(k->heap, k->len);
    return 0;
}

/* Inserts fn(ctx) at now + delay with sequence number seq (checked by the callers).
 * Inlined into both callers, so that a schedule saves and restores the registers the heap
 * pass needs once rather than at each call level. */
static inline __attribute__((always_inline)) int insert(sim_event_kernel *k, sim_time delay,
                                                        sim_event_fn fn, void *ctx,
                                                        sim_event *out, uint64_t seq)
{
    if (k->free_head == SLOT_NONE) {
        int err = grow(k);
        if (err)
            return err;
    }
    uint32_t slot = k->free_head;
    sim_event_kernel_node *n = &k->nodes[slot];
    k->free_head = n->next_free;
    n->fn = fn;
    n->ctx = ctx;
    k->live++;
    /* before the heap pass, so that fewer values live across its loop */
    if (out)
        out->id = (uint64_t)n->gen << 32 | slot;
    sim_heap_entry e = { k->now + delay, seq << 32 | slot };
    if (soon_insert(k, e, delay))
        return 0;
    if (k->root_pending) {
        k->root_pending = false;
        k->heap[0] = e;
        sim_heap_sift_down(k->heap, k->len, 0);
    } else {
        k->heap[k->len] = e;
        sim_heap_sift_up(k->heap, k->len++);
    }
    return 0;
}

static int check_schedule(sim_event_kernel *k, sim_time delay, sim_event_fn fn)
{
    if (!fn)
        return fail(k, -EINVAL, "schedule: callback is NULL");
    if (delay > SIM_TIME_MAX - k->now)
        return fail(k, -ERANGE,
                    "schedule: delay %" PRIu64 " ps from now %" PRIu64
                    " ps is past the end of simulated time (%" PRIu64 " ps)",
                    delay, k->now, (uint64_t)SIM_TIME_MAX);
    return 0;
}

/* Ordered as if scheduled first thing in the current event: with the sequence number the
 * event reserved when it began. */
static int schedule_first(sim_event_kernel *k, sim_time delay, sim_event_fn fn, void *ctx,
                          sim_event *out)
{
    if (!k->in_callback || !k->mark_free)
        return fail(k, -ENOTSUP, "schedule_first: not inside an event, or used twice in one");
    int err = check_schedule(k, delay, fn);
    if (err)
        return err;
    err = insert(k, delay, fn, ctx, out, k->mark_seq);
    if (!err)
        k->mark_free = false;
    return err;
}

/* A new event begins inside the callback running: it reserves a sequence number for
 * schedule_first. */
static void begin_event(sim_event_kernel *k)
{
    if (k->next_seq >= k->seq_limit) {
        k->mark_free = false;
        if (renumber(k))
            return; /* no reservation: schedule_first says -ENOTSUP */
    }
    k->mark_seq = k->next_seq++;
    k->mark_free = true;
}

/* See sim_scheduler_ops.advance: the clock moves to t when no pending event is due at or
 * before t, so what the caller does next is the event the kernel would have run next. */
static bool kernel_advance(sim_event_kernel *k, sim_time t)
{
    if (!k->running || !k->in_callback || k->stop || t < k->now || t > k->limit)
        return false;
    /* (a dead entry first only makes the answer cautious) */
    if (due_by(soon_first(k), t) || due_by(heap_first(k), t))
        return false;
    k->now = t;
    k->executed++;
    k->batched++;
    begin_event(k);
    return true;
}

/* See sim_scheduler_ops.take: only the root entry, when it is pending (not the running
 * event's own) and names `event`, is the event the kernel would run next. */
static bool kernel_take(sim_event_kernel *k, sim_event event)
{
    if (!k->running || !k->in_callback || k->stop)
        return false;
    sim_heap_entry sfirst = soon_first(k), hfirst = heap_first(k);
    bool soon = sim_heap_less(sfirst, hfirst);
    if (!soon && (k->root_pending || !k->len))
        return false; /* (the heap's first entry is not at the root: let the kernel run it) */
    sim_heap_entry top = soon ? sfirst : hfirst;
    uint32_t slot = (uint32_t)top.key;
    if (slot != (uint32_t)event.id || top.time > k->limit)
        return false;
    sim_event_kernel_node *n = &k->nodes[slot];
    if (!n->fn || n->gen != (uint32_t)(event.id >> 32))
        return false;
    free_slot(k, slot);
    k->live--;
    k->now = top.time;
    k->executed++;
    k->batched++;
    if (soon)
        soon_pop(k);
    else
        k->root_pending = true; /* its entry is the running event's now */
    begin_event(k);
    return true;
}

/* The pending entry of `event` in the soon list or the heap (not the running event's), or
 * NULL. A scan: only period skipping asks, once per skip. */
static const sim_heap_entry *find_entry(const sim_event_kernel *k, sim_event event)
{
    uint32_t slot = (uint32_t)event.id;
    if (slot >= k->cap || !k->nodes[slot].fn || k->nodes[slot].gen != (uint32_t)(event.id >> 32))
        return NULL;
    for (unsigned i = 0; i < k->soon_len; i++) {
        const sim_heap_entry *e = &k->soon[(k->soon_head + i) % SOON_CAP];
        if ((uint32_t)e->key == slot)
            return e;
    }
    for (size_t i = k->root_pending ? 1 : 0; i < k->len; i++)
        if ((uint32_t)k->heap[i].key == slot)
            return &k->heap[i];
    return NULL;
}

/* Whether heap or soon-list entry e is one of the n in skip (found by find_entry). */
static bool is_skipped(const sim_heap_entry *e, const sim_heap_entry *const *skip, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (skip[i] == e)
            return true;
    return false;
}

#define HORIZON_EXCEPT_MAX 64u

/* See sim_scheduler_batch_ops.horizon: every pending event but `except` is due after it. */
static sim_time kernel_horizon(sim_event_kernel *k, const sim_event *except, unsigned n)
{
    if (!k->running || !k->in_callback || k->stop || n > HORIZON_EXCEPT_MAX)
        return 0;
    const sim_heap_entry *skip[HORIZON_EXCEPT_MAX];
    for (unsigned i = 0; i < n; i++)
        skip[i] = find_entry(k, except[i]);
    sim_time t = k->limit;
    for (unsigned i = 0; i < k->soon_len; i++) {
        const sim_heap_entry *e = &k->soon[(k->soon_head + i) % SOON_CAP];
        if (k->nodes[(uint32_t)e->key].fn && e->time - 1 < t && !is_skipped(e, skip, n))
            t = e->time ? e->time - 1 : 0;
    }
    for (size_t i = k->root_pending ? 1 : 0; i < k->len; i++) {
        const sim_heap_entry *e = &k->heap[i];
        if (k->nodes[(uint32_t)e->key].fn && e->time - 1 < t && !is_skipped(e, skip, n))
            t = e->time ? e->time - 1 : 0;
    }
    return t < k->now ? k->now : t;
}

static uint64_t kernel_seq_of(sim_event_kernel *k, sim_event event)
{
    const sim_heap_entry *e = find_entry(k, event);
    return e ? e->key >> 32 : UINT64_MAX;
}

/* See sim_scheduler_batch_ops.skip: advance, counting the events the caller stood for.
 * The caller checked the horizon, passing over the events it moves: those it queued again
 * just before (due at t at the earliest, after the event running) and the dead entries
 * they left. */
static bool kernel_skip(sim_event_kernel *k, sim_time t, uint64_t events)
{
    if (!events || !k->running || !k->in_callback || k->stop || t < k->now || t > k->limit)
        return false;
    k->now = t;
    k->executed += events;
    k->batched += events;
    k->skipped += events - 1;
    begin_event(k);
    return true;
}

int sim_event_kernel_schedule(sim_event_kernel *k, sim_time delay, sim_event_fn fn, void *ctx,
                        sim_event *out)
{
    int err = check_schedule(k, delay, fn);
    if (err)
        return err;
    if (k->next_seq >= k->seq_limit && (err = renumber(k)) != 0)
        return err;
    err = insert(k, delay, fn, ctx, out, k->next_seq);
    if (!err)
        k->next_seq++;
    return err;
}

bool sim_event_kernel_cancel(sim_event_kernel *k, sim_event event)
{
    uint64_t slot = event.id & UINT32_MAX;
    uint32_t gen = (uint32_t)(event.id >> 32);
    if (slot >= k->cap)
        return false;
    sim_event_kernel_node *n = &k->nodes[slot];
    if (n->gen != gen || !n->fn)
        return false;
    /* The slot stays taken by its dead heap entry until that entry is dropped. */
    n->fn = NULL;
    n->ctx = NULL;
    k->live--;
    k->dead++;
    if (k->dead > COMPACT_MIN_DEAD && k->dead > k->live)
        compact(k);
    return true;
}

/* Runs the earliest event if it is due at or before `limit`; drops dead entries on the way.
 * Returns whether an event ran. Inlined into the run loop, which calls it once per event. */
static inline __attribute__((always_inline)) bool run_one(sim_event_kernel *k, sim_time limit)
{
    for (;;) {
        /* the smaller first entry of the soon list and the heap (SIM_HEAP_NONE when empty) */
        sim_heap_entry sfirst = soon_first(k);
        bool soon = sim_heap_less(sfirst, k->heap[0]);
        sim_heap_entry top = soon ? sfirst : k->heap[0];
        if ((!soon && !k->len) || top.time > limit)
            return false;
        uint32_t slot = (uint32_t)top.key;
        sim_event_kernel_node *n = &k->nodes[slot];
        if (!n->fn) {
            if (soon)
                soon_pop(k);
            else
                pop_root(k);
            free_slot(k, slot);
            k->dead--;
            continue;
        }
        sim_event_fn fn = n->fn;
        void *ctx = n->ctx;
        /* Free before the call: the callback may reuse the slot, and its own handle is
         * already stale (cancelling a running event returns false). */
        free_slot(k, slot);
        k->live--;
        k->now = top.time;
        k->executed++;
        if (soon)
            soon_pop(k);
        else
            k->root_pending = true;
        k->in_callback = true;
        begin_event(k);
        fn(ctx);
        k->in_callback = false;
        k->mark_free = false;
        settle_root(k);
        return true;
    }
}

int sim_event_kernel_step(sim_event_kernel *k)
{
    if (k->in_callback)
        return fail(k, -EBUSY, "step: called from inside an event callback");
    return run_one(k, SIM_TIME_MAX) ? 1 : 0;
}

static int run_to(sim_event_kernel *k, sim_time limit)
{
    k->running = true;
    k->limit = limit;
    k->stop = false;
    while (run_one(k, limit)) {
        if (k->stop) {
            k->running = false;
            k->stop = false;
            return SIM_EVENT_KERNEL_STOPPED;
        }
    }
    k->running = false;
    return 0;
}

int sim_event_kernel_run(sim_event_kernel *k)
{
    if (k->in_callback)
        return fail(k, -EBUSY, "run: called from inside an event callback");
    return run_to(k, SIM_TIME_MAX);
}

int sim_event_kernel_run_until(sim_event_kernel *k, sim_time limit)
{
    if (k->in_callback)
        return fail(k, -EBUSY, "run_until: called from inside an event callback");
    if (limit < k->now)
        return fail(k, -EINVAL, "run_until: limit %" PRIu64 " ps is before now (%" PRIu64 " ps)",
                    limit, k->now);
    int ret = run_to(k, limit);
    if (ret == 0)
        k->now = limit;
    return ret;
}

int sim_event_kernel_run_for(sim_event_kernel *k, sim_time duration)
{
    if (k->in_callback)
        return fail(k, -EBUSY, "run_for: called from inside an event callback");
    if (duration > SIM_TIME_MAX - k->now)
        return fail(k, -ERANGE,
                    "run_for: duration %" PRIu64 " ps from now %" PRIu64
                    " ps is past the end of simulated time (%" PRIu64 " ps)",
                    duration, k->now, (uint64_t)SIM_TIME_MAX);
    return sim_event_kernel_run_until(k, k->now + duration);
}

void sim_event_kernel_stop(sim_event_kernel *k)
{
    if (k->running)
        k->stop = true;
}

bool sim_event_kernel_next_time(sim_event_kernel *k, sim_time *out)
{
    /* The entry of a running event is not pending; dead entries on top are dropped. */
    settle_root(k);
    while (k->soon_len && !k->nodes[(uint32_t)soon_first(k).key].fn) {
        free_slot(k, (uint32_t)soon_first(k).key);
        soon_pop(k);
        k->dead--;
    }
    while (k->len > 0 && !k->nodes[(uint32_t)k->heap[0].key].fn) {
        uint32_t slot = (uint32_t)k->heap[0].key;
        pop_root(k);
        free_slot(k, slot);
        k->dead--;
    }
    if (!k->soon_len && !k->len)
        return false;
    sim_heap_entry sfirst = soon_first(k);
    *out = sim_heap_less(sfirst, k->heap[0]) ? sfirst.time : k->heap[0].time;
    return true;
}

sim_time sim_event_kernel_now(const sim_event_kernel *k)
{
    return k->now;
}

size_t sim_event_kernel_pending(const sim_event_kernel *k)
{
    return k->live;
}

size_t sim_event_kernel_capacity(const sim_event_kernel *k)
{
    return k->cap;
}

uint64_t sim_event_kernel_executed(const sim_event_kernel *k)
{
    return k->executed;
}

uint64_t sim_event_kernel_batched(const sim_event_kernel *k)
{
    return k->batched;
}

uint64_t sim_event_kernel_skipped(const sim_event_kernel *k)
{
    return k->skipped;
}

const char *sim_event_kernel_last_error(const sim_event_kernel *k)
{
    return k->error;
}

void sim_event_kernel_set_seq_limit_for_test(sim_event_kernel *k, uint64_t limit)
{
    k->seq_limit = limit < SEQ_LIMIT ? limit : SEQ_LIMIT;
}

/* The scheduler interface: thin adapters so models need only event-kernel/scheduler.h. */
static sim_time ops_now(void *self)
{
    return sim_event_kernel_now(self);
}

static int ops_schedule(void *self, sim_time delay, sim_event_fn fn, void *ctx,
                        sim_event *out)
{
    return sim_event_kernel_schedule(self, delay, fn, ctx, out);
}

static bool ops_cancel(void *self, sim_event event)
{
    return sim_event_kernel_cancel(self, event);
}

static bool ops_advance(void *self, sim_time t)
{
    return kernel_advance(self, t);
}

static int ops_schedule_first(void *self, sim_time delay, sim_event_fn fn, void *ctx,
                              sim_event *out)
{
    return schedule_first(self, delay, fn, ctx, out);
}

static bool ops_take(void *self, sim_event event)
{
    return kernel_take(self, event);
}

static sim_time ops_horizon(void *self, const sim_event *except, unsigned n)
{
    return kernel_horizon(self, except, n);
}

static uint64_t ops_seq_of(void *self, sim_event event)
{
    return kernel_seq_of(self, event);
}

static uint64_t ops_mark(void *self)
{
    return ((sim_event_kernel *)self)->mark_seq;
}

static bool ops_skip(void *self, sim_time t, uint64_t events)
{
    return kernel_skip(self, t, events);
}

static uint64_t ops_executed(void *self)
{
    return sim_event_kernel_executed(self);
}

static const sim_scheduler_ops kernel_ops = {
    .now = ops_now,
    .schedule = ops_schedule,
    .cancel = ops_cancel,
};

static const sim_scheduler_batch_ops kernel_batch_ops = {
    .advance = ops_advance,
    .schedule_first = ops_schedule_first,
    .take = ops_take,
    .horizon = ops_horizon,
    .seq_of = ops_seq_of,
    .mark = ops_mark,
    .skip = ops_skip,
    .executed = ops_executed,
};

const sim_scheduler_batch_ops *sim_scheduler_batch(const sim_scheduler *s)
{
    return s && s->ops == &kernel_ops ? &kernel_batch_ops : NULL;
}

const sim_time *sim_scheduler_clock(const sim_scheduler *s)
{
    return s && s->ops == &kernel_ops ? &((const sim_event_kernel *)s->self)->now : NULL;
}

const sim_scheduler *sim_event_kernel_scheduler(sim_event_kernel *k)
{
    k->sched = (sim_scheduler){ .ops = &kernel_ops, .self = k };
    return &k->sched;
}
