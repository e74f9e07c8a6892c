// SPDX-License-Identifier: MIT
// A parameter sweep of `gbvp model`: axes NAME=V1,V2,... (one per --sweep), each value
// possibly a range, and their cross product, enumerated in a fixed order (the first axis
// varies slowest, the last fastest, as nested loops in the order the axes were given).
//
// A value list is comma separated; an item may be a range:
//   LO..HI          whole numbers LO, LO+1, ..., HI            lanes=1..4
//   LO..HI+S        LO, LO+S, ... up to HI                      size=256..2048+256
//   LO..HIxF        LO, LO*F, ... up to HI (F >= 2)             size=64..4096x2
//   G1..G2          gears in rate order, HS (G1A G1B G2A ... G4B) or PWM (G1..G7)
// What a name means (a flag, a parameter of the file) is decided by model_desc.h; this
// file only checks the syntax of names and values.
#ifndef GBVP_GBVP_MODEL_MODEL_SWEEP_H
#define GBVP_GBVP_MODEL_MODEL_SWEEP_H

#include <stddef.h>

#define MODEL_SWEEP_AXES_MAX 8
#define MODEL_SWEEP_VALUES_MAX 1000   /* per axis, ranges expanded */
#define MODEL_SWEEP_CONFIGS_MAX 10000 /* the cross product */

typedef struct model_sweep model_sweep;

/* An empty sweep (one configuration, no axes); NULL on no memory. */
model_sweep *model_sweep_new(void);
void model_sweep_free(model_sweep *s);

/* Adds the axis `spec` ("NAME=V1,V2,..."). 0, or -EINVAL with a message naming the problem
 * (no '=', a bad name, an empty value, an empty or malformed range, a name given twice,
 * too many values or configurations). */
int model_sweep_add(model_sweep *s, const char *spec, char *err, size_t errlen);

unsigned model_sweep_axes(const model_sweep *s);
const char *model_sweep_name(const model_sweep *s, unsigned axis);
size_t model_sweep_count(const model_sweep *s, unsigned axis);
const char *model_sweep_value(const model_sweep *s, unsigned axis, size_t i);

/* The number of configurations: the product of the axes' value counts (1 without axes). */
size_t model_sweep_configs(const model_sweep *s);
/* The value of `axis` in configuration `config` (< model_sweep_configs). */
const char *model_sweep_config_value(const model_sweep *s, size_t config, unsigned axis);

#endif
