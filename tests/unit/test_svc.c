// SPDX-License-Identifier: MIT
// The SVC on its own: the handshake, every request the 6.1 AP sends with the response sizes
// it checks, hot-plug events, error answers, and the data path. The AP side is played by
// hand-built messages; the interfaces by a small recording double (stub_intf) whose type
// and DME answers each test chooses.
#include <errno.h>
#include <string.h>

#include "switch-model/svc.h"
#include "greybus/svc_protocol.h"
#include "tests/unit/unit.h"

/* ---- a recording interface double ---- */

typedef struct stub_intf {
    uint8_t type;
    uint32_t init_status;
    unsigned power_events[16];
    unsigned connects, disconnects, received;
    bool connected[8];
    uint16_t last_cport;
    gb_svc *svc;
    uint8_t intf_id;
    bool echo; /* answer every request received with an empty success */
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

static void stub_receive(void *self, uint16_t cport, const uint8_t *msg, size_t len,
                         sim_time now)
{
    stub_intf *s = self;
    s->received++;
    s->last_cport = cport;
    if (s->echo && len >= 8 && !(msg[4] & 0x80) && (msg[2] | msg[3])) {
        uint8_t r[8] = { 8, 0, msg[2], msg[3], (uint8_t)(msg[4] | 0x80), 0, 0, 0 };
        gb_svc_from_intf(s->svc, s->intf_id, cport, r, sizeof r, now);
    }
}

static const gb_svc_intf_ops stub_ops = {
    .intf_type = stub_type,
    .dme_get = stub_dme_get,
    .dme_set = stub_dme_set,
    .power = stub_power,
    .cport_connect = stub_connect,
    .cport_disconnect = stub_disconnect,
    .receive = stub_receive,
};

/* ---- a hand-driven AP ---- */

#define MAX_OUT 64

typedef struct out_msg {
    uint16_t cport;
    size_t len;
    uint8_t data[GB_MSG_MAX_SIZE];
} out_msg;

typedef struct world {
    gb_svc *svc;
    out_msg out[MAX_OUT];
    size_t nout;
    uint16_t next_id;
    unsigned pwrm_hooks;
} world;

static world W;

static void to_ap(void *ctx, uint16_t cport, const uint8_t *msg, size_t len)
{
    world *w = ctx;
    CU_ASSERT_FATAL(w->nout < MAX_OUT);
    w->out[w->nout].cport = cport;
    w->out[w->nout].len = len;
    memcpy(w->out[w->nout].data, msg, len);
    w->nout++;
}

static void pwrm_hook(void *ctx, uint8_t intf, const uint8_t *req, size_t len)
{
    (void)intf, (void)req, (void)len;
    ((world *)ctx)->pwrm_hooks++;
}

static void world_init(unsigned slots)
{
    memset(&W, 0, sizeof W);
    W.next_id = 1;
    gb_svc_config c = { .num_slots = slots };
    gb_svc_env env = { .to_ap = to_ap, .power_mode = pwrm_hook, .ctx = &W };
    char err[128];
    W.svc = gb_svc_new(&c, &env, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(W.svc);
}

static void world_fini(void)
{
    gb_svc_free(W.svc);
    W.svc = NULL;
}

/* Takes the oldest message the SVC sent. */
static out_msg pop(void)
{
    out_msg m;
    memset(&m, 0, sizeof m);
    CU_ASSERT_FATAL(W.nout > 0);
    m = W.out[0];
    memmove(&W.out[0], &W.out[1], (W.nout - 1) * sizeof W.out[0]);
    W.nout--;
    return m;
}

/* Answers the SVC's pending request (the oldest message, which must be a request). */
static uint8_t answer(uint8_t result)
{
    out_msg m = pop();
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
    gb_svc_from_ap(W.svc, 0, r, n, SIM_MS(1));
    return m.data[4];
}

static void handshake(void)
{
    gb_svc_start(W.svc, 0);
    CU_ASSERT_EQUAL(answer(0), GB_SVC_TYPE_PROTOCOL_VERSION);
    CU_ASSERT_EQUAL(answer(0), GB_SVC_TYPE_SVC_HELLO);
    CU_ASSERT_TRUE(gb_svc_handshake_done(W.svc));
}

/* Sends an AP request and returns the response (result in *result, payload copied). */
static size_t request(uint8_t type, const void *payload, size_t plen, uint8_t *result,
                      uint8_t *resp, size_t cap)
{
    uint8_t buf[GB_MSG_MAX_SIZE];
    uint16_t id = ++W.next_id;
    size_t n = gb_msg_build(buf, sizeof buf, id, type, 0, payload, plen);
    size_t before = W.nout;
    gb_svc_from_ap(W.svc, 0, buf, n, SIM_MS(2));
    CU_ASSERT_FATAL(W.nout == before + 1);
    out_msg m = W.out[W.nout - 1];
    W.nout--;
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

static stub_intf *insert_stub(stub_intf *s, unsigned slot, uint8_t type)
{
    memset(s, 0, sizeof *s);
    s->type = type;
    s->svc = W.svc;
    s->intf_id = gb_svc_slot_intf_id(W.svc, slot);
    void *self = s;
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, slot, 1, "stub", &stub_ops, &self, SIM_MS(1)), 0);
    return s;
}

/* Power, activate, device id 2 and route to AP for interface `id`. */
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

/* ---- tests ---- */

static void test_svc_new_rejects_bad_configurations(void)
{
    gb_svc_env env = { .to_ap = to_ap, .ctx = &W };
    char err[128] = "";
    gb_svc_config c = { .num_slots = 0 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "slots"));
    c.num_slots = GB_SVC_SLOTS_MAX + 1;
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, err, sizeof err));
    c = (gb_svc_config){ .num_slots = 4, .ap_intf_id = 3, .first_intf_id = 2 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ap_intf_id"));
    c = (gb_svc_config){ .num_slots = 4, .ap_cport_count = 300 };
    CU_ASSERT_PTR_NULL(gb_svc_new(&c, &env, err, sizeof err));
}

