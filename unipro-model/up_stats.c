// SPDX-License-Identifier: MIT
#include "unipro-model/up_stats.h"

#include <stdlib.h>
#include <string.h>

void up_hist_init(up_hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

static unsigned bucket_of(uint64_t v)
{
    if (v < UP_HIST_SUB)
        return (unsigned)v;
    unsigned msb = 63u - (unsigned)__builtin_clzll(v);
    unsigned shift = msb - 5u; /* log2(UP_HIST_SUB) = 5 */
    unsigned sub = (unsigned)(v >> shift) & (UP_HIST_SUB - 1);
    return (shift + 1) * UP_HIST_SUB + sub;
}

static uint64_t bucket_mid(unsigned b)
{
    if (b < UP_HIST_SUB)
        return b;
    unsigned shift = b / UP_HIST_SUB - 1;
    uint64_t lo = ((uint64_t)(UP_HIST_SUB + b % UP_HIST_SUB)) << shift;
    return lo + (((uint64_t)1 << shift) >> 1);
}

void up_hist_add(up_hist *h, uint64_t v)
{
    h->count++;
    h->sum += (double)v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->bucket[bucket_of(v)]++;
}

uint64_t up_hist_quantile(const up_hist *h, double q)
{
    if (!h->count)
        return 0;
    if (q <= 0)
        return h->min;
    if (q >= 1)
        return h->max;
    uint64_t rank = (uint64_t)(q * (double)h->count);
    if (rank >= h->count)
        rank = h->count - 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < UP_HIST_POW * UP_HIST_SUB; b++) {
        seen += h->bucket[b];
        if (seen > rank) {
            uint64_t v = bucket_mid(b);
            return v < h->min ? h->min : v > h->max ? h->max : v;
        }
    }
    return h->max;
}

double up_hist_mean(const up_hist *h)
{
    return h->count ? h->sum / (double)h->count : 0;
}

void up_level_init(up_level *l, sim_time t0, sim_time interval)
{
    memset(l, 0, sizeof *l);
    l->since = l->t0 = t0;
    l->interval = interval;
}

void up_level_fini(up_level *l)
{
    free(l->series);
    l->series = NULL;
    l->n = l->cap = 0;
}

void up_level_set(up_level *l, sim_time now, uint32_t level)
{
    l->area += (double)l->level * (double)(now - l->since);
    l->since = now;
    l->level = level;
    if (level > l->max)
        l->max = level;
    if (!l->interval)
        return;
    if (l->n && now - l->series[l->n - 1].t < l->interval) {
        if (level > l->series[l->n - 1].level)
            l->series[l->n - 1].level = level; /* keep the peak of the interval */
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        up_level_point *s = realloc(l->series, cap * sizeof *s);
        if (!s)
            return;
        l->series = s;
        l->cap = cap;
    }
    l->series[l->n++] = (up_level_point){ now, level };
}

double up_level_mean(const up_level *l, sim_time now)
{
    double area = l->area + (double)l->level * (double)(now - l->since);
    return now > l->t0 ? area / (double)(now - l->t0) : l->level;
}
