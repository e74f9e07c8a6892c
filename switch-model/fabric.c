// SPDX-License-Identifier: MIT
// The switch fabric (see fabric.h): endpoints, what the SVC programs, the data path, and the
// runtime control of a timed fabric's links. The statistics reports are in fabric_report.c.
#include "switch-model/fabric_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "unipro-model/up_consts.h"

static const char *const timing_names[] = {
    [SW_TIMING_DIRECT] = "off", [SW_TIMING_FRAME] = "frame", [SW_TIMING_MESSAGE] = "message",
};

const char *sw_timing_name(sw_timing t)
{
    return (unsigned)t <= SW_TIMING_MESSAGE ? timing_names[t] : "?";
}

int sw_timing_parse(const char *name, sw_timing *out)
{
    for (unsigned t = 0; t <= SW_TIMING_MESSAGE; t++)
        if (!strcmp(name, timing_names[t])) {
            *out = (sw_timing)t;
            return 0;
        }
    return -1;
}

static const char *const dir_names[SW_DIRS] = {
    "ap_to_intf", "intf_to_ap", "ap_to_svc", "svc_to_ap", "intf_to_intf",
};

const char *sw_dir_name(sw_dir d)
{
    return (unsigned)d < SW_DIRS ? dir_names[d] : "?";
}

const char *sw_verdict_name(sw_verdict v)
{
    switch (v) {
    case SW_VERDICT_OK:
        return "ok";
    case SW_VERDICT_NO_CONNECTION:
        return "CPort in no connection";
    case SW_VERDICT_NO_ROUTE:
        return "switch has no route";
    case SW_VERDICT_PEER_GONE:
        return "peer interface not present or not linked";
    }
    return "?";
}

void fabric_log(const sw_fabric *f, sw_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sw_log_vprintf(f->cfg.log, f->cfg.log_ctx, level, sim_now(f->sched), fmt, ap);
    va_end(ap);
}

/* ---- life cycle ---- */

static void fabric_arrived(void *ctx, void *msg_ctx, const uint8_t *msg, size_t len,
                           sim_time sent, sim_time now);

static void fabric_link_changed(void *ctx, unsigned port, up_link_state state,
                                const up_phy_cfg *phy, sim_time now)
{
    sw_fabric *f = ctx;
    if (f->link_observer) {
        sw_link_event ev = { .port = port, .state = state, .phy = *phy, .at = now };
        f->link_observer(f->link_observer_ctx, &ev);
    }
}

sw_fabric *sw_fabric_new(const sim_scheduler *s, const sw_fabric_cfg *cfg, char *err,
                         size_t errlen)
{
    sw_fabric_cfg c = *cfg;
    if (!c.phy.gear)
        c.phy = up_phy_cfg_startup();
    if (c.ports < 3 || c.ports > SW_PORTS_MAX || c.ap_port >= c.ports - 1) {
        snprintf(err, errlen, "a switch of %u ports cannot hold the AP bridge on port %u and "
                 "the SVC", c.ports, c.ap_port);
        return NULL;
    }
    if (c.timing != SW_TIMING_DIRECT && up_phy_cfg_check(&c.phy, err, errlen))
        return NULL;
    if (!(c.ber >= 0 && c.ber < 1e-2)) {
        snprintf(err, errlen, "bit error rate %g outside [0, 0.01)", c.ber);
        return NULL;
    }
    if (c.ber > 0 && c.timing != SW_TIMING_FRAME) {
        snprintf(err, errlen, "bit errors need the frame-level timing (--timing frame)");
        return NULL;
    }
    sw_fabric *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->cfg = c;
    f->sched = s;
    f->ports = calloc(c.ports, sizeof *f->ports);
    f->routes = sw_route_table_new(c.ports);
    f->conns = sw_conn_table_new(1024);
    if (!f->ports || !f->routes || !f->conns)
        goto nomem;
    f->ports[c.ports - 1].device_id = 0; /* the SVC's DeviceID */
    for (unsigned i = 0; i < SW_DIRS; i++)
        up_hist_init(&f->dir[i].latency);
    if (c.timing == SW_TIMING_FRAME) {
        f->env = up_env_new(s);
        sw_transit_cfg tc = sw_transit_cfg_default();
        tc.sw.ports = c.ports;
        tc.link.phy = c.phy;
        tc.link.faults.ber = c.ber;
        tc.link.faults.seed = c.seed ? c.seed : 1;
        f->frame = f->env ? sw_transit_new(f->env, &tc, fabric_arrived, f) : NULL;
        if (f->frame)
            sw_transit_set_link_observer(f->frame, fabric_link_changed, f);
        if (!f->frame)
            goto nomem;
    } else if (c.timing == SW_TIMING_MESSAGE) {
        f->message = sw_msg_transit_new(s, c.ports, &c.phy, fabric_arrived, f);
        if (!f->message)
            goto nomem;
    }
    return f;
nomem:
    snprintf(err, errlen, "out of memory building the switch fabric");
    sw_fabric_free(f);
    return NULL;
}

