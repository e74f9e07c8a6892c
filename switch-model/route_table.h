// SPDX-License-Identifier: MIT
// The switch's routing table: destination DeviceID -> output port, programmed by the SVC.
//
// Modelled on the Toshiba switch as Ara's SVC drove it (docs/unipro.md, "The Toshiba
// switch"): one global lookup table from the 7-bit destination DeviceID to an output port,
// plus, per input port, the set of destination DeviceIDs a packet entering there may reach.
// ROUTE_CREATE between (dev0 on port0) and (dev1 on port1) sets LUT[dev0] = port0,
// LUT[dev1] = port1, allows dev1 on port0 and dev0 on port1. A packet is forwarded only when
// both hold; otherwise it is counted and dropped. Pure data structure: no time, no queues
// (the timed switch adds those).
#ifndef GBVP_SWITCH_MODEL_ROUTE_TABLE_H
#define GBVP_SWITCH_MODEL_ROUTE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SW_DEVICE_ID_COUNT 128u /* 7-bit DeviceID in the short L3 header */
#define SW_PORTS_MAX 64u

typedef struct sw_route_table sw_route_table;

/* Why a packet was not forwarded. */
typedef enum sw_route_verdict {
    SW_ROUTE_FORWARD = 0,
    SW_ROUTE_DROP_UNROUTED,    /* no LUT entry for the destination */
    SW_ROUTE_DROP_NOT_ALLOWED, /* destination not reachable from this input port */
    SW_ROUTE_DROP_BAD_INPUT,   /* input port or DeviceID out of range */
} sw_route_verdict;

typedef struct sw_route_stats {
    uint64_t forwarded;
    uint64_t dropped_unrouted;
    uint64_t dropped_not_allowed;
    uint64_t dropped_bad_input;
} sw_route_stats;

/* Called for every forwarded packet in the functional path (sw_route_forward). */
typedef void (*sw_route_deliver_fn)(void *ctx, unsigned out_port, uint8_t dest_device_id,
                                    const uint8_t *packet, size_t len);

/* A table for a switch with num_ports ports (1..SW_PORTS_MAX); NULL for a bad count or no
 * memory. The caller owns it and frees it with sw_route_table_free. */
sw_route_table *sw_route_table_new(unsigned num_ports);
void sw_route_table_free(sw_route_table *t);
unsigned sw_route_table_num_ports(const sw_route_table *t);

/* LUT entries. 0, or -EINVAL when device_id >= SW_DEVICE_ID_COUNT or port >= num_ports. */
int sw_route_set(sw_route_table *t, unsigned device_id, unsigned port);
int sw_route_clear(sw_route_table *t, unsigned device_id);
/* The output port for device_id, -ENOENT when unrouted, -EINVAL when out of range. */
int sw_route_lookup(const sw_route_table *t, unsigned device_id);

/* Per-input-port destination permission. 0 or -EINVAL. */
int sw_route_allow(sw_route_table *t, unsigned in_port, unsigned device_id, bool allow);
bool sw_route_allowed(const sw_route_table *t, unsigned in_port, unsigned device_id);

/* The bidirectional route the SVC programs for ROUTE_CREATE / ROUTE_DESTROY. Arguments are
 * all checked before anything changes. Destroy clears both LUT entries and permissions. */
int sw_route_pair_create(sw_route_table *t, unsigned dev0, unsigned port0, unsigned dev1,
                         unsigned port1);
int sw_route_pair_destroy(sw_route_table *t, unsigned dev0, unsigned port0, unsigned dev1,
                          unsigned port1);

/* Decides where a packet entering in_port for dest goes and counts the outcome. On
 * SW_ROUTE_FORWARD *out_port is set. */
sw_route_verdict sw_route_resolve(sw_route_table *t, unsigned in_port, unsigned dest,
                                  unsigned *out_port);

/* The functional (untimed) forwarding path: resolve, then hand the packet to the sink of the
 * output port. Returns the verdict; dropped packets only count. */
void sw_route_set_sink(sw_route_table *t, unsigned port, sw_route_deliver_fn fn, void *ctx);
sw_route_verdict sw_route_forward(sw_route_table *t, unsigned in_port, unsigned dest,
                                  const uint8_t *packet, size_t len);

sw_route_stats sw_route_table_stats(const sw_route_table *t);
/* Packets forwarded out of one port (0 for a bad port). */
uint64_t sw_route_port_forwarded(const sw_route_table *t, unsigned port);
const char *sw_route_verdict_name(sw_route_verdict v);

#endif
