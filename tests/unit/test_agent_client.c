// SPDX-License-Identifier: MIT
// Tests of the guest agent channel's host side (gbvp/agent/agent_client.c): the sans-IO decoder on
// byte streams, and the blocking client against peers over a socketpair — scripted fake
// agents in a child process, and the real gbvp-agent program (guest/agent.c built for the
// host; its path comes from the build as GBVP_TEST_AGENT).
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/agent/agent_client.h"
#include "gbvp/cmd_agent.h"
#include "tests/unit/unit.h"

/* ---- decoder ---------------------------------------------------------------------------- */

/* Feeds S in chunks of STEP bytes; collects up to MAX events. Returns the event count. */
static int decode_all(const char *s, size_t len, size_t step, sim_agent_event *evs, int max)
{
    sim_agent_decoder *dec = sim_agent_decoder_new();
    int n = 0;
    size_t off = 0;
    while (off < len) {
        size_t chunk = len - off < step ? len - off : step;
        size_t used = 0;
        while (used < chunk) {
            sim_agent_event ev;
            used += sim_agent_decoder_feed(dec, s + off + used, chunk - used, &ev);
            if (ev.type != SIM_AGENT_EV_NONE) {
                if (n < max)
                    evs[n] = ev;
                else
                    sim_agent_result_clear(&ev.result);
                n++;
            }
        }
        off += chunk;
    }
    sim_agent_decoder_free(dec);
    return n;
}

static void free_events(sim_agent_event *evs, int n)
{
    for (int i = 0; i < n; i++)
        sim_agent_result_clear(&evs[i].result);
}

static void test_decoder_reads_result_with_binary_output_split_byte_by_byte(void)
{
    static const char wire[] = "RESULT t1 exit 3 0 7\nab\ncd\0eRESULT t2 signal 9 1 0\n";
    sim_agent_event evs[4];
    int n = decode_all(wire, sizeof wire - 1, 1, evs, 4);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(evs[0].type, SIM_AGENT_EV_RESULT);
    CU_ASSERT_STRING_EQUAL(evs[0].token, "t1");
    CU_ASSERT_EQUAL(evs[0].result.kind, SIM_AGENT_EXITED);
    CU_ASSERT_EQUAL(evs[0].result.code, 3);
    CU_ASSERT_FALSE(evs[0].result.truncated);
    CU_ASSERT_EQUAL(evs[0].result.output_len, 7);
    CU_ASSERT_EQUAL(memcmp(evs[0].result.output, "ab\ncd\0e", 7), 0);
    CU_ASSERT_EQUAL(evs[1].result.kind, SIM_AGENT_SIGNALED);
    CU_ASSERT_EQUAL(evs[1].result.code, 9);
    CU_ASSERT_TRUE(evs[1].result.truncated);
    CU_ASSERT_EQUAL(evs[1].result.output_len, 0);
    free_events(evs, n);
}

static void test_decoder_reads_ready_pong_error_and_crlf_lines(void)
{
    static const char wire[] = "READY gbvp-agent 1\r\nPONG abc.p0\nERROR no such thing\n"
                               "RESULT x timeout 0 0 0\nRESULT y error 2 0 0\n";
    sim_agent_event evs[8];
    int n = decode_all(wire, sizeof wire - 1, 5, evs, 8);
    CU_ASSERT_EQUAL_FATAL(n, 5);
    CU_ASSERT_EQUAL(evs[0].type, SIM_AGENT_EV_READY);
    CU_ASSERT_EQUAL(evs[0].version, 1);
    CU_ASSERT_EQUAL(evs[1].type, SIM_AGENT_EV_PONG);
    CU_ASSERT_STRING_EQUAL(evs[1].token, "abc.p0");
    CU_ASSERT_EQUAL(evs[2].type, SIM_AGENT_EV_ERROR);
    CU_ASSERT_STRING_EQUAL(evs[2].text, "no such thing");
    CU_ASSERT_EQUAL(evs[3].result.kind, SIM_AGENT_TIMED_OUT);
    CU_ASSERT_EQUAL(evs[4].result.kind, SIM_AGENT_START_FAILED);
    CU_ASSERT_EQUAL(evs[4].result.code, 2);
    free_events(evs, n);
}

