// SPDX-License-Identifier: MIT
#include "unipro-model/up_node.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unipro-model/up_consts.h"
#include "unipro-model/up_period.h"

#define UP_LAT_LOG 256u /* more than the messages of any period a port looks for */

typedef struct up_cport {
    bool connected;
    bool active;             /* in the TX round robin of its TC */
    up_cport_cfg cfg;
    up_msg *txq_head, *txq_tail;
    unsigned queued;
    int64_t peer_space;      /* bytes the peer can still take (E2EFC) */
    uint64_t to_credit;      /* bytes consumed here, not yet returned as tokens */
    unsigned tokens_pending; /* tokens to send back */
    bool e2e_blocked;
    sim_time blocked_since;
    const up_node_ops *ops;  /* per-CPort handler, or NULL for the node's */
    void *ops_ctx;
    up_cport_period_fn period; /* the handler's state walker (up_period.h), or NULL */
    up_msg *rx_msg;          /* message being reassembled */
    uint32_t rx_off;
    up_cport_stats st;
} up_cport;

struct up_node {
    up_env *env;
    const sim_scheduler *s;
    const sim_time *clock;   /* the scheduler's clock, or NULL: ask sim_now */
    up_node_cfg cfg;
    const up_node_ops *ops;
    void *ctx;
    up_port *port;
    up_cport *cports;
    /* per TC ring of active CPort ids */
    unsigned *ring[2];
    unsigned ring_head[2], ring_count[2];
    unsigned ring_mask;      /* ring capacity - 1 (a power of two >= cports) */
    up_node_stats st;
    /* The latest latencies recorded, so that a period skip can add a period's again in
     * the same order (a histogram's sum is a double: only the same additions in the same
     * order give the same bits). */
    struct {
        unsigned cport;
        sim_time lat;
    } lat_log[UP_LAT_LOG];
    uint64_t lat_adds;
};

up_node_cfg up_node_cfg_default(uint8_t device_id)
{
    return (up_node_cfg){
        .device_id = device_id,
        .cports = 32,
        .max_segment = UP_SEGMENT_MAX,
        .dl = up_dl_params_default(),
    };
}

up_cport_cfg up_cport_cfg_default(uint8_t peer_dev, uint16_t peer_cport)
{
    return (up_cport_cfg){
        .peer_dev = peer_dev,
        .peer_cport = peer_cport,
        .tc = 0,
        .flags = UP_CPORT_E2EFC | UP_CPORT_CSD_N | UP_CPORT_CSV_N,
        .token = 32,
        .local_buffer = 4096,
        .peer_buffer = 4096,
    };
}

static int node_pull(void *ctx, unsigned tc, uint32_t credits, up_frame **out);
static void node_lend(void *ctx, const up_frame *f);

static void node_period_io(void *ctx, up_pvec *pv);

static const up_port_upper node_upper = { .pull = node_pull, .lend = node_lend,
                                          .period_io = node_period_io };

/* The time now, read from the scheduler's clock when it has one. */
static inline sim_time node_now(const up_node *n)
{
    return n->clock ? *n->clock : sim_now(n->s);
}

up_node *up_node_new(up_env *env, const up_node_cfg *cfg, const up_node_ops *ops, void *ctx)
{
    if (!env || !cfg || cfg->device_id > UP_DEVICE_ID_MAX || cfg->cports < 1 ||
        cfg->cports > 1024 || cfg->max_segment < 1 || cfg->max_segment > UP_SEGMENT_MAX)
        return NULL;
    up_node *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->env = env;
    n->s = up_env_scheduler(env);
    n->clock = sim_scheduler_clock(n->s);
    n->cfg = *cfg;
    n->ops = ops;
    n->ctx = ctx;
    n->cports = calloc(cfg->cports, sizeof *n->cports);
    unsigned cap = 1;
    while (cap < cfg->cports)
        cap <<= 1;
    n->ring_mask = cap - 1;
    n->ring[0] = calloc(cap, sizeof(unsigned));
    n->ring[1] = calloc(cap, sizeof(unsigned));
    n->port = up_port_new(env, &cfg->dl, &node_upper, n);
    if (!n->cports || !n->ring[0] || !n->ring[1] || !n->port) {
        up_node_free(n);
        return NULL;
    }
    for (unsigned i = 0; i < cfg->cports; i++)
        up_hist_init(&n->cports[i].st.latency);
    return n;
}

