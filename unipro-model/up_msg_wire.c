// SPDX-License-Identifier: MIT
#include "unipro-model/up_msg_wire.h"

#include "unipro-model/up_consts.h"
#include "unipro-model/up_env.h"
#include "unipro-model/up_port.h"

up_msg_shape up_msg_shape_of(uint32_t len, unsigned max_segment)
{
    up_msg_shape m = { 0 };
    if (!max_segment || max_segment > UP_SEGMENT_MAX)
        max_segment = UP_SEGMENT_MAX;
    uint32_t off = 0;
    do {
        uint32_t seg = len - off < max_segment ? len - off : max_segment;
        m.last_syms = up_frame_symbols(seg);
        if (!m.frames)
            m.first_syms = m.last_syms;
        m.syms += m.last_syms;
        m.frames++;
        off += seg;
    } while (off < len);
    return m;
}

void up_msg_wire_init(up_msg_wire *w, const up_phy_cfg *phy, const up_phy_params *pp)
{
    *w = (up_msg_wire){ .latency = pp->tx_latency + pp->rx_latency, .hold = pp->burst_hold,
                        .afc_every = up_dl_params_default().out_ack_threshold + 1 };
    up_msg_wire_set_phy(w, phy, pp);
}

void up_msg_wire_pair(up_msg_wire *a, up_msg_wire *b)
{
    a->rev = b;
    b->rev = a;
}

void up_msg_wire_set_phy(up_msg_wire *w, const up_phy_cfg *phy, const up_phy_params *pp)
{
    w->sym_fp = up_phy_symbol_ps_fp16(phy);
    w->open = up_phy_burst_open_time(phy, pp);
}

void up_msg_wire_pause(up_msg_wire *w, sim_time now, sim_time pause)
{
    w->busy_until = (w->busy_until > now ? w->busy_until : now) + pause;
    w->burst_ever = false;
}

/* An AFC (with any others owed) on w from `at` or when w is free. */
static void send_afc(up_msg_wire *w, sim_time at)
{
    if (at < w->busy_until)
        at = w->busy_until;
    sim_time open = (!w->burst_ever || at > w->busy_until + w->hold) ? w->open : 0;
    w->busy_until = at + open + up_phy_symbols_time(w->sym_fp, UP_AFC_SYMS + w->afc_syms);
    w->burst_ever = true;
    w->afc_syms = 0;
}

/* When the other direction's burst pauses, its receiver (this side) acknowledges at once
 * what it has not yet, with the credits it has freed: an AFC on this direction when the
 * last frame is in, in front of whatever this direction sends next (the frame-level DL
 * does so; it matters for request and response traffic, most on slow PWM links). Applied
 * when this direction next sends at `start`, if the other one was idle by then. */
static void pause_ack(up_msg_wire *w, sim_time start)
{
    up_msg_wire *f = w->rev;
    if (!f || !f->unacked || f->busy_until + f->latency > start)
        return;
    f->unacked = 0;
    send_afc(w, f->busy_until + f->latency);
}

up_msg_times up_msg_wire_send(up_msg_wire *w, const up_msg_shape *m, sim_time now,
                              sim_time not_before, sim_time last_not_before)
{
    sim_time start = now > w->busy_until ? now : w->busy_until;
    if (not_before > start)
        start = not_before;
    pause_ack(w, start);
    if (w->busy_until > start)
        start = w->busy_until;
    sim_time open = (!w->burst_ever || start > w->busy_until + w->hold) ? w->open : 0;
    w->burst_ever = true;
    /* AFCs this direction owes go out between the message's frames (or went out in the
     * idle time before it), so they stretch its end but not its first frame */
    uint64_t afc = start > w->busy_until ? 0 : w->afc_syms;
    w->afc_syms = 0;
    sim_time end = start + open + up_phy_symbols_time(w->sym_fp, m->syms + afc);
    if (last_not_before) {
        sim_time last = last_not_before + up_phy_symbols_time(w->sym_fp, m->last_syms);
        if (last > end)
            end = last;
    }
    w->busy_until = end;
    if (w->rev) { /* the receiver acknowledges every afc_every frames on the way back */
        w->unacked += m->frames;
        w->rev->afc_syms += (uint64_t)(w->unacked / w->afc_every) * UP_AFC_SYMS;
        w->unacked %= w->afc_every;
    }
    return (up_msg_times){
        .first_in = start + open + up_phy_symbols_time(w->sym_fp, m->first_syms) + w->latency,
        .end = end, .delivered = end + w->latency };
}
