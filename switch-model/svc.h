// SPDX-License-Identifier: MIT
// The SVC: the Greybus SVC protocol as Linux 6.1 drives it, the frame's slots and hot-plug,
// and the control of the switch fabric (fabric.h): it gives the endpoints their DeviceIDs,
// programs the routing table and the connections, makes interfaces reachable as it powers
// and activates them, and turns INTF_SET_PWRM into link changes. It is an endpoint of the
// fabric itself (on the switch's last port, its CPort 0 statically connected to the AP
// bridge's hd CPort 0), never a hop on the data path.
//
// Sans-IO: the owner feeds it slot changes (gb_svc_insert / gb_svc_remove) and the time
// (gb_svc_tick); messages from the AP arrive through the fabric; everything the SVC says
// leaves through the fabric, and what it does through the log sink. Nothing here sleeps,
// reads a clock or touches a socket.
//
// Numbering (docs/svc.md): the AP bridge is interface ap_intf_id (default 1) with DeviceID
// 1; slot s (0-based) holds interface id first_intf_id + s (default 2 + s); a module of
// width k in slot s has interfaces M..M+k-1 where M = its primary id. The switch port of
// interface i is i; the SVC sits on the last port.
#ifndef GBVP_SWITCH_MODEL_SVC_H
#define GBVP_SWITCH_MODEL_SVC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"
#include "switch-model/fabric.h"
#include "switch-model/sw_log.h"

typedef struct gb_svc gb_svc;

#define GB_SVC_SLOTS_MAX 29u /* DeviceIDs 2..31 bound the interfaces the AP can route */

/* What the SVC does to a module interface's power and link (the "power events"). */
typedef enum gb_svc_power_event {
    GB_SVC_PWR_VSYS_ON,
    GB_SVC_PWR_VSYS_OFF,
    GB_SVC_PWR_REFCLK_ON,
    GB_SVC_PWR_REFCLK_OFF,
    GB_SVC_PWR_UNIPRO_ON,
    GB_SVC_PWR_UNIPRO_OFF,
    GB_SVC_PWR_ACTIVATE, /* the interface boots (it re-arms its init status) */
    GB_SVC_PWR_HIBERNATE,
    GB_SVC_PWR_RESUME,
} gb_svc_power_event;

const char *gb_svc_power_event_name(gb_svc_power_event ev);

/* A module interface as the SVC reaches it: the operations an interface model provides.
 * `self` is the interface object. dme_get / dme_set return a UniPro DME result code
 * (0 success, 1 invalid attribute, ...). */
typedef struct gb_svc_intf_ops {
    /* GB_SVC_INTF_TYPE_GREYBUS, _UNIPRO or _DUMMY: what INTF_ACTIVATE will report. */
    uint8_t (*intf_type)(void *self);
    uint16_t (*dme_get)(void *self, uint16_t attr, uint16_t selector, uint32_t *value);
    uint16_t (*dme_set)(void *self, uint16_t attr, uint16_t selector, uint32_t value);
    void (*power)(void *self, gb_svc_power_event ev, sim_time now);
    /* CPort set up by CONN_CREATE / torn down by CONN_DESTROY: 0 or a negative errno
     * (-ENOENT for a CPort the interface does not have). */
    int (*cport_connect)(void *self, uint16_t cport, uint8_t peer_device_id,
                         uint16_t peer_cport, uint8_t tc, uint8_t flags, sim_time now);
    void (*cport_disconnect)(void *self, uint16_t cport, sim_time now);
    /* Power drawn while V_SYS is on, in microwatts (for PWRMON); may be NULL. */
    uint32_t (*power_uw)(void *self);
} gb_svc_intf_ops;

/* The SVC's surroundings. */
typedef struct gb_svc_env {
    sw_log_fn log; /* may be NULL */
    void *ctx;
} gb_svc_env;

typedef struct gb_svc_config {
    unsigned num_slots;      /* 1..GB_SVC_SLOTS_MAX */
    uint16_t endo_id;        /* 0 = GB_SVC_ENDO_ID_DEFAULT (0x4755) */
    uint8_t ap_intf_id;      /* 0 = the fabric's AP port */
    uint8_t first_intf_id;   /* interface id of slot 0; 0 = ap_intf_id + 1 */
    uint16_t ap_cport_count; /* hd CPorts of the AP bridge; 0 = 44 (APBridgeA) */
    bool no_pwrmon_rails;    /* answer PWRMON_RAIL_COUNT_GET with 0 */
} gb_svc_config;

/* An SVC controlling `fabric` (borrowed; it must outlive the SVC), attached to it on its
 * last port. NULL with a reason in err when the configuration does not fit the fabric or
 * memory ran out. The caller owns the result (gb_svc_free). env is copied. */
