// SPDX-License-Identifier: MIT
// Text commands for backends (backend_cmd.h), as scenarios and the control socket use them.
#include <stdio.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "greybus/gb_protocols.h"
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

static vm_reply reply;

static int run(vmt *t, const char *line)
{
    return vm_backend_command(t->intf, line, SIM_MS(1000), &reply);
}

/* The integer (or boolean) value `name` of the last reply; fails the test when absent. */
static int64_t value(const char *name)
{
    const vm_value *v = vm_reply_get(&reply, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_TRUE(v->kind == VM_VALUE_INT || v->kind == VM_VALUE_BOOL);
    return v->i;
}

static void test_cmd_gpio_set_and_get_with_cport_selector(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, "[cport 9]\nlines = 2\n", all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "gpio set 3 1"), 0);
    CU_ASSERT_EQUAL(run(&t, "gpio get 3"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "1 input");
    CU_ASSERT_EQUAL(value("value"), 1);
    CU_ASSERT_EQUAL(value("input_level"), 1);
    CU_ASSERT_EQUAL(value("output"), 0);
    CU_ASSERT_EQUAL(value("activated"), 0);
    CU_ASSERT_EQUAL(value("masked"), 1); /* lines start masked: no IRQ was sent */
    CU_ASSERT_EQUAL(run(&t, "gpio stats"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "irq-events 0 irq-rejected 0 irq-lost 0 lines 8");
    CU_ASSERT_EQUAL(value("lines"), 8);
    CU_ASSERT_EQUAL(run(&t, "gpio@9 set 3 1"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "line 3 does not exist (2 lines)"));
    CU_ASSERT_EQUAL(run(&t, "gpio@9 get 1"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "0 input");
    CU_ASSERT_EQUAL(run(&t, "gpio set 3 2"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "'2' is not a number 0..1"));
    CU_ASSERT_EQUAL(run(&t, "gpio@x get 1"), -1);
    CU_ASSERT_EQUAL(run(&t, "gpio@9 stats"), 0);
    CU_ASSERT_EQUAL(value("lines"), 2);
    vmt_down(&t);
}

static void test_cmd_i2c_temperature_and_eeprom(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 16 cafe"), 0);
    CU_ASSERT_EQUAL(run(&t, "i2c read 0x50 15 3"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "ffcafe");
    const vm_value *data = vm_reply_get(&reply, "data"); /* the bytes themselves */
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    CU_ASSERT_EQUAL(data->kind, VM_VALUE_BYTES);
    CU_ASSERT_EQUAL(data->len, 3);
    CU_ASSERT_EQUAL(memcmp(vm_reply_data(&reply, data), "\xff\xca\xfe", 3), 0);
    CU_ASSERT_EQUAL(run(&t, "i2c temp 0x48 30000"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "30000");
    /* without a value the temperature is read back (the LM75 keeps 0.5 degree steps) */
    CU_ASSERT_EQUAL(run(&t, "i2c temp 0x48 21300"), 0);
    CU_ASSERT_EQUAL(run(&t, "i2c temp 0x48"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "21500");
    CU_ASSERT_EQUAL(value("millicelsius"), 21500);
    CU_ASSERT_EQUAL(run(&t, "i2c temp 0x22 30000"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "no LM75 at address 0x22"));
    CU_ASSERT_EQUAL(run(&t, "i2c temp 0x22"), -1);
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
    CU_ASSERT_STRING_EQUAL(reply.text, "ls\n.");
    const vm_value *got = vm_reply_get(&reply, "data"); /* unprintable bytes kept as sent */
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_EQUAL(got->len, 4);
    CU_ASSERT_EQUAL(memcmp(vm_reply_data(&reply, got), "ls\n\x01", 4), 0);
    CU_ASSERT_EQUAL(run(&t, "uart state"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "tx 4 rx 13"));
    CU_ASSERT_EQUAL(value("tx_bytes"), 4);
    CU_ASSERT_EQUAL(value("rx_bytes"), 13);
    CU_ASSERT_EQUAL(run(&t, "uart send"), -1);
    /* inject: exactly these bytes, no newline added */
    t.sink.n = 0;
    CU_ASSERT_EQUAL(run(&t, "uart inject 00ff0d"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(t.sink.len[0], 8 + 3 + 3);
    CU_ASSERT_EQUAL(memcmp(t.sink.msg[0] + 11, "\x00\xff\x0d", 3), 0);
    CU_ASSERT_EQUAL(run(&t, "uart inject 0f0"), -1);
    CU_ASSERT_EQUAL(run(&t, "uart inject"), -1);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    vmt_down(&t);
}

static void test_cmd_uart_recv_needs_the_capture_backend(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, "[cport 3]\nbackend = loopback\n", all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "uart recv"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "does not use the capture backend"));
    vmt_down(&t);
}

static void test_cmd_battery_set_sends_event(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "battery set capacity 12"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(t.sink.msg[0][4], GB_POWER_SUPPLY_TYPE_EVENT);
    CU_ASSERT_EQUAL(value("notified"), 1);
    CU_ASSERT_EQUAL(run(&t, "battery get capacity-level"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "2");
    CU_ASSERT_EQUAL(value("value"), 2);
    CU_ASSERT_EQUAL(run(&t, "battery set capacity 300"), -1);
    CU_ASSERT_EQUAL(run(&t, "battery set colour 3"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "unknown property 'colour'"));
    CU_ASSERT_EQUAL(run(&t, "battery notify"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 2);
    vmt_down(&t);
}

static void test_cmd_battery_supply_quiet_and_property_number(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    /* quiet: the value changes, the AP is not told */
    CU_ASSERT_EQUAL(run(&t, "battery set capacity 40 0 quiet"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 0);
    CU_ASSERT_EQUAL(value("notified"), 0);
    char line[64];
    snprintf(line, sizeof line, "battery get %u 0", GB_POWER_SUPPLY_PROP_CAPACITY);
    CU_ASSERT_EQUAL(run(&t, line), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "40");
    CU_ASSERT_EQUAL(run(&t, "battery set capacity 41 0 loud"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "'loud' is not 'quiet'"));
    CU_ASSERT_EQUAL(run(&t, "battery get capacity 1"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "supply 1 does not exist (0..0)"));
    CU_ASSERT_EQUAL(run(&t, "battery set capacity 41 0"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(run(&t, "battery stats"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "get 0 set 0 events 1 rejected 0");
    CU_ASSERT_EQUAL(value("events_sent"), 1);
    vmt_down(&t);
}

static void test_cmd_hid_key_press_and_release(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "hid key a"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "not powered the device on"));
    vmt_request(&t, 8, 2, GB_HID_TYPE_PWR_ON, NULL, 0);
    t.sink.n = 0;
    CU_ASSERT_EQUAL(run(&t, "hid key a"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 2);
    CU_ASSERT_EQUAL(t.sink.msg[0][8 + 2], 0x04);
    CU_ASSERT_EQUAL(t.sink.msg[1][8 + 2], 0x00);
    CU_ASSERT_EQUAL(run(&t, "hid report 0000050000000000"), 0);
    CU_ASSERT_EQUAL(run(&t, "hid report 00"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "an input report is 8 bytes, not 1"));
    CU_ASSERT_EQUAL(run(&t, "hid state"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "on input-reports 3"));
    vmt_down(&t);
}

static void test_cmd_vibrator_light_loopback_pm(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    vmt_request(&t, 6, 2, GB_VIBRATOR_TYPE_ON, NULL, 0); /* at 1 ms */
    CU_ASSERT_EQUAL(run(&t, "vibrator state"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "on on-time-ms 999 count 1");
    const uint8_t br[3] = {0, 2, 77};
    vmt_request(&t, 7, 2, GB_LIGHTS_TYPE_SET_BRIGHTNESS, br, 3);
    CU_ASSERT_EQUAL(run(&t, "light get 2"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "blue:status brightness 77 blink 0/0 color 0x0000ff fade 0/0");
    CU_ASSERT_EQUAL(run(&t, "light get 5"), -1);
    t.sink.n = 0;
    CU_ASSERT_EQUAL(run(&t, "loopback transfer 10"), 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(run(&t, "loopback stats"), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "sent 1"));
    CU_ASSERT_EQUAL(run(&t, "loopback transfer 5000"), -1);
    CU_ASSERT_EQUAL(run(&t, "pm bundle-suspend 2"), 0);
    const uint8_t b = 1, busy = 2;
    t.sink.n = 0;
    vmt_request(&t, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, &b, 1);
    vmt_expect_response(&t, 0, 0, 3, GB_CONTROL_TYPE_BUNDLE_SUSPEND, GB_OP_SUCCESS, &busy, 1);
    CU_ASSERT_EQUAL(run(&t, "pm nap 1"), -1);
    /* TYPE may be the control type's number; 0 answers OK again */
    char line[32];
    snprintf(line, sizeof line, "pm 0x%02x 0", GB_CONTROL_TYPE_BUNDLE_SUSPEND);
    CU_ASSERT_EQUAL(run(&t, line), 0);
    vmt_request(&t, 0, 4, GB_CONTROL_TYPE_BUNDLE_SUSPEND, &b, 1);
    const uint8_t ok = 0;
    vmt_expect_response(&t, 1, 0, 4, GB_CONTROL_TYPE_BUNDLE_SUSPEND, GB_OP_SUCCESS, &ok, 1);
    CU_ASSERT_EQUAL(run(&t, "pm 0x02 1"), -1); /* a type that cannot be made to fail */
    vmt_down(&t);
}

static void test_cmd_interface_stats_counts_traffic(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    vmt_request(&t, 6, 2, GB_VIBRATOR_TYPE_ON, NULL, 0);
    vmt_request(&t, 6, 0, GB_VIBRATOR_TYPE_OFF, NULL, 0); /* unidirectional: no answer */
    CU_ASSERT_EQUAL(run(&t, "loopback ping"), 0);
    vm_interface_cport_disconnect(t.intf, 6);
    vmt_request(&t, 6, 3, GB_VIBRATOR_TYPE_ON, NULL, 0); /* dropped */
    CU_ASSERT_EQUAL(run(&t, "interface stats"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "rx-requests 2 rx-responses 0 tx-requests 1 "
                                       "tx-responses 1 dropped 1");
    CU_ASSERT_EQUAL(value("rx_requests"), 2);
    CU_ASSERT_EQUAL(value("dropped"), 1);
    CU_ASSERT_EQUAL(run(&t, "interface count"), -1);
    vmt_down(&t);
}

static void test_cmd_errors_for_missing_class_and_bad_syntax(void)
{
    vmt t;
    const uint16_t c[] = {1};
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x11, 0x11), NULL, c, 1));
    /* another interface of the module may have the class: a distinct return code */
    CU_ASSERT_EQUAL(run(&t, "gpio get 0"), VM_BACKEND_NO_CLASS);
    CU_ASSERT_STRING_EQUAL(reply.text, "the interface has no GPIO CPort");
    CU_ASSERT_EQUAL(run(&t, "gpio set 0 1"), VM_BACKEND_NO_CLASS);
    CU_ASSERT_EQUAL(run(&t, "toaster on"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "unknown class 'toaster'"));
    CU_ASSERT_EQUAL(run(&t, ""), -1);
    CU_ASSERT_EQUAL(run(&t, "loopback"), -1);
    CU_ASSERT_EQUAL(run(&t, "loopback ping"), 0);
    vm_interface_cport_disconnect(t.intf, 1);
    CU_ASSERT_EQUAL(run(&t, "loopback ping"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "not connected"));
    vmt_down(&t);
}

/* Hex arguments are hex digits only: strtoul's sign ("-1", "+f") is no hex digit, and
 * "-1" must not become the byte 0xff. */
static void test_cmd_hex_arguments_take_hex_digits_only(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 0 -1"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "'-1' is not hex"));
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 0 +f"), -1);
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 0 a+f0"), -1);
    CU_ASSERT_EQUAL(run(&t, "uart inject -1"), -1);
    CU_ASSERT_EQUAL(run(&t, "i2c read 0x50 0 2"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "ffff"); /* nothing was written */
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 0 0A0b"), 0);
    CU_ASSERT_EQUAL(run(&t, "i2c read 0x50 0 2"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "0a0b");
    vmt_down(&t);
}

/* Numbers are decimal or 0x hex (docs/modules.md), never octal: a leading zero does not
 * turn "010" into eight, nor "09" into an error. */
static void test_cmd_numbers_are_decimal_or_hex(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    CU_ASSERT_EQUAL(run(&t, "i2c write 0x50 10 cafe"), 0);
    CU_ASSERT_EQUAL(run(&t, "i2c read 0x50 010 2"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "cafe");
    CU_ASSERT_EQUAL(run(&t, "i2c read 0x50 0x0a 2"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "cafe");
    CU_ASSERT_EQUAL(run(&t, "gpio set 07 1"), 0);
    CU_ASSERT_EQUAL(run(&t, "gpio get 07"), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "1 input");
    CU_ASSERT_EQUAL(run(&t, "gpio get 08"), -1); /* line 8 of 8: no such line, not "not a number" */
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "line 8 does not exist"));
    CU_ASSERT_EQUAL(run(&t, "gpio@011 get 0"), VM_BACKEND_NO_CLASS); /* CPort 11, not 9 */
    CU_ASSERT_EQUAL(run(&t, "gpio@09 get 0"), 0);
    vmt_down(&t);
}

/* A verb that takes no argument refuses one instead of ignoring it: "uart recv 4" must not
 * hand over (and drop from the capture) everything the AP sent, as if it read 4 bytes. */
static void test_cmd_verbs_without_arguments_refuse_extra_ones(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, all_mnfs, NULL, all_cports, 9));
    const uint8_t tx[] = {5, 0, 'h', 'e', 'l', 'l', 'o'};
    vmt_request(&t, 3, 1, GB_UART_TYPE_SEND_DATA, tx, sizeof tx);
    vmt_expect_response(&t, 0, 3, 1, GB_UART_TYPE_SEND_DATA, GB_OP_SUCCESS, NULL, 0);
    CU_ASSERT_EQUAL(run(&t, "uart recv 4"), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "uart recv: expected 0 arguments"));
    CU_ASSERT_EQUAL(run(&t, "uart recv"), 0); /* the bytes are still there */
    CU_ASSERT_STRING_EQUAL(reply.text, "hello");
    CU_ASSERT_EQUAL(run(&t, "uart state verbose"), -1);
    CU_ASSERT_EQUAL(run(&t, "hid state 1"), -1);
    CU_ASSERT_EQUAL(run(&t, "loopback stats reset"), -1);
    vmt_down(&t);
}

const unit_test vmt_commands_tests[] = {
    UNIT_TEST(test_cmd_gpio_set_and_get_with_cport_selector),
    UNIT_TEST(test_cmd_i2c_temperature_and_eeprom),
    UNIT_TEST(test_cmd_uart_send_recv_and_state),
    UNIT_TEST(test_cmd_uart_recv_needs_the_capture_backend),
    UNIT_TEST(test_cmd_battery_set_sends_event),
    UNIT_TEST(test_cmd_battery_supply_quiet_and_property_number),
    UNIT_TEST(test_cmd_hid_key_press_and_release),
    UNIT_TEST(test_cmd_vibrator_light_loopback_pm),
    UNIT_TEST(test_cmd_interface_stats_counts_traffic),
    UNIT_TEST(test_cmd_errors_for_missing_class_and_bad_syntax),
    UNIT_TEST(test_cmd_hex_arguments_take_hex_digits_only),
    UNIT_TEST(test_cmd_numbers_are_decimal_or_hex),
    UNIT_TEST(test_cmd_verbs_without_arguments_refuse_extra_ones),
    UNIT_TESTS_END,
};
