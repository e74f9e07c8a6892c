// SPDX-License-Identifier: MIT
// A virtual Greybus interface: CPort bookkeeping, message dispatch to the control protocol
// and the class handlers, power events and DME access (see vm_interface.h).
#include "virtual-modules/vm_interface.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest.h"
#include "virtual-modules/vm_error.h"
#include "virtual-modules/vm_interface_internal.h"

static const char *const interface_keys[] = {
    "vendor-id", "product-id", "serial-number", "init-status", "ddbl1-manufacturer-id",
    "ddbl1-product-id", "control-version-minor", NULL,
};

vm_cport *vm_interface_find_cport(vm_interface *intf, uint16_t cport)
{
    for (size_t i = 0; i < intf->ncports; i++)
        if (intf->cports[i].id == cport)
            return &intf->cports[i];
    return NULL;
}

vm_bundle *vm_interface_find_bundle(vm_interface *intf, uint8_t bundle_id)
{
    for (size_t i = 0; i < intf->nbundles; i++)
        if (intf->bundles[i].id == bundle_id)
            return &intf->bundles[i];
    return NULL;
}

/* ---- output ---- */

static void emit(vm_interface *intf, uint16_t cport, const gb_msg *m)
{
    if (gb_msg_is_response(m->h.type))
        intf->stats.tx_responses++;
    else
        intf->stats.tx_requests++;
    if (intf->out.send)
        intf->out.send(intf->out.ctx, cport, m);
}

/* A module-originated request sent while a request is being answered waits until the
 * response has left, so the AP sees them in the order the firmware would send them. */
static int defer(vm_interface *intf, uint16_t cport, const gb_msg *m)
{
    size_t len = m->h.size;
    if (intf->ndeferred == intf->deferred_cap) {
        size_t cap = intf->deferred_cap ? intf->deferred_cap * 2 : 8;
        vm_outmsg *d = realloc(intf->deferred, cap * sizeof *d);
        if (!d)
            return -ENOMEM;
        intf->deferred = d;
        intf->deferred_cap = cap;
    }
    uint8_t *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, m->bytes, len);
    intf->deferred[intf->ndeferred++] = (vm_outmsg){ cport, m->h, copy };
    return 0;
}

static void flush_deferred(vm_interface *intf)
{
    /* a message sent here may not defer again: in_request is already false */
    for (size_t i = 0; i < intf->ndeferred; i++) {
        vm_outmsg *m = &intf->deferred[i];
        vm_cport *cp = vm_interface_find_cport(intf, m->cport);
        gb_msg msg = { .h = m->h, .bytes = m->data };
        if (cp && cp->connected)
            emit(intf, m->cport, &msg);
        else
            intf->stats.dropped++;
        free(m->data);
    }
    intf->ndeferred = 0;
}

/* ---- endpoints (the handlers' side) ---- */

static vm_cport *ep_cport(const vm_endpoint *ep)
{
    return &ep->intf->cports[ep->index];
}

uint16_t vm_endpoint_cport(const vm_endpoint *ep)
{
    return ep_cport(ep)->id;
}

bool vm_endpoint_connected(const vm_endpoint *ep)
{
    return ep_cport(ep)->connected && !ep->intf->hibernated;
}

int vm_endpoint_request(vm_endpoint *ep, uint8_t type, const void *payload, size_t len,
                        bool want_response)
{
    vm_interface *intf = ep->intf;
    vm_cport *cp = ep_cport(ep);
    uint8_t msg[GB_MSG_MAX_SIZE];

    if (len > GB_MSG_MAX_PAYLOAD)
        return -EMSGSIZE;
    if (!vm_endpoint_connected(ep)) {
        intf->stats.dropped++;
        return -ENOTCONN;
    }
    uint16_t id = 0;
    if (want_response) {
        if (cp->npending == VM_PENDING_MAX) /* the oldest is forgotten (AP never answered) */
            memmove(cp->pending, cp->pending + 1, --cp->npending * sizeof cp->pending[0]);
        if (++cp->next_op_id == 0)
            cp->next_op_id = 1;
        id = cp->next_op_id;
        cp->pending[cp->npending++] = (vm_pending){id, type};
    }
    gb_msg m = { .bytes = msg };
    size_t n = gb_msg_build(msg, sizeof msg, id, type, 0, payload, len);
    gb_msg_header_decode(msg, n, &m.h); /* what was just built: cannot fail */
    if (intf->in_request)
        return defer(intf, cp->id, &m);
    emit(intf, cp->id, &m);
    return 0;
}

