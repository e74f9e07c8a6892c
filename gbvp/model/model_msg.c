// SPDX-License-Identifier: MIT
// `gbvp model --timing message`: the described network on the message-level mode (up_msg_net.h). Only
// what that mode models is accepted: saturating, constant-rate, Poisson and
// request/response flows without end-to-end flow control, nodes on links to a node or to
// a switch port, no faults, one switch forwarding latency. Anything else is refused with
// the line of the statement at fault.
#include "gbvp/model/model_msg.h"

#include <errno.h>
#include <inttypes.h>

#include "gbvp/model/model_internal.h"


int model_check_message(const model *m, char *err, size_t len)
{
    for (unsigned i = 0; i < m->n_switches; i++)
        if (m->switches[i].cfg.fwd_latency != m->switches[0].cfg.fwd_latency)
            return model_fail(err, len,
                              "%s: --timing message needs one forwarding latency for all switches",
                              m->switches[i].where);
    for (unsigned i = 0; i < m->n_links; i++) {
        const model_link *l = &m->links[i];
        if (l->a.is_switch && l->b.is_switch)
            return model_fail(err, len, "%s: --timing message does not model links between switches",
                              l->where);
        if (l->cfg.faults.ber > 0 || l->cfg.faults.drop > 0 || l->has_down)
            return model_fail(err, len, "%s: --timing message does not model faults (ber, drop, down)",
                              l->where);
    }
    for (unsigned i = 0; i < m->n_flows; i++) {
        const up_traffic_cfg *c = &m->flows[i].cfg;
        if ((c->kind == UP_TRAFFIC_SATURATE || c->kind == UP_TRAFFIC_RR) &&
            (c->count || c->start || c->stop))
            return model_fail(err, len,
                              "%s: --timing message runs saturating and rr flows without count, start or "
                              "stop", m->flows[i].where);
        if (m->flows[i].e2efc)
            return model_fail(err, len,
                              "%s: --timing message does not model end-to-end flow control (add "
                              "e2efc=off)", m->flows[i].where);
    }
    return 0;
}

int model_run_message(model *m, sim_time duration, char *err, size_t len)
{
    if (model_check_runnable(m, duration, err, len) || model_check_message(m, err, len))
        return -EINVAL;
    m->built = true;
    m->message_level = true;
    m->k = sim_event_kernel_new(1024);
    if (!m->k)
        return model_fail(err, len, "out of memory");
    up_phy_params pp = up_phy_params_default();
    sim_time fwd = m->n_switches ? m->switches[0].cfg.fwd_latency : 0;
    m->uf = up_msg_net_new(sim_event_kernel_scheduler(m->k), &pp, fwd);
    if (!m->uf)
        return model_fail(err, len, "out of memory");
    for (unsigned i = 0; i < m->n_nodes; i++)
        up_msg_net_add_node(m->uf);
    for (unsigned i = 0; i < m->n_switches; i++)
        up_msg_net_add_switch(m->uf, m->switches[i].cfg.ports);
    int sw_of[MODEL_MAX];
    for (unsigned i = 0; i < m->n_nodes; i++)
        sw_of[i] = -2; /* not linked */
    for (unsigned i = 0; i < m->n_links; i++) {
        const model_link *l = &m->links[i];
        model_end node = l->a.is_switch ? l->b : l->a, other = l->a.is_switch ? l->a : l->b;
        int rc = other.is_switch
                     ? up_msg_net_link_node(m->uf, node.idx, (int)other.idx, other.port, &l->cfg.phy)
                     : up_msg_net_link_node(m->uf, node.idx, -1, other.idx, &l->cfg.phy);
        if (rc)
            return model_fail(err, len, "%s: cannot build this link at the message level", l->where);
        if (other.is_switch) {
            up_msg_net_route(m->uf, other.idx, node.idx, other.port);
            sw_of[node.idx] = (int)other.idx;
        } else {
            sw_of[node.idx] = sw_of[other.idx] = -1;
        }
    }
    for (unsigned i = 0; i < m->n_flows; i++) {
        model_flow *f = &m->flows[i];
        bool direct = sw_of[f->src] == -1 && sw_of[f->dst] == -1;
        bool same = sw_of[f->src] >= 0 && sw_of[f->src] == sw_of[f->dst];
        if (!direct && !same)
            return model_fail(err, len, "%s: no path from %s to %s at the message level", f->where,
                              m->nodes[f->src].name, m->nodes[f->dst].name);
        bool saturate = f->cfg.kind == UP_TRAFFIC_SATURATE, rr = f->cfg.kind == UP_TRAFFIC_RR;
        int idx = rr ? up_msg_net_rr_flow(m->uf, f->src, f->dst, f->cfg.size, f->cfg.response_size,
                                       f->cfg.header, f->cfg.depth, m->nodes[f->src].segment,
                                       m->nodes[f->dst].segment)
                     : up_msg_net_flow(m->uf, f->src, f->dst, f->cfg.size, f->cfg.header,
                                    saturate ? f->cfg.depth : 0, m->nodes[f->src].segment);
        if (idx >= 0 && !saturate && !rr &&
            !(f->msg_src = up_msg_source_new(sim_event_kernel_scheduler(m->k), m->uf,
                                               (unsigned)idx, &f->cfg)))
            idx = -ENOMEM;
        if (idx < 0)
            return model_fail(err, len, "%s: cannot start this flow at the message level", f->where);
        f->msg_flow = (unsigned)idx;
    }
    return model_run_event_kernel(m, duration, err, len);
}

