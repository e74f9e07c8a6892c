// SPDX-License-Identifier: MIT
// One virtual Greybus interface, as the SVC drives it. Sans-IO: the SVC (or a test) calls in
// with DME accesses, power events, connection changes and Greybus messages; everything the
// interface sends (responses and module-originated requests such as GPIO IRQ events) leaves
// synchronously through the output sink given at creation. No clocks, sockets or sleeps.
//
// Life cycle as the 6.1 AP drives it (docs/greybus.md, "Module insertion", "Runtime PM"):
//   power(VSYS_ENABLE, REFCLK_ENABLE, UNIPRO_ENABLE) -> power(ACTIVATE) -> dme_get ids ->
//   cport_connect(0) -> receive(control requests on CPort 0) -> cport_connect(n) -> ...
// The interface answers only on CPorts that are connected; messages for other CPorts are
// dropped (there is no UniPro connection to answer on) and counted.
#ifndef GBVP_VIRTUAL_MODULES_VM_INTERFACE_H
#define GBVP_VIRTUAL_MODULES_VM_INTERFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"
#include "greybus/gb_message.h"

typedef struct vm_interface vm_interface;
typedef struct vm_behaviour vm_behaviour; /* virtual-modules/behaviour.h */
typedef struct vm_manifest vm_manifest;   /* virtual-modules/manifest.h */

/* Where the interface puts every message it sends. `m` is a complete Greybus message with
 * its header already parsed (the interface built it), valid only during the call. Called
 * from inside vm_interface_* calls and backend setters; the callee must not call back into
 * the same interface. */
typedef struct vm_output {
    void (*send)(void *ctx, uint16_t cport, const gb_msg *m);
    void *ctx;
} vm_output;

/* Defaults applied when a config field is 0 (docs/greybus.md, "DME attributes"). */
#define VM_DDBL1_MANUFACTURER_TOSHIBA 0x00000126u
#define VM_DDBL1_PRODUCT_ES3_GPBRIDGE 0x00001002u
#define VM_INIT_STATUS_DEFAULT 0x04000000u /* "normal firmware", no quirks */

/* Interface type reported in the SVC INTF_ACTIVATE response. */
#define VM_INTF_TYPE_GREYBUS 0x03

typedef struct vm_interface_config {
    /* The validated manifest (borrowed during vm_interface_new only): its binary form is
     * copied and served by GET_MANIFEST; its bundles and CPorts select the class handlers. */
    const vm_manifest *manifest;
    /* Backends and initial state (borrowed during vm_interface_new only); NULL = defaults. */
    const vm_behaviour *behaviour;
    /* 0: the whole behaviour file is this interface's ([interface], [cport N]). N >= 1:
     * this is interface N of a multi-interface module and reads the block that starts at
     * [interface N] (docs/modules.md). */
    unsigned behaviour_interface;
    uint32_t ddbl1_manufacturer_id; /* DME 0x5003; 0 = VM_DDBL1_MANUFACTURER_TOSHIBA */
    uint32_t ddbl1_product_id;      /* DME 0x5004; 0 = VM_DDBL1_PRODUCT_ES3_GPBRIDGE */
    uint32_t vendor_id;             /* DME 0x6000 (Toshiba GMP vendor id) */
    uint32_t product_id;            /* DME 0x6001 (Toshiba GMP product id) */
    uint64_t serial_number;         /* DME 0x6002 (low) / 0x6003 (high) */
    uint32_t init_status;           /* DME 0x6101 value re-armed on ACTIVATE; 0 = default */
    vm_output out;
} vm_interface_config;

/* Returns a new interface (caller owns it; vm_interface_free), or NULL with a message in
 * err naming what is wrong (manifest larger than 2040 bytes, behaviour naming a CPort that
 * does not exist, a backend that cannot start, ...). */
vm_interface *vm_interface_new(const vm_interface_config *cfg, char *err, size_t errlen);
void vm_interface_free(vm_interface *intf);

/* ---- DME (SVC DME_PEER_GET / DME_PEER_SET) ----
 * Return a UniPro ConfigResultCode (VM_DME_* below); *value is written only on success. */
