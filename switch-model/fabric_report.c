// SPDX-License-Identifier: MIT
// The fabric's statistics as text (`status`) and JSON (`--stats`): messages per direction
// with their latencies, then every link with the model's counters.
#include "switch-model/fabric_internal.h"

#include <errno.h>

static const char *port_name(const sw_fabric *f, unsigned port, char *buf, size_t len)
{
    if (port == f->cfg.ports - 1)
        snprintf(buf, len, "svc");
    else if (port == f->cfg.ap_port)
        snprintf(buf, len, "ap");
    else
        snprintf(buf, len, "intf%u", port);
    return buf;
}

void sw_fabric_print(const sw_fabric *f, FILE *out)
{
    for (int i = 0; i < SW_DIRS; i++) {
        const fabric_dir *d = &f->dir[i];
        if (!d->s.sent_msgs && !d->s.delivered_msgs)
            continue;
        fprintf(out, "timing %-12s sent %llu msgs %llu B, delivered %llu msgs %llu B, latency "
                "mean %.2f us p99 %.2f us max %.2f us\n", sw_dir_name((sw_dir)i),
                (unsigned long long)d->s.sent_msgs, (unsigned long long)d->s.sent_bytes,
                (unsigned long long)d->s.delivered_msgs,
                (unsigned long long)d->s.delivered_bytes, up_hist_mean(&d->latency) / 1e6,
                (double)up_hist_quantile(&d->latency, 0.99) / 1e6,
                (double)d->latency.max / 1e6);
    }
    for (unsigned p = 0; f->message && p < f->cfg.ports; p++) {
        char name[16], mode[32];
        up_phy_cfg c;
        bool parked;
        sw_msg_transit_link(f->message, p, &c, &parked);
        up_phy_cfg_name(&c, mode, sizeof mode);
        fprintf(out, "timing link %-6s %s%s (message level)\n", port_name(f, p, name, sizeof name),
                mode, parked ? " hibern8" : "");
    }
    for (unsigned p = 0; f->frame && p < f->cfg.ports; p++) {
        up_link *l = sw_transit_link(f->frame, p);
        if (!l)
            continue;
        char name[16], mode[32];
        up_phy_cfg_name(&up_link_get_cfg(l)->phy, mode, sizeof mode);
        const up_port_stats *up = up_port_stats_get(up_link_port(l, 0));
        const up_port_stats *dn = up_port_stats_get(up_link_port(l, 1));
        fprintf(out, "timing link %-6s %s %s: to switch %llu frames %llu B, from switch %llu "
                "frames %llu B, replays %llu, CRC errors %llu\n", port_name(f, p, name, sizeof name),
                mode, up_link_state_name(up_link_get_state(l)),
                (unsigned long long)up->tx_frames, (unsigned long long)up->tx_payload_bytes,
                (unsigned long long)dn->tx_frames, (unsigned long long)dn->tx_payload_bytes,
                (unsigned long long)(up->tx_replays + dn->tx_replays),
                (unsigned long long)(up->rx_crc_errors + dn->rx_crc_errors));
    }
    if (f->st.untimed)
        fprintf(out, "timing: %llu messages the model refused were delivered untimed\n",
                (unsigned long long)f->st.untimed);
}

static void json_port(FILE *out, const up_port_stats *s)
{
    fprintf(out, "{\"frames\": %llu, \"payload_bytes\": %llu, \"wire_bytes\": %llu, "
            "\"afc\": %llu, \"nac\": %llu, \"replays\": %llu, \"busy_ps\": %llu, "
            "\"rx_crc_errors\": %llu, \"rx_dropped\": %llu}",
            (unsigned long long)s->tx_frames, (unsigned long long)s->tx_payload_bytes,
            (unsigned long long)s->tx_wire_bytes, (unsigned long long)s->tx_afc,
            (unsigned long long)s->tx_nac, (unsigned long long)s->tx_replays,
            (unsigned long long)s->tx_busy, (unsigned long long)s->rx_crc_errors,
            (unsigned long long)s->rx_dropped);
}

