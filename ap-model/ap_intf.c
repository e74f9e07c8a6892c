// SPDX-License-Identifier: MIT
// Modules, interfaces and bundles as drivers/greybus/{module,interface,control,core,bundle}.c
// bring them up and down, plus one functional request per class driver's probe.
#include "ap-model/ap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DME_T_TST_SRC_INCREMENT 0x4083u
#define DME_DDBL1_MANUFACTURERID 0x5003u
#define DME_DDBL1_PRODUCTID 0x5004u
#define DME_GMP_VID 0x6000u
#define DME_GMP_PID 0x6001u
#define DME_GMP_SN0 0x6002u
#define DME_GMP_SN1 0x6003u
#define DME_GMP_INIT_STATUS 0x6101u
#define TOSHIBA_DMID 0x0126u
#define TOSHIBA_ES2_BRIDGE_DPID 0x1000u

/* ---- SVC helpers of interface.c ---- */

static int intf_u8_op(tap *ap, uint8_t type, uint8_t intf_id, uint8_t *out)
{
    uint8_t r = 0xff;
    int ret = tap_svc_sync(ap, type, &intf_id, 1, &r, 1);
    if (out)
        *out = r;
    if (ret)
        return ret;
    if (r)
        tap_trace(ap, "svc %s %u result_code %u", tap_svc_type_name(type), intf_id, r);
    return r ? -EREMOTEIO : 0;
}

static int dme_get(tap *ap, uint8_t intf_id, uint16_t attr, uint32_t *value)
{
    uint8_t req[GB_SVC_DME_PEER_GET_SIZE], r[GB_SVC_DME_PEER_GET_RESP_SIZE];
    req[0] = intf_id;
    gb_put_le16(req + 1, attr);
    gb_put_le16(req + 3, 0);
    int ret = tap_svc_sync(ap, GB_SVC_TYPE_DME_PEER_GET, req, sizeof req, r, sizeof r);
    if (ret)
        return ret;
    if (gb_get_le16(r)) {
        tap_trace(ap, "svc: UniPro error while getting DME attribute (%u 0x%04x): %u", intf_id,
                  attr, gb_get_le16(r));
        return -EREMOTEIO;
    }
    *value = gb_get_le32(r + 2);
    return 0;
}

static int dme_set(tap *ap, uint8_t intf_id, uint16_t attr, uint32_t value)
{
    uint8_t req[GB_SVC_DME_PEER_SET_SIZE], r[GB_SVC_DME_PEER_SET_RESP_SIZE];
    req[0] = intf_id;
    gb_put_le16(req + 1, attr);
    gb_put_le16(req + 3, 0);
    gb_put_le32(req + 5, value);
    int ret = tap_svc_sync(ap, GB_SVC_TYPE_DME_PEER_SET, req, sizeof req, r, sizeof r);
    if (ret)
        return ret;
    return gb_get_le16(r) ? -EREMOTEIO : 0;
}

static int hibernate_link(tap *ap, tap_intf *in)
{
    uint8_t req[GB_SVC_INTF_SET_PWRM_SIZE];
    memset(req, 0, sizeof req);
    req[0] = in->id;
    req[1] = 1;
    req[2] = GB_SVC_UNIPRO_HIBERNATE_MODE;
    req[7] = GB_SVC_UNIPRO_HIBERNATE_MODE;
    uint8_t r = 0xff;
    int ret = tap_svc_sync(ap, GB_SVC_TYPE_INTF_SET_PWRM, req, sizeof req, &r, 1);
    if (ret)
        return ret;
    return r == GB_SVC_SETPWRM_PWR_OK ? 0 : -EIO;
}

/* ---- activation ---- */

static int read_dme(tap *ap, tap_intf *in)
{
    if (in->dme_read)
        return 0;
    int ret = dme_get(ap, in->id, DME_DDBL1_MANUFACTURERID, &in->ddbl1_mfr);
    if (!ret)
        ret = dme_get(ap, in->id, DME_DDBL1_PRODUCTID, &in->ddbl1_prod);
    if (ret)
        return ret;
    if (in->ddbl1_mfr == TOSHIBA_DMID && in->ddbl1_prod == TOSHIBA_ES2_BRIDGE_DPID)
        in->quirks |= TAPQ_NO_GMP_IDS | TAPQ_NO_INIT_STATUS;
    if (in->ddbl1_mfr != TOSHIBA_DMID) {
        tap_trace(ap, "intf %u: unknown manufacturer %08x", in->id, in->ddbl1_mfr);
        return -ENODEV;
    }
    uint32_t sn0 = 0, sn1 = 0;
    ret = dme_get(ap, in->id, DME_GMP_VID, &in->vendor_id);
    if (!ret)
        ret = dme_get(ap, in->id, DME_GMP_PID, &in->product_id);
    if (!ret)
        ret = dme_get(ap, in->id, DME_GMP_SN0, &sn0);
    if (!ret)
        ret = dme_get(ap, in->id, DME_GMP_SN1, &sn1);
    if (ret)
        return ret;
    in->serial = (uint64_t)sn1 << 32 | sn0;
    in->dme_read = true;
    return 0;
}

