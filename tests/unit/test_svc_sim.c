// SPDX-License-Identifier: MIT
// `gbvp sim` end to end without QEMU: the simulator object serves a gblink socket; a gblink
// client in the same process plays the greybus-es2 device, and the test AP on top of it
// plays Linux 6.1 (probe, handshake, enumeration, runtime PM, removal, disconnect).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gblink/gblink.h"
#include "sim/simulator.h"
#include "greybus/svc_protocol.h"
#include "ap-model/ap.h"
#include "ap-model/ap_gblink.h"
#include "tests/unit/unit.h"
#include "switch-model/switch.h"
#include "unipro-model/up_link.h"
#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"

typedef struct rig {
    sim_simulator *sim;
    gbl_link *client;
    tap *ap;
    sim_time now;
    uint32_t next_id;
    unsigned results, bad_results, hellos;
    uint16_t server_cports;
    bool capture;            /* keep the next Greybus message from the AP */
    unsigned captured;
    uint64_t captured_ns;    /* its gblink timestamp */
    uint32_t captured_len;
    char path[64];
} rig;

static void client_record(void *ctx, const gbl_record *rec)
{
    rig *r = ctx;
    switch (rec->type) {
    case GBL_T_HELLO: {
        gbl_hello h;
        memcpy(&h, rec->payload, sizeof h);
        r->server_cports = h.cport_count;
        r->hellos++;
        break;
    }
    case GBL_T_GB_MESSAGE:
        if (r->capture) {
            r->captured++;
            r->captured_ns = rec->time_ns;
            r->captured_len = rec->len;
        } else if (r->ap) {
            tap_deliver(r->ap, rec->cport, rec->payload, rec->len);
        }
        break;
    case GBL_T_RESULT: {
        gbl_result res;
        memcpy(&res, rec->payload, sizeof res);
        r->results++;
        r->bad_results += res.status != GBL_STATUS_OK;
        break;
    }
    }
}

static bool pump(void *ctx)
{
    rig *r = ctx;
    sim_time next;
    /* 64 steps of 10 us, longer while messages are still crossing the timed network */
    for (int i = 0; i < 64 || (i < 200000 && sim_simulator_next_event(r->sim, &next)); i++) {
        r->now += SIM_US(10);
        sim_simulator_process(r->sim, r->now);
        if (r->ap)
            tap_set_now(r->ap, r->now);
        if (gbl_process(r->client) > 0)
            return true;
    }
    return false;
}

static void send_msg(void *ctx, uint16_t cport, const uint8_t *msg, size_t len)
{
    rig *r = ctx;
    uint8_t buf[GB_MSG_MAX_SIZE];
    memcpy(buf, msg, len);
    buf[6] = (uint8_t)cport; /* as on the ES2 USB link */
    CU_ASSERT_EQUAL(gbl_send_msg(r->client, GBL_T_GB_MESSAGE, cport, 0, 0, buf, (uint32_t)len), 0);
}

static void cport_ctl(void *ctx, const char *what, uint16_t cport, uint32_t flags)
{
    rig *r = ctx;
    tap_gblink_ctl rec;
    CU_ASSERT_EQUAL_FATAL(tap_gblink_ctl_record(what, flags, &rec), 0);
    CU_ASSERT_EQUAL(gbl_send_msg(r->client, rec.type, cport, ++r->next_id, 0, rec.payload,
                                 rec.len), 0);
    pump(r); /* the ES2 driver waits for each ARPC answer */
}

static tap_transport transport = { .send = send_msg, .cport_ctl = cport_ctl, .pump = pump };

