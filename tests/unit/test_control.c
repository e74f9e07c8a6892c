// SPDX-License-Identifier: MIT
// The control socket: requests are validated field by field (hostile lines get an error
// reply, never a crash), commands drive the simulator with the test AP, the socket is
// 0600, subscribers get events, over-long lines and surplus clients are refused.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>

#include "gbvp/ctl/ctl_server.h"
#include "gbvp/target/target_local.h"
#include "tests/unit/unit.h"

typedef struct rig {
    sim_local *t;
    sim_ctl *c;
    char path[64];
} rig;

/* The control socket on the simulator with the test AP. */
static void rig_up(rig *r)
{
    memset(r, 0, sizeof *r);
    char err[320];
    sim_local_config lc = { .sim = { .num_slots = 4 }, .ap = SIM_LOCAL_TEST_AP };
    r->t = sim_local_new(&lc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->t);
    unit_tmp_path(r->path, sizeof r->path, "ctl.sock");
    r->c = sim_ctl_new(r->path, sim_local_target(r->t), err, sizeof err);
    if (!r->c)
        fprintf(stderr, "\n    %s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->c);
}

static void rig_down(rig *r)
{
    sim_ctl_free(r->c);
    sim_local_free(r->t);
}

/* The reply to one line, checked to contain `want`. */
static bool reply_has(rig *r, const char *line, const char *want)
{
    char *rep = sim_ctl_handle_line(r->c, line, strlen(line));
    bool ok = rep && strstr(rep, want);
    if (!ok)
        fprintf(stderr, "\n    %s -> %s (wanted %s)\n", line, rep ? rep : "NULL", want);
    free(rep);
    return ok;
}

static void test_control_commands_drive_the_simulator(void)
{
    rig r;
    rig_up(&r);
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"ping\",\"id\":7}", "\"id\":7,\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"insert\",\"slot\":0,\"module\":\"sensor\"}",
                             "{\"interface\":2,\"ok\":true}"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"interface\",\"interface\":2}", "\"active\":true"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"gpio_set\",\"slot\":0,\"line\":2,\"level\":1}",
                             "\"irq_sent\":false,\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"gpio_get\",\"slot\":0,\"line\":2}", "\"value\":1"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"insert\",\"slot\":1,\"module\":\"battery\"}",
                             "\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"battery_set\",\"slot\":1,\"property\":\"capacity\","
                                 "\"value\":42}", "\"notified\":true"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"battery_get\",\"slot\":1,\"property\":\"capacity\"}",
                             "\"value\":42"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"status\"}", "\"module\":\"battery\""));
    /* the module's own identity: its behaviour's ids and the SVC's serial per insertion */
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"interface\",\"interface\":2}",
                             "\"vendor_id\":1,\"product_id\":2,\"serial_number\":1,"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"interface\",\"interface\":3}",
                             "\"vendor_id\":1,\"product_id\":8,\"serial_number\":2,"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"wait\",\"ms\":5000}", "\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"stats\"}", "\"pings\":2"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"remove\",\"slot\":1}", "\"ok\":true"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"interface\",\"interface\":3}",
                             "\"vendor_id\":0,\"product_id\":0,\"serial_number\":0,"));
    CU_ASSERT_TRUE(reply_has(&r, "{\"cmd\":\"remove\",\"slot\":1}",
                             "\"error\":\"cannot remove slot 1: the slot is empty\""));
    rig_down(&r);
}