static int route_create(tap *ap, tap_intf *in)
{
    int dev = -1;
    for (int d = GB_SVC_DEVICE_ID_MIN; d <= (int)GB_SVC_DEVICE_ID_MAX; d++)
        if (!(ap->device_ids & (1u << d))) {
            dev = d;
            break;
        }
    if (dev < 0)
        return -ENOSPC;
    ap->device_ids |= 1u << dev;
    uint8_t req[4] = { in->id, (uint8_t)dev };
    int ret = tap_svc_sync(ap, GB_SVC_TYPE_INTF_DEVICE_ID, req, 2, NULL, 0);
    if (!ret) {
        uint8_t rc[4] = { ap->ap_intf_id, GB_SVC_DEVICE_ID_AP, in->id, (uint8_t)dev };
        ret = tap_svc_sync(ap, GB_SVC_TYPE_ROUTE_CREATE, rc, 4, NULL, 0);
    }
    if (ret) {
        ap->device_ids &= ~(1u << dev);
        return ret;
    }
    in->device_id = (uint8_t)dev;
    return 0;
}

static void route_destroy(tap *ap, tap_intf *in)
{
    if (!in->device_id)
        return;
    uint8_t req[2] = { ap->ap_intf_id, in->id };
    tap_svc_sync(ap, GB_SVC_TYPE_ROUTE_DESTROY, req, 2, NULL, 0);
    ap->device_ids &= ~(1u << in->device_id);
    in->device_id = 0;
}

static int activate_once(tap *ap, tap_intf *in, uint8_t *type)
{
    *type = GB_SVC_INTF_TYPE_UNKNOWN;
    if (in->ejected || in->removed)
        return -ENODEV;
    int ret = intf_u8_op(ap, GB_SVC_TYPE_INTF_VSYS_ENABLE, in->id, NULL);
    if (ret)
        return ret;
    ret = intf_u8_op(ap, GB_SVC_TYPE_INTF_REFCLK_ENABLE, in->id, NULL);
    if (ret)
        goto vsys_off;
    ret = intf_u8_op(ap, GB_SVC_TYPE_INTF_UNIPRO_ENABLE, in->id, NULL);
    if (ret)
        goto refclk_off;
    uint8_t r[2] = { 0xff, 0xff };
    ret = tap_svc_sync(ap, GB_SVC_TYPE_INTF_ACTIVATE, &in->id, 1, r, 2);
    if (!ret && r[0] != GB_SVC_OP_SUCCESS) {
        tap_trace(ap, "svc: failed to activate interface %u: %u", in->id, r[0]);
        ret = -EREMOTEIO;
    }
    if (!ret) {
        switch (r[1]) {
        case GB_SVC_INTF_TYPE_DUMMY:
            *type = GB_SVC_INTF_TYPE_DUMMY;
            ret = -ENODEV;
            break;
        case GB_SVC_INTF_TYPE_UNIPRO:
            *type = GB_SVC_INTF_TYPE_UNIPRO;
            tap_trace(ap, "intf %u: interface type UniPro not supported", in->id);
            ret = -ENODEV;
            break;
        case GB_SVC_INTF_TYPE_GREYBUS:
            *type = GB_SVC_INTF_TYPE_GREYBUS;
            break;
        default:
            tap_trace(ap, "intf %u: unknown interface type: %u", in->id, r[1]);
            ret = -ENODEV;
        }
    }
    if (ret) {
        if (*type == GB_SVC_INTF_TYPE_UNIPRO || *type == GB_SVC_INTF_TYPE_GREYBUS)
            goto hibernate;
        goto unipro_off;
    }
    ret = read_dme(ap, in);
    if (!ret)
        ret = route_create(ap, in);
    if (ret)
        goto hibernate;
    in->active = true;
    return 0;
hibernate:
    hibernate_link(ap, in);
unipro_off:
    intf_u8_op(ap, GB_SVC_TYPE_INTF_UNIPRO_DISABLE, in->id, NULL);
refclk_off:
    intf_u8_op(ap, GB_SVC_TYPE_INTF_REFCLK_DISABLE, in->id, NULL);
vsys_off:
    intf_u8_op(ap, GB_SVC_TYPE_INTF_VSYS_DISABLE, in->id, NULL);
    return ret;
}

