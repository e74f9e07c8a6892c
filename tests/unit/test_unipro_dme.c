// SPDX-License-Identifier: MIT
// The DME attribute table (get/set, result codes, attributes that act) and the frame codec
// (layout, CRC-16 error detection).
#include <errno.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "tests/unit/unit.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_dme.h"
#include "unipro-model/up_frame_codec.h"
#include "unipro-model/up_link.h"
#include "unipro-model/up_traffic.h"

typedef struct pair {
    sim_event_kernel *k;
    up_env *env;
    up_node *a, *b;
    up_link *l;
    up_dme *da, *db;
} pair;

static void pair_init(pair *p)
{
    p->k = sim_event_kernel_new(0);
    p->env = up_env_new(sim_event_kernel_scheduler(p->k));
    up_node_cfg ca = up_node_cfg_default(0), cb = up_node_cfg_default(0);
    p->a = up_node_new(p->env, &ca, NULL, NULL);
    p->b = up_node_new(p->env, &cb, NULL, NULL);
    p->l = up_link_new(p->env, up_node_port(p->a), up_node_port(p->b), NULL, NULL, 0);
    p->da = up_dme_new(p->a);
    p->db = up_dme_new(p->b);
    CU_ASSERT_FATAL(p->a && p->b && p->l && p->da && p->db);
}

static void pair_fini(pair *p)
{
    up_dme_free(p->da);
    up_dme_free(p->db);
    up_link_free(p->l);
    up_node_free(p->a);
    up_node_free(p->b);
    CU_ASSERT_EQUAL(up_env_live_msgs(p->env), 0);
    up_env_free(p->env);
    sim_event_kernel_free(p->k);
}

static void test_dme_result_codes(void)
{
    pair p;
    pair_init(&p);
    uint32_t v = 0;
    CU_ASSERT_EQUAL(up_dme_get(p.da, 0x7777, 0, &v), UP_DME_INVALID_ATTR);
    CU_ASSERT_EQUAL(up_dme_get(p.da, UP_T_NumCPorts, 0, &v), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(v, 32);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_T_NumCPorts, 0, 3), UP_DME_READ_ONLY);
    CU_ASSERT_EQUAL(up_dme_get(p.da, UP_T_PeerDeviceID, 32, &v), UP_DME_BAD_INDEX);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_N_DeviceID, 0, 200), UP_DME_INVALID_VALUE);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_T_TrafficClass, 3, 2), UP_DME_INVALID_VALUE);
    /* vendor/DDBL attributes defined by the node */
    CU_ASSERT_EQUAL(up_dme_define(p.da, UP_DME_DDBL1_ManufacturerID, 0, 0x0126, true), 0);
    CU_ASSERT_EQUAL(up_dme_get(p.da, UP_DME_DDBL1_ManufacturerID, 0, &v), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(v, 0x0126);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_PWRModeUserData0, 0, 0x1fff), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_get(p.da, UP_PA_PWRModeUserData0, 0, &v), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(v, 0x1fff);
    pair_fini(&p);
}

typedef struct got {
    unsigned n;
    uint32_t len;
} got;

static void got_recv(void *ctx, up_node *n, unsigned cport, up_msg *m, sim_time lat)
{
    (void)n;
    (void)cport;
    (void)lat;
    got *g = ctx;
    g->n++;
    g->len = m->len;
}

static const up_node_ops got_ops = { got_recv, NULL };

/* The connection sequence Ara's SVC used (docs/unipro.md, "CPort connection sequence"),
 * then a message. */
static void connect_by_dme(up_dme *d, unsigned cport, unsigned peer_dev, unsigned peer_cport)
{
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_ConnectionState, (uint16_t)cport, 0), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_PeerDeviceID, (uint16_t)cport, peer_dev), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_PeerCPortID, (uint16_t)cport, peer_cport), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_TrafficClass, (uint16_t)cport, 0), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_ProtocolID, (uint16_t)cport, 0), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_TxTokenValue, (uint16_t)cport, 32), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_RxTokenValue, (uint16_t)cport, 32), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_CPortFlags, (uint16_t)cport, 7), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_CPortMode, (uint16_t)cport, 1), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_CreditsToSend, (uint16_t)cport, 0), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(d, UP_T_ConnectionState, (uint16_t)cport, 1), UP_DME_SUCCESS);
}

