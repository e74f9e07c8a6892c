// SPDX-License-Identifier: MIT
// `gbvp sim` end to end without QEMU: the simulator object serves a gblink socket; a gblink
// client in the same process plays the greybus-es2 device, and the test AP on top of it
// plays Linux 6.1 (probe, handshake, enumeration, runtime PM, removal, disconnect).
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gblink/gblink.h"
#include "sim/sim_cli.h"
#include "switch-model/svc_protocol.h"
#include "tests/ap/ap.h"
#include "tests/unit/unit.h"

typedef struct rig {
    sim_gbvp *sim;
    gbl_link *client;
    tap *ap;
    sim_time now;
    uint32_t next_id;
    unsigned results, bad_results, hellos;
    uint16_t server_cports;
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
        if (r->ap)
            tap_deliver(r->ap, rec->cport, rec->payload, rec->len);
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
    for (int i = 0; i < 64; i++) {
        r->now += SIM_US(10);
        sim_gbvp_process(r->sim, r->now);
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
    uint16_t type = 0;
    uint8_t payload[4] = { 0 };
    uint32_t len = 0;
    if (!strcmp(what, "FLAGS")) {
        type = GBL_T_CPORT_FLAGS;
        memcpy(payload, &flags, 4);
        len = 4;
    } else if (!strcmp(what, "CONNECTED")) {
        type = GBL_T_CPORT_CONNECTED;
    } else if (!strcmp(what, "FLUSH")) {
        type = GBL_T_CPORT_FLUSH;
    } else if (!strcmp(what, "CLEAR")) {
        type = GBL_T_CPORT_CLEAR;
    } else if (!strcmp(what, "QUIESCE")) {
        gbl_cport_quiesce q = { .peer_space = 9, .timeout_ms = 1000 };
        type = GBL_T_CPORT_QUIESCE;
        memcpy(payload, &q, sizeof q);
        len = sizeof q;
    }
    CU_ASSERT_NOT_EQUAL_FATAL(type, 0);
    CU_ASSERT_EQUAL(gbl_send_msg(r->client, type, cport, ++r->next_id, 0, payload, len), 0);
    pump(r); /* the ES2 driver waits for each ARPC answer */
}

static tap_transport transport = { .send = send_msg, .cport_ctl = cport_ctl, .pump = pump };

static void rig_up(rig *r, const char *insert)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "/tmp/gbvp-test-sim-%d.sock", (int)getpid());
    char err[256];
    sim_gbvp_config c = { .link_path = r->path, .num_slots = 4, .log_level = GB_SVC_LOG_ERROR };
    r->sim = sim_gbvp_new(&c, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->sim);
    if (insert)
        CU_ASSERT_EQUAL(sim_gbvp_insert(r->sim, 0, insert, 0), 0);
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
    tap_config tc = { .transport = &transport, .num_slots = 4 };
    r->ap = tap_new(&tc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->ap);
}

static void rig_down(rig *r)
{
    tap_free(r->ap);
    gbl_free(r->client);
    sim_gbvp_free(r->sim);
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
    CU_ASSERT_TRUE(gb_svc_handshake_done(sim_gbvp_svc(r.sim)));
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "-> -"), -1);
    rig_down(&r);
}

static void test_sim_over_gblink_hotplug_runtime_pm_and_disconnect(void)
{
    rig r;
    rig_up(&r, NULL);
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    CU_ASSERT_EQUAL(sim_gbvp_insert(r.sim, 1, "battery", r.now), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 3).enabled);
    CU_ASSERT_EQUAL(tap_runtime_suspend_all(r.ap, 3), 0);
    CU_ASSERT_EQUAL(tap_bundle_resume(r.ap, 3, 1), 0);
    CU_ASSERT_EQUAL(tap_functional(r.ap, 3, 1), 0);
    CU_ASSERT_EQUAL(sim_gbvp_remove(r.sim, 1, r.now), 0);
    tap_run(r.ap);
    CU_ASSERT_FALSE(tap_module_exists(r.ap, 3));
    CU_ASSERT_EQUAL(gb_svc_conn_count(gb_svc_connections(sim_gbvp_svc(r.sim))), 0);
    CU_ASSERT_EQUAL(tap_trace_find(r.ap, 0, "-> -"), -1);
    CU_ASSERT_EQUAL(r.bad_results, 0);
    CU_ASSERT_EQUAL(sim_gbvp_remove(r.sim, 1, r.now), -ENOENT);
    CU_ASSERT_NOT_EQUAL(sim_gbvp_insert(r.sim, 0, "no-such-module", r.now), 0);
    /* QEMU goes away: the SVC forgets the AP and waits for a new one */
    gbl_free(r.client);
    r.client = NULL;
    for (int i = 0; i < 20; i++)
        sim_gbvp_process(r.sim, r.now += SIM_MS(1));
    CU_ASSERT_FALSE(gb_svc_handshake_done(sim_gbvp_svc(r.sim)));
    tap_free(r.ap);
    sim_gbvp_free(r.sim);
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

static void test_sim_clear_of_hd_cport_0_ends_the_svc_session(void)
{
    rig r;
    rig_up(&r, "vibrator");
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 2).enabled);
    CU_ASSERT_TRUE(gb_svc_handshake_done(sim_gbvp_svc(r.sim)));
    /* the host driver unbinds: flush, quiesce, clear of the SVC CPort */
    CU_ASSERT_EQUAL(gbl_send_msg(r.client, GBL_T_CPORT_CLEAR, 0, 99, 0, NULL, 0), 0);
    pump(&r);
    CU_ASSERT_FALSE(gb_svc_handshake_done(sim_gbvp_svc(r.sim)));
    CU_ASSERT_EQUAL(gb_svc_conn_count(gb_svc_connections(sim_gbvp_svc(r.sim))), 0);
    /* a new driver instance connects again and gets a fresh handshake and the module */
    tap_free(r.ap);
    tap_config tc = { .transport = &transport, .num_slots = 4 };
    r.ap = tap_new(&tc);
    CU_ASSERT_EQUAL(tap_probe(r.ap), 0);
    tap_run(r.ap);
    CU_ASSERT_TRUE(tap_interface(r.ap, 2).enabled);
    CU_ASSERT_EQUAL(r.bad_results, 0);
    rig_down(&r);
}

static const unit_test sim_tests[] = {
    UNIT_TEST(test_sim_over_gblink_enumerates_a_module_like_6_1),
    UNIT_TEST(test_sim_over_gblink_hotplug_runtime_pm_and_disconnect),
    UNIT_TEST(test_sim_answers_bad_cport_control_with_invalid),
    UNIT_TEST(test_sim_clear_of_hd_cport_0_ends_the_svc_session),
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
