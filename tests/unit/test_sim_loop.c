// SPDX-License-Identifier: MIT
// The event loop's waits (sim/loop.h): a timed wait for the next modelled event ends on time,
// not up to Linux's default 50 us timer slack later; the bounded busy-poll (--spin) takes
// QEMU's next record from the ring without sleeping, after a pass that did work only; a
// realtime record is handled at the time it is read, not at the time its pass began.
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gblink/gblink.h"
#include "sim/loop.h"
#include "tests/unit/unit.h"

/* In a child: the slack is the thread's, and the test binary keeps its own. */
static void test_a_loop_sets_its_thread_timer_slack_to_one_microsecond(void)
{
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        if (prctl(PR_SET_TIMERSLACK, 50000UL, 0UL, 0UL, 0UL))
            _exit(1);
        sim_loop *l = sim_loop_new(NULL); /* (the simulator is only borrowed, not used here) */
        int slack = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
        sim_loop_free(l);
        _exit(l && slack == 1000 ? 0 : 2);
    }
    int st = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

typedef struct client {
    unsigned hellos, results;
    uint64_t result_ns; /* the stamp of the last result */
} client;

static void client_record(void *ctx, const gbl_record *rec)
{
    client *c = ctx;
    c->hellos += rec->type == GBL_T_HELLO;
    c->results += rec->type == GBL_T_RESULT;
    if (rec->type == GBL_T_RESULT)
        c->result_ns = rec->time_ns;
}

/* A realtime simulator on a gblink socket (`tag` names it), its loop and a client playing
 * greybus-es2, connected and past the hello. */
typedef struct world {
    char path[64];
    sim_simulator *sim;
    sim_loop *l;
    client cl;
    gbl_link *es2;
} world;

static bool world_up(world *w, const char *tag)
{
    char err[256], file[48];
    snprintf(file, sizeof file, "loop%s.sock", tag);
    unit_tmp_path(w->path, sizeof w->path, file);
    sim_config c = { .link_path = w->path, .num_slots = 1, .log_level = SW_LOG_ERROR };
    w->sim = sim_simulator_new(&c, err, sizeof err);
    w->l = w->sim ? sim_loop_new(w->sim) : NULL;
    gbl_callbacks cb = { .record = client_record };
    gbl_config lc = { .name = "test es2" };
    w->es2 = w->l ? gbl_client_new(w->path, &lc, &cb, &w->cl, err, sizeof err) : NULL;
    if (!w->es2 || gbl_connect(w->es2))
        return false;
    for (int i = 0; i < 400 && (gbl_state(w->es2) != GBL_STATE_UP || !w->cl.hellos); i++) {
        sim_loop_once(w->l, SIM_MS(1));
        gbl_process(w->es2);
    }
    return gbl_state(w->es2) == GBL_STATE_UP;
}

static void world_down(world *w)
{
    gbl_free(w->es2);
    sim_loop_free(w->l);
    sim_simulator_free(w->sim);
}

/* The realtime simulator on a gblink socket, a client playing greybus-es2 and a loop
 * spinning up to 500 us. */
