// SPDX-License-Identifier: MIT
// A target in this process (see target_local.h).
#include "gbvp/target/target_local.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ap-model/ap_gblink.h"
#include "gblink/gblink.h"
#include "greybus/gb_message.h"
#include "virtual-modules/dme.h"

/* The test AP's trace is searched only by gbvp.ap_traced: cap its memory in long storms. */
#define TRACE_KEEP_MAX 200000u
/* A test AP waiting on a timed network keeps the simulated time moving this far at most
 * (a slow gear, a link down or replays take far longer than a plain step). */
#define PUMP_LIMIT SIM_S(2)

struct sim_local {
    sim_local_config cfg;
    sim_simulator *sim;
    sim_loop *loop;
    sim_target target;
    char link_buf[108];
    /* the test AP */
    tap *ap;
    tap_transport transport;
    unsigned delivered; /* messages the AP received: what its pump waits for */
    void (*hook)(void *hctx, const char *what);
    void *hctx;
    /* gbvp-sim: the test AP's gblink client and the step clock */
    gbl_link *client;
    unsigned hellos;
    uint32_t next_id;
    sim_time step_now;
    /* guest */
    sim_agent *agent;
};

int sim_local_ap_parse(const char *name, sim_local_ap *out)
{
    static const char *const names[] = { "test-ap", "gbvp-sim", "guest" };
    for (unsigned i = 0; i < 3; i++)
        if (!strcmp(name, names[i])) {
            *out = (sim_local_ap)i;
            return 0;
        }
    return -1;
}

/* ---- the test AP straight on the bridge ---- */

static void ap_sink(void *ctx, uint16_t hd_cport, const gb_msg *m, sim_time now)
{
    (void)now;
    sim_local *l = ctx;
    l->delivered++;
    tap_deliver(l->ap, hd_cport, m->bytes, m->h.size);
}

/* The simulator catches up with the AP's clock, which leads (it jumps on timeouts). */
static void catch_up(sim_local *l)
{
    sim_simulator_process(l->sim, tap_now(l->ap));
}

static void direct_send(void *ctx, uint16_t cport, const uint8_t *msg, size_t len)
{
    sim_local *l = ctx;
    catch_up(l);
    sim_bridge_from_ap(sim_simulator_bridge(l->sim), cport, msg, len, sim_simulator_now(l->sim));
}

static void direct_cport_ctl(void *ctx, const char *what, uint16_t cport, uint32_t flags)
{
    sim_local *l = ctx;
    tap_gblink_ctl r;
    if (tap_gblink_ctl_record(what, flags, &r))
        return;
    catch_up(l);
    sim_bridge_cport_op(sim_simulator_bridge(l->sim), r.type, cport, r.payload, r.len,
                        sim_simulator_now(l->sim));
}

/* Runs the network's events while messages are in flight, until one reaches the AP. */
static bool direct_pump(void *ctx)
{
    sim_local *l = ctx;
    unsigned before = l->delivered;
    sim_time end = sim_simulator_now(l->sim) + PUMP_LIMIT, next;
    sw_fabric *f = sim_simulator_fabric(l->sim);
    while (l->delivered == before && sw_fabric_in_flight(f) &&
           sim_simulator_next_event(l->sim, &next) && next <= end)
        sim_simulator_process(l->sim, next);
    tap_set_now(l->ap, sim_simulator_now(l->sim));
    return l->delivered != before;
}

/* ---- the test AP across gblink (the rig of tests/unit/test_svc_sim.c) ---- */

static bool gblink_pump(void *ctx)
{
    sim_local *l = ctx;
    sw_fabric *f = sim_simulator_fabric(l->sim);
    sim_time end = l->step_now + PUMP_LIMIT;
    for (int i = 0; i < 64 || (sw_fabric_in_flight(f) && l->step_now < end); i++) {
        l->step_now += SIM_US(10);
        sim_simulator_process(l->sim, l->step_now);
        if (l->ap)
            tap_set_now(l->ap, l->step_now);
        if (gbl_process(l->client) > 0)
            return true;
    }
    return false;
}