static void test_control_refuses_bad_requests_naming_the_problem(void)
{
    static const struct {
        const char *line, *want;
    } cases[] = {
        { "", "request must be a JSON object" },
        { "not json", "request is not JSON" },
        { "[1,2,3]", "request must be a JSON object" },
        { "\"cmd\"", "request must be a JSON object" },
        { "{}", "missing field 'cmd'" },
        { "{\"cmd\":5}", "field 'cmd' must be a string" },
        { "{\"cmd\":\"\"}", "field 'cmd' must have 1..64 characters" },
        { "{\"cmd\":\"reboot\"}", "unknown command 'reboot'" },
        { "{\"cmd\":\"insert\",\"module\":\"sensor\"}", "missing field 'slot'" },
        { "{\"cmd\":\"insert\",\"slot\":4,\"module\":\"sensor\"}", "field 'slot' is 4, want 0..3" },
        { "{\"cmd\":\"insert\",\"slot\":-1,\"module\":\"sensor\"}", "field 'slot' is -1" },
        { "{\"cmd\":\"insert\",\"slot\":1.5,\"module\":\"sensor\"}", "must be an integer" },
        { "{\"cmd\":\"insert\",\"slot\":\"0\",\"module\":\"sensor\"}", "must be an integer" },
        { "{\"cmd\":\"insert\",\"slot\":0,\"module\":[\"x\"]}", "field 'module' must be a string" },
        { "{\"cmd\":\"insert\",\"slot\":0,\"module\":\"../../etc/passwd\"}", "cannot insert" },
        /* json-glib reads integers past 64 bits wrapped round, without a word: refused */
        { "{\"cmd\":\"insert\",\"slot\":99999999999999999999,\"module\":\"x\"}",
          "{\"ok\":false,\"error\":\"request holds an integer out of the 64-bit range" },
        { "{\"cmd\":\"insert\",\"slot\":-18446744073709551615,\"module\":\"sensor\"}",
          "out of the 64-bit range" }, /* read as slot 1 */
        { "{\"cmd\":\"wait\",\"ms\":9223372036854775808}", "out of the 64-bit range" },
        { "{\"cmd\":\"ping\",\"id\":[-9223372036854775808,9223372036854775807,1.5e3]}",
          "\"ok\":true" },
        { "{\"cmd\":\"gpio_set\",\"slot\":0,\"line\":1,\"level\":1}", "slot 0 is empty" },
        { "{\"cmd\":\"wait\",\"ms\":-5}", "field 'ms' is -5" },
        { "{\"cmd\":\"interface\",\"interface\":256}", "want 0..255" },
        { "{\"cmd\":\"subscribe\"}", "subscriptions need a socket connection" },
        { "{\"cmd\":\"link\",\"interface\":2}", "has no UniPro link model (run it with --timing frame)" },
        { "{\"cmd\":\"fault\"}", "has no UniPro link model" },
        { "{\"cmd\":\"ping\"} {\"cmd\":\"ping\"}", "request is not JSON" },
        { "{\"cmd\":\"ping\",\"id\":{\"deep\":[1,{\"x\":null}]}}", "\"ok\":true" },
        { "\xff\xfe{}", "request is not UTF-8 text" },
        /* a line cut short is blamed on its end, not on the last token it holds */
        { "{\"cmd\": \"status\"", "the line ends before its closing '}'" },
        { "{\"cmd\": \"status", "the line ends before its closing '\\\"'" }, /* JSON-escaped */
        { "{\"cmd\":\"ping\",\"id\":[1,2", "the line ends before its closing ']'" },
        /* a wrong token is still named where it is */
        { "{\"cmd\": \"status\",, }", "unexpected character" },
        { "{\"cmd\":\"ping\"]", "request is not JSON" },
        /* a lone surrogate escape decodes to bytes that are not UTF-8: refused, not echoed */
        { "{\"cmd\":\"\\ud800\"be\",\"events\":[\"module\"]}",
          "not valid UTF-8 (a lone surrogate" },
        { "{\"cmd\":\"ping\",\"id\":[\"\\ud800\"be\"]}", "{\"ok\":false" },
        { "{\"cmd\":\"insert\",\"slot\":0,\"module\":\"x\\ud800\"be\"}", "not valid UTF-8" },
        /* ... and json-glib's own parse error quotes them (fuzz_control, finding 4) */
        { "{\"cmd\":\"trace\",\"file\":\"\\ud800\"\"x.json\"}",
          "invalid string constant \\\"\xef\xbf\xbd" },
        /* a number json-glib reads as infinity cannot be echoed: refused whole, id and all
         * (fuzz_control, finding 5: the reply said "id":inf.0) */
        { "{\"id\":11e400,\"cmd\":\"insert\",\"slot\":0,\"module\":\"sensor\"}",
          "{\"ok\":false,\"error\":\"request holds a number out of the range of a double" },
        { "{\"cmd\":\"ping\",\"id\":{\"a\":[-1e999]}}", "out of the range of a double" },
        { "{\"cmd\":\"ping\",\"id\":1e300}", "\"ok\":true" },
        /* \u0000 would end the text there ("sensor\u0000junk" inserted a sensor): refused
         * whole; an escaped backslash before "u0000" is text */
        { "{\"cmd\":\"insert\",\"slot\":0,\"module\":\"sensor\\u0000junk\"}",
          "{\"ok\":false,\"error\":\"request holds a string with a NUL character" },
        { "{\"cmd\":\"ping\",\"id\":\"a\\\\u0000\"}", "\"ok\":true" },
        /* drive needs a lockstep clock */
        { "{\"cmd\":\"drive\"}", "drive needs a lockstep clock" },
        { "{\"cmd\":\"drive\",\"on\":1}", "field 'on' must be true or false" },
    };
    rig r;
    rig_up(&r);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CU_ASSERT_TRUE(reply_has(&r, cases[i].line, cases[i].want));
        char *rep = sim_ctl_handle_line(r.c, cases[i].line, strlen(cases[i].line));
        CU_ASSERT_TRUE(rep && g_utf8_validate(rep, -1, NULL)); /* every reply is UTF-8 */
        free(rep);
    }
    char nul[] = "{\"cmd\":\"ping\"}\0x";
    char *rep = sim_ctl_handle_line(r.c, nul, sizeof nul - 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep, "not UTF-8 text"));
    free(rep);
    rig_down(&r);
}

