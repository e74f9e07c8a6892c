// SPDX-License-Identifier: MIT
// UniPro model behaviour: PHY rates and mode changes, data link reliability under faults
// (exactly once and in order), credits, TC1 priority, end-to-end flow control, and the
// switch's arbitration and head-of-line blocking statistics.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "switch-model/switch.h"
#include "tests/unit/unit.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_link.h"
#include "unipro-model/up_node.h"
#include "unipro-model/up_traffic.h"

/* ---- PHY ---------------------------------------------------------------------------- */

static void test_phy_lane_rates_follow_gear_and_series(void)
{
    up_phy_cfg c = { UP_PHY_HS, 1, UP_SERIES_A, 1 };
    CU_ASSERT_EQUAL(up_phy_lane_rate_kbps(&c), 1248000);
    c.series = UP_SERIES_B;
    CU_ASSERT_EQUAL(up_phy_lane_rate_kbps(&c), 1457600);
    c.gear = 3;
    CU_ASSERT_EQUAL(up_phy_lane_rate_kbps(&c), 5830400);
    c.gear = 4;
    CU_ASSERT_EQUAL(up_phy_lane_rate_kbps(&c), 11660800);
    c = (up_phy_cfg){ UP_PHY_HS, 3, UP_SERIES_B, 2 };
    /* 8b10b: 80 % of 2 x 5830.4 Mb/s */
    CU_ASSERT(fabs(up_phy_data_rate_bps(&c) - 9.32864e9) < 1e3);
    c = (up_phy_cfg){ UP_PHY_PWM, 2, 0, 1 };
    CU_ASSERT_EQUAL(up_phy_lane_rate_kbps(&c), 18000);
}

static void test_phy_symbol_time_is_20_ui_over_lanes(void)
{
    up_phy_cfg c = { UP_PHY_HS, 3, UP_SERIES_B, 2 };
    uint64_t fp = up_phy_symbol_ps_fp16(&c);
    /* 20 / (2 x 5.8304 Gb/s) = 1715.148 ps; a 147-symbol frame = 252.127 ns */
    CU_ASSERT(llabs((long long)up_phy_symbols_time(fp, 147) - 252127) <= 1);
    CU_ASSERT(llabs((long long)up_phy_symbols_time(fp, 1000000) - 1715148189LL) <= 10);
}

static void test_phy_rejects_bad_configs_with_a_reason(void)
{
    char err[80];
    up_phy_cfg c = { UP_PHY_HS, 5, UP_SERIES_A, 1 };
    CU_ASSERT_EQUAL(up_phy_cfg_check(&c, err, sizeof err), -EINVAL);
    CU_ASSERT_STRING_EQUAL(err, "HS gear must be 1 to 4");
    c = (up_phy_cfg){ UP_PHY_HS, 1, UP_SERIES_A, 3 + 2 };
    CU_ASSERT_EQUAL(up_phy_cfg_check(&c, err, sizeof err), -EINVAL);
    c = (up_phy_cfg){ UP_PHY_PWM, 8, 0, 1 };
    CU_ASSERT_EQUAL(up_phy_cfg_check(&c, err, sizeof err), -EINVAL);
    CU_ASSERT_EQUAL(up_phy_cfg_parse_gear(&c, "HS-G3B"), 0);
    CU_ASSERT(c.mode == UP_PHY_HS && c.gear == 3 && c.series == UP_SERIES_B);
    CU_ASSERT_EQUAL(up_phy_cfg_parse_gear(&c, "pwm-g7"), 0);
    CU_ASSERT(c.mode == UP_PHY_PWM && c.gear == 7);
    CU_ASSERT_EQUAL(up_phy_cfg_parse_gear(&c, "HS-G5A"), -EINVAL);
    CU_ASSERT_EQUAL(up_phy_cfg_parse_gear(&c, "HS-G3"), -EINVAL);
}