/* timing: NULL for the functional path, else the timing fields of the config to use */
static void rig_up_timed(rig *r, const char *insert, const sim_config *timing)
{
    memset(r, 0, sizeof *r);
    unit_tmp_path(r->path, sizeof r->path, "sim.sock");
    char err[256];
    sim_config c = { .link_path = r->path, .num_slots = 4, .log_level = SW_LOG_ERROR };
    if (timing) {
        c.timing = timing->timing;
        c.link = timing->link;
        c.ber = timing->ber;
        c.seed = timing->seed;
    }
    r->sim = sim_simulator_new(&c, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->sim);
    if (insert)
        CU_ASSERT_EQUAL(sim_simulator_insert(r->sim, 0, insert, err, sizeof err), 0);
    gbl_callbacks cb = { .record = client_record };
    gbl_config lc = { .name = "test es2" };
    r->client = gbl_client_new(r->path, &lc, &cb, r, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->client);
    CU_ASSERT_EQUAL_FATAL(gbl_connect(r->client), 0);
    for (int i = 0; i < 200 && (gbl_state(r->client) != GBL_STATE_UP || !r->hellos); i++)
        pump(r);
    CU_ASSERT_EQUAL_FATAL(gbl_state(r->client), GBL_STATE_UP);
    CU_ASSERT_EQUAL(r->server_cports, 44);
    transport.ctx = r;
    tap_config tc = { .transport = &transport };
    r->ap = tap_new(&tc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->ap);
}

static void rig_up(rig *r, const char *insert)
{
    rig_up_timed(r, insert, NULL);
}

static void rig_down(rig *r)
{
    tap_free(r->ap);
    gbl_free(r->client);
    sim_simulator_free(r->sim);
}

static void test_sim_over_gblink_enumerates_a_module_like_6_1(void)
{
    rig r;
    rig_up(&r, "sensor");
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    tap_run(r.ap);
    tap_intf_state s = tap_interface(r.ap, 2);
    CU_ASSERT_TRUE(s.enabled);
    CU_ASSERT_EQUAL(s.bound_bundles, 1);
    CU_ASSERT_EQUAL(tap_functional_ok(r.ap, 0x02), 1);
    CU_ASSERT_EQUAL(tap_functional_ok(r.ap, 0x03), 1);
    CU_ASSERT_EQUAL(r.bad_results, 0);
    CU_ASSERT_TRUE(r.results >= 8); /* FLAGS + CONNECTED for SVC, control, GPIO, I2C */
    CU_ASSERT_TRUE(gb_svc_handshake_done(sim_simulator_svc(r.sim)));
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "-> -"), -1);
    rig_down(&r);
}

static void test_sim_over_gblink_hotplug_runtime_pm_and_disconnect(void)
{
    rig r;
    rig_up(&r, NULL);
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    CU_ASSERT_EQUAL(sim_simulator_insert(r.sim, 1, "battery", NULL, 0), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 3).enabled);
    CU_ASSERT_EQUAL(tap_runtime_suspend_all(r.ap, 3), 0);
    CU_ASSERT_EQUAL(tap_bundle_resume(r.ap, 3, 1), 0);
    CU_ASSERT_EQUAL(tap_functional(r.ap, 3, 1), 0);
    CU_ASSERT_EQUAL(sim_simulator_remove(r.sim, 1, NULL, 0), 0);
    tap_run(r.ap);
    CU_ASSERT_FALSE(tap_module_exists(r.ap, 3));
    CU_ASSERT_EQUAL(sw_conn_count(sw_fabric_connections(sim_simulator_fabric(r.sim))), 0);
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "-> -"), -1);
    CU_ASSERT_EQUAL(r.bad_results, 0);
    CU_ASSERT_EQUAL(sim_simulator_remove(r.sim, 1, NULL, 0), -ENOENT);
    CU_ASSERT_NOT_EQUAL(sim_simulator_insert(r.sim, 0, "no-such-module", NULL, 0), 0);
    /* QEMU goes away: the SVC forgets the AP and waits for a new one */
    gbl_free(r.client);
    r.client = NULL;
    for (int i = 0; i < 20; i++)
        sim_simulator_process(r.sim, r.now += SIM_MS(1));
    CU_ASSERT_FALSE(gb_svc_handshake_done(sim_simulator_svc(r.sim)));
    tap_free(r.ap);
    sim_simulator_free(r.sim);
}

static void test_sim_answers_bad_cport_control_with_invalid(void)
{
    rig r;
    rig_up(&r, NULL);
    CU_ASSERT_EQUAL(gbl_send_msg(r.client, GBL_T_CPORT_CONNECTED, 200, 77, 0, NULL, 0), 0);
    pump(&r);
    CU_ASSERT_EQUAL(r.bad_results, 1);
    CU_ASSERT_EQUAL(gbl_send_msg(r.client, GBL_T_TIMESYNC_DISABLE, GBL_CPORT_NONE, 78, 0, NULL, 0),
                    0);
    pump(&r);
    CU_ASSERT_EQUAL(r.bad_results, 2);
    rig_down(&r);
}

