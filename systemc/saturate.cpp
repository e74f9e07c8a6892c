// SPDX-License-Identifier: MIT
#include "systemc/saturate.h"

#include <cinttypes>
#include <stdexcept>
#include <string>

extern "C" {
#include "unipro-model/up_consts.h"
}

namespace gbvp_sc {

saturate_net saturate_build(network &net, const saturate_cfg &cfg)
{
    saturate_net s;
    s.cfg = cfg;
    /* `gbvp model`'s order: nodes, switches, links, routes, then per flow its CPorts and
     * its source (equal-time events run in scheduling order, so the order is part of the
     * result) */
    up_node *nodes[2];
    for (unsigned i = 0; i < 2; i++) {
        up_node_cfg c = up_node_cfg_default((uint8_t)(2 + i));
        c.cports = 32;
        c.max_segment = UP_SEGMENT_MAX;
        c.dl.rx_credits[0] = c.dl.rx_credits[1] = 64;
        nodes[i] = net.add_node(c);
    }
    s.a = nodes[0];
    s.b = nodes[1];
    up_link_cfg lc = up_link_cfg_default();
    if (up_phy_cfg_parse_gear(&lc.phy, cfg.gear))
        throw std::runtime_error(std::string("bad gear ") + cfg.gear);
    lc.phy.lanes = (uint8_t)cfg.lanes;
    if (cfg.with_switch) {
        sw_switch_cfg sc = sw_switch_cfg_default();
        sc.ports = 15;
        s.sw = net.add_switch(sc);
        lc.faults.seed = 1;
        s.links[0] = net.add_link(up_node_port(s.a), sw_switch_port(s.sw, 0), lc);
        lc.faults.seed = 2;
        s.links[1] = net.add_link(sw_switch_port(s.sw, 1), up_node_port(s.b), lc);
        s.n_links = 2;
        sw_route_table *rt = sw_switch_routes(s.sw);
        for (unsigned i = 0; i < 2; i++) {
            if (sw_route_set(rt, up_node_device_id(nodes[i]), i))
                throw std::runtime_error("cannot route");
            for (unsigned p = 0; p < sc.ports; p++)
                sw_route_allow(rt, p, up_node_device_id(nodes[i]), true);
        }
    } else {
        lc.faults.seed = 1;
        s.links[0] = net.add_link(up_node_port(s.a), up_node_port(s.b), lc);
        s.n_links = 1;
    }
    up_cport_cfg cc = up_cport_cfg_default(up_node_device_id(s.b), 0);
    cc.tc = 0;
    cc.flags = UP_CPORT_CSD_N | UP_CPORT_CSV_N; /* e2efc=off */
    net.connect(s.a, 0, s.b, 0, cc);
    up_traffic_cfg tc = {};
    tc.kind = UP_TRAFFIC_SATURATE;
    tc.size = cfg.size;
    tc.header = UP_GREYBUS_HDR;
    tc.depth = 2;
    tc.seed = 1;
    s.flow = net.add_traffic(tc, s.a, 0, s.b, 0);
    return s;
}

double saturate_goodput(const saturate_net &s, sim_time ran)
{
    const up_traffic_stats *st = up_traffic_stats_get(s.flow);
    return ran ? (double)st->rx_payload_bytes * 8.0 / ((double)ran * 1e-12) : 0;
}

void saturate_print(const saturate_net &s, sim_time ran, double wall, uint64_t events,
                    FILE *out)
{
    fprintf(out, "simulated %.6g s in %.3g s of wall time (%.3g x real time), %" PRIu64
            " events (%.3g events/s)\n",
            (double)ran * 1e-12, wall, wall > 0 ? (double)ran * 1e-12 / wall : 0, events,
            wall > 0 ? (double)events / wall : 0);
    fprintf(out, "\nlinks (per direction):\n");
    for (unsigned i = 0; i < s.n_links; i++) {
        up_link *l = s.links[i];
        char g[32];
        up_phy_cfg_name(&up_link_get_cfg(l)->phy, g, sizeof g);
        const char *na = s.sw ? (i ? "S:1" : "A") : "A";
        const char *nb = s.sw ? (i ? "B" : "S:0") : "B";
        for (unsigned d = 0; d < 2; d++) {
            const up_port_stats *st = up_port_stats_get(up_link_port(l, d));
            fprintf(out, "  %s -> %s [%s, %s]: %" PRIu64 " frames, %" PRIu64
                    " payload bytes, %" PRIu64 " AFC, %" PRIu64 " NAC, %" PRIu64
                    " replays, credit stall %.3g us, utilisation %.1f %%\n",
                    d ? nb : na, d ? na : nb, g, up_link_state_name(up_link_get_state(l)),
                    st->tx_frames, st->tx_payload_bytes, st->tx_afc, st->tx_nac, st->tx_replays,
                    (double)(st->tx_credit_stall[0] + st->tx_credit_stall[1]) * 1e-6,
                    100 * (ran ? (double)st->tx_busy / (double)ran : 0));
        }
    }
    if (s.sw) {
        fprintf(out, "\nswitch S (input queues, frames):\n");
        for (unsigned p = 0; p < sw_switch_port_count(s.sw); p++) {
            const sw_port_stats *st = sw_switch_port_stats(s.sw, p);
            if (!st->rx_frames)
                continue;
            fprintf(out, "  port %u: %" PRIu64 " in, %" PRIu64 " forwarded, %" PRIu64
                    " unrouted, depth mean %.2f max %u, head-of-line blocked %.3g us\n",
                    p, st->rx_frames, st->forwarded, st->dropped_unrouted,
                    up_level_mean(&st->depth, ran), st->depth.max,
                    (double)st->hol_blocked * 1e-6);
        }
    }
    fprintf(out, "\nflows:\n");
    const up_traffic_stats *st = up_traffic_stats_get(s.flow);
    const up_hist *h = &up_cport_stats_get(s.b, 0)->latency;
    fprintf(out, "  A -> B %s %uB: sent %" PRIu64 ", received %" PRIu64
            ", goodput %.4g Gb/s, latency p50 %.3g p90 %.3g p99 %.3g max %.3g us%s\n",
            up_traffic_kind_name(UP_TRAFFIC_SATURATE), s.cfg.size, st->sent, st->received,
            saturate_goodput(s, ran) / 1e9, (double)up_hist_quantile(h, 0.5) * 1e-6,
            (double)up_hist_quantile(h, 0.9) * 1e-6, (double)up_hist_quantile(h, 0.99) * 1e-6,
            (double)h->max * 1e-6, st->order_errors ? " ORDER ERRORS" : "");
}

}  // namespace gbvp_sc
