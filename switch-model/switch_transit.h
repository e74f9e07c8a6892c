// SPDX-License-Identifier: MIT
// The timed network behind the SVC's `transit` and `power_mode` hooks (svc.h): every
// Greybus message the SVC resolved to a path crosses a modelled UniPro network (a node per
// switch port in use, its link, the timed switch) and is handed back for delivery when its
// last segment has arrived; INTF_SET_PWRM requests change the power mode of the
// interface's link (FAST/FAST_AUTO: HS gear, SLOW/SLOW_AUTO: PWM, HIBERNATE: HIBERN8, OFF:
// link down), taking the modelled time.
//
// Wiring (in the program that owns the SVC): create the transit on the same scheduler the
// SVC's `now` follows, set gb_svc_env.transit and .power_mode to small functions calling
// sw_transit_message() and sw_transit_power_mode(), and pass a deliver function that calls
// gb_svc_path_deliver(svc, path, msg, len, now).
#ifndef GBVP_SWITCH_MODEL_SWITCH_TRANSIT_H
#define GBVP_SWITCH_MODEL_SWITCH_TRANSIT_H

#include <stddef.h>
#include <stdint.h>

#include "switch-model/svc.h"
#include "switch-model/switch.h"
#include "unipro-model/up_link.h"

typedef struct sw_transit sw_transit;

/* Called when a message has crossed the network, `sent` being when it was handed to the
 * network; `msg` lives only during the call. */
typedef void (*sw_transit_deliver_fn)(void *ctx, const gb_svc_path *p, const uint8_t *msg,
                                      size_t len, sim_time sent, sim_time now);

typedef struct sw_transit_cfg {
    sw_switch_cfg sw;        /* ports: one per interface + the SVC's */
    up_link_cfg link;        /* every link when it first carries traffic */
    unsigned cports;         /* CPorts per node (hd CPorts of the AP bridge included) */
} sw_transit_cfg;

/* 15-port switch, HS-G3B x2 links (the Ara setting), 64 CPorts per node. */
sw_transit_cfg sw_transit_cfg_default(void);

/* NULL on a bad config or no memory. */
sw_transit *sw_transit_new(up_env *env, const sw_transit_cfg *cfg, sw_transit_deliver_fn fn,
                           void *ctx);
void sw_transit_free(sw_transit *t);

/* The transit hook: sends msg from path->src_intf's node to path->dst_intf's. 0, -EINVAL
 * (a port outside the switch, a CPort beyond cfg.cports) or -ENOMEM. */
int sw_transit_message(sw_transit *t, const gb_svc_path *p, const uint8_t *msg, size_t len);
/* The power_mode hook: the 63-byte INTF_SET_PWRM request for intf_id. Applied to the
 * interface's link (once the interface has been seen on a port; remembered until then).
 * 0, -EINVAL (short request or bad mode/gear/lanes) or -EBUSY (a change in progress). */
int sw_transit_power_mode(sw_transit *t, uint8_t intf_id, const uint8_t *req, size_t len);

sw_switch *sw_transit_switch(sw_transit *t);
/* The link of a switch port (NULL until it first carried traffic). */
up_link *sw_transit_link(sw_transit *t, unsigned port);

#endif
