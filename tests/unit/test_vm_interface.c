// SPDX-License-Identifier: MIT
// Interface model: message header, DME table, power and connection rules, CPort Shutdown,
// dispatch errors, and the control protocol as Linux 6.1 drivers/greybus/control.c uses it.
#include <errno.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/dme.h"
#include "greybus/gb_protocols.h"

/* docs/greybus.md, "Manifest example": "Project Ara" / "Simple GPIO Interface", bundle 1
 * class 0x0a, CPort 1 protocol GPIO: 76 bytes. */
static const char simple_gpio_mnfs[] =
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
    "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
    "[string-descriptor 1]\nstring = Project Ara\n"
    "[string-descriptor 2]\nstring = Simple GPIO Interface\n"
    "[bundle-descriptor 1]\nclass = 0x0a\n"
    "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n";

static const uint8_t simple_gpio_mnfb[76] = {
    0x4c, 0x00, 0x00, 0x01, 0x08, 0x00, 0x01, 0x00, 0x01, 0x02, 0x00, 0x00, 0x14, 0x00, 0x02,
    0x00, 0x0b, 0x01, 0x50, 0x72, 0x6f, 0x6a, 0x65, 0x63, 0x74, 0x20, 0x41, 0x72, 0x61, 0x00,
    0x00, 0x00, 0x1c, 0x00, 0x02, 0x00, 0x15, 0x02, 0x53, 0x69, 0x6d, 0x70, 0x6c, 0x65, 0x20,
    0x47, 0x50, 0x49, 0x4f, 0x20, 0x49, 0x6e, 0x74, 0x65, 0x72, 0x66, 0x61, 0x63, 0x65, 0x00,
    0x08, 0x00, 0x03, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x08, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01,
    0x02,
};

/* Two bundles: bridged PHY (GPIO on CPort 1, I2C on CPort 2) and loopback (CPort 5). */
static const char two_bundle_mnfs[] =
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
    "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
    "[string-descriptor 1]\nstring = gbvp\n"
    "[string-descriptor 2]\nstring = two bundles\n"
    "[bundle-descriptor 1]\nclass = 0x0a\n"
    "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n"
    "[cport-descriptor 2]\nbundle = 1\nprotocol = 0x03\n"
    "[bundle-descriptor 2]\nclass = 0x11\n"
    "[cport-descriptor 5]\nbundle = 2\nprotocol = 0x11\n";

/* ---- gb_message ---- */

static void test_gb_msg_header_round_trip_is_little_endian(void)
{
    uint8_t buf[16];
    uint8_t payload[2] = {0xaa, 0xbb};
    size_t n = gb_msg_build(buf, sizeof buf, 0x1234, 0x82, 0x06, payload, 2);
    const uint8_t want[] = {0x0a, 0x00, 0x34, 0x12, 0x82, 0x06, 0x00, 0x00, 0xaa, 0xbb};
    CU_ASSERT_EQUAL(n, sizeof want);
    CU_ASSERT_EQUAL(memcmp(buf, want, sizeof want), 0);
    gb_msg_header h;
    CU_ASSERT_EQUAL(gb_msg_header_decode(buf, n, &h), 0);
    CU_ASSERT_EQUAL(h.size, 10);
    CU_ASSERT_EQUAL(h.operation_id, 0x1234);
    CU_ASSERT_TRUE(gb_msg_is_response(h.type));
    CU_ASSERT_EQUAL(gb_msg_base_type(h.type), 0x02);
    CU_ASSERT_EQUAL(h.result, GB_OP_INVALID);
}

static void test_gb_msg_decode_rejects_short_and_inconsistent_sizes(void)
{
    uint8_t buf[10] = {0x0a, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00};
    gb_msg_header h;
    CU_ASSERT_EQUAL(gb_msg_header_decode(buf, 7, &h), -EINVAL);
    CU_ASSERT_EQUAL(gb_msg_header_decode(buf, 9, &h), -EMSGSIZE);
    buf[0] = 0x04; /* size smaller than a header */
    CU_ASSERT_EQUAL(gb_msg_header_decode(buf, 10, &h), -EMSGSIZE);
}

