// SPDX-License-Identifier: MIT
// The control protocol on CPort 0, as Linux 6.1 drivers/greybus/control.c drives it
// (docs/greybus.md, "Control protocol"): version, manifest, connection notices, bundle and
// interface power management, mode switch. TimeSync and PROBE_AP are not sent by 6.1 and are
// refused with GB_OP_PROTOCOL_BAD, like any unknown type.
#include <errno.h>
#include <string.h>

#include "virtual-modules/vm_interface_internal.h"

/* Class protocol version reported by BUNDLE_VERSION: every 6.1 class driver speaks 0.1. */
#define VM_BUNDLE_CLASS_MAJOR 0
#define VM_BUNDLE_CLASS_MINOR 1

void vm_control_reset(vm_interface *intf)
{
    uint8_t minor = intf->ctl.version_minor;
    uint8_t pm[sizeof intf->ctl.pm_status];
    memcpy(pm, intf->ctl.pm_status, sizeof pm); /* injected faults survive a reboot */
    memset(&intf->ctl, 0, sizeof intf->ctl);
    intf->ctl.version_minor = minor ? minor : 1;
    memcpy(intf->ctl.pm_status, pm, sizeof pm);
}

static uint8_t reply_u8(vm_request *rq, uint8_t v)
{
    rq->resp[0] = v;
    rq->resp_len = 1;
    return GB_OP_SUCCESS;
}

/* CONNECTED / DISCONNECTING / DISCONNECTED {cport_id le16}. */
static uint8_t cport_notice(vm_interface *intf, vm_request *rq, bool allow_control)
{
    VM_REQ_EXPECT_LEN(rq, 2);
    uint16_t id = gb_get_le16(rq->payload);
    if (id == GB_CONTROL_CPORT_ID)
        return allow_control ? GB_OP_SUCCESS : GB_OP_INVALID;
    return vm_interface_find_cport(intf, id) ? GB_OP_SUCCESS : GB_OP_INVALID;
}

static uint8_t bundle_pm(vm_interface *intf, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, 1);
    vm_bundle *b = vm_interface_find_bundle(intf, rq->payload[0]);
    if (!b)
        return reply_u8(rq, GB_CONTROL_BUNDLE_PM_INVAL);
    uint8_t injected = intf->ctl.pm_status[rq->type];
    if (injected)
        return reply_u8(rq, injected);
    switch (rq->type) {
    case GB_CONTROL_TYPE_BUNDLE_ACTIVATE:
    case GB_CONTROL_TYPE_BUNDLE_RESUME:
        b->state = VM_BUNDLE_ACTIVE;
        break;
    case GB_CONTROL_TYPE_BUNDLE_SUSPEND:
        b->state = VM_BUNDLE_SUSPENDED;
        break;
    case GB_CONTROL_TYPE_BUNDLE_DEACTIVATE:
        b->state = VM_BUNDLE_INACTIVE;
        break;
    }
    return reply_u8(rq, GB_CONTROL_BUNDLE_PM_OK);
}

static uint8_t intf_pm(vm_interface *intf, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, 0);
    uint8_t injected = intf->ctl.pm_status[rq->type];
    if (injected)
        return reply_u8(rq, injected);
    if (rq->type == GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE)
        intf->ctl.suspend_prepared = true;
    else if (rq->type == GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE)
        intf->ctl.deactivate_prepared = true;
    else /* HIBERNATE_ABORT */
        intf->ctl.suspend_prepared = false;
    return reply_u8(rq, GB_CONTROL_INTF_PM_OK);
}

