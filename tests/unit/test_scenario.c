// SPDX-License-Identifier: MIT
// The scenario engine against the simulator with the test AP: checks become TAP lines,
// script errors name file:line, wait_for gives up at its timeout, the seed fixes
// gbvp.random, the sandbox has no io/os, missing features fail loudly, JUnit is valid.
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbvp/scenario/scenario.h"
#include "gbvp/target/target_local.h"
#include "tests/unit/unit.h"

typedef struct run {
    sim_local *t;
    sim_scenario *sc;
    char *tap;
    size_t taplen;
    FILE *f;
    int rc;
    unsigned inserted, removed, activated, assertions;
} run;

static void on_event(void *ctx, sim_scenario_event ev, unsigned slot, const char *text)
{
    run *r = ctx;
    (void)slot;
    (void)text;
    r->inserted += ev == SIM_SCENARIO_EV_INSERTED;
    r->removed += ev == SIM_SCENARIO_EV_REMOVED;
    r->activated += ev == SIM_SCENARIO_EV_ACTIVATED;
    r->assertions += ev == SIM_SCENARIO_EV_ASSERTION;
}

static void start(run *r, uint64_t seed, unsigned timeout_s, const char *const *args,
                  size_t nargs)
{
    memset(r, 0, sizeof *r);
    char err[320];
    sim_local_config lc = { .sim = { .num_slots = 4 }, .ap = SIM_LOCAL_TEST_AP };
    r->t = sim_local_new(&lc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->t);
    r->f = open_memstream(&r->tap, &r->taplen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->f);
    sim_scenario_config c = { .seed = seed, .timeout_s = timeout_s, .tap = r->f,
                              .args = args, .nargs = nargs, .event = on_event,
                              .event_ctx = r };
    r->sc = sim_scenario_new(&c, sim_local_target(r->t), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->sc);
}

static void run_string(run *r, const char *code)
{
    start(r, 1, 10, NULL, 0);
    r->rc = sim_scenario_run_string(r->sc, "=t.lua", code);
    fflush(r->f);
}

static void finish(run *r)
{
    sim_scenario_free(r->sc);
    sim_local_free(r->t);
    fclose(r->f);
    free(r->tap);
}

static bool error_has(run *r, const char *needle)
{
    const char *e = sim_scenario_error(r->sc);
    if (!e || !strstr(e, needle)) {
        fprintf(stderr, "\n    error '%s' lacks '%s'\n", e ? e : "(none)", needle);
        return false;
    }
    return true;
}

static void test_scenario_checks_become_tap_lines_and_exit_status(void)
{
    run r;
    run_string(&r, "local id = gbvp.insert(0, 'sensor')\n"
                   "gbvp.check(gbvp.interface_state(id) == 'activated', 'enumerated')\n"
                   "gbvp.check_eq(gbvp.module(0), 'sensor', 'slot 0 holds it')\n"
                   "gbvp.remove(0)\n");
    CU_ASSERT_EQUAL(r.rc, 0);
    CU_ASSERT_EQUAL(sim_scenario_passed(r.sc), 2);
    CU_ASSERT_EQUAL(sim_scenario_failed(r.sc), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "ok 1 - enumerated\nok 2 - slot 0 holds it\n1..2\n"));
    CU_ASSERT_EQUAL(r.inserted, 1);
    CU_ASSERT_EQUAL(r.removed, 1);
    CU_ASSERT_EQUAL(r.activated, 1);
    CU_ASSERT_EQUAL(r.assertions, 2);
    finish(&r);
}

