// SPDX-License-Identifier: MIT
// The SVC: construction, the version/hello handshake, the queue of SVC -> AP requests
// (hot-plug, mailbox, oops; one in flight at a time, like the AP's serial SVC work queue),
// responses from the AP, time, the fabric's view of the interfaces, and inspection. The
// AP's requests are in svc_ops.c.
#include "switch-model/svc_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const power_event_names[] = {
    [GB_SVC_PWR_VSYS_ON] = "vsys-on",       [GB_SVC_PWR_VSYS_OFF] = "vsys-off",
    [GB_SVC_PWR_REFCLK_ON] = "refclk-on",   [GB_SVC_PWR_REFCLK_OFF] = "refclk-off",
    [GB_SVC_PWR_UNIPRO_ON] = "unipro-on",   [GB_SVC_PWR_UNIPRO_OFF] = "unipro-off",
    [GB_SVC_PWR_ACTIVATE] = "activate",     [GB_SVC_PWR_HIBERNATE] = "hibernate",
    [GB_SVC_PWR_RESUME] = "resume",
};

const char *gb_svc_power_event_name(gb_svc_power_event ev)
{
    if ((unsigned)ev < sizeof power_event_names / sizeof power_event_names[0])
        return power_event_names[ev];
    return "?";
}

void svc_log(gb_svc *svc, sw_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sw_log_vprintf(svc->env.log, svc->env.ctx, level, svc->now, fmt, ap);
    va_end(ap);
}

static void fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

static void svc_receive(void *ctx, uint16_t cport, const gb_msg *m, sim_time now);

gb_svc *gb_svc_new(const gb_svc_config *cfg, const gb_svc_env *env, sw_fabric *fabric,
                   char *err, size_t errlen)
{
    gb_svc_config c = *cfg;
    const sw_fabric_cfg *fc = sw_fabric_get_cfg(fabric);
    if (c.num_slots == 0 || c.num_slots > GB_SVC_SLOTS_MAX) {
        char msg[96];
        snprintf(msg, sizeof msg, "svc: %u slots requested; the frame holds 1 to %u",
                 c.num_slots, GB_SVC_SLOTS_MAX);
        fail(err, errlen, msg);
        return NULL;
    }
    if (!c.endo_id)
        c.endo_id = GB_SVC_ENDO_ID_DEFAULT;
    if (!c.ap_intf_id)
        c.ap_intf_id = (uint8_t)fc->ap_port;
    if (c.ap_intf_id != fc->ap_port) {
        fail(err, errlen, "svc: the AP's interface id must be the fabric's AP bridge port");
        return NULL;
    }
    if (!c.first_intf_id)
        c.first_intf_id = (uint8_t)(c.ap_intf_id + 1);
    if (!c.ap_cport_count)
        c.ap_cport_count = 44;
    if (c.ap_cport_count > 255) {
        fail(err, errlen, "svc: the AP bridge has at most 255 hd CPorts (one header byte)");
        return NULL;
    }
    unsigned last = c.first_intf_id + c.num_slots - 1u;
    if (c.ap_intf_id >= c.first_intf_id && c.ap_intf_id <= last) {
        fail(err, errlen, "svc: ap_intf_id falls inside the slots' interface ids");
        return NULL;
    }
    unsigned top = last > c.ap_intf_id ? last : c.ap_intf_id;
    if (top + 2u > fc->ports) {
        fail(err, errlen, "svc: interface ids exceed the switch's port count");
        return NULL;
    }
    gb_svc *svc = calloc(1, sizeof *svc);
    if (!svc) {
        fail(err, errlen, "svc: out of memory");
        return NULL;
    }
    svc->cfg = c;
    svc->env = *env;
    svc->fabric = fabric;
    svc->port = sw_fabric_svc_port(fabric);
    svc->next_op_id = 1;
    sw_fabric_set_device_id(fabric, c.ap_intf_id, GB_SVC_DEVICE_ID_AP);
    sw_fabric_set_device_id(fabric, svc->port, GB_SVC_DEVICE_ID_SVC);
    sw_endpoint ep = { .receive = svc_receive, .ctx = svc };
    sw_fabric_attach(fabric, svc->port, &ep);
    return svc;
}

