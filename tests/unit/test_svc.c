// SPDX-License-Identifier: MIT
// The SVC on its own switch fabric: the handshake, every request the 6.1 AP sends with the
// response sizes it checks, hot-plug events, error answers, how the SVC programs the fabric
// (DeviceIDs, routes, connections, reachability, link power modes), and the data path that
// follows what it programmed. The AP is played by hand: a recording endpoint on the
// fabric's AP port collects what reaches its hd CPorts, and the AP's messages are parsed
// and sent into the fabric from that port, as the AP bridge does. The module interfaces are
// a small recording double (stub_intf) whose type and DME answers each test chooses; it is
// also the fabric's endpoint on the interface's port, so data reaches it.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "greybus/gb_message.h"
#include "greybus/svc_protocol.h"
#include "switch-model/svc.h"
#include "tests/unit/unit.h"

#define AP_PORT 1u /* the AP bridge's switch port, which is also its interface id */

/* ---- a recording interface double ---- */

typedef struct stub_intf {
    uint8_t type;
    uint32_t init_status;
    unsigned power_events[16];
    unsigned connects, disconnects, received;
    bool connected[8];
    uint16_t last_cport;
    sw_fabric *fabric;
    uint8_t intf_id; /* also its switch port */
    bool echo;       /* answer every request received with an empty success */
} stub_intf;

static uint8_t stub_type(void *self)
{
    return ((stub_intf *)self)->type;
}

static uint16_t stub_dme_get(void *self, uint16_t attr, uint16_t sel, uint32_t *value)
{
    stub_intf *s = self;
    (void)sel;
    switch (attr) {
    case 0x5003:
        *value = 0x126;
        return 0;
    case 0x5004:
        *value = 0x1002;
        return 0;
    case 0x6101:
        *value = s->init_status;
        return 0;
    }
    return 1; /* invalid attribute */
}

static uint16_t stub_dme_set(void *self, uint16_t attr, uint16_t sel, uint32_t value)
{
    stub_intf *s = self;
    (void)sel;
    if (attr == 0x6101) {
        s->init_status = value;
        return 0;
    }
    return attr == 0x3000 || attr == 0x3001 ? 0 : 1;
}

static void stub_power(void *self, gb_svc_power_event ev, sim_time now)
{
    (void)now;
    stub_intf *s = self;
    s->power_events[ev]++;
    if (ev == GB_SVC_PWR_ACTIVATE)
        s->init_status = 0x04000000u;
}

static int stub_connect(void *self, uint16_t cport, uint8_t dev, uint16_t peer, uint8_t tc,
                        uint8_t flags, sim_time now)
{
    (void)dev, (void)peer, (void)tc, (void)flags, (void)now;
    stub_intf *s = self;
    if (cport >= 8)
        return -ENOENT;
    if (s->connected[cport])
        return -EBUSY;
    s->connected[cport] = true;
    s->connects++;
    return 0;
}

static void stub_disconnect(void *self, uint16_t cport, sim_time now)
{
    (void)now;
    stub_intf *s = self;
    if (cport < 8)
        s->connected[cport] = false;
    s->disconnects++;
}

static const gb_svc_intf_ops stub_ops = {
    .intf_type = stub_type,
    .dme_get = stub_dme_get,
    .dme_set = stub_dme_set,
    .power = stub_power,
    .cport_connect = stub_connect,
    .cport_disconnect = stub_disconnect,
};

/* The stub as the fabric's endpoint on its port: data for one of its CPorts. An echoing
 * stub answers a request with an id the way a module would, back into the fabric on the
 * same CPort (direct delivery: the answer reaches the AP inside this call). */
static void stub_receive(void *ctx, uint16_t cport, const gb_msg *m, sim_time now)
{
    (void)now;
    stub_intf *s = ctx;
    s->received++;
    s->last_cport = cport;
    if (s->echo && !gb_msg_is_response(m->h.type) && m->h.operation_id) {
        uint8_t r[GB_MSG_HEADER_SIZE];
        gb_msg resp;
        size_t n = gb_msg_build_response(r, sizeof r, &m->h, GB_OP_SUCCESS, NULL, 0);
        CU_ASSERT_FATAL(n == sizeof r && gb_msg_parse(r, n, &resp) == 0);
        sw_fabric_send(s->fabric, s->intf_id, cport, &resp);
    }
}

/* ---- the world: an event kernel, the fabric, the SVC and a hand-driven AP ---- */

#define MAX_OUT 64

typedef struct out_msg {
    uint16_t cport;
    size_t len;
    uint8_t data[GB_MSG_MAX_SIZE];
} out_msg;

typedef struct world {
    sim_event_kernel *k; /* the fabric's time, and what moves messages in a timed fabric */
    sw_fabric *fabric;
    gb_svc *svc;
    out_msg out[MAX_OUT]; /* what reached the AP's hd CPorts, oldest first */
    size_t nout;
    uint16_t next_id;
    unsigned warnings; /* WARN lines the fabric and the SVC logged */
    char last_warning[256];
} world;

static world W;

/* The AP bridge's endpoint: a message for one of its hd CPorts. */
static void ap_receive(void *ctx, uint16_t cport, const gb_msg *m, sim_time now)
{
    (void)now;
    world *w = ctx;
    CU_ASSERT_FATAL(w->nout < MAX_OUT);
    CU_ASSERT(m->h.size >= GB_MSG_HEADER_SIZE && m->h.size <= GB_MSG_MAX_SIZE);
    CU_ASSERT_EQUAL(gb_get_le16(m->bytes), m->h.size); /* the header travels with its bytes */
    w->out[w->nout].cport = cport;
    w->out[w->nout].len = m->h.size;
    memcpy(w->out[w->nout].data, m->bytes, m->h.size);
    w->nout++;
}

/* The fabric's and the SVC's log: warnings are kept for the tests (a dropped message is
 * logged); SVC_TEST_LOG=1 prints every line, to see why a test failed. */
static void log_sink(void *ctx, sw_log_level level, sim_time now, const char *line)
{
    (void)now;
    world *w = ctx;
    if (getenv("SVC_TEST_LOG"))
        fprintf(stderr, "[%s] %s\n", sw_log_level_name(level), line);
    if (level == SW_LOG_WARN) {
        w->warnings++;
        strncpy(w->last_warning, line, sizeof w->last_warning - 1);
    }
}

/* A world of `slots` slots whose fabric delivers with `timing`: ports 0..slots + 1 (the AP
 * bridge on port 1, slot s on 2 + s), the SVC on the last. */