static void test_dme_sets_device_ids_and_connects_cports(void)
{
    pair p;
    pair_init(&p);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_N_DeviceID, 0, 1), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(p.db, UP_N_DeviceID, 0, 9), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_node_device_id(p.b), 9);
    connect_by_dme(p.da, 3, 9, 4);
    connect_by_dme(p.db, 4, 1, 3);
    uint32_t v;
    CU_ASSERT_EQUAL(up_dme_get(p.da, UP_T_ConnectionState, 3, &v), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(v, 1);
    CU_ASSERT_EQUAL(up_dme_get(p.da, UP_T_PeerCPortID, 3, &v), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(v, 4);
    /* a connected CPort's attributes are locked */
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_T_PeerCPortID, 3, 5), UP_DME_LOCKED);
    got g = { 0, 0 };
    up_cport_set_handler(p.b, 4, &got_ops, &g);
    CU_ASSERT_EQUAL(up_cport_send(p.a, 3, NULL, 100, 0), 0);
    sim_event_kernel_run_until(p.k, SIM_US(20));
    CU_ASSERT_EQUAL(g.n, 1);
    CU_ASSERT_EQUAL(g.len, 100);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_T_ConnectionState, 3, 0), UP_DME_SUCCESS);
    CU_ASSERT_FALSE(up_cport_connected(p.a, 3));
    pair_fini(&p);
}

static void test_dme_pwrmode_starts_a_power_mode_change(void)
{
    pair p;
    pair_init(&p);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_TxGear, 0, 2), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_ActiveTxDataLanes, 0, 1), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_HSSeries, 0, UP_SERIES_A), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_PWRMode, 0, 0x11), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(up_link_get_state(p.l), UP_LINK_PMC);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_PWRMode, 0, 0x11), UP_DME_BUSY);
    up_phy_cfg old = up_link_get_cfg(p.l)->phy, want = { UP_PHY_HS, 2, UP_SERIES_A, 1 };
    sim_time t = up_phy_pmc_time(&old, &want, &up_link_get_cfg(p.l)->params);
    sim_event_kernel_run_until(p.k, t - 1);
    CU_ASSERT_EQUAL(up_link_get_state(p.l), UP_LINK_PMC);
    sim_event_kernel_run_until(p.k, t);
    CU_ASSERT_EQUAL(up_link_get_state(p.l), UP_LINK_UP);
    uint32_t v;
    CU_ASSERT_EQUAL(up_dme_get(p.db, UP_PA_TxGear, 0, &v), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(v, 2);
    CU_ASSERT_EQUAL(up_dme_get(p.db, UP_PA_ActiveRxDataLanes, 0, &v), UP_DME_SUCCESS);
    CU_ASSERT_EQUAL(v, 1);
    /* SLOW: PWM */
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_PWRMode, 0, 0x22), UP_DME_SUCCESS);
    sim_event_kernel_run_until(p.k, SIM_MS(5));
    CU_ASSERT_EQUAL(up_link_get_cfg(p.l)->phy.mode, UP_PHY_PWM);
    CU_ASSERT_EQUAL(up_dme_set(p.da, UP_PA_PWRMode, 0, 0x33), UP_DME_INVALID_VALUE);
    CU_ASSERT(up_dme_peer_access_time(p.l, SIM_US(10)) > SIM_US(10));
    pair_fini(&p);
}

