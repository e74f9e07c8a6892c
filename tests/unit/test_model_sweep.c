// SPDX-License-Identifier: MIT
// `gbvp model --sweep`: the sweep's syntax (lists, ranges, the errors), its cross product in
// configuration order, the parameters a name sets in a description, and the worker
// processes giving results in job order whatever their number.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "gbvp/model/model_desc.h"
#include "gbvp/model/model_flags.h"
#include "gbvp/model/model_internal.h"
#include "gbvp/model/model_net.h"
#include "gbvp/model/model_parallel.h"
#include "gbvp/model/model_sweep.h"

/* The values of axis 0 of `spec`, space separated. */
static void expect_values(const char *spec, const char *want)
{
    model_sweep *s = model_sweep_new();
    char err[256] = "", got[1024] = "";
    CU_ASSERT_FATAL(s != NULL);
    int rc = model_sweep_add(s, spec, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  '%s': %s\n", spec, err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    for (size_t i = 0; i < model_sweep_count(s, 0); i++) {
        size_t used = strlen(got);
        snprintf(got + used, sizeof got - used, "%s%s", i ? " " : "", model_sweep_value(s, 0, i));
    }
    if (strcmp(got, want))
        fprintf(stderr, "\n  '%s' gave '%s', wanted '%s'\n", spec, got, want);
    CU_ASSERT_STRING_EQUAL(got, want);
    model_sweep_free(s);
}

static void test_sweep_expands_lists_and_ranges(void)
{
    expect_values("gear=HS-G3B", "HS-G3B");
    expect_values("lanes=1..4", "1 2 3 4");
    expect_values("size=64..4096x4", "64 256 1024 4096");
    expect_values("size=64..5000x4", "64 256 1024 4096");
    expect_values("size=256..1024+256", "256 512 768 1024");
    expect_values("size=1..10+4", "1 5 9");
    expect_values("size=8,64..256x2,1000", "8 64 128 256 1000");
    expect_values("size=7..7", "7");
    expect_values("gear=HS-G1A..HS-G2B", "HS-G1A HS-G1B HS-G2A HS-G2B");
    expect_values("gear=hs-g3b..HS-G4B", "HS-G3B HS-G4A HS-G4B");
    expect_values("gear=PWM-G1..PWM-G3", "PWM-G1 PWM-G2 PWM-G3");
    expect_values("rate=1Gb/s,2.5Gb/s", "1Gb/s 2.5Gb/s");
    expect_values("link2.gear=HS-G1A", "HS-G1A");
}

static void expect_refused(const char *first, const char *spec, const char *needle)
{
    model_sweep *s = model_sweep_new();
    char err[256] = "";
    CU_ASSERT_FATAL(s != NULL);
    if (first)
        CU_ASSERT_EQUAL_FATAL(model_sweep_add(s, first, err, sizeof err), 0);
    CU_ASSERT(model_sweep_add(s, spec, err, sizeof err) != 0);
    if (!strstr(err, needle))
        fprintf(stderr, "\n  '%s' said '%s', wanted '%s'\n", spec, err, needle);
    CU_ASSERT(strstr(err, needle) != NULL);
    CU_ASSERT_EQUAL(model_sweep_axes(s), first ? 1u : 0u); /* a refused axis is not added */
    model_sweep_free(s);
}