static void world_init_timed(unsigned slots, sw_timing timing)
{
    memset(&W, 0, sizeof W);
    W.next_id = 1;
    W.k = sim_event_kernel_new(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(W.k);
    char err[128];
    sw_fabric_cfg fc = { .ports = slots + 3u, .ap_port = AP_PORT, .timing = timing,
                         .log = log_sink, .log_ctx = &W };
    W.fabric = sw_fabric_new(sim_event_kernel_scheduler(W.k), &fc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(W.fabric);
    sw_endpoint ap = { .receive = ap_receive, .ctx = &W };
    CU_ASSERT_EQUAL_FATAL(sw_fabric_attach(W.fabric, AP_PORT, &ap), 0);
    gb_svc_config c = { .num_slots = slots };
    gb_svc_env env = { .log = log_sink, .ctx = &W };
    W.svc = gb_svc_new(&c, &env, W.fabric, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(W.svc);
}

static void world_init(unsigned slots)
{
    world_init_timed(slots, SW_TIMING_DIRECT);
}

static void world_fini(void)
{
    gb_svc_free(W.svc);
    sw_fabric_free(W.fabric); /* before the kernel: its pending events refer to it */
    sim_event_kernel_free(W.k);
    memset(&W, 0, sizeof W);
}

/* The simulated time now, after letting it run to `t` (never backwards): the SVC takes
 * its time from the calls the owner makes and from the fabric's deliveries alike, so the
 * two must agree. */
static sim_time at(sim_time t)
{
    if (t > sim_event_kernel_now(W.k))
        CU_ASSERT_EQUAL(sim_event_kernel_run_until(W.k, t), 0);
    return sim_event_kernel_now(W.k);
}

/* Lets a timed fabric deliver everything it carries (a direct one carries nothing). */
static void settle(void)
{
    for (unsigned i = 0; i < 10000000u && sw_fabric_in_flight(W.fabric); i++)
        if (sim_event_kernel_step(W.k) != 1)
            break;
    CU_ASSERT_EQUAL(sw_fabric_in_flight(W.fabric), 0);
}

/* The AP sends msg[0..len) on hd CPort `cport`: parsed once, as the bridge does, then into
 * the fabric. Returns the fabric's verdict. */
static sw_verdict ap_send(uint16_t cport, const uint8_t *msg, size_t len)
{
    gb_msg m;
    CU_ASSERT_EQUAL_FATAL(gb_msg_parse(msg, len, &m), 0);
    return sw_fabric_send(W.fabric, AP_PORT, cport, &m);
}

/* Takes the oldest message the AP received. */
static out_msg pop(void)
{
    out_msg m;
    memset(&m, 0, sizeof m);
    settle();
    CU_ASSERT_FATAL(W.nout > 0);
    m = W.out[0];
    memmove(&W.out[0], &W.out[1], (W.nout - 1) * sizeof W.out[0]);
    W.nout--;
    return m;
}

/* The AP answers the SVC's pending request (the oldest message, which must be a request
 * on hd CPort 0). */
static uint8_t answer(uint8_t result)
{
    out_msg m = pop();
    CU_ASSERT_EQUAL(m.cport, 0);
    CU_ASSERT_FALSE(m.data[4] & 0x80);
    uint8_t r[10];
    size_t n = 8;
    r[0] = 8;
    r[1] = 0;
    r[2] = m.data[2];
    r[3] = m.data[3];
    r[4] = (uint8_t)(m.data[4] | 0x80);
    r[5] = result;
    r[6] = r[7] = 0;
    if (m.data[4] == GB_SVC_TYPE_PROTOCOL_VERSION && !result) {
        r[8] = m.data[8];
        r[9] = m.data[9];
        r[0] = 10;
        n = 10;
    }
    CU_ASSERT_EQUAL(ap_send(0, r, n), SW_VERDICT_OK);
    settle();
    return m.data[4];
}

static void handshake(void)
{
    gb_svc_start(W.svc, at(0));
    CU_ASSERT_EQUAL(answer(0), GB_SVC_TYPE_PROTOCOL_VERSION);
    CU_ASSERT_EQUAL(answer(0), GB_SVC_TYPE_SVC_HELLO);
    CU_ASSERT_TRUE(gb_svc_handshake_done(W.svc));
}

/* Sends an AP request on hd CPort 0 and returns the response (result in *result, payload
 * copied). */
static size_t request(uint8_t type, const void *payload, size_t plen, uint8_t *result,
                      uint8_t *resp, size_t cap)
{
    uint8_t buf[GB_MSG_MAX_SIZE];
    uint16_t id = ++W.next_id;
    size_t n = gb_msg_build(buf, sizeof buf, id, type, 0, payload, plen);
    settle(); /* what the SVC sent before (a hot-plug event) is not the response */
    size_t before = W.nout;
    CU_ASSERT_EQUAL(ap_send(0, buf, n), SW_VERDICT_OK);
    settle();
    CU_ASSERT_FATAL(W.nout == before + 1);
    out_msg m = W.out[W.nout - 1];
    W.nout--;
    CU_ASSERT_EQUAL(m.cport, 0);
    CU_ASSERT_EQUAL(m.data[4], type | 0x80);
    CU_ASSERT_EQUAL(gb_get_le16(m.data + 2), id);
    *result = m.data[5];
    size_t pl = m.len - 8;
    if (resp && pl <= cap)
        memcpy(resp, m.data + 8, pl);
    return pl;
}

static uint8_t ok_u8(uint8_t type, uint8_t intf)
{
    uint8_t result, r[4] = { 0xee };
    size_t n = request(type, &intf, 1, &result, r, sizeof r);
    CU_ASSERT_EQUAL(result, GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 1);
    return r[0];
}

/* A one-interface module of `type` into `slot`, plugged into the fabric on its port the
 * way the simulator's slots plug a module in (the SVC decides when it is reachable). */
static stub_intf *insert_stub(stub_intf *s, unsigned slot, uint8_t type)
{
    memset(s, 0, sizeof *s);
    s->type = type;
    s->fabric = W.fabric;
    s->intf_id = gb_svc_slot_intf_id(W.svc, slot);
    sw_endpoint ep = { .receive = stub_receive, .ctx = s };
    CU_ASSERT_EQUAL(sw_fabric_attach(W.fabric, s->intf_id, &ep), 0);
    void *self = s;
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, slot, 1, "stub", &stub_ops, &self, at(SIM_MS(1))), 0);
    return s;
}

/* Power, activate, device id `dev` and route to the AP for interface `id`. */
static void activate(uint8_t id, uint8_t dev)
{
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_VSYS_ENABLE, id), 0);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_REFCLK_ENABLE, id), 0);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_UNIPRO_ENABLE, id), 0);
    uint8_t result, r[2];
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2), 2);
    CU_ASSERT_EQUAL(r[0], 0);
    uint8_t d[2] = { id, dev };
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_DEVICE_ID, d, 2, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, 0);
    uint8_t rc[4] = { 1, 1, id, dev };
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_ROUTE_CREATE, rc, 4, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, 0);
}

static uint8_t conn_create(uint16_t hd, uint8_t intf, uint16_t cport)
{
    uint8_t p[8] = { 1, 0, 0, intf, 0, 0, 0, 0x07 };
    gb_put_le16(p + 1, hd);
    gb_put_le16(p + 4, cport);
    uint8_t result;
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_CONN_CREATE, p, 8, &result, NULL, 0), 0);
    return result;
}

static const sw_conn_table *conns(void)
{
    return sw_fabric_connections(gb_svc_fabric(W.svc));
}

static sw_route_table *routes(void)
{
    return sw_fabric_routes(gb_svc_fabric(W.svc));
}

/* ---- tests ---- */

/* A bare endpoint that only counts what reaches it. */
static void count_receive(void *ctx, uint16_t cport, const gb_msg *m, sim_time now)
{
    (void)cport, (void)m, (void)now;
    (*(unsigned *)ctx)++;
}