void gb_svc_free(gb_svc *svc)
{
    if (!svc)
        return;
    sw_fabric_detach(svc->fabric, svc->port);
    free(svc);
}

/* Into the fabric from the SVC's CPort 0, to the AP bridge's hd CPort 0. */
static void svc_send(gb_svc *svc, const uint8_t *msg, size_t len)
{
    gb_msg m;
    if (gb_msg_parse(msg, len, &m) == 0)
        sw_fabric_send(svc->fabric, svc->port, GB_SVC_CPORT_ID, &m);
}

static uint16_t next_id(gb_svc *svc)
{
    uint16_t id = svc->next_op_id++;
    if (svc->next_op_id == 0)
        svc->next_op_id = 1;
    return id;
}

static void send_request(gb_svc *svc, uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t buf[GB_MSG_HEADER_SIZE + 8];
    uint16_t id = next_id(svc);
    size_t n = gb_msg_build(buf, sizeof buf, id, type, 0, payload, len);
    svc->pending = true;
    svc->pending_id = id;
    svc->pending_type = type;
    memset(svc->pending_payload, 0, sizeof svc->pending_payload);
    if (len)
        memcpy(svc->pending_payload, payload, len);
    svc->pending_since = svc->now;
    svc->stats.svc_requests_sent++;
    svc_send(svc, buf, n);
}

static const char *svc_request_name(uint8_t type)
{
    const char *name = gb_svc_type_name(type);
    return name ? name : "request";
}

static void send_hello(gb_svc *svc)
{
    uint8_t p[GB_SVC_HELLO_SIZE];
    gb_put_le16(p, svc->cfg.endo_id);
    p[2] = svc->cfg.ap_intf_id;
    svc->hs = SVC_HS_HELLO;
    svc_log(svc, SW_LOG_INFO, "svc: -> SVC_HELLO endo 0x%04x, AP interface %u",
            svc->cfg.endo_id, svc->cfg.ap_intf_id);
    send_request(svc, GB_SVC_TYPE_SVC_HELLO, p, sizeof p);
}

void gb_svc_start(gb_svc *svc, sim_time now)
{
    svc->now = now;
    if (svc->hs != SVC_HS_IDLE)
        gb_svc_ap_lost(svc, now);
    svc->ev_count = 0; /* nothing from an earlier session reaches the new AP */
    svc->ev_head = 0;
    svc->pending = false;
    uint8_t p[GB_SVC_VERSION_SIZE] = { GB_SVC_VERSION_MAJOR, GB_SVC_VERSION_MINOR };
    svc->hs = SVC_HS_VERSION;
    svc_slots_announce_all(svc); /* sent once the handshake is done */
    svc->last_ping = now;
    svc->watchdog_warned = false;
    svc_log(svc, SW_LOG_INFO, "svc: -> PROTOCOL_VERSION %u.%u", p[0], p[1]);
    send_request(svc, GB_SVC_TYPE_PROTOCOL_VERSION, p, sizeof p);
}

void gb_svc_ap_lost(gb_svc *svc, sim_time now)
{
    svc->now = now;
    const sw_conn_table *conns = sw_fabric_connections(svc->fabric);
    bool had = svc->hs != SVC_HS_IDLE || svc->route_count || sw_conn_count(conns);
    svc_log(svc, had ? SW_LOG_INFO : SW_LOG_DEBUG,
            "svc: AP gone; forgetting routes, connections and device ids");
    svc->hs = SVC_HS_IDLE;
    svc->pending = false;
    svc->ev_count = 0;
    svc->ev_head = 0;
    while (sw_conn_count(conns)) {
        sw_conn c = *sw_conn_at(conns, 0);
        sw_fabric_disconnect(svc->fabric, c.port1, c.cport1, c.port2, c.cport2);
        svc_intf *a = svc_intf_at(svc, c.port1), *b = svc_intf_at(svc, c.port2);
        if (a && a->present)
            a->ops->cport_disconnect(a->self, c.cport1, now);
        if (b && b->present)
            b->ops->cport_disconnect(b->self, c.cport2, now);
    }
    sw_route_table *routes = sw_fabric_routes(svc->fabric);
    for (size_t i = 0; i < svc->route_count; i++) {
        const svc_route *r = &svc->route_list[i];
        sw_route_pair_destroy(routes, r->dev1, svc_port_of(svc, r->intf1), r->dev2,
                              svc_port_of(svc, r->intf2));
    }
    svc->route_count = 0;
    for (unsigned s = 0; s < svc->cfg.num_slots; s++) {
        svc_intf *in = &svc->intfs[s];
        svc_set_device_id(svc, gb_svc_slot_intf_id(svc, s), in, 0);
        if (in->present && in->vsys)
            svc_intf_power(svc, in, GB_SVC_PWR_VSYS_OFF);
        in->vsys = in->refclk = in->unipro = in->active = in->hibernated = false;
    }
    svc->ap_pwrm_set = false;
    svc_sync_fabric(svc);
}

