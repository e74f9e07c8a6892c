// SPDX-License-Identifier: MIT
// Timing levels of gbvp model (gbvp/model/model_timing.h).
#include "gbvp/model/model_timing.h"

#include <string.h>

#include "gbvp/model/model_msg.h"
#include "gbvp/model/model_net.h"

bool model_timing_parse(const char *name, model_timing *out)
{
    static const char *const names[] = { [MODEL_TIMING_FRAME] = "frame",
                                         [MODEL_TIMING_MESSAGE] = "message",
                                         [MODEL_TIMING_PER_FRAME] = "per-frame" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i])) {
            *out = (model_timing)i;
            return true;
        }
    return false;
}

int model_run_at(model *m, model_timing t, sim_time duration, char *err, size_t errlen)
{
    if (t == MODEL_TIMING_MESSAGE)
        return model_run_message(m, duration, err, errlen);
    model_set_per_frame(m, t == MODEL_TIMING_PER_FRAME);
    return model_run(m, duration, err, errlen);
}