static void client_record(void *ctx, const gbl_record *rec)
{
    sim_local *l = ctx;
    if (rec->type == GBL_T_HELLO)
        l->hellos++;
    else if (rec->type == GBL_T_GB_MESSAGE && l->ap)
        tap_deliver(l->ap, rec->cport, rec->payload, rec->len);
}

static void gblink_send(void *ctx, uint16_t cport, const uint8_t *msg, size_t len)
{
    sim_local *l = ctx;
    uint8_t buf[GB_MSG_MAX_SIZE];
    if (len > sizeof buf)
        return;
    memcpy(buf, msg, len);
    if (len >= 8)
        buf[6] = (uint8_t)cport; /* ES2 carries the hd CPort in pad[0] */
    gbl_send_msg(l->client, GBL_T_GB_MESSAGE, cport, 0, l->step_now / 1000u, buf, (uint32_t)len);
}

static void gblink_cport_ctl(void *ctx, const char *what, uint16_t cport, uint32_t flags)
{
    sim_local *l = ctx;
    tap_gblink_ctl r;
    if (tap_gblink_ctl_record(what, flags, &r))
        return;
    gbl_send_msg(l->client, r.type, cport, ++l->next_id, l->step_now / 1000u, r.payload, r.len);
    gblink_pump(l); /* the ES2 driver waits for each ARPC answer */
}

/* ---- the guest: the loop serves the simulator while the script waits ---- */

typedef struct fd_wait {
    int fd;
    bool ready;
} fd_wait;

static size_t wait_pollfds(void *ctx, struct pollfd *fds, size_t cap)
{
    fd_wait *w = ctx;
    if (cap)
        fds[0] = (struct pollfd){ .fd = w->fd, .events = POLLIN };
    return 1;
}

static void wait_ready(void *ctx, const struct pollfd *fds, size_t n)
{
    fd_wait *w = ctx;
    w->ready = n && (fds[0].revents & (POLLIN | POLLHUP | POLLERR));
}

/* The agent client's wait: the loop runs until the channel is readable. */
static int agent_wait(void *ctx, int fd, int timeout_ms)
{
    sim_local *l = ctx;
    fd_wait w = { .fd = fd };
    sim_loop_source src = { .pollfds = wait_pollfds, .ready = wait_ready, .ctx = &w };
    int h = sim_loop_add(l->loop, &src);
    if (h < 0)
        return h;
    sim_time end = sim_loop_wall(l->loop) + SIM_MS((sim_time)timeout_ms);
    for (sim_time now = sim_loop_wall(l->loop); !w.ready && now < end;
         now = sim_loop_wall(l->loop))
        sim_loop_once(l->loop, end - now);
    sim_loop_remove(l->loop, h);
    return w.ready ? 1 : 0;
}

/* ---- operations ---- */

static sim_local *L(void *ctx)
{
    return ctx;
}

static unsigned t_num_slots(void *ctx)
{
    return sim_simulator_num_slots(L(ctx)->sim);
}

static uint8_t t_slot_intf_id(void *ctx, unsigned slot)
{
    return sim_simulator_slot_intf_id(L(ctx)->sim, slot);
}

/* Brings the simulator to the target's time before a change from outside. */
static void sync_time(sim_local *l)
{
    if (l->cfg.ap == SIM_LOCAL_TEST_AP)
        catch_up(l);
}

static int t_insert(void *ctx, unsigned slot, const char *module, char *err, size_t errlen)
{
    sim_local *l = ctx;
    sync_time(l);
    return sim_simulator_insert(l->sim, slot, module, err, errlen);
}

static int t_remove(void *ctx, unsigned slot, char *err, size_t errlen)
{
    sim_local *l = ctx;
    sync_time(l);
    return sim_simulator_remove(l->sim, slot, err, errlen);
}

static bool t_module_name(void *ctx, unsigned slot, char *buf, size_t len)
{
    const char *name = sim_simulator_module_name(L(ctx)->sim, slot);
    if (name)
        snprintf(buf, len, "%s", name);
    return name != NULL;
}