static void test_decoder_turns_malformed_headers_into_noise(void)
{
    static const char *bad[] = {
        "RESULT t exit 0 0 99999999999\n",     /* length beyond the limit */
        "RESULT t exit 0 0 16777217\n",        /* one past SIM_AGENT_OUTPUT_MAX */
        "RESULT t maybe 0 0 0\n",              /* unknown kind */
        "RESULT t exit 0 2 0\n",               /* truncated flag not 0/1 */
        "RESULT t exit -1 0 0\n",              /* negative code */
        "RESULT t! exit 0 0 0\n",              /* bad token */
        "RESULT t exit 0 0\n",                 /* field missing */
        "RESULT t exit 256 0 0\n",             /* no exit status: a shell would see 0 */
        "RESULT t exit 2147483647 0 0\n",
        "RESULT t signal 2147483647 0 0\n",    /* 128 + N would overflow */
        "RESULT t signal 128 0 0\n",
        "RESULT t timeout 1 0 0\n",
        "RESULT t error 4096 0 0\n",           /* beyond any errno */
        "PONG\n",
        "READY other 1\n",
        "[    0.123] Linux version 6.1\n",     /* boot noise */
        "\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_agent_event evs[2];
        int n = decode_all(bad[i], strlen(bad[i]), 3, evs, 2);
        CU_ASSERT_EQUAL(n, 1);
        if (n == 1)
            CU_ASSERT_EQUAL(evs[0].type, SIM_AGENT_EV_NOISE);
        free_events(evs, n > 2 ? 2 : n);
    }
}

static void test_decoder_takes_the_largest_code_of_each_kind(void)
{
    static const char wire[] = "RESULT a exit 255 0 0\nRESULT b signal 127 0 0\n"
                               "RESULT c error 4095 0 0\n";
    sim_agent_event evs[4];
    int n = decode_all(wire, sizeof wire - 1, 7, evs, 4);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(evs[0].type, SIM_AGENT_EV_RESULT);
    CU_ASSERT_EQUAL(evs[0].result.code, 255);
    CU_ASSERT_EQUAL(evs[1].result.kind, SIM_AGENT_SIGNALED);
    CU_ASSERT_EQUAL(evs[1].result.code, 127);
    CU_ASSERT_EQUAL(evs[2].result.kind, SIM_AGENT_START_FAILED);
    CU_ASSERT_EQUAL(evs[2].result.code, 4095);
    free_events(evs, n);
}

static void test_decoder_skips_an_overlong_line_and_recovers(void)
{
    char wire[2000];
    memset(wire, 'x', 1500);
    strcpy(wire + 1500, "\nPONG ok\n");
    sim_agent_event evs[4];
    int n = decode_all(wire, strlen(wire), 64, evs, 4);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(evs[0].type, SIM_AGENT_EV_NOISE);
    CU_ASSERT_EQUAL(evs[1].type, SIM_AGENT_EV_PONG);
    CU_ASSERT_STRING_EQUAL(evs[1].token, "ok");
    free_events(evs, n);
}

static void test_encode_run_frames_command_by_length(void)
{
    char *buf, err[128];
    size_t len;
    CU_ASSERT_EQUAL_FATAL(sim_agent_encode_run("r1", 500, "echo a\necho b", &buf, &len, err,
                                               sizeof err), 0);
    static const char want[] = "RUN r1 500 13\necho a\necho b";
    CU_ASSERT_EQUAL(len, sizeof want - 1);
    CU_ASSERT_EQUAL(memcmp(buf, want, len), 0);
    free(buf);
}

