// SPDX-License-Identifier: MIT
// A small, fast, seeded generator: xoshiro256** seeded by splitmix64. The same seed gives
// the same sequence on every machine, which is what makes faults, traffic and scenarios
// reproducible. Not for anything secret.
#ifndef GBVP_EVENT_KERNEL_RNG_H
#define GBVP_EVENT_KERNEL_RNG_H

#include <stdint.h>

typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;

void sim_rng_seed(sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(sim_rng *r);
/* Uniform in (0, 1]. */
double sim_rng_unit(sim_rng *r);

#endif
