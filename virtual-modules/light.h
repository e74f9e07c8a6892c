// SPDX-License-Identifier: MIT
// Lights class handler (protocol 0x0F, drivers/staging/greybus/light.c): one light with
// colour channels (brightness, hardware blink, fade, colour) and optionally a flash channel
// (intensity, strobe, timeout, faults). Every setting the AP makes is kept for scripts.
//
// Behaviour keys ([cport N]): name (default "gbvp"); channels = colour names, one channel
// each (red, green, blue, white, amber; default "red green blue"); max-brightness = 1..255
// (default 255); flash = 0|1 (adds a "white:flash" channel; default 0).
#ifndef GBVP_VIRTUAL_MODULES_LIGHT_H
#define GBVP_VIRTUAL_MODULES_LIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_LIGHT_MAX_CHANNELS 8u

typedef struct vm_light_channel {
    char color_name[32];
    char mode_name[32];
    uint32_t flags, color, mode;
    uint8_t max_brightness;
    uint8_t brightness;
    uint16_t blink_on_ms, blink_off_ms;
    uint8_t fade_in, fade_out;
    uint32_t flash_intensity_ua, flash_timeout_us, flash_fault;
    bool strobe;
    uint64_t strobes;
} vm_light_channel;

unsigned vm_light_channel_count(const vm_light *l);
/* 0 or -EINVAL. */
int vm_light_get_channel(const vm_light *l, unsigned channel, vm_light_channel *out);
/* Tells the AP the light's configuration changed (EVENT{0, LIGHT_CONFIG}); the AP then
 * re-reads it. 0 or -ENOTCONN. */
int vm_light_notify(vm_light *l);
/* Sets the fault word the next GET_FLASH_FAULT reports (GB_LIGHTS_FLASH_FAULT_* bits). */
int vm_light_set_flash_fault(vm_light *l, unsigned channel, uint32_t fault);

#endif
