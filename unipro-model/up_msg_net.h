// SPDX-License-Identifier: MIT
// The message-level mode of the UniPro timing model: each link direction is a
// server that sends a whole message as its frames back to back (same PHY arithmetic as
// the frame-level model: symbols, lanes, 8b10b, burst opening, PHY latency); a switch
// starts forwarding a message once its first frame is in and the forwarding latency has
// passed, and never finishes before the last frame could have. Two events per message and
// hop instead of about 1.25 per frame.
//
// The AFCs a receiver sends back (one per out_ack_threshold + 1 frames, the DL default,
// and one when an incoming burst pauses) take wire time on the other direction: they
// stretch the next message sent there, or fit in the idle time before it
// (unipro-model/up_msg_wire.h, shared with gbvp sim --timing message).
//
// Flows: saturating, open-loop (up_msg_source.h) and request/response.
//
// What it leaves out, by design: NAC traffic, credits and windows (assumed ample),
// faults, E2EFC, TC1 preemption, frame-level round robin in the switch (outputs serve
// messages in arrival order) and head-of-line blocking. Use the frame-level model for
// those; bench_unipro prints both side by side with the difference.
#ifndef GBVP_UNIPRO_MODEL_UP_MSG_NET_H
#define GBVP_UNIPRO_MODEL_UP_MSG_NET_H

#include <stdint.h>

#include "unipro-model/up_phy.h"
#include "unipro-model/up_stats.h"

typedef struct up_msg_net up_msg_net;

/* A network on scheduler s with the given PHY timing parameters and switch forwarding
 * latency. NULL on no memory. */
up_msg_net *up_msg_net_new(const sim_scheduler *s, const up_phy_params *pp, sim_time fwd_latency);
/* Frees the network and its messages; free it before (or with) the kernel, whose pending
 * events then refer to freed messages and must not run. */
void up_msg_net_free(up_msg_net *f);

/* Returns the node's index, or -ENOMEM / -EINVAL. */
int up_msg_net_add_node(up_msg_net *f);
/* Returns the switch's index. */
int up_msg_net_add_switch(up_msg_net *f, unsigned ports);
/* Links a node to a switch port (or to another node when sw < 0). 0 or -EINVAL. */
int up_msg_net_link_node(up_msg_net *f, unsigned node, int sw, unsigned port_or_node,
                      const up_phy_cfg *phy);
/* Switch sw sends messages for `node` out of `port`. 0 or -EINVAL. */
int up_msg_net_route(up_msg_net *f, unsigned sw, unsigned node, unsigned port);
/* A saturating flow of messages of payload+header bytes, handed over `depth` at a time as
 * by the frame-level source (the next when the last segment of one is taken, here when its
 * last frame starts: that is each message's submit time for its latency); depth 0: no
 * automatic messages, send them with up_msg_net_send(). Link src first. Returns the flow
 * index. */
int up_msg_net_flow(up_msg_net *f, unsigned src, unsigned dst, uint32_t payload, uint32_t header,
                 unsigned depth, unsigned max_segment);

/* A request/response flow like Greybus loopback: src keeps `depth` requests of
 * payload+header bytes in flight; dst answers each at once with response+header bytes
 * (segments: each node's largest). The flow's latency is the requests' one-way latency;
 * up_msg_net_flow_rtt() the round trip. Link both nodes first. Returns the flow index, or
 * -EINVAL / -ENOMEM. */
int up_msg_net_rr_flow(up_msg_net *f, unsigned src, unsigned dst, uint32_t payload,
                    uint32_t response, uint32_t header, unsigned depth, unsigned src_segment,
                    unsigned dst_segment);
uint64_t up_msg_net_flow_responses(const up_msg_net *f, unsigned flow);
/* The round trips of an rr flow (request submit to response delivery); NULL otherwise. */
const up_hist *up_msg_net_flow_rtt(const up_msg_net *f, unsigned flow);

uint64_t up_msg_net_flow_tx_msgs(const up_msg_net *f, unsigned flow);
uint64_t up_msg_net_flow_rx_bytes(const up_msg_net *f, unsigned flow); /* payload bytes */
uint64_t up_msg_net_flow_rx_msgs(const up_msg_net *f, unsigned flow);
const up_hist *up_msg_net_flow_latency(const up_msg_net *f, unsigned flow);
/* Sends one message (no flow) and returns 0; its latency lands in flow `flow`'s histogram. */
int up_msg_net_send(up_msg_net *f, unsigned flow);

#endif
