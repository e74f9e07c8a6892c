// SPDX-License-Identifier: MIT
// HID handler: probe of drivers/staging/greybus/hid.c, input reports, output reports.
#include <errno.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/hid.h"

static const uint16_t cport1[] = {1};

static void up(vmt *t, const char *behaviour)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x05, 0x05), behaviour, cport1, 1));
}

static void test_hid_descriptor_puts_product_before_vendor(void)
{
    vmt t;
    up(&t, "[cport 1]\nvendor-id = 0x1111\nproduct-id = 0x2222\n");
    vmt_request(&t, 1, 2, GB_HID_TYPE_GET_DESC, NULL, 0);
    const uint8_t want[] = {10, 63, 0, 0x11, 0x01, 0x22, 0x22, 0x11, 0x11, 0};
    vmt_expect_response(&t, 0, 1, 2, GB_HID_TYPE_GET_DESC, GB_OP_SUCCESS, want, sizeof want);
    vmt_request(&t, 1, 3, GB_HID_TYPE_GET_REPORT_DESC, NULL, 0);
    CU_ASSERT_EQUAL(t.sink.len[1], 8 + 63);
    CU_ASSERT_EQUAL(t.sink.msg[1][8], 0x05);
    CU_ASSERT_EQUAL(t.sink.msg[1][8 + 62], 0xc0);
    vmt_down(&t);
}

static void test_hid_get_report_returns_exact_length(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t in[2] = {GB_HID_INPUT_REPORT, 0}, feat[2] = {GB_HID_FEATURE_REPORT, 0};
    const uint8_t zeros[8] = {0};
    vmt_request(&t, 1, 2, GB_HID_TYPE_GET_REPORT, in, 2);
    vmt_expect_response(&t, 0, 1, 2, GB_HID_TYPE_GET_REPORT, GB_OP_SUCCESS, zeros, 8);
    vmt_request(&t, 1, 3, GB_HID_TYPE_GET_REPORT, feat, 2);
    vmt_expect_response(&t, 1, 1, 3, GB_HID_TYPE_GET_REPORT, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_hid_input_report_sent_only_after_power_on(void)
{
    vmt t;
    up(&t, NULL);
    vm_hid *h = vm_interface_hid(t.intf, 1);
    const uint8_t key_a[8] = {0, 0, 0x04, 0, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(vm_hid_input_report(h, key_a, 8), -EAGAIN);
    CU_ASSERT_EQUAL(t.sink.n, 0);
    vmt_request(&t, 1, 2, GB_HID_TYPE_PWR_ON, NULL, 0);
    CU_ASSERT_EQUAL(vm_hid_input_report(h, key_a, 8), 0);
    const uint8_t want[] = {0x10, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00,
                            0,    0,    0x04, 0,    0,    0,    0,    0};
    vmt_expect(&t, 1, 1, want, sizeof want);
    CU_ASSERT_EQUAL(vm_hid_input_report(h, key_a, 7), -EINVAL);
    /* GET_REPORT now returns the current input report */
    const uint8_t in[2] = {GB_HID_INPUT_REPORT, 0};
    vmt_request(&t, 1, 3, GB_HID_TYPE_GET_REPORT, in, 2);
    vmt_expect_response(&t, 2, 1, 3, GB_HID_TYPE_GET_REPORT, GB_OP_SUCCESS, key_a, 8);
    vmt_request(&t, 1, 4, GB_HID_TYPE_PWR_OFF, NULL, 0);
    CU_ASSERT_EQUAL(vm_hid_input_report(h, key_a, 8), -EAGAIN);
    vmt_down(&t);
}

static void test_hid_set_report_stores_keyboard_leds(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t leds[3] = {GB_HID_OUTPUT_REPORT, 0, 0x02};
    vmt_request(&t, 1, 2, GB_HID_TYPE_SET_REPORT, leds, 3);
    vmt_expect_response(&t, 0, 1, 2, GB_HID_TYPE_SET_REPORT, GB_OP_SUCCESS, NULL, 0);
    vm_hid_state st;
    vm_hid_get_state(vm_interface_hid(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.output[0], 0x02);
    const uint8_t too_long[5] = {GB_HID_OUTPUT_REPORT, 0, 1, 2, 3};
    vmt_request(&t, 1, 3, GB_HID_TYPE_SET_REPORT, too_long, 5);
    vmt_expect_response(&t, 1, 1, 3, GB_HID_TYPE_SET_REPORT, GB_OP_INVALID, NULL, 0);
    const uint8_t input[3] = {GB_HID_INPUT_REPORT, 0, 0};
    vmt_request(&t, 1, 4, GB_HID_TYPE_SET_REPORT, input, 3);
    vmt_expect_response(&t, 2, 1, 4, GB_HID_TYPE_SET_REPORT, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 5, GB_HID_TYPE_IRQ_EVENT, NULL, 0);
    vmt_expect_response(&t, 3, 1, 5, GB_HID_TYPE_IRQ_EVENT, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

static void test_hid_custom_device_needs_its_descriptor(void)
{
    vmt t;
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x05, 0x05), "[cport 1]\ndevice = custom\n",
                           cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "needs a report descriptor"));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x05, 0x05), "[cport 1]\ninput-size = 3\n",
                           cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: input-size: only for device = "));
    up(&t, "[cport 1]\ndevice = custom\nreport-descriptor = 06 00 ff 09 01 a1 01 c0\n"
           "input-size = 2\n");
    vmt_request(&t, 1, 2, GB_HID_TYPE_GET_REPORT_DESC, NULL, 0);
    const uint8_t rd[8] = {0x06, 0x00, 0xff, 0x09, 0x01, 0xa1, 0x01, 0xc0};
    vmt_expect_response(&t, 0, 1, 2, GB_HID_TYPE_GET_REPORT_DESC, GB_OP_SUCCESS, rd, 8);
    vmt_down(&t);
}

const unit_test vmt_hid_tests[] = {
    UNIT_TEST(test_hid_descriptor_puts_product_before_vendor),
    UNIT_TEST(test_hid_get_report_returns_exact_length),
    UNIT_TEST(test_hid_input_report_sent_only_after_power_on),
    UNIT_TEST(test_hid_set_report_stores_keyboard_leds),
    UNIT_TEST(test_hid_custom_device_needs_its_descriptor),
    UNIT_TESTS_END,
};