static int t_command(void *ctx, unsigned slot, int index, const char *line, vm_reply *reply)
{
    sim_local *l = ctx;
    sync_time(l);
    return sim_simulator_command(l->sim, slot, index, line, reply);
}

static void t_intf(void *ctx, uint8_t id, sim_target_intf *out)
{
    sim_local *l = ctx;
    const gb_svc *svc = sim_simulator_svc(l->sim);
    gb_svc_intf_info in = { 0 };
    gb_svc_get_intf(svc, id, &in);
    if (l->ap) {
        tap_intf_state s = tap_interface(l->ap, id);
        *out = (sim_target_intf){ .known = s.exists, .active = s.exists && s.active,
                                  .enabled = s.exists && s.enabled,
                                  .suspended = s.exists && s.suspended,
                                  .device_id = s.device_id, .bundles = s.bundles,
                                  .bound_bundles = s.bound_bundles,
                                  .connections = s.connections };
    } else {
        /* The guest's view is in its sysfs; the SVC's view is what the simulator knows:
         * the AP activated the interface (INTF_ACTIVATE), gave it a device id and had the
         * SVC create its connections (CONN_CREATE). */
        const sw_conn_table *conns = sw_fabric_connections(sim_simulator_fabric(l->sim));
        *out = (sim_target_intf){ .known = in.present, .active = in.present && in.active,
                                  .enabled = in.present && in.active && in.device_id,
                                  .suspended = in.present && in.hibernated,
                                  .device_id = in.device_id,
                                  .connections = (unsigned)sw_conn_count_port(conns, id) };
    }
    out->present = in.present;
    out->powered = in.vsys;
    out->activations = in.activations;
    vm_interface *vm = sim_simulator_interface_by_id(l->sim, id);
    uint32_t v[4] = { 0 };
    static const uint16_t attrs[4] = { VM_DME_TOSHIBA_GMP_VID, VM_DME_TOSHIBA_GMP_PID,
                                       VM_DME_TOSHIBA_GMP_SN0, VM_DME_TOSHIBA_GMP_SN1 };
    for (unsigned i = 0; vm && i < 4; i++)
        if (vm_interface_dme_get(vm, attrs[i], 0, &v[i]) != VM_DME_SUCCESS)
            v[i] = 0;
    out->vendor_id = v[0];
    out->product_id = v[1];
    out->serial_number = (uint64_t)v[3] << 32 | v[2];
}

static void t_stats(void *ctx, sim_target_stats *out)
{
    sim_local *l = ctx;
    const gb_svc *svc = sim_simulator_svc(l->sim);
    const sw_fabric *f = sim_simulator_fabric(l->sim);
    gb_svc_stats st = gb_svc_get_stats(svc);
    *out = (sim_target_stats){
        .ap_requests = st.ap_requests, .ap_bad_requests = st.ap_bad_requests,
        .svc_requests_sent = st.svc_requests_sent, .ap_timeouts = st.ap_timeouts,
        .pings = st.pings,
        .forwarded_to_ap = sw_fabric_dir_stats(f, SW_DIR_INTF_TO_AP).delivered_msgs,
        .forwarded_to_intf = sw_fabric_dir_stats(f, SW_DIR_AP_TO_INTF).delivered_msgs +
                             sw_fabric_dir_stats(f, SW_DIR_INTF_TO_INTF).delivered_msgs,
        .dropped = sw_fabric_get_stats(f).dropped,
        .connections = sw_conn_count(sw_fabric_connections(f)),
        .pending_events = gb_svc_pending_events(svc),
        .handshake_done = gb_svc_handshake_done(svc),
    };
    sim_bridge_gblink_stats q;
    sim_simulator_link_queue(l->sim, &q);
    out->qemu_records_queued = q.queued;
    out->qemu_queue_peak = q.queue_peak;
    out->qemu_records_waiting = q.waiting;
    out->qemu_messages_dropped = q.messages_dropped;
    out->qemu_answers_dropped = q.results_dropped;
    out->qemu_records_discarded = q.discarded;
    out->qemu_messages_no_peer = q.no_peer;
    out->qemu_messages_too_big = q.oversize;
    out->qemu_records_refused = q.send_failed;
    out->qemu_peers_refused = q.clients_refused;
}

