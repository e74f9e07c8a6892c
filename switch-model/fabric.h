// SPDX-License-Identifier: MIT
// The switch fabric: the one way a Greybus message crosses gbvp. Its endpoints sit on the
// switch's ports (the AP bridge, the SVC, one module interface per slot; the port of
// interface i is i, the SVC's is the last); the SVC programs it the way Ara's SVC programmed
// the Toshiba switch and the bridges: each endpoint's DeviceID, the routing table, and the
// connections between CPorts. A message goes endpoint -> fabric -> endpoint: the fabric
// follows the sending CPort's connection to its peer, lets the routing table decide whether
// the switch forwards it, and delivers it at once (direct) or after it has crossed the
// modelled UniPro links and switch (frame or message level), one choice made at creation.
//
// A message enters as a gb_msg whose header the sender parsed once; the fabric never parses
// it again. Direct delivery hands the sender's bytes to the receiver (no copy); the timed
// models keep one copy while the message travels. Messages in flight to or from an
// endpoint that was unplugged or reset since they were sent are dropped on arrival, as a
// link reset discards what it carries.
//
// Sans-IO: time comes from the scheduler, output goes to the endpoints' receive functions
// and to the log sink.
#ifndef GBVP_SWITCH_MODEL_FABRIC_H
#define GBVP_SWITCH_MODEL_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event-kernel/scheduler.h"
#include "greybus/gb_message.h"
#include "switch-model/conn_table.h"
#include "switch-model/route_table.h"
#include "switch-model/sw_log.h"
#include "unipro-model/up_link.h"
#include "unipro-model/up_phy.h"

typedef struct sw_fabric sw_fabric;

/* How messages cross the fabric. */
typedef enum sw_timing {
    SW_TIMING_DIRECT = 0, /* delivered at once, in the sender's call */
    SW_TIMING_FRAME,      /* frame-level links and switch (switch_transit.h) */
    SW_TIMING_MESSAGE,    /* message-level links and switch (switch_transit_msg.h) */
} sw_timing;

/* "off", "frame", "message" (the words of --timing). */
const char *sw_timing_name(sw_timing t);
/* 0, or -1 for a word that names no timing. */
int sw_timing_parse(const char *name, sw_timing *out);

typedef struct sw_fabric_cfg {
    unsigned ports;    /* switch ports, 3..SW_PORTS_MAX */
    unsigned ap_port;  /* the AP bridge's port (< ports - 1); the SVC is on ports - 1 */
    sw_timing timing;
    up_phy_cfg phy;    /* timed: every link until a power mode change (0 gear: PWM-G1 x1) */
    double ber;        /* timed, frame level: bit error rate on every link, [0, 0.01) */
    uint64_t seed;     /* of the fault generators (0 = 1) */
    sw_log_fn log;     /* may be NULL */
    void *log_ctx;
} sw_fabric_cfg;

/* An endpoint: what the fabric hands it. `m` (header parsed, bytes) is valid only during
 * the call; `cport` is the endpoint's own CPort the message arrived on. */
typedef struct sw_endpoint {
    void (*receive)(void *ctx, uint16_t cport, const gb_msg *m, sim_time now);
    void *ctx;
} sw_endpoint;

/* NULL with a reason in err (bad configuration, no memory). The caller owns the result;
 * free it before the scheduler. */
sw_fabric *sw_fabric_new(const sim_scheduler *s, const sw_fabric_cfg *cfg, char *err,
                         size_t errlen);
void sw_fabric_free(sw_fabric *f);
const sw_fabric_cfg *sw_fabric_get_cfg(const sw_fabric *f);
unsigned sw_fabric_svc_port(const sw_fabric *f);

/* ---- endpoints ---- */

/* Plugs an endpoint into `port` (replacing any). It can send and receive once the SVC has
 * made it reachable (the AP bridge and the SVC are reachable while attached). */
int sw_fabric_attach(sw_fabric *f, unsigned port, const sw_endpoint *ep);
/* Unplugs it: nothing reaches it any more and what is in flight to or from it is dropped
 * on arrival. Its connections and DeviceID stay until the SVC removes them. Frame level:
 * its link stays up until an endpoint is attached again (HIBERNATE/OFF ignored), so what
 * is still queued for it drains instead of blocking the switch (sw_transit_unplug). */
