// SPDX-License-Identifier: MIT
// Open-loop sources for the message-level mode (up_msg_net.h): constant-rate and Poisson
// flows with the arrival times the frame-level sources of up_traffic.h produce for the
// same configuration and seed, so both levels see the same offered traffic.
#ifndef GBVP_UNIPRO_MODEL_UP_MSG_SOURCE_H
#define GBVP_UNIPRO_MODEL_UP_MSG_SOURCE_H

#include "unipro-model/up_msg_net.h"
#include "unipro-model/up_traffic.h"

typedef struct up_msg_source up_msg_source;

/* A CBR or Poisson source (cfg->rate_bps > 0; count, start and stop as in up_traffic_cfg)
 * sending on `flow` of f, a flow made with depth 0. NULL on a bad kind or rate, or no
 * memory. It starts at cfg->start once the scheduler runs. */
up_msg_source *up_msg_source_new(const sim_scheduler *s, up_msg_net *f, unsigned flow,
                                   const up_traffic_cfg *cfg);
void up_msg_source_free(up_msg_source *src);

#endif
