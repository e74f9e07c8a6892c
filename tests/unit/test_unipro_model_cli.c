// SPDX-License-Identifier: MIT
// `gbvp model`: topology/traffic files are parsed with errors naming the line, and a run
// produces statistics that agree with the timing model.
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "gbvp/cmd_model.h"
#include "gbvp/model/model_msg.h"
#include "gbvp/model/model_net.h"
#include "gbvp/model/model_topo.h"

static char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gbvp-model-XXXXXX");
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void expect_error(const char *text, const char *needle)
{
    model *m = model_new();
    char err[512] = "";
    char *path = write_tmp(text);
    int rc = model_parse_file(m, path, err, sizeof err);
    if (!rc)
        rc = model_run(m, SIM_US(10), err, sizeof err);
    CU_ASSERT(rc != 0);
    if (!strstr(err, needle))
        fprintf(stderr, "\n  got '%s', wanted '%s'\n", err, needle);
    CU_ASSERT(strstr(err, needle) != NULL);
    unlink(path);
    model_free(m);
}

static void test_model_errors_name_the_line(void)
{
    expect_error("node A dev=2\nnode B dev=300\n", ":2: dev: bad value '300'");
    expect_error("node A dev=2\n\n# c\nlink A Q gear=HS-G3B\n", ":4: no node named 'Q'");
    expect_error("node A dev=2\nnode B dev=2\n", ":2: DeviceID 2 is already used by node A");
    expect_error("node A dev=2\nnode B dev=3\nlink A B gear=HS-G9B\n", ":3: gear: bad value");
    expect_error("node A dev=2\nnode B dev=3\nlink A B lanes=5\n", ":3: lanes: bad value '5'");
    expect_error("switch S ports=4\nnode A dev=2\nlink A S:4\n", ":3: switch S has no port '4'");
    expect_error("node A dev=2\nnode B dev=3\nlink A B\nlink A B\n", ":4: an end of this link");
    expect_error("node A dev=2\nnode B dev=3\ntraffic A B kind=cbr\n", ":3: cbr traffic needs rate=");
    expect_error("node A dev=2\nnode B dev=3\ntraffic A B kind=fast\n", ":3: kind: bad value 'fast'");
    expect_error("node A dev=2\nfrobnicate\n", ":2: unknown statement 'frobnicate'");
    expect_error("node A dev=2\nnode B dev=3\ntraffic A B size\n", ":3: expected key=value");
    expect_error("node A dev=2\nnode B dev=3\nlink A B ber=2\n", ":3: ber: bad value '2'");
    expect_error("run forever\n", ":1: run needs one duration");
    /* a key given twice, or a second run, would have the last one win unseen */
    expect_error("node A dev=2 dev=3\n", ":1: dev is given twice");
    expect_error("node A dev=2\nnode B dev=3\nlink A B\nrun 10us\nrun 20us\n",
                 ":5: a second run statement (one duration per file)");
    /* fuzz_model: 17+ options on one line overflowed the option array (stack) */
    expect_error("node A dev=2 a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1 m=1 n=1 o=1 "
                 "p=1 q=1\n", ":1: too many options (at most 16)");
    /* fuzz_model: a cbr/poisson rate so high that the gap rounded to 0 ps hung the run */
    expect_error("node A dev=2\nnode B dev=3\nlink A B\ntraffic A B kind=poisson rate=1e22Mb/s\n",
                 ":4: rate: bad value '1e22Mb/s' (a rate such as 1Gb/s, at most 1Tb/s)");
    /* the limit the message names is a rate it takes; just past it is refused */
    expect_error("node A dev=2\nnode B dev=3\nlink A B\ntraffic A B kind=cbr rate=1.001Tb/s\n",
                 ":4: rate: bad value '1.001Tb/s' (a rate such as 1Gb/s, at most 1Tb/s)");
    double bps = 0;
    CU_ASSERT_EQUAL(model_parse_rate("1Tb/s", &bps), 0);
    CU_ASSERT_EQUAL(bps, 1e12);
    CU_ASSERT_EQUAL(model_parse_rate("2.5Gb/s", &bps), 0);
    CU_ASSERT_EQUAL(bps, 2.5e9);
    /* errors found when building name the statement's line too */
    expect_error("node A dev=2\nnode B dev=3\ntraffic A B\n", ":3: no path from A to B");
}