static void test_phy_burst_pmc_and_startup_durations(void)
{
    up_phy_params p = up_phy_params_default();
    up_phy_cfg g3b = { UP_PHY_HS, 3, UP_SERIES_B, 2 };
    up_phy_cfg g1 = up_phy_cfg_startup();
    /* 32 symbol intervals of 10 UI at 5.8304 Gb/s */
    CU_ASSERT(llabs((long long)up_phy_burst_open_time(&g3b, &p) - 54885) <= 1);
    sim_time pacp_g1 = up_phy_burst_open_time(&g1, &p) +
                       up_phy_symbols_time(up_phy_symbol_ps_fp16(&g1), p.pacp_symbols);
    CU_ASSERT_EQUAL(up_phy_pmc_time(&g1, &g3b, &p),
                    2 * pacp_g1 + p.pmc_reconfig + up_phy_burst_open_time(&g3b, &p));
    CU_ASSERT_EQUAL(up_phy_startup_time(&p), p.startup_base + p.startup_pacp * pacp_g1);
    CU_ASSERT(up_phy_startup_time(&p) > SIM_MS(1) && up_phy_startup_time(&p) < SIM_MS(10));
}

/* ---- a bed: A(dev 2) -- switch -- B(dev 3), optionally C(dev 4) and D(dev 5) --------- */

typedef struct bed {
    sim_event_kernel *k;
    up_env *env;
    up_node *n[4];
    sw_switch *sw;
    up_link *l[4];
} bed;

typedef struct bed_cfg {
    unsigned nodes;
    double ber, drop;
    unsigned rx_credits;
    bool preemption;
    sim_time replay_timeout;
} bed_cfg;

static void bed_init(bed *t, const bed_cfg *c)
{
    memset(t, 0, sizeof *t);
    t->k = sim_event_kernel_new(0);
    t->env = up_env_new(sim_event_kernel_scheduler(t->k));
    up_dl_params dl = up_dl_params_default();
    if (c->rx_credits)
        dl.rx_credits[0] = dl.rx_credits[1] = c->rx_credits;
    dl.preemption = c->preemption;
    if (c->replay_timeout)
        dl.replay_timeout = c->replay_timeout;
    sw_switch_cfg sc = sw_switch_cfg_default();
    sc.dl = dl;
    sc.depth_interval = SIM_US(1);
    t->sw = sw_switch_new(t->env, &sc, NULL);
    CU_ASSERT_FATAL(t->sw != NULL);
    for (unsigned i = 0; i < c->nodes; i++) {
        up_node_cfg nc = up_node_cfg_default((uint8_t)(2 + i));
        nc.dl = dl;
        t->n[i] = up_node_new(t->env, &nc, NULL, NULL);
        up_link_cfg lc = up_link_cfg_default();
        lc.faults.ber = c->ber;
        lc.faults.drop = c->drop;
        lc.faults.seed = 100 + i;
        t->l[i] = up_link_new(t->env, up_node_port(t->n[i]), sw_switch_port(t->sw, i), &lc,
                              NULL, 0);
        CU_ASSERT_FATAL(t->n[i] && t->l[i]);
        for (unsigned j = 0; j < i; j++)
            CU_ASSERT_FATAL(sw_route_pair_create(sw_switch_routes(t->sw), 2 + j, j, 2 + i, i) == 0);
    }
}

static void bed_fini(bed *t)
{
    for (unsigned i = 0; i < 4; i++) {
        up_link_free(t->l[i]);
        up_node_free(t->n[i]);
    }
    sw_switch_free(t->sw);
    CU_ASSERT_EQUAL(up_env_live_frames(t->env), 0);
    CU_ASSERT_EQUAL(up_env_live_msgs(t->env), 0);
    up_env_free(t->env);
    sim_event_kernel_free(t->k);
}

