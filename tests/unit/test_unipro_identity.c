// SPDX-License-Identifier: MIT
// Frame-exact batching (docs/performance-model.md, "Frame-exact batching") against the
// per-frame reference path (up_env_set_per_frame): the 120 saturated validation
// configurations of test_unipro_validation.c, runs at BER 1e-6 and 1e-4 with frame drops,
// NAC and replays, credit stalls and FC protection, E2EFC, TC1 preemption, link down/up,
// power mode changes and HIBERN8, request/response traffic and the 14-port switch of the
// benchmark. Each is run in both modes; the statistics of every port, node, CPort
// (latency histograms bucket by bucket), switch port and flow are written out as text and
// compared byte for byte, together with a digest of every frame, AFC and NAC that crossed
// a link (its times, sequence number, flags).
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

#define MAXN 16

typedef struct net {
    sim_event_kernel *k;
    up_env *env;
    up_node *n[MAXN];
    unsigned nn;
    sw_switch *sw;
    up_link *l[MAXN];
    unsigned nl;
    up_traffic *t[MAXN];
    unsigned nt;
    uint64_t trace;  /* FNV-1a over every frame that crossed a link */
    uint64_t frames;
} net;

/* What one scenario builds; `arg` selects a variant. */
typedef void (*build_fn)(net *x, unsigned arg);

/* ---- the trace of every frame -------------------------------------------------------- */

static void fnv(uint64_t *h, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++) {
        *h ^= (v >> (8 * i)) & 0xff;
        *h *= 0x100000001b3ull;
    }
}

static void on_frame(void *ctx, up_link *l, const up_dl_event *ev)
{
    (void)l;
    net *x = ctx;
    x->frames++;
    fnv(&x->trace, ev->side | (uint64_t)ev->kind << 8 | (uint64_t)ev->tc << 16 |
                       (uint64_t)ev->replay << 24 | (uint64_t)ev->crc_error << 25 |
                       (uint64_t)ev->dropped << 26 | (uint64_t)ev->dst_dev << 32);
    fnv(&x->trace, ev->seq | (uint64_t)ev->len << 32);
    fnv(&x->trace, ev->start);
    fnv(&x->trace, ev->end);
}

/* ---- building blocks ---------------------------------------------------------------- */

static up_node *add_node(net *x, uint8_t dev, const up_dl_params *dl)
{
    up_node_cfg nc = up_node_cfg_default(dev);
    if (dl)
        nc.dl = *dl;
    up_node *n = up_node_new(x->env, &nc, NULL, NULL);
    CU_ASSERT_FATAL(n != NULL);
    x->n[x->nn++] = n;
    return n;
}

static up_link *add_link(net *x, up_port *a, up_port *b, const up_link_cfg *lc)
{
    char err[128];
    up_link *l = up_link_new(x->env, a, b, lc, err, sizeof err);
    CU_ASSERT_FATAL(l != NULL);
    up_link_set_frame_observer(l, on_frame, x);
    x->l[x->nl++] = l;
    return l;
}

/* CPort `ca` of a to CPort `cb` of b and a flow over it. */
static up_traffic *add_flow(net *x, up_node *a, unsigned ca, up_node *b, unsigned cb,
                            const up_traffic_cfg *tc, bool e2efc, unsigned ttc)
{
    up_cport_cfg c = up_cport_cfg_default(up_node_device_id(b), (uint16_t)cb);
    if (!e2efc)
        c.flags = UP_CPORT_CSD_N | UP_CPORT_CSV_N;
    c.tc = (uint8_t)ttc;
    CU_ASSERT_FATAL(up_cport_connect(a, ca, &c) == 0);
    c.peer_dev = up_node_device_id(a);
    c.peer_cport = (uint16_t)ca;
    CU_ASSERT_FATAL(up_cport_connect(b, cb, &c) == 0);
    up_traffic *t = up_traffic_new(x->env, tc, a, ca, b, cb);
    CU_ASSERT_FATAL(t != NULL);
    CU_ASSERT_FATAL(up_traffic_start(t) == 0);
    x->t[x->nt++] = t;
    return t;
}

static sw_switch *add_switch(net *x, unsigned ports, const up_dl_params *dl, bool ct)
{
    sw_switch_cfg sc = sw_switch_cfg_default();
    sc.ports = ports;
    sc.cut_through = ct;
    sc.depth_interval = SIM_US(1);
    if (dl)
        sc.dl = *dl;
    x->sw = sw_switch_new(x->env, &sc, NULL);
    CU_ASSERT_FATAL(x->sw != NULL);
    return x->sw;
}

