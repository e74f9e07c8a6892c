// SPDX-License-Identifier: MIT
// `gbvp sim`'s standard input (gbvp/cmd_sim.c): commands arrive as lines from a terminal or
// a program, and a program may write a line in pieces. The simulator runs in a child with
// a pipe as its standard input; no QEMU is involved (the unpaced clock, nothing inserted).
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/cmd_sim.h"
#include "gbvp/stop_signal.h"
#include "tests/unit/unit.h"

static char out[16384];

typedef struct child {
    pid_t pid;
    int in; /* the write end of its standard input */
    char out_path[64];
} child;

/* gbvp sim --link LINK --control CONTROL --clock unpaced --slots 1 [MORE...] (MORE a NULL-
 * terminated list, or NULL), its standard input a pipe (c->in), its output into a file of
 * its own. */
static void start_with(child *c, const char *link_name, const char *control_name,
                       const char *const *more)
{
    char link[64], control[64];
    unit_tmp_path(link, sizeof link, link_name);
    unit_tmp_path(control, sizeof control, control_name);
    char out_name[80];
    snprintf(out_name, sizeof out_name, "%s.out", link_name);
    unit_tmp_path(c->out_path, sizeof c->out_path, out_name);
    int p[2];
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    fflush(NULL);
    c->pid = fork();
    CU_ASSERT_FATAL(c->pid >= 0);
    if (c->pid == 0) {
        alarm(30); /* never outlive the suite */
        /* gbvp's data (the catalog, the scripts) is the source tree the tests run in: a
         * test binary's own place (build/asan/tests/) is not where a program finds it */
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd))
            setenv("GBVP_DATADIR", cwd, 1);
        close(p[1]);
        if (dup2(p[0], STDIN_FILENO) < 0 || !freopen(c->out_path, "w", stdout) ||
            dup2(fileno(stdout), STDERR_FILENO) < 0)
            _exit(99);
        char *argv[16] = { "sim", "--link", link, "--control", control, "--clock", "unpaced",
                           "--slots", "1" };
        int argc = 9;
        for (; more && *more && argc < 15; more++)
            argv[argc++] = (char *)*more;
        argv[argc] = NULL;
        int rc = cmd_sim_main(argc, argv);
        fflush(NULL);
        _exit(rc);
    }
    close(p[0]);
    c->in = p[1];
}

static void start(child *c)
{
    start_with(c, "sim_cli.sock", "sim_cli_control.sock", NULL);
}

static void say(child *c, const char *text)
{
    CU_ASSERT_EQUAL((size_t)write(c->in, text, strlen(text)), strlen(text));
}

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

/* Its exit status within `ms` (-1: still running, then killed); its output in out. */
static int finish(child *c, long ms)
{
    int st = 0, rc = -1;
    for (long waited = 0; waited <= ms; waited += 20) {
        if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
            rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            break;
        }
        pause_ms(20);
    }
    if (rc < 0) {
        kill(c->pid, SIGKILL);
        waitpid(c->pid, &st, 0);
    }
    close(c->in);
    FILE *f = fopen(c->out_path, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = 0;
    if (f)
        fclose(f);
    return rc;
}

/* A program that has written part of a line (and waits, or died) must not freeze the
 * simulator: the rest of the loop (QEMU's link, the control socket, the signals) goes on,
 * and the line runs once it is whole. */
static void test_a_line_written_in_pieces_neither_blocks_nor_is_lost(void)
{
    child c;
    start(&c);
    pause_ms(300); /* started */
    say(&c, "stat");
    pause_ms(300);
    say(&c, "us\n");
    pause_ms(300);
    say(&c, "sta"); /* left half written */
    pause_ms(300);
    kill(c.pid, SIGTERM);
    CU_ASSERT_EQUAL(finish(&c, 3000), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "SVC handshake not done")); /* the whole line ran */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "signal 15, stopping"));
}

/* A line too long for the buffer is refused as a whole, not run in pieces. */
static void test_a_line_too_long_is_refused_whole(void)
{
    child c;
    start(&c);
    pause_ms(300);
    char line[3000];
    memset(line, 'x', sizeof line - 1);
    memcpy(line, "status ", 7);
    line[sizeof line - 2] = '\n';
    line[sizeof line - 1] = 0;
    say(&c, line);
    say(&c, "quit\n");
    CU_ASSERT_EQUAL(finish(&c, 3000), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "longer than"));
    CU_ASSERT_PTR_NULL(strstr(out, "unknown command 'xxx"));
}

/* A second gbvp sim pointed at the control socket a running one holds is refused, and
 * leaves the capture and timeline files it was given as they were (the simulator's start
 * empties them, so the check must come first). */
