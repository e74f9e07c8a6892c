// SPDX-License-Identifier: MIT
// Message-level mode (see up_msg_net.h). Every link direction serves messages in the order
// they reach it and commits each one when it arrives (there is no priority to reorder
// them), so a message costs one event per hop: the arrival of its first frame at a switch,
// or of its last frame at the destination node.
#include "unipro-model/up_msg_net.h"

#include <errno.h>
#include <stdlib.h>

#include "unipro-model/up_consts.h"
#include "unipro-model/up_msg_wire.h"

#define NET_MAX 256

typedef struct net_dir {
    up_msg_wire wire;
    int to_node;   /* >= 0: delivers to this node */
    int to_switch; /* >= 0: enters this switch */
} net_dir;

typedef struct net_msg {
    struct net_msg *next;
    struct net_msg *all;   /* every block ever allocated, for up_msg_net_free */
    struct up_msg_net *owner;
    unsigned flow;
    bool response;          /* the answer of an rr flow's request */
    up_msg_shape shape;
    sim_time t_submit, prev_end; /* prev_end: its last frame left the hop it is on (at) */
    sim_time t_request;     /* a response: when its request was submitted */
    net_dir *at;
} net_msg;

typedef struct net_flow {
    unsigned src, dst, depth;   /* depth: messages in flight on the first hop */
    unsigned handed;            /* messages the source hands over at a time (its depth) */
    uint64_t seq;               /* messages sent */
    sim_time *last_start;       /* ring of `handed`: when each message's last frame starts */
    uint32_t payload, header, segment;
    up_msg_shape shape;         /* every message's frames */
    uint64_t tx_msgs, rx_bytes, rx_msgs;
    bool saturate;
    up_hist latency;
    bool rr;                    /* request/response: dst answers each request */
    up_msg_shape response;      /* rr: the response's frames */
    uint64_t responses;         /* rr: responses delivered to src */
    up_hist rtt;                /* rr: request submit to response delivery */
} net_flow;

typedef struct net_switch {
    unsigned ports;
    net_dir *out;      /* per port: the direction leaving the switch */
    int route[NET_MAX]; /* node -> port */
} net_switch;

struct up_msg_net {
    const sim_scheduler *s;
    up_phy_params pp;
    sim_time fwd;
    net_dir *node_out[NET_MAX];
    unsigned n_nodes;
    net_switch sw[NET_MAX];
    unsigned n_switches;
    net_dir *dirs[2 * NET_MAX];
    unsigned n_dirs;
    net_flow flows[NET_MAX];
    unsigned n_flows;
    net_msg *free_msgs;
    net_msg *all_msgs;
};

up_msg_net *up_msg_net_new(const sim_scheduler *s, const up_phy_params *pp, sim_time fwd)
{
    up_msg_net *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->s = s;
    f->pp = pp ? *pp : up_phy_params_default();
    f->fwd = fwd;
    return f;
}

void up_msg_net_free(up_msg_net *f)
{
    if (!f)
        return;
    for (unsigned i = 0; i < f->n_dirs; i++)
        free(f->dirs[i]);
    for (unsigned i = 0; i < f->n_switches; i++)
        free(f->sw[i].out);
    for (unsigned i = 0; i < f->n_flows; i++)
        free(f->flows[i].last_start);
    while (f->all_msgs) { /* messages still travelling too: their events die with the kernel */
        net_msg *m = f->all_msgs;
        f->all_msgs = m->all;
        free(m);
    }
    free(f);
}

int up_msg_net_add_node(up_msg_net *f)
{
    if (f->n_nodes == NET_MAX)
        return -ENOMEM;
    f->node_out[f->n_nodes] = NULL;
    return (int)f->n_nodes++;
}

int up_msg_net_add_switch(up_msg_net *f, unsigned ports)
{
    if (f->n_switches == NET_MAX || !ports || ports > 64)
        return -EINVAL;
    net_switch *s = &f->sw[f->n_switches];
    s->ports = ports;
    s->out = NULL;
    for (unsigned i = 0; i < NET_MAX; i++)
        s->route[i] = -1;
    return (int)f->n_switches++;
}

static net_dir *new_dir(up_msg_net *f, const up_phy_cfg *phy)
{
    if (f->n_dirs == 2 * NET_MAX)
        return NULL;
    net_dir *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    up_msg_wire_init(&d->wire, phy, &f->pp);
    d->to_node = d->to_switch = -1;
    f->dirs[f->n_dirs++] = d;
    return d;
}