void sw_fabric_detach(sw_fabric *f, unsigned port);
/* The endpoint was reset (the AP bridge between two AP sessions): as detach for what is in
 * flight, but it stays attached. */
void sw_fabric_reset(sw_fabric *f, unsigned port);

/* ---- what the SVC programs ---- */

/* N_DeviceID of the endpoint on `port` (0 = none). 0 or -EINVAL. */
int sw_fabric_set_device_id(sw_fabric *f, unsigned port, uint8_t device_id);
uint8_t sw_fabric_device_id(const sw_fabric *f, unsigned port);
/* Whether the endpoint on a module port can carry traffic (present, powered, link up,
 * activated, not hibernated). A timed link that becomes reachable leaves HIBERN8 (or
 * powers up) as INTF_RESUME and INTF_ACTIVATE bring it out. */
void sw_fabric_set_reachable(sw_fabric *f, unsigned port, bool reachable);
bool sw_fabric_reachable(const sw_fabric *f, unsigned port);
/* The routing table the SVC programs (ROUTE_CREATE / ROUTE_DESTROY). */
sw_route_table *sw_fabric_routes(sw_fabric *f);
/* Connections (CONN_CREATE / CONN_DESTROY), as conn_table.h. */
int sw_fabric_connect(sw_fabric *f, const sw_conn *c);
int sw_fabric_disconnect(sw_fabric *f, unsigned port1, uint16_t cport1, unsigned port2,
                         uint16_t cport2);
const sw_conn_table *sw_fabric_connections(const sw_fabric *f);
/* The 63-byte INTF_SET_PWRM request for the link of `port` (timed models; nothing happens
 * with direct delivery). 0 or -errno. */
int sw_fabric_power_mode(sw_fabric *f, unsigned port, const uint8_t *req, size_t len);

/* ---- the data path ---- */

typedef enum sw_verdict {
    SW_VERDICT_OK = 0,
    SW_VERDICT_NO_CONNECTION, /* the sending CPort is in no connection */
    SW_VERDICT_NO_ROUTE,      /* no DeviceID on an end, or the routing table drops it */
    SW_VERDICT_PEER_GONE,     /* an end is not attached or not reachable */
} sw_verdict;

const char *sw_verdict_name(sw_verdict v);

/* Sends `m` from CPort `cport` of the endpoint on `port`. SW_VERDICT_OK when it is on its
 * way (direct: delivered before this returns); otherwise it was dropped, counted and
 * logged. The fabric does not keep `m` after the call. */
sw_verdict sw_fabric_send(sw_fabric *f, unsigned port, uint16_t cport, const gb_msg *m);

/* ---- statistics ---- */

/* Message directions the fabric counts. */
typedef enum sw_dir {
    SW_DIR_AP_TO_INTF,
    SW_DIR_INTF_TO_AP,
    SW_DIR_AP_TO_SVC,
    SW_DIR_SVC_TO_AP,
    SW_DIR_INTF_TO_INTF,
    SW_DIRS
} sw_dir;

const char *sw_dir_name(sw_dir d);

typedef struct sw_dir_stats {
    uint64_t sent_msgs, sent_bytes, delivered_msgs, delivered_bytes;
    sim_time last_latency; /* of the last message delivered, ps */
} sw_dir_stats;

typedef struct sw_fabric_stats {
    uint64_t to_ap, to_intf, to_svc; /* messages delivered to each kind of endpoint */
    uint64_t dropped;                /* refused at sending or gone on arrival */
    uint64_t untimed;                /* refused by the timed model, delivered at once */
} sw_fabric_stats;

sw_fabric_stats sw_fabric_get_stats(const sw_fabric *f);
sw_dir_stats sw_fabric_dir_stats(const sw_fabric *f, sw_dir d);
/* ---- observing (captures) ---- */

/* One message the fabric delivered, or refused (verdict not OK). */
typedef struct sw_observed {
    sw_dir dir;
    unsigned from, to;         /* switch ports; to = SW_FABRIC_NO_PORT when no peer was known */
    uint8_t src_dev, dst_dev;  /* DeviceIDs (0: none) */
    uint16_t src_cport, dst_cport; /* dst_cport = 0xffff when no peer was known */
    uint8_t tc;                /* traffic class of the connection */
    sw_verdict verdict;
    sim_time sent, at;         /* handed to the fabric; delivered (or refused) */
    const gb_msg *m;           /* valid during the call */
} sw_observed;

#define SW_FABRIC_NO_PORT 0xffu

