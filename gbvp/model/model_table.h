// SPDX-License-Identifier: MIT
// A sweep of `gbvp model` run as a table: every configuration of the cross product
// (model_sweep.h) applied to a description (model_desc.h), run on worker processes
// (model_parallel.h), and one row per configuration in configuration order, with the
// swept values as columns (CSV), or each row's summary and full statistics (JSON).
//
// Besides the description's parameters, three names belong to the run: `duration` (and
// `run`, the same) the simulated time, `timing` frame or message.
#ifndef GBVP_GBVP_MODEL_MODEL_TABLE_H
#define GBVP_GBVP_MODEL_MODEL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "event-kernel/scheduler.h"
#include "gbvp/model/model_desc.h"
#include "gbvp/model/model_sweep.h"
#include "gbvp/model/model_timing.h"

typedef struct model_table_cfg {
    const model_desc *desc;
    const model_sweep *sweep;
    sim_time duration;  /* 0: the description's `run` */
    model_timing timing; /* --timing */
    unsigned workers;   /* processes, 1 .. MODEL_PARALLEL_MAX */
} model_table_cfg;

typedef struct model_table model_table;

/* Checks every name of the sweep and parses every configuration (without running it).
 * 0, or -EINVAL with the first problem in err, naming the configuration. */
int model_table_check(const model_table_cfg *c, char *err, size_t errlen);

/* Runs every configuration. The table (free with model_table_free; it refers to c's
 * sweep, which must outlive it), or NULL with err: a configuration that failed (named), a
 * worker that could not run, no memory. Switches without series= record their queue depth
 * over time at duration / 500 for the JSON rows. */
model_table *model_table_run(const model_table_cfg *c, char *err, size_t errlen);
void model_table_free(model_table *t);

/* CSV: config, one column per swept name, then model_summary.h's columns. */
void model_table_csv(const model_table *t, FILE *out);
/* JSON: {"sweep": [{"name", "values"}], "configurations": N, "rows": [{"config", "values",
 * "summary", "result"}]}; result is the run's `gbvp model --json` object. */
void model_table_json(const model_table *t, FILE *out);
/* A line per configuration. */
void model_table_text(const model_table *t, FILE *out);

#endif