int up_msg_net_link_node(up_msg_net *f, unsigned node, int sw, unsigned port, const up_phy_cfg *phy)
{
    if (node >= f->n_nodes || f->node_out[node] || up_phy_cfg_check(phy, NULL, 0))
        return -EINVAL;
    net_dir *a = new_dir(f, phy), *b = new_dir(f, phy);
    if (!a || !b)
        return -ENOMEM;
    f->node_out[node] = a;
    b->to_node = (int)node;
    if (sw < 0) {
        if (port >= f->n_nodes || f->node_out[port])
            return -EINVAL;
        a->to_node = (int)port;
        up_msg_wire_pair(&a->wire, &b->wire);
        f->node_out[port] = b;
        return 0;
    }
    if ((unsigned)sw >= f->n_switches || port >= f->sw[sw].ports)
        return -EINVAL;
    net_switch *s = &f->sw[sw];
    if (!s->out && !(s->out = calloc(s->ports, sizeof *s->out)))
        return -ENOMEM;
    s->out[port] = *b;
    s->out[port].to_node = (int)node;
    up_msg_wire_pair(&a->wire, &s->out[port].wire);
    a->to_switch = sw;
    return 0;
}

int up_msg_net_route(up_msg_net *f, unsigned sw, unsigned node, unsigned port)
{
    if (sw >= f->n_switches || node >= NET_MAX || port >= f->sw[sw].ports)
        return -EINVAL;
    f->sw[sw].route[node] = (int)port;
    return 0;
}

static void arrive(void *ctx);

/* Puts m on direction d as early as the wire, the switch and the previous hop allow. */
static void commit(up_msg_net *f, net_dir *d, net_msg *m, sim_time not_before,
                   sim_time last_not_before)
{
    sim_time now = sim_now(f->s);
    up_msg_times t = up_msg_wire_send(&d->wire, &m->shape, now, not_before, last_not_before);
    m->prev_end = t.end;
    m->at = d;
    sim_time at = d->to_switch >= 0 ? t.first_in : t.delivered;
    if (sim_schedule(f->s, at - now, arrive, m, NULL))
        abort();
}

static net_msg *new_msg(up_msg_net *f, unsigned flow)
{
    net_msg *m = f->free_msgs;
    net_msg *all;
    if (m) {
        f->free_msgs = m->next;
        all = m->all;
    } else {
        if (!(m = malloc(sizeof *m)))
            return NULL;
        all = f->all_msgs;
        f->all_msgs = m;
    }
    net_flow *fl = &f->flows[flow];
    *m = (net_msg){ .all = all, .owner = f, .flow = flow,
                     .shape = fl->shape,
                     .t_submit = sim_now(f->s) };
    return m;
}

int up_msg_net_send(up_msg_net *f, unsigned flow)
{
    if (flow >= f->n_flows)
        return -EINVAL;
    net_flow *fl = &f->flows[flow];
    net_dir *d = f->node_out[fl->src];
    if (!d)
        return -EINVAL;
    net_msg *m = new_msg(f, flow);
    if (!m)
        return -ENOMEM;
    commit(f, d, m, 0, 0);
    fl->tx_msgs++;
    if (fl->saturate) {
        /* The frame-level source hands message j over when the data link takes the last
         * segment of message j - depth. Here messages are committed earlier (enough of them
         * to keep the first hop busy), and each is stamped with that hand-over time. */
        sim_time *slot = &fl->last_start[fl->seq++ % fl->handed];
        if (fl->seq > fl->handed && *slot > m->t_submit)
            m->t_submit = *slot;
        const up_msg_wire *w = &d->wire;
        sim_time last = m->prev_end - up_phy_symbols_time(w->sym_fp, m->shape.last_syms);
        sim_time before = up_phy_symbols_time(w->sym_fp, m->shape.first_syms);
        if (m->shape.frames > 1 && before > w->latency) /* taken while the frame before is sent */
            last -= before - w->latency;
        *slot = last;
    }
    return 0;
}

static void recycle(up_msg_net *f, net_msg *m)
{
    m->next = f->free_msgs;
    f->free_msgs = m;
}

/* m reached its destination node. */
static void deliver(up_msg_net *f, net_msg *m)
{
    unsigned flow = m->flow;
    net_flow *fl = &f->flows[flow];
    sim_time now = sim_now(f->s);
    if (m->response) {
        fl->responses++;
        up_hist_add(&fl->rtt, now - m->t_request);
        recycle(f, m);
        if (up_msg_net_send(f, flow)) /* the next request */
            abort();
        return;
    }
    fl->rx_msgs++;
    fl->rx_bytes += fl->payload;
    up_hist_add(&fl->latency, now - m->t_submit);
    if (!fl->rr) {
        recycle(f, m);
        return;
    }
    /* the destination answers at once; the request's block carries the response */
    m->response = true;
    m->shape = fl->response;
    m->t_request = m->t_submit;
    m->t_submit = now;
    commit(f, f->node_out[fl->dst], m, 0, 0);
}