static int t_link_mode(void *ctx, uint8_t id, uint8_t *tx, uint8_t *rx, char *err,
                       size_t errlen)
{
    const gb_svc *svc = sim_simulator_svc(L(ctx)->sim);
    if (id == gb_svc_ap_intf_id(svc)) {
        *tx = *rx = gb_svc_ap_link_tx_mode(svc);
        return 0;
    }
    gb_svc_intf_info in;
    if (!gb_svc_get_intf(svc, id, &in)) {
        snprintf(err, errlen, "no interface %u in the frame", id);
        return -ENOENT;
    }
    *tx = in.tx_mode;
    *rx = in.rx_mode;
    return 0;
}

static int t_intf_oops(void *ctx, uint8_t id, uint8_t reason, char *err, size_t errlen)
{
    sim_local *l = ctx;
    sync_time(l);
    int rc = gb_svc_intf_oops(sim_simulator_svc(l->sim), id, reason, sim_simulator_now(l->sim));
    if (rc == -ENOENT)
        snprintf(err, errlen, "no interface %u in the frame", id);
    else if (rc == -ENOTCONN)
        snprintf(err, errlen, "the AP has not completed the SVC handshake");
    return rc;
}

static void trim_trace(tap *ap)
{
    if (tap_trace_count(ap) > TRACE_KEEP_MAX)
        tap_trace_clear(ap);
}

/* A guest on the simulator's own clock (no pacing): time jumps, the loop is not needed. */
static bool unpaced_guest(const sim_local *l)
{
    return !l->ap && l->cfg.sim.clock == SIM_CLOCK_UNPACED;
}

static void t_settle(void *ctx)
{
    sim_local *l = ctx;
    if (l->ap) {
        tap_run(l->ap);
        trim_trace(l->ap);
    } else if (unpaced_guest(l)) {
        sim_simulator_process(l->sim, sim_simulator_now(l->sim));
    } else {
        sim_loop_run_for(l->loop, SIM_MS(20));
    }
}

static void t_advance(void *ctx, sim_time dt)
{
    sim_local *l = ctx;
    if (unpaced_guest(l)) {
        sim_simulator_process(l->sim, sim_simulator_now(l->sim) + dt);
        return;
    }
    if (!l->ap) {
        sim_loop_run_for(l->loop, dt);
        return;
    }
    /* In steps, so the simulator sees time pass and the AP's watchdog pings go out. */
    while (dt) {
        sim_time step = dt < SIM_MS(100) ? dt : SIM_MS(100);
        tap_advance(l->ap, step);
        if (l->cfg.ap == SIM_LOCAL_TEST_AP_GBLINK) {
            if (tap_now(l->ap) > l->step_now)
                l->step_now = tap_now(l->ap);
            sim_simulator_process(l->sim, l->step_now);
        } else {
            catch_up(l);
        }
        dt -= step;
    }
    trim_trace(l->ap);
}

static sim_time t_now(void *ctx)
{
    sim_local *l = ctx;
    switch (l->cfg.ap) {
    case SIM_LOCAL_TEST_AP:
        return tap_now(l->ap);
    case SIM_LOCAL_TEST_AP_GBLINK:
        return l->step_now;
    case SIM_LOCAL_GUEST:
        break;
    }
    return sim_simulator_now(l->sim);
}

static int t_link_set(void *ctx, unsigned slot, const char *gear, const char *series,
                      const char *lanes, char *err, size_t errlen)
{
    sim_local *l = ctx;
    sync_time(l);
    return sim_simulator_link_set(l->sim, slot == SIM_TARGET_SLOT_AP ? GB_SVC_SLOT_AP : slot,
                                  gear, series, lanes, err, errlen);
}

