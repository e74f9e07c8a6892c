// SPDX-License-Identifier: MIT
// One run of `gbvp model` as a row of a sweep's table: what is plotted and compared
// across configurations (goodput, latency of all flows, the busiest switch input), in
// either timing mode, as CSV columns, a JSON object and a line of text.
#ifndef GBVP_GBVP_MODEL_MODEL_SUMMARY_H
#define GBVP_GBVP_MODEL_MODEL_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "gbvp/model/model_topo.h"
#include "unipro-model/up_stats.h"

/* Plain data (no pointers): it crosses from a worker process as bytes. */
typedef struct model_summary {
    char timing[12];       /* "frame", "message" or "per-frame" */
    char link_mode[32];    /* the first link's power mode ("HS-G3B x2"), "" without links */
    uint32_t payload;      /* the first flow's Greybus payload per message, bytes */
    double line_rate_bps;  /* the first link's data rate after 8b10b (the line-rate limit) */
    uint64_t simulated_ps, events;
    double wall_s;
    uint64_t sent, received; /* messages, all flows */
    double goodput_bps;      /* Greybus payload delivered, all flows */
    up_hist latency;         /* message latency, all flows */
    char queue_port[48];     /* the switch input with the largest mean queue ("S:1"), or "" */
    double queue_mean;       /* its time-weighted mean depth, frames */
    uint32_t queue_max;      /* the largest depth of any switch input, frames */
} model_summary;

/* The summary of m after model_run or model_run_message. */
void model_summarise(const model *m, model_summary *s);

/* CSV: the header's columns (after the caller's, each preceded by a comma) and a row's. */
void model_summary_csv_header(FILE *out);
void model_summary_csv(const model_summary *s, FILE *out);
/* A JSON object; latency_ps as model JSON's histograms (with its cdf). */
void model_summary_json(const model_summary *s, FILE *out);
/* "HS-G3B x2 2048B: goodput 9.01 Gb/s, latency p50 .. p99 .. us, queue max N". */
void model_summary_text(const model_summary *s, FILE *out);

#endif
