// SPDX-License-Identifier: MIT
// The AP's requests to the SVC (docs/svc.md), with the response sizes
// Linux 6.1 checks exactly. Conventions: a request naming an interface id outside the
// frame, or too short, fails with GB_OP_INVALID; an interface position whose module is
// gone answers the way a real SVC would (status "not detected", power "fail") so that the
// AP fails fast, while teardown requests (disable, destroy, hibernate) always succeed.
#include "switch-model/svc_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DME_RESULT_PEER_COMM_FAILURE 8u
#define DME_N_DEVICEID 0x3000u
#define DME_N_DEVICEID_VALID 0x3001u

static int reply(gb_svc *svc, const gb_msg_header *h, const void *p, size_t n)
{
    svc_send_response(svc, h, GB_OP_SUCCESS, p, n);
    return 0;
}

static int refuse(gb_svc *svc, const gb_msg_header *h, uint8_t result, const char *why)
{
    svc->stats.ap_bad_requests++;
    svc_log(svc, SW_LOG_WARN, "svc: request 0x%02x refused (%s): %s", h->type,
            gb_result_name(result), why);
    svc_send_response(svc, h, result, NULL, 0);
    return 0;
}

static int reply_u8(gb_svc *svc, const gb_msg_header *h, uint8_t v)
{
    return reply(svc, h, &v, 1);
}

/* ---- device ids and routes ---- */

static bool device_id_routed(const gb_svc *svc, uint8_t dev)
{
    for (size_t i = 0; i < svc->route_count; i++)
        if (svc->route_list[i].dev1 == dev || svc->route_list[i].dev2 == dev)
            return true;
    return false;
}

static int intf_device_id(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    uint8_t intf_id = p[0], dev = p[1];
    svc_intf *in = svc_intf_at(svc, intf_id);
    if (!in)
        return refuse(svc, h, GB_OP_INVALID, "INTF_DEVICE_ID for an interface outside the frame");
    if (!in->present)
        return refuse(svc, h, GB_OP_INVALID, "INTF_DEVICE_ID for an empty slot");
    if (dev < GB_SVC_DEVICE_ID_MIN || dev > GB_SVC_DEVICE_ID_MAX)
        return refuse(svc, h, GB_OP_INVALID, "device id outside 2..31");
    for (unsigned s = 0; s < svc->cfg.num_slots; s++) {
        svc_intf *o = &svc->intfs[s];
        if (o == in || o->device_id != dev)
            continue;
        if (device_id_routed(svc, dev))
            return refuse(svc, h, GB_OP_INVALID, "device id in use by a routed interface");
        svc_set_device_id(svc, gb_svc_slot_intf_id(svc, s), o, 0); /* the AP reassigned an
                                                                    * id it freed */
    }
    svc_set_device_id(svc, intf_id, in, dev);
    /* Program the bridge's N_DeviceID as Ara's SVC did; interfaces without the attribute
     * still work, since the routing table is what carries the traffic here. */
    uint32_t failed = in->ops->dme_set(in->self, DME_N_DEVICEID, 0, dev) |
                      in->ops->dme_set(in->self, DME_N_DEVICEID_VALID, 0, 1);
    svc_log(svc, SW_LOG_INFO, "svc: interface %u gets device id %u%s", intf_id, dev,
            failed ? " (interface has no N_DeviceID attribute)" : "");
    return reply(svc, h, NULL, 0);
}

