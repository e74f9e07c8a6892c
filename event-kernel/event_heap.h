// SPDX-License-Identifier: MIT
// The event kernel's priority queue: an implicit 4-ary min-heap of 16-byte keys. Private
// to event-kernel/event_kernel.c; static inline so the hot loops inline into the kernel.
//
// An entry is (time, key) with key = seq << 32 | slot: comparing (time, key) orders by
// time, then by scheduling sequence (seqs are unique, so the slot never decides). Four
// 16-byte children fill one 64-byte cache line; the array is laid out so that every group
// of siblings starts on a line boundary (see sim_heap_alloc), and is followed by filler
// entries so that the last group is full too (SIM_HEAP_SLACK). Sifting down is then free
// of data-dependent branches but one per level: a 128-bit compare and a conditional pick
// per pair of siblings.
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

/* (time, key) as one 128-bit number: comparing two of them is a subtract with borrow, no
 * branch on equal times. */
static inline unsigned __int128 sim_heap_rank(sim_heap_entry e)
{
    return (unsigned __int128)e.time << 64 | e.key;
}

static inline bool sim_heap_less(sim_heap_entry a, sim_heap_entry b)
{
    return sim_heap_rank(a) < sim_heap_rank(b);
}

/* Past the last entry, up to SIM_HEAP_SLACK entries more are read as children: they must
 * hold SIM_HEAP_NONE, which ranks after every real entry (a real key's slot is below
 * UINT32_MAX). This way every group of siblings is full and the minimum of four needs no
 * bounds check. */
#define SIM_HEAP_SLACK 3
#define SIM_HEAP_NONE ((sim_heap_entry){ UINT64_MAX, UINT64_MAX })

/* Room for `cap` entries plus the slack, all SIM_HEAP_NONE; returns the root pointer, or
 * NULL. Free with sim_heap_release. */
static inline sim_heap_entry *sim_heap_alloc(size_t cap)
{
    size_t n = cap + SIM_HEAP_SLACK;
    size_t bytes = (n + SIM_HEAP_PAD) * sizeof(sim_heap_entry);
    bytes = (bytes + SIM_HEAP_LINE - 1) / SIM_HEAP_LINE * SIM_HEAP_LINE;
    sim_heap_entry *mem = aligned_alloc(SIM_HEAP_LINE, bytes);
    if (!mem)
        return NULL;
    for (size_t i = 0; i < n; i++)
        mem[SIM_HEAP_PAD + i] = SIM_HEAP_NONE;
    return mem + SIM_HEAP_PAD;
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

/* The smallest of the four siblings c[0..3]. A tournament: the two pairs compare
 * independently, which pipelines well. The pairs' picks add the comparison (0 or 1) to the
 * pointer, which GCC cannot turn into a branch; as branches they mispredict about half the
 * time. */
static inline sim_heap_entry *sim_heap_min4(sim_heap_entry *c)
{
    sim_heap_entry *a = c + sim_heap_less(c[1], c[0]);
    sim_heap_entry *b = c + 2 + sim_heap_less(c[3], c[2]);
    return sim_heap_less(*b, *a) ? b : a;
}

/* Moves h[i] down to its place among len entries (h[len..len+SIM_HEAP_SLACK) being
 * SIM_HEAP_NONE). */
static inline void sim_heap_sift_down(sim_heap_entry *h, size_t len, size_t i)
{
    sim_heap_entry e = h[i];
    sim_heap_entry *p = h + i, *end = h + len;
    for (;;) {
        /* The first child, h + ARITY * (p - h) + 1, computed in bytes: p - h would divide
         * by the entry size only to multiply again. */
        size_t off = (size_t)((char *)p - (char *)h);
        sim_heap_entry *c = (sim_heap_entry *)((char *)h + sizeof *h + SIM_HEAP_ARITY * off);
        if (c >= end)
            break;
        sim_heap_entry *m = sim_heap_min4(c);
        if (!sim_heap_less(*m, e))
            break;
        *p = *m;
        p = m;
    }
    *p = e;
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