/* Link state changes at set times (kernel events like any other). */
static void ev_down(void *l) { up_link_set_down(l, true); }
static void ev_up(void *l) { up_link_set_down(l, false); }
static void ev_h8_enter(void *l) { up_link_hibernate(l, true); }
static void ev_h8_exit(void *l) { up_link_hibernate(l, false); }
static void ev_slow(void *l)
{
    up_phy_cfg g1 = { UP_PHY_HS, 1, UP_SERIES_A, 1 };
    up_link_set_power_mode(l, &g1, NULL, 0);
}
static void ev_fast(void *l)
{
    up_phy_cfg g3 = up_phy_cfg_default();
    up_link_set_power_mode(l, &g3, NULL, 0);
}

static void at(net *x, sim_time t, sim_event_fn fn, up_link *l)
{
    CU_ASSERT_FATAL(sim_event_kernel_schedule(x->k, t, fn, l, NULL) == 0);
}

/* ---- the scenarios -------------------------------------------------------------------- */

/* The 120 configurations of test_unipro_validation.c: A -- switch -- B, saturated one way,
 * AFC every frame, large buffers, no E2EFC. arg = gear-1 | series << 2 | lanes idx << 3 |
 * size idx << 5. */
static const unsigned sizes[] = { 8, 64, 256, 1024, 2048 };
static const unsigned lanes[] = { 1, 2, 4 };

static void build_validation(net *x, unsigned arg)
{
    up_dl_params dl = up_dl_params_default();
    dl.out_ack_threshold = 0;
    dl.rx_credits[0] = dl.rx_credits[1] = 1024;
    dl.afc_credit_threshold = 1;
    up_node *a = add_node(x, 2, &dl), *b = add_node(x, 3, &dl);
    sw_switch *sw = add_switch(x, 15, &dl, false);
    CU_ASSERT_FATAL(sw_route_pair_create(sw_switch_routes(sw), 2, 0, 3, 1) == 0);
    up_link_cfg lc = up_link_cfg_default();
    lc.phy = (up_phy_cfg){ UP_PHY_HS, (uint8_t)((arg & 3) + 1),
                           (uint8_t)(UP_SERIES_A + ((arg >> 2) & 1)),
                           (uint8_t)lanes[(arg >> 3) & 3] };
    lc.faults.seed = 7;
    add_link(x, up_node_port(a), sw_switch_port(sw, 0), &lc);
    lc.faults.seed = 8;
    add_link(x, sw_switch_port(sw, 1), up_node_port(b), &lc);
    up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .size = sizes[arg >> 5], .header = 8,
                          .depth = 4 };
    add_flow(x, a, 4, b, 5, &tc, false, 0);
}

/* Two nodes on one HS-G3B x2 link, default DL parameters (credits bind), E2EFC on, 256-byte
 * messages saturating one way and 64-byte ones the other. arg 0: BER 1e-6; 1: BER 1e-4 and
 * 1e-3 frame drops; 2: BER 1e-5 with a link down/up, a power mode change to HS-G1A x1 and
 * back, and a HIBERN8 round trip. */
static void build_ber(net *x, unsigned arg)
{
    up_dl_params dl = up_dl_params_default();
    dl.fc_protection = SIM_US(20); /* lost AFCs make credit requests within the run */
    dl.replay_timeout = SIM_US(40);
    up_node *a = add_node(x, 1, &dl), *b = add_node(x, 2, &dl);
    up_link_cfg lc = up_link_cfg_default();
    lc.faults.ber = arg == 0 ? 1e-6 : arg == 1 ? 1e-4 : 1e-5;
    lc.faults.drop = arg == 1 ? 1e-3 : 0;
    lc.faults.seed = 11 + arg;
    up_link *l = add_link(x, up_node_port(a), up_node_port(b), &lc);
    up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .size = 256, .header = 8, .depth = 2 };
    add_flow(x, a, 0, b, 1, &tc, true, 0);
    tc.size = 64;
    add_flow(x, b, 2, a, 3, &tc, true, 0);
    if (arg == 2) {
        at(x, SIM_US(300), ev_down, l);
        at(x, SIM_US(320), ev_up, l);
        at(x, SIM_US(1000), ev_slow, l);
        at(x, SIM_US(1300), ev_fast, l);
        at(x, SIM_US(1500), ev_h8_enter, l);
        at(x, SIM_US(1530), ev_h8_exit, l);
    }
}

/* A -- switch -- B with TC0 saturating both ways (E2EFC), a Poisson TC1 flow preempting
 * it, request/response on a third CPort pair, small input buffers (credit stalls) and bit
 * errors on both links. arg 0: store-and-forward; 1: cut-through with a link down/up. */
