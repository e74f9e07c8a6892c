// SPDX-License-Identifier: MIT
// One UniPro port's data link layer (L2): the sending half (replay buffer, sequence numbers,
// credits, AFC/NAC handling, TC1 ahead of TC0 with preemption, timers) and the receiving
// half (CRC/sequence checks, NAC, AFC generation, receive buffers per TC). A port belongs to
// a node or a switch (its "upper"); an up_link joins two ports and supplies the timing.
//
// Frames flow by pull: when the port may send on a TC it asks its upper for the next frame
// that fits the credits it has; the upper calls up_port_kick() when it has something new.
// Received frames go up with deliver() (or lend()); the upper calls up_port_release() when
// it frees the receive buffer they occupied, which returns credits to the sender.
#ifndef GBVP_UNIPRO_MODEL_UP_PORT_H
#define GBVP_UNIPRO_MODEL_UP_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "unipro-model/up_env.h"

typedef struct up_port up_port;
typedef struct up_link up_link;

enum { UP_PULL_EMPTY = 0, UP_PULL_OK = 1, UP_PULL_NO_CREDIT = 2 };

struct up_pvec;

typedef struct up_port_upper {
    /* The next frame for `tc` whose credit cost fits `credits` (32-byte units). Returns
     * UP_PULL_OK and hands the frame over (the DL owns it from then on), UP_PULL_EMPTY when
     * nothing waits, UP_PULL_NO_CREDIT when the next frame needs more credits. */
    int (*pull)(void *ctx, unsigned tc, uint32_t credits, up_frame **out);
    /* A frame received in sequence; the upper owns it. Its receive buffer stays occupied
     * until up_port_release(). */
    void (*deliver)(void *ctx, up_frame *f);
    /* Optional, used instead of deliver when set: the frame is only lent for the call (the
     * port makes no copy and keeps the message reference; the upper takes its own with
     * up_msg_ref). For an upper that keeps nothing of a frame but its message, such as a
     * node reassembling it; a switch, which queues frames, uses deliver. */
    void (*lend)(void *ctx, const up_frame *f);
    /* Optional: walks the upper's state for period skipping (unipro-model/up_period.h);
     * without it the port never skips. */
    void (*period_io)(void *ctx, struct up_pvec *pv);
} up_port_upper;

/* DL parameters of a port (DME attributes DL_*; defaults: up_dl_params_default()). */
typedef struct up_dl_params {
    unsigned tx_window;          /* DL_TCxTxBufferSize in frames, 1..16 */
    unsigned rx_credits[2];      /* DL_TCxRxInitCreditVal: receive buffer per TC, 32 B units */
    unsigned out_ack_threshold;  /* DL_TCxOutAckThreshold: AFC after threshold+1 frames */
    unsigned afc_credit_threshold; /* AFC once this many credits were freed unreported */
    sim_time afc_flush;          /* AFC at the latest this long after an unreported frame */
    sim_time replay_timeout;     /* DL_TCxReplayTimeOutVal */
    sim_time fc_protection;      /* DL_FCxProtectionTimeOutVal: credit stall -> AFC request */
    bool preemption;             /* DL_TxPreemptionCap: TC1 interrupts a TC0 frame */
} up_dl_params;

up_dl_params up_dl_params_default(void);

/* Counters of one port. tx_* describe the direction leaving this port, rx_* the one
 * arriving. Times are picoseconds. */
/* Every field is a uint64_t or a sim_time: period skipping (up_port.c) moves them as one
 * array of 64-bit counters. */
typedef struct up_port_stats {
    uint64_t tx_frames, tx_payload_bytes, tx_wire_bytes, tx_afc, tx_nac, tx_replays;
    uint64_t tx_replay_timeouts, tx_preemptions, tx_credit_requests;
    sim_time tx_busy, tx_credit_stall[2];
    uint64_t rx_frames, rx_payload_bytes, rx_crc_errors, rx_dropped, rx_duplicates;
    uint64_t rx_out_of_sequence, rx_afc, rx_nac, rx_control_lost;
} up_port_stats;

/* A port whose upper is (ops, ctx); NULL on bad parameters or no memory. */
up_port *up_port_new(up_env *env, const up_dl_params *dl, const up_port_upper *ops, void *ctx);
/* Frees the port and the frames it holds. Detach it from its link first (up_link_free). */
void up_port_free(up_port *p);

/* The upper has new frames to offer on tc. After pull() said UP_PULL_EMPTY for a TC, the
 * port does not ask again until this is called for that TC. */
void up_port_kick(up_port *p, unsigned tc);
/* The upper freed the receive buffer of a delivered frame of `credits` units on tc. */
void up_port_release(up_port *p, unsigned tc, unsigned credits);
/* Receive whole-frame early at header time (cut-through switches): deliver() then runs
 * when the header has arrived and f->t_end tells when the rest will have. */
void up_port_set_early_delivery(up_port *p, bool early);

const up_port_stats *up_port_stats_get(const up_port *p);
up_link *up_port_link(const up_port *p);
/* Time to send a frame with a segment of seg_len bytes on this port's link now (0 when not
 * linked). */
sim_time up_port_frame_time(const up_port *p, unsigned seg_len);
/* Frames sent and not yet acknowledged, on tc. */
unsigned up_port_unacked(const up_port *p, unsigned tc);
/* Credits the peer has granted beyond those used, on tc. */
int64_t up_port_tx_credits(const up_port *p, unsigned tc);
/* Credits of this port's receive buffer occupied on tc. */
unsigned up_port_rx_buffered(const up_port *p, unsigned tc);
const up_dl_params *up_port_dl_params(const up_port *p);

#endif