/* Connects n[a]:ca <-> n[b]:cb. */
static void connect(bed *t, unsigned a, unsigned ca, unsigned b, unsigned cb, unsigned tc,
                    bool e2efc, uint32_t buffer)
{
    up_cport_cfg x = up_cport_cfg_default((uint8_t)(2 + b), (uint16_t)cb);
    x.tc = (uint8_t)tc;
    if (!e2efc)
        x.flags = UP_CPORT_CSD_N | UP_CPORT_CSV_N;
    if (buffer)
        x.local_buffer = x.peer_buffer = buffer;
    CU_ASSERT_FATAL(up_cport_connect(t->n[a], ca, &x) == 0);
    x.peer_dev = (uint8_t)(2 + a);
    x.peer_cport = (uint16_t)ca;
    CU_ASSERT_FATAL(up_cport_connect(t->n[b], cb, &x) == 0);
}

static up_traffic *flow(bed *t, unsigned a, unsigned ca, unsigned b, unsigned cb,
                        up_traffic_kind kind, unsigned size, uint64_t count)
{
    up_traffic_cfg tc = { .kind = kind, .size = size, .header = 8, .depth = 3, .count = count,
                          .rate_bps = 1e8, .seed = 3 };
    up_traffic *tr = up_traffic_new(t->env, &tc, t->n[a], ca, t->n[b], cb);
    CU_ASSERT_FATAL(tr != NULL);
    up_traffic_start(tr);
    return tr;
}

/* ---- reliability ------------------------------------------------------------------- */

static void exactly_once(double ber, double drop, unsigned size, unsigned count)
{
    bed t;
    bed_cfg c = { .nodes = 2, .ber = ber, .drop = drop, .preemption = true,
                  .replay_timeout = SIM_US(50) };
    bed_init(&t, &c);
    connect(&t, 0, 4, 1, 5, 0, true, 0);
    up_traffic *tr = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, size, count);
    sim_event_kernel_run_until(t.k, SIM_MS(200));
    const up_traffic_stats *st = up_traffic_stats_get(tr);
    CU_ASSERT_EQUAL(st->sent, count);
    CU_ASSERT_EQUAL(st->received, count);
    CU_ASSERT_EQUAL(st->order_errors, 0);
    CU_ASSERT_EQUAL(up_cport_stats_get(t.n[1], 5)->rx_dropped, 0);
    /* the faults really happened and were repaired by replay */
    const up_port_stats *a = up_port_stats_get(up_node_port(t.n[0]));
    const up_port_stats *s = up_port_stats_get(sw_switch_port(t.sw, 0));
    if (ber > 0)
        CU_ASSERT(s->rx_crc_errors > 0);
    if (drop > 0)
        CU_ASSERT(s->rx_dropped > 0);
    CU_ASSERT(a->tx_replays > 0);
    up_traffic_free(tr);
    bed_fini(&t);
}

static void test_dl_delivers_every_message_once_in_order_at_ber_1e_6(void)
{
    exactly_once(1e-6, 0, 2048, 20000);
    exactly_once(1e-6, 0, 256, 40000);
}

static void test_dl_delivers_every_message_once_in_order_at_ber_1e_4(void)
{
    exactly_once(1e-4, 0, 2048, 2000);
    exactly_once(1e-4, 0, 64, 20000);
}

static void test_dl_delivers_every_message_once_in_order_with_frame_drops(void)
{
    exactly_once(0, 1e-3, 1024, 10000);
}