int tap_intf_activate(tap *ap, tap_intf *in)
{
    uint8_t type = GB_SVC_INTF_TYPE_UNKNOWN;
    int ret;
    if (in->type == 0xff || in->type == GB_SVC_INTF_TYPE_GREYBUS) {
        for (int retries = 3; retries--;) {
            ret = activate_once(ap, in, &type);
            if (ret == -ENODEV && type == GB_SVC_INTF_TYPE_UNIPRO)
                continue;
            break;
        }
    } else {
        ret = activate_once(ap, in, &type);
    }
    if (in->type != 0xff) {
        if (type != in->type) {
            tap_trace(ap, "intf %u: failed to detect interface type", in->id);
            if (!ret)
                tap_intf_deactivate(ap, in);
            ret = -EIO;
        }
    } else {
        in->type = type;
    }
    in->activate_error = ret;
    return ret;
}

void tap_intf_deactivate(tap *ap, tap_intf *in)
{
    if (!in->active)
        return;
    route_destroy(ap, in);
    hibernate_link(ap, in);
    intf_u8_op(ap, GB_SVC_TYPE_INTF_UNIPRO_DISABLE, in->id, NULL);
    intf_u8_op(ap, GB_SVC_TYPE_INTF_REFCLK_DISABLE, in->id, NULL);
    intf_u8_op(ap, GB_SVC_TYPE_INTF_VSYS_DISABLE, in->id, NULL);
    in->active = false;
}

/* ---- control operations ---- */

static int control_op(tap *ap, tap_intf *in, uint8_t type, const void *req, size_t req_len,
                      void *resp, size_t resp_len, const char *name)
{
    if (!in->control_hd_cport)
        return -ENOTCONN;
    int ret = tap_op_sync(ap, &ap->conns[in->control_hd_cport], type, req, req_len, resp,
                          resp_len, false, SIM_MS(1000));
    char what[96];
    snprintf(what, sizeof what, "ctl %u %s -> %d", in->id, name, ret);
    tap_trace(ap, "%s", what);
    tap_step(ap, what);
    return ret;
}

static int pm_status(tap *ap, tap_intf *in, uint8_t type, uint8_t bundle, bool with_bundle,
                     const char *name)
{
    uint8_t st = 0xff;
    int ret = control_op(ap, in, type, &bundle, with_bundle ? 1 : 0, &st, 1, name);
    if (ret)
        return ret;
    if (!st)
        return 0;
    tap_trace(ap, "intf %u: %s status %u", in->id, name, st);
    /* 6.1 maps the two status sets differently (docs/greybus.md, "Control protocol") */
    if (with_bundle)
        return st == GB_CONTROL_BUNDLE_PM_INVAL  ? -EINVAL
               : st == GB_CONTROL_BUNDLE_PM_BUSY ? -EBUSY
               : st == GB_CONTROL_BUNDLE_PM_NA   ? -ENOMSG
                                                 : -EREMOTEIO;
    return st == GB_CONTROL_INTF_PM_BUSY ? -EBUSY
           : st == GB_CONTROL_INTF_PM_NA ? -ENOMSG
                                         : -EREMOTEIO;
}

/* ---- class drivers ---- */

static bool class_has_driver(uint8_t class_id)
{
    switch (class_id) {
    case GB_CLASS_BRIDGED_PHY:
    case GB_CLASS_HID:
    case GB_CLASS_POWER_SUPPLY:
    case GB_CLASS_VIBRATOR:
    case GB_CLASS_LOOPBACK:
    case GB_CLASS_LIGHTS:
    case GB_CLASS_LOG:
    case GB_CLASS_RAW:
        return true;
    }
    return false;
}

static bool protocol_has_handler(uint8_t protocol)
{
    switch (protocol) {
    case GB_PROTOCOL_GPIO:
    case GB_PROTOCOL_UART:
    case GB_PROTOCOL_SDIO:
    case GB_PROTOCOL_HID:
    case GB_PROTOCOL_POWER_SUPPLY:
    case GB_PROTOCOL_LIGHTS:
    case GB_PROTOCOL_LOOPBACK:
    case GB_PROTOCOL_LOG:
    case GB_PROTOCOL_RAW:
        return true;
    }
    return false;
}

/* The first request each driver's probe makes (or a typical one): type, request, size of
 * the response the driver expects. Returns false for protocols without one. */
