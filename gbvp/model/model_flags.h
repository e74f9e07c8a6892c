// SPDX-License-Identifier: MIT
// `gbvp model` without a file: the flags (--gear, --lanes, --traffic, --size, --rate, --ber,
// --switch) describe node A -> [switch S] -> node B with one flow, as a model_desc whose
// lines a sweep can set like a file's (gear: both links, size/traffic/rate: the flow).
#ifndef GBVP_GBVP_MODEL_MODEL_FLAGS_H
#define GBVP_GBVP_MODEL_MODEL_FLAGS_H

#include <stdbool.h>

#include "gbvp/model/model_desc.h"

typedef struct model_flags {
    const char *gear, *lanes, *kind, *size, *rate, *ber; /* rate: NULL for none */
    bool with_switch;
} model_flags;

/* HS-G3B, 2 lanes, saturate, 2048 bytes, no rate, BER 0, no switch. */
model_flags model_flags_default(void);

/* The description the flags make (lines named "flags"); NULL on no memory. */
model_desc *model_flags_desc(const model_flags *f);

#endif