static int route_create(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    uint8_t i1 = p[0], d1 = p[1], i2 = p[2], d2 = p[3];
    if (!svc_intf_known(svc, i1) || !svc_intf_known(svc, i2) || i1 == i2)
        return refuse(svc, h, GB_OP_INVALID, "ROUTE_CREATE names unknown interfaces");
    const svc_intf *a = svc_intf_at(svc, i1), *b = svc_intf_at(svc, i2);
    if ((a && !a->present) || (b && !b->present))
        return refuse(svc, h, GB_OP_INVALID, "ROUTE_CREATE to an empty slot");
    if ((a && a->device_id != d1) || (b && b->device_id != d2) ||
        (i1 == svc->cfg.ap_intf_id && d1 != GB_SVC_DEVICE_ID_AP) ||
        (i2 == svc->cfg.ap_intf_id && d2 != GB_SVC_DEVICE_ID_AP))
        svc_log(svc, SW_LOG_WARN, "svc: ROUTE_CREATE device ids %u/%u differ from those "
                "assigned to interfaces %u/%u", d1, d2, i1, i2);
    if (svc->route_count == SVC_ROUTES_MAX)
        return refuse(svc, h, GB_OP_NO_MEMORY, "route list full");
    if (sw_route_pair_create(sw_fabric_routes(svc->fabric), d1, svc_port_of(svc, i1), d2,
                             svc_port_of(svc, i2)))
        return refuse(svc, h, GB_OP_INVALID, "device id out of range for the switch");
    for (size_t i = 0; i < svc->route_count; i++) {
        svc_route *r = &svc->route_list[i];
        if ((r->intf1 == i1 && r->intf2 == i2) || (r->intf1 == i2 && r->intf2 == i1)) {
            *r = (svc_route){ i1, d1, i2, d2 };
            goto done;
        }
    }
    svc->route_list[svc->route_count++] = (svc_route){ i1, d1, i2, d2 };
done:
    svc_log(svc, SW_LOG_INFO, "svc: route %u (dev %u) <-> %u (dev %u)", i1, d1, i2, d2);
    return reply(svc, h, NULL, 0);
}

static int route_destroy(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    uint8_t i1 = p[0], i2 = p[1];
    for (size_t i = 0; i < svc->route_count; i++) {
        svc_route r = svc->route_list[i];
        if ((r.intf1 == i1 && r.intf2 == i2) || (r.intf1 == i2 && r.intf2 == i1)) {
            sw_route_pair_destroy(sw_fabric_routes(svc->fabric), r.dev1,
                                  svc_port_of(svc, r.intf1), r.dev2, svc_port_of(svc, r.intf2));
            /* The bridges keep their N_DeviceID; only the switch forgets the route, so
             * traffic still addressed to it is dropped (and counted) by the switch. */
            svc->route_list[i] = svc->route_list[--svc->route_count];
            svc_log(svc, SW_LOG_INFO, "svc: route %u <-> %u destroyed", i1, i2);
            return reply(svc, h, NULL, 0);
        }
    }
    return refuse(svc, h, GB_OP_INVALID, "ROUTE_DESTROY for a route that does not exist");
}

/* ---- connections ---- */

static const char *conn_end_problem(gb_svc *svc, uint8_t intf, uint16_t cport)
{
    if (intf == svc->cfg.ap_intf_id) {
        if (cport == 0)
            return "hd CPort 0 is the SVC's static connection";
        if (cport >= svc->cfg.ap_cport_count)
            return "hd CPort beyond the AP bridge's CPort count";
        return NULL;
    }
    svc_intf *in = svc_intf_at(svc, intf);
    if (!in)
        return "interface outside the frame";
    if (!in->present)
        return "no module in that slot";
    if (!svc_intf_linked(in))
        return "interface not activated (or hibernated)";
    if (!in->device_id)
        return "interface has no device id";
    return NULL;
}

static uint8_t dev_of(const gb_svc *svc, uint8_t intf)
{
    if (intf == svc->cfg.ap_intf_id)
        return GB_SVC_DEVICE_ID_AP;
    const svc_intf *in = svc_intf_at_const(svc, intf);
    return in ? in->device_id : 0;
}