static void both_tcs(double ber, double drop)
{
    bed t;
    bed_cfg c = { .nodes = 2, .ber = ber, .drop = drop, .preemption = true,
                  .replay_timeout = SIM_US(50) };
    bed_init(&t, &c);
    connect(&t, 0, 4, 1, 5, 0, true, 0);
    connect(&t, 0, 6, 1, 7, 1, true, 0);
    connect(&t, 1, 8, 0, 9, 1, false, 0);
    up_traffic *bulk = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, 2048, 3000);
    up_traffic *prio = flow(&t, 0, 6, 1, 7, UP_TRAFFIC_POISSON, 100, 3000);
    up_traffic *back = flow(&t, 1, 8, 0, 9, UP_TRAFFIC_SATURATE, 512, 3000);
    sim_event_kernel_run_until(t.k, SIM_MS(200));
    up_traffic *all[] = { bulk, prio, back };
    for (unsigned i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(up_traffic_stats_get(all[i])->received, 3000);
        CU_ASSERT_EQUAL(up_traffic_stats_get(all[i])->order_errors, 0);
        up_traffic_free(all[i]);
    }
    const up_port_stats *a = up_port_stats_get(up_node_port(t.n[0]));
    CU_ASSERT(a->tx_preemptions > 0);
    CU_ASSERT(a->tx_replays > 0);
    bed_fini(&t);
}

static void test_dl_replays_with_both_tcs_and_preemption(void)
{
    both_tcs(1e-5, 0);
    both_tcs(1e-4, 0);
    both_tcs(0, 2e-3);
    both_tcs(3e-5, 1e-3);
}

/* Frames sent again on a link, both directions. */
static uint64_t link_replays(up_link *l)
{
    return up_port_stats_get(up_link_port(l, 0))->tx_replays +
           up_port_stats_get(up_link_port(l, 1))->tx_replays;
}

static void test_link_down_and_up_loses_nothing(void)
{
    bed t;
    bed_cfg c = { .nodes = 2, .preemption = true };
    bed_init(&t, &c);
    connect(&t, 0, 4, 1, 5, 0, true, 0);
    up_traffic *tr = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, 2048, 3000);
    sim_event_kernel_run_until(t.k, SIM_US(500));
    uint64_t before = up_traffic_stats_get(tr)->received;
    CU_ASSERT(before > 0 && before < 3000);
    CU_ASSERT_EQUAL(link_replays(t.l[1]), 0); /* a clean line replays nothing */
    up_link_set_down(t.l[1], true);
    CU_ASSERT_EQUAL(up_link_get_state(t.l[1]), UP_LINK_DOWN);
    sim_event_kernel_run_until(t.k, SIM_US(700));
    uint64_t during = up_traffic_stats_get(tr)->received;
    CU_ASSERT(during - before <= 2); /* at most what had already crossed the link */
    up_link_set_down(t.l[1], false);
    CU_ASSERT_EQUAL(up_link_get_state(t.l[1]), UP_LINK_STARTUP);
    sim_event_kernel_run_until(t.k, SIM_US(700) + up_phy_startup_time(&up_link_get_cfg(t.l[1])->params) - 1);
    CU_ASSERT_EQUAL(up_traffic_stats_get(tr)->received, during);
    sim_event_kernel_run_until(t.k, SIM_MS(50));
    CU_ASSERT_EQUAL(up_traffic_stats_get(tr)->received, 3000);
    CU_ASSERT_EQUAL(up_traffic_stats_get(tr)->order_errors, 0);
    /* what the outage lost in flight was sent again, and counted as replays */
    CU_ASSERT(link_replays(t.l[1]) > 0);
    up_traffic_free(tr);
    bed_fini(&t);
}

static void test_hibernate_stops_traffic_until_exit_completes(void)
{
    bed t;
    bed_cfg c = { .nodes = 2, .preemption = true };
    bed_init(&t, &c);
    connect(&t, 0, 4, 1, 5, 0, false, 0);
    CU_ASSERT_EQUAL(up_link_hibernate(t.l[0], true), 0);
    up_traffic *tr = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, 256, 10);
    sim_event_kernel_run_until(t.k, SIM_US(200));
    CU_ASSERT_EQUAL(up_traffic_stats_get(tr)->received, 0);
    CU_ASSERT_EQUAL(up_link_hibernate(t.l[0], false), 0);
    const up_phy_params *pp = &up_link_get_cfg(t.l[0])->params;
    sim_event_kernel_run_until(t.k, SIM_US(200) + pp->hibern8_exit - 1);
    CU_ASSERT_EQUAL(up_traffic_stats_get(tr)->received, 0);
    sim_event_kernel_run_until(t.k, SIM_MS(1));
    CU_ASSERT_EQUAL(up_traffic_stats_get(tr)->received, 10);
    CU_ASSERT_EQUAL(up_link_hibernate(t.l[0], false), -EBUSY);
    up_traffic_free(tr);
    bed_fini(&t);
}