static void test_svc_handshake_sends_version_then_hello(void)
{
    world_init(4);
    gb_svc_start(W.svc, 0);
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
    world_fini();
}

static void test_svc_handshake_fails_when_ap_refuses_version(void)
{
    world_init(2);
    stub_intf s;
    insert_stub(&s, 0, GB_SVC_INTF_TYPE_GREYBUS);
    gb_svc_start(W.svc, 0);
    answer(GB_OP_UNKNOWN_ERROR);
    CU_ASSERT_EQUAL(W.nout, 0); /* no hello, no hot-plug */
    CU_ASSERT_FALSE(gb_svc_handshake_done(W.svc));
    world_fini();
}

static void test_svc_unanswered_request_times_out_after_one_second(void)
{
    world_init(2);
    gb_svc_start(W.svc, 0);
    pop();
    gb_svc_tick(W.svc, SIM_MS(999));
    CU_ASSERT_EQUAL(gb_svc_get_stats(W.svc).ap_timeouts, 0);
    gb_svc_tick(W.svc, SIM_MS(1001));
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
    gb_svc_start(W.svc, 0);
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
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 0, SIM_MS(3)), 0);
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
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 1, SIM_MS(3)), 0);
    answer(0);
    CU_ASSERT_EQUAL(W.nout, 0); /* slot 1 never announced, so never removed either */
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 1, SIM_MS(3)), -ENOENT);
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
    CU_ASSERT_EQUAL(gb_svc_insert(W.svc, 1, 2, "dual", &stub_ops, two, 0), 0);
    CU_ASSERT_EQUAL(W.out[0].data[8], 3);
    CU_ASSERT_EQUAL(W.out[0].data[9], 2);
    world_fini();
}

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
    for (uint8_t i = 0; i < 3; i++) {
        uint8_t id = (uint8_t)(2 + i), result, r[2];
        ok_u8(GB_SVC_TYPE_INTF_VSYS_ENABLE, id);
        ok_u8(GB_SVC_TYPE_INTF_REFCLK_ENABLE, id);
        ok_u8(GB_SVC_TYPE_INTF_UNIPRO_ENABLE, id);
        CU_ASSERT_EQUAL(request(GB_SVC_TYPE_INTF_ACTIVATE, &id, 1, &result, r, 2), 2);
        CU_ASSERT_EQUAL(r[0], GB_SVC_OP_SUCCESS);
        CU_ASSERT_EQUAL(r[1], want[i]);
    }
    CU_ASSERT_EQUAL(g.power_events[GB_SVC_PWR_ACTIVATE], 1); /* only Greybus boots */
    CU_ASSERT_EQUAL(d.power_events[GB_SVC_PWR_ACTIVATE], 0);
    gb_svc_intf_info info;
    gb_svc_get_intf(W.svc, 3, &info);
    CU_ASSERT_FALSE(info.active); /* a dummy interface has no link */
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

