// SPDX-License-Identifier: MIT
// Unit tests of sim/bridge_gblink.c, the simulator's end of the link to QEMU, driven as QEMU
// drives it: a real gblink client connected to the bridge's socket, in this process. The
// SVC behind the bridge answers every PING on hd CPort 0, so each ping the client sends
// makes one message for the AP; while the client does not read, they fill the (small) ring
// and then the bridge's queue. What is checked: answers to QEMU's requests wait in that
// queue in order with the messages (nothing lost), the queue is capped and its drops are
// counted and told once per flood, and whatever waits when QEMU goes away, or arrives while
// none is connected, is counted and logged.
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event-kernel/event_kernel.h"
#include "greybus/gb_message.h"
#include "greybus/svc_protocol.h"
#include "sim/bridge.h"
#include "sim/bridge_gblink.h"
#include "sim/lockstep.h"
#include "tests/unit/test_gblink_util.h"
#include "tests/unit/unit.h"

#define RING_SIZE (16u * 1024u) /* gblink's smallest: about 500 pings' answers fill it */
#define FILL_PINGS 600u         /* more answers than the ring holds: the rest must wait */
#define TIMEOUT_MS 30000        /* generous: the tests also run under valgrind */
#define GOT_MAX (SIM_BRIDGE_GBLINK_QUEUE_MAX + 2048u)
#define WARNINGS_MAX 32

/* A record the client (QEMU) read: a message's operation id, or a result's request id. */
typedef struct got {
    uint16_t type;
    uint16_t cport;
    uint32_t id;       /* results: the request id; messages: the Greybus operation id */
    uint8_t status;    /* results */
    uint16_t request;  /* results: the request type answered */
} got;

typedef struct world {
    sim_event_kernel *k;
    sw_fabric *fabric;
    gb_svc *svc;
    sim_bridge *b;
    sim_bridge_gblink *g;
    char path[108];
    tep qemu;
    got got[GOT_MAX];
    size_t ngot;
    char warnings[WARNINGS_MAX][320]; /* the bridge's warnings and errors, in order */
    unsigned nwarnings;
} world;

static void record_log(void *ctx, sw_log_level level, sim_time now, const char *line)
{
    (void)now;
    world *w = ctx;
    if (level > SW_LOG_WARN || strncmp(line, "bridge:", 7) != 0)
        return;
    if (w->nwarnings < WARNINGS_MAX)
        snprintf(w->warnings[w->nwarnings], sizeof w->warnings[0], "%s", line);
    w->nwarnings++;
}

