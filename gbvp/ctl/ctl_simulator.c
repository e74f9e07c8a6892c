// SPDX-License-Identifier: MIT
// The control socket on `gbvp sim`: the backend adapter over the sim_gbvp API (insert,
// remove, backend command lines, the SVC). The simulator object does not expose its slots'
// live interfaces, so the typed backend commands (gpio_set, battery_set, ...) answer that
// they are not available there; the `cmd` command reaches the backends instead.
#include "gbvp/ctl/ctl_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/network.h"
#include "gbvp/scenario/scenario.h"
#include "sim/simulator.h"

typedef struct gbvp_adapter {
    sim_gbvp *s;
    const sim_time *now;
} gbvp_adapter;

static gb_svc *a_svc(void *ctx)
{
    return sim_gbvp_svc(((gbvp_adapter *)ctx)->s);
}

static int a_insert(void *ctx, unsigned slot, const char *module, char *err, size_t errlen)
{
    gbvp_adapter *a = ctx;
    int rc = sim_gbvp_insert(a->s, slot, module, *a->now);
    if (rc)
        snprintf(err, errlen, "%s (the simulator's log has the details)",
                 rc == -ENOENT ? "no such module in the catalog" : "refused by the frame");
    return rc;
}

static int a_remove(void *ctx, unsigned slot, char *err, size_t errlen)
{
    gbvp_adapter *a = ctx;
    int rc = sim_gbvp_remove(a->s, slot, *a->now);
    if (rc)
        snprintf(err, errlen, "the slot is empty");
    return rc;
}

static int a_command(void *ctx, unsigned slot, unsigned index, const char *line, char *reply,
                     size_t len)
{
    return sim_gbvp_command(((gbvp_adapter *)ctx)->s, slot, index, line, reply, len);
}

static int a_link_set(void *ctx, unsigned slot, const char *gear, const char *series,
                      const char *lanes, char *err, size_t errlen)
{
    gbvp_adapter *a = ctx;
    sim_net_link_info li;
    int rc = sim_gbvp_link_info(a->s, slot, &li, err, errlen);
    if (rc)
        return rc;
    up_phy_cfg c = li.phy;
    if (sim_net_parse_link(&c, gear, series, lanes, err, errlen))
        return -EINVAL;
    return sim_gbvp_link_set(a->s, slot, &c, err, errlen);
}

static int a_link_info(void *ctx, unsigned slot, sim_scenario_link *out, char *err,
                       size_t errlen)
{
    return sim_gbvp_link_report(((gbvp_adapter *)ctx)->s, slot, out, err, errlen);
}

static int a_link_fault(void *ctx, unsigned slot, const sim_link_fault *f, char *err,
                        size_t errlen)
{
    return sim_gbvp_link_fault(((gbvp_adapter *)ctx)->s, slot, f, err, errlen);
}

sim_control *sim_control_new_gbvp(const char *path, sim_gbvp *s, const sim_time *now,
                                  char *err, size_t errlen)
{
    gbvp_adapter *a = malloc(sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *a = (gbvp_adapter){ .s = s, .now = now };
    sim_control_backend b = { .name = "gbvp sim", .svc = a_svc, .insert = a_insert,
                              .remove = a_remove, .command = a_command,
                              .link_set = sim_gbvp_net(s) ? a_link_set : NULL,
                              .link_fault = sim_gbvp_net(s) ? a_link_fault : NULL,
                              .link_info = sim_gbvp_net(s) ? a_link_info : NULL,
                              .free_ctx = free,
                              .ctx = a };
    sim_control *c = sim_control_new(path, &b, err, errlen);
    if (!c)
        free(a);
    return c;
}
