// SPDX-License-Identifier: MIT
// The message-level counterpart of switch_transit.h (the arithmetic of up_msg_net.h, with
// delivery of the real message): each link direction is a server sending a message's
// frames back to back (burst opening after more than burst_hold of idle, frame symbols,
// PHY TX + RX latency); the switch starts forwarding once the first frame is in and the
// forwarding latency has passed, and never finishes before the last frame could have.
// One event-kernel event per message. AFCs take their wire time on the other direction
// (up_msg_wire.h); NAC, credits, faults and arbitration are left out (use switch_transit.h
// for those). INTF_SET_PWRM changes a link's mode after the
// modelled power mode change time; HIBERNATE parks it until sw_msg_transit_wake().
#ifndef GBVP_SWITCH_MODEL_SWITCH_TRANSIT_MSG_H
#define GBVP_SWITCH_MODEL_SWITCH_TRANSIT_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "switch-model/switch_transit.h"

typedef struct sw_msg_transit sw_msg_transit;

/* `ports` switch ports, every link in mode `phy`; NULL on a bad config or no memory. */
sw_msg_transit *sw_msg_transit_new(const sim_scheduler *s, unsigned ports, const up_phy_cfg *phy,
                                   sw_transit_deliver_fn fn, void *ctx);
/* Frees it and the messages still travelling (their events are cancelled). */
void sw_msg_transit_free(sw_msg_transit *t);

/* As sw_transit_message: 0, -EINVAL (a port outside the switch) or -ENOMEM. */
int sw_msg_transit_message(sw_msg_transit *t, const sw_hop *h, const uint8_t *msg, size_t len,
                           void *msg_ctx);
/* As sw_transit_power_mode for the link of `port`. 0 or -EINVAL. */
int sw_msg_transit_power_mode(sw_msg_transit *t, unsigned port, const uint8_t *req,
                              size_t len);
/* Brings the link of `port` out of HIBERN8 (or up after OFF): usable after the exit time. */
void sw_msg_transit_wake(sw_msg_transit *t, unsigned port);
/* The link of a port: its mode and whether it is hibernated or off. */
void sw_msg_transit_link(const sw_msg_transit *t, unsigned port, up_phy_cfg *cfg, bool *parked);

#endif
