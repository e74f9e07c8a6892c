// SPDX-License-Identifier: MIT
// `gbvp model`: building the described network on the timing model, running it, and
// reporting its statistics (text, JSON, CSV).
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gbvp/model/model_internal.h"

void model_teardown(model *m)
{
    for (unsigned i = 0; i < m->n_flows; i++) {
        up_traffic_free(m->flows[i].t);
        m->flows[i].t = NULL;
        up_msg_source_free(m->flows[i].msg_src);
        m->flows[i].msg_src = NULL;
    }
    for (unsigned i = 0; i < m->n_links; i++) {
        up_link_free(m->links[i].l);
        m->links[i].l = NULL;
    }
    for (unsigned i = 0; i < m->n_nodes; i++) {
        up_node_free(m->nodes[i].n);
        m->nodes[i].n = NULL;
    }
    for (unsigned i = 0; i < m->n_switches; i++) {
        sw_switch_free(m->switches[i].sw);
        m->switches[i].sw = NULL;
    }
    up_env_free(m->env);
    m->env = NULL;
    up_msg_net_free(m->uf);
    m->uf = NULL;
    sim_event_kernel_free(m->k);
    m->k = NULL;
}

int model_fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len)
        vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

int model_check_runnable(const model *m, sim_time duration, char *err, size_t len)
{
    if (m->built)
        return model_fail(err, len, "the model has already run");
    if (!duration)
        return model_fail(err, len, "no duration: give 'run TIME' in the file or --duration");
    if (!m->n_nodes)
        return model_fail(err, len, "the model has no nodes");
    return 0;
}

int model_run_event_kernel(model *m, sim_time duration, char *err, size_t len)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = sim_event_kernel_run_until(m->k, duration);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (rc < 0)
        return model_fail(err, len, "simulation failed: %s", sim_event_kernel_last_error(m->k));
    m->ran = duration;
    m->wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    m->events = sim_event_kernel_executed(m->k);
    return 0;
}

static up_port *end_port(model *m, model_end e)
{
    if (e.is_switch)
        return sw_switch_port(m->switches[e.idx].sw, e.port);
    return up_node_port(m->nodes[e.idx].n);
}

static void end_name(const model *m, model_end e, char *buf, size_t len)
{
    if (e.is_switch)
        snprintf(buf, len, "%s:%u", m->switches[e.idx].name, e.port);
    else
        snprintf(buf, len, "%s", m->nodes[e.idx].name);
}

/* Vertices: nodes 0..N-1, switches N..N+S-1. */
static unsigned vtx(const model *m, model_end e)
{
    return e.is_switch ? m->n_nodes + e.idx : e.idx;
}

/* Programs every switch: for each destination node, the port towards it on a shortest path
 * (breadth first over the links). */
static int program_routes(model *m, char *err, size_t len)
{
    unsigned nv = m->n_nodes + m->n_switches;
    int dist[2 * MODEL_MAX];
    unsigned queue[2 * MODEL_MAX];
    for (unsigned d = 0; d < m->n_nodes; d++) {
        for (unsigned v = 0; v < nv; v++)
            dist[v] = -1;
        unsigned qh = 0, qt = 0;
        dist[d] = 0;
        queue[qt++] = d;
        while (qh < qt) {
            unsigned v = queue[qh++];
            if (v < m->n_nodes && v != d)
                continue; /* nodes do not forward */
            for (unsigned i = 0; i < m->n_links; i++) {
                unsigned a = vtx(m, m->links[i].a), b = vtx(m, m->links[i].b);
                unsigned o = a == v ? b : b == v ? a : nv;
                if (o < nv && dist[o] < 0) {
                    dist[o] = dist[v] + 1;
                    queue[qt++] = o;
                }
            }
        }
        for (unsigned s = 0; s < m->n_switches; s++) {
            unsigned sv = m->n_nodes + s;
            if (dist[sv] < 0)
                continue;
            for (unsigned i = 0; i < m->n_links; i++) {
                const model_link *l = &m->links[i];
                model_end me, other;
                if (l->a.is_switch && l->a.idx == s) {
                    me = l->a;
                    other = l->b;
                } else if (l->b.is_switch && l->b.idx == s) {
                    me = l->b;
                    other = l->a;
                } else {
                    continue;
                }
                if (dist[vtx(m, other)] == dist[sv] - 1) {
                    sw_route_table *rt = sw_switch_routes(m->switches[s].sw);
                    if (sw_route_set(rt, (unsigned)m->nodes[d].dev, me.port))
                        return model_fail(err, len, "cannot route DeviceID %d", m->nodes[d].dev);
                    for (unsigned p = 0; p < m->switches[s].cfg.ports; p++)
                        sw_route_allow(rt, p, (unsigned)m->nodes[d].dev, true);
                    break;
                }
            }
        }
    }
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        /* reachable: BFS distance from dst to src, through switches only */
        for (unsigned v = 0; v < nv; v++)
            dist[v] = -1;
        unsigned qh = 0, qt = 0;
        dist[f->dst] = 0;
        queue[qt++] = f->dst;
        while (qh < qt) {
            unsigned v = queue[qh++];
            if (v < m->n_nodes && v != f->dst)
                continue;
            for (unsigned j = 0; j < m->n_links; j++) {
                unsigned a = vtx(m, m->links[j].a), b = vtx(m, m->links[j].b);
                unsigned o = a == v ? b : b == v ? a : nv;
                if (o < nv && dist[o] < 0) {
                    dist[o] = dist[v] + 1;
                    queue[qt++] = o;
                }
            }
        }
        if (dist[f->src] < 0)
            return model_fail(err, len, "%s: no path from %s to %s", f->where,
                              m->nodes[f->src].name, m->nodes[f->dst].name);
    }
    return 0;
}