int vm_endpoint_boot(vm_endpoint *ep, vm_manifest *m, const vm_firmware_info *info)
{
    vm_interface *intf = ep->intf;
    if (intf->boot_pending) {
        vm_manifest_free(m);
        return -EBUSY;
    }
    intf->boot_pending = m;
    intf->boot_info = *info;
    return 0;
}

void vm_endpoint_stage_boot(vm_endpoint *ep, vm_manifest *m, const vm_firmware_info *info)
{
    vm_interface *intf = ep->intf;
    vm_manifest_free(intf->boot_staged);
    intf->boot_staged = m;
    intf->staged_info = *info;
}

vm_interface *vm_endpoint_interface(const vm_endpoint *ep)
{
    return ep->intf;
}

size_t vm_endpoint_bundle_cports(const vm_endpoint *ep, uint8_t protocol, uint16_t *ids,
                                 size_t cap)
{
    const vm_interface *intf = ep->intf;
    uint8_t bundle = ep_cport(ep)->bundle_id;
    size_t n = 0;
    for (size_t i = 1; i < intf->ncports; i++) {
        const vm_cport *cp = &intf->cports[i];
        if (cp->bundle_id != bundle || cp->protocol != protocol)
            continue;
        if (n < cap)
            ids[n] = cp->id;
        n++;
    }
    return n;
}

void vm_interface_mode_switch_boot(vm_interface *intf)
{
    if (!intf->boot_staged || intf->boot_pending)
        return;
    intf->boot_pending = intf->boot_staged;
    intf->boot_info = intf->staged_info;
    intf->boot_staged = NULL;
}

/* ---- construction ---- */

static int read_interface_section(const vm_interface_config *cfg, vm_dme_ids *ids,
                                  uint8_t *ctl_minor, char *err, size_t errlen)
{
    unsigned scope = cfg->behaviour_interface;
    const vm_bsection *s = vm_behaviour_find_scoped(cfg->behaviour, scope, "interface",
                                                    scope ? (long)scope : -1);
    uint32_t v32;
    uint64_t v64;

    if (s && vm_bsection_check_keys(s, interface_keys, err, errlen))
        return -1;
#define PICK(field, cfield, key, def)                                                         \
    do {                                                                                      \
        if (vm_bsection_u32(s, key, def, 0, UINT32_MAX, &v32, err, errlen))                   \
            return -1;                                                                        \
        ids->field = cfg->cfield ? cfg->cfield : v32;                                         \
    } while (0)
    PICK(manufacturer_id, ddbl1_manufacturer_id, "ddbl1-manufacturer-id",
         VM_DDBL1_MANUFACTURER_TOSHIBA);
    PICK(product_id, ddbl1_product_id, "ddbl1-product-id", VM_DDBL1_PRODUCT_ES3_GPBRIDGE);
    PICK(vendor_id, vendor_id, "vendor-id", 0);
    PICK(gmp_product_id, product_id, "product-id", 0);
    PICK(init_status, init_status, "init-status", VM_INIT_STATUS_DEFAULT);
#undef PICK
    if (ids->init_status == 0) {
        vm_error(err, errlen, "%s: init-status 0 means \"not initialised\"; the AP refuses it",
                 s ? vm_behaviour_name(cfg->behaviour) : "interface");
        return -1;
    }
    if (vm_bsection_u64(s, "serial-number", 0, &v64, err, errlen))
        return -1;
    ids->serial_number = cfg->serial_number ? cfg->serial_number : v64;
    if (vm_bsection_u32(s, "control-version-minor", 1, 1, 255, &v32, err, errlen))
        return -1;
    *ctl_minor = (uint8_t)v32;
    return 0;
}

