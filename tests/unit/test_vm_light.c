// SPDX-License-Identifier: MIT
// Lights handler, probed and driven as drivers/staging/greybus/light.c does.
#include <errno.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/light.h"

static const uint16_t cport1[] = {1};

static void up(vmt *t, const char *behaviour)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x0f, 0x0f), behaviour, cport1, 1));
}

static void test_light_probe_lights_config_and_channel_config(void)
{
    vmt t;
    up(&t, "[cport 1]\nname = led\nchannels = green\nmax-brightness = 100\n");
    vmt_request(&t, 1, 2, GB_LIGHTS_TYPE_GET_LIGHTS, NULL, 0);
    const uint8_t one = 1;
    vmt_expect_response(&t, 0, 1, 2, GB_LIGHTS_TYPE_GET_LIGHTS, GB_OP_SUCCESS, &one, 1);
    const uint8_t id = 0;
    vmt_request(&t, 1, 3, GB_LIGHTS_TYPE_GET_LIGHT_CONFIG, &id, 1);
    uint8_t lc[33] = {1, 'l', 'e', 'd'};
    vmt_expect_response(&t, 1, 1, 3, GB_LIGHTS_TYPE_GET_LIGHT_CONFIG, GB_OP_SUCCESS, lc, 33);
    const uint8_t ch[2] = {0, 0};
    vmt_request(&t, 1, 4, GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG, ch, 2);
    uint8_t cc[77] = {0};
    cc[0] = 100;
    gb_put_le32(cc + 1, GB_LIGHT_CHANNEL_FADER | GB_LIGHT_CHANNEL_BLINK);
    gb_put_le32(cc + 5, 0x00ff00);
    memcpy(cc + 9, "green", 5);
    gb_put_le32(cc + 41, GB_CHANNEL_MODE_NOTIFICATION);
    memcpy(cc + 45, "status", 6);
    vmt_expect_response(&t, 2, 1, 4, GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG, GB_OP_SUCCESS, cc, 77);
    vmt_down(&t);
}

static void test_light_brightness_blink_fade_colour_are_kept(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t br[3] = {0, 1, 200}, blink[6] = {0, 1, 0xf4, 0x01, 0xe8, 0x03};
    const uint8_t fade[4] = {0, 1, 3, 4}, col[6] = {0, 1, 0x11, 0x22, 0x33, 0x00};
    vmt_request(&t, 1, 2, GB_LIGHTS_TYPE_SET_BRIGHTNESS, br, 3);
    vmt_request(&t, 1, 3, GB_LIGHTS_TYPE_SET_BLINK, blink, 6);
    vmt_request(&t, 1, 4, GB_LIGHTS_TYPE_SET_FADE, fade, 4);
    vmt_request(&t, 1, 5, GB_LIGHTS_TYPE_SET_COLOR, col, 6);
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(t.sink.msg[i][5], GB_OP_SUCCESS);
    vm_light_channel c;
    CU_ASSERT_EQUAL(vm_light_get_channel(vm_interface_light(t.intf, 1), 1, &c), 0);
    CU_ASSERT_EQUAL(c.brightness, 200);
    CU_ASSERT_EQUAL(c.blink_on_ms, 500);
    CU_ASSERT_EQUAL(c.blink_off_ms, 1000);
    CU_ASSERT_EQUAL(c.fade_in, 3);
    CU_ASSERT_EQUAL(c.fade_out, 4);
    CU_ASSERT_EQUAL(c.color, 0x332211);
    CU_ASSERT_STRING_EQUAL(c.color_name, "green");
    vmt_down(&t);
}

