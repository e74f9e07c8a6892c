// SPDX-License-Identifier: MIT
// The timed network behind the SVC hooks: messages cross links and the switch in modelled
// time and come back intact; INTF_SET_PWRM changes the interface's link.
#include <errno.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "switch-model/pwrm.h"
#include "switch-model/switch_transit.h"
#include "tests/unit/unit.h"
#include "unipro-model/up_consts.h"

typedef struct sink {
    unsigned n;
    gb_svc_path path;
    uint8_t msg[4096];
    size_t len;
    sim_time at;
} sink;

static void deliver(void *ctx, const gb_svc_path *p, const uint8_t *msg, size_t len,
                    sim_time sent, sim_time now)
{
    (void)sent;
    sink *s = ctx;
    s->n++;
    s->path = *p;
    s->len = len < sizeof s->msg ? len : sizeof s->msg;
    memcpy(s->msg, msg, s->len);
    s->at = now;
}

typedef struct bed {
    sim_event_kernel *k;
    up_env *env;
    sw_transit *t;
    sink s;
} bed;

static void bed_init(bed *b)
{
    memset(b, 0, sizeof *b);
    b->k = sim_event_kernel_new(0);
    b->env = up_env_new(sim_event_kernel_scheduler(b->k));
    sw_transit_cfg c = sw_transit_cfg_default();
    b->t = sw_transit_new(b->env, &c, deliver, &b->s);
    CU_ASSERT_FATAL(b->t != NULL);
}

static void bed_fini(bed *b)
{
    sw_transit_free(b->t);
    CU_ASSERT_EQUAL(up_env_live_msgs(b->env), 0);
    up_env_free(b->env);
    sim_event_kernel_free(b->k);
}

static const gb_svc_path ap_to_2 = { .src_intf = 1, .dst_intf = 2, .src_cport = 4,
                                     .dst_cport = 1, .src_device_id = 1, .dst_device_id = 2,
                                     .in_port = 1, .out_port = 2 };

static void test_transit_delivers_messages_after_the_network_latency(void)
{
    bed b;
    bed_init(&b);
    uint8_t msg[600];
    for (unsigned i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 3);
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_2, msg, sizeof msg), 0);
    sim_event_kernel_run_until(b.k, SIM_US(20));
    CU_ASSERT_EQUAL(b.s.n, 1);
    CU_ASSERT_EQUAL(b.s.len, sizeof msg);
    CU_ASSERT(memcmp(b.s.msg, msg, sizeof msg) == 0);
    CU_ASSERT_EQUAL(b.s.path.dst_cport, 1);
    CU_ASSERT_EQUAL(b.s.path.src_intf, 1);
    /* 3 segments over two HS-G3B x2 links and the switch: about a microsecond */
    CU_ASSERT(b.s.at > SIM_NS(500) && b.s.at < SIM_US(2));
    /* the response comes back the other way on the same connection */
    gb_svc_path back = { .src_intf = 2, .dst_intf = 1, .src_cport = 1, .dst_cport = 4,
                         .src_device_id = 2, .dst_device_id = 1, .in_port = 2, .out_port = 1 };
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &back, msg, 8), 0);
    sim_event_kernel_run_until(b.k, SIM_US(40));
    CU_ASSERT_EQUAL(b.s.n, 2);
    CU_ASSERT_EQUAL(b.s.path.dst_intf, 1);
    gb_svc_path bad = ap_to_2;
    bad.out_port = 99;
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &bad, msg, 8), -EINVAL);
    bed_fini(&b);
}

static void pwrm(uint8_t *req, uint8_t mode, uint8_t gear, uint8_t lanes, uint8_t series)
{
    memset(req, 0, 63);
    req[0] = 2;
    req[1] = series;
    req[2] = mode;
    req[3] = gear;
    req[4] = lanes;
    req[7] = mode;
    req[8] = gear;
    req[9] = lanes;
}

