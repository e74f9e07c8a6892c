// SPDX-License-Identifier: MIT
// USB class handler (protocol 0x06, drivers/staging/greybus/usb.c): the root hub of a USB 2.0
// host controller on the module. The protocol carries root-hub control only: HCD_START and
// HCD_STOP, and HUB_CONTROL, the hub class requests (USB 2.0 chapter 11.24) the Linux hub
// driver issues to a root hub, which the handler answers as a hub with individually
// switched port power would. URBs never reach the module (6.1's urb_enqueue returns
// -ENXIO), and 6.1 disables the driver's probe altogether (usb.c, "USB protocol disabled").
//
// A request a hub would stall (unknown typeReq, bad port, wrong wValue/wIndex/wLength) gets
// GB_OP_INVALID, which 6.1 maps to -EINVAL (its status map has no -EPIPE). A request that
// reads data is answered with exactly wLength bytes, since 6.1's gb_operation refuses any
// other size (operation.c, "malformed response" / "short response"): data shorter than
// wLength is padded with zeros, longer data is cut.
//
// Port reset completes at once: the next GetPortStatus shows the port enabled at the
// device's speed with C_PORT_RESET set.
//
// Behaviour keys ([cport N]): ports = 1..15 (default 1); connected = the ports with a device
// plugged in, each `P` or `P:high|full|low` (default speed high; default none).
#ifndef GBVP_VIRTUAL_MODULES_USB_H
#define GBVP_VIRTUAL_MODULES_USB_H

#include <stdbool.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

/* ---- USB 2.0 hub class (Universal Serial Bus Specification 2.0, 11.23 and 11.24) ----
 * typeReq is bmRequestType << 8 | bRequest, as Linux's hub_control receives it. */
#define USB_HUB_GET_HUB_STATUS 0xa000
#define USB_HUB_GET_PORT_STATUS 0xa300
#define USB_HUB_CLEAR_HUB_FEATURE 0x2001
#define USB_HUB_CLEAR_PORT_FEATURE 0x2301
#define USB_HUB_SET_HUB_FEATURE 0x2003
#define USB_HUB_SET_PORT_FEATURE 0x2303
#define USB_HUB_GET_HUB_DESCRIPTOR 0xa006
#define USB_HUB_CLEAR_TT_BUFFER 0x2308
#define USB_HUB_RESET_TT 0x2309
#define USB_HUB_STOP_TT 0x230b
#define USB_DT_HUB 0x29

/* hub feature selectors */
#define USB_HUB_C_LOCAL_POWER 0
#define USB_HUB_C_OVER_CURRENT 1
/* port feature selectors */
#define USB_PORT_FEAT_CONNECTION 0
#define USB_PORT_FEAT_ENABLE 1
#define USB_PORT_FEAT_SUSPEND 2
#define USB_PORT_FEAT_OVER_CURRENT 3
#define USB_PORT_FEAT_RESET 4
#define USB_PORT_FEAT_POWER 8
#define USB_PORT_FEAT_LOWSPEED 9
#define USB_PORT_FEAT_C_CONNECTION 16
#define USB_PORT_FEAT_C_ENABLE 17
#define USB_PORT_FEAT_C_SUSPEND 18
#define USB_PORT_FEAT_C_OVER_CURRENT 19
#define USB_PORT_FEAT_C_RESET 20
#define USB_PORT_FEAT_TEST 21
#define USB_PORT_FEAT_INDICATOR 22
/* wPortStatus */
#define USB_PORT_STAT_CONNECTION 0x0001
#define USB_PORT_STAT_ENABLE 0x0002
#define USB_PORT_STAT_SUSPEND 0x0004
#define USB_PORT_STAT_OVERCURRENT 0x0008
#define USB_PORT_STAT_RESET 0x0010
#define USB_PORT_STAT_POWER 0x0100
#define USB_PORT_STAT_LOW_SPEED 0x0200
#define USB_PORT_STAT_HIGH_SPEED 0x0400
#define USB_PORT_STAT_TEST 0x0800
/* wPortChange */
#define USB_PORT_STAT_C_CONNECTION 0x0001
#define USB_PORT_STAT_C_ENABLE 0x0002
#define USB_PORT_STAT_C_SUSPEND 0x0004
#define USB_PORT_STAT_C_OVERCURRENT 0x0008
#define USB_PORT_STAT_C_RESET 0x0010

#define VM_USB_MAX_PORTS 15u

typedef struct vm_usb vm_usb;

typedef enum vm_usb_speed {
    VM_USB_SPEED_HIGH,
    VM_USB_SPEED_FULL,
    VM_USB_SPEED_LOW,
} vm_usb_speed;

vm_usb *vm_interface_usb(vm_interface *intf, uint16_t cport);

unsigned vm_usb_port_count(const vm_usb *u);
/* true between HCD_START and HCD_STOP (or a module reboot). */
bool vm_usb_running(const vm_usb *u);
/* A device is plugged into / pulled from `port` (1-based): on a powered port the connection
 * status changes and C_PORT_CONNECTION is set for the hub driver to see. 0; -EINVAL for a
 * port that does not exist; -EEXIST (connect) when a device is already there, -ENOENT
 * (disconnect) when none is. */
int vm_usb_connect(vm_usb *u, unsigned port, vm_usb_speed speed);
int vm_usb_disconnect(vm_usb *u, unsigned port);
/* wPortStatus and wPortChange as GetPortStatus would answer now. 0 or -EINVAL. */
int vm_usb_port_status(const vm_usb *u, unsigned port, uint16_t *status, uint16_t *change);
const char *vm_usb_speed_name(vm_usb_speed speed);

typedef struct vm_usb_stats {
    uint64_t hub_requests; /* HUB_CONTROL requests */
    uint64_t stalled;      /* of those, refused as a hub stalls (GB_OP_INVALID) */
    uint64_t starts, stops;
} vm_usb_stats;
void vm_usb_get_stats(const vm_usb *u, vm_usb_stats *out);

#endif