static void test_encode_run_rejects_bad_token_and_oversized_command(void)
{
    char *buf, err[128];
    size_t len;
    CU_ASSERT_EQUAL(sim_agent_encode_run("a b", 1, "true", &buf, &len, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad token"));
    CU_ASSERT_EQUAL(sim_agent_encode_run("", 1, "true", &buf, &len, err, sizeof err), -1);
    char *big = malloc(SIM_AGENT_COMMAND_MAX + 2);
    memset(big, 'x', SIM_AGENT_COMMAND_MAX + 1);
    big[SIM_AGENT_COMMAND_MAX + 1] = '\0';
    CU_ASSERT_EQUAL(sim_agent_encode_run("t", 1, big, &buf, &len, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "at most"));
    CU_ASSERT_PTR_NULL(buf);
    free(big);
}

/* ---- client against fake agents over a socketpair --------------------------------------- */

typedef void (*fake_agent_fn)(int fd);

typedef struct peer {
    pid_t pid;
    sim_agent *agent;
} peer;

/* Starts FN in a child process on one end of a socketpair; the client gets the other. */
static peer start_peer(fake_agent_fn fn)
{
    int sv[2];
    peer p = { -1, NULL };
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return p;
    p.pid = fork();
    if (p.pid == 0) {
        close(sv[0]);
        fn(sv[1]);
        _exit(0);
    }
    close(sv[1]);
    p.agent = sim_agent_new(sv[0]);
    sim_agent_set_reply_margin(p.agent, 2000);
    return p;
}

/* Frees the client (closing its end) and reaps the peer; returns the peer's exit status. */
static int stop_peer(peer *p)
{
    sim_agent_free(p->agent);
    int st = 0;
    if (p->pid > 0)
        waitpid(p->pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void put(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n <= 0)
            _exit(90);
        s += n;
        len -= (size_t)n;
    }
}

static void puts_fd(int fd, const char *s)
{
    put(fd, s, strlen(s));
}

/* Reads one header line (skipping empty ones) into LINE; exits the child at end of stream. */
static void get_line(int fd, char *line, size_t size)
{
    for (;;) {
        size_t n = 0;
        char c;
        while (read(fd, &c, 1) == 1) {
            if (c == '\n')
                break;
            if (c == '\0')
                continue;   /* a break: nothing a fake agent needs to act on */
            if (n + 1 < size)
                line[n++] = c;
        }
        line[n] = '\0';
        if (n > 0)
            return;
        char probe;
        if (recv(fd, &probe, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
            _exit(0);
    }
}

/* Reads a RUN request; stores its token and command. */
static void get_run(int fd, char *token, char *command, size_t size)
{
    char line[256];
    unsigned timeout;
    size_t len;
    get_line(fd, line, sizeof line);
    if (sscanf(line, "RUN %64s %u %zu", token, &timeout, &len) != 3 || len >= size)
        _exit(91);
    for (size_t got = 0; got < len;) {
        ssize_t n = read(fd, command + got, len - got);
        if (n <= 0)
            _exit(92);
        got += (size_t)n;
    }
    command[len] = '\0';
}

/* Boot noise, a READY, then PONGs only from the second PING on (as if still booting). */
static void fake_slow_boot(int fd)
{
    char line[256];
    puts_fd(fd, "[    0.000000] Linux version 6.1.192-gbvp\r\nRESULT bogus exit 0 0 0\n");
    get_line(fd, line, sizeof line);   /* first PING: ignored */
    puts_fd(fd, "READY gbvp-agent 1\n");
    for (;;) {
        get_line(fd, line, sizeof line);
        if (!strncmp(line, "PING ", 5)) {
            char reply[300];
            snprintf(reply, sizeof reply, "PONG %s\n", line + 5);
            puts_fd(fd, reply);
            return;
        }
    }
}

static void test_client_waits_through_boot_noise_until_agent_answers(void)
{
    peer p = start_peer(fake_slow_boot);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p.agent);
    CU_ASSERT_EQUAL(sim_agent_wait_ready(p.agent, 5000), SIM_AGENT_OK);
    CU_ASSERT_EQUAL(stop_peer(&p), 0);
}

/* Answers one RUN with a stale result first, then the real one; checks the command. */
static void fake_run_once(int fd)
{
    char token[80], command[256], reply[512];
    get_run(fd, token, command, sizeof command);
    if (strcmp(command, "uname -r"))
        _exit(93);
    puts_fd(fd, "RESULT stale.r0 exit 1 0 5\nstaleERROR something earlier\n");
    snprintf(reply, sizeof reply, "RESULT %s exit 0 0 15\n6.1.192-gbvp\n\n\n", token);
    puts_fd(fd, reply);
}

static void test_client_run_returns_status_and_output_of_its_own_request(void)
{
    peer p = start_peer(fake_run_once);
    sim_agent_result res;
    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "uname -r", 1000, &res), SIM_AGENT_OK);
    CU_ASSERT_EQUAL(res.kind, SIM_AGENT_EXITED);
    CU_ASSERT_EQUAL(res.code, 0);
    CU_ASSERT_EQUAL(res.output_len, 15);
    CU_ASSERT_STRING_EQUAL(res.output, "6.1.192-gbvp\n\n\n");
    sim_agent_result_clear(&res);
    CU_ASSERT_EQUAL(stop_peer(&p), 0);
}

static void fake_hangs_up(int fd)
{
    char token[80], command[256];
    get_run(fd, token, command, sizeof command);
    puts_fd(fd, "RESULT ");   /* half a header, then gone (QEMU died) */
    close(fd);
}

static void test_client_reports_closed_channel_when_peer_dies(void)
{
    peer p = start_peer(fake_hangs_up);
    sim_agent_result res;
    CU_ASSERT_EQUAL(sim_agent_run(p.agent, "true", 1000, &res), SIM_AGENT_ERR_CLOSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(sim_agent_last_error(p.agent), "closed"));
    CU_ASSERT_PTR_NULL(res.output);
    stop_peer(&p);
}

static void fake_refuses(int fd)
{
    char token[80], command[256];
    get_run(fd, token, command, sizeof command);
    puts_fd(fd, "ERROR RUN wants something else\n");
    char line[64];
    get_line(fd, line, sizeof line);   /* stays silent until the client leaves */
}

static void test_client_times_out_and_names_the_agent_error(void)
{
    peer p = start_peer(fake_refuses);
    sim_agent_set_reply_margin(p.agent, 100);
    sim_agent_result res;
    CU_ASSERT_EQUAL(sim_agent_run(p.agent, "true", 50, &res), SIM_AGENT_ERR_TIMEOUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(sim_agent_last_error(p.agent), "wants something else"));
    stop_peer(&p);
}

static void fake_silent(int fd)
{
    char line[64];
    get_line(fd, line, sizeof line);
    for (;;)
        get_line(fd, line, sizeof line);
}

static void test_client_wait_ready_gives_up_on_a_silent_channel(void)
{
    peer p = start_peer(fake_silent);
    CU_ASSERT_EQUAL(sim_agent_wait_ready(p.agent, 300), SIM_AGENT_ERR_TIMEOUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(sim_agent_last_error(p.agent), "did not answer"));
    stop_peer(&p);
}

static void test_client_rejects_nonpositive_timeout_and_nul_free_limit(void)
{
    peer p = start_peer(fake_silent);
    sim_agent_result res;
    CU_ASSERT_EQUAL(sim_agent_run(p.agent, "true", 0, &res), SIM_AGENT_ERR_ARG);
    CU_ASSERT_EQUAL(sim_agent_run(p.agent, NULL, 10, &res), SIM_AGENT_ERR_ARG);
    stop_peer(&p);
}

static void test_connect_unix_fails_clearly_for_missing_socket(void)
{
    sim_agent *a;
    char err[256];
    CU_ASSERT_EQUAL(sim_agent_connect_unix("/nonexistent/gbvp-agent.sock", 100, &a, err,
                                           sizeof err), SIM_AGENT_ERR_TIMEOUT);
    CU_ASSERT_PTR_NULL(a);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/gbvp-agent.sock"));
}

/* Fills the socket FD until it takes no more: a guest that stopped reading its console. */
static void fill_socket(int fd)
{
    static const char junk[4096];
    while (send(fd, junk, sizeof junk, MSG_DONTWAIT) > 0 || errno == EINTR)
        ;
    while (send(fd, junk, 1, MSG_DONTWAIT) > 0 || errno == EINTR)
        ;
}

/* Runs FN(agent) in a child with a 10 s alarm, on a channel whose peer reads nothing, and
 * returns what FN returned, or -100 when the alarm killed it (the client hung). */
static int in_child_on_full_channel(int (*fn)(sim_agent *))
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return -99;
    pid_t pid = fork();
    if (pid == 0) {
        alarm(10);
        fill_socket(sv[0]);
        sim_agent *a = sim_agent_new(sv[0]);
        sim_agent_set_reply_margin(a, 100);
        _exit(-fn(a));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    close(sv[0]);
    close(sv[1]);
    return WIFEXITED(st) ? -WEXITSTATUS(st) : -100;
}

static int run_on_full_channel(sim_agent *a)
{
    sim_agent_result res;
    int rc = sim_agent_run(a, "true", 200, &res);
    if (rc == SIM_AGENT_ERR_TIMEOUT && !strstr(sim_agent_last_error(a), "does not read"))
        return -50;
    return rc;
}

static int wait_ready_on_full_channel(sim_agent *a)
{
    return sim_agent_wait_ready(a, 500);
}

static void test_client_gives_up_in_time_on_an_agent_that_reads_nothing(void)
{
    CU_ASSERT_EQUAL(in_child_on_full_channel(run_on_full_channel), SIM_AGENT_ERR_TIMEOUT);
    CU_ASSERT_EQUAL(in_child_on_full_channel(wait_ready_on_full_channel),
                    SIM_AGENT_ERR_TIMEOUT);
}

/* ---- gbvp agent's refusals that need no guest -------------------------------------------- */

/* Runs `gbvp agent ARGS...` in a child; its stderr into ERR. Returns the exit status; *SECS
 * how long it took. */
static int agent_cli(const char *const *args, char *err, size_t size, double *secs)
{
    char *argv[8];
    int argc = 0;
    argv[argc++] = (char *)"agent";
    for (; *args && argc < 7; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    int pfd[2];
    if (pipe(pfd) < 0)
        return -1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        dup2(pfd[1], 2);
        _exit(cmd_agent_main(argc, argv));
    }
    close(pfd[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < size && (n = read(pfd[0], err + got, size - 1 - got)) > 0)
        got += (size_t)n;
    err[got] = '\0';
    close(pfd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_agent_cli_refuses_a_too_long_command_before_waiting(void)
{
    char *big = malloc(SIM_AGENT_COMMAND_MAX + 2);
    memset(big, 'x', SIM_AGENT_COMMAND_MAX + 1);
    big[SIM_AGENT_COMMAND_MAX + 1] = '\0';
    const char *args[] = { "--socket", "/nonexistent/agent.sock", "--wait", "5", big, NULL };
    char err[512];
    double secs;
    CU_ASSERT_EQUAL(agent_cli(args, err, sizeof err, &secs), 2);
    CU_ASSERT_TRUE(secs < 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the agent takes at most"));
    free(big);
}

static void test_agent_cli_calls_a_too_long_socket_path_bad_usage(void)
{
    char path[200];
    memset(path, 'y', sizeof path - 1);
    path[0] = '/';
    path[sizeof path - 1] = '\0';
    const char *args[] = { "--socket", path, "true", NULL };
    char err[512];
    double secs;
    CU_ASSERT_EQUAL(agent_cli(args, err, sizeof err, &secs), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "longer than"));
}

/* ---- client against the real agent program ---------------------------------------------- */

static void real_agent(int fd)
{
    dup2(fd, 0);
    dup2(fd, 1);
    execl(GBVP_TEST_AGENT, "gbvp-agent", "-", (char *)NULL);
    _exit(95);
}

static void test_real_agent_runs_commands_with_status_signal_and_timeout(void)
{
    peer p = start_peer(real_agent);
    CU_ASSERT_EQUAL_FATAL(sim_agent_wait_ready(p.agent, 5000), SIM_AGENT_OK);
    sim_agent_result res;

    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "printf 'a\\nb'; echo err >&2; exit 7", 5000,
                                        &res), SIM_AGENT_OK);
    CU_ASSERT_EQUAL(res.kind, SIM_AGENT_EXITED);
    CU_ASSERT_EQUAL(res.code, 7);
    CU_ASSERT_STRING_EQUAL(res.output, "a\nberr\n");
    sim_agent_result_clear(&res);

    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "kill -TERM $$", 5000, &res), SIM_AGENT_OK);
    CU_ASSERT_EQUAL(res.kind, SIM_AGENT_SIGNALED);
    CU_ASSERT_EQUAL(res.code, SIGTERM);
    sim_agent_result_clear(&res);

    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "echo started; sleep 20", 300, &res),
                          SIM_AGENT_OK);
    CU_ASSERT_EQUAL(res.kind, SIM_AGENT_TIMED_OUT);
    CU_ASSERT_STRING_EQUAL(res.output, "started\n");
    sim_agent_result_clear(&res);

    /* a background child keeping the pipe open does not hold the reply */
    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "sleep 20 & echo bg", 5000, &res),
                          SIM_AGENT_OK);
    CU_ASSERT_EQUAL(res.kind, SIM_AGENT_EXITED);
    CU_ASSERT_STRING_EQUAL(res.output, "bg\n");
    sim_agent_result_clear(&res);

    CU_ASSERT_EQUAL(stop_peer(&p), 0);
}