static bool functional_request(uint8_t protocol, uint8_t *type, uint8_t *req, size_t *req_len,
                               size_t *resp_len)
{
    *req_len = 0;
    *resp_len = 0;
    switch (protocol) {
    case GB_PROTOCOL_GPIO:
        *type = GB_GPIO_TYPE_LINE_COUNT;
        *resp_len = 1;
        return true;
    case GB_PROTOCOL_I2C:
        *type = GB_I2C_TYPE_FUNCTIONALITY;
        *resp_len = 4;
        return true;
    case GB_PROTOCOL_UART:
        *type = GB_UART_TYPE_SET_LINE_CODING;
        gb_put_le32(req, 115200);
        req[4] = 0; /* 1 stop bit */
        req[5] = 0; /* no parity */
        req[6] = 8;
        req[7] = 0; /* no flow control */
        *req_len = 8;
        return true;
    case GB_PROTOCOL_HID:
        *type = GB_HID_TYPE_GET_DESC;
        *resp_len = 10;
        return true;
    case GB_PROTOCOL_POWER_SUPPLY:
        *type = GB_POWER_SUPPLY_TYPE_GET_SUPPLIES;
        *resp_len = 1;
        return true;
    case GB_PROTOCOL_VIBRATOR:
        *type = GB_VIBRATOR_TYPE_OFF;
        return true;
    case GB_PROTOCOL_LOOPBACK:
        *type = GB_LOOPBACK_TYPE_PING;
        return true;
    case GB_PROTOCOL_LIGHTS:
        *type = GB_LIGHTS_TYPE_GET_LIGHTS;
        *resp_len = 1;
        return true;
    }
    return false;
}

int tap_functional(tap *ap, uint8_t intf_id, uint16_t cport)
{
    uint16_t hd = tap_hd_cport(ap, intf_id, cport);
    if (!hd)
        return -ENOTCONN;
    tap_conn *c = &ap->conns[hd];
    uint8_t type, req[16], resp[16];
    size_t req_len, resp_len;
    if (!functional_request(c->protocol, &type, req, &req_len, &resp_len))
        return -EOPNOTSUPP;
    int ret = tap_op_sync(ap, c, type, req, req_len, resp, resp_len, false, SIM_MS(1000));
    char what[96];
    snprintf(what, sizeof what, "cport %u proto 0x%02x op 0x%02x -> %d", hd, c->protocol, type,
             ret);
    tap_trace(ap, "%s", what);
    tap_step(ap, what);
    if (!ret)
        ap->functional_ok[c->protocol]++;
    return ret;
}

static void bundle_conns_disable(tap *ap, tap_intf *in, tap_bundle *b, bool destroy)
{
    for (unsigned i = 0; i < b->ncports; i++) {
        if (!b->hd_cports[i])
            continue;
        tap_conn *c = &ap->conns[b->hd_cports[i]];
        if (in->disconnected)
            tap_conn_disable_forced(ap, in, c);
        else
            tap_conn_disable(ap, in, c);
        if (destroy) {
            tap_conn_destroy(ap, c);
            b->hd_cports[i] = 0;
        }
    }
}

static int bundle_conns_enable(tap *ap, tap_intf *in, tap_bundle *b)
{
    for (unsigned i = 0; i < b->ncports; i++) {
        if (!b->hd_cports[i])
            continue;
        int ret = tap_conn_enable(ap, in, &ap->conns[b->hd_cports[i]], true);
        if (ret)
            return ret;
    }
    return 0;
}

static void bundle_probe(tap *ap, tap_intf *in, unsigned bi)
{
    tap_bundle *b = &in->bundles[bi];
    if (!class_has_driver(b->class_id))
        return;
    if (!(in->quirks & TAPQ_NO_BUNDLE_ACTIVATE) &&
        pm_status(ap, in, GB_CONTROL_TYPE_BUNDLE_ACTIVATE, b->id, true, "BUNDLE_ACTIVATE"))
        return;
    int ret = 0;
    for (unsigned i = 0; i < b->ncports && !ret; i++) {
        tap_conn *c = tap_conn_create(ap, in, b->cports[i], false,
                                      protocol_has_handler(b->protocols[i]), (int)bi,
                                      b->protocols[i]);
        if (!c) {
            ret = -EBUSY;
            break;
        }
        b->hd_cports[i] = c->hd_cport;
        ret = tap_conn_enable(ap, in, c, true);
        if (!ret) {
            int f = tap_functional(ap, in->id, b->cports[i]);
            if (f && f != -EOPNOTSUPP)
                ret = f;
        }
    }
    if (ret) {
        tap_trace(ap, "bundle %u.%u: driver probe failed: %d", in->id, b->id, ret);
        bundle_conns_disable(ap, in, b, true);
        pm_status(ap, in, GB_CONTROL_TYPE_BUNDLE_DEACTIVATE, b->id, true, "BUNDLE_DEACTIVATE");
        return;
    }
    b->bound = true;
}

static void bundle_remove(tap *ap, tap_intf *in, tap_bundle *b)
{
    if (!b->bound)
        return;
    if (b->suspended)
        tap_bundle_resume(ap, in->id, b->id);
    bundle_conns_disable(ap, in, b, true);
    if (!in->disconnected)
        pm_status(ap, in, GB_CONTROL_TYPE_BUNDLE_DEACTIVATE, b->id, true, "BUNDLE_DEACTIVATE");
    b->bound = false;
}

/* ---- enable / disable ---- */

