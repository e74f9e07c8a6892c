// SPDX-License-Identifier: MIT
// The timed network of `gbvp sim` (--timing frame|message): the SVC's transit and power_mode hooks
// on the frame-level UniPro model (switch-model/switch_transit.h). The AP bridge sits on
// switch port 1, the interface of slot s on port 2 + s, the SVC on the last port (DeviceID
// 0); every Greybus message between them crosses the modelled links and the switch,
// including the SVC protocol on hd CPort 0. Counts messages, bytes and latencies per
// direction and reports them with the model's link and switch counters (text or JSON).
#ifndef GBVP_SIM_GBVP_NET_H
#define GBVP_SIM_GBVP_NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/link_fault.h"
#include "event-kernel/scheduler.h"
#include "switch-model/svc.h"
#include "unipro-model/up_phy.h"

typedef struct sim_net sim_net;

/* The pseudo interface id of the SVC in paths the network carries (never a real one). */
#define SIM_NET_SVC_INTF 0u

typedef struct sim_net_cfg {
    unsigned ports;    /* switch ports; the SVC is on the last */
    uint8_t ap_intf;   /* the AP bridge's interface id = its port */
    up_phy_cfg phy;    /* every link until INTF_SET_PWRM changes it */
    double ber;        /* bit error rate on every link (0: none) */
    uint64_t seed;     /* for the fault generators */
    bool message_level; /* switch_transit_msg.h instead of the frame-level switch_transit.h */
} sim_net_cfg;

/* Called when a message has crossed the network (msg lives only during the call). */
typedef void (*sim_net_deliver_fn)(void *ctx, const gb_svc_path *p, const uint8_t *msg,
                                   size_t len, sim_time now);

/* NULL with a reason in err. The caller owns the result; free it before the scheduler. */
sim_net *sim_net_new(const sim_scheduler *sched, const sim_net_cfg *cfg, sim_net_deliver_fn fn,
                     void *ctx, char *err, size_t errlen);
void sim_net_free(sim_net *n);

/* Sends a message along p (a path from gb_svc_path_resolve, or one to or from the SVC made
 * by sim_net_svc_path). 0 or -errno (then nothing was sent). */
int sim_net_send(sim_net *n, const gb_svc_path *p, const uint8_t *msg, size_t len);
/* The path of the SVC connection: AP hd CPort 0 <-> SVC, either way. */
gb_svc_path sim_net_svc_path(const sim_net *n, bool to_svc);
/* The power_mode hook: an INTF_SET_PWRM request for intf_id. 0 or -errno. */
int sim_net_power_mode(sim_net *n, uint8_t intf_id, const uint8_t *req, size_t len);
/* Wakes the links of interfaces the SVC resumed or activated (INTF_RESUME and INTF_ACTIVATE
 * bring a link out of HIBERN8 without an INTF_SET_PWRM). Call after each SVC request. */
void sim_net_sync(sim_net *n, const gb_svc *svc);

/* Per direction: what entered the network and what came out, with latencies. */
typedef enum sim_net_dir {
    SIM_NET_AP_TO_INTF,
    SIM_NET_INTF_TO_AP,
    SIM_NET_AP_TO_SVC,
    SIM_NET_SVC_TO_AP,
    SIM_NET_INTF_TO_INTF,
    SIM_NET_DIRS
} sim_net_dir;

typedef struct sim_net_dir_stats {
    uint64_t sent_msgs, sent_bytes, delivered_msgs, delivered_bytes;
    sim_time last_latency; /* of the last message delivered, ps */
} sim_net_dir_stats;

sim_net_dir_stats sim_net_get_dir_stats(const sim_net *n, sim_net_dir dir);
const char *sim_net_dir_name(sim_net_dir dir);
/* The link of a switch port as it is now; false until the port first carried traffic. */
bool sim_net_link_cfg(const sim_net *n, unsigned port, up_phy_cfg *out);

/* Messages sent and not yet delivered. */
size_t sim_net_in_flight(const sim_net *n);
/* Replays (go-back-N resends after CRC errors or timeouts) on every link, both ways. */
uint64_t sim_net_replays(const sim_net *n);

/* Runtime control of the link of a switch port (frame-level timing only; the link exists
 * once the port first carried traffic). 0, or -errno with the reason in err. */
int sim_net_link_set(sim_net *n, unsigned port, const up_phy_cfg *phy, char *err,
                     size_t errlen);
/* Checks everything now and applies the fault at once or, with delay / down_for, as
 * events on the network's scheduler (at most SIM_NET_TIMED_FAULTS pending). */
#define SIM_NET_TIMED_FAULTS 16
int sim_net_link_fault(sim_net *n, unsigned port, const sim_link_fault *f, char *err,
                       size_t errlen);
/* The link of a switch port with its counters (both directions summed). false when the
 * port has no frame-level link (yet). */
typedef struct sim_net_link_info {
    up_phy_cfg phy;
    const char *state; /* "up", "down", ... */
    double ber, drop;
    uint64_t frames, replays, replay_timeouts, crc_errors, dropped, duplicates;
} sim_net_link_info;
bool sim_net_link_info_get(const sim_net *n, unsigned port, sim_net_link_info *out);

/* The network behind a `gbvp sim` simulator (sim/simulator.c); NULL when timing is off. */
struct sim_gbvp;
sim_net *sim_gbvp_net(struct sim_gbvp *s);
/* The link of the interface in `slot`, or the AP bridge's own link for GB_SVC_SLOT_AP
 * (sim_net_link_set / _fault / _info_get on its switch port). -ENOTSUP with the reason in
 * err when timing is off, -EINVAL for a bad slot. */
int sim_gbvp_link_set(struct sim_gbvp *s, unsigned slot, const up_phy_cfg *phy, char *err,
                      size_t errlen);
int sim_gbvp_link_fault(struct sim_gbvp *s, unsigned slot, const sim_link_fault *f, char *err,
                        size_t errlen);
int sim_gbvp_link_info(struct sim_gbvp *s, unsigned slot, sim_net_link_info *out, char *err,
                       size_t errlen);
/* The same as the report scripts and the control socket give (gbvp/scenario/scenario.h): mode and
 * state as text, the link's counters and the network's messages to and from interfaces. */
struct sim_scenario_link;
int sim_gbvp_link_report(struct sim_gbvp *s, unsigned slot, struct sim_scenario_link *out,
                         char *err, size_t errlen);

/* Human-readable summary (the `status` command). */
void sim_net_print(const sim_net *n, FILE *out);
/* The statistics as one JSON object. 0 or -errno. */
int sim_net_write_json(const sim_net *n, FILE *out);

/* Parses --gear (HS-G1B, HS-G2, PWM-G1 ...), --series (A or B, for a gear without one; may
 * be NULL) and --lanes (1 or 2; may be NULL) into c. 0 or -EINVAL with a message in err. */
int sim_net_parse_link(up_phy_cfg *c, const char *gear, const char *series, const char *lanes,
                       char *err, size_t errlen);

#endif