static void link_down(void *ctx)
{
    model_link *l = ctx;
    up_link_set_down(l->l, true);
}

static void link_up(void *ctx)
{
    model_link *l = ctx;
    up_link_set_down(l->l, false);
}

static int build(model *m, char *err, size_t len)
{
    m->k = sim_event_kernel_new(1024);
    m->env = m->k ? up_env_new(sim_event_kernel_scheduler(m->k)) : NULL;
    if (!m->env)
        return model_fail(err, len, "out of memory");
    up_env_set_per_frame(m->env, m->per_frame);
    const sim_scheduler *s = sim_event_kernel_scheduler(m->k);
    for (unsigned i = 0; i < m->n_nodes; i++) {
        model_node *nd = &m->nodes[i];
        up_node_cfg c = up_node_cfg_default((uint8_t)nd->dev);
        c.cports = nd->cports;
        c.max_segment = nd->segment;
        c.dl.rx_credits[0] = c.dl.rx_credits[1] = nd->credits;
        if (!(nd->n = up_node_new(m->env, &c, NULL, NULL)))
            return model_fail(err, len, "%s: cannot create node %s", nd->where, nd->name);
    }
    for (unsigned i = 0; i < m->n_switches; i++) {
        model_switch *sw = &m->switches[i];
        if (!(sw->sw = sw_switch_new(m->env, &sw->cfg, NULL)))
            return model_fail(err, len, "%s: cannot create switch %s", sw->where, sw->name);
    }
    for (unsigned i = 0; i < m->n_links; i++) {
        model_link *l = &m->links[i];
        char e[160];
        l->m = m;
        l->l = up_link_new(m->env, end_port(m, l->a), end_port(m, l->b), &l->cfg, e, sizeof e);
        if (!l->l)
            return model_fail(err, len, "%s: %s", l->where, e);
        if (l->has_down && sim_schedule(s, l->down_at, link_down, l, NULL))
            return model_fail(err, len, "%s: cannot schedule down=", l->where);
        if (l->has_up && sim_schedule(s, l->up_at, link_up, l, NULL))
            return model_fail(err, len, "%s: cannot schedule up=", l->where);
    }
    if (program_routes(m, err, len))
        return -EINVAL;
    for (unsigned i = 0; i < m->n_flows; i++) {
        model_flow *f = &m->flows[i];
        model_node *a = &m->nodes[f->src], *b = &m->nodes[f->dst];
        if (a->next_cport >= a->cports)
            return model_fail(err, len, "%s: node %s has no free CPort (cports=%u)", f->where,
                              a->name, a->cports);
        if (b->next_cport >= b->cports)
            return model_fail(err, len, "%s: node %s has no free CPort (cports=%u)", f->where,
                              b->name, b->cports);
        f->src_cport = a->next_cport++;
        f->dst_cport = b->next_cport++;
        up_cport_cfg c = up_cport_cfg_default((uint8_t)b->dev, (uint16_t)f->dst_cport);
        c.tc = f->tc;
        if (!f->e2efc)
            c.flags = UP_CPORT_CSD_N | UP_CPORT_CSV_N;
        if (up_cport_connect(a->n, f->src_cport, &c))
            return model_fail(err, len, "%s: cannot connect %s", f->where, a->name);
        c.peer_dev = (uint8_t)a->dev;
        c.peer_cport = (uint16_t)f->src_cport;
        if (up_cport_connect(b->n, f->dst_cport, &c))
            return model_fail(err, len, "%s: cannot connect %s", f->where, b->name);
        f->t = up_traffic_new(m->env, &f->cfg, a->n, f->src_cport, b->n, f->dst_cport);
        if (!f->t || up_traffic_start(f->t))
            return model_fail(err, len, "%s: bad traffic parameters", f->where);
    }
    return 0;
}