static int check_sections(const vm_interface_config *cfg, vm_interface *intf, char *err,
                          size_t errlen)
{
    const vm_behaviour *b = cfg->behaviour;
    unsigned scope = cfg->behaviour_interface;
    for (size_t i = 0; i < vm_behaviour_section_count(b); i++) {
        const vm_bsection *s = vm_behaviour_section_at(b, i);
        const char *kind = vm_bsection_kind(s);
        long id = vm_bsection_id(s);
        if (vm_bsection_scope(s) != scope) {
            if (vm_bsection_scope(s) == 0 && !strcmp(kind, "module") && id < 0)
                continue; /* the module's own section, read by vm_module */
            if (scope == 0) {
                vm_error(err, errlen, "%s:%d: [interface N] blocks are for modules of several "
                         "interfaces; this one has one", vm_behaviour_name(b), vm_bsection_line(s));
                return -1;
            }
            if (vm_bsection_scope(s) == 0) {
                vm_error(err, errlen, "%s:%d: [%s%s] comes before any [interface N] in a module "
                         "of several interfaces", vm_behaviour_name(b), vm_bsection_line(s), kind,
                         id >= 0 ? " N" : "");
                return -1;
            }
            continue; /* another interface's block */
        }
        if (!strcmp(kind, "interface") && (scope ? id == (long)scope : id < 0))
            continue;
        if (!strcmp(kind, "module") && id < 0 && scope == 0)
            continue;
        if (!strcmp(kind, "cport") && id >= 0) {
            vm_cport *cp = vm_interface_find_cport(intf, (uint16_t)id);
            if (!cp || id == 0) {
                vm_error(err, errlen, "%s:%d: [cport %ld]: the manifest has no such CPort",
                         vm_behaviour_name(b), vm_bsection_line(s), id);
                return -1;
            }
            if (!cp->ops) {
                vm_error(err, errlen,
                         "%s:%d: [cport %ld]: protocol 0x%02x has no gbvp handler to configure",
                         vm_behaviour_name(b), vm_bsection_line(s), id, cp->protocol);
                return -1;
            }
            if (vm_bsection_check_keys(s, cp->ops->keys, err, errlen))
                return -1;
            continue;
        }
        vm_error(err, errlen, "%s:%d: unknown section [%s%s]; expected [interface], [module] or "
                 "[cport N]", vm_behaviour_name(b), vm_bsection_line(s), kind,
                 id >= 0 ? " N" : "");
        return -1;
    }
    return 0;
}

static int load_manifest(vm_interface *intf, const vm_manifest *m, char *err, size_t errlen)
{
    size_t len;
    const uint8_t *bytes = vm_manifest_bytes(m, &len);
    if (len > GB_MSG_MAX_PAYLOAD) {
        vm_error(err, errlen, "%s: manifest is %zu bytes; the AP fetches at most %u",
                 vm_manifest_name(m), len, GB_MSG_MAX_PAYLOAD);
        return -1;
    }
    intf->manifest = malloc(len ? len : 1);
    intf->nbundles = vm_manifest_bundle_count(m);
    intf->bundles = calloc(intf->nbundles ? intf->nbundles : 1, sizeof *intf->bundles);
    intf->ncports = vm_manifest_cport_count(m) + 1;
    intf->cports = calloc(intf->ncports, sizeof *intf->cports);
    if (!intf->manifest || !intf->bundles || !intf->cports) {
        vm_error(err, errlen, "out of memory");
        return -1;
    }
    memcpy(intf->manifest, bytes, len);
    intf->manifest_size = len;
    for (size_t i = 0; i < intf->nbundles; i++) {
        intf->bundles[i].id = vm_manifest_bundle_id(m, i);
        intf->bundles[i].class_id = vm_manifest_bundle_class(m, i);
    }
    intf->cports[0] = (vm_cport){.id = GB_CONTROL_CPORT_ID, .protocol = GB_PROTOCOL_CONTROL};
    for (size_t i = 1; i < intf->ncports; i++) {
        vm_cport *cp = &intf->cports[i];
        uint16_t id = vm_manifest_cport_id(m, i - 1);
        for (size_t j = 0; j < i; j++) {
            if (intf->cports[j].id == id) {
                vm_error(err, errlen, "%s: CPort %u is used by two bundles; the AP cannot "
                         "connect the second", vm_manifest_name(m), id);
                return -1;
            }
        }
        cp->id = id;
        cp->protocol = vm_manifest_cport_protocol(m, i - 1);
        cp->bundle_id = vm_manifest_bundle_id(m, vm_manifest_cport_bundle(m, i - 1));
        cp->ops = vm_class_find(cp->protocol);
    }
    for (size_t i = 0; i < intf->ncports; i++)
        intf->cports[i].ep = (vm_endpoint){intf, i};
    return 0;
}

