// SPDX-License-Identifier: MIT
// The simulator (SVC, switch fabric, slots and catalog modules) driven by the test AP in the
// same process exactly as Linux 6.1 drives it: bring-up, enumeration of every catalog
// module, removal (also in the middle of enumeration), eject, power_state, runtime PM, and
// the error paths.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ap-model/ap.h"
#include "gbvp/target/target_local.h"
#include "greybus/gb_message.h"
#include "greybus/svc_protocol.h"
#include "tests/unit/unit.h"
#include "virtual-modules/vm_interface.h"

static sim_local *RIG;
static tap *AP;

/* The simulator with the test AP attached and probed. */
static tap *ap_up(unsigned slots)
{
    char err[320];
    sim_local_config c = { .sim = { .num_slots = slots }, .ap = SIM_LOCAL_TEST_AP };
    RIG = sim_local_new(&c, err, sizeof err);
    if (!RIG)
        fprintf(stderr, "\n    %s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(RIG);
    AP = sim_local_test_ap(RIG);
    return AP;
}

static void ap_down(void)
{
    sim_local_free(RIG);
    RIG = NULL;
    AP = NULL;
}

static sim_simulator *SIM(void)
{
    return sim_local_simulator(RIG);
}

static gb_svc *SVC(void)
{
    return sim_simulator_svc(SIM());
}

static sw_fabric *FABRIC(void)
{
    return sim_simulator_fabric(SIM());
}

static size_t connections(void)
{
    return sw_conn_count(sw_fabric_connections(FABRIC()));
}

/* A module into the frame, the AP not told yet (to interleave events with enumeration). */
static int insert_only(unsigned slot, const char *name)
{
    const sim_target *t = sim_local_target(RIG);
    char err[320];
    int rc = t->ops->insert(t->ctx, slot, name, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n    insert %s: %s\n", name, err);
    return rc;
}

/* A module into the frame, then the AP does what it does about it. */
static int insert(unsigned slot, const char *name)
{
    int rc = insert_only(slot, name);
    tap_run(AP);
    return rc;
}

static int pull(unsigned slot)
{
    const sim_target *t = sim_local_target(RIG);
    char err[320];
    return t->ops->remove(t->ctx, slot, err, sizeof err);
}

static int remove_module(unsigned slot)
{
    int rc = pull(slot);
    tap_run(AP);
    return rc;
}

static bool traced(const char *needle)
{
    return tap_trace_find(AP, 0, needle) >= 0;
}

/* Every line of `seq` appears in the trace in this order. */
static bool traced_in_order(const char *const *seq, size_t n)
{
    long at = 0;
    for (size_t i = 0; i < n; i++) {
        at = tap_trace_find(AP, (size_t)at, seq[i]);
        if (at < 0) {
            fprintf(stderr, "\n    missing in order: '%s'\n", seq[i]);
            return false;
        }
        at++;
    }
    return true;
}

static void test_ap_probe_completes_the_handshake_and_reconfigures_the_ap_link(void)
{
    ap_up(4);
    CU_ASSERT_TRUE(gb_svc_handshake_done(SVC()));
    const char *seq[] = { "arpc CONNECTED 0", "svc: version 0.1", "svc: hello endo 0x4755 ap_intf_id 1",
                          "svc PWRMON_RAIL_COUNT_GET", "svc PWRMON_RAIL_NAMES_GET",
                          "svc INTF_SET_PWRM 1 -> 0" };
    CU_ASSERT_TRUE(traced_in_order(seq, 6));
    CU_ASSERT_FALSE(traced("power mode change failed"));
    CU_ASSERT_EQUAL(gb_svc_ap_link_tx_mode(SVC()), GB_SVC_UNIPRO_SLOW_AUTO_MODE);
    tap_advance(AP, SIM_MS(6100));
    CU_ASSERT_EQUAL(gb_svc_get_stats(SVC()).pings, 3);
    ap_down();
}

static void test_ap_enumerates_a_gpio_i2c_module_like_6_1(void)
{
    ap_up(4);
    CU_ASSERT_EQUAL(insert(0, "sensor"), 0);
    const char *seq[] = {
        "svc: module inserted 2 (1 interfaces)",
        "svc INTF_VSYS_ENABLE 2 -> 0", "svc INTF_REFCLK_ENABLE 2 -> 0",
        "svc INTF_UNIPRO_ENABLE 2 -> 0", "svc INTF_ACTIVATE 2 -> 0",
        "svc DME_PEER_GET 2 -> 0", "svc INTF_DEVICE_ID 2 -> 0", "svc ROUTE_CREATE 1 -> 0",
        "intf 2: Interface added", "svc DME_PEER_SET 2 -> 0", "usb CPORT_FLAGS 1 0x3",
        "svc CONN_CREATE 1 -> 0", "arpc CONNECTED 1", "ctl 2 VERSION -> 0",
        "ctl 2 GET_MANIFEST_SIZE -> 0", "ctl 2 GET_MANIFEST -> 0", "ctl 2 BUNDLE_ACTIVATE -> 0",
        "usb CPORT_FLAGS 2 0x0", "arpc CONNECTED 2", "ctl 2 CONNECTED 1 -> 0",
        "cport 2 proto 0x02 op 0x02 -> 0", "ctl 2 CONNECTED 2 -> 0",
        "cport 3 proto 0x03 op 0x02 -> 0",
    };
    CU_ASSERT_TRUE(traced_in_order(seq, sizeof seq / sizeof seq[0]));
    tap_intf_state s = tap_interface(AP, 2);
    CU_ASSERT_TRUE(s.registered && s.active && s.enabled);
    CU_ASSERT_EQUAL(s.type, GB_SVC_INTF_TYPE_GREYBUS);
    CU_ASSERT_EQUAL(s.device_id, 2);
    CU_ASSERT_EQUAL(s.ddbl1_mfr, 0x126);
    CU_ASSERT_EQUAL(s.bundles, 1);
    CU_ASSERT_EQUAL(s.bound_bundles, 1);
    CU_ASSERT_EQUAL(s.connections, 3);
    CU_ASSERT_EQUAL(s.control_hd_cport, 1);
    CU_ASSERT_EQUAL(tap_functional_ok(AP, 0x02), 1);
    CU_ASSERT_EQUAL(tap_functional_ok(AP, 0x03), 1);
    CU_ASSERT_EQUAL(tap_hd_cport(AP, 2, 1), 2);
    CU_ASSERT_EQUAL(connections(), 3);
    CU_ASSERT_FALSE(traced("-> -")); /* no operation failed */
    ap_down();
}

static void test_ap_enumerates_every_catalog_module(void)
{
    static const struct {
        const char *name;
        uint8_t protocol;
    } cat[] = { { "battery", 0x08 }, { "vibrator", 0x10 }, { "uart", 0x04 },
                { "loopback", 0x11 }, { "light", 0x0f }, { "keyboard", 0x05 } };
    ap_up(8);
    for (unsigned i = 0; i < sizeof cat / sizeof cat[0]; i++) {
        CU_ASSERT_EQUAL(insert(i, cat[i].name), 0);
        tap_intf_state s = tap_interface(AP, (uint8_t)(2 + i));
        CU_ASSERT_TRUE(s.enabled);
        CU_ASSERT_EQUAL(s.bound_bundles, 1);
        if (tap_functional_ok(AP, cat[i].protocol) != 1)
            fprintf(stderr, "\n    %s: functional request failed\n", cat[i].name);
        CU_ASSERT_EQUAL(tap_functional_ok(AP, cat[i].protocol), 1);
    }
    CU_ASSERT_FALSE(traced("-> -"));
    ap_down();
}

static void test_ap_enumerates_both_interfaces_of_a_dual_module(void)
{
    ap_up(4);
    CU_ASSERT_EQUAL(insert(1, "dual"), 0);
    CU_ASSERT_TRUE(traced("svc: module inserted 3 (2 interfaces)"));
    CU_ASSERT_TRUE(tap_interface(AP, 3).enabled);
    CU_ASSERT_TRUE(tap_interface(AP, 4).enabled);
    CU_ASSERT_EQUAL(tap_interface(AP, 4).device_id, 3);
    CU_ASSERT_NOT_EQUAL(tap_interface(AP, 3).serial, 0);
    /* the second slot is taken */
    CU_ASSERT_NOT_EQUAL(insert(2, "sensor"), 0);
    CU_ASSERT_EQUAL(remove_module(2), 0); /* through any of its slots */
    CU_ASSERT_FALSE(tap_module_exists(AP, 3));
    ap_down();
}

static void test_ap_removal_tears_down_without_module_traffic(void)
{
    ap_up(4);
    insert(0, "sensor");
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(remove_module(0), 0);
    const char *seq[] = { "svc: module removed 2", "arpc FLUSH", "svc CONN_DESTROY 1 -> 0",
                          "arpc CLEAR", "svc ROUTE_DESTROY 1 -> 0", "svc INTF_SET_PWRM 2 -> 0",
                          "svc INTF_UNIPRO_DISABLE 2 -> 0", "svc INTF_REFCLK_DISABLE 2 -> 0",
                          "svc INTF_VSYS_DISABLE 2 -> 0", "intf 2: Interface removed",
                          "module 2 removed" };
    CU_ASSERT_TRUE(traced_in_order(seq, sizeof seq / sizeof seq[0]));
    CU_ASSERT_FALSE(traced("ctl 2")); /* no control traffic to a removed module */
    CU_ASSERT_FALSE(traced("BUNDLE_DEACTIVATE"));
    CU_ASSERT_FALSE(traced("-> -"));
    CU_ASSERT_EQUAL(connections(), 0);
    CU_ASSERT_EQUAL(sw_route_lookup(sw_fabric_routes(FABRIC()), 2), -ENOENT);
    /* a new module in the same slot enumerates again, reusing hd CPorts and device id */
    CU_ASSERT_EQUAL(insert(0, "battery"), 0);
    CU_ASSERT_TRUE(tap_interface(AP, 2).enabled);
    CU_ASSERT_EQUAL(tap_interface(AP, 2).device_id, 2);
    CU_ASSERT_EQUAL(tap_interface(AP, 2).control_hd_cport, 1);
    ap_down();
}

typedef struct pull_ctx {
    const char *when;
    bool done;
} pull_ctx;

static void pull_at(void *ctx, tap *ap, const char *what)
{
    (void)ap;
    pull_ctx *p = ctx;
    if (!p->done && strstr(what, p->when)) {
        p->done = true;
        pull(0);
    }
}

static void removal_during(const char *when, const char *consequence)
{
    ap_up(4);
    pull_ctx p = { when, false };
    tap_set_step_hook(AP, pull_at, &p);
    CU_ASSERT_EQUAL(insert(0, "sensor"), 0);
    CU_ASSERT_TRUE(p.done);
    /* the AP finished (or abandoned) enumeration and then processed the removal */
    CU_ASSERT_FALSE(tap_module_exists(AP, 2));
    CU_ASSERT_EQUAL(connections(), 0);
    CU_ASSERT_EQUAL(sw_route_lookup(sw_fabric_routes(FABRIC()), 2), -ENOENT);
    CU_ASSERT_TRUE(traced("svc: module removed 2"));
    if (!traced(consequence))
        fprintf(stderr, "\n    removal at '%s': no '%s' in the trace\n", when, consequence);
    CU_ASSERT_TRUE(traced(consequence));
    gb_svc_intf_info info;
    gb_svc_get_intf(SVC(), 2, &info);
    CU_ASSERT_FALSE(info.present);
    /* the frame works again afterwards */
    tap_set_step_hook(AP, NULL, NULL);
    CU_ASSERT_EQUAL(insert(0, "sensor"), 0);
    CU_ASSERT_TRUE(tap_interface(AP, 2).enabled);
    CU_ASSERT_EQUAL(tap_functional_ok(AP, 0x02), 1);
    ap_down();
}

static void test_ap_removal_during_power_up_fails_activation_fast(void)
{
    removal_during("INTF_VSYS_ENABLE", "failed to activate interface 2");
}

static void test_ap_removal_during_dme_reads_fails_activation(void)
{
    removal_during("DME_PEER_GET", "failed to activate interface 2");
}

static void test_ap_removal_after_route_create_fails_enable(void)
{
    removal_during("ROUTE_CREATE", "failed to clear init status");
}

static void test_ap_removal_during_manifest_fetch(void)
{
    removal_during("GET_MANIFEST_SIZE", "ctl 2 GET_MANIFEST -> -110"); /* times out */
}

static void test_ap_removal_during_class_probe(void)
{
    removal_during("ctl 2 CONNECTED 1", "driver probe failed");
}

static void test_ap_insert_and_remove_before_ap_runs_is_invisible(void)
{
    ap_up(4);
    CU_ASSERT_EQUAL(insert_only(0, "sensor"), 0); /* MODULE_INSERTED goes out */
    CU_ASSERT_EQUAL(insert_only(1, "battery"), 0); /* queued behind it */
    CU_ASSERT_EQUAL(pull(1), 0);
    tap_run(AP);
    CU_ASSERT_TRUE(tap_interface(AP, 2).enabled);
    CU_ASSERT_FALSE(tap_module_exists(AP, 3));
    CU_ASSERT_FALSE(traced("module inserted 3"));
    CU_ASSERT_FALSE(traced("module removed 3"));
    ap_down();
}

static void test_ap_eject_releases_the_module_and_the_svc_reports_removal(void)
{
    ap_up(4);
    insert(0, "sensor");
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(tap_eject(AP, 2), 0);
    const char *seq[] = { "ctl 2 DISCONNECTING 1", "cport 2 SHUTDOWN phase 1 -> 0",
                          "arpc QUIESCE 2", "cport 2 SHUTDOWN phase 2 -> 0",
                          "ctl 2 DISCONNECTED 1 -> 0", "ctl 2 BUNDLE_DEACTIVATE -> 0",
                          "ctl 2 INTF_DEACTIVATE_PREPARE -> 0", "ctl 2 DISCONNECTING 0 -> 0",
                          "cport 1 SHUTDOWN phase 2 -> 0", "svc ROUTE_DESTROY",
                          "svc INTF_VSYS_DISABLE 2 -> 0", "svc INTF_EJECT 2 -> 0",
                          "svc: module removed 2", "module 2 removed" };
    CU_ASSERT_TRUE(traced_in_order(seq, sizeof seq / sizeof seq[0]));
    CU_ASSERT_FALSE(traced("-> -"));
    CU_ASSERT_PTR_NULL(sim_simulator_module_name(SIM(), 0)); /* the slot is free */
    CU_ASSERT_EQUAL(insert(0, "vibrator"), 0);
    CU_ASSERT_TRUE(tap_interface(AP, 2).enabled);
    ap_down();
}

static void test_ap_power_state_off_and_on_reactivates_without_dme_rereads(void)
{
    ap_up(4);
    insert(0, "sensor");
    CU_ASSERT_EQUAL(tap_power_state(AP, 2, false), 0);
    CU_ASSERT_FALSE(tap_interface(AP, 2).active);
    gb_svc_intf_info info;
    gb_svc_get_intf(SVC(), 2, &info);
    CU_ASSERT_FALSE(info.vsys);
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(tap_power_state(AP, 2, true), 0);
    CU_ASSERT_TRUE(tap_interface(AP, 2).enabled);
    /* ids cached: the only DME get is the init status (re-armed by the new ACTIVATE) */
    long first = tap_trace_find(AP, 0, "svc DME_PEER_GET");
    CU_ASSERT_TRUE(first >= 0);
    CU_ASSERT_EQUAL(tap_trace_find(AP, (size_t)first + 1, "svc DME_PEER_GET"), -1);
    CU_ASSERT_FALSE(traced("-> -"));
    CU_ASSERT_EQUAL(tap_functional_ok(AP, 0x02), 2);
    ap_down();
}

static void test_ap_runtime_pm_suspends_and_resumes_keeping_module_state(void)
{
    ap_up(4);
    insert(0, "sensor");
    vm_interface *vi = sim_simulator_interface(SIM(), 0, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(vi);
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(tap_runtime_suspend_all(AP, 2), 0);
    const char *seq[] = { "ctl 2 DISCONNECTING 1", "ctl 2 DISCONNECTED 1 -> 0",
                          "ctl 2 DISCONNECTED 2 -> 0", "ctl 2 BUNDLE_SUSPEND -> 0",
                          "ctl 2 INTF_SUSPEND_PREPARE -> 0", "ctl 2 DISCONNECTING 0 -> 0",
                          "svc CONN_DESTROY 1 -> 0", "svc INTF_SET_PWRM 2 -> 0",
                          "svc INTF_REFCLK_DISABLE 2 -> 0" };
    CU_ASSERT_TRUE(traced_in_order(seq, sizeof seq / sizeof seq[0]));
    gb_svc_intf_info info;
    gb_svc_get_intf(SVC(), 2, &info);
    CU_ASSERT_TRUE(info.hibernated);
    CU_ASSERT_FALSE(info.refclk);
    CU_ASSERT_TRUE(info.vsys);
    CU_ASSERT_EQUAL(connections(), 0);
    CU_ASSERT_FALSE(vm_interface_is_active(vi)); /* its link is hibernated */
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(tap_bundle_resume(AP, 2, 1), 0);
    const char *rs[] = { "svc INTF_REFCLK_ENABLE 2 -> 0", "svc INTF_RESUME 2 -> 0",
                         "usb CPORT_FLAGS 1 0x3", "arpc CONNECTED 1", "ctl 2 BUNDLE_RESUME -> 0",
                         "ctl 2 CONNECTED 1 -> 0", "ctl 2 CONNECTED 2 -> 0" };
    CU_ASSERT_TRUE(traced_in_order(rs, sizeof rs / sizeof rs[0]));
    CU_ASSERT_FALSE(traced("-> -"));
    CU_ASSERT_EQUAL(tap_interface(AP, 2).control_hd_cport, 1); /* same hd CPorts */
    CU_ASSERT_EQUAL(tap_hd_cport(AP, 2, 1), 2);
    CU_ASSERT_EQUAL(tap_functional(AP, 2, 1), 0);
    CU_ASSERT_EQUAL(connections(), 3);
    gb_svc_get_intf(SVC(), 2, &info);
    CU_ASSERT_EQUAL(info.activations, 1); /* resumed, never re-activated (rebooted) */
    CU_ASSERT_EQUAL(info.resumes, 1);
    CU_ASSERT_TRUE(vm_interface_is_active(vi));
    ap_down();
}

/* A module's power-management refusal reaches the caller as 6.1 maps it: the bundle and
 * the interface status sets differ (BUSY is 2 for a bundle, 1 for an interface). */
static int pm_fault(const char *line)
{
    vm_reply reply;
    return sim_simulator_command(SIM(), 0, 0, line, &reply);
}

static void test_ap_power_management_refusals_map_to_6_1_errors(void)
{
    ap_up(4);
    insert(0, "sensor");
    const struct { const char *fault; int want; } bundle[] = {
        { "pm bundle-suspend 1", -EINVAL }, { "pm bundle-suspend 2", -EBUSY },
        { "pm bundle-suspend 3", -EREMOTEIO }, { "pm bundle-suspend 4", -ENOMSG },
    };
    for (size_t i = 0; i < sizeof bundle / sizeof bundle[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(pm_fault(bundle[i].fault), 0);
        CU_ASSERT_EQUAL(tap_bundle_suspend(AP, 2, 1), bundle[i].want);
    }
    CU_ASSERT_EQUAL_FATAL(pm_fault("pm bundle-suspend 0"), 0);
    CU_ASSERT_EQUAL(tap_bundle_suspend(AP, 2, 1), 0);
    const struct { const char *fault; int want; } intf[] = {
        { "pm intf-suspend-prepare 1", -EBUSY }, { "pm intf-suspend-prepare 2", -ENOMSG },
        { "pm intf-suspend-prepare 3", -EREMOTEIO },
    };
    for (size_t i = 0; i < sizeof intf / sizeof intf[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(pm_fault(intf[i].fault), 0);
        CU_ASSERT_EQUAL(tap_intf_suspend(AP, 2), intf[i].want);
    }
    ap_down();
}

static void test_ap_removal_while_suspended_fails_resume_fast(void)
{
    ap_up(4);
    insert(0, "sensor");
    CU_ASSERT_EQUAL(tap_runtime_suspend_all(AP, 2), 0);
    sim_time before = tap_now(AP);
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(remove_module(0), 0);
    /* the resume the AP attempts first fails at once: REFCLK cannot be enabled */
    CU_ASSERT_TRUE(traced("svc INTF_REFCLK_ENABLE 2 result_code 2"));
    CU_ASSERT_FALSE(traced("svc INTF_RESUME"));
    CU_ASSERT_FALSE(tap_module_exists(AP, 2));
    CU_ASSERT_TRUE(tap_now(AP) - before < SIM_MS(100)); /* no timeouts on the way */
    ap_down();
}

static void test_ap_requests_on_closed_connections_get_no_answer(void)
{
    ap_up(4);
    insert(0, "sensor");
    CU_ASSERT_EQUAL(tap_bundle_suspend(AP, 2, 1), 0);
    /* the AP side refuses locally, like gb_operation_request_send */
    CU_ASSERT_EQUAL(tap_functional(AP, 2, 1), -ENOTCONN);
    /* bytes sent anyway on the closed hd CPort are dropped by the data path */
    uint64_t dropped = sw_fabric_get_stats(FABRIC()).dropped;
    uint8_t msg[8] = { 8, 0, 9, 0, 0x02, 0, 0, 0 };
    tap_send_raw(AP, 2, msg, sizeof msg);
    CU_ASSERT_EQUAL(sw_fabric_get_stats(FABRIC()).dropped, dropped + 1);
    /* and a request on a connection the module has not connected gets no answer */
    CU_ASSERT_EQUAL(tap_conn_op(AP, 2, 0x02, NULL, 0, NULL, 1), -ENOTCONN);
    ap_down();
}

static void test_ap_unknown_operation_types_are_answered_with_errors(void)
{
    ap_up(4);
    insert(0, "sensor");
    uint16_t gpio = tap_hd_cport(AP, 2, 1);
    CU_ASSERT_EQUAL(tap_conn_op(AP, gpio, 0x7e, NULL, 0, NULL, 0), -EPROTONOSUPPORT);
    CU_ASSERT_EQUAL(tap_svc_op(AP, 0x7e, NULL, 0, NULL, 0), -EPROTONOSUPPORT);
    CU_ASSERT_EQUAL(tap_svc_op(AP, GB_SVC_TYPE_TIMESYNC_PING, NULL, 0, NULL, 0),
                    -EPROTONOSUPPORT);
    /* a response size the AP does not expect is -EMSGSIZE, as in 6.1 */
    uint8_t big[4];
    CU_ASSERT_EQUAL(tap_svc_op(AP, GB_SVC_TYPE_PING, NULL, 0, big, 4), -EMSGSIZE);
    ap_down();
}

static void test_ap_bad_svc_requests_after_hello_are_rejected_by_the_ap(void)
{
    ap_up(4);
    /* a second handshake from the SVC would be refused by the AP: check the AP side model */
    gb_svc_start(SVC(), sim_simulator_now(SIM()));
    tap_run(AP);
    CU_ASSERT_EQUAL(tap_last_svc_request_result(AP), GB_OP_INVALID);
    CU_ASSERT_TRUE(traced("unexpected request 0x01"));
    ap_down();
}

static void test_ap_mode_switch_gets_the_mailbox_event_and_reenumerates(void)
{
    ap_up(4);
    insert(0, "sensor");
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(tap_mode_switch(AP, 2), 0);
    const char *seq[] = { "ctl 2 BUNDLE_DEACTIVATE -> 0", "ctl 2 DISCONNECTING 0 -> 0",
                          "cport 1 SHUTDOWN phase 2 -> 0", "ctl 2 MODE_SWITCH (unidirectional)",
                          "intf 2: mode switch detected", "svc CONN_DESTROY 1 -> 0",
                          "arpc CLEAR 1", "svc DME_PEER_GET 2 -> 0", "ctl 2 GET_MANIFEST -> 0",
                          "ctl 2 BUNDLE_ACTIVATE -> 0" };
    CU_ASSERT_TRUE(traced_in_order(seq, sizeof seq / sizeof seq[0]));
    CU_ASSERT_FALSE(traced("INTF_DEACTIVATE_PREPARE")); /* not in a mode switch */
    CU_ASSERT_FALSE(traced("-> -"));
    CU_ASSERT_TRUE(tap_interface(AP, 2).enabled);
    CU_ASSERT_EQUAL(tap_functional_ok(AP, 0x02), 2);
    /* a second mailbox event nobody asked for would disable the interface: none is sent */
    tap_advance(AP, SIM_MS(3000));
    CU_ASSERT_FALSE(traced("unexpected mailbox event"));
    ap_down();
}

/* fw-management lets the AP switch modes again on the same activation (bootrom, S2 loader,
 * firmware): each MODE_SWITCH gets its own mailbox event, not only the first. */
static void test_ap_second_mode_switch_gets_a_mailbox_event_too(void)
{
    ap_up(4);
    insert(0, "sensor");
    CU_ASSERT_EQUAL(tap_mode_switch(AP, 2), 0);
    tap_trace_clear(AP);
    CU_ASSERT_EQUAL(tap_mode_switch(AP, 2), 0);
    CU_ASSERT_TRUE(traced("intf 2: mode switch detected"));
    CU_ASSERT_FALSE(traced("mode switch timed out"));
    CU_ASSERT_TRUE(tap_interface(AP, 2).enabled);
    CU_ASSERT_EQUAL(tap_functional_ok(AP, 0x02), 3); /* enumerated three times, GPIO works */
    ap_down();
}

/* A broken interface for the enable error paths: correct DME identity, but its control
 * CPort serves a bad manifest (or a bad version). Only what these tests need. */
typedef enum broken_mode { BROKEN_GARBAGE, BROKEN_SIZE_ZERO, BROKEN_VERSION } broken_mode;

typedef struct broken_intf {
    broken_mode mode;
    sw_fabric *fabric;
    uint8_t id;
    uint32_t init_status;
} broken_intf;

static uint8_t br_type(void *self)
{
    (void)self;
    return GB_SVC_INTF_TYPE_GREYBUS;
}

static uint16_t br_get(void *self, uint16_t attr, uint16_t sel, uint32_t *v)
{
    (void)sel;
    broken_intf *b = self;
    *v = attr == 0x5003 ? 0x126u : attr == 0x5004 ? 0x1002u : attr == 0x6101 ? b->init_status : 7u;
    return 0;
}

static uint16_t br_set(void *self, uint16_t attr, uint16_t sel, uint32_t v)
{
    (void)sel;
    if (attr == 0x6101)
        ((broken_intf *)self)->init_status = v;
    return 0;
}

static void br_power(void *self, gb_svc_power_event ev, sim_time now)
{
    (void)now;
    if (ev == GB_SVC_PWR_ACTIVATE)
        ((broken_intf *)self)->init_status = 0x04000000u;
}

static int br_connect(void *self, uint16_t c, uint8_t d, uint16_t pc, uint8_t tc, uint8_t f,
                      sim_time now)
{
    (void)self, (void)c, (void)d, (void)pc, (void)tc, (void)f, (void)now;
    return 0;
}

static void br_disconnect(void *self, uint16_t c, sim_time now)
{
    (void)self, (void)c, (void)now;
}

/* The broken interface as an endpoint of the fabric: it answers its control CPort. */
static void br_receive(void *self, uint16_t cport, const gb_msg *m, sim_time now)
{
    (void)now;
    broken_intf *b = self;
    gb_msg_header h = m->h;
    if (gb_msg_is_response(h.type) || !h.operation_id)
        return;
    uint8_t out[64], p[32];
    size_t plen = 0;
    if (h.type == 0x01) { /* VERSION */
        p[0] = b->mode == BROKEN_VERSION ? 1 : 0;
        p[1] = 1;
        plen = 2;
    } else if (h.type == 0x03) { /* GET_MANIFEST_SIZE */
        gb_put_le16(p, b->mode == BROKEN_SIZE_ZERO ? 0 : 16);
        plen = 2;
    } else if (h.type == 0x04) { /* GET_MANIFEST: 16 bytes claiming to be 300 */
        memset(p, 0xa5, 16);
        gb_put_le16(p, 300);
        plen = 16;
    }
    gb_msg r;
    size_t n = gb_msg_build_response(out, sizeof out, &h, 0, p, plen);
    if (!gb_msg_parse(out, n, &r))
        sw_fabric_send(b->fabric, b->id, cport, &r);
}

static const gb_svc_intf_ops broken_ops = {
    .intf_type = br_type, .dme_get = br_get, .dme_set = br_set, .power = br_power,
    .cport_connect = br_connect, .cport_disconnect = br_disconnect,
};

static void broken_enable(broken_mode mode, int want, const char *why)
{
    ap_up(4);
    broken_intf b = { .mode = mode, .fabric = FABRIC(), .id = 2 };
    void *self = &b;
    sw_endpoint ep = { .receive = br_receive, .ctx = &b };
    CU_ASSERT_EQUAL(sw_fabric_attach(FABRIC(), 2, &ep), 0);
    CU_ASSERT_EQUAL(gb_svc_insert(SVC(), 0, 1, "broken", &broken_ops, &self,
                                  sim_simulator_now(SIM())), 0);
    tap_run(AP);
    tap_intf_state s = tap_interface(AP, 2);
    CU_ASSERT_TRUE(s.registered);
    CU_ASSERT_FALSE(s.enabled);
    CU_ASSERT_FALSE(s.active); /* deactivated after the failed enable */
    CU_ASSERT_EQUAL(s.enable_error, want);
    if (why)
        CU_ASSERT_TRUE(traced(why));
    const char *seq[] = { "ctl 2 DISCONNECTING 0", "svc CONN_DESTROY 1 -> 0",
                          "svc ROUTE_DESTROY 1 -> 0", "svc INTF_VSYS_DISABLE 2 -> 0" };
    CU_ASSERT_TRUE(traced_in_order(seq, 4));
    CU_ASSERT_EQUAL(connections(), 0);
    gb_svc_remove(SVC(), 0, sim_simulator_now(SIM()));
    sw_fabric_detach(FABRIC(), 2);
    tap_run(AP);
    CU_ASSERT_FALSE(tap_module_exists(AP, 2));
    ap_down();
}

static void test_ap_bad_manifest_fails_enable_and_deactivates(void)
{
    broken_enable(BROKEN_GARBAGE, -EINVAL, "failed to parse manifest");
}

static void test_ap_zero_manifest_size_fails_enable(void)
{
    broken_enable(BROKEN_SIZE_ZERO, -EINVAL, NULL);
}

static void test_ap_control_major_version_1_fails_enable(void)
{
    broken_enable(BROKEN_VERSION, -524, NULL);
}

/* ---- a wall-clock transport: an AP in another process, timed as a guest kernel ---- */

typedef struct wall_rig {
    tap *ap;
    sim_time clock;     /* the wall clock, 5 ms per pump */
    bool answer;        /* the far side answers every request (else drops it: module gone) */
    bool busy;          /* unrelated traffic reaches the AP at every pump */
    unsigned hello;     /* handshake requests delivered */
    uint8_t resp[GB_MSG_MAX_SIZE];
    size_t resp_len;    /* an answer to deliver at the next pump */
} wall_rig;

static void wall_send(void *ctx, uint16_t cport, const uint8_t *msg, size_t len)
{
    wall_rig *r = ctx;
    gb_msg_header h;
    if (cport != 0 || !r->answer || gb_msg_header_decode(msg, len, &h) ||
        gb_msg_is_response(h.type))
        return;
    r->resp_len = gb_msg_build_response(r->resp, sizeof r->resp, &h, GB_OP_SUCCESS, NULL, 0);
}

static bool wall_pump(void *ctx)
{
    wall_rig *r = ctx;
    r->clock += SIM_MS(5);
    tap_set_now(r->ap, r->clock);
    if (r->clock > SIM_S(120)) /* bounds an AP that never times out */
        return false;
    uint8_t m[GB_MSG_MAX_SIZE];
    if (r->hello < 2) {
        static const uint8_t version[] = { GB_SVC_VERSION_MAJOR, 1 }, hello[] = { 0x55, 0x47, 1 };
        size_t n = r->hello == 0
                       ? gb_msg_build(m, sizeof m, 1, GB_SVC_TYPE_PROTOCOL_VERSION, 0, version, 2)
                       : gb_msg_build(m, sizeof m, 2, GB_SVC_TYPE_SVC_HELLO, 0, hello, 3);
        r->hello++;
        tap_deliver(r->ap, 0, m, n);
        return true;
    }
    if (r->resp_len) {
        tap_deliver(r->ap, 0, r->resp, r->resp_len);
        r->resp_len = 0;
        return true;
    }
    if (r->busy) { /* a stray response: traffic that answers nothing the AP waits for */
        gb_msg_header h = { .size = GB_MSG_HEADER_SIZE, .operation_id = 0xfff0,
                            .type = GB_SVC_TYPE_PING };
        tap_deliver(r->ap, 0, m, gb_msg_build_response(m, sizeof m, &h, GB_OP_SUCCESS, NULL, 0));
        return true;
    }
    return false;
}

/* Requests to a module pulled out mid-enumeration are dropped; the AP must give each up at
 * the kernel's timeout on its wall clock: not at the first quiet moment of the link, not
 * later because other messages keep arriving, and without its clock running ahead. */
static void test_ap_on_a_wall_clock_transport_times_out_at_the_linux_timeout(void)
{
    wall_rig r = { .answer = true };
    tap_transport tr = { .send = wall_send, .pump = wall_pump, .ctx = &r, .wall_clock = true };
    tap_config c = { .transport = &tr };
    r.ap = tap_new(&c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.ap);
    CU_ASSERT_EQUAL_FATAL(tap_probe(r.ap), 0);
    r.answer = false;
    static const struct { uint8_t type; sim_time timeout; } ops[] = {
        { GB_SVC_TYPE_INTF_DEVICE_ID, SIM_MS(1000) }, /* GB_OPERATION_TIMEOUT_DEFAULT */
        { GB_SVC_TYPE_INTF_ACTIVATE, SIM_MS(6000) },  /* SVC_INTF_ACTIVATE_TIMEOUT */
    };
    for (int busy = 0; busy < 2; busy++) {
        r.busy = busy;
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            sim_time t0 = r.clock;
            uint8_t req[2] = { 3, 2 };
            CU_ASSERT_EQUAL(tap_svc_op(r.ap, ops[i].type, req, 2, NULL, 0), -ETIMEDOUT);
            sim_time waited = r.clock - t0;
            if (waited < ops[i].timeout || waited > ops[i].timeout + SIM_MS(10))
                fprintf(stderr, "\n    busy %d, type 0x%02x: gave up after %.3f s\n", busy,
                        ops[i].type, (double)waited / 1e12);
            CU_ASSERT_TRUE(waited >= ops[i].timeout && waited <= ops[i].timeout + SIM_MS(10));
            CU_ASSERT_TRUE(tap_now(r.ap) <= r.clock + SIM_MS(1));
        }
    }
    r.answer = true; /* and answers still arrive */
    uint8_t req[2] = { 3, 2 };
    CU_ASSERT_EQUAL(tap_svc_op(r.ap, GB_SVC_TYPE_INTF_DEVICE_ID, req, 2, NULL, 0), 0);
    tap_free(r.ap);
}

static const unit_test ap_tests[] = {
    UNIT_TEST(test_ap_probe_completes_the_handshake_and_reconfigures_the_ap_link),
    UNIT_TEST(test_ap_enumerates_a_gpio_i2c_module_like_6_1),
    UNIT_TEST(test_ap_enumerates_every_catalog_module),
    UNIT_TEST(test_ap_enumerates_both_interfaces_of_a_dual_module),
    UNIT_TEST(test_ap_removal_tears_down_without_module_traffic),
    UNIT_TEST(test_ap_removal_during_power_up_fails_activation_fast),
    UNIT_TEST(test_ap_removal_during_dme_reads_fails_activation),
    UNIT_TEST(test_ap_removal_after_route_create_fails_enable),
    UNIT_TEST(test_ap_removal_during_manifest_fetch),
    UNIT_TEST(test_ap_removal_during_class_probe),
    UNIT_TEST(test_ap_insert_and_remove_before_ap_runs_is_invisible),
    UNIT_TEST(test_ap_eject_releases_the_module_and_the_svc_reports_removal),
    UNIT_TEST(test_ap_power_state_off_and_on_reactivates_without_dme_rereads),
    UNIT_TEST(test_ap_runtime_pm_suspends_and_resumes_keeping_module_state),
    UNIT_TEST(test_ap_mode_switch_gets_the_mailbox_event_and_reenumerates),
    UNIT_TEST(test_ap_second_mode_switch_gets_a_mailbox_event_too),
    UNIT_TEST(test_ap_power_management_refusals_map_to_6_1_errors),
    UNIT_TEST(test_ap_removal_while_suspended_fails_resume_fast),
    UNIT_TEST(test_ap_requests_on_closed_connections_get_no_answer),
    UNIT_TEST(test_ap_unknown_operation_types_are_answered_with_errors),
    UNIT_TEST(test_ap_bad_svc_requests_after_hello_are_rejected_by_the_ap),
    UNIT_TEST(test_ap_bad_manifest_fails_enable_and_deactivates),
    UNIT_TEST(test_ap_zero_manifest_size_fails_enable),
    UNIT_TEST(test_ap_control_major_version_1_fails_enable),
    UNIT_TEST(test_ap_on_a_wall_clock_transport_times_out_at_the_linux_timeout),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "svc_ap", ap_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