static void test_real_agent_truncates_huge_output_and_stays_in_step(void)
{
    peer p = start_peer(real_agent);
    CU_ASSERT_EQUAL_FATAL(sim_agent_wait_ready(p.agent, 5000), SIM_AGENT_OK);
    sim_agent_result res;
    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "head -c 3000000 /dev/zero", 10000, &res),
                          SIM_AGENT_OK);
    CU_ASSERT_TRUE(res.truncated);
    CU_ASSERT_EQUAL(res.output_len, 1024 * 1024);
    sim_agent_result_clear(&res);
    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "echo next", 5000, &res), SIM_AGENT_OK);
    CU_ASSERT_STRING_EQUAL(res.output, "next\n");
    sim_agent_result_clear(&res);
    CU_ASSERT_EQUAL(stop_peer(&p), 0);
}

/* A previous client sent a RUN header and only the start of its command, then left: the
 * next client's break (in its pings) ends that request, so its own requests are read as
 * requests, and the half command never runs. */
static void test_real_agent_drops_a_request_an_earlier_client_cut_short(void)
{
    char dir[] = "/tmp/gbvp-agent-test-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char marker[64], partial[128];
    snprintf(marker, sizeof marker, "%s/ran", dir);
    int n = snprintf(partial, sizeof partial, "RUN gone.r0 0 60000\ntouch %s; echo ", marker);
    int sv[2];
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    /* the earlier client, on the same channel (as QEMU hands the socket to the next one) */
    CU_ASSERT_EQUAL_FATAL(write(sv[0], partial, (size_t)n), n);
    peer p = { fork(), NULL };
    if (p.pid == 0) {
        close(sv[0]);
        real_agent(sv[1]);
    }
    close(sv[1]);
    p.agent = sim_agent_new(sv[0]);
    CU_ASSERT_EQUAL_FATAL(sim_agent_wait_ready(p.agent, 5000), SIM_AGENT_OK);
    sim_agent_result res;
    CU_ASSERT_EQUAL_FATAL(sim_agent_run(p.agent, "echo after", 5000, &res), SIM_AGENT_OK);
    CU_ASSERT_STRING_EQUAL(res.output, "after\n");
    sim_agent_result_clear(&res);
    CU_ASSERT_EQUAL(stop_peer(&p), 0);
    CU_ASSERT_EQUAL(access(marker, F_OK), -1);
    rmdir(dir);
}