void model_set_per_frame(model *m, bool per_frame)
{
    m->per_frame = per_frame;
}

int model_run(model *m, sim_time duration, char *err, size_t len)
{
    if (model_check_runnable(m, duration, err, len))
        return -EINVAL;
    m->built = true;
    if (build(m, err, len))
        return -EINVAL;
    return model_run_event_kernel(m, duration, err, len);
}

/* ---- reporting ----------------------------------------------------------------------- */

static double util(const up_port_stats *s, sim_time ran)
{
    return ran ? (double)s->tx_busy / (double)ran : 0;
}

static double goodput(const model *m, const model_flow *f)
{
    const up_traffic_stats *st = up_traffic_stats_get(f->t);
    return m->ran ? (double)st->rx_payload_bytes * 8.0 / ((double)m->ran * 1e-12) : 0;
}

void model_print_summary(const model *m, FILE *out)
{
    if (m->message_level) {
        model_msg_print(m, out);
        return;
    }
    fprintf(out, "simulated %.6g s in %.3g s of wall time (%.3g x real time), %" PRIu64
            " events (%.3g events/s)\n",
            (double)m->ran * 1e-12, m->wall, m->wall > 0 ? (double)m->ran * 1e-12 / m->wall : 0,
            m->events, m->wall > 0 ? (double)m->events / m->wall : 0);
    fprintf(out, "\nlinks (per direction):\n");
    for (unsigned i = 0; i < m->n_links; i++) {
        const model_link *l = &m->links[i];
        char g[32], na[48], nb[48];
        up_phy_cfg_name(&up_link_get_cfg(l->l)->phy, g, sizeof g);
        end_name(m, l->a, na, sizeof na);
        end_name(m, l->b, nb, sizeof nb);
        for (unsigned d = 0; d < 2; d++) {
            const up_port_stats *s = up_port_stats_get(up_link_port(l->l, d));
            fprintf(out, "  %s -> %s [%s, %s]: %" PRIu64 " frames, %" PRIu64
                    " payload bytes, %" PRIu64 " AFC, %" PRIu64 " NAC, %" PRIu64
                    " replays, credit stall %.3g us, utilisation %.1f %%\n",
                    d ? nb : na, d ? na : nb, g, up_link_state_name(up_link_get_state(l->l)),
                    s->tx_frames, s->tx_payload_bytes, s->tx_afc, s->tx_nac, s->tx_replays,
                    (double)(s->tx_credit_stall[0] + s->tx_credit_stall[1]) * 1e-6,
                    100 * util(s, m->ran));
        }
    }
    for (unsigned i = 0; i < m->n_switches; i++) {
        const model_switch *sw = &m->switches[i];
        fprintf(out, "\nswitch %s (input queues, frames):\n", sw->name);
        for (unsigned p = 0; p < sw->cfg.ports; p++) {
            const sw_port_stats *st = sw_switch_port_stats(sw->sw, p);
            if (!st->rx_frames)
                continue;
            fprintf(out, "  port %u: %" PRIu64 " in, %" PRIu64 " forwarded, %" PRIu64
                    " unrouted, depth mean %.2f max %u, head-of-line blocked %.3g us\n",
                    p, st->rx_frames, st->forwarded, st->dropped_unrouted,
                    up_level_mean(&st->depth, m->ran), st->depth.max,
                    (double)st->hol_blocked * 1e-6);
        }
    }
    fprintf(out, "\nflows:\n");
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        const up_traffic_stats *st = up_traffic_stats_get(f->t);
        const up_hist *h = &up_cport_stats_get(m->nodes[f->dst].n, f->dst_cport)->latency;
        fprintf(out, "  %s -> %s %s %uB: sent %" PRIu64 ", received %" PRIu64
                ", goodput %.4g Gb/s, latency p50 %.3g p90 %.3g p99 %.3g max %.3g us%s\n",
                m->nodes[f->src].name, m->nodes[f->dst].name, up_traffic_kind_name(f->cfg.kind),
                f->cfg.size, st->sent, st->received, goodput(m, f) / 1e9,
                (double)up_hist_quantile(h, 0.5) * 1e-6, (double)up_hist_quantile(h, 0.9) * 1e-6,
                (double)up_hist_quantile(h, 0.99) * 1e-6, (double)h->max * 1e-6,
                st->order_errors ? " ORDER ERRORS" : "");
        if (f->cfg.kind == UP_TRAFFIC_RR)
            fprintf(out, "    round trip p50 %.3g p99 %.3g max %.3g us over %" PRIu64 " responses\n",
                    (double)up_hist_quantile(&st->rtt, 0.5) * 1e-6,
                    (double)up_hist_quantile(&st->rtt, 0.99) * 1e-6, (double)st->rtt.max * 1e-6,
                    st->responses);
    }
}

