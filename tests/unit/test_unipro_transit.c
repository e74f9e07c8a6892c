// SPDX-License-Identifier: MIT
// The frame-level network behind a timed switch fabric: messages cross links and the switch
// in modelled time along a hop (switch port to switch port) and come back intact with the
// context their sender gave; INTF_SET_PWRM changes the link of a switch port, and waking a
// port brings its link out of HIBERN8 or back up.
#include <errno.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "switch-model/pwrm.h"
#include "switch-model/switch_transit.h"
#include "tests/unit/unit.h"
#include "unipro-model/up_consts.h"

typedef struct sink {
    unsigned n;
    void *msg_ctx; /* what the sender passed with the last message delivered */
    uint8_t msg[4096];
    size_t len;
    sim_time at;
} sink;

static void deliver(void *ctx, void *msg_ctx, const uint8_t *msg, size_t len, sim_time sent,
                    sim_time now)
{
    (void)sent;
    sink *s = ctx;
    s->n++;
    s->msg_ctx = msg_ctx;
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

/* The AP bridge (port 1, DeviceID 1) hd CPort 4 to CPort 1 of interface 2 (port 2,
 * DeviceID 2). */
static const sw_hop ap_to_2 = { .in_port = 1, .out_port = 2, .src_dev = 1, .dst_dev = 2,
                                .src_cport = 4, .dst_cport = 1 };

/* Distinct addresses the network must hand back untouched: the fabric keeps its in-flight
 * bookkeeping there. */
static int tag_request, tag_response;

static void test_transit_delivers_messages_after_the_network_latency(void)
{
    bed b;
    bed_init(&b);
    uint8_t msg[600];
    for (unsigned i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 3);
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_2, msg, sizeof msg, &tag_request), 0);
    CU_ASSERT_EQUAL(b.s.n, 0); /* nothing arrives before time passes */
    sim_event_kernel_run_until(b.k, SIM_US(20));
    CU_ASSERT_EQUAL(b.s.n, 1);
    CU_ASSERT_EQUAL(b.s.len, sizeof msg);
    CU_ASSERT(memcmp(b.s.msg, msg, sizeof msg) == 0);
    CU_ASSERT_PTR_EQUAL(b.s.msg_ctx, &tag_request);
    /* 3 segments over two HS-G3B x2 links and the switch: about a microsecond */
    CU_ASSERT(b.s.at > SIM_NS(500) && b.s.at < SIM_US(2));
    /* the response comes back the other way on the same connection */
    sw_hop back = { .in_port = 2, .out_port = 1, .src_dev = 2, .dst_dev = 1, .src_cport = 1,
                    .dst_cport = 4 };
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &back, msg, 8, &tag_response), 0);
    sim_event_kernel_run_until(b.k, SIM_US(40));
    CU_ASSERT_EQUAL(b.s.n, 2);
    CU_ASSERT_EQUAL(b.s.len, 8);
    CU_ASSERT_PTR_EQUAL(b.s.msg_ctx, &tag_response);
    /* hops the switch cannot carry are refused before anything is sent */
    sw_hop bad = ap_to_2;
    bad.out_port = 99; /* beyond the switch */
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &bad, msg, 8, NULL), -EINVAL);
    bad = ap_to_2;
    bad.out_port = bad.in_port; /* a hop goes from one port to another */
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &bad, msg, 8, NULL), -EINVAL);
    bad = ap_to_2;
    bad.dst_cport = 64; /* beyond the nodes' 64 CPorts */
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &bad, msg, 8, NULL), -EINVAL);
    sim_event_kernel_run_until(b.k, SIM_US(60));
    CU_ASSERT_EQUAL(b.s.n, 2);
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

static void test_transit_applies_set_power_mode_to_the_link_of_a_port(void)
{
    bed b;
    bed_init(&b);
    uint8_t req[63];
    /* before the interface carried traffic: remembered */
    pwrm(req, UP_PWRMODE_FAST, 1, 1, UP_SERIES_A);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    CU_ASSERT_PTR_NULL(sw_transit_link(b.t, 2));
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_2, req, 8, &tag_request), 0);
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
    /* a port outside the switch has no link to change */
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 99, req, sizeof req), -EINVAL);
    bed_fini(&b);
}