static int t_link_fault(void *ctx, unsigned slot, const sw_link_fault *f, char *err,
                        size_t errlen)
{
    sim_local *l = ctx;
    sync_time(l);
    return sim_simulator_link_fault(l->sim, slot == SIM_TARGET_SLOT_AP ? GB_SVC_SLOT_AP : slot,
                                    f, err, errlen);
}

static int t_link_info(void *ctx, unsigned slot, sim_target_link *out, char *err,
                       size_t errlen)
{
    sim_local *l = ctx;
    sw_link_info li;
    int rc = sim_simulator_link_info(l->sim, slot == SIM_TARGET_SLOT_AP ? GB_SVC_SLOT_AP : slot,
                                     &li, err, errlen);
    if (rc)
        return rc;
    const sw_fabric *f = sim_simulator_fabric(l->sim);
    sw_dir_stats to = sw_fabric_dir_stats(f, SW_DIR_AP_TO_INTF);
    sw_dir_stats from = sw_fabric_dir_stats(f, SW_DIR_INTF_TO_AP);
    *out = (sim_target_link){ .ber = li.ber, .drop = li.drop, .frames = li.frames,
                              .replays = li.replays, .replay_timeouts = li.replay_timeouts,
                              .crc_errors = li.crc_errors, .dropped = li.dropped,
                              .duplicates = li.duplicates, .to_intf_sent = to.sent_msgs,
                              .to_intf_delivered = to.delivered_msgs,
                              .from_intf_sent = from.sent_msgs,
                              .from_intf_delivered = from.delivered_msgs,
                              .to_intf_last_ns = to.last_latency / 1000u,
                              .from_intf_last_ns = from.last_latency / 1000u };
    up_phy_cfg_name(&li.phy, out->mode, sizeof out->mode);
    snprintf(out->state, sizeof out->state, "%s", li.state);
    return 0;
}

static int t_ap_request(void *ctx, uint8_t intf, uint16_t cport, uint8_t type, const void *req,
                        size_t req_len, void *resp, size_t resp_len)
{
    sim_local *l = ctx;
    uint16_t hd = tap_hd_cport(l->ap, intf, cport);
    if (!hd)
        return -ENOTCONN;
    int rc = tap_conn_op(l->ap, hd, type, req, req_len, resp, resp_len);
    tap_run(l->ap);
    return rc;
}

static bool t_ap_traced(void *ctx, const char *needle)
{
    return tap_trace_find(L(ctx)->ap, 0, needle) >= 0;
}

static void t_ap_trace_clear(void *ctx)
{
    tap_trace_clear(L(ctx)->ap);
}

static void t_tap_hook(void *ctx, tap *ap, const char *what)
{
    (void)ap;
    sim_local *l = ctx;
    l->hook(l->hctx, what);
}

static void t_ap_step_hook(void *ctx, void (*hook)(void *hctx, const char *what), void *hctx)
{
    sim_local *l = ctx;
    l->hook = hook;
    l->hctx = hctx;
    tap_set_step_hook(l->ap, hook ? t_tap_hook : NULL, hook ? l : NULL);
}

static int t_guest_run(void *ctx, const char *cmd, int timeout_ms, sim_agent_result *res,
                       char *err, size_t errlen)
{
    return sim_agent_run_or_say(((sim_local *)ctx)->agent, cmd, timeout_ms, res, err, errlen);
}

static int t_capture(void *ctx, const char *path, char *err, size_t errlen)
{
    sim_local *l = ctx;
    if (!path) {
        sim_simulator_capture_stop(l->sim);
        return 0;
    }
    return sim_simulator_capture_start(l->sim, path, err, errlen);
}

static int t_trace(void *ctx, const char *path, char *err, size_t errlen)
{
    sim_local *l = ctx;
    if (!path) {
        int rc = sim_simulator_trace_stop(l->sim);
        if (rc)
            snprintf(err, errlen, "the timeline could not be completed: %s", strerror(-rc));
        return rc;
    }
    return sim_simulator_trace_start(l->sim, path, err, errlen);
}

