// SPDX-License-Identifier: MIT
// Vibrator class handler (protocol 0x10, drivers/staging/greybus/vibrator.c): ON and OFF
// (empty requests in 6.1) are recorded with their simulated time, so a script can check
// that `echo 100 > timeout` vibrated for 100 ms.
#ifndef GBVP_VIRTUAL_MODULES_VIBRATOR_H
#define GBVP_VIRTUAL_MODULES_VIBRATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"
#include "virtual-modules/vm_interface.h"

#define VM_VIBRATOR_LOG 64u /* most recent ON/OFF events kept */

typedef struct vm_vibrator_event {
    sim_time at;
    bool on;
} vm_vibrator_event;

bool vm_vibrator_is_on(const vm_vibrator *v);
/* Total simulated time spent on, counting a running period up to `now`. */
sim_time vm_vibrator_on_time(const vm_vibrator *v, sim_time now);
uint64_t vm_vibrator_on_count(const vm_vibrator *v);
/* Copies up to cap most recent events, oldest first; returns how many. */
size_t vm_vibrator_events(const vm_vibrator *v, vm_vibrator_event *out, size_t cap);

#endif
