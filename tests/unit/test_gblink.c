// SPDX-License-Identifier: MIT
// gblink: records round-trip, cross-process streams, backpressure, wrap-around, hostile
// peers, version refusal, peer death and reconnection.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/test_gblink_util.h"
#include "tests/unit/unit.h"

#define TIMEOUT 10000

/* First thing in every forked child: never outlive the test, never run forever. */
static void child_guard(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(120);
}

typedef struct pair {
    char path[108];
    tep srv, cli;
} pair;

static int both_up(void *arg)
{
    pair *p = arg;
    return gbl_state(p->srv.l) == GBL_STATE_UP && gbl_state(p->cli.l) == GBL_STATE_UP;
}

static void pair_open(pair *p, uint32_t ring_size)
{
    gbl_config cfg = { .ring_size = ring_size, .name = "test" };
    char err[256];
    tep *eps[2] = { &p->srv, &p->cli };

    memset(p, 0, sizeof(*p));
    tep_path(p->path, sizeof(p->path));
    p->srv.l = gbl_server_new(p->path, &cfg, &tep_callbacks, &p->srv, err, sizeof(err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->srv.l);
    p->cli.l = gbl_client_new(p->path, &cfg, &tep_callbacks, &p->cli, err, sizeof(err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(p->cli.l);
    CU_ASSERT_EQUAL(gbl_state(p->cli.l), GBL_STATE_IDLE);
    CU_ASSERT_EQUAL(gbl_connect(p->cli.l), 0);
    CU_ASSERT_FATAL(tep_run(eps, 2, both_up, p, TIMEOUT));
    CU_ASSERT_EQUAL(p->srv.ups, 1);
    CU_ASSERT_EQUAL(p->cli.ups, 1);
}

static void pair_close(pair *p)
{
    gbl_free(p->cli.l);
    gbl_free(p->srv.l);
}

typedef struct want {
    tep *e;
    uint64_t n;
} want;

static int got_n(void *arg)
{
    want *w = arg;
    return w->e->received >= w->n;
}

static int got_down(void *arg)
{
    tep *e = arg;
    return e->downs > 0;
}

/* ---- round trip ---------------------------------------------------------------------- */

static void test_gblink_round_trip_every_record_type(void)
{
    pair p;
    tep *eps[2] = { &p.srv, &p.cli };
    uint8_t msg[64];
    gbl_cport_quiesce q = { .peer_space = 9, .timeout_ms = 1000 };
    gbl_cport_shutdown sd = { .timeout_ms = 100, .phase = 2 };
    gbl_hello h = { .version_major = 1, .cport_count = 44, .name = "gbvp" };
    want w;

    pair_open(&p, 0);
    CU_ASSERT_EQUAL(gbl_ring_size(p.cli.l), GBL_RING_DEFAULT);

    /* A Greybus message client -> server keeps every field and byte. */
    tep_fill(msg, sizeof(msg), 7);
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_GB_MESSAGE, 3, 0, 123456789ull, msg,
                                 sizeof(msg)), 0);
    w = (want){ &p.srv, 1 };
    CU_ASSERT_FATAL(tep_run(eps, 2, got_n, &w, TIMEOUT));
    CU_ASSERT_EQUAL(p.srv.last.type, GBL_T_GB_MESSAGE);
    CU_ASSERT_EQUAL(p.srv.last.cport, 3);
    CU_ASSERT_EQUAL(p.srv.last.time_ns, 123456789ull);
    CU_ASSERT_EQUAL(p.srv.last.len, sizeof(msg));
    CU_ASSERT(tep_check(p.srv.last_data, sizeof(msg), 7));

    /* A quiesce request and its result, matched by id. */
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_CPORT_QUIESCE, 5, 42, 0, &q, sizeof(q)), 0);
    w = (want){ &p.srv, 2 };
    CU_ASSERT_FATAL(tep_run(eps, 2, got_n, &w, TIMEOUT));
    CU_ASSERT_EQUAL(p.srv.last.type, GBL_T_CPORT_QUIESCE);
    CU_ASSERT_EQUAL(p.srv.last.id, 42);
    gbl_cport_quiesce got;
    memcpy(&got, p.srv.last_data, sizeof(got));
    CU_ASSERT_EQUAL(got.peer_space, 9);
    CU_ASSERT_EQUAL(got.timeout_ms, 1000);
    CU_ASSERT_EQUAL(gbl_send_result(p.srv.l, &p.srv.last, GBL_STATUS_OK, NULL, 0, 5), 0);
    w = (want){ &p.cli, 1 };
    CU_ASSERT_FATAL(tep_run(eps, 2, got_n, &w, TIMEOUT));
    gbl_result res;
    CU_ASSERT_EQUAL(p.cli.last.type, GBL_T_RESULT);
    CU_ASSERT_EQUAL(p.cli.last.id, 42);
    CU_ASSERT_EQUAL(p.cli.last.cport, 5);
    memcpy(&res, p.cli.last_data, sizeof(res));
    CU_ASSERT_EQUAL(res.status, GBL_STATUS_OK);
    CU_ASSERT_EQUAL(res.request_type, GBL_T_CPORT_QUIESCE);

    /* Shutdown, hello, log request with a result carrying text. */
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_CPORT_SHUTDOWN, 2, 43, 0, &sd, sizeof(sd)), 0);
    CU_ASSERT_EQUAL(gbl_send_msg(p.srv.l, GBL_T_HELLO, GBL_CPORT_NONE, 0, 0, &h, sizeof(h)), 0);
    w = (want){ &p.cli, 2 };
    CU_ASSERT_FATAL(tep_run(eps, 2, got_n, &w, TIMEOUT));
    CU_ASSERT_EQUAL(p.cli.last.type, GBL_T_HELLO);
    gbl_hello hg;
    memcpy(&hg, p.cli.last_data, sizeof(hg));
    CU_ASSERT_EQUAL(hg.cport_count, 44);
    CU_ASSERT_STRING_EQUAL(hg.name, "gbvp");
    CU_ASSERT_EQUAL(p.srv.received, 3);
    CU_ASSERT_EQUAL(p.srv.last.type, GBL_T_CPORT_SHUTDOWN);

    /* An audio request travels as the guest's bytes. */
    static const uint8_t start_tx[11] = { 0x07, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_AUDIO_CONTROL, GBL_CPORT_NONE, 44, 0, start_tx,
                                 sizeof(start_tx)), 0);
    w = (want){ &p.srv, 4 };
    CU_ASSERT_FATAL(tep_run(eps, 2, got_n, &w, TIMEOUT));
    CU_ASSERT_EQUAL(p.srv.last.type, GBL_T_AUDIO_CONTROL);
    CU_ASSERT_EQUAL(p.srv.last.id, 44);
    CU_ASSERT_EQUAL(p.srv.last.len, sizeof(start_tx));
    CU_ASSERT_EQUAL(memcmp(p.srv.last_data, start_tx, sizeof(start_tx)), 0);

    CU_ASSERT_STRING_EQUAL(gbl_type_name(GBL_T_CPORT_FLUSH), "cport-flush");
    CU_ASSERT_STRING_EQUAL(gbl_type_name(GBL_T_AUDIO_CONTROL), "audio-control");
    CU_ASSERT_STRING_EQUAL(gbl_type_name(0x99), "unknown");
    pair_close(&p);
}

