// SPDX-License-Identifier: MIT
// HID class handler (protocol 0x05, drivers/staging/greybus/hid.c): a HID device whose
// descriptors the AP reads and whose input reports scripts send as IRQ_EVENT requests.
// Built-in devices: `keyboard` (boot keyboard: 8-byte input report, 1-byte LED output
// report) and `mouse` (3 buttons, X, Y, wheel: 4-byte input report); `custom` takes a
// report descriptor in hex and the sizes of its (single, id-less) reports.
//
// Behaviour keys ([cport N]): device = keyboard|mouse|custom (default keyboard);
// vendor-id, product-id (16 bit); country (0..255); for custom: report-descriptor (hex),
// input-size (1..64), output-size, feature-size (0..64).
#ifndef GBVP_VIRTUAL_MODULES_HID_H
#define GBVP_VIRTUAL_MODULES_HID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_HID_MAX_REPORT 64u

typedef struct vm_hid_state {
    bool powered;             /* between PWR_ON and PWR_OFF (the AP opened the device) */
    size_t input_size, output_size, feature_size;
    uint8_t output[VM_HID_MAX_REPORT];  /* last output report set by the AP (e.g. LEDs) */
    uint8_t feature[VM_HID_MAX_REPORT]; /* feature report, settable by the AP */
    uint64_t input_reports;   /* IRQ_EVENTs sent */
    uint64_t set_reports, get_reports;
} vm_hid_state;

void vm_hid_get_state(const vm_hid *h, vm_hid_state *out);

/* Sends one input report (exactly input_size bytes) as IRQ_EVENT and keeps it as the
 * current input report (what GET_REPORT returns). 0; -EINVAL on a wrong size; -EAGAIN
 * when the AP has not powered the device on (the report is kept but not sent);
 * -ENOTCONN when the CPort is down. */
int vm_hid_input_report(vm_hid *h, const uint8_t *report, size_t len);

#endif
