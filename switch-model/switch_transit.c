// SPDX-License-Identifier: MIT
#include "switch-model/switch_transit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "switch-model/pwrm.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_node.h"

typedef struct tr_port {
    struct sw_transit *t;
    unsigned idx;
    up_node *node;
    up_link *link;
    bool has_pending;      /* a power mode change waiting for the link to be up */
    uint8_t pending[SW_PWRM_REQ_LEN];
    bool has_early;        /* a power mode change before the port first carried traffic */
    uint8_t early[SW_PWRM_REQ_LEN];
    bool unplugged;        /* its endpoint is gone: the link stays a sink (sw_transit_unplug) */
} tr_port;

struct sw_transit {
    up_env *env;
    sw_transit_cfg cfg;
    sw_switch *sw;
    tr_port *ports;
    sw_transit_deliver_fn deliver;
    void *ctx;
    sw_transit_link_fn link_observer;
    void *link_ctx;
    sw_transit_frame_fn frame_observer;
    void *frame_ctx;
};

sw_transit_cfg sw_transit_cfg_default(void)
{
    return (sw_transit_cfg){
        .sw = sw_switch_cfg_default(),
        .link = up_link_cfg_default(),
        .cports = 64,
    };
}

sw_transit *sw_transit_new(up_env *env, const sw_transit_cfg *cfg, sw_transit_deliver_fn fn,
                           void *ctx)
{
    if (!env || !cfg || !fn || !cfg->cports || cfg->cports > 1024 ||
        up_phy_cfg_check(&cfg->link.phy, NULL, 0))
        return NULL;
    sw_transit *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->env = env;
    t->cfg = *cfg;
    t->deliver = fn;
    t->ctx = ctx;
    t->sw = sw_switch_new(env, &cfg->sw, NULL);
    t->ports = t->sw ? calloc(cfg->sw.ports, sizeof *t->ports) : NULL;
    if (!t->ports) {
        sw_transit_free(t);
        return NULL;
    }
    for (unsigned i = 0; i < cfg->sw.ports; i++) {
        t->ports[i].t = t;
        t->ports[i].idx = i;
    }
    return t;
}

void sw_transit_free(sw_transit *t)
{
    if (!t)
        return;
    if (t->ports)
        for (unsigned i = 0; i < t->cfg.sw.ports; i++) {
            up_link_free(t->ports[i].link);
            up_node_free(t->ports[i].node);
        }
    free(t->ports);
    sw_switch_free(t->sw);
    free(t);
}

void sw_transit_wake(sw_transit *t, unsigned port)
{
    if (port >= t->cfg.sw.ports)
        return;
    tr_port *p = &t->ports[port];
    if (!p->link) {
        /* a hibernate or power-off remembered from a module that has gone since */
        sw_pwrm_action action;
        up_phy_cfg c, cur = t->cfg.link.phy;
        if (p->has_early && !sw_pwrm_decode(p->early, &cur, &action, &c) &&
            (action == SW_PWRM_HIBERNATE || action == SW_PWRM_OFF))
            p->has_early = false;
        return;
    }
    up_link_state st = up_link_get_state(p->link);
    if (st == UP_LINK_HIBERN8)
        up_link_hibernate(p->link, false);
    else if (st == UP_LINK_DOWN)
        up_link_set_down(p->link, false);
}

void sw_transit_unplug(sw_transit *t, unsigned port, bool unplugged)
{
    if (port >= t->cfg.sw.ports)
        return;
    tr_port *p = &t->ports[port];
    p->unplugged = unplugged;
    if (!unplugged)
        return;
    p->has_pending = false;
    p->has_early = false; /* a power mode asked for the module that left */
    if (!p->link)
        return;
    up_link_state st = up_link_get_state(p->link);
    if (st == UP_LINK_HIBERN8)
        up_link_hibernate(p->link, false);
    else if (st == UP_LINK_DOWN)
        up_link_set_down(p->link, false);
}