void svc_send_response(gb_svc *svc, const gb_msg_header *req, uint8_t result,
                       const void *payload, size_t plen)
{
    uint8_t buf[GB_MSG_MAX_SIZE];
    if (req->operation_id == 0)
        return; /* unidirectional: no response */
    size_t n = gb_msg_build_response(buf, sizeof buf, req, result, result ? NULL : payload,
                                     result ? 0 : plen);
    if (n)
        svc_send(svc, buf, n);
}

/* ---- the event queue ---- */

void svc_queue_event(gb_svc *svc, uint8_t type, const uint8_t *payload, uint8_t len)
{
    if (svc->ev_count == SVC_EVENTS_MAX) {
        svc_log(svc, SW_LOG_ERROR, "svc: event queue full, %s dropped",
                svc_request_name(type));
        return;
    }
    svc_event *e = &svc->events[(svc->ev_head + svc->ev_count++) % SVC_EVENTS_MAX];
    e->type = type;
    e->len = len;
    memcpy(e->payload, payload, len);
    svc_pump(svc);
}

bool svc_unqueue_inserted(gb_svc *svc, uint8_t m)
{
    for (size_t i = 0; i < svc->ev_count; i++) {
        size_t at = (svc->ev_head + i) % SVC_EVENTS_MAX;
        if (svc->events[at].type == GB_SVC_TYPE_MODULE_INSERTED &&
            svc->events[at].payload[0] == m) {
            for (size_t j = i; j + 1 < svc->ev_count; j++)
                svc->events[(svc->ev_head + j) % SVC_EVENTS_MAX] =
                    svc->events[(svc->ev_head + j + 1) % SVC_EVENTS_MAX];
            svc->ev_count--;
            return true;
        }
    }
    return false;
}

void svc_pump(gb_svc *svc)
{
    if (svc->hs != SVC_HS_READY || svc->pending || svc->ev_count == 0)
        return;
    svc_event e = svc->events[svc->ev_head];
    svc->ev_head = (svc->ev_head + 1) % SVC_EVENTS_MAX;
    svc->ev_count--;
    svc_log(svc, SW_LOG_INFO, "svc: -> %s interface %u", svc_request_name(e.type),
            e.payload[0]);
    send_request(svc, e.type, e.payload, e.len);
}

size_t gb_svc_pending_events(const gb_svc *svc)
{
    return svc->ev_count + (svc->pending && svc->hs == SVC_HS_READY ? 1u : 0u);
}

/* ---- messages from the AP on the SVC connection ---- */