static int conn_create(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    /* interface ids are switch ports (svc_port_of) */
    sw_conn c = {
        .port1 = p[0], .cport1 = gb_get_le16(p + 1), .port2 = p[3],
        .cport2 = gb_get_le16(p + 4), .tc = p[6], .flags = p[7],
    };
    const char *why = conn_end_problem(svc, c.port1, c.cport1);
    if (!why)
        why = conn_end_problem(svc, c.port2, c.cport2);
    if (!why && c.tc > 1)
        why = "traffic class other than 0 or 1";
    if (!why && c.port1 == c.port2)
        why = "both ends on the same interface";
    if (!why && !sw_route_allowed(sw_fabric_routes(svc->fabric), svc_port_of(svc, c.port1),
                                  dev_of(svc, c.port2)))
        why = "no route between the two interfaces";
    if (why) {
        char msg[160];
        snprintf(msg, sizeof msg, "CONN_CREATE %u:%u <-> %u:%u: %s", c.port1, c.cport1,
                 c.port2, c.cport2, why);
        return refuse(svc, h, GB_OP_INVALID, msg);
    }
    int rc = sw_fabric_connect(svc->fabric, &c);
    if (rc)
        return refuse(svc, h, rc == -ENOSPC ? GB_OP_NO_MEMORY : GB_OP_INVALID,
                      rc == -ENOSPC ? "connection table full" : "CPort already connected");
    const uint8_t ends[2] = { c.port1, c.port2 };
    const uint16_t cps[2] = { c.cport1, c.cport2 }, peers[2] = { c.cport2, c.cport1 };
    for (int e = 0; e < 2; e++) {
        svc_intf *in = svc_intf_at(svc, ends[e]);
        if (!in)
            continue;
        rc = in->ops->cport_connect(in->self, cps[e], dev_of(svc, ends[1 - e]), peers[e],
                                    c.tc, c.flags, svc->now);
        if (rc) {
            if (e == 1) {
                svc_intf *first = svc_intf_at(svc, ends[0]);
                if (first)
                    first->ops->cport_disconnect(first->self, cps[0], svc->now);
            }
            sw_fabric_disconnect(svc->fabric, c.port1, c.cport1, c.port2, c.cport2);
            char msg[96];
            snprintf(msg, sizeof msg, "interface %u refused CPort %u (%s)", ends[e], cps[e],
                     rc == -ENOENT ? "no such CPort" : "busy");
            return refuse(svc, h, GB_OP_INVALID, msg);
        }
    }
    svc_log(svc, SW_LOG_INFO, "svc: connection %u:%u <-> %u:%u (tc %u, flags 0x%02x)",
            c.port1, c.cport1, c.port2, c.cport2, c.tc, c.flags);
    return reply(svc, h, NULL, 0);
}

static int conn_destroy(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    uint8_t i1 = p[0], i2 = p[3];
    uint16_t c1 = gb_get_le16(p + 1), c2 = gb_get_le16(p + 4);
    if (sw_fabric_disconnect(svc->fabric, i1, c1, i2, c2))
        return refuse(svc, h, GB_OP_INVALID, "CONN_DESTROY for a connection that does not exist");
    svc_intf *a = svc_intf_at(svc, i1), *b = svc_intf_at(svc, i2);
    if (a && a->present)
        a->ops->cport_disconnect(a->self, c1, svc->now);
    if (b && b->present)
        b->ops->cport_disconnect(b->self, c2, svc->now);
    svc_log(svc, SW_LOG_INFO, "svc: connection %u:%u <-> %u:%u destroyed", i1, c1, i2, c2);
    return reply(svc, h, NULL, 0);
}

/* ---- DME ---- */

static int dme_peer_get(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    uint8_t intf_id = p[0];
    uint16_t attr = gb_get_le16(p + 1), sel = gb_get_le16(p + 3);
    svc_intf *in = svc_intf_at(svc, intf_id);
    if (!in)
        return refuse(svc, h, GB_OP_INVALID, "DME_PEER_GET for an interface outside the frame");
    uint32_t value = 0;
    uint16_t result = DME_RESULT_PEER_COMM_FAILURE;
    if (svc_intf_linked(in))
        result = in->ops->dme_get(in->self, attr, sel, &value);
    svc_log(svc, result ? SW_LOG_WARN : SW_LOG_DEBUG,
            "svc: DME peer get %u 0x%04x[%u] -> result %u value 0x%08x", intf_id, attr, sel,
            result, value);
    uint8_t r[GB_SVC_DME_PEER_GET_RESP_SIZE];
    gb_put_le16(r, result);
    gb_put_le32(r + 2, result ? 0 : value);
    return reply(svc, h, r, sizeof r);
}