static void build_switch_mix(net *x, unsigned arg)
{
    up_dl_params dl = up_dl_params_default();
    dl.rx_credits[0] = dl.rx_credits[1] = 20;
    dl.fc_protection = SIM_US(30);
    dl.replay_timeout = SIM_US(50);
    up_node *a = add_node(x, 2, &dl), *b = add_node(x, 3, &dl);
    sw_switch *sw = add_switch(x, 4, &dl, arg == 1);
    CU_ASSERT_FATAL(sw_route_pair_create(sw_switch_routes(sw), 2, 0, 3, 1) == 0);
    up_link_cfg lc = up_link_cfg_default();
    lc.faults.ber = 3e-6;
    lc.faults.seed = 21;
    up_link *l1 = add_link(x, up_node_port(a), sw_switch_port(sw, 0), &lc);
    lc.faults.seed = 22;
    add_link(x, sw_switch_port(sw, 1), up_node_port(b), &lc);
    up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .size = 1024, .header = 8, .depth = 2 };
    add_flow(x, a, 0, b, 1, &tc, true, 0);
    tc.size = 300;
    add_flow(x, b, 2, a, 3, &tc, true, 0);
    up_traffic_cfg p = { .kind = UP_TRAFFIC_POISSON, .size = 128, .header = 8,
                         .rate_bps = 500e6, .seed = 5 };
    add_flow(x, a, 4, b, 5, &p, false, 1);
    up_traffic_cfg rr = { .kind = UP_TRAFFIC_RR, .size = 64, .header = 8, .response_size = 512,
                          .depth = 2 };
    add_flow(x, b, 6, a, 7, &rr, true, 0);
    if (arg == 1) {
        at(x, SIM_US(400), ev_down, l1);
        at(x, SIM_US(410), ev_up, l1);
    }
}

/* The benchmark's 14-port switch: node i saturates node (i + 5) mod 14 with 2 KiB
 * messages; arg 1 adds BER 1e-6 on every link; arg 2 and 3 are 0 and 1 without frame
 * observers (period skipping, docs/performance-model.md); arg 4 is 2 without the
 * switch's depth series. */
static void build_switch14(net *x, unsigned arg)
{
    sw_switch *sw;
    if (arg == 4) { /* (a switch that samples its depth series is never skipped) */
        sw_switch_cfg sc = sw_switch_cfg_default();
        sc.ports = 14;
        sw = x->sw = sw_switch_new(x->env, &sc, NULL);
        CU_ASSERT_FATAL(sw != NULL);
    } else {
        sw = add_switch(x, 14, NULL, false);
    }
    up_link_cfg lc = up_link_cfg_default();
    lc.faults.ber = arg & 1 ? 1e-6 : 0;
    for (unsigned i = 0; i < 14; i++) {
        up_node *n = add_node(x, (uint8_t)(2 + i), NULL);
        lc.faults.seed = 100 + i;
        up_link *l = add_link(x, up_node_port(n), sw_switch_port(sw, i), &lc);
        if (arg >= 2)
            up_link_set_frame_observer(l, NULL, NULL);
        CU_ASSERT_FATAL(sw_route_set(sw_switch_routes(sw), 2 + i, i) == 0);
    }
    for (unsigned i = 0; i < 14; i++)
        for (unsigned j = 0; j < 14; j++)
            sw_route_allow(sw_switch_routes(sw), i, 2 + j, true);
    up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .size = 2048, .header = 8, .depth = 2 };
    for (unsigned i = 0; i < 14; i++)
        add_flow(x, x->n[i], 0, x->n[(i + 5) % 14], 1, &tc, false, 0);
}

/* Two nodes on one link without a frame observer (one keeps a link from skipping periods,
 * docs/performance-model.md "Period skipping"), saturated with default DL parameters.
 * arg 0-4: one way, payload sizes[arg], no E2EFC; 5-9: the same with E2EFC; 10: 2 KiB
 * both ways; 11: 2 KiB with a link down/up, a power mode change and back and a HIBERN8
 * round trip; 12: 2 KiB at BER 1e-6 (skips between errors); 13: HS-G4B x4 with an AFC
 * after every frame and large buffers; 14: 256 B both ways under E2EFC at BER 1e-5. */