static void test_gb_msg_build_refuses_oversized_payload(void)
{
    static uint8_t big[GB_MSG_MAX_SIZE + 8];
    static uint8_t out[GB_MSG_MAX_SIZE + 16];
    CU_ASSERT_EQUAL(gb_msg_build(out, sizeof out, 1, 2, 0, big, GB_MSG_MAX_PAYLOAD + 1), 0);
    CU_ASSERT_EQUAL(gb_msg_build(out, sizeof out, 1, 2, 0, big, GB_MSG_MAX_PAYLOAD),
                    GB_MSG_MAX_SIZE);
    CU_ASSERT_EQUAL(gb_msg_build(out, 9, 1, 2, 0, big, 2), 0);
}

static void test_gb_result_maps_to_linux_errno(void)
{
    CU_ASSERT_EQUAL(gb_result_to_errno(GB_OP_NONEXISTENT), -ENODEV);
    CU_ASSERT_EQUAL(gb_result_to_errno(GB_OP_PROTOCOL_BAD), -EPROTONOSUPPORT);
    CU_ASSERT_EQUAL(gb_result_to_errno(GB_OP_INVALID_STATE), -EIO);
    CU_ASSERT_STRING_EQUAL(gb_result_name(GB_OP_OVERFLOW), "overflow");
}

/* ---- DME ---- */

static void test_dme_reports_toshiba_ids_and_serial(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    uint32_t v = 0;
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_DDBL1_MANUFACTURERID, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x126);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_DDBL1_PRODUCTID, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x1002);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_GMP_VID, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x1234);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_GMP_PID, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x5678);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_GMP_SN0, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x55667788);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_GMP_SN1, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x11223344);
    vmt_down(&t);
}

static void test_dme_init_status_is_rearmed_on_every_activation(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    uint32_t v = 0;
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, &v), 0);
    CU_ASSERT_EQUAL(v, VM_INIT_STATUS_DEFAULT);
    /* the AP clears it after reading it */
    CU_ASSERT_EQUAL(vm_interface_dme_set(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, 0), 0);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_ACTIVATE), 0);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, &v), 0);
    CU_ASSERT_EQUAL(v, VM_INIT_STATUS_DEFAULT);
    vmt_down(&t);
}

static void test_dme_es2_product_reports_init_status_in_tst_src_increment(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs,
                           "[interface]\nddbl1-product-id = 0x1000\ninit-status = 0x03000000\n",
                           NULL, 0));
    uint32_t v = 0;
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_DDBL1_PRODUCTID, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x1000);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_T_TST_SRC_INCREMENT, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x03);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 0x03000000);
    vmt_down(&t);
}

static void test_dme_errors_use_unipro_result_codes(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    uint32_t v = 0xdead;
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, 0x7777, 0, &v), VM_DME_INVALID_MIB_ATTRIBUTE);
    CU_ASSERT_EQUAL(v, 0xdead);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_DDBL1_MANUFACTURERID, 3, &v),
                    VM_DME_BAD_INDEX);
    CU_ASSERT_EQUAL(vm_interface_dme_set(t.intf, VM_DME_DDBL1_MANUFACTURERID, 0, 1),
                    VM_DME_READ_ONLY_MIB_ATTRIBUTE);
    CU_ASSERT_EQUAL(vm_interface_dme_set(t.intf, VM_DME_N_DEVICEID, 0, 200),
                    VM_DME_INVALID_MIB_ATTRIBUTE_VALUE);
    CU_ASSERT_EQUAL(vm_interface_dme_set(t.intf, VM_DME_N_DEVICEID, 0, 2), VM_DME_SUCCESS);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_VSYS_DISABLE), 0);
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_DDBL1_MANUFACTURERID, 0, &v),
                    VM_DME_PEER_COMMUNICATION_FAILURE);
    vmt_down(&t);
}

/* ---- power and connections ---- */

static void test_activate_needs_vsys_refclk_and_unipro(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_UNIPRO_DISABLE), 0);
    CU_ASSERT_FALSE(vm_interface_is_active(t.intf));
    CU_ASSERT_FALSE(vm_interface_cport_connected(t.intf, 0));
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_ACTIVATE), -ENODEV);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_UNIPRO_ENABLE), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_ACTIVATE), 0);
    CU_ASSERT_EQUAL(vm_interface_type(t.intf), VM_INTF_TYPE_GREYBUS);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, (vm_power_event)99), -EINVAL);
    vmt_down(&t);
}

