// SPDX-License-Identifier: MIT
// A run summarised as a table row (model_summary.h).
#include "gbvp/model/model_summary.h"

#include <inttypes.h>
#include <string.h>

#include "gbvp/model/model_internal.h"

static void merge(up_hist *into, const up_hist *h)
{
    if (!h || !h->count)
        return;
    into->count += h->count;
    into->sum += h->sum;
    if (h->min < into->min)
        into->min = h->min;
    if (h->max > into->max)
        into->max = h->max;
    for (size_t b = 0; b < UP_HIST_POW * UP_HIST_SUB; b++)
        into->bucket[b] += h->bucket[b];
}

static void flows(const model *m, model_summary *s)
{
    uint64_t bytes = 0;
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        if (m->message_level) {
            s->sent += up_msg_net_flow_tx_msgs(m->uf, f->msg_flow);
            s->received += up_msg_net_flow_rx_msgs(m->uf, f->msg_flow);
            bytes += up_msg_net_flow_rx_bytes(m->uf, f->msg_flow);
            merge(&s->latency, up_msg_net_flow_latency(m->uf, f->msg_flow));
        } else if (f->t) {
            const up_traffic_stats *st = up_traffic_stats_get(f->t);
            s->sent += st->sent;
            s->received += st->received;
            bytes += st->rx_payload_bytes;
            merge(&s->latency, &up_cport_stats_get(m->nodes[f->dst].n, f->dst_cport)->latency);
        }
    }
    s->goodput_bps = m->ran ? (double)bytes * 8.0 / ((double)m->ran * 1e-12) : 0;
}

static void queues(const model *m, model_summary *s)
{
    if (m->message_level)
        return; /* no input queues at the message level */
    double best = -1;
    for (unsigned i = 0; i < m->n_switches; i++) {
        const model_switch *sw = &m->switches[i];
        for (unsigned p = 0; sw->sw && p < sw->cfg.ports; p++) {
            const sw_port_stats *st = sw_switch_port_stats(sw->sw, p);
            double mean = up_level_mean(&st->depth, m->ran);
            if (st->depth.max > s->queue_max)
                s->queue_max = st->depth.max;
            if (st->rx_frames && mean > best) {
                best = mean;
                s->queue_mean = mean;
                snprintf(s->queue_port, sizeof s->queue_port, "%s:%u", sw->name, p);
            }
        }
    }
}

void model_summarise(const model *m, model_summary *s)
{
    memset(s, 0, sizeof *s);
    up_hist_init(&s->latency);
    snprintf(s->timing, sizeof s->timing, "%s",
             m->message_level ? "message" : m->per_frame ? "per-frame" : "frame");
    if (m->n_links) {
        up_phy_cfg_name(&m->links[0].cfg.phy, s->link_mode, sizeof s->link_mode);
        s->line_rate_bps = up_phy_data_rate_bps(&m->links[0].cfg.phy);
    }
    if (m->n_flows)
        s->payload = m->flows[0].cfg.size;
    s->simulated_ps = m->ran;
    s->events = m->events;
    s->wall_s = m->wall;
    flows(m, s);
    queues(m, s);
}

void model_summary_csv_header(FILE *out)
{
    fprintf(out, ",timing_level,link_mode,payload_bytes,line_rate_bps,simulated_ps,wall_s,events,"
            "sent,received,goodput_bps,latency_count,latency_p50_ps,latency_p90_ps,"
            "latency_p99_ps,latency_max_ps,latency_mean_ps,queue_port,queue_mean,queue_max");
}

void model_summary_csv(const model_summary *s, FILE *out)
{
    const up_hist *h = &s->latency;
    fprintf(out, ",%s,%s,%u,%.6g,%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.12g,%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%s,%.4f,%u",
            s->timing, s->link_mode, s->payload, s->line_rate_bps, s->simulated_ps, s->wall_s,
            s->events, s->sent, s->received, s->goodput_bps, h->count, up_hist_quantile(h, 0.5),
            up_hist_quantile(h, 0.9), up_hist_quantile(h, 0.99), h->count ? h->max : 0,
            up_hist_mean(h), s->queue_port, s->queue_mean, s->queue_max);
}

void model_summary_json(const model_summary *s, FILE *out)
{
    fprintf(out, "{\"timing_level\": \"%s\", \"link_mode\": \"%s\", \"payload_bytes\": %u, "
            "\"line_rate_bps\": %.6g, \"simulated_ps\": %" PRIu64 ", \"wall_s\": %.6f, "
            "\"events\": %" PRIu64 ", \"sent\": %" PRIu64 ", \"received\": %" PRIu64
            ", \"goodput_bps\": %.12g, \"queue_port\": \"%s\", \"queue_mean\": %.4f, "
            "\"queue_max\": %u, \"latency_ps\": ",
            s->timing, s->link_mode, s->payload, s->line_rate_bps, s->simulated_ps, s->wall_s,
            s->events, s->sent, s->received, s->goodput_bps, s->queue_port, s->queue_mean,
            s->queue_max);
    model_json_hist(out, &s->latency);
    fprintf(out, "}");
}

void model_summary_text(const model_summary *s, FILE *out)
{
    const up_hist *h = &s->latency;
    fprintf(out, "%s %uB: goodput %.4g Gb/s (line rate %.4g), latency p50 %.3g p99 %.3g us",
            s->link_mode[0] ? s->link_mode : "no link", s->payload, s->goodput_bps / 1e9,
            s->line_rate_bps / 1e9, (double)up_hist_quantile(h, 0.5) * 1e-6,
            (double)up_hist_quantile(h, 0.99) * 1e-6);
    if (s->queue_port[0])
        fprintf(out, ", queue %s mean %.2f max %u", s->queue_port, s->queue_mean, s->queue_max);
    fprintf(out, "\n");
}