static const sim_target_ops local_ops = {
    .num_slots = t_num_slots,
    .slot_intf_id = t_slot_intf_id,
    .insert = t_insert,
    .remove = t_remove,
    .module_name = t_module_name,
    .command = t_command,
    .intf = t_intf,
    .stats = t_stats,
    .link_mode = t_link_mode,
    .intf_oops = t_intf_oops,
    .settle = t_settle,
    .advance = t_advance,
    .now = t_now,
    .link_set = t_link_set,
    .link_fault = t_link_fault,
    .link_info = t_link_info,
    .ap_request = t_ap_request,
    .ap_traced = t_ap_traced,
    .ap_trace_clear = t_ap_trace_clear,
    .ap_step_hook = t_ap_step_hook,
    .guest_run = t_guest_run,
    .capture = t_capture,
    .trace = t_trace,
};

/* ---- life cycle ---- */

static int start_direct_ap(sim_local *l, char *err, size_t errlen)
{
    sim_bridge_sink sink = { .to_ap = ap_sink, .ctx = l };
    sim_bridge_set_sink(sim_simulator_bridge(l->sim), &sink);
    l->transport = (tap_transport){ .send = direct_send, .cport_ctl = direct_cport_ctl,
                                    .pump = direct_pump, .ctx = l };
    tap_config tc = { .transport = &l->transport, .cport_count = l->cfg.sim.cport_count,
                      .verbose = l->cfg.verbose };
    l->ap = tap_new(&tc);
    if (!l->ap || tap_probe(l->ap)) {
        snprintf(err, errlen, "the test AP's SVC handshake failed");
        return -1;
    }
    return 0;
}

static int start_gblink_ap(sim_local *l, char *err, size_t errlen)
{
    gbl_callbacks cb = { .record = client_record };
    gbl_config lc = { .name = "gbvp test-ap es2" };
    l->client = gbl_client_new(l->cfg.sim.link_path, &lc, &cb, l, err, errlen);
    if (!l->client)
        return -1;
    if (gbl_connect(l->client)) {
        snprintf(err, errlen, "cannot connect the test AP to %s", l->cfg.sim.link_path);
        return -1;
    }
    for (int i = 0; i < 400 && (gbl_state(l->client) != GBL_STATE_UP || !l->hellos); i++)
        gblink_pump(l);
    if (gbl_state(l->client) != GBL_STATE_UP) {
        snprintf(err, errlen, "the gblink connection to the simulator did not come up");
        return -1;
    }
    l->transport = (tap_transport){ .send = gblink_send, .cport_ctl = gblink_cport_ctl,
                                    .pump = gblink_pump, .ctx = l };
    tap_config tc = { .transport = &l->transport, .cport_count = l->cfg.sim.cport_count,
                      .verbose = l->cfg.verbose };
    l->ap = tap_new(&tc);
    if (!l->ap || tap_probe(l->ap)) {
        snprintf(err, errlen, "the test AP's SVC handshake over gblink failed");
        return -1;
    }
    return 0;
}

static int start_guest(sim_local *l, char *err, size_t errlen)
{
    unsigned limit = l->cfg.connect_timeout_s;
    if (limit) {
        fprintf(stderr, "gbvp: waiting up to %u s for QEMU on %s and the SVC handshake\n",
                limit, l->cfg.sim.link_path);
        sim_time end = sim_loop_wall(l->loop) + SIM_S(limit);
        while (!gb_svc_handshake_done(sim_simulator_svc(l->sim))) {
            if (sim_loop_wall(l->loop) >= end) {
                snprintf(err, errlen, "no AP completed the SVC handshake within %u s (is QEMU "
                         "started with the greybus-es2 device on %s?)", limit,
                         l->cfg.sim.link_path);
                return -1;
            }
            sim_loop_once(l->loop, SIM_MS(50));
        }
    }
    if (l->cfg.agent_path) {
        char aerr[256];
        int wait_ms = (int)(limit ? limit : 300) * 1000;
        int rc = sim_agent_connect_unix(l->cfg.agent_path, 10000, &l->agent, aerr, sizeof aerr);
        if (!rc) {
            sim_agent_set_wait(l->agent, agent_wait, l);
            rc = sim_agent_wait_ready(l->agent, wait_ms);
        }
        if (rc) {
            snprintf(err, errlen, "guest agent at %s: %s", l->cfg.agent_path,
                     l->agent ? sim_agent_last_error(l->agent) : aerr);
            return -1;
        }
    }
    return 0;
}