#define VM_DME_SUCCESS 0
#define VM_DME_INVALID_MIB_ATTRIBUTE 1
#define VM_DME_INVALID_MIB_ATTRIBUTE_VALUE 2
#define VM_DME_READ_ONLY_MIB_ATTRIBUTE 3
#define VM_DME_WRITE_ONLY_MIB_ATTRIBUTE 4
#define VM_DME_BAD_INDEX 5
#define VM_DME_LOCKED_MIB_ATTRIBUTE 6
#define VM_DME_PEER_COMMUNICATION_FAILURE 8
#define VM_DME_BUSY 9
#define VM_DME_FAILURE 10

uint16_t vm_interface_dme_get(vm_interface *intf, uint16_t attr, uint16_t selector,
                              uint32_t *value);
uint16_t vm_interface_dme_set(vm_interface *intf, uint16_t attr, uint16_t selector,
                              uint32_t value);

/* ---- Power (SVC INTF_VSYS/REFCLK/UNIPRO_*, INTF_ACTIVATE, SET_PWRM hibernate, RESUME) ---- */
typedef enum vm_power_event {
    VM_POWER_VSYS_ENABLE,
    VM_POWER_VSYS_DISABLE,
    VM_POWER_REFCLK_ENABLE,
    VM_POWER_REFCLK_DISABLE,
    VM_POWER_UNIPRO_ENABLE,
    VM_POWER_UNIPRO_DISABLE,
    VM_POWER_ACTIVATE,  /* boot: re-arms the init status, resets protocol state */
    VM_POWER_HIBERNATE, /* link hibernated; state kept */
    VM_POWER_RESUME,    /* out of hibernate; state kept */
} vm_power_event;

/* 0, or -ENODEV when ACTIVATE/RESUME find VSYS, REFCLK or UniPro off (the SVC then answers
 * with a failed status), -EINVAL for an unknown event. Losing VSYS drops every connection. */
int vm_interface_power(vm_interface *intf, vm_power_event event);
bool vm_interface_is_active(const vm_interface *intf);
uint8_t vm_interface_type(const vm_interface *intf); /* VM_INTF_TYPE_GREYBUS */

/* ---- Connections (SVC CONN_CREATE / CONN_DESTROY) ----
 * connect: 0; -ENOENT when the CPort is neither 0 nor in the manifest; -EBUSY when it is
 * already connected; -ENODEV when the interface is not active. A CPort may be connected
 * again after a disconnect (runtime PM does this). disconnect: 0 or -ENOTCONN. */
int vm_interface_cport_connect(vm_interface *intf, uint16_t cport);
int vm_interface_cport_disconnect(vm_interface *intf, uint16_t cport);
bool vm_interface_cport_connected(const vm_interface *intf, uint16_t cport);

/* ---- Messages ----
 * One Greybus message arrives on `cport`, its header parsed where it entered gbvp (an
 * unparsable one never gets this far). Requests are answered through the output sink
 * (unidirectional ones are not); responses to module-originated requests are consumed.
 * Returns 0 when handled; -ENOTCONN when the CPort is not connected (dropped, no answer).
 * Protocol errors inside a request are answered with a Greybus result code, not reported
 * here. A handler writes its response payload straight behind the response header, so an
 * answer leaves without being copied again. */
int vm_interface_receive(vm_interface *intf, uint16_t cport, const gb_msg *m, sim_time now);

/* ---- Control protocol state (for scripts and tests) ---- */
typedef enum vm_bundle_state {
    VM_BUNDLE_NONE,      /* no such bundle in the manifest */
    VM_BUNDLE_INACTIVE,  /* after boot or BUNDLE_DEACTIVATE */
    VM_BUNDLE_ACTIVE,    /* after BUNDLE_ACTIVATE or BUNDLE_RESUME */
    VM_BUNDLE_SUSPENDED, /* after BUNDLE_SUSPEND (kept across hibernate/resume) */
} vm_bundle_state;
vm_bundle_state vm_interface_bundle_state(const vm_interface *intf, uint8_t bundle_id);
/* true once the AP sent MODE_SWITCH since the last ACTIVATE. */
bool vm_interface_mode_switch_requested(const vm_interface *intf);
/* true when the module wrote the SVC's mailbox (a control MODE_SWITCH, or downloaded
 * firmware booted) since the last call, which clears it: each mode switch is one mailbox
 * event for the AP. */
