// SPDX-License-Identifier: MIT
// The event kernel's priority queue: an implicit 4-ary min-heap of 16-byte keys. Private
// to event-kernel/event_kernel.c; static inline so the hot loops inline into the kernel.
//
// An entry is (time, key) with key = seq << 32 | slot: comparing (time, key) orders by
// time, then by scheduling sequence (seqs are unique, so the slot never decides). Four
// 16-byte children fill one 64-byte cache line; the array is laid out so that every group
// of siblings starts on a line boundary (see sim_heap_alloc).
#ifndef GBVP_EVENT_KERNEL_EVENT_HEAP_H
#define GBVP_EVENT_KERNEL_EVENT_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event-kernel/scheduler.h"

typedef struct sim_heap_entry {
    sim_time time;
    uint64_t key; /* seq << 32 | slot */
} sim_heap_entry;

#define SIM_HEAP_ARITY 4
/* Entries before the root so that the children of i (4i+1..4i+4) sit at array offsets
 * 4i+4..4i+7, a multiple of four entries = one cache line. */
#define SIM_HEAP_PAD 3
#define SIM_HEAP_LINE 64

static inline bool sim_heap_less(sim_heap_entry a, sim_heap_entry b)
{
    return a.time != b.time ? a.time < b.time : a.key < b.key;
}

/* Room for `cap` entries; returns the root pointer, or NULL. Free with sim_heap_release. */
static inline sim_heap_entry *sim_heap_alloc(size_t cap)
{
    size_t bytes = (cap + SIM_HEAP_PAD) * sizeof(sim_heap_entry);
    bytes = (bytes + SIM_HEAP_LINE - 1) / SIM_HEAP_LINE * SIM_HEAP_LINE;
    sim_heap_entry *mem = aligned_alloc(SIM_HEAP_LINE, bytes);
    return mem ? mem + SIM_HEAP_PAD : NULL;
}

static inline void sim_heap_release(sim_heap_entry *h)
{
    if (h)
        free(h - SIM_HEAP_PAD);
}

/* Moves h[i] up to its place. */
static inline void sim_heap_sift_up(sim_heap_entry *h, size_t i)
{
    sim_heap_entry e = h[i];
    while (i > 0) {
        size_t p = (i - 1) / SIM_HEAP_ARITY;
        if (!sim_heap_less(e, h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

/* The smallest of the children of i, which must have at least one (first child c < len). */
static inline size_t sim_heap_min_child(const sim_heap_entry *h, size_t len, size_t c)
{
    if (c + 3 < len) {
        /* A tournament: the two pairs compare independently, which pipelines well. */
        size_t a = sim_heap_less(h[c + 1], h[c]) ? c + 1 : c;
        size_t b = sim_heap_less(h[c + 3], h[c + 2]) ? c + 3 : c + 2;
        return sim_heap_less(h[b], h[a]) ? b : a;
    }
    size_t m = c;
    for (size_t j = c + 1; j < len; j++)
        if (sim_heap_less(h[j], h[m]))
            m = j;
    return m;
}

/* Moves h[i] down to its place among len entries. */
static inline void sim_heap_sift_down(sim_heap_entry *h, size_t len, size_t i)
{
    sim_heap_entry e = h[i];
    for (;;) {
        size_t c = SIM_HEAP_ARITY * i + 1;
        if (c >= len)
            break;
        size_t m = sim_heap_min_child(h, len, c);
        if (!sim_heap_less(h[m], e))
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = e;
}

/* Restores heap order over h[0..len) from scratch (Floyd's method, O(len)). */
static inline void sim_heap_build(sim_heap_entry *h, size_t len)
{
    if (len < 2)
        return;
    for (size_t i = (len - 2) / SIM_HEAP_ARITY + 1; i-- > 0;)
        sim_heap_sift_down(h, len, i);
}

#endif
