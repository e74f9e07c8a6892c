// SPDX-License-Identifier: MIT
// Traffic sources for performance runs: saturating, constant rate, Poisson and
// request/response (like Greybus loopback) between two CPorts. Each message carries a
// sequence number as its tag; the receiving side checks that every message arrives exactly
// once and in order.
#ifndef GBVP_UNIPRO_MODEL_UP_TRAFFIC_H
#define GBVP_UNIPRO_MODEL_UP_TRAFFIC_H

#include <stdint.h>

#include "unipro-model/up_node.h"

typedef enum up_traffic_kind {
    UP_TRAFFIC_SATURATE = 0, /* keep `depth` messages queued */
    UP_TRAFFIC_CBR,          /* one message every size*8/rate */
    UP_TRAFFIC_POISSON,      /* exponential gaps with mean size*8/rate */
    UP_TRAFFIC_RR,           /* request, wait for the response, repeat (`depth` in flight) */
} up_traffic_kind;

typedef struct up_traffic_cfg {
    up_traffic_kind kind;
    uint32_t size;           /* payload bytes per message (Greybus payload) */
    uint32_t header;         /* bytes added to every message (Greybus header: 8) */
    uint32_t response_size;  /* RR: payload of the response */
    double rate_bps;         /* CBR / Poisson: offered payload rate */
    unsigned depth;          /* SATURATE: queued messages; RR: requests in flight */
    sim_time start, stop;    /* stop 0: never */
    uint64_t count;          /* messages to send, 0: unlimited */
    uint64_t seed;
} up_traffic_cfg;

typedef struct up_traffic_stats {
    uint64_t sent, received, rx_payload_bytes, order_errors;
    uint64_t responses;      /* RR */
    up_hist rtt;             /* RR: request submit to response delivery */
} up_traffic_stats;

typedef struct up_traffic up_traffic;

const char *up_traffic_kind_name(up_traffic_kind k);
int up_traffic_kind_parse(const char *s, up_traffic_kind *out);

/* Takes over the handlers of src:src_cport and dst:dst_cport (already connected to each
 * other). NULL on bad arguments or no memory. */
/* The gap before the next message of a constant-rate or Poisson source (cfg->rate_bps > 0),
 * at least 1 ps; Poisson gaps are drawn from rng. */
sim_time up_traffic_gap(const up_traffic_cfg *cfg, sim_rng *rng);

up_traffic *up_traffic_new(up_env *env, const up_traffic_cfg *cfg, up_node *src,
                           unsigned src_cport, up_node *dst, unsigned dst_cport);
void up_traffic_free(up_traffic *t);
/* Starts sending at cfg.start (relative to now). */
int up_traffic_start(up_traffic *t);
const up_traffic_stats *up_traffic_stats_get(const up_traffic *t);
/* Payload bytes delivered to the destination so far (responses excluded). */
uint64_t up_traffic_rx_bytes(const up_traffic *t);

#endif