static int dme_peer_set(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    uint8_t intf_id = p[0];
    uint16_t attr = gb_get_le16(p + 1), sel = gb_get_le16(p + 3);
    uint32_t value = gb_get_le32(p + 5);
    svc_intf *in = svc_intf_at(svc, intf_id);
    if (!in)
        return refuse(svc, h, GB_OP_INVALID, "DME_PEER_SET for an interface outside the frame");
    uint16_t result = DME_RESULT_PEER_COMM_FAILURE;
    if (svc_intf_linked(in))
        result = in->ops->dme_set(in->self, attr, sel, value);
    svc_log(svc, result ? SW_LOG_WARN : SW_LOG_DEBUG,
            "svc: DME peer set %u 0x%04x[%u] = 0x%08x -> result %u", intf_id, attr, sel, value,
            result);
    uint8_t r[GB_SVC_DME_PEER_SET_RESP_SIZE];
    gb_put_le16(r, result);
    return reply(svc, h, r, sizeof r);
}

/* ---- power ---- */

static bool pwrm_mode_ok(uint8_t mode)
{
    switch (mode) {
    case GB_SVC_UNIPRO_FAST_MODE:
    case GB_SVC_UNIPRO_SLOW_MODE:
    case GB_SVC_UNIPRO_FAST_AUTO_MODE:
    case GB_SVC_UNIPRO_SLOW_AUTO_MODE:
    case GB_SVC_UNIPRO_MODE_UNCHANGED:
    case GB_SVC_UNIPRO_OFF_MODE:
        return true;
    }
    return false;
}

static bool pwrm_dir_ok(uint8_t mode, uint8_t gear, uint8_t lanes)
{
    if (!pwrm_mode_ok(mode))
        return false;
    if (mode == GB_SVC_UNIPRO_MODE_UNCHANGED || mode == GB_SVC_UNIPRO_OFF_MODE)
        return true;
    bool hs = mode == GB_SVC_UNIPRO_FAST_MODE || mode == GB_SVC_UNIPRO_FAST_AUTO_MODE;
    return lanes >= 1 && lanes <= 2 && gear >= 1 && gear <= (hs ? 3 : 7);
}

static int set_pwrm(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    uint8_t intf_id = p[0], series = p[1], tx_mode = p[2], rx_mode = p[7];
    svc_intf *in = svc_intf_at(svc, intf_id);
    if (!in && intf_id != svc->cfg.ap_intf_id)
        return refuse(svc, h, GB_OP_INVALID, "INTF_SET_PWRM for an unknown interface");
    uint8_t *record = in ? in->pwrm : svc->ap_pwrm;
    bool *recorded = in ? &in->pwrm_set : &svc->ap_pwrm_set;
    uint8_t result;
    if (tx_mode == GB_SVC_UNIPRO_HIBERNATE_MODE && rx_mode == GB_SVC_UNIPRO_HIBERNATE_MODE) {
        result = GB_SVC_SETPWRM_PWR_OK;
        if (in && in->present && !in->hibernated) {
            in->hibernated = true;
            svc_intf_power(svc, in, GB_SVC_PWR_HIBERNATE);
        }
        svc_log(svc, SW_LOG_INFO, "svc: link of interface %u hibernated", intf_id);
    } else if (in && !in->present) {
        result = GB_SVC_SETPWRM_PWR_BUSY;
    } else if (series < 1 || series > 2 || !pwrm_dir_ok(tx_mode, p[3], p[4]) ||
               !pwrm_dir_ok(rx_mode, p[8], p[9])) {
        result = GB_SVC_SETPWRM_PWR_ERROR_CAP;
    } else {
        /* Success for a power mode change is PWR_LOCAL: the one the 6.1 AP checks for. */
        result = GB_SVC_SETPWRM_PWR_LOCAL;
        svc_log(svc, SW_LOG_INFO, "svc: link of interface %u: tx mode 0x%02x gear %u x%u, "
                "rx mode 0x%02x gear %u x%u, series %c", intf_id, tx_mode, p[3], p[4], rx_mode,
                p[8], p[9], series == 2 ? 'B' : 'A');
    }
    if (result == GB_SVC_SETPWRM_PWR_OK || result == GB_SVC_SETPWRM_PWR_LOCAL) {
        memcpy(record, p, GB_SVC_INTF_SET_PWRM_SIZE);
        *recorded = true;
        int rc = sw_fabric_power_mode(svc->fabric, svc_port_of(svc, intf_id), p,
                                      GB_SVC_INTF_SET_PWRM_SIZE);
        if (rc)
            svc_log(svc, SW_LOG_WARN, "timing: link of interface %u keeps its mode (%s)",
                    intf_id, strerror(-rc));
    } else {
        svc_log(svc, SW_LOG_WARN, "svc: INTF_SET_PWRM on interface %u refused (code %u)",
                intf_id, result);
    }
    return reply_u8(svc, h, result);
}

