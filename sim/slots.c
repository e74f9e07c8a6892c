// SPDX-License-Identifier: MIT
// Catalog modules in the frame's slots (see slots.h).
#include "sim/slots.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/svc_protocol.h"

/* One live interface: the model, and where it sits in the frame. */
typedef struct slot_intf {
    gb_svc *svc;
    sw_fabric *fabric;
    uint8_t intf_id; /* also its switch port */
    vm_interface *vm;
} slot_intf;

typedef struct slot_module {
    unsigned width;
    char name[48];
    slot_intf intfs[GB_SVC_SLOTS_MAX];
} slot_module;

struct sim_slots {
    gb_svc *svc;
    sw_fabric *fabric;
    uint64_t serial;
    slot_module *by_slot[GB_SVC_SLOTS_MAX]; /* at the module's primary slot */
};

static uint8_t op_type(void *self)
{
    return vm_interface_type(((slot_intf *)self)->vm);
}

static uint16_t op_dme_get(void *self, uint16_t attr, uint16_t sel, uint32_t *value)
{
    return vm_interface_dme_get(((slot_intf *)self)->vm, attr, sel, value);
}

static uint16_t op_dme_set(void *self, uint16_t attr, uint16_t sel, uint32_t value)
{
    return vm_interface_dme_set(((slot_intf *)self)->vm, attr, sel, value);
}

static void op_power(void *self, gb_svc_power_event ev, sim_time now)
{
    static const vm_power_event map[] = {
        [GB_SVC_PWR_VSYS_ON] = VM_POWER_VSYS_ENABLE,
        [GB_SVC_PWR_VSYS_OFF] = VM_POWER_VSYS_DISABLE,
        [GB_SVC_PWR_REFCLK_ON] = VM_POWER_REFCLK_ENABLE,
        [GB_SVC_PWR_REFCLK_OFF] = VM_POWER_REFCLK_DISABLE,
        [GB_SVC_PWR_UNIPRO_ON] = VM_POWER_UNIPRO_ENABLE,
        [GB_SVC_PWR_UNIPRO_OFF] = VM_POWER_UNIPRO_DISABLE,
        [GB_SVC_PWR_ACTIVATE] = VM_POWER_ACTIVATE,
        [GB_SVC_PWR_HIBERNATE] = VM_POWER_HIBERNATE,
        [GB_SVC_PWR_RESUME] = VM_POWER_RESUME,
    };
    (void)now;
    if ((unsigned)ev < sizeof map / sizeof map[0])
        vm_interface_power(((slot_intf *)self)->vm, map[ev]);
}

static int op_connect(void *self, uint16_t cport, uint8_t peer_dev, uint16_t peer_cport,
                      uint8_t tc, uint8_t flags, sim_time now)
{
    (void)peer_dev, (void)peer_cport, (void)tc, (void)flags, (void)now;
    return vm_interface_cport_connect(((slot_intf *)self)->vm, cport);
}

static void op_disconnect(void *self, uint16_t cport, sim_time now)
{
    (void)now;
    vm_interface_cport_disconnect(((slot_intf *)self)->vm, cport);
}

const gb_svc_intf_ops sim_slots_vm_ops = {
    .intf_type = op_type,
    .dme_get = op_dme_get,
    .dme_set = op_dme_set,
    .power = op_power,
    .cport_connect = op_connect,
    .cport_disconnect = op_disconnect,
    .power_uw = NULL,
};

/* The fabric's endpoint: a message for one of the interface's CPorts. */
static void intf_receive(void *ctx, uint16_t cport, const gb_msg *m, sim_time now)
{
    slot_intf *si = ctx;
    vm_interface_receive(si->vm, cport, m, now);
    /* MODE_SWITCH: the module reboots into its new firmware and pokes the SVC's mailbox,
     * which the SVC reports to the AP (the only mailbox event the SVC ever sends). Taken
     * per message, so a later mode switch on the same activation is reported as well. */
    if (vm_interface_take_mailbox(si->vm))
        gb_svc_intf_mailbox(si->svc, si->intf_id, GB_SVC_INTF_MAILBOX_GREYBUS, now);
}

/* The vm_interface's output: into the fabric from its port. */
static void intf_send(void *ctx, uint16_t cport, const gb_msg *m)
{
    slot_intf *si = ctx;
    sw_fabric_send(si->fabric, si->intf_id, cport, m);
}

static void module_free(sim_slots *s, slot_module *m)
{
    if (!m)
        return;
    for (unsigned i = 0; i < m->width; i++) {
        sw_fabric_detach(s->fabric, m->intfs[i].intf_id);
        vm_interface_free(m->intfs[i].vm);
    }
    free(m);
}

static void on_released(void *ctx, unsigned slot, void *const *intfs, unsigned width)
{
    sim_slots *s = ctx;
    (void)intfs, (void)width;
    if (slot < GB_SVC_SLOTS_MAX) {
        module_free(s, s->by_slot[slot]);
        s->by_slot[slot] = NULL;
    }
}

