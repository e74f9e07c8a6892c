// SPDX-License-Identifier: MIT
// The test AP's core: the host device (hd CPorts), the inbox, synchronous operations with
// the 6.1 AP's response checks, the SVC connection's request handler and work queue, time.
#include "ap-model/ap_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define TAP_TIMEOUT_DEFAULT SIM_MS(1000)
#define TAP_STEP SIM_US(20)

/* ---- trace ---- */

void tap_trace(tap *ap, const char *fmt, ...)
{
    char line[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    if (ap->ntrace == ap->trace_cap) {
        size_t cap = ap->trace_cap ? ap->trace_cap * 2 : 256;
        char **t = realloc(ap->trace, cap * sizeof *t);
        if (!t)
            return;
        ap->trace = t;
        ap->trace_cap = cap;
    }
    ap->trace[ap->ntrace] = strdup(line);
    if (ap->trace[ap->ntrace])
        ap->ntrace++;
    if (ap->cfg.verbose)
        fprintf(stderr, "[%10.6f] ap: %s\n", (double)ap->now / 1e12, line);
}

size_t tap_trace_count(const tap *ap)
{
    return ap->ntrace;
}

const char *tap_trace_line(const tap *ap, size_t i)
{
    return i < ap->ntrace ? ap->trace[i] : NULL;
}

long tap_trace_find(const tap *ap, size_t from, const char *needle)
{
    for (size_t i = from; i < ap->ntrace; i++)
        if (strstr(ap->trace[i], needle))
            return (long)i;
    return -1;
}

void tap_trace_clear(tap *ap)
{
    for (size_t i = 0; i < ap->ntrace; i++)
        free(ap->trace[i]);
    ap->ntrace = 0;
}

void tap_trace_dump(const tap *ap)
{
    for (size_t i = 0; i < ap->ntrace; i++)
        fprintf(stderr, "  %4zu %s\n", i, ap->trace[i]);
}

void tap_step(tap *ap, const char *what)
{
    if (ap->step_hook && !ap->in_hook) {
        ap->in_hook = true;
        ap->step_hook(ap->step_ctx, ap, what);
        ap->in_hook = false;
    }
}

void tap_set_step_hook(tap *ap, void (*hook)(void *ctx, tap *ap, const char *what), void *ctx)
{
    ap->step_hook = hook;
    ap->step_ctx = ctx;
}

/* ---- the bridge side ---- */

void tap_deliver(tap *ap, uint16_t hd_cport, const uint8_t *msg, size_t len)
{
    if (len > GB_MSG_MAX_SIZE || len < GB_MSG_HEADER_SIZE) {
        tap_trace(ap, "hd: message of %zu bytes on hd CPort %u dropped", len, hd_cport);
        return;
    }
    if (ap->in_count == ap->in_cap) {
        size_t cap = ap->in_cap ? ap->in_cap * 2 : 16;
        tap_msg *q = malloc(cap * sizeof *q);
        if (!q)
            return;
        for (size_t i = 0; i < ap->in_count; i++)
            q[i] = ap->inbox[(ap->in_head + i) % ap->in_cap];
        free(ap->inbox);
        ap->inbox = q;
        ap->in_cap = cap;
        ap->in_head = 0;
    }
    tap_msg *m = &ap->inbox[(ap->in_head + ap->in_count++) % ap->in_cap];
    m->cport = hd_cport;
    m->len = (uint16_t)len;
    memcpy(m->data, msg, len);
}

static void bridge_send(tap *ap, uint16_t cport, const uint8_t *msg, size_t len)
{
    ap->cfg.transport->send(ap->cfg.transport->ctx, cport, msg, len);
}

void tap_set_now(tap *ap, sim_time now)
{
    if (now > ap->now)
        ap->now = now;
}

tap *tap_new(const tap_config *cfg)
{
    if (!cfg->transport || !cfg->transport->send || !cfg->transport->pump)
        return NULL;
    tap *ap = calloc(1, sizeof *ap);
    if (!ap)
        return NULL;
    ap->cfg = *cfg;
    if (!ap->cfg.cport_count)
        ap->cfg.cport_count = 44;
    if (ap->cfg.cport_count > TAP_MAX_CPORTS - 1)
        ap->cfg.cport_count = TAP_MAX_CPORTS - 1;
    for (unsigned i = 0; i < TAP_MAX_CPORTS; i++)
        ap->conns[i].hd_cport = (uint16_t)i;
    return ap;
}

void tap_free(tap *ap)
{
    if (!ap)
        return;
    tap_trace_clear(ap);
    for (unsigned i = 0; i < TAP_MAX_MODULES; i++)
        free(ap->modules[i].intfs);
    free(ap->trace);
    free(ap->inbox);
    free(ap);
}

sim_time tap_now(const tap *ap)
{
    return ap->now;
}

int tap_hd_cport_allocate(tap *ap)
{
    for (unsigned c = 0; c < ap->cfg.cport_count; c++) {
        if (c == 16 || c == 17) /* CDSI0/CDSI1, reserved by es2.c */
            continue;
        if (!ap->conns[c].used)
            return (int)c;
    }
    return -ENOSPC;
}

void tap_arpc(tap *ap, const char *what, uint16_t cport)
{
    ap->arpc_id++;
    tap_trace(ap, "arpc %s %u", what, cport);
    if (ap->cfg.transport->cport_ctl)
        ap->cfg.transport->cport_ctl(ap->cfg.transport->ctx, what, cport, 0);
}

void tap_cport_flags(tap *ap, uint16_t cport, uint32_t flags)
{
    tap_trace(ap, "usb CPORT_FLAGS %u 0x%x", cport, flags);
    if (ap->cfg.transport->cport_ctl)
        ap->cfg.transport->cport_ctl(ap->cfg.transport->ctx, "FLAGS", cport, flags);
}

/* ---- errno mapping of operation.c ---- */

static int result_errno(uint8_t r)
{
    return gb_result_to_errno(r);
}

static uint8_t errno_result(int err)
{
    switch (err) {
    case 0:
        return GB_OP_SUCCESS;
    case -EINVAL:
        return GB_OP_INVALID;
    case -ENOMEM:
        return GB_OP_NO_MEMORY;
    case -EPROTONOSUPPORT:
        return GB_OP_PROTOCOL_BAD;
    case -EMSGSIZE:
        return GB_OP_OVERFLOW;
    case -ENODEV:
        return GB_OP_NONEXISTENT;
    case -EAGAIN:
        return GB_OP_RETRY;
    case -ETIMEDOUT:
        return GB_OP_TIMEOUT;
    }
    return GB_OP_UNKNOWN_ERROR;
}

/* ---- incoming messages ---- */

static void reply(tap *ap, uint16_t cport, const gb_msg_header *req, uint8_t result,
                  const void *payload, size_t plen)
{
    uint8_t buf[GB_MSG_MAX_SIZE];
    if (req->operation_id == 0)
        return;
    size_t n = gb_msg_build_response(buf, sizeof buf, req, result, payload, result ? 0 : plen);
    ap->now += TAP_STEP;
    bridge_send(ap, cport, buf, n);
}

static void queue_work(tap *ap, tap_work w)
{
    if (ap->work_count == sizeof ap->work / sizeof ap->work[0]) {
        tap_trace(ap, "svc: work queue full");
        return;
    }
    ap->work[(ap->work_head + ap->work_count++) % 64] = w;
}

/* svc.c: gb_svc_request_handler and its helpers. */
static void svc_request(tap *ap, const gb_msg_header *h, const uint8_t *p, size_t n)
{
    int ret = 0;
    uint8_t resp[2];
    size_t rlen = 0;
    bool ok_state = h->type == GB_SVC_TYPE_PROTOCOL_VERSION ? ap->svc_state == TAP_SVC_RESET
                    : h->type == GB_SVC_TYPE_SVC_HELLO      ? ap->svc_state == TAP_SVC_VERSION
                                                            : ap->svc_state == TAP_SVC_HELLO;
    if (!ok_state) {
        tap_trace(ap, "svc: unexpected request 0x%02x received (state %d)", h->type,
                  ap->svc_state);
        ret = -EINVAL;
        goto out;
    }
    switch (h->type) {
    case GB_SVC_TYPE_PROTOCOL_VERSION:
        if (n < 2) {
            ret = -EINVAL;
            break;
        }
        if (p[0] > GB_SVC_VERSION_MAJOR) {
            tap_trace(ap, "svc: unsupported major version %u", p[0]);
            ret = -524; /* -ENOTSUPP */
            break;
        }
        resp[0] = p[0];
        resp[1] = p[1];
        rlen = 2;
        ap->svc_state = TAP_SVC_VERSION;
        tap_trace(ap, "svc: version %u.%u", p[0], p[1]);
        break;
    case GB_SVC_TYPE_SVC_HELLO: {
        if (n < 3) {
            tap_trace(ap, "svc: short hello request (%zu < 3)", n);
            ret = -EINVAL;
            break;
        }
        ap->endo_id = gb_get_le16(p);
        ap->ap_intf_id = p[2];
        tap_trace(ap, "svc: hello endo 0x%04x ap_intf_id %u", ap->endo_id, ap->ap_intf_id);
        ap->watchdog = true;
        ap->next_ping = ap->now + SIM_MS(2000);
        queue_work(ap, (tap_work){ .kind = TAP_WORK_HELLO });
        uint8_t rails = 0;
        if (tap_svc_sync(ap, GB_SVC_TYPE_PWRMON_RAIL_COUNT_GET, NULL, 0, &rails, 1) == 0 &&
            rails >= 1 && rails <= GB_SVC_PWRMON_MAX_RAIL_COUNT) {
            size_t sz = 1 + (size_t)rails * GB_SVC_PWRMON_RAIL_NAME_BUFSIZE;
            uint8_t *names = calloc(1, sz);
            if (names && tap_svc_sync(ap, GB_SVC_TYPE_PWRMON_RAIL_NAMES_GET, NULL, 0, names,
                                      sz) == 0 && names[0] == 0)
                tap_trace(ap, "svc: pwrmon %u rails, first %.32s", rails, (char *)names + 1);
            free(names);
        }
        ap->svc_state = TAP_SVC_HELLO;
        break;
    }
    case GB_SVC_TYPE_INTF_RESET:
        if (n < 1)
            ret = -EINVAL;
        break;
    case GB_SVC_TYPE_MODULE_INSERTED:
        if (n < GB_SVC_MODULE_INSERTED_SIZE) {
            ret = -EINVAL;
            break;
        }
        tap_trace(ap, "svc: module inserted %u (%u interfaces)", p[0], p[1]);
        queue_work(ap, (tap_work){ .kind = TAP_WORK_INSERTED, .a = p[0], .b = p[1],
                                   .v = gb_get_le16(p + 2) });
        break;
    case GB_SVC_TYPE_MODULE_REMOVED:
        if (n < 1) {
            ret = -EINVAL;
            break;
        }
        tap_trace(ap, "svc: module removed %u", p[0]);
        queue_work(ap, (tap_work){ .kind = TAP_WORK_REMOVED, .a = p[0] });
        break;
    case GB_SVC_TYPE_INTF_MAILBOX_EVENT:
        if (n < GB_SVC_INTF_MAILBOX_EVENT_SIZE) {
            ret = -EINVAL;
            break;
        }
        queue_work(ap, (tap_work){ .kind = TAP_WORK_MAILBOX, .a = p[0], .b = (uint8_t)gb_get_le16(p + 1),
                                   .v = gb_get_le32(p + 3) });
        break;
    case GB_SVC_TYPE_INTF_OOPS:
        if (n < GB_SVC_INTF_OOPS_SIZE) {
            ret = -EINVAL;
            break;
        }
        queue_work(ap, (tap_work){ .kind = TAP_WORK_OOPS, .a = p[0], .b = p[1] });
        break;
    default:
        tap_trace(ap, "svc: unsupported request 0x%02x", h->type);
        ret = -EINVAL;
        break;
    }
out:
    ap->last_svc_req_result = errno_result(ret);
    reply(ap, 0, h, errno_result(ret), resp, rlen);
}

static void dispatch(tap *ap, const tap_msg *m)
{
    gb_msg_header h;
    if (m->cport >= ap->cfg.cport_count) {
        tap_trace(ap, "hd: invalid cport id %u received", m->cport);
        return;
    }
    if (gb_msg_header_decode(m->data, m->len, &h)) {
        tap_trace(ap, "hd: malformed message on hd CPort %u", m->cport);
        return;
    }
    if (gb_msg_is_response(h.type)) {
        for (size_t i = 0; i < ap->npending; i++) {
            tap_pending *pd = &ap->pending[i];
            if (!pd->done && pd->cport == m->cport && pd->id == h.operation_id) {
                pd->msg = *m;
                pd->done = true;
                return;
            }
        }
        tap_trace(ap, "hd: unexpected response id %u on hd CPort %u", h.operation_id, m->cport);
        return;
    }
    const uint8_t *p = m->data + GB_MSG_HEADER_SIZE;
    size_t n = m->len - GB_MSG_HEADER_SIZE;
    if (m->cport == 0) {
        svc_request(ap, &h, p, n);
        return;
    }
    tap_conn *c = &ap->conns[m->cport];
    if (!c->used || c->state != TAP_CONN_ENABLED || !c->has_handler) {
        ap->incoming_dropped++;
        tap_trace(ap, "hd: request 0x%02x on hd CPort %u dropped (connection not accepting)",
                  h.type, m->cport);
        return;
    }
    tap_trace(ap, "cport %u: incoming request 0x%02x", m->cport, h.type);
    reply(ap, m->cport, &h, GB_OP_SUCCESS, NULL, 0);
}

void tap_pump_incoming(tap *ap)
{
    while (ap->in_count) {
        tap_msg m = ap->inbox[ap->in_head];
        ap->in_head = (ap->in_head + 1) % ap->in_cap;
        ap->in_count--;
        dispatch(ap, &m);
    }
}

/* ---- synchronous operations (operation.c) ---- */

int tap_op_sync(tap *ap, tap_conn *c, uint8_t type, const void *req, size_t req_len,
                void *resp, size_t resp_len, bool core, sim_time timeout)
{
    bool sendable = c->state == TAP_CONN_ENABLED || c->state == TAP_CONN_ENABLED_TX ||
                    (c->state == TAP_CONN_DISCONNECTING && core);
    if (!c->used || !sendable)
        return -ENOTCONN;
    if (ap->npending == TAP_MAX_PENDING)
        return -ENOMEM;
    c->cycle++;
    uint16_t id = (uint16_t)(c->cycle % 65535u + 1u);
    uint8_t buf[GB_MSG_MAX_SIZE];
    size_t n = gb_msg_build(buf, sizeof buf, id, type, 0, req, req_len);
    if (!n)
        return -ENOMEM;
    tap_pending *pd = &ap->pending[ap->npending++];
    memset(pd, 0, sizeof *pd);
    pd->cport = c->hd_cport;
    pd->id = id;
    size_t slot = ap->npending - 1;
    ap->now += TAP_STEP;
    /* On a wall-clock transport the kernel's timer runs from here; other traffic on the
     * link does not extend it, a quiet moment does not end it. */
    bool wall = ap->cfg.transport->wall_clock;
    sim_time deadline = ap->now + timeout;
    bridge_send(ap, c->hd_cport, buf, n);
    while (!ap->pending[slot].done) {
        if (!ap->in_count) {
            if (wall && ap->now >= deadline)
                break;
            if (!ap->cfg.transport->pump(ap->cfg.transport->ctx) && !wall)
                break;
            continue;
        }
        tap_msg m = ap->inbox[ap->in_head];
        ap->in_head = (ap->in_head + 1) % ap->in_cap;
        ap->in_count--;
        dispatch(ap, &m);
    }
    tap_pending done = ap->pending[slot];
    ap->npending--; /* operations nest strictly: ours is the last one */
    if (!done.done) {
        if (!wall) /* simulated time: the wait the kernel would have made */
            ap->now += timeout;
        return -ETIMEDOUT;
    }
    gb_msg_header h;
    gb_msg_header_decode(done.msg.data, done.msg.len, &h);
    if (h.result)
        return result_errno(h.result);
    size_t plen = done.msg.len - GB_MSG_HEADER_SIZE;
    if (plen != resp_len)
        return -EMSGSIZE; /* "malformed response" / "short response" */
    if (resp_len)
        memcpy(resp, done.msg.data + GB_MSG_HEADER_SIZE, resp_len);
    return 0;
}

const char *tap_svc_type_name(uint8_t type)
{
    static const char *const names[] = {
        [0x03] = "INTF_DEVICE_ID",    [0x07] = "CONN_CREATE",        [0x08] = "CONN_DESTROY",
        [0x09] = "DME_PEER_GET",      [0x0a] = "DME_PEER_SET",       [0x0b] = "ROUTE_CREATE",
        [0x0c] = "ROUTE_DESTROY",     [0x10] = "INTF_SET_PWRM",      [0x11] = "INTF_EJECT",
        [0x13] = "PING",              [0x14] = "PWRMON_RAIL_COUNT_GET",
        [0x15] = "PWRMON_RAIL_NAMES_GET", [0x16] = "PWRMON_SAMPLE_GET",
        [0x17] = "PWRMON_INTF_SAMPLE_GET", [0x21] = "INTF_VSYS_ENABLE",
        [0x22] = "INTF_VSYS_DISABLE", [0x23] = "INTF_REFCLK_ENABLE", [0x24] = "INTF_REFCLK_DISABLE",
        [0x25] = "INTF_UNIPRO_ENABLE", [0x26] = "INTF_UNIPRO_DISABLE", [0x27] = "INTF_ACTIVATE",
        [0x28] = "INTF_RESUME",
    };
    if (type < sizeof names / sizeof names[0] && names[type])
        return names[type];
    return "SVC_OP";
}

int tap_svc_sync(tap *ap, uint8_t type, const void *req, size_t req_len, void *resp,
                 size_t resp_len)
{
    sim_time timeout = TAP_TIMEOUT_DEFAULT;
    if (type == GB_SVC_TYPE_INTF_ACTIVATE)
        timeout = SIM_MS(6000);
    else if (type == GB_SVC_TYPE_INTF_RESUME)
        timeout = SIM_MS(3000);
    else if (type == GB_SVC_TYPE_INTF_EJECT)
        timeout = SIM_MS(9000);
    else if (type == GB_SVC_TYPE_PING)
        timeout = SIM_MS(2000);
    int ret = tap_op_sync(ap, &ap->conns[0], type, req, req_len, resp, resp_len, false, timeout);
    char what[160];
    const uint8_t *r = req;
    snprintf(what, sizeof what, "svc %s %u -> %d", tap_svc_type_name(type),
             req_len ? r[0] : 0, ret);
    if (type != GB_SVC_TYPE_PING)
        tap_trace(ap, "%s", what);
    tap_step(ap, what);
    return ret;
}

int tap_svc_op(tap *ap, uint8_t type, const void *req, size_t req_len, void *resp,
               size_t resp_len)
{
    return tap_svc_sync(ap, type, req, req_len, resp, resp_len);
}

int tap_conn_op(tap *ap, uint16_t hd_cport, uint8_t type, const void *req, size_t req_len,
                void *resp, size_t resp_len)
{
    if (hd_cport == 0 || hd_cport >= TAP_MAX_CPORTS)
        return -EINVAL;
    int ret = tap_op_sync(ap, &ap->conns[hd_cport], type, req, req_len, resp, resp_len, false,
                          TAP_TIMEOUT_DEFAULT);
    tap_trace(ap, "cport %u op 0x%02x -> %d", hd_cport, type, ret);
    return ret;
}

void tap_send_raw(tap *ap, uint16_t hd_cport, const uint8_t *msg, size_t len)
{
    ap->now += TAP_STEP;
    bridge_send(ap, hd_cport, msg, len);
}

uint8_t tap_last_svc_request_result(const tap *ap)
{
    return ap->last_svc_req_result;
}

/* ---- probe, run, time ---- */

int tap_probe(tap *ap)
{
    tap_conn *c = &ap->conns[0];
    c->used = true;
    c->has_handler = true;
    c->bundle = -1;
    tap_cport_flags(ap, 0, 0x2);
    c->state = TAP_CONN_ENABLED;
    tap_arpc(ap, "CONNECTED", 0);
    bool wall = ap->cfg.transport->wall_clock;
    sim_time end = ap->now + SIM_MS(10000);
    for (int i = 0; ap->svc_state != TAP_SVC_HELLO && (wall ? ap->now < end : i < 1000); i++) {
        tap_pump_incoming(ap);
        if (ap->svc_state == TAP_SVC_HELLO)
            break;
        if (!ap->cfg.transport->pump(ap->cfg.transport->ctx) && !ap->in_count && !wall)
            break;
    }
    tap_run(ap);
    return ap->svc_state == TAP_SVC_HELLO ? 0 : -EPROTO;
}

static void hello_deferred(tap *ap)
{
    uint8_t req[GB_SVC_INTF_SET_PWRM_SIZE];
    memset(req, 0, sizeof req);
    req[0] = ap->ap_intf_id;
    req[1] = 1;                               /* series A */
    req[2] = GB_SVC_UNIPRO_SLOW_AUTO_MODE;    /* tx */
    req[3] = 2;
    req[4] = 1;
    req[5] = 1;                               /* small amplitude */
    req[6] = 0;
    req[7] = GB_SVC_UNIPRO_SLOW_AUTO_MODE;    /* rx */
    req[8] = 2;
    req[9] = 1;
    uint8_t result = 0xff;
    int ret = tap_svc_sync(ap, GB_SVC_TYPE_INTF_SET_PWRM, req, sizeof req, &result, 1);
    if (ret || result != GB_SVC_SETPWRM_PWR_LOCAL)
        tap_trace(ap, "svc: power mode change failed on AP to switch link: %d/%u", ret, result);
}

void tap_run(tap *ap)
{
    if (ap->in_run)
        return;
    ap->in_run = true;
    for (;;) {
        tap_pump_incoming(ap);
        if (!ap->work_count && ap->cfg.transport->pump(ap->cfg.transport->ctx))
            continue;
        if (!ap->work_count)
            break;
        tap_work w = ap->work[ap->work_head];
        ap->work_head = (ap->work_head + 1) % 64;
        ap->work_count--;
        switch (w.kind) {
        case TAP_WORK_HELLO:
            hello_deferred(ap);
            break;
        case TAP_WORK_INSERTED:
            tap_module_inserted(ap, w.a, w.b, (uint16_t)w.v);
            break;
        case TAP_WORK_REMOVED:
            tap_module_removed(ap, w.a);
            break;
        case TAP_WORK_MAILBOX:
            tap_intf_mailbox(ap, w.a, w.b, w.v);
            break;
        case TAP_WORK_OOPS:
            tap_intf_oops(ap, w.a, w.b);
            break;
        }
    }
    ap->in_run = false;
}

void tap_advance(tap *ap, sim_time dt)
{
    sim_time target = ap->now + dt;
    while (ap->watchdog && ap->next_ping <= target) {
        if (ap->next_ping > ap->now)
            ap->now = ap->next_ping;
        int ret = tap_svc_sync(ap, GB_SVC_TYPE_PING, NULL, 0, NULL, 0);
        if (ret) {
            tap_trace(ap, "svc: watchdog bit: ping failed %d", ret);
            ap->watchdog = false;
        }
        ap->next_ping += SIM_MS(2000);
    }
    if (target > ap->now)
        ap->now = target;
    tap_run(ap);
}

tap_module *tap_find_module(tap *ap, uint8_t module_id)
{
    for (unsigned i = 0; i < TAP_MAX_MODULES; i++)
        if (ap->modules[i].used && ap->modules[i].id == module_id)
            return &ap->modules[i];
    return NULL;
}

tap_intf *tap_find_intf(tap *ap, uint8_t intf_id)
{
    for (unsigned i = 0; i < TAP_MAX_MODULES; i++) {
        tap_module *m = &ap->modules[i];
        if (m->used && intf_id >= m->id && intf_id < m->id + m->num)
            return &m->intfs[intf_id - m->id];
    }
    return NULL;
}

bool tap_module_exists(tap *ap, uint8_t module_id)
{
    return tap_find_module(ap, module_id) != NULL;
}

tap_intf_state tap_interface(tap *ap, uint8_t intf_id)
{
    tap_intf_state s;
    memset(&s, 0, sizeof s);
    s.type = 0xff;
    tap_intf *in = tap_find_intf(ap, intf_id);
    if (!in)
        return s;
    s.exists = true;
    s.registered = in->registered;
    s.active = in->active;
    s.enabled = in->enabled;
    s.suspended = in->suspended;
    s.type = in->type;
    s.device_id = in->device_id;
    s.ddbl1_mfr = in->ddbl1_mfr;
    s.ddbl1_prod = in->ddbl1_prod;
    s.vendor_id = in->vendor_id;
    s.product_id = in->product_id;
    s.serial = in->serial;
    s.activate_error = in->activate_error;
    s.enable_error = in->enable_error;
    s.bundles = in->nbundles;
    s.control_hd_cport = in->control_hd_cport;
    for (unsigned b = 0; b < in->nbundles; b++)
        s.bound_bundles += in->bundles[b].bound;
    for (unsigned c = 1; c < TAP_MAX_CPORTS; c++)
        if (ap->conns[c].used && ap->conns[c].intf_id == intf_id &&
            ap->conns[c].state != TAP_CONN_DISABLED)
            s.connections++;
    return s;
}

uint16_t tap_hd_cport(tap *ap, uint8_t intf_id, uint16_t cport)
{
    for (unsigned c = 1; c < TAP_MAX_CPORTS; c++)
        if (ap->conns[c].used && ap->conns[c].intf_id == intf_id &&
            ap->conns[c].intf_cport == cport)
            return (uint16_t)c;
    return 0;
}

unsigned tap_functional_ok(tap *ap, uint8_t protocol)
{
    return ap->functional_ok[protocol];
}

unsigned tap_incoming_dropped(tap *ap)
{
    return ap->incoming_dropped;
}