sim_local *sim_local_new(const sim_local_config *cfg, char *err, size_t errlen)
{
    sim_local *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->cfg = *cfg;
    if (cfg->ap == SIM_LOCAL_TEST_AP) {
        l->cfg.sim.link_path = NULL;
        l->cfg.sim.clock = SIM_CLOCK_STEPPED;
    } else if (cfg->ap == SIM_LOCAL_TEST_AP_GBLINK) {
        l->cfg.sim.clock = SIM_CLOCK_STEPPED;
        if (!cfg->sim.link_path) {
            snprintf(l->link_buf, sizeof l->link_buf, "/tmp/gbvp-target-%d-%p.sock",
                     (int)getpid(), (void *)l);
            l->cfg.sim.link_path = l->link_buf;
        }
    } else if (!cfg->sim.link_path) {
        snprintf(err, errlen, "a guest target needs the gblink socket QEMU connects to");
        free(l);
        return NULL;
    }
    l->sim = sim_simulator_new(&l->cfg.sim, err, errlen);
    l->loop = l->sim ? sim_loop_new(l->sim) : NULL;
    if (!l->loop) {
        if (l->sim)
            snprintf(err, errlen, "out of memory");
        sim_local_free(l);
        return NULL;
    }
    int rc = cfg->ap == SIM_LOCAL_TEST_AP          ? start_direct_ap(l, err, errlen)
             : cfg->ap == SIM_LOCAL_TEST_AP_GBLINK ? start_gblink_ap(l, err, errlen)
                                                   : start_guest(l, err, errlen);
    if (rc) {
        sim_local_free(l);
        return NULL;
    }
    static const char *const names[] = { "test-ap", "gbvp-sim+test-ap", "gbvp-sim+guest" };
    unsigned features = 0;
    if (l->cfg.sim.timing == SW_TIMING_FRAME)
        features |= SIM_TARGET_LINK_MODEL;
    if (l->ap)
        features |= SIM_TARGET_TEST_AP;
    if (l->agent)
        features |= SIM_TARGET_GUEST;
    /* a lockstep clock is kept by the same loop: waits are served by it */
    if (cfg->ap == SIM_LOCAL_GUEST && (l->cfg.sim.clock == SIM_CLOCK_REALTIME ||
                                       l->cfg.sim.clock == SIM_CLOCK_LOCKSTEP))
        features |= SIM_TARGET_REALTIME;
    if (cfg->ap == SIM_LOCAL_GUEST && l->cfg.sim.clock == SIM_CLOCK_LOCKSTEP)
        features |= SIM_TARGET_LOCKSTEP;
    l->target = (sim_target){ .name = names[cfg->ap], .features = features, .ops = &local_ops,
                              .ctx = l };
    return l;
}

void sim_local_free(sim_local *l)
{
    if (!l)
        return;
    if (l->sim) /* nothing more for the AP: the slots' removals are said to nobody */
        sim_bridge_set_sink(sim_simulator_bridge(l->sim), NULL);
    tap_free(l->ap);
    gbl_free(l->client);
    sim_agent_free(l->agent);
    sim_loop_free(l->loop);
    sim_simulator_free(l->sim);
    free(l);
}

const sim_target *sim_local_target(sim_local *l)
{
    return &l->target;
}

sim_simulator *sim_local_simulator(sim_local *l)
{
    return l->sim;
}

sim_loop *sim_local_loop(sim_local *l)
{
    return l->loop;
}

tap *sim_local_test_ap(sim_local *l)
{
    return l->ap;
}

sim_agent *sim_local_agent(sim_local *l)
{
    return l->agent;
}