static void test_model_runs_a_switched_network_and_exports_statistics(void)
{
    model *m = model_new();
    char err[512] = "";
    const char *text = "# two nodes through a switch\n"
                       "node A dev=2\nnode B dev=3\n"
                       "switch S ports=4 latency=100ns series=1us\n"
                       "link A S:0 gear=HS-G3B lanes=2\n"
                       "link S:1 B gear=HS-G3B lanes=2\n"
                       "traffic A B kind=saturate size=2048 e2efc=off\n"
                       "traffic B A kind=rr size=64 depth=1\n"
                       "run 200us\n";
    char *path = write_tmp(text);
    CU_ASSERT_EQUAL_FATAL(model_parse_file(m, path, err, sizeof err), 0);
    CU_ASSERT_EQUAL(model_duration(m), SIM_US(200));
    CU_ASSERT_EQUAL_FATAL(model_run(m, model_duration(m), err, sizeof err), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    model_write_json(m, f);
    fclose(f);
    CU_ASSERT(strstr(buf, "\"kind\": \"saturate\"") != NULL);
    CU_ASSERT(strstr(buf, "\"kind\": \"rr\"") != NULL);
    CU_ASSERT(strstr(buf, "\"hol_blocked_ps\"") != NULL);
    CU_ASSERT(strstr(buf, "\"p99\"") != NULL);
    CU_ASSERT(strstr(buf, "\"replays\": 0,") != NULL); /* no faults: nothing replayed */
    CU_ASSERT(strstr(buf, "\"order_errors\": 0") != NULL);
    /* the saturating flow runs near 9 Gb/s; the loopback responses share its link */
    char *g = strstr(buf, "\"goodput_bps\": ");
    CU_ASSERT_FATAL(g != NULL);
    double gp = strtod(g + 15, NULL);
    CU_ASSERT(gp > 8.3e9 && gp < 9.02e9);
    free(buf);
    f = open_memstream(&buf, &len);
    model_write_csv(m, f);
    fclose(f);
    CU_ASSERT(strncmp(buf, "section,object,metric,value\n", 28) == 0);
    CU_ASSERT(strstr(buf, "link,A->S:0,frames,") != NULL);
    CU_ASSERT(strstr(buf, "flow,B:1->A:1,rtt_p50_ps,") != NULL);
    free(buf);
    f = open_memstream(&buf, &len);
    model_write_series_csv(m, f);
    fclose(f);
    CU_ASSERT(strstr(buf, "S,0,") != NULL);
    free(buf);
    unlink(path);
    model_free(m);
}

static void test_model_cli_flags_and_bad_arguments(void)
{
    char *ok[] = { "model", "--gear", "HS-G2A", "--lanes", "1", "--duration", "50us", "--quiet",
                   "--switch", NULL };
    CU_ASSERT_EQUAL(cmd_model_main(9, ok), 0);
    char *bad[] = { "model", "--duration", "soon", NULL };
    CU_ASSERT_EQUAL(cmd_model_main(3, bad), 2);
    char *bad2[] = { "model", "--gear", "HS-G7A", "--quiet", NULL };
    CU_ASSERT_EQUAL(cmd_model_main(4, bad2), 1);
    char *missing[] = { "model", "/nonexistent/topology.txt", NULL };
    CU_ASSERT_EQUAL(cmd_model_main(2, missing), 1);
    /* an option where a value belongs is not taken as the value */
    char *no_value[] = { "model", "--gear", "--lanes", "2", NULL };
    CU_ASSERT_EQUAL(cmd_model_main(4, no_value), 2);
    char *old_flag[] = { "model", "--fast", NULL };
    CU_ASSERT_EQUAL(cmd_model_main(2, old_flag), 2);
    char *bad_timing[] = { "model", "--timing", "fast", NULL };
    CU_ASSERT_EQUAL(cmd_model_main(3, bad_timing), 2);
}

/* Field `key` (a number) of flow `flow` in the model's JSON statistics; -1 when absent. */
/* A number of flow `flow` in the model's JSON: `key` of the flow, or with `within` set
 * the key of that object of the flow (e.g. "rtt_ps"); -1 when missing. */
static double flow_field_in(model *m, unsigned flow, const char *within, const char *key)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    model_write_json(m, f);
    fclose(f);
    char *p = strstr(buf, "\"flows\"");
    for (unsigned i = 0; p && i <= flow; i++)
        p = strstr(p + 1, "{\"from\"");
    char *end = p ? strchr(p, '\n') : NULL, pat[40];
    if (p && within) {
        snprintf(pat, sizeof pat, "\"%s\": ", within);
        p = strstr(p, pat);
        if (end && p > end)
            p = NULL;
    }
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    char *v = p ? strstr(p, pat) : NULL;
    double out = v && (!end || v < end) ? strtod(v + strlen(pat), NULL) : -1;
    free(buf);
    return out;
}

static double flow_field(model *m, unsigned flow, const char *key)
{
    return flow_field_in(m, flow, NULL, key);
}

/* The model of `text` after a run at the frame level or (message) the message level; the
 * caller frees it. */