vm_interface *vm_interface_new(const vm_interface_config *cfg, char *err, size_t errlen)
{
    if (!cfg || !cfg->manifest) {
        vm_error(err, errlen, "interface: no manifest given");
        return NULL;
    }
    vm_interface *intf = calloc(1, sizeof *intf);
    if (!intf) {
        vm_error(err, errlen, "out of memory");
        return NULL;
    }
    intf->out = cfg->out;
    vm_dme_ids ids = {0};
    if (load_manifest(intf, cfg->manifest, err, errlen) ||
        read_interface_section(cfg, &ids, &intf->ctl.version_minor, err, errlen) ||
        check_sections(cfg, intf, err, errlen))
        goto bad;
    ids.num_cports = (uint16_t)intf->ncports;
    intf->dme = vm_dme_new(&ids);
    if (!intf->dme) {
        vm_error(err, errlen, "out of memory");
        goto bad;
    }
    for (size_t i = 1; i < intf->ncports; i++) {
        vm_cport *cp = &intf->cports[i];
        if (!cp->ops)
            continue;
        const vm_bsection *s =
            vm_behaviour_find_scoped(cfg->behaviour, cfg->behaviour_interface, "cport", cp->id);
        cp->h = cp->ops->create(&cp->ep, s, err, errlen);
        if (!cp->h)
            goto bad;
    }
    vm_control_reset(intf);
    return intf;
bad:
    vm_interface_free(intf);
    return NULL;
}

void vm_interface_free(vm_interface *intf)
{
    if (!intf)
        return;
    for (size_t i = 0; i < intf->ncports; i++)
        if (intf->cports[i].h)
            intf->cports[i].ops->destroy(intf->cports[i].h);
    for (size_t i = 0; i < intf->ndeferred; i++)
        free(intf->deferred[i].data);
    free(intf->deferred);
    vm_manifest_free(intf->boot_pending);
    vm_manifest_free(intf->boot_staged);
    free(intf->cports);
    free(intf->bundles);
    free(intf->manifest);
    vm_dme_free(intf->dme);
    free(intf);
}

/* ---- DME ---- */

uint16_t vm_interface_dme_get(vm_interface *intf, uint16_t attr, uint16_t selector,
                              uint32_t *value)
{
    if (!intf->vsys || !intf->unipro)
        return VM_DME_PEER_COMMUNICATION_FAILURE;
    return vm_dme_get(intf->dme, attr, selector, value);
}

uint16_t vm_interface_dme_set(vm_interface *intf, uint16_t attr, uint16_t selector,
                              uint32_t value)
{
    if (!intf->vsys || !intf->unipro)
        return VM_DME_PEER_COMMUNICATION_FAILURE;
    return vm_dme_set(intf->dme, attr, selector, value);
}

/* ---- power ---- */

static void set_connected(vm_cport *cp, bool connected)
{
    cp->connected = connected;
    cp->npending = 0; /* answers to requests sent on the old connection will not come */
    if (cp->ops && cp->ops->connection)
        cp->ops->connection(cp->h, connected);
}

static void drop_all_connections(vm_interface *intf)
{
    for (size_t i = 0; i < intf->ncports; i++)
        if (intf->cports[i].connected)
            set_connected(&intf->cports[i], false);
}

