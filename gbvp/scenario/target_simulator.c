// SPDX-License-Identifier: MIT
// The gbvp-sim scenario target: the same simulator object `gbvp sim` runs (gblink server,
// APBridgeA bridge, SVC, slots), driven through the sim_gbvp API, with the AP on the far
// side of a real gblink connection:
//   - test-AP mode: a gblink client in this process plays QEMU's greybus-es2 device and the
//     6.1-faithful test AP plays the host on top of it; time is simulated (each pump step
//     is 10 us);
//   - guest mode: QEMU connects to the link socket and its guest kernel is the AP; time is
//     the wall clock; the guest agent (if given) serves gbvp.guest.
// sim_gbvp does not expose its slots' live interfaces, so backends are unavailable here.
//
// Guest mode runs the simulator loop on a second thread, so that the guest is served
// while the script blocks (gbvp.guest waits for the agent; the command may itself cause
// Greybus traffic). The script thread holds `lock` whenever it runs and lets go only while
// it waits (settle, advance, gbvp.guest): the simulator is never touched by both.
#include "gbvp/scenario/scenario.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gblink/gblink.h"
#include "gbvp/agent/agent_client.h"
#include "sim/network.h"
#include "sim/simulator.h"
#include "ap-model/ap.h"
#include "ap-model/ap_gblink.h"
#include "greybus/gb_message.h"

#define NAME_MAX_LEN 64

struct sim_scenario_gbvp {
    sim_scenario_gbvp_config cfg;
    sim_gbvp *sim;
    sim_scenario_target target;
    sim_time now;
    struct timespec t0;
    /* test-AP mode */
    gbl_link *client;
    tap *ap;
    tap_transport transport;
    uint32_t next_id;
    unsigned hellos;
    void (*hook)(void *hctx, const char *what);
    void *hctx;
    /* guest mode */
    sim_agent *agent;
    pthread_t thread;
    pthread_mutex_t lock;
    bool thread_started, stop;
    char names[GB_SVC_SLOTS_MAX][NAME_MAX_LEN];
};

/* ---- time and the loop ---- */

static sim_time wall_ps(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (sim_time)((int64_t)(t.tv_sec - t0->tv_sec) * 1000000000 +
                      (t.tv_nsec - t0->tv_nsec)) * 1000u;
}

/* Guest mode: the simulator loop's thread. */
static void *loop_thread(void *arg)
{
    sim_scenario_gbvp *g = arg;
    for (;;) {
        pthread_mutex_lock(&g->lock);
        if (g->stop) {
            pthread_mutex_unlock(&g->lock);
            return NULL;
        }
        g->now = wall_ps(&g->t0);
        sim_gbvp_process(g->sim, g->now);
        int fd = sim_gbvp_fd(g->sim);
        /* until the next model event (a frame arriving, a timed fault), at most 5 ms */
        struct timespec wait = sim_gbvp_poll_timeout(g->sim, g->now);
        if (wait.tv_sec || wait.tv_nsec > 5000000)
            wait = (struct timespec){ .tv_sec = 0, .tv_nsec = 5000000 };
        pthread_mutex_unlock(&g->lock);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ppoll(&p, 1, &wait, NULL);
    }
}

/* Guest mode: lets the loop thread serve the guest for `ms` of wall-clock time. */
static void run_wall(sim_scenario_gbvp *g, double ms)
{
    pthread_mutex_unlock(&g->lock);
    struct timespec ts = { .tv_sec = (time_t)(ms / 1000),
                           .tv_nsec = (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6) };
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
    pthread_mutex_lock(&g->lock);
}

/* Test-AP mode: the transport's pump (the rig of tests/unit/test_svc_sim.c). */
static bool pump(void *ctx)
{
    sim_scenario_gbvp *g = ctx;
    /* With timing on, keep going while messages cross the modelled links (a slow gear, a
     * link down or replays take far longer than the 640 us of a plain step), for at most
     * 2 s of simulated time. */
    sim_net *net = sim_gbvp_net(g->sim);
    sim_time end = g->now + SIM_S(2);
    for (int i = 0; i < 64 || (net && sim_net_in_flight(net) && g->now < end); i++) {
        g->now += SIM_US(10);
        sim_gbvp_process(g->sim, g->now);
        if (g->ap)
            tap_set_now(g->ap, g->now);
        if (gbl_process(g->client) > 0)
            return true;
    }
    return false;
}

static void client_record(void *ctx, const gbl_record *rec)
{
    sim_scenario_gbvp *g = ctx;
    if (rec->type == GBL_T_HELLO)
        g->hellos++;
    else if (rec->type == GBL_T_GB_MESSAGE && g->ap)
        tap_deliver(g->ap, rec->cport, rec->payload, rec->len);
}