/* VSYS / REFCLK / UNIPRO enable and disable: result_code u8. */
static int intf_power(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    svc_intf *in = svc_intf_at(svc, p[0]);
    if (!in)
        return refuse(svc, h, GB_OP_INVALID, "power request for an interface outside the frame");
    bool *flag;
    bool on;
    gb_svc_power_event ev;
    const char *what;
    switch (h->type) {
    case GB_SVC_TYPE_INTF_VSYS_ENABLE:
    case GB_SVC_TYPE_INTF_VSYS_DISABLE:
        flag = &in->vsys;
        on = h->type == GB_SVC_TYPE_INTF_VSYS_ENABLE;
        ev = on ? GB_SVC_PWR_VSYS_ON : GB_SVC_PWR_VSYS_OFF;
        what = "V_SYS";
        break;
    case GB_SVC_TYPE_INTF_REFCLK_ENABLE:
    case GB_SVC_TYPE_INTF_REFCLK_DISABLE:
        flag = &in->refclk;
        on = h->type == GB_SVC_TYPE_INTF_REFCLK_ENABLE;
        ev = on ? GB_SVC_PWR_REFCLK_ON : GB_SVC_PWR_REFCLK_OFF;
        what = "REFCLK";
        break;
    default:
        flag = &in->unipro;
        on = h->type == GB_SVC_TYPE_INTF_UNIPRO_ENABLE;
        ev = on ? GB_SVC_PWR_UNIPRO_ON : GB_SVC_PWR_UNIPRO_OFF;
        what = "UniPro";
        break;
    }
    if (on && !in->present) {
        svc_log(svc, SW_LOG_WARN, "svc: %s enable on interface %u: no module", what, p[0]);
        return reply_u8(svc, h, GB_SVC_INTF_POWER_FAIL);
    }
    if (on && flag == &in->unipro && !in->vsys) {
        svc_log(svc, SW_LOG_WARN, "svc: UniPro enable on interface %u without V_SYS", p[0]);
        return reply_u8(svc, h, GB_SVC_INTF_POWER_FAIL);
    }
    if (*flag != on) {
        *flag = on;
        if (!on && flag != &in->refclk) {
            in->active = false; /* power or link gone: the interface must be activated again */
            in->hibernated = false;
        }
        svc_intf_power(svc, in, ev);
    }
    svc_log(svc, SW_LOG_INFO, "svc: interface %u %s %s", p[0], what, on ? "on" : "off");
    return reply_u8(svc, h, GB_SVC_INTF_POWER_OK);
}

static const char *type_name(uint8_t t)
{
    switch (t) {
    case GB_SVC_INTF_TYPE_DUMMY:
        return "dummy";
    case GB_SVC_INTF_TYPE_UNIPRO:
        return "unipro";
    case GB_SVC_INTF_TYPE_GREYBUS:
        return "greybus";
    }
    return "unknown";
}

