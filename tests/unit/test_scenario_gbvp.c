// SPDX-License-Identifier: MIT
// The targets on gbvp sim's simulator object reached over gblink: scripts drive it with the
// test AP across a real gblink connection (gbvp-sim); in guest mode, an AP in another
// process (standing in for QEMU and its guest) is served by the one event loop while the
// script waits; the control socket serves such a simulator, typed commands included.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ap-model/ap.h"
#include "ap-model/ap_gblink.h"
#include "gblink/gblink.h"
#include "gbvp/ctl/ctl_server.h"
#include "gbvp/scenario/scenario.h"
#include "gbvp/target/target_local.h"
#include "tests/unit/unit.h"

/* Runs `code`, or the file `code` names when it starts with '@'. */
static int run_script(const sim_target *t, const char *code, char *err, size_t len)
{
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    static const char *const args[] = { "cycles=12" };
    sim_scenario_config c = { .seed = 3, .timeout_s = 60, .tap = f, .args = args, .nargs = 1 };
    char e[128];
    sim_scenario *sc = sim_scenario_new(&c, t, e, sizeof e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
    int rc = code[0] == '@' ? sim_scenario_run_file(sc, code + 1)
                            : sim_scenario_run_string(sc, "=g.lua", code);
    snprintf(err, len, "%s", sim_scenario_error(sc) ? sim_scenario_error(sc)
                             : sim_scenario_first_failure(sc) ? sim_scenario_first_failure(sc)
                                                              : "");
    if (rc)
        fprintf(stderr, "\n    %s\n", err);
    sim_scenario_free(sc);
    fclose(f);
    free(out);
    return rc;
}

static void test_gbvp_target_with_test_ap_runs_hotplug_over_gblink(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "sg.sock");
    sim_local_config lc = { .sim = { .link_path = path, .num_slots = 4 },
                            .ap = SIM_LOCAL_TEST_AP_GBLINK };
    sim_local *g = sim_local_new(&lc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    const sim_target *t = sim_local_target(g);
    CU_ASSERT_EQUAL(run_script(t,
        "gbvp.check(gbvp.features.test_ap and gbvp.features.backends, 'features')\n"
        "for i = 1, 20 do\n"
        "  local slot = gbvp.random(0, 3)\n"
        "  local id = gbvp.insert(slot, i % 2 == 0 and 'sensor' or 'vibrator')\n"
        "  gbvp.assert_eq(gbvp.interface_state(id), 'activated', 'enumerated')\n"
        "  gbvp.assert(gbvp.interface(id).enabled, 'enabled')\n"
        "  gbvp.wait(gbvp.random(1, 3000))\n"
        "  gbvp.remove(slot)\n"
        "  gbvp.assert_eq(gbvp.interface_state(id), 'absent', 'removed')\n"
        "end\n"
        "gbvp.check(gbvp.stats().pings >= 5, 'the AP pinged the SVC as time passed')\n"
        "gbvp.check_eq(gbvp.stats().connections, 0, 'no connection left')\n",
        err, sizeof err), 0);
    /* the typed backend commands work here as on every target, and a module can be a
     * manifest file */
    CU_ASSERT_EQUAL(run_script(t, "gbvp.insert(0, 'battery')\n"
                                  "gbvp.battery_set(0, 'capacity', 37)\n"
                                  "gbvp.assert_eq(gbvp.battery_get(0, 'capacity'), 37, 'cap')\n"
                                  "gbvp.insert(1, 'virtual-modules/catalog/vibrator.mnfs')\n"
                                  "gbvp.assert_eq(gbvp.module(1), 'vibrator', 'by path')\n"
                                  "gbvp.remove(0) gbvp.remove(1)\n",
                               err, sizeof err), 0);
    CU_ASSERT_EQUAL(run_script(t, "gbvp.insert(1, 'dir/x.mnfs')\n", err, sizeof err), 1);
    /* the folder of a path that names none is what is missing, and the error says so */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no module 'x': catalog folder dir: No such file"));
    sim_local_free(g);
}

/* ---- an AP in another process, as QEMU's guest would be ---- */

typedef struct child {
    gbl_link *client;
    tap *ap;
    struct timespec t0;
    bool delivered; /* a message went into the AP's inbox since the last pump */
    uint32_t next_id; /* of CPort control records */
} child;

static sim_time child_now(child *c)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (sim_time)((int64_t)(t.tv_sec - c->t0.tv_sec) * 1000000000 +
                      (t.tv_nsec - c->t0.tv_nsec)) * 1000u;
}

static void child_record(void *ctx, const gbl_record *rec)
{
    child *c = ctx;
    if (rec->type == GBL_T_GB_MESSAGE && c->ap) {
        tap_deliver(c->ap, rec->cport, rec->payload, rec->len);
        c->delivered = true;
    }
}

