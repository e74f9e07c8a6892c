// SPDX-License-Identifier: MIT
// Text commands for backends (backend_cmd.h), as scenarios and the control socket use them.
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/light.h"

static const char all_mnfs[] =
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
    "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
    "[string-descriptor 1]\nstring = gbvp\n[string-descriptor 2]\nstring = all\n"
    "[bundle-descriptor 1]\nclass = 0x0a\n"
    "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n"
    "[cport-descriptor 2]\nbundle = 1\nprotocol = 0x03\n"
    "[cport-descriptor 3]\nbundle = 1\nprotocol = 0x04\n"
    "[cport-descriptor 9]\nbundle = 1\nprotocol = 0x02\n"
    "[bundle-descriptor 2]\nclass = 0x11\n[cport-descriptor 4]\nbundle = 2\nprotocol = 0x11\n"
    "[bundle-descriptor 3]\nclass = 0x08\n[cport-descriptor 5]\nbundle = 3\nprotocol = 0x08\n"
    "[bundle-descriptor 4]\nclass = 0x10\n[cport-descriptor 6]\nbundle = 4\nprotocol = 0x10\n"
    "[bundle-descriptor 5]\nclass = 0x0f\n[cport-descriptor 7]\nbundle = 5\nprotocol = 0x0f\n"
    "[bundle-descriptor 6]\nclass = 0x05\n[cport-descriptor 8]\nbundle = 6\nprotocol = 0x05\n";

static const uint16_t all_cports[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

static char reply[512];

static int run(vmt *t, const char *line)
{
    return vm_backend_command(t->intf, line, SIM_MS(1000), reply, sizeof reply);
}

static void test_cmd_gpio_set_and_get_with_cport_selector(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, "[cport 9]\nlines = 2\n", all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "gpio set 3 1"), 0);
    CU_ASSERT_EQUAL(run(&t, "gpio get 3"), 0);
    CU_ASSERT_STRING_EQUAL(reply, "1 input");
    CU_ASSERT_EQUAL(run(&t, "gpio@9 set 3 1"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "line 3 does not exist (2 lines)"));
    CU_ASSERT_EQUAL(run(&t, "gpio@9 get 1"), 0);
    CU_ASSERT_STRING_EQUAL(reply, "0 input");
    CU_ASSERT_EQUAL(run(&t, "gpio set 3 2"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "'2' is not a number 0..1"));
    CU_ASSERT_EQUAL(run(&t, "gpio@x get 1"), -1);
    vmt_down(&t);
}

static void test_cmd_i2c_temperature_and_eeprom(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 16 cafe"), 0);
    CU_ASSERT_EQUAL(run(&t, "i2c read 0x50 15 3"), 0);
    CU_ASSERT_STRING_EQUAL(reply, "ffcafe");
    CU_ASSERT_EQUAL(run(&t, "i2c temp 0x48 30000"), 0);
    CU_ASSERT_EQUAL(run(&t, "i2c temp 0x22 30000"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "no such device"));
    CU_ASSERT_EQUAL(run(&t, "i2c read 0x50 250 10"), -1);
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 0 abc"), -1);
    vmt_down(&t);
}

static void test_cmd_uart_send_recv_and_state(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "uart send hello  world"), 0);
    /* RECEIVE_DATA {size 13, flags 0, "hello  world\n"} */
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(t.sink.len[0], 8 + 3 + 13);
    CU_ASSERT_EQUAL(memcmp(t.sink.msg[0] + 11, "hello  world\n", 13), 0);
    const uint8_t data[] = {4, 0, 'l', 's', '\n', 1};
    vmt_request(&t, 3, 2, GB_UART_TYPE_SEND_DATA, data, sizeof data);
    CU_ASSERT_EQUAL(run(&t, "uart recv"), 0);
    CU_ASSERT_STRING_EQUAL(reply, "ls\n.");
    CU_ASSERT_EQUAL(run(&t, "uart state"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "tx 4 rx 13"));
    CU_ASSERT_EQUAL(run(&t, "uart send"), -1);
    vmt_down(&t);
}