void sw_fabric_free(sw_fabric *f)
{
    if (!f)
        return;
    for (unsigned i = 0; i < SW_FABRIC_TIMED_FAULTS; i++)
        if (f->timed[i].ev.id)
            sim_cancel(f->sched, f->timed[i].ev);
    /* the transits drop their messages in flight without delivering them */
    sw_transit_free(f->frame);
    sw_msg_transit_free(f->message);
    up_env_free(f->env);
    while (f->spare) {
        fabric_flight *fl = f->spare;
        f->spare = fl->next;
        free(fl);
    }
    for (fabric_flight *fl = f->flying; fl;) {
        fabric_flight *next = fl->next;
        free(fl);
        fl = next;
    }
    sw_conn_table_free(f->conns);
    sw_route_table_free(f->routes);
    free(f->ports);
    free(f);
}

const sw_fabric_cfg *sw_fabric_get_cfg(const sw_fabric *f)
{
    return &f->cfg;
}

unsigned sw_fabric_svc_port(const sw_fabric *f)
{
    return f->cfg.ports - 1;
}

/* ---- endpoints ---- */

static bool is_module_port(const sw_fabric *f, unsigned port)
{
    return port != f->cfg.ap_port && port != f->cfg.ports - 1;
}

int sw_fabric_attach(sw_fabric *f, unsigned port, const sw_endpoint *ep)
{
    if (port >= f->cfg.ports || !ep || !ep->receive)
        return -EINVAL;
    fabric_port *p = &f->ports[port];
    p->ep = *ep;
    p->attached = true;
    p->reachable = !is_module_port(f, port);
    if (f->frame)
        sw_transit_unplug(f->frame, port, false);
    return 0;
}

void sw_fabric_detach(sw_fabric *f, unsigned port)
{
    if (port >= f->cfg.ports)
        return;
    fabric_port *p = &f->ports[port];
    p->attached = false;
    p->reachable = false;
    p->rx_epoch++;
    p->tx_epoch++;
    if (f->frame)
        sw_transit_unplug(f->frame, port, true);
}

void sw_fabric_reset(sw_fabric *f, unsigned port)
{
    if (port >= f->cfg.ports)
        return;
    f->ports[port].rx_epoch++;
    f->ports[port].tx_epoch++;
}

/* ---- what the SVC programs ---- */

int sw_fabric_set_device_id(sw_fabric *f, unsigned port, uint8_t device_id)
{
    if (port >= f->cfg.ports || device_id >= SW_DEVICE_ID_COUNT)
        return -EINVAL;
    f->ports[port].device_id = device_id;
    return 0;
}

uint8_t sw_fabric_device_id(const sw_fabric *f, unsigned port)
{
    return port < f->cfg.ports ? f->ports[port].device_id : 0;
}

/* A link the SVC made reachable again leaves HIBERN8 or powers up (INTF_RESUME and
 * INTF_ACTIVATE do this without an INTF_SET_PWRM). */
static void wake_link(sw_fabric *f, unsigned port)
{
    if (f->message)
        sw_msg_transit_wake(f->message, port);
    else if (f->frame)
        sw_transit_wake(f->frame, port);
}

void sw_fabric_set_reachable(sw_fabric *f, unsigned port, bool reachable)
{
    if (port >= f->cfg.ports || !is_module_port(f, port))
        return;
    fabric_port *p = &f->ports[port];
    bool now = reachable && p->attached;
    if (now && !p->reachable)
        wake_link(f, port);
    p->reachable = now;
}

