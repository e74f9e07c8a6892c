// SPDX-License-Identifier: MIT
// The simulator-only scenario target: an SVC, the frame's slots and catalog modules in this
// process, with the 6.1-faithful test AP (tests/ap) enumerating modules exactly as the
// kernel does. Time is the test AP's simulated clock.
#include "gbvp/scenario/scenario.h"

#include <stdlib.h>

#include "ap-model/ap.h"
#include "virtual-modules/backend_cmd.h"

/* The trace is only searched by gbvp.ap_traced; cap its memory in long storms. */
#define TRACE_KEEP_MAX 200000u

static int t_command(void *ctx, unsigned slot, unsigned index, const char *line,
                     char *reply, size_t len);

typedef struct hook_ctx {
    void (*hook)(void *hctx, const char *what);
    void *hctx;
} hook_ctx;

struct sim_scenario_tap {
    tap *ap;
    sim_scenario_target target;
    hook_ctx hook;
};

static gb_svc *t_svc(void *ctx)
{
    return tap_svc(((sim_scenario_tap *)ctx)->ap);
}

static gb_slots *t_slots(void *ctx)
{
    return tap_slots(((sim_scenario_tap *)ctx)->ap);
}

static void trim_trace(tap *ap)
{
    if (tap_trace_count(ap) > TRACE_KEEP_MAX)
        tap_trace_clear(ap);
}

static void t_settle(void *ctx)
{
    tap *ap = ((sim_scenario_tap *)ctx)->ap;
    tap_run(ap);
    trim_trace(ap);
}

static void t_advance(void *ctx, sim_time dt)
{
    tap *ap = ((sim_scenario_tap *)ctx)->ap;
    tap_advance(ap, dt);
    trim_trace(ap);
}

static sim_time t_now(void *ctx)
{
    return tap_now(((sim_scenario_tap *)ctx)->ap);
}

static void t_intf(void *ctx, uint8_t id, sim_scenario_intf *out)
{
    tap_intf_state s = tap_interface(((sim_scenario_tap *)ctx)->ap, id);
    *out = (sim_scenario_intf){
        .known = s.exists,
        .active = s.exists && s.active,
        .enabled = s.exists && s.enabled,
        .suspended = s.exists && s.suspended,
        .device_id = s.device_id,
        .bundles = s.bundles,
        .bound_bundles = s.bound_bundles,
        .connections = s.connections,
    };
}

static int t_ap_request(void *ctx, uint8_t intf, uint16_t cport, uint8_t type, const void *req,
                        size_t req_len, void *resp, size_t resp_len)
{
    tap *ap = ((sim_scenario_tap *)ctx)->ap;
    uint16_t hd = tap_hd_cport(ap, intf, cport);
    if (!hd)
        return -107; /* -ENOTCONN: the AP has no connection to that CPort */
    int rc = tap_conn_op(ap, hd, type, req, req_len, resp, resp_len);
    tap_run(ap);
    return rc;
}

static bool t_traced(void *ctx, const char *needle)
{
    return tap_trace_find(((sim_scenario_tap *)ctx)->ap, 0, needle) >= 0;
}

static void t_trace_clear(void *ctx)
{
    tap_trace_clear(((sim_scenario_tap *)ctx)->ap);
}

static void t_tap_hook(void *ctx, tap *ap, const char *what)
{
    (void)ap;
    hook_ctx *h = ctx;
    h->hook(h->hctx, what);
}

static void t_step_hook(void *ctx, void (*hook)(void *hctx, const char *what), void *hctx);

sim_scenario_tap *sim_scenario_tap_new(unsigned num_slots, const char *catalog_dir,
                                       bool verbose)
{
    sim_scenario_tap *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    tap_config c = { .num_slots = num_slots, .catalog_dir = catalog_dir, .verbose = verbose };
    t->ap = tap_new(&c);
    if (!t->ap || tap_probe(t->ap) != 0) {
        tap_free(t->ap);
        free(t);
        return NULL;
    }
    t->target = (sim_scenario_target){
        .name = "test-ap",
        .svc = t_svc,
        .slots = t_slots,
        .settle = t_settle,
        .advance = t_advance,
        .now = t_now,
        .intf = t_intf,
        .ap_request = t_ap_request,
        .ap_traced = t_traced,
        .ap_trace_clear = t_trace_clear,
        .ap_step_hook = t_step_hook,
        .command = t_command,
        .ctx = t,
    };
    return t;
}

static void t_step_hook(void *ctx, void (*hook)(void *hctx, const char *what), void *hctx)
{
    sim_scenario_tap *t = ctx;
    hook_ctx *h = &t->hook;
    h->hook = hook;
    h->hctx = hctx;
    tap_set_step_hook(t->ap, hook ? t_tap_hook : NULL, hook ? h : NULL);
}

static int t_command(void *ctx, unsigned slot, unsigned index, const char *line,
                     char *reply, size_t len)
{
    sim_scenario_tap *t = ctx;
    vm_interface *intf = gb_slots_interface(tap_slots(t->ap), slot, index);
    if (!intf) {
        snprintf(reply, len, "slot %u has no interface %u", slot, index + 1);
        return -1;
    }
    return vm_backend_command(intf, line, tap_now(t->ap), reply, len);
}

void sim_scenario_tap_free(sim_scenario_tap *t)
{
    if (!t)
        return;
    tap_free(t->ap);
    free(t);
}

const sim_scenario_target *sim_scenario_tap_target(sim_scenario_tap *t)
{
    return &t->target;
}
