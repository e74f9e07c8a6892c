// SPDX-License-Identifier: MIT
// PWM class handler (protocol 0x09, drivers/staging/greybus/pwm.c): a bank of PWM outputs
// whose duty cycle, period, polarity and enable state the AP sets and scripts read.
//
// Behaviour keys ([cport N]): channels = 1..256 (default 2).
#ifndef GBVP_VIRTUAL_MODULES_PWM_H
#define GBVP_VIRTUAL_MODULES_PWM_H

#include <stdbool.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_PWM_MAX_CHANNELS 256u

typedef struct vm_pwm_channel {
    bool activated, enabled;
    bool inversed;       /* polarity 1 */
    uint32_t duty_ns, period_ns;
} vm_pwm_channel;

unsigned vm_pwm_channel_count(const vm_pwm *p);
/* 0 or -EINVAL. */
int vm_pwm_get_channel(const vm_pwm *p, unsigned channel, vm_pwm_channel *out);

#endif