/* Waits a quiet moment (20 ms of wall time) for a record, but returns at once when a
 * message reached the AP's inbox since the last call: the test AP's probe pumps before it
 * looks at its inbox, and must not sit on a request it has to answer. The AP keeps its
 * clock on the wall clock and times its operations out on it, as the guest kernel does
 * (a wall-clock transport): however slow the parent is under load, a quiet moment here is
 * never taken for a lost answer. */
static bool child_pump(void *ctx)
{
    child *c = ctx;
    if (c->delivered) {
        c->delivered = false;
        return true;
    }
    sim_time end = child_now(c) + SIM_MS(20);
    for (;;) {
        sim_time now = child_now(c);
        if (c->ap)
            tap_set_now(c->ap, now);
        if (gbl_process(c->client) > 0)
            return true;
        if (now >= end)
            return false;
        struct pollfd p = { .fd = gbl_fd(c->client), .events = POLLIN };
        poll(&p, 1, 5);
    }
}

static void child_send(void *ctx, uint16_t cport, const uint8_t *msg, size_t len)
{
    child *c = ctx;
    uint8_t buf[2048];
    memcpy(buf, msg, len);
    buf[6] = (uint8_t)cport;
    int rc = gbl_send_msg(c->client, GBL_T_GB_MESSAGE, cport, 0, 0, buf, (uint32_t)len);
    if (rc && getenv("V"))
        fprintf(stderr, "child: send on hd CPort %u: %d %s\n", cport, rc, gbl_error(c->client));
}

static void child_ctl(void *ctx, const char *what, uint16_t cport, uint32_t flags)
{
    child *c = ctx;
    tap_gblink_ctl r;
    if (tap_gblink_ctl_record(what, flags, &r))
        _exit(5); /* the AP asked for a control the ES2 device does not have */
    gbl_send_msg(c->client, r.type, cport, ++c->next_id, 0, r.payload, r.len);
    child_pump(c);
}

static void child_main(const char *path, pid_t parent)
{
    child c = { 0 };
    clock_gettime(CLOCK_MONOTONIC, &c.t0);
    gbl_callbacks cb = { .record = child_record };
    gbl_config lc = { .name = "test guest" };
    char err[256];
    for (int i = 0; i < 200 && !c.client; i++) {
        c.client = gbl_client_new(path, &lc, &cb, &c, err, sizeof err);
        if (c.client && gbl_connect(c.client)) {
            gbl_free(c.client);
            c.client = NULL;
        }
        if (!c.client)
            usleep(10000);
    }
    if (!c.client)
        _exit(3);
    while (gbl_state(c.client) != GBL_STATE_UP)
        child_pump(&c);
    tap_transport tr = { .send = child_send, .cport_ctl = child_ctl, .pump = child_pump,
                         .ctx = &c, .wall_clock = true };
    tap_config tc = { .transport = &tr, .verbose = getenv("V") != NULL };
    c.ap = tap_new(&tc);
    if (!c.ap || tap_probe(c.ap)) {
        if (c.ap && getenv("V"))
            tap_trace_dump(c.ap);
        _exit(4);
    }
    while (getppid() == parent) { /* until the parent kills it (or is gone) */
        child_pump(&c);
        tap_run(c.ap);
    }
    _exit(0);
}

/* Guest mode against a test AP in a child process (as QEMU's guest would be): the child
 * connects to `path`, the target waits for it. NULL (reported) when it did not come up. */
typedef struct guest_rig {
    char path[64];
    pid_t pid;
} guest_rig;

static sim_local *guest_rig_start(guest_rig *r, const char *name, sw_timing timing)
{
    char err[320], file[48];
    snprintf(file, sizeof file, "%s.sock", name);
    unit_tmp_path(r->path, sizeof r->path, file);
    unlink(r->path);
    pid_t parent = getpid();
    r->pid = fork();
    CU_ASSERT_FATAL(r->pid >= 0);
    if (r->pid == 0)
        child_main(r->path, parent);
    sim_local_config lc = { .sim = { .link_path = r->path, .num_slots = 4, .timing = timing,
                                     .log_level = getenv("V") ? SW_LOG_DEBUG : SW_LOG_ERROR },
                            .ap = SIM_LOCAL_GUEST, .connect_timeout_s = 5 };
    sim_local *g = sim_local_new(&lc, err, sizeof err);
    if (!g)
        fprintf(stderr, "\n    %s\n", err);
    CU_ASSERT_PTR_NOT_NULL(g);
    return g;
}