static void test_gblink_send_refuses_invalid_records(void)
{
    pair p;
    uint8_t b[8] = { 0 };

    pair_open(&p, 0);
    /* wrong payload size for the type */
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_CPORT_QUIESCE, 1, 1, 0, b, 3), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(gbl_error(p.cli.l), "cport-quiesce"));
    /* unknown type, padding type, oversize, missing cport */
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, 0x77, 1, 1, 0, NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_PAD, 1, 1, 0, NULL, 0), -EINVAL);
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_GB_MESSAGE, 1, 0, 0, b,
                                 GBL_MAX_PAYLOAD + 1), -EINVAL);
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_CPORT_CLEAR, GBL_CPORT_NONE, 1, 0, NULL, 0),
                    -EINVAL);
    /* an audio request shorter than its 3-byte header or longer than SET_CONFIG's 15 */
    uint8_t a[16] = { 0x01 };
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_AUDIO_CONTROL, GBL_CPORT_NONE, 1, 0, a, 2),
                    -EINVAL);
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_AUDIO_CONTROL, GBL_CPORT_NONE, 1, 0, a, 16),
                    -EINVAL);
    CU_ASSERT_EQUAL(gbl_state(p.cli.l), GBL_STATE_UP);
    pair_close(&p);

    /* a client that is not connected */
    char err[128], path[108];
    gbl_link *c = gbl_client_new(tep_path(path, sizeof(path)), NULL, &tep_callbacks, NULL,
                                 err, sizeof(err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(gbl_send_msg(c, GBL_T_CPORT_CLEAR, 1, 1, 0, NULL, 0), -ENOTCONN);
    CU_ASSERT_EQUAL(gbl_connect(c), -ENOENT); /* no server there */
    CU_ASSERT_EQUAL(gbl_state(c), GBL_STATE_IDLE);
    gbl_free(c);

    /* bad configuration */
    gbl_config bad = { .ring_size = 12345 };
    CU_ASSERT_PTR_NULL(gbl_server_new(path, &bad, &tep_callbacks, NULL, err, sizeof(err)));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "power of two"));
}

static int fd_readable(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

static void test_gblink_budget_limits_one_call_and_keeps_the_fd_readable(void)
{
    pair p;
    gbl_config cfg = { .budget = 10 };
    char err[256];
    tep *eps[2];
    int rc;

    memset(&p, 0, sizeof(p));
    tep_path(p.path, sizeof(p.path));
    p.srv.l = gbl_server_new(p.path, &cfg, &tep_callbacks, &p.srv, err, sizeof(err));
    p.cli.l = gbl_client_new(p.path, NULL, &tep_callbacks, &p.cli, err, sizeof(err));
    CU_ASSERT_FATAL(p.srv.l && p.cli.l);
    eps[0] = &p.srv;
    eps[1] = &p.cli;
    CU_ASSERT_EQUAL(gbl_connect(p.cli.l), 0);
    CU_ASSERT_FATAL(tep_run(eps, 2, both_up, &p, TIMEOUT));
    for (uint32_t i = 0; i < 95; i++)
        CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_CPORT_FLUSH, 1, i, 0, NULL, 0), 0);
    for (int call = 0; call < 9; call++) {
        CU_ASSERT(fd_readable(gbl_fd(p.srv.l)));
        rc = gbl_process(p.srv.l);
        CU_ASSERT_EQUAL(rc, 10);
    }
    CU_ASSERT(fd_readable(gbl_fd(p.srv.l)));
    CU_ASSERT_EQUAL(gbl_process(p.srv.l), 5);
    CU_ASSERT_EQUAL(p.srv.received, 95);
    CU_ASSERT_EQUAL(p.srv.last.id, 94);
    /* idle now: the descriptor goes quiet */
    gbl_process(p.srv.l);
    CU_ASSERT_FALSE(fd_readable(gbl_fd(p.srv.l)));
    pair_close(&p);
}

/* gbl_has_records tells from the ring alone what gbl_process would deliver, for a
 * busy-poll, and changes nothing. */
static void test_gblink_has_records_sees_the_ring_without_taking_from_it(void)
{
    pair p;

    pair_open(&p, 0);
    gbl_process(p.srv.l);
    CU_ASSERT_FALSE(gbl_has_records(p.srv.l));
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_CPORT_FLUSH, 1, 7, 0, NULL, 0), 0);
    CU_ASSERT(gbl_has_records(p.srv.l));
    CU_ASSERT(gbl_has_records(p.srv.l)); /* asking again takes nothing */
    CU_ASSERT_FALSE(gbl_has_records(p.cli.l)); /* the other direction is empty */
    CU_ASSERT_EQUAL(p.srv.received, 0);
    CU_ASSERT_EQUAL(gbl_process(p.srv.l), 1);
    CU_ASSERT_EQUAL(p.srv.last.id, 7);
    CU_ASSERT_FALSE(gbl_has_records(p.srv.l));
    gbl_disconnect(p.cli.l);
    CU_ASSERT_FALSE(gbl_has_records(p.cli.l)); /* not UP */
    pair_close(&p);
}

