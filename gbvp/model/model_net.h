// SPDX-License-Identifier: MIT
// Running a described network (model_topo.h) on the frame-level UniPro model, and its
// statistics: a text summary, JSON, CSV and the switch queue depth series.
#ifndef GBVP_GBVP_MODEL_MODEL_NET_H
#define GBVP_GBVP_MODEL_MODEL_NET_H

#include <stddef.h>
#include <stdio.h>

#include "gbvp/model/model_topo.h"

/* Builds the network and runs it for `duration` of simulated time. 0, or -EINVAL with a
 * message (e.g. a port used twice, no route between a flow's ends). */
int model_run(model *m, sim_time duration, char *err, size_t errlen);
/* Before model_run: the frame level on its per-frame reference path, one kernel event per
 * frame with no batching and no period skipping (up_env_set_per_frame): slower, and its
 * results are identical to the default path's, which is what it is there to show. */
void model_set_per_frame(model *m, bool per_frame);

/* After model_run or model_run_message: a text summary, JSON, CSV
 * (section,object,metric,value) and the switch queue depth series as CSV
 * (switch,port,time_ps,depth). */
void model_print_summary(const model *m, FILE *out);
void model_write_json(const model *m, FILE *out);
void model_write_csv(const model *m, FILE *out);
void model_write_series_csv(const model *m, FILE *out);

#endif