static void test_svc_new_rejects_configurations_that_do_not_fit_the_fabric(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    char err[128] = "";
    /* room for 4 slots: the AP bridge on port 1, slots on 2..5, the SVC on 6 */
    sw_fabric_cfg fc = { .ports = 7, .ap_port = AP_PORT };
    sw_fabric *f = sw_fabric_new(sim_event_kernel_scheduler(k), &fc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    unsigned got = 0;
    sw_endpoint ap = { .receive = count_receive, .ctx = &got };
    CU_ASSERT_EQUAL(sw_fabric_attach(f, AP_PORT, &ap), 0);
    gb_svc_env env = { 0 };
    gb_svc_config c = { .num_slots = 0 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, f, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "slots"));
    c.num_slots = GB_SVC_SLOTS_MAX + 1;
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, f, err, sizeof err));
    /* the AP's interface id is the port its bridge is plugged into */
    c = (gb_svc_config){ .num_slots = 4, .ap_intf_id = 3 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, f, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "AP bridge port"));
    c = (gb_svc_config){ .num_slots = 4, .ap_cport_count = 300 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, f, err, sizeof err));
    /* a fifth slot would be interface 6, the SVC's own port */
    c = (gb_svc_config){ .num_slots = 5 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, f, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "port count"));
    /* a refused SVC left nothing on the fabric: the AP's SVC connection leads nowhere */
    uint8_t ping[8];
    gb_msg m;
    CU_ASSERT_EQUAL(gb_msg_parse(ping, gb_msg_build(ping, sizeof ping, 1, GB_SVC_TYPE_PING, 0,
                                                    NULL, 0), &m), 0);
    CU_ASSERT_EQUAL(sw_fabric_send(f, AP_PORT, 0, &m), SW_VERDICT_PEER_GONE);
    /* an accepted one is the endpoint on the last port and answers on hd CPort 0 */
    c = (gb_svc_config){ .num_slots = 4 };
    gb_svc *svc = gb_svc_new(&c, &env, f, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(svc);
    CU_ASSERT_PTR_EQUAL(gb_svc_fabric(svc), f);
    CU_ASSERT_EQUAL(gb_svc_ap_intf_id(svc), AP_PORT);
    CU_ASSERT_EQUAL(sw_fabric_device_id(f, AP_PORT), GB_SVC_DEVICE_ID_AP);
    CU_ASSERT_EQUAL(sw_fabric_send(f, AP_PORT, 0, &m), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(got, 1);
    CU_ASSERT_EQUAL(gb_svc_get_stats(svc).pings, 1);
    gb_svc_free(svc); /* and unplugs itself */
    CU_ASSERT_EQUAL(sw_fabric_send(f, AP_PORT, 0, &m), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(got, 1);
    sw_fabric_free(f);
    /* the AP's interface id may not fall among the slots' */
    fc.ap_port = 3;
    f = sw_fabric_new(sim_event_kernel_scheduler(k), &fc, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    c = (gb_svc_config){ .num_slots = 3, .ap_intf_id = 3, .first_intf_id = 2 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, f, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ap_intf_id"));
    sw_fabric_free(f);
    sim_event_kernel_free(k);
}

static void test_svc_handshake_sends_version_then_hello(void)
{
    world_init(4);
    gb_svc_start(W.svc, at(0));
    CU_ASSERT_EQUAL(W.nout, 1);
    out_msg v = W.out[0];
    CU_ASSERT_EQUAL(v.cport, 0);
    CU_ASSERT_EQUAL(v.len, 10);
    CU_ASSERT_EQUAL(v.data[4], GB_SVC_TYPE_PROTOCOL_VERSION);
    CU_ASSERT_EQUAL(v.data[8], 0);
    CU_ASSERT_EQUAL(v.data[9], 1);
    CU_ASSERT_NOT_EQUAL(gb_get_le16(v.data + 2), 0);
    answer(0);
    CU_ASSERT_EQUAL(W.nout, 1);
    out_msg h = W.out[0];
    CU_ASSERT_EQUAL(h.data[4], GB_SVC_TYPE_SVC_HELLO);
    CU_ASSERT_EQUAL(h.len, 11);
    CU_ASSERT_EQUAL(gb_get_le16(h.data + 8), 0x4755);
    CU_ASSERT_EQUAL(h.data[10], 1);
    CU_ASSERT_FALSE(gb_svc_handshake_done(W.svc));
    /* the AP asks for power rails while its Hello handler runs: answered meanwhile */
    uint8_t result, r[1 + 8 * 32];
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_PWRMON_RAIL_COUNT_GET, NULL, 0, &result, r, 1), 1);
    uint8_t rails = r[0];
    CU_ASSERT_TRUE(rails >= 1 && rails <= 8);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_PWRMON_RAIL_NAMES_GET, NULL, 0, &result, r, sizeof r),
                    1u + rails * 32u);
    CU_ASSERT_EQUAL(r[0], 0);
    CU_ASSERT_STRING_EQUAL((char *)r + 1, "VSW_1P1_PLL");
    answer(0);
    CU_ASSERT_TRUE(gb_svc_handshake_done(W.svc));
    /* the SVC's connection is static: it crossed the fabric without CONN_CREATE or routes */
    CU_ASSERT_EQUAL(sw_conn_count(conns()), 0);
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(W.fabric, SW_DIR_SVC_TO_AP).delivered_msgs, 4);
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(W.fabric, SW_DIR_AP_TO_SVC).delivered_msgs, 4);
    world_fini();
}

static void test_svc_handshake_fails_when_ap_refuses_version(void)
{
    world_init(2);
    stub_intf s;
    insert_stub(&s, 0, GB_SVC_INTF_TYPE_GREYBUS);
    gb_svc_start(W.svc, at(0));
    answer(GB_OP_UNKNOWN_ERROR);
    CU_ASSERT_EQUAL(W.nout, 0); /* no hello, no hot-plug */
    CU_ASSERT_FALSE(gb_svc_handshake_done(W.svc));
    world_fini();
}

static void test_svc_unanswered_request_times_out_after_one_second(void)
{
    world_init(2);
    gb_svc_start(W.svc, at(SIM_MS(500)));
    pop();
    /* a tick behind the SVC's time (an owner's clock that lags a delivery) is no timeout */
    gb_svc_tick(W.svc, SIM_MS(100));
    CU_ASSERT_EQUAL(gb_svc_get_stats(W.svc).ap_timeouts, 0);
    gb_svc_tick(W.svc, at(SIM_MS(1499)));
    CU_ASSERT_EQUAL(gb_svc_get_stats(W.svc).ap_timeouts, 0);
    gb_svc_tick(W.svc, at(SIM_MS(1501)));
    CU_ASSERT_EQUAL(gb_svc_get_stats(W.svc).ap_timeouts, 1);
    CU_ASSERT_FALSE(gb_svc_handshake_done(W.svc));
    world_fini();
}

static void test_svc_module_inserted_waits_for_hello_response(void)
{
    world_init(4);
    stub_intf s;
    insert_stub(&s, 1, GB_SVC_INTF_TYPE_GREYBUS);
    CU_ASSERT_EQUAL(W.nout, 0);
    gb_svc_start(W.svc, at(0));
    answer(0);
    CU_ASSERT_EQUAL(W.nout, 1); /* hello only */
    answer(0);
    CU_ASSERT_EQUAL(W.nout, 1);
    out_msg m = W.out[0];
    CU_ASSERT_EQUAL(m.data[4], GB_SVC_TYPE_MODULE_INSERTED);
    CU_ASSERT_EQUAL(m.len, 12);
    CU_ASSERT_EQUAL(m.data[8], 3); /* slot 1 = interface 3 */
    CU_ASSERT_EQUAL(m.data[9], 1);
    CU_ASSERT_EQUAL(gb_get_le16(m.data + 10), 0);
    world_fini();
}