static void arrive(void *ctx)
{
    net_msg *m = ctx;
    up_msg_net *f = m->owner;
    net_dir *d = m->at;
    unsigned flow = m->flow; /* m may be recycled below */
    net_flow *fl = &f->flows[flow];
    bool first_hop = d == f->node_out[fl->src];
    if (d->to_node >= 0) {
        deliver(f, m);
    } else {
        net_switch *s = &f->sw[d->to_switch];
        int port = s->route[m->response ? fl->src : fl->dst];
        if (port < 0) { /* unrouted: dropped */
            recycle(f, m);
        } else {
            sim_time now = sim_now(f->s);
            commit(f, &s->out[port], m, now + f->fwd, m->prev_end + d->wire.latency + f->fwd);
        }
    }
    if (first_hop && fl->saturate && up_msg_net_send(f, flow))
        abort(); /* out of memory: nothing sensible can continue */
}

int up_msg_net_flow(up_msg_net *f, unsigned src, unsigned dst, uint32_t payload, uint32_t header,
                 unsigned depth, unsigned max_segment)
{
    if (f->n_flows == NET_MAX || src >= f->n_nodes || dst >= f->n_nodes || src == dst ||
        !max_segment || max_segment > UP_SEGMENT_MAX)
        return -EINVAL;
    net_flow *fl = &f->flows[f->n_flows];
    *fl = (net_flow){ .src = src, .dst = dst, .depth = depth, .handed = depth,
                       .payload = payload, .header = header, .segment = max_segment,
                       .shape = up_msg_shape_of(payload + header, max_segment),
                       .saturate = depth > 0 };
    if (depth && !(fl->last_start = calloc(depth, sizeof *fl->last_start)))
        return -ENOMEM;
    up_hist_init(&fl->latency);
    unsigned idx = f->n_flows++;
    net_dir *d = f->node_out[src];
    if (depth && d) {
        /* the next message goes out when one's first frame reaches the next hop: keep
         * enough in flight that the first hop never idles, and one more so that each is
         * committed before its hand-over time (which its latency counts from) */
        net_msg *probe = new_msg(f, idx);
        if (!probe)
            return -ENOMEM;
        sim_time t = up_phy_symbols_time(d->wire.sym_fp, probe->shape.syms);
        sim_time t1 = up_phy_symbols_time(d->wire.sym_fp, probe->shape.first_syms);
        probe->next = f->free_msgs;
        f->free_msgs = probe;
        unsigned need = (unsigned)((t1 + d->wire.latency + t - 1) / (t ? t : 1)) + 2;
        if (depth < need)
            depth = need;
        fl->depth = depth;
    }
    for (unsigned i = 0; i < depth; i++)
        if (up_msg_net_send(f, idx))
            return -EINVAL;
    return (int)idx;
}

int up_msg_net_rr_flow(up_msg_net *f, unsigned src, unsigned dst, uint32_t payload,
                    uint32_t response, uint32_t header, unsigned depth, unsigned src_segment,
                    unsigned dst_segment)
{
    if (!depth || !dst_segment || dst_segment > UP_SEGMENT_MAX || dst >= f->n_nodes ||
        !f->node_out[dst])
        return -EINVAL;
    int idx = up_msg_net_flow(f, src, dst, payload, header, 0, src_segment);
    if (idx < 0)
        return idx;
    net_flow *fl = &f->flows[idx];
    fl->rr = true;
    fl->response = up_msg_shape_of(response + header, dst_segment);
    up_hist_init(&fl->rtt);
    for (unsigned i = 0; i < depth; i++) {
        int rc = up_msg_net_send(f, (unsigned)idx);
        if (rc)
            return rc;
    }
    return idx;
}

uint64_t up_msg_net_flow_responses(const up_msg_net *f, unsigned flow)
{
    return flow < f->n_flows ? f->flows[flow].responses : 0;
}

const up_hist *up_msg_net_flow_rtt(const up_msg_net *f, unsigned flow)
{
    return flow < f->n_flows && f->flows[flow].rr ? &f->flows[flow].rtt : NULL;
}

uint64_t up_msg_net_flow_tx_msgs(const up_msg_net *f, unsigned flow)
{
    return flow < f->n_flows ? f->flows[flow].tx_msgs : 0;
}

uint64_t up_msg_net_flow_rx_bytes(const up_msg_net *f, unsigned flow)
{
    return flow < f->n_flows ? f->flows[flow].rx_bytes : 0;
}

uint64_t up_msg_net_flow_rx_msgs(const up_msg_net *f, unsigned flow)
{
    return flow < f->n_flows ? f->flows[flow].rx_msgs : 0;
}

const up_hist *up_msg_net_flow_latency(const up_msg_net *f, unsigned flow)
{
    return flow < f->n_flows ? &f->flows[flow].latency : NULL;
}