static void test_a_held_control_socket_is_refused_before_any_file_is_emptied(void)
{
    child first, second;
    start(&first);
    pause_ms(300);
    char pcap[64];
    unit_tmp_path(pcap, sizeof pcap, "sim_cli_earlier.pcapng");
    FILE *f = fopen(pcap, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("an earlier capture", f);
    fclose(f);
    start_with(&second, "sim_cli_2.sock", "sim_cli_control.sock",
               (const char *[]){ "--pcap", pcap, NULL });
    CU_ASSERT_EQUAL(finish(&second, 3000), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "held by a running simulator"));
    struct stat st;
    CU_ASSERT_EQUAL(stat(pcap, &st), 0);
    CU_ASSERT_EQUAL(st.st_size, (off_t)strlen("an earlier capture"));
    say(&first, "quit\n");
    CU_ASSERT_EQUAL(finish(&first, 3000), 0);
    unlink(pcap);
}

/* Out of descriptors, no signalfd can be made: SIGINT and SIGTERM must then still end the
 * process (left blocked, with nothing to read them, only SIGKILL would). In a child, whose
 * signal mask and limits are its own. */
static void test_without_a_signal_descriptor_the_signals_still_work(void)
{
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct rlimit lim = { 3, 3 }; /* standard input, output and error: no room for more */
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        if (setrlimit(RLIMIT_NOFILE, &lim))
            _exit(98);
        int fd = sim_stop_signalfd();
        if (fd >= 0)
            _exit(97); /* the limit did not bite: nothing tested */
        sigset_t now;
        sigprocmask(SIG_BLOCK, NULL, &now);
        _exit(sigismember(&now, SIGINT) || sigismember(&now, SIGTERM) ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT_TRUE(WIFEXITED(st));
    CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
}

/* --seed takes 0..2^63-1, as gbvp run's (which passes it on in lockstep): a larger number is
 * refused with the range, and one beyond 32 bits is taken whole. */
static void test_a_seed_beyond_32_bits_is_refused_with_its_range(void)
{
    child c;
    start_with(&c, "sim_cli_seed.sock", "sim_cli_seed_control.sock",
               (const char *[]){ "--seed", "9223372036854775808", NULL });
    CU_ASSERT_EQUAL(finish(&c, 3000), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--seed 9223372036854775808: want a number from 0 to "
                                       "2^63-1"));
    start_with(&c, "sim_cli_seed33.sock", "sim_cli_seed33_control.sock",
               (const char *[]){ "--seed", "4294967297", "--ber", "1e-6", NULL });
    pause_ms(300);
    kill(c.pid, SIGTERM); /* its clean stop */
    CU_ASSERT_EQUAL(finish(&c, 5000), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "with bit errors (BER 1e-06, seed 4294967297)"));
}

/* Options that cannot go together are bad usage (status 2), refused before anything
 * starts, not a failed start (status 1) found by the simulator. */
static void test_options_that_do_not_go_together_are_bad_usage(void)
{
    child c;
    start_with(&c, "sim_cli_ber.sock", "sim_cli_ber_control.sock",
               (const char *[]){ "--timing", "message", "--ber", "1e-6", NULL });
    CU_ASSERT_EQUAL(finish(&c, 3000), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--ber: bit errors need the frame-level timing"));
    start_with(&c, "sim_cli_frames.sock", "sim_cli_frames_control.sock",
               (const char *[]){ "--pcap-frames", NULL });
    CU_ASSERT_EQUAL(finish(&c, 3000), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--pcap-frames: frames in captures need a capture"));
    char a[64];
    unit_tmp_path(a, sizeof a, "sim_cli_same.pcapng");
    start_with(&c, "sim_cli_same.sock", "sim_cli_same_control.sock",
               (const char *[]){ "--pcap", a, "--trace", a, NULL });
    CU_ASSERT_EQUAL(finish(&c, 3000), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--pcap and --trace name the same file"));
    CU_ASSERT_NOT_EQUAL(access(a, F_OK), 0); /* nothing made */
}

static const unit_test sim_cli_tests[] = {
    UNIT_TEST(test_a_line_written_in_pieces_neither_blocks_nor_is_lost),
    UNIT_TEST(test_a_line_too_long_is_refused_whole),
    UNIT_TEST(test_a_held_control_socket_is_refused_before_any_file_is_emptied),
    UNIT_TEST(test_without_a_signal_descriptor_the_signals_still_work),
    UNIT_TEST(test_a_seed_beyond_32_bits_is_refused_with_its_range),
    UNIT_TEST(test_options_that_do_not_go_together_are_bad_usage),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "sim_cli", sim_cli_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN); /* a simulator that ended early: its pipe says so, not a signal */
    return unit_run(suites, argc, argv);
}