/* This client's own RUN went out only in part (the guest had stopped reading): its next run
 * breaks that request off, pings, and runs. */
static void test_client_breaks_off_its_own_request_that_went_out_in_part(void)
{
    int sv[2];
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    /* A small buffer: Linux sends a request that fits half of it whole or not at all. */
    int small = 16384;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    fill_socket(sv[0]);   /* NUL bytes: breaks, which the agent skips */
    char buf[32768];
    CU_ASSERT_TRUE_FATAL(read(sv[1], buf, sizeof buf) > 0);   /* room for part of a RUN */
    sim_agent *a = sim_agent_new(sv[0]);
    sim_agent_set_reply_margin(a, 100);
    char *big = malloc(SIM_AGENT_COMMAND_MAX);
    memset(big, 'x', SIM_AGENT_COMMAND_MAX - 1);
    big[SIM_AGENT_COMMAND_MAX - 1] = '\0';
    sim_agent_result res;
    alarm(20);   /* a client that blocks in send() ends the test run here */
    CU_ASSERT_EQUAL(sim_agent_run(a, big, 100, &res), SIM_AGENT_ERR_TIMEOUT);
    alarm(0);
    free(big);
    pid_t pid = fork();   /* the guest reads its console again */
    if (pid == 0) {
        close(sv[0]);
        real_agent(sv[1]);
    }
    close(sv[1]);
    CU_ASSERT_EQUAL_FATAL(sim_agent_run(a, "echo ok", 5000, &res), SIM_AGENT_OK);
    CU_ASSERT_EQUAL(res.kind, SIM_AGENT_EXITED);
    CU_ASSERT_STRING_EQUAL(res.output, "ok\n");
    sim_agent_result_clear(&res);
    CU_ASSERT_EQUAL_FATAL(sim_agent_run(a, "echo again", 5000, &res), SIM_AGENT_OK);
    CU_ASSERT_STRING_EQUAL(res.output, "again\n");
    sim_agent_result_clear(&res);
    sim_agent_free(a);
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static const unit_test decoder_tests[] = {
    UNIT_TEST(test_decoder_reads_result_with_binary_output_split_byte_by_byte),
    UNIT_TEST(test_decoder_reads_ready_pong_error_and_crlf_lines),
    UNIT_TEST(test_decoder_turns_malformed_headers_into_noise),
    UNIT_TEST(test_decoder_takes_the_largest_code_of_each_kind),
    UNIT_TEST(test_decoder_skips_an_overlong_line_and_recovers),
    UNIT_TEST(test_encode_run_frames_command_by_length),
    UNIT_TEST(test_encode_run_rejects_bad_token_and_oversized_command),
    UNIT_TESTS_END,
};

static const unit_test client_tests[] = {
    UNIT_TEST(test_client_waits_through_boot_noise_until_agent_answers),
    UNIT_TEST(test_client_run_returns_status_and_output_of_its_own_request),
    UNIT_TEST(test_client_reports_closed_channel_when_peer_dies),
    UNIT_TEST(test_client_times_out_and_names_the_agent_error),
    UNIT_TEST(test_client_wait_ready_gives_up_on_a_silent_channel),
    UNIT_TEST(test_client_rejects_nonpositive_timeout_and_nul_free_limit),
    UNIT_TEST(test_connect_unix_fails_clearly_for_missing_socket),
    UNIT_TEST(test_client_gives_up_in_time_on_an_agent_that_reads_nothing),
    UNIT_TEST(test_agent_cli_refuses_a_too_long_command_before_waiting),
    UNIT_TEST(test_agent_cli_calls_a_too_long_socket_path_bad_usage),
    UNIT_TESTS_END,
};

static const unit_test real_agent_tests[] = {
    UNIT_TEST(test_real_agent_runs_commands_with_status_signal_and_timeout),
    UNIT_TEST(test_real_agent_truncates_huge_output_and_stays_in_step),
    UNIT_TEST(test_real_agent_drops_a_request_an_earlier_client_cut_short),
    UNIT_TEST(test_client_breaks_off_its_own_request_that_went_out_in_part),
    UNIT_TESTS_END,
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    static const unit_suite suites[] = {
        { "agent_decoder", decoder_tests, 0, 0 },
        { "agent_client_fake", client_tests, 0, 0 },
        { "agent_client_real", real_agent_tests, 0, 0 },
        UNIT_SUITES_END,
    };
    return unit_run(suites, argc, argv);
}