static void test_svc_empty_responses_for_ids_routes_and_connections(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    activate(2, 2); /* checks DEVICE_ID and ROUTE_CREATE answer empty */
    CU_ASSERT_EQUAL(sw_route_lookup(gb_svc_routes(W.svc), 2), 2);
    CU_ASSERT_EQUAL(sw_route_lookup(gb_svc_routes(W.svc), 1), 1);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), GB_OP_SUCCESS);
    CU_ASSERT_TRUE(g.connected[0]);
    CU_ASSERT_EQUAL(gb_svc_conn_count(gb_svc_connections(W.svc)), 1);
    CU_ASSERT_EQUAL(gb_svc_conn_count_intf(gb_svc_connections(W.svc), 2), 1);
    CU_ASSERT_EQUAL(gb_svc_conn_count_intf(gb_svc_connections(W.svc), 1), 1);
    CU_ASSERT_EQUAL(gb_svc_conn_count_intf(gb_svc_connections(W.svc), 3), 0);
    uint8_t d[6] = { 1, 1, 0, 2, 0, 0 }, result;
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_CONN_DESTROY, d, 6, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_FALSE(g.connected[0]);
    CU_ASSERT_EQUAL(gb_svc_conn_count_intf(gb_svc_connections(W.svc), 2), 0);
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_CONN_DESTROY, d, 6, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    uint8_t rd[2] = { 1, 2 };
    CU_ASSERT_EQUAL(request(GB_SVC_TYPE_ROUTE_DESTROY, rd, 2, &result, NULL, 0), 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(sw_route_lookup(gb_svc_routes(W.svc), 2), -ENOENT);
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
    CU_ASSERT_EQUAL(gb_svc_conn_count(gb_svc_connections(W.svc)), 0);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(conn_create(2, 2, 0), GB_OP_INVALID); /* CPort already connected */
    CU_ASSERT_EQUAL(conn_create(1, 2, 1), GB_OP_INVALID); /* hd CPort already connected */
    uint8_t p[8] = { 1, 3, 0, 2, 2, 0, 5, 0x07 }, result; /* tc 5 */
    request(GB_SVC_TYPE_CONN_CREATE, p, 8, &result, NULL, 0);
    CU_ASSERT_EQUAL(result, GB_OP_INVALID);
    world_fini();
}