gb_svc *gb_svc_new(const gb_svc_config *cfg, const gb_svc_env *env, sw_fabric *fabric,
                   char *err, size_t errlen);
void gb_svc_free(gb_svc *svc);

/* The AP bridge's SVC connection is up: send PROTOCOL_VERSION (then HELLO once answered).
 * Calling it again restarts the handshake (a new AP instance, e.g. after re-plugging). The
 * AP's requests arrive through the fabric on the SVC's CPort 0. */
void gb_svc_start(gb_svc *svc, sim_time now);
/* The AP went away (bridge unplugged): forget the handshake and everything the AP set up
 * (routes, connections, device ids); modules stay in their slots. */
void gb_svc_ap_lost(gb_svc *svc, sim_time now);

/* Lets time pass: notices AP requests left unanswered for over 1 s, logs a silent AP
 * watchdog. Call it at least every second of simulated time or on any event. */
void gb_svc_tick(gb_svc *svc, sim_time now);

/* ---- slots and hot-plug ---- */

/* Inserts a module of `width` interfaces into slots slot..slot+width-1. ops/intfs give its
 * interfaces in order (intfs[i] becomes interface id first_intf_id + slot + i). `name` is
 * for the log. The SVC tells the AP (MODULE_INSERTED) as soon as the handshake is done.
 * 0, -EINVAL (bad slot range or width 0), -EBUSY (a slot is occupied). The SVC does not
 * own the interfaces; they must stay valid until removed. */
int gb_svc_insert(gb_svc *svc, unsigned slot, unsigned width, const char *name,
                  const gb_svc_intf_ops *ops, void *const *intfs, sim_time now);
/* Removes the module whose slots include `slot`: its interfaces stop at once (no power,
 * no traffic), and the AP hears MODULE_REMOVED (unless it never heard MODULE_INSERTED).
 * 0 or -ENOENT (empty slot). */
int gb_svc_remove(gb_svc *svc, unsigned slot, sim_time now);
/* The interface objects of the module in `slot` (for the owner to free after removal):
 * fills up to max entries, returns the module's width, 0 for an empty slot. */
unsigned gb_svc_slot_interfaces(const gb_svc *svc, unsigned slot, void **intfs, unsigned max);
/* Called back when the AP ejected a module (INTF_EJECT) and the SVC released it, so the
 * owner can free it. May be NULL. */
void gb_svc_set_release_hook(gb_svc *svc,
                             void (*released)(void *ctx, unsigned slot, void *const *intfs,
                                              unsigned width),
                             void *ctx);

/* An interface wrote its mailbox (mode switch done): the SVC reports INTF_MAILBOX_EVENT.
 * An interface crashed: INTF_OOPS. 0, -ENOENT when no interface has that id, -ENOTCONN
 * before the handshake with the AP is done. */
int gb_svc_intf_mailbox(gb_svc *svc, uint8_t intf_id, uint32_t value, sim_time now);
int gb_svc_intf_oops(gb_svc *svc, uint8_t intf_id, uint8_t reason, sim_time now);

/* ---- inspection (tests, control socket, log) ---- */

typedef struct gb_svc_stats {
    uint64_t ap_requests, ap_bad_requests, svc_requests_sent, ap_timeouts, pings;
} gb_svc_stats;

typedef struct gb_svc_intf_info {
    bool present;                  /* a module's interface sits here */
    bool vsys, refclk, unipro, active, hibernated;
    uint8_t device_id;             /* 0 = none */
    uint8_t tx_mode, rx_mode;      /* last INTF_SET_PWRM, 0 = never */
    uint8_t slot;
    unsigned activations, resumes;
} gb_svc_intf_info;

bool gb_svc_handshake_done(const gb_svc *svc);
/* The latest time the SVC was given. */
sim_time gb_svc_now(const gb_svc *svc);
gb_svc_stats gb_svc_get_stats(const gb_svc *svc);
/* false for an id outside the frame. */
bool gb_svc_get_intf(const gb_svc *svc, uint8_t intf_id, gb_svc_intf_info *out);
uint8_t gb_svc_slot_intf_id(const gb_svc *svc, unsigned slot);
unsigned gb_svc_num_slots(const gb_svc *svc);
/* Where a link setting takes a slot, this value stands for the AP bridge's own link (the
 * switch port of gb_svc_ap_intf_id). */
#define GB_SVC_SLOT_AP 0xffffffffu
uint8_t gb_svc_ap_intf_id(const gb_svc *svc);
/* Power mode of the AP's own link as last set (0 = never). */
uint8_t gb_svc_ap_link_tx_mode(const gb_svc *svc);
/* The fabric it controls. */
sw_fabric *gb_svc_fabric(const gb_svc *svc);
/* Number of hot-plug events not yet acknowledged by the AP. */
size_t gb_svc_pending_events(const gb_svc *svc);

#endif
