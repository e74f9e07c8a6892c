// SPDX-License-Identifier: MIT
// One direction of a link at message level: a server that sends a message's frames back to
// back, with the frame-level model's PHY arithmetic (symbols over the lanes, 8b10b, burst
// opening after idle, PHY latency) and the AFCs the receiver returns on the other direction
// (one per DL out_ack_threshold + 1 frames, and one when an incoming burst pauses), which
// take wire time there. Both message-level models use it: up_msg_net (gbvp model --timing
// message, the bench) and the switch transit of `gbvp sim --timing message`. Pure arithmetic
// on the caller's clock: no events.
#ifndef GBVP_UNIPRO_MODEL_UP_MSG_WIRE_H
#define GBVP_UNIPRO_MODEL_UP_MSG_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "unipro-model/up_phy.h"

/* A message as frames: total, first and last frame symbols, and the frame count. */
typedef struct up_msg_shape {
    uint32_t syms, first_syms, last_syms, frames;
} up_msg_shape;

/* The frames of a len-byte message cut into segments of at most max_segment (1 ..
 * UP_SEGMENT_MAX) bytes; an empty message is one empty frame. */
up_msg_shape up_msg_shape_of(uint32_t len, unsigned max_segment);

/* A value embedded in its owner; its fields belong to up_msg_wire.c. */
typedef struct up_msg_wire {
    uint64_t sym_fp;          /* up_phy_symbol_ps_fp16 of the power mode */
    sim_time latency;         /* TX + RX PHY latency */
    sim_time open, hold;      /* burst opening after idle; how long an idle burst stays open */
    sim_time busy_until;      /* the wire is free from then */
    bool burst_ever;          /* false: the next message opens a burst whatever the time */
    struct up_msg_wire *rev;  /* the other direction of the same link, or NULL */
    unsigned afc_every;       /* frames per AFC */
    unsigned unacked;         /* frames received over this direction, not yet acknowledged */
    uint64_t afc_syms;        /* AFC symbols this direction owes the other one's receiver */
} up_msg_wire;

/* An idle direction in power mode phy. */
void up_msg_wire_init(up_msg_wire *w, const up_phy_cfg *phy, const up_phy_params *pp);
/* Joins the two directions of a link: each carries the AFCs for the other's frames. */
void up_msg_wire_pair(up_msg_wire *a, up_msg_wire *b);
/* A new power mode, for messages sent from now on. */
void up_msg_wire_set_phy(up_msg_wire *w, const up_phy_cfg *phy, const up_phy_params *pp);
/* The wire is unavailable for `pause` from now (or from the end of what it is sending):
 * a power mode change or a HIBERN8 exit. The next message opens a new burst. */
void up_msg_wire_pause(up_msg_wire *w, sim_time now, sim_time pause);

typedef struct up_msg_times {
    sim_time first_in;  /* the first frame has been received at the far end */
    sim_time end;       /* the last frame (and any AFC owed) has left */
    sim_time delivered; /* the last frame has been received at the far end */
} up_msg_times;

/* Sends message m as early as now, not_before and the wire allow. A message relayed by a
 * switch cannot send its last frame before that frame has arrived: last_not_before (0:
 * none) is the earliest start of its last frame. */
up_msg_times up_msg_wire_send(up_msg_wire *w, const up_msg_shape *m, sim_time now,
                              sim_time not_before, sim_time last_not_before);

#endif
