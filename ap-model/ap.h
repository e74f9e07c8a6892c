// SPDX-License-Identifier: MIT
// The test AP: performs the AP side of Greybus exactly as Linux 6.1 does it (drivers/greybus
// svc.c, interface.c, module.c, connection.c, control.c, hd.c, es2.c), against a bridge it
// reaches through a transport: the simulator's in the same process, or `gbvp sim` over
// gblink. Synchronous: an operation sends its request and pumps the transport until the
// answer is in the AP's inbox; a missing answer is a timeout (on a simulated clock, the
// clock jumps by the kernel's timeout). Everything the AP does is written to a trace
// ("svc INTF_ACTIVATE 2 -> 0", "arpc CONNECTED 1", "ctl 2 GET_MANIFEST -> 0") that tests
// search.
#ifndef GBVP_AP_MODEL_AP_H
#define GBVP_AP_MODEL_AP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"

typedef struct tap tap;

/* How the test AP reaches the bridge. send: one Greybus message from hd CPort `cport`. cport_ctl: a CPort control request the
 * ES2 driver issues ("FLAGS" with flags, "CONNECTED", "FLUSH", "QUIESCE", "CLEAR").
 * pump: lets the remote side run; returns false when nothing happened for a while (the AP
 * then treats a missing answer as a timeout). Messages arrive through tap_deliver.
 * wall_clock: the pump keeps the AP's clock on the wall clock (tap_set_now), as a guest
 * kernel's is, and returns false after a quiet moment of a few ms. An operation without
 * answer then times out when that clock passes the kernel's timeout for it (1 s for most),
 * however much other traffic the link carries; the clock does not jump. */
typedef struct tap_transport {
    void (*send)(void *ctx, uint16_t cport, const uint8_t *msg, size_t len);
    void (*cport_ctl)(void *ctx, const char *what, uint16_t cport, uint32_t flags);
    bool (*pump)(void *ctx);
    void *ctx;
    bool wall_clock;
} tap_transport;

typedef struct tap_config {
    uint16_t cport_count;      /* ES2 CPORT_COUNT; 0 = 44 */
    bool verbose;              /* print the trace to stderr */
    const tap_transport *transport; /* required; borrowed, must outlive the AP */
} tap_config;

/* NULL on a bad configuration (no transport) or no memory. */
tap *tap_new(const tap_config *cfg);
void tap_free(tap *ap);
/* A message from the bridge for hd CPort `cport`. */
void tap_deliver(tap *ap, uint16_t cport, const uint8_t *msg, size_t len);
/* Lets simulated time move (the clock is the transport's). */
void tap_set_now(tap *ap, sim_time now);

/* ES2 probe: SVC connection enabled (CPORT_FLAGS 0x2, ARPC CONNECTED 0), the SVC starts the
 * handshake; runs until idle (wall_clock: waits up to 10 s for the handshake). 0 when the
 * handshake completed. */
int tap_probe(tap *ap);
/* Processes everything pending: incoming requests, then the SVC work queue (module
 * inserted/removed, mailbox, oops, hello reconfiguration). */
void tap_run(tap *ap);
/* Lets simulated time pass (watchdog PINGs every 2 s), then runs. */
void tap_advance(tap *ap, sim_time dt);
sim_time tap_now(const tap *ap);

/* Hook run after every request the AP sends (after the answer arrived); lets tests pull a
 * module out "in the middle" of enumeration. `what` is the trace line. */
void tap_set_step_hook(tap *ap, void (*hook)(void *ctx, tap *ap, const char *what), void *ctx);

/* ---- what the AP sees ---- */

typedef struct tap_intf_state {
    bool exists;      /* the AP created an interface object (module known) */
    bool registered;  /* device 1-M.I added */
    bool active, enabled, suspended;
    uint8_t type;     /* GB_SVC_INTF_TYPE_* as classified, 0xff = not yet */
    uint8_t device_id;
    uint32_t ddbl1_mfr, ddbl1_prod, vendor_id, product_id;
    uint64_t serial;
    int activate_error, enable_error; /* last errors (0 = none) */
    unsigned bundles, bound_bundles, connections;
    uint16_t control_hd_cport;        /* 0 = none */
} tap_intf_state;

