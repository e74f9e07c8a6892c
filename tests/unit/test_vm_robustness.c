// SPDX-License-Identifier: MIT
// Every handler behind one interface, fed random requests and backend calls: each request
// with an operation id gets exactly one well-formed response, errors carry no payload, and
// nothing crashes (run under ASan/UBSan and valgrind by `make asan` / the CI).
#include <string.h>

#include "tests/unit/test_vm_classes_mnfs.h"
#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/hid.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/uart.h"

static const char everything_mnfs[] =
    VMT_CLASSES_MNFS
    "[cport-descriptor 9]\nbundle = 1\nprotocol = 0x09\n"
    "[cport-descriptor 10]\nbundle = 1\nprotocol = 0x0b\n"
    "[bundle-descriptor 7]\nclass = 0x17\n[cport-descriptor 11]\nbundle = 7\nprotocol = 0x1a\n"
    "[bundle-descriptor 8]\nclass = 0xfe\n[cport-descriptor 12]\nbundle = 8\nprotocol = 0xfe\n"
    "[bundle-descriptor 9]\nclass = 0x12\n[cport-descriptor 13]\nbundle = 9\nprotocol = 0x12\n"
    "[cport-descriptor 14]\nbundle = 9\nprotocol = 0x13\n";

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static void test_random_requests_get_exactly_one_wellformed_response(void)
{
    vmt t;
    const uint16_t cports[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    CU_ASSERT_FATAL(vmt_up(&t, everything_mnfs,
                           "[cport 3]\nbackend = loopback\n[cport 12]\nbackend = loopback\n"
                           "[cport 13]\njack = headset\n",
                           cports, 14));
    static uint8_t payload[GB_MSG_MAX_PAYLOAD];
    unsigned answered = 0, successes = 0;
    for (unsigned iter = 0; iter < 20000; iter++) {
        uint16_t cport = (uint16_t)(rnd() % 15);
        /* mostly the types and sizes the protocols use, so that valid requests occur */
        uint8_t type = (uint8_t)(rnd() % 4 == 0 ? rnd() % 0x80 : rnd() % 0x10);
        size_t len = rnd() % 8 == 0 ? rnd() % GB_MSG_MAX_PAYLOAD : rnd() % 8;
        for (size_t i = 0; i < len; i++)
            payload[i] = (uint8_t)(rnd() % 4 == 0 ? rnd() : rnd() % 4);
        uint16_t id = (uint16_t)(1 + rnd() % 60000);
        t.sink.n = 0;
        vmt_request(&t, cport, id, type, payload, len);
        /* exactly one response, first, with our id; module requests may follow it */
        CU_ASSERT_FATAL(t.sink.n >= 1);
        gb_msg_header h;
        CU_ASSERT_EQUAL_FATAL(gb_msg_header_decode(t.sink.msg[0], t.sink.len[0], &h), 0);
        CU_ASSERT_EQUAL(h.operation_id, id);
        CU_ASSERT_EQUAL(h.type, type | 0x80);
        CU_ASSERT_EQUAL(t.sink.cport[0], cport);
        if (h.result != GB_OP_SUCCESS) {
            CU_ASSERT_EQUAL(h.size, GB_MSG_HEADER_SIZE);
        } else {
            successes++;
        }
        for (size_t k = 1; k < t.sink.n; k++) {
            CU_ASSERT_EQUAL(t.sink.msg[k][4] & 0x80, 0);
            CU_ASSERT_TRUE(t.sink.len[k] <= GB_MSG_MAX_SIZE);
        }
        answered++;
        /* backend calls in between, as a script would make them */
        switch (rnd() % 8) {
        case 0: vm_gpio_set_input(vm_interface_gpio(t.intf, 1), rnd() % 10, rnd() % 2); break;
        case 1: vm_power_supply_set(vm_interface_power_supply(t.intf, 5), rnd() % 2,
                                    (uint8_t)(rnd() % 0x40), (int32_t)(rnd() % 120), true);
                break;
        case 2: {
            uint8_t rep[8] = {0};
            vm_hid_input_report(vm_interface_hid(t.intf, 8), rep, 8);
            break;
        }
        case 3: vm_uart_inject_rx(vm_interface_uart(t.intf, 3), payload, 1 + rnd() % 32, 0);
                break;
        default: break;
        }
    }
    CU_ASSERT_EQUAL(answered, 20000);
    CU_ASSERT_TRUE(successes > 200); /* about 400 with this seed */
    vmt_down(&t);
}

static void test_random_bytes_as_messages_never_crash(void)
{
    vmt t;
    const uint16_t cports[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    CU_ASSERT_FATAL(vmt_up(&t, everything_mnfs, NULL, cports, 14));
    static uint8_t msg[GB_MSG_MAX_SIZE + 16];
    for (unsigned iter = 0; iter < 20000; iter++) {
        size_t len = rnd() % 40;
        for (size_t i = 0; i < len; i++)
            msg[i] = (uint8_t)rnd();
        if (len >= 2 && rnd() % 2)
            gb_put_le16(msg, (uint16_t)len); /* a consistent size half of the time */
        t.sink.n = 0;
        /* gbvp refuses an unparsable header where the message enters; the rest reaches
         * the interface, whatever its type, result and payload */
        gb_msg m;
        if (gb_msg_parse(msg, len, &m) == 0)
            vm_interface_receive(t.intf, (uint16_t)(rnd() % 16), &m, 0);
        CU_ASSERT_TRUE(t.sink.n <= 8);
    }
    vmt_down(&t);
}

static void test_random_command_lines_never_crash(void)
{
    static const char *const words[] = {
        "gpio", "gpio@1", "gpio@99", "i2c", "uart", "battery", "hid", "vibrator", "light",
        "loopback", "pwm", "log", "raw", "spi", "pm", "set", "get", "temp", "read", "write",
        "send", "recv", "state", "notify", "report", "key", "queue", "ping", "transfer",
        "sink", "stats", "bundle-suspend", "capacity", "status", "0", "1", "7", "255", "256",
        "-1", "0x48", "0x50", "99999999999", "cafe", "abc", "a", "enter", "", "@", "x@y",
        "inject", "interface", "quiet", "audio", "audio@14", "jack", "insert", "remove",
        "button", "press",
    };
    const size_t nw = sizeof words / sizeof words[0];
    vmt t;
    const uint16_t cports[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    CU_ASSERT_FATAL(vmt_up(&t, everything_mnfs, "[cport 13]\njack = headset\n", cports, 14));
    vmt_request(&t, 8, 2, GB_HID_TYPE_PWR_ON, NULL, 0);
    for (unsigned iter = 0; iter < 20000; iter++) {
        char line[256] = "";
        unsigned n = rnd() % 6;
        for (unsigned k = 0; k < n; k++) {
            strcat(line, words[rnd() % nw]);
            strcat(line, k + 1 < n ? " " : "");
        }
        static vm_reply reply;
        memset(&reply, 'Z', sizeof reply);
        t.sink.n = 0;
        int rc = vm_backend_command(t.intf, line, SIM_MS(iter), &reply);
        CU_ASSERT_TRUE(rc == 0 || rc == -1 || rc == VM_BACKEND_NO_CLASS);
        CU_ASSERT_PTR_NOT_NULL(memchr(reply.text, '\0', sizeof reply.text));
        CU_ASSERT_TRUE(rc == 0 || reply.text[0] != '\0'); /* an error always says why */
        /* every named value's bytes lie inside the reply */
        CU_ASSERT_TRUE(reply.nvalues <= VM_REPLY_VALUES_MAX);
        for (size_t k = 0; k < reply.nvalues && k < VM_REPLY_VALUES_MAX; k++)
            if (reply.values[k].kind == VM_VALUE_TEXT || reply.values[k].kind == VM_VALUE_BYTES)
                CU_ASSERT_TRUE((size_t)reply.values[k].off + reply.values[k].len <=
                               reply.data_len);
    }
    vmt_down(&t);
}

const unit_test vmt_robustness_tests[] = {
    UNIT_TEST(test_random_command_lines_never_crash),
    UNIT_TEST(test_random_requests_get_exactly_one_wellformed_response),
    UNIT_TEST(test_random_bytes_as_messages_never_crash),
    UNIT_TESTS_END,
};
