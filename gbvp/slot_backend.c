// SPDX-License-Identifier: MIT
// The first backend of a kind in a slot's module (gbvp/slot_backend.h).
#include "gbvp/slot_backend.h"

#include <errno.h>

#include "virtual-modules/vm_interface.h"

static void *backend_of(vm_interface *intf, sim_backend_kind kind)
{
    switch (kind) {
    case SIM_BACKEND_GPIO: return vm_interface_gpio(intf, VM_ANY_CPORT);
    case SIM_BACKEND_POWER_SUPPLY: return vm_interface_power_supply(intf, VM_ANY_CPORT);
    case SIM_BACKEND_HID: return vm_interface_hid(intf, VM_ANY_CPORT);
    case SIM_BACKEND_UART: return vm_interface_uart(intf, VM_ANY_CPORT);
    case SIM_BACKEND_I2C: return vm_interface_i2c(intf, VM_ANY_CPORT);
    }
    return NULL;
}

void *sim_slot_backend(gb_slots *slots, unsigned slot, sim_backend_kind kind, int *why)
{
    *why = -ENOENT;
    if (!gb_slots_module_name(slots, slot))
        return NULL;
    *why = -ENODEV;
    for (unsigned i = 0; i < SIM_MAX_INTF_PER_MODULE; i++) {
        vm_interface *intf = gb_slots_interface(slots, slot, i);
        if (!intf)
            break;
        void *b = backend_of(intf, kind);
        if (b) {
            *why = 0;
            return b;
        }
    }
    return NULL;
}
