// SPDX-License-Identifier: MIT
// The data link layer of one port. How time is spent (see docs/performance-model.md):
//
// The sending side commits transmissions to the wire ahead of time: each "slot" has a start
// and end time and an arrival time, when the receiver has it (end + PHY TX and RX latency).
// Slots arrive in commit order, so only the oldest has an event-kernel event at a time. Slots are
// committed only a little ahead (until the wire is busy for one PHY latency beyond the end
// of the oldest slot still travelling), so nearly every data frame costs a single event. When something of higher priority turns up (an AFC or NAC, a TC1
// frame) the slots that have not started yet are taken back ("uncommitted") and committed
// again after it; a TC0 frame already on the wire is preempted by TC1 and resumed later
// with a COF symbol. Control frames wait for the frame on the wire to end.
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unipro-model/up_internal.h"
#include "unipro-model/up_period.h"

up_dl_params up_dl_params_default(void)
{
    return (up_dl_params){
        .tx_window = 16,
        .rx_credits = { 64, 64 },
        .out_ack_threshold = 3,
        .afc_credit_threshold = 32,
        .afc_flush = SIM_US(2),
        .replay_timeout = SIM_US(4000),
        .fc_protection = SIM_US(1000),
        .preemption = true,
    };
}

up_port *up_port_new(up_env *env, const up_dl_params *dl, const up_port_upper *ops, void *ctx)
{
    up_dl_params d = dl ? *dl : up_dl_params_default();
    if (!env || !ops || !ops->pull || (!ops->deliver && !ops->lend) || d.tx_window < 1 ||
        d.tx_window > UP_WINDOW_MAX || d.rx_credits[0] < 9 || d.rx_credits[1] < 9 ||
        d.out_ack_threshold > 15 || !d.replay_timeout || !d.fc_protection || !d.afc_flush)
        return NULL;
    up_port *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->env = env;
    p->s = up_env_scheduler(env);
    p->batch = sim_scheduler_batch(p->s);
    p->clock = sim_scheduler_clock(p->s);
    p->dl = d;
    p->ops = ops;
    p->ctx = ctx;
    for (unsigned tc = 0; tc < UP_TCS; tc++) {
        p->tx[tc].port = p;
        p->maybe[tc] = true;
        p->tx[tc].tcid = (uint8_t)tc;
        p->rx[tc].granted = d.rx_credits[tc];
        p->rx[tc].reported = d.rx_credits[tc];
    }
    p->bits_to_error = INT64_MAX;
    if (up_env_net_add(env, p)) {
        free(p);
        return NULL;
    }
    p->net = up_env_net_get(env);
    return p;
}

/* The time now: read from the scheduler's clock when it has one (no call on the hot path). */
static inline sim_time port_now(const up_port *p)
{
    return p->clock ? *p->clock : sim_now(p->s);
}

static up_frame *rb_at(up_txtc *t, unsigned i)
{
    return t->rb[(t->rb_head + i) % UP_WINDOW_MAX];
}

static void cancel_timers(up_port *p)
{
    for (unsigned tc = 0; tc < UP_TCS; tc++) {
        if (p->tx[tc].replay_armed)
            sim_cancel(p->s, p->tx[tc].replay_ev);
        if (p->tx[tc].prot_armed)
            sim_cancel(p->s, p->tx[tc].prot_ev);
        p->tx[tc].replay_armed = p->tx[tc].prot_armed = false;
    }
    if (p->flush_armed)
        sim_cancel(p->s, p->flush_ev);
    p->flush_armed = false;
}

void up_port_free(up_port *p)
{
    if (!p)
        return;
    up_env_net_remove(p->env, p);
    free(p->period);
    up_port_link_lost(p);
    cancel_timers(p);
    for (unsigned tc = 0; tc < UP_TCS; tc++) {
        up_txtc *t = &p->tx[tc];
        for (unsigned i = 0; i < t->rb_count; i++)
            up_frame_free(p->env, rb_at(t, i));
        if (t->has_suspended && t->suspended.f.msg)
            up_msg_unref(p->env, t->suspended.f.msg);
    }
    free(p);
}

const up_port_stats *up_port_stats_get(const up_port *p)
{
    return &p->st;
}

up_link *up_port_link(const up_port *p)
{
    return p->link;
}

const up_dl_params *up_port_dl_params(const up_port *p)
{
    return &p->dl;
}

unsigned up_port_unacked(const up_port *p, unsigned tc)
{
    return tc < UP_TCS ? p->tx[tc].rb_count : 0;
}

int64_t up_port_tx_credits(const up_port *p, unsigned tc)
{
    return tc < UP_TCS ? (int64_t)(p->tx[tc].cred_limit - p->tx[tc].cred_used) : 0;
}

unsigned up_port_rx_buffered(const up_port *p, unsigned tc)
{
    return tc < UP_TCS ? p->rx[tc].buffered : 0;
}

void up_port_set_early_delivery(up_port *p, bool early)
{
    p->early_delivery = early;
}

sim_time up_port_frame_time(const up_port *p, unsigned seg_len)
{
    return p->link ? up_phy_symbols_time(p->sym_fp, up_frame_symbols(seg_len)) : 0;
}

sim_time up_port_wire_idle_at(const up_port *p)
{
    return p->busy_until;
}

/* ---- timing and faults ------------------------------------------------------------ */

static int64_t draw_error_gap(up_port *p)
{
    /* bits until the next error: geometric with parameter ber */
    double g = floor(log(sim_rng_unit(&p->rng)) / p->ln_keep);
    return g >= 9e18 ? INT64_MAX : (int64_t)g + 1;
}

void up_port_reseed(up_port *p)
{
    const up_link_cfg *c = up_link_get_cfg(p->link);
    sim_rng_seed(&p->rng, c->faults.seed * 2 + p->side + 0x5eed);
    up_port_retime(p);
}

void up_port_retime(up_port *p)
{
    const up_link_cfg *c = up_link_get_cfg(p->link);
    p->sym_fp = up_phy_symbol_ps_fp16(&c->phy);
    p->latency = c->params.tx_latency + c->params.rx_latency;
    p->burst_open = up_phy_burst_open_time(&c->phy, &c->params);
    p->burst_hold = c->params.burst_hold;
    p->drop = c->faults.drop;
    if (c->faults.ber > 0) {
        p->ln_keep = log1p(-c->faults.ber);
        p->bits_to_error = draw_error_gap(p);
    } else {
        p->bits_to_error = INT64_MAX;
    }
}

/* Decides, at commit time, whether the line corrupts or loses this transmission. */
static uint8_t line_faults(up_port *p, unsigned symbols)
{
    uint8_t fl = 0;
    if (p->bits_to_error != INT64_MAX) {
        int64_t bits = (int64_t)symbols * UP_UI_PER_SYMBOL;
        p->bits_to_error -= bits;
        if (p->bits_to_error <= 0) {
            fl |= UP_SLOT_CORRUPT;
            while (p->bits_to_error <= 0)
                p->bits_to_error += draw_error_gap(p);
        }
    }
    if (p->drop > 0 && sim_rng_unit(&p->rng) <= p->drop)
        fl |= UP_SLOT_DROPPED;
    return fl;
}

static bool link_up(const up_port *p)
{
    return p->up;
}

/* ---- the pipe of committed slots --------------------------------------------------- */

static void port_arrive(void *ctx);