bool sw_fabric_reachable(const sw_fabric *f, unsigned port)
{
    return port < f->cfg.ports && f->ports[port].reachable;
}

sw_route_table *sw_fabric_routes(sw_fabric *f)
{
    return f->routes;
}

int sw_fabric_connect(sw_fabric *f, const sw_conn *c)
{
    if (c->port1 >= f->cfg.ports || c->port2 >= f->cfg.ports)
        return -EINVAL;
    return sw_conn_add(f->conns, c);
}

int sw_fabric_disconnect(sw_fabric *f, unsigned port1, uint16_t cport1, unsigned port2,
                         uint16_t cport2)
{
    if (port1 >= f->cfg.ports || port2 >= f->cfg.ports)
        return -EINVAL;
    return sw_conn_remove(f->conns, (uint8_t)port1, cport1, (uint8_t)port2, cport2);
}

const sw_conn_table *sw_fabric_connections(const sw_fabric *f)
{
    return f->conns;
}

int sw_fabric_power_mode(sw_fabric *f, unsigned port, const uint8_t *req, size_t len)
{
    if (f->frame)
        return sw_transit_power_mode(f->frame, port, req, len);
    if (f->message)
        return sw_msg_transit_power_mode(f->message, port, req, len);
    return 0;
}

/* ---- the data path ---- */

static sw_dir dir_of(const sw_fabric *f, unsigned from, unsigned to)
{
    unsigned svc = f->cfg.ports - 1, ap = f->cfg.ap_port;
    if (to == svc)
        return SW_DIR_AP_TO_SVC;
    if (from == svc)
        return SW_DIR_SVC_TO_AP;
    if (from == ap)
        return SW_DIR_AP_TO_INTF;
    if (to == ap)
        return SW_DIR_INTF_TO_AP;
    return SW_DIR_INTF_TO_INTF;
}

/* The direction of a refused message: by its peer when one was found, else by its sender. */
static sw_dir refused_dir(const sw_fabric *f, unsigned from, uint16_t cport, unsigned to)
{
    if (to < f->cfg.ports)
        return dir_of(f, from, to);
    if (from == f->cfg.ap_port)
        return cport == 0 ? SW_DIR_AP_TO_SVC : SW_DIR_AP_TO_INTF;
    return from == f->cfg.ports - 1 ? SW_DIR_SVC_TO_AP : SW_DIR_INTF_TO_AP;
}

/* Where a message leaving (port, cport) goes. The SVC's connection (hd CPort 0 of the AP
 * bridge and CPort 0 of the SVC) is static: neither CONN_CREATE nor the routing table is
 * involved. */
static sw_verdict resolve(sw_fabric *f, unsigned port, uint16_t cport, sw_hop *hop,
                          unsigned *peer, uint8_t *tc)
{
    unsigned svc = f->cfg.ports - 1, ap = f->cfg.ap_port;
    *hop = (sw_hop){ .in_port = port, .out_port = SW_FABRIC_NO_PORT, .src_cport = cport,
                     .dst_cport = 0xffff };
    *peer = SW_FABRIC_NO_PORT;
    *tc = 0;
    if (cport == 0 && (port == ap || port == svc)) {
        *peer = port == ap ? svc : ap;
        hop->out_port = *peer;
        hop->dst_cport = 0;
        hop->src_dev = port == ap ? GB_SVC_DEVICE_ID_AP : GB_SVC_DEVICE_ID_SVC;
        hop->dst_dev = port == ap ? GB_SVC_DEVICE_ID_SVC : GB_SVC_DEVICE_ID_AP;
        return f->ports[*peer].attached ? SW_VERDICT_OK : SW_VERDICT_PEER_GONE;
    }
    uint8_t peer_port;
    sw_conn c;
    if (!sw_conn_peer(f->conns, (uint8_t)port, cport, &peer_port, &hop->dst_cport, &c))
        return SW_VERDICT_NO_CONNECTION;
    *peer = peer_port;
    *tc = c.tc;
    hop->src_dev = f->ports[port].device_id;
    hop->dst_dev = f->ports[peer_port].device_id;
    if (!hop->src_dev || !hop->dst_dev ||
        sw_route_resolve(f->routes, port, hop->dst_dev, &hop->out_port) != SW_ROUTE_FORWARD)
        return SW_VERDICT_NO_ROUTE;
    if (!f->ports[peer_port].reachable)
        return SW_VERDICT_PEER_GONE;
    return SW_VERDICT_OK;
}

