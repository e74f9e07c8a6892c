// SPDX-License-Identifier: MIT
// A UniPro node (an endpoint such as a bridge): one port with its data link, the network
// layer (DeviceID, short L3 header) and the transport layer: CPorts bound to a peer
// DeviceID/CPort, traffic class, end-to-end flow control tokens, segmentation of messages
// into frames and reassembly at EOM. Plus its DME attribute table (up_dme.h).
#ifndef GBVP_UNIPRO_MODEL_UP_NODE_H
#define GBVP_UNIPRO_MODEL_UP_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "unipro-model/up_port.h"
#include "unipro-model/up_stats.h"

typedef struct up_node up_node;

typedef struct up_node_ops {
    /* A whole message arrived on cport. m is valid during the call (up_msg_ref to keep). */
    void (*recv)(void *ctx, up_node *n, unsigned cport, up_msg *m, sim_time latency);
    /* The last segment of m left the CPort for the data link (the CPort may take more). */
    void (*sent)(void *ctx, up_node *n, unsigned cport, up_msg *m);
} up_node_ops;

struct up_pvec;
/* Walks the state a CPort handler keeps (unipro-model/up_period.h): a handler that does not
 * register one keeps its CPort's node from period skipping. */
typedef void (*up_cport_period_fn)(void *ctx, struct up_pvec *pv);

typedef struct up_node_cfg {
    uint8_t device_id;       /* N_DeviceID, 0..127 */
    unsigned cports;         /* number of CPorts (T_NumCPorts), 1..1024 */
    unsigned max_segment;    /* segment payload limit, 1..286 (Toshiba: 280) */
    up_dl_params dl;
} up_node_cfg;

up_node_cfg up_node_cfg_default(uint8_t device_id);

typedef struct up_cport_cfg {
    uint8_t peer_dev;
    uint16_t peer_cport;
    uint8_t tc;              /* 0 or 1 */
    uint8_t flags;           /* UP_CPORT_E2EFC | CSD_N | CSV_N */
    uint32_t token;          /* T_TxTokenValue = T_RxTokenValue, bytes */
    uint32_t local_buffer;   /* T_LocalBufferSpace, bytes */
    uint32_t peer_buffer;    /* T_PeerBufferSpace, bytes (the peer's local_buffer) */
} up_cport_cfg;

/* TC0, E2EFC with 32-byte tokens and 4 KiB buffers on both sides. */
up_cport_cfg up_cport_cfg_default(uint8_t peer_dev, uint16_t peer_cport);

typedef struct up_cport_stats {
    uint64_t tx_msgs, tx_bytes, tx_segments, tx_tokens;
    uint64_t rx_msgs, rx_bytes, rx_segments, rx_tokens;
    uint64_t rx_dropped;       /* not connected / reassembly errors */
    sim_time e2e_stall;        /* time data waited for end-to-end tokens */
    up_hist latency;           /* message latency, ps: submit to delivery */
} up_cport_stats;

typedef struct up_node_stats {
    uint64_t rx_wrong_device;  /* L3: packets not addressed to this DeviceID */
    uint64_t rx_unknown_cport;
} up_node_stats;

/* NULL on a bad config or no memory. The caller owns the node. */
up_node *up_node_new(up_env *env, const up_node_cfg *cfg, const up_node_ops *ops, void *ctx);
void up_node_free(up_node *n);
up_port *up_node_port(up_node *n);
uint8_t up_node_device_id(const up_node *n);
void up_node_set_device_id(up_node *n, uint8_t id);
unsigned up_node_cport_count(const up_node *n);
const up_node_stats *up_node_stats_get(const up_node *n);

/* Connects (T_ConnectionState = 1) or disconnects a CPort. Queued messages of a
 * disconnected CPort are discarded. 0, -EINVAL or -EBUSY (already connected). */
int up_cport_connect(up_node *n, unsigned cport, const up_cport_cfg *cfg);
int up_cport_disconnect(up_node *n, unsigned cport);
bool up_cport_connected(const up_node *n, unsigned cport);
const up_cport_cfg *up_cport_get_cfg(const up_node *n, unsigned cport);

/* Routes the recv/sent callbacks of one CPort to (ops, ctx) instead of the node's (NULL ops:
 * back to the node's). -EINVAL on a bad CPort. */
int up_cport_set_handler(up_node *n, unsigned cport, const up_node_ops *ops, void *ctx);
/* The period walker of the handler of CPort id (its ctx is the handler's; NULL: none).
 * up_cport_set_handler clears it. */
int up_cport_set_period(up_node *n, unsigned id, up_cport_period_fn fn);

/* Queues a message of len bytes (copied when data is not NULL) with the caller's tag.
 * 0, -EINVAL (bad CPort), -ENOTCONN or -ENOMEM. */
int up_cport_send(up_node *n, unsigned cport, const void *data, uint32_t len, uint64_t tag);
/* Messages queued on the CPort and not yet fully segmented. */
unsigned up_cport_queued(const up_node *n, unsigned cport);
const up_cport_stats *up_cport_stats_get(const up_node *n, unsigned cport);

#endif