static void test_connect_refuses_cports_not_in_manifest(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 7), -ENOENT);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 0), -EBUSY);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 1), -ENOTCONN);
    /* runtime PM reconnects the same CPort */
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_HIBERNATE), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 0), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 0), -ENODEV);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_RESUME), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 0), 0);
    vmt_down(&t);
}

static void test_request_on_disconnected_cport_is_dropped_unanswered(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    uint8_t msg[8] = {0x08, 0x00, 0x02, 0x00, GB_GPIO_TYPE_LINE_COUNT, 0, 0, 0};
    CU_ASSERT_EQUAL(vmt_receive(&t, 1, msg, 8, 0), -ENOTCONN);
    CU_ASSERT_EQUAL(vmt_receive(&t, 99, msg, 8, 0), -ENOTCONN);
    CU_ASSERT_EQUAL(t.sink.n, 0);
    vm_interface_stats st;
    vm_interface_get_stats(t.intf, &st);
    CU_ASSERT_EQUAL(st.dropped, 2);
    vmt_down(&t);
}

/* A malformed header is refused where the message enters gbvp (gb_msg_parse), so no
 * interface ever sees it and nothing is answered. */
static void test_malformed_header_is_refused_before_the_interface(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    uint8_t msg[9] = {0x08, 0x00, 0x02, 0x00, GB_CONTROL_TYPE_GET_MANIFEST_SIZE, 0, 0, 0, 0};
    gb_msg m;
    CU_ASSERT_EQUAL(gb_msg_parse(msg, 9, &m), -EMSGSIZE); /* size field says 8 */
    CU_ASSERT_EQUAL(gb_msg_parse(msg, 5, &m), -EINVAL);   /* shorter than a header */
    CU_ASSERT_EQUAL(t.sink.n, 0);
    /* the same request with a consistent header is answered */
    gb_put_le16(msg, 8);
    CU_ASSERT_EQUAL(vmt_receive(&t, 0, msg, 8, 0), 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    vmt_down(&t);
}

static void test_cport_shutdown_is_answered_on_every_cport(void)
{
    vmt t;
    const uint16_t cports[] = {1, 2, 5};
    CU_ASSERT_FATAL(vmt_up(&t, two_bundle_mnfs, NULL, cports, 3));
    uint8_t phase = 1;
    const uint16_t all[] = {0, 1, 2, 5};
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(vmt_request(&t, all[i], 9, GB_REQUEST_TYPE_CPORT_SHUTDOWN, &phase, 1), 1);
        vmt_expect_response(&t, t.sink.n - 1, all[i], 9, 0x00, GB_OP_SUCCESS, NULL, 0);
    }
    phase = 3;
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 10, GB_REQUEST_TYPE_CPORT_SHUTDOWN, &phase, 1), 1);
    vmt_expect_response(&t, t.sink.n - 1, 1, 10, 0x00, GB_OP_INVALID, NULL, 0);
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 11, GB_REQUEST_TYPE_CPORT_SHUTDOWN, NULL, 0), 1);
    vmt_expect_response(&t, t.sink.n - 1, 1, 11, 0x00, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_unknown_protocol_cport_answers_protocol_bad(void)
{
    vmt t;
    const uint16_t cports[] = {1};
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0c /* Display: no handler */), NULL, cports, 1));
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 2, 0x02, NULL, 0), 1);
    vmt_expect_response(&t, 0, 1, 2, 0x02, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

/* ---- control protocol ---- */

static void test_control_enumeration_sequence_of_6_1(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    const uint8_t ver[2] = {0, 1};
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 2, GB_CONTROL_TYPE_VERSION, ver, 2), 1);
    const uint8_t want_ver[] = {0x0a, 0x00, 0x02, 0x00, 0x81, 0x00, 0x00, 0x00, 0x00, 0x01};
    vmt_expect(&t, 0, 0, want_ver, sizeof want_ver);

    CU_ASSERT_EQUAL(vmt_request(&t, 0, 3, GB_CONTROL_TYPE_GET_MANIFEST_SIZE, NULL, 0), 1);
    const uint8_t want_size[] = {0x0a, 0x00, 0x03, 0x00, 0x83, 0x00, 0x00, 0x00, 0x4c, 0x00};
    vmt_expect(&t, 1, 0, want_size, sizeof want_size);

    CU_ASSERT_EQUAL(vmt_request(&t, 0, 4, GB_CONTROL_TYPE_GET_MANIFEST, NULL, 0), 1);
    vmt_expect_response(&t, 2, 0, 4, GB_CONTROL_TYPE_GET_MANIFEST, GB_OP_SUCCESS,
                        simple_gpio_mnfb, sizeof simple_gpio_mnfb);

    const uint8_t bundle = 1;
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 5, GB_CONTROL_TYPE_BUNDLE_ACTIVATE, &bundle, 1), 1);
    const uint8_t ok = GB_CONTROL_BUNDLE_PM_OK;
    vmt_expect_response(&t, 3, 0, 5, GB_CONTROL_TYPE_BUNDLE_ACTIVATE, GB_OP_SUCCESS, &ok, 1);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(t.intf, 1), VM_BUNDLE_ACTIVE);

    const uint8_t cport[2] = {1, 0};
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 6, GB_CONTROL_TYPE_CONNECTED, cport, 2), 1);
    vmt_expect_response(&t, 4, 0, 6, GB_CONTROL_TYPE_CONNECTED, GB_OP_SUCCESS, NULL, 0);
    vmt_down(&t);
}

