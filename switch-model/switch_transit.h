// SPDX-License-Identifier: MIT
// The frame-level crossing of the fabric (fabric.h): a message from one switch port's
// endpoint to another's crosses the modelled UniPro network (a node per switch port in use,
// its link, the timed switch) and is handed back when its last segment has arrived;
// INTF_SET_PWRM requests change the power mode of a port's link (FAST/FAST_AUTO: HS gear,
// SLOW/SLOW_AUTO: PWM, HIBERNATE: HIBERN8, OFF: link down), taking the modelled time.
#ifndef GBVP_SWITCH_MODEL_SWITCH_TRANSIT_H
#define GBVP_SWITCH_MODEL_SWITCH_TRANSIT_H

#include <stddef.h>
#include <stdint.h>

#include "switch-model/switch.h"
#include "unipro-model/up_link.h"

typedef struct sw_transit sw_transit;

/* Where one message crosses the switch: from CPort src_cport of the node on port in_port
 * (DeviceID src_dev) to CPort dst_cport of the node on out_port (DeviceID dst_dev). */
typedef struct sw_hop {
    unsigned in_port, out_port;
    uint8_t src_dev, dst_dev;
    uint16_t src_cport, dst_cport;
} sw_hop;

/* Called when a message has crossed the network, `sent` being when it was handed to the
 * network and `msg_ctx` what the sender passed with it; `msg` lives only during the
 * call. */
typedef void (*sw_transit_deliver_fn)(void *ctx, void *msg_ctx, const uint8_t *msg, size_t len,
                                      sim_time sent, sim_time now);

typedef struct sw_transit_cfg {
    sw_switch_cfg sw;        /* ports: one per interface + the SVC's */
    up_link_cfg link;        /* every link when it first carries traffic */
    unsigned cports;         /* CPorts per node (hd CPorts of the AP bridge included) */
} sw_transit_cfg;

/* 15-port switch, HS-G3B x2 links (the Ara setting), 64 CPorts per node. */
sw_transit_cfg sw_transit_cfg_default(void);

/* Called when the link of `port` changes state (start-up, up, down, power mode change,
 * HIBERN8 and its exit), with its mode then and the time. */
typedef void (*sw_transit_link_fn)(void *ctx, unsigned port, up_link_state state,
                                   const up_phy_cfg *phy, sim_time now);

/* Called for every data-link frame, AFC and NAC that crossed the link of `port`, toward the
 * switch (from the endpoint's node) or from it. */
typedef void (*sw_transit_frame_fn)(void *ctx, unsigned port, bool to_switch,
                                    const up_dl_event *ev);

/* NULL on a bad config or no memory. */
sw_transit *sw_transit_new(up_env *env, const sw_transit_cfg *cfg, sw_transit_deliver_fn fn,
                           void *ctx);
void sw_transit_free(sw_transit *t);
/* One observer of link state changes (NULL: none). */
void sw_transit_set_link_observer(sw_transit *t, sw_transit_link_fn fn, void *ctx);
/* One observer of frames (NULL: none); links made later are observed too. */
void sw_transit_set_frame_observer(sw_transit *t, sw_transit_frame_fn fn, void *ctx);

/* Sends msg (copied) along the hop. 0, -EINVAL (a port outside the switch, a CPort beyond
 * cfg.cports) or -ENOMEM. */
int sw_transit_message(sw_transit *t, const sw_hop *h, const uint8_t *msg, size_t len,
                       void *msg_ctx);
/* The 63-byte INTF_SET_PWRM request for the link of `port`: applied to it, or remembered
 * until the port first carries traffic. 0, -EINVAL (short request or bad mode/gear/lanes)
 * or -EBUSY (a change in progress). */
int sw_transit_power_mode(sw_transit *t, unsigned port, const uint8_t *req, size_t len);

/* The endpoint on `port` became reachable (INTF_ACTIVATE, INTF_RESUME): its link leaves
 * HIBERN8 or powers up; a hibernation remembered before the link existed is forgotten. */
void sw_transit_wake(sw_transit *t, unsigned port);

/* The endpoint on `port` was unplugged (true) or a new one plugged in (false). While
 * unplugged its link stays up as a sink: HIBERNATE and OFF requests for it are ignored and
 * a link in HIBERN8 or down comes up again, so that the frames the switch and the senders
 * still hold for the port drain and are dropped at the far end instead of holding the
 * switch input ports they wait in (head-of-line) forever. Why: docs/timing-in-sim.md,
 * "Links of unplugged modules". */
void sw_transit_unplug(sw_transit *t, unsigned port, bool unplugged);

sw_switch *sw_transit_switch(sw_transit *t);
/* The link of a switch port (NULL until it first carried traffic). */
up_link *sw_transit_link(sw_transit *t, unsigned port);
/* Frames waiting in the switch's input buffer of `port` (both traffic classes). */
unsigned sw_transit_queued(const sw_transit *t, unsigned port);

#endif