void model_json_cdf(FILE *out, const up_hist *h)
{
    /* every percentile, then the tail */
    static const double tail[] = { 0.995, 0.999, 0.9999 };
    fprintf(out, "[");
    if (h->count) {
        for (unsigned i = 0; i <= 100; i++) {
            double q = i / 100.0;
            fprintf(out, "%s[%g, %" PRIu64 "]", i ? ", " : "", q, up_hist_quantile(h, q));
            for (unsigned t = 0; i == 99 && t < sizeof tail / sizeof tail[0]; t++)
                fprintf(out, ", [%g, %" PRIu64 "]", tail[t], up_hist_quantile(h, tail[t]));
        }
    }
    fprintf(out, "]");
}

void model_json_hist(FILE *out, const up_hist *h)
{
    fprintf(out, "{\"count\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
            ", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 ", \"mean\": %.1f, \"cdf\": ",
            h->count, up_hist_quantile(h, 0.5), up_hist_quantile(h, 0.9),
            up_hist_quantile(h, 0.99), h->count ? h->max : 0, up_hist_mean(h));
    model_json_cdf(out, h);
    fprintf(out, "}");
}

void model_json_level_series(FILE *out, const up_level *lv)
{
    /* at most MODEL_SERIES_POINTS points: each the first time and the peak of its stretch */
    size_t stride = (lv->n + MODEL_SERIES_POINTS - 1) / MODEL_SERIES_POINTS;
    fprintf(out, "[");
    for (size_t k = 0; k < lv->n; k += stride) {
        uint32_t peak = 0;
        for (size_t j = k; j < k + stride && j < lv->n; j++)
            if (lv->series[j].level > peak)
                peak = lv->series[j].level;
        fprintf(out, "%s[%" PRIu64 ", %u]", k ? ", " : "", lv->series[k].t, peak);
    }
    fprintf(out, "]");
}

