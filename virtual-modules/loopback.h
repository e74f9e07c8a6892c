// SPDX-License-Identifier: MIT
// Loopback class handler (protocol 0x11, drivers/staging/greybus/loopback.c): answers PING,
// echoes TRANSFER, swallows SINK, counting what it saw; can also originate the three
// requests towards the AP, which answers them (the AP echoes TRANSFER).
#ifndef GBVP_VIRTUAL_MODULES_LOOPBACK_H
#define GBVP_VIRTUAL_MODULES_LOOPBACK_H

#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_LOOPBACK_MAX_LEN 2028u /* 2040 - 12-byte transfer header */

typedef struct vm_loopback_stats {
    uint64_t pings, transfers, sinks;  /* AP requests answered */
    uint64_t bytes;                    /* data bytes in TRANSFER and SINK requests */
    uint64_t rejected;                 /* malformed AP requests */
    uint64_t sent, answered, mismatches; /* module-originated requests */
} vm_loopback_stats;

void vm_loopback_get_stats(const vm_loopback *lb, vm_loopback_stats *out);

/* Module-originated requests (with a response expected). len <= VM_LOOPBACK_MAX_LEN; the
 * data is `len` bytes of 0xA5. 0, -ENOTCONN when the CPort is not connected, -EINVAL. */
int vm_loopback_send_ping(vm_loopback *lb);
int vm_loopback_send_transfer(vm_loopback *lb, uint32_t len);
int vm_loopback_send_sink(vm_loopback *lb, uint32_t len);

#endif