static void fabric_frame(void *ctx, unsigned port, bool to_switch, const up_dl_event *dl)
{
    sw_fabric *f = ctx;
    if (f->frame_observer) {
        sw_frame_event ev = { .port = port, .to_switch = to_switch, .dl = *dl };
        f->frame_observer(f->frame_observer_ctx, &ev);
    }
}

void sw_fabric_set_frame_observer(sw_fabric *f, sw_frame_observer_fn fn, void *ctx)
{
    f->frame_observer = fn;
    f->frame_observer_ctx = fn ? ctx : NULL;
    if (f->frame)
        sw_transit_set_frame_observer(f->frame, fn ? fabric_frame : NULL, f);
}

unsigned sw_fabric_switch_queued(const sw_fabric *f, unsigned port)
{
    return f->frame ? sw_transit_queued(f->frame, port) : 0;
}

void sw_fabric_set_link_observer(sw_fabric *f, sw_link_observer_fn fn, void *ctx)
{
    f->link_observer = fn;
    f->link_observer_ctx = fn ? ctx : NULL;
}

void sw_fabric_set_observer(sw_fabric *f, sw_observer_fn fn, void *ctx)
{
    f->observer = fn;
    f->observer_ctx = fn ? ctx : NULL;
}

static void observe(sw_fabric *f, const fabric_flight *fl, sw_verdict v, sim_time sent,
                    const gb_msg *m)
{
    if (!f->observer)
        return;
    sw_observed ev = { .dir = fl->dir, .from = fl->from, .to = fl->to, .src_dev = fl->src_dev,
                       .dst_dev = fl->dst_dev, .src_cport = fl->src_cport,
                       .dst_cport = fl->cport, .tc = fl->tc, .verdict = v, .sent = sent,
                       .at = sim_now(f->sched), .m = m };
    f->observer(f->observer_ctx, &ev);
}

/* What a message carries through the fabric about its way (for delivery and observers). */
static fabric_flight way(const sw_hop *hop, unsigned to, sw_dir d, uint8_t tc,
                         const gb_msg *m)
{
    return (fabric_flight){ .h = m->h, .from = hop->in_port, .to = to, .cport = hop->dst_cport,
                            .src_cport = hop->src_cport, .src_dev = hop->src_dev,
                            .dst_dev = hop->dst_dev, .tc = tc, .dir = d };
}

static void deliver(sw_fabric *f, const fabric_flight *fl, const gb_msg *m, sim_time sent)
{
    sw_dir d = fl->dir;
    unsigned to = fl->to;
    uint16_t cport = fl->cport;
    sim_time now = sim_now(f->sched);
    fabric_dir *acc = &f->dir[d];
    acc->s.delivered_msgs++;
    acc->s.delivered_bytes += m->h.size;
    acc->s.last_latency = now - sent;
    up_hist_add(&acc->latency, now - sent);
    if (to == f->cfg.ap_port)
        f->st.to_ap++;
    else if (to == f->cfg.ports - 1)
        f->st.to_svc++;
    else
        f->st.to_intf++;
    observe(f, fl, SW_VERDICT_OK, sent, m);
    fabric_port *p = &f->ports[to];
    p->ep.receive(p->ep.ctx, cport, m, now);
}

static void count_sent(sw_fabric *f, sw_dir d, size_t len)
{
    f->dir[d].s.sent_msgs++;
    f->dir[d].s.sent_bytes += len;
}

static fabric_flight *flight_new(sw_fabric *f)
{
    fabric_flight *fl = f->spare;
    if (fl)
        f->spare = fl->next;
    else if (!(fl = malloc(sizeof *fl)))
        return NULL;
    fl->prev = NULL;
    fl->next = f->flying;
    if (f->flying)
        f->flying->prev = fl;
    f->flying = fl;
    return fl;
}

static void flight_done(sw_fabric *f, fabric_flight *fl)
{
    if (fl->prev)
        fl->prev->next = fl->next;
    else
        f->flying = fl->next;
    if (fl->next)
        fl->next->prev = fl->prev;
    fl->next = f->spare;
    f->spare = fl;
}