int sw_fabric_write_json(const sw_fabric *f, FILE *out)
{
    char mode[32];
    up_phy_cfg_name(&f->cfg.phy, mode, sizeof mode);
    fprintf(out, "{\n  \"time_ps\": %llu,\n  \"initial_link\": \"%s\",\n  \"ber\": %g,\n"
            "  \"untimed_messages\": %llu,\n  \"directions\": {",
            (unsigned long long)sim_now(f->sched), mode, f->cfg.ber,
            (unsigned long long)f->st.untimed);
    for (int i = 0; i < SW_DIRS; i++) {
        const fabric_dir *d = &f->dir[i];
        fprintf(out, "%s\n    \"%s\": {\"sent_msgs\": %llu, \"sent_bytes\": %llu, "
                "\"delivered_msgs\": %llu, \"delivered_bytes\": %llu, \"latency_ps\": "
                "{\"count\": %llu, \"mean\": %.0f, \"p50\": %llu, \"p99\": %llu, \"min\": %llu, "
                "\"max\": %llu}}", i ? "," : "", sw_dir_name((sw_dir)i),
                (unsigned long long)d->s.sent_msgs, (unsigned long long)d->s.sent_bytes,
                (unsigned long long)d->s.delivered_msgs, (unsigned long long)d->s.delivered_bytes,
                (unsigned long long)d->latency.count, up_hist_mean(&d->latency),
                (unsigned long long)up_hist_quantile(&d->latency, 0.5),
                (unsigned long long)up_hist_quantile(&d->latency, 0.99),
                (unsigned long long)(d->latency.count ? d->latency.min : 0),
                (unsigned long long)d->latency.max);
    }
    fprintf(out, "\n  },\n  \"level\": \"%s\",\n  \"links\": [", f->message ? "message" : "frame");
    bool first = true;
    for (unsigned p = 0; f->message && p < f->cfg.ports; p++) {
        char name[16];
        up_phy_cfg c;
        bool parked;
        sw_msg_transit_link(f->message, p, &c, &parked);
        up_phy_cfg_name(&c, mode, sizeof mode);
        fprintf(out, "%s\n    {\"port\": %u, \"end\": \"%s\", \"mode\": \"%s\", \"state\": "
                "\"%s\"}", first ? "" : ",", p, port_name(f, p, name, sizeof name), mode,
                parked ? "hibern8" : "up");
        first = false;
    }
    for (unsigned p = 0; f->frame && p < f->cfg.ports; p++) {
        up_link *l = sw_transit_link(f->frame, p);
        if (!l)
            continue;
        char name[16];
        up_phy_cfg_name(&up_link_get_cfg(l)->phy, mode, sizeof mode);
        fprintf(out, "%s\n    {\"port\": %u, \"end\": \"%s\", \"mode\": \"%s\", \"state\": "
                "\"%s\", \"to_switch\": ", first ? "" : ",", p, port_name(f, p, name, sizeof name),
                mode, up_link_state_name(up_link_get_state(l)));
        json_port(out, up_port_stats_get(up_link_port(l, 0)));
        fprintf(out, ", \"from_switch\": ");
        json_port(out, up_port_stats_get(up_link_port(l, 1)));
        const sw_port_stats *sp = sw_switch_port_stats(sw_transit_switch(f->frame), p);
        fprintf(out, ", \"switch_in\": {\"frames\": %llu, \"forwarded\": %llu, "
                "\"dropped_unrouted\": %llu, \"hol_blocked_ps\": %llu, \"max_depth\": %u}}",
                (unsigned long long)sp->rx_frames, (unsigned long long)sp->forwarded,
                (unsigned long long)sp->dropped_unrouted, (unsigned long long)sp->hol_blocked,
                sp->depth.max);
        first = false;
    }
    fprintf(out, "\n  ]\n}\n");
    return ferror(out) ? -EIO : 0;
}

