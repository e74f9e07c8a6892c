// SPDX-License-Identifier: MIT
#include "unipro-model/up_msg_source.h"

#include <stdlib.h>

struct up_msg_source {
    const sim_scheduler *s;
    up_msg_net *f;
    unsigned flow;
    up_traffic_cfg cfg;
    sim_rng rng;
    uint64_t sent;
    sim_event timer;
};

static void tick(void *ctx)
{
    up_msg_source *src = ctx;
    src->timer = SIM_EVENT_NONE;
    if ((src->cfg.count && src->sent >= src->cfg.count) ||
        (src->cfg.stop && sim_now(src->s) >= src->cfg.stop))
        return;
    if (up_msg_net_send(src->f, src->flow) == 0)
        src->sent++;
    if (sim_schedule(src->s, up_traffic_gap(&src->cfg, &src->rng), tick, src, &src->timer))
        src->timer = SIM_EVENT_NONE; /* the kernel is full: the source stops */
}

up_msg_source *up_msg_source_new(const sim_scheduler *s, up_msg_net *f, unsigned flow,
                                   const up_traffic_cfg *cfg)
{
    if (!s || !f || !cfg || (cfg->kind != UP_TRAFFIC_CBR && cfg->kind != UP_TRAFFIC_POISSON) ||
        !(cfg->rate_bps > 0))
        return NULL;
    up_msg_source *src = calloc(1, sizeof *src);
    if (!src)
        return NULL;
    *src = (up_msg_source){ .s = s, .f = f, .flow = flow, .cfg = *cfg };
    sim_rng_seed(&src->rng, cfg->seed);
    if (sim_schedule(s, cfg->start, tick, src, &src->timer)) {
        free(src);
        return NULL;
    }
    return src;
}

void up_msg_source_free(up_msg_source *src)
{
    if (!src)
        return;
    if (src->timer.id)
        sim_cancel(src->s, src->timer);
    free(src);
}