static void test_transit_applies_set_power_mode_to_the_interface_link(void)
{
    bed b;
    bed_init(&b);
    uint8_t req[63];
    /* before the interface carried traffic: remembered */
    pwrm(req, UP_PWRMODE_FAST, 1, 1, UP_SERIES_A);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_2, req, 8), 0);
    up_link *l = sw_transit_link(b.t, 2);
    CU_ASSERT_FATAL(l != NULL);
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_PMC);
    sim_event_kernel_run_until(b.k, SIM_MS(1));
    CU_ASSERT_EQUAL(up_link_get_cfg(l)->phy.gear, 1);
    CU_ASSERT_EQUAL(up_link_get_cfg(l)->phy.lanes, 1);
    CU_ASSERT_EQUAL(b.s.n, 1); /* delivered once the link was up again */
    /* hibernate, then back to HS-G2B x2 */
    pwrm(req, 0x11, 0, 0, 0);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    sim_event_kernel_run_until(b.k, SIM_MS(2));
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_HIBERN8);
    pwrm(req, UP_PWRMODE_FAST, 2, 2, UP_SERIES_B);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    sim_event_kernel_run_until(b.k, SIM_MS(4));
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_UP);
    CU_ASSERT(up_link_get_cfg(l)->phy.gear == 2 && up_link_get_cfg(l)->phy.series == UP_SERIES_B);
    /* slow: PWM; bad gear refused; short request refused */
    pwrm(req, UP_PWRMODE_SLOW, 9, 1, 0);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), -EINVAL);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, 10), -EINVAL);
    pwrm(req, UP_PWRMODE_SLOW, 2, 1, 0);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    sim_event_kernel_run_until(b.k, SIM_MS(6));
    CU_ASSERT_EQUAL(up_link_get_cfg(l)->phy.mode, UP_PHY_PWM);
    /* off: link down */
    pwrm(req, 0x12, 0, 0, 0);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_DOWN);
    bed_fini(&b);
}

/* INTF_SET_PWRM requests as both timed switches read them. */
static void test_set_power_mode_requests_decode_to_link_changes(void)
{
    up_phy_cfg cur = up_phy_cfg_default(), out = cur;
    sw_pwrm_action a;
    uint8_t req[SW_PWRM_REQ_LEN] = { 0 };
    req[1] = UP_SERIES_B, req[2] = UP_PWRMODE_FASTAUTO, req[3] = 3, req[4] = 2;
    CU_ASSERT_EQUAL(sw_pwrm_decode(req, &cur, &a, &out), 0);
    CU_ASSERT_EQUAL(a, SW_PWRM_SET);
    CU_ASSERT(out.mode == UP_PHY_HS && out.gear == 3 && out.series == UP_SERIES_B &&
              out.lanes == 2);
    req[2] = UP_PWRMODE_SLOW, req[3] = 2, req[4] = 1;
    CU_ASSERT_EQUAL(sw_pwrm_decode(req, &cur, &a, &out), 0);
    CU_ASSERT(a == SW_PWRM_SET && out.mode == UP_PHY_PWM && out.gear == 2 && out.lanes == 1);
    static const struct { uint8_t mode; sw_pwrm_action a; } other[] = {
        { 0x07, SW_PWRM_KEEP }, { 0x11, SW_PWRM_HIBERNATE }, { 0x12, SW_PWRM_OFF },
    };
    for (unsigned i = 0; i < 3; i++) {
        req[2] = other[i].mode;
        req[3] = 99; /* not looked at */
        CU_ASSERT_EQUAL(sw_pwrm_decode(req, &cur, &a, &out), 0);
        CU_ASSERT_EQUAL(a, other[i].a);
    }
    req[2] = 0x05; /* no such mode */
    CU_ASSERT_EQUAL(sw_pwrm_decode(req, &cur, &a, &out), -EINVAL);
    req[2] = UP_PWRMODE_FAST, req[3] = 5, req[4] = 1; /* HS has gears 1..4 */
    CU_ASSERT_EQUAL(sw_pwrm_decode(req, &cur, &a, &out), -EINVAL);
    req[3] = 1, req[4] = 5; /* four lanes at most */
    CU_ASSERT_EQUAL(sw_pwrm_decode(req, &cur, &a, &out), -EINVAL);
}

static const unit_test tests[] = {
    UNIT_TEST(test_transit_delivers_messages_after_the_network_latency),
    UNIT_TEST(test_transit_applies_set_power_mode_to_the_interface_link),
    UNIT_TEST(test_set_power_mode_requests_decode_to_link_changes),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "unipro_transit", tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
