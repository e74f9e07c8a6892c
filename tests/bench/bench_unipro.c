// SPDX-License-Identifier: MIT
// Speed of the UniPro timing model (frame level), in simulated seconds per wall second and
// event-kernel events per wall second, and the goodput it simulates:
//   (a) one saturated HS-G3B x2 link, 2 KiB messages            aim >= 10 x-realtime
//   (b) a 14-port switch, every port saturated, permutation      aim >= 0.2 x-realtime
//   (c) one HS-G3B x2 link, 256-byte messages at BER 1e-6       aim >= 2.0 x-realtime
//   goodput of the HS-G3B x2 link for 8, 64, 256 and 2048-byte Greybus payloads.
// Wall time is the process CPU time; speeds are medians over five parts of each run.
// NAME.per-frame.speed is the same scenario on the per-frame reference path
// (up_env_set_per_frame; identical results, docs/performance-model.md "Frame-exact batching").
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event-kernel/event_kernel.h"
#include "switch-model/switch.h"
#include "unipro-model/up_msg_net.h"
#include "unipro-model/up_link.h"
#include "unipro-model/up_node.h"
#include "unipro-model/up_traffic.h"

#define MAX_NODES 14

typedef struct net {
    sim_event_kernel *k;
    up_env *env;
    up_node *n[MAX_NODES];
    up_link *l[MAX_NODES];
    up_traffic *t[MAX_NODES];
    sw_switch *sw;
    unsigned nodes;
    bool per_frame; /* the reference path: one kernel event per frame (up_env.h) */
    double poisson_bps; /* > 0: Poisson sources at this offered rate instead of saturating */
} net;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_unipro: %s\n", what);
    exit(1);
}

static void connect_flow(net *x, unsigned a, unsigned b, unsigned size)
{
    up_cport_cfg c = up_cport_cfg_default(up_node_device_id(x->n[b]), 1);
    c.flags = 0x6; /* no E2EFC: the analytic limits (docs/unipro.md, "Goodput limits")
                      exclude it */
    if (up_cport_connect(x->n[a], 0, &c))
        die("connect");
    c.peer_dev = up_node_device_id(x->n[a]);
    c.peer_cport = 0;
    if (up_cport_connect(x->n[b], 1, &c))
        die("connect");
    up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .size = size, .header = 8, .depth = 2 };
    if (x->poisson_bps > 0) {
        tc.kind = UP_TRAFFIC_POISSON;
        tc.rate_bps = x->poisson_bps;
        tc.seed = 1 + a;
    }
    x->t[a] = up_traffic_new(x->env, &tc, x->n[a], 0, x->n[b], 1);
    if (!x->t[a] || up_traffic_start(x->t[a]))
        die("traffic");
}

/* Two nodes on one HS-G3B x2 link, node 0 saturating node 1. */
static void build_link(net *x, unsigned size, double ber)
{
    x->k = sim_event_kernel_new(1024);
    x->env = up_env_new(sim_event_kernel_scheduler(x->k));
    up_env_set_per_frame(x->env, x->per_frame);
    x->nodes = 2;
    for (unsigned i = 0; i < 2; i++) {
        up_node_cfg nc = up_node_cfg_default((uint8_t)(1 + i));
        x->n[i] = up_node_new(x->env, &nc, NULL, NULL);
    }
    up_link_cfg lc = up_link_cfg_default();
    lc.faults.ber = ber;
    x->l[0] = up_link_new(x->env, up_node_port(x->n[0]), up_node_port(x->n[1]), &lc, NULL, 0);
    if (!x->n[0] || !x->n[1] || !x->l[0])
        die("build");
    connect_flow(x, 0, 1, size);
}

/* 14 nodes on a 14-port switch; node i saturates node (i + 5) mod 14. */
static void build_switch(net *x, unsigned size)
{
    x->k = sim_event_kernel_new(1024);
    x->env = up_env_new(sim_event_kernel_scheduler(x->k));
    up_env_set_per_frame(x->env, x->per_frame);
    x->nodes = MAX_NODES;
    sw_switch_cfg sc = sw_switch_cfg_default();
    sc.ports = MAX_NODES;
    x->sw = sw_switch_new(x->env, &sc, NULL);
    if (!x->sw)
        die("switch");
    up_link_cfg lc = up_link_cfg_default();
    for (unsigned i = 0; i < MAX_NODES; i++) {
        up_node_cfg nc = up_node_cfg_default((uint8_t)(2 + i));
        x->n[i] = up_node_new(x->env, &nc, NULL, NULL);
        if (!x->n[i])
            die("node");
        x->l[i] = up_link_new(x->env, up_node_port(x->n[i]), sw_switch_port(x->sw, i), &lc,
                              NULL, 0);
        if (!x->l[i] || sw_route_set(sw_switch_routes(x->sw), 2 + i, i))
            die("link");
    }
    for (unsigned i = 0; i < MAX_NODES; i++)
        for (unsigned j = 0; j < MAX_NODES; j++)
            sw_route_allow(sw_switch_routes(x->sw), i, 2 + j, true);
    for (unsigned i = 0; i < MAX_NODES; i++)
        connect_flow(x, i, (i + 5) % MAX_NODES, size);
}