static void test_svc_hotplug_events_go_one_at_a_time_in_order(void)
{
    world_init(4);
    handshake();
    stub_intf a, b;
    insert_stub(&a, 0, GB_SVC_INTF_TYPE_GREYBUS);
    insert_stub(&b, 2, GB_SVC_INTF_TYPE_GREYBUS);
    CU_ASSERT_EQUAL(W.nout, 1);
    CU_ASSERT_EQUAL(gb_svc_pending_events(W.svc), 2);
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 0, at(SIM_MS(3))), 0);
    CU_ASSERT_EQUAL(W.out[0].data[8], 2);
    answer(0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_MODULE_INSERTED);
    CU_ASSERT_EQUAL(W.out[0].data[8], 4);
    answer(0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_MODULE_REMOVED);
    CU_ASSERT_EQUAL(W.out[0].len, 9);
    CU_ASSERT_EQUAL(W.out[0].data[8], 2);
    answer(0);
    CU_ASSERT_EQUAL(W.nout, 0);
    CU_ASSERT_EQUAL(gb_svc_pending_events(W.svc), 0);
    world_fini();
}

static void test_svc_insert_then_remove_before_announcement_is_silent(void)
{
    world_init(4);
    handshake();
    stub_intf a, b;
    insert_stub(&a, 0, GB_SVC_INTF_TYPE_GREYBUS); /* sent at once */
    insert_stub(&b, 1, GB_SVC_INTF_TYPE_GREYBUS); /* queued */
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 1, at(SIM_MS(3))), 0);
    answer(0);
    CU_ASSERT_EQUAL(W.nout, 0); /* slot 1 never announced, so never removed either */
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 1, at(SIM_MS(3))), -ENOENT);
    world_fini();
}

static void test_svc_slots_reject_overlap_and_out_of_frame_modules(void)
{
    world_init(3);
    stub_intf a, b;
    void *two[2] = { &a, &b };
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, 2, 2, "wide", &stub_ops, two, 0), -EINVAL);
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, 3, 1, "out", &stub_ops, two, 0), -EINVAL);
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, 0, 0, "none", &stub_ops, two, 0), -EINVAL);
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, 1, 2, "wide", &stub_ops, two, 0), 0);
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, 2, 1, "b", &stub_ops, two, 0), -EBUSY);
    void *got[4];
    CU_ASSERT_EQUAL(gb_svc_slot_interfaces(W.svc, 2, got, 4), 2);
    CU_ASSERT_PTR_EQUAL(got[1], &b);
    /* removing through the second slot removes the whole module */
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 2, 0), 0);
    gb_svc_intf_info info;
    CU_ASSERT_TRUE(gb_svc_get_intf(W.svc, 3, &info));
    CU_ASSERT_FALSE(info.present);
    world_fini();
}

static void test_svc_wide_module_announces_its_interface_count(void)
{
    world_init(4);
    handshake();
    stub_intf a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    void *two[2] = { &a, &b };
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, 1, 2, "dual", &stub_ops, two, at(0)), 0);
    CU_ASSERT_EQUAL(W.out[0].data[8], 3);
    CU_ASSERT_EQUAL(W.out[0].data[9], 2);
    world_fini();
}

/* The SVC also tells the fabric which interfaces can carry traffic: those it powered and
 * activated with a link (a dummy interface has none). */
static void test_svc_activation_classifies_interface_types(void)
{
    world_init(4);
    handshake();
    stub_intf g, d, u;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    insert_stub(&d, 1, GB_SVC_INTF_TYPE_DUMMY);
    insert_stub(&u, 2, GB_SVC_INTF_TYPE_UNIPRO);
    const uint8_t want[3] = { GB_SVC_INTF_TYPE_GREYBUS, GB_SVC_INTF_TYPE_DUMMY,
                              GB_SVC_INTF_TYPE_UNIPRO };
    const bool reachable[3] = { true, false, true };
    for (uint8_t i = 0; i < 3; i++) {
        uint8_t id = (uint8_t)(2 + i), result, r[2];
        ok_u8(GB_SVC_TYPE_INTF_VSYS_ENABLE, id);
        ok_u8(GB_SVC_TYPE_INTF_REFCLK_ENABLE, id);
        ok_u8(GB_SVC_TYPE_INTF_UNIPRO_ENABLE, id);
        CU_ASSERT_FALSE(sw_fabric_reachable(W.fabric, id)); /* powered, not yet activated */
        CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2), 2);
        CU_ASSERT_EQUAL(r[0], GB_SVC_OP_SUCCESS);
        CU_ASSERT_EQUAL(r[1], want[i]);
        CU_ASSERT_EQUAL(sw_fabric_reachable(W.fabric, id), reachable[i]);
    }
    CU_ASSERT_EQUAL(g.power_events[GB_SVC_PWR_ACTIVATE], 1); /* only Greybus boots */
    CU_ASSERT_EQUAL(d.power_events[GB_SVC_PWR_ACTIVATE], 0);
    gb_svc_intf_info info;
    gb_svc_get_intf(W.svc, 3, &info);
    CU_ASSERT_FALSE(info.active); /* a dummy interface has no link */
    /* losing power takes the interface off the fabric again */
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_UNIPRO_DISABLE, 2), 0);
    CU_ASSERT_FALSE(sw_fabric_reachable(W.fabric, 2));
    world_fini();
}

static void test_svc_activate_reports_missing_power_and_absent_modules(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    uint8_t result, r[2], id = 2;
    request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_INTF_NO_V_SYS);
    ok_u8(GB_SVC_TYPE_INTF_VSYS_ENABLE, id);
    request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_INTF_NO_REFCLK);
    ok_u8(GB_SVC_TYPE_INTF_REFCLK_ENABLE, id);
    request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_INTF_NO_UPRO_LINK);
    CU_ASSERT_FALSE(sw_fabric_reachable(W.fabric, 2)); /* a failed activation links nothing */
    id = 3; /* empty slot */
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2), 2);
    CU_ASSERT_EQUAL(result, GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(r[0], GB_SVC_INTF_NOT_DETECTED);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_VSYS_ENABLE, 3), GB_SVC_INTF_POWER_FAIL);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_VSYS_DISABLE, 3), GB_SVC_INTF_POWER_OK);
    id = 40; /* outside the frame */
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    world_fini();
}

static void test_svc_dme_responses_have_the_sizes_6_1_checks(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    uint8_t get[5] = { 2, 0x03, 0x50, 0, 0 }, result, r[8];
    /* before activation the link is down: peer communication failure */
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_DME_PEER_GET, get, 5, &result, r, sizeof r), 6);
    CU_ASSERT_EQUAL(gb_get_le16(r), 8);
    activate(2, 2);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_DME_PEER_GET, get, 5, &result, r, sizeof r), 6);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(gb_get_le16(r), 0);
    CU_ASSERT_EQUAL(gb_get_le32(r + 2), 0x126);
    uint8_t init[5] = { 2, 0x01, 0x61, 0, 0 };
    request(GB_SVC_TYPE_DME_PEER_GET, init, 5, &result, r, sizeof r);
    CU_ASSERT_EQUAL(gb_get_le32(r + 2), 0x04000000u); /* re-armed by ACTIVATE */
    uint8_t set[9] = { 2, 0x01, 0x61, 0, 0, 0, 0, 0, 0 };
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_DME_PEER_SET, set, 9, &result, r, sizeof r), 2);
    CU_ASSERT_EQUAL(gb_get_le16(r), 0);
    CU_ASSERT_EQUAL(g.init_status, 0);
    uint8_t bad[5] = { 2, 0x99, 0x77, 0, 0 };
    request(GB_SVC_TYPE_DME_PEER_GET, bad, 5, &result, r, sizeof r);
    CU_ASSERT_EQUAL(gb_get_le16(r), 1);
    CU_ASSERT_EQUAL(gb_get_le32(r + 2), 0);
    world_fini();
}

/* DEVICE_ID, ROUTE_CREATE and CONN_CREATE answer empty and program the fabric: the
 * interface's DeviceID, the routing table, the connection table. */
