// SPDX-License-Identifier: MIT
// Statistics helpers: a log-linear latency histogram (p50/p90/p99/max) and a time-weighted
// level (queue depth over time with an optional decimated series for plotting).
#ifndef GBVP_UNIPRO_MODEL_UP_STATS_H
#define GBVP_UNIPRO_MODEL_UP_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event-kernel/scheduler.h"

#define UP_HIST_SUB 32u    /* buckets per power of two: <= 3.2 % relative error */
#define UP_HIST_POW 64u

typedef struct up_hist {
    uint64_t count;
    uint64_t min, max;
    double sum;
    uint32_t bucket[UP_HIST_POW * UP_HIST_SUB];
} up_hist;

void up_hist_init(up_hist *h);
void up_hist_add(up_hist *h, uint64_t v);
/* The value at quantile q in [0, 1] (the middle of its bucket, clamped to [min, max]); 0 for
 * an empty histogram. */
uint64_t up_hist_quantile(const up_hist *h, double q);
double up_hist_mean(const up_hist *h);

typedef struct up_level_point {
    sim_time t;
    uint32_t level;
} up_level_point;

/* A level that changes at instants (queue depth): time-weighted mean and maximum, plus a
 * series with at most one point per `interval` (0: no series). */
typedef struct up_level {
    uint32_t level, max;
    sim_time since, t0;
    double area; /* level x ps */
    sim_time interval;
    up_level_point *series;
    size_t n, cap;
} up_level;

void up_level_init(up_level *l, sim_time t0, sim_time interval);
void up_level_fini(up_level *l);
void up_level_set(up_level *l, sim_time now, uint32_t level);
double up_level_mean(const up_level *l, sim_time now);

#endif