static void test_control_survives_random_lines(void)
{
    rig r;
    rig_up(&r);
    static const char alphabet[] = "{}[]\":,0123456789-.eE truefalsnl\\cmdslotmoduleinsert";
    unsigned seed = 12345;
    char line[256];
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 16) % sizeof line;
        for (size_t k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            line[k] = (seed >> 24) & 1 ? alphabet[(seed >> 8) % (sizeof alphabet - 1)]
                                       : (char)(seed >> 16);
        }
        char *rep = sim_ctl_handle_line(r.c, line, n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
        CU_ASSERT_PTR_NOT_NULL(strstr(rep, "\"ok\":"));
        free(rep);
    }
    rig_down(&r);
}

static int connect_to(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A client connection with what it received and not yet consumed. */
typedef struct conn {
    int fd;
    char buf[8192];
    size_t have;
    char line[8192];
} conn;

/* Services the server until the connection has a complete line (returned, or "" when
 * none came within a few rounds; never NULL, so strstr on it is safe). */
static const char *read_reply(rig *r, conn *c)
{
    for (int round = 0; round < 200; round++) {
        char *nl = memchr(c->buf, '\n', c->have);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            memcpy(c->line, c->buf, n);
            c->line[n] = 0;
            memmove(c->buf, nl + 1, c->have - n - 1);
            c->have -= n + 1;
            return c->line;
        }
        sim_ctl_service(r->c);
        ssize_t n = recv(c->fd, c->buf + c->have, sizeof c->buf - c->have, MSG_DONTWAIT);
        if (n > 0)
            c->have += (size_t)n;
        else if (n == 0)
            break;
        else
            usleep(1000);
    }
    return "";
}

static void test_control_socket_is_private_and_sends_events(void)
{
    rig r;
    rig_up(&r);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(r.path, &st), 0);
    CU_ASSERT_TRUE(S_ISSOCK(st.st_mode));
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);

    static conn sub, cmd;
    sub.fd = connect_to(r.path);
    cmd.fd = connect_to(r.path);
    sub.have = cmd.have = 0;
    CU_ASSERT_FATAL(sub.fd >= 0 && cmd.fd >= 0);
    const char s[] = "{\"cmd\":\"subscribe\",\"events\":[\"module\",\"interface\",\"assertion\"]}\n";
    CU_ASSERT_EQUAL(send(sub.fd, s, sizeof s - 1, 0), (ssize_t)sizeof s - 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &sub), "\"subscribed\":13"));
    /* a request split across two writes */
    const char a[] = "{\"cmd\":\"insert\",\"slot\":2,", b[] = "\"module\":\"vibrator\"}\r\n";
    CU_ASSERT_EQUAL(send(cmd.fd, a, sizeof a - 1, 0), (ssize_t)sizeof a - 1);
    sim_ctl_service(r.c);
    CU_ASSERT_EQUAL(send(cmd.fd, b, sizeof b - 1, 0), (ssize_t)sizeof b - 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &cmd), "\"interface\":4,\"ok\":true"));
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &sub),
                                  "{\"event\":\"module_inserted\",\"slot\":2,\"interface\":4,"
                                  "\"module\":\"vibrator\"}"));
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &sub),
                                  "{\"event\":\"interface_activated\",\"interface\":4,\"slot\":2}"));
    sim_ctl_assertion(r.c, false, "a \"quoted\" name");
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &sub),
                                  "{\"event\":\"assertion\",\"ok\":false,\"name\":\"a \\\"quoted\\\" name\"}"));
    sim_ctl_log(r.c, "not subscribed");
    /* the command client never subscribed: it gets no events */
    CU_ASSERT_STRING_EQUAL(read_reply(&r, &cmd), "");
    close(sub.fd);
    close(cmd.fd);
    rig_down(&r);
    CU_ASSERT_NOT_EQUAL(stat(r.path, &st), 0); /* the socket file is gone */
}