static int read_and_clear_init_status(tap *ap, tap_intf *in)
{
    uint16_t attr = (in->quirks & TAPQ_NO_INIT_STATUS) ? DME_T_TST_SRC_INCREMENT
                                                        : DME_GMP_INIT_STATUS;
    uint32_t value = 0;
    int ret = dme_get(ap, in->id, attr, &value);
    if (ret)
        return ret;
    if (!value) {
        tap_trace(ap, "intf %u: invalid init status", in->id);
        return -ENODEV;
    }
    uint8_t status = (in->quirks & TAPQ_NO_INIT_STATUS) ? (uint8_t)value : (uint8_t)(value >> 24);
    const uint32_t bootrom = TAPQ_NO_CPORT_FEATURES | TAPQ_FORCED_DISABLE |
                             TAPQ_LEGACY_MODE_SWITCH | TAPQ_NO_BUNDLE_ACTIVATE;
    switch (status) {
    case 0x06:
    case 0x09:
        in->quirks |= bootrom;
        break;
    case 0x0d:
        in->quirks = (in->quirks & ~bootrom) | TAPQ_NO_PM;
        break;
    default:
        in->quirks &= ~(bootrom | TAPQ_NO_PM);
    }
    return dme_set(ap, in->id, attr, 0);
}

static void control_teardown(tap *ap, tap_intf *in)
{
    if (!in->control_hd_cport)
        return;
    tap_conn *c = &ap->conns[in->control_hd_cport];
    if (in->disconnected)
        tap_conn_disable_forced(ap, in, c);
    else
        tap_conn_disable(ap, in, c);
    if (in->mode_switch)
        return; /* kept until the mailbox event (tap_mode_switch) */
    tap_conn_destroy(ap, c);
    in->control_hd_cport = 0;
}

static int parse_manifest(tap *ap, tap_intf *in, const uint8_t *data, size_t size)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    char name[32];
    snprintf(name, sizeof name, "intf%u", in->id);
    vm_manifest *m = vm_manifest_parse_binary(name, data, size, d);
    if (!m) {
        tap_trace(ap, "intf %u: failed to parse manifest (%s)", in->id,
                  d && vm_manifest_diags_count(d) ? vm_manifest_diags_message(d, 0) : "?");
        vm_manifest_diags_free(d);
        return -EINVAL;
    }
    vm_manifest_diags_free(d);
    in->nbundles = 0;
    for (size_t b = 0; b < vm_manifest_bundle_count(m) && b < TAP_MAX_BUNDLES; b++) {
        tap_bundle *tb = &in->bundles[in->nbundles++];
        memset(tb, 0, sizeof *tb);
        tb->id = vm_manifest_bundle_id(m, b);
        tb->class_id = vm_manifest_bundle_class(m, b);
        for (size_t i = 0; i < vm_manifest_bundle_cport_count(m, b) && tb->ncports < 16; i++) {
            size_t ci = vm_manifest_bundle_cport(m, b, i);
            tb->cports[tb->ncports] = vm_manifest_cport_id(m, ci);
            tb->protocols[tb->ncports] = vm_manifest_cport_protocol(m, ci);
            tb->ncports++;
        }
    }
    vm_manifest_free(m);
    return 0;
}

int tap_intf_enable(tap *ap, tap_intf *in)
{
    int ret = read_and_clear_init_status(ap, in);
    if (ret) {
        tap_trace(ap, "intf %u: failed to clear init status: %d", in->id, ret);
        return in->enable_error = ret;
    }
    tap_conn *ctl = tap_conn_create(ap, in, 0, true, false, -1, GB_PROTOCOL_CONTROL);
    if (!ctl)
        return in->enable_error = -EBUSY;
    in->control_hd_cport = ctl->hd_cport;
    ret = tap_conn_enable(ap, in, ctl, false);
    if (ret) {
        tap_conn_destroy(ap, ctl);
        in->control_hd_cport = 0;
        return in->enable_error = ret;
    }
    uint8_t ver[2] = { 0, 1 }, vr[2];
    ret = control_op(ap, in, GB_CONTROL_TYPE_VERSION, ver, 2, vr, 2, "VERSION");
    if (!ret && vr[0] > 0)
        ret = -524; /* -ENOTSUPP */
    uint8_t *manifest = NULL;
    if (!ret) {
        in->control_major = vr[0];
        in->control_minor = vr[1];
        uint8_t sz[2];
        ret = control_op(ap, in, GB_CONTROL_TYPE_GET_MANIFEST_SIZE, NULL, 0, sz, 2,
                         "GET_MANIFEST_SIZE");
        size_t size = ret ? 0 : gb_get_le16(sz);
        if (!ret && size == 0)
            ret = -EINVAL;
        if (!ret) {
            manifest = malloc(size);
            ret = manifest ? control_op(ap, in, GB_CONTROL_TYPE_GET_MANIFEST, NULL, 0, manifest,
                                        size, "GET_MANIFEST")
                           : -ENOMEM;
        }
        if (!ret)
            ret = parse_manifest(ap, in, manifest, size);
    }
    free(manifest);
    if (!ret && (in->control_major > 0 || in->control_minor > 1)) {
        for (unsigned b = in->nbundles; b-- > 0 && !ret;) {
            uint8_t r[2];
            ret = control_op(ap, in, GB_CONTROL_TYPE_BUNDLE_VERSION, &in->bundles[b].id, 1, r,
                             2, "BUNDLE_VERSION");
        }
    }
    if (ret) {
        in->nbundles = 0;
        control_teardown(ap, in);
        return in->enable_error = ret;
    }
    in->enabled = true;
    in->enable_error = 0;
    for (unsigned b = 0; b < in->nbundles; b++)
        bundle_probe(ap, in, b);
    return 0;
}