static void test_scenario_failed_check_fails_the_run_and_names_its_line(void)
{
    run r;
    run_string(&r, "gbvp.check(true, 'fine')\n\ngbvp.check_eq(1 + 1, 3, 'arith')\n"
                   "gbvp.check(true, 'still runs')\n");
    CU_ASSERT_EQUAL(r.rc, 1);
    CU_ASSERT_EQUAL(sim_scenario_failed(r.sc), 1);
    CU_ASSERT_EQUAL(sim_scenario_passed(r.sc), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "not ok 2 - arith\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "message: \"got 2, expected 3\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "at: t.lua:3"));
    CU_ASSERT_PTR_NULL(sim_scenario_error(r.sc));
    finish(&r);
}

/* A check called through a C function (pcall) still names the script line that made it. */
static void test_scenario_check_through_pcall_names_its_line(void)
{
    run r;
    run_string(&r, "local ok = 1\npcall(gbvp.check, false, 'via pcall')\n");
    CU_ASSERT_EQUAL(r.rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "not ok 1 - via pcall\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "at: t.lua:2"));
    finish(&r);
}

static void test_scenario_assert_stops_the_script(void)
{
    run r;
    run_string(&r, "gbvp.assert(false, 'stop here')\ngbvp.check(true, 'never')\n");
    CU_ASSERT_EQUAL(r.rc, 1);
    CU_ASSERT_EQUAL(sim_scenario_passed(r.sc), 0);
    CU_ASSERT_EQUAL(sim_scenario_failed(r.sc), 1);
    CU_ASSERT_PTR_NULL(sim_scenario_error(r.sc));
    CU_ASSERT_PTR_NOT_NULL(strstr(sim_scenario_first_failure(r.sc), "t.lua:1: stop here"));
    finish(&r);
}

static void test_scenario_broken_file_reports_its_line(void)
{
    run r;
    start(&r, 1, 10, NULL, 0);
    r.rc = sim_scenario_run_file(r.sc, "tests/scenarios/broken.lua");
    CU_ASSERT_EQUAL(r.rc, 1);
    CU_ASSERT_TRUE(error_has(&r, "tests/scenarios/broken.lua:7: attempt to call a nil value"));
    finish(&r);
}

static void test_scenario_syntax_error_and_missing_file_are_errors(void)
{
    run r;
    run_string(&r, "gbvp.check(true, 'a')\nlocal = 3\n");
    CU_ASSERT_EQUAL(r.rc, 1);
    CU_ASSERT_TRUE(error_has(&r, "t.lua:2:"));
    CU_ASSERT_EQUAL(sim_scenario_passed(r.sc), 0);
    finish(&r);
    start(&r, 1, 10, NULL, 0);
    CU_ASSERT_EQUAL(sim_scenario_run_file(r.sc, "tests/scenarios/no-such.lua"), 1);
    CU_ASSERT_TRUE(error_has(&r, "no-such.lua"));
    finish(&r);
}

static void test_scenario_wait_for_gives_up_at_its_timeout(void)
{
    run r;
    run_string(&r, "local t0 = gbvp.now()\n"
                   "local ok, e = pcall(gbvp.wait_for, function() return false end, 250)\n"
                   "gbvp.check(not ok, 'timed out')\n"
                   "gbvp.check(gbvp.now() - t0 >= 250, 'waited 250 ms')\n"
                   "gbvp.check(gbvp.now() - t0 < 300, 'not much longer')\n"
                   "gbvp.wait_for(function() return false end, 100)\n");
    CU_ASSERT_EQUAL(r.rc, 1);
    CU_ASSERT_EQUAL(sim_scenario_passed(r.sc), 3);
    CU_ASSERT_TRUE(error_has(&r, "t.lua:6: gbvp.wait_for: condition still false after 100 ms"));
    finish(&r);
}

static void test_scenario_same_seed_same_random_numbers(void)
{
    const char *code = "local s = ''\nfor i = 1, 20 do s = s .. gbvp.random(1000) .. ' ' end\n"
                       "s = s .. math.random(5, 9) .. ' ' .. math.random(0)\ngbvp.log(s)\n"
                       /* random(0), as Lua's: an integer with every bit random */
                       "gbvp.check(math.type(gbvp.random(0)) == 'integer', 'random(0)')\n"
                       "local seen = {}\nfor i = 1, 64 do local v = gbvp.random(0)\n"
                       "  seen[v < 0] = true end\n"
                       "gbvp.check(seen[true] and seen[false], 'both signs')\n";
    char *out[3];
    uint64_t seeds[3] = { 42, 42, 43 };
    for (int i = 0; i < 3; i++) {
        run r;
        start(&r, seeds[i], 10, NULL, 0);
        CU_ASSERT_EQUAL(sim_scenario_run_string(r.sc, "=t.lua", code), 0);
        fflush(r.f);
        out[i] = strdup(r.tap);
        finish(&r);
    }
    CU_ASSERT_STRING_EQUAL(out[0], out[1]);
    CU_ASSERT_STRING_NOT_EQUAL(out[0], out[2]);
    for (int i = 0; i < 3; i++)
        free(out[i]);
}

static void test_scenario_arg_reads_set_values(void)
{
    const char *args[] = { "cycles=7", "name=x" };
    run r;
    start(&r, 1, 10, args, 2);
    CU_ASSERT_EQUAL(sim_scenario_run_string(r.sc, "=t.lua",
                    "gbvp.check_eq(gbvp.arg('cycles', 3), 7, 'number')\n"
                    "gbvp.check_eq(gbvp.arg('name'), 'x', 'string')\n"
                    "gbvp.check_eq(gbvp.arg('other', 5), 5, 'default')\n"
                    "gbvp.arg('name', 1)\n"), 1);
    CU_ASSERT_EQUAL(sim_scenario_passed(r.sc), 3);
    CU_ASSERT_TRUE(error_has(&r, "t.lua:4: gbvp.arg: name=x is not a number"));
    finish(&r);
}

static void test_scenario_sandbox_has_no_io_or_os(void)
{
    run r;
    run_string(&r, "gbvp.check(io == nil and os == nil and require == nil and load == nil"
                   " and dofile == nil, 'no escape')\n");
    CU_ASSERT_EQUAL(r.rc, 0);
    finish(&r);
}

/* fuzz_scenario_api finding: a script could take all the host's memory (string.rep in a
 * loop); the Lua state now has a limit and its error names it. */
static void test_scenario_memory_is_limited(void)
{
    run r;
    run_string(&r, "local t = {}\nfor i = 1, 400 do t[i] = string.rep('x', 1 << 20) .. i end\n");
    CU_ASSERT_EQUAL(r.rc, 1);
    CU_ASSERT_TRUE(error_has(&r, "the scenario ran past its memory limit of 256 MiB"));
    finish(&r);
    /* a refused allocation inside pcall is an error the script can handle */
    run_string(&r, "local ok = pcall(string.rep, 'x', 1 << 30)\n"
                   "gbvp.check(not ok, 'refused')\nlocal s = string.rep('y', 1000)\n"
                   "gbvp.check(#s == 1000, 'still works')\n");
    CU_ASSERT_EQUAL(r.rc, 0);
    finish(&r);
}

static void test_scenario_link_model_absent_on_test_ap_and_absent_guest_fail_loudly(void)
{
    run r;
    run_string(&r, "gbvp.link(2, { gear = 1 })\n");
    CU_ASSERT_TRUE(error_has(&r, "t.lua:1: gbvp.link: target test-ap has no UniPro link model "
                                  "(use --target gbvp-sim --timing frame)"));
    finish(&r);
    run_string(&r, "gbvp.fault('drop', 0.1)\n");
    CU_ASSERT_TRUE(error_has(&r, "gbvp.fault: target test-ap has no UniPro link model"));
    finish(&r);
    run_string(&r, "\ngbvp.guest('ls /sys/bus/greybus/devices', 1000)\n");
    CU_ASSERT_TRUE(error_has(&r, "t.lua:2: gbvp.guest: no guest is attached"));
    finish(&r);
}

static void test_scenario_bad_arguments_name_what_is_wrong(void)
{
    static const struct {
        const char *code, *msg;
    } cases[] = {
        { "gbvp.insert(9, 'sensor')", "slot 9 does not exist (the frame has slots 0..3)" },
        { "gbvp.insert(0, 'no-such-module')",
          "gbvp.insert(0, 'no-such-module'): virtual-modules/catalog: no catalog entry" },
        { "gbvp.insert(0, 'sensor') gbvp.insert(0, 'battery')", "gbvp.insert(0, 'battery'):" },
        { "gbvp.remove(1)", "gbvp.remove(1): the slot is empty" },
        { "gbvp.gpio_set(0, 1, 1)", "slot 0 is empty: no GPIO controller" },
        { "gbvp.insert(0, 'battery') gbvp.gpio_set(0, 1, 1)", "has no GPIO controller" },
        { "gbvp.insert(0, 'sensor') gbvp.gpio_set(0, 99, 1)", "line 99 does not exist" },
        { "gbvp.insert(0, 'battery') gbvp.battery_set(0, 'colour', 1)",
          "gbvp.battery_set: unknown property 'colour'" },
        { "gbvp.wait(-1)", "gbvp.wait: -1 ms is not a duration" },
        { "gbvp.wait(0/0)", "is not a duration" },
        { "gbvp.interface_state(300)", "interface id 300 is out of range" },
        { "gbvp.insert(0, 'sensor') gbvp.i2c_read(0, 0x48, 0, 1)", "no EEPROM at address 0x48" },
        { "gbvp.insert(0, 'sensor') gbvp.i2c_read(0, 0x50, 250, 10)", "outside the EEPROM" },
        { "gbvp.random(5, 1)", "gbvp.random: interval is empty" },
        { "gbvp.insert(0, 'keyboard') gbvp.hid_input(0, 'abc')",
          "gbvp.hid_input: an input report is 8 bytes, not 3" },
        /* a C string would end at the NUL: 'sensor' inserted, the rest ignored */
        { "gbvp.insert(0, 'sensor\\0junk')",
          "bad argument #2 to 'insert' (a NUL byte at position 7 would end the text there)" },
        { "gbvp.check(true, 'a\\0b')", "bad argument #2 to 'check' (a NUL byte at position 2" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run r;
        run_string(&r, cases[i].code);
        CU_ASSERT_EQUAL(r.rc, 1);
        CU_ASSERT_TRUE(error_has(&r, "t.lua:1: "));
        CU_ASSERT_TRUE(error_has(&r, cases[i].msg));
        finish(&r);
    }
}

static void test_scenario_backends_reach_the_ap(void)
{
    run r;
    run_string(&r,
               "gbvp.insert(0, 'sensor')\n"
               "gbvp.i2c_write(0, 0x50, 4, 'gbvp')\n"
               "gbvp.check_eq(gbvp.i2c_read(0, 0x50, 4, 4), 'gbvp', 'eeprom')\n"
               "gbvp.check_eq(gbvp.i2c_temperature(0, 0x48, 30500), 30500, 'lm75')\n"
               "gbvp.insert(1, 'uart')\n"
               "gbvp.uart_send(1, 'hello')\n"
               "gbvp.check_eq(gbvp.uart_state(1).rx_bytes, 5, 'uart to the AP')\n"
               "gbvp.check(gbvp.ap_traced('incoming request 0x03'), 'AP got RECEIVE_DATA')\n"
               "gbvp.insert(3, 'virtual-modules/catalog/vibrator.mnfs')\n"
               "gbvp.check_eq(gbvp.module(3), 'vibrator', 'a module from a manifest file')\n"
               "gbvp.check(gbvp.link_mode(1) ~= 0, 'the AP set its own link power mode')\n"
               "gbvp.intf_oops(gbvp.slot_interface(3), 1)\n"
               "gbvp.check(gbvp.ap_traced('oops'), 'the AP heard INTF_OOPS')\n"
               "gbvp.insert(2, 'keyboard')\n"
               "local ok = pcall(gbvp.hid_input, 2, {0,0,4,0,0,0,0,0})\n"
               "gbvp.check(not ok, 'no report before the AP powers the HID device')\n");
    CU_ASSERT_EQUAL(r.rc, 0);
    CU_ASSERT_EQUAL(sim_scenario_passed(r.sc), 8);
    finish(&r);
}

static void test_scenario_endless_loop_stops_at_the_time_limit(void)
{
    run r;
    start(&r, 1, 1, NULL, 0);
    CU_ASSERT_EQUAL(sim_scenario_run_string(r.sc, "=t.lua", "while true do end\n"), 1);
    CU_ASSERT_TRUE(error_has(&r, "ran past its time limit of 1 s"));
    finish(&r);
}

/* The run's JUnit report for suite `suite`, NUL-terminated in buf; its length. */
static size_t junit_of(run *r, const char *suite, char *buf, size_t len)
{
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(sim_scenario_write_junit(r->sc, f, suite), 0);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
    return n;
}

static void test_scenario_junit_escapes_and_counts(void)
{
    run r;
    run_string(&r, "gbvp.check(true, 'a <b> & \"c\"')\ngbvp.check(false, 'd', 'x < y')\n"
                   "error('boom')\n");
    char buf[4096];
    CU_ASSERT_TRUE(junit_of(&r, "s&s", buf, sizeof buf) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<testsuite name=\"s&amp;s\" tests=\"3\" failures=\"1\" "
                                       "errors=\"1\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "a &lt;b&gt; &amp; &quot;c&quot;"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<failure message=\"x &lt; y\">t.lua:2</failure>"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<error message=\"t.lua:3: boom\">"));
    /* a stream that cannot take the report (/dev/full: no space) */
    FILE *full = fopen("/dev/full", "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(full);
    CU_ASSERT_EQUAL(sim_scenario_write_junit(r.sc, full, "s"), -ENOSPC);
    fclose(full);
    finish(&r);
}

/* An error caught by pcall does not let the script run on past its limit. */
static void test_scenario_time_limit_cannot_be_caught_by_pcall(void)
{
    run r;
    start(&r, 1, 1, NULL, 0);
    CU_ASSERT_EQUAL(sim_scenario_run_string(r.sc, "=t.lua",
                                            "while true do\n"
                                            "  pcall(function() while true do end end)\n"
                                            "end\n"), 1);
    CU_ASSERT_TRUE(error_has(&r, "t.lua:"));
    CU_ASSERT_TRUE(error_has(&r, "ran past its time limit of 1 s"));
    finish(&r);
}

/* A script stuck inside one C call (a backtracking pattern) ends the process with
 * status 1 a grace period past its limit: run in a child, it must not hang. */
static void test_scenario_stuck_in_c_ends_the_process(void)
{
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_TRUE_FATAL(pid >= 0);
    if (pid == 0) {
        char err[320];
        sim_local_config lc = { .sim = { .num_slots = 1 }, .ap = SIM_LOCAL_TEST_AP };
        sim_local *t = sim_local_new(&lc, err, sizeof err);
        FILE *devnull = fopen("/dev/null", "w");
        if (!t || !devnull)
            _exit(3);
        sim_scenario_config c = { .seed = 1, .timeout_s = 1, .tap = devnull,
                                  .stuck_grace_ms = 100 };
        sim_scenario *sc = sim_scenario_new(&c, sim_local_target(t), err, sizeof err);
        if (!sc)
            _exit(3);
        dup2(fileno(devnull), STDERR_FILENO);
        sim_scenario_run_string(sc, "=t.lua", "string.find(string.rep('a', 40), "
                                "'(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b')\n");
        _exit(4); /* the pattern search ended by itself: the test proves nothing */
    }
    int st = 0;
    for (int i = 0; i < 1000 && waitpid(pid, &st, WNOHANG) == 0; i++)
        usleep(10000);
    if (waitpid(pid, &st, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        CU_FAIL("a script stuck in C ran 10 s past its 1 s limit");
        return;
    }
    CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1);
}

static void test_scenario_odd_numbers_are_named_as_given(void)
{
    static const struct {
        const char *code, *needle;
    } cases[] = {
        { "gbvp.module(math.maxinteger)\n", "slot 9223372036854775807 does not exist" },
        { "gbvp.interface(-2^40)\n", "interface id -1099511627776 is out of range" },
        { "gbvp.wait_for(function() end, 1, 1e-300)\n", "step 1e-300 ms is not 1e-09" },
        { "gbvp.wait(1e300)\n", "1e+300 ms is not a duration" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run r;
        run_string(&r, cases[i].code);
        CU_ASSERT_EQUAL(r.rc, 1);
        CU_ASSERT_TRUE(error_has(&r, cases[i].needle));
        finish(&r);
    }
}

/* gbvp.skip inside an on_ap_step callback ends the scenario, passed, as outside it. */
static void test_scenario_skip_inside_step_hook_ends_the_script(void)
{
    run r;
    run_string(&r, "gbvp.on_ap_step('INTF_ACTIVATE', function() gbvp.skip('later') end)\n"
                   "gbvp.insert(0, 'sensor')\n"
                   "gbvp.check(false, 'never reached')\n");
    CU_ASSERT_EQUAL(r.rc, 0);
    CU_ASSERT_EQUAL(sim_scenario_failed(r.sc), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "ok 1 - scenario # SKIP later"));
    CU_ASSERT_PTR_NULL(strstr(r.tap, "never reached"));
    finish(&r);
}

/* A script that checks nothing is a visible skip, in TAP and JUnit, not a silent pass. */
static void test_scenario_with_no_checks_is_reported_as_a_skip(void)
{
    run r;
    run_string(&r, "local n = 0\nfor _ = 1, n do gbvp.check(true, 'lost') end\n");
    CU_ASSERT_EQUAL(r.rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "ok 1 - scenario # SKIP it made no checks\n1..1\n"));
    char buf[2048];
    CU_ASSERT_TRUE(junit_of(&r, "s", buf, sizeof buf) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<skipped message=\"it made no checks\"/>"));
    finish(&r);
    /* one check, even a skip, is what the script says and nothing is added */
    run_string(&r, "gbvp.check(true, 'one')\n");
    CU_ASSERT_PTR_NULL(strstr(r.tap, "SKIP"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.tap, "1..1\n"));
    finish(&r);
}

/* Invalid UTF-8 and control characters in names do not make the report malformed. */
static void test_scenario_junit_is_utf8_whatever_the_names(void)
{
    run r;
    run_string(&r, "gbvp.check(true, 'bad \\xff\\xc0\\x80 \\xed\\xa0\\x80 ok \\xc3\\xa9')\n"
                   "gbvp.check(false, 'ctl \\1', 'detail \\xfe')\n");
    char buf[4096];
    CU_ASSERT_TRUE(junit_of(&r, "s\xff", buf, sizeof buf) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "name=\"s?\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "bad ??? ??? ok \xc3\xa9"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "ctl ?"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "detail ?"));
    finish(&r);
}

static const unit_test tests[] = {
    UNIT_TEST(test_scenario_checks_become_tap_lines_and_exit_status),
    UNIT_TEST(test_scenario_failed_check_fails_the_run_and_names_its_line),
    UNIT_TEST(test_scenario_check_through_pcall_names_its_line),
    UNIT_TEST(test_scenario_assert_stops_the_script),
    UNIT_TEST(test_scenario_broken_file_reports_its_line),
    UNIT_TEST(test_scenario_syntax_error_and_missing_file_are_errors),
    UNIT_TEST(test_scenario_wait_for_gives_up_at_its_timeout),
    UNIT_TEST(test_scenario_same_seed_same_random_numbers),
    UNIT_TEST(test_scenario_arg_reads_set_values),
    UNIT_TEST(test_scenario_sandbox_has_no_io_or_os),
    UNIT_TEST(test_scenario_memory_is_limited),
    UNIT_TEST(test_scenario_link_model_absent_on_test_ap_and_absent_guest_fail_loudly),
    UNIT_TEST(test_scenario_bad_arguments_name_what_is_wrong),
    UNIT_TEST(test_scenario_backends_reach_the_ap),
    UNIT_TEST(test_scenario_endless_loop_stops_at_the_time_limit),
    UNIT_TEST(test_scenario_junit_escapes_and_counts),
    UNIT_TEST(test_scenario_time_limit_cannot_be_caught_by_pcall),
    UNIT_TEST(test_scenario_stuck_in_c_ends_the_process),
    UNIT_TEST(test_scenario_odd_numbers_are_named_as_given),
    UNIT_TEST(test_scenario_skip_inside_step_hook_ends_the_script),
    UNIT_TEST(test_scenario_with_no_checks_is_reported_as_a_skip),
    UNIT_TEST(test_scenario_junit_is_utf8_whatever_the_names),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "scenario", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