static void test_svc_empty_responses_for_ids_routes_and_connections(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    activate(2, 2); /* checks DEVICE_ID and ROUTE_CREATE answer empty */
    CU_ASSERT_EQUAL(sw_fabric_device_id(W.fabric, 2), 2);
    CU_ASSERT_EQUAL(sw_route_lookup(routes(), 2), 2);
    CU_ASSERT_EQUAL(sw_route_lookup(routes(), 1), 1);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), GB_OP_SUCCESS);
    CU_ASSERT_TRUE(g.connected[0]);
    CU_ASSERT_EQUAL(sw_conn_count(conns()), 1);
    CU_ASSERT_EQUAL(sw_conn_count_port(conns(), 2), 1);
    CU_ASSERT_EQUAL(sw_conn_count_port(conns(), 1), 1);
    CU_ASSERT_EQUAL(sw_conn_count_port(conns(), 3), 0);
    const sw_conn *c = sw_conn_at(conns(), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(c->port1 == 1 && c->cport1 == 1 && c->port2 == 2 && c->cport2 == 0);
    CU_ASSERT_EQUAL(c->flags, 0x07);
    uint8_t d[6] = { 1, 1, 0, 2, 0, 0 }, result;
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_CONN_DESTROY, d, 6, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_FALSE(g.connected[0]);
    CU_ASSERT_EQUAL(sw_conn_count_port(conns(), 2), 0);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_CONN_DESTROY, d, 6, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    uint8_t rd[2] = { 1, 2 };
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_ROUTE_DESTROY, rd, 2, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(sw_route_lookup(routes(), 2), -ENOENT);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_ROUTE_DESTROY, rd, 2, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    world_fini();
}

static void test_svc_conn_create_refuses_what_cannot_work(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), GB_OP_INVALID); /* not activated */
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(0, 2, 0), GB_OP_INVALID);  /* hd CPort 0 is the SVC */
    CU_ASSERT_EQUAL(conn_create(44, 2, 0), GB_OP_INVALID); /* beyond CPORT_COUNT */
    CU_ASSERT_EQUAL(conn_create(1, 3, 0), GB_OP_INVALID);  /* empty slot */
    CU_ASSERT_EQUAL(conn_create(1, 2, 9), GB_OP_INVALID);  /* the interface lacks CPort 9 */
    CU_ASSERT_EQUAL(sw_conn_count(conns()), 0);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(conn_create(2, 2, 0), GB_OP_INVALID); /* CPort already connected */
    CU_ASSERT_EQUAL(conn_create(1, 2, 1), GB_OP_INVALID); /* hd CPort already connected */
    uint8_t p[8] = { 1, 3, 0, 2, 2, 0, 5, 0x07 }, result; /* tc 5 */
    request(GB_SVC_TYPE_CONN_CREATE, p, 8, &result, NULL, 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    CU_ASSERT_EQUAL(sw_conn_count(conns()), 1);
    world_fini();
}

/* On a timed (message-level) fabric, so that an accepted INTF_SET_PWRM can be seen to
 * reach the link of the interface's switch port and a refused one seen not to. */
static void test_svc_set_pwrm_answers_local_for_changes_and_ok_for_hibernate(void)
{
    world_init_timed(4, SW_TIMING_MESSAGE);
    handshake();
    up_phy_cfg phy;
    CU_ASSERT_TRUE_FATAL(sw_fabric_link_mode(W.fabric, AP_PORT, &phy));
    CU_ASSERT(phy.mode == UP_PHY_PWM && phy.gear == 1 && phy.lanes == 1); /* start-up mode */
    uint8_t req[63], result, r[4];
    memset(req, 0, sizeof req);
    req[0] = 1;
    req[1] = 1;
    req[2] = req[7] = GB_SVC_UNIPRO_SLOW_AUTO_MODE;
    req[3] = req[8] = 2;
    req[4] = req[9] = 1;
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_SET_PWRM, req, 63, &result, r, 4), 1);
    CU_ASSERT_EQUAL(r[0], GB_SVC_SETPWRM_PWR_LOCAL);
    CU_ASSERT_EQUAL(gb_svc_ap_link_tx_mode(W.svc), GB_SVC_UNIPRO_SLOW_AUTO_MODE);
    CU_ASSERT_TRUE(sw_fabric_link_mode(W.fabric, AP_PORT, &phy));
    CU_ASSERT(phy.mode == UP_PHY_PWM && phy.gear == 2 && phy.lanes == 1);
    req[3] = 9; /* PWM gear 9 does not exist */
    request(GB_SVC_TYPE_INTF_SET_PWRM, req, 63, &result, r, 4);
    CU_ASSERT_EQUAL(r[0], GB_SVC_SETPWRM_PWR_ERROR_CAP);
    CU_ASSERT_TRUE(sw_fabric_link_mode(W.fabric, AP_PORT, &phy));
    CU_ASSERT_EQUAL(phy.gear, 2); /* the refused request never reached the link */
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    activate(2, 2);
    memset(req, 0, sizeof req);
    req[0] = 2;
    req[1] = 1;
    req[2] = req[7] = GB_SVC_UNIPRO_HIBERNATE_MODE;
    request(GB_SVC_TYPE_INTF_SET_PWRM, req, 63, &result, r, 4);
    CU_ASSERT_EQUAL(r[0], GB_SVC_SETPWRM_PWR_OK);
    CU_ASSERT_EQUAL(g.power_events[GB_SVC_PWR_HIBERNATE], 1);
    gb_svc_intf_info info;
    gb_svc_get_intf(W.svc, 2, &info);
    CU_ASSERT_TRUE(info.hibernated);
    CU_ASSERT_EQUAL(info.tx_mode, GB_SVC_UNIPRO_HIBERNATE_MODE);
    CU_ASSERT_FALSE(sw_fabric_reachable(W.fabric, 2)); /* a hibernated link carries nothing */
    /* the short (spec 1.0) request is refused */
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_SET_PWRM, req, 20, &result, r, 4), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    world_fini();
}

static void test_svc_hibernate_refclk_off_and_resume_keep_the_module(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), 0);
    uint8_t req[63], result, r[2], id = 2;
    memset(req, 0, sizeof req);
    req[0] = 2;
    req[1] = 1;
    req[2] = req[7] = GB_SVC_UNIPRO_HIBERNATE_MODE;
    request(GB_SVC_TYPE_INTF_SET_PWRM, req, 63, &result, r, 2);
    /* while hibernated the interface is off the fabric, its connection kept */
    uint8_t data[9] = { 9, 0, 4, 0, 0x02, 0, 0, 0, 0x11 };
    CU_ASSERT_EQUAL(ap_send(1, data, sizeof data), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(g.received, 0);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_REFCLK_DISABLE, 2), 0);
    request(GB_SVC_TYPE_INTF_RESUME, &id, 1, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_INTF_NO_REFCLK);
    CU_ASSERT_FALSE(sw_fabric_reachable(W.fabric, 2));
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_REFCLK_ENABLE, 2), 0);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_RESUME, &id, 1, &result, r, 2), 1);
    CU_ASSERT_EQUAL(r[0], 0);
    CU_ASSERT_EQUAL(g.power_events[GB_SVC_PWR_RESUME], 1);
    CU_ASSERT_EQUAL(g.power_events[GB_SVC_PWR_VSYS_OFF], 0); /* no power loss */
    CU_ASSERT_EQUAL(g.power_events[GB_SVC_PWR_ACTIVATE], 1); /* no reboot */
    gb_svc_intf_info info;
    gb_svc_get_intf(W.svc, 2, &info);
    CU_ASSERT_FALSE(info.hibernated);
    CU_ASSERT_EQUAL(info.resumes, 1);
    /* resumed: reachable again over the connection that survived */
    CU_ASSERT_TRUE(sw_fabric_reachable(W.fabric, 2));
    CU_ASSERT_EQUAL(ap_send(1, data, sizeof data), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(g.last_cport, 0);
    id = 3;
    request(GB_SVC_TYPE_INTF_RESUME, &id, 1, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_INTF_NOT_DETECTED);
    world_fini();
}

