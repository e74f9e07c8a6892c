// SPDX-License-Identifier: MIT
#include "unipro-model/up_traffic.h"

#include "unipro-model/up_period.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct up_traffic {
    up_env *env;
    const sim_scheduler *s;
    up_traffic_cfg cfg;
    up_node *src, *dst;
    unsigned src_cport, dst_cport;
    uint64_t next_tag, next_rx, next_resp;
    sim_rng rng;
    sim_time *req_time;      /* RR: submit time of each request in flight, by tag % depth */
    sim_event timer;
    bool stopped;
    up_traffic_stats st;
};

static const char *names[] = { "saturate", "cbr", "poisson", "rr" };

const char *up_traffic_kind_name(up_traffic_kind k)
{
    return (unsigned)k < 4 ? names[k] : "?";
}

int up_traffic_kind_parse(const char *s, up_traffic_kind *out)
{
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            *out = (up_traffic_kind)i;
            return 0;
        }
    return -EINVAL;
}

static bool may_send(up_traffic *t)
{
    if (t->stopped)
        return false;
    if (t->cfg.count && t->next_tag >= t->cfg.count)
        return false;
    if (t->cfg.stop && sim_now(t->s) >= t->cfg.stop)
        return false;
    return true;
}

static void send_one(up_traffic *t)
{
    if (!may_send(t))
        return;
    /* the tag is taken first: sending can call back into src_sent and send again */
    uint64_t tag = t->next_tag++;
    if (t->req_time)
        t->req_time[tag % t->cfg.depth] = sim_now(t->s);
    t->st.sent++;
    if (up_cport_send(t->src, t->src_cport, NULL, t->cfg.size + t->cfg.header, tag) != 0) {
        t->next_tag--;
        t->st.sent--;
    }
}

static void src_sent(void *ctx, up_node *n, unsigned cport, up_msg *m)
{
    (void)n;
    (void)cport;
    (void)m;
    up_traffic *t = ctx;
    if (t->cfg.kind == UP_TRAFFIC_SATURATE)
        send_one(t);
}

static void src_recv(void *ctx, up_node *n, unsigned cport, up_msg *m, sim_time latency)
{
    (void)n;
    (void)cport;
    (void)latency;
    up_traffic *t = ctx;
    if (t->cfg.kind != UP_TRAFFIC_RR)
        return;
    if (m->tag != t->next_resp)
        t->st.order_errors++;
    t->next_resp = m->tag + 1;
    t->st.responses++;
    up_hist_add(&t->st.rtt, sim_now(t->s) - t->req_time[m->tag % t->cfg.depth]);
    send_one(t);
}

static void dst_recv(void *ctx, up_node *n, unsigned cport, up_msg *m, sim_time latency)
{
    (void)n;
    (void)cport;
    (void)latency;
    up_traffic *t = ctx;
    if (m->tag != t->next_rx)
        t->st.order_errors++;
    t->next_rx = m->tag + 1;
    t->st.received++;
    t->st.rx_payload_bytes += m->len >= t->cfg.header ? m->len - t->cfg.header : 0;
    if (t->cfg.kind == UP_TRAFFIC_RR)
        up_cport_send(t->dst, t->dst_cport, NULL, t->cfg.response_size + t->cfg.header, m->tag);
}

/* The flow's state for period skipping (up_period.h): only a saturating source without a
 * count or stop time repeats itself (the others draw times or stop). */
static void traffic_period_io(void *ctx, up_pvec *pv)
{
    up_traffic *t = ctx;
    if (!up_pv_once(pv, t))
        return;
    if (t->cfg.kind != UP_TRAFFIC_SATURATE || t->cfg.count || t->cfg.stop || t->stopped) {
        pv->ok = false;
        return;
    }
    UP_PV(pv, UP_PV_COUNT, t->next_tag);
    UP_PV(pv, UP_PV_COUNT, t->next_rx);
    up_pv_shape(pv, t->next_tag - t->next_rx);
    UP_PV(pv, UP_PV_COUNT, t->st.sent);
    UP_PV(pv, UP_PV_COUNT, t->st.received);
    UP_PV(pv, UP_PV_COUNT, t->st.rx_payload_bytes);
    UP_PV(pv, UP_PV_COUNT, t->st.order_errors);
}