static up_slot *pipe_at(up_port *p, unsigned i)
{
    return &p->pipe[(p->pipe_head + i) % UP_PIPE_MAX];
}

static up_slot *pipe_tail(up_port *p)
{
    return p->pipe_count ? pipe_at(p, p->pipe_count - 1) : NULL;
}

/* Only the oldest slot of the pipe has an event-kernel event: slots arrive in the order they
 * were committed, so the next one is scheduled when the oldest leaves. That keeps the
 * kernel's queue at one entry per busy port and makes taking a slot back free. */
static void schedule_head(up_port *p, sim_time now)
{
    sim_time at = pipe_at(p, 0)->arrive;
    if (sim_schedule(p->s, at > now ? at - now : 0, port_arrive, p, &p->arrive_ev) != 0)
        abort(); /* the kernel cannot grow: nothing sensible can continue */
    p->head_armed = true;
}

/* Forgets the newest slot's place in the pipe (its contents stay readable). */
static void drop_tail(up_port *p)
{
    if (p->pipe_count == 1 && p->head_armed) {
        sim_cancel(p->s, p->arrive_ev);
        p->head_armed = false;
    }
    p->pipe_count--;
}

/* commit() and try_data() run for every frame; GCC keeps them out of line unless told, and
 * inlined they save about 5 % of a frame's instructions (callgrind). */
#define UP_HOT_INLINE inline __attribute__((always_inline))

/* Puts a slot whose kind, symbols, flags and payload are set on the wire at `start`. */
static UP_HOT_INLINE void commit(up_port *p, up_slot *n, sim_time start, sim_time extra)
{
    sim_time now = p->now; /* read once per pump */
    if (start < now)
        start = now;
    if (start < p->busy_until)
        start = p->busy_until;
    n->open = 0;
    if (!p->burst_ever || start > p->busy_until + p->burst_hold)
        n->open = p->burst_open;
    p->burst_ever = true;
    sim_time body = extra ? extra : up_phy_symbols_time(p->sym_fp, n->symbols);
    n->start = start;
    n->end = start + n->open + body;
    if (!(n->flags & UP_SLOT_RESUMED))
        if (p->bits_to_error != INT64_MAX || p->drop > 0) /* (a clean line draws nothing) */
            n->flags |= line_faults(p, n->symbols);
    if (p->peer && p->peer->early_delivery && n->kind == UP_SLOT_DATA &&
        !(n->flags & UP_SLOT_RESUMED)) {
        n->flags |= UP_SLOT_EARLY;
        n->arrive = start + n->open + up_phy_symbols_time(p->sym_fp, 2) + p->latency;
        n->f.t_end = n->end + p->latency;
    } else {
        n->flags &= (uint8_t)~UP_SLOT_EARLY;
        n->arrive = n->end + p->latency;
        n->f.t_end = n->arrive;
    }
    p->busy_until = n->end;
    up_slot *slot = &p->pipe[(p->pipe_head + p->pipe_count) % UP_PIPE_MAX];
    if (slot != n)
        *slot = *n;
    if (!p->pipe_count++)
        schedule_head(p, now);
}

static sim_time slot_body(const up_slot *s)
{
    return s->end - s->start - s->open;
}

/* Takes back the newest slot, which has not started. */
static void uncommit_tail(up_port *p)
{
    up_slot *s = pipe_tail(p);
    drop_tail(p);
    up_slot *prev = pipe_tail(p);
    p->busy_until = prev ? prev->end : p->popped_end;
    if (s->kind == UP_SLOT_AFC) {
        p->afc_req |= (uint8_t)(1u << s->tc);
        if (s->flags & UP_SLOT_CREQ)
            p->creq_req |= (uint8_t)(1u << s->tc);
        return;
    }
    if (s->kind == UP_SLOT_NAC) {
        p->nac_req = true;
        return;
    }
    up_txtc *t = &p->tx[s->tc];
    if (s->flags & UP_SLOT_RESUMED) {
        s->flags &= (uint8_t)~(UP_SLOT_EARLY);
        s->end = s->start + slot_body(s) - up_phy_symbols_time(p->sym_fp, UP_COF_SYMS);
        s->open = 0;
        t->suspended = *s;
        t->has_suspended = true;
        return;
    }
    uint32_t idx = s->seq - t->base_seq;
    if (idx < t->rb_count) {
        if (idx < t->next_tx)
            t->next_tx = idx;
        if (!(s->flags & UP_SLOT_REPLAY)) /* it never left: the next send is not a replay */
            rb_at(t, idx)->flags &= (uint8_t)~UP_FRAME_SENT;
    }
    if (s->f.msg)
        up_msg_unref(p->env, s->f.msg);
}

/* Makes room for a transmission of priority prio (control 2, TC1 1, TC0 0): slots of lower
 * priority that have not started are taken back; a TC0 frame on the wire is preempted by
 * TC1 when preemption is on. */
static void make_room(up_port *p, unsigned prio)
{
    sim_time now = p->now; /* inside a pump */
    up_slot *t;
    while ((t = pipe_tail(p)) && t->start >= now && t->prio < prio)
        uncommit_tail(p);
    t = pipe_tail(p);
    if (prio == 1 && p->dl.preemption && t && t->kind == UP_SLOT_DATA && t->prio == 0 &&
        t->start + t->open < now && t->end > now && !(t->flags & UP_SLOT_EARLY)) {
        up_txtc *tx = &p->tx[0];
        if (tx->has_suspended)
            return; /* one suspension at a time */
        drop_tail(p);
        p->st.tx_busy += now - t->start;
        p->st.tx_preemptions++;
        up_slot sus = *t;
        sus.start = now;
        sus.open = 0;
        sus.flags &= (uint8_t)~UP_SLOT_EARLY;
        tx->suspended = sus; /* remaining time = end - now */
        tx->has_suspended = true;
        p->busy_until = now;
    }
}

/* ---- timers ----------------------------------------------------------------------- */

static void replay_fire(void *ctx);
static void go_back(up_port *p, unsigned tc);

static void arm_replay(up_port *p, unsigned tc)
{
    up_txtc *t = &p->tx[tc];
    if (t->replay_armed)
        return;
    sim_time now = port_now(p);
    sim_time delay = t->replay_deadline > now ? t->replay_deadline - now : 0;
    t->replay_at = now + delay;
    if (sim_schedule(p->s, delay, replay_fire, &p->tx[tc], &t->replay_ev) == 0)
        t->replay_armed = true;
}

static up_port *port_of_tx(up_txtc *t, unsigned *tc)
{
    *tc = t->tcid;
    return t->port;
}

static void replay_fire(void *ctx)
{
    unsigned tc;
    up_port *p = port_of_tx(ctx, &tc);
    up_txtc *t = &p->tx[tc];
    p->net->events++; /* (an event of the network's own: period skipping) */
    t->replay_armed = false;
    if (!t->rb_count)
        return;
    sim_time now = port_now(p);
    if (now >= t->replay_deadline) {
        p->st.tx_replay_timeouts++;
        if (link_up(p))
            go_back(p, tc);
        t->replay_deadline = now + p->dl.replay_timeout;
        up_port_pump(p);
    }
    arm_replay(p, tc);
}