static void clear_ends_session(const sim_config *timing)
{
    rig r;
    rig_up_timed(&r, "vibrator", timing);
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 2).enabled);
    CU_ASSERT_TRUE(gb_svc_handshake_done(sim_simulator_svc(r.sim)));
    /* a PING still crossing the network when the session ends must not reach the next */
    uint8_t ping[GB_MSG_HEADER_SIZE];
    gb_msg_build(ping, sizeof ping, 0x4444, GB_SVC_TYPE_PING, 0, NULL, 0);
    CU_ASSERT_EQUAL(gbl_send_msg(r.client, GBL_T_GB_MESSAGE, 0, 0, 0, ping, sizeof ping), 0);
    /* the host driver unbinds: flush, quiesce, clear of the SVC CPort */
    CU_ASSERT_EQUAL(gbl_send_msg(r.client, GBL_T_CPORT_CLEAR, 0, 99, 0, NULL, 0), 0);
    pump(&r);
    CU_ASSERT_FALSE(gb_svc_handshake_done(sim_simulator_svc(r.sim)));
    CU_ASSERT_EQUAL(sw_conn_count(sw_fabric_connections(sim_simulator_fabric(r.sim))), 0);
    /* a new driver instance connects again and gets a fresh handshake and the module */
    tap_free(r.ap);
    tap_config tc = { .transport = &transport };
    r.ap = tap_new(&tc);
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 2).enabled);
    CU_ASSERT_EQUAL(r.bad_results, 0);
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "unexpected"), -1);
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "-> -"), -1);
    rig_down(&r);
}

static void test_sim_clear_of_hd_cport_0_ends_the_svc_session(void)
{
    clear_ends_session(NULL);
}

static void test_sim_timed_session_end_drops_svc_messages_in_flight(void)
{
    sim_config t = { .timing = SW_TIMING_FRAME };
    clear_ends_session(&t);
}

/* ---- with the timing model ---- */

/* One hop of a frame carrying `len` bytes over an idle link: burst opening, the frame's
 * symbols, PHY TX and RX latency (docs/performance-model.md). */
static sim_time hop_time(const up_phy_cfg *c, size_t len)
{
    up_phy_params pp = up_phy_params_default();
    return up_phy_burst_open_time(c, &pp) +
           up_phy_symbols_time(up_phy_symbol_ps_fp16(c), up_frame_symbols((unsigned)len)) +
           pp.tx_latency + pp.rx_latency;
}

/* AP (port 1) -> switch -> interface (port `port`), store-and-forward. */
static sim_time path_time(sw_fabric *n, unsigned port, size_t len)
{
    up_phy_cfg ap, in;
    CU_ASSERT_FATAL(sw_fabric_link_mode(n, 1, &ap) && sw_fabric_link_mode(n, port, &in));
    return hop_time(&ap, len) + sw_switch_cfg_default().fwd_latency + hop_time(&in, len);
}

/* Sends GET_MANIFEST_SIZE on the control connection of interface 2 as the ES2 device does and
 * returns the round trip the AP sees: from the simulator taking the request to the
 * timestamp of the response record. */
static sim_time control_round_trip(rig *r)
{
    uint16_t hd = tap_hd_cport(r->ap, 2, 0);
    CU_ASSERT_FATAL(hd != 0);
    uint8_t msg[GB_MSG_HEADER_SIZE];
    CU_ASSERT_FATAL(gb_msg_build(msg, sizeof msg, 0x7777, GB_CONTROL_TYPE_GET_MANIFEST_SIZE,
                                 0, NULL, 0) == sizeof msg);
    msg[6] = (uint8_t)hd;
    r->capture = true;
    r->captured = 0;
    CU_ASSERT_EQUAL(gbl_send_msg(r->client, GBL_T_GB_MESSAGE, hd, 0, 0, msg, sizeof msg), 0);
    sim_time t_in = r->now + SIM_US(10); /* the next pump step takes it */
    for (int i = 0; i < 100 && !r->captured; i++)
        pump(r);
    r->capture = false;
    CU_ASSERT_EQUAL_FATAL(r->captured, 1);
    CU_ASSERT_EQUAL(r->captured_len, GB_MSG_HEADER_SIZE + 2);
    return r->captured_ns * 1000u - t_in;
}

