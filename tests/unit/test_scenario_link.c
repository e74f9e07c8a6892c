// SPDX-License-Identifier: MIT
// gbvp.link / gbvp.fault / gbvp.link_stats on the gbvp-sim target with --timing frame: the
// scripts drive gbvp sim's simulator object over a real gblink connection with the test AP;
// faults hit the modelled UniPro link of a slot while loopback traffic crosses it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbvp/scenario/scenario.h"
#include "gbvp/target/target_local.h"
#include "tests/unit/unit.h"

static sim_local *start(sw_timing timing)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "sl.sock");
    sim_local_config lc = { .sim = { .link_path = path, .num_slots = 4, .timing = timing },
                            .ap = SIM_LOCAL_TEST_AP_GBLINK };
    sim_local *g = sim_local_new(&lc, err, sizeof err);
    if (!g)
        fprintf(stderr, "\n    %s\n", err);
    return g;
}

/* 0 when the script passed; its error or first failure in err. */
static int run(sim_local *g, const char *code, char *err, size_t len)
{
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    sim_scenario_config c = { .seed = 1, .timeout_s = 120, .tap = f };
    char e[128];
    sim_scenario *sc = sim_scenario_new(&c, sim_local_target(g), e, sizeof e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
    int rc = sim_scenario_run_string(sc, "=l.lua", code);
    snprintf(err, len, "%s", sim_scenario_error(sc) ? sim_scenario_error(sc)
                             : sim_scenario_first_failure(sc) ? sim_scenario_first_failure(sc)
                                                              : "");
    sim_scenario_free(sc);
    fclose(f);
    free(out);
    return rc;
}

/* Inserts a loopback module in slot 1 and defines xfer(size, tag) -> ok. */
#define LOOPBACK_SETUP \
    "local slot = 1\n" \
    "local id = gbvp.insert(slot, 'loopback')\n" \
    "gbvp.wait_for(function() return gbvp.interface(id).enabled end, 2000)\n" \
    "local function xfer(n, tag)\n" \
    "  local d = string.rep(string.char(tag), n)\n" \
    "  local rc, r = gbvp.ap_request(id, 1, 3, string.pack('<I4I4I4', n, 0, 0) .. d, 12 + n)\n" \
    "  return rc == 0 and r:sub(13) == d\n" \
    "end\n" \
    "local function module_transfers()\n" \
    "  return tonumber(gbvp.cmd(slot, 'loopback stats'):match('transfers (%d+)'))\n" \
    "end\n"

/* Runs a script on the frame-level timing model; it must pass. */
static void expect_script_passes(const char *code)
{
    sim_local *g = start(SW_TIMING_FRAME);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    char err[512];
    int rc = run(g, code, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n    %s\n", err);
    CU_ASSERT_EQUAL(rc, 0);
    sim_local_free(g);
}

static void test_bit_errors_during_traffic_deliver_every_message_once_with_replays(void)
{
    expect_script_passes(LOOPBACK_SETUP
        "gbvp.assert(gbvp.features.link_model, 'link model')\n"
        "gbvp.link(slot, {gear = 3, mode = 'hs', series = 'A', lanes = 2})\n"
        "gbvp.wait(1)\n"
        "gbvp.assert_eq(gbvp.link_stats(slot).mode, 'HS-G3A x2', 'mode')\n"
        "local s0 = gbvp.link_stats(slot)\n"
        "local ok = 0\n"
        "for i = 1, 60 do\n"
        "  if i == 10 then gbvp.fault(slot, {ber = 2e-5}) end\n"
        "  if i == 50 then gbvp.fault(slot, {ber = 0}) end\n"
        "  if xfer(1500, i) then ok = ok + 1 end\n"
        "end\n"
        "local s = gbvp.link_stats(slot)\n"
        "gbvp.assert_eq(ok, 60, 'every transfer echoed its own data')\n"
        "gbvp.assert_eq(module_transfers(), 60, 'the module saw each transfer once')\n"
        "gbvp.assert_eq(s.to_intf_delivered, s.to_intf_sent, 'all delivered to the module')\n"
        "gbvp.assert_eq(s.from_intf_delivered, s.from_intf_sent, 'all delivered to the AP')\n"
        "gbvp.assert(s.crc_errors > s0.crc_errors, 'CRC errors counted')\n"
        "gbvp.assert(s.replays > s0.replays, 'replays counted')\n"
        "gbvp.assert_eq(s.ber, 0, 'the bit error rate was cleared')\n");
}

static void test_link_down_during_a_transfer_delays_it_and_loses_nothing(void)
{
    expect_script_passes(LOOPBACK_SETUP
        "gbvp.link(slot, {gear = 'HS-G2B'})\n"
        "gbvp.wait(1)\n"
        "gbvp.fault(slot, {down = true})\n"
        "gbvp.assert_eq(gbvp.link_stats(slot).state, 'down', 'down at once')\n"
        "gbvp.fault(slot, {down = false})\n"
        "local t0 = gbvp.now()\n"
        "gbvp.fault(slot, {down = true, delay = 0.014, down_for = 3})\n"
        "gbvp.assert(xfer(1000, 7), 'the transfer across the outage')\n"
        "gbvp.assert(gbvp.now() - t0 >= 3, 'it waited for the link')\n"
        "for i = 1, 5 do gbvp.assert(xfer(700, i), 'after the outage') end\n"
        "gbvp.assert_eq(gbvp.link_stats(slot).state, 'up', 'up again')\n"
        "gbvp.assert_eq(module_transfers(), 6, 'each transfer once')\n");
}

/* The AP bridge's own link ("ap"): the AP left it in PWM (as Linux 6.1 does); a faster gear
 * there shortens the transfers, and faults on it are repaired like any other link's. */
static void test_the_ap_link_can_be_changed_and_broken(void)
{
    expect_script_passes(LOOPBACK_SETUP
        "gbvp.link(slot, {gear = 'HS-G3B', lanes = 2})\n"
        "gbvp.wait(1)\n"
        "local function timed(n)\n"
        "  local t0 = gbvp.now()\n"
        "  for i = 1, n do gbvp.assert(xfer(2000, i), 'transfer') end\n"
        "  return (gbvp.now() - t0) / n\n"
        "end\n"
        "gbvp.assert(gbvp.link_stats('ap').mode:find('^PWM'), 'the AP link starts in PWM')\n"
        "local slow = timed(5)\n"
        "gbvp.link('ap', {gear = 'HS-G3B', lanes = 2})\n"
        "gbvp.wait(1)\n"
        "gbvp.assert_eq(gbvp.link_stats('ap').mode, 'HS-G3B x2', 'the AP link mode')\n"
        "local fast = timed(5)\n"
        "gbvp.assert(fast < slow / 2, 'transfers got faster', fast .. ' vs ' .. slow .. ' ms')\n"
        "local s0 = gbvp.link_stats('ap')\n"
        "gbvp.fault('ap', {ber = 2e-5})\n"
        "for i = 1, 40 do gbvp.assert(xfer(1500, i), 'transfer with bit errors') end\n"
        "gbvp.fault('ap', {ber = 0})\n"
        "local s = gbvp.link_stats('ap')\n"
        "gbvp.assert(s.crc_errors > s0.crc_errors, 'CRC errors on the AP link')\n"
        "gbvp.assert(s.replays > s0.replays, 'replays on the AP link')\n"
        "gbvp.assert_eq(module_transfers(), 50, 'each transfer once')\n");
}

static void expect_error(sim_local *g, const char *code, const char *needle)
{
    char err[512];
    CU_ASSERT_NOT_EQUAL(run(g, code, err, sizeof err), 0);
    if (!strstr(err, needle))
        fprintf(stderr, "\n    want '%s' in: %s\n", needle, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
}

static void test_bad_link_and_fault_settings_are_named(void)
{
    sim_local *g = start(SW_TIMING_FRAME);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    expect_error(g, "gbvp.link(0, {gear = 2})", "carried no traffic");
    expect_error(g, "gbvp.fault(0, {speed = 1})", "l.lua:1: gbvp.fault: unknown setting 'speed'");
    expect_error(g, LOOPBACK_SETUP "gbvp.link(slot, {gear = 'HS-G9'})", "--gear HS-G9");
    expect_error(g, "gbvp.fault(0, {ber = 0.5})", "gbvp.fault");
    expect_error(g, "gbvp.fault(1, {ber = 0.5})", "bit error rate 0.5 outside");
    expect_error(g, "gbvp.fault(1, {down_for = 2})", "down_for");
    expect_error(g, "gbvp.link(1, {mode = 'pwm', gear = 'HS-G1A'})", "not a pwm gear");
    expect_error(g, "gbvp.fault(1, {})", "nothing to do");
    expect_error(g, "gbvp.link('apx', {gear = 2})", "number expected, got string");
    sim_local_free(g);
}

static void test_without_timing_link_and_fault_say_so(void)
{
    sim_local *g = start(SW_TIMING_DIRECT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    expect_error(g, "gbvp.assert(not gbvp.features.link_model, 'no model')\n"
                    "gbvp.link(0, {gear = 2})", "has no UniPro link model");
    expect_error(g, "gbvp.fault(0, {ber = 1e-6})", "--timing frame");
    sim_local_free(g);
}

static const unit_test tests[] = {
    UNIT_TEST(test_bit_errors_during_traffic_deliver_every_message_once_with_replays),
    UNIT_TEST(test_link_down_during_a_transfer_delays_it_and_loses_nothing),
    UNIT_TEST(test_the_ap_link_can_be_changed_and_broken),
    UNIT_TEST(test_bad_link_and_fault_settings_are_named),
    UNIT_TEST(test_without_timing_link_and_fault_say_so),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "scenario_link", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