uint8_t vm_control_request(vm_interface *intf, vm_request *rq)
{
    intf->ctl.requests++;
    switch (rq->type) {
    case GB_CONTROL_TYPE_VERSION:
        VM_REQ_EXPECT_LEN(rq, 2);
        intf->ctl.ap_major = rq->payload[0];
        intf->ctl.ap_minor = rq->payload[1];
        intf->ctl.version_done = true;
        rq->resp[0] = GB_CONTROL_VERSION_MAJOR;
        rq->resp[1] = intf->ctl.version_minor;
        rq->resp_len = 2;
        return GB_OP_SUCCESS;
    case GB_CONTROL_TYPE_GET_MANIFEST_SIZE:
        VM_REQ_EXPECT_LEN(rq, 0);
        gb_put_le16(rq->resp, (uint16_t)intf->manifest_size);
        rq->resp_len = 2;
        return GB_OP_SUCCESS;
    case GB_CONTROL_TYPE_GET_MANIFEST:
        VM_REQ_EXPECT_LEN(rq, 0);
        if (intf->manifest_size > rq->resp_cap)
            return GB_OP_OVERFLOW;
        memcpy(rq->resp, intf->manifest, intf->manifest_size);
        rq->resp_len = intf->manifest_size;
        return GB_OP_SUCCESS;
    case GB_CONTROL_TYPE_CONNECTED:
    case GB_CONTROL_TYPE_DISCONNECTED:
        return cport_notice(intf, rq, false);
    case GB_CONTROL_TYPE_DISCONNECTING:
        return cport_notice(intf, rq, true);
    case GB_CONTROL_TYPE_BUNDLE_VERSION:
        VM_REQ_EXPECT_LEN(rq, 1);
        if (!vm_interface_find_bundle(intf, rq->payload[0]))
            return GB_OP_INVALID;
        rq->resp[0] = VM_BUNDLE_CLASS_MAJOR;
        rq->resp[1] = VM_BUNDLE_CLASS_MINOR;
        rq->resp_len = 2;
        return GB_OP_SUCCESS;
    case GB_CONTROL_TYPE_MODE_SWITCH:
        VM_REQ_EXPECT_LEN(rq, 0);
        /* the module "reboots" into other firmware: bundles start over and the init
         * status is armed again, because the AP reads it when it re-enables us after
         * the SVC's mailbox event */
        vm_control_mode_switched(intf);
        for (size_t i = 0; i < intf->nbundles; i++)
            intf->bundles[i].state = VM_BUNDLE_INACTIVE;
        vm_dme_rearm_init_status(intf->dme);
        vm_interface_mode_switch_boot(intf);
        return GB_OP_SUCCESS;
    case GB_CONTROL_TYPE_BUNDLE_SUSPEND:
    case GB_CONTROL_TYPE_BUNDLE_RESUME:
    case GB_CONTROL_TYPE_BUNDLE_DEACTIVATE:
    case GB_CONTROL_TYPE_BUNDLE_ACTIVATE:
        return bundle_pm(intf, rq);
    case GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE:
    case GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE:
    case GB_CONTROL_TYPE_INTF_HIBERNATE_ABORT:
        return intf_pm(intf, rq);
    default: /* PROBE_AP, TIMESYNC_*: not used by 6.1; anything else unknown */
        return GB_OP_PROTOCOL_BAD;
    }
}

vm_bundle_state vm_interface_bundle_state(const vm_interface *intf, uint8_t bundle_id)
{
    for (size_t i = 0; i < intf->nbundles; i++)
        if (intf->bundles[i].id == bundle_id)
            return intf->bundles[i].state;
    return VM_BUNDLE_NONE;
}

bool vm_interface_mode_switch_requested(const vm_interface *intf)
{
    return intf->ctl.mode_switch_requested;
}

void vm_control_mode_switched(vm_interface *intf)
{
    intf->ctl.mode_switch_requested = true;
    intf->ctl.mailbox_written = true;
}

bool vm_interface_take_mailbox(vm_interface *intf)
{
    /* read and cleared like the SVC mailbox register it stands for: without the clear a
     * second mode switch on the same activation would never reach the AP */
    bool written = intf->ctl.mailbox_written;
    intf->ctl.mailbox_written = false;
    return written;
}

int vm_interface_set_pm_status(vm_interface *intf, uint8_t control_type, uint8_t status)
{
    switch (control_type) {
    case GB_CONTROL_TYPE_BUNDLE_SUSPEND:
    case GB_CONTROL_TYPE_BUNDLE_RESUME:
    case GB_CONTROL_TYPE_BUNDLE_DEACTIVATE:
    case GB_CONTROL_TYPE_BUNDLE_ACTIVATE:
    case GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE:
    case GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE:
    case GB_CONTROL_TYPE_INTF_HIBERNATE_ABORT:
        intf->ctl.pm_status[control_type] = status;
        return 0;
    default:
        return -EINVAL;
    }
}
