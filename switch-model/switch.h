// SPDX-License-Identifier: MIT
// The switch's timed data plane: UniPro ports (each with its data link and an input buffer
// per traffic class, whose size is the credits it grants), forwarding by the routing table
// (route_table.h), arbitration per output port (TC1 first, round robin over input ports
// within a class), a configurable forwarding latency, store-and-forward or cut-through.
// Input queues are FIFOs per TC, so a frame waiting for a busy output blocks the frames
// behind it (head-of-line blocking); the statistics show how long that happened.
#ifndef GBVP_SWITCH_MODEL_SWITCH_H
#define GBVP_SWITCH_MODEL_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "switch-model/route_table.h"
#include "unipro-model/up_port.h"
#include "unipro-model/up_stats.h"

typedef struct sw_switch sw_switch;

typedef struct sw_switch_cfg {
    unsigned ports;          /* 1..SW_PORTS_MAX (the Toshiba switch: 14 + internal port) */
    sim_time fwd_latency;    /* from a frame being forwardable to its first bit leaving */
    bool cut_through;        /* forward once the header is in (else the whole frame) */
    up_dl_params dl;         /* of every port; dl.rx_credits = input buffer per TC */
    sim_time depth_interval; /* queue depth series resolution (0: mean and max only) */
} sw_switch_cfg;

/* 15 ports, 100 ns, store-and-forward, default DL parameters, no series. */
sw_switch_cfg sw_switch_cfg_default(void);

typedef struct sw_port_stats {
    uint64_t rx_frames, forwarded, dropped_unrouted;
    uint64_t hol_events;     /* times a head frame started blocking frames for other ports */
    sim_time hol_blocked;    /* time frames for another output waited behind the head */
    up_level depth;          /* frames queued in this input port (both TCs) over time */
} sw_port_stats;

/* routes: the table the SVC programs (borrowed; must outlive the switch) or NULL for a
 * switch-owned one. NULL on a bad config or no memory. */
sw_switch *sw_switch_new(up_env *env, const sw_switch_cfg *cfg, sw_route_table *routes);
void sw_switch_free(sw_switch *sw);
unsigned sw_switch_port_count(const sw_switch *sw);
up_port *sw_switch_port(sw_switch *sw, unsigned port);
sw_route_table *sw_switch_routes(sw_switch *sw);
const sw_switch_cfg *sw_switch_get_cfg(const sw_switch *sw);
const sw_port_stats *sw_switch_port_stats(const sw_switch *sw, unsigned port);
/* Frames queued in an input port on tc. */
unsigned sw_switch_queued(const sw_switch *sw, unsigned port, unsigned tc);

#endif