static void test_sweep_refuses_bad_specs_naming_the_problem(void)
{
    expect_refused(NULL, "gear", "--sweep needs NAME=V1,V2,... (got 'gear')");
    expect_refused(NULL, "=1,2", "--sweep: bad name ''");
    expect_refused(NULL, "ge ar=1", "--sweep: bad name 'ge ar'");
    expect_refused(NULL, "gear=", "--sweep gear: no values");
    expect_refused(NULL, "gear=HS-G1A,", "--sweep gear: value 2 is empty");
    expect_refused(NULL, "gear=,HS-G1A", "--sweep gear: value 1 is empty");
    expect_refused(NULL, "size=1 2", "--sweep size: value '1 2' holds ' '");
    expect_refused(NULL, "size=4096..64", "--sweep size: empty range '4096..64' (4096 > 64)");
    expect_refused(NULL, "gear=HS-G2A..HS-G1B", "--sweep gear: empty range 'HS-G2A..HS-G1B'");
    expect_refused(NULL, "gear=PWM-G1..HS-G1A", "mixes HS and PWM gears");
    expect_refused(NULL, "size=64..", "--sweep size: bad range '64..'");
    expect_refused(NULL, "size=..64", "--sweep size: bad range '..64'");
    expect_refused(NULL, "size=-1..4", "--sweep size: bad range '-1..4'");
    expect_refused(NULL, "rate=1Gb/s..4Gb/s", "--sweep rate: bad range '1Gb/s..4Gb/s'");
    expect_refused(NULL, "gear=HS-G1A..4", "bad range 'HS-G1A..4'");
    expect_refused(NULL, "size=1..8x1", "needs a factor of at least 2");
    expect_refused(NULL, "size=1..8+0", "needs a step of at least 1");
    expect_refused(NULL, "size=0..8x2", "multiplies 0");
    expect_refused(NULL, "size=0..1000", "--sweep size: more than 1000 values");
    expect_refused(NULL, "lanes=1,2,1", "--sweep lanes: value '1' appears twice");
    /* a CR (a value read from a CRLF file) would go raw into the JSON and CSV */
    expect_refused(NULL, "S.mode=saf,ct\r", "--sweep S.mode: value 2 holds a control character (0x0d)");
    expect_refused(NULL, "size=64\n", "value 1 holds a control character (0x0a)");
    expect_refused("gear=HS-G1A", "gear=HS-G2A", "--sweep gear is given twice");
    expect_refused("a=1..1000", "b=1..11", "--sweep b: 11000 configurations, at most 10000");
    model_sweep *s = model_sweep_new();
    char err[256], spec[16];
    for (int i = 0; i < MODEL_SWEEP_AXES_MAX; i++) {
        snprintf(spec, sizeof spec, "n%d=1", i);
        CU_ASSERT_EQUAL(model_sweep_add(s, spec, err, sizeof err), 0);
    }
    CU_ASSERT(model_sweep_add(s, "last=1", err, sizeof err) != 0);
    CU_ASSERT(strstr(err, "at most 8 axes") != NULL);
    model_sweep_free(s);
}