static void drop_queue(up_node *n, up_cport *c)
{
    while (c->txq_head) {
        up_msg *m = c->txq_head;
        c->txq_head = m->next;
        up_msg_unref(n->env, m);
    }
    c->txq_tail = NULL;
    c->queued = 0;
    if (c->rx_msg)
        up_msg_unref(n->env, c->rx_msg);
    c->rx_msg = NULL;
    c->rx_off = 0;
}

void up_node_free(up_node *n)
{
    if (!n)
        return;
    up_port_free(n->port);
    if (n->cports)
        for (unsigned i = 0; i < n->cfg.cports; i++)
            drop_queue(n, &n->cports[i]);
    free(n->cports);
    free(n->ring[0]);
    free(n->ring[1]);
    free(n);
}

up_port *up_node_port(up_node *n)
{
    return n->port;
}

uint8_t up_node_device_id(const up_node *n)
{
    return n->cfg.device_id;
}

void up_node_set_device_id(up_node *n, uint8_t id)
{
    n->cfg.device_id = id & UP_DEVICE_ID_MAX;
}

unsigned up_node_cport_count(const up_node *n)
{
    return n->cfg.cports;
}

const up_node_stats *up_node_stats_get(const up_node *n)
{
    return &n->st;
}

static bool has_work(const up_cport *c)
{
    if (!c->connected)
        return false;
    if (c->tokens_pending)
        return true;
    return c->txq_head && !c->e2e_blocked;
}

static void activate(up_node *n, unsigned id)
{
    up_cport *c = &n->cports[id];
    if (c->active || !has_work(c))
        return;
    unsigned tc = c->cfg.tc;
    n->ring[tc][(n->ring_head[tc] + n->ring_count[tc]) & n->ring_mask] = id;
    n->ring_count[tc]++;
    c->active = true;
    up_port_kick(n->port, tc);
}

int up_cport_connect(up_node *n, unsigned id, const up_cport_cfg *cfg)
{
    if (id >= n->cfg.cports || !cfg || cfg->tc > 1 || cfg->peer_dev > UP_DEVICE_ID_MAX)
        return -EINVAL;
    if ((cfg->flags & UP_CPORT_E2EFC) &&
        (!cfg->token || cfg->local_buffer < n->cfg.max_segment ||
         cfg->peer_buffer < n->cfg.max_segment))
        return -EINVAL;
    up_cport *c = &n->cports[id];
    if (c->connected)
        return -EBUSY;
    c->connected = true;
    c->cfg = *cfg;
    c->peer_space = cfg->peer_buffer;
    c->to_credit = 0;
    c->tokens_pending = 0;
    c->e2e_blocked = false;
    activate(n, id);
    return 0;
}

int up_cport_disconnect(up_node *n, unsigned id)
{
    if (id >= n->cfg.cports)
        return -EINVAL;
    up_cport *c = &n->cports[id];
    c->connected = false;
    drop_queue(n, c);
    c->tokens_pending = 0;
    return 0;
}

bool up_cport_connected(const up_node *n, unsigned id)
{
    return id < n->cfg.cports && n->cports[id].connected;
}

const up_cport_cfg *up_cport_get_cfg(const up_node *n, unsigned id)
{
    return id < n->cfg.cports && n->cports[id].connected ? &n->cports[id].cfg : NULL;
}

unsigned up_cport_queued(const up_node *n, unsigned id)
{
    return id < n->cfg.cports ? n->cports[id].queued : 0;
}

const up_cport_stats *up_cport_stats_get(const up_node *n, unsigned id)
{
    return id < n->cfg.cports ? &n->cports[id].st : NULL;
}

int up_cport_set_handler(up_node *n, unsigned id, const up_node_ops *ops, void *ctx)
{
    if (id >= n->cfg.cports)
        return -EINVAL;
    n->cports[id].ops = ops;
    n->cports[id].ops_ctx = ctx;
    n->cports[id].period = NULL; /* a new handler registers its own */
    return 0;
}