static void destroy(net *x)
{
    for (unsigned i = 0; i < MAX_NODES; i++) {
        up_traffic_free(x->t[i]);
        up_link_free(x->l[i]);
    }
    for (unsigned i = 0; i < MAX_NODES; i++)
        up_node_free(x->n[i]);
    sw_switch_free(x->sw);
    up_env_free(x->env);
    sim_event_kernel_free(x->k);
}

typedef struct result {
    double speed, events, goodput_bps;
    double latency_us; /* flow 0's mean message latency (submit to delivery) */
    uint64_t order_errors;
} result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define CHUNKS 5

/* Runs `sim` of simulated time after a warm-up, in CHUNKS equal parts: speed and event
 * rate are the medians over the parts (the machine is shared), goodput is over all. */
static result run(net *x, sim_time warm, sim_time sim)
{
    result r = { 0 };
    sim_event_kernel_run_until(x->k, warm);
    uint64_t bytes0 = 0;
    for (unsigned i = 0; i < x->nodes; i++)
        if (x->t[i])
            bytes0 += up_traffic_rx_bytes(x->t[i]);
    double speed[CHUNKS], events[CHUNKS];
    sim_time part = sim / CHUNKS, at = warm;
    for (unsigned c = 0; c < CHUNKS; c++) {
        uint64_t ev0 = sim_event_kernel_executed(x->k);
        double c0 = cpu_seconds();
        at += part;
        sim_event_kernel_run_until(x->k, at);
        double wall = cpu_seconds() - c0;
        speed[c] = (double)part * 1e-12 / wall;
        events[c] = (double)(sim_event_kernel_executed(x->k) - ev0) / wall;
    }
    qsort(speed, CHUNKS, sizeof speed[0], cmp_double);
    qsort(events, CHUNKS, sizeof events[0], cmp_double);
    uint64_t bytes1 = 0;
    for (unsigned i = 0; i < x->nodes; i++)
        if (x->t[i]) {
            bytes1 += up_traffic_rx_bytes(x->t[i]);
            r.order_errors += up_traffic_stats_get(x->t[i])->order_errors;
        }
    r.speed = speed[CHUNKS / 2];
    r.events = events[CHUNKS / 2];
    unsigned dst = x->sw ? 5 : 1; /* flow 0 runs from node 0 to node 5 (switch) or 1 */
    r.latency_us = up_hist_mean(&up_cport_stats_get(x->n[dst], 1)->latency) * 1e-6;
    r.goodput_bps = (double)(bytes1 - bytes0) * 8.0 / ((double)(at - warm) * 1e-12);
    return r;
}

/* The same scenario on the per-frame path, for the speed-up of batching. */
static void report_per_frame(const char *name, void (*build)(net *, unsigned, double),
                             unsigned size, double ber, sim_time sim)
{
    net y = { .per_frame = true };
    build(&y, size, ber);
    result r = run(&y, SIM_US(100), sim);
    destroy(&y);
    printf("bench %s.per-frame.speed %.3g x-realtime\n", name, r.speed);
}

static void report(const char *name, result r, double aim)
{
    printf("bench %s.speed %.3g x-realtime\n", name, r.speed);
    if (aim > 0)
        printf("bench %s.speed.aim %.3g x-realtime\n", name, aim);
    printf("bench %s.events %.3g events/s\n", name, r.events);
    if (r.order_errors)
        fprintf(stderr, "bench_unipro: %s: %llu messages out of order\n", name,
                (unsigned long long)r.order_errors);
}

/* The same saturated scenarios in the message-level mode (up_msg_net.h). */
static result run_message(bool with_switch, unsigned size, sim_time warm, sim_time sim)
{
    sim_event_kernel *k = sim_event_kernel_new(1024);
    up_phy_cfg phy = up_phy_cfg_default();
    up_msg_net *f = up_msg_net_new(sim_event_kernel_scheduler(k), NULL, SIM_NS(100));
    unsigned nodes = with_switch ? MAX_NODES : 2, flows = with_switch ? MAX_NODES : 1;
    for (unsigned i = 0; i < nodes; i++)
        up_msg_net_add_node(f);
    if (with_switch) {
        up_msg_net_add_switch(f, MAX_NODES);
        for (unsigned i = 0; i < nodes; i++)
            if (up_msg_net_link_node(f, i, 0, i, &phy) || up_msg_net_route(f, 0, i, i))
                die("fast link");
        for (unsigned i = 0; i < nodes; i++)
            up_msg_net_flow(f, i, (i + 5) % MAX_NODES, size, 8, 2, 286);
    } else {
        if (up_msg_net_link_node(f, 0, -1, 1, &phy))
            die("fast link");
        up_msg_net_flow(f, 0, 1, size, 8, 2, 286);
    }
    result r = { 0 };
    sim_event_kernel_run_until(k, warm);
    uint64_t b0 = 0, b1 = 0;
    for (unsigned i = 0; i < flows; i++)
        b0 += up_msg_net_flow_rx_bytes(f, i);
    uint64_t ev0 = sim_event_kernel_executed(k);
    double c0 = cpu_seconds();
    sim_event_kernel_run_until(k, warm + sim);
    double wall = cpu_seconds() - c0;
    for (unsigned i = 0; i < flows; i++)
        b1 += up_msg_net_flow_rx_bytes(f, i);
    double simulated = (double)sim * 1e-12;
    r.speed = simulated / wall;
    r.events = (double)(sim_event_kernel_executed(k) - ev0) / wall;
    r.goodput_bps = (double)(b1 - b0) * 8.0 / simulated;
    r.latency_us = up_hist_mean(up_msg_net_flow_latency(f, 0)) * 1e-6;
    up_msg_net_free(f);
    sim_event_kernel_free(k);
    return r;
}