tap_intf_state tap_interface(tap *ap, uint8_t intf_id);
bool tap_module_exists(tap *ap, uint8_t module_id);
/* hd CPort of the connection to (intf, cport), 0 when none. */
uint16_t tap_hd_cport(tap *ap, uint8_t intf_id, uint16_t cport);
/* Functional requests that succeeded, per protocol (GB_PROTOCOL_*). */
unsigned tap_functional_ok(tap *ap, uint8_t protocol);
unsigned tap_incoming_dropped(tap *ap);

/* ---- trace ---- */
size_t tap_trace_count(const tap *ap);
const char *tap_trace_line(const tap *ap, size_t i);
/* Index of the first line at or after `from` containing needle, or -1. */
long tap_trace_find(const tap *ap, size_t from, const char *needle);
void tap_trace_clear(tap *ap);
void tap_trace_dump(const tap *ap);

/* ---- actions the kernel takes on its own or through sysfs ---- */

/* Runtime PM as 6.1 drives it (docs/greybus.md, "Runtime PM"). 0 or a negative errno. */
int tap_bundle_suspend(tap *ap, uint8_t intf_id, uint8_t bundle_id);
int tap_bundle_resume(tap *ap, uint8_t intf_id, uint8_t bundle_id);
int tap_intf_suspend(tap *ap, uint8_t intf_id); /* needs every bound bundle suspended */
int tap_intf_resume(tap *ap, uint8_t intf_id);
/* What autosuspend does to an idle interface: every bundle, then the interface. */
int tap_runtime_suspend_all(tap *ap, uint8_t intf_id);
/* `echo 1 > 1-M/eject` and `echo 0|1 > 1-M.I/power_state`. */
int tap_eject(tap *ap, uint8_t module_id);
int tap_power_state(tap *ap, uint8_t intf_id, bool on);
/* A mode switch as the firmware-management driver requests it: clean disable, unidirectional
 * MODE_SWITCH, wait for the SVC's mailbox event, re-enable. 0 or a negative errno. */
int tap_mode_switch(tap *ap, uint8_t intf_id);
/* Binds a bundle as a driver the 6.1 AP lacks would (camera.c, which needs BROKEN):
 * BUNDLE_ACTIVATE, then an enabled connection with a request handler to each of the
 * bundle's CPorts of `protocol`, which tap_hd_cport then finds. On a bound bundle, connects
 * the CPorts of another protocol (a driver with two, as gb-audio's management and data). 0;
 * -EINVAL (no such bundle, interface not enabled or suspended), -EBUSY (bound, with that
 * protocol's CPorts connected), -ENOENT (no CPort of that protocol), or the error of the
 * step that failed (a bundle bound by this call is left unbound). */
int tap_bundle_bind(tap *ap, uint8_t intf_id, uint8_t bundle_id, uint8_t protocol);
/* One class request on the connection to (intf, cport), e.g. GPIO LINE_COUNT; 0 or errno. */
int tap_functional(tap *ap, uint8_t intf_id, uint16_t cport);

/* ---- raw access for error-path tests ---- */

/* A synchronous SVC operation, validated like gb_operation_sync (exact response size). */
int tap_svc_op(tap *ap, uint8_t type, const void *req, size_t req_len, void *resp,
               size_t resp_len);
/* A request on a module connection by hd CPort (the connection must exist, any state). */
int tap_conn_op(tap *ap, uint16_t hd_cport, uint8_t type, const void *req, size_t req_len,
                void *resp, size_t resp_len);
/* Sends bytes as they are to the bridge on hd_cport (no AP bookkeeping). */
void tap_send_raw(tap *ap, uint16_t hd_cport, const uint8_t *msg, size_t len);
/* Answers the SVC: last result the AP returned to an SVC request (GB_OP_*). */
uint8_t tap_last_svc_request_result(const tap *ap);

#endif