static void test_light_flash_channel_reports_nonzero_steps(void)
{
    vmt t;
    up(&t, "[cport 1]\nchannels = red\nflash = 1\n");
    const uint8_t ch[2] = {0, 1};
    vmt_request(&t, 1, 2, GB_LIGHTS_TYPE_GET_CHANNEL_FLASH_CONFIG, ch, 2);
    CU_ASSERT_EQUAL(t.sink.len[0], 8 + 24);
    CU_ASSERT_NOT_EQUAL(gb_get_le32(t.sink.msg[0] + 8 + 8), 0);  /* intensity step */
    CU_ASSERT_NOT_EQUAL(gb_get_le32(t.sink.msg[0] + 8 + 20), 0); /* timeout step */
    uint8_t inten[6] = {0, 1};
    gb_put_le32(inten + 2, 500000);
    vmt_request(&t, 1, 3, GB_LIGHTS_TYPE_SET_FLASH_INTENSITY, inten, 6);
    vmt_expect_response(&t, 1, 1, 3, GB_LIGHTS_TYPE_SET_FLASH_INTENSITY, GB_OP_SUCCESS, NULL, 0);
    gb_put_le32(inten + 2, 1);
    vmt_request(&t, 1, 4, GB_LIGHTS_TYPE_SET_FLASH_INTENSITY, inten, 6);
    vmt_expect_response(&t, 2, 1, 4, GB_LIGHTS_TYPE_SET_FLASH_INTENSITY, GB_OP_INVALID, NULL, 0);
    const uint8_t strobe[3] = {0, 1, 1};
    vmt_request(&t, 1, 5, GB_LIGHTS_TYPE_SET_FLASH_STROBE, strobe, 3);
    vm_light *l = vm_interface_light(t.intf, 1);
    CU_ASSERT_EQUAL(vm_light_set_flash_fault(l, 1, 0x08), 0);
    CU_ASSERT_EQUAL(vm_light_set_flash_fault(l, 0, 0x08), -EINVAL);
    vmt_request(&t, 1, 6, GB_LIGHTS_TYPE_GET_FLASH_FAULT, ch, 2);
    const uint8_t fault[4] = {0x08, 0, 0, 0};
    vmt_expect_response(&t, 4, 1, 6, GB_LIGHTS_TYPE_GET_FLASH_FAULT, GB_OP_SUCCESS, fault, 4);
    /* flash operations on a colour channel are refused */
    const uint8_t ch0[2] = {0, 0};
    vmt_request(&t, 1, 7, GB_LIGHTS_TYPE_GET_FLASH_FAULT, ch0, 2);
    vmt_expect_response(&t, 5, 1, 7, GB_LIGHTS_TYPE_GET_FLASH_FAULT, GB_OP_INVALID, NULL, 0);
    vm_light_channel c;
    vm_light_get_channel(l, 1, &c);
    CU_ASSERT_EQUAL(c.strobes, 1);
    size_t before = t.sink.n;
    CU_ASSERT_EQUAL(vm_light_notify(l), 0);
    const uint8_t ev[] = {0x0a, 0x00, 0x01, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x01};
    vmt_expect(&t, before, 1, ev, sizeof ev);
    CU_ASSERT_EQUAL(c.flash_intensity_ua, 500000);
    vmt_down(&t);
}

static void test_light_bad_ids_and_values_get_invalid(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t light1 = 1, ch9[2] = {0, 9}, l1[2] = {1, 0}, short_br[2] = {0, 0};
    vmt_request(&t, 1, 2, GB_LIGHTS_TYPE_GET_LIGHT_CONFIG, &light1, 1);
    vmt_expect_response(&t, 0, 1, 2, GB_LIGHTS_TYPE_GET_LIGHT_CONFIG, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 3, GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG, ch9, 2);
    vmt_expect_response(&t, 1, 1, 3, GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 4, GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG, l1, 2);
    vmt_expect_response(&t, 2, 1, 4, GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 5, GB_LIGHTS_TYPE_SET_BRIGHTNESS, short_br, 2);
    vmt_expect_response(&t, 3, 1, 5, GB_LIGHTS_TYPE_SET_BRIGHTNESS, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 6, GB_LIGHTS_TYPE_EVENT, short_br, 2);
    vmt_expect_response(&t, 4, 1, 6, GB_LIGHTS_TYPE_EVENT, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0f, 0x0f), "[cport 1]\nchannels = pink\n",
                           cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: channels: unknown colour 'pink'"));
}

const unit_test vmt_light_tests[] = {
    UNIT_TEST(test_light_probe_lights_config_and_channel_config),
    UNIT_TEST(test_light_brightness_blink_fade_colour_are_kept),
    UNIT_TEST(test_light_flash_channel_reports_nonzero_steps),
    UNIT_TEST(test_light_bad_ids_and_values_get_invalid),
    UNIT_TESTS_END,
};