static void test_control_rejects_bad_lengths_and_unknown_types(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    const uint8_t one = 1;
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 2, GB_CONTROL_TYPE_VERSION, &one, 1), 1);
    vmt_expect_response(&t, 0, 0, 2, GB_CONTROL_TYPE_VERSION, GB_OP_INVALID, NULL, 0);
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 3, GB_CONTROL_TYPE_GET_MANIFEST, &one, 1), 1);
    vmt_expect_response(&t, 1, 0, 3, GB_CONTROL_TYPE_GET_MANIFEST, GB_OP_INVALID, NULL, 0);
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 4, GB_CONTROL_TYPE_TIMESYNC_ENABLE, NULL, 0), 1);
    vmt_expect_response(&t, 2, 0, 4, GB_CONTROL_TYPE_TIMESYNC_ENABLE, GB_OP_PROTOCOL_BAD,
                        NULL, 0);
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 5, 0x55, NULL, 0), 1);
    vmt_expect_response(&t, 3, 0, 5, 0x55, GB_OP_PROTOCOL_BAD, NULL, 0);
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 6, GB_REQUEST_TYPE_INVALID, NULL, 0), 1);
    vmt_expect_response(&t, 4, 0, 6, GB_REQUEST_TYPE_INVALID, GB_OP_INVALID, NULL, 0);
    const uint8_t bad_cport[2] = {9, 0};
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 7, GB_CONTROL_TYPE_CONNECTED, bad_cport, 2), 1);
    vmt_expect_response(&t, 5, 0, 7, GB_CONTROL_TYPE_CONNECTED, GB_OP_INVALID, NULL, 0);
    const uint8_t zero[2] = {0, 0};
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 8, GB_CONTROL_TYPE_DISCONNECTING, zero, 2), 1);
    vmt_expect_response(&t, 6, 0, 8, GB_CONTROL_TYPE_DISCONNECTING, GB_OP_SUCCESS, NULL, 0);
    vmt_down(&t);
}

