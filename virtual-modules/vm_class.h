// SPDX-License-Identifier: MIT
// The contract between an interface and its class protocol handlers (one per CPort).
//
// A handler is sans-IO: the interface hands it one request at a time and gets back a result
// code and a response payload; module-originated requests (GPIO IRQ events, UART receive
// data, power supply events...) leave through its endpoint. Handlers never see headers,
// operation ids or connection bookkeeping: CPort Shutdown, disconnected CPorts and
// malformed headers are dealt with by the interface before a handler is called.
#ifndef GBVP_VIRTUAL_MODULES_VM_CLASS_H
#define GBVP_VIRTUAL_MODULES_VM_CLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"
#include "virtual-modules/behaviour.h"
#include "virtual-modules/manifest.h"
#include "virtual-modules/vm_interface.h"

/* One CPort of an interface, as its handler sees it. Owned by the interface. */
typedef struct vm_endpoint vm_endpoint;

/* Sends a module-originated request on the endpoint's CPort. With want_response the
 * request gets a fresh non-zero operation id and the AP's response is handed to the
 * handler's `response` op; otherwise it is unidirectional (id 0). Returns 0; -ENOTCONN when
 * the CPort is not connected (the request is lost, as it would be on hardware);
 * -EMSGSIZE when the payload exceeds 2040 bytes. */
int vm_endpoint_request(vm_endpoint *ep, uint8_t type, const void *payload, size_t len,
                        bool want_response);
uint16_t vm_endpoint_cport(const vm_endpoint *ep);
bool vm_endpoint_connected(const vm_endpoint *ep);
/* The module boots downloaded firmware whose manifest is `m` (ownership passes, also on
 * failure). Applied once the message being handled is done: connections drop, the interface
 * serves `m` with default handlers (this one is destroyed), init status reads
 * VM_INIT_STATUS_DEFAULT and the mode-switch flag rises, so the SVC reports the mailbox
 * event that makes the 6.1 AP re-enumerate the interface. 0, or -EBUSY when a boot is
 * already pending. */
struct vm_firmware_info;
int vm_endpoint_boot(vm_endpoint *ep, vm_manifest *m, const struct vm_firmware_info *info);
/* Like vm_endpoint_boot, but the image waits for the AP's next control MODE_SWITCH (the
 * Firmware Management flow: load and validate, then switch). Replaces an image staged
 * before; ownership of `m` passes. */
void vm_endpoint_stage_boot(vm_endpoint *ep, vm_manifest *m, const struct vm_firmware_info *info);
/* The interface the endpoint belongs to (for handlers that work with a sibling CPort). */
vm_interface *vm_endpoint_interface(const vm_endpoint *ep);
/* The CPorts of `protocol` in the endpoint's own bundle, in manifest order: up to cap ids
 * into ids, and how many there are. For handlers whose protocol names sibling CPorts by id
 * (audio management configures the bundle's data CPorts); valid from `create` on. */
size_t vm_endpoint_bundle_cports(const vm_endpoint *ep, uint8_t protocol, uint16_t *ids,
                                 size_t cap);

/* One request for a handler. The handler writes its response payload into resp[0..cap)
 * and sets resp_len (left 0 for an empty response). It is ignored when the result is not
 * GB_OP_SUCCESS, and for unidirectional requests. */
typedef struct vm_request {
    uint8_t type; /* without the response bit; never 0x00 (shutdown) */
    const uint8_t *payload;
    size_t len;
    sim_time now;
    uint8_t *resp;
    size_t resp_cap; /* GB_MSG_MAX_PAYLOAD */
    size_t resp_len;
} vm_request;

typedef struct vm_class_ops {
    uint8_t protocol;
    const char *name;             /* "gpio", used in messages */
    const char *const *keys;      /* behaviour keys of its [cport N] section, NULL-terminated */
    /* cfg: the [cport N] section, or NULL. NULL with err on a bad setting. */
    void *(*create)(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen);
    void (*destroy)(void *h);
    uint8_t (*request)(void *h, vm_request *rq); /* returns GB_OP_* */
    /* optional: the AP answered a request sent with want_response */
    void (*response)(void *h, uint8_t type, uint8_t result, const uint8_t *payload,
                     size_t len);
    /* optional: the CPort was connected (true) or disconnected (false) */
    void (*connection)(void *h, bool connected);
    /* optional: the interface was (re)activated, i.e. the module rebooted */
    void (*reset)(void *h);
    /* optional, for backends at the I/O edge (the UART pty): a host fd to watch for
     * reading (-1 when none), and the call that consumes its input without blocking */
    int (*fd)(const void *h);
    int (*service)(void *h);
    /* optional: one line describing the backend for status output ("pty /dev/pts/3") */
    void (*describe)(const void *h, char *buf, size_t len);
} vm_class_ops;

/* The handler for a protocol id, or NULL when gbvp has none. */
const vm_class_ops *vm_class_find(uint8_t protocol);

extern const vm_class_ops vm_gpio_class;
extern const vm_class_ops vm_i2c_class;
extern const vm_class_ops vm_uart_class;
extern const vm_class_ops vm_loopback_class;
extern const vm_class_ops vm_power_supply_class;
extern const vm_class_ops vm_vibrator_class;
extern const vm_class_ops vm_light_class;
extern const vm_class_ops vm_hid_class;
extern const vm_class_ops vm_pwm_class;
extern const vm_class_ops vm_log_class;
extern const vm_class_ops vm_raw_class;
extern const vm_class_ops vm_spi_class;
extern const vm_class_ops vm_bootrom_class;
extern const vm_class_ops vm_fw_download_class;
extern const vm_class_ops vm_fw_mgmt_class;
extern const vm_class_ops vm_cap_class;
extern const vm_class_ops vm_sdio_class;
extern const vm_class_ops vm_usb_class;
extern const vm_class_ops vm_camera_class;
extern const vm_class_ops vm_audio_mgmt_class;
extern const vm_class_ops vm_audio_data_class;

/* Payload helpers for handlers: exact-length checks are the common case. */
#define VM_REQ_EXPECT_LEN(rq, n)                                                              \
    do {                                                                                      \
        if ((rq)->len != (n))                                                                 \
            return GB_OP_INVALID;                                                             \
    } while (0)

#endif