static void prot_fire(void *ctx)
{
    unsigned tc;
    up_port *p = port_of_tx(ctx, &tc);
    up_txtc *t = &p->tx[tc];
    p->net->events++;
    t->prot_armed = false;
    if (t->stalled && t->cred_limit == t->prot_cred_mark && link_up(p)) {
        p->creq_req |= (uint8_t)(1u << tc);
        p->afc_req |= (uint8_t)(1u << tc);
        p->st.tx_credit_requests++;
        up_port_pump(p);
    }
}

static void stall_begin(up_port *p, unsigned tc)
{
    up_txtc *t = &p->tx[tc];
    if (!t->stalled) {
        t->stalled = true;
        t->stall_since = port_now(p);
    }
    if (!t->prot_armed) {
        t->prot_cred_mark = t->cred_limit;
        t->prot_at = port_now(p) + p->dl.fc_protection;
        if (sim_schedule(p->s, p->dl.fc_protection, prot_fire, t, &t->prot_ev) == 0)
            t->prot_armed = true;
    }
}

static void stall_end(up_port *p, unsigned tc)
{
    up_txtc *t = &p->tx[tc];
    if (t->stalled) {
        t->stalled = false;
        p->st.tx_credit_stall[tc] += port_now(p) - t->stall_since;
    }
}

static void flush_fire(void *ctx)
{
    up_port *p = ctx;
    p->net->events++;
    p->flush_armed = false;
    for (unsigned tc = 0; tc < UP_TCS; tc++)
        if (p->rx[tc].since_ack || p->rx[tc].granted != p->rx[tc].reported)
            p->afc_req |= (uint8_t)(1u << tc);
    if (p->afc_req)
        up_port_pump(p);
}

static void arm_flush(up_port *p)
{
    if (!p->flush_armed)
        p->flush_at = port_now(p) + p->dl.afc_flush;
    if (!p->flush_armed &&
        sim_schedule(p->s, p->dl.afc_flush, flush_fire, p, &p->flush_ev) == 0)
        p->flush_armed = true;
}

/* ---- sending ---------------------------------------------------------------------- */

/* The slot's copy of a frame the upper has just built in pull(), read field by field. A
 * struct copy reads it in 16-byte pieces, which the CPU cannot forward from the narrower
 * stores that built it, still in flight: it waits for them. That wait was a tenth of a
 * saturated link's time (perf). t_ready is left out (the caller reads it on its own, and a
 * slot's t_end is set at commit): copied with t_end, GCC merges them into such a piece. */
static UP_HOT_INLINE void frame_copy_fresh(up_frame *dst, const up_frame *src)
{
    dst->next = src->next;
    dst->msg = src->msg;
    dst->offset = src->offset;
    dst->len = src->len;
    dst->dst_cport = src->dst_cport;
    dst->dst_dev = src->dst_dev;
    dst->tc = src->tc;
    dst->flags = src->flags;
    dst->in_port = src->in_port;
    dst->out_port = src->out_port;
    dst->seq = src->seq;
    dst->t_ready = 0;
}

static void commit_control(up_port *p, unsigned kind, unsigned tc)
{
    make_room(p, 2);
    up_slot n;
    n.kind = (uint8_t)kind;
    n.tc = (uint8_t)tc;
    n.prio = 2;
    n.flags = 0;
    n.f.msg = NULL;
    if (kind == UP_SLOT_NAC) {
        n.symbols = UP_NAC_SYMS;
        n.seq = 0;
        n.credits = 0;
        p->nac_req = false;
    } else {
        up_rxtc *r = &p->rx[tc];
        n.symbols = UP_AFC_SYMS;
        n.seq = (r->expect - 1) & (UP_SEQ_MOD - 1);
        n.credits = r->granted;
        if (p->creq_req & (1u << tc))
            n.flags |= UP_SLOT_CREQ;
        r->reported = r->granted;
        r->since_ack = 0;
        p->afc_req &= (uint8_t)~(1u << tc);
        p->creq_req &= (uint8_t)~(1u << tc);
    }
    commit(p, &n, 0, 0);
}

/* Commits the next data frame of tc, if any may go. */
static UP_HOT_INLINE bool try_data(up_port *p, unsigned tc)
{
    up_txtc *t = &p->tx[tc];
    /* TC0 fills the next pipe slot in place; TC1 may take slots back first, so it builds
     * its slot aside */
    up_slot local;
    up_slot *np = tc ? &local : &p->pipe[(p->pipe_head + p->pipe_count) % UP_PIPE_MAX];
#define n (*np)
    sim_time extra = 0;
    sim_time not_before = 0;
    if (t->has_suspended) {
        n = t->suspended;
        t->has_suspended = false;
        uint32_t idx = n.seq - t->base_seq;
        if (idx >= t->rb_count) { /* acknowledged meanwhile */
            if (n.f.msg)
                up_msg_unref(p->env, n.f.msg);
            return true;
        }
        extra = n.end - n.start + up_phy_symbols_time(p->sym_fp, UP_COF_SYMS);
        n.flags |= UP_SLOT_RESUMED;
    } else if (t->next_tx < t->rb_count) {
        up_frame *f = rb_at(t, t->next_tx);
        n.f = *f;
        n.seq = f->seq;
        n.flags = (f->flags & UP_FRAME_SENT) ? UP_SLOT_REPLAY : 0;
        f->flags |= UP_FRAME_SENT;
        if (n.f.msg)
            up_msg_ref(n.f.msg);
        t->next_tx++;
    } else {
        if (t->rb_count >= p->dl.tx_window || !p->maybe[tc])
            return false;
        uint64_t avail = t->cred_limit > t->cred_used ? t->cred_limit - t->cred_used : 0;
        up_frame *f = NULL;
        int r = p->ops->pull(p->ctx, tc, avail > UINT32_MAX ? UINT32_MAX : (uint32_t)avail, &f);
        if (r == UP_PULL_NO_CREDIT) {
            stall_begin(p, tc);
            return false;
        }
        if (t->stalled)
            stall_end(p, tc);
        if (r != UP_PULL_OK || !f) {
            p->maybe[tc] = false; /* until the upper kicks this TC again */
            return false;
        }
        f->tc = (uint8_t)tc;
        f->seq = t->base_seq + t->rb_count;
        f->flags |= UP_FRAME_SENT;
        t->rb[(t->rb_head + t->rb_count) % UP_WINDOW_MAX] = f;
        if (!t->rb_count)
            t->replay_deadline = p->now + p->dl.replay_timeout;
        t->rb_count++;
        t->next_tx++;
        t->cred_used += up_frame_credits(f->len);
        not_before = f->t_ready;
        frame_copy_fresh(&n.f, f);
        n.seq = f->seq;
        n.flags = 0;
        if (n.f.msg)
            up_msg_ref(n.f.msg);
        arm_replay(p, tc);
    }
    n.kind = UP_SLOT_DATA;
    n.tc = (uint8_t)tc;
    n.prio = (uint8_t)tc;
    n.symbols = up_frame_symbols(n.f.len);
    if (tc)
        make_room(p, 1);
    commit(p, np, not_before, extra);
    return true;
#undef n
}

static void pump_once(up_port *p);

/* Whether try_data(p, 1) could commit anything: saves the call on the TC0-only hot path. */
static inline bool tc1_may_send(const up_port *p)
{
    const up_txtc *t = &p->tx[1];
    return t->has_suspended || t->next_tx < t->rb_count ||
           (p->maybe[1] && t->rb_count < p->dl.tx_window);
}

