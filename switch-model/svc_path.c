// SPDX-License-Identifier: MIT
// The data path: a message leaving a CPort follows the SVC's connection table to its peer
// CPort, and crosses the switch only if the routing table lets the source's port reach the
// peer's DeviceID. Functional (untimed) here; the timed switch calls resolve, queues the
// message on the output port, and calls deliver when it has crossed.
#include "switch-model/svc_internal.h"

static uint8_t device_id_of(const gb_svc *svc, uint8_t intf)
{
    if (intf == svc->cfg.ap_intf_id)
        return GB_SVC_DEVICE_ID_AP;
    const svc_intf *in = svc_intf_at_const(svc, intf);
    return in ? in->device_id : 0;
}

gb_svc_path_verdict gb_svc_path_resolve(gb_svc *svc, uint8_t src_intf, uint16_t src_cport,
                                        gb_svc_path *out)
{
    uint8_t dst_intf;
    uint16_t dst_cport;
    if (!gb_svc_conn_peer(svc->conns, src_intf, src_cport, &dst_intf, &dst_cport, NULL))
        return GB_SVC_PATH_NO_CONNECTION;
    gb_svc_path p = {
        .src_intf = src_intf, .src_cport = src_cport,
        .dst_intf = dst_intf, .dst_cport = dst_cport,
        .src_device_id = device_id_of(svc, src_intf),
        .dst_device_id = device_id_of(svc, dst_intf),
        .in_port = svc_port_of(svc, src_intf),
    };
    if (!p.src_device_id || !p.dst_device_id)
        return GB_SVC_PATH_NO_ROUTE;
    if (sw_route_resolve(svc->routes, p.in_port, p.dst_device_id, &p.out_port) !=
        SW_ROUTE_FORWARD)
        return GB_SVC_PATH_NO_ROUTE;
    const svc_intf *dst = svc_intf_at_const(svc, dst_intf);
    if (dst && !svc_intf_linked(dst))
        return GB_SVC_PATH_PEER_GONE;
    if (out)
        *out = p;
    return GB_SVC_PATH_OK;
}

void gb_svc_path_deliver(gb_svc *svc, const gb_svc_path *p, const uint8_t *msg, size_t len,
                         sim_time now)
{
    svc->now = now;
    if (p->dst_intf == svc->cfg.ap_intf_id) {
        svc->stats.forwarded_to_ap++;
        svc->env.to_ap(svc->env.ctx, p->dst_cport, msg, len);
        return;
    }
    svc_intf *dst = svc_intf_at(svc, p->dst_intf);
    if (!dst || !svc_intf_linked(dst)) { /* it went away while the message was in flight */
        svc->stats.dropped++;
        svc_log(svc, GB_SVC_LOG_WARN, "path: interface %u gone, %zu bytes for CPort %u dropped",
                p->dst_intf, len, p->dst_cport);
        return;
    }
    svc->stats.forwarded_to_intf++;
    dst->ops->receive(dst->self, p->dst_cport, msg, len, now);
}

void gb_svc_from_intf(gb_svc *svc, uint8_t intf_id, uint16_t cport, const uint8_t *msg,
                      size_t len, sim_time now)
{
    svc->now = now;
    gb_msg_header h;
    gb_svc_path p;
    gb_svc_path_verdict v = GB_SVC_PATH_BAD_MESSAGE;
    const svc_intf *src = svc_intf_at_const(svc, intf_id);
    if (!src || !src->present)
        v = GB_SVC_PATH_PEER_GONE;
    else if (gb_msg_header_decode(msg, len, &h) == 0)
        v = gb_svc_path_resolve(svc, intf_id, cport, &p);
    if (v != GB_SVC_PATH_OK) {
        svc->stats.dropped++;
        svc_log(svc, GB_SVC_LOG_WARN, "path: interface %u CPort %u: %zu bytes dropped (%s)",
                intf_id, cport, len, gb_svc_path_verdict_name(v));
        return;
    }
    gb_svc_path_send(svc, &p, msg, len, now);
}

void gb_svc_path_send(gb_svc *svc, const gb_svc_path *p, const uint8_t *msg, size_t len,
                      sim_time now)
{
    if (svc->env.transit)
        svc->env.transit(svc->env.ctx, p, msg, len, now);
    else
        gb_svc_path_deliver(svc, p, msg, len, now);
}

const char *gb_svc_path_verdict_name(gb_svc_path_verdict v)
{
    switch (v) {
    case GB_SVC_PATH_OK:
        return "ok";
    case GB_SVC_PATH_NO_CONNECTION:
        return "CPort in no connection";
    case GB_SVC_PATH_NO_ROUTE:
        return "switch has no route";
    case GB_SVC_PATH_PEER_GONE:
        return "peer interface not present or not linked";
    case GB_SVC_PATH_BAD_MESSAGE:
        return "not a valid Greybus message";
    }
    return "?";
}