bool vm_interface_take_mailbox(vm_interface *intf);

/* Firmware the module downloaded and booted (virtual-modules/bootrom.c): after such a boot
 * the interface serves the image's manifest with default handlers until it is removed. */
typedef struct vm_firmware_info {
    unsigned boots;      /* images booted so far */
    char name[33];       /* the last image's name */
    uint32_t size, crc;  /* its size and CRC-32, as checked on receipt */
    uint16_t major, minor;
    char error[128];     /* why the last boot was refused, or "" */
} vm_firmware_info;
void vm_interface_firmware_info(const vm_interface *intf, vm_firmware_info *out);
/* Fault injection: answer the control request `control_type` (BUNDLE_SUSPEND,
 * BUNDLE_RESUME, BUNDLE_ACTIVATE, BUNDLE_DEACTIVATE, INTF_SUSPEND_PREPARE,
 * INTF_DEACTIVATE_PREPARE, INTF_HIBERNATE_ABORT) with `status` instead of OK until changed
 * back with status 0. -EINVAL for other types. */
int vm_interface_set_pm_status(vm_interface *intf, uint8_t control_type, uint8_t status);

/* Counters for tests and statistics. */
typedef struct vm_interface_stats {
    uint64_t rx_requests, rx_responses, tx_requests, tx_responses;
    uint64_t dropped; /* not connected, unexpected response */
} vm_interface_stats;
void vm_interface_get_stats(const vm_interface *intf, vm_interface_stats *out);

/* ---- Backends at the host edge (the UART pty) ----
 * The program's poll loop watches the fds returned here for reading and calls
 * vm_interface_service when one is readable (or simply after every poll wake-up): input
 * is forwarded to the AP without blocking. vm_interface_fds returns how many fds the
 * interface has (it writes at most cap). vm_interface_service returns the number of bytes
 * forwarded, or a negative errno from a backend. */
size_t vm_interface_fds(const vm_interface *intf, int *fds, size_t cap);
int vm_interface_service(vm_interface *intf);
/* One line per CPort with a handler, e.g. "cport 1 gpio" / "cport 3 uart pty /dev/pts/4",
 * NUL-terminated into buf (truncated to len). Returns the length it wanted. */
size_t vm_interface_describe(const vm_interface *intf, char *buf, size_t len);

/* ---- Backends, for scripts and tests ----
 * Each returns the class handler's backend of the CPort `cport`, or, with VM_ANY_CPORT,
 * of the first CPort of that protocol in the manifest; NULL when there is none. The
 * returned pointer lives as long as the interface. Backend operations are declared in
 * virtual-modules/<class>.h (gpio.h, i2c.h, uart.h, power_supply.h, hid.h, light.h,
 * vibrator.h, loopback.h, pwm.h). */
#define VM_ANY_CPORT 0xffffu
typedef struct vm_gpio vm_gpio;
typedef struct vm_i2c vm_i2c;
typedef struct vm_uart vm_uart;
typedef struct vm_loopback vm_loopback;
typedef struct vm_power_supply vm_power_supply;
typedef struct vm_vibrator vm_vibrator;
typedef struct vm_light vm_light;
typedef struct vm_hid vm_hid;
typedef struct vm_pwm vm_pwm;

vm_gpio *vm_interface_gpio(vm_interface *intf, uint16_t cport);
vm_i2c *vm_interface_i2c(vm_interface *intf, uint16_t cport);
vm_uart *vm_interface_uart(vm_interface *intf, uint16_t cport);
vm_loopback *vm_interface_loopback(vm_interface *intf, uint16_t cport);
vm_power_supply *vm_interface_power_supply(vm_interface *intf, uint16_t cport);
vm_vibrator *vm_interface_vibrator(vm_interface *intf, uint16_t cport);
vm_light *vm_interface_light(vm_interface *intf, uint16_t cport);
vm_hid *vm_interface_hid(vm_interface *intf, uint16_t cport);
vm_pwm *vm_interface_pwm(vm_interface *intf, uint16_t cport);
/* The handler object of any protocol (for handlers whose accessor lives in their own
 * header: log.h, raw.h); NULL when there is none. */
void *vm_interface_handler(vm_interface *intf, uint16_t cport, uint8_t protocol);

#endif
