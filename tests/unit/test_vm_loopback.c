// SPDX-License-Identifier: MIT
// Loopback handler, as drivers/staging/greybus/loopback.c uses it.
#include <errno.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/loopback.h"

static const uint16_t cport1[] = {1};

static void up(vmt *t)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x11, 0x11), NULL, cport1, 1));
}

static void test_loopback_ping_answers_empty(void)
{
    vmt t;
    up(&t);
    vmt_request(&t, 1, 2, GB_LOOPBACK_TYPE_PING, NULL, 0);
    const uint8_t want[] = {0x08, 0x00, 0x02, 0x00, 0x82, 0x00, 0x00, 0x00};
    vmt_expect(&t, 0, 1, want, sizeof want);
    vmt_down(&t);
}

static void test_loopback_transfer_echoes_data_with_zero_latencies(void)
{
    vmt t;
    up(&t);
    uint8_t req[12 + 16];
    gb_put_le32(req, 16);
    memset(req + 4, 0x77, 8); /* uninitialised reserved fields, as 6.1 sends them */
    memset(req + 12, 0x5a, 16);
    vmt_request(&t, 1, 2, GB_LOOPBACK_TYPE_TRANSFER, req, sizeof req);
    uint8_t want[12 + 16];
    memcpy(want, req, sizeof want);
    memset(want + 4, 0, 8);
    vmt_expect_response(&t, 0, 1, 2, GB_LOOPBACK_TYPE_TRANSFER, GB_OP_SUCCESS, want,
                        sizeof want);
    vmt_down(&t);
}

static void test_loopback_max_transfer_fits_one_message(void)
{
    vmt t;
    up(&t);
    static uint8_t req[12 + VM_LOOPBACK_MAX_LEN];
    gb_put_le32(req, VM_LOOPBACK_MAX_LEN);
    memset(req + 12, 0x5a, VM_LOOPBACK_MAX_LEN);
    vmt_request(&t, 1, 2, GB_LOOPBACK_TYPE_TRANSFER, req, sizeof req);
    CU_ASSERT_EQUAL(t.sink.len[0], GB_MSG_MAX_SIZE);
    vmt_request(&t, 1, 3, GB_LOOPBACK_TYPE_SINK, req, sizeof req);
    vmt_expect_response(&t, 1, 1, 3, GB_LOOPBACK_TYPE_SINK, GB_OP_SUCCESS, NULL, 0);
    vm_loopback_stats st;
    vm_loopback_get_stats(vm_interface_loopback(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.transfers, 1);
    CU_ASSERT_EQUAL(st.sinks, 1);
    CU_ASSERT_EQUAL(st.bytes, 2 * VM_LOOPBACK_MAX_LEN);
    vmt_down(&t);
}

static void test_loopback_length_mismatch_gets_invalid(void)
{
    vmt t;
    up(&t);
    uint8_t req[12 + 4] = {0};
    gb_put_le32(req, 5);
    vmt_request(&t, 1, 2, GB_LOOPBACK_TYPE_TRANSFER, req, sizeof req);
    vmt_expect_response(&t, 0, 1, 2, GB_LOOPBACK_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 3, GB_LOOPBACK_TYPE_SINK, req, 8);
    vmt_expect_response(&t, 1, 1, 3, GB_LOOPBACK_TYPE_SINK, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 4, GB_LOOPBACK_TYPE_PING, req, 1);
    vmt_expect_response(&t, 2, 1, 4, GB_LOOPBACK_TYPE_PING, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 5, 0x09, NULL, 0);
    vmt_expect_response(&t, 3, 1, 5, 0x09, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

static void test_loopback_module_transfer_checks_the_echo(void)
{
    vmt t;
    up(&t);
    vm_loopback *lb = vm_interface_loopback(t.intf, VM_ANY_CPORT);
    CU_ASSERT_EQUAL(vm_loopback_send_transfer(lb, 4), 0);
    const uint8_t want[] = {0x18, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00,
                            0x00, 0,    0,    0,    0,    0,    0,    0,    0,    0xa5, 0xa5,
                            0xa5, 0xa5};
    vmt_expect(&t, 0, 1, want, sizeof want);
    /* the AP echoes it back as the response */
    uint8_t resp[sizeof want];
    memcpy(resp, want, sizeof want);
    resp[4] = 0x83;
    CU_ASSERT_EQUAL(vmt_receive(&t, 1, resp, sizeof resp, 0), 0);
    resp[23] = 0; /* a corrupted echo for a request never sent: unexpected id */
    CU_ASSERT_EQUAL(vmt_receive(&t, 1, resp, sizeof resp, 0), 0);
    vm_loopback_stats st;
    vm_loopback_get_stats(lb, &st);
    CU_ASSERT_EQUAL(st.sent, 1);
    CU_ASSERT_EQUAL(st.answered, 1);
    CU_ASSERT_EQUAL(st.mismatches, 0);
    vm_interface_stats is;
    vm_interface_get_stats(t.intf, &is);
    CU_ASSERT_EQUAL(is.dropped, 1);
    CU_ASSERT_EQUAL(vm_loopback_send_transfer(lb, VM_LOOPBACK_MAX_LEN + 1), -EINVAL);
    vm_interface_cport_disconnect(t.intf, 1);
    CU_ASSERT_EQUAL(vm_loopback_send_ping(lb), -ENOTCONN);
    vmt_down(&t);
}

const unit_test vmt_loopback_tests[] = {
    UNIT_TEST(test_loopback_ping_answers_empty),
    UNIT_TEST(test_loopback_transfer_echoes_data_with_zero_latencies),
    UNIT_TEST(test_loopback_max_transfer_fits_one_message),
    UNIT_TEST(test_loopback_length_mismatch_gets_invalid),
    UNIT_TEST(test_loopback_module_transfer_checks_the_echo),
    UNIT_TESTS_END,
};