int up_cport_set_period(up_node *n, unsigned id, up_cport_period_fn fn)
{
    if (id >= n->cfg.cports)
        return -EINVAL;
    n->cports[id].period = fn;
    return 0;
}

int up_cport_send(up_node *n, unsigned id, const void *data, uint32_t len, uint64_t tag)
{
    if (id >= n->cfg.cports)
        return -EINVAL;
    up_cport *c = &n->cports[id];
    if (!c->connected)
        return -ENOTCONN;
    up_msg *m = up_msg_new(n->env, len, data);
    if (!m)
        return -ENOMEM;
    m->tag = tag;
    m->t_submit = node_now(n);
    m->src_cport = (uint16_t)id;
    m->src_dev = n->cfg.device_id;
    if (c->txq_tail)
        c->txq_tail->next = m;
    else
        c->txq_head = m;
    c->txq_tail = m;
    c->queued++;
    activate(n, id);
    return 0;
}

/* The next segment of CPort c, or 0 when it has nothing it may send now. */
static int next_segment(up_node *n, up_cport *c, uint32_t credits, up_frame **out)
{
    up_msg *m = c->txq_head;
    uint32_t seg = 0;
    bool data = false;
    if (m && !c->e2e_blocked) {
        uint32_t left = m->len - m->segmented;
        seg = left < n->cfg.max_segment ? left : n->cfg.max_segment;
        /* E2EFC: the segment shrinks to the space the peer has left; none left blocks */
        if ((c->cfg.flags & UP_CPORT_E2EFC) && c->peer_space < (int64_t)seg)
            seg = c->peer_space > 0 ? (uint32_t)c->peer_space : 0;
        if (seg == 0 && left > 0) {
            c->e2e_blocked = true;
            c->blocked_since = node_now(n);
        } else {
            data = true;
        }
    }
    if (!data) {
        if (!c->tokens_pending)
            return UP_PULL_EMPTY;
        seg = 0;
    }
    if (up_frame_credits(seg) > credits)
        return UP_PULL_NO_CREDIT;
    up_frame *f = up_frame_alloc(n->env);
    if (!f)
        return UP_PULL_EMPTY;
    f->dst_dev = c->cfg.peer_dev;
    f->dst_cport = c->cfg.peer_cport;
    f->tc = c->cfg.tc;
    f->len = (uint16_t)seg;
    if (c->tokens_pending) {
        c->tokens_pending--;
        f->flags |= UP_FRAME_FCT;
        c->st.tx_tokens++;
    }
    if (data) {
        f->msg = m;
        up_msg_ref(m);
        f->offset = m->segmented;
        m->segmented += seg;
        c->st.tx_segments++;
        if (c->cfg.flags & UP_CPORT_E2EFC)
            c->peer_space -= seg;
        if (m->segmented == m->len) {
            f->flags |= UP_FRAME_EOM;
            c->txq_head = m->next;
            if (!c->txq_head)
                c->txq_tail = NULL;
            c->queued--;
            m->next = NULL;
            c->st.tx_msgs++;
            c->st.tx_bytes += m->len;
            if (c->ops) {
                if (c->ops->sent)
                    c->ops->sent(c->ops_ctx, n, m->src_cport, m);
            } else if (n->ops && n->ops->sent) {
                n->ops->sent(n->ctx, n, m->src_cport, m);
            }
            up_msg_unref(n->env, m);
        }
    }
    *out = f;
    return UP_PULL_OK;
}

static int node_pull(void *ctx, unsigned tc, uint32_t credits, up_frame **out)
{
    up_node *n = ctx;
    while (n->ring_count[tc]) {
        unsigned id = n->ring[tc][n->ring_head[tc]];
        up_cport *c = &n->cports[id];
        int r = has_work(c) ? next_segment(n, c, credits, out) : UP_PULL_EMPTY;
        if (r == UP_PULL_NO_CREDIT)
            return r;
        n->ring_head[tc] = (n->ring_head[tc] + 1) & n->ring_mask;
        n->ring_count[tc]--;
        c->active = false;
        if (has_work(c)) { /* round robin: back of the ring */
            n->ring[tc][(n->ring_head[tc] + n->ring_count[tc]) & n->ring_mask] = id;
            n->ring_count[tc]++;
            c->active = true;
        }
        if (r == UP_PULL_OK)
            return r;
    }
    return UP_PULL_EMPTY;
}