static const up_node_ops src_ops = { src_recv, src_sent };
static const up_node_ops dst_ops = { dst_recv, NULL };

static void tick(void *ctx)
{
    up_traffic *t = ctx;
    t->timer = SIM_EVENT_NONE;
    if (!may_send(t))
        return;
    send_one(t);
    sim_schedule(t->s, up_traffic_gap(&t->cfg, &t->rng), tick, t, &t->timer);
}

sim_time up_traffic_gap(const up_traffic_cfg *cfg, sim_rng *rng)
{
    double mean_ps = (double)(cfg->size + cfg->header) * 8.0 / cfg->rate_bps * 1e12;
    double gap = mean_ps;
    if (cfg->kind == UP_TRAFFIC_POISSON)
        gap = -log(sim_rng_unit(rng)) * mean_ps;
    sim_time next = (sim_time)(gap + 0.5);
    return next ? next : 1; /* time must advance */
}

static void begin(void *ctx)
{
    up_traffic *t = ctx;
    t->timer = SIM_EVENT_NONE;
    switch (t->cfg.kind) {
    case UP_TRAFFIC_SATURATE:
    case UP_TRAFFIC_RR:
        for (unsigned i = 0; i < t->cfg.depth; i++)
            send_one(t);
        break;
    default:
        tick(t);
        break;
    }
}

up_traffic *up_traffic_new(up_env *env, const up_traffic_cfg *cfg, up_node *src,
                           unsigned src_cport, up_node *dst, unsigned dst_cport)
{
    if (!env || !cfg || !src || !dst || cfg->kind > UP_TRAFFIC_RR)
        return NULL;
    if ((cfg->kind == UP_TRAFFIC_CBR || cfg->kind == UP_TRAFFIC_POISSON) && !(cfg->rate_bps > 0))
        return NULL;
    if ((cfg->kind == UP_TRAFFIC_SATURATE || cfg->kind == UP_TRAFFIC_RR) && !cfg->depth)
        return NULL;
    if (!up_cport_connected(src, src_cport) || !up_cport_connected(dst, dst_cport))
        return NULL;
    up_traffic *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->env = env;
    t->s = up_env_scheduler(env);
    t->cfg = *cfg;
    t->src = src;
    t->dst = dst;
    t->src_cport = src_cport;
    t->dst_cport = dst_cport;
    sim_rng_seed(&t->rng, cfg->seed);
    if (cfg->kind == UP_TRAFFIC_RR && !(t->req_time = calloc(cfg->depth, sizeof(sim_time)))) {
        free(t);
        return NULL;
    }
    up_hist_init(&t->st.rtt);
    up_cport_set_handler(src, src_cport, &src_ops, t);
    up_cport_set_handler(dst, dst_cport, &dst_ops, t);
    up_cport_set_period(src, src_cport, traffic_period_io);
    up_cport_set_period(dst, dst_cport, traffic_period_io);
    return t;
}

void up_traffic_free(up_traffic *t)
{
    if (!t)
        return;
    if (t->timer.id)
        sim_cancel(t->s, t->timer);
    up_cport_set_handler(t->src, t->src_cport, NULL, NULL);
    up_cport_set_handler(t->dst, t->dst_cport, NULL, NULL);
    free(t->req_time);
    free(t);
}

int up_traffic_start(up_traffic *t)
{
    return sim_schedule(t->s, t->cfg.start, begin, t, &t->timer);
}

const up_traffic_stats *up_traffic_stats_get(const up_traffic *t)
{
    return &t->st;
}

uint64_t up_traffic_rx_bytes(const up_traffic *t)
{
    return t->st.rx_payload_bytes;
}
