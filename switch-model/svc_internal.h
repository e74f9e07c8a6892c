// SPDX-License-Identifier: MIT
// The SVC's private state, shared by svc.c (handshake, outgoing requests), svc_ops.c (the
// AP's requests), svc_pwrmon.c and svc_slots.c. Not for other parts.
#ifndef GBVP_SWITCH_MODEL_SVC_INTERNAL_H
#define GBVP_SWITCH_MODEL_SVC_INTERNAL_H

#include "switch-model/svc.h"
#include "greybus/svc_protocol.h"

#define SVC_EVENTS_MAX 128u
#define SVC_ROUTES_MAX 64u
#define SVC_AP_TIMEOUT SIM_MS(1000)
#define SVC_WATCHDOG_SILENCE SIM_MS(6000) /* three missed 2 s pings */

typedef struct svc_intf {
    bool present;
    const gb_svc_intf_ops *ops;
    void *self;
    bool vsys, refclk, unipro, active, hibernated;
    uint8_t device_id; /* 0 = none */
    uint8_t pwrm[GB_SVC_INTF_SET_PWRM_SIZE];
    bool pwrm_set;
    unsigned activations, resumes;
    unsigned module_slot; /* primary slot of the module holding it */
} svc_intf;

typedef struct svc_module {
    bool used;
    unsigned width;
    char name[48];
} svc_module; /* indexed by primary slot */

typedef struct svc_event {
    uint8_t type;
    uint8_t payload[8];
    uint8_t len;
} svc_event;

typedef struct svc_route {
    uint8_t intf1, dev1, intf2, dev2;
} svc_route;

typedef enum svc_handshake {
    SVC_HS_IDLE,
    SVC_HS_VERSION,
    SVC_HS_HELLO,
    SVC_HS_READY,
    SVC_HS_FAILED,
} svc_handshake;

struct gb_svc {
    gb_svc_config cfg;
    gb_svc_env env;
    sw_fabric *fabric;
    unsigned port; /* its own switch port */
    sim_time now;

    svc_handshake hs;
    uint16_t next_op_id;
    /* the one SVC -> AP request in flight */
    bool pending;
    uint16_t pending_id;
    uint8_t pending_type;
    uint8_t pending_payload[8];
    sim_time pending_since;

    svc_event events[SVC_EVENTS_MAX];
    size_t ev_head, ev_count;

    sim_time last_ping;
    bool watchdog_warned;

    svc_intf intfs[GB_SVC_SLOTS_MAX];
    svc_module modules[GB_SVC_SLOTS_MAX];
    void *slot_self[GB_SVC_SLOTS_MAX]; /* interface object per slot (owner's handle) */
    void (*released)(void *ctx, unsigned slot, void *const *intfs, unsigned width);
    void *released_ctx;

    uint8_t ap_pwrm[GB_SVC_INTF_SET_PWRM_SIZE];
    bool ap_pwrm_set;

    svc_route route_list[SVC_ROUTES_MAX];
    size_t route_count;

    gb_svc_stats stats;
};

/* svc.c */
void svc_log(gb_svc *svc, sw_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void svc_queue_event(gb_svc *svc, uint8_t type, const uint8_t *payload, uint8_t len);
/* Drops a queued (not yet sent) MODULE_INSERTED for module id m; true when found. */
bool svc_unqueue_inserted(gb_svc *svc, uint8_t m);
void svc_pump(gb_svc *svc);
void svc_send_response(gb_svc *svc, const gb_msg_header *req, uint8_t result,
                       const void *payload, size_t plen);
/* The interface at intf_id when it is a slot position (present or not), else NULL. */
svc_intf *svc_intf_at(gb_svc *svc, uint8_t intf_id);
const svc_intf *svc_intf_at_const(const gb_svc *svc, uint8_t intf_id);
unsigned svc_port_of(const gb_svc *svc, uint8_t intf_id);
/* true when intf_id is the AP or a slot position. */
bool svc_intf_known(const gb_svc *svc, uint8_t intf_id);
/* The interface is present, powered, linked, activated and not hibernated. */
bool svc_intf_linked(const svc_intf *in);
void svc_intf_power(gb_svc *svc, svc_intf *in, gb_svc_power_event ev);
/* Tells the fabric which interfaces can carry traffic now (after anything that changed
 * their power, activation or presence). */
void svc_sync_fabric(gb_svc *svc);
/* The interface's DeviceID, recorded and programmed into the fabric. */
void svc_set_device_id(gb_svc *svc, uint8_t intf_id, svc_intf *in, uint8_t dev);

/* svc_ops.c: one request from the AP on the SVC connection (header already decoded). */
void svc_handle_request(gb_svc *svc, const gb_msg_header *h, const uint8_t *payload,
                        size_t plen);

/* svc_pwrmon.c */
void svc_pwrmon_request(gb_svc *svc, const gb_msg_header *h, const uint8_t *payload,
                        size_t plen);

/* svc_slots.c */
void svc_slots_announce_all(gb_svc *svc);
void svc_slot_release(gb_svc *svc, unsigned slot, bool ejected);

#endif