static void receive_tokens(up_node *n, unsigned id, up_cport *c)
{
    c->st.rx_tokens++;
    c->peer_space += c->cfg.token;
    if (c->e2e_blocked && c->txq_head) {
        if (c->peer_space > 0) {
            c->e2e_blocked = false;
            c->st.e2e_stall += node_now(n) - c->blocked_since;
            activate(n, id);
        }
    }
}

static void node_lend(void *ctx, const up_frame *f)
{
    up_node *n = ctx;
    unsigned tc = f->tc;
    unsigned credits = up_frame_credits(f->len);
    if (f->dst_dev != n->cfg.device_id) {
        n->st.rx_wrong_device++;
        goto done;
    }
    if (f->dst_cport >= n->cfg.cports || !n->cports[f->dst_cport].connected) {
        n->st.rx_unknown_cport++;
        goto done;
    }
    unsigned id = f->dst_cport;
    up_cport *c = &n->cports[id];
    if (f->flags & UP_FRAME_FCT)
        receive_tokens(n, id, c);
    if (!f->msg)
        goto done;
    c->st.rx_segments++;
    if (f->offset == 0) {
        if (c->rx_msg) { /* a message without its EOM */
            c->st.rx_dropped++;
            up_msg_unref(n->env, c->rx_msg);
        }
        c->rx_msg = f->msg;
        up_msg_ref(f->msg);
        c->rx_off = 0;
    } else if (c->rx_msg != f->msg || f->offset != c->rx_off) {
        c->st.rx_dropped++; /* reassembly error: never expected over a reliable DL */
        goto done;
    }
    c->rx_off += f->len;
    if (c->cfg.flags & UP_CPORT_E2EFC) {
        c->to_credit += f->len;
        unsigned t = (unsigned)(c->to_credit / c->cfg.token);
        if (t) {
            c->to_credit -= (uint64_t)t * c->cfg.token;
            c->tokens_pending += t;
            activate(n, id);
        }
    }
    if (f->flags & UP_FRAME_EOM) {
        up_msg *m = c->rx_msg;
        c->rx_msg = NULL;
        if (c->rx_off != m->len) {
            c->st.rx_dropped++;
        } else {
            sim_time lat = node_now(n) - m->t_submit;
            c->st.rx_msgs++;
            c->st.rx_bytes += m->len;
            up_hist_add(&c->st.latency, lat);
            n->lat_log[n->lat_adds++ % UP_LAT_LOG].cport = id;
            n->lat_log[(n->lat_adds - 1) % UP_LAT_LOG].lat = lat;
            if (c->ops) {
                if (c->ops->recv)
                    c->ops->recv(c->ops_ctx, n, id, m, lat);
            } else if (n->ops && n->ops->recv) {
                n->ops->recv(n->ctx, n, id, m, lat);
            }
        }
        up_msg_unref(n->env, m);
    }
done:
    up_port_release(n->port, tc, credits);
}

/* ---- period skipping (up_period.h) ------------------------------------------------ */

void up_pv_msg(up_pvec *pv, up_msg *m)
{
    if (!m) {
        up_pv_shape(pv, 0);
        return;
    }
    if (m->pv_walk == pv->walk) { /* met before in this walk */
        up_pv_shape(pv, m->pv_index);
        return;
    }
    if (m->data) { /* (a payload's bytes are not walked) */
        pv->ok = false;
        return;
    }
    m->pv_walk = pv->walk;
    m->pv_index = ++pv->nmsgs;
    up_pv_shape(pv, pv->nmsgs);
    up_pv_shape(pv, m->refs);
    up_pv_shape(pv, m->len);
    up_pv_shape(pv, m->segmented);
    up_pv_shape(pv, (uint64_t)m->src_cport << 8 | m->src_dev);
    UP_PV(pv, UP_PV_TIME, m->t_submit);
    UP_PV(pv, UP_PV_COUNT, m->tag);
}

/* Adds `periods` times the latencies of the last period (`per` of them) to their CPorts'
 * histograms, in the order they were first added. */