static void test_power_mode_change_changes_rates(void)
{
    bed t;
    bed_cfg c = { .nodes = 2, .preemption = true };
    bed_init(&t, &c);
    connect(&t, 0, 4, 1, 5, 0, false, 0);
    up_traffic *tr = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, 2048, 0);
    sim_event_kernel_run_until(t.k, SIM_US(100));
    uint64_t b0 = up_traffic_rx_bytes(tr);
    sim_event_kernel_run_until(t.k, SIM_US(200));
    uint64_t fast = up_traffic_rx_bytes(tr) - b0;
    up_phy_cfg g1 = { UP_PHY_HS, 1, UP_SERIES_B, 2 };
    char err[80];
    CU_ASSERT_EQUAL(up_link_set_power_mode(t.l[0], &g1, err, sizeof err), 0);
    CU_ASSERT_EQUAL(up_link_set_power_mode(t.l[0], &g1, err, sizeof err), -EBUSY);
    CU_ASSERT_EQUAL(up_link_set_power_mode(t.l[1], &g1, err, sizeof err), 0);
    sim_event_kernel_run_until(t.k, SIM_US(600));
    CU_ASSERT_EQUAL(up_link_get_cfg(t.l[0])->phy.gear, 1);
    b0 = up_traffic_rx_bytes(tr);
    sim_event_kernel_run_until(t.k, SIM_US(700));
    uint64_t slow = up_traffic_rx_bytes(tr) - b0;
    /* G3 -> G1 is a quarter of the rate */
    CU_ASSERT(fabs((double)slow / (double)fast - 0.25) < 0.02);
    CU_ASSERT_EQUAL(up_traffic_stats_get(tr)->order_errors, 0);
    up_traffic_free(tr);
    bed_fini(&t);
}

/* ---- flow control and priority ------------------------------------------------------ */

static void test_small_receive_buffer_stalls_on_credits(void)
{
    double gp[2];
    sim_time stall[2];
    for (int small = 0; small < 2; small++) {
        bed t;
        bed_cfg c = { .nodes = 2, .preemption = true, .rx_credits = small ? 9 : 0 };
        bed_init(&t, &c);
        connect(&t, 0, 4, 1, 5, 0, false, 0);
        up_traffic *tr = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, 2048, 0);
        sim_event_kernel_run_until(t.k, SIM_US(200));
        gp[small] = (double)up_traffic_rx_bytes(tr);
        stall[small] = up_port_stats_get(up_node_port(t.n[0]))->tx_credit_stall[0];
        up_traffic_free(tr);
        bed_fini(&t);
    }
    /* one 9-credit frame per credit round trip instead of a full pipe */
    CU_ASSERT(gp[1] < 0.6 * gp[0]);
    CU_ASSERT(stall[1] > SIM_US(50));
    CU_ASSERT(stall[0] < SIM_US(1));
}

static void test_e2e_tokens_cap_throughput_by_peer_buffer(void)
{
    double gp[2];
    for (int small = 0; small < 2; small++) {
        bed t;
        bed_cfg c = { .nodes = 2, .preemption = true };
        bed_init(&t, &c);
        connect(&t, 0, 4, 1, 5, 0, true, small ? 288 : 8192);
        up_traffic *tr = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, 2048, 0);
        sim_event_kernel_run_until(t.k, SIM_US(200));
        gp[small] = (double)up_traffic_rx_bytes(tr);
        const up_cport_stats *rx = up_cport_stats_get(t.n[1], 5);
        const up_cport_stats *tx = up_cport_stats_get(t.n[0], 4);
        CU_ASSERT(rx->tx_tokens > 0);
        CU_ASSERT_EQUAL(tx->rx_tokens, rx->tx_tokens - (rx->tx_tokens - tx->rx_tokens));
        if (small)
            CU_ASSERT(tx->e2e_stall > SIM_US(50));
        up_traffic_free(tr);
        bed_fini(&t);
    }
    /* 288 bytes per end-to-end round trip (two hops and the switch, both ways) */
    CU_ASSERT(gp[1] < 0.7 * gp[0]);
}