sw_switch *sw_transit_switch(sw_transit *t)
{
    return t->sw;
}

up_link *sw_transit_link(sw_transit *t, unsigned port)
{
    return port < t->cfg.sw.ports ? t->ports[port].link : NULL;
}

static void node_recv(void *ctx, up_node *n, unsigned cport, up_msg *m, sim_time latency)
{
    (void)n, (void)cport;
    tr_port *p = ctx;
    sw_transit *t = p->t;
    sim_time now = sim_now(up_env_scheduler(t->env));
    t->deliver(t->ctx, (void *)(uintptr_t)m->tag, m->data, m->len, now - latency, now);
}

static const up_node_ops node_ops = { node_recv, NULL };

static int apply_pwrm(tr_port *p, const uint8_t *req);

void sw_transit_set_link_observer(sw_transit *t, sw_transit_link_fn fn, void *ctx)
{
    t->link_observer = fn;
    t->link_ctx = fn ? ctx : NULL;
}

static void frame_crossed(void *ctx, up_link *l, const up_dl_event *ev)
{
    (void)l;
    tr_port *p = ctx;
    sw_transit *t = p->t;
    if (t->frame_observer) /* side 0 is the endpoint's node (up_link_new below) */
        t->frame_observer(t->frame_ctx, p->idx, ev->side == 0, ev);
}

void sw_transit_set_frame_observer(sw_transit *t, sw_transit_frame_fn fn, void *ctx)
{
    t->frame_observer = fn;
    t->frame_ctx = fn ? ctx : NULL;
    for (unsigned i = 0; i < t->cfg.sw.ports; i++)
        if (t->ports[i].link)
            up_link_set_frame_observer(t->ports[i].link, fn ? frame_crossed : NULL,
                                       &t->ports[i]);
}

static void link_state_changed(void *ctx, up_link *l)
{
    tr_port *p = ctx;
    sw_transit *t = p->t;
    if (t->link_observer)
        t->link_observer(t->link_ctx, p->idx, up_link_get_state(l), &up_link_get_cfg(l)->phy,
                         sim_now(up_env_scheduler(t->env)));
}

static void link_up_again(void *ctx, up_link *l)
{
    (void)l;
    tr_port *p = ctx;
    if (p->has_pending) {
        p->has_pending = false;
        apply_pwrm(p, p->pending);
    }
}

/* The node and link of a port, created when the port first carries traffic. The timed
 * switch forwards frames by its own table, which follows the DeviceIDs it has seen: the
 * fabric has already decided that the message may cross. */
static int ensure_port(sw_transit *t, unsigned port, uint8_t dev)
{
    tr_port *p = &t->ports[port];
    if (!p->node) {
        up_node_cfg nc = up_node_cfg_default(dev);
        nc.cports = t->cfg.cports;
        p->node = up_node_new(t->env, &nc, &node_ops, p);
        if (!p->node)
            return -ENOMEM;
        p->link = up_link_new(t->env, up_node_port(p->node), sw_switch_port(t->sw, port),
                              &t->cfg.link, NULL, 0);
        if (!p->link)
            return -ENOMEM;
        up_link_set_state_hook(p->link, link_up_again, p);
        up_link_set_observer(p->link, link_state_changed, p);
        if (t->frame_observer)
            up_link_set_frame_observer(p->link, frame_crossed, p);
        if (t->link_observer) /* its first state */
            link_state_changed(p, p->link);
        if (p->has_early) {
            p->has_early = false;
            apply_pwrm(p, p->early);
        }
    }
    if (up_node_device_id(p->node) != dev)
        up_node_set_device_id(p->node, dev);
    sw_route_table *rt = sw_switch_routes(t->sw);
    if (sw_route_lookup(rt, dev) != (int)port) {
        if (sw_route_set(rt, dev, port))
            return -EINVAL;
        for (unsigned i = 0; i < t->cfg.sw.ports; i++)
            sw_route_allow(rt, i, dev, true);
    }
    return 0;
}