static int intf_activate(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    svc_intf *in = svc_intf_at(svc, p[0]);
    if (!in)
        return refuse(svc, h, GB_OP_INVALID, "INTF_ACTIVATE for an interface outside the frame");
    uint8_t r[GB_SVC_INTF_ACTIVATE_RESP_SIZE] = { GB_SVC_OP_SUCCESS, GB_SVC_INTF_TYPE_UNKNOWN };
    if (!in->present)
        r[0] = GB_SVC_INTF_NOT_DETECTED;
    else if (!in->vsys)
        r[0] = GB_SVC_INTF_NO_V_SYS;
    else if (!in->refclk)
        r[0] = GB_SVC_INTF_NO_REFCLK;
    else if (!in->unipro)
        r[0] = GB_SVC_INTF_NO_UPRO_LINK;
    if (r[0]) {
        svc_log(svc, SW_LOG_WARN, "svc: interface %u cannot be activated (status %u)", p[0],
                r[0]);
        return reply(svc, h, r, sizeof r);
    }
    r[1] = in->ops->intf_type(in->self);
    in->hibernated = false;
    /* A dummy interface has no UniPro link: it stays inactive. */
    in->active = r[1] == GB_SVC_INTF_TYPE_GREYBUS || r[1] == GB_SVC_INTF_TYPE_UNIPRO;
    in->activations++;
    if (r[1] == GB_SVC_INTF_TYPE_GREYBUS)
        svc_intf_power(svc, in, GB_SVC_PWR_ACTIVATE);
    svc_log(svc, SW_LOG_INFO, "svc: interface %u activated, type %s", p[0], type_name(r[1]));
    return reply(svc, h, r, sizeof r);
}

static int intf_resume(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    svc_intf *in = svc_intf_at(svc, p[0]);
    if (!in)
        return refuse(svc, h, GB_OP_INVALID, "INTF_RESUME for an interface outside the frame");
    uint8_t status = GB_SVC_OP_SUCCESS;
    if (!in->present)
        status = GB_SVC_INTF_NOT_DETECTED;
    else if (!in->vsys)
        status = GB_SVC_INTF_NO_V_SYS;
    else if (!in->refclk)
        status = GB_SVC_INTF_NO_REFCLK;
    else if (!in->unipro || !in->active)
        status = GB_SVC_INTF_NO_UPRO_LINK;
    if (status == GB_SVC_OP_SUCCESS) {
        if (in->hibernated) {
            in->hibernated = false;
            svc_intf_power(svc, in, GB_SVC_PWR_RESUME);
        }
        in->resumes++;
        svc_log(svc, SW_LOG_INFO, "svc: interface %u resumed", p[0]);
    } else {
        svc_log(svc, SW_LOG_WARN, "svc: interface %u cannot resume (status %u)", p[0], status);
    }
    return reply_u8(svc, h, status);
}

static int intf_eject(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    svc_intf *in = svc_intf_at(svc, p[0]);
    if (!in || !in->present)
        return refuse(svc, h, GB_OP_INVALID, "INTF_EJECT: no module at that interface");
    unsigned slot = in->module_slot;
    svc_log(svc, SW_LOG_INFO, "svc: ejecting module %s (interface %u)",
            svc->modules[slot].name, p[0]);
    reply(svc, h, NULL, 0);
    svc_slot_release(svc, slot, true);
    return 0;
}

/* ---- dispatch ---- */

typedef struct op_entry {
    uint8_t type;
    uint8_t min_size;
    const char *name;
    int (*fn)(gb_svc *svc, const gb_msg_header *h, const uint8_t *payload);
} op_entry;

static int ping(gb_svc *svc, const gb_msg_header *h, const uint8_t *p)
{
    (void)p;
    svc->stats.pings++;
    svc->last_ping = svc->now;
    svc->watchdog_warned = false;
    return reply(svc, h, NULL, 0);
}

