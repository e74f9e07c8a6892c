// SPDX-License-Identifier: MIT
// Internal layout of a vm_interface, shared by vm_interface.c and control.c only.
#ifndef GBVP_VIRTUAL_MODULES_VM_INTERFACE_INTERNAL_H
#define GBVP_VIRTUAL_MODULES_VM_INTERFACE_INTERNAL_H

#include "virtual-modules/dme.h"
#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"
#include "virtual-modules/vm_interface.h"

#define VM_PENDING_MAX 32 /* module-originated requests awaiting a response, per CPort */

struct vm_endpoint {
    vm_interface *intf;
    size_t index; /* into vm_interface.cports */
};

typedef struct vm_pending {
    uint16_t id;
    uint8_t type;
} vm_pending;

typedef struct vm_cport {
    uint16_t id;
    uint8_t protocol;
    uint8_t bundle_id;
    bool connected;
    const vm_class_ops *ops; /* NULL for CPort 0 and for protocols without a handler */
    void *h;
    vm_endpoint ep;
    uint16_t next_op_id;
    vm_pending pending[VM_PENDING_MAX];
    size_t npending;
    uint8_t last_shutdown_phase;
} vm_cport;

typedef struct vm_bundle {
    uint8_t id;
    uint8_t class_id;
    vm_bundle_state state;
} vm_bundle;

typedef struct vm_control_state {
    uint8_t version_minor;   /* our reply to VERSION */
    uint8_t ap_major, ap_minor;
    bool version_done;
    bool suspend_prepared;
    bool deactivate_prepared;
    bool mode_switch_requested;
    bool mailbox_written; /* the SVC has not read it yet (vm_interface_take_mailbox) */
    uint8_t pm_status[GB_CONTROL_TYPE_INTF_HIBERNATE_ABORT + 1]; /* injected replies */
    uint64_t requests;
} vm_control_state;

typedef struct vm_outmsg {
    uint16_t cport;
    gb_msg_header h;
    uint8_t *data;
} vm_outmsg;

struct vm_interface {
    vm_output out;
    uint8_t *manifest;
    size_t manifest_size;
    vm_dme *dme;
    bool vsys, refclk, unipro, active, hibernated;
    vm_cport *cports; /* cports[0] is the control CPort */
    size_t ncports;
    vm_bundle *bundles;
    size_t nbundles;
    vm_control_state ctl;
    vm_interface_stats stats;
    /* Module-originated messages produced while a request is being handled are held
     * here and sent after its response, in order. */
    bool in_request;
    vm_outmsg *deferred;
    size_t ndeferred, deferred_cap;
    uint8_t resp[GB_MSG_MAX_SIZE]; /* the response being built: header, then payload */
    /* firmware to boot once the current message is done (vm_endpoint_boot) */
    vm_manifest *boot_pending;
    vm_manifest *boot_staged; /* booted at the next control MODE_SWITCH */
    vm_firmware_info staged_info;
    vm_firmware_info boot_info, fw;
};

vm_cport *vm_interface_find_cport(vm_interface *intf, uint16_t cport);
vm_bundle *vm_interface_find_bundle(vm_interface *intf, uint8_t bundle_id);

/* control MODE_SWITCH: a staged image (vm_endpoint_stage_boot) boots after this message */
void vm_interface_mode_switch_boot(vm_interface *intf);

/* control.c */
uint8_t vm_control_request(vm_interface *intf, vm_request *rq);
void vm_control_reset(vm_interface *intf);
/* The module (re)booted for a mode switch and wrote the SVC's mailbox. */
void vm_control_mode_switched(vm_interface *intf);

#endif