static void build_plain(net *x, unsigned arg)
{
    up_dl_params dl = up_dl_params_default();
    if (arg == 13) {
        dl.out_ack_threshold = 0;
        dl.rx_credits[0] = dl.rx_credits[1] = 1024;
        dl.afc_credit_threshold = 1;
    }
    up_node *a = add_node(x, 1, &dl), *b = add_node(x, 2, &dl);
    up_link_cfg lc = up_link_cfg_default();
    if (arg == 12 || arg == 14)
        lc.faults.ber = arg == 12 ? 1e-6 : 1e-5;
    lc.faults.seed = 31 + arg;
    if (arg == 13)
        lc.phy = (up_phy_cfg){ UP_PHY_HS, 4, UP_SERIES_B, 4 };
    char err[128];
    up_link *l = up_link_new(x->env, up_node_port(a), up_node_port(b), &lc, err, sizeof err);
    CU_ASSERT_FATAL(l != NULL);
    x->l[x->nl++] = l;
    unsigned size = arg < 10 ? sizes[arg % 5] : arg == 14 ? 256 : 2048;
    up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .size = size, .header = 8, .depth = 2 };
    bool e2efc = (arg >= 5 && arg < 10) || arg == 14;
    add_flow(x, a, 0, b, 1, &tc, e2efc, 0);
    if (arg == 10 || arg == 14)
        add_flow(x, b, 2, a, 3, &tc, e2efc, 0);
    if (arg == 11) {
        at(x, SIM_US(300), ev_down, l);
        at(x, SIM_US(320), ev_up, l);
        at(x, SIM_US(1000), ev_slow, l);
        at(x, SIM_US(1300), ev_fast, l);
        at(x, SIM_US(1500), ev_h8_enter, l);
        at(x, SIM_US(1530), ev_h8_exit, l);
    }
}

/* A two-node link drawn from `arg` (a seed): payload size, BER, E2EFC, a flow back,
 * queue depth, credits, acknowledgement threshold, window, gear and lanes, each varied or
 * left at its default, so the comparisons reach combinations the named cases do not. */
static uint64_t draw(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const unsigned random_sizes[] = { 1, 8, 50, 64, 200, 256, 286, 287, 300, 572, 1000,
                                         1024, 2048, 3000, 5000 };
#define RANDOM_SIZES (sizeof random_sizes / sizeof random_sizes[0])

static void build_random(net *x, unsigned arg)
{
    uint64_t st = arg;
    up_dl_params dl = up_dl_params_default();
    if (draw(&st) % 3 == 0)
        dl.rx_credits[0] = dl.rx_credits[1] = 9 + (unsigned)(draw(&st) % 200);
    if (draw(&st) % 3 == 0)
        dl.out_ack_threshold = (unsigned)(draw(&st) % 16);
    if (draw(&st) % 4 == 0)
        dl.tx_window = 1 + (unsigned)(draw(&st) % 16);
    up_node *a = add_node(x, 1, &dl), *b = add_node(x, 2, &dl);
    up_link_cfg lc = up_link_cfg_default();
    static const double bers[] = { 0, 0, 0, 0, 1e-7, 1e-6, 1e-5 };
    lc.faults.ber = bers[draw(&st) % 7];
    lc.faults.seed = draw(&st) % 100;
    if (draw(&st) % 3 == 0)
        lc.phy = (up_phy_cfg){ UP_PHY_HS, (uint8_t)(1 + draw(&st) % 4), UP_SERIES_B,
                               (uint8_t)(1 + draw(&st) % 4) };
    char err[128];
    up_link *l = up_link_new(x->env, up_node_port(a), up_node_port(b), &lc, err, sizeof err);
    CU_ASSERT_FATAL(l != NULL);
    x->l[x->nl++] = l;
    bool e2efc = draw(&st) % 3 == 0;
    up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .header = 8, .depth = 2 };
    tc.size = random_sizes[draw(&st) % RANDOM_SIZES];
    if (draw(&st) % 2 == 0)
        tc.depth = 1 + (unsigned)(draw(&st) % 4);
    add_flow(x, a, 0, b, 1, &tc, e2efc, 0);
    if (draw(&st) % 3 == 0) {
        tc.size = random_sizes[draw(&st) % RANDOM_SIZES];
        add_flow(x, b, 2, a, 3, &tc, e2efc, 0);
    }
}

/* A switch of 3 to 8 ports drawn from `arg`, a node on each, every node saturating another
 * (a random mapping: several may share an output, where the round robin and head-of-line
 * blocking decide) with random sizes, a TC1 flow now and then, switch credits, BER and
 * gears, no depth series and no frame observers (so that periods may be skipped). */
