// SPDX-License-Identifier: MIT
// Lockstep (docs/timing-in-sim.md): the grant rules (sim/lockstep.h) without I/O, then the
// simulator over a real gblink socket with a client in this process playing QEMU's
// greybus-es2 device at its barriers: the clock follows the device's stamps exactly, every
// message for the AP precedes the grant that ends its span, a held clock grants nothing,
// and peers that break the contract are dropped.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gblink/gblink.h"
#include "sim/lockstep.h"
#include "sim/simulator.h"
#include "tests/unit/unit.h"

/* ---- the rules ---- */

static void test_lockstep_grants_a_quantum_skips_idle_time_and_respects_holds(void)
{
    CU_ASSERT_PTR_NULL(sim_lockstep_new(&(sim_lockstep_cfg){ 0, 1000 }));
    CU_ASSERT_PTR_NULL(sim_lockstep_new(&(sim_lockstep_cfg){ 2000, 1000 }));
    sim_lockstep *ls = sim_lockstep_new(&(sim_lockstep_cfg){ 100000, 10000000 });
    CU_ASSERT_PTR_NOT_NULL_FATAL(ls);
    uint64_t g = 0;
    /* nothing reported: nothing to grant */
    CU_ASSERT_FALSE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, SIM_LOCKSTEP_NEVER, &g));
    /* idle: the longest grant */
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, 0), 0);
    CU_ASSERT_TRUE(sim_lockstep_waiting(ls));
    CU_ASSERT_TRUE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, SIM_LOCKSTEP_NEVER, &g));
    CU_ASSERT_EQUAL(g, 10000000);
    CU_ASSERT_FALSE(sim_lockstep_waiting(ls));
    CU_ASSERT_FALSE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, SIM_LOCKSTEP_NEVER, &g));
    /* an event within the quantum: one quantum (its output waits for the next barrier) */
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, 10000003), 0); /* a few ns past the grant */
    CU_ASSERT_TRUE(sim_lockstep_grant(ls, 10000050, SIM_LOCKSTEP_NEVER, &g));
    CU_ASSERT_EQUAL(g, 10100003);
    /* an event further away: straight to it */
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, 10100003), 0);
    CU_ASSERT_TRUE(sim_lockstep_grant(ls, 13000000, SIM_LOCKSTEP_NEVER, &g));
    CU_ASSERT_EQUAL(g, 13000000);
    /* a hold in the span cuts the grant there */
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, 13000000), 0);
    CU_ASSERT_TRUE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, 13000030, &g));
    CU_ASSERT_EQUAL(g, 13000030);
    /* held at or before the peer's time: nothing until the hold moves */
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, 13000030), 0);
    CU_ASSERT_FALSE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, 13000030, &g));
    CU_ASSERT_FALSE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, 13000000, &g));
    CU_ASSERT_TRUE(sim_lockstep_waiting(ls));
    CU_ASSERT_TRUE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, 13050030, &g));
    CU_ASSERT_EQUAL(g, 13050030);
    /* time never goes back */
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, 13000000), -EINVAL);
    CU_ASSERT_EQUAL(sim_lockstep_peer_time(ls), 13000030);
    sim_lockstep_stats st;
    sim_lockstep_get_stats(ls, &st);
    CU_ASSERT_EQUAL(st.reports, 5);
    CU_ASSERT_EQUAL(st.grants, 5);
    CU_ASSERT_EQUAL(st.holds, 1);
    CU_ASSERT_EQUAL(st.skips, 2);
    /* a new connection starts from 0 again */
    sim_lockstep_reset(ls);
    CU_ASSERT_FALSE(sim_lockstep_waiting(ls));
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, 0), 0);
    /* the far end of time saturates instead of wrapping */
    sim_lockstep_reset(ls);
    CU_ASSERT_EQUAL(sim_lockstep_reached(ls, UINT64_MAX - 5), 0);
    CU_ASSERT_TRUE(sim_lockstep_grant(ls, SIM_LOCKSTEP_NEVER, SIM_LOCKSTEP_NEVER, &g));
    CU_ASSERT_EQUAL(g, UINT64_MAX);
    sim_lockstep_free(ls);
}

/* ---- the simulator and a device at its barriers ---- */

typedef struct peer {
    sim_simulator *sim;
    gbl_link *l;
    char path[64];
    unsigned hellos, grants, msgs, late_msgs;
    uint64_t reported;   /* the time of the last barrier reported */
    uint64_t grant_ns;   /* the last grant */
    bool granted;        /* a grant arrived since the last report */
    bool down;
} peer;

static void peer_record(void *ctx, const gbl_record *rec)
{
    peer *p = ctx;
    if (rec->type == GBL_T_HELLO)
        p->hellos++;
    if (rec->type == GBL_T_TIME_GRANT) {
        gbl_time_grant g;
        memcpy(&g, rec->payload, sizeof g);
        p->grants++;
        p->grant_ns = g.until_ns;
        p->granted = true;
    }
    if (rec->type == GBL_T_GB_MESSAGE) {
        p->msgs++;
        /* stamped within the span reported, and before the grant that ends it */
        if (rec->time_ns > p->reported || p->granted)
            p->late_msgs++;
    }
}