static void send_msg(void *ctx, uint16_t cport, const uint8_t *msg, size_t len)
{
    sim_scenario_gbvp *g = ctx;
    uint8_t buf[GB_MSG_MAX_SIZE];
    if (len > sizeof buf)
        return;
    memcpy(buf, msg, len);
    if (len >= 8)
        buf[6] = (uint8_t)cport; /* ES2 carries the hd CPort in pad[0] */
    gbl_send_msg(g->client, GBL_T_GB_MESSAGE, cport, 0, g->now / 1000u, buf, (uint32_t)len);
}

static void cport_ctl(void *ctx, const char *what, uint16_t cport, uint32_t flags)
{
    sim_scenario_gbvp *g = ctx;
    tap_gblink_ctl r;
    if (tap_gblink_ctl_record(what, flags, &r))
        return;
    gbl_send_msg(g->client, r.type, cport, ++g->next_id, g->now / 1000u, r.payload, r.len);
    pump(g); /* the ES2 driver waits for each ARPC answer */
}

/* ---- target operations ---- */

static gb_svc *t_svc(void *ctx)
{
    return sim_gbvp_svc(((sim_scenario_gbvp *)ctx)->sim);
}

static void t_settle(void *ctx)
{
    sim_scenario_gbvp *g = ctx;
    if (g->ap)
        tap_run(g->ap);
    else
        run_wall(g, 20);
}

static void t_advance(void *ctx, sim_time dt)
{
    sim_scenario_gbvp *g = ctx;
    if (!g->ap) {
        run_wall(g, (double)dt / 1e9);
        return;
    }
    /* In steps, so the SVC sees time pass and the AP's watchdog pings go out. */
    while (dt) {
        sim_time step = dt < SIM_MS(100) ? dt : SIM_MS(100);
        tap_advance(g->ap, step);
        if (tap_now(g->ap) > g->now)
            g->now = tap_now(g->ap);
        sim_gbvp_process(g->sim, g->now);
        dt -= step;
    }
}

static sim_time t_now(void *ctx)
{
    return ((sim_scenario_gbvp *)ctx)->now;
}

static void t_intf(void *ctx, uint8_t id, sim_scenario_intf *out)
{
    sim_scenario_gbvp *g = ctx;
    if (g->ap) {
        tap_intf_state s = tap_interface(g->ap, id);
        *out = (sim_scenario_intf){ .known = s.exists, .active = s.exists && s.active,
                                    .enabled = s.exists && s.enabled,
                                    .suspended = s.exists && s.suspended,
                                    .device_id = s.device_id, .bundles = s.bundles,
                                    .bound_bundles = s.bound_bundles,
                                    .connections = s.connections };
        return;
    }
    /* The guest's view is in its sysfs; the SVC's view is what the simulator knows: the
     * AP activated the interface (INTF_ACTIVATE), gave it a device id and had the SVC
     * create its connections (CONN_CREATE). */
    const gb_svc *svc = sim_gbvp_svc(g->sim);
    gb_svc_intf_info in;
    gb_svc_get_intf(svc, id, &in);
    *out = (sim_scenario_intf){ .known = in.present, .active = in.present && in.active,
                                .enabled = in.present && in.active && in.device_id,
                                .suspended = in.present && in.hibernated,
                                .device_id = in.device_id,
                                .connections = (unsigned)gb_svc_conn_count_intf(
                                    gb_svc_connections(svc), id) };
}

static int t_insert(void *ctx, unsigned slot, const char *module, char *err, size_t errlen)
{
    sim_scenario_gbvp *g = ctx;
    if (strchr(module, '/') || strlen(module) >= NAME_MAX_LEN) {
        snprintf(err, errlen, "this target inserts catalog modules by name only");
        return -EINVAL;
    }
    int rc = sim_gbvp_insert(g->sim, slot, module, g->now);
    if (rc) {
        snprintf(err, errlen, "%s (the simulator's log says why)",
                 rc == -ENOENT ? "no such catalog module" : "refused by the frame");
        return rc;
    }
    if (slot < GB_SVC_SLOTS_MAX)
        snprintf(g->names[slot], NAME_MAX_LEN, "%s", module);
    return 0;
}

static int t_remove(void *ctx, unsigned slot)
{
    sim_scenario_gbvp *g = ctx;
    int rc = sim_gbvp_remove(g->sim, slot, g->now);
    if (!rc && slot < GB_SVC_SLOTS_MAX)
        g->names[slot][0] = 0;
    return rc;
}

static const char *t_module_name(void *ctx, unsigned slot)
{
    sim_scenario_gbvp *g = ctx;
    gb_svc *svc = sim_gbvp_svc(g->sim);
    gb_svc_intf_info in;
    if (slot >= GB_SVC_SLOTS_MAX || !gb_svc_get_intf(svc, gb_svc_slot_intf_id(svc, slot), &in) ||
        !in.present)
        return NULL;
    return g->names[slot][0] ? g->names[slot] : "?";
}

