// SPDX-License-Identifier: MIT
// `gbvp manifest`: conversions both ways, --check, -o, and clear errors with the right
// exit status for bad flags, missing files and invalid manifests.
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "gbvp/cmd_manifest.h"

#define FIXTURES "tests/fixtures/manifesto"

typedef struct run_result {
    int status;
    char out[8192];
    char err[8192];
} run_result;

static void slurp(int fd, char *buf, size_t cap)
{
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, cap - 1);
    buf[n > 0 ? n : 0] = '\0';
}

/* Runs `gbvp manifest ARGS...` in-process with stdout and stderr captured. */
static void run(run_result *r, const char *const *args)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)"manifest";
    for (; *args && argc < 15; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;

    char out_path[] = "/tmp/gbvp-cli-out-XXXXXX", err_path[] = "/tmp/gbvp-cli-err-XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    r->status = cmd_manifest_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    slurp(out_fd, r->out, sizeof r->out);
    slurp(err_fd, r->err, sizeof r->err);
    close(out_fd);
    close(err_fd);
    unlink(out_path);
    unlink(err_path);
}

static bool same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = false;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static void test_cli_converts_text_to_binary_and_back(void)
{
    run_result r;
    char bin[] = "/tmp/gbvp-cli-XXXXXX", txt[] = "/tmp/gbvp-cli-XXXXXX", bin2[] = "/tmp/gbvp-cli-XXXXXX";
    close(mkstemp(bin));
    close(mkstemp(txt));
    close(mkstemp(bin2));
    run(&r, (const char *const[]){ FIXTURES "/IID1-simple-gpio-module.mnfs", "-o", bin, NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.err, "");
    CU_ASSERT_TRUE(same_file(bin, FIXTURES "/IID1-simple-gpio-module.mnfb"));
    /* the file has no .mnfb suffix: the content tells it is binary */
    run(&r, (const char *const[]){ "--output=" "/dev/null", bin, NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    run(&r, (const char *const[]){ bin, "--to", "text", "-o", txt, NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    run(&r, (const char *const[]){ txt, "--to=binary", "-o", bin2, NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_TRUE(same_file(bin2, FIXTURES "/IID1-simple-gpio-module.mnfb"));
    unlink(bin);
    unlink(txt);
    unlink(bin2);
}

static void test_cli_binary_to_text_on_stdout(void)
{
    run_result r;
    run(&r, (const char *const[]){ FIXTURES "/IID1-simple-uart-module.mnfb", NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "[string-descriptor 2]\nstring = Simple UART Interface\n"));
}

static void test_cli_check_reports_valid_and_invalid(void)
{
    run_result r;
    run(&r, (const char *const[]){ "--check", FIXTURES "/IID1-simple-i2c-module.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "IID1-simple-i2c-module.mnfs: valid, 76 bytes, 1 bundle(s), 1 CPort(s)"));

    char bad[] = "/tmp/gbvp-cli-bad-XXXXXX.mnfs";
    int fd = mkstemps(bad, 5);
    static const char text[] = "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
                               "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 0\n"
                               "[string-descriptor 1]\nstring = x\n"
                               "[bundle-descriptor 1]\nclass = 0x0a\n"
                               "[cport-descriptor 3]\nbundle = 7\nprotocol = 2\n";
    CU_ASSERT_EQUAL(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    run(&r, (const char *const[]){ "-c", bad, NULL });
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, ":11: error: cport-descriptor 3 names bundle 7, which does not exist"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, ":9: error: bundle-descriptor 1 has no cport-descriptor"));
    unlink(bad);
}

static void test_cli_check_takes_several_files_and_reports_the_worst(void)
{
    run_result r;
    run(&r, (const char *const[]){ "--check", FIXTURES "/IID1-simple-i2c-module.mnfs",
                                   FIXTURES "/IID1-simple-uart-module.mnfb", NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "IID1-simple-i2c-module.mnfs: valid"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "IID1-simple-uart-module.mnfb: valid"));
    run(&r, (const char *const[]){ "--check", FIXTURES "/LICENSE", FIXTURES "/missing.mnfs",
                                   FIXTURES "/IID1-simple-i2c-module.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "LICENSE:1: error: 'Copyright 2014, 2015 Google Inc.' comes before any [section]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "missing.mnfs: error: cannot open"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "IID1-simple-i2c-module.mnfs: valid"));
}

static void test_cli_strict_turns_warnings_into_failure(void)
{
    run_result r;
    run(&r, (const char *const[]){ "--check", FIXTURES "/IID1-simple-audio-module.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "warning: bundle-descriptor 1 (class 0x12 (Audio))"));
    run(&r, (const char *const[]){ "--check", "-q", FIXTURES "/IID1-simple-audio-module.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.err, "");
    run(&r, (const char *const[]){ "--check", "--strict", FIXTURES "/IID1-simple-audio-module.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "1 warning(s) treated as errors (--strict)"));
}

static void test_cli_usage_errors_exit_2_with_a_reason(void)
{
    run_result r;
    run(&r, (const char *const[]){ "--frobnicate", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "unknown option '--frobnicate'"));
    run(&r, (const char *const[]){ NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no input file"));
    run(&r, (const char *const[]){ "a.mnfs", "b.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "more than one input file ('a.mnfs' and 'b.mnfs'); only --check takes several"));
    run(&r, (const char *const[]){ "a.mnfs", "-o", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--output needs a value"));
    run(&r, (const char *const[]){ "a.mnfs", "--to", "yaml", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--to takes 'text' or 'binary', not 'yaml'"));
    run(&r, (const char *const[]){ "--check", "-o", "x", "a.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
}

static void test_cli_missing_input_and_unwritable_output(void)
{
    run_result r;
    run(&r, (const char *const[]){ "/nonexistent/dir/m.mnfs", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "/nonexistent/dir/m.mnfs: error: cannot open: No such file or directory"));
    run(&r, (const char *const[]){ FIXTURES "/IID1-simple-gpio-module.mnfs", "-o", "/nonexistent/dir/x.mnfb", NULL });
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "cannot write /nonexistent/dir/x.mnfb"));
}

static void test_cli_help_goes_to_stdout(void)
{
    run_result r;
    run(&r, (const char *const[]){ "--help", NULL });
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "usage: gbvp manifest [OPTIONS] FILE"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--check"));
}

static const unit_test cli_tests[] = {
    UNIT_TEST(test_cli_converts_text_to_binary_and_back),
    UNIT_TEST(test_cli_binary_to_text_on_stdout),
    UNIT_TEST(test_cli_check_reports_valid_and_invalid),
    UNIT_TEST(test_cli_check_takes_several_files_and_reports_the_worst),
    UNIT_TEST(test_cli_strict_turns_warnings_into_failure),
    UNIT_TEST(test_cli_usage_errors_exit_2_with_a_reason),
    UNIT_TEST(test_cli_missing_input_and_unwritable_output),
    UNIT_TEST(test_cli_help_goes_to_stdout),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "manifest_cli", cli_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