static void test_spin_takes_waiting_input_and_an_idle_loop_never_spins(void)
{
    world w = { 0 };
    CU_ASSERT_FATAL(world_up(&w, ""));
    sim_loop *l = w.l;
    gbl_link *es2 = w.es2;
    client *cl = &w.cl;
    sim_loop_set_spin(l, SIM_US(500));

    /* idle: at most the one wait after the last busy pass spins */
    sim_loop_spin_stats a, b;
    for (int i = 0; i < 5; i++)
        sim_loop_once(l, SIM_MS(1));
    sim_loop_get_spin_stats(l, &a);
    for (int i = 0; i < 5; i++)
        sim_loop_once(l, SIM_MS(1));
    sim_loop_get_spin_stats(l, &b);
    CU_ASSERT_EQUAL(b.spins, a.spins);

    /* a record makes a busy pass; the next one, written meanwhile, is seen in the ring at
     * once: the wait ends by input, without a sleep */
    CU_ASSERT_EQUAL(gbl_send_msg(es2, GBL_T_CPORT_FLUSH, 0, 1, 0, NULL, 0), 0);
    for (int i = 0; i < 20 && cl->results < 1; i++) {
        sim_loop_once(l, SIM_MS(1));
        gbl_process(es2);
    }
    CU_ASSERT_EQUAL(cl->results, 1);
    sim_loop_get_spin_stats(l, &a);
    CU_ASSERT_EQUAL(gbl_send_msg(es2, GBL_T_CPORT_FLUSH, 0, 2, 0, NULL, 0), 0);
    sim_loop_once(l, SIM_MS(100));
    sim_loop_get_spin_stats(l, &b);
    CU_ASSERT_EQUAL(b.spins, a.spins + 1);
    CU_ASSERT_EQUAL(b.input, a.input + 1);
    CU_ASSERT(b.spun - a.spun < SIM_US(500));
    for (int i = 0; i < 20 && cl->results < 2; i++) {
        sim_loop_once(l, SIM_MS(1));
        gbl_process(es2);
    }
    CU_ASSERT_EQUAL(cl->results, 2);

    /* no spin configured: never */
    sim_loop_set_spin(l, 0);
    sim_loop_get_spin_stats(l, &a);
    CU_ASSERT_EQUAL(gbl_send_msg(es2, GBL_T_CPORT_FLUSH, 0, 3, 0, NULL, 0), 0);
    for (int i = 0; i < 5; i++)
        sim_loop_once(l, SIM_MS(1));
    sim_loop_get_spin_stats(l, &b);
    CU_ASSERT_EQUAL(b.spins, a.spins);
    world_down(&w);
}

static sim_time fixed_clock(void *ctx)
{
    return *(const sim_time *)ctx;
}

/* Realtime: a pass takes its time before it reads the ring. A record QEMU wrote after that
 * must still enter at a time after it was written, or the guest could measure a round trip
 * shorter than the model's: the loop gives the simulator its clock, read per record. */
static void test_a_record_is_handled_at_the_time_it_is_read_not_the_pass_time(void)
{
    world w = { 0 };
    CU_ASSERT_FATAL(world_up(&w, "-rt"));
    sim_simulator *sim = w.sim;
    sim_loop *l = w.l;
    gbl_link *es2 = w.es2;
    client *cl = &w.cl;

    /* the pass's time (`stale`) was taken 20 ms before the record was written */
    sim_time stale = sim_simulator_now(sim);
    usleep(20000);
    sim_time written = sim_loop_wall(l);
    CU_ASSERT_EQUAL(gbl_send_msg(es2, GBL_T_CPORT_FLUSH, 0, 1, 0, NULL, 0), 0);
    sim_simulator_process(sim, stale);
    for (int i = 0; i < 100 && cl->results < 1; i++) {
        usleep(1000);
        gbl_process(es2);
    }
    CU_ASSERT_EQUAL_FATAL(cl->results, 1);
    CU_ASSERT(cl->result_ns * 1000u >= written);
    CU_ASSERT(sim_simulator_now(sim) >= written);

    /* the clock is the owner's: a given one is followed exactly */
    sim_time at = sim_simulator_now(sim) + SIM_S(5);
    sim_simulator_set_wall_clock(sim, fixed_clock, &at);
    CU_ASSERT_EQUAL(gbl_send_msg(es2, GBL_T_CPORT_FLUSH, 0, 2, 0, NULL, 0), 0);
    sim_simulator_process(sim, stale);
    for (int i = 0; i < 100 && cl->results < 2; i++) {
        usleep(1000);
        gbl_process(es2);
    }
    CU_ASSERT_EQUAL_FATAL(cl->results, 2);
    CU_ASSERT_EQUAL(cl->result_ns, at / 1000u);
    CU_ASSERT_EQUAL(sim_simulator_now(sim), at);
    world_down(&w);
}

static const unit_test tests[] = {
    UNIT_TEST(test_a_loop_sets_its_thread_timer_slack_to_one_microsecond),
    UNIT_TEST(test_spin_takes_waiting_input_and_an_idle_loop_never_spins),
    UNIT_TEST(test_a_record_is_handled_at_the_time_it_is_read_not_the_pass_time),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "sim_loop", tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