static double msg_goodput(const model *m, const model_flow *f)
{
    return m->ran ? (double)up_msg_net_flow_rx_bytes(m->uf, f->msg_flow) * 8.0 /
                        ((double)m->ran * 1e-12)
                  : 0;
}

void model_msg_print(const model *m, FILE *out)
{
    fprintf(out, "message-level mode: simulated %.6g s in %.3g s of wall time (%.3g x real "
            "time), %" PRIu64 " events\n\nflows:\n",
            (double)m->ran * 1e-12, m->wall, m->wall > 0 ? (double)m->ran * 1e-12 / m->wall : 0,
            m->events);
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        const up_hist *h = up_msg_net_flow_latency(m->uf, f->msg_flow);
        fprintf(out, "  %s -> %s %s %uB: sent %" PRIu64 ", received %" PRIu64 ", goodput %.4g "
                "Gb/s, latency p50 %.3g p99 %.3g max %.3g us\n",
                m->nodes[f->src].name, m->nodes[f->dst].name, up_traffic_kind_name(f->cfg.kind),
                f->cfg.size, up_msg_net_flow_tx_msgs(m->uf, f->msg_flow),
                up_msg_net_flow_rx_msgs(m->uf, f->msg_flow), msg_goodput(m, f) / 1e9,
                (double)up_hist_quantile(h, 0.5) * 1e-6, (double)up_hist_quantile(h, 0.99) * 1e-6,
                (double)h->max * 1e-6);
        const up_hist *rtt = up_msg_net_flow_rtt(m->uf, f->msg_flow);
        if (rtt)
            fprintf(out, "    round trip p50 %.3g p99 %.3g max %.3g us over %" PRIu64
                    " responses\n", (double)up_hist_quantile(rtt, 0.5) * 1e-6,
                    (double)up_hist_quantile(rtt, 0.99) * 1e-6, (double)rtt->max * 1e-6,
                    up_msg_net_flow_responses(m->uf, f->msg_flow));
    }
}

void model_msg_json(const model *m, FILE *out)
{
    fprintf(out, "{\n  \"mode\": \"message\",\n  \"simulated_ps\": %" PRIu64 ",\n  \"wall_s\": %.6f,\n"
            "  \"events\": %" PRIu64 ",\n  \"flows\": [",
            m->ran, m->wall, m->events);
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        fprintf(out, "%s\n    {\"from\": \"%s\", \"to\": \"%s\", \"kind\": \"%s\", \"size\": %u, "
                "\"sent\": %" PRIu64 ", \"received\": %" PRIu64 ", \"goodput_bps\": %.12g, "
                "\"latency_ps\": ",
                i ? "," : "", m->nodes[f->src].name, m->nodes[f->dst].name,
                up_traffic_kind_name(f->cfg.kind), f->cfg.size,
                up_msg_net_flow_tx_msgs(m->uf, f->msg_flow), up_msg_net_flow_rx_msgs(m->uf, f->msg_flow),
                msg_goodput(m, f));
        model_json_hist(out, up_msg_net_flow_latency(m->uf, f->msg_flow));
        const up_hist *rtt = up_msg_net_flow_rtt(m->uf, f->msg_flow);
        if (rtt) {
            fprintf(out, ", \"rtt_ps\": ");
            model_json_hist(out, rtt);
        }
        fprintf(out, "}");
    }
    fprintf(out, "\n  ]\n}\n");
}

void model_msg_csv(const model *m, FILE *out)
{
    fprintf(out, "section,object,metric,value\nrun,model,mode,message\nrun,model,simulated_ps,%" PRIu64
            "\n", m->ran);
    for (unsigned i = 0; i < m->n_flows; i++) {
        const model_flow *f = &m->flows[i];
        char obj[80];
        snprintf(obj, sizeof obj, "%s->%s", m->nodes[f->src].name, m->nodes[f->dst].name);
        fprintf(out, "flow,%s,sent,%" PRIu64 "\nflow,%s,received,%" PRIu64
                "\nflow,%s,goodput_bps,%.12g\n", obj, up_msg_net_flow_tx_msgs(m->uf, f->msg_flow),
                obj, up_msg_net_flow_rx_msgs(m->uf, f->msg_flow), obj, msg_goodput(m, f));
        model_csv_hist(out, obj, "latency", up_msg_net_flow_latency(m->uf, f->msg_flow));
        const up_hist *rtt = up_msg_net_flow_rtt(m->uf, f->msg_flow);
        if (rtt)
            model_csv_hist(out, obj, "rtt", rtt);
    }
}