void tap_intf_disable(tap *ap, tap_intf *in)
{
    if (!in->enabled)
        return;
    if (in->suspended)
        tap_intf_resume(ap, in->id);
    if (in->quirks & TAPQ_FORCED_DISABLE)
        in->disconnected = true;
    for (unsigned b = in->nbundles; b-- > 0;)
        bundle_remove(ap, in, &in->bundles[b]);
    if (!in->mode_switch && !in->disconnected)
        pm_status(ap, in, GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE, 0, false,
                  "INTF_DEACTIVATE_PREPARE");
    control_teardown(ap, in);
    in->nbundles = 0;
    in->enabled = false;
    in->suspended = false;
}

/* ---- modules (module.c) ---- */

static void register_interface(tap *ap, tap_intf *in)
{
    int ret = tap_intf_activate(ap, in);
    if (ret) {
        if (in->type != GB_SVC_INTF_TYPE_DUMMY)
            tap_trace(ap, "module: failed to activate interface %u: %d", in->id, ret);
        in->registered = true;
        tap_trace(ap, "intf %u: Interface added (activation failed)", in->id);
        return;
    }
    in->registered = true;
    tap_trace(ap, "intf %u: Interface added, VID=0x%08x PID=0x%08x", in->id, in->vendor_id,
              in->product_id);
    ret = tap_intf_enable(ap, in);
    if (ret) {
        tap_trace(ap, "module: failed to enable interface %u: %d", in->id, ret);
        tap_intf_deactivate(ap, in);
    }
}

void tap_module_inserted(tap *ap, uint8_t id, uint8_t count, uint16_t flags)
{
    if (flags & GB_SVC_MODULE_INSERTED_FLAG_NO_PRIMARY)
        tap_trace(ap, "svc: no primary interface detected on module %u", id);
    if (tap_find_module(ap, id)) {
        tap_trace(ap, "svc: unexpected module-inserted event %u", id);
        return;
    }
    tap_module *m = NULL;
    for (unsigned i = 0; i < TAP_MAX_MODULES && !m; i++)
        if (!ap->modules[i].used)
            m = &ap->modules[i];
    if (!m || count == 0 || count > TAP_MAX_MODULE_INTFS) {
        tap_trace(ap, "svc: failed to create module %u", id);
        return;
    }
    tap_intf *intfs = calloc(count, sizeof *intfs);
    if (!intfs) {
        tap_trace(ap, "svc: failed to create module %u: out of memory", id);
        return;
    }
    free(m->intfs);
    memset(m, 0, sizeof *m);
    m->intfs = intfs;
    m->used = true;
    m->id = id;
    m->num = count;
    for (unsigned i = 0; i < count; i++) {
        m->intfs[i].id = (uint8_t)(id + i);
        m->intfs[i].type = 0xff;
    }
    tap_trace(ap, "module %u added", id);
    for (unsigned i = 0; i < count; i++)
        register_interface(ap, &m->intfs[i]);
}

static void deregister_interface(tap *ap, tap_module *m, tap_intf *in)
{
    if (m->disconnected)
        in->disconnected = true;
    in->removed = true;
    tap_intf_disable(ap, in);
    tap_intf_deactivate(ap, in);
    if (in->registered)
        tap_trace(ap, "intf %u: Interface removed", in->id);
    in->registered = false;
}

static void module_del(tap *ap, tap_module *m)
{
    for (unsigned i = 0; i < m->num; i++)
        deregister_interface(ap, m, &m->intfs[i]);
    tap_trace(ap, "module %u removed", m->id);
    m->used = false;
}

void tap_module_removed(tap *ap, uint8_t id)
{
    tap_module *m = tap_find_module(ap, id);
    if (!m) {
        tap_trace(ap, "svc: unexpected module-removed event %u", id);
        return;
    }
    m->disconnected = true;
    module_del(ap, m);
}

