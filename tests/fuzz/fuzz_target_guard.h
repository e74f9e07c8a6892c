// SPDX-License-Identifier: MIT
// A target (gbvp/target/target.h) wrapped for fuzzing: every operation forwards to the real
// one, except that `capture` and `trace` write to /dev/null (their requests are still
// checked; a fuzzer must not write files where an input likes) and at most `advance_max`
// of simulated time passes per input (beyond it the target's time stands still), so that
// no input is slow only because it asks for days of simulated time.
#ifndef GBVP_TESTS_FUZZ_FUZZ_TARGET_GUARD_H
#define GBVP_TESTS_FUZZ_FUZZ_TARGET_GUARD_H

#include <string.h>

#include "gbvp/target/target.h"

typedef struct guard {
    sim_target t;        /* the guarded target: these ops, the guard as ctx */
    sim_target_ops ops;
    const sim_target *real;
    sim_time advanced, advance_max; /* time let pass so far, and the most per input */
} guard;

/* The ops' ctx is the guard itself; it forwards to the real target. */
static guard *guard_of(void *ctx)
{
    return ctx;
}

static int guarded_capture(void *ctx, const char *path, char *err, size_t errlen)
{
    const sim_target *r = guard_of(ctx)->real;
    return r->ops->capture(r->ctx, path ? "/dev/null" : NULL, err, errlen);
}

static int guarded_trace(void *ctx, const char *path, char *err, size_t errlen)
{
    const sim_target *r = guard_of(ctx)->real;
    return r->ops->trace(r->ctx, path ? "/dev/null" : NULL, err, errlen);
}

/* Every other operation forwards to the real target (the guard is the ctx of them all, so
 * the two above find the real target without global state). */
#define FWD(ret, name, params, args)                                                         \
    static ret fw_##name params                                                               \
    {                                                                                        \
        const sim_target *r = guard_of(ctx)->real;                                           \
        return r->ops->name args;                                                            \
    }
FWD(unsigned, num_slots, (void *ctx), (r->ctx))
FWD(uint8_t, slot_intf_id, (void *ctx, unsigned s), (r->ctx, s))
FWD(int, insert, (void *ctx, unsigned s, const char *m, char *e, size_t el), (r->ctx, s, m, e, el))
FWD(int, remove, (void *ctx, unsigned s, char *e, size_t el), (r->ctx, s, e, el))
FWD(bool, module_name, (void *ctx, unsigned s, char *b, size_t l), (r->ctx, s, b, l))
FWD(int, command, (void *ctx, unsigned s, int i, const char *l, vm_reply *rep),
    (r->ctx, s, i, l, rep))
FWD(int, link_mode, (void *ctx, uint8_t id, uint8_t *tx, uint8_t *rx, char *e, size_t el),
    (r->ctx, id, tx, rx, e, el))
FWD(int, intf_oops, (void *ctx, uint8_t id, uint8_t rs, char *e, size_t el),
    (r->ctx, id, rs, e, el))
FWD(sim_time, now, (void *ctx), (r->ctx))
FWD(int, link_set, (void *ctx, unsigned s, const char *g, const char *se, const char *la,
                    char *e, size_t el), (r->ctx, s, g, se, la, e, el))
FWD(int, link_fault, (void *ctx, unsigned s, const sw_link_fault *f, char *e, size_t el),
    (r->ctx, s, f, e, el))
FWD(int, link_info, (void *ctx, unsigned s, sim_target_link *o, char *e, size_t el),
    (r->ctx, s, o, e, el))
FWD(bool, ap_traced, (void *ctx, const char *n), (r->ctx, n))
FWD(int, ap_request, (void *ctx, uint8_t id, uint16_t cp, uint8_t ty, const void *rq,
                      size_t rql, void *rs, size_t rsl), (r->ctx, id, cp, ty, rq, rql, rs, rsl))
#undef FWD

static void fw_intf(void *ctx, uint8_t id, sim_target_intf *out)
{
    const sim_target *r = guard_of(ctx)->real;
    r->ops->intf(r->ctx, id, out);
}

static void fw_stats(void *ctx, sim_target_stats *out)
{
    const sim_target *r = guard_of(ctx)->real;
    r->ops->stats(r->ctx, out);
}

static void fw_settle(void *ctx)
{
    const sim_target *r = guard_of(ctx)->real;
    r->ops->settle(r->ctx);
}

/* Past advance_max the target's time stands still: a day of simulated time takes seconds,
 * and an input asking for months would only be slow. */
static void fw_advance(void *ctx, sim_time dt)
{
    guard *g = guard_of(ctx);
    if (g->advanced >= g->advance_max)
        return;
    if (dt > g->advance_max - g->advanced)
        dt = g->advance_max - g->advanced;
    g->advanced += dt;
    g->real->ops->advance(g->real->ctx, dt);
}

static void fw_ap_step_hook(void *ctx, void (*hook)(void *hctx, const char *what), void *hctx)
{
    const sim_target *r = guard_of(ctx)->real;
    r->ops->ap_step_hook(r->ctx, hook, hctx);
}

static void fw_ap_trace_clear(void *ctx)
{
    const sim_target *r = guard_of(ctx)->real;
    r->ops->ap_trace_clear(r->ctx);
}

/* `real` must be a target with the test AP (every operation but guest_run). */
static void guard_init(guard *g, const sim_target *real, sim_time advance_max)
{
    memset(g, 0, sizeof *g);
    g->real = real;
    g->advance_max = advance_max;
    g->ops = (sim_target_ops){
        .num_slots = fw_num_slots, .slot_intf_id = fw_slot_intf_id, .insert = fw_insert,
        .remove = fw_remove, .module_name = fw_module_name, .command = fw_command,
        .intf = fw_intf, .stats = fw_stats, .link_mode = fw_link_mode, .intf_oops = fw_intf_oops,
        .settle = fw_settle, .advance = fw_advance, .now = fw_now, .link_set = fw_link_set,
        .link_fault = fw_link_fault, .link_info = fw_link_info, .ap_request = fw_ap_request,
        .ap_traced = fw_ap_traced, .ap_trace_clear = fw_ap_trace_clear,
        .ap_step_hook = fw_ap_step_hook, .capture = guarded_capture, .trace = guarded_trace,
    };
    g->t = (sim_target){ .name = real->name, .features = real->features & ~SIM_TARGET_GUEST,
                         .ops = &g->ops, .ctx = g };
}

#endif
