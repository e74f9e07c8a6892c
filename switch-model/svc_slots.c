// SPDX-License-Identifier: MIT
// The frame's slots: modules (one or several adjacent interfaces) come and go at any time,
// also while the AP is enumerating. The SVC reports each change with MODULE_INSERTED /
// MODULE_REMOVED once the handshake is done; an insertion the AP never heard about is
// simply forgotten when the module leaves again.
#include "switch-model/svc_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void queue_inserted(gb_svc *svc, unsigned slot)
{
    uint8_t p[GB_SVC_MODULE_INSERTED_SIZE];
    p[0] = gb_svc_slot_intf_id(svc, slot);
    p[1] = (uint8_t)svc->modules[slot].width;
    gb_put_le16(p + 2, 0);
    svc_queue_event(svc, GB_SVC_TYPE_MODULE_INSERTED, p, sizeof p);
}

int gb_svc_insert(gb_svc *svc, unsigned slot, unsigned width, const char *name,
                  const gb_svc_intf_ops *ops, void *const *intfs, sim_time now)
{
    svc->now = now;
    if (width == 0 || slot >= svc->cfg.num_slots || width > svc->cfg.num_slots - slot) {
        svc_log(svc, SW_LOG_WARN, "slot: module %s of width %u does not fit at slot %u "
                "of %u", name ? name : "?", width, slot, svc->cfg.num_slots);
        return -EINVAL;
    }
    if (!ops || !intfs)
        return -EINVAL;
    for (unsigned i = 0; i < width; i++) {
        if (svc->intfs[slot + i].present) {
            svc_log(svc, SW_LOG_WARN, "slot: slot %u is occupied; module %s not inserted",
                    slot + i, name ? name : "?");
            return -EBUSY;
        }
    }
    svc_module *m = &svc->modules[slot];
    m->used = true;
    m->width = width;
    snprintf(m->name, sizeof m->name, "%s", name ? name : "module");
    for (unsigned i = 0; i < width; i++) {
        svc_intf *in = &svc->intfs[slot + i];
        uint8_t dev = in->device_id; /* may linger until the AP destroys the old route */
        memset(in, 0, sizeof *in);
        in->device_id = dev;
        in->present = true;
        in->ops = ops;
        in->self = intfs[i];
        in->module_slot = slot;
        svc->slot_self[slot + i] = intfs[i];
    }
    svc_log(svc, SW_LOG_INFO, "slot: module %s inserted in slot %u (interfaces %u..%u)",
            m->name, slot, gb_svc_slot_intf_id(svc, slot), gb_svc_slot_intf_id(svc, slot) + width - 1);
    if (svc->hs != SVC_HS_IDLE && svc->hs != SVC_HS_FAILED)
        queue_inserted(svc, slot);
    svc_sync_fabric(svc);
    return 0;
}

/* Takes the module out of the frame; ejected = the AP asked for it (INTF_EJECT). */
void svc_slot_release(gb_svc *svc, unsigned slot, bool ejected)
{
    svc_module *m = &svc->modules[slot];
    void *handles[GB_SVC_SLOTS_MAX];
    unsigned width = m->width;
    for (unsigned i = 0; i < width; i++) {
        svc_intf *in = &svc->intfs[slot + i];
        handles[i] = svc->slot_self[slot + i];
        /* The module is gone: no more calls into it. Connections, routes and the device id
         * stay until the AP destroys them, so its teardown requests still succeed. */
        in->present = false;
        in->ops = NULL;
        in->self = NULL;
        in->vsys = in->refclk = in->unipro = in->active = in->hibernated = false;
        svc->slot_self[slot + i] = NULL;
    }
    uint8_t id = gb_svc_slot_intf_id(svc, slot);
    svc_log(svc, SW_LOG_INFO, "slot: module %s %s slot %u", m->name,
            ejected ? "ejected from" : "removed from", slot);
    m->used = false;
    svc_sync_fabric(svc);
    if (!svc_unqueue_inserted(svc, id) && svc->hs != SVC_HS_IDLE && svc->hs != SVC_HS_FAILED)
        svc_queue_event(svc, GB_SVC_TYPE_MODULE_REMOVED, &id, 1);
    if (ejected && svc->released)
        svc->released(svc->released_ctx, slot, handles, width);
}

static int primary_slot(const gb_svc *svc, unsigned slot)
{
    if (slot >= svc->cfg.num_slots || !svc->intfs[slot].present)
        return -ENOENT;
    return (int)svc->intfs[slot].module_slot;
}

int gb_svc_remove(gb_svc *svc, unsigned slot, sim_time now)
{
    svc->now = now;
    int p = primary_slot(svc, slot);
    if (p < 0)
        return p;
    svc_slot_release(svc, (unsigned)p, false);
    return 0;
}

unsigned gb_svc_slot_interfaces(const gb_svc *svc, unsigned slot, void **intfs, unsigned max)
{
    int p = primary_slot(svc, slot);
    if (p < 0)
        return 0;
    unsigned width = svc->modules[p].width;
    for (unsigned i = 0; i < width && i < max; i++)
        intfs[i] = svc->slot_self[(unsigned)p + i];
    return width;
}

void gb_svc_set_release_hook(gb_svc *svc,
                             void (*released)(void *ctx, unsigned slot, void *const *intfs,
                                              unsigned width),
                             void *ctx)
{
    svc->released = released;
    svc->released_ctx = ctx;
}

/* After the handshake with a (new) AP: every module already in the frame is announced. */
void svc_slots_announce_all(gb_svc *svc)
{
    for (unsigned s = 0; s < svc->cfg.num_slots; s++)
        if (svc->modules[s].used && svc->intfs[s].present && svc->intfs[s].module_slot == s)
            queue_inserted(svc, s);
}
