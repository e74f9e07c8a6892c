// SPDX-License-Identifier: MIT
// The switch fabric's private state, shared by fabric.c (endpoints, data path, links) and
// fabric_report.c (statistics). Not for other parts.
#ifndef GBVP_SWITCH_MODEL_FABRIC_INTERNAL_H
#define GBVP_SWITCH_MODEL_FABRIC_INTERNAL_H

#include "greybus/svc_protocol.h"
#include "switch-model/fabric.h"
#include "switch-model/switch_transit.h"
#include "switch-model/switch_transit_msg.h"
#include "unipro-model/up_env.h"
#include "unipro-model/up_stats.h"

/* One switch port: the endpoint plugged into it and what the SVC programmed for it. The
 * epochs count unplugs and resets: a message remembers them when it leaves and is dropped
 * on arrival when they moved (rx: of its destination, tx: of its source). */
typedef struct fabric_port {
    sw_endpoint ep;
    bool attached, reachable;
    uint8_t device_id;
    uint32_t rx_epoch, tx_epoch;
} fabric_port;

/* A message in a timed model: what the fabric needs to hand it over on arrival (its bytes
 * travel in the model). */
typedef struct fabric_flight {
    struct fabric_flight *prev, *next;
    gb_msg_header h;
    unsigned from, to;
    uint16_t cport; /* the destination's */
    uint16_t src_cport;
    uint8_t src_dev, dst_dev, tc;
    sw_dir dir;
    uint32_t tx_epoch, rx_epoch;
} fabric_flight;

typedef struct fabric_dir {
    sw_dir_stats s;
    up_hist latency;
} fabric_dir;

/* A link fault waiting for its time. */
typedef struct fabric_timed_fault {
    struct sw_fabric *f;
    unsigned port;
    sw_link_fault fault;
    sim_event ev; /* .id 0: the entry is free */
} fabric_timed_fault;

struct sw_fabric {
    sw_fabric_cfg cfg;
    const sim_scheduler *sched;
    fabric_port *ports;
    sw_route_table *routes;
    sw_conn_table *conns;
    up_env *env;             /* frame level: the model's pools */
    sw_transit *frame;       /* frame level, or */
    sw_msg_transit *message; /* message level, or neither: direct */
    fabric_flight *flying, *spare;
    fabric_timed_fault timed[SW_FABRIC_TIMED_FAULTS];
    sw_fabric_stats st;
    fabric_dir dir[SW_DIRS];
    sw_observer_fn observer;
    void *observer_ctx;
    sw_link_observer_fn link_observer;
    void *link_observer_ctx;
    sw_frame_observer_fn frame_observer;
    void *frame_observer_ctx;
};

void fabric_log(const sw_fabric *f, sw_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
