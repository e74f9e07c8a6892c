// SPDX-License-Identifier: MIT
// Unit tests of sim/bridge.c's log: a debug line per message to and from the AP only while
// sim_bridge_log_messages says so (the simulator turns it off when its log drops debug
// lines), warnings always.
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "sim/bridge.h"
#include "tests/unit/unit.h"

#define LINES_MAX 32

typedef struct world {
    sim_event_kernel *k;
    sw_fabric *fabric;
    gb_svc *svc;
    sim_bridge *b;
    char lines[LINES_MAX][320];
    sw_log_level levels[LINES_MAX];
    unsigned n;
} world;

static void record(void *ctx, sw_log_level level, sim_time now, const char *line)
{
    (void)now;
    world *w = ctx;
    if (w->n == LINES_MAX || strncmp(line, "bridge:", 7) != 0)
        return;
    w->levels[w->n] = level;
    strncpy(w->lines[w->n], line, sizeof w->lines[0] - 1);
    w->n++;
}

static void world_new(world *w)
{
    memset(w, 0, sizeof *w);
    char err[200] = "";
    w->k = sim_event_kernel_new(0);
    sw_fabric_cfg fc = { .ports = 5, .ap_port = 1, .log = record, .log_ctx = w };
    w->fabric = sw_fabric_new(sim_event_kernel_scheduler(w->k), &fc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->fabric);
    gb_svc_config sc = { .num_slots = 2 };
    gb_svc_env env = { .log = record, .ctx = w };
    w->svc = gb_svc_new(&sc, &env, w->fabric, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->svc);
    w->b = sim_bridge_new(sim_event_kernel_scheduler(w->k), w->fabric, w->svc, 44, record, w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->b);
}

static void world_free(world *w)
{
    sim_bridge_free(w->b);
    gb_svc_free(w->svc);
    sw_fabric_free(w->fabric);
    sim_event_kernel_free(w->k);
}

/* A Greybus request of 8 bytes (header only) from the AP on hd CPort 3. */
static void from_ap(world *w, size_t len)
{
    uint8_t msg[8] = { 8, 0, 1, 0, 0x02, 0, 0, 0 };
    sim_bridge_from_ap(w->b, 3, msg, len, sim_event_kernel_now(w->k));
}

/* The log holds n lines, the last at `level` and containing `text`. */
static void expect_lines(const world *w, unsigned n, sw_log_level level, const char *text)
{
    CU_ASSERT_EQUAL_FATAL(w->n, n);
    CU_ASSERT_EQUAL(w->levels[n - 1], level);
    CU_ASSERT_PTR_NOT_NULL(strstr(w->lines[n - 1], text));
}

static void test_a_debug_line_per_message_only_when_asked(void)
{
    world w;
    world_new(&w);
    from_ap(&w, 8);
    expect_lines(&w, 1, SW_LOG_DEBUG, "<- AP hd CPort 3 to no connection");
    sim_bridge_log_messages(w.b, false);
    from_ap(&w, 8);
    CU_ASSERT_EQUAL(w.n, 1);
    /* a malformed message is still reported: that is a warning, not a debug line */
    from_ap(&w, 7);
    expect_lines(&w, 2, SW_LOG_WARN, "malformed message of 7 bytes");
    sim_bridge_log_messages(w.b, true);
    from_ap(&w, 8);
    expect_lines(&w, 3, SW_LOG_DEBUG, "<- AP hd CPort 3");
    world_free(&w);
}

static void test_a_bridge_without_a_log_stays_silent(void)
{
    world w;
    world_new(&w);
    sim_bridge_free(w.b);
    w.b = sim_bridge_new(sim_event_kernel_scheduler(w.k), w.fabric, w.svc, 44, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w.b);
    sim_bridge_log_messages(w.b, true); /* nothing to write to: stays off */
    from_ap(&w, 8);
    from_ap(&w, 7);
    CU_ASSERT_EQUAL(w.n, 0);
    CU_ASSERT_EQUAL(sim_bridge_get_stats(w.b).refused, 1);
    world_free(&w);
}

static const unit_test bridge_tests[] = {
    UNIT_TEST(test_a_debug_line_per_message_only_when_asked),
    UNIT_TEST(test_a_bridge_without_a_log_stays_silent),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "sim_bridge", bridge_tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
