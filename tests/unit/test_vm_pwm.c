// SPDX-License-Identifier: MIT
// PWM handler, driven as drivers/staging/greybus/pwm.c drives it.
#include <stdio.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/pwm.h"

static const uint16_t cport1[] = {1};

static void test_pwm_count_then_apply_sequence(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x09), "[cport 1]\nchannels = 3\n",
                           cport1, 1));
    vmt_request(&t, 1, 2, GB_PWM_TYPE_PWM_COUNT, NULL, 0);
    const uint8_t want[] = {0x09, 0x00, 0x02, 0x00, 0x82, 0x00, 0x00, 0x00, 0x02};
    vmt_expect(&t, 0, 1, want, sizeof want);
    /* request = ACTIVATE; apply = POLARITY, CONFIG, ENABLE */
    const uint8_t ch = 2, pol[2] = {2, 1};
    uint8_t cfg[9] = {2};
    gb_put_le32(cfg + 1, 250000);
    gb_put_le32(cfg + 5, 1000000);
    vmt_request(&t, 1, 3, GB_PWM_TYPE_ACTIVATE, &ch, 1);
    vmt_request(&t, 1, 4, GB_PWM_TYPE_POLARITY, pol, 2);
    vmt_request(&t, 1, 5, GB_PWM_TYPE_CONFIG, cfg, 9);
    vmt_request(&t, 1, 6, GB_PWM_TYPE_ENABLE, &ch, 1);
    const uint8_t types[4] = {GB_PWM_TYPE_ACTIVATE, GB_PWM_TYPE_POLARITY, GB_PWM_TYPE_CONFIG,
                              GB_PWM_TYPE_ENABLE};
    for (size_t i = 0; i < 4; i++)
        vmt_expect_response(&t, i + 1, 1, (uint16_t)(i + 3), types[i], GB_OP_SUCCESS, NULL, 0);
    vm_pwm_channel c;
    CU_ASSERT_EQUAL(vm_pwm_get_channel(vm_interface_pwm(t.intf, 1), 2, &c), 0);
    CU_ASSERT_TRUE(c.activated && c.enabled && c.inversed);
    CU_ASSERT_EQUAL(c.duty_ns, 250000);
    CU_ASSERT_EQUAL(c.period_ns, 1000000);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "pwm get 2", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text,
                           "on duty-ns 250000 period-ns 1000000 polarity inversed active");
    vmt_down(&t);
}

static void test_pwm_bad_channel_duty_and_polarity_get_invalid(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x09), NULL, cport1, 1));
    const uint8_t ch2 = 2, pol[2] = {0, 2};
    uint8_t cfg[9] = {0};
    gb_put_le32(cfg + 1, 2000);
    gb_put_le32(cfg + 5, 1000);
    vmt_request(&t, 1, 2, GB_PWM_TYPE_ENABLE, &ch2, 1);
    vmt_expect_response(&t, 0, 1, 2, GB_PWM_TYPE_ENABLE, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 3, GB_PWM_TYPE_CONFIG, cfg, 9);
    vmt_expect_response(&t, 1, 1, 3, GB_PWM_TYPE_CONFIG, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 4, GB_PWM_TYPE_POLARITY, pol, 2);
    vmt_expect_response(&t, 2, 1, 4, GB_PWM_TYPE_POLARITY, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 5, GB_PWM_TYPE_CONFIG, cfg, 5);
    vmt_expect_response(&t, 3, 1, 5, GB_PWM_TYPE_CONFIG, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 6, 0x09, NULL, 0);
    vmt_expect_response(&t, 4, 1, 6, 0x09, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

/* 6.1's gb_pwm_apply on a polarity change of an enabled output: DISABLE, POLARITY, then
 * CONFIG and ENABLE again. Every step lands in the module's channel state. */
static void test_pwm_polarity_change_while_enabled_as_6_1_applies_it(void)
{
    vmt t;
    static char mnfs[2048], beh[1024];
    CU_ASSERT_FATAL(vmt_up(&t, vmt_catalog_text("pwm.mnfs", mnfs, sizeof mnfs),
                           vmt_catalog_text("pwm.behaviour", beh, sizeof beh), cport1, 1));
    vmt_request(&t, 1, 2, GB_PWM_TYPE_PWM_COUNT, NULL, 0);
    const uint8_t count = 1; /* the catalog's 2 channels */
    vmt_expect_response(&t, 0, 1, 2, GB_PWM_TYPE_PWM_COUNT, GB_OP_SUCCESS, &count, 1);
    const uint8_t ch = 0, normal[2] = {0, 0}, inversed[2] = {0, 1};
    uint8_t cfg[9] = {0};
    gb_put_le32(cfg + 1, 750000);
    gb_put_le32(cfg + 5, 2000000);
    vm_pwm *p = vm_interface_pwm(t.intf, 1);
    vm_pwm_channel c;
    vmt_request(&t, 1, 3, GB_PWM_TYPE_ACTIVATE, &ch, 1);
    vmt_request(&t, 1, 4, GB_PWM_TYPE_POLARITY, inversed, 2);
    vmt_request(&t, 1, 5, GB_PWM_TYPE_CONFIG, cfg, 9);
    vmt_request(&t, 1, 6, GB_PWM_TYPE_ENABLE, &ch, 1);
    CU_ASSERT_EQUAL(vm_pwm_get_channel(p, 0, &c), 0);
    CU_ASSERT_TRUE(c.enabled && c.inversed);
    vmt_request(&t, 1, 7, GB_PWM_TYPE_DISABLE, &ch, 1);
    CU_ASSERT_EQUAL(vm_pwm_get_channel(p, 0, &c), 0);
    CU_ASSERT_FALSE(c.enabled);
    CU_ASSERT_EQUAL(c.duty_ns, 750000); /* a disabled output keeps its configuration */
    vmt_request(&t, 1, 8, GB_PWM_TYPE_POLARITY, normal, 2);
    vmt_request(&t, 1, 9, GB_PWM_TYPE_CONFIG, cfg, 9);
    vmt_request(&t, 1, 10, GB_PWM_TYPE_ENABLE, &ch, 1);
    CU_ASSERT_EQUAL_FATAL(t.sink.n, 9);
    for (size_t i = 1; i < 9; i++) /* the header's result byte */
        CU_ASSERT_EQUAL(t.sink.msg[i][5], GB_OP_SUCCESS);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "pwm get 0", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text,
                           "on duty-ns 750000 period-ns 2000000 polarity normal active");
    vmt_request(&t, 1, 11, GB_PWM_TYPE_DISABLE, &ch, 1);
    vmt_request(&t, 1, 12, GB_PWM_TYPE_DEACTIVATE, &ch, 1);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "pwm get 0", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "off duty-ns 750000 period-ns 2000000 polarity normal");
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "pwm get 2", 0, &reply), -1);
    CU_ASSERT_STRING_EQUAL(reply.text, "channel 2 does not exist (2 channels)");
    vmt_down(&t);
}

const unit_test vmt_pwm_tests[] = {
    UNIT_TEST(test_pwm_polarity_change_while_enabled_as_6_1_applies_it),
    UNIT_TEST(test_pwm_count_then_apply_sequence),
    UNIT_TEST(test_pwm_bad_channel_duty_and_polarity_get_invalid),
    UNIT_TESTS_END,
};