static void test_control_refuses_long_lines_and_surplus_clients(void)
{
    rig r;
    rig_up(&r);
    static conn c, extra;
    int fd = connect_to(r.path);
    CU_ASSERT_FATAL(fd >= 0);
    c.fd = fd;
    c.have = 0;
    size_t big = SIM_CTL_MAX_LINE + 100;
    char *line = malloc(big + 1);
    memset(line, ' ', big);
    line[big] = '\n';
    size_t sent = 0;
    while (sent < big + 1) {
        ssize_t n = send(fd, line + sent, big + 1 - sent, MSG_DONTWAIT);
        if (n > 0)
            sent += (size_t)n;
        sim_ctl_service(r.c);
    }
    free(line);
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &c), "longer than 65536"));
    /* the connection still works after the refused line */
    const char p[] = "{\"cmd\":\"ping\"}\n";
    CU_ASSERT_EQUAL(send(fd, p, sizeof p - 1, 0), (ssize_t)sizeof p - 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &c), "\"pong\":true"));

    int more[SIM_CTL_MAX_CLIENTS];
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++)
        more[i] = connect_to(r.path);
    sim_ctl_service(r.c);
    /* the last one is over the limit and is told so */
    extra.fd = more[SIM_CTL_MAX_CLIENTS - 1];
    extra.have = 0;
    CU_ASSERT_PTR_NOT_NULL(strstr(read_reply(&r, &extra), "too many control clients"));
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++)
        close(more[i]);
    close(fd);
    rig_down(&r);
}

static void test_control_new_refuses_bad_paths(void)
{
    char err[320];
    sim_local_config lc = { .sim = { .num_slots = 4 }, .ap = SIM_LOCAL_TEST_AP };
    sim_local *t = sim_local_new(&lc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const sim_target *tg = sim_local_target(t);
    CU_ASSERT_PTR_NULL(sim_ctl_new("", tg, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "empty or longer"));
    CU_ASSERT_PTR_NULL(sim_ctl_new("/nonexistent-dir/x.sock", tg, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot listen on /nonexistent-dir/x.sock"));
    char path[] = "/tmp/gbvp-test-ctl-file-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    CU_ASSERT_PTR_NULL(sim_ctl_new(path, tg, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not a socket"));
    unlink(path);
    sim_local_free(t);
}

/* The server without a socket (what fuzz_control drives): same replies, no file. */
static void test_control_detached_server_answers_without_a_socket(void)
{
    char err[320];
    sim_local_config lc = { .sim = { .num_slots = 4 }, .ap = SIM_LOCAL_TEST_AP };
    sim_local *t = sim_local_new(&lc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NULL(sim_ctl_new_detached(NULL, err, sizeof err));
    CU_ASSERT_STRING_EQUAL(err, "no target to serve");
    sim_ctl *c = sim_ctl_new_detached(sim_local_target(t), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const char ping[] = "{\"id\":3,\"cmd\":\"insert\",\"slot\":1,\"module\":\"sensor\"}";
    char *rep = sim_ctl_handle_line(c, ping, sizeof ping - 1);
    CU_ASSERT_TRUE(rep && strstr(rep, "\"id\":3,\"ok\":true"));
    free(rep);
    const char sub[] = "{\"cmd\":\"subscribe\"}";
    rep = sim_ctl_handle_line(c, sub, sizeof sub - 1);
    CU_ASSERT_TRUE(rep && strstr(rep, "subscriptions need a socket connection"));
    free(rep);
    sim_ctl_service(c); /* nothing to accept or read */
    sim_ctl_free(c);
    sim_local_free(t);
}

static const unit_test tests[] = {
    UNIT_TEST(test_control_commands_drive_the_simulator),
    UNIT_TEST(test_control_refuses_bad_requests_naming_the_problem),
    UNIT_TEST(test_control_survives_random_lines),
    UNIT_TEST(test_control_socket_is_private_and_sends_events),
    UNIT_TEST(test_control_refuses_long_lines_and_surplus_clients),
    UNIT_TEST(test_control_new_refuses_bad_paths),
    UNIT_TEST(test_control_detached_server_answers_without_a_socket),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "control", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