static const op_entry ops[] = {
    { GB_SVC_TYPE_INTF_DEVICE_ID, GB_SVC_INTF_DEVICE_ID_SIZE, "INTF_DEVICE_ID", intf_device_id },
    { GB_SVC_TYPE_CONN_CREATE, GB_SVC_CONN_CREATE_SIZE, "CONN_CREATE", conn_create },
    { GB_SVC_TYPE_CONN_DESTROY, GB_SVC_CONN_DESTROY_SIZE, "CONN_DESTROY", conn_destroy },
    { GB_SVC_TYPE_DME_PEER_GET, GB_SVC_DME_PEER_GET_SIZE, "DME_PEER_GET", dme_peer_get },
    { GB_SVC_TYPE_DME_PEER_SET, GB_SVC_DME_PEER_SET_SIZE, "DME_PEER_SET", dme_peer_set },
    { GB_SVC_TYPE_ROUTE_CREATE, GB_SVC_ROUTE_CREATE_SIZE, "ROUTE_CREATE", route_create },
    { GB_SVC_TYPE_ROUTE_DESTROY, GB_SVC_ROUTE_DESTROY_SIZE, "ROUTE_DESTROY", route_destroy },
    { GB_SVC_TYPE_INTF_SET_PWRM, GB_SVC_INTF_SET_PWRM_SIZE, "INTF_SET_PWRM", set_pwrm },
    { GB_SVC_TYPE_INTF_EJECT, GB_SVC_INTF_ID_SIZE, "INTF_EJECT", intf_eject },
    { GB_SVC_TYPE_PING, 0, "PING", ping },
    { GB_SVC_TYPE_INTF_VSYS_ENABLE, GB_SVC_INTF_ID_SIZE, "INTF_VSYS_ENABLE", intf_power },
    { GB_SVC_TYPE_INTF_VSYS_DISABLE, GB_SVC_INTF_ID_SIZE, "INTF_VSYS_DISABLE", intf_power },
    { GB_SVC_TYPE_INTF_REFCLK_ENABLE, GB_SVC_INTF_ID_SIZE, "INTF_REFCLK_ENABLE", intf_power },
    { GB_SVC_TYPE_INTF_REFCLK_DISABLE, GB_SVC_INTF_ID_SIZE, "INTF_REFCLK_DISABLE", intf_power },
    { GB_SVC_TYPE_INTF_UNIPRO_ENABLE, GB_SVC_INTF_ID_SIZE, "INTF_UNIPRO_ENABLE", intf_power },
    { GB_SVC_TYPE_INTF_UNIPRO_DISABLE, GB_SVC_INTF_ID_SIZE, "INTF_UNIPRO_DISABLE", intf_power },
    { GB_SVC_TYPE_INTF_ACTIVATE, GB_SVC_INTF_ID_SIZE, "INTF_ACTIVATE", intf_activate },
    { GB_SVC_TYPE_INTF_RESUME, GB_SVC_INTF_ID_SIZE, "INTF_RESUME", intf_resume },
};

static bool is_timesync(uint8_t t)
{
    return (t >= GB_SVC_TYPE_TIMESYNC_ENABLE && t <= GB_SVC_TYPE_TIMESYNC_AUTHORITATIVE) ||
           (t >= GB_SVC_TYPE_TIMESYNC_WAKE_PINS_ACQUIRE && t <= GB_SVC_TYPE_TIMESYNC_PING);
}

void svc_handle_request(gb_svc *svc, const gb_msg_header *h, const uint8_t *payload,
                        size_t plen)
{
    svc->stats.ap_requests++;
    if (h->operation_id == 0) {
        svc->stats.ap_bad_requests++;
        svc_log(svc, SW_LOG_WARN, "svc: unidirectional request 0x%02x ignored (the SVC "
                "protocol has none)", h->type);
        return;
    }
    if (h->type == GB_SVC_TYPE_PWRMON_RAIL_COUNT_GET ||
        h->type == GB_SVC_TYPE_PWRMON_RAIL_NAMES_GET ||
        h->type == GB_SVC_TYPE_PWRMON_SAMPLE_GET ||
        h->type == GB_SVC_TYPE_PWRMON_INTF_SAMPLE_GET)
    {
        svc_pwrmon_request(svc, h, payload, plen);
        return;
    }
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (ops[i].type != h->type)
            continue;
        if (plen < ops[i].min_size) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s payload of %zu bytes, needs %u", ops[i].name, plen,
                     ops[i].min_size);
            refuse(svc, h, GB_OP_INVALID, msg);
            return;
        }
        if (h->type != GB_SVC_TYPE_PING)
            svc_log(svc, SW_LOG_DEBUG, "svc: <- %s", ops[i].name);
        ops[i].fn(svc, h, payload);
        return;
    }
    if (is_timesync(h->type))
        refuse(svc, h, GB_OP_PROTOCOL_BAD, "TimeSync operations are not driven by Linux 6.1 "
               "and not modelled");
    else if (GB_SVC_AP_HANDLES(h->type))
        refuse(svc, h, GB_OP_INVALID, "this request type goes from the SVC to the AP");
    else
        refuse(svc, h, GB_OP_PROTOCOL_BAD, "unknown SVC operation type");
}