static void build_random_switch(net *x, unsigned arg)
{
    uint64_t st = arg;
    unsigned ports = 3 + (unsigned)(draw(&st) % 6);
    sw_switch_cfg sc = sw_switch_cfg_default();
    sc.ports = ports;
    if (draw(&st) % 3 == 0)
        sc.dl.rx_credits[0] = sc.dl.rx_credits[1] = 9 + (unsigned)(draw(&st) % 120);
    sw_switch *sw = x->sw = sw_switch_new(x->env, &sc, NULL);
    CU_ASSERT_FATAL(sw != NULL);
    up_link_cfg lc = up_link_cfg_default();
    static const double bers[] = { 0, 0, 0, 1e-6 };
    lc.faults.ber = bers[draw(&st) % 4];
    if (draw(&st) % 3 == 0)
        lc.phy = (up_phy_cfg){ UP_PHY_HS, (uint8_t)(1 + draw(&st) % 4), UP_SERIES_B,
                               (uint8_t)(1 + draw(&st) % 2) };
    for (unsigned i = 0; i < ports; i++) {
        up_node *n = add_node(x, (uint8_t)(2 + i), NULL);
        lc.faults.seed = 200 + i;
        char err[128];
        up_link *l = up_link_new(x->env, up_node_port(n), sw_switch_port(sw, i), &lc, err,
                                 sizeof err);
        CU_ASSERT_FATAL(l != NULL);
        x->l[x->nl++] = l;
        CU_ASSERT_FATAL(sw_route_set(sw_switch_routes(sw), 2 + i, i) == 0);
    }
    for (unsigned i = 0; i < ports; i++)
        for (unsigned j = 0; j < ports; j++)
            sw_route_allow(sw_switch_routes(sw), i, 2 + j, true);
    /* half of them a permutation with one size (the kind that repeats within the periods
     * looked for), the others any mapping and sizes */
    bool regular = draw(&st) % 2 == 0;
    unsigned shift = 1 + (unsigned)(draw(&st) % (ports - 1));
    unsigned size = random_sizes[draw(&st) % RANDOM_SIZES];
    for (unsigned i = 0; i < ports; i++) {
        unsigned to = (i + (regular ? shift : 1 + (unsigned)(draw(&st) % (ports - 1)))) % ports;
        up_traffic_cfg tc = { .kind = UP_TRAFFIC_SATURATE, .header = 8, .depth = 2 };
        tc.size = regular ? size : random_sizes[draw(&st) % RANDOM_SIZES];
        add_flow(x, x->n[i], 0, x->n[to], 1 + i, &tc, false, !regular && draw(&st) % 5 == 0);
    }
}

/* ---- running and writing out ------------------------------------------------------------ */

static void dump_hist(FILE *o, const char *name, const up_hist *h)
{
    fprintf(o, "%s count=%llu min=%llu max=%llu sum=%a", name, (unsigned long long)h->count,
            (unsigned long long)h->min, (unsigned long long)h->max, h->sum);
    for (unsigned b = 0; b < UP_HIST_POW * UP_HIST_SUB; b++)
        if (h->bucket[b])
            fprintf(o, " %u:%u", b, h->bucket[b]);
    fputc('\n', o);
}

static void dump_port(FILE *o, const char *who, unsigned i, const up_port *p)
{
    const up_port_stats *s = up_port_stats_get(p);
    fprintf(o,
            "%s%u tx %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu rx %llu %llu %llu "
            "%llu %llu %llu %llu %llu %llu unacked %u %u credits %lld %lld buffered %u %u\n",
            who, i, (unsigned long long)s->tx_frames, (unsigned long long)s->tx_payload_bytes,
            (unsigned long long)s->tx_wire_bytes, (unsigned long long)s->tx_afc,
            (unsigned long long)s->tx_nac, (unsigned long long)s->tx_replays,
            (unsigned long long)s->tx_replay_timeouts, (unsigned long long)s->tx_preemptions,
            (unsigned long long)s->tx_credit_requests, (unsigned long long)s->tx_busy,
            (unsigned long long)(s->tx_credit_stall[0] + 1000003ull * s->tx_credit_stall[1]),
            (unsigned long long)s->rx_frames, (unsigned long long)s->rx_payload_bytes,
            (unsigned long long)s->rx_crc_errors, (unsigned long long)s->rx_dropped,
            (unsigned long long)s->rx_duplicates, (unsigned long long)s->rx_out_of_sequence,
            (unsigned long long)s->rx_afc, (unsigned long long)s->rx_nac,
            (unsigned long long)s->rx_control_lost, up_port_unacked(p, 0), up_port_unacked(p, 1),
            (long long)up_port_tx_credits(p, 0), (long long)up_port_tx_credits(p, 1),
            up_port_rx_buffered(p, 0), up_port_rx_buffered(p, 1));
}