static void test_gblink_records_sent_before_the_peer_left_are_delivered_first(void)
{
    pair p;
    gbl_config cfg = { .budget = 7 };
    char err[256];
    tep *eps[2];

    memset(&p, 0, sizeof(p));
    tep_path(p.path, sizeof(p.path));
    p.srv.l = gbl_server_new(p.path, &cfg, &tep_callbacks, &p.srv, err, sizeof(err));
    p.cli.l = gbl_client_new(p.path, NULL, &tep_callbacks, &p.cli, err, sizeof(err));
    CU_ASSERT_FATAL(p.srv.l && p.cli.l);
    eps[0] = &p.srv;
    eps[1] = &p.cli;
    CU_ASSERT_EQUAL(gbl_connect(p.cli.l), 0);
    CU_ASSERT_FATAL(tep_run(eps, 2, both_up, &p, TIMEOUT));
    for (uint32_t i = 0; i < 3000; i++)
        CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_CPORT_FLUSH, 1, i, 0, NULL, 0), 0);
    gbl_free(p.cli.l);
    CU_ASSERT(tep_run(eps, 1, got_down, &p.srv, TIMEOUT));
    CU_ASSERT_EQUAL(p.srv.received, 3000);
    CU_ASSERT_EQUAL(p.srv.last.id, 2999);
    CU_ASSERT_EQUAL(p.srv.last_err, -ECONNRESET);
    gbl_free(p.srv.l);
}

static void test_gblink_features_are_the_intersection_of_both_offers(void)
{
    for (int srv_offer = 0; srv_offer < 2; srv_offer++) {
        pair p;
        gbl_config scfg = { .features = srv_offer ? GBL_FEATURE_LOCKSTEP : 0 };
        gbl_config ccfg = { .features = GBL_FEATURE_LOCKSTEP | 0x80u };
        char err[256];
        tep *eps[2];

        memset(&p, 0, sizeof(p));
        tep_path(p.path, sizeof(p.path));
        p.srv.l = gbl_server_new(p.path, &scfg, &tep_callbacks, &p.srv, err, sizeof(err));
        p.cli.l = gbl_client_new(p.path, &ccfg, &tep_callbacks, &p.cli, err, sizeof(err));
        CU_ASSERT_FATAL(p.srv.l && p.cli.l);
        eps[0] = &p.srv;
        eps[1] = &p.cli;
        CU_ASSERT_EQUAL(gbl_connect(p.cli.l), 0);
        CU_ASSERT_FATAL(tep_run(eps, 2, both_up, &p, TIMEOUT));
        uint32_t want_f = srv_offer ? GBL_FEATURE_LOCKSTEP : 0;
        CU_ASSERT_EQUAL(gbl_features(p.srv.l), want_f);
        CU_ASSERT_EQUAL(gbl_features(p.cli.l), want_f);
        pair_close(&p);
    }
}

/* ---- two processes, 10^6 records each way -------------------------------------------- */

#define STREAM_DEFAULT 1000000u

typedef struct stream {
    tep *e;
    uint32_t total;
    uint32_t next_send;
    uint32_t next_recv;
    uint32_t bad;
    uint64_t sum;                  /* checksum of everything received */
} stream;

static void stream_record(tep *e, const gbl_record *rec)
{
    stream *s = e->user;

    if (rec->type != GBL_T_GB_MESSAGE || rec->id != s->next_recv
        || rec->len != tep_len_for(rec->id, 256) || !tep_check(rec->payload, rec->len, rec->id))
        s->bad++;
    for (uint32_t i = 0; i < rec->len; i++)
        s->sum = s->sum * 31u + ((const uint8_t *)rec->payload)[i];
    s->next_recv++;
}

static void stream_push(stream *s)
{
    uint8_t buf[256];

    if (gbl_state(s->e->l) != GBL_STATE_UP)
        return;                    /* the server waits for its client */
    while (s->next_send < s->total) {
        uint32_t len = tep_len_for(s->next_send, 256);
        tep_fill(buf, len, s->next_send);
        int rc = gbl_send_msg(s->e->l, GBL_T_GB_MESSAGE, (uint16_t)(s->next_send % 44),
                              s->next_send, s->next_send, buf, len);
        if (rc == -EAGAIN)
            return;
        if (rc < 0) {
            s->bad++;
            return;
        }
        s->next_send++;
    }
}

static uint64_t expected_sum(uint32_t total)
{
    uint8_t buf[256];
    uint64_t sum = 0;

    for (uint32_t seq = 0; seq < total; seq++) {
        uint32_t len = tep_len_for(seq, 256);
        tep_fill(buf, len, seq);
        for (uint32_t i = 0; i < len; i++)
            sum = sum * 31u + buf[i];
    }
    return sum;
}

static long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Streams `total` records both ways until all are sent and received. */
static int stream_run(stream *s, int timeout_ms)
{
    tep *eps[1] = { s->e };
    long end = ms_now() + timeout_ms;

    while ((s->next_recv < s->total || s->next_send < s->total) && !s->bad
           && s->e->downs == 0 && ms_now() < end) {
        stream_push(s);
        tep_run(eps, 1, NULL, NULL, 1);
    }
    return s->next_recv == s->total && s->next_send == s->total && !s->bad;
}

static uint32_t stream_total(void)
{
    const char *env = getenv("GBL_TEST_RECORDS"); /* valgrind runs use fewer */
    return env ? (uint32_t)strtoul(env, NULL, 10) : STREAM_DEFAULT;
}