static int t_ap_request(void *ctx, uint8_t intf, uint16_t cport, uint8_t type, const void *req,
                        size_t req_len, void *resp, size_t resp_len)
{
    sim_scenario_gbvp *g = ctx;
    uint16_t hd = tap_hd_cport(g->ap, intf, cport);
    if (!hd)
        return -ENOTCONN;
    int rc = tap_conn_op(g->ap, hd, type, req, req_len, resp, resp_len);
    tap_run(g->ap);
    return rc;
}

static bool t_traced(void *ctx, const char *needle)
{
    return tap_trace_find(((sim_scenario_gbvp *)ctx)->ap, 0, needle) >= 0;
}

static void t_trace_clear(void *ctx)
{
    tap_trace_clear(((sim_scenario_gbvp *)ctx)->ap);
}

static void t_tap_hook(void *ctx, tap *ap, const char *what)
{
    (void)ap;
    sim_scenario_gbvp *g = ctx;
    g->hook(g->hctx, what);
}

static void t_step_hook(void *ctx, void (*hook)(void *hctx, const char *what), void *hctx)
{
    sim_scenario_gbvp *g = ctx;
    g->hook = hook;
    g->hctx = hctx;
    tap_set_step_hook(g->ap, hook ? t_tap_hook : NULL, hook ? g : NULL);
}

static int t_command(void *ctx, unsigned slot, unsigned index, const char *line,
                     char *reply, size_t len)
{
    return sim_gbvp_command(((sim_scenario_gbvp *)ctx)->sim, slot, index, line, reply, len);
}

static int t_guest_run(void *ctx, const char *cmd, int timeout_ms, sim_agent_result *res)
{
    sim_scenario_gbvp *g = ctx;
    pthread_mutex_unlock(&g->lock);
    int rc = sim_agent_run(g->agent, cmd, timeout_ms, res);
    pthread_mutex_lock(&g->lock);
    return rc;
}

static int t_link_set(void *ctx, unsigned slot, const char *gear, const char *series,
                      const char *lanes, char *err, size_t errlen)
{
    sim_scenario_gbvp *g = ctx;
    sim_net_link_info li;
    if (sim_gbvp_link_info(g->sim, slot, &li, err, errlen))
        return -ENODEV;
    up_phy_cfg c = li.phy;
    if (sim_net_parse_link(&c, gear, series, lanes, err, errlen))
        return -EINVAL;
    return sim_gbvp_link_set(g->sim, slot, &c, err, errlen);
}

static int t_link_fault(void *ctx, unsigned slot, const sim_link_fault *f, char *err,
                        size_t errlen)
{
    sim_scenario_gbvp *g = ctx;
    return sim_gbvp_link_fault(g->sim, slot, f, err, errlen);
}

static int t_link_info(void *ctx, unsigned slot, sim_scenario_link *out, char *err,
                       size_t errlen)
{
    return sim_gbvp_link_report(((sim_scenario_gbvp *)ctx)->sim, slot, out, err, errlen);
}

/* ---- life cycle ---- */

static int start_test_ap(sim_scenario_gbvp *g, char *err, size_t errlen)
{
    gbl_callbacks cb = { .record = client_record };
    gbl_config lc = { .name = "gbvp test-ap es2" };
    g->client = gbl_client_new(g->cfg.link_path, &lc, &cb, g, err, errlen);
    if (!g->client)
        return -1;
    if (gbl_connect(g->client)) {
        snprintf(err, errlen, "cannot connect the test AP to %s", g->cfg.link_path);
        return -1;
    }
    for (int i = 0; i < 400 && (gbl_state(g->client) != GBL_STATE_UP || !g->hellos); i++)
        pump(g);
    if (gbl_state(g->client) != GBL_STATE_UP) {
        snprintf(err, errlen, "the gblink connection to the simulator did not come up");
        return -1;
    }
    g->transport = (tap_transport){ .send = send_msg, .cport_ctl = cport_ctl, .pump = pump,
                                    .ctx = g };
    tap_config tc = { .transport = &g->transport, .num_slots = g->cfg.num_slots,
                      .catalog_dir = g->cfg.catalog_dir, .verbose = g->cfg.verbose };
    g->ap = tap_new(&tc);
    if (!g->ap || tap_probe(g->ap)) {
        snprintf(err, errlen, "the test AP's SVC handshake over gblink failed");
        return -1;
    }
    return 0;
}