static void test_svc_set_pwrm_answers_local_for_changes_and_ok_for_hibernate(void)
{
    world_init(4);
    handshake();
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
    CU_ASSERT_EQUAL(W.pwrm_hooks, 1);
    req[3] = 9; /* PWM gear 9 does not exist */
    request(GB_SVC_TYPE_INTF_SET_PWRM, req, 63, &result, r, 4);
    CU_ASSERT_EQUAL(r[0], GB_SVC_SETPWRM_PWR_ERROR_CAP);
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
    CU_ASSERT_EQUAL(ok_u8(GB_SVC_TYPE_INTF_REFCLK_DISABLE, 2), 0);
    request(GB_SVC_TYPE_INTF_RESUME, &id, 1, &result, r, 2);
    CU_ASSERT_EQUAL(r[0], GB_SVC_INTF_NO_REFCLK);
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

static void test_svc_malformed_messages_are_dropped_without_answer(void)
{
    world_init(2);
    handshake();
    uint8_t junk[8] = { 50, 0, 1, 0, 0x13, 0, 0, 0 }; /* size field says 50 */
    gb_svc_from_ap(W.svc, 0, junk, sizeof junk, 0);
    gb_svc_from_ap(W.svc, 0, junk, 3, 0);
    uint8_t uni[8] = { 8, 0, 0, 0, 0x13, 0, 0, 0 }; /* unidirectional ping */
    gb_svc_from_ap(W.svc, 0, uni, sizeof uni, 0);
    uint8_t stray[8] = { 8, 0, 99, 0, 0x9f, 0, 0, 0 }; /* response nobody waits for */
    gb_svc_from_ap(W.svc, 0, stray, sizeof stray, 0);
    CU_ASSERT_EQUAL(W.nout, 0);
    CU_ASSERT_EQUAL(gb_svc_get_stats(W.svc).ap_bad_requests, 3);
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

static void test_svc_data_path_follows_the_connection_table_and_routes(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0); /* MODULE_INSERTED */
    g.echo = true;
    uint8_t msg[9] = { 9, 0, 7, 0, 0x02, 0, 0, 0, 0x55 };
    gb_svc_from_ap(W.svc, 5, msg, sizeof msg, 0); /* no connection yet */
    CU_ASSERT_EQUAL(g.received, 0);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(5, 2, 3), 0);
    gb_svc_from_ap(W.svc, 5, msg, sizeof msg, 0);
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(g.last_cport, 3);
    CU_ASSERT_EQUAL(W.nout, 1); /* the echo came back to hd CPort 5 */
    CU_ASSERT_EQUAL(W.out[0].cport, 5);
    CU_ASSERT_EQUAL(W.out[0].data[4], 0x82);
    pop();
    gb_svc_path p;
    CU_ASSERT_EQUAL(gb_svc_path_resolve(W.svc, 2, 3, &p), GB_SVC_PATH_OK);
    CU_ASSERT_EQUAL(p.dst_intf, 1);
    CU_ASSERT_EQUAL(p.dst_cport, 5);
    CU_ASSERT_EQUAL(p.out_port, 1);
    CU_ASSERT_EQUAL(p.dst_device_id, 1);
    /* a malformed message is not forwarded */
    gb_svc_from_ap(W.svc, 5, msg, 5, 0);
    CU_ASSERT_EQUAL(g.received, 1);
    /* once the route is gone the switch drops the traffic, counted */
    uint8_t rd[2] = { 1, 2 }, result;
    request(GB_SVC_TYPE_ROUTE_DESTROY, rd, 2, &result, NULL, 0);
    uint64_t before = sw_route_table_stats(gb_svc_routes(W.svc)).dropped_unrouted;
    gb_svc_from_ap(W.svc, 5, msg, sizeof msg, 0);
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(sw_route_table_stats(gb_svc_routes(W.svc)).dropped_unrouted, before + 1);
    gb_svc_from_intf(W.svc, 2, 3, msg, sizeof msg, 0);
    CU_ASSERT_EQUAL(W.nout, 0);
    CU_ASSERT_TRUE(gb_svc_get_stats(W.svc).dropped >= 2);
    world_fini();
}

typedef struct held {
    gb_svc_path p;
    uint8_t msg[64];
    size_t len;
    unsigned count;
} held;

static held HELD;

static void hold(void *ctx, const gb_svc_path *p, const uint8_t *msg, size_t len, sim_time now)
{
    (void)ctx, (void)now;
    HELD.p = *p;
    HELD.len = len < sizeof HELD.msg ? len : sizeof HELD.msg;
    memcpy(HELD.msg, msg, HELD.len);
    HELD.count++;
}

