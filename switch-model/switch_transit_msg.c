// SPDX-License-Identifier: MIT
#include "switch-model/switch_transit_msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "switch-model/pwrm.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_msg_wire.h"

typedef struct msg_link {
    up_phy_cfg cfg;
    bool parked;         /* HIBERN8 or off */
    up_msg_wire dir[2];  /* 0: node -> switch, 1: switch -> node */
} msg_link;

typedef struct flight {
    struct flight *prev, *next;
    sw_msg_transit *t;
    void *msg_ctx;
    sim_event ev;
    sim_time sent;
    size_t len;
    uint8_t data[];
} flight;

struct sw_msg_transit {
    const sim_scheduler *s;
    up_phy_params pp;
    sim_time fwd_latency;
    unsigned ports;
    msg_link *links;
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
        msg_link *l = &t->links[i];
        l->cfg = *phy;
        up_msg_wire_init(&l->dir[0], phy, &t->pp);
        up_msg_wire_init(&l->dir[1], phy, &t->pp);
        up_msg_wire_pair(&l->dir[0], &l->dir[1]);
    }
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
    t->fn(t->ctx, f->msg_ctx, f->data, f->len, f->sent, sim_now(t->s));
    free(f);
}

/* A message for a hibernated (or off) link wakes it first. */
static void unpark(sw_msg_transit *t, msg_link *l, sim_time now)
{
    if (!l->parked)
        return;
    l->parked = false;
    for (int i = 0; i < 2; i++)
        up_msg_wire_pause(&l->dir[i], now, t->pp.hibern8_exit);
}

int sw_msg_transit_message(sw_msg_transit *t, const sw_hop *h, const uint8_t *msg, size_t len,
                           void *msg_ctx)
{
    if (h->in_port >= t->ports || h->out_port >= t->ports || h->in_port == h->out_port)
        return -EINVAL;
    flight *f = malloc(sizeof *f + len);
    if (!f)
        return -ENOMEM;
    sim_time now = sim_now(t->s);
    msg_link *a = &t->links[h->in_port], *b = &t->links[h->out_port];
    unpark(t, a, now);
    unpark(t, b, now);
    up_msg_shape shape = up_msg_shape_of((uint32_t)len, UP_SEGMENT_MAX);
    up_msg_times in = up_msg_wire_send(&a->dir[0], &shape, now, 0, 0);
    /* the switch forwards once the first frame is in; the last frame cannot leave before it
     * has arrived */
    up_msg_times out = up_msg_wire_send(&b->dir[1], &shape, now, in.first_in + t->fwd_latency,
                                        in.delivered + t->fwd_latency);
    sim_time at = out.delivered;
    f->t = t;
    f->msg_ctx = msg_ctx;
    f->sent = now;
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

int sw_msg_transit_power_mode(sw_msg_transit *t, unsigned port, const uint8_t *req,
                              size_t len)
{
    if (!req || len < SW_PWRM_REQ_LEN || port >= t->ports)
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
        up_msg_wire_pause(&l->dir[i], now, pmc);
        up_msg_wire_set_phy(&l->dir[i], &c, &t->pp);
    }
    l->cfg = c;
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
