// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "unipro-model/up_internal.h"

up_link_cfg up_link_cfg_default(void)
{
    return (up_link_cfg){
        .phy = up_phy_cfg_default(),
        .params = up_phy_params_default(),
        .faults = { .ber = 0, .drop = 0, .seed = 1 },
    };
}

static void set_state(up_link *l, up_link_state st)
{
    bool changed = l->state != st;
    l->state = st;
    l->port[0]->up = l->port[1]->up = st == UP_LINK_UP;
    if (changed && l->observer)
        l->observer(l->observer_ctx, l);
}

static int check_faults(const up_fault_cfg *f, char *err, size_t errlen)
{
    if (!(f->ber >= 0 && f->ber < 1)) {
        if (err)
            snprintf(err, errlen, "bit error rate must be in [0, 1)");
        return -EINVAL;
    }
    if (!(f->drop >= 0 && f->drop < 1)) {
        if (err)
            snprintf(err, errlen, "drop probability must be in [0, 1)");
        return -EINVAL;
    }
    return 0;
}

up_link *up_link_new(up_env *env, up_port *a, up_port *b, const up_link_cfg *cfg, char *err,
                     size_t errlen)
{
    up_link_cfg c = cfg ? *cfg : up_link_cfg_default();
    if (!a || !b || a == b || a->link || b->link) {
        if (err)
            snprintf(err, errlen, "a link needs two distinct ports that are not linked yet");
        return NULL;
    }
    if (up_phy_cfg_check(&c.phy, err, errlen) || check_faults(&c.faults, err, errlen))
        return NULL;
    up_link *l = calloc(1, sizeof *l);
    if (!l) {
        if (err)
            snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->env = env;
    l->cfg = c;
    l->port[0] = a;
    l->port[1] = b;
    set_state(l, UP_LINK_UP);
    up_port_attach(a, l, 0, b);
    up_port_attach(b, l, 1, a);
    return l;
}

void up_link_free(up_link *l)
{
    if (!l)
        return;
    if (l->state_ev.id)
        sim_cancel(up_env_scheduler(l->env), l->state_ev);
    up_port_detach(l->port[0]);
    up_port_detach(l->port[1]);
    free(l);
}

const up_link_cfg *up_link_get_cfg(const up_link *l)
{
    return &l->cfg;
}

up_link_state up_link_get_state(const up_link *l)
{
    return l->state;
}

up_port *up_link_port(const up_link *l, unsigned side)
{
    return side < 2 ? l->port[side] : NULL;
}

const char *up_link_state_name(up_link_state s)
{
    switch (s) {
    case UP_LINK_UP: return "up";
    case UP_LINK_DOWN: return "down";
    case UP_LINK_STARTUP: return "startup";
    case UP_LINK_PMC: return "power-mode-change";
    case UP_LINK_HIBERN8: return "hibern8";
    case UP_LINK_H8_EXIT: return "hibern8-exit";
    }
    return "?";
}

void up_link_set_state_hook(up_link *l, void (*fn)(void *ctx, up_link *l), void *ctx)
{
    l->hook = fn;
    l->hook_ctx = ctx;
}

void up_link_set_frame_observer(up_link *l, void (*fn)(void *ctx, up_link *l,
                                                       const up_dl_event *ev), void *ctx)
{
    l->frame_observer = fn;
    l->frame_observer_ctx = fn ? ctx : NULL;
}

void up_link_set_observer(up_link *l, void (*fn)(void *ctx, up_link *l), void *ctx)
{
    l->observer = fn;
    l->observer_ctx = fn ? ctx : NULL;
}

int up_link_set_faults(up_link *l, const up_fault_cfg *f)
{
    if (check_faults(f, NULL, 0))
        return -EINVAL;
    l->cfg.faults = *f;
    up_port_reseed(l->port[0]);
    up_port_reseed(l->port[1]);
    return 0;
}

static const sim_scheduler *sched(up_link *l)
{
    return up_env_scheduler(l->env);
}

static void set_timer(up_link *l, sim_time at, sim_event_fn fn)
{
    const sim_scheduler *s = sched(l);
    sim_time now = sim_now(s);
    if (l->state_ev.id)
        sim_cancel(s, l->state_ev);
    if (sim_schedule(s, at > now ? at - now : 0, fn, l, &l->state_ev) != 0)
        abort();
}

static sim_time drained_at(up_link *l)
{
    sim_time a = up_port_wire_idle_at(l->port[0]);
    sim_time b = up_port_wire_idle_at(l->port[1]);
    sim_time now = sim_now(sched(l));
    sim_time t = a > b ? a : b;
    return t > now ? t : now;
}

static void become_up(void *ctx)
{
    up_link *l = ctx;
    l->state_ev = SIM_EVENT_NONE;
    set_state(l, UP_LINK_UP);
    up_port_pump(l->port[0]);
    up_port_pump(l->port[1]);
    if (l->hook)
        l->hook(l->hook_ctx, l);
}

static void startup_done(void *ctx)
{
    up_link *l = ctx;
    up_port_retime(l->port[0]);
    up_port_retime(l->port[1]);
    up_port_link_restored(l->port[0]);
    up_port_link_restored(l->port[1]);
    become_up(l);
}

void up_link_set_down(up_link *l, bool down)
{
    if (down) {
        if (l->state == UP_LINK_DOWN)
            return;
        if (l->state_ev.id)
            sim_cancel(sched(l), l->state_ev);
        l->state_ev = SIM_EVENT_NONE;
        set_state(l, UP_LINK_DOWN);
        up_port_link_lost(l->port[0]);
        up_port_link_lost(l->port[1]);
        return;
    }
    if (l->state != UP_LINK_DOWN)
        return;
    up_link_startup(l);
}

void up_link_startup(up_link *l)
{
    if (l->state != UP_LINK_DOWN) {
        up_port_link_lost(l->port[0]);
        up_port_link_lost(l->port[1]);
    }
    set_state(l, UP_LINK_STARTUP);
    set_timer(l, sim_now(sched(l)) + up_phy_startup_time(&l->cfg.params), startup_done);
}

static void pmc_done(void *ctx)
{
    up_link *l = ctx;
    l->cfg.phy = l->pending_phy;
    up_port_retime(l->port[0]);
    up_port_retime(l->port[1]);
    become_up(l);
}

int up_link_set_power_mode(up_link *l, const up_phy_cfg *phy, char *err, size_t errlen)
{
    if (up_phy_cfg_check(phy, err, errlen))
        return -EINVAL;
    if (l->state != UP_LINK_UP) {
        if (err)
            snprintf(err, errlen, "link is %s, not up", up_link_state_name(l->state));
        return -EBUSY;
    }
    l->pending_phy = *phy;
    set_state(l, UP_LINK_PMC);
    set_timer(l, drained_at(l) + up_phy_pmc_time(&l->cfg.phy, phy, &l->cfg.params), pmc_done);
    return 0;
}

static void h8_entered(void *ctx)
{
    up_link *l = ctx;
    l->state_ev = SIM_EVENT_NONE;
}

static void h8_exited(void *ctx)
{
    up_link *l = ctx;
    up_port_retime(l->port[0]);
    up_port_retime(l->port[1]);
    l->port[0]->burst_ever = l->port[1]->burst_ever = false;
    become_up(l);
}

int up_link_hibernate(up_link *l, bool enter)
{
    if (enter) {
        if (l->state != UP_LINK_UP)
            return -EBUSY;
        set_state(l, UP_LINK_HIBERN8);
        set_timer(l, drained_at(l) + l->cfg.params.hibern8_enter, h8_entered);
        return 0;
    }
    if (l->state != UP_LINK_HIBERN8)
        return -EBUSY;
    sim_time from = drained_at(l);
    if (l->state_ev.id) /* still entering: exit starts once entered */
        from += l->cfg.params.hibern8_enter;
    set_state(l, UP_LINK_H8_EXIT);
    set_timer(l, from + l->cfg.params.hibern8_exit, h8_exited);
    return 0;
}