void model_write_json(const model *m, FILE *out)
{
    if (m->message_level) {
        model_msg_json(m, out);
        return;
    }
    fprintf(out, "{\n  \"simulated_ps\": %" PRIu64 ",\n  \"wall_s\": %.6f,\n  \"events\": %" PRIu64
            ",\n  \"links\": [",
            m->ran, m->wall, m->events);
    for (unsigned i = 0; i < m->n_links; i++) {
        const model_link *l = &m->links[i];
        char g[32], na[48], nb[48];
        up_phy_cfg_name(&up_link_get_cfg(l->l)->phy, g, sizeof g);
        end_name(m, l->a, na, sizeof na);
        end_name(m, l->b, nb, sizeof nb);
        fprintf(out, "%s\n    {\"a\": \"%s\", \"b\": \"%s\", \"mode\": \"%s\", \"state\": \"%s\", "
                "\"ber\": %g, \"directions\": [",
                i ? "," : "", na, nb, g, up_link_state_name(up_link_get_state(l->l)),
                up_link_get_cfg(l->l)->faults.ber);
        for (unsigned d = 0; d < 2; d++) {
            const up_port_stats *s = up_port_stats_get(up_link_port(l->l, d));
            fprintf(out, "%s\n      {\"from\": \"%s\", \"to\": \"%s\", \"frames\": %" PRIu64
                    ", \"payload_bytes\": %" PRIu64 ", \"wire_bytes\": %" PRIu64
                    ", \"afc\": %" PRIu64 ", \"nac\": %" PRIu64 ", \"replays\": %" PRIu64
                    ", \"replay_timeouts\": %" PRIu64 ", \"preemptions\": %" PRIu64
                    ", \"credit_stall_ps\": [%" PRIu64 ", %" PRIu64 "], \"utilisation\": %.6f"
                    ", \"rx_crc_errors\": %" PRIu64 ", \"rx_dropped\": %" PRIu64 "}",
                    d ? "," : "", d ? nb : na, d ? na : nb, s->tx_frames, s->tx_payload_bytes,
                    s->tx_wire_bytes, s->tx_afc, s->tx_nac, s->tx_replays, s->tx_replay_timeouts,
                    s->tx_preemptions, s->tx_credit_stall[0], s->tx_credit_stall[1],
                    util(s, m->ran),
                    up_port_stats_get(up_link_port(l->l, 1 - d))->rx_crc_errors,
                    up_port_stats_get(up_link_port(l->l, 1 - d))->rx_dropped);
        }
        fprintf(out, "]}");
    }
    fprintf(out, "\n  ],\n  \"switches\": [");
    for (unsigned i = 0; i < m->n_switches; i++) {
        const model_switch *sw = &m->switches[i];
        fprintf(out, "%s\n    {\"name\": \"%s\", \"mode\": \"%s\", \"ports\": [", i ? "," : "",
                sw->name, sw->cfg.cut_through ? "ct" : "saf");
        for (unsigned p = 0; p < sw->cfg.ports; p++) {
            const sw_port_stats *st = sw_switch_port_stats(sw->sw, p);
            fprintf(out, "%s\n      {\"port\": %u, \"rx_frames\": %" PRIu64 ", \"forwarded\": %" PRIu64
                    ", \"unrouted\": %" PRIu64 ", \"queue_mean\": %.4f, \"queue_max\": %u"
                    ", \"hol_blocked_ps\": %" PRIu64 ", \"hol_events\": %" PRIu64,
                    p ? "," : "", p, st->rx_frames, st->forwarded, st->dropped_unrouted,
                    up_level_mean(&st->depth, m->ran), st->depth.max, st->hol_blocked,
                    st->hol_events);
            if (st->depth.n) { /* the switch's series= */
                fprintf(out, ", \"depth_series\": ");
                model_json_level_series(out, &st->depth);
            }
            fprintf(out, "}");
        }
        fprintf(out, "]}");
    }
    fprintf(out, "\n  ],\n  \"flows\": [");
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        const up_traffic_stats *st = up_traffic_stats_get(f->t);
        fprintf(out, "%s\n    {\"from\": \"%s\", \"to\": \"%s\", \"src_cport\": %u, \"dst_cport\": %u"
                ", \"kind\": \"%s\", \"size\": %u, \"tc\": %u, \"sent\": %" PRIu64
                ", \"received\": %" PRIu64 ", \"order_errors\": %" PRIu64
                ", \"goodput_bps\": %.12g, \"latency_ps\": ",
                i ? "," : "", m->nodes[f->src].name, m->nodes[f->dst].name, f->src_cport,
                f->dst_cport, up_traffic_kind_name(f->cfg.kind), f->cfg.size, f->tc, st->sent,
                st->received, st->order_errors, goodput(m, f));
        model_json_hist(out, &up_cport_stats_get(m->nodes[f->dst].n, f->dst_cport)->latency);
        fprintf(out, ", \"rtt_ps\": ");
        model_json_hist(out, &st->rtt);
        fprintf(out, "}");
    }
    fprintf(out, "\n  ]\n}\n");
}

void model_csv_hist(FILE *out, const char *obj, const char *name, const up_hist *h)
{
    fprintf(out, "flow,%s,%s_count,%" PRIu64 "\n", obj, name, h->count);
    fprintf(out, "flow,%s,%s_p50_ps,%" PRIu64 "\n", obj, name, up_hist_quantile(h, 0.5));
    fprintf(out, "flow,%s,%s_p90_ps,%" PRIu64 "\n", obj, name, up_hist_quantile(h, 0.9));
    fprintf(out, "flow,%s,%s_p99_ps,%" PRIu64 "\n", obj, name, up_hist_quantile(h, 0.99));
    fprintf(out, "flow,%s,%s_max_ps,%" PRIu64 "\n", obj, name, h->count ? h->max : 0);
}