static bool horizon_full(up_port *p)
{
    if (!p->pipe_count)
        return false;
    return p->busy_until >= pipe_at(p, 0)->end + p->latency;
}

void up_port_pump(up_port *p)
{
    if (!link_up(p))
        return;
    if (p->in_pump) { /* called back from inside pull(): the running pump looks again */
        p->pump_again = true;
        return;
    }
    p->in_pump = true;
    p->now = port_now(p);
    do {
        p->pump_again = false;
        pump_once(p);
    } while (p->pump_again && link_up(p));
    p->in_pump = false;
}

static void pump_once(up_port *p)
{
    while (p->pipe_count < UP_PIPE_MAX - 1) {
        if (p->nac_req) {
            commit_control(p, UP_SLOT_NAC, 0);
            continue;
        }
        if (p->afc_req) {
            commit_control(p, UP_SLOT_AFC, (p->afc_req & 2) ? 1 : 0);
            continue;
        }
        if (tc1_may_send(p) && try_data(p, 1))
            continue;
        if (horizon_full(p) || !try_data(p, 0))
            return;
    }
}

void up_port_kick(up_port *p, unsigned tc)
{
    p->maybe[tc & 1] = true;
    up_port_pump(p);
}

/* ---- go-back-N and acknowledgements ---------------------------------------------------- */

/* Replays every unacknowledged frame of tc from the oldest. */
static void go_back(up_port *p, unsigned tc)
{
    sim_time now = port_now(p);
    up_slot *s;
    while ((s = pipe_tail(p)) && s->start >= now)
        uncommit_tail(p);
    up_txtc *t = &p->tx[tc];
    if (t->has_suspended) {
        if (t->suspended.f.msg)
            up_msg_unref(p->env, t->suspended.f.msg);
        t->has_suspended = false;
    }
    t->next_tx = 0;
}

static void handle_ack(up_port *p, unsigned tc, uint32_t ack5, uint64_t credits)
{
    up_txtc *t = &p->tx[tc];
    if (credits > t->cred_limit)
        t->cred_limit = credits;
    unsigned n = (ack5 - t->base_seq + 1) & (UP_SEQ_MOD - 1);
    if (n && n <= t->rb_count) {
        for (unsigned i = 0; i < n; i++)
            up_frame_free(p->env, rb_at(t, i));
        t->rb_head = (t->rb_head + n) % UP_WINDOW_MAX;
        t->rb_count -= n;
        t->base_seq += n;
        t->next_tx = t->next_tx > n ? t->next_tx - n : 0;
        t->replay_deadline = port_now(p) + p->dl.replay_timeout;
    }
}

/* ---- receiving -------------------------------------------------------------------- */

static void request_nac(up_port *q, unsigned tc)
{
    if (!q->rx[tc].nac_sent) {
        q->rx[tc].nac_sent = true;
        q->nac_req = true;
    }
}

/* A frame as its receiver's upper sees it: out of any queue, no sending state. */
static void as_received(up_frame *f)
{
    f->next = NULL;
    f->flags &= (uint8_t)~UP_FRAME_SENT;
    f->t_ready = 0;
}

/* Slot s sent by p arrives at q = p->peer. */
static void receive(up_port *q, up_slot *s)
{
    if (s->flags & UP_SLOT_DROPPED) {
        q->st.rx_dropped++;
        if (s->f.msg)
            up_msg_unref(q->env, s->f.msg);
        return;
    }
    if (s->kind != UP_SLOT_DATA) {
        if (s->flags & UP_SLOT_CORRUPT) {
            q->st.rx_control_lost++;
            return;
        }
        if (s->kind == UP_SLOT_NAC) {
            q->st.rx_nac++;
            for (unsigned tc = 0; tc < UP_TCS; tc++)
                if (q->tx[tc].rb_count)
                    go_back(q, tc);
        } else {
            q->st.rx_afc++;
            handle_ack(q, s->tc, s->seq, s->credits);
            if (s->flags & UP_SLOT_CREQ)
                q->afc_req |= (uint8_t)(1u << s->tc);
        }
        up_port_pump(q);
        return;
    }
    unsigned tc = s->tc;
    up_rxtc *r = &q->rx[tc];
    if (s->flags & UP_SLOT_CORRUPT) {
        /* always NAC a CRC error (a replayed frame may be hit again); a gap in the sequence
         * after a NAC is the sender still finishing frames it sent before the replay */
        q->st.rx_crc_errors++;
        q->rx[tc].nac_sent = true;
        q->nac_req = true;
        if (s->f.msg)
            up_msg_unref(q->env, s->f.msg);
        up_port_pump(q);
        return;
    }
    unsigned d = (s->seq - r->expect) & (UP_SEQ_MOD - 1);
    if (d) {
        if (d >= UP_WINDOW_MAX) {
            q->st.rx_duplicates++;
            q->afc_req |= (uint8_t)(1u << tc);
        } else {
            q->st.rx_out_of_sequence++;
            request_nac(q, tc);
        }
        if (s->f.msg)
            up_msg_unref(q->env, s->f.msg);
        up_port_pump(q);
        return;
    }
    r->expect++;
    r->nac_sent = false;
    r->buffered += up_frame_credits(s->f.len);
    q->st.rx_frames++;
    q->st.rx_payload_bytes += s->f.len;
    if (++r->since_ack > q->dl.out_ack_threshold)
        q->afc_req |= (uint8_t)(1u << tc);
    if (q->ops->lend) {
        /* the popped slot is not reused before this arrival is done (arrive_one) */
        up_msg *m = s->f.msg;
        as_received(&s->f);
        q->ops->lend(q->ctx, &s->f);
        if (m)
            up_msg_unref(q->env, m);
    } else {
        /* (copied before the changes: a struct copy right after narrow stores waits on
         * them, see frame_copy_fresh) */
        up_frame *f = up_frame_alloc_copy(q->env, &s->f);
        if (!f)
            abort();
        as_received(f);
        q->ops->deliver(q->ctx, f);
    }
    if (q->afc_req)
        up_port_pump(q);
}

/* What crossed, for the link's frame observer (captures). */
static void observe_frame(up_port *p, const up_slot *s)
{
    up_dl_event ev = {
        .side = p->side,
        .kind = s->kind == UP_SLOT_DATA ? UP_DL_DATA
                : s->kind == UP_SLOT_AFC ? UP_DL_AFC
                                         : UP_DL_NAC,
        .tc = s->tc,
        .seq = s->seq,
        .len = s->kind == UP_SLOT_DATA ? s->f.len : (uint32_t)s->credits,
        .dst_cport = s->kind == UP_SLOT_DATA ? s->f.dst_cport : 0,
        .dst_dev = s->kind == UP_SLOT_DATA ? s->f.dst_dev : 0,
        .replay = (s->flags & UP_SLOT_REPLAY) != 0,
        .crc_error = (s->flags & UP_SLOT_CORRUPT) != 0,
        .dropped = (s->flags & UP_SLOT_DROPPED) != 0,
        .start = s->start,
        .end = s->end,
    };
    p->link->frame_observer(p->link->frame_observer_ctx, p->link, &ev);
}

/* Frame-exact batching (docs/performance-model.md), after an arrival at p's peer: the
 * port whose arrival is the next event of the whole simulation, or NULL. p's new head was
 * not queued when the previous one left: if nothing else is due at or before it, the
 * kernel moves the clock there and p handles it at once; otherwise it is queued now,
 * ordered as if queued when the previous arrival began, exactly where the per-frame path
 * puts it. Then either direction's queued arrival is taken off the queue when it is the
 * kernel's next event anyway (the AFCs coming back, a frame forwarded meanwhile). */