static void test_svc_ping_answers_empty_and_is_counted(void)
{
    world_init(2);
    handshake();
    uint8_t result;
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_PING, NULL, 0, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(gb_svc_get_stats(W.svc).pings, 1);
    world_fini();
}

static void test_svc_unknown_timesync_and_reversed_types_are_refused(void)
{
    world_init(2);
    handshake();
    uint8_t result;
    CU_ASSERT_EQUAL(request(0x7e, NULL, 0, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_PROTOCOL_BAD);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_TIMESYNC_ENABLE, NULL, 0, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_PROTOCOL_BAD);
    uint8_t m[4] = { 2, 1, 0, 0 };
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_MODULE_INSERTED, m, 4, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    /* short requests */
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_CONN_CREATE, m, 4, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_DME_PEER_GET, m, 2, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    world_fini();
}

/* Malformed bytes never become a message: gb_msg_parse refuses them where they enter (the
 * AP bridge), so neither the fabric nor the SVC sees them. Well-formed messages the SVC
 * has no answer for are what it still has to handle: a unidirectional request (the SVC
 * protocol has none: counted as a bad request, not answered) and a response nobody waits
 * for (ignored). */
static void test_svc_malformed_messages_are_refused_and_strays_get_no_answer(void)
{
    world_init(2);
    handshake();
    gb_svc_stats before = gb_svc_get_stats(W.svc);
    uint64_t dropped = sw_fabric_get_stats(W.fabric).dropped;
    gb_msg m;
    uint8_t junk[8] = { 50, 0, 1, 0, 0x13, 0, 0, 0 }; /* size field says 50 */
    CU_ASSERT_EQUAL(gb_msg_parse(junk, sizeof junk, &m), -EMSGSIZE);
    CU_ASSERT_EQUAL(gb_msg_parse(junk, 3, &m), -EINVAL); /* shorter than a header */
    uint8_t uni[8] = { 8, 0, 0, 0, 0x13, 0, 0, 0 }; /* unidirectional ping */
    CU_ASSERT_EQUAL(ap_send(0, uni, sizeof uni), SW_VERDICT_OK);
    uint8_t stray[8] = { 8, 0, 99, 0, 0x9f, 0, 0, 0 }; /* response nobody waits for */
    CU_ASSERT_EQUAL(ap_send(0, stray, sizeof stray), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(W.nout, 0);
    gb_svc_stats after = gb_svc_get_stats(W.svc);
    /* only the unidirectional ping is a bad request (was 3 when the SVC parsed the two
     * malformed messages itself); it is no ping either */
    CU_ASSERT_EQUAL(after.ap_bad_requests - before.ap_bad_requests, 1);
    CU_ASSERT_EQUAL(after.ap_requests - before.ap_requests, 1);
    CU_ASSERT_EQUAL(after.pings, before.pings);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(W.fabric).dropped, dropped); /* both delivered */
    CU_ASSERT_TRUE(gb_svc_handshake_done(W.svc)); /* the stray response changed nothing */
    world_fini();
}

static void test_svc_pwrmon_samples_are_plausible(void)
{
    world_init(2);
    handshake();
    uint8_t req[2] = { 0, GB_SVC_PWRMON_TYPE_VOL }, result, r[8];
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_PWRMON_SAMPLE_GET, req, 2, &result, r, 8), 5);
    CU_ASSERT_EQUAL(r[0], 0);
    uint32_t uv = gb_get_le32(r + 1);
    CU_ASSERT_TRUE(uv > 1000000 && uv < 1200000);
    req[0] = 200;
    request(GB_SVC_TYPE_PWRMON_SAMPLE_GET, req, 2, &result, r, 8);
    CU_ASSERT_EQUAL(r[0], GB_SVC_PWRMON_GET_SAMPLE_INVAL);
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    uint8_t ireq[2] = { 2, GB_SVC_PWRMON_TYPE_VOL };
    request(GB_SVC_TYPE_PWRMON_INTF_SAMPLE_GET, ireq, 2, &result, r, 8);
    CU_ASSERT_EQUAL(r[0], 0);
    CU_ASSERT_EQUAL(gb_get_le32(r + 1), 0); /* V_SYS off */
    activate(2, 2);
    request(GB_SVC_TYPE_PWRMON_INTF_SAMPLE_GET, ireq, 2, &result, r, 8);
    uv = gb_get_le32(r + 1);
    CU_ASSERT_TRUE(uv > 3700000 && uv < 3900000);
    ireq[1] = GB_SVC_PWRMON_TYPE_PWR;
    request(GB_SVC_TYPE_PWRMON_INTF_SAMPLE_GET, ireq, 2, &result, r, 8);
    CU_ASSERT_TRUE(gb_get_le32(r + 1) > 0);
    ireq[0] = 3;
    request(GB_SVC_TYPE_PWRMON_INTF_SAMPLE_GET, ireq, 2, &result, r, 8);
    CU_ASSERT_EQUAL(r[0], GB_SVC_PWRMON_GET_SAMPLE_INVAL);
    world_fini();
}

/* The data path is the fabric's, following what the SVC programmed: a CPort in no
 * connection, a route the AP destroyed and an interface that cannot carry traffic each
 * stop a message in the sender's call, counted and logged. */