void tap_intf_mailbox(tap *ap, uint8_t intf_id, uint16_t result, uint32_t mailbox)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in) {
        tap_trace(ap, "svc: unexpected mailbox event %u", intf_id);
        return;
    }
    if (!result && mailbox == GB_SVC_INTF_MAILBOX_GREYBUS && in->mode_switch) {
        tap_trace(ap, "intf %u: mode switch detected", intf_id);
        in->mode_switch_done = true;
        return;
    }
    {
        tap_trace(ap, "intf %u: unexpected mailbox event 0x%08x (result %u)", intf_id, mailbox,
                  result);
        tap_intf_disable(ap, in);
        tap_intf_deactivate(ap, in);
    }
}

void tap_intf_oops(tap *ap, uint8_t intf_id, uint8_t reason)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in) {
        tap_trace(ap, "svc: unexpected interface-oops event %u", intf_id);
        return;
    }
    tap_trace(ap, "svc: Deactivating interface %u, interface oops reason = %u", intf_id, reason);
    in->disconnected = true;
    tap_intf_disable(ap, in);
    tap_intf_deactivate(ap, in);
}

/* ---- runtime PM (bundle.c, interface.c, control.c) ---- */

static tap_bundle *find_bundle(tap_intf *in, uint8_t bundle_id)
{
    for (unsigned b = 0; b < in->nbundles; b++)
        if (in->bundles[b].id == bundle_id)
            return &in->bundles[b];
    return NULL;
}

int tap_bundle_suspend(tap *ap, uint8_t intf_id, uint8_t bundle_id)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    tap_bundle *b = in ? find_bundle(in, bundle_id) : NULL;
    if (!b || !b->bound || in->suspended)
        return -EINVAL;
    if (b->suspended)
        return 0;
    bundle_conns_disable(ap, in, b, false);
    int ret = pm_status(ap, in, GB_CONTROL_TYPE_BUNDLE_SUSPEND, bundle_id, true,
                        "BUNDLE_SUSPEND");
    if (ret) {
        bundle_conns_enable(ap, in, b);
        return ret;
    }
    b->suspended = true;
    return 0;
}

int tap_bundle_resume(tap *ap, uint8_t intf_id, uint8_t bundle_id)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    tap_bundle *b = in ? find_bundle(in, bundle_id) : NULL;
    if (!b || !b->bound)
        return -EINVAL;
    if (!b->suspended)
        return 0;
    if (in->suspended) {
        int r = tap_intf_resume(ap, intf_id);
        if (r)
            return r;
    }
    int ret = pm_status(ap, in, GB_CONTROL_TYPE_BUNDLE_RESUME, bundle_id, true, "BUNDLE_RESUME");
    if (ret)
        return ret;
    ret = bundle_conns_enable(ap, in, b);
    if (ret)
        return ret;
    b->suspended = false;
    return 0;
}

int tap_bundle_bind(tap *ap, uint8_t intf_id, uint8_t bundle_id, uint8_t protocol)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    tap_bundle *b = in ? find_bundle(in, bundle_id) : NULL;
    if (!b || !in->enabled || in->suspended)
        return -EINVAL;
    /* a bound bundle takes another protocol's CPorts (gb-audio: management, then data) */
    bool more = false;
    for (unsigned i = 0; b->bound && i < b->ncports; i++)
        more |= b->protocols[i] == protocol && !b->hd_cports[i];
    if (b->bound && !more)
        return -EBUSY;
    if (!b->bound && !(in->quirks & TAPQ_NO_BUNDLE_ACTIVATE)) {
        int ret = pm_status(ap, in, GB_CONTROL_TYPE_BUNDLE_ACTIVATE, b->id, true,
                            "BUNDLE_ACTIVATE");
        if (ret)
            return ret;
    }
    int ret = -ENOENT;
    for (unsigned i = 0; i < b->ncports; i++) {
        if (b->protocols[i] != protocol)
            continue;
        tap_conn *c = tap_conn_create(ap, in, b->cports[i], false, true, (int)(b - in->bundles),
                                      protocol);
        if (!c) {
            ret = -EBUSY;
            break;
        }
        b->hd_cports[i] = c->hd_cport;
        ret = tap_conn_enable(ap, in, c, true);
        if (ret)
            break;
    }
    if (ret && b->bound) {
        tap_trace(ap, "bundle %u.%u: protocol 0x%02x's CPorts failed: %d", in->id, b->id,
                  protocol, ret);
        return ret;
    }
    if (ret) {
        tap_trace(ap, "bundle %u.%u: bind failed: %d", in->id, b->id, ret);
        bundle_conns_disable(ap, in, b, true);
        pm_status(ap, in, GB_CONTROL_TYPE_BUNDLE_DEACTIVATE, b->id, true, "BUNDLE_DEACTIVATE");
        return ret;
    }
    tap_trace(ap, "bundle %u.%u: bound by the test (protocol 0x%02x)", in->id, b->id, protocol);
    b->bound = true;
    return 0;
}