static void test_gblink_two_processes_exchange_a_million_records_both_ways(void)
{
    char path[108], err[256];
    uint32_t total = stream_total();
    uint64_t want_sum = expected_sum(total);
    tep srv = { 0 };
    stream s = { .e = &srv, .total = total };
    pid_t pid;
    int status;

    tep_path(path, sizeof(path));
    srv.user = &s;
    srv.on_record = stream_record;
    srv.l = gbl_server_new(path, NULL, &tep_callbacks, &srv, err, sizeof(err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv.l);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        child_guard();
        tep cli = { 0 };
        stream cs = { .e = &cli, .total = total };
        tep *ceps[1] = { &cli };
        cli.user = &cs;
        cli.on_record = stream_record;
        cli.l = gbl_client_new(path, NULL, &tep_callbacks, &cli, err, sizeof(err));
        if (!cli.l || gbl_connect(cli.l) < 0)
            _exit(2);
        while (gbl_state(cli.l) != GBL_STATE_UP) {
            if (cli.downs)
                _exit(3);
            tep_run(ceps, 1, NULL, NULL, 1);
        }
        int ok = stream_run(&cs, 60000) && cs.sum == want_sum;
        /* Let the server finish reading before we go away. */
        tep_run(ceps, 1, got_down, &cli, 60000);
        gbl_free(cli.l);
        _exit(ok ? 0 : 1);
    }
    if (!stream_run(&s, 60000))
        printf("\n    server: sent %u received %u bad %u downs %d (%s) state %d\n", s.next_send,
               s.next_recv, s.bad, srv.downs, srv.why, gbl_state(srv.l));
    CU_ASSERT(s.next_recv == total && s.next_send == total);
    CU_ASSERT_EQUAL(s.bad, 0);
    CU_ASSERT_EQUAL(s.next_recv, total);
    CU_ASSERT_EQUAL(s.sum, want_sum);
    gbl_stats st;
    gbl_get_stats(srv.l, &st);
    printf("\n    %u records each way; server rang %llu doorbells, woke %llu times, "
           "%llu sends would block\n", total, (unsigned long long)st.doorbells_rung,
           (unsigned long long)st.wakeups, (unsigned long long)st.would_block);
    /* The client exits once we drop it; wait for its verdict. */
    gbl_disconnect(srv.l);
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    gbl_free(srv.l);
}

/* ---- backpressure -------------------------------------------------------------------- */

static void test_gblink_full_ring_returns_eagain_then_resumes_without_loss(void)
{
    pair p;
    tep *eps[2] = { &p.srv, &p.cli };
    stream rx = { .e = &p.srv, .total = 2000 };
    uint8_t buf[256];
    uint32_t seq = 0;
    int rc;

    pair_open(&p, GBL_RING_MIN);
    p.srv.user = &rx;
    p.srv.on_record = stream_record;
    /* Fill the ring while the server does not run. */
    for (;;) {
        uint32_t len = tep_len_for(seq, 256);
        tep_fill(buf, len, seq);
        rc = gbl_send_msg(p.cli.l, GBL_T_GB_MESSAGE, 1, seq, 0, buf, len);
        if (rc != 0)
            break;
        seq++;
    }
    CU_ASSERT_EQUAL(rc, -EAGAIN);
    CU_ASSERT(seq > 10 && seq < GBL_RING_MIN / 32);
    /* Still full: the same record is refused again, nothing is lost. */
    CU_ASSERT_EQUAL(gbl_send_msg(p.cli.l, GBL_T_GB_MESSAGE, 1, seq, 0, buf,
                                 tep_len_for(seq, 256)), -EAGAIN);
    CU_ASSERT_EQUAL(p.cli.writable, 0);
    gbl_stats st;
    gbl_get_stats(p.cli.l, &st);
    CU_ASSERT_EQUAL(st.would_block, 2);

    /* The server drains; the client is told it may write again, and finishes. */
    while (seq < rx.total) {
        int before = p.cli.writable;
        want w = { &p.srv, seq };
        CU_ASSERT_FATAL(tep_run(eps, 2, got_n, &w, TIMEOUT));
        if (p.cli.writable == before) {
            /* writable must come once the server made room */
            tep_run(eps, 2, NULL, NULL, 20);
        }
        CU_ASSERT_FATAL(p.cli.writable > before);
        for (;;) {
            uint32_t len = tep_len_for(seq, 256);
            tep_fill(buf, len, seq);
            if (seq >= rx.total || gbl_send_msg(p.cli.l, GBL_T_GB_MESSAGE, 1, seq, 0, buf,
                                                len) != 0)
                break;
            seq++;
        }
    }
    want w = { &p.srv, rx.total };
    CU_ASSERT_FATAL(tep_run(eps, 2, got_n, &w, TIMEOUT));
    CU_ASSERT_EQUAL(rx.bad, 0);
    CU_ASSERT_EQUAL(rx.next_recv, rx.total);
    pair_close(&p);
}

/* ---- wrap-around --------------------------------------------------------------------- */

/* The ring alone, on private memory: every payload size from 0 to the maximum, the ring
 * filled to refusal and drained each time, so every size meets the end of the ring at many
 * offsets, with and without padding. */