static void dump(FILE *o, net *x)
{
    fprintf(o, "now %llu events %llu frames %llu trace %016llx\n",
            (unsigned long long)sim_event_kernel_now(x->k),
            (unsigned long long)sim_event_kernel_executed(x->k), (unsigned long long)x->frames,
            (unsigned long long)x->trace);
    for (unsigned i = 0; i < x->nl; i++)
        fprintf(o, "link%u %s\n", i, up_link_state_name(up_link_get_state(x->l[i])));
    for (unsigned i = 0; i < x->nn; i++) {
        up_node *n = x->n[i];
        dump_port(o, "node", i, up_node_port(n));
        const up_node_stats *ns = up_node_stats_get(n);
        fprintf(o, "node%u wrong %llu unknown %llu\n", i, (unsigned long long)ns->rx_wrong_device,
                (unsigned long long)ns->rx_unknown_cport);
        for (unsigned c = 0; c < 8; c++) {
            if (!up_cport_connected(n, c))
                continue;
            const up_cport_stats *cs = up_cport_stats_get(n, c);
            fprintf(o, "node%u.%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu queued %u\n",
                    i, c, (unsigned long long)cs->tx_msgs, (unsigned long long)cs->tx_bytes,
                    (unsigned long long)cs->tx_segments, (unsigned long long)cs->tx_tokens,
                    (unsigned long long)cs->rx_msgs, (unsigned long long)cs->rx_bytes,
                    (unsigned long long)cs->rx_segments, (unsigned long long)cs->rx_tokens,
                    (unsigned long long)cs->rx_dropped, (unsigned long long)cs->e2e_stall,
                    up_cport_queued(n, c));
            dump_hist(o, "  latency", &cs->latency);
        }
    }
    for (unsigned i = 0; x->sw && i < sw_switch_port_count(x->sw); i++) {
        const sw_port_stats *s = sw_switch_port_stats(x->sw, i);
        dump_port(o, "sw", i, sw_switch_port(x->sw, i));
        fprintf(o, "sw%u %llu %llu %llu %llu %llu depth %u %u %a queued %u %u series", i,
                (unsigned long long)s->rx_frames, (unsigned long long)s->forwarded,
                (unsigned long long)s->dropped_unrouted, (unsigned long long)s->hol_events,
                (unsigned long long)s->hol_blocked, s->depth.level, s->depth.max,
                up_level_mean(&s->depth, sim_event_kernel_now(x->k)),
                sw_switch_queued(x->sw, i, 0), sw_switch_queued(x->sw, i, 1));
        for (size_t j = 0; j < s->depth.n; j++)
            fprintf(o, " %llu:%u", (unsigned long long)s->depth.series[j].t,
                    s->depth.series[j].level);
        fputc('\n', o);
    }
    for (unsigned i = 0; i < x->nt; i++) {
        const up_traffic_stats *t = up_traffic_stats_get(x->t[i]);
        fprintf(o, "flow%u %llu %llu %llu %llu %llu\n", i, (unsigned long long)t->sent,
                (unsigned long long)t->received, (unsigned long long)t->rx_payload_bytes,
                (unsigned long long)t->order_errors, (unsigned long long)t->responses);
        dump_hist(o, "  rtt", &t->rtt);
    }
}

static void teardown(net *x)
{
    for (unsigned i = 0; i < x->nt; i++)
        up_traffic_free(x->t[i]);
    for (unsigned i = 0; i < x->nl; i++)
        up_link_free(x->l[i]);
    for (unsigned i = 0; i < x->nn; i++)
        up_node_free(x->n[i]);
    sw_switch_free(x->sw);
    CU_ASSERT_EQUAL(up_env_live_frames(x->env), 0);
    CU_ASSERT_EQUAL(up_env_live_msgs(x->env), 0);
    up_env_free(x->env);
    sim_event_kernel_free(x->k);
}

/* Runs the scenario in one mode in `parts` steps of run_until (as gbvp model and the
 * benchmarks do) and returns its statistics as text (free() it), the count of events run
 * (the same in both modes) included; *batched: events handled without the queue. */
