// SPDX-License-Identifier: MIT
#include "switch-model/switch_transit_msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "switch-model/pwrm.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_env.h"


typedef struct msg_dir {
    sim_time busy_until; /* the wire is free from then */
    sim_time last_end;   /* end of the last frame sent (burst hold) */
    bool ever;
} msg_dir;

typedef struct msg_link {
    up_phy_cfg cfg;
    uint64_t sym_fp;
    bool parked;         /* HIBERN8 or off */
    msg_dir dir[2];      /* 0: node -> switch, 1: switch -> node */
} msg_link;

typedef struct flight {
    struct flight *prev, *next;
    sw_msg_transit *t;
    gb_svc_path path;
    sim_event ev;
    size_t len;
    uint8_t data[];
} flight;

struct sw_msg_transit {
    const sim_scheduler *s;
    up_phy_params pp;
    sim_time fwd_latency;
    unsigned ports;
    msg_link *links;
    int port_of[256];    /* interface id -> port it was seen on, -1: not yet */
    sw_transit_deliver_fn fn;
    void *ctx;
    flight *flying;
};

sw_msg_transit *sw_msg_transit_new(const sim_scheduler *s, unsigned ports, const up_phy_cfg *phy,
                                   sw_transit_deliver_fn fn, void *ctx)
{
    if (!s || !fn || !ports || ports > SW_PORTS_MAX || up_phy_cfg_check(phy, NULL, 0))
        return NULL;
    sw_msg_transit *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->links = calloc(ports, sizeof *t->links);
    if (!t->links) {
        free(t);
        return NULL;
    }
    t->s = s;
    t->pp = up_phy_params_default();
    t->fwd_latency = sw_switch_cfg_default().fwd_latency;
    t->ports = ports;
    t->fn = fn;
    t->ctx = ctx;
    for (unsigned i = 0; i < ports; i++) {
        t->links[i].cfg = *phy;
        t->links[i].sym_fp = up_phy_symbol_ps_fp16(phy);
    }
    for (int i = 0; i < 256; i++)
        t->port_of[i] = -1;
    return t;
}

void sw_msg_transit_free(sw_msg_transit *t)
{
    if (!t)
        return;
    while (t->flying) {
        flight *f = t->flying;
        t->flying = f->next;
        sim_cancel(t->s, f->ev);
        free(f);
    }
    free(t->links);
    free(t);
}

/* Sends len bytes as back-to-back frames on one link direction, starting no sooner than
 * `from`. Returns when the first frame has arrived at the far end; *last_end is when the
 * last frame has left. */
static sim_time hop(sw_msg_transit *t, msg_link *l, msg_dir *d, sim_time from, size_t len,
                    sim_time *last_end)
{
    size_t nseg = len ? (len + UP_SEGMENT_MAX - 1) / UP_SEGMENT_MAX : 1;
    size_t last = len - (nseg - 1) * UP_SEGMENT_MAX;
    sim_time start = from > d->busy_until ? from : d->busy_until;
    sim_time open = 0;
    if (!d->ever || start > d->last_end + t->pp.burst_hold)
        open = up_phy_burst_open_time(&l->cfg, &t->pp);
    sim_time full = up_phy_symbols_time(l->sym_fp, up_frame_symbols(UP_SEGMENT_MAX));
    sim_time tail = up_phy_symbols_time(l->sym_fp, up_frame_symbols((unsigned)last));
    sim_time first = nseg == 1 ? tail : full;
    sim_time end = start + open + (sim_time)(nseg - 1) * full + tail;
    d->busy_until = d->last_end = end;
    d->ever = true;
    *last_end = end;
    return start + open + first + t->pp.tx_latency + t->pp.rx_latency;
}

static void land(void *ctx)
{
    flight *f = ctx;
    sw_msg_transit *t = f->t;
    if (f->prev)
        f->prev->next = f->next;
    else
        t->flying = f->next;
    if (f->next)
        f->next->prev = f->prev;
    t->fn(t->ctx, &f->path, f->data, f->len, sim_now(t->s));
    free(f);
}