static void reboot(vm_interface *intf)
{
    drop_all_connections(intf);
    for (size_t i = 0; i < intf->ncports; i++) {
        vm_cport *cp = &intf->cports[i];
        cp->last_shutdown_phase = 0;
        if (cp->ops && cp->ops->reset)
            cp->ops->reset(cp->h);
    }
    for (size_t i = 0; i < intf->nbundles; i++)
        intf->bundles[i].state = VM_BUNDLE_INACTIVE;
    vm_control_reset(intf);
    vm_dme_rearm_init_status(intf->dme);
}

int vm_interface_power(vm_interface *intf, vm_power_event event)
{
    switch (event) {
    case VM_POWER_VSYS_ENABLE:
        intf->vsys = true;
        return 0;
    case VM_POWER_VSYS_DISABLE:
    case VM_POWER_UNIPRO_DISABLE:
        if (event == VM_POWER_VSYS_DISABLE)
            intf->vsys = false;
        else
            intf->unipro = false;
        drop_all_connections(intf);
        intf->active = false;
        intf->hibernated = false;
        return 0;
    case VM_POWER_REFCLK_ENABLE:
        intf->refclk = true;
        return 0;
    case VM_POWER_REFCLK_DISABLE:
        intf->refclk = false;
        return 0;
    case VM_POWER_UNIPRO_ENABLE:
        intf->unipro = true;
        return 0;
    case VM_POWER_ACTIVATE:
        if (!intf->vsys || !intf->refclk || !intf->unipro)
            return -ENODEV;
        reboot(intf);
        intf->active = true;
        intf->hibernated = false;
        return 0;
    case VM_POWER_HIBERNATE:
        if (!intf->active)
            return -ENODEV;
        intf->hibernated = true;
        return 0;
    case VM_POWER_RESUME:
        if (!intf->vsys || !intf->refclk || !intf->unipro || !intf->active)
            return -ENODEV;
        intf->hibernated = false;
        intf->ctl.suspend_prepared = false;
        return 0;
    }
    return -EINVAL;
}

bool vm_interface_is_active(const vm_interface *intf)
{
    return intf->active && !intf->hibernated;
}

uint8_t vm_interface_type(const vm_interface *intf)
{
    (void)intf;
    return VM_INTF_TYPE_GREYBUS;
}

/* ---- connections ---- */

int vm_interface_cport_connect(vm_interface *intf, uint16_t cport)
{
    vm_cport *cp = vm_interface_find_cport(intf, cport);
    if (!cp)
        return -ENOENT;
    if (!vm_interface_is_active(intf))
        return -ENODEV;
    if (cp->connected)
        return -EBUSY;
    cp->last_shutdown_phase = 0;
    set_connected(cp, true);
    return 0;
}

int vm_interface_cport_disconnect(vm_interface *intf, uint16_t cport)
{
    vm_cport *cp = vm_interface_find_cport(intf, cport);
    if (!cp || !cp->connected)
        return -ENOTCONN;
    set_connected(cp, false);
    return 0;
}

bool vm_interface_cport_connected(const vm_interface *intf, uint16_t cport)
{
    for (size_t i = 0; i < intf->ncports; i++)
        if (intf->cports[i].id == cport)
            return intf->cports[i].connected;
    return false;
}

/* ---- messages ---- */

/* The module reboots into the firmware vm_endpoint_boot named: a fresh interface is built
 * from its manifest and its tables (manifest, bundles, CPorts with their handlers) take the
 * place of the old ones, which leave with the temporary interface. */