sim_slots *sim_slots_new(gb_svc *svc, sw_fabric *fabric)
{
    sim_slots *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->svc = svc;
    s->fabric = fabric;
    gb_svc_set_release_hook(svc, on_released, s);
    return s;
}

void sim_slots_free(sim_slots *s, sim_time now)
{
    if (!s)
        return;
    for (unsigned i = 0; i < GB_SVC_SLOTS_MAX; i++)
        if (s->by_slot[i])
            sim_slots_remove(s, i, now);
    gb_svc_set_release_hook(s->svc, NULL, NULL);
    free(s);
}

int sim_slots_insert(sim_slots *s, unsigned slot, const vm_module *m, sim_time now, char *err,
                     size_t errlen)
{
    size_t width = vm_module_interface_count(m);
    if (slot >= gb_svc_num_slots(s->svc) || width == 0 ||
        width > gb_svc_num_slots(s->svc) - slot) {
        snprintf(err, errlen, "module %s needs %zu slot(s) from slot %u; the frame has %u",
                 vm_module_name(m), width, slot, gb_svc_num_slots(s->svc));
        return -EINVAL;
    }
    for (size_t i = 0; i < width; i++)
        if (sim_slots_module_name(s, slot + (unsigned)i)) {
            snprintf(err, errlen, "slot %u%s is occupied", slot,
                     width > 1 ? " (or a neighbour)" : "");
            return -EBUSY;
        }
    slot_module *sm = calloc(1, sizeof *sm);
    if (!sm) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    snprintf(sm->name, sizeof sm->name, "%s", vm_module_name(m));
    uint64_t serial = ++s->serial;
    void *handles[GB_SVC_SLOTS_MAX];
    for (size_t i = 0; i < width; i++) {
        slot_intf *si = &sm->intfs[i];
        si->svc = s->svc;
        si->fabric = s->fabric;
        si->intf_id = gb_svc_slot_intf_id(s->svc, slot + (unsigned)i);
        vm_output out = { .send = intf_send, .ctx = si };
        si->vm = vm_module_create_interface(m, i, out, serial, err, errlen);
        if (!si->vm) {
            module_free(s, sm);
            return -EINVAL;
        }
        sm->width = (unsigned)i + 1;
        sw_endpoint ep = { .receive = intf_receive, .ctx = si };
        sw_fabric_attach(s->fabric, si->intf_id, &ep);
        handles[i] = si;
    }
    int rc = gb_svc_insert(s->svc, slot, (unsigned)width, sm->name, &sim_slots_vm_ops, handles,
                           now);
    if (rc) {
        snprintf(err, errlen, "slot %u%s is occupied", slot, width > 1 ? " (or a neighbour)" : "");
        module_free(s, sm);
        return rc;
    }
    s->by_slot[slot] = sm;
    return 0;
}

static int primary(const sim_slots *s, unsigned slot)
{
    for (unsigned p = 0; p <= slot && p < GB_SVC_SLOTS_MAX; p++)
        if (s->by_slot[p] && slot < p + s->by_slot[p]->width)
            return (int)p;
    return -ENOENT;
}

int sim_slots_remove(sim_slots *s, unsigned slot, sim_time now)
{
    int p = primary(s, slot);
    if (p < 0)
        return p;
    gb_svc_remove(s->svc, (unsigned)p, now);
    module_free(s, s->by_slot[p]);
    s->by_slot[p] = NULL;
    return 0;
}

vm_interface *sim_slots_interface(sim_slots *s, unsigned slot, unsigned index)
{
    int p = primary(s, slot);
    if (p < 0 || index >= s->by_slot[p]->width)
        return NULL;
    return s->by_slot[p]->intfs[index].vm;
}

vm_interface *sim_slots_interface_in(sim_slots *s, unsigned slot)
{
    int p = primary(s, slot);
    return p < 0 ? NULL : s->by_slot[p]->intfs[slot - (unsigned)p].vm;
}

const char *sim_slots_module_name(const sim_slots *s, unsigned slot)
{
    int p = primary(s, slot);
    return p < 0 ? NULL : s->by_slot[p]->name;
}

size_t sim_slots_fds(const sim_slots *s, int *fds, size_t cap)
{
    size_t n = 0;
    for (unsigned p = 0; p < GB_SVC_SLOTS_MAX; p++) {
        const slot_module *m = s->by_slot[p];
        for (unsigned i = 0; m && i < m->width; i++)
            n += vm_interface_fds(m->intfs[i].vm, n < cap ? fds + n : NULL, n < cap ? cap - n : 0);
    }
    return n;
}

void sim_slots_service(sim_slots *s)
{
    for (unsigned p = 0; p < GB_SVC_SLOTS_MAX; p++) {
        slot_module *m = s->by_slot[p];
        for (unsigned i = 0; m && i < m->width; i++)
            vm_interface_service(m->intfs[i].vm);
    }
}
