// SPDX-License-Identifier: MIT
// Raw class handler (protocol 0xfe, drivers/staging/greybus/raw.c): opaque data both ways.
// What the guest writes to /dev/gb/rawN arrives as SEND requests and is kept for scripts
// (backend = capture, the default) or sent straight back (backend = loopback); scripts
// send data that the guest reads from the device.
#ifndef GBVP_VIRTUAL_MODULES_RAW_H
#define GBVP_VIRTUAL_MODULES_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_RAW_CHUNK 2036u      /* data bytes per SEND request (2040 - 4) */
#define VM_RAW_CAPTURE 65536u   /* bytes kept by the capture backend */

typedef struct vm_raw vm_raw;

vm_raw *vm_interface_raw(vm_interface *intf, uint16_t cport);
/* Sends data to the AP in SEND requests of at most VM_RAW_CHUNK bytes. 0, -EINVAL for
 * len 0, -ENOTCONN when the CPort is down. */
int vm_raw_send(vm_raw *r, const uint8_t *data, size_t len);
/* Moves up to cap captured bytes into buf; returns the count. */
size_t vm_raw_read(vm_raw *r, uint8_t *buf, size_t cap);
uint64_t vm_raw_received(const vm_raw *r); /* bytes the AP sent */

#endif