void model_write_csv(const model *m, FILE *out)
{
    if (m->message_level) {
        model_msg_csv(m, out);
        return;
    }
    fprintf(out, "section,object,metric,value\n");
    fprintf(out, "run,model,simulated_ps,%" PRIu64 "\nrun,model,wall_s,%.6f\nrun,model,events,%" PRIu64 "\n",
            m->ran, m->wall, m->events);
    for (unsigned i = 0; i < m->n_links; i++) {
        const model_link *l = &m->links[i];
        char na[48], nb[48], obj[100];
        end_name(m, l->a, na, sizeof na);
        end_name(m, l->b, nb, sizeof nb);
        for (unsigned d = 0; d < 2; d++) {
            const up_port_stats *s = up_port_stats_get(up_link_port(l->l, d));
            snprintf(obj, sizeof obj, "%s->%s", d ? nb : na, d ? na : nb);
            fprintf(out, "link,%s,frames,%" PRIu64 "\nlink,%s,payload_bytes,%" PRIu64
                    "\nlink,%s,wire_bytes,%" PRIu64 "\nlink,%s,afc,%" PRIu64 "\nlink,%s,nac,%" PRIu64
                    "\nlink,%s,replays,%" PRIu64 "\nlink,%s,credit_stall_ps,%" PRIu64
                    "\nlink,%s,utilisation,%.6f\n",
                    obj, s->tx_frames, obj, s->tx_payload_bytes, obj, s->tx_wire_bytes, obj,
                    s->tx_afc, obj, s->tx_nac, obj, s->tx_replays, obj,
                    s->tx_credit_stall[0] + s->tx_credit_stall[1], obj, util(s, m->ran));
        }
    }
    for (unsigned i = 0; i < m->n_switches; i++) {
        const model_switch *sw = &m->switches[i];
        for (unsigned p = 0; p < sw->cfg.ports; p++) {
            const sw_port_stats *st = sw_switch_port_stats(sw->sw, p);
            char obj[64];
            snprintf(obj, sizeof obj, "%s:%u", sw->name, p);
            fprintf(out, "switch,%s,forwarded,%" PRIu64 "\nswitch,%s,queue_mean,%.4f\n"
                    "switch,%s,queue_max,%u\nswitch,%s,hol_blocked_ps,%" PRIu64 "\n",
                    obj, st->forwarded, obj, up_level_mean(&st->depth, m->ran), obj, st->depth.max,
                    obj, st->hol_blocked);
        }
    }
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        const up_traffic_stats *st = up_traffic_stats_get(f->t);
        char obj[100];
        snprintf(obj, sizeof obj, "%s:%u->%s:%u", m->nodes[f->src].name, f->src_cport,
                 m->nodes[f->dst].name, f->dst_cport);
        fprintf(out, "flow,%s,sent,%" PRIu64 "\nflow,%s,received,%" PRIu64
                "\nflow,%s,goodput_bps,%.12g\n",
                obj, st->sent, obj, st->received, obj, goodput(m, f));
        model_csv_hist(out, obj, "latency", &up_cport_stats_get(m->nodes[f->dst].n, f->dst_cport)->latency);
        if (f->cfg.kind == UP_TRAFFIC_RR)
            model_csv_hist(out, obj, "rtt", &st->rtt);
    }
}

void model_write_series_csv(const model *m, FILE *out)
{
    fprintf(out, "switch,port,time_ps,depth\n");
    if (m->message_level)
        return; /* the message-level mode has no input queues */
    for (unsigned i = 0; i < m->n_switches; i++) {
        const model_switch *sw = &m->switches[i];
        for (unsigned p = 0; p < sw->cfg.ports; p++) {
            const up_level *lv = &sw_switch_port_stats(sw->sw, p)->depth;
            for (size_t k = 0; k < lv->n; k++)
                fprintf(out, "%s,%u,%" PRIu64 ",%u\n", sw->name, p, lv->series[k].t,
                        lv->series[k].level);
        }
    }
}
