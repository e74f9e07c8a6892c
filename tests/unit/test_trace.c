// SPDX-License-Identifier: MIT
// Timelines (sim/trace.h, docs/tracing.md): a hot-plug on the simulator with the test AP and
// the frame-level model, written as trace-event JSON, read back with json-glib: valid JSON,
// every event with the fields the format wants, time rising through every track, every
// operation a closed slice, the SVC's hot-plug events and the marks on the frame's tracks.
#include <errno.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ap-model/ap.h"
#include "gbvp/target/target_local.h"
#include "greybus/gb_message.h"
#include "sim/trace.h"
#include "tests/unit/unit.h"

#define TRACKS 2048

static const char *str(JsonObject *o, const char *name)
{
    return json_object_has_member(o, name) ? json_object_get_string_member(o, name) : NULL;
}

static void test_trace_is_valid_trace_event_json_in_time_order(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "trace.json");
    sim_local_config c = { .sim = { .num_slots = 4, .trace_path = path,
                                    .timing = SW_TIMING_FRAME },
                           .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&c, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    CU_ASSERT_EQUAL(tap_functional(sim_local_test_ap(l), 2, 1), 0);
    sim_simulator_trace_mark(sim_local_simulator(l), "scenario", "a \"quoted\" step\n");
    CU_ASSERT_EQUAL(t->ops->link_set(t->ctx, 0, "HS-G1A", NULL, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(t->ops->remove(t->ctx, 0, err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    sim_local_free(l); /* ends the trace */

    JsonParser *p = json_parser_new();
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(json_parser_load_from_file(p, path, &e));
    unlink(path);
    JsonObject *root = json_node_get_object(json_parser_get_root(p));
    CU_ASSERT_STRING_EQUAL(str(root, "displayTimeUnit"), "ns");
    JsonArray *evs = json_object_get_array_member(root, "traceEvents");
    CU_ASSERT_PTR_NOT_NULL_FATAL(evs);
    static double last_ts[4][TRACKS];
    static bool named[4][TRACKS];
    memset(named, 0, sizeof named);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < TRACKS; j++)
            last_ts[i][j] = -1;
    unsigned slices = 0, instants = 0, counters = 0, inserted = 0, removed = 0, marks = 0;
    unsigned links = 0, named_ops = 0, link_states = 0, hs_g1a = 0, bursts = 0, queues = 0;
    for (guint i = 0; i < json_array_get_length(evs); i++) {
        JsonObject *o = json_array_get_object_element(evs, i);
        const char *ph = str(o, "ph"), *name = str(o, "name");
        CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
        CU_ASSERT_PTR_NOT_NULL_FATAL(name);
        gint64 pid = json_object_get_int_member(o, "pid");
        CU_ASSERT(pid >= 1 && pid <= 3);
        if (!strcmp(ph, "M")) {
            if (!strcmp(name, "thread_name"))
                named[pid][json_object_get_int_member(o, "tid")] = true;
            continue;
        }
        CU_ASSERT_TRUE_FATAL(json_object_has_member(o, "ts"));
        double ts = json_object_get_double_member(o, "ts");
        gint64 tid = json_object_has_member(o, "tid") ? json_object_get_int_member(o, "tid") : 0;
        CU_ASSERT_FATAL(tid >= 0 && tid < TRACKS);
        CU_ASSERT(ts >= last_ts[pid][tid]); /* time rises through every track */
        last_ts[pid][tid] = ts;
        if (!strcmp(ph, "X")) {
            slices++;
            CU_ASSERT(json_object_get_double_member(o, "dur") >= 0);
            CU_ASSERT_TRUE(named[pid][tid]); /* its connection's track has a name */
            JsonObject *args = json_object_get_object_member(o, "args");
            CU_ASSERT_PTR_NOT_NULL_FATAL(args);
            CU_ASSERT_PTR_NOT_NULL(str(args, "result"));
            named_ops += strncmp(name, "type 0x", 7) != 0;
            bool burst = !strncmp(name, "burst of ", 9);
            bursts += burst;
            link_states += pid == 3 && !burst;
            hs_g1a += pid == 3 && !strcmp(name, "up HS-G1A x1");
        } else if (!strcmp(ph, "i")) {
            instants++;
            inserted += !strcmp(name, "MODULE_INSERTED 2");
            removed += !strcmp(name, "MODULE_REMOVED 2");
            marks += !strcmp(name, "a \"quoted\" step\n");
            links += !strcmp(name, "link of slot 0 to HS-G1A x1");
        } else if (!strcmp(ph, "C")) {
            counters++;
            JsonObject *args = json_object_get_object_member(o, "args");
            if (!strncmp(name, "switch queue of ", 16)) {
                queues++;
                CU_ASSERT_TRUE(json_object_has_member(args, "frames"));
            } else {
                CU_ASSERT_TRUE(json_object_has_member(args, "bytes"));
            }
        } else {
            CU_FAIL("an event of another phase");
        }
    }
    CU_ASSERT(slices > 20);      /* enumeration: SVC, control, GPIO and I2C operations */
    CU_ASSERT(named_ops > 10);   /* SVC and control operations carry their names */
    CU_ASSERT(counters >= 3); /* sampled: the AP, the SVC and the interface received */
    CU_ASSERT_EQUAL(inserted, 1);
    CU_ASSERT_EQUAL(removed, 1);
    CU_ASSERT_EQUAL(marks, 1);
    CU_ASSERT_EQUAL(links, 1);
    CU_ASSERT(instants >= 4);
    /* the links: start-up, up, the power mode changes the AP and the test asked for */
    CU_ASSERT(link_states >= 4);
    CU_ASSERT_EQUAL(hs_g1a, 1);
    /* frames back to back as bursts on each link direction, the switch's queues sampled */
    CU_ASSERT(bursts > 10);
    CU_ASSERT(queues > 0);
    g_object_unref(p);
}

static void test_trace_refuses_a_bad_path_and_closes_unanswered_operations(void)
{
    char err[320] = "", path[64];
    sim_local_config c = { .sim = { .num_slots = 2, .trace_path = "/nonexistent/t.json" },
                           .ap = SIM_LOCAL_TEST_AP };
    CU_ASSERT_PTR_NULL(sim_local_new(&c, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/t.json"));

    /* a request whose response never comes is still a closed slice, marked unanswered */
    unit_tmp_path(path, sizeof path, "trace2.json");
    sim_trace *t = sim_trace_open(path, 7, 1, false, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    uint8_t req[8] = { 8, 0, 0x21, 0, 0x02, 0, 0, 0 };
    gb_msg m;
    CU_ASSERT_EQUAL_FATAL(gb_msg_parse(req, sizeof req, &m), 0);
    sw_observed ev = { .dir = SW_DIR_AP_TO_INTF, .from = 1, .to = 2, .src_dev = 1,
                       .dst_dev = 2, .src_cport = 5, .dst_cport = 1, .sent = 1000000,
                       .at = 3000000, .m = &m };
    sim_trace_observe(t, &ev);
    CU_ASSERT_EQUAL(sim_trace_close(t, 9000000), 0);
    JsonParser *p = json_parser_new();
    CU_ASSERT_TRUE_FATAL(json_parser_load_from_file(p, path, NULL));
    unlink(path);
    JsonArray *evs = json_object_get_array_member(
        json_node_get_object(json_parser_get_root(p)), "traceEvents");
    unsigned unanswered = 0;
    for (guint i = 0; i < json_array_get_length(evs); i++) {
        JsonObject *o = json_array_get_object_element(evs, i);
        if (strcmp(str(o, "ph"), "X"))
            continue;
        JsonObject *args = json_object_get_object_member(o, "args");
        unanswered += json_object_has_member(args, "unanswered");
        CU_ASSERT_DOUBLE_EQUAL(json_object_get_double_member(o, "ts"), 1.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(json_object_get_double_member(o, "dur"), 8.0, 1e-9);
        CU_ASSERT_STRING_EQUAL(str(o, "name"), "type 0x02");
    }
    CU_ASSERT_EQUAL(unanswered, 1);
    g_object_unref(p);
}

/* The timeline is written at the end: a disk that cannot take it (here a file size limit)
 * is reported with its reason, not a generic one. */
static void test_trace_that_fills_the_disk_says_why(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "trace_full.json");
    sim_trace *t = sim_trace_open(path, 7, 1, false, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    for (int i = 0; i < 200; i++)
        sim_trace_mark(t, "scenario", "a step of the scenario, long enough to fill a file",
                       (sim_time)i * 1000000);
    struct rlimit old, lim;
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 2000;
    void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int rc = sim_trace_close(t, SIM_MS(1));
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_xfsz);
    CU_ASSERT_EQUAL(rc, -EFBIG);
    unlink(path);
}


/* Whether the timeline at path is JSON json-glib reads; its first bytes into text. */
static bool timeline_parses(const char *path, char *text, size_t size)
{
    JsonParser *p = json_parser_new();
    GError *e = NULL;
    bool ok = json_parser_load_from_file(p, path, &e);
    if (e)
        g_error_free(e);
    g_object_unref(p);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, size - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    return ok;
}
/* {"cmd":"trace","file":P} while a timeline to P runs: the new one replaces it. Opening the
 * new one first left both writing from the start of P at their ends: a shorter new
 * timeline over the tail of the old one, no longer JSON. */
static void test_trace_started_again_on_its_own_file_starts_it_over(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "trace_again.json");
    sim_local_config c = { .sim = { .num_slots = 2, .trace_path = path },
                           .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&c, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    sim_simulator *s = sim_local_simulator(l);
    for (int i = 0; i < 100; i++)
        sim_simulator_trace_mark(s, "scenario", "a step of the first timeline");
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->trace(t->ctx, path, err, sizeof err), 0);
    sim_simulator_trace_mark(s, "scenario", "the second timeline");
    sim_local_free(l);
    char text[8192];
    CU_ASSERT_TRUE(timeline_parses(path, text, sizeof text));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "the second timeline"));
    CU_ASSERT_PTR_NULL(strstr(text, "a step of the first timeline"));
    unlink(path);
}

/* A mark's text is the scenario's (its log lines, its checks' names), cut to a buffer:
 * a byte that is not UTF-8, or a character cut in two, made the whole timeline a file JSON
 * parsers refuse. It is replaced by U+FFFD, and a cut falls between characters. */
static void test_trace_keeps_its_json_utf8_whatever_the_marks_hold(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "trace_utf8.json");
    sim_trace *t = sim_trace_open(path, 7, 1, false, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    sim_trace_mark(t, "scenario", "caf\xc3\xa9 \xff \xed\xa0\x80 end", 1000);
    char arrows[1024] = "";
    for (int i = 0; i < 300; i++)
        strcat(arrows, "\xe2\x86\x92"); /* far more than a mark keeps */
    sim_trace_mark(t, "scenario", arrows, 2000);
    CU_ASSERT_EQUAL(sim_trace_close(t, 3000), 0);
    char text[8192];
    CU_ASSERT_TRUE(timeline_parses(path, text, sizeof text));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "caf\xc3\xa9 \\ufffd \\ufffd\\ufffd\\ufffd end"));
    unlink(path);
}

/* A mark's track is named by its caller: a quote, a backslash or a newline in that name is
 * escaped as in any text, and the timeline stays JSON. */
static void test_trace_escapes_a_mark_track_name(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "trace_track.json");
    sim_trace *t = sim_trace_open(path, 7, 1, false, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    sim_trace_mark(t, "my \"track\"\\\n", "x", 1000);
    CU_ASSERT_EQUAL(sim_trace_close(t, 2000), 0);
    char text[4096];
    CU_ASSERT_TRUE(timeline_parses(path, text, sizeof text));
    unlink(path);
}

/* {"cmd":"trace","file":FIFO} while the simulator runs, before anyone reads the FIFO:
 * refused at once. Waiting for a reader stopped the whole simulator. In a child, so that a
 * wait that never ends fails the test instead of hanging it. */
static void test_trace_to_a_fifo_nobody_reads_is_refused_while_running(void)
{
    char fifo[64];
    unit_tmp_path(fifo, sizeof fifo, "trace_noreader.fifo");
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        alarm(5);
        char err[320] = "";
        sim_local_config c = { .sim = { .num_slots = 2 }, .ap = SIM_LOCAL_TEST_AP };
        sim_local *l = sim_local_new(&c, err, sizeof err);
        if (!l)
            _exit(90);
        const sim_target *t = sim_local_target(l);
        int rc = t->ops->trace(t->ctx, fifo, err, sizeof err);
        bool said = strstr(err, "nobody reads") != NULL;
        sim_local_free(l);
        _exit(rc != 0 && said ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT_TRUE(WIFEXITED(st)); /* not killed by the alarm: it did not wait */
    CU_ASSERT_EQUAL(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
    unlink(fifo);
}

static const unit_test trace_tests[] = {
    UNIT_TEST(test_trace_is_valid_trace_event_json_in_time_order),
    UNIT_TEST(test_trace_refuses_a_bad_path_and_closes_unanswered_operations),
    UNIT_TEST(test_trace_that_fills_the_disk_says_why),
    UNIT_TEST(test_trace_started_again_on_its_own_file_starts_it_over),
    UNIT_TEST(test_trace_keeps_its_json_utf8_whatever_the_marks_hold),
    UNIT_TEST(test_trace_escapes_a_mark_track_name),
    UNIT_TEST(test_trace_to_a_fifo_nobody_reads_is_refused_while_running),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "trace", trace_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