static void test_link_startup_takes_its_duration(void)
{
    pair p;
    pair_init(&p);
    up_link_startup(p.l);
    CU_ASSERT_EQUAL(up_link_get_state(p.l), UP_LINK_STARTUP);
    sim_time t = up_phy_startup_time(&up_link_get_cfg(p.l)->params);
    sim_event_kernel_run_until(p.k, t - 1);
    CU_ASSERT_EQUAL(up_link_get_state(p.l), UP_LINK_STARTUP);
    sim_event_kernel_run_until(p.k, t);
    CU_ASSERT_EQUAL(up_link_get_state(p.l), UP_LINK_UP);
    pair_fini(&p);
}

static void test_frame_codec_round_trip(void)
{
    uint8_t payload[286], buf[286];
    for (unsigned i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i * 13 + 1);
    for (unsigned len = 0; len <= 286; len += 47) {
        up_frame_fields f = { .tc = 1, .seq = 29, .dst_dev = 77, .eom = 1, .fct = 0,
                              .dst_cport = 17, .payload = payload, .len = (uint16_t)len };
        up_symbol s[147];
        size_t n = up_frame_encode(&f, s, 147);
        CU_ASSERT_EQUAL(n, 4 + (len + 1) / 2);
        up_frame_fields d;
        CU_ASSERT_EQUAL_FATAL(up_frame_decode(s, n, &d, buf), 0);
        CU_ASSERT(d.tc == 1 && d.seq == 29 && d.dst_dev == 77 && d.eom == 1 && d.fct == 0);
        CU_ASSERT_EQUAL(d.dst_cport, 17);
        CU_ASSERT_EQUAL(d.len, len);
        CU_ASSERT(memcmp(buf, payload, len) == 0);
    }
    up_frame_fields bad = { .dst_cport = 32 };
    up_symbol s[4];
    CU_ASSERT_EQUAL(up_frame_encode(&bad, s, 4), 0);
}

static void test_crc16_detects_every_single_and_double_bit_error(void)
{
    uint8_t payload[64], buf[286];
    for (unsigned i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i ^ 0x5a);
    up_frame_fields f = { .seq = 3, .dst_dev = 5, .dst_cport = 2, .eom = 1, .payload = payload,
                          .len = 64 };
    up_symbol s[40];
    size_t n = up_frame_encode(&f, s, 40);
    unsigned bits = (unsigned)n * 16, missed = 0;
    up_frame_fields d;
    for (unsigned i = 0; i < bits; i++) {
        s[i / 16].bits ^= (uint16_t)(1u << (i % 16));
        missed += up_frame_decode(s, n, &d, buf) == 0;
        for (unsigned j = i + 1; j < bits; j += 7) {
            s[j / 16].bits ^= (uint16_t)(1u << (j % 16));
            missed += up_frame_decode(s, n, &d, buf) == 0;
            s[j / 16].bits ^= (uint16_t)(1u << (j % 16));
        }
        s[i / 16].bits ^= (uint16_t)(1u << (i % 16));
    }
    CU_ASSERT_EQUAL(missed, 0);
    CU_ASSERT_EQUAL(up_frame_decode(s, n, &d, buf), 0);
    up_symbol a[3];
    uint8_t tc, creq, seq;
    uint16_t credits;
    CU_ASSERT_EQUAL(up_afc_encode(1, 1, 30, 777, a), 3);
    CU_ASSERT_EQUAL(up_afc_decode(a, 3, &tc, &creq, &seq, &credits), 0);
    CU_ASSERT(tc == 1 && creq == 1 && seq == 30 && credits == 777);
    a[1].bits ^= 4;
    CU_ASSERT_EQUAL(up_afc_decode(a, 3, &tc, &creq, &seq, &credits), -EBADMSG);
    CU_ASSERT_EQUAL(up_nac_encode(1, a), 2);
}

static const unit_test tests[] = {
    UNIT_TEST(test_dme_result_codes),
    UNIT_TEST(test_dme_sets_device_ids_and_connects_cports),
    UNIT_TEST(test_dme_pwrmode_starts_a_power_mode_change),
    UNIT_TEST(test_link_startup_takes_its_duration),
    UNIT_TEST(test_frame_codec_round_trip),
    UNIT_TEST(test_crc16_detects_every_single_and_double_bit_error),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "unipro_dme", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