/* The same scenario in the message-level mode, with the scenario's aim (0: none) and its
 * difference from the frame level. */
static void report_message(const char *name, result message, result frame, double aim)
{
    printf("bench %s.msg.speed %.3g x-realtime\n", name, message.speed);
    if (aim > 0)
        printf("bench %s.msg.speed.aim %.3g x-realtime\n", name, aim);
    printf("bench %s.msg.events %.3g events/s\n", name, message.events);
    printf("bench %s.msg.goodput %.4g Gb/s\n", name, message.goodput_bps / 1e9);
    printf("bench %s.msg.goodput-error %.3g %%\n", name,
           100.0 * (message.goodput_bps - frame.goodput_bps) / frame.goodput_bps);
    printf("bench %s.latency %.4g us\n", name, frame.latency_us);
    printf("bench %s.msg.latency %.4g us\n", name, message.latency_us);
    printf("bench %s.msg.latency-error %.3g %%\n", name,
           100.0 * (message.latency_us - frame.latency_us) / frame.latency_us);
}

/* An optional argument runs only the benchmarks whose name contains it. */
static const char *only;

static bool wanted(const char *name)
{
    return !only || strstr(name, only);
}

int main(int argc, char **argv)
{
    net x = { 0 };
    result r;
    only = argc > 1 ? argv[1] : NULL;

    if (wanted("link.hs-g3b-x2.2048B")) {
    build_link(&x, 2048, 0);
    r = run(&x, SIM_US(100), SIM_MS(50));
    destroy(&x);
    report("link.hs-g3b-x2.2048B", r, 10.0);
    report_per_frame("link.hs-g3b-x2.2048B", build_link, 2048, 0, SIM_MS(50));
    printf("bench link.hs-g3b-x2.2048B.goodput %.4g Gb/s\n", r.goodput_bps / 1e9);
    report_message("link.hs-g3b-x2.2048B", run_message(false, 2048, SIM_US(100), SIM_MS(500)), r,
                   10.0);
    }

    /* Traffic that does not repeat: period skipping (docs/performance-model.md) finds no
     * period, so this is what the frame level costs per frame in general. */
    if (wanted("link.hs-g3b-x2.2048B.poisson")) {
        net p = { .poisson_bps = 8e9 };
        build_link(&p, 2048, 0);
        r = run(&p, SIM_US(100), SIM_MS(20));
        destroy(&p);
        report("link.hs-g3b-x2.2048B.poisson", r, 0);
        printf("bench link.hs-g3b-x2.2048B.poisson.goodput %.4g Gb/s\n", r.goodput_bps / 1e9);
    }

    static const unsigned sizes[] = { 8, 64, 256 };
    for (unsigned i = 0; i < 3 && wanted("goodput"); i++) {
        net y = { 0 };
        build_link(&y, sizes[i], 0);
        r = run(&y, SIM_US(100), SIM_MS(2));
        destroy(&y);
        printf("bench link.hs-g3b-x2.%uB.goodput %.4g Gb/s\n", sizes[i], r.goodput_bps / 1e9);
    }

    if (wanted("switch14.permutation")) {
        net z = { 0 };
        build_switch(&z, 2048);
        r = run(&z, SIM_US(100), SIM_MS(5));
        destroy(&z);
        report("switch14.permutation", r, 0.2);
        printf("bench switch14.permutation.goodput %.4g Gb/s\n", r.goodput_bps / 1e9);
        report_message("switch14.permutation", run_message(true, 2048, SIM_US(100), SIM_MS(50)), r,
                    0.2);
    }

    if (wanted("link.hs-g3b-x2.256B.ber1e-6")) {
        net w = { 0 };
        build_link(&w, 256, 1e-6);
        r = run(&w, SIM_US(100), SIM_MS(20));
        destroy(&w);
        report("link.hs-g3b-x2.256B.ber1e-6", r, 2.0);
        report_per_frame("link.hs-g3b-x2.256B.ber1e-6", build_link, 256, 1e-6, SIM_MS(20));
        printf("bench link.hs-g3b-x2.256B.ber1e-6.goodput %.4g Gb/s\n", r.goodput_bps / 1e9);
    }
    return 0;
}
