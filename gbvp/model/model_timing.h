// SPDX-License-Identifier: MIT
// `gbvp model --timing LEVEL` (and --sweep timing=...): the level a network runs at, read
// from its name and run.
#ifndef GBVP_GBVP_MODEL_MODEL_TIMING_H
#define GBVP_GBVP_MODEL_MODEL_TIMING_H

#include <stdbool.h>
#include <stddef.h>

#include "gbvp/model/model_topo.h"

typedef enum model_timing {
    MODEL_TIMING_FRAME,     /* "frame": every frame, AFC, credit and replay (the default) */
    MODEL_TIMING_MESSAGE,   /* "message": one event per message (model_msg.h) */
    MODEL_TIMING_PER_FRAME, /* "per-frame": the frame level's reference path (model_net.h) */
} model_timing;

/* The level named `name`: true with *out set, false for anything else. */
bool model_timing_parse(const char *name, model_timing *out);

/* Runs m at level t for `duration`: model_run or model_run_message. 0, or -EINVAL with the
 * reason in err. */
int model_run_at(model *m, model_timing t, sim_time duration, char *err, size_t errlen);

#endif