/* Binds node:cport to (peer_dev, peer_cport), reconnecting when it pointed elsewhere. */
static int bind(up_node *n, unsigned cport, uint8_t peer_dev, uint16_t peer_cport)
{
    const up_cport_cfg *c = up_cport_get_cfg(n, cport);
    if (c && c->peer_dev == peer_dev && c->peer_cport == peer_cport)
        return 0;
    if (c)
        up_cport_disconnect(n, cport);
    up_cport_cfg cc = up_cport_cfg_default(peer_dev, peer_cport);
    return up_cport_connect(n, cport, &cc);
}

int sw_transit_message(sw_transit *t, const sw_hop *h, const uint8_t *msg, size_t len,
                       void *msg_ctx)
{
    if (h->in_port >= t->cfg.sw.ports || h->out_port >= t->cfg.sw.ports ||
        h->in_port == h->out_port || h->src_cport >= t->cfg.cports ||
        h->dst_cport >= t->cfg.cports || h->src_dev > UP_DEVICE_ID_MAX ||
        h->dst_dev > UP_DEVICE_ID_MAX || len > UINT32_MAX)
        return -EINVAL;
    int rc = ensure_port(t, h->in_port, h->src_dev);
    if (!rc)
        rc = ensure_port(t, h->out_port, h->dst_dev);
    if (rc)
        return rc;
    tr_port *in = &t->ports[h->in_port], *out = &t->ports[h->out_port];
    if (bind(in->node, h->src_cport, h->dst_dev, h->dst_cport) ||
        bind(out->node, h->dst_cport, h->src_dev, h->src_cport))
        return -EINVAL;
    return up_cport_send(in->node, h->src_cport, msg, (uint32_t)len, (uintptr_t)msg_ctx);
}

static int apply_pwrm(tr_port *p, const uint8_t *req)
{
    up_link *l = p->link;
    up_link_state st = up_link_get_state(l);
    sw_pwrm_action action;
    up_phy_cfg c;
    if (sw_pwrm_decode(req, &up_link_get_cfg(l)->phy, &action, &c))
        return -EINVAL;
    if (action == SW_PWRM_KEEP)
        return 0;
    if (p->unplugged && (action == SW_PWRM_OFF || action == SW_PWRM_HIBERNATE))
        return 0; /* no partner to hibernate with: what is left for it drains (unplug) */
    if (action == SW_PWRM_OFF) {
        up_link_set_down(l, true);
        return 0;
    }
    if (action == SW_PWRM_HIBERNATE)
        return st == UP_LINK_HIBERN8 ? 0 : up_link_hibernate(l, true);
    if (st != UP_LINK_UP) {
        /* leave HIBERN8 or power the link up first; the change follows when it is up */
        memcpy(p->pending, req, SW_PWRM_REQ_LEN);
        p->has_pending = true;
        if (st == UP_LINK_HIBERN8)
            up_link_hibernate(l, false);
        else if (st == UP_LINK_DOWN)
            up_link_set_down(l, false);
        return 0;
    }
    return up_link_set_power_mode(l, &c, NULL, 0);
}

int sw_transit_power_mode(sw_transit *t, unsigned port, const uint8_t *req, size_t len)
{
    if (!req || len < SW_PWRM_REQ_LEN || port >= t->cfg.sw.ports)
        return -EINVAL;
    tr_port *p = &t->ports[port];
    if (p->link)
        return apply_pwrm(p, req);
    memcpy(p->early, req, SW_PWRM_REQ_LEN);
    p->has_early = true;
    return 0;
}

unsigned sw_transit_queued(const sw_transit *t, unsigned port)
{
    if (port >= t->cfg.sw.ports)
        return 0;
    return sw_switch_queued(t->sw, port, 0) + sw_switch_queued(t->sw, port, 1);
}