static void boot_firmware(vm_interface *intf)
{
    vm_manifest *m = intf->boot_pending;
    vm_firmware_info info = intf->boot_info;
    intf->boot_pending = NULL;
    vm_interface_config cfg = {.manifest = m, .out = intf->out};
    vm_interface *fresh = vm_interface_new(&cfg, info.error, sizeof info.error);
    vm_manifest_free(m);
    if (!fresh) { /* the old firmware keeps running */
        snprintf(intf->fw.error, sizeof intf->fw.error, "%s", info.error);
        return;
    }
    drop_all_connections(intf);
    uint8_t *old_manifest = intf->manifest;
    size_t old_manifest_size = intf->manifest_size, old_ncports = intf->ncports,
           old_nbundles = intf->nbundles;
    vm_cport *old_cports = intf->cports;
    vm_bundle *old_bundles = intf->bundles;
    intf->manifest = fresh->manifest;
    intf->manifest_size = fresh->manifest_size;
    intf->cports = fresh->cports;
    intf->ncports = fresh->ncports;
    intf->bundles = fresh->bundles;
    intf->nbundles = fresh->nbundles;
    fresh->manifest = old_manifest;
    fresh->manifest_size = old_manifest_size;
    fresh->cports = old_cports;
    fresh->ncports = old_ncports;
    fresh->bundles = old_bundles;
    fresh->nbundles = old_nbundles;
    for (size_t i = 0; i < intf->ncports; i++)
        intf->cports[i].ep.intf = intf;
    for (size_t i = 0; i < fresh->ncports; i++)
        fresh->cports[i].ep.intf = fresh;
    vm_interface_free(fresh);
    vm_control_reset(intf);
    vm_dme_set(intf->dme, VM_DME_TOSHIBA_INIT_STATUS, 0, VM_INIT_STATUS_DEFAULT);
    vm_control_mode_switched(intf); /* the SVC reports the mailbox event */
    unsigned boots = intf->fw.boots;
    intf->fw = info;
    intf->fw.boots = boots + 1;
    intf->fw.error[0] = '\0';
}

void vm_interface_firmware_info(const vm_interface *intf, vm_firmware_info *out)
{
    *out = intf->fw;
}

static void consume_response(vm_interface *intf, vm_cport *cp, const gb_msg_header *h,
                             const uint8_t *payload, size_t plen)
{
    for (size_t i = 0; i < cp->npending; i++) {
        if (cp->pending[i].id != h->operation_id || h->operation_id == 0)
            continue;
        uint8_t type = cp->pending[i].type;
        memmove(&cp->pending[i], &cp->pending[i + 1],
                (cp->npending - i - 1) * sizeof cp->pending[0]);
        cp->npending--;
        intf->stats.rx_responses++;
        if (cp->ops && cp->ops->response)
            cp->ops->response(cp->h, type, h->result, payload, plen);
        return;
    }
    intf->stats.dropped++; /* unexpected response id */
}

static uint8_t shutdown_request(vm_cport *cp, const vm_request *rq)
{
    if (rq->len != 1 || (rq->payload[0] != 1 && rq->payload[0] != 2))
        return GB_OP_INVALID;
    cp->last_shutdown_phase = rq->payload[0];
    return GB_OP_SUCCESS;
}

int vm_interface_receive(vm_interface *intf, uint16_t cport, const gb_msg *m, sim_time now)
{
    vm_cport *cp = vm_interface_find_cport(intf, cport);
    const gb_msg_header *h = &m->h;

    if (!cp || !cp->connected || !vm_interface_is_active(intf)) {
        intf->stats.dropped++;
        return -ENOTCONN;
    }
    if (gb_msg_is_response(h->type)) {
        consume_response(intf, cp, h, gb_msg_payload(m), gb_msg_payload_len(m));
        if (intf->boot_pending)
            boot_firmware(intf);
        return 0;
    }
    intf->stats.rx_requests++;

    uint8_t *out = intf->resp;
    vm_request rq = {
        .type = h->type,
        .payload = gb_msg_payload(m),
        .len = gb_msg_payload_len(m),
        .now = now,
        .resp = out + GB_MSG_HEADER_SIZE,
        .resp_cap = GB_MSG_MAX_PAYLOAD,
    };
    uint8_t result;
    intf->in_request = true;
    if (h->type == GB_REQUEST_TYPE_CPORT_SHUTDOWN)
        result = shutdown_request(cp, &rq);
    else if (h->type == GB_REQUEST_TYPE_INVALID)
        result = GB_OP_INVALID;
    else if (cp->id == GB_CONTROL_CPORT_ID)
        result = vm_control_request(intf, &rq);
    else if (cp->ops)
        result = cp->ops->request(cp->h, &rq);
    else
        result = GB_OP_PROTOCOL_BAD; /* a protocol gbvp does not implement */
    intf->in_request = false;

    if (h->operation_id != 0) {
        size_t rlen = result == GB_OP_SUCCESS ? rq.resp_len : 0;
        if (rlen > GB_MSG_MAX_PAYLOAD) { /* a handler overran the limit: report, never cut */
            result = GB_OP_OVERFLOW;
            rlen = 0;
        }
        gb_msg resp = {
            .h = { .size = (uint16_t)(GB_MSG_HEADER_SIZE + rlen), .operation_id = h->operation_id,
                   .type = (uint8_t)(h->type | GB_TYPE_RESPONSE_FLAG), .result = result },
            .bytes = out,
        };
        gb_msg_header_encode(&resp.h, out);
        emit(intf, cport, &resp);
    }
    flush_deferred(intf);
    if (intf->boot_pending)
        boot_firmware(intf);
    return 0;
}

