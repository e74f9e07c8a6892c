// SPDX-License-Identifier: MIT
// The test AP's private state (ap.h): host device, SVC connection, modules,
// interfaces, bundles and connections, mirroring the 6.1 kernel's objects.
#ifndef GBVP_AP_MODEL_AP_INTERNAL_H
#define GBVP_AP_MODEL_AP_INTERNAL_H

#include <errno.h>
#include <stdarg.h>

#include "ap-model/ap.h"
#include "greybus/svc_protocol.h"
#include "virtual-modules/manifest.h"

#define TAP_MAX_CPORTS 256
#define TAP_MAX_MODULES 32
#define TAP_MAX_BUNDLES 16
#define TAP_MAX_PENDING 8
#define TAP_MAX_MODULE_INTFS 29 /* DeviceIDs 2..31 bound the interfaces of a frame */

/* Connection states of drivers/greybus/connection.c. */
typedef enum tap_conn_state {
    TAP_CONN_DISABLED,
    TAP_CONN_ENABLED_TX,
    TAP_CONN_DISCONNECTING,
    TAP_CONN_ENABLED,
} tap_conn_state;

typedef struct tap_conn {
    bool used;
    uint16_t hd_cport;
    uint8_t intf_id; /* 0 for the static SVC connection */
    uint16_t intf_cport;
    bool control, has_handler;
    int bundle;      /* index in the interface's bundles, -1 for control/SVC */
    uint8_t protocol;
    tap_conn_state state;
    unsigned cycle;  /* operation id counter (op_cycle) */
} tap_conn;

/* Interface quirks of interface.c. */
#define TAPQ_NO_CPORT_FEATURES 0x01u
#define TAPQ_FORCED_DISABLE 0x02u
#define TAPQ_LEGACY_MODE_SWITCH 0x04u
#define TAPQ_NO_BUNDLE_ACTIVATE 0x08u
#define TAPQ_NO_PM 0x10u
#define TAPQ_NO_INIT_STATUS 0x20u
#define TAPQ_NO_GMP_IDS 0x40u

typedef struct tap_bundle {
    uint8_t id, class_id;
    bool bound, suspended;
    unsigned ncports;
    uint16_t cports[16];
    uint8_t protocols[16];
    uint16_t hd_cports[16]; /* connections the driver created (0 = none) */
} tap_bundle;

typedef struct tap_intf {
    uint8_t id;
    bool registered, active, enabled, disconnected, removed, ejected, suspended;
    bool dme_read, mode_switch, mode_switch_done;
    uint8_t type; /* 0xff invalid (never activated) */
    uint8_t device_id;
    uint32_t quirks;
    uint32_t ddbl1_mfr, ddbl1_prod, vendor_id, product_id;
    uint64_t serial;
    int activate_error, enable_error;
    uint16_t control_hd_cport; /* 0 = no control connection object */
    uint8_t control_major, control_minor;
    unsigned nbundles;
    tap_bundle bundles[TAP_MAX_BUNDLES]; /* manifest order */
} tap_intf;

typedef struct tap_module {
    bool used, disconnected;
    uint8_t id;
    unsigned num;
    /* num interfaces, allocated when the module is added and kept (unused) after it goes
     * until the slot takes another module: the AP stays small until modules arrive */
    tap_intf *intfs;
} tap_module;

typedef struct tap_msg {
    uint16_t cport;
    uint16_t len;
    uint8_t data[GB_MSG_MAX_SIZE];
} tap_msg;

typedef struct tap_pending {
    uint16_t cport, id;
    bool done;
    tap_msg msg;
} tap_pending;

typedef enum tap_work_kind {
    TAP_WORK_HELLO,
    TAP_WORK_INSERTED,
    TAP_WORK_REMOVED,
    TAP_WORK_MAILBOX,
    TAP_WORK_OOPS,
} tap_work_kind;

typedef struct tap_work {
    tap_work_kind kind;
    uint8_t a, b;
    uint32_t v;
} tap_work;

typedef enum tap_svc_state { TAP_SVC_RESET, TAP_SVC_VERSION, TAP_SVC_HELLO } tap_svc_state;

struct tap {
    tap_config cfg;
    sim_time now, next_ping;
    bool watchdog;

    /* hd */
    tap_conn conns[TAP_MAX_CPORTS]; /* indexed by hd CPort */
    uint16_t arpc_id;
    tap_svc_state svc_state;
    uint16_t endo_id;
    uint8_t ap_intf_id;
    uint32_t device_ids; /* bit i = device id i allocated */
    uint8_t last_svc_req_result;

    /* inbox */
    tap_msg *inbox;
    size_t in_head, in_count, in_cap;
    tap_pending pending[TAP_MAX_PENDING];
    size_t npending;

    /* the SVC work queue */
    tap_work work[64];
    size_t work_head, work_count;
    bool in_run;

    tap_module modules[TAP_MAX_MODULES];

    unsigned functional_ok[256];
    unsigned incoming_dropped;

    void (*step_hook)(void *ctx, tap *ap, const char *what);
    void *step_ctx;
    bool in_hook;

    char **trace;
    size_t ntrace, trace_cap;
};

/* ap.c */
void tap_trace(tap *ap, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_step(tap *ap, const char *what);
int tap_op_sync(tap *ap, tap_conn *c, uint8_t type, const void *req, size_t req_len,
                void *resp, size_t resp_len, bool core, sim_time timeout);
int tap_svc_sync(tap *ap, uint8_t type, const void *req, size_t req_len, void *resp,
                 size_t resp_len);
const char *tap_svc_type_name(uint8_t type);
tap_intf *tap_find_intf(tap *ap, uint8_t intf_id);
tap_module *tap_find_module(tap *ap, uint8_t module_id);
int tap_hd_cport_allocate(tap *ap);
void tap_arpc(tap *ap, const char *what, uint16_t cport);
void tap_cport_flags(tap *ap, uint16_t cport, uint32_t flags);
void tap_pump_incoming(tap *ap);

/* ap_conn.c: connection enable/disable as connection.c does it. */
int tap_conn_enable(tap *ap, tap_intf *in, tap_conn *c, bool rx);
void tap_conn_disable(tap *ap, tap_intf *in, tap_conn *c);
void tap_conn_disable_forced(tap *ap, tap_intf *in, tap_conn *c);
tap_conn *tap_conn_create(tap *ap, tap_intf *in, uint16_t intf_cport, bool control,
                          bool handler, int bundle, uint8_t protocol);
void tap_conn_destroy(tap *ap, tap_conn *c);
void tap_conn_mode_switch_complete(tap *ap, tap_intf *in, tap_conn *c);

/* ap_intf.c: module and interface life cycle. */
void tap_module_inserted(tap *ap, uint8_t id, uint8_t count, uint16_t flags);
void tap_module_removed(tap *ap, uint8_t id);
int tap_intf_activate(tap *ap, tap_intf *in);
void tap_intf_deactivate(tap *ap, tap_intf *in);
int tap_intf_enable(tap *ap, tap_intf *in);
void tap_intf_disable(tap *ap, tap_intf *in);
void tap_intf_mailbox(tap *ap, uint8_t intf_id, uint16_t result, uint32_t mailbox);
void tap_intf_oops(tap *ap, uint8_t intf_id, uint8_t reason);

#endif