static void test_control_bundle_version_answers_known_bundles_only(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, two_bundle_mnfs, NULL, NULL, 0));
    uint8_t b = 2;
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 2, GB_CONTROL_TYPE_BUNDLE_VERSION, &b, 1), 1);
    const uint8_t v[2] = {0, 1};
    vmt_expect_response(&t, 0, 0, 2, GB_CONTROL_TYPE_BUNDLE_VERSION, GB_OP_SUCCESS, v, 2);
    b = 3;
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 3, GB_CONTROL_TYPE_BUNDLE_VERSION, &b, 1), 1);
    vmt_expect_response(&t, 1, 0, 3, GB_CONTROL_TYPE_BUNDLE_VERSION, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_control_bundle_pm_state_survives_hibernate(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, two_bundle_mnfs, NULL, NULL, 0));
    uint8_t b = 1, st;
    vmt_request(&t, 0, 2, GB_CONTROL_TYPE_BUNDLE_ACTIVATE, &b, 1);
    vmt_request(&t, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, &b, 1);
    st = GB_CONTROL_BUNDLE_PM_OK;
    vmt_expect_response(&t, 1, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, GB_OP_SUCCESS, &st, 1);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(t.intf, 1), VM_BUNDLE_SUSPENDED);
    /* interface suspend: prepare, control connection down, hibernate, resume */
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 4, GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE, NULL, 0), 1);
    vmt_expect_response(&t, 2, 0, 4, GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE, GB_OP_SUCCESS, &st,
                        1);
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 0), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_HIBERNATE), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_REFCLK_DISABLE), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_REFCLK_ENABLE), 0);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_RESUME), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 0), 0);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(t.intf, 1), VM_BUNDLE_SUSPENDED);
    vmt_request(&t, 0, 5, GB_CONTROL_TYPE_BUNDLE_RESUME, &b, 1);
    vmt_expect_response(&t, 3, 0, 5, GB_CONTROL_TYPE_BUNDLE_RESUME, GB_OP_SUCCESS, &st, 1);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(t.intf, 1), VM_BUNDLE_ACTIVE);
    /* unknown bundle: success with status INVAL */
    b = 9;
    vmt_request(&t, 0, 6, GB_CONTROL_TYPE_BUNDLE_SUSPEND, &b, 1);
    st = GB_CONTROL_BUNDLE_PM_INVAL;
    vmt_expect_response(&t, 4, 0, 6, GB_CONTROL_TYPE_BUNDLE_SUSPEND, GB_OP_SUCCESS, &st, 1);
    /* reboot forgets bundle state */
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_ACTIVATE), 0);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(t.intf, 1), VM_BUNDLE_INACTIVE);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(t.intf, 7), VM_BUNDLE_NONE);
    vmt_down(&t);
}

static void test_control_injected_busy_status_is_reported(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, two_bundle_mnfs, NULL, NULL, 0));
    CU_ASSERT_EQUAL(vm_interface_set_pm_status(t.intf, GB_CONTROL_TYPE_BUNDLE_SUSPEND,
                                               GB_CONTROL_BUNDLE_PM_BUSY), 0);
    CU_ASSERT_EQUAL(vm_interface_set_pm_status(t.intf, GB_CONTROL_TYPE_VERSION, 1), -EINVAL);
    uint8_t b = 1, st = GB_CONTROL_BUNDLE_PM_BUSY;
    vmt_request(&t, 0, 2, GB_CONTROL_TYPE_BUNDLE_SUSPEND, &b, 1);
    vmt_expect_response(&t, 0, 0, 2, GB_CONTROL_TYPE_BUNDLE_SUSPEND, GB_OP_SUCCESS, &st, 1);
    CU_ASSERT_NOT_EQUAL(vm_interface_bundle_state(t.intf, 1), VM_BUNDLE_SUSPENDED);
    vm_interface_set_pm_status(t.intf, GB_CONTROL_TYPE_BUNDLE_SUSPEND, 0);
    vmt_request(&t, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, &b, 1);
    st = GB_CONTROL_BUNDLE_PM_OK;
    vmt_expect_response(&t, 1, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, GB_OP_SUCCESS, &st, 1);
    vmt_down(&t);
}

static void test_control_mode_switch_is_unidirectional(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, NULL, NULL, 0));
    CU_ASSERT_EQUAL(vm_interface_dme_set(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, 0), 0);
    const uint8_t b = 1;
    vmt_request(&t, 0, 9, GB_CONTROL_TYPE_BUNDLE_ACTIVATE, &b, 1);
    t.sink.n = 0;
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 0, GB_CONTROL_TYPE_MODE_SWITCH, NULL, 0), 0);
    CU_ASSERT_TRUE(vm_interface_mode_switch_requested(t.intf));
    /* one mailbox write per mode switch, read once by the SVC; a second switch writes it
     * again (fw-management may switch more than once per activation) */
    CU_ASSERT_TRUE(vm_interface_take_mailbox(t.intf));
    CU_ASSERT_FALSE(vm_interface_take_mailbox(t.intf));
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 0, GB_CONTROL_TYPE_MODE_SWITCH, NULL, 0), 0);
    CU_ASSERT_TRUE(vm_interface_take_mailbox(t.intf));
    /* the module reboots: init status armed for the AP's re-enable, bundles start over */
    uint32_t v = 0;
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, &v), 0);
    CU_ASSERT_EQUAL(v, VM_INIT_STATUS_DEFAULT);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(t.intf, 1), VM_BUNDLE_INACTIVE);
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 2, GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE, NULL, 0), 1);
    const uint8_t ok = 0;
    vmt_expect_response(&t, 0, 0, 2, GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE, GB_OP_SUCCESS,
                        &ok, 1);
    CU_ASSERT_EQUAL(vmt_request(&t, 0, 3, GB_CONTROL_TYPE_INTF_HIBERNATE_ABORT, NULL, 0), 1);
    vmt_expect_response(&t, 1, 0, 3, GB_CONTROL_TYPE_INTF_HIBERNATE_ABORT, GB_OP_SUCCESS, &ok,
                        1);
    vmt_down(&t);
}

