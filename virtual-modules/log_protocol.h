// SPDX-License-Identifier: MIT
// Log class handler (protocol 0x1a, drivers/staging/greybus/log.c): the module sends text
// lines to the AP, which prints them with dev_dbg on the bundle (enable with dynamic debug:
// `echo 'module gb_log +p' > /sys/kernel/debug/dynamic_debug/control`). The AP sends
// nothing but CPort Shutdown. Note: 6.1's log driver keeps its bundle awake for good.
#ifndef GBVP_VIRTUAL_MODULES_LOG_PROTOCOL_H
#define GBVP_VIRTUAL_MODULES_LOG_PROTOCOL_H

#include <stdint.h>

#include "virtual-modules/vm_interface.h"

typedef struct vm_log vm_log;

vm_log *vm_interface_log(vm_interface *intf, uint16_t cport);
/* Sends text (split into pieces of at most 1023 characters, each NUL-terminated as the AP
 * requires). 0, -EINVAL for empty text, -ENOTCONN when the CPort is down. */
int vm_log_send(vm_log *l, const char *text);
uint64_t vm_log_sent(const vm_log *l);

#endif