int tap_intf_suspend(tap *ap, uint8_t intf_id)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in || !in->enabled || in->suspended)
        return -EINVAL;
    for (unsigned b = 0; b < in->nbundles; b++)
        if (in->bundles[b].bound && !in->bundles[b].suspended)
            return -EBUSY;
    int ret = pm_status(ap, in, GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE, 0, false,
                        "INTF_SUSPEND_PREPARE");
    if (ret)
        return ret;
    tap_conn_disable(ap, in, &ap->conns[in->control_hd_cport]);
    ret = hibernate_link(ap, in);
    if (ret)
        return ret;
    ap->now += SIM_MS(20); /* GB_INTERFACE_SUSPEND_HIBERNATE_DELAY_MS */
    ret = intf_u8_op(ap, GB_SVC_TYPE_INTF_REFCLK_DISABLE, in->id, NULL);
    if (ret)
        return ret;
    in->suspended = true;
    return 0;
}

int tap_intf_resume(tap *ap, uint8_t intf_id)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in || !in->suspended)
        return -EINVAL;
    int ret = intf_u8_op(ap, GB_SVC_TYPE_INTF_REFCLK_ENABLE, in->id, NULL);
    if (ret)
        return ret;
    uint8_t st = 0xff;
    ret = tap_svc_sync(ap, GB_SVC_TYPE_INTF_RESUME, &in->id, 1, &st, 1);
    if (!ret && st)
        ret = -EREMOTEIO;
    if (ret)
        return ret;
    ret = tap_conn_enable(ap, in, &ap->conns[in->control_hd_cport], false);
    if (ret)
        return ret;
    in->suspended = false;
    return 0;
}

int tap_runtime_suspend_all(tap *ap, uint8_t intf_id)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in)
        return -EINVAL;
    for (unsigned b = 0; b < in->nbundles; b++) {
        if (!in->bundles[b].bound)
            continue;
        ap->now += SIM_MS(3000);
        int ret = tap_bundle_suspend(ap, intf_id, in->bundles[b].id);
        if (ret)
            return ret;
    }
    ap->now += SIM_MS(3000);
    return tap_intf_suspend(ap, intf_id);
}

/* ---- sysfs ---- */

int tap_eject(tap *ap, uint8_t module_id)
{
    tap_module *m = tap_find_module(ap, module_id);
    if (!m)
        return -ENODEV;
    for (unsigned i = 0; i < m->num; i++) {
        tap_intf *in = &m->intfs[i];
        tap_intf_disable(ap, in);
        tap_intf_deactivate(ap, in);
        in->ejected = true;
    }
    int ret = tap_svc_sync(ap, GB_SVC_TYPE_INTF_EJECT, &module_id, 1, NULL, 0);
    tap_run(ap);
    return ret;
}

int tap_power_state(tap *ap, uint8_t intf_id, bool on)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in)
        return -ENODEV;
    if (on == in->active)
        return 0;
    if (!on) {
        tap_intf_disable(ap, in);
        tap_intf_deactivate(ap, in);
        return 0;
    }
    int ret = tap_intf_activate(ap, in);
    if (ret)
        return ret;
    ret = tap_intf_enable(ap, in);
    if (ret)
        tap_intf_deactivate(ap, in);
    return ret;
}

/* interface.c: gb_interface_request_mode_switch + gb_interface_mode_switch_work. */
int tap_mode_switch(tap *ap, uint8_t intf_id)
{
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in || !in->enabled)
        return -EINVAL;
    in->mode_switch = true;
    in->mode_switch_done = false;
    uint16_t ctl = in->control_hd_cport;
    tap_intf_disable(ap, in); /* bundles, then the control connection up to MODE_SWITCH */
    for (int i = 0; i < 100 && !in->mode_switch_done; i++) {
        size_t before = tap_trace_count(ap);
        tap_run(ap); /* the mailbox event arrives on the SVC connection */
        if (tap_trace_count(ap) == before && !in->mode_switch_done)
            break;
    }
    tap_conn_mode_switch_complete(ap, in, &ap->conns[ctl]);
    tap_conn_destroy(ap, &ap->conns[ctl]);
    in->control_hd_cport = 0;
    in->mode_switch = false;
    if (!in->mode_switch_done) {
        ap->now += SIM_MS(2000);
        tap_trace(ap, "intf %u: mode switch timed out", intf_id);
        tap_intf_deactivate(ap, in);
        return -ETIMEDOUT;
    }
    int ret = tap_intf_enable(ap, in);
    if (ret) {
        tap_trace(ap, "intf %u: failed to re-enable interface: %d", intf_id, ret);
        tap_intf_deactivate(ap, in);
    }
    return ret;
}
