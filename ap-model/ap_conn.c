// SPDX-License-Identifier: MIT
// Connections as drivers/greybus/connection.c creates, enables and disables them
// (docs/greybus.md, "Connection life cycle"), including the control-protocol messages
// about them.
#include "ap-model/ap_internal.h"

#include <stdio.h>
#include <string.h>

tap_conn *tap_conn_create(tap *ap, tap_intf *in, uint16_t intf_cport, bool control,
                          bool handler, int bundle, uint8_t protocol)
{
    for (unsigned c = 1; c < TAP_MAX_CPORTS; c++) {
        if (ap->conns[c].used && ap->conns[c].intf_id == in->id &&
            ap->conns[c].intf_cport == intf_cport) {
            tap_trace(ap, "intf %u: cport %u already in use", in->id, intf_cport);
            return NULL;
        }
    }
    int hd = tap_hd_cport_allocate(ap);
    if (hd < 0) {
        tap_trace(ap, "hd: failed to allocate cport: %d", hd);
        return NULL;
    }
    tap_conn *c = &ap->conns[hd];
    unsigned cycle = 0; /* a new connection object starts its operation ids afresh */
    memset(c, 0, sizeof *c);
    c->cycle = cycle;
    c->used = true;
    c->hd_cport = (uint16_t)hd;
    c->intf_id = in->id;
    c->intf_cport = intf_cport;
    c->control = control;
    c->has_handler = handler;
    c->bundle = bundle;
    c->protocol = protocol;
    c->state = TAP_CONN_DISABLED;
    return c;
}

void tap_conn_destroy(tap *ap, tap_conn *c)
{
    (void)ap;
    c->used = false;
    c->state = TAP_CONN_DISABLED;
}

static tap_conn *control_of(tap *ap, tap_intf *in)
{
    return in->control_hd_cport ? &ap->conns[in->control_hd_cport] : NULL;
}

/* A control operation about another CPort (CONNECTED / DISCONNECTING / DISCONNECTED). */
static int control_cport_op(tap *ap, tap_intf *in, uint8_t type, uint16_t cport, bool core,
                            const char *name)
{
    tap_conn *ctl = control_of(ap, in);
    if (!ctl)
        return -ENOTCONN;
    uint8_t req[2];
    gb_put_le16(req, cport);
    int ret = tap_op_sync(ap, ctl, type, req, sizeof req, NULL, 0, core, SIM_MS(1000));
    char what[96];
    snprintf(what, sizeof what, "ctl %u %s %u -> %d", in->id, name, cport, ret);
    tap_trace(ap, "%s", what);
    tap_step(ap, what);
    return ret;
}

static int shutdown_op(tap *ap, tap_conn *c, uint8_t phase)
{
    int ret = tap_op_sync(ap, c, GB_REQUEST_TYPE_CPORT_SHUTDOWN, &phase, 1, NULL, 0, true,
                          SIM_MS(1000));
    tap_trace(ap, "cport %u SHUTDOWN phase %u -> %d", c->hd_cport, phase, ret);
    return ret;
}

static int svc_conn_create(tap *ap, tap_intf *in, tap_conn *c)
{
    uint8_t flags = GB_SVC_CPORT_FLAG_CSV_N;
    if (in->quirks & TAPQ_NO_CPORT_FEATURES)
        flags |= GB_SVC_CPORT_FLAG_CSD_N;
    else
        flags |= GB_SVC_CPORT_FLAG_CSD_N | GB_SVC_CPORT_FLAG_E2EFC;
    uint8_t req[GB_SVC_CONN_CREATE_SIZE];
    req[0] = ap->ap_intf_id;
    gb_put_le16(req + 1, c->hd_cport);
    req[3] = in->id;
    gb_put_le16(req + 4, c->intf_cport);
    req[6] = 0;
    req[7] = flags;
    return tap_svc_sync(ap, GB_SVC_TYPE_CONN_CREATE, req, sizeof req, NULL, 0);
}

static void svc_conn_destroy(tap *ap, tap_intf *in, tap_conn *c)
{
    uint8_t req[GB_SVC_CONN_DESTROY_SIZE];
    req[0] = ap->ap_intf_id;
    gb_put_le16(req + 1, c->hd_cport);
    req[3] = in->id;
    gb_put_le16(req + 4, c->intf_cport);
    tap_svc_sync(ap, GB_SVC_TYPE_CONN_DESTROY, req, sizeof req, NULL, 0);
}