static void tc1_latency(bool preemption, up_hist *out)
{
    bed t;
    bed_cfg c = { .nodes = 2, .preemption = preemption };
    bed_init(&t, &c);
    connect(&t, 0, 4, 1, 5, 0, false, 0);
    connect(&t, 0, 6, 1, 7, 1, false, 0);
    up_traffic *bulk = flow(&t, 0, 4, 1, 5, UP_TRAFFIC_SATURATE, 2048, 0);
    up_traffic *prio = flow(&t, 0, 6, 1, 7, UP_TRAFFIC_CBR, 8, 0);
    sim_event_kernel_run_until(t.k, SIM_US(500));
    *out = up_cport_stats_get(t.n[1], 7)->latency;
    CU_ASSERT(out->count > 100);
    const up_port_stats *a = up_port_stats_get(up_node_port(t.n[0]));
    if (preemption) {
        CU_ASSERT(a->tx_preemptions > 0);
    } else {
        CU_ASSERT_EQUAL(a->tx_preemptions, 0);
    }
    CU_ASSERT_EQUAL(up_traffic_stats_get(prio)->order_errors, 0);
    CU_ASSERT_EQUAL(up_traffic_stats_get(bulk)->order_errors, 0);
    up_traffic_free(bulk);
    up_traffic_free(prio);
    bed_fini(&t);
}

static void test_tc1_overtakes_tc0_and_preempts_it(void)
{
    up_hist pre, wait;
    tc1_latency(true, &pre);
    tc1_latency(false, &wait);
    /* 12-symbol TC1 frames behind at most one 147-symbol TC0 frame per hop without
     * preemption, at most a control frame with it: both far below a 2 KiB message (1.8 us) per hop */
    sim_time max_frame = SIM_NS(253);
    CU_ASSERT(wait.max > pre.max);
    CU_ASSERT(wait.max < pre.min + 2 * max_frame + SIM_NS(200));
    CU_ASSERT(pre.max < pre.min + max_frame / 2);
}

/* ---- the switch --------------------------------------------------------------------- */

static void test_switch_shares_an_output_round_robin(void)
{
    bed t;
    bed_cfg c = { .nodes = 3, .preemption = true };
    bed_init(&t, &c);
    connect(&t, 0, 4, 2, 5, 0, false, 0);
    connect(&t, 1, 4, 2, 6, 0, false, 0);
    up_traffic *x = flow(&t, 0, 4, 2, 5, UP_TRAFFIC_SATURATE, 2048, 0);
    up_traffic *y = flow(&t, 1, 4, 2, 6, UP_TRAFFIC_SATURATE, 2048, 0);
    sim_event_kernel_run_until(t.k, SIM_US(500));
    double a = (double)up_traffic_rx_bytes(x), b = (double)up_traffic_rx_bytes(y);
    CU_ASSERT(fabs(a - b) / (a + b) < 0.02);
    /* together they fill the output */
    double total = (a + b) * 8 / 500e-6;
    CU_ASSERT(total > 0.97 * 9.012e9);
    const sw_port_stats *p0 = sw_switch_port_stats(t.sw, 0);
    CU_ASSERT(p0->depth.max > 1);
    CU_ASSERT(p0->depth.n > 10);
    up_traffic_free(x);
    up_traffic_free(y);
    bed_fini(&t);
}