/* Into the timed model: 0, or -errno when it refused (then nothing is in flight). */
static int send_timed(sw_fabric *f, const sw_hop *hop, const fabric_flight *w,
                      const gb_msg *m)
{
    fabric_flight *fl = flight_new(f);
    if (!fl)
        return -ENOMEM;
    fabric_flight *links_prev = fl->prev, *links_next = fl->next;
    *fl = *w;
    fl->prev = links_prev;
    fl->next = links_next;
    unsigned to = w->to;
    fl->tx_epoch = f->ports[hop->in_port].tx_epoch;
    fl->rx_epoch = f->ports[to].rx_epoch;
    int rc = f->frame ? sw_transit_message(f->frame, hop, m->bytes, m->h.size, fl)
                      : sw_msg_transit_message(f->message, hop, m->bytes, m->h.size, fl);
    if (rc)
        flight_done(f, fl);
    return rc;
}

static void fabric_arrived(void *ctx, void *msg_ctx, const uint8_t *msg, size_t len,
                           sim_time sent, sim_time now)
{
    (void)now;
    sw_fabric *f = ctx;
    fabric_flight fl = *(fabric_flight *)msg_ctx;
    flight_done(f, msg_ctx);
    const fabric_port *from = &f->ports[fl.from], *to = &f->ports[fl.to];
    if (from->tx_epoch != fl.tx_epoch || to->rx_epoch != fl.rx_epoch || !to->reachable) {
        f->st.dropped++;
        gb_msg m = { .h = fl.h, .bytes = msg };
        observe(f, &fl, SW_VERDICT_PEER_GONE, sent, &m);
        if (is_module_port(f, fl.to))
            fabric_log(f, SW_LOG_WARN, "path: interface %u gone, %zu bytes for CPort %u "
                       "dropped", fl.to, len, fl.cport);
        else /* the AP's session ended while it travelled */
            fabric_log(f, SW_LOG_DEBUG, "path: %zu bytes of an ended AP session dropped", len);
        return;
    }
    gb_msg m = { .h = fl.h, .bytes = msg };
    deliver(f, &fl, &m, sent);
}

sw_verdict sw_fabric_send(sw_fabric *f, unsigned port, uint16_t cport, const gb_msg *m)
{
    sw_hop hop = { .in_port = port, .out_port = SW_FABRIC_NO_PORT, .src_cport = cport,
                   .dst_cport = 0xffff };
    unsigned to = SW_FABRIC_NO_PORT;
    uint8_t tc = 0;
    sw_verdict v = port < f->cfg.ports && f->ports[port].reachable
                       ? resolve(f, port, cport, &hop, &to, &tc) : SW_VERDICT_PEER_GONE;
    if (v != SW_VERDICT_OK) {
        f->st.dropped++;
        if (f->observer && port < f->cfg.ports) {
            fabric_flight w = way(&hop, to, refused_dir(f, port, cport, to), tc, m);
            observe(f, &w, v, sim_now(f->sched), m);
        }
        if (port == f->cfg.ap_port)
            fabric_log(f, SW_LOG_WARN, "path: AP hd CPort %u: %u bytes dropped (%s)", cport,
                       m->h.size, sw_verdict_name(v));
        else
            fabric_log(f, SW_LOG_WARN, "path: %s %u CPort %u: %u bytes dropped (%s)",
                       port == f->cfg.ports - 1 ? "SVC on port" : "interface", port, cport,
                       m->h.size, sw_verdict_name(v));
        return v;
    }
    sw_dir d = dir_of(f, port, to);
    count_sent(f, d, m->h.size);
    fabric_flight w = way(&hop, to, d, tc, m);
    if (f->frame || f->message) {
        int rc = send_timed(f, &hop, &w, m);
        if (!rc)
            return SW_VERDICT_OK;
        f->st.untimed++;
        fabric_log(f, SW_LOG_WARN, "timing: port %u CPort %u -> %u:%u not modelled (%s), "
                   "delivered at once", port, cport, to, hop.dst_cport, strerror(-rc));
    }
    deliver(f, &w, m, sim_now(f->sched));
    return SW_VERDICT_OK;
}

/* ---- statistics ---- */

sw_fabric_stats sw_fabric_get_stats(const sw_fabric *f)
{
    return f->st;
}

sw_dir_stats sw_fabric_dir_stats(const sw_fabric *f, sw_dir d)
{
    return (unsigned)d < SW_DIRS ? f->dir[d].s : (sw_dir_stats){ 0 };
}