static void handle_response(gb_svc *svc, const gb_msg_header *h, const uint8_t *payload,
                            size_t plen)
{
    if (!svc->pending || h->operation_id != svc->pending_id) {
        svc_log(svc, SW_LOG_WARN, "svc: unexpected response id %u type 0x%02x dropped",
                h->operation_id, h->type);
        return;
    }
    uint8_t type = svc->pending_type;
    svc->pending = false;
    if (gb_msg_base_type(h->type) != type)
        svc_log(svc, SW_LOG_WARN, "svc: response to %s carries type 0x%02x",
                svc_request_name(type), h->type);
    if (h->result) {
        svc_log(svc, SW_LOG_ERROR, "svc: AP refused %s: %s", svc_request_name(type),
                gb_result_name(h->result));
        if (type == GB_SVC_TYPE_PROTOCOL_VERSION || type == GB_SVC_TYPE_SVC_HELLO)
            svc->hs = SVC_HS_FAILED;
        svc_pump(svc);
        return;
    }
    switch (type) {
    case GB_SVC_TYPE_PROTOCOL_VERSION:
        if (plen != GB_SVC_VERSION_SIZE) {
            svc_log(svc, SW_LOG_ERROR, "svc: version response of %zu bytes (want 2)", plen);
            svc->hs = SVC_HS_FAILED;
            return;
        }
        svc_log(svc, SW_LOG_INFO, "svc: <- AP speaks SVC protocol %u.%u", payload[0],
                payload[1]);
        send_hello(svc);
        return;
    case GB_SVC_TYPE_SVC_HELLO:
        svc->hs = SVC_HS_READY;
        svc->last_ping = svc->now;
        svc_log(svc, SW_LOG_INFO, "svc: handshake done, AP ready for hot-plug events");
        break;
    default:
        svc_log(svc, SW_LOG_DEBUG, "svc: <- AP acknowledged %s interface %u",
                svc_request_name(type), svc->pending_payload[0]);
        break;
    }
    svc_pump(svc);
}

/* The fabric's endpoint: a message from the AP on the SVC's CPort 0. */
static void svc_receive(void *ctx, uint16_t cport, const gb_msg *m, sim_time now)
{
    gb_svc *svc = ctx;
    svc->now = now;
    if (cport != GB_SVC_CPORT_ID) {
        svc_log(svc, SW_LOG_WARN, "svc: %u bytes on CPort %u, which is not the SVC's, dropped",
                m->h.size, cport);
        return;
    }
    if (gb_msg_is_response(m->h.type))
        handle_response(svc, &m->h, gb_msg_payload(m), gb_msg_payload_len(m));
    else
        svc_handle_request(svc, &m->h, gb_msg_payload(m), gb_msg_payload_len(m));
    svc_sync_fabric(svc);
}

void gb_svc_tick(gb_svc *svc, sim_time now)
{
    /* the clock never goes back: a tick behind the last delivery's time changes nothing
     * (and must not make now - pending_since wrap into a false timeout) */
    if (now < svc->now)
        now = svc->now;
    svc->now = now;
    if (svc->pending && now - svc->pending_since > SVC_AP_TIMEOUT) {
        svc->stats.ap_timeouts++;
        svc_log(svc, SW_LOG_ERROR, "svc: AP did not answer %s within 1 s",
                svc_request_name(svc->pending_type));
        svc->pending = false;
        if (svc->hs == SVC_HS_VERSION || svc->hs == SVC_HS_HELLO)
            svc->hs = SVC_HS_FAILED;
        svc_pump(svc);
    }
    if (svc->hs == SVC_HS_READY && !svc->watchdog_warned &&
        now - svc->last_ping > SVC_WATCHDOG_SILENCE) {
        svc->watchdog_warned = true;
        svc_log(svc, SW_LOG_WARN, "svc: no PING from the AP for 6 s (watchdog stopped?)");
    }
}

/* ---- interfaces ---- */

svc_intf *svc_intf_at(gb_svc *svc, uint8_t intf_id)
{
    if (intf_id < svc->cfg.first_intf_id ||
        intf_id >= svc->cfg.first_intf_id + svc->cfg.num_slots)
        return NULL;
    return &svc->intfs[intf_id - svc->cfg.first_intf_id];
}

const svc_intf *svc_intf_at_const(const gb_svc *svc, uint8_t intf_id)
{
    return svc_intf_at((gb_svc *)svc, intf_id);
}

bool svc_intf_known(const gb_svc *svc, uint8_t intf_id)
{
    return intf_id == svc->cfg.ap_intf_id || svc_intf_at_const(svc, intf_id);
}

unsigned svc_port_of(const gb_svc *svc, uint8_t intf_id)
{
    (void)svc;
    return intf_id;
}

bool svc_intf_linked(const svc_intf *in)
{
    return in->present && in->vsys && in->unipro && in->active && !in->hibernated;
}