static void peer_down(void *ctx, int err, const char *why)
{
    (void)err;
    (void)why;
    ((peer *)ctx)->down = true;
}

static void step(peer *p)
{
    sim_simulator_process(p->sim, sim_simulator_clock_now(p->sim, 0));
    gbl_process(p->l);
}

static bool wait_grant(peer *p)
{
    for (int i = 0; i < 400 && !p->granted && !p->down; i++)
        step(p);
    return p->granted;
}

static void report(peer *p, uint64_t t)
{
    gbl_time_grant g = { .until_ns = t };
    p->granted = false;
    p->reported = t;
    CU_ASSERT_EQUAL(gbl_send_msg(p->l, GBL_T_TIME_GRANT, GBL_CPORT_NONE, 0, t, &g, sizeof g), 0);
}

static FILE *sim_log_to; /* where lockstep_sim's simulator logs warnings (NULL: errors only) */

static sim_simulator *lockstep_sim(const char *path, char *err, size_t errlen)
{
    sim_config c = { .link_path = path, .num_slots = 2, .log = sim_log_to,
                     .log_level = sim_log_to ? SW_LOG_WARN : SW_LOG_ERROR,
                     .clock = SIM_CLOCK_LOCKSTEP, .timing = SW_TIMING_FRAME,
                     .lockstep = { .quantum_ns = 100000, .quantum_max_ns = 10000000 } };
    return sim_simulator_new(&c, err, errlen);
}

static void peer_up(peer *p, uint32_t features)
{
    memset(p, 0, sizeof *p);
    unit_tmp_path(p->path, sizeof p->path, "lockstep.sock");
    char err[256];
    p->sim = lockstep_sim(p->path, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->sim);
    gbl_callbacks cb = { .record = peer_record, .down = peer_down };
    gbl_config lc = { .name = "test es2", .features = features };
    p->l = gbl_client_new(p->path, &lc, &cb, p, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->l);
    CU_ASSERT_EQUAL_FATAL(gbl_connect(p->l), 0);
    for (int i = 0; i < 200 && gbl_state(p->l) == GBL_STATE_HANDSHAKE; i++)
        step(p);
}

static void peer_free(peer *p)
{
    gbl_free(p->l);
    sim_simulator_free(p->sim);
}

static void test_lockstep_simulator_follows_the_device_clock(void)
{
    peer p;
    peer_up(&p, GBL_FEATURE_LOCKSTEP);
    CU_ASSERT_EQUAL_FATAL(gbl_state(p.l), GBL_STATE_UP);
    CU_ASSERT(gbl_features(p.l) & GBL_FEATURE_LOCKSTEP);
    for (int i = 0; i < 20 && !p.hellos; i++)
        step(&p);
    CU_ASSERT_EQUAL(p.hellos, 1);
    /* parked at 0 with nothing to do: the simulator skips the idle span */
    report(&p, 0);
    CU_ASSERT_TRUE_FATAL(wait_grant(&p));
    CU_ASSERT_EQUAL(p.grant_ns, 10000000);
    CU_ASSERT_EQUAL(sim_simulator_now(p.sim), 0);
    /* the AP opens the SVC connection at 1 ms: handled at its stamp, then the span runs */
    CU_ASSERT_EQUAL(gbl_send_msg(p.l, GBL_T_CPORT_CONNECTED, 0, 1, 1000000, NULL, 0), 0);
    for (int i = 0; i < 20; i++)
        step(&p);
    CU_ASSERT_EQUAL(sim_simulator_now(p.sim), SIM_MS(1)); /* not beyond the device */
    report(&p, 2000000);
    CU_ASSERT_TRUE_FATAL(wait_grant(&p));
    CU_ASSERT_EQUAL(sim_simulator_now(p.sim), SIM_MS(2));
    CU_ASSERT(p.grant_ns > 2000000 && p.grant_ns <= 12000000);
    /* barrier after barrier until the SVC's first request reaches the AP */
    for (int i = 0; i < 1000 && !p.msgs; i++) {
        report(&p, p.grant_ns);
        CU_ASSERT_TRUE_FATAL(wait_grant(&p));
        CU_ASSERT_EQUAL(sim_simulator_now(p.sim), (sim_time)p.reported * 1000u);
    }
    CU_ASSERT(p.msgs >= 1);
    CU_ASSERT_EQUAL(p.late_msgs, 0);
    /* held at the device's time: no grant, however long it waits */
    uint64_t t = p.grant_ns;
    sim_simulator_hold(p.sim, (sim_time)t * 1000u);
    report(&p, t);
    CU_ASSERT_FALSE(wait_grant(&p));
    /* held a little further: the grant ends exactly there */
    sim_simulator_hold(p.sim, (sim_time)(t + 30000) * 1000u);
    CU_ASSERT_TRUE_FATAL(wait_grant(&p));
    CU_ASSERT_EQUAL(p.grant_ns, t + 30000);
    sim_simulator_hold(p.sim, SIM_TIME_MAX);
    sim_lockstep_stats st;
    sim_simulator_lockstep_stats(p.sim, &st);
    CU_ASSERT_EQUAL(st.grants, p.grants);
    CU_ASSERT_EQUAL(st.holds, 1);
    /* a device whose time goes back breaks the contract: dropped */
    report(&p, t - 1000);
    for (int i = 0; i < 50 && !p.down; i++)
        step(&p);
    CU_ASSERT_TRUE(p.down);
    peer_free(&p);
}