void vm_interface_get_stats(const vm_interface *intf, vm_interface_stats *out)
{
    *out = intf->stats;
}

/* ---- host-edge backends ---- */

size_t vm_interface_fds(const vm_interface *intf, int *fds, size_t cap)
{
    size_t n = 0;
    for (size_t i = 1; i < intf->ncports; i++) {
        const vm_cport *cp = &intf->cports[i];
        int fd = cp->h && cp->ops->fd ? cp->ops->fd(cp->h) : -1;
        if (fd < 0)
            continue;
        if (n < cap)
            fds[n] = fd;
        n++;
    }
    return n;
}

int vm_interface_service(vm_interface *intf)
{
    int total = 0;
    for (size_t i = 1; i < intf->ncports; i++) {
        vm_cport *cp = &intf->cports[i];
        if (!cp->h || !cp->ops->service)
            continue;
        int rc = cp->ops->service(cp->h);
        if (rc < 0 && rc != -ENOTCONN)
            return rc;
        if (rc > 0)
            total += rc;
    }
    return total;
}

size_t vm_interface_describe(const vm_interface *intf, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 1; i < intf->ncports; i++) {
        const vm_cport *cp = &intf->cports[i];
        char line[160];
        if (cp->h && cp->ops->describe)
            cp->ops->describe(cp->h, line, sizeof line);
        else
            snprintf(line, sizeof line, "%s", cp->ops ? cp->ops->name : "no handler");
        int n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
                         "cport %u protocol 0x%02x %s%s\n", cp->id, cp->protocol, line,
                         cp->connected ? " (connected)" : "");
        if (n > 0)
            used += (size_t)n;
    }
    return used;
}

/* ---- backends ---- */

static void *backend(vm_interface *intf, uint16_t cport, uint8_t protocol)
{
    for (size_t i = 1; i < intf->ncports; i++) {
        vm_cport *cp = &intf->cports[i];
        if (cp->protocol == protocol && cp->h && (cport == VM_ANY_CPORT || cp->id == cport))
            return cp->h;
    }
    return NULL;
}

void *vm_interface_handler(vm_interface *intf, uint16_t cport, uint8_t protocol)
{
    return backend(intf, cport, protocol);
}

vm_gpio *vm_interface_gpio(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_GPIO);
}

vm_i2c *vm_interface_i2c(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_I2C);
}

vm_uart *vm_interface_uart(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_UART);
}

vm_loopback *vm_interface_loopback(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_LOOPBACK);
}

vm_power_supply *vm_interface_power_supply(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_POWER_SUPPLY);
}

vm_vibrator *vm_interface_vibrator(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_VIBRATOR);
}

vm_light *vm_interface_light(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_LIGHTS);
}

vm_hid *vm_interface_hid(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_HID);
}

vm_pwm *vm_interface_pwm(vm_interface *intf, uint16_t cport)
{
    return backend(intf, cport, GB_PROTOCOL_PWM);
}