static void test_control_version_minor_comes_from_behaviour(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, simple_gpio_mnfs, "[interface]\ncontrol-version-minor = 2\n",
                           NULL, 0));
    const uint8_t ver[2] = {0, 1}, want[2] = {0, 2};
    vmt_request(&t, 0, 2, GB_CONTROL_TYPE_VERSION, ver, 2);
    vmt_expect_response(&t, 0, 0, 2, GB_CONTROL_TYPE_VERSION, GB_OP_SUCCESS, want, 2);
    vmt_down(&t);
}

static void test_describe_lists_cports_and_handlers(void)
{
    vmt t;
    const uint16_t c[] = {1};
    CU_ASSERT_FATAL(vmt_up(&t, two_bundle_mnfs, NULL, c, 1));
    char buf[512];
    size_t n = vm_interface_describe(t.intf, buf, sizeof buf);
    CU_ASSERT_EQUAL(n, strlen(buf));
    CU_ASSERT_STRING_EQUAL(buf, "cport 1 protocol 0x02 gpio (connected)\n"
                                "cport 2 protocol 0x03 i2c\n"
                                "cport 5 protocol 0x11 loopback\n");
    char small[8];
    CU_ASSERT_EQUAL(vm_interface_describe(t.intf, small, sizeof small), n);
    CU_ASSERT_EQUAL(strlen(small), 7);
    int fds[2];
    CU_ASSERT_EQUAL(vm_interface_fds(t.intf, fds, 2), 0);
    CU_ASSERT_EQUAL(vm_interface_service(t.intf), 0);
    vmt_down(&t);
}

const unit_test vmt_interface_tests[] = {
    UNIT_TEST(test_describe_lists_cports_and_handlers),
    UNIT_TEST(test_gb_msg_header_round_trip_is_little_endian),
    UNIT_TEST(test_gb_msg_decode_rejects_short_and_inconsistent_sizes),
    UNIT_TEST(test_gb_msg_build_refuses_oversized_payload),
    UNIT_TEST(test_gb_result_maps_to_linux_errno),
    UNIT_TEST(test_dme_reports_toshiba_ids_and_serial),
    UNIT_TEST(test_dme_init_status_is_rearmed_on_every_activation),
    UNIT_TEST(test_dme_es2_product_reports_init_status_in_tst_src_increment),
    UNIT_TEST(test_dme_errors_use_unipro_result_codes),
    UNIT_TEST(test_activate_needs_vsys_refclk_and_unipro),
    UNIT_TEST(test_connect_refuses_cports_not_in_manifest),
    UNIT_TEST(test_request_on_disconnected_cport_is_dropped_unanswered),
    UNIT_TEST(test_malformed_header_is_refused_before_the_interface),
    UNIT_TEST(test_cport_shutdown_is_answered_on_every_cport),
    UNIT_TEST(test_unknown_protocol_cport_answers_protocol_bad),
    UNIT_TEST(test_control_enumeration_sequence_of_6_1),
    UNIT_TEST(test_control_rejects_bad_lengths_and_unknown_types),
    UNIT_TEST(test_control_bundle_version_answers_known_bundles_only),
    UNIT_TEST(test_control_bundle_pm_state_survives_hibernate),
    UNIT_TEST(test_control_injected_busy_status_is_reported),
    UNIT_TEST(test_control_mode_switch_is_unidirectional),
    UNIT_TEST(test_control_version_minor_comes_from_behaviour),
    UNIT_TESTS_END,
};
