// SPDX-License-Identifier: MIT
#include "switch-model/switch.h"

#include <stdlib.h>
#include <string.h>

#include "unipro-model/up_period.h"

/* The latest changes of a port's queue depth, so that a period skip can add a period's
 * level x time products to its mean again in the same order (a double: only the same
 * additions in the same order give the same bits). More than any period holds. */
#define SW_LEVEL_LOG 512u

typedef struct sw_fifo {
    up_frame *head, *tail;
    unsigned count;
} sw_fifo;

typedef struct sw_port {
    sw_switch *sw;
    unsigned idx;
    up_port *port;
    sw_fifo q[2];
    unsigned rr[2];          /* as output: the input port to look at first */
    unsigned pending[2];     /* as output: frames queued anywhere for this port */
    uint64_t heads[2];       /* as output: inputs whose queue head goes to this port */
    unsigned others;         /* frames queued behind the TC0 head for another output */
    bool hol;
    sim_time hol_since;
    sw_port_stats st;
    struct {
        uint32_t level;
        sim_time dt;
    } level_log[SW_LEVEL_LOG];
    uint64_t level_sets;
} sw_port;

struct sw_switch {
    up_env *env;
    const sim_scheduler *s;
    const sim_time *clock;   /* the scheduler's clock, or NULL: ask sim_now */
    sw_switch_cfg cfg;
    sw_route_table *routes;
    bool own_routes;
    sw_port *ports;
};

sw_switch_cfg sw_switch_cfg_default(void)
{
    return (sw_switch_cfg){
        .ports = 15,
        .fwd_latency = SIM_NS(100),
        .cut_through = false,
        .dl = up_dl_params_default(),
        .depth_interval = 0,
    };
}

static int sw_pull(void *ctx, unsigned tc, uint32_t credits, up_frame **out);
static void sw_deliver(void *ctx, up_frame *f);
static void sw_period_io(void *ctx, up_pvec *pv);
static const up_port_upper sw_upper = { .pull = sw_pull, .deliver = sw_deliver,
                                        .period_io = sw_period_io };

/* The time now, read from the scheduler's clock when it has one (on every frame). */
static inline sim_time sw_now(const sw_switch *sw)
{
    return sw->clock ? *sw->clock : sim_now(sw->s);
}

sw_switch *sw_switch_new(up_env *env, const sw_switch_cfg *cfg, sw_route_table *routes)
{
    if (!env || !cfg || cfg->ports < 1 || cfg->ports > SW_PORTS_MAX)
        return NULL;
    if (routes && sw_route_table_num_ports(routes) != cfg->ports)
        return NULL;
    sw_switch *sw = calloc(1, sizeof *sw);
    if (!sw)
        return NULL;
    sw->env = env;
    sw->s = up_env_scheduler(env);
    sw->clock = sim_scheduler_clock(sw->s);
    sw->cfg = *cfg;
    sw->routes = routes;
    if (!routes) {
        sw->routes = sw_route_table_new(cfg->ports);
        sw->own_routes = true;
    }
    sw->ports = calloc(cfg->ports, sizeof *sw->ports);
    if (!sw->routes || !sw->ports) {
        sw_switch_free(sw);
        return NULL;
    }
    for (unsigned i = 0; i < cfg->ports; i++) {
        sw_port *p = &sw->ports[i];
        p->sw = sw;
        p->idx = i;
        up_level_init(&p->st.depth, sim_now(sw->s), cfg->depth_interval);
        p->port = up_port_new(env, &cfg->dl, &sw_upper, p);
        if (!p->port) {
            sw_switch_free(sw);
            return NULL;
        }
        up_port_set_early_delivery(p->port, cfg->cut_through);
    }
    return sw;
}

void sw_switch_free(sw_switch *sw)
{
    if (!sw)
        return;
    if (sw->ports) {
        for (unsigned i = 0; i < sw->cfg.ports; i++) {
            sw_port *p = &sw->ports[i];
            for (unsigned tc = 0; tc < 2; tc++)
                while (p->q[tc].head) {
                    up_frame *f = p->q[tc].head;
                    p->q[tc].head = f->next;
                    up_frame_free(sw->env, f);
                }
            up_port_free(p->port);
            up_level_fini(&p->st.depth);
        }
    }
    free(sw->ports);
    if (sw->own_routes)
        sw_route_table_free(sw->routes);
    free(sw);
}

unsigned sw_switch_port_count(const sw_switch *sw)
{
    return sw->cfg.ports;
}