static up_port *next_inline(up_port *p)
{
    if (p->pipe_count && !p->head_armed) {
        sim_time at = pipe_at(p, 0)->arrive;
        if (p->batch->advance(p->s->self, at))
            return p;
        sim_time now = port_now(p);
        if (p->batch->schedule_first(p->s->self, at > now ? at - now : 0, port_arrive, p,
                                     &p->arrive_ev) != 0)
            abort();
        p->head_armed = true;
    }
    up_port *q = p->peer;
    if (q && q->head_armed && p->batch->take(p->s->self, q->arrive_ev)) {
        q->head_armed = false;
        return q;
    }
    if (p->head_armed && p->batch->take(p->s->self, p->arrive_ev)) {
        p->head_armed = false;
        return p;
    }
    return NULL;
}

static bool arrive_one(up_port *p, bool batch);

/* ---- period skipping (docs/performance-model.md, "Period skipping") --------------------
 *
 * A saturated network on clean lines repeats itself: after a few messages every number of
 * the state of its ports, nodes, switches and flows is what it was, times moved on by the
 * same interval P and counters by fixed amounts. The state then evolves the same way again
 * (the model is deterministic and compares times and counters only with each other), so
 * N periods later it is the current one with each time and counter moved on N times, and
 * the N * (events per period) events between need not be run. One port of the env (the
 * anchor) takes a snapshot of every port after each data frame it delivers; two that match,
 * with only the network's own events (arrivals, the ports' timers) run between them, prove
 * the period, and the skip goes as far as the kernel's next other event (a traffic source,
 * a link change, a timer that does not move with the period, such as the replay timer
 * waiting for its deadline) or the run's limit allows. The arrivals and timers queued in
 * the kernel that move with the period are queued again, in their order. */

#define PERIOD_SNAPS 40u        /* a period of up to 39 snapshots is found */
#define PERIOD_BACKOFF_MAX 8192u

typedef struct period_snap {
    sim_time t;
    uint64_t executed, events;
    unsigned n;
    uint64_t v[UP_PV_MAX];
    uint8_t cls[UP_PV_MAX];
} period_snap;

/* An event of the network's own in the kernel: a port's next arrival or one of its timers. */
enum { NET_ARRIVAL, NET_REPLAY, NET_PROT, NET_FLUSH };
typedef struct net_event {
    up_port *port;
    uint8_t kind, tc;
    bool moves;      /* moves with the period (arrivals always; timers when due P later) */
    unsigned at_idx; /* timers: where the walk has its due time */
    uint64_t seq;    /* its place among events due at the same time */
} net_event;

#define NET_EVENTS (4u * UP_PV_PORTS)

typedef struct up_period_hist {
    unsigned count, head, looks;
    period_snap snap[PERIOD_SNAPS];
    up_pvec cur;
    uint64_t delta[UP_PV_MAX];
    net_event queued[NET_EVENTS];      /* in the kernel's order (time, then seq) */
    sim_event queued_ev[NET_EVENTS];
    unsigned nqueued;
} up_period_hist;

static sim_event *net_event_handle(const net_event *e)
{
    switch (e->kind) {
    case NET_ARRIVAL:
        return &e->port->arrive_ev;
    case NET_REPLAY:
        return &e->port->tx[e->tc].replay_ev;
    case NET_PROT:
        return &e->port->tx[e->tc].prot_ev;
    default:
        return &e->port->flush_ev;
    }
}

static sim_time net_event_at(const net_event *e)
{
    switch (e->kind) {
    case NET_ARRIVAL:
        return pipe_at(e->port, 0)->arrive;
    case NET_REPLAY:
        return e->port->tx[e->tc].replay_at;
    case NET_PROT:
        return e->port->tx[e->tc].prot_at;
    default:
        return e->port->flush_at;
    }
}

/* Queues e again (at its time, which the walk has moved) as the port queued it. */
static void net_event_requeue(const net_event *e, sim_time now)
{
    up_port *p = e->port;
    if (e->kind == NET_ARRIVAL) {
        schedule_head(p, now);
        return;
    }
    sim_time at = net_event_at(e);
    sim_event_fn fn = e->kind == NET_REPLAY ? replay_fire
                      : e->kind == NET_PROT ? prot_fire
                                            : flush_fire;
    void *ctx = e->kind == NET_FLUSH ? (void *)p : (void *)&p->tx[e->tc];
    if (sim_schedule(p->s, at > now ? at - now : 0, fn, ctx, net_event_handle(e)) != 0)
        abort(); /* the kernel cannot grow: nothing sensible can continue */
}

/* An instant that may still be unset (0): compared as such, moved when set. */
static void time_or_zero(up_pvec *pv, sim_time *t)
{
    up_pv_shape(pv, *t == 0);
    if (*t)
        UP_PV(pv, UP_PV_TIME, *t);
}

static void frame_period_io(up_pvec *pv, up_frame *f)
{
    up_pv_msg(pv, f->msg);
    up_pv_shape(pv, (uint64_t)f->offset | (uint64_t)f->len << 32 | (uint64_t)f->flags << 48);
    up_pv_shape(pv, (uint64_t)f->dst_cport | (uint64_t)f->dst_dev << 16 | (uint64_t)f->tc << 24 |
                        (uint64_t)f->in_port << 32 | (uint64_t)f->out_port << 40);
    UP_PV(pv, UP_PV_COUNT, f->seq);
    time_or_zero(pv, &f->t_ready);
    time_or_zero(pv, &f->t_end);
}

void up_pv_frame(up_pvec *pv, up_frame *f)
{
    frame_period_io(pv, f);
}

/* Slot s on its way from p to its peer q. The counters a slot carries are compared with
 * the ports' (sequence numbers, cumulative credits): their distances are shapes, so that
 * they move together. */
static void slot_period_io(up_port *p, up_pvec *pv, up_slot *s)
{
    const up_port *q = p->peer;
    up_pv_shape(pv, (uint64_t)s->kind | (uint64_t)s->tc << 8 | (uint64_t)s->prio << 16 |
                        (uint64_t)s->flags << 24 | (uint64_t)s->symbols << 32);
    UP_PV(pv, UP_PV_TIME, s->start);
    UP_PV(pv, UP_PV_TIME, s->end);
    UP_PV(pv, UP_PV_TIME, s->arrive);
    up_pv_shape(pv, s->open);
    if (s->kind == UP_SLOT_DATA) {
        up_pv_shape(pv, (uint32_t)(s->seq - p->tx[s->tc & 1].base_seq));
        up_pv_shape(pv, (s->seq - q->rx[s->tc & 1].expect) & (UP_SEQ_MOD - 1));
        UP_PV(pv, UP_PV_COUNT, s->seq);
        frame_period_io(pv, &s->f);
    } else if (s->kind == UP_SLOT_AFC) { /* (a control slot's frame is not set) */
        up_pv_shape(pv, (s->seq - q->tx[s->tc & 1].base_seq) & (UP_SEQ_MOD - 1));
        up_pv_shape(pv, s->credits - q->tx[s->tc & 1].cred_limit);
        UP_PV(pv, UP_PV_COUNT, s->seq);
        s->seq &= UP_SEQ_MOD - 1; /* a 5-bit acknowledgement: moves modulo 32 */
        UP_PV(pv, UP_PV_COUNT, s->credits);
    }
}