static void test_cmd_battery_set_sends_event(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "battery set capacity 12"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(t.sink.msg[0][4], GB_POWER_SUPPLY_TYPE_EVENT);
    CU_ASSERT_EQUAL(run(&t, "battery get capacity-level"), 0);
    CU_ASSERT_STRING_EQUAL(reply, "2");
    CU_ASSERT_EQUAL(run(&t, "battery set capacity 300"), -1);
    CU_ASSERT_EQUAL(run(&t, "battery set colour 3"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "unknown property 'colour'"));
    CU_ASSERT_EQUAL(run(&t, "battery notify"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 2);
    vmt_down(&t);
}

static void test_cmd_hid_key_press_and_release(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "hid key a"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "not powered the device on"));
    vmt_request(&t, 8, 2, GB_HID_TYPE_PWR_ON, NULL, 0);
    t.sink.n = 0;
    CU_ASSERT_EQUAL(run(&t, "hid key a"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 2);
    CU_ASSERT_EQUAL(t.sink.msg[0][8 + 2], 0x04);
    CU_ASSERT_EQUAL(t.sink.msg[1][8 + 2], 0x00);
    CU_ASSERT_EQUAL(run(&t, "hid report 0000050000000000"), 0);
    CU_ASSERT_EQUAL(run(&t, "hid report 00"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "an input report is 8 bytes, not 1"));
    CU_ASSERT_EQUAL(run(&t, "hid state"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "on input-reports 3"));
    vmt_down(&t);
}

static void test_cmd_vibrator_light_loopback_pm(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    vmt_request(&t, 6, 2, GB_VIBRATOR_TYPE_ON, NULL, 0); /* at 1 ms */
    CU_ASSERT_EQUAL(run(&t, "vibrator state"), 0);
    CU_ASSERT_STRING_EQUAL(reply, "on on-time-ms 999 count 1");
    const uint8_t br[3] = {0, 2, 77};
    vmt_request(&t, 7, 2, GB_LIGHTS_TYPE_SET_BRIGHTNESS, br, 3);
    CU_ASSERT_EQUAL(run(&t, "light get 2"), 0);
    CU_ASSERT_STRING_EQUAL(reply, "blue:status brightness 77 blink 0/0 color 0x0000ff fade 0/0");
    CU_ASSERT_EQUAL(run(&t, "light get 5"), -1);
    t.sink.n = 0;
    CU_ASSERT_EQUAL(run(&t, "loopback transfer 10"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(run(&t, "loopback stats"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "sent 1"));
    CU_ASSERT_EQUAL(run(&t, "loopback transfer 5000"), -1);
    CU_ASSERT_EQUAL(run(&t, "pm bundle-suspend 2"), 0);
    const uint8_t b = 1, busy = 2;
    t.sink.n = 0;
    vmt_request(&t, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, &b, 1);
    vmt_expect_response(&t, 0, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, GB_OP_SUCCESS, &busy, 1);
    CU_ASSERT_EQUAL(run(&t, "pm nap 1"), -1);
    vmt_down(&t);
}

static void test_cmd_errors_for_missing_class_and_bad_syntax(void)
{
    vmt t;
    const uint16_t c[] = {1};
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x11, 0x11), NULL, c, 1));
    CU_ASSERT_EQUAL(run(&t, "gpio get 0"), -1);
    CU_ASSERT_STRING_EQUAL(reply, "the interface has no GPIO CPort");
    CU_ASSERT_EQUAL(run(&t, "toaster on"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "unknown class 'toaster'"));
    CU_ASSERT_EQUAL(run(&t, ""), -1);
    CU_ASSERT_EQUAL(run(&t, "loopback"), -1);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "loopback ping", 0, NULL, 0), 0);
    vm_interface_cport_disconnect(t.intf, 1);
    CU_ASSERT_EQUAL(run(&t, "loopback ping"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "not connected"));
    vmt_down(&t);
}

const unit_test vmt_commands_tests[] = {
    UNIT_TEST(test_cmd_gpio_set_and_get_with_cport_selector),
    UNIT_TEST(test_cmd_i2c_temperature_and_eeprom),
    UNIT_TEST(test_cmd_uart_send_recv_and_state),
    UNIT_TEST(test_cmd_battery_set_sends_event),
    UNIT_TEST(test_cmd_hid_key_press_and_release),
    UNIT_TEST(test_cmd_vibrator_light_loopback_pm),
    UNIT_TEST(test_cmd_errors_for_missing_class_and_bad_syntax),
    UNIT_TESTS_END,
};