static void test_switch_statistics_show_head_of_line_blocking(void)
{
    sim_time hol[2];
    double to_d[2];
    for (int congested = 0; congested < 2; congested++) {
        bed t;
        bed_cfg c = { .nodes = 4, .preemption = true };
        bed_init(&t, &c);
        connect(&t, 0, 4, 2, 5, 0, false, 0); /* A -> C */
        connect(&t, 0, 6, 3, 7, 0, false, 0); /* A -> D */
        connect(&t, 1, 4, 2, 8, 0, false, 0); /* B -> C */
        up_traffic *ac = flow(&t, 0, 4, 2, 5, UP_TRAFFIC_SATURATE, 256, 0);
        up_traffic *ad = flow(&t, 0, 6, 3, 7, UP_TRAFFIC_SATURATE, 256, 0);
        up_traffic *bc = congested ? flow(&t, 1, 4, 2, 8, UP_TRAFFIC_SATURATE, 256, 0) : NULL;
        sim_event_kernel_run_until(t.k, SIM_US(300));
        hol[congested] = sw_switch_port_stats(t.sw, 0)->hol_blocked;
        to_d[congested] = (double)up_traffic_rx_bytes(ad);
        up_traffic_free(ac);
        up_traffic_free(ad);
        up_traffic_free(bc);
        bed_fini(&t);
    }
    /* A's frames for D wait behind frames for the congested C */
    CU_ASSERT(hol[1] > SIM_US(100));
    CU_ASSERT(hol[1] > 10 * hol[0]);
    CU_ASSERT(to_d[1] > 0);
}

static void test_switch_drops_and_counts_unrouted_frames(void)
{
    bed t;
    bed_cfg c = { .nodes = 2, .preemption = true };
    bed_init(&t, &c);
    up_cport_cfg x = up_cport_cfg_default(40, 1); /* DeviceID 40 is nowhere */
    x.flags = 0;
    CU_ASSERT_EQUAL(up_cport_connect(t.n[0], 1, &x), 0);
    CU_ASSERT_EQUAL(up_cport_send(t.n[0], 1, "hi", 2, 0), 0);
    sim_event_kernel_run_until(t.k, SIM_US(50));
    CU_ASSERT_EQUAL(sw_switch_port_stats(t.sw, 0)->dropped_unrouted, 1);
    CU_ASSERT_EQUAL(up_port_rx_buffered(sw_switch_port(t.sw, 0), 0), 0);
    bed_fini(&t);
}

typedef struct collect {
    char buf[4096];
    uint32_t len;
    unsigned n;
} collect;

static void collect_recv(void *ctx, up_node *n, unsigned cport, up_msg *m, sim_time latency)
{
    (void)n;
    (void)cport;
    (void)latency;
    collect *c = ctx;
    if (m->data && m->len <= sizeof c->buf) {
        memcpy(c->buf, m->data, m->len);
        c->len = m->len;
    }
    c->n++;
}

static const up_node_ops collect_ops = { collect_recv, NULL };

static void test_message_bytes_arrive_intact_across_segments(void)
{
    bed t;
    bed_cfg c = { .nodes = 2, .preemption = true };
    bed_init(&t, &c);
    connect(&t, 0, 4, 1, 5, 0, true, 0);
    collect got = { .len = 0, .n = 0 };
    up_cport_set_handler(t.n[1], 5, &collect_ops, &got);
    char msg[1000];
    for (unsigned i = 0; i < sizeof msg; i++)
        msg[i] = (char)(i * 7 + 3);
    CU_ASSERT_EQUAL(up_cport_send(t.n[0], 4, msg, sizeof msg, 9), 0);
    sim_event_kernel_run_until(t.k, SIM_US(50));
    CU_ASSERT_EQUAL(got.n, 1);
    CU_ASSERT_EQUAL(got.len, sizeof msg);
    CU_ASSERT(memcmp(got.buf, msg, sizeof msg) == 0);
    CU_ASSERT_EQUAL(up_cport_stats_get(t.n[0], 4)->tx_segments, 4); /* 286+286+286+142 */
    CU_ASSERT_EQUAL(up_cport_send(t.n[0], 9, msg, 1, 0), -ENOTCONN);
    CU_ASSERT_EQUAL(up_cport_send(t.n[0], 999, msg, 1, 0), -EINVAL);
    bed_fini(&t);
}