typedef struct round_trips {
    sim_time pwm_g1, hs_g1b; /* the control round trip before and after INTF_SET_PWRM */
} round_trips;

static round_trips timed_latency(sw_timing level)
{
    rig r;
    sim_config t = { .timing = level, .link = up_phy_cfg_startup() };
    rig_up_timed(&r, "sensor", &t);
    sw_fabric *n = sim_simulator_fabric(r.sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 2).enabled);
    CU_ASSERT_EQUAL(tap_functional_ok(r.ap, 0x02), 1);
    CU_ASSERT_EQUAL(r.bad_results, 0);
    /* the AP's own link went to PWM-G2 x1 (6.1's reconfiguration after Hello); the module's
     * link stays at PWM-G1 x1 */
    up_phy_cfg c;
    CU_ASSERT_TRUE(sw_fabric_link_mode(n, 1, &c) && c.mode == UP_PHY_PWM && c.gear == 2);
    CU_ASSERT_TRUE(sw_fabric_link_mode(n, 2, &c) && c.mode == UP_PHY_PWM && c.gear == 1);

    sw_dir_stats up0 = sw_fabric_dir_stats(n, SW_DIR_AP_TO_INTF);
    sw_dir_stats dn0 = sw_fabric_dir_stats(n, SW_DIR_INTF_TO_AP);
    sim_time rtt = control_round_trip(&r);
    sw_dir_stats up1 = sw_fabric_dir_stats(n, SW_DIR_AP_TO_INTF);
    sw_dir_stats dn1 = sw_fabric_dir_stats(n, SW_DIR_INTF_TO_AP);
    /* what the AP sees is the model's two one-way latencies (gblink carries ns) */
    CU_ASSERT(rtt + 1000 > up1.last_latency + dn1.last_latency &&
              rtt <= up1.last_latency + dn1.last_latency);
    /* the request crossed an idle network: exactly the analytical time of its path */
    sim_time want = path_time(n, 2, GB_MSG_HEADER_SIZE);
    CU_ASSERT_EQUAL(up1.last_latency, want);
    /* the response (10 bytes) no sooner than its analytical time, within an AFC's wait */
    sim_time want_back = path_time(n, 2, GB_MSG_HEADER_SIZE + 2);
    CU_ASSERT(dn1.last_latency >= want_back && dn1.last_latency < want_back + want_back / 4);
    /* the statistics counted the bytes */
    CU_ASSERT_EQUAL(up1.sent_bytes - up0.sent_bytes, GB_MSG_HEADER_SIZE);
    CU_ASSERT_EQUAL(up1.delivered_bytes - up0.delivered_bytes, GB_MSG_HEADER_SIZE);
    CU_ASSERT_EQUAL(dn1.delivered_bytes - dn0.delivered_bytes, GB_MSG_HEADER_SIZE + 2);
    CU_ASSERT_EQUAL(dn1.delivered_msgs - dn0.delivered_msgs, 1);

    /* INTF_SET_PWRM: the module's link to HS-G1B x2; the same request gets faster */
    uint8_t req[GB_SVC_INTF_SET_PWRM_SIZE] = { 0 }, result = 0xff;
    req[0] = 2;
    req[1] = 2;                   /* series B */
    req[2] = req[7] = 0x01;       /* FAST */
    req[3] = req[8] = 1;          /* gear 1 */
    req[4] = req[9] = 2;          /* 2 lanes */
    CU_ASSERT_EQUAL(tap_svc_op(r.ap, GB_SVC_TYPE_INTF_SET_PWRM, req, sizeof req, &result, 1), 0);
    CU_ASSERT_EQUAL(result, GB_SVC_SETPWRM_PWR_LOCAL);
    for (int i = 0; i < 20; i++)
        pump(&r); /* the power mode change takes modelled time */
    CU_ASSERT_TRUE(sw_fabric_link_mode(n, 2, &c) && c.mode == UP_PHY_HS && c.gear == 1 &&
                   c.lanes == 2 && c.series == 2);
    sim_time rtt2 = control_round_trip(&r);
    CU_ASSERT(rtt2 < rtt);
    sw_dir_stats up2 = sw_fabric_dir_stats(n, SW_DIR_AP_TO_INTF);
    CU_ASSERT_EQUAL(up2.last_latency, path_time(n, 2, GB_MSG_HEADER_SIZE));
    CU_ASSERT(up2.last_latency < up1.last_latency);
    /* every message that entered the network came out, once */
    for (int d = 0; d < SW_DIRS; d++) {
        sw_dir_stats st = sw_fabric_dir_stats(n, (sw_dir)d);
        CU_ASSERT_EQUAL(st.sent_msgs, st.delivered_msgs);
        CU_ASSERT_EQUAL(st.sent_bytes, st.delivered_bytes);
    }
    CU_ASSERT(sw_fabric_dir_stats(n, SW_DIR_AP_TO_SVC).sent_msgs > 10);
    if (getenv("GBVP_TEST_VERBOSE"))
        printf("\n  %s level: round trip %.2f us at PWM-G1 x1, %.2f us at HS-G1B x2 (request "
               "%.2f -> %.2f us)\n", level == SW_TIMING_MESSAGE ? "message" : "frame",
               (double)rtt / 1e6, (double)rtt2 / 1e6, (double)up1.last_latency / 1e6,
               (double)up2.last_latency / 1e6);
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "-> -"), -1);
    rig_down(&r);
    return (round_trips){ rtt, rtt2 };
}