size_t sw_fabric_in_flight(const sw_fabric *f)
{
    size_t n = 0;
    for (const fabric_flight *fl = f->flying; fl; fl = fl->next)
        n++;
    return n;
}

/* ---- the links of a timed fabric ---- */

static up_link *control_link(const sw_fabric *f, unsigned port, int *rc, char *err,
                             size_t errlen)
{
    if (!f->frame) {
        snprintf(err, errlen, f->message ? "the message-level timing has no link faults or "
                 "runtime power modes (use --timing frame)" : "timing is off: there is no "
                 "UniPro link model (run the simulator with --timing frame)");
        *rc = -ENOTSUP;
        return NULL;
    }
    up_link *l = port < f->cfg.ports ? sw_transit_link(f->frame, port) : NULL;
    if (!l) {
        snprintf(err, errlen, "the link of switch port %u has carried no traffic yet (insert "
                 "the module and let the AP enumerate it first)", port);
        *rc = -ENODEV;
    }
    return l;
}

int sw_fabric_link_set(sw_fabric *f, unsigned port, const up_phy_cfg *phy, char *err,
                       size_t errlen)
{
    int rc;
    up_link *l = control_link(f, port, &rc, err, errlen);
    if (!l)
        return rc;
    rc = up_link_set_power_mode(l, phy, err, errlen);
    if (rc == -EBUSY)
        snprintf(err, errlen, "the link of switch port %u is %s, not up: no power mode change "
                 "now", port, up_link_state_name(up_link_get_state(l)));
    return rc;
}

static int check_fault(const sw_link_fault *fault, char *err, size_t errlen)
{
    if (fault->set_ber && !(fault->ber >= 0 && fault->ber < 1e-2)) {
        snprintf(err, errlen, "bit error rate %g outside [0, 0.01)", fault->ber);
        return -EINVAL;
    }
    if (fault->set_drop && !(fault->drop >= 0 && fault->drop < 1)) {
        snprintf(err, errlen, "drop probability %g outside [0, 1)", fault->drop);
        return -EINVAL;
    }
    if (fault->down_for && !(fault->set_down && fault->down)) {
        snprintf(err, errlen, "down_for goes with down = true");
        return -EINVAL;
    }
    return 0;
}

static void apply_fault(up_link *l, const sw_link_fault *fault)
{
    up_fault_cfg fc = up_link_get_cfg(l)->faults;
    if (fault->set_ber)
        fc.ber = fault->ber;
    if (fault->set_drop)
        fc.drop = fault->drop;
    if (fault->set_ber || fault->set_drop)
        up_link_set_faults(l, &fc); /* checked: cannot fail */
    if (fault->set_down)
        up_link_set_down(l, fault->down);
}

static void timed_fault_due(void *ctx)
{
    fabric_timed_fault *t = ctx;
    t->ev = SIM_EVENT_NONE;
    up_link *l = sw_transit_link(t->f->frame, t->port);
    if (l) /* links, once made, last as long as the fabric */
        apply_fault(l, &t->fault);
}

static int schedule_fault(sw_fabric *f, unsigned port, const sw_link_fault *fault,
                          sim_time delay)
{
    for (unsigned i = 0; i < SW_FABRIC_TIMED_FAULTS; i++) {
        fabric_timed_fault *t = &f->timed[i];
        if (t->ev.id)
            continue;
        *t = (fabric_timed_fault){ .f = f, .port = port, .fault = *fault };
        return sim_schedule(f->sched, delay, timed_fault_due, t, &t->ev) ? -ENOMEM : 0;
    }
    return -ENOSPC;
}

int sw_fabric_link_fault(sw_fabric *f, unsigned port, const sw_link_fault *fault, char *err,
                         size_t errlen)
{
    int rc;
    up_link *l = control_link(f, port, &rc, err, errlen);
    if (!l)
        return rc;
    rc = check_fault(fault, err, errlen);
    if (rc)
        return rc;
    unsigned free_slots = 0, need = (fault->delay ? 1u : 0u) + (fault->down_for ? 1u : 0u);
    for (unsigned i = 0; i < SW_FABRIC_TIMED_FAULTS; i++)
        free_slots += !f->timed[i].ev.id;
    if (need > free_slots) {
        snprintf(err, errlen, "more than %u timed faults pending", SW_FABRIC_TIMED_FAULTS);
        return -ENOSPC;
    }
    if (!fault->delay)
        apply_fault(l, fault);
    else if (schedule_fault(f, port, fault, fault->delay))
        return -ENOMEM;
    if (fault->down_for) {
        sw_link_fault up = { .set_down = true, .down = false };
        if (schedule_fault(f, port, &up, fault->delay + fault->down_for))
            return -ENOMEM;
    }
    return 0;
}