void svc_intf_power(gb_svc *svc, svc_intf *in, gb_svc_power_event ev)
{
    if (in->present && in->ops->power)
        in->ops->power(in->self, ev, svc->now);
}

void svc_sync_fabric(gb_svc *svc)
{
    for (unsigned s = 0; s < svc->cfg.num_slots; s++)
        sw_fabric_set_reachable(svc->fabric, svc_port_of(svc, gb_svc_slot_intf_id(svc, s)),
                                svc_intf_linked(&svc->intfs[s]));
}

void svc_set_device_id(gb_svc *svc, uint8_t intf_id, svc_intf *in, uint8_t dev)
{
    in->device_id = dev;
    sw_fabric_set_device_id(svc->fabric, svc_port_of(svc, intf_id), dev);
}

/* 0 when an event about interface intf_id may be queued for the AP: -ENOENT without a
 * module there, -ENOTCONN before the handshake (only an AP past it may hear events). */
static int intf_event_allowed(gb_svc *svc, uint8_t intf_id, sim_time now)
{
    svc->now = now;
    svc_intf *in = svc_intf_at(svc, intf_id);
    if (!in || !in->present)
        return -ENOENT;
    return svc->hs == SVC_HS_READY ? 0 : -ENOTCONN;
}

int gb_svc_intf_mailbox(gb_svc *svc, uint8_t intf_id, uint32_t value, sim_time now)
{
    int rc = intf_event_allowed(svc, intf_id, now);
    if (rc)
        return rc;
    uint8_t p[GB_SVC_INTF_MAILBOX_EVENT_SIZE];
    p[0] = intf_id;
    gb_put_le16(p + 1, 0);
    gb_put_le32(p + 3, value);
    svc_queue_event(svc, GB_SVC_TYPE_INTF_MAILBOX_EVENT, p, sizeof p);
    return 0;
}

int gb_svc_intf_oops(gb_svc *svc, uint8_t intf_id, uint8_t reason, sim_time now)
{
    int rc = intf_event_allowed(svc, intf_id, now);
    if (rc)
        return rc;
    uint8_t p[GB_SVC_INTF_OOPS_SIZE] = { intf_id, reason };
    svc_queue_event(svc, GB_SVC_TYPE_INTF_OOPS, p, sizeof p);
    return 0;
}

/* ---- inspection ---- */

bool gb_svc_handshake_done(const gb_svc *svc)
{
    return svc->hs == SVC_HS_READY;
}

sim_time gb_svc_now(const gb_svc *svc)
{
    return svc->now;
}

gb_svc_stats gb_svc_get_stats(const gb_svc *svc)
{
    return svc->stats;
}

bool gb_svc_get_intf(const gb_svc *svc, uint8_t intf_id, gb_svc_intf_info *out)
{
    const svc_intf *in = svc_intf_at_const(svc, intf_id);
    if (!in)
        return false;
    memset(out, 0, sizeof *out);
    out->present = in->present;
    out->vsys = in->vsys;
    out->refclk = in->refclk;
    out->unipro = in->unipro;
    out->active = in->active;
    out->hibernated = in->hibernated;
    out->device_id = in->device_id;
    out->tx_mode = in->pwrm_set ? in->pwrm[2] : 0;
    out->rx_mode = in->pwrm_set ? in->pwrm[7] : 0;
    out->slot = (uint8_t)(intf_id - svc->cfg.first_intf_id);
    out->activations = in->activations;
    out->resumes = in->resumes;
    return true;
}

uint8_t gb_svc_slot_intf_id(const gb_svc *svc, unsigned slot)
{
    return (uint8_t)(svc->cfg.first_intf_id + slot);
}

unsigned gb_svc_num_slots(const gb_svc *svc)
{
    return svc->cfg.num_slots;
}

uint8_t gb_svc_ap_intf_id(const gb_svc *svc)
{
    return svc->cfg.ap_intf_id;
}

uint8_t gb_svc_ap_link_tx_mode(const gb_svc *svc)
{
    return svc->ap_pwrm_set ? svc->ap_pwrm[2] : 0;
}

sw_fabric *gb_svc_fabric(const gb_svc *svc)
{
    return svc->fabric;
}