static void test_sim_timed_latency_is_the_model_prediction_and_follows_set_pwrm(void)
{
    timed_latency(SW_TIMING_FRAME);
}

/* The message level agrees with the frame level on request and response: a receiver
 * whose incoming burst pauses acknowledges at once, and that AFC (6.7 us at PWM-G1) goes
 * out in front of the response. */
static void test_sim_message_level_latency_is_the_same_prediction(void)
{
    round_trips msg = timed_latency(SW_TIMING_MESSAGE), frame = timed_latency(SW_TIMING_FRAME);
    double e1 = ((double)msg.pwm_g1 - (double)frame.pwm_g1) / (double)frame.pwm_g1;
    double e2 = ((double)msg.hs_g1b - (double)frame.hs_g1b) / (double)frame.hs_g1b;
    if (getenv("GBVP_TEST_VERBOSE"))
        printf("\n  message level vs frame level: round trip %+.2f %% at PWM-G1, %+.2f %% at "
               "HS-G1B\n", 100 * e1, 100 * e2);
    CU_ASSERT(e1 > -0.01 && e1 < 0.01);
    CU_ASSERT(e2 > -0.10 && e2 < 0.10);
}

static void test_sim_timed_with_bit_errors_delivers_everything_exactly_once(void)
{
    rig r;
    sim_config t = { .timing = SW_TIMING_FRAME, .link = up_phy_cfg_startup(),
                          .ber = 2e-4, .seed = 7 };
    rig_up_timed(&r, "sensor", &t);
    CU_ASSERT_EQUAL(sim_simulator_insert(r.sim, 1, "battery", NULL, 0), 0);
    sw_fabric *n = sim_simulator_fabric(r.sim);
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 2).enabled);
    CU_ASSERT_TRUE(tap_interface(r.ap, 3).enabled);
    CU_ASSERT_EQUAL(tap_functional_ok(r.ap, 0x02), 1);
    CU_ASSERT_EQUAL(tap_functional(r.ap, 3, 1), 0);
    CU_ASSERT_EQUAL(r.bad_results, 0);
    CU_ASSERT_EQUAL(tap_incoming_dropped(r.ap), 0);
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "-> -"), -1);
    CU_ASSERT(sw_fabric_replays(n) > 0); /* the errors happened and were repaired */
    for (int i = 0; i < 200; i++)
        pump(&r); /* let the last acknowledgements settle */
    for (int d = 0; d < SW_DIRS; d++) {
        sw_dir_stats st = sw_fabric_dir_stats(n, (sw_dir)d);
        CU_ASSERT_EQUAL(st.sent_msgs, st.delivered_msgs);
        CU_ASSERT_EQUAL(st.sent_bytes, st.delivered_bytes);
    }
    char path[80];
    unit_tmp_path(path, sizeof path, "sim.json");
    FILE *f = fopen(path, "w+");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(sim_simulator_write_stats(r.sim, f), 0);
    rewind(f);
    char buf[8192];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    buf[got] = 0;
    fclose(f);
    unlink(path);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"ap_to_intf\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"mode\": \"PWM-G2 x1\""));
    rig_down(&r);
}