/* Notes that the next number is the due time of one of p's timers. */
static void pv_timer(up_pvec *pv, up_port *p, unsigned kind, unsigned tc)
{
    if (pv->shift)
        return;
    if (pv->ntimers == UP_PV_TIMERS) {
        pv->ok = false;
        return;
    }
    pv->timers[pv->ntimers].port = p;
    pv->timers[pv->ntimers].kind = (uint8_t)kind;
    pv->timers[pv->ntimers].tc = (uint8_t)tc;
    pv->timers[pv->ntimers++].at = pv->n;
}

static void tx_period_io(up_port *p, unsigned tc, up_pvec *pv)
{
    up_txtc *t = &p->tx[tc];
    if (t->has_suspended) {
        pv->ok = false;
        return;
    }
    up_pv_shape(pv, t->rb_count | t->next_tx << 8 | (unsigned)t->replay_armed << 16 |
                        (unsigned)t->prot_armed << 17 | (unsigned)t->stalled << 18);
    for (unsigned i = 0; i < t->rb_count; i++) {
        up_pv_shape(pv, (uint32_t)(rb_at(t, i)->seq - t->base_seq));
        frame_period_io(pv, rb_at(t, i));
    }
    UP_PV(pv, UP_PV_COUNT, t->base_seq);
    UP_PV(pv, UP_PV_COUNT, t->cred_used);
    UP_PV(pv, UP_PV_COUNT, t->cred_limit);
    up_pv_shape(pv, t->cred_limit - t->cred_used);
    up_pv_shape(pv, (uint32_t)(t->base_seq - p->peer->rx[tc].expect));
    if (t->rb_count || t->replay_armed)
        UP_PV(pv, UP_PV_TIME, t->replay_deadline);
    /* the timers' due times: a counter here, sorted out by period_skip (one that is due a
     * period later moves, one that stays where it was bounds the skip) */
    if (t->replay_armed) {
        pv_timer(pv, p, NET_REPLAY, tc);
        UP_PV(pv, UP_PV_COUNT, t->replay_at);
    }
    if (t->prot_armed) {
        pv_timer(pv, p, NET_PROT, tc);
        UP_PV(pv, UP_PV_COUNT, t->prot_at);
    }
    if (t->stalled)
        UP_PV(pv, UP_PV_TIME, t->stall_since);
    up_pv_shape(pv, t->cred_limit - p->peer->rx[tc].reported); /* (the last AFC's word) */
    if (t->prot_armed) {
        UP_PV(pv, UP_PV_COUNT, t->prot_cred_mark);
        up_pv_shape(pv, t->cred_limit - t->prot_cred_mark);
    }
}

static void rx_period_io(up_port *p, unsigned tc, up_pvec *pv)
{
    up_rxtc *r = &p->rx[tc];
    UP_PV(pv, UP_PV_COUNT, r->expect);
    up_pv_shape(pv, (uint64_t)r->nac_sent | (uint64_t)r->since_ack << 8 |
                        (uint64_t)r->buffered << 32);
    UP_PV(pv, UP_PV_COUNT, r->granted);
    UP_PV(pv, UP_PV_COUNT, r->reported);
    up_pv_shape(pv, r->granted - r->reported);
}

/* One port's share of the network's state, its upper's included. */
static void port_period_io(up_port *p, up_pvec *pv)
{
    if (!p->ops->period_io) {
        pv->ok = false;
        return;
    }
    up_pv_shape(pv, p->link != NULL);
    if (p->link) {
        if (!p->up || p->drop > 0 || p->early_delivery || p->in_pump ||
            p->link->frame_observer || pv->nbits == UP_PV_PORTS) {
            pv->ok = false; /* drops draw at every frame, observers and early delivery see it */
            return;
        }
        /* bit errors: the countdown to the next one only falls, period by period, until it
         * runs out (period_skip stops before) */
        pv->bits_at[pv->nbits++] = pv->n;
        UP_PV(pv, UP_PV_COUNT, p->bits_to_error);
        for (unsigned i = 0; i < 4; i++) /* a draw between two snapshots is no period */
            up_pv_shape(pv, p->rng.s[i]);
        up_pv_shape(pv, (uint64_t)p->afc_req | (uint64_t)p->creq_req << 8 |
                            (uint64_t)p->nac_req << 16 | (uint64_t)p->flush_armed << 17 |
                            (uint64_t)p->maybe[0] << 18 | (uint64_t)p->maybe[1] << 19 |
                            (uint64_t)p->head_armed << 20 | (uint64_t)p->burst_ever << 21);
        time_or_zero(pv, &p->busy_until);
        time_or_zero(pv, &p->popped_end);
        if (p->flush_armed) {
            pv_timer(pv, p, NET_FLUSH, 0);
            UP_PV(pv, UP_PV_COUNT, p->flush_at);
        }
        up_pv_shape(pv, p->pipe_count);
        for (unsigned i = 0; i < p->pipe_count; i++)
            slot_period_io(p, pv, pipe_at(p, i));
        for (unsigned tc = 0; tc < UP_TCS && pv->ok; tc++) {
            tx_period_io(p, tc, pv);
            rx_period_io(p, tc, pv);
        }
    }
    /* every statistic is a 64-bit counter or duration */
    _Static_assert(sizeof(sim_time) == sizeof(uint64_t) &&
                   sizeof(up_port_stats) % sizeof(uint64_t) == 0,
                   "up_port_stats must be 64-bit counters only");
    uint64_t *st = (uint64_t *)&p->st;
    for (size_t i = 0; i < sizeof p->st / sizeof *st; i++)
        UP_PV(pv, UP_PV_COUNT, st[i]);
    if (pv->ok)
        p->ops->period_io(p->ctx, pv);
}

static void pvec_begin(up_pvec *pv, up_env_net *net, bool shift, uint64_t *v, uint8_t *cls)
{
    pv->walk = ++net->walks; /* (a message keeps the number of the last walk that met it) */
    pv->shift = shift;
    pv->ok = true;
    pv->n = 0;
    pv->nmsgs = 0;
    pv->nobjs = 0;
    pv->nbits = 0;
    pv->nlim = 0;
    if (!shift)
        pv->ntimers = 0;
    pv->v = v;
    pv->cls = cls;
}

static void net_period_io(up_env_net *net, up_pvec *pv)
{
    for (unsigned i = 0; i < net->n && pv->ok; i++)
        port_period_io(net->ports[i], pv);
}

/* How many periods may pass before any line corrupts a transmission: a period takes
 * `fall` bits of a countdown, which must stay above zero at every commit. */
static uint64_t periods_before_error(const up_pvec *pv, const uint64_t *delta, uint64_t most)
{
    for (unsigned i = 0; i < pv->nbits; i++) {
        int64_t left = (int64_t)pv->v[pv->bits_at[i]], fall = -(int64_t)delta[pv->bits_at[i]];
        if (fall < 0)
            return 0; /* (the countdown only rises when an error was drawn: no period) */
        if (fall > 0 && left != INT64_MAX) {
            uint64_t fit = left > 0 ? (uint64_t)(left - 1) / (uint64_t)fall : 0;
            if (fit < most)
                most = fit;
        }
    }
    return most;
}