static char *run_one(build_fn build, unsigned arg, bool per_frame, sim_time until,
                     unsigned parts, uint64_t *batched)
{
    net x = { .trace = 0xcbf29ce484222325ull };
    x.k = sim_event_kernel_new(0);
    x.env = up_env_new(sim_event_kernel_scheduler(x.k));
    CU_ASSERT_FATAL(x.k && x.env);
    up_env_set_per_frame(x.env, per_frame);
    build(&x, arg);
    for (unsigned i = 1; i <= parts; i++)
        CU_ASSERT_EQUAL(sim_event_kernel_run_until(x.k, until / parts * i), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    CU_ASSERT_FATAL(o != NULL);
    dump(o, &x);
    fclose(o);
    if (batched)
        *batched = sim_event_kernel_batched(x.k);
    teardown(&x);
    return text;
}

/* Both modes give the same text; prints where they part when they do not. */
static bool same_in_both_modes(const char *name, build_fn build, unsigned arg, sim_time until,
                               unsigned parts)
{
    char *ref = run_one(build, arg, true, until, parts, NULL);
    char *bat = run_one(build, arg, false, until, parts, NULL);
    bool same = !strcmp(ref, bat);
    if (!same) {
        size_t i = 0;
        while (ref[i] && ref[i] == bat[i])
            i++;
        size_t from = i > 60 ? i - 60 : 0;
        fprintf(stderr, "\n%s (%u): per-frame and batched differ at byte %zu:\n  ref %.120s\n"
                        "  bat %.120s\n", name, arg, i, ref + from, bat + from);
    }
    free(ref);
    free(bat);
    return same;
}

/* The events a period skip stood for in a batched run of the scenario (none run per frame):
 * so that the comparisons compare skips. */
static uint64_t skipped_events(build_fn build, unsigned arg, sim_time until)
{
    net x = { .trace = 0xcbf29ce484222325ull };
    x.k = sim_event_kernel_new(0);
    x.env = up_env_new(sim_event_kernel_scheduler(x.k));
    build(&x, arg);
    sim_event_kernel_run_until(x.k, until);
    uint64_t skipped = sim_event_kernel_skipped(x.k);
    teardown(&x);
    return skipped;
}

/* ---- tests -------------------------------------------------------------------------- */

static void test_validation_configurations_are_identical_in_both_modes(void)
{
    unsigned same = 0;
    for (unsigned arg = 0; arg < 4 * 2 * 3 * 5 * 8; arg++) {
        if (((arg >> 3) & 3) > 2 || (arg >> 5) > 4)
            continue;
        /* (the validation measures over 2000 messages; 400 us holds 2 to 2700 here) */
        same += same_in_both_modes("validation", build_validation, arg, SIM_US(400), 2);
    }
    CU_ASSERT_EQUAL(same, 120);
}

static void test_ber_drop_and_link_changes_are_identical_in_both_modes(void)
{
    for (unsigned arg = 0; arg < 3; arg++)
        CU_ASSERT(same_in_both_modes("ber", build_ber, arg, SIM_MS(2), 3));
}

static void test_switch_with_tc1_rr_credits_and_faults_is_identical_in_both_modes(void)
{
    for (unsigned arg = 0; arg < 2; arg++)
        CU_ASSERT(same_in_both_modes("switch-mix", build_switch_mix, arg, SIM_MS(1), 4));
}

static void test_switch14_permutation_is_identical_in_both_modes(void)
{
    for (unsigned arg = 0; arg < 5; arg++)
        CU_ASSERT(same_in_both_modes("switch14", build_switch14, arg, SIM_US(300), 2));
    /* long enough for skips bounded by the replay timers, in uneven parts */
    CU_ASSERT(same_in_both_modes("switch14-long", build_switch14, 4, SIM_MS(10) + 12345, 3));
    uint64_t skipped = skipped_events(build_switch14, 4, SIM_MS(1));
    fprintf(stderr, "  [events skipped, 1 ms: %llu] ", (unsigned long long)skipped);
    CU_ASSERT(skipped > 0);
}

/* The comparison can fail: one picosecond more PHY latency on one link changes the text;
 * and batching does handle events without the queue (none in the per-frame path). */
static void test_comparison_sees_a_one_picosecond_change(void)
{
    uint64_t ev_ref = 0, ev_bat = 0;
    char *ref = run_one(build_validation, 1 | 1 << 3 | 4u << 5, true, SIM_US(200), 1, &ev_ref);
    char *bat = run_one(build_validation, 1 | 1 << 3 | 4u << 5, false, SIM_US(200), 1, &ev_bat);
    CU_ASSERT_STRING_EQUAL(ref, bat);
    CU_ASSERT_EQUAL(ev_ref, 0);
    CU_ASSERT(ev_bat > 0);
    fprintf(stderr, "  [events handled without the queue: %llu] ", (unsigned long long)ev_bat);
    free(bat);
    /* the same network with the second link's TX latency 1 ps longer */
    net x = { .trace = 0xcbf29ce484222325ull };
    x.k = sim_event_kernel_new(0);
    x.env = up_env_new(sim_event_kernel_scheduler(x.k));
    build_validation(&x, 1 | 1 << 3 | 4u << 5);
    up_link_cfg lc = *up_link_get_cfg(x.l[1]);
    lc.params.tx_latency += 1;
    up_link_free(x.l[1]);
    x.l[1] = up_link_new(x.env, sw_switch_port(x.sw, 1), up_node_port(x.n[1]), &lc, NULL, 0);
    CU_ASSERT_FATAL(x.l[1] != NULL);
    up_link_set_frame_observer(x.l[1], on_frame, &x);
    sim_event_kernel_run_until(x.k, SIM_US(200));
    char *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    dump(o, &x);
    fclose(o);
    CU_ASSERT(strcmp(ref, text) != 0);
    free(text);
    free(ref);
    teardown(&x);
}

/* Runs networks build(first) .. build(first + n - 1), each for `min_us` plus up to
 * `span_us` microseconds in 1 to `parts_max` parts (drawn from its seed), in both modes;
 * *skipping counts those where period skipping took place. Returns how many were
 * identical. */
static unsigned random_networks_identical(const char *name, build_fn build, unsigned first,
                                          unsigned n, unsigned min_us, unsigned span_us,
                                          unsigned parts_max, unsigned *skipping)
{
    unsigned same = 0;
    *skipping = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t st = first + i;
        sim_time until = SIM_US(min_us + draw(&st) % span_us);
        unsigned parts = 1 + (unsigned)(draw(&st) % parts_max);
        same += same_in_both_modes(name, build, first + i, until, parts);
        *skipping += skipped_events(build, first + i, until) > 0;
    }
    fprintf(stderr, "  [%u of %u identical, %u with skips] ", same, n, *skipping);
    return same;
}