/* The fabric wakes a port's link when the SVC makes its endpoint reachable again
 * (INTF_RESUME, INTF_ACTIVATE), without an INTF_SET_PWRM. */
static void test_transit_wake_brings_a_hibernated_or_off_link_back_up(void)
{
    bed b;
    bed_init(&b);
    uint8_t req[63] = { 0 };
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_2, req, 8, &tag_request), 0);
    sim_event_kernel_run_until(b.k, SIM_MS(1));
    CU_ASSERT_EQUAL(b.s.n, 1);
    up_link *l = sw_transit_link(b.t, 2);
    CU_ASSERT_FATAL(l != NULL);
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_UP);
    pwrm(req, 0x11, 0, 0, 0); /* HIBERNATE */
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    sim_event_kernel_run_until(b.k, SIM_MS(2));
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_HIBERN8);
    sw_transit_wake(b.t, 2);
    sim_event_kernel_run_until(b.k, SIM_MS(4));
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_UP);
    /* traffic crosses the woken link */
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_2, req, 8, &tag_response), 0);
    sim_event_kernel_run_until(b.k, SIM_MS(5));
    CU_ASSERT_EQUAL(b.s.n, 2);
    CU_ASSERT_PTR_EQUAL(b.s.msg_ctx, &tag_response);
    pwrm(req, 0x12, 0, 0, 0); /* OFF */
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 2, req, sizeof req), 0);
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_DOWN);
    sw_transit_wake(b.t, 2);
    sim_event_kernel_run_until(b.k, SIM_MS(10));
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_UP);
    /* waking a port outside the switch, or an up link, changes nothing */
    sw_transit_wake(b.t, 99);
    sw_transit_wake(b.t, 2);
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_UP);
    bed_fini(&b);
}

/* A hibernation remembered for a port before its link existed belongs to a module that has
 * gone: waking the port forgets it, so the next module's link starts up, not in HIBERN8. */
static void test_transit_wake_forgets_a_hibernation_remembered_before_the_link(void)
{
    bed b;
    bed_init(&b);
    uint8_t req[63];
    pwrm(req, 0x11, 0, 0, 0);
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 3, req, sizeof req), 0);
    sw_transit_wake(b.t, 3);
    sw_hop ap_to_3 = ap_to_2;
    ap_to_3.out_port = 3;
    ap_to_3.dst_dev = 3;
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_3, req, 8, &tag_request), 0);
    up_link *l = sw_transit_link(b.t, 3);
    CU_ASSERT_FATAL(l != NULL);
    CU_ASSERT_NOT_EQUAL(up_link_get_state(l), UP_LINK_HIBERN8);
    sim_event_kernel_run_until(b.k, SIM_MS(1));
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_UP);
    CU_ASSERT_EQUAL(b.s.n, 1);
    /* without the wake, the remembered hibernation is applied when the link appears */
    CU_ASSERT_EQUAL(sw_transit_power_mode(b.t, 4, req, sizeof req), 0);
    sw_hop ap_to_4 = ap_to_2;
    ap_to_4.out_port = 4;
    ap_to_4.dst_dev = 4;
    CU_ASSERT_EQUAL(sw_transit_message(b.t, &ap_to_4, req, 8, &tag_response), 0);
    l = sw_transit_link(b.t, 4);
    CU_ASSERT_FATAL(l != NULL);
    sim_event_kernel_run_until(b.k, SIM_MS(2));
    CU_ASSERT_EQUAL(up_link_get_state(l), UP_LINK_HIBERN8);
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
    UNIT_TEST(test_transit_applies_set_power_mode_to_the_link_of_a_port),
    UNIT_TEST(test_transit_wake_brings_a_hibernated_or_off_link_back_up),
    UNIT_TEST(test_transit_wake_forgets_a_hibernation_remembered_before_the_link),
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