/* Whether snapshot o, taken at an earlier time, is the current state one period back. */
static bool period_match(const up_pvec *cur, const period_snap *o, sim_time now)
{
    if (o->n != cur->n || o->t >= now)
        return false;
    sim_time period = now - o->t;
    for (unsigned i = 0; i < cur->n; i++) {
        if (o->cls[i] != cur->cls[i])
            return false;
        if (o->cls[i] == UP_PV_SHAPE && o->v[i] != cur->v[i])
            return false;
        if (o->cls[i] == UP_PV_TIME && cur->v[i] - o->v[i] != period)
            return false;
    }
    return true;
}

static void period_forget(up_port *p)
{
    if (p && p->period)
        p->period->count = p->period->looks = 0;
}

/* No period in sight: look again later, and less often each time. */
static void period_give_up(up_port *p)
{
    period_forget(p);
    p->period_wait = p->period_backoff;
    p->period_backoff = p->period_backoff * 2 + PERIOD_SNAPS;
    if (p->period_backoff > PERIOD_BACKOFF_MAX)
        p->period_backoff = PERIOD_BACKOFF_MAX;
}

/* Puts e in h's list in the kernel's order (time, then seq): a handful of entries. */
static void queued_insert(up_period_hist *h, net_event e)
{
    sim_time at = net_event_at(&e);
    unsigned j = h->nqueued++;
    for (; j > 0; j--) {
        const net_event *y = &h->queued[j - 1];
        sim_time ty = net_event_at(y);
        if (ty < at || (ty == at && y->seq < e.seq))
            break;
        h->queued[j] = *y;
    }
    h->queued[j] = e;
}

/* The events of the network queued in the kernel: every port's next arrival and the
 * timers the walk met (pv->timers); false when one cannot be placed. */
static bool collect_queued(up_period_hist *h, const up_pvec *pv, up_env_net *net, up_port *p,
                           sim_time now)
{
    h->nqueued = 0;
    for (unsigned i = 0; i < net->n + pv->ntimers; i++) {
        net_event e = { .moves = true };
        if (i < net->n) {
            e.port = net->ports[i];
            e.kind = NET_ARRIVAL;
            if (!e.port->head_armed)
                continue;
        } else {
            e.port = pv->timers[i - net->n].port;
            e.kind = pv->timers[i - net->n].kind;
            e.tc = pv->timers[i - net->n].tc;
            e.at_idx = pv->timers[i - net->n].at;
        }
        e.seq = p->batch->seq_of(p->s->self, *net_event_handle(&e));
        if (h->nqueued == NET_EVENTS || e.seq == UINT64_MAX || net_event_at(&e) < now)
            return false; /* (due now is fine: it runs after the event running, moved too) */
        queued_insert(h, e);
    }
    return true;
}

/* The order of the queued arrivals as part of the state: which port is where, and which
 * were queued during the event running (after the next schedule_first's place). */
static void queued_period_io(up_period_hist *h, up_pvec *pv, uint64_t mark)
{
    up_pv_shape(pv, h->nqueued);
    for (unsigned i = 0; i < h->nqueued; i++) {
        if (h->queued[i].kind != NET_ARRIVAL)
            continue; /* (a timer's order is checked by period_skip) */
        up_pv_shape(pv, (uint64_t)(uintptr_t)h->queued[i].port);
        up_pv_shape(pv, h->queued[i].seq > mark);
    }
}

/* Sorts the timers out once the period is known: one due a period later moves with the
 * rest, one that stays bounds the skip (it is left queued where it is); false for any
 * other, and for a moving timer due at the same time as another event of the network
 * (its order against it is not part of the state). */
static bool timers_move(up_period_hist *h, const uint64_t *delta, sim_time period,
                        up_port *anchor)
{
    for (unsigned i = 0; i < h->nqueued; i++) {
        net_event *e = &h->queued[i];
        if (e->kind == NET_ARRIVAL)
            continue;
        if (delta[e->at_idx] == 0)
            e->moves = false;
        else if (delta[e->at_idx] != period)
            return false;
    }
    for (unsigned i = 0; i < h->nqueued; i++) {
        const net_event *e = &h->queued[i];
        if (e->kind == NET_ARRIVAL || !e->moves)
            continue;
        sim_time at = net_event_at(e);
        for (unsigned j = 0; j < h->nqueued; j++)
            if (j != i && net_event_at(&h->queued[j]) == at)
                return false;
        if (!anchor->head_armed && anchor->pipe_count && pipe_at(anchor, 0)->arrive == at)
            return false;
    }
    return true;
}

/* Moves the network's state on by `periods` periods of `o` before now and the kernel's
 * clock with it; false when the kernel allows no whole period. */
static bool period_skip(up_port *p, up_period_hist *h, const period_snap *o, sim_time now,
                        uint64_t executed, uint64_t mark)
{
    up_env_net *net = p->net;
    sim_time period = now - o->t;
    for (unsigned i = 0; i < h->cur.n; i++)
        h->delta[i] = h->cur.v[i] - o->v[i];
    for (unsigned i = 0; i < h->nqueued; i++)
        h->queued[i].moves = true;
    if (!timers_move(h, h->delta, period, p))
        return false;
    unsigned nmove = 0;
    for (unsigned i = 0; i < h->nqueued; i++)
        if (h->queued[i].moves)
            h->queued_ev[nmove++] = *net_event_handle(&h->queued[i]);
    sim_time horizon = p->batch->horizon(p->s->self, h->queued_ev, nmove);
    uint64_t periods = horizon > now ? (horizon - now) / period : 0;
    if (!periods)
        return false;
    periods = periods_before_error(&h->cur, h->delta, periods);
    if (!periods)
        return false;
    for (unsigned i = 0; i < h->cur.nlim; i++)
        if (h->delta[h->cur.lim[i].at] > h->cur.lim[i].most)
            return false; /* (a log too short for the period) */
    up_pvec *pv = &h->cur;
    unsigned n = pv->n;
    pvec_begin(pv, net, true, pv->v, pv->cls);
    pv->delta = h->delta;
    pv->periods = periods;
    net_period_io(net, pv);
    queued_period_io(h, pv, mark);
    if (!pv->ok || pv->n != n)
        abort(); /* the walk was checked: nothing sensible can continue */
    /* The queued arrivals move with the rest, in their order: those queued before the
     * event running began again before the clock moves, the others after, so that each
     * keeps its place against the arrival the anchor queues next (schedule_first). */
    for (unsigned i = 0; i < nmove; i++)
        sim_cancel(p->s, h->queued_ev[i]);
    for (unsigned i = 0; i < h->nqueued; i++)
        if (h->queued[i].moves && h->queued[i].seq <= mark)
            net_event_requeue(&h->queued[i], now);
    sim_time landing = now + periods * period;
    if (!p->batch->skip(p->s->self, landing, periods * (executed - o->executed)))
        abort(); /* the horizon was checked */
    for (unsigned i = 0; i < h->nqueued; i++)
        if (h->queued[i].moves && h->queued[i].seq > mark)
            net_event_requeue(&h->queued[i], landing);
    net->events += periods * (net->events - o->events);
    return true;
}

/* After port p delivered a data frame: a snapshot of the network when p is its anchor, and
 * a skip when it repeats an earlier one. */