static model *run_text(const char *text, bool message)
{
    char err[512] = "";
    model *m = model_new();
    char *path = write_tmp(text);
    CU_ASSERT_EQUAL_FATAL(model_parse_file(m, path, err, sizeof err), 0);
    int rc = message ? model_run_message(m, model_duration(m), err, sizeof err)
                  : model_run(m, model_duration(m), err, sizeof err);
    if (rc)
        fprintf(stderr, "\n    %s\n", err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    unlink(path);
    return m;
}

/* The message-level mode refuses what it does not model, naming the line. */
static void expect_message_refused(const char *text, const char *needle)
{
    char err[512] = "";
    model *m = model_new();
    char *path = write_tmp(text);
    CU_ASSERT_EQUAL(model_parse_file(m, path, err, sizeof err), 0);
    CU_ASSERT(model_run_message(m, SIM_US(10), err, sizeof err) != 0);
    if (!strstr(err, needle))
        fprintf(stderr, "\n  got '%s', wanted '%s'\n", err, needle);
    CU_ASSERT(strstr(err, needle) != NULL);
    unlink(path);
    model_free(m);
}

static void test_model_fast_mode_agrees_with_frame_level(void)
{
    const char *text = "node A dev=2\nnode B dev=3\nswitch S ports=4\n"
                       "link A S:0 gear=HS-G2B lanes=4\nlink S:1 B gear=HS-G2B lanes=4\n"
                       "traffic A B size=1024 e2efc=off\nrun 300us\n";
    double gp[2];
    for (int message = 0; message < 2; message++) {
        model *m = run_text(text, message);
        gp[message] = flow_field(m, 0, "goodput_bps");
        model_free(m);
    }
    CU_ASSERT(gp[0] > 8e9);
    CU_ASSERT(fabs(gp[1] - gp[0]) / gp[0] < 0.01);
    expect_message_refused("node A dev=2\nnode B dev=3\nlink A B ber=1e-6\ntraffic A B\n",
                        ":3: --timing message does not model faults");
}

/* Runs `gbvp model ARGS` in dir (a child process: the command prints and writes files
 * relative to its working directory); returns its exit status. */
static int run_model_in(const char *dir, char *args)
{
    char *argv[32] = { "model" };
    int argc = 1;
    for (char *tok = strtok(args, " "); tok && argc < 31; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    argv[argc] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) || !freopen("/dev/null", "w", stdout))
            _exit(99);
        _exit(cmd_model_main(argc, argv));
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* docs/performance-model.md: every fenced block whose first line is `# NAME.txt` is a file,
 * every line starting with `gbvp model ` a command; each command succeeds on those files. */
static void test_model_runs_the_examples_of_the_documentation(void)
{
    FILE *doc = fopen("docs/performance-model.md", "r");
    CU_ASSERT_FATAL(doc != NULL);
    char dir[] = "/tmp/gbvp-model-doc-XXXXXX";
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    char line[512], cmds[16][512];
    unsigned files = 0, ncmds = 0;
    bool in_block = false;
    FILE *out = NULL;
    while (fgets(line, sizeof line, doc)) {
        if (!strncmp(line, "```", 3)) {
            in_block = !in_block;
            if (out)
                fclose(out);
            out = NULL;
            if (in_block) { /* look at the block's first line */
                long at = ftell(doc);
                char first[256], name[128];
                if (fgets(first, sizeof first, doc) && sscanf(first, "# %127[A-Za-z0-9_.-]", name) == 1 &&
                    strstr(name, ".txt")) {
                    char path[256];
                    snprintf(path, sizeof path, "%s/%s", dir, name);
                    out = fopen(path, "w");
                    CU_ASSERT_FATAL(out != NULL);
                    files++;
                }
                fseek(doc, at, SEEK_SET);
            }
            continue;
        }
        if (out)
            fputs(line, out);
        if (in_block && !strncmp(line, "gbvp model ", 11) && ncmds < 16) {
            char *hash = strstr(line, " #");
            if (hash)
                *hash = '\0';
            line[strcspn(line, "\n")] = '\0';
            snprintf(cmds[ncmds++], sizeof cmds[0], "%s", line + 11);
        }
    }
    fclose(doc);
    CU_ASSERT(files >= 2);
    CU_ASSERT(ncmds >= 4);
    for (unsigned i = 0; i < ncmds; i++) {
        char shown[512];
        memcpy(shown, cmds[i], sizeof shown);
        int rc = run_model_in(dir, cmds[i]);
        if (rc)
            fprintf(stderr, "\n    'gbvp model %s' exited %d\n", shown, rc);
        CU_ASSERT_EQUAL(rc, 0);
    }
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(rm), 0);
}

/* Constant-rate and Poisson flows with message level: the same offered messages (same seed) as
 * the frame level; without contention for an output, the same latencies too. */
