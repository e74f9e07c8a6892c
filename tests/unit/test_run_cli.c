// SPDX-License-Identifier: MIT
// `gbvp run`'s command line (gbvp/cmd_run.c): what it refuses at start, before it builds
// anything or starts a process, with a message naming the option. Each case runs the
// command in a child whose output is kept in a file; every case here is refused early, so
// none builds, boots or spawns anything (--qemu, --kernel and --initrd name stand-ins so
// that even a case the code wrongly let through builds nothing).
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbvp/cli_opts.h"
#include "gbvp/cmd_run.h"
#include "gbvp/out_file.h"
#include "tests/unit/unit.h"

static char out[8192];

/* Runs gbvp run with the arguments (NULL-terminated); its exit status, its output in out. */
static int run(const char *first, ...)
{
    char *argv[64] = { "run" };
    int argc = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    char path[64];
    unit_tmp_path(path, sizeof path, "run_cli.out");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(30); /* a case let through must not hang the suite */
        /* gbvp's data (the catalog, the scripts) is the source tree the tests run in: a
         * test binary's own place (build/asan/tests/) is not where a program finds it */
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd))
            setenv("GBVP_DATADIR", cwd, 1);
        if (!freopen(path, "w", stdout) || dup2(fileno(stdout), STDERR_FILENO) < 0)
            _exit(99);
        int rc = cmd_run_main(argc, argv);
        fflush(NULL);
        _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = 0;
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define STAND_INS "--qemu", "/bin/true", "--kernel", "/dev/null", "--initrd", "/dev/null"

/* start_sim puts the wrapper's words before gbvp sim's own in one array: more words than
 * it holds (with every option that adds its own) overran it; now refused at start, and
 * never cut short silently. */
static void test_run_refuses_a_wrapper_of_too_many_words(void)
{
    char many[512] = "";
    for (int i = 0; i < 33; i++)
        strcat(many, "true ");
    int rc = run("--sim-wrapper", many, "--pcap", "/tmp/x.pcapng", "--trace", "/tmp/x.json",
                 "--pcap-frames", "--timing", "frame", "--sim-cpus", "0", "--lockstep",
                 STAND_INS, NULL);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--sim-wrapper"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "32 words"));
    CU_ASSERT_EQUAL(run("--sim-wrapper", " ", STAND_INS, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--sim-wrapper"));
    /* 32 words pass (the run then stops at the next check, an unwritable --tap) */
    many[strlen(many) - 5] = 0;
    CU_ASSERT_EQUAL(run("--sim-wrapper", many, "--tap", "/nonexistent/dir/t.tap", STAND_INS,
                        NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--tap /nonexistent/dir/t.tap"));
}

/* What the simulator would refuse only once started, after a build that may take half an
 * hour: refused at start instead. */
static void test_run_refuses_capture_options_at_start(void)
{
    CU_ASSERT_EQUAL(run("--pcap", "/nonexistent/dir/x.pcapng", STAND_INS, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--pcap /nonexistent/dir/x.pcapng: No such file"));
    CU_ASSERT_EQUAL(run("--trace", "/nonexistent/dir/x.json", STAND_INS, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--trace /nonexistent/dir/x.json: No such file"));
    CU_ASSERT_EQUAL(run("--pcap-frames", STAND_INS, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--pcap-frames needs --pcap"));
    char pcap[64];
    unit_tmp_path(pcap, sizeof pcap, "run_cli.pcapng");
    CU_ASSERT_EQUAL(run("--pcap", pcap, "--pcap-frames", "--timing", "message", STAND_INS,
                        NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--timing frame"));
    CU_ASSERT_NOT_EQUAL(access(pcap, F_OK), 0); /* nothing left behind */
}

/* Two outputs naming one file, however it is spelt: two writers would leave a mix of both
 * (gbvp sim, scenario, run and model refuse it through sim_out_files_distinct). */
static void test_outputs_naming_one_file_are_refused(void)
{
    char a[64], b[64], dotted[160], err[512];
    unit_tmp_path(a, sizeof a, "out_a.json");
    unit_tmp_path(b, sizeof b, "out_b.json");
    /* the folder spelt another way: /tmp/gbvp-unit-X/./../gbvp-unit-X/out_a.json */
    const char *dir_name = strrchr(a, '/');
    char parent_name[64];
    snprintf(parent_name, sizeof parent_name, "%.*s", (int)(dir_name - a), a);
    snprintf(dotted, sizeof dotted, "%s/./../%s/out_a.json", parent_name,
             strrchr(parent_name, '/') + 1);
    const char *names[] = { "--pcap", "--trace", "--stats" };
    const char *same[] = { a, dotted, NULL };
    CU_ASSERT_EQUAL(sim_out_files_distinct(names, same, 3, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--pcap and --trace name the same file"));
    const char *apart[] = { a, b, NULL };
    CU_ASSERT_EQUAL(sim_out_files_distinct(names, apart, 3, err, sizeof err), 0);
    /* one existing file under two names (a hard link) */
    FILE *f = fopen(a, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("kept", f);
    fclose(f);
    CU_ASSERT_EQUAL(link(a, b), 0);
    CU_ASSERT_EQUAL(sim_out_files_distinct(names, apart, 3, err, sizeof err), -1);
    /* /dev/null for two outputs is fine, and standard output is left to the command */
    const char *devnull[] = { "/dev/null", "/dev/null", "-" };
    CU_ASSERT_EQUAL(sim_out_files_distinct(names, devnull, 3, err, sizeof err), 0);
    /* gbvp run refuses it at start and leaves the file as it was */
    CU_ASSERT_EQUAL(run("--pcap", a, "--trace", dotted, STAND_INS, NULL), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--pcap and --trace name the same file"));
    f = fopen(a, "r");
    char got[8] = "";
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(got, sizeof got, f));
    fclose(f);
    CU_ASSERT_STRING_EQUAL(got, "kept");
    unlink(a);
    unlink(b);
}

/* --seed (gbvp sim, scenario, test and run): decimal or 0x hex, 0..2^63-1; a leading zero
 * is no octal. */
static void test_seeds_are_decimal_or_hex(void)
{
    uint64_t seed = 0;
    CU_ASSERT_TRUE(sim_cli_seed("010", &seed));
    CU_ASSERT_EQUAL(seed, 10);
    CU_ASSERT_TRUE(sim_cli_seed("09", &seed));
    CU_ASSERT_EQUAL(seed, 9);
    CU_ASSERT_TRUE(sim_cli_seed("0x10", &seed));
    CU_ASSERT_EQUAL(seed, 16);
    CU_ASSERT_TRUE(sim_cli_seed("9223372036854775807", &seed));
    CU_ASSERT_FALSE(sim_cli_seed("9223372036854775808", &seed));
    CU_ASSERT_FALSE(sim_cli_seed("-1", &seed));
    CU_ASSERT_FALSE(sim_cli_seed("", &seed));
    CU_ASSERT_FALSE(sim_cli_seed("12x", &seed));
}

static const unit_test run_cli_tests[] = {
    UNIT_TEST(test_run_refuses_a_wrapper_of_too_many_words),
    UNIT_TEST(test_run_refuses_capture_options_at_start),
    UNIT_TEST(test_outputs_naming_one_file_are_refused),
    UNIT_TEST(test_seeds_are_decimal_or_hex),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "run_cli", run_cli_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