static int start_guest(sim_scenario_gbvp *g, char *err, size_t errlen)
{
    unsigned limit = g->cfg.connect_timeout_s ? g->cfg.connect_timeout_s : 300;
    fprintf(stderr, "gbvp scenario: waiting up to %u s for QEMU on %s and the SVC "
            "handshake\n", limit, g->cfg.link_path);
    sim_time end = wall_ps(&g->t0) + SIM_S(limit);
    while (!gb_svc_handshake_done(sim_gbvp_svc(g->sim))) {
        if (wall_ps(&g->t0) >= end) {
            snprintf(err, errlen, "no AP completed the SVC handshake within %u s (is QEMU "
                     "started with the greybus-es2 device on %s?)", limit, g->cfg.link_path);
            return -1;
        }
        run_wall(g, 50);
    }
    if (g->cfg.agent_path) {
        char aerr[256];
        pthread_mutex_unlock(&g->lock);
        int rc = sim_agent_connect_unix(g->cfg.agent_path, 10000, &g->agent, aerr, sizeof aerr);
        if (!rc)
            rc = sim_agent_wait_ready(g->agent, (int)limit * 1000);
        pthread_mutex_lock(&g->lock);
        if (rc) {
            snprintf(err, errlen, "guest agent at %s: %s", g->cfg.agent_path,
                     g->agent ? sim_agent_last_error(g->agent) : aerr);
            return -1;
        }
    }
    return 0;
}

sim_scenario_gbvp *sim_scenario_gbvp_new(const sim_scenario_gbvp_config *cfg, char *err,
                                         size_t errlen)
{
    sim_scenario_gbvp *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->cfg = *cfg;
    if (!g->cfg.num_slots)
        g->cfg.num_slots = 4;
    clock_gettime(CLOCK_MONOTONIC, &g->t0);
    sim_gbvp_timing timing = SIM_TIMING_OFF;
    if (cfg->timing && sim_gbvp_parse_timing(cfg->timing, &timing)) {
        snprintf(err, errlen, "timing %s: want off, frame or message", cfg->timing);
        free(g);
        return NULL;
    }
    sim_gbvp_config sc = { .link_path = cfg->link_path, .num_slots = g->cfg.num_slots,
                           .catalog_dir = cfg->catalog_dir,
                           .log_level = cfg->verbose ? (getenv("GBVP_DEBUG") ? GB_SVC_LOG_DEBUG : GB_SVC_LOG_INFO) : GB_SVC_LOG_ERROR,
                           .timing = timing };
    g->sim = sim_gbvp_new(&sc, err, errlen);
    if (g->sim && !cfg->test_ap) {
        pthread_mutex_init(&g->lock, NULL);
        pthread_mutex_lock(&g->lock);
        if (pthread_create(&g->thread, NULL, loop_thread, g)) {
            snprintf(err, errlen, "cannot start the simulator thread");
            pthread_mutex_unlock(&g->lock);
            pthread_mutex_destroy(&g->lock);
            sim_gbvp_free(g->sim);
            free(g);
            return NULL;
        }
        g->thread_started = true;
    }
    if (!g->sim || (cfg->test_ap ? start_test_ap(g, err, errlen) : start_guest(g, err, errlen))) {
        sim_scenario_gbvp_free(g);
        return NULL;
    }
    g->target = (sim_scenario_target){
        .name = cfg->test_ap ? "gbvp-sim+test-ap" : "gbvp-sim+guest",
        .svc = t_svc,
        .insert = t_insert,
        .remove = t_remove,
        .module_name = t_module_name,
        .settle = t_settle,
        .advance = t_advance,
        .now = t_now,
        .intf = t_intf,
        .ap_request = cfg->test_ap ? t_ap_request : NULL,
        .ap_traced = cfg->test_ap ? t_traced : NULL,
        .ap_trace_clear = cfg->test_ap ? t_trace_clear : NULL,
        .ap_step_hook = cfg->test_ap ? t_step_hook : NULL,
        .guest_run = g->agent ? t_guest_run : NULL,
        .command = t_command,
        .link_set = timing == SIM_TIMING_FRAME ? t_link_set : NULL,
        .link_fault = timing == SIM_TIMING_FRAME ? t_link_fault : NULL,
        .link_info = timing == SIM_TIMING_FRAME ? t_link_info : NULL,
        .ctx = g,
    };
    return g;
}

void sim_scenario_gbvp_free(sim_scenario_gbvp *g)
{
    if (!g)
        return;
    if (g->thread_started) {
        g->stop = true;
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->thread, NULL);
        pthread_mutex_destroy(&g->lock);
    }
    tap_free(g->ap);
    gbl_free(g->client);
    sim_agent_free(g->agent);
    sim_gbvp_free(g->sim);
    free(g);
}

const sim_scenario_target *sim_scenario_gbvp_target(sim_scenario_gbvp *g)
{
    return &g->target;
}

sim_agent *sim_scenario_gbvp_agent(sim_scenario_gbvp *g)
{
    return g->agent;
}