typedef void (*sw_observer_fn)(void *ctx, const sw_observed *ev);
/* Calls fn for every message delivered or refused from now on (NULL: stop). One observer. */
void sw_fabric_set_observer(sw_fabric *f, sw_observer_fn fn, void *ctx);

/* A modelled link changed state (frame-level timing: start-up, up, down, power mode change,
 * HIBERN8 and its exit), with its mode then. */
typedef struct sw_link_event {
    unsigned port;
    up_link_state state;
    up_phy_cfg phy;
    sim_time at;
} sw_link_event;

typedef void (*sw_link_observer_fn)(void *ctx, const sw_link_event *ev);
/* Calls fn for every link state change from now on (NULL: stop); nothing happens with
 * direct delivery or the message level. One observer. */
void sw_fabric_set_link_observer(sw_fabric *f, sw_link_observer_fn fn, void *ctx);

/* A data-link frame, AFC or NAC that crossed the link of `port` (frame-level timing). */
typedef struct sw_frame_event {
    unsigned port;
    bool to_switch;     /* from the endpoint toward the switch, else from the switch */
    up_dl_event dl;
} sw_frame_event;

typedef void (*sw_frame_observer_fn)(void *ctx, const sw_frame_event *ev);
/* Calls fn for every frame from now on (NULL: stop); frame-level timing only. */
void sw_fabric_set_frame_observer(sw_fabric *f, sw_frame_observer_fn fn, void *ctx);
/* Frames waiting in the switch's input buffer of `port` (frame-level timing; else 0). */
unsigned sw_fabric_switch_queued(const sw_fabric *f, unsigned port);

/* Messages sent and not yet delivered or dropped. */
size_t sw_fabric_in_flight(const sw_fabric *f);

/* ---- the links of a timed fabric ---- */

/* A fault on a modelled link. Only the fields with set_* change. */
typedef struct sw_link_fault {
    bool set_ber, set_drop, set_down;
    double ber, drop;  /* [0, 0.01) / [0, 1) */
    bool down;         /* link down (frames on the wire lost) or up again (start-up, replay) */
    sim_time delay;    /* apply this much simulated time from now (0: at once) */
    sim_time down_for; /* with down: the link comes up again this long after going down */
} sw_link_fault;

#define SW_FABRIC_TIMED_FAULTS 16 /* faults waiting for their time, at most */

/* A link as it is now, both directions summed. */
typedef struct sw_link_info {
    up_phy_cfg phy;
    const char *state; /* "up", "down", "hibern8", ... */
    double ber, drop;
    uint64_t frames, replays, replay_timeouts, crc_errors, dropped, duplicates;
} sw_link_info;

/* Runtime control of the link of `port` (frame level; the link exists once the port first
 * carried traffic). 0, or -errno with the reason in err: -ENOTSUP without a frame-level
 * model, -ENODEV before the link exists, -EINVAL for a bad setting, -EBUSY while a change
 * is in progress. */
int sw_fabric_link_set(sw_fabric *f, unsigned port, const up_phy_cfg *phy, char *err,
                       size_t errlen);
int sw_fabric_link_fault(sw_fabric *f, unsigned port, const sw_link_fault *fault, char *err,
                         size_t errlen);
int sw_fabric_link_info(const sw_fabric *f, unsigned port, sw_link_info *out, char *err,
                        size_t errlen);
/* The mode of the link of `port` (timed models); false before it exists. */
bool sw_fabric_link_mode(const sw_fabric *f, unsigned port, up_phy_cfg *out);
/* Replays on every link, both ways. */
uint64_t sw_fabric_replays(const sw_fabric *f);

/* Parses --gear (HS-G1B, HS-G2, PWM-G1 ...), --series (A or B, for a gear given without
 * one; may be NULL) and --lanes (1 or 2; may be NULL) over c, within what the Ara switch
 * and bridges support. 0 or -EINVAL with the reason in err. */
int sw_link_parse(up_phy_cfg *c, const char *gear, const char *series, const char *lanes,
                  char *err, size_t errlen);

/* ---- reports (fabric_report.c) ---- */

/* Human-readable summary: directions with latencies, then every link. */
void sw_fabric_print(const sw_fabric *f, FILE *out);
/* The timed model's statistics as one JSON object. 0 or -EIO. */
int sw_fabric_write_json(const sw_fabric *f, FILE *out);

#endif