static void guest_rig_stop(guest_rig *r, sim_local *g)
{
    sim_local_free(g);
    int st = 0;
    if (waitpid(r->pid, &st, WNOHANG) == r->pid)
        fprintf(stderr, "\n    the AP process ended early: status %d\n", WEXITSTATUS(st));
    kill(r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
    unlink(r->path);
}

static void test_gbvp_target_guest_mode_serves_the_ap_while_the_script_waits(void)
{
    char err[256];
    guest_rig rig;
    sim_local *g = guest_rig_start(&rig, "sgg", SW_TIMING_DIRECT);
    if (g) {
        CU_ASSERT_EQUAL(run_script(sim_local_target(g),
            "gbvp.check(not gbvp.features.test_ap, 'no test AP hooks')\n"
            "local id = gbvp.insert(2, 'sensor')\n"
            "gbvp.wait_for(function() return gbvp.interface(id).enabled end, 30000)\n"
            "gbvp.check_eq(gbvp.module(2), 'sensor', 'module name')\n"
            "gbvp.remove(2)\n"
            "gbvp.wait_for(function() return gbvp.interface_state(id) == 'absent' end, 30000)\n"
            /* the AP's process tears them down on its own time, after the SVC said so */
            "-- (30 s: the AP is another process, slow under ASan on a loaded host)\n"
            "local torn, why = pcall(gbvp.wait_for,\n"
            "                        function() return gbvp.stats().connections == 0 end, 30000)\n"
            "gbvp.check(torn, 'AP tore the connections down', why)\n"
            "local ok, e = pcall(gbvp.guest, 'true')\n"
            "gbvp.check(not ok and e:find('no guest is attached'), 'no agent given')\n",
            err, sizeof err), 0);
        /* the scenarios of scenarios/ run (or skip) against an AP that is not the
         * in-process test AP, as they will against QEMU's guest */
        static const char *const files[] = {
            "@scenarios/hotplug_basic.lua", "@scenarios/hotplug_during_enumeration.lua",
            "@scenarios/hotplug_storm.lua", "@scenarios/battery_drain_charge.lua",
            "@scenarios/gpio_irq_roundtrip.lua",
        };
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
            CU_ASSERT_EQUAL(run_script(sim_local_target(g), files[i], err, sizeof err), 0);
    }
    guest_rig_stop(&rig, g);
}

/* Guest mode with the frame-level model: gbvp.fault's delay and down_for are applied by the
 * loop while the script waits (wall-clock milliseconds). */
static void test_gbvp_target_guest_mode_applies_timed_link_faults(void)
{
    char err[256];
    guest_rig rig;
    sim_local *g = guest_rig_start(&rig, "sgf", SW_TIMING_FRAME);
    if (g) {
        CU_ASSERT_EQUAL(run_script(sim_local_target(g),
            "gbvp.check(gbvp.features.link_model, 'the link model is on')\n"
            "local id = gbvp.insert(2, 'sensor')\n"
            "gbvp.wait_for(function() return gbvp.interface(id).enabled end, 10000)\n"
            "gbvp.wait_for(function() return (pcall(gbvp.link_stats, 2)) end, 10000)\n"
            "gbvp.check_eq(gbvp.link_stats(2).state, 'up', 'up once it carried traffic')\n"
            "gbvp.fault(2, { down = true, down_for = 100 })\n"
            "gbvp.check_eq(gbvp.link_stats(2).state, 'down', 'down at once')\n"
            "gbvp.wait_for(function() return gbvp.link_stats(2).state == 'up' end, 10000)\n"
            "gbvp.fault(2, { down = true, delay = 100, down_for = 60000 })\n"
            "gbvp.check_eq(gbvp.link_stats(2).state, 'up', 'not down before the delay')\n"
            "gbvp.wait_for(function() return gbvp.link_stats(2).state == 'down' end, 10000)\n"
            "gbvp.fault(2, { down = false })\n"
            "gbvp.wait_for(function() return gbvp.link_stats(2).state == 'up' end, 10000)\n"
            "gbvp.remove(2)\n",
            err, sizeof err), 0);
    }
    guest_rig_stop(&rig, g);
}

static void test_gbvp_target_guest_mode_times_out_without_qemu(void)
{
    char err[320] = "", path[64];
    unit_tmp_path(path, sizeof path, "noqemu.sock");
    sim_local_config lc = { .sim = { .link_path = path }, .ap = SIM_LOCAL_GUEST,
                            .connect_timeout_s = 1 };
    CU_ASSERT_PTR_NULL(sim_local_new(&lc, err, sizeof err));
    if (!strstr(err, "no AP completed the SVC handshake within 1 s"))
        fprintf(stderr, "\n    %s\n", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no AP completed the SVC handshake within 1 s"));
}

static bool reply_has(sim_ctl *c, const char *line, const char *want)
{
    char *rep = sim_ctl_handle_line(c, line, strlen(line));
    bool ok = rep && strstr(rep, want);
    if (!ok)
        fprintf(stderr, "\n    %s -> %s (wanted %s)\n", line, rep ? rep : "NULL", want);
    free(rep);
    return ok;
}

static void ignore_record(void *ctx, const gbl_record *rec)
{
    (void)ctx;
    (void)rec;
}

static void ignore_event(void *ctx)
{
    (void)ctx;
}

static void ignore_down(void *ctx, int err, const char *why)
{
    (void)ctx;
    (void)err;
    (void)why;
}

/* A QEMU that connects and then only holds its place. */
static const gbl_callbacks quiet_peer = {
    .record = ignore_record, .up = ignore_event, .down = ignore_down, .writable = ignore_event,
};

/* A peer on the gblink socket that says nothing. */
static int raw_peer(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    CU_ASSERT_FATAL(s >= 0);
    CU_ASSERT_EQUAL(connect(s, (struct sockaddr *)&sa, sizeof sa), 0);
    return s;
}

/* gbvp sim's setup: a simulator waiting for QEMU, served by the control socket. */
static void test_control_on_gbvp_sim_inserts_removes_and_drives_backends(void)
{
    char link[64], ctl[64], err[320];
    unit_tmp_path(link, sizeof link, "cg.sock");
    unit_tmp_path(ctl, sizeof ctl, "cgc.sock");
    sim_local_config lc = { .sim = { .link_path = link, .num_slots = 4,
                                     .log_level = SW_LOG_ERROR },
                            .ap = SIM_LOCAL_GUEST };
    sim_local *s = sim_local_new(&lc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    sim_ctl *c = sim_ctl_new(ctl, sim_local_target(s), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"insert\",\"slot\":1,\"module\":\"battery\"}",
                             "{\"interface\":3,\"ok\":true}"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"status\"}", "\"target\":\"gbvp-sim+guest\""));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"status\"}", "\"module\":\"battery\""));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"interface\",\"interface\":3}", "\"present\":true"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"battery_set\",\"slot\":1,\"property\":\"capacity\","
                                "\"value\":21}", "\"notified\":false"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"battery_get\",\"slot\":1,\"property\":\"capacity\"}",
                             "\"value\":21"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"gpio_get\",\"slot\":1,\"line\":0}",
                             "\"error\":\"the module in slot 1 (battery) has no GPIO controller\""));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"gpio_get\",\"slot\":1,\"line\":0}",
                             "\"code\":\"ENODEV\""));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"wait\",\"ms\":10}", "\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"cmd\",\"slot\":1,\"line\":\"battery set capacity 33\"}",
                             "\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"cmd\",\"slot\":1,\"line\":\"battery get capacity\"}",
                             "\"reply\":\"33\""));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"cmd\",\"slot\":1,\"line\":\"bogus\"}",
                             "\"ok\":false,\"error\":\"expected CLASS"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"cmd\",\"slot\":1,\"line\":\"x\",\"index\":9}",
                             "field 'index' is 9"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"insert\",\"slot\":0,\"module\":\"nope\"}",
                             "no catalog entry 'nope'"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"remove\",\"slot\":1}", "\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"remove\",\"slot\":1}", "the slot is empty"));
    /* the QEMU link's counters: nothing lost yet; a second peer while one is connected is
     * turned away, and counted */
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"stats\"}",
                             "\"qemu_records_queued\":0,\"qemu_queue_peak\":0,"
                             "\"qemu_records_waiting\":0,\"qemu_messages_dropped\":0,"
                             "\"qemu_answers_dropped\":0,\"qemu_records_discarded\":0,"
                             "\"qemu_messages_no_peer\":0,\"qemu_messages_too_big\":0,"
                             "\"qemu_records_refused\":0,\"qemu_peers_refused\":0"));
    gbl_link *first = gbl_client_new(link, NULL, &quiet_peer, NULL, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT_EQUAL(gbl_connect(first), 0); /* its hello is on its way */
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"wait\",\"ms\":20}", "\"ok\":true"));
    int second = raw_peer(link);
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"wait\",\"ms\":20}", "\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(c, "{\"cmd\":\"stats\"}", "\"qemu_peers_refused\":1,"));
    close(second);
    gbl_free(first);
    sim_ctl_free(c);
    sim_local_free(s);
}

static const unit_test tests[] = {
    UNIT_TEST(test_control_on_gbvp_sim_inserts_removes_and_drives_backends),
    UNIT_TEST(test_gbvp_target_with_test_ap_runs_hotplug_over_gblink),
    UNIT_TEST(test_gbvp_target_guest_mode_serves_the_ap_while_the_script_waits),
    UNIT_TEST(test_gbvp_target_guest_mode_times_out_without_qemu),
    UNIT_TEST(test_gbvp_target_guest_mode_applies_timed_link_faults),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "scenario_gbvp", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