up_port *sw_switch_port(sw_switch *sw, unsigned port)
{
    return port < sw->cfg.ports ? sw->ports[port].port : NULL;
}

sw_route_table *sw_switch_routes(sw_switch *sw)
{
    return sw->routes;
}

const sw_switch_cfg *sw_switch_get_cfg(const sw_switch *sw)
{
    return &sw->cfg;
}

const sw_port_stats *sw_switch_port_stats(const sw_switch *sw, unsigned port)
{
    return port < sw->cfg.ports ? &sw->ports[port].st : NULL;
}

unsigned sw_switch_queued(const sw_switch *sw, unsigned port, unsigned tc)
{
    return port < sw->cfg.ports && tc < 2 ? sw->ports[port].q[tc].count : 0;
}

/* Head-of-line accounting (TC0, where Greybus traffic runs): blocked while frames for
 * another output wait behind the head. */
static void hol_update(sw_port *p)
{
    sim_time now = sw_now(p->sw);
    bool blocked = p->others > 0;
    if (blocked == p->hol)
        return;
    if (p->hol)
        p->st.hol_blocked += now - p->hol_since;
    else
        p->st.hol_events++;
    p->hol = blocked;
    p->hol_since = now;
}

static void recount_others(sw_port *p)
{
    p->others = 0;
    up_frame *h = p->q[0].head;
    if (!h)
        return;
    for (up_frame *f = h->next; f; f = f->next)
        if (f->out_port != h->out_port)
            p->others++;
}

static void depth_update(sw_port *p)
{
    sim_time now = sw_now(p->sw);
    up_level *l = &p->st.depth;
    unsigned i = (unsigned)(p->level_sets++ % SW_LEVEL_LOG);
    p->level_log[i].level = l->level;
    p->level_log[i].dt = now - l->since;
    up_level_set(l, now, p->q[0].count + p->q[1].count);
}

static void sw_deliver(void *ctx, up_frame *f)
{
    sw_port *in = ctx;
    sw_switch *sw = in->sw;
    unsigned tc = f->tc & 1;
    unsigned out;
    in->st.rx_frames++;
    if (sw_route_resolve(sw->routes, in->idx, f->dst_dev, &out) != SW_ROUTE_FORWARD) {
        in->st.dropped_unrouted++;
        unsigned credits = up_frame_credits(f->len);
        up_frame_free(sw->env, f);
        up_port_release(in->port, tc, credits);
        return;
    }
    sim_time now = sw_now(sw);
    f->in_port = (uint8_t)in->idx;
    f->out_port = (uint8_t)out;
    f->next = NULL;
    if (sw->cfg.cut_through) {
        /* start once the header is in, but never so early that the output would run out
         * of bits before the input has delivered them */
        sim_time t = now + sw->cfg.fwd_latency;
        sim_time tail = f->t_end + sw->cfg.fwd_latency;
        sim_time dur = up_port_frame_time(sw->ports[out].port, f->len);
        if (tail > dur && tail - dur > t)
            t = tail - dur;
        f->t_ready = t;
    } else {
        f->t_ready = now + sw->cfg.fwd_latency;
    }
    sw_fifo *q = &in->q[tc];
    if (q->tail)
        q->tail->next = f;
    else
        q->head = f;
    q->tail = f;
    q->count++;
    sw->ports[out].pending[tc]++;
    if (tc == 0 && q->head != f && f->out_port != q->head->out_port) {
        in->others++;
        hol_update(in);
    }
    depth_update(in);
    if (q->head == f) {
        sw->ports[out].heads[tc] |= 1ull << in->idx;
        up_port_kick(sw->ports[out].port, tc);
    }
}

