// SPDX-License-Identifier: MIT
// The switch fabric on its own: endpoints on ports, what the SVC programs (DeviceIDs,
// routes, connections, reachability), and the verdicts and counters of the data path, with
// direct delivery and with the frame- and message-level timing.
#include <errno.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "greybus/gb_message.h"
#include "switch-model/fabric.h"
#include "tests/unit/unit.h"

enum { AP = 1, MOD_A = 2, MOD_B = 3, PORTS = 6, SVC = PORTS - 1 };

typedef struct endpoint {
    unsigned got;
    uint16_t last_cport, last_id;
    sim_time last_at;
} endpoint;

typedef struct world {
    sim_event_kernel *k;
    sw_fabric *f;
    endpoint ep[PORTS];
} world;

static void receive(void *ctx, uint16_t cport, const gb_msg *m, sim_time now)
{
    endpoint *e = ctx;
    e->got++;
    e->last_cport = cport;
    e->last_id = m->h.operation_id;
    e->last_at = now;
}

static void world_up(world *w, sw_timing timing)
{
    memset(w, 0, sizeof *w);
    w->k = sim_event_kernel_new(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->k);
    sw_fabric_cfg cfg = { .ports = PORTS, .ap_port = AP, .timing = timing };
    char err[160];
    w->f = sw_fabric_new(sim_event_kernel_scheduler(w->k), &cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->f);
    for (unsigned p = AP; p < PORTS; p++)
        CU_ASSERT_EQUAL(sw_fabric_attach(w->f, p, &(sw_endpoint){ receive, &w->ep[p] }), 0);
}

/* What the SVC does for a module on `port` with DeviceID `dev`: an id, routes both ways
 * between it and the AP, a connection AP hd CPort `hd` <-> module CPort 1, reachable. */
static void program(world *w, unsigned port, uint8_t dev, uint16_t hd)
{
    CU_ASSERT_EQUAL(sw_fabric_set_device_id(w->f, AP, 1), 0);
    CU_ASSERT_EQUAL(sw_fabric_set_device_id(w->f, port, dev), 0);
    CU_ASSERT_EQUAL(sw_route_pair_create(sw_fabric_routes(w->f), 1, AP, dev, port), 0);
    sw_conn c = { .port1 = AP, .cport1 = hd, .port2 = (uint8_t)port, .cport2 = 1 };
    CU_ASSERT_EQUAL(sw_fabric_connect(w->f, &c), 0);
    sw_fabric_set_reachable(w->f, port, true);
}

static void world_down(world *w)
{
    sw_fabric_free(w->f);
    sim_event_kernel_free(w->k);
}

static sw_verdict send(world *w, unsigned port, uint16_t cport, uint16_t id)
{
    uint8_t bytes[GB_MSG_HEADER_SIZE + 4] = { 0 };
    CU_ASSERT_FATAL(gb_msg_build(bytes, sizeof bytes, id, 0x02, 0, bytes, 4) == sizeof bytes);
    gb_msg m;
    CU_ASSERT_FATAL(gb_msg_parse(bytes, sizeof bytes, &m) == 0);
    sw_verdict v = sw_fabric_send(w->f, port, cport, &m);
    memset(bytes, 0xee, sizeof bytes); /* the fabric kept its own copy, if any */
    return v;
}