static void test_svc_data_path_follows_the_connection_table_and_routes(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0); /* MODULE_INSERTED */
    g.echo = true;
    uint8_t msg[9] = { 9, 0, 7, 0, 0x02, 0, 0, 0, 0x55 };
    uint64_t dropped = sw_fabric_get_stats(W.fabric).dropped;
    CU_ASSERT_EQUAL(ap_send(5, msg, sizeof msg), SW_VERDICT_NO_CONNECTION);
    CU_ASSERT_EQUAL(g.received, 0);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(W.fabric).dropped, dropped + 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(W.last_warning, "hd CPort 5"));
    CU_ASSERT_PTR_NOT_NULL(strstr(W.last_warning, sw_verdict_name(SW_VERDICT_NO_CONNECTION)));
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(5, 2, 3), 0);
    CU_ASSERT_EQUAL(ap_send(5, msg, sizeof msg), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(g.last_cport, 3);
    CU_ASSERT_EQUAL(W.nout, 1); /* the echo came back to hd CPort 5 */
    CU_ASSERT_EQUAL(W.out[0].cport, 5);
    CU_ASSERT_EQUAL(W.out[0].data[4], 0x82);
    CU_ASSERT_EQUAL(gb_get_le16(W.out[0].data + 2), 7);
    pop();
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(W.fabric, SW_DIR_AP_TO_INTF).delivered_msgs, 1);
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(W.fabric, SW_DIR_AP_TO_INTF).delivered_bytes, 9);
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(W.fabric, SW_DIR_INTF_TO_AP).delivered_msgs, 1);
    /* where interface 2 CPort 3 leads: hd CPort 5 of the AP bridge, out of port 1, to
     * DeviceID 1 */
    uint8_t peer_port;
    uint16_t peer_cport;
    CU_ASSERT_TRUE(sw_conn_peer(conns(), 2, 3, &peer_port, &peer_cport, NULL));
    CU_ASSERT_EQUAL(peer_port, AP_PORT);
    CU_ASSERT_EQUAL(peer_cport, 5);
    CU_ASSERT_EQUAL(sw_fabric_device_id(W.fabric, peer_port), GB_SVC_DEVICE_ID_AP);
    CU_ASSERT_EQUAL(sw_route_lookup(routes(), GB_SVC_DEVICE_ID_AP), (int)AP_PORT);
    CU_ASSERT_TRUE(sw_route_allowed(routes(), 2, GB_SVC_DEVICE_ID_AP));
    /* a malformed message is not forwarded: it never becomes a message to send */
    gb_msg m;
    CU_ASSERT_NOT_EQUAL(gb_msg_parse(msg, 5, &m), 0);
    CU_ASSERT_EQUAL(g.received, 1);
    /* once the route is gone the switch drops the traffic, counted */
    uint8_t rd[2] = { 1, 2 }, result;
    request(GB_SVC_TYPE_ROUTE_DESTROY, rd, 2, &result, NULL, 0);
    uint64_t before = sw_route_table_stats(routes()).dropped_unrouted;
    dropped = sw_fabric_get_stats(W.fabric).dropped;
    unsigned warned = W.warnings;
    CU_ASSERT_EQUAL(ap_send(5, msg, sizeof msg), SW_VERDICT_NO_ROUTE);
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(W.warnings, warned + 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(W.last_warning, sw_verdict_name(SW_VERDICT_NO_ROUTE)));
    CU_ASSERT_EQUAL(sw_route_table_stats(routes()).dropped_unrouted, before + 1);
    CU_ASSERT_EQUAL(gb_msg_parse(msg, sizeof msg, &m), 0);
    CU_ASSERT_EQUAL(sw_fabric_send(W.fabric, 2, 3, &m), SW_VERDICT_NO_ROUTE);
    CU_ASSERT_EQUAL(W.nout, 0);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(W.fabric).dropped, dropped + 2);
    /* a connection and route again, but an interface without power carries nothing */
    uint8_t rc[4] = { 1, 1, 2, 2 };
    request(GB_SVC_TYPE_ROUTE_CREATE, rc, 4, &result, NULL, 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(ap_send(5, msg, sizeof msg), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(g.received, 2);
    pop();
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_VSYS_DISABLE, 2), 0);
    CU_ASSERT_EQUAL(ap_send(5, msg, sizeof msg), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(g.received, 2);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(W.fabric).dropped, dropped + 3);
    world_fini();
}

/* Was the SVC's transit hook holding messages until gb_svc_path_deliver: the network is now
 * the fabric's timed model. On a frame-level fabric a data message is in flight after the
 * AP sent it and reaches the interface's CPort only once it has crossed the links of ports
 * 1 and 2 and the switch. The SVC's own connection now crosses the switch as well (the SVC
 * is an endpoint on its last port), so its answers take modelled time too. What is in
 * flight to an interface that stops being reachable is dropped on arrival. */
static void test_svc_timed_fabric_holds_messages_until_they_crossed_the_network(void)
{
    world_init_timed(2, SW_TIMING_FRAME);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(7, 2, 1), 0);
    uint8_t msg[9] = { 9, 0, 3, 0, 0x02, 0, 0, 0, 0x42 };
    CU_ASSERT_EQUAL(ap_send(7, msg, sizeof msg), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(sw_fabric_in_flight(W.fabric), 1);
    CU_ASSERT_EQUAL(g.received, 0); /* still in the network */
    sim_time sent = sim_event_kernel_now(W.k);
    settle();
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(g.last_cport, 1);
    CU_ASSERT_TRUE(sim_event_kernel_now(W.k) > sent);
    sw_dir_stats ds = sw_fabric_dir_stats(W.fabric, SW_DIR_AP_TO_INTF);
    CU_ASSERT_EQUAL(ds.delivered_msgs, 1);
    CU_ASSERT_TRUE(ds.last_latency > 0);
    /* it crossed the links of the AP bridge's port and of interface 2's */
    sw_link_info li;
    char err[128];
    CU_ASSERT_EQUAL(sw_fabric_link_info(W.fabric, AP_PORT, &li, err, sizeof err), 0);
    CU_ASSERT_EQUAL(sw_fabric_link_info(W.fabric, 2, &li, err, sizeof err), 0);
    CU_ASSERT_TRUE(li.frames > 0);
    CU_ASSERT_EQUAL(sw_fabric_link_info(W.fabric, 3, &li, err, sizeof err), -ENODEV);
    /* the SVC's answer to a ping is not there in the AP's call either */
    uint8_t ping[8];
    size_t n = gb_msg_build(ping, sizeof ping, 0x77, GB_SVC_TYPE_PING, 0, NULL, 0);
    CU_ASSERT_EQUAL(ap_send(0, ping, n), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(W.nout, 0);
    settle();
    CU_ASSERT_EQUAL(W.nout, 1);
    pop();
    CU_ASSERT_TRUE(sw_fabric_dir_stats(W.fabric, SW_DIR_SVC_TO_AP).last_latency > 0);
    /* the module is pulled while a message travels to it: dropped on arrival, counted */
    uint64_t dropped = sw_fabric_get_stats(W.fabric).dropped;
    CU_ASSERT_EQUAL(ap_send(7, msg, sizeof msg), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 0, sim_event_kernel_now(W.k)), 0);
    settle();
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(W.fabric).dropped, dropped + 1);
    CU_ASSERT_EQUAL(pop().data[4], GB_SVC_TYPE_MODULE_REMOVED);
    world_fini();
}

/* INTF_SET_PWRM HIBERNATE parks the interface's link in a frame-level fabric; INTF_RESUME
 * makes the interface reachable again, which wakes the link without another
 * INTF_SET_PWRM, and data crosses it again. */
static void test_svc_resume_wakes_the_hibernated_link_of_a_timed_fabric(void)
{
    world_init_timed(2, SW_TIMING_FRAME);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(7, 2, 1), 0);
    uint8_t msg[9] = { 9, 0, 3, 0, 0x02, 0, 0, 0, 0x42 };
    CU_ASSERT_EQUAL(ap_send(7, msg, sizeof msg), SW_VERDICT_OK);
    settle();
    CU_ASSERT_EQUAL(g.received, 1);
    uint8_t req[63], result, r[2], id = 2;
    memset(req, 0, sizeof req);
    req[0] = 2;
    req[1] = 1;
    req[2] = req[7] = GB_SVC_UNIPRO_HIBERNATE_MODE;
    request(GB_SVC_TYPE_INTF_SET_PWRM, req, 63, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_SETPWRM_PWR_OK);
    at(sim_event_kernel_now(W.k) + SIM_MS(5));
    sw_link_info li;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(sw_fabric_link_info(W.fabric, 2, &li, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(li.state, "hibern8");
    CU_ASSERT_EQUAL(ap_send(7, msg, sizeof msg), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_RESUME, &id, 1, &result, r, 2), 1);
    CU_ASSERT_EQUAL(r[0], 0);
    CU_ASSERT_TRUE(sw_fabric_reachable(W.fabric, 2));
    at(sim_event_kernel_now(W.k) + SIM_MS(5));
    CU_ASSERT_EQUAL(sw_fabric_link_info(W.fabric, 2, &li, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(li.state, "up");
    CU_ASSERT_EQUAL(ap_send(7, msg, sizeof msg), SW_VERDICT_OK);
    settle();
    CU_ASSERT_EQUAL(g.received, 2);
    world_fini();
}

static void test_svc_removed_module_teardown_requests_still_succeed(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), 0);
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 0, at(0)), 0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_MODULE_REMOVED);
    answer(0);
    /* the module is gone from the fabric; what the AP set up stays until it tears it down */
    CU_ASSERT_FALSE(sw_fabric_reachable(W.fabric, 2));
    CU_ASSERT_EQUAL(sw_conn_count(conns()), 1);
    uint8_t data[8] = { 8, 0, 1, 0, 0x02, 0, 0, 0 };
    CU_ASSERT_EQUAL(ap_send(1, data, sizeof data), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(g.received, 0);
    unsigned disconnects = g.disconnects;
    uint8_t d[6] = { 1, 1, 0, 2, 0, 0 }, result;
    request(GB_SVC_TYPE_CONN_DESTROY, d, 6, &result, NULL, 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(g.disconnects, disconnects); /* the module is not called any more */
    CU_ASSERT_EQUAL(sw_conn_count(conns()), 0);
    uint8_t rd[2] = { 1, 2 };
    request(GB_SVC_TYPE_ROUTE_DESTROY, rd, 2, &result, NULL, 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(sw_route_lookup(routes(), 2), -ENOENT);
    uint8_t req[63];
    memset(req, 0, sizeof req);
    req[0] = 2;
    req[1] = 1;
    req[2] = req[7] = GB_SVC_UNIPRO_HIBERNATE_MODE;
    uint8_t r[2];
    request(GB_SVC_TYPE_INTF_SET_PWRM, req, 63, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_SETPWRM_PWR_OK);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_UNIPRO_DISABLE, 2), 0);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_REFCLK_DISABLE, 2), 0);
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_VSYS_DISABLE, 2), 0);
    world_fini();
}