static void replay_latencies(up_node *n, uint64_t per, uint64_t periods)
{
    uint64_t first = n->lat_adds - per;
    for (uint64_t r = 0; r < periods; r++)
        for (uint64_t i = 0; i < per; i++) {
            unsigned k = (unsigned)((first + i) % UP_LAT_LOG);
            up_hist_add(&n->cports[n->lat_log[k].cport].st.latency, n->lat_log[k].lat);
        }
    /* the log ends with the same period again */
    __typeof__(n->lat_log[0]) last[UP_LAT_LOG];
    for (uint64_t i = 0; i < per; i++)
        last[i] = n->lat_log[(first + i) % UP_LAT_LOG];
    n->lat_adds += per * periods;
    for (uint64_t i = 0; i < per; i++)
        n->lat_log[(n->lat_adds - per + i) % UP_LAT_LOG] = last[i];
}

static void cport_period_io(up_cport *c, up_pvec *pv)
{
    up_pv_shape(pv, c->active);
    up_pv_shape(pv, c->queued);
    for (up_msg *m = c->txq_head; m; m = m->next)
        up_pv_msg(pv, m);
    up_pv_shape(pv, (uint64_t)c->peer_space); /* E2EFC space: bounded, compared with sizes */
    up_pv_shape(pv, c->to_credit);
    up_pv_shape(pv, c->tokens_pending);
    up_pv_shape(pv, c->e2e_blocked);
    if (c->e2e_blocked)
        UP_PV(pv, UP_PV_TIME, c->blocked_since);
    up_pv_msg(pv, c->rx_msg);
    up_pv_shape(pv, c->rx_off);
    up_cport_stats *st = &c->st;
    UP_PV(pv, UP_PV_COUNT, st->tx_msgs);
    UP_PV(pv, UP_PV_COUNT, st->tx_bytes);
    UP_PV(pv, UP_PV_COUNT, st->tx_segments);
    UP_PV(pv, UP_PV_COUNT, st->tx_tokens);
    UP_PV(pv, UP_PV_COUNT, st->rx_msgs);
    UP_PV(pv, UP_PV_COUNT, st->rx_bytes);
    UP_PV(pv, UP_PV_COUNT, st->rx_segments);
    UP_PV(pv, UP_PV_COUNT, st->rx_tokens);
    UP_PV(pv, UP_PV_COUNT, st->rx_dropped);
    UP_PV(pv, UP_PV_COUNT, st->e2e_stall);
    /* the histogram: its extremes must not move (a period's latencies are within them);
     * its counts and sum are added again by replay_latencies */
    up_pv_shape(pv, st->latency.min);
    up_pv_shape(pv, st->latency.max);
    if (c->ops && !c->period)
        pv->ok = false; /* a handler whose state is not known */
    else if (c->period)
        c->period(c->ops_ctx, pv);
}

/* The node's state for period skipping: its CPorts' queues, reassembly, statistics and
 * their handlers' state. */
static void node_period_io(void *ctx, up_pvec *pv)
{
    up_node *n = ctx;
    if (n->ops) {
        pv->ok = false;
        return;
    }
    UP_PV(pv, UP_PV_COUNT, n->st.rx_wrong_device);
    UP_PV(pv, UP_PV_COUNT, n->st.rx_unknown_cport);
    for (unsigned tc = 0; tc < 2; tc++) {
        up_pv_shape(pv, n->ring_count[tc]);
        for (unsigned i = 0; i < n->ring_count[tc]; i++)
            up_pv_shape(pv, n->ring[tc][(n->ring_head[tc] + i) & n->ring_mask]);
    }
    for (unsigned id = 0; id < n->cfg.cports && pv->ok; id++) {
        up_cport *c = &n->cports[id];
        if (!c->connected)
            continue;
        up_pv_shape(pv, id);
        cport_period_io(c, pv);
    }
    /* last: how many latencies a period adds (shift mode reads its change first) */
    if (pv->shift && pv->n < UP_PV_MAX)
        replay_latencies(n, pv->delta[pv->n], pv->periods);
    up_pv_limit(pv, UP_LAT_LOG);
    up_pv_io(pv, UP_PV_COUNT, n->lat_adds); /* (replay_latencies moved it already) */
}