/* ---- the port's upper ------------------------------------------------------------- */

static int pull_nothing(void *ctx, unsigned tc, uint32_t credits, up_frame **out)
{
    (void)ctx, (void)tc, (void)credits, (void)out;
    return UP_PULL_EMPTY;
}

static void take_frame(void *ctx, up_frame *f)
{
    (void)ctx, (void)f;
}

static void borrow_frame(void *ctx, const up_frame *f)
{
    (void)ctx, (void)f;
}

static void test_port_needs_an_upper_that_takes_or_borrows_frames(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    up_env *env = up_env_new(sim_event_kernel_scheduler(k));
    const up_port_upper neither = { .pull = pull_nothing };
    const up_port_upper takes = { .pull = pull_nothing, .deliver = take_frame };
    const up_port_upper borrows = { .pull = pull_nothing, .lend = borrow_frame };
    const up_port_upper no_pull = { .lend = borrow_frame };
    CU_ASSERT_PTR_NULL(up_port_new(env, NULL, &neither, NULL));
    CU_ASSERT_PTR_NULL(up_port_new(env, NULL, &no_pull, NULL));
    up_port *a = up_port_new(env, NULL, &takes, NULL);
    up_port *b = up_port_new(env, NULL, &borrows, NULL);
    CU_ASSERT_PTR_NOT_NULL(a);
    CU_ASSERT_PTR_NOT_NULL(b);
    up_port_free(a);
    up_port_free(b);
    up_env_free(env);
    sim_event_kernel_free(k);
}

static const unit_test phy_tests[] = {
    UNIT_TEST(test_phy_lane_rates_follow_gear_and_series),
    UNIT_TEST(test_phy_symbol_time_is_20_ui_over_lanes),
    UNIT_TEST(test_phy_rejects_bad_configs_with_a_reason),
    UNIT_TEST(test_phy_burst_pmc_and_startup_durations),
    UNIT_TESTS_END,
};

static const unit_test dl_tests[] = {
    UNIT_TEST(test_dl_delivers_every_message_once_in_order_at_ber_1e_6),
    UNIT_TEST(test_dl_delivers_every_message_once_in_order_at_ber_1e_4),
    UNIT_TEST(test_dl_delivers_every_message_once_in_order_with_frame_drops),
    UNIT_TEST(test_dl_replays_with_both_tcs_and_preemption),
    UNIT_TEST(test_link_down_and_up_loses_nothing),
    UNIT_TEST(test_hibernate_stops_traffic_until_exit_completes),
    UNIT_TEST(test_power_mode_change_changes_rates),
    UNIT_TEST(test_small_receive_buffer_stalls_on_credits),
    UNIT_TEST(test_e2e_tokens_cap_throughput_by_peer_buffer),
    UNIT_TEST(test_tc1_overtakes_tc0_and_preempts_it),
    UNIT_TEST(test_message_bytes_arrive_intact_across_segments),
    UNIT_TEST(test_port_needs_an_upper_that_takes_or_borrows_frames),
    UNIT_TESTS_END,
};

static const unit_test switch_tests[] = {
    UNIT_TEST(test_switch_shares_an_output_round_robin),
    UNIT_TEST(test_switch_statistics_show_head_of_line_blocking),
    UNIT_TEST(test_switch_drops_and_counts_unrouted_frames),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "unipro_phy", phy_tests, NULL, NULL },
    { "unipro_dl", dl_tests, NULL, NULL },
    { "unipro_switch", switch_tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
