// SPDX-License-Identifier: MIT
// The backend a front end drives in a slot: the first GPIO controller, power supply, HID
// device, UART or I2C bus among the interfaces of the module in that slot. Shared by the
// scenario API (gbvp/scenario/scenario_api.c) and the control socket (gbvp/ctl/ctl_commands.c), which each
// word their own errors from what this returns.
#ifndef GBVP_SIM_SLOT_BACKEND_H
#define GBVP_SIM_SLOT_BACKEND_H

#include "sim/slots.h"

/* The interfaces of one module that the front ends look at (index 0 .. this - 1). */
#define SIM_MAX_INTF_PER_MODULE 8u

typedef enum sim_backend_kind {
    SIM_BACKEND_GPIO,
    SIM_BACKEND_POWER_SUPPLY,
    SIM_BACKEND_HID,
    SIM_BACKEND_UART,
    SIM_BACKEND_I2C,
} sim_backend_kind;

/* The first backend of `kind` (a vm_gpio *, vm_power_supply *, vm_hid *, vm_uart * or
 * vm_i2c *, borrowed from slots) in the module in `slot`. NULL with *why = -ENOENT when the
 * slot is empty, -ENODEV when none of its module's interfaces has one. */
void *sim_slot_backend(gb_slots *slots, unsigned slot, sim_backend_kind kind, int *why);

#endif