static int sw_pull(void *ctx, unsigned tc, uint32_t credits, up_frame **out)
{
    sw_port *o = ctx;
    sw_switch *sw = o->sw;
    unsigned n = sw->cfg.ports;
    if (!o->pending[tc])
        return UP_PULL_EMPTY;
    sim_time now = sw_now(sw);
    sw_port *best = NULL;
    sim_time best_ready = SIM_TIME_MAX;
    uint64_t m = o->heads[tc];
    /* visit the inputs whose head goes here, round robin from rr */
    unsigned start = o->rr[tc];
    uint64_t hi = start < 64 ? m & (~0ull << start) : 0, lo = m & ~hi;
    while (hi | lo) {
        uint64_t *part = hi ? &hi : &lo;
        unsigned i = (unsigned)__builtin_ctzll(*part);
        *part &= *part - 1;
        sw_port *in = &sw->ports[i];
        up_frame *h = in->q[tc].head;
        sim_time r = h->t_ready > now ? h->t_ready : now;
        if (r < best_ready) { /* round robin among those ready now, else the earliest */
            best = in;
            best_ready = r;
            if (r == now)
                break;
        }
    }
    if (!best)
        return UP_PULL_EMPTY;
    up_frame *f = best->q[tc].head;
    unsigned cost = up_frame_credits(f->len);
    if (cost > credits)
        return UP_PULL_NO_CREDIT;
    sw_fifo *q = &best->q[tc];
    q->head = f->next;
    if (!q->head)
        q->tail = NULL;
    q->count--;
    o->pending[tc]--;
    o->heads[tc] &= ~(1ull << best->idx);
    if (q->head)
        sw->ports[q->head->out_port].heads[tc] |= 1ull << best->idx;
    f->next = NULL;
    o->rr[tc] = (best->idx + 1) % n;
    best->st.forwarded++;
    if (tc == 0) {
        up_frame *h = q->head;
        if (!h)
            best->others = 0;
        else if (h->out_port != f->out_port)
            recount_others(best);
        hol_update(best);
    }
    depth_update(best);
    up_port_release(best->port, tc, cost);
    if (q->head && q->head->out_port != o->idx)
        up_port_kick(sw->ports[q->head->out_port].port, tc);
    *out = f;
    return UP_PULL_OK;
}

/* ---- period skipping (unipro-model/up_period.h) ----------------------------------- */

/* Adds `periods` times the last period's `per` level x time products to the depth's area,
 * in the order they were first added. */
static void replay_levels(sw_port *p, uint64_t per, uint64_t periods)
{
    uint64_t first = p->level_sets - per;
    up_level *l = &p->st.depth;
    for (uint64_t r = 0; r < periods; r++)
        for (uint64_t i = 0; i < per; i++) {
            unsigned k = (unsigned)((first + i) % SW_LEVEL_LOG);
            l->area += (double)p->level_log[k].level * (double)p->level_log[k].dt;
        }
    __typeof__(p->level_log[0]) last[SW_LEVEL_LOG];
    for (uint64_t i = 0; i < per; i++)
        last[i] = p->level_log[(first + i) % SW_LEVEL_LOG];
    p->level_sets += per * periods;
    for (uint64_t i = 0; i < per; i++)
        p->level_log[(p->level_sets - per + i) % SW_LEVEL_LOG] = last[i];
}

static void fifo_period_io(sw_fifo *q, up_pvec *pv)
{
    up_pv_shape(pv, q->count);
    for (up_frame *f = q->head; f; f = f->next)
        up_pv_frame(pv, f);
}

/* One switch port's state: its input queues, its output's round robin and statistics. */
static void sw_period_io(void *ctx, up_pvec *pv)
{
    sw_port *p = ctx;
    up_level *l = &p->st.depth;
    if (l->interval) { /* (a series samples at its own times) */
        pv->ok = false;
        return;
    }
    for (unsigned tc = 0; tc < 2; tc++) {
        fifo_period_io(&p->q[tc], pv);
        up_pv_shape(pv, p->rr[tc]);
        up_pv_shape(pv, p->pending[tc]);
        up_pv_shape(pv, p->heads[tc]);
    }
    up_pv_shape(pv, p->others);
    up_pv_shape(pv, p->hol);
    if (p->hol)
        UP_PV(pv, UP_PV_TIME, p->hol_since);
    UP_PV(pv, UP_PV_COUNT, p->st.rx_frames);
    UP_PV(pv, UP_PV_COUNT, p->st.forwarded);
    UP_PV(pv, UP_PV_COUNT, p->st.dropped_unrouted);
    UP_PV(pv, UP_PV_COUNT, p->st.hol_events);
    UP_PV(pv, UP_PV_COUNT, p->st.hol_blocked);
    up_pv_shape(pv, l->level);
    up_pv_shape(pv, l->max);
    up_pv_shape(pv, l->since == 0);
    if (l->since)
        UP_PV(pv, UP_PV_TIME, l->since);
    /* last: how many level changes a period makes (shift mode reads its change first) */
    if (pv->shift && pv->n < UP_PV_MAX)
        replay_levels(p, pv->delta[pv->n], pv->periods);
    up_pv_limit(pv, SW_LEVEL_LOG);
    up_pv_io(pv, UP_PV_COUNT, p->level_sets);
}