static void test_model_fast_mode_runs_open_loop_flows_like_frame_level(void)
{
    const char *text = "switch S ports=4\nnode A dev=2\nnode B dev=3\nnode C dev=4\n"
                       "node D dev=5\nlink A S:0\nlink B S:1\nlink C S:2\nlink D S:3\n"
                       "traffic A C kind=cbr size=1024 rate=4Gb/s e2efc=off\n"
                       "traffic B D kind=poisson size=256 rate=6Gb/s e2efc=off count=3000\n"
                       "run 2ms\n";
    static const char *const keys[] = { "sent", "received", "goodput_bps", "p50", "p99", "mean" };
    double v[2][2][6];
    for (int message = 0; message < 2; message++) {
        model *m = run_text(text, message);
        for (unsigned fl = 0; fl < 2; fl++)
            for (unsigned k = 0; k < 6; k++)
                v[message][fl][k] = flow_field(m, fl, keys[k]);
        model_free(m);
    }
    CU_ASSERT_EQUAL(v[0][1][0], 3000); /* count= stops the Poisson source */
    CU_ASSERT(v[0][0][0] > 900);       /* 4 Gb/s of 1032-byte messages for 2 ms: 969 */
    for (unsigned fl = 0; fl < 2; fl++)
        for (unsigned k = 0; k < 6; k++) {
            double a = v[0][fl][k], b = v[1][fl][k];
            CU_ASSERT(a > 0 && fabs(a - b) <= 0.01 * a);
            if (!(a > 0 && fabs(a - b) <= 0.01 * a))
                fprintf(stderr, "\n    flow %u %s: frame level %g, message level %g\n", fl,
                        keys[k], a, b);
        }
}

/* Request/response flows (Greybus loopback's pattern) give the frame level's figures at the
 * message level: each acknowledgement of a paused burst goes out in front of the answer.
 * A slow PWM-G2 node behind the switch (where AFCs take microseconds) and a fast pair with
 * two requests in flight. */
static void test_model_fast_mode_runs_request_response_like_frame_level(void)
{
    const char *text = "switch S ports=4\nnode A dev=2\nnode B dev=3\nnode C dev=4\n"
                       "node D dev=5\nlink A S:0 gear=HS-G1B\nlink B S:1 gear=PWM-G2 lanes=1\n"
                       "link C S:2\nlink D S:3\n"
                       "traffic A B kind=rr size=64 depth=1 e2efc=off\n"
                       "traffic C D kind=rr size=1024 response=16 depth=2 e2efc=off\n"
                       "run 2ms\n";
    static const char *const keys[] = { "sent", "received", "goodput_bps", "p50", "mean" };
    static const char *const rtt_keys[] = { "count", "p50", "max" };
    double v[2][2][8];
    for (int message = 0; message < 2; message++) {
        model *m = run_text(text, message);
        for (unsigned fl = 0; fl < 2; fl++) {
            for (unsigned k = 0; k < 5; k++)
                v[message][fl][k] = flow_field(m, fl, keys[k]);
            for (unsigned k = 0; k < 3; k++)
                v[message][fl][5 + k] = flow_field_in(m, fl, "rtt_ps", rtt_keys[k]);
        }
        model_free(m);
    }
    CU_ASSERT(v[0][0][5] > 10);   /* round trips of about 131 us for 2 ms */
    CU_ASSERT(v[0][1][5] > 2000); /* about 1.85 us each, two at a time */
    for (unsigned fl = 0; fl < 2; fl++)
        for (unsigned k = 0; k < 8; k++) {
            double a = v[0][fl][k], b = v[1][fl][k];
            bool ok = a >= 0 && fabs(a - b) <= 0.005 * a + (k == 2 ? 0 : 1);
            CU_ASSERT(ok);
            if (!ok)
                fprintf(stderr, "\n    flow %u %s: frame level %g, message level %g\n", fl,
                        k < 5 ? keys[k] : rtt_keys[k - 5], a, b);
        }
    expect_message_refused("node A dev=2\nnode B dev=3\nlink A B\ntraffic A B kind=rr count=5\n",
                        ":4: --timing message runs saturating and rr flows without count, start or stop");
    expect_message_refused("node A dev=2\nnode B dev=3\nlink A B\ntraffic A B kind=rr\n",
                        ":4: --timing message does not model end-to-end flow control (add e2efc=off)");
}

static const unit_test tests[] = {
    UNIT_TEST(test_model_fast_mode_agrees_with_frame_level),
    UNIT_TEST(test_model_fast_mode_runs_open_loop_flows_like_frame_level),
    UNIT_TEST(test_model_fast_mode_runs_request_response_like_frame_level),
    UNIT_TEST(test_model_errors_name_the_line),
    UNIT_TEST(test_model_runs_a_switched_network_and_exports_statistics),
    UNIT_TEST(test_model_cli_flags_and_bad_arguments),
    UNIT_TEST(test_model_runs_the_examples_of_the_documentation),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "unipro_model_cli", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