/* Random two-node links (build_random), run for 0.3 to 6.3 ms in 1 to 5 parts: identical
 * in both modes, and period skipping takes place in many of them. */
static void test_random_links_are_identical_in_both_modes(void)
{
    unsigned skipping, n = 200;
    unsigned same = random_networks_identical("random", build_random, 1000, n, 300, 6000, 5,
                                              &skipping);
    CU_ASSERT_EQUAL(same, n);
    CU_ASSERT(skipping >= n / 4);
}

/* Random switched networks (build_random_switch), 0.2 to 1.2 ms in 1 to 3 parts. */
static void test_random_switches_are_identical_in_both_modes(void)
{
    unsigned skipping, n = 60;
    unsigned same = random_networks_identical("random-switch", build_random_switch, 5000, n,
                                              200, 1000, 3, &skipping);
    CU_ASSERT_EQUAL(same, n);
    CU_ASSERT(skipping >= n / 5);
}

static void test_links_without_observers_are_identical_in_both_modes(void)
{
    for (unsigned arg = 0; arg < 15; arg++)
        CU_ASSERT(same_in_both_modes("plain", build_plain, arg, SIM_MS(2), 3));
    uint64_t skipped = skipped_events(build_plain, 4, SIM_MS(2));
    fprintf(stderr, "  [events skipped, 2 KiB link, 2 ms: %llu] ", (unsigned long long)skipped);
    CU_ASSERT(skipped > 0);
    /* long enough for skips bounded by the replay timer, in uneven parts */
    CU_ASSERT(same_in_both_modes("plain-long", build_plain, 4, SIM_MS(30) + 12345, 7));
    CU_ASSERT(same_in_both_modes("plain-long", build_plain, 6, SIM_MS(30) + 12345, 7));
    CU_ASSERT(same_in_both_modes("plain-long", build_plain, 12, SIM_MS(30) + 12345, 7));
}

static const unit_test identity_tests[] = {
    UNIT_TEST(test_comparison_sees_a_one_picosecond_change),
    UNIT_TEST(test_validation_configurations_are_identical_in_both_modes),
    UNIT_TEST(test_ber_drop_and_link_changes_are_identical_in_both_modes),
    UNIT_TEST(test_switch_with_tc1_rr_credits_and_faults_is_identical_in_both_modes),
    UNIT_TEST(test_switch14_permutation_is_identical_in_both_modes),
    UNIT_TEST(test_links_without_observers_are_identical_in_both_modes),
    UNIT_TEST(test_random_links_are_identical_in_both_modes),
    UNIT_TEST(test_random_switches_are_identical_in_both_modes),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "unipro_identity", identity_tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
