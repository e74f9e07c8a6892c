// SPDX-License-Identifier: MIT
// The switch fabric on its own: endpoints on ports, what the SVC programs (DeviceIDs,
// routes, connections, reachability), and the verdicts and counters of the data path, with
// direct delivery and with the frame- and message-level timing.
#include <errno.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "greybus/gb_message.h"
#include "greybus/svc_protocol.h"
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

/* A message of `len` bytes (header included) from `port`'s CPort `cport`. */
static sw_verdict send_big(world *w, unsigned port, uint16_t cport, uint16_t id, size_t len)
{
    static const uint8_t payload[2048];
    uint8_t bytes[2048];
    CU_ASSERT_FATAL(len >= GB_MSG_HEADER_SIZE && len <= sizeof bytes);
    CU_ASSERT_FATAL(gb_msg_build(bytes, sizeof bytes, id, 0x02, 0, payload,
                                 len - GB_MSG_HEADER_SIZE) == len);
    gb_msg m;
    CU_ASSERT_FATAL(gb_msg_parse(bytes, len, &m) == 0);
    return sw_fabric_send(w->f, port, cport, &m);
}

/* INTF_SET_PWRM HIBERNATE both ways, as 6.1 sends it when it tears an interface down. */
static void hibernate(world *w, unsigned port)
{
    uint8_t req[GB_SVC_INTF_SET_PWRM_SIZE] = { 0 };
    req[0] = (uint8_t)port;
    req[1] = 1;
    req[2] = req[7] = GB_SVC_UNIPRO_HIBERNATE_MODE;
    CU_ASSERT_EQUAL(sw_fabric_power_mode(w->f, port, req, sizeof req), 0);
}

/* The storm test's stall: the AP streams loopback messages to a module, the module is pulled
 * and the AP's teardown hibernates its link while the switch and the AP bridge still hold
 * frames for it. Those frames must not block the AP's port: SVC messages still arrive, and
 * everything that was in flight ends (delivered or dropped). */
static void pulled_mid_stream(bool hib, bool off)
{
    world w;
    world_up(&w, SW_TIMING_FRAME);
    program(&w, MOD_A, 2, 6);
    for (uint16_t i = 0; i < 40; i++)
        CU_ASSERT_EQUAL(send_big(&w, AP, 6, (uint16_t)(100 + i), 1409), SW_VERDICT_OK);
    sim_event_kernel_run_for(w.k, SIM_MS(3)); /* a couple delivered, the rest queued */
    CU_ASSERT(w.ep[MOD_A].got < 40);
    sw_fabric_detach(w.f, MOD_A);
    if (hib)
        hibernate(&w, MOD_A);
    if (off) {
        uint8_t req[GB_SVC_INTF_SET_PWRM_SIZE] = { [1] = 1, [2] = 0x12, [7] = 0x12 };
        CU_ASSERT_EQUAL(sw_fabric_power_mode(w.f, MOD_A, req, sizeof req), 0);
    }
    unsigned before = w.ep[SVC].got;
    CU_ASSERT_EQUAL(send(&w, AP, 0, 7), SW_VERDICT_OK);
    sim_event_kernel_run_for(w.k, SIM_MS(500));
    CU_ASSERT_EQUAL(w.ep[SVC].got, before + 1);
    CU_ASSERT_EQUAL(w.ep[SVC].last_id, 7);
    CU_ASSERT_EQUAL(sw_fabric_in_flight(w.f), 0); /* nothing waits for a module gone */
    world_down(&w);
}

static void test_fabric_pulled_module_with_queued_frames_does_not_block_the_ap(void)
{
    pulled_mid_stream(true, false); /* the 6.1 teardown: removed, then hibernated */
    pulled_mid_stream(false, true); /* removed, link powered off */
    pulled_mid_stream(true, true);
}

/* Random insert / stream / pull / teardown cycles on two modules: after every cycle an SVC
 * message from the AP arrives, and at the end nothing is left in flight. */
static void test_fabric_random_pulls_never_stall_the_ap(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        world w;
        world_up(&w, SW_TIMING_FRAME);
        uint64_t r = seed * 0x9E3779B97F4A7C15ull;
        unsigned svc_sent = 0;
        bool in[2] = { false, false };
        for (unsigned cycle = 0; cycle < 25; cycle++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            unsigned which = (unsigned)(r >> 33) & 1, port = MOD_A + which;
            uint8_t dev = (uint8_t)(2 + which);
            uint16_t hd = (uint16_t)(6 + which);
            if (!in[which]) {
                CU_ASSERT_EQUAL(sw_fabric_attach(w.f, port,
                                                 &(sw_endpoint){ receive, &w.ep[port] }), 0);
                program(&w, port, dev, hd);
                in[which] = true;
            }
            unsigned n = (unsigned)(r >> 40) % 30;
            for (unsigned i = 0; i < n; i++)
                CU_ASSERT_EQUAL(send_big(&w, AP, hd, (uint16_t)i, 200 + (r >> 20) % 1800),
                                SW_VERDICT_OK);
            sim_event_kernel_run_for(w.k, SIM_US((r >> 12) % 4000));
            if ((r >> 50) & 1) { /* pulled; the AP tears it down */
                sw_fabric_detach(w.f, port);
                CU_ASSERT_EQUAL(sw_fabric_disconnect(w.f, AP, hd, port, 1), 0);
                CU_ASSERT_EQUAL(sw_route_pair_destroy(sw_fabric_routes(w.f), 1, AP, dev, port),
                                0);
                if ((r >> 52) & 1)
                    hibernate(&w, port);
                CU_ASSERT_EQUAL(sw_fabric_set_device_id(w.f, port, 0), 0);
                in[which] = false;
            }
            unsigned before = w.ep[SVC].got;
            CU_ASSERT_EQUAL(send(&w, AP, 0, (uint16_t)cycle), SW_VERDICT_OK);
            svc_sent++;
            sim_event_kernel_run_for(w.k, SIM_MS(800));
            CU_ASSERT_EQUAL(w.ep[SVC].got, before + 1);
        }
        sim_event_kernel_run_for(w.k, SIM_MS(2000));
        CU_ASSERT_EQUAL(w.ep[SVC].got, svc_sent);
        CU_ASSERT_EQUAL(sw_fabric_in_flight(w.f), 0);
        world_down(&w);
    }
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
    UNIT_TEST(test_fabric_pulled_module_with_queued_frames_does_not_block_the_ap),
    UNIT_TEST(test_fabric_random_pulls_never_stall_the_ap),
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
