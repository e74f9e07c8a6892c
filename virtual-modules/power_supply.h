// SPDX-License-Identifier: MIT
// Power supply class handler (protocol 0x08, drivers/staging/greybus/power_supply.c): one
// or more batteries with the properties a phone battery reports. Scripts change properties
// and, by default, tell the AP with an EVENT{psy, UPDATE} so it re-reads them at once.
//
// Behaviour keys ([cport N]): supplies = 1..4; manufacturer, model, serial (<= 31 chars);
// status = unknown|charging|discharging|not-charging|full; capacity = 0..100 (%);
// voltage-uv; current-ua; temp (0.1 degC); charge-full-uah; health =
// unknown|good|overheat|dead|over-voltage|failure|cold.
#ifndef GBVP_VIRTUAL_MODULES_POWER_SUPPLY_H
#define GBVP_VIRTUAL_MODULES_POWER_SUPPLY_H

#include <stdbool.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_POWER_SUPPLY_MAX 4u

unsigned vm_power_supply_count(const vm_power_supply *ps);
/* Number of properties each supply reports, and the i-th property's code. */
unsigned vm_power_supply_property_count(const vm_power_supply *ps);
uint8_t vm_power_supply_property_at(const vm_power_supply *ps, unsigned i);

/* Property code (GB_POWER_SUPPLY_PROP_*) for a name like "capacity" or "voltage-now";
 * -1 when unknown. */
int vm_power_supply_property_by_name(const char *name);

/* 0, or -EINVAL for a bad supply or a property the supply does not report. Setting
 * CAPACITY also updates CHARGE_NOW and CAPACITY_LEVEL. With notify, an EVENT{psy, UPDATE}
 * is sent (-ENOTCONN when it could not be: the value is still set). */
int vm_power_supply_set(vm_power_supply *ps, unsigned psy, uint8_t prop, int32_t value,
                        bool notify);
int vm_power_supply_get(const vm_power_supply *ps, unsigned psy, uint8_t prop,
                        int32_t *value);
/* Sends EVENT{psy, UPDATE}. 0, -EINVAL, -ENOTCONN. */
int vm_power_supply_notify(vm_power_supply *ps, unsigned psy);

typedef struct vm_power_supply_stats {
    uint64_t get_property, set_property, events_sent, events_rejected;
} vm_power_supply_stats;
void vm_power_supply_get_stats(const vm_power_supply *ps, vm_power_supply_stats *out);

#endif