static void test_fabric_direct_follows_the_connection_and_needs_a_route(void)
{
    world w;
    world_up(&w, SW_TIMING_DIRECT);
    /* nothing programmed: only the static SVC connection works */
    CU_ASSERT_EQUAL(send(&w, AP, 0, 1), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(w.ep[SVC].got, 1);
    CU_ASSERT_EQUAL(send(&w, SVC, 0, 2), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(w.ep[AP].got, 1);
    CU_ASSERT_EQUAL(send(&w, AP, 5, 3), SW_VERDICT_NO_CONNECTION);
    sw_conn c = { .port1 = AP, .cport1 = 5, .port2 = MOD_B, .cport2 = 1 };
    CU_ASSERT_EQUAL(sw_fabric_connect(w.f, &c), 0);
    CU_ASSERT_EQUAL(send(&w, AP, 5, 4), SW_VERDICT_NO_ROUTE); /* no DeviceIDs yet */
    program(&w, MOD_A, 2, 6);
    CU_ASSERT_EQUAL(send(&w, AP, 6, 5), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(w.ep[MOD_A].got, 1);
    CU_ASSERT_EQUAL(w.ep[MOD_A].last_cport, 1);
    CU_ASSERT_EQUAL(w.ep[MOD_A].last_id, 5);
    CU_ASSERT_EQUAL(send(&w, MOD_A, 1, 6), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(w.ep[AP].last_cport, 6);
    /* the routing table decides: a destroyed route drops */
    CU_ASSERT_EQUAL(sw_route_pair_destroy(sw_fabric_routes(w.f), 1, AP, 2, MOD_A), 0);
    CU_ASSERT_EQUAL(send(&w, AP, 6, 7), SW_VERDICT_NO_ROUTE);
    sw_fabric_stats st = sw_fabric_get_stats(w.f);
    CU_ASSERT_EQUAL(st.to_svc, 1);
    CU_ASSERT_EQUAL(st.to_ap, 2);
    CU_ASSERT_EQUAL(st.to_intf, 1);
    CU_ASSERT_EQUAL(st.dropped, 3);
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(w.f, SW_DIR_AP_TO_INTF).delivered_msgs, 1);
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(w.f, SW_DIR_INTF_TO_AP).delivered_bytes,
                    GB_MSG_HEADER_SIZE + 4);
    world_down(&w);
}

static void test_fabric_unreachable_ends_neither_send_nor_receive(void)
{
    world w;
    world_up(&w, SW_TIMING_DIRECT);
    program(&w, MOD_A, 2, 6);
    sw_fabric_set_reachable(w.f, MOD_A, false); /* hibernated, or V_SYS off */
    CU_ASSERT_EQUAL(send(&w, AP, 6, 1), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(send(&w, MOD_A, 1, 2), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(w.ep[MOD_A].got + w.ep[AP].got, 0);
    sw_fabric_set_reachable(w.f, MOD_A, true);
    CU_ASSERT_EQUAL(send(&w, MOD_A, 1, 3), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(w.ep[AP].got, 1);
    /* an interface attached but never activated cannot send either */
    CU_ASSERT_FALSE(sw_fabric_reachable(w.f, MOD_B));
    sw_conn c = { .port1 = AP, .cport1 = 7, .port2 = MOD_B, .cport2 = 1 };
    CU_ASSERT_EQUAL(sw_fabric_connect(w.f, &c), 0);
    CU_ASSERT_EQUAL(sw_fabric_set_device_id(w.f, MOD_B, 3), 0);
    CU_ASSERT_EQUAL(sw_route_pair_create(sw_fabric_routes(w.f), 1, AP, 3, MOD_B), 0);
    CU_ASSERT_EQUAL(send(&w, MOD_B, 1, 4), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(w.ep[AP].got, 1);
    /* unplugged: unreachable until attached and made reachable again */
    sw_fabric_detach(w.f, MOD_A);
    sw_fabric_set_reachable(w.f, MOD_A, true);
    CU_ASSERT_FALSE(sw_fabric_reachable(w.f, MOD_A));
    CU_ASSERT_EQUAL(send(&w, MOD_A, 1, 5), SW_VERDICT_PEER_GONE);
    world_down(&w);
}

/* Timed: a message in flight is dropped on arrival when either end was unplugged or reset
 * after it left, and delivered otherwise, after a latency above zero. */
static void in_flight(sw_timing timing)
{
    world w;
    world_up(&w, timing);
    program(&w, MOD_A, 2, 6);
    CU_ASSERT_EQUAL(send(&w, AP, 6, 1), SW_VERDICT_OK);
    CU_ASSERT_EQUAL(w.ep[MOD_A].got, 0);
    CU_ASSERT_EQUAL(sw_fabric_in_flight(w.f), 1);
    sim_event_kernel_run(w.k);
    CU_ASSERT_EQUAL(w.ep[MOD_A].got, 1);
    CU_ASSERT(w.ep[MOD_A].last_at > 0);
    CU_ASSERT_EQUAL(sw_fabric_dir_stats(w.f, SW_DIR_AP_TO_INTF).last_latency,
                    w.ep[MOD_A].last_at);

    /* from a module that is unplugged while its message travels */
    CU_ASSERT_EQUAL(send(&w, MOD_A, 1, 2), SW_VERDICT_OK);
    sw_fabric_detach(w.f, MOD_A);
    sim_event_kernel_run(w.k);
    CU_ASSERT_EQUAL(w.ep[AP].got, 0);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(w.f).dropped, 1);

    /* to the AP across the end of its session */
    CU_ASSERT_EQUAL(send(&w, SVC, 0, 3), SW_VERDICT_OK);
    sw_fabric_reset(w.f, AP);
    sim_event_kernel_run(w.k);
    CU_ASSERT_EQUAL(w.ep[AP].got, 0);
    /* from the AP's ended session */
    CU_ASSERT_EQUAL(send(&w, AP, 0, 4), SW_VERDICT_OK);
    sw_fabric_reset(w.f, AP);
    sim_event_kernel_run(w.k);
    CU_ASSERT_EQUAL(w.ep[SVC].got, 0);
    /* the next session's messages arrive */
    CU_ASSERT_EQUAL(send(&w, AP, 0, 5), SW_VERDICT_OK);
    sim_event_kernel_run(w.k);
    CU_ASSERT_EQUAL(w.ep[SVC].got, 1);
    CU_ASSERT_EQUAL(w.ep[SVC].last_id, 5);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(w.f).dropped, 3);
    CU_ASSERT_EQUAL(sw_fabric_in_flight(w.f), 0);
    world_down(&w);
}

static void test_fabric_frame_level_drops_what_an_unplug_or_reset_overtakes(void)
{
    in_flight(SW_TIMING_FRAME);
}

static void test_fabric_message_level_drops_what_an_unplug_or_reset_overtakes(void)
{
    in_flight(SW_TIMING_MESSAGE);
}

static void test_fabric_refuses_bad_configurations_and_ports(void)
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    char err[160] = "";
    sw_fabric_cfg cfg = { .ports = 2, .ap_port = 0 };
    CU_ASSERT_PTR_NULL(sw_fabric_new(sim_event_kernel_scheduler(k), &cfg, err, sizeof err));
    CU_ASSERT(strlen(err) > 0);
    cfg = (sw_fabric_cfg){ .ports = 4, .ap_port = 3 }; /* the SVC's port */
    err[0] = 0;
    CU_ASSERT_PTR_NULL(sw_fabric_new(sim_event_kernel_scheduler(k), &cfg, err, sizeof err));
    CU_ASSERT(strlen(err) > 0);
    cfg = (sw_fabric_cfg){ .ports = 4, .ap_port = 1, .timing = SW_TIMING_MESSAGE, .ber = 1e-6 };
    CU_ASSERT_PTR_NULL(sw_fabric_new(sim_event_kernel_scheduler(k), &cfg, err, sizeof err));
    cfg = (sw_fabric_cfg){ .ports = 4, .ap_port = 1 };
    sw_fabric *f = sw_fabric_new(sim_event_kernel_scheduler(k), &cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(sw_fabric_svc_port(f), 3);
    CU_ASSERT_EQUAL(sw_fabric_attach(f, 4, &(sw_endpoint){ receive, NULL }), -EINVAL);
    CU_ASSERT_EQUAL(sw_fabric_attach(f, 2, &(sw_endpoint){ NULL, NULL }), -EINVAL);
    CU_ASSERT_EQUAL(sw_fabric_set_device_id(f, 9, 2), -EINVAL);
    uint8_t bytes[GB_MSG_HEADER_SIZE];
    gb_msg_build(bytes, sizeof bytes, 1, 2, 0, NULL, 0);
    gb_msg m;
    CU_ASSERT_EQUAL_FATAL(gb_msg_parse(bytes, sizeof bytes, &m), 0);
    CU_ASSERT_EQUAL(sw_fabric_send(f, 17, 0, &m), SW_VERDICT_PEER_GONE);
    CU_ASSERT_EQUAL(sw_fabric_send(f, 1, 0, &m), SW_VERDICT_PEER_GONE); /* nobody there */
    CU_ASSERT_EQUAL(sw_fabric_get_stats(f).dropped, 2);
    sw_fabric_free(f);
    sim_event_kernel_free(k);
}

static const unit_test fabric_tests[] = {
    UNIT_TEST(test_fabric_direct_follows_the_connection_and_needs_a_route),
    UNIT_TEST(test_fabric_unreachable_ends_neither_send_nor_receive),
    UNIT_TEST(test_fabric_frame_level_drops_what_an_unplug_or_reset_overtakes),
    UNIT_TEST(test_fabric_message_level_drops_what_an_unplug_or_reset_overtakes),
    UNIT_TEST(test_fabric_refuses_bad_configurations_and_ports),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "fabric", fabric_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