static void test_svc_transit_hook_holds_messages_until_delivered(void)
{
    memset(&HELD, 0, sizeof HELD);
    memset(&W, 0, sizeof W);
    W.next_id = 1;
    gb_svc_config c = { .num_slots = 2 };
    gb_svc_env env = { .to_ap = to_ap, .transit = hold, .ctx = &W };
    char err[64];
    W.svc = gb_svc_new(&c, &env, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(W.svc);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(7, 2, 1), 0);
    uint8_t msg[9] = { 9, 0, 3, 0, 0x02, 0, 0, 0, 0x42 };
    gb_svc_from_ap(W.svc, 7, msg, sizeof msg, SIM_US(5));
    CU_ASSERT_EQUAL(HELD.count, 1);
    CU_ASSERT_EQUAL(g.received, 0); /* still in the network */
    CU_ASSERT_EQUAL(HELD.p.src_intf, 1);
    CU_ASSERT_EQUAL(HELD.p.dst_intf, 2);
    CU_ASSERT_EQUAL(HELD.p.dst_cport, 1);
    CU_ASSERT_EQUAL(HELD.p.in_port, 1);
    CU_ASSERT_EQUAL(HELD.p.out_port, 2);
    gb_svc_path_deliver(W.svc, &HELD.p, HELD.msg, HELD.len, SIM_US(9));
    CU_ASSERT_EQUAL(g.received, 1);
    CU_ASSERT_EQUAL(g.last_cport, 1);
    /* the SVC's own connection does not cross the data network */
    uint8_t result;
    request(GB_SVC_TYPE_PING, NULL, 0, &result, NULL, 0);
    CU_ASSERT_EQUAL(HELD.count, 1);
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
    CU_ASSERT_EQUAL(gb_svc_remove(W.svc, 0, 0), 0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_MODULE_REMOVED);
    answer(0);
    unsigned disconnects = g.disconnects;
    uint8_t d[6] = { 1, 1, 0, 2, 0, 0 }, result;
    request(GB_SVC_TYPE_CONN_DESTROY, d, 6, &result, NULL, 0);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(g.disconnects, disconnects); /* the module is not called any more */
    uint8_t rd[2] = { 1, 2 };
    request(GB_SVC_TYPE_ROUTE_DESTROY, rd, 2, &result, NULL, 0);
    CU_ASSERT_EQUAL(result, 0);
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
    CU_ASSERT_EQUAL(gb_svc_intf_mailbox(W.svc, 2, 2, 0), -ENOENT);
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    CU_ASSERT_EQUAL(gb_svc_intf_mailbox(W.svc, 2, GB_SVC_INTF_MAILBOX_GREYBUS, 0), 0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_INTF_MAILBOX_EVENT);
    CU_ASSERT_EQUAL(W.out[0].len, 15);
    CU_ASSERT_EQUAL(gb_get_le32(W.out[0].data + 11), 2);
    answer(0);
    CU_ASSERT_EQUAL(gb_svc_intf_oops(W.svc, 2, 7, 0), 0);
    CU_ASSERT_EQUAL(W.out[0].data[4], GB_SVC_TYPE_INTF_OOPS);
    CU_ASSERT_EQUAL(W.out[0].data[9], 7);
    answer(0);
    world_fini();
}

static void test_svc_restart_with_a_new_ap_reannounces_modules(void)
{
    world_init(4);
    handshake();
    stub_intf g;
    insert_stub(&g, 0, GB_SVC_INTF_TYPE_GREYBUS);
    answer(0);
    activate(2, 2);
    CU_ASSERT_EQUAL(conn_create(1, 2, 0), 0);
    gb_svc_start(W.svc, SIM_MS(10)); /* a new bridge instance */
    CU_ASSERT_EQUAL(gb_svc_conn_count(gb_svc_connections(W.svc)), 0);
    CU_ASSERT_EQUAL(sw_route_lookup(gb_svc_routes(W.svc), 2), -ENOENT);
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
        if ((x >> 24) % 5 == 0)
            gb_svc_from_intf(W.svc, (uint8_t)((x >> 32) % 8), cport, buf, len, 0);
        else
            gb_svc_from_ap(W.svc, cport, buf, len, 0);
        W.nout = 0;
        if (i % 1000 == 0)
            gb_svc_tick(W.svc, SIM_MS(i));
    }
    CU_ASSERT_TRUE(gb_svc_get_stats(W.svc).ap_requests > 1000);
    world_fini();
}

static const unit_test svc_tests[] = {
    UNIT_TEST(test_svc_new_rejects_bad_configurations),
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
    UNIT_TEST(test_svc_malformed_messages_are_dropped_without_answer),
    UNIT_TEST(test_svc_pwrmon_samples_are_plausible),
    UNIT_TEST(test_svc_data_path_follows_the_connection_table_and_routes),
    UNIT_TEST(test_svc_transit_hook_holds_messages_until_delivered),
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
