// SPDX-License-Identifier: MIT
// GPIO class handler (protocol 0x02, drivers/staging/greybus/gpio.c): a bank of lines whose
// input levels scripts drive and whose outputs scripts read; interrupts configured by the AP
// are raised as IRQ_EVENT requests when a driven level matches the line's trigger.
//
// Behaviour keys ([cport N]): lines = 1..256 (default 8); high = list of lines whose input
// level starts high (default none).
#ifndef GBVP_VIRTUAL_MODULES_GPIO_H
#define GBVP_VIRTUAL_MODULES_GPIO_H

#include <stdbool.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_GPIO_MAX_LINES 256u

typedef struct vm_gpio_line {
    bool activated;   /* between ACTIVATE and DEACTIVATE */
    bool output;      /* direction; lines start as inputs */
    bool out_value;   /* latch set by DIRECTION_OUT / SET_VALUE */
    bool in_level;    /* level driven from outside (vm_gpio_set_input) */
    uint8_t irq_type; /* GB_GPIO_IRQ_TYPE_* */
    bool irq_masked;  /* lines start masked */
    uint16_t debounce_us;
} vm_gpio_line;

unsigned vm_gpio_line_count(const vm_gpio *g);
/* 0, or -EINVAL when line is out of range. */
int vm_gpio_get_line(const vm_gpio *g, unsigned line, vm_gpio_line *out);
/* The level the line shows: its latch when an output, else its driven input level. */
int vm_gpio_get_value(const vm_gpio *g, unsigned line);

/* Drives the external level of a line. When the line is an unmasked input whose trigger
 * matches (edge: the change; level: the new level), an IRQ_EVENT is sent to the AP.
 * Returns 1 when an event was sent, 0 when none was due, -EINVAL for a bad line,
 * -ENOTCONN when an event was due but the CPort is not connected (event lost). */
int vm_gpio_set_input(vm_gpio *g, unsigned line, bool level);

typedef struct vm_gpio_stats {
    uint64_t irq_events;   /* IRQ_EVENT requests sent */
    uint64_t irq_rejected; /* ... answered with an error by the AP */
    uint64_t irq_lost;     /* due while the CPort was down */
} vm_gpio_stats;
void vm_gpio_get_stats(const vm_gpio *g, vm_gpio_stats *out);

#endif