int tap_conn_enable(tap *ap, tap_intf *in, tap_conn *c, bool rx)
{
    if (c->state == TAP_CONN_ENABLED)
        return 0;
    if (c->state == TAP_CONN_ENABLED_TX) {
        if (c->has_handler && rx)
            c->state = TAP_CONN_ENABLED;
        return 0;
    }
    tap_cport_flags(ap, c->hd_cport, c->control ? 0x3u : 0x0u);
    int ret = svc_conn_create(ap, in, c);
    if (ret) {
        tap_arpc(ap, "CLEAR", c->hd_cport);
        return ret;
    }
    tap_arpc(ap, "CONNECTED", c->hd_cport);
    c->state = c->has_handler && rx ? TAP_CONN_ENABLED : TAP_CONN_ENABLED_TX;
    if (!c->control) {
        ret = control_cport_op(ap, in, GB_CONTROL_TYPE_CONNECTED, c->intf_cport, false,
                               "CONNECTED");
        if (ret) {
            c->state = TAP_CONN_DISCONNECTING;
            tap_arpc(ap, "FLUSH", c->hd_cport);
            control_cport_op(ap, in, GB_CONTROL_TYPE_DISCONNECTING, c->intf_cport, true,
                             "DISCONNECTING");
            shutdown_op(ap, c, 1);
            tap_arpc(ap, "QUIESCE", c->hd_cport);
            shutdown_op(ap, c, 2);
            control_cport_op(ap, in, GB_CONTROL_TYPE_DISCONNECTED, c->intf_cport, false,
                             "DISCONNECTED");
            c->state = TAP_CONN_DISABLED;
            svc_conn_destroy(ap, in, c);
            tap_arpc(ap, "CLEAR", c->hd_cport);
            return ret;
        }
    }
    return 0;
}

void tap_conn_disable(tap *ap, tap_intf *in, tap_conn *c)
{
    if (c->state == TAP_CONN_DISABLED)
        return;
    c->state = TAP_CONN_DISCONNECTING;
    tap_arpc(ap, "FLUSH", c->hd_cport);
    control_cport_op(ap, in, GB_CONTROL_TYPE_DISCONNECTING, c->intf_cport, true,
                     "DISCONNECTING");
    shutdown_op(ap, c, 1);
    tap_arpc(ap, "QUIESCE", c->hd_cport);
    shutdown_op(ap, c, 2);
    if (!c->control)
        control_cport_op(ap, in, GB_CONTROL_TYPE_DISCONNECTED, c->intf_cport, false,
                         "DISCONNECTED");
    if (c->control && in->mode_switch) {
        /* unidirectional MODE_SWITCH instead of DISCONNECTED; the SVC connection is torn
         * down only once the mailbox event arrived (gb_connection_mode_switch_complete) */
        uint8_t buf[GB_MSG_HEADER_SIZE];
        size_t n = gb_msg_build(buf, sizeof buf, 0, GB_CONTROL_TYPE_MODE_SWITCH, 0, NULL, 0);
        tap_trace(ap, "ctl %u MODE_SWITCH (unidirectional)", in->id);
        tap_send_raw(ap, c->hd_cport, buf, n);
        c->state = TAP_CONN_DISABLED;
        return;
    }
    c->state = TAP_CONN_DISABLED;
    svc_conn_destroy(ap, in, c);
    tap_arpc(ap, "CLEAR", c->hd_cport);
}

void tap_conn_mode_switch_complete(tap *ap, tap_intf *in, tap_conn *c)
{
    svc_conn_destroy(ap, in, c);
    tap_arpc(ap, "CLEAR", c->hd_cport);
}

void tap_conn_disable_forced(tap *ap, tap_intf *in, tap_conn *c)
{
    if (c->state == TAP_CONN_DISABLED)
        return;
    c->state = TAP_CONN_DISABLED;
    tap_arpc(ap, "FLUSH", c->hd_cport);
    svc_conn_destroy(ap, in, c);
    tap_arpc(ap, "CLEAR", c->hd_cport);
}