int sw_fabric_link_info(const sw_fabric *f, unsigned port, sw_link_info *out, char *err,
                        size_t errlen)
{
    int rc;
    up_link *l = control_link(f, port, &rc, err, errlen);
    if (!l)
        return rc;
    const up_link_cfg *c = up_link_get_cfg(l);
    *out = (sw_link_info){ .phy = c->phy, .ber = c->faults.ber, .drop = c->faults.drop,
                           .state = up_link_state_name(up_link_get_state(l)) };
    for (unsigned side = 0; side < 2; side++) {
        const up_port_stats *st = up_port_stats_get(up_link_port(l, side));
        out->frames += st->tx_frames;
        out->replays += st->tx_replays;
        out->replay_timeouts += st->tx_replay_timeouts;
        out->crc_errors += st->rx_crc_errors;
        out->dropped += st->rx_dropped;
        out->duplicates += st->rx_duplicates;
    }
    return 0;
}

bool sw_fabric_link_mode(const sw_fabric *f, unsigned port, up_phy_cfg *out)
{
    if (port >= f->cfg.ports)
        return false;
    if (f->message) {
        bool parked;
        sw_msg_transit_link(f->message, port, out, &parked);
        return true;
    }
    up_link *l = f->frame ? sw_transit_link(f->frame, port) : NULL;
    if (!l)
        return false;
    *out = up_link_get_cfg(l)->phy;
    return true;
}

uint64_t sw_fabric_replays(const sw_fabric *f)
{
    uint64_t r = 0;
    for (unsigned p = 0; f->frame && p < f->cfg.ports; p++) {
        up_link *l = sw_transit_link(f->frame, p);
        if (l)
            r += up_port_stats_get(up_link_port(l, 0))->tx_replays +
                 up_port_stats_get(up_link_port(l, 1))->tx_replays;
    }
    return r;
}

int sw_link_parse(up_phy_cfg *c, const char *gear, const char *series, const char *lanes,
                  char *err, size_t errlen)
{
    up_phy_cfg n = *c;
    if (series && strcasecmp(series, "A") && strcasecmp(series, "B")) {
        snprintf(err, errlen, "--series %s: want A or B", series);
        return -EINVAL;
    }
    if (gear) {
        char g[16];
        snprintf(g, sizeof g, "%s", gear);
        size_t len = strlen(g);
        /* "HS-G2" takes its series from --series (default A) */
        if (len == 5 && !strncasecmp(g, "HS-G", 4) && len + 1 < sizeof g) {
            g[5] = series ? series[0] : 'A';
            g[6] = 0;
        }
        if (strlen(gear) >= sizeof g || up_phy_cfg_parse_gear(&n, g)) {
            snprintf(err, errlen, "--gear %s: want HS-G1..HS-G3 with series A or B (HS-G1B) "
                     "or PWM-G1..PWM-G7", gear);
            return -EINVAL;
        }
    }
    if (series && (!gear || strlen(gear) != 5))
        n.series = (series[0] == 'A' || series[0] == 'a') ? UP_SERIES_A : UP_SERIES_B;
    if (lanes) {
        if (strcmp(lanes, "1") && strcmp(lanes, "2")) {
            snprintf(err, errlen, "--lanes %s: want 1 or 2 (the Ara switch has at most 2)",
                     lanes);
            return -EINVAL;
        }
        n.lanes = (uint8_t)(lanes[0] - '0');
    }
    if (n.mode == UP_PHY_HS && n.gear > 3) {
        snprintf(err, errlen, "--gear %s: the Ara switch and bridges stop at HS-G3", gear);
        return -EINVAL;
    }
    if (up_phy_cfg_check(&n, err, errlen))
        return -EINVAL;
    *c = n;
    return 0;
}