static void test_sweep_cross_product_varies_the_last_axis_fastest(void)
{
    model_sweep *s = model_sweep_new();
    char err[256];
    CU_ASSERT_EQUAL(model_sweep_configs(s), 1u); /* no axes: one run */
    CU_ASSERT_EQUAL(model_sweep_add(s, "a=1,2", err, sizeof err), 0);
    CU_ASSERT_EQUAL(model_sweep_add(s, "b=x,y,z", err, sizeof err), 0);
    CU_ASSERT_EQUAL(model_sweep_add(s, "c=p,q", err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(model_sweep_configs(s), 12u);
    static const char *const want[12] = { "1xp", "1xq", "1yp", "1yq", "1zp", "1zq",
                                          "2xp", "2xq", "2yp", "2yq", "2zp", "2zq" };
    for (size_t i = 0; i < 12; i++) {
        char got[8];
        snprintf(got, sizeof got, "%s%s%s", model_sweep_config_value(s, i, 0),
                 model_sweep_config_value(s, i, 1), model_sweep_config_value(s, i, 2));
        CU_ASSERT_STRING_EQUAL(got, want[i]);
    }
    CU_ASSERT_STRING_EQUAL(model_sweep_name(s, 1), "b");
    CU_ASSERT_PTR_NULL(model_sweep_config_value(s, 0, 3));
    model_sweep_free(s);
}

static model_desc *net(void)
{
    static const char *const lines[] = {
        "switch S ports=4 credits=64", "node A dev=2", "node B dev=3  # a comment", "",
        "link A S:0 gear=HS-G3B lanes=2", "link S:1 B gear=HS-G3B", "traffic A B size=64",
        "traffic B A kind=rr size=8", "run 20us",
    };
    model_desc *d = model_desc_new("net.txt");
    char where[16];
    for (unsigned i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        snprintf(where, sizeof where, "net.txt:%u", i + 1);
        CU_ASSERT_EQUAL_FATAL(model_desc_add(d, lines[i], where), 0);
    }
    return d;
}

/* Parses net() with NAME=VALUE; the parser's error must contain `needle` (the line the
 * parameter was put on, through a value the parser refuses), or with needle NULL succeed. */
static void expect_set(const char *name, const char *value, const char *needle)
{
    model_desc *d = net();
    model *m = model_new();
    char err[512] = "";
    const char *n[1] = { name }, *v[1] = { value };
    int rc = model_desc_parse(d, m, n, v, 1, err, sizeof err);
    if (needle && !strstr(err, needle))
        fprintf(stderr, "\n  %s=%s said '%s', wanted '%s'\n", name, value, err, needle);
    CU_ASSERT(needle ? rc != 0 && strstr(err, needle) != NULL : rc == 0);
    model_free(m);
    model_desc_free(d);
}

static void test_desc_sets_the_parameters_a_name_selects(void)
{
    expect_set("gear", "HS-G3B", NULL);
    expect_set("gear", "HS-G9A", "net.txt:5: gear: bad value 'HS-G9A'");  /* every link */
    expect_set("link2.lanes", "9", "net.txt:6: lanes: bad value '9'");    /* added to link 2 */
    expect_set("link.lanes", "9", "net.txt:5: lanes: bad value '9'");
    expect_set("traffic2.size", "70000", "net.txt:8: size: bad value '70000'");
    expect_set("traffic", "fast", "net.txt:7: kind: bad value 'fast'");   /* the flag's name */
    expect_set("credits", "3", "net.txt:1: credits: bad value '3'");      /* switch and nodes */
    expect_set("B.credits", "3", "net.txt:3: credits: bad value '3'");
    expect_set("S.credits", "3", "net.txt:1: credits: bad value '3'");
    expect_set("node2.cports", "0", "net.txt:3: cports: bad value '0'");
}

static void expect_name_refused(const char *name, const char *needle)
{
    model_desc *d = net();
    char err[512] = "";
    CU_ASSERT(model_desc_check_name(d, name, err, sizeof err) != 0);
    if (!strstr(err, needle))
        fprintf(stderr, "\n  %s said '%s', wanted '%s'\n", name, err, needle);
    CU_ASSERT(strstr(err, needle) != NULL);
    model_desc_free(d);
}

static void test_desc_refuses_names_it_has_nothing_for(void)
{
    expect_name_refused("frobs", "unknown name 'frobs'");
    expect_name_refused("node", "'node' is a statement, not a parameter");
    expect_name_refused("Q.credits", "'Q' in 'Q.credits' is no node or switch of net.txt");
    expect_name_refused("link3.gear", "net.txt has 2 link statements: there is no link3");
    expect_name_refused("S.gear", "a switch statement takes ports, latency, mode, credits, series, "
                                  "not 'gear'");
    expect_name_refused("A.size", "a node statement takes dev, cports, credits, segment, not "
                                  "'size'");
    model_flags f = model_flags_default();
    model_desc *d = model_flags_desc(&f); /* no switch: nothing takes latency */
    char err[256] = "";
    CU_ASSERT(model_desc_check_name(d, "latency", err, sizeof err) != 0);
    CU_ASSERT(strstr(err, "the flags has no statement that takes 'latency'") != NULL);
    CU_ASSERT(model_desc_check_name(d, "switch.latency", err, sizeof err) != 0);
    CU_ASSERT(strstr(err, "the flags has no switch statement") != NULL);
    CU_ASSERT_EQUAL(model_desc_check_name(d, "size", err, sizeof err), 0);
    model_desc_free(d);
}

static void expect_overlap(const char *a, const char *b, const char *needle)
{
    model_desc *d = net();
    char err[512] = "";
    int rc = model_desc_check_overlap(d, a, b, err, sizeof err);
    if (needle && !strstr(err, needle))
        fprintf(stderr, "\n  %s, %s said '%s', wanted '%s'\n", a, b, err, needle);
    CU_ASSERT(needle ? rc != 0 && strstr(err, needle) != NULL : rc == 0);
    model_desc_free(d);
}

/* Two names that set one key of one statement would label rows with a value not run. */
static void test_desc_refuses_names_that_set_the_same_thing(void)
{
    expect_overlap("gear", "link1.gear", "gear and link1.gear both set gear of net.txt:5");
    expect_overlap("link2.gear", "link.gear", "both set gear of net.txt:6");
    expect_overlap("credits", "S.credits", "both set credits of net.txt:1");
    expect_overlap("traffic", "traffic2.kind", "both set kind of net.txt:8");
    expect_overlap("switch1.latency", "S.latency", "both set latency of net.txt:1");
    expect_overlap("link1.gear", "link2.gear", NULL);
    expect_overlap("A.credits", "B.credits", NULL);
    expect_overlap("gear", "lanes", NULL);
    expect_overlap("size", "traffic2.rate", NULL);
    expect_overlap("frobs", "gear", "unknown name 'frobs'");
}

/* Numbers are decimal (0x hex for a seed): a leading zero is not octal. */
static void test_desc_numbers_are_decimal(void)
{
    model_desc *d = net();
    model *m = model_new();
    char err[256] = "";
    const char *n[2] = { "traffic1.size", "traffic2.size" }, *v[2] = { "010", "0x40" };
    CU_ASSERT_EQUAL_FATAL(model_desc_parse(d, m, n, v, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(m->flows[0].cfg.size, 10u);
    CU_ASSERT_EQUAL(m->flows[1].cfg.size, 64u);
    model_free(m);
    model_desc_free(d);
    expect_set("traffic1.size", "08", NULL); /* octal would refuse it */
}

/* A set flag replaces the file's value; the run shows it (the link's mode). */
static void test_desc_replaces_a_value_in_a_run(void)
{
    model_flags f = model_flags_default();
    f.with_switch = true;
    model_desc *d = model_flags_desc(&f);
    model *m = model_new();
    char err[256] = "", *buf = NULL;
    size_t len = 0;
    const char *n[2] = { "gear", "lanes" }, *v[2] = { "HS-G1B", "1" };
    CU_ASSERT_EQUAL_FATAL(model_desc_parse(d, m, n, v, 2, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(model_run(m, SIM_US(100), err, sizeof err), 0);
    FILE *out = open_memstream(&buf, &len);
    model_write_json(m, out);
    fclose(out);
    CU_ASSERT(strstr(buf, "\"a\": \"A\", \"b\": \"S:0\", \"mode\": \"HS-G1B x1\"") != NULL);
    CU_ASSERT(strstr(buf, "\"a\": \"S:1\", \"b\": \"B\", \"mode\": \"HS-G1B x1\"") != NULL);
    CU_ASSERT(strstr(buf, "HS-G3B") == NULL);
    CU_ASSERT(strstr(buf, "\"cdf\": [[0, ") != NULL); /* latency distribution exported */
    free(buf);
    model_free(m);
    model_desc_free(d);
}

typedef struct jobs_ctx {
    pid_t parent;
    size_t fail, crash; /* job numbers; (size_t)-1 for none */
} jobs_ctx;

static int square_job(void *ctx, size_t job, char **data, size_t *len)
{
    const jobs_ctx *c = ctx;
    if (job == c->crash && getpid() != c->parent)
        kill(getpid(), SIGKILL);
    char buf[64];
    if (job == c->fail) {
        *data = strdup("job refused");
        return 1;
    }
    int n = snprintf(buf, sizeof buf, "job %zu squared %zu", job, job * job);
    *data = malloc((size_t)n);
    memcpy(*data, buf, (size_t)n); /* binary: no terminating zero */
    *len = (size_t)n;
    return 0;
}

static void test_parallel_gives_results_in_job_order_whatever_the_workers(void)
{
    enum { N = 11 };
    jobs_ctx c = { getpid(), 4, (size_t)-1 };
    static const unsigned workers[] = { 1, 2, 3, 7, 40 };
    for (unsigned w = 0; w < sizeof workers / sizeof workers[0]; w++) {
        model_job_result r[N];
        char err[256] = "";
        CU_ASSERT_EQUAL_FATAL(model_parallel_run(N, workers[w], square_job, &c, r, err, sizeof err), 0);
        for (size_t i = 0; i < N; i++) {
            char want[64];
            snprintf(want, sizeof want, "job %zu squared %zu", i, i * i);
            CU_ASSERT_EQUAL(r[i].failed, i == 4);
            if (i == 4) {
                CU_ASSERT_STRING_EQUAL(r[i].data, "job refused");
            } else {
                CU_ASSERT(r[i].len == strlen(want) && !memcmp(r[i].data, want, r[i].len));
            }
        }
        model_parallel_results_free(r, N);
    }
}

static void test_parallel_reports_a_worker_that_died(void)
{
    jobs_ctx c = { getpid(), (size_t)-1, 5 };
    model_job_result r[8];
    char err[256] = "";
    CU_ASSERT(model_parallel_run(8, 3, square_job, &c, r, err, sizeof err) != 0);
    CU_ASSERT(strstr(err, "worker 3 died of signal 9") != NULL);
    CU_ASSERT(strstr(err, "(2, 5, ...)") != NULL);
    for (size_t i = 0; i < 8; i++)
        CU_ASSERT_PTR_NULL(r[i].data); /* nothing half-filled is handed back */
}

static int sleepy_job(void *ctx, size_t job, char **data, size_t *len)
{
    int fd = *(const int *)ctx;
    pid_t me = getpid();
    (void)job;
    if (write(fd, &me, sizeof me) != sizeof me)
        _exit(5);
    pause(); /* until killed */
    *data = NULL;
    *len = 0;
    return 1;
}

/* A parent killed on its own takes its workers with it: nobody would read their results. */
static void test_parallel_workers_die_with_their_parent(void)
{
    int p[2];
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    CU_ASSERT_EQUAL_FATAL(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); /* orphans come back here */
    pid_t mid = fork();
    CU_ASSERT_FATAL(mid >= 0);
    if (mid == 0) {
        model_job_result r[2];
        char err[256];
        close(p[0]);
        model_parallel_run(2, 2, sleepy_job, &p[1], r, err, sizeof err);
        _exit(0);
    }
    close(p[1]);
    pid_t w[2];
    CU_ASSERT_EQUAL_FATAL(read(p[0], &w[0], sizeof w[0]), (ssize_t)sizeof w[0]);
    CU_ASSERT_EQUAL_FATAL(read(p[0], &w[1], sizeof w[1]), (ssize_t)sizeof w[1]);
    close(p[0]);
    kill(mid, SIGKILL);
    int st = 0;
    CU_ASSERT_EQUAL(waitpid(mid, &st, 0), mid);
    for (int i = 0; i < 2; i++) {
        pid_t got = 0;
        for (int tries = 0; tries < 500 && !(got = waitpid(w[i], &st, WNOHANG)); tries++)
            usleep(10000);
        if (!got) { /* still running 5 s later: the bug; end it ourselves */
            kill(w[i], SIGKILL);
            waitpid(w[i], &st, 0);
        }
        CU_ASSERT_EQUAL(got, w[i]);
        CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
}

static const unit_test tests[] = {
    UNIT_TEST(test_sweep_expands_lists_and_ranges),
    UNIT_TEST(test_sweep_refuses_bad_specs_naming_the_problem),
    UNIT_TEST(test_sweep_cross_product_varies_the_last_axis_fastest),
    UNIT_TEST(test_desc_sets_the_parameters_a_name_selects),
    UNIT_TEST(test_desc_refuses_names_it_has_nothing_for),
    UNIT_TEST(test_desc_refuses_names_that_set_the_same_thing),
    UNIT_TEST(test_desc_numbers_are_decimal),
    UNIT_TEST(test_desc_replaces_a_value_in_a_run),
    UNIT_TEST(test_parallel_gives_results_in_job_order_whatever_the_workers),
    UNIT_TEST(test_parallel_reports_a_worker_that_died),
    UNIT_TEST(test_parallel_workers_die_with_their_parent),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "model_sweep", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