static void period_look(up_port *p)
{
    up_env_net *net = p->net;
    if (!net->anchor && p->ops->period_io && p->batch->skip)
        net->anchor = p;
    if (net->anchor != p)
        return;
    if (p->period_wait) {
        p->period_wait--;
        return;
    }
    up_period_hist *h = p->period;
    if (!h && !(h = p->period = calloc(1, sizeof *h)))
        return;
    period_snap *s = &h->snap[h->head];
    up_pvec *pv = &h->cur;
    pvec_begin(pv, net, false, s->v, s->cls);
    net_period_io(net, pv);
    sim_time now = port_now(p);
    uint64_t mark = p->batch->mark(p->s->self);
    if (!pv->ok || !collect_queued(h, pv, net, p, now)) {
        period_give_up(p);
        return;
    }
    queued_period_io(h, pv, mark);
    if (!pv->ok) {
        period_give_up(p);
        return;
    }
    s->t = now;
    s->executed = p->batch->executed(p->s->self);
    s->events = net->events;
    s->n = pv->n;
    for (unsigned j = 1; j <= h->count; j++) {
        period_snap *o = &h->snap[(h->head + PERIOD_SNAPS - j) % PERIOD_SNAPS];
        /* only the network's own events between the two: another (a traffic source) could
         * have changed what the period is */
        if (s->executed - o->executed != s->events - o->events) {
            h->count = j - 1;
            break;
        }
        if (!period_match(pv, o, now))
            continue;
        if (period_skip(p, h, o, now, s->executed, mark)) {
            period_forget(p);
            p->period_backoff = 0;
            return;
        }
        break; /* a period, but no room to skip one: keep looking */
    }
    h->head = (h->head + 1) % PERIOD_SNAPS;
    if (h->count < PERIOD_SNAPS)
        h->count++;
    if (++h->looks > 2 * PERIOD_SNAPS)
        period_give_up(p);
}

/* Batching a port whose arrivals keep being interleaved with other events (a switch's
 * 28 link directions) only adds the kernel's refusals to every frame: after this many
 * misses in a row it takes the per-frame path, trying again every BATCH_RETRY arrivals.
 * Either path gives the same results, event by event, so the choice changes only speed. */
#define BATCH_MISS_LIMIT 8u
#define BATCH_RETRY 32u

static void port_arrive(void *ctx)
{
    up_port *p = ctx, *first = p;
    p->head_armed = false;
    /* per frame: the reference, one kernel event per transmission */
    bool batch = p->batch && !up_env_per_frame(p->env);
    if (batch && p->batch_misses >= BATCH_MISS_LIMIT && ++p->batch_skip < BATCH_RETRY)
        batch = false;
    bool inlined = false;
    bool skips = p->batch && !up_env_per_frame(p->env);
    for (;;) {
        /* (snapshots after data only: a period has as many, and AFCs add none) */
        if (arrive_one(p, batch) && skips)
            period_look(p);
        if (!batch || (p = next_inline(p)) == NULL)
            break;
        inlined = true;
    }
    if (batch) {
        first->batch_skip = 0;
        if (inlined)
            first->batch_misses = 0;
        else if (first->batch_misses < BATCH_MISS_LIMIT)
            first->batch_misses++;
    }
}

/* The oldest slot of the pipe reaches the peer now. */
static bool arrive_one(up_port *p, bool batch)
{
    /* the slot stays readable after the pop: commits during receive() go to the tail and
     * the pump keeps one slot free, so the ring never reaches it before we are done */
    up_slot *s = &p->pipe[p->pipe_head];
    bool data = s->kind == UP_SLOT_DATA;
    p->net->events++;
    p->pipe_head = (p->pipe_head + 1) % UP_PIPE_MAX;
    if (--p->pipe_count && !batch)
        schedule_head(p, port_now(p));
    if (s->end > p->popped_end)
        p->popped_end = s->end;
    p->st.tx_busy += s->end - s->start;
    switch (s->kind) {
    case UP_SLOT_DATA:
        if (!(s->flags & UP_SLOT_RESUMED)) {
            p->st.tx_frames++;
            p->st.tx_payload_bytes += s->f.len;
            if (s->flags & UP_SLOT_REPLAY)
                p->st.tx_replays++;
        }
        break;
    case UP_SLOT_AFC:
        p->st.tx_afc++;
        break;
    default:
        p->st.tx_nac++;
        break;
    }
    p->st.tx_wire_bytes += 2ull * (s->symbols + ((s->flags & UP_SLOT_RESUMED) ? UP_COF_SYMS : 0));
    if (p->link && p->link->frame_observer)
        observe_frame(p, s);
    up_port *q = p->peer;
    receive(q, s);
    if (!p->pipe_count) {
        /* the incoming burst pauses: acknowledge what has not been yet */
        for (unsigned tc = 0; tc < UP_TCS; tc++)
            if (q->rx[tc].since_ack || q->rx[tc].granted != q->rx[tc].reported)
                q->afc_req |= (uint8_t)(1u << tc);
        if (q->afc_req)
            up_port_pump(q);
    }
    up_port_pump(p);
    return data;
}

void up_port_release(up_port *p, unsigned tc, unsigned credits)
{
    up_rxtc *r = &p->rx[tc];
    r->buffered = credits > r->buffered ? 0 : r->buffered - credits;
    r->granted += credits;
    if (r->granted - r->reported >= p->dl.afc_credit_threshold) {
        p->afc_req |= (uint8_t)(1u << tc);
        up_port_pump(p);
    } else if (!r->since_ack && !(p->afc_req & (1u << tc))) {
        /* no acknowledgement is due to carry these credits: send them a little later */
        arm_flush(p);
    }
}

/* ---- link attachment -------------------------------------------------------------- */

void up_port_attach(up_port *p, up_link *l, unsigned side, up_port *peer)
{
    p->link = l;
    p->side = side;
    p->peer = peer;
    for (unsigned tc = 0; tc < UP_TCS; tc++)
        p->tx[tc].cred_limit = peer->dl.rx_credits[tc];
    up_port_reseed(p);
}

void up_port_link_lost(up_port *p)
{
    while (p->pipe_count) {
        up_slot *s = pipe_tail(p);
        if (s->kind == UP_SLOT_DATA && s->f.msg)
            up_msg_unref(p->env, s->f.msg);
        drop_tail(p);
    }
    for (unsigned tc = 0; tc < UP_TCS; tc++) {
        up_txtc *t = &p->tx[tc];
        if (t->has_suspended && t->suspended.f.msg)
            up_msg_unref(p->env, t->suspended.f.msg);
        t->has_suspended = false;
        t->next_tx = 0;
        stall_end(p, tc);
    }
    sim_time now = p->s ? port_now(p) : 0;
    if (p->busy_until > now)
        p->busy_until = now;
    p->popped_end = p->busy_until;
    p->burst_ever = false;
}

void up_port_link_restored(up_port *p)
{
    for (unsigned tc = 0; tc < UP_TCS; tc++) {
        p->tx[tc].next_tx = 0;
        p->rx[tc].nac_sent = false;
        p->tx[tc].replay_deadline = port_now(p) + p->dl.replay_timeout;
        if (p->tx[tc].rb_count)
            arm_replay(p, tc);
        p->afc_req |= (uint8_t)(1u << tc); /* re-synchronise acknowledgements and credits */
    }
    p->burst_ever = false;
}

void up_port_detach(up_port *p)
{
    p->up = false;
    up_port_link_lost(p);
    cancel_timers(p);
    p->link = NULL;
    p->peer = NULL;
}