static void test_gblink_ring_wraps_with_every_record_size(void)
{
    uint32_t size = GBL_RING_MIN;
    uint8_t *mem = aligned_alloc(4096, GBL_SHM_HEADER_SIZE + 2u * size);
    uint8_t payload[GBL_MAX_PAYLOAD];
    _Alignas(8) uint8_t buf[GBL_REC_MAX];
    gbl_ring prod, cons;
    char err[200];
    uint32_t seq = 0, rseq = 0, bad = 0;
    uint64_t pads = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
    gbl_shm_init(mem, size, 0, 0);
    gbl_ring_attach(&prod, mem, size, GBL_RING_C2S);
    gbl_ring_attach(&cons, mem, size, GBL_RING_C2S);
    for (uint32_t len = 0; len <= GBL_MAX_PAYLOAD; len++) {
        for (;;) {
            uint32_t before = prod.local;
            gbl_record r = { .type = 0x55, .cport = 1, .id = seq, .len = len,
                             .payload = payload };
            tep_fill(payload, len, seq);
            int rc = gbl_ring_write(&prod, &r, err, sizeof(err));
            if (rc == -EAGAIN)
                break;
            if (rc != 0) {
                bad++;
                break;
            }
            if (prod.local - before > ((GBL_REC_HEADER + len + 7u) & ~7u))
                pads++;
            seq++;
        }
        uint32_t n;
        int rc;
        while ((rc = gbl_ring_read(&cons, buf, &n, err, sizeof(err))) == 1) {
            gbl_wire_record w;
            memcpy(&w, buf, sizeof(w));
            if (w.id != rseq || n != GBL_REC_HEADER + len
                || !tep_check(buf + GBL_REC_HEADER, len, rseq))
                bad++;
            rseq++;
        }
        if (rc != 0)
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(seq, rseq);
    CU_ASSERT(pads > 1000); /* padding records really happened */
    CU_ASSERT(cons.local > 100u * size); /* wrapped many times */
    free(mem);
}

/* The same through the whole link with valid records of every size a Greybus message can
 * have, the client sending while the server keeps up. */
static void test_gblink_link_carries_every_message_size_across_the_wrap(void)
{
    pair p;
    tep *eps[2] = { &p.srv, &p.cli };
    uint8_t buf[GBL_MAX_PAYLOAD];
    uint32_t bad = 0;

    pair_open(&p, GBL_RING_MIN);
    for (uint32_t len = 8; len <= GBL_MAX_PAYLOAD; len++) {
        tep_fill(buf, len, len);
        int rc;
        while ((rc = gbl_send_msg(p.cli.l, GBL_T_GB_MESSAGE, 1, len, 0, buf, len))
               == -EAGAIN)
            tep_run(eps, 2, NULL, NULL, 1);
        if (rc != 0)
            bad++;
        want w = { &p.srv, len - 7 };
        if (!tep_run(eps, 2, got_n, &w, TIMEOUT))
            bad++;
        if (p.srv.last.len != len || p.srv.last.id != len || !tep_check(p.srv.last_data, len,
                                                                         len))
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    pair_close(&p);
}

/* ---- hostile peer -------------------------------------------------------------------- */

typedef struct hostile {
    char path[108];
    tep srv;
    fake_peer f;
} hostile;

static void hostile_open(hostile *h)
{
    char err[256];
    gbl_config cfg = { .ring_size = GBL_RING_MIN };

    memset(h, 0, sizeof(*h));
    tep_path(h->path, sizeof(h->path));
    h->srv.l = gbl_server_new(h->path, &cfg, &tep_callbacks, &h->srv, err, sizeof(err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(h->srv.l);
}

static int srv_up(void *arg)
{
    return gbl_state(arg) == GBL_STATE_UP;
}

/* Connects a fresh fake client to the (possibly reused) server. */
static void hostile_connect(hostile *h)
{
    char reason[128];
    tep *eps[1] = { &h->srv };

    CU_ASSERT_EQUAL_FATAL(fake_connect(&h->f, h->path, GBL_VERSION_MAJOR), 0);
    tep_run(eps, 1, srv_up, h->srv.l, 1000);
    CU_ASSERT_EQUAL_FATAL(fake_finish(&h->f, reason, sizeof(reason)), 1);
    CU_ASSERT_EQUAL_FATAL(gbl_state(h->srv.l), GBL_STATE_UP);
}

/* Runs the server after the fake peer did something; expects a protocol error naming
 * `what`, and the server listening again. */
static void expect_protocol_error(hostile *h, const char *what)
{
    tep *eps[1] = { &h->srv };
    int downs = h->srv.downs;

    fake_kick(&h->f);
    tep_run(eps, 1, got_down, &h->srv, 2000);
    CU_ASSERT_EQUAL(h->srv.downs, downs + 1);
    CU_ASSERT_EQUAL(h->srv.last_err, -EPROTO);
    if (!strstr(h->srv.why, what))
        printf("\n    expected \"%s\" in \"%s\"\n", what, h->srv.why);
    CU_ASSERT_PTR_NOT_NULL(strstr(h->srv.why, what));
    CU_ASSERT_EQUAL(gbl_state(h->srv.l), GBL_STATE_LISTENING);
    fake_close(&h->f);
    h->srv.downs = 0;
}

static void write_raw(fake_peer *f, uint32_t pos, uint32_t len, uint16_t type,
                      uint32_t payload_len)
{
    gbl_wire_record w = { .len = len, .type = type, .cport = 1 };
    uint8_t *d = fake_data(f, GBL_RING_C2S);
    memcpy(d + pos, &w, sizeof(w));
    memset(d + pos + sizeof(w), 0xa5, payload_len);
}

/* Moves the server's read position to 64 bytes before the end of a ring of R bytes with
 * well-formed records, which it takes, so the next test record starts there. */
static void fill_to_near_end(hostile *h, uint32_t R)
{
    static uint8_t zero[GBL_RING_MIN];
    gbl_record r = { .type = GBL_T_GB_MESSAGE, .cport = 1, .payload = zero };
    char err[128];
    uint32_t left = R - 64;
    while (left) {   /* too long for one record: several */
        r.len = left > 4096 ? 4096 - 24 : left - 24;
        CU_ASSERT_EQUAL(gbl_ring_write(&h->f.tx, &r, err, sizeof(err)), 0);
        left -= (24 + r.len + 7) & ~7u;
    }
    tep *eps[1] = { &h->srv };
    fake_kick(&h->f);
    tep_run(eps, 1, NULL, NULL, 50);
    CU_ASSERT_EQUAL(gbl_state(h->srv.l), GBL_STATE_UP);
}

static void test_gblink_reader_rejects_corrupt_indices_lengths_and_types(void)
{
    hostile h;
    uint32_t R = GBL_RING_MIN;
    uint32_t *head;

    hostile_open(&h);

    /* head beyond the ring */
    hostile_connect(&h);
    head = fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD);
    *head = R + 64;
    expect_protocol_error(&h, "producer index is corrupt");

    /* unaligned head */
    hostile_connect(&h);
    write_raw(&h.f, 0, 24, GBL_T_CPORT_CLEAR, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 27;
    expect_protocol_error(&h, "producer index is corrupt");

    /* head moving backwards after a good record */
    hostile_connect(&h);
    {
        tep *eps[1] = { &h.srv };
        gbl_record r = { .type = GBL_T_CPORT_CLEAR, .cport = 1 };
        char err[128];
        CU_ASSERT_EQUAL(gbl_ring_write(&h.f.tx, &r, err, sizeof(err)), 0);
        fake_kick(&h.f);
        want w = { &h.srv, h.srv.received + 1 };
        CU_ASSERT(tep_run(eps, 1, got_n, &w, 2000));
        *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 0;
    }
    expect_protocol_error(&h, "producer index is corrupt");

    /* record length larger than the maximum, than the data, and smaller than a header */
    hostile_connect(&h);
    write_raw(&h.f, 0, 100000, GBL_T_GB_MESSAGE, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 4096;
    expect_protocol_error(&h, "bad record length 100000");

    hostile_connect(&h);
    write_raw(&h.f, 0, 24 + 200, GBL_T_GB_MESSAGE, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 64;
    expect_protocol_error(&h, "runs past the published data");

    hostile_connect(&h);
    write_raw(&h.f, 0, 5, GBL_T_GB_MESSAGE, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 64;
    expect_protocol_error(&h, "bad record length 5");

    /* fewer bytes published than a record header */
    hostile_connect(&h);
    write_raw(&h.f, 0, 24, GBL_T_CPORT_CLEAR, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 0;
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 8;
    expect_protocol_error(&h, "runs past the published data");

    /* a pad at offset 0 pads nothing: refused, so pads alone cannot keep the reader busy */
    hostile_connect(&h);
    write_raw(&h.f, 0, R, GBL_T_PAD, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = R;
    expect_protocol_error(&h, "bad padding record at offset 0");

    /* a pad near the end whose length is not the bytes to the end */
    hostile_connect(&h);
    fill_to_near_end(&h, R);
    write_raw(&h.f, R - 64, 32, GBL_T_PAD, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = R;
    expect_protocol_error(&h, "bad padding record at offset 16320");

    /* a record crossing the end of the ring, where a pad should have been */
    hostile_connect(&h);
    fill_to_near_end(&h, R);
    write_raw(&h.f, R - 64, 1000, GBL_T_GB_MESSAGE, 0);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = R - 64 + 1000 + 64;
    expect_protocol_error(&h, "runs past the end of the ring");

    /* unknown type, and a known type with the wrong payload length */
    hostile_connect(&h);
    write_raw(&h.f, 0, 24 + 8, 0x7f, 8);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 32;
    expect_protocol_error(&h, "unknown record type 0x7f");

    hostile_connect(&h);
    write_raw(&h.f, 0, 24 + 3, GBL_T_CPORT_QUIESCE, 3);
    *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = 32;
    expect_protocol_error(&h, "cport-quiesce record with 3 payload bytes");

    /* the consumer index of the server's own ring corrupted: found when the ring is full */
    hostile_connect(&h);
    {
        uint8_t b[1024] = { 0 };
        int rc;
        *fake_ctrl(&h.f, GBL_RING_S2C, GBL_CTRL_TAIL) = 0xdeadbeefu;
        for (int i = 0; i < 100; i++) {
            rc = gbl_send_msg(h.srv.l, GBL_T_GB_MESSAGE, 1, 0, 0, b, sizeof(b));
            if (rc != 0)
                break;
        }
        CU_ASSERT_EQUAL(rc, -EPROTO);
        CU_ASSERT_EQUAL(h.srv.downs, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(h.srv.why, "consumer index is corrupt"));
        CU_ASSERT_EQUAL(gbl_state(h.srv.l), GBL_STATE_LISTENING);
        fake_close(&h.f);
        h.srv.downs = 0;
    }

    /* the peer writing on the socket while up */
    hostile_connect(&h);
    CU_ASSERT_EQUAL(write(h.f.sock, "x", 1), 1);
    expect_protocol_error(&h, "unexpected socket message");

    /* After all that the server still serves a good client. */
    hostile_connect(&h);
    {
        gbl_record r = { .type = GBL_T_CPORT_FLUSH, .cport = 9, .id = 77 };
        char err[128];
        tep *eps[1] = { &h.srv };
        uint64_t before = h.srv.received;
        CU_ASSERT_EQUAL(gbl_ring_write(&h.f.tx, &r, err, sizeof(err)), 0);
        fake_kick(&h.f);
        want w = { &h.srv, before + 1 };
        CU_ASSERT(tep_run(eps, 1, got_n, &w, 2000));
        CU_ASSERT_EQUAL(h.srv.last.id, 77);
        gbl_stats st;
        gbl_get_stats(h.srv.l, &st);
        CU_ASSERT_EQUAL(st.protocol_errors, 14);
    }
    fake_close(&h.f);
    gbl_free(h.srv.l);
}

/* Random bytes and random indices from a hostile client, many times over: the server either
 * delivers records that pass the type rules or drops the link with -EPROTO; it never crashes,
 * and it keeps accepting new clients. Deterministic (fixed seed). */
static void check_delivered(tep *e, const gbl_record *rec)
{
    int *bad = e->user;
    if (gbl_record_check(rec, NULL, 0) != 0)
        (*bad)++;
}

static void test_gblink_reader_survives_random_garbage(void)
{
    hostile h;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int bad = 0, drops = 0, iterations = 300;

    hostile_open(&h);
    h.srv.user = &bad;
    h.srv.on_record = check_delivered;
    for (int it = 0; it < iterations; it++) {
        hostile_connect(&h);
        uint8_t *d = fake_data(&h.f, GBL_RING_C2S);
        uint32_t R = h.f.ring_size;
        for (int round = 0; round < 8 && gbl_state(h.srv.l) == GBL_STATE_UP; round++) {
            /* garbage with some plausible record headers sprinkled in */
            for (uint32_t i = 0; i < R; i += 8) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                memcpy(d + i, &x, 8);
                if ((x & 3) != 0) {  /* mostly valid cport-clear records */
                    gbl_wire_record w = { .len = 24, .type = GBL_T_CPORT_CLEAR, .cport = 1 };
                    if (i + 24 <= R) {
                        memcpy(d + i, &w, sizeof(w));
                        i += 16;
                    }
                }
            }
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            uint32_t head = (x & 1) ? (uint32_t)(x >> 32)
                                    : *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_TAIL)
                                          + (uint32_t)((x >> 8) % (R + 64));
            *fake_ctrl(&h.f, GBL_RING_C2S, GBL_CTRL_HEAD) = head;
            *fake_ctrl(&h.f, GBL_RING_S2C, GBL_CTRL_TAIL) = (x & 2) ? (uint32_t)(x >> 16) : 0;
            fake_kick(&h.f);
            gbl_process(h.srv.l);
            /* the server also writes into a ring whose tail the peer scribbles on */
            gbl_send_msg(h.srv.l, GBL_T_GB_MESSAGE, 1, 0, 0, d, 1000);
        }
        if (h.srv.downs) {
            drops++;
            CU_ASSERT_EQUAL(h.srv.last_err, -EPROTO);
        }
        h.srv.downs = 0;
        fake_close(&h.f);
        gbl_disconnect(h.srv.l);
    }
    printf("\n    %d hostile connections, %d dropped with a protocol error, %llu records "
           "passed the checks\n", iterations, drops, (unsigned long long)h.srv.received);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(drops > iterations / 2);
    gbl_free(h.srv.l);
}

/* ---- versions ------------------------------------------------------------------------ */

static void test_gblink_version_mismatch_is_refused_with_a_clear_message(void)
{
    hostile h;
    char reason[128] = "";
    tep *eps[1] = { &h.srv };

    /* A client of major version 2 is refused by the server, and told why. */
    hostile_open(&h);
    CU_ASSERT_EQUAL_FATAL(fake_connect(&h.f, h.path, 2), 0);
    tep_run(eps, 1, got_down, &h.srv, 2000);
    CU_ASSERT_EQUAL(fake_finish(&h.f, reason, sizeof(reason)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reason, "client 2.0"));
    CU_ASSERT_EQUAL(h.srv.ups, 0);
    CU_ASSERT_EQUAL(h.srv.last_err, -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(h.srv.why, "speaks gblink 2.0"));
    CU_ASSERT_EQUAL(gbl_state(h.srv.l), GBL_STATE_LISTENING);
    fake_close(&h.f);

    /* A real client is told when the server refuses it (here: one client at a time). */
    hostile_connect(&h);
    {
        char err[128];
        tep cli = { 0 };
        tep *both[2] = { &h.srv, &cli };
        cli.l = gbl_client_new(h.path, NULL, &tep_callbacks, &cli, err, sizeof(err));
        CU_ASSERT_PTR_NOT_NULL_FATAL(cli.l);
        CU_ASSERT_EQUAL(gbl_connect(cli.l), 0);
        CU_ASSERT(tep_run(both, 2, got_down, &cli, 2000));
        if (cli.last_err != -EPROTO)
            printf("\n    client: %d %s\n", cli.last_err, cli.why);
        CU_ASSERT_EQUAL(cli.last_err, -EPROTO);
        CU_ASSERT_PTR_NOT_NULL(strstr(cli.why, "another client is connected"));
        CU_ASSERT_EQUAL(gbl_state(cli.l), GBL_STATE_IDLE);
        CU_ASSERT_EQUAL(gbl_state(h.srv.l), GBL_STATE_UP);
        gbl_free(cli.l);
    }
    fake_close(&h.f);
    gbl_free(h.srv.l);
}

static void test_gblink_client_refuses_a_server_of_another_major_version(void)
{
    tep cli = { 0 };
    tep *eps[1] = { &cli };
    fake_server srv;
    gbl_hs_hello hello;
    gbl_hs_accept a = { .magic = GBL_HS_ACCEPT_MAGIC, .version_major = 3,
                        .status = GBL_HS_ACCEPTED };

    CU_ASSERT_EQUAL_FATAL(fake_server_take(&srv, &cli, &hello), 0);
    CU_ASSERT_EQUAL(hello.version_major, GBL_VERSION_MAJOR);
    CU_ASSERT_EQUAL(gbl_hs_send(srv.conn, &a, sizeof(a), NULL, 0), 0);
    CU_ASSERT(tep_run(eps, 1, got_down, &cli, 2000));
    CU_ASSERT_EQUAL(cli.last_err, -EPROTO);
    CU_ASSERT_PTR_NOT_NULL(strstr(cli.why, "server speaks gblink 3.0"));
    CU_ASSERT_EQUAL(cli.ups, 0);
    CU_ASSERT_EQUAL(gbl_state(cli.l), GBL_STATE_IDLE);
    fake_server_close(&srv, &cli);
}

/* ---- death and reconnection ---------------------------------------------------------- */

/* Child: connects, sends `count` sequenced records (0 = forever), waits for the server's
 * echo of the last one, exits 0. */
static void client_child(const char *path, uint32_t count)
{
    char err[256];
    tep cli = { 0 };
    tep *eps[1] = { &cli };
    uint8_t buf[256];
    uint32_t seq = 0;

    child_guard();
    cli.l = gbl_client_new(path, NULL, &tep_callbacks, &cli, err, sizeof(err));
    if (!cli.l || gbl_connect(cli.l) < 0)
        _exit(2);
    while (gbl_state(cli.l) != GBL_STATE_UP)
        if (!tep_run(eps, 1, NULL, NULL, 1) && cli.downs)
            _exit(3);
    while (count == 0 || seq < count) {
        uint32_t len = tep_len_for(seq, 256);
        tep_fill(buf, len, seq);
        int rc = gbl_send_msg(cli.l, GBL_T_GB_MESSAGE, 1, seq, 0, buf, len);
        if (rc == 0)
            seq++;
        else if (rc == -EAGAIN)
            tep_run(eps, 1, NULL, NULL, 1);
        else
            _exit(4);
    }
    want w = { &cli, 1 };
    if (!tep_run(eps, 1, got_n, &w, TIMEOUT) || cli.last.id != count - 1)
        _exit(5);
    gbl_free(cli.l);
    _exit(0);
}

static void test_gblink_killed_client_is_noticed_and_a_new_one_connects(void)
{
    char path[108], err[256];
    tep srv = { 0 };
    tep *eps[1] = { &srv };
    stream rx = { .e = &srv, .total = 0xffffffffu };
    pid_t pid;
    int status;

    tep_path(path, sizeof(path));
    srv.l = gbl_server_new(path, NULL, &tep_callbacks, &srv, err, sizeof(err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(srv.l);
    srv.user = &rx;
    srv.on_record = stream_record;

    /* First client streams forever; kill it mid-stream. */
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0)
        client_child(path, 0);
    want w = { &srv, 1000 };
    CU_ASSERT_FATAL(tep_run(eps, 1, got_n, &w, TIMEOUT));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    CU_ASSERT(tep_run(eps, 1, got_down, &srv, TIMEOUT));
    CU_ASSERT_EQUAL(srv.last_err, -ECONNRESET);
    CU_ASSERT_EQUAL(gbl_state(srv.l), GBL_STATE_LISTENING);
    CU_ASSERT_EQUAL(rx.bad, 0);
    CU_ASSERT_EQUAL(gbl_send_msg(srv.l, GBL_T_CPORT_CLEAR, 1, 1, 0, NULL, 0), -ENOTCONN);

    /* A second client gets a clean link: its sequence starts at 0 again. */
    rx.next_recv = 0;
    srv.received = 0;
    srv.downs = 0;
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0)
        client_child(path, 5000);
    w = (want){ &srv, 5000 };
    CU_ASSERT_FATAL(tep_run(eps, 1, got_n, &w, TIMEOUT));
    CU_ASSERT_EQUAL(rx.bad, 0);
    CU_ASSERT_EQUAL(srv.ups, 2);
    CU_ASSERT_EQUAL(gbl_send_msg(srv.l, GBL_T_GB_MESSAGE, 1, 4999, 0, "12345678", 8), 0);
    CU_ASSERT(tep_run(eps, 1, got_down, &srv, TIMEOUT)); /* the child exits */
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    gbl_free(srv.l);
}

static void server_child(const char *path, int ready_fd)
{
    char err[256];
    tep srv = { 0 };
    tep *eps[1] = { &srv };

    child_guard();
    srv.l = gbl_server_new(path, NULL, &tep_callbacks, &srv, err, sizeof(err));
    if (!srv.l)
        _exit(2);
    if (write(ready_fd, "r", 1) != 1)
        _exit(3);
    for (;;) {
        tep_run(eps, 1, NULL, NULL, 100);
        if (srv.received) {
            gbl_send_msg(srv.l, GBL_T_RESULT, srv.last.cport, srv.last.id, 0,
                         &(gbl_result){ .status = 0, .request_type = srv.last.type },
                         sizeof(gbl_result));
            srv.received = 0;
        }
    }
}

static pid_t start_server_child(const char *path)
{
    int p[2];
    char c;
    pid_t pid;

    if (pipe(p) < 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        server_child(path, p[1]);
    }
    close(p[1]);
    if (read(p[0], &c, 1) != 1)
        pid = -1;
    close(p[0]);
    return pid;
}

static int up_or_down(void *arg)
{
    tep *e = arg;
    return gbl_state(e->l) == GBL_STATE_UP || e->downs > 0;
}

static void test_gblink_killed_server_is_noticed_and_the_client_reconnects(void)
{
    char path[108], err[256];
    tep cli = { 0 };
    tep *eps[1] = { &cli };
    pid_t pid;
    int status;

    tep_path(path, sizeof(path));
    cli.l = gbl_client_new(path, NULL, &tep_callbacks, &cli, err, sizeof(err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(cli.l);
    for (int round = 0; round < 2; round++) {
        pid = start_server_child(path);
        CU_ASSERT_FATAL(pid > 0);
        cli.downs = 0;
        CU_ASSERT_EQUAL(gbl_connect(cli.l), 0);
        CU_ASSERT_FATAL(tep_run(eps, 1, up_or_down, &cli, TIMEOUT));
        if (gbl_state(cli.l) != GBL_STATE_UP)
            printf("\n    round %d: client down: %s\n", round, cli.why);
        CU_ASSERT_EQUAL_FATAL(gbl_state(cli.l), GBL_STATE_UP);
        CU_ASSERT_EQUAL(gbl_send_msg(cli.l, GBL_T_CPORT_CONNECTED, 0, 100 + round, 0, NULL, 0),
                        0);
        want w = { &cli, cli.received + 1 };
        CU_ASSERT(tep_run(eps, 1, got_n, &w, TIMEOUT));
        CU_ASSERT_EQUAL(cli.last.type, GBL_T_RESULT);
        CU_ASSERT_EQUAL(cli.last.id, 100 + round);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        cli.downs = 0;
        CU_ASSERT(tep_run(eps, 1, got_down, &cli, TIMEOUT));
        CU_ASSERT_EQUAL(cli.last_err, -ECONNRESET);
        CU_ASSERT_EQUAL(gbl_state(cli.l), GBL_STATE_IDLE);
    }
    CU_ASSERT_EQUAL(cli.ups, 2);
    /* No server now: connecting fails cleanly (the dead server's socket file remains, and
     * its lock file, which the second server took over from the first). */
    CU_ASSERT_EQUAL(gbl_connect(cli.l), -ECONNREFUSED);
    gbl_free(cli.l);
    unlink(path);
    char lock[sizeof(path) + 8];
    snprintf(lock, sizeof(lock), "%s.lock", path);
    CU_ASSERT_EQUAL(unlink(lock), 0);
}

static const unit_test link_tests[] = {
    UNIT_TEST(test_gblink_round_trip_every_record_type),
    UNIT_TEST(test_gblink_send_refuses_invalid_records),
    UNIT_TEST(test_gblink_full_ring_returns_eagain_then_resumes_without_loss),
    UNIT_TEST(test_gblink_ring_wraps_with_every_record_size),
    UNIT_TEST(test_gblink_link_carries_every_message_size_across_the_wrap),
    UNIT_TEST(test_gblink_budget_limits_one_call_and_keeps_the_fd_readable),
    UNIT_TEST(test_gblink_has_records_sees_the_ring_without_taking_from_it),
    UNIT_TEST(test_gblink_records_sent_before_the_peer_left_are_delivered_first),
    UNIT_TEST(test_gblink_features_are_the_intersection_of_both_offers),
    UNIT_TESTS_END,
};

static const unit_test hostile_tests[] = {
    UNIT_TEST(test_gblink_reader_rejects_corrupt_indices_lengths_and_types),
    UNIT_TEST(test_gblink_reader_survives_random_garbage),
    UNIT_TEST(test_gblink_version_mismatch_is_refused_with_a_clear_message),
    UNIT_TEST(test_gblink_client_refuses_a_server_of_another_major_version),
    UNIT_TESTS_END,
};

static const unit_test process_tests[] = {
    UNIT_TEST(test_gblink_two_processes_exchange_a_million_records_both_ways),
    UNIT_TEST(test_gblink_killed_client_is_noticed_and_a_new_one_connects),
    UNIT_TEST(test_gblink_killed_server_is_noticed_and_the_client_reconnects),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "gblink_link", link_tests, 0, 0 },
    { "gblink_hostile", hostile_tests, 0, 0 },
    { "gblink_processes", process_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    return unit_run(suites, argc, argv);
}