static void record_got(tep *e, const gbl_record *rec)
{
    world *w = e->user;
    if (w->ngot == GOT_MAX)
        return;
    got *g = &w->got[w->ngot++];
    *g = (got){ .type = rec->type, .cport = rec->cport, .id = rec->id };
    if (rec->type == GBL_T_GB_MESSAGE && rec->len >= GB_MSG_HEADER_SIZE) {
        gb_msg_header h;
        if (gb_msg_header_decode(rec->payload, rec->len, &h) == 0)
            g->id = h.operation_id;
    } else if (rec->type == GBL_T_RESULT && rec->len >= sizeof(gbl_result)) {
        gbl_result r;
        memcpy(&r, rec->payload, sizeof r);
        g->status = r.status;
        g->request = r.request_type;
    }
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void pump_bridge(world *w)
{
    sim_bridge_gblink_process(w->g, sim_event_kernel_now(w->k), true);
}

/* Runs the bridge, and the client when `client_reads`, until done(w) or the timeout. */
static int run_until(world *w, bool client_reads, int (*done)(world *w))
{
    long end = now_ms() + TIMEOUT_MS;
    for (;;) {
        pump_bridge(w);
        if (client_reads)
            gbl_process(w->qemu.l);
        if (done(w))
            return 1;
        if (now_ms() > end)
            return 0;
        struct pollfd p[2] = { { .fd = sim_bridge_gblink_fd(w->g), .events = POLLIN },
                               { .fd = gbl_fd(w->qemu.l), .events = POLLIN } };
        poll(p, client_reads ? 2 : 1, 5);
    }
}

static int both_up(world *w)
{
    return sim_bridge_gblink_up(w->g) && gbl_state(w->qemu.l) == GBL_STATE_UP;
}

static int bridge_down(world *w)
{
    return !sim_bridge_gblink_up(w->g);
}

/* A client like QEMU's greybus-es2, connected to the bridge; it reads only when asked. */
static void qemu_connect(world *w)
{
    char err[256] = "";
    gbl_config cfg = { .name = "test qemu" };
    memset(&w->qemu, 0, sizeof w->qemu);
    w->qemu.on_record = record_got;
    w->qemu.user = w;
    w->qemu.l = gbl_client_new(w->path, &cfg, &tep_callbacks, &w->qemu, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->qemu.l);
    CU_ASSERT_EQUAL_FATAL(gbl_connect(w->qemu.l), 0);
    CU_ASSERT_FATAL(run_until(w, true, both_up));
    CU_ASSERT_EQUAL(gbl_ring_size(w->qemu.l), RING_SIZE);
}

static world *world_new(void)
{
    world *w = calloc(1, sizeof *w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    char err[256] = "";
    w->k = sim_event_kernel_new(0);
    sw_fabric_cfg fc = { .ports = 5, .ap_port = 1, .log = record_log, .log_ctx = w };
    w->fabric = sw_fabric_new(sim_event_kernel_scheduler(w->k), &fc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->fabric);
    gb_svc_config sc = { .num_slots = 2 };
    gb_svc_env env = { .log = record_log, .ctx = w };
    w->svc = gb_svc_new(&sc, &env, w->fabric, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->svc);
    w->b = sim_bridge_new(sim_event_kernel_scheduler(w->k), w->fabric, w->svc, 44, record_log,
                          w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->b);
    tep_path(w->path, sizeof w->path);
    w->g = sim_bridge_gblink_new_ring(w->b, w->path, NULL, RING_SIZE, record_log, w, err,
                                      sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->g);
    return w;
}

static void world_free(world *w)
{
    gbl_free(w->qemu.l);
    sim_bridge_gblink_free(w->g);
    sim_bridge_free(w->b);
    gb_svc_free(w->svc);
    sw_fabric_free(w->fabric);
    sim_event_kernel_free(w->k);
    free(w);
}

/* Sends a record as QEMU does; while the ring towards the bridge is full, the bridge runs
 * (the client never reads here). */
static void qemu_send(world *w, uint16_t type, uint16_t cport, uint32_t id, const void *payload,
                      uint32_t len)
{
    long end = now_ms() + TIMEOUT_MS;
    int rc;
    while ((rc = gbl_send_msg(w->qemu.l, type, cport, id, 0, payload, len)) == -EAGAIN &&
           now_ms() < end)
        pump_bridge(w);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* The guest pings the SVC: one answer for the AP each. Operation ids from `first`. */
static void qemu_pings(world *w, uint16_t first, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t msg[GB_MSG_HEADER_SIZE];
        size_t len = gb_msg_build(msg, sizeof msg, (uint16_t)(first + i), GB_SVC_TYPE_PING, 0,
                                  NULL, 0);
        qemu_send(w, GBL_T_GB_MESSAGE, 0, 0, msg, (uint32_t)len);
    }
    pump_bridge(w); /* the last ones too */
}

static size_t want_got;

static int got_all(world *w)
{
    return w->ngot >= want_got;
}

/* The client reads until it has `n` records in all. */
static void qemu_reads(world *w, size_t n)
{
    want_got = n;
    CU_ASSERT_FATAL(run_until(w, true, got_all));
    run_until(w, true, got_all); /* one more pass: anything beyond n would show */
}

static bool warned(const world *w, const char *text)
{
    for (unsigned i = 0; i < w->nwarnings && i < WARNINGS_MAX; i++)
        if (strstr(w->warnings[i], text))
            return true;
    return false;
}

/* Record i read by the client is the answer to ping `op` (on hd CPort 0). */
static void expect_ping_answer(const world *w, size_t i, uint16_t op)
{
    CU_ASSERT_EQUAL(w->got[i].type, GBL_T_GB_MESSAGE);
    CU_ASSERT_EQUAL(w->got[i].cport, 0);
    CU_ASSERT_EQUAL(w->got[i].id, op);
}

static void expect_result(const world *w, size_t i, uint32_t id, uint16_t request, uint16_t cport)
{
    CU_ASSERT_EQUAL(w->got[i].type, GBL_T_RESULT);
    CU_ASSERT_EQUAL(w->got[i].id, id);
    CU_ASSERT_EQUAL(w->got[i].request, request);
    CU_ASSERT_EQUAL(w->got[i].cport, cport);
    CU_ASSERT_EQUAL(w->got[i].status, GBL_STATUS_OK);
}

/* ---- tests ---- */

/* QEMU's control requests answered while the ring is full wait behind the messages queued
 * before them and ahead of those after; once QEMU reads, all arrive in that order. */
static void test_answers_wait_for_a_full_ring_in_order(void)
{
    world *w = world_new();
    qemu_connect(w);
    CU_ASSERT_EQUAL_FATAL(w->ngot, 1); /* the bridge's hello */
    qemu_pings(w, 1, FILL_PINGS);
    sim_bridge_gblink_stats st = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_FATAL(st.waiting > 0); /* the ring is full: answers from here on must wait */

    qemu_send(w, GBL_T_LATENCY_TAG_ENABLE, 3, 7001, NULL, 0);
    qemu_pings(w, FILL_PINGS + 1, 5);
    gbl_cport_flags flags = { .flags = 0x1 };
    qemu_send(w, GBL_T_CPORT_FLAGS, 5, 7002, &flags, sizeof flags);
    pump_bridge(w);
    st = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_EQUAL(st.waiting, st.queued);
    CU_ASSERT(st.waiting >= 8); /* both answers and the five pings' answers among them */

    size_t total = 1 + FILL_PINGS + 5 + 2;
    qemu_reads(w, total);
    CU_ASSERT_EQUAL_FATAL(w->ngot, total);
    for (unsigned i = 0; i < FILL_PINGS; i++)
        expect_ping_answer(w, 1 + i, (uint16_t)(1 + i));
    expect_result(w, 1 + FILL_PINGS, 7001, GBL_T_LATENCY_TAG_ENABLE, 3);
    for (unsigned i = 0; i < 5; i++)
        expect_ping_answer(w, 2 + FILL_PINGS + i, (uint16_t)(FILL_PINGS + 1 + i));
    expect_result(w, total - 1, 7002, GBL_T_CPORT_FLAGS, 5);

    st = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_EQUAL(st.waiting, 0);
    CU_ASSERT_EQUAL(st.messages_dropped + st.results_dropped + st.discarded + st.send_failed, 0);
    CU_ASSERT_EQUAL(w->nwarnings, 0);
    world_free(w);
}

/* QEMU stopped reading: the queue keeps SIM_BRIDGE_GBLINK_QUEUE_MAX messages, drops the
 * rest with a count and one warning, still keeps an answer (the reserve), and sums the
 * flood up in one more line once QEMU has read everything. */
static void test_the_queue_is_capped_and_its_drops_counted(void)
{
    world *w = world_new();
    qemu_connect(w);
    unsigned pings = FILL_PINGS + SIM_BRIDGE_GBLINK_QUEUE_MAX;
    qemu_pings(w, 1, pings);
    sim_bridge_gblink_stats st = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_EQUAL(st.waiting, SIM_BRIDGE_GBLINK_QUEUE_MAX);
    CU_ASSERT_EQUAL(st.queue_peak, SIM_BRIDGE_GBLINK_QUEUE_MAX);
    CU_ASSERT_FATAL(st.messages_dropped > 0);
    CU_ASSERT_EQUAL(w->nwarnings, 1);
    CU_ASSERT(warned(w, "records already wait for room in the ring"));

    /* an answer still finds a place; one more message does not, and is told no more */
    qemu_send(w, GBL_T_LATENCY_TAG_ENABLE, 3, 9001, NULL, 0);
    qemu_pings(w, (uint16_t)(pings + 1), 1);
    sim_bridge_gblink_stats after = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_EQUAL(after.waiting, SIM_BRIDGE_GBLINK_QUEUE_MAX + 1);
    CU_ASSERT_EQUAL(after.results_dropped, 0);
    CU_ASSERT_EQUAL(after.messages_dropped, st.messages_dropped + 1);
    CU_ASSERT_EQUAL(w->nwarnings, 1);

    /* QEMU reads again: the oldest answers arrive, in order, then the answer; the newest
     * were dropped, as many as counted */
    size_t delivered = pings + 1 - after.messages_dropped;
    qemu_reads(w, 1 + delivered + 1);
    CU_ASSERT_EQUAL_FATAL(w->ngot, 1 + delivered + 1);
    for (size_t i = 0; i < delivered; i++)
        expect_ping_answer(w, 1 + i, (uint16_t)(1 + i));
    expect_result(w, 1 + delivered, 9001, GBL_T_LATENCY_TAG_ENABLE, 3);

    char summary[96];
    snprintf(summary, sizeof summary, "bridge: %llu records for QEMU dropped while its queue "
             "was full", (unsigned long long)after.messages_dropped);
    CU_ASSERT_EQUAL(w->nwarnings, 2);
    CU_ASSERT(warned(w, summary));
    CU_ASSERT_EQUAL(sim_bridge_gblink_get_stats(w->g).waiting, 0);
    world_free(w);
}

/* QEMU goes away with records waiting: they are counted as discarded and told. */
static void test_records_waiting_at_a_disconnect_are_counted(void)
{
    world *w = world_new();
    qemu_connect(w);
    qemu_pings(w, 1, FILL_PINGS);
    qemu_send(w, GBL_T_CPORT_CONNECTED, 4, 77, NULL, 0);
    pump_bridge(w);
    sim_bridge_gblink_stats st = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_FATAL(st.waiting > 1);

    gbl_free(w->qemu.l); /* QEMU dies */
    w->qemu.l = NULL;
    long end = now_ms() + TIMEOUT_MS;
    while (!bridge_down(w) && now_ms() < end)
        pump_bridge(w);
    CU_ASSERT_FATAL(bridge_down(w));

    sim_bridge_gblink_stats after = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_EQUAL(after.discarded, st.waiting);
    CU_ASSERT_EQUAL(after.waiting, 0);
    char text[160];
    snprintf(text, sizeof text, "bridge: %llu records for QEMU discarded unsent (messages for "
             "the AP: %llu, answers to its requests: 1)", (unsigned long long)st.waiting,
             (unsigned long long)st.waiting - 1);
    CU_ASSERT(warned(w, text));
    CU_ASSERT_EQUAL(w->nwarnings, 1);
    world_free(w);
}

/* Messages for the AP while no QEMU is connected: counted, one warning for the first, and
 * one line with their number when QEMU connects. */
static void test_messages_without_qemu_are_counted(void)
{
    world *w = world_new();
    uint8_t ping[GB_MSG_HEADER_SIZE];
    gb_msg_build(ping, sizeof ping, 1, GB_SVC_TYPE_PING, 0, NULL, 0);
    for (int i = 0; i < 3; i++)
        sim_bridge_from_ap(w->b, 0, ping, sizeof ping, sim_event_kernel_now(w->k));
    CU_ASSERT_EQUAL(sim_bridge_gblink_get_stats(w->g).no_peer, 3);
    CU_ASSERT_EQUAL(w->nwarnings, 1);
    CU_ASSERT(warned(w, "bridge: no QEMU connected, 8-byte message for hd CPort 0 dropped"));

    qemu_connect(w);
    CU_ASSERT_EQUAL(w->nwarnings, 2);
    CU_ASSERT(warned(w, "bridge: 3 messages for the AP dropped while no QEMU was connected"));
    world_free(w);
}

/* The bridge closes (the simulator stops) with records waiting: counted and told. */
static void test_records_waiting_when_the_bridge_closes_are_told(void)
{
    world *w = world_new();
    qemu_connect(w);
    qemu_pings(w, 1, FILL_PINGS);
    sim_bridge_gblink_stats st = sim_bridge_gblink_get_stats(w->g);
    CU_ASSERT_FATAL(st.waiting > 0);
    sim_bridge_gblink_free(w->g);
    w->g = NULL;
    char text[160];
    snprintf(text, sizeof text, "bridge: %llu records for QEMU discarded unsent (messages for "
             "the AP: %llu, answers to its requests: 0): the bridge closes",
             (unsigned long long)st.waiting, (unsigned long long)st.waiting);
    CU_ASSERT(warned(w, text));
    CU_ASSERT_EQUAL(w->nwarnings, 1);
    world_free(w);
}

/* ---- lockstep: the peer's times are checked before the clock follows them ---- */

typedef struct clock_follower {
    sim_time to;        /* where advance was last asked to go */
    unsigned advances;
} clock_follower;

static sim_time follow(void *ctx, sim_time to)
{
    clock_follower *c = ctx;
    c->to = to;
    c->advances++;
    return to;
}

/* A lockstep bridge (no grant sent: the peer is parked at 0) and a client that offers
 * lockstep; the client sends one message stamped `stamp_ns`. */
static void lockstep_stamp(uint64_t stamp_ns, bool refused)
{
    world *w = world_new();
    char err[256] = "";
    clock_follower c = { 0 };
    sim_lockstep_cfg lc = { .quantum_ns = SIM_LOCKSTEP_QUANTUM_NS,
                            .quantum_max_ns = SIM_LOCKSTEP_QUANTUM_MAX_NS };
    sim_lockstep *ls = sim_lockstep_new(&lc);
    sim_bridge_gblink_lockstep lk = { .ls = ls, .advance = follow, .ctx = &c };
    sim_bridge_gblink_free(w->g);
    w->g = sim_bridge_gblink_new_ring(w->b, w->path, &lk, RING_SIZE, record_log, w, err,
                                      sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->g);
    gbl_config cfg = { .name = "test qemu", .features = GBL_FEATURE_LOCKSTEP };
    memset(&w->qemu, 0, sizeof w->qemu);
    w->qemu.l = gbl_client_new(w->path, &cfg, &tep_callbacks, &w->qemu, err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(gbl_connect(w->qemu.l), 0);
    CU_ASSERT_FATAL(run_until(w, true, both_up));
    uint8_t msg[GB_MSG_HEADER_SIZE];
    size_t len = gb_msg_build(msg, sizeof msg, 1, GB_SVC_TYPE_PING, 0, NULL, 0);
    CU_ASSERT_EQUAL(gbl_send_msg(w->qemu.l, GBL_T_GB_MESSAGE, 0, 0, stamp_ns, msg,
                                 (uint32_t)len), 0);
    if (refused) {
        CU_ASSERT(run_until(w, true, bridge_down));
        CU_ASSERT_EQUAL(c.advances, 0); /* the clock never went there */
        char text[160];
        snprintf(text, sizeof text, "QEMU stamped a record at %llu ns, past the 0 ns it was "
                 "granted", (unsigned long long)stamp_ns);
        CU_ASSERT(warned(w, text));
    } else {
        for (int i = 0; i < 20; i++)
            pump_bridge(w);
        CU_ASSERT(sim_bridge_gblink_up(w->g));
        CU_ASSERT_EQUAL(c.to, (sim_time)stamp_ns * 1000u);
    }
    world_free(w);
    sim_lockstep_free(ls);
}

static void test_lockstep_stamps_past_the_grant_are_refused(void)
{
    lockstep_stamp(1000, false);          /* a rounding past the grant: followed */
    lockstep_stamp(5000000000ull, true);  /* 5 s past a grant of 0 */
    lockstep_stamp(UINT64_MAX / 2, true); /* would overflow the clock's picoseconds */
}

static const unit_test bridge_gblink_tests[] = {
    UNIT_TEST(test_lockstep_stamps_past_the_grant_are_refused),
    UNIT_TEST(test_answers_wait_for_a_full_ring_in_order),
    UNIT_TEST(test_the_queue_is_capped_and_its_drops_counted),
    UNIT_TEST(test_records_waiting_at_a_disconnect_are_counted),
    UNIT_TEST(test_messages_without_qemu_are_counted),
    UNIT_TEST(test_records_waiting_when_the_bridge_closes_are_told),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "bridge_gblink", bridge_gblink_tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