static void test_sim_clock_unpaced_jumps_to_events_and_realtime_waits_for_them(void)
{
    rig r;
    sim_config t = { .timing = SW_TIMING_FRAME };
    rig_up_timed(&r, NULL, &t);
    /* nothing pending: both clocks stay, the loop may sleep until input comes */
    sim_time now = sim_simulator_now(r.sim), next;
    CU_ASSERT_FALSE(sim_simulator_next_event(r.sim, &next));
    CU_ASSERT_EQUAL(sim_simulator_idle_for(r.sim, now), SIM_TIME_MAX);
    CU_ASSERT_EQUAL(sim_simulator_clock_now(r.sim, now + SIM_MS(5)), now + SIM_MS(5)); /* realtime */
    /* the handshake puts the SVC's PROTOCOL_VERSION on the wire: an event is pending */
    CU_ASSERT_EQUAL(gbl_send_msg(r.client, GBL_T_CPORT_CONNECTED, 0, 1, 0, NULL, 0), 0);
    sim_simulator_process(r.sim, now);
    CU_ASSERT_TRUE_FATAL(sim_simulator_next_event(r.sim, &next));
    CU_ASSERT(next > now);
    CU_ASSERT_EQUAL(sim_simulator_idle_for(r.sim, now), next - now);
    CU_ASSERT_EQUAL(sim_simulator_clock_now(r.sim, now), now); /* realtime: not before its time */
    rig_down(&r);
    /* unpaced: the clock is the next event's time and the loop does not sleep */
    sim_config c = { .link_path = r.path, .num_slots = 2, .log_level = SW_LOG_ERROR,
                          .clock = SIM_CLOCK_UNPACED, .timing = SW_TIMING_FRAME };
    char err[256];
    sim_simulator *s = sim_simulator_new(&c, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(sim_simulator_clock_now(s, SIM_S(3)), 0); /* the wall clock does not matter */
    sim_simulator_free(s);
    /* the message level does not model bit errors: refused, not ignored */
    c.timing = SW_TIMING_MESSAGE;
    c.ber = 1e-6;
    CU_ASSERT_PTR_NULL(sim_simulator_new(&c, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "bit errors"));
    /* bad link settings are refused with a reason */
    up_phy_cfg l = up_phy_cfg_startup();
    CU_ASSERT_EQUAL(sw_link_parse(&l, "HS-G4A", NULL, NULL, err, sizeof err), -EINVAL);
    CU_ASSERT_EQUAL(sw_link_parse(&l, "PWM-G1", NULL, "3", err, sizeof err), -EINVAL);
    CU_ASSERT_EQUAL(sw_link_parse(&l, "HS-G2", "B", "2", err, sizeof err), 0);
    CU_ASSERT(l.mode == UP_PHY_HS && l.gear == 2 && l.series == 2 && l.lanes == 2);
}

static const unit_test sim_tests[] = {
    UNIT_TEST(test_sim_over_gblink_enumerates_a_module_like_6_1),
    UNIT_TEST(test_sim_over_gblink_hotplug_runtime_pm_and_disconnect),
    UNIT_TEST(test_sim_answers_bad_cport_control_with_invalid),
    UNIT_TEST(test_sim_clear_of_hd_cport_0_ends_the_svc_session),
    UNIT_TEST(test_sim_timed_latency_is_the_model_prediction_and_follows_set_pwrm),
    UNIT_TEST(test_sim_message_level_latency_is_the_same_prediction),
    UNIT_TEST(test_sim_timed_session_end_drops_svc_messages_in_flight),
    UNIT_TEST(test_sim_timed_with_bit_errors_delivers_everything_exactly_once),
    UNIT_TEST(test_sim_clock_unpaced_jumps_to_events_and_realtime_waits_for_them),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "svc_sim", sim_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