/* A message for a hibernated (or off) link wakes it first. */
static void unpark(sw_msg_transit *t, msg_link *l, sim_time now)
{
    if (!l->parked)
        return;
    l->parked = false;
    for (int i = 0; i < 2; i++) {
        sim_time from = l->dir[i].busy_until > now ? l->dir[i].busy_until : now;
        l->dir[i].busy_until = from + t->pp.hibern8_exit;
        l->dir[i].ever = false;
    }
}

int sw_msg_transit_message(sw_msg_transit *t, const gb_svc_path *p, const uint8_t *msg,
                           size_t len)
{
    if (p->in_port >= t->ports || p->out_port >= t->ports || p->in_port == p->out_port)
        return -EINVAL;
    flight *f = malloc(sizeof *f + len);
    if (!f)
        return -ENOMEM;
    sim_time now = sim_now(t->s);
    t->port_of[p->src_intf] = (int)p->in_port;
    t->port_of[p->dst_intf] = (int)p->out_port;
    msg_link *a = &t->links[p->in_port], *b = &t->links[p->out_port];
    unpark(t, a, now);
    unpark(t, b, now);
    sim_time end1, end2;
    sim_time first_in = hop(t, a, &a->dir[0], now, len, &end1);
    /* the switch forwards once the first frame is in; the last frame cannot leave before it
     * has arrived, nor finish sooner than its own time on the second link */
    hop(t, b, &b->dir[1], first_in + t->fwd_latency, len, &end2);
    size_t last = len - (len ? (len - 1) / UP_SEGMENT_MAX : 0) * UP_SEGMENT_MAX;
    sim_time tail = up_phy_symbols_time(b->sym_fp, up_frame_symbols((unsigned)last));
    sim_time floor2 = end1 + t->pp.tx_latency + t->pp.rx_latency + t->fwd_latency + tail;
    if (end2 < floor2)
        b->dir[1].busy_until = b->dir[1].last_end = end2 = floor2;
    sim_time at = end2 + t->pp.tx_latency + t->pp.rx_latency;
    f->t = t;
    f->path = *p;
    f->len = len;
    memcpy(f->data, msg, len);
    f->prev = NULL;
    f->next = t->flying;
    int rc = sim_schedule(t->s, at - now, land, f, &f->ev);
    if (rc) {
        free(f);
        return rc;
    }
    if (t->flying)
        t->flying->prev = f;
    t->flying = f;
    return 0;
}

int sw_msg_transit_power_mode(sw_msg_transit *t, uint8_t intf_id, const uint8_t *req,
                              size_t len)
{
    if (!req || len < SW_PWRM_REQ_LEN)
        return -EINVAL;
    int port = t->port_of[intf_id] >= 0 ? t->port_of[intf_id] : intf_id;
    if (port >= (int)t->ports)
        return -EINVAL;
    msg_link *l = &t->links[port];
    sw_pwrm_action action;
    up_phy_cfg c;
    if (sw_pwrm_decode(req, &l->cfg, &action, &c))
        return -EINVAL;
    if (action == SW_PWRM_KEEP)
        return 0;
    if (action == SW_PWRM_HIBERNATE || action == SW_PWRM_OFF) {
        l->parked = true;
        return 0;
    }
    sim_time now = sim_now(t->s);
    unpark(t, l, now);
    sim_time pmc = up_phy_pmc_time(&l->cfg, &c, &t->pp);
    for (int i = 0; i < 2; i++) {
        sim_time from = l->dir[i].busy_until > now ? l->dir[i].busy_until : now;
        l->dir[i].busy_until = from + pmc;
        l->dir[i].ever = false;
    }
    l->cfg = c;
    l->sym_fp = up_phy_symbol_ps_fp16(&c);
    return 0;
}

void sw_msg_transit_wake(sw_msg_transit *t, unsigned port)
{
    if (port < t->ports)
        unpark(t, &t->links[port], sim_now(t->s));
}

void sw_msg_transit_link(const sw_msg_transit *t, unsigned port, up_phy_cfg *cfg, bool *parked)
{
    if (port >= t->ports)
        return;
    *cfg = t->links[port].cfg;
    *parked = t->links[port].parked;
}