static sim_time fake_wall_now;

static sim_time fake_wall(void *ctx)
{
    (void)ctx;
    return fake_wall_now;
}

static bool log_says(FILE *log, const char *what)
{
    char text[4096];
    fflush(log);
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = 0;
    fseek(log, 0, SEEK_END);
    return strstr(text, what) != NULL;
}

/* A QEMU that was granted time and then reports nothing (stopped, in a debugger) stops the
 * clock and every client waiting on it: the log says so after 30 s of wall time, once, and
 * again when QEMU comes back. A QEMU the simulator holds is not waited for: no word then. */
static void test_lockstep_tells_of_a_device_that_stops_reporting(void)
{
    char logpath[64];
    unit_tmp_path(logpath, sizeof logpath, "lockstep_quiet.log");
    FILE *log = fopen(logpath, "w+");
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    sim_log_to = log;
    peer p;
    peer_up(&p, GBL_FEATURE_LOCKSTEP);
    sim_log_to = NULL;
    fake_wall_now = SIM_S(100);
    sim_simulator_set_wall_clock(p.sim, fake_wall, NULL);
    report(&p, 0);
    CU_ASSERT_TRUE_FATAL(wait_grant(&p));
    fake_wall_now += SIM_S(29);
    step(&p);
    CU_ASSERT_FALSE(log_says(log, "reported nothing"));
    fake_wall_now += SIM_S(2);
    step(&p);
    step(&p);
    CU_ASSERT_TRUE(log_says(log, "QEMU has reported nothing for 31 s of wall time since it "
                                 "was granted its virtual time up to 0.010000 s"));
    report(&p, p.grant_ns);
    CU_ASSERT_TRUE_FATAL(wait_grant(&p));
    CU_ASSERT_TRUE(log_says(log, "QEMU reports again, after 31.0 s"));
    /* held: QEMU waits for the simulator, not the other way round */
    sim_simulator_hold(p.sim, (sim_time)p.grant_ns * 1000u);
    report(&p, p.grant_ns);
    CU_ASSERT_FALSE(wait_grant(&p));
    fake_wall_now += SIM_S(60);
    step(&p);
    fclose(log);
    log = fopen(logpath, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = 0;
    fclose(log);
    const char *first = strstr(text, "reported nothing");
    CU_ASSERT_PTR_NOT_NULL(first);
    CU_ASSERT_PTR_NULL(first ? strstr(first + 1, "reported nothing") : NULL); /* once */
    sim_simulator_set_wall_clock(p.sim, NULL, NULL);
    peer_free(&p);
    unlink(logpath);
}

static void test_lockstep_refuses_what_cannot_keep_one_clock(void)
{
    /* a device that does not offer lockstep is dropped (QEMU would run on its own) */
    peer p;
    peer_up(&p, 0);
    for (int i = 0; i < 50 && !p.down; i++)
        step(&p);
    CU_ASSERT_TRUE(p.down);
    CU_ASSERT_NOT_EQUAL(gbl_state(p.l), GBL_STATE_UP);
    peer_free(&p);
    /* lockstep without QEMU, or with a longest grant below the quantum: refused */
    char err[256];
    sim_config c = { .num_slots = 2, .log_level = SW_LOG_ERROR, .clock = SIM_CLOCK_LOCKSTEP };
    CU_ASSERT_PTR_NULL(sim_simulator_new(&c, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "gblink socket"));
    char bad[64];
    c.link_path = unit_tmp_path(bad, sizeof bad, "lockstep-bad.sock");
    c.lockstep = (sim_lockstep_cfg){ .quantum_ns = 200000, .quantum_max_ns = 100000 };
    CU_ASSERT_PTR_NULL(sim_simulator_new(&c, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "longest grant"));
    /* the words of --clock */
    sim_clock k;
    CU_ASSERT_EQUAL(sim_clock_parse("lockstep", &k), 0);
    CU_ASSERT_EQUAL(k, SIM_CLOCK_LOCKSTEP);
    CU_ASSERT_STRING_EQUAL(sim_clock_name(SIM_CLOCK_LOCKSTEP), "lockstep");
}

static const unit_test lockstep_tests[] = {
    UNIT_TEST(test_lockstep_grants_a_quantum_skips_idle_time_and_respects_holds),
    UNIT_TEST(test_lockstep_simulator_follows_the_device_clock),
    UNIT_TEST(test_lockstep_refuses_what_cannot_keep_one_clock),
    UNIT_TEST(test_lockstep_tells_of_a_device_that_stops_reporting),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "lockstep", lockstep_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