static void test_svc_mailbox_and_oops_are_reported_to_the_ap(void)
{
    world_init(2);
    handshake();
    CU_ASSERT_EQUAL(gb_svc_intf_mailbox(W.svc, 2, 2, at(0)), -ENOENT);
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    CU_ASSERT_EQUAL(gb_svc_intf_mailbox(W.svc, 2, GB_SVC_INTF_MAILBOX_GREYBUS, at(0)), 0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_INTF_MAILBOX_EVENT);
    CU_ASSERT_EQUAL(W.out[0].len, 15);
    CU_ASSERT_EQUAL(gb_get_le32(W.out[0].data + 11), 2);
    answer(0);
    CU_ASSERT_EQUAL(gb_svc_intf_oops(W.svc, 2, 7, at(0)), 0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_INTF_OOPS);
    CU_ASSERT_EQUAL(W.out[0].data[9], 7);
    answer(0);
    world_fini();
}

/* A new AP instance: the SVC forgets what the old one set up, in the fabric too. */
static void test_svc_restart_with_a_new_ap_reannounces_modules(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), 0);
    CU_ASSERT_TRUE(sw_fabric_reachable(W.fabric, 2));
    gb_svc_start(W.svc, at(SIM_MS(10))); /* a new bridge instance */
    CU_ASSERT_EQUAL(sw_conn_count(conns()), 0);
    CU_ASSERT_EQUAL(sw_route_lookup(routes(), 2), -ENOENT);
    CU_ASSERT_EQUAL(sw_fabric_device_id(W.fabric, 2), 0);
    CU_ASSERT_FALSE(sw_fabric_reachable(W.fabric, 2)); /* powered off until the AP asks */
    CU_ASSERT_FALSE(g.connected[0]);
    answer(0);
    answer(0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_MODULE_INSERTED);
    CU_ASSERT_EQUAL(W.out[0].data[8], 2);
    world_fini();
}

static void test_svc_survives_random_messages_from_ap_and_modules(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    activate(2, 2);
    conn_create(1, 2, 0);
    uint64_t x = 0x243f6a8885a308d3ull;
    uint8_t buf[300];
    unsigned refused = 0, sent = 0;
    unsigned svc_port = sw_fabric_svc_port(W.fabric);
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = (size_t)(x % sizeof buf);
        for (size_t j = 0; j < len; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[j] = (uint8_t)x;
        }
        if (len >= 8 && (x & 1)) { /* mostly well-formed headers, random types and bodies */
            gb_put_le16(buf, (uint16_t)len);
            buf[4] = (uint8_t)(buf[4] & 0x3f);
        }
        uint16_t cport = (x >> 8) & 1 ? 0 : (uint16_t)((x >> 16) % 50);
        /* the sender: the AP bridge, or a module port (occupied or not, or beyond the
         * switch); never the SVC's own port */
        unsigned port = (x >> 24) % 5 == 0 ? (unsigned)((x >> 32) % 8) : AP_PORT;
        if (port == svc_port)
            port = 0;
        gb_msg m;
        if (gb_msg_parse(buf, len, &m)) {
            refused++; /* what the bridge or a module would refuse to send */
            continue;
        }
        sw_fabric_send(W.fabric, port, cport, &m);
        sent++;
        W.nout = 0;
        if (i % 1000 == 0)
            gb_svc_tick(W.svc, at(SIM_MS(i)));
    }
    CU_ASSERT_TRUE(refused > 1000 && sent > 1000);
    CU_ASSERT_TRUE(gb_svc_get_stats(W.svc).ap_requests > 1000);
    world_fini();
}

static const unit_test svc_tests[] = {
    UNIT_TEST(test_svc_new_rejects_configurations_that_do_not_fit_the_fabric),
    UNIT_TEST(test_svc_handshake_sends_version_then_hello),
    UNIT_TEST(test_svc_handshake_fails_when_ap_refuses_version),
    UNIT_TEST(test_svc_unanswered_request_times_out_after_one_second),
    UNIT_TEST(test_svc_module_inserted_waits_for_hello_response),
    UNIT_TEST(test_svc_hotplug_events_go_one_at_a_time_in_order),
    UNIT_TEST(test_svc_insert_then_remove_before_announcement_is_silent),
    UNIT_TEST(test_svc_slots_reject_overlap_and_out_of_frame_modules),
    UNIT_TEST(test_svc_wide_module_announces_its_interface_count),
    UNIT_TEST(test_svc_activation_classifies_interface_types),
    UNIT_TEST(test_svc_activate_reports_missing_power_and_absent_modules),
    UNIT_TEST(test_svc_dme_responses_have_the_sizes_6_1_checks),
    UNIT_TEST(test_svc_empty_responses_for_ids_routes_and_connections),
    UNIT_TEST(test_svc_conn_create_refuses_what_cannot_work),
    UNIT_TEST(test_svc_set_pwrm_answers_local_for_changes_and_ok_for_hibernate),
    UNIT_TEST(test_svc_hibernate_refclk_off_and_resume_keep_the_module),
    UNIT_TEST(test_svc_ping_answers_empty_and_is_counted),
    UNIT_TEST(test_svc_unknown_timesync_and_reversed_types_are_refused),
    UNIT_TEST(test_svc_malformed_messages_are_refused_and_strays_get_no_answer),
    UNIT_TEST(test_svc_pwrmon_samples_are_plausible),
    UNIT_TEST(test_svc_data_path_follows_the_connection_table_and_routes),
    UNIT_TEST(test_svc_timed_fabric_holds_messages_until_they_crossed_the_network),
    UNIT_TEST(test_svc_resume_wakes_the_hibernated_link_of_a_timed_fabric),
    UNIT_TEST(test_svc_removed_module_teardown_requests_still_succeed),
    UNIT_TEST(test_svc_mailbox_and_oops_are_reported_to_the_ap),
    UNIT_TEST(test_svc_restart_with_a_new_ap_reannounces_modules),
    UNIT_TEST(test_svc_survives_random_messages_from_ap_and_modules),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "svc", svc_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
