// SPDX-License-Identifier: MIT
// UART handler: probe traffic of drivers/staging/greybus/uart.c, data both ways, credits.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/uart.h"

static const uint16_t cport1[] = {1};

static void up(vmt *t, const char *behaviour)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x0a, 0x04), behaviour, cport1, 1));
}

static void test_uart_probe_sets_control_lines_and_line_coding(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t ctl = 0;
    vmt_request(&t, 1, 2, GB_UART_TYPE_SET_CONTROL_LINE_STATE, &ctl, 1);
    vmt_expect_response(&t, 0, 1, 2, GB_UART_TYPE_SET_CONTROL_LINE_STATE, GB_OP_SUCCESS, NULL,
                        0);
    const uint8_t coding[8] = {0x80, 0x25, 0, 0, 0, 0, 8, 0}; /* 9600 8N1 */
    vmt_request(&t, 1, 3, GB_UART_TYPE_SET_LINE_CODING, coding, 8);
    vmt_expect_response(&t, 1, 1, 3, GB_UART_TYPE_SET_LINE_CODING, GB_OP_SUCCESS, NULL, 0);
    vm_uart_state st;
    vm_uart_get_state(vm_interface_uart(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.rate, 9600);
    CU_ASSERT_EQUAL(st.data_bits, 8);
    const uint8_t bad[8] = {0x80, 0x25, 0, 0, 0, 9, 8, 0};
    vmt_request(&t, 1, 4, GB_UART_TYPE_SET_LINE_CODING, bad, 8);
    vmt_expect_response(&t, 2, 1, 4, GB_UART_TYPE_SET_LINE_CODING, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 5, GB_UART_TYPE_SET_LINE_CODING, coding, 7);
    vmt_expect_response(&t, 3, 1, 5, GB_UART_TYPE_SET_LINE_CODING, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_uart_send_data_is_captured_and_credits_returned(void)
{
    vmt t;
    up(&t, NULL);
    uint8_t req[2 + 5] = {5, 0, 'h', 'e', 'l', 'l', 'o'};
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 2, GB_UART_TYPE_SEND_DATA, req, sizeof req), 2);
    vmt_expect_response(&t, 0, 1, 2, GB_UART_TYPE_SEND_DATA, GB_OP_SUCCESS, NULL, 0);
    /* then RECEIVE_CREDITS{5}, module-originated */
    const uint8_t credits[] = {0x0a, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00, 0x05, 0x00};
    vmt_expect(&t, 1, 1, credits, sizeof credits);
    uint8_t out[16];
    CU_ASSERT_EQUAL(vm_uart_read_tx(vm_interface_uart(t.intf, 1), out, sizeof out), 5);
    CU_ASSERT_EQUAL(memcmp(out, "hello", 5), 0);
    req[0] = 9; /* size disagrees with the payload */
    vmt_request(&t, 1, 3, GB_UART_TYPE_SEND_DATA, req, sizeof req);
    vmt_expect_response(&t, 2, 1, 3, GB_UART_TYPE_SEND_DATA, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_uart_inject_rx_sends_receive_data(void)
{
    vmt t;
    up(&t, NULL);
    vm_uart *u = vm_interface_uart(t.intf, VM_ANY_CPORT);
    CU_ASSERT_EQUAL(vm_uart_inject_rx(u, (const uint8_t *)"ok", 2, GB_UART_RECV_FLAG_PARITY), 0);
    const uint8_t want[] = {0x0d, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00,
                            0x02, 0x00, 0x02, 'o',  'k'};
    vmt_expect(&t, 0, 1, want, sizeof want);
    static uint8_t big[VM_UART_RX_CHUNK + 10];
    CU_ASSERT_EQUAL(vm_uart_inject_rx(u, big, sizeof big, 0), 0);
    CU_ASSERT_EQUAL(t.sink.n, 3);
    CU_ASSERT_EQUAL(t.sink.len[1], GB_MSG_MAX_SIZE);
    CU_ASSERT_EQUAL(t.sink.len[2], 8 + 3 + 10);
    CU_ASSERT_EQUAL(vm_uart_inject_rx(u, big, 0, 0), -EINVAL);
    CU_ASSERT_EQUAL(vm_uart_set_serial_state(u, GB_UART_CTRL_DCD), 0);
    const uint8_t ss[] = {0x09, 0x00, 0x04, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01};
    vmt_expect(&t, 3, 1, ss, sizeof ss);
    vm_interface_cport_disconnect(t.intf, 1);
    CU_ASSERT_EQUAL(vm_uart_inject_rx(u, big, 1, 0), -ENOTCONN);
    vmt_down(&t);
}

static void test_uart_loopback_backend_echoes_after_the_response(void)
{
    vmt t;
    up(&t, "[cport 1]\nbackend = loopback\n");
    const uint8_t req[2 + 3] = {3, 0, 'a', 'b', 'c'};
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 2, GB_UART_TYPE_SEND_DATA, req, sizeof req), 3);
    vmt_expect_response(&t, 0, 1, 2, GB_UART_TYPE_SEND_DATA, GB_OP_SUCCESS, NULL, 0);
    const uint8_t rx[] = {0x0e, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00,
                          0x03, 0x00, 0x00, 'a',  'b',  'c'};
    vmt_expect(&t, 1, 1, rx, sizeof rx);
    CU_ASSERT_EQUAL(t.sink.msg[2][4], GB_UART_TYPE_RECEIVE_CREDITS);
    vmt_down(&t);
}

static void test_uart_pty_backend_carries_bytes_both_ways(void)
{
    vmt t;
    up(&t, "[cport 1]\nbackend = pty\n");
    vm_uart *u = vm_interface_uart(t.intf, 1);
    const char *path = vm_uart_pty_path(u);
    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    CU_ASSERT_TRUE(vm_uart_fd(u) >= 0);
    int user = open(path, O_RDWR | O_NOCTTY);
    CU_ASSERT_TRUE_FATAL(user >= 0);
    const uint8_t req[2 + 2] = {2, 0, 'h', 'i'};
    vmt_request(&t, 1, 2, GB_UART_TYPE_SEND_DATA, req, sizeof req);
    char got[4] = {0};
    struct pollfd pfd = {user, POLLIN, 0};
    CU_ASSERT_EQUAL(poll(&pfd, 1, 2000), 1);
    CU_ASSERT_EQUAL(read(user, got, sizeof got), 2);
    CU_ASSERT_EQUAL(memcmp(got, "hi", 2), 0);
    CU_ASSERT_EQUAL(write(user, "yo", 2), 2);
    /* the program's loop: watch the interface's fds, service it when readable */
    int fds[2];
    CU_ASSERT_EQUAL_FATAL(vm_interface_fds(t.intf, fds, 2), 1);
    CU_ASSERT_EQUAL(fds[0], vm_uart_fd(u));
    struct pollfd mfd = {fds[0], POLLIN, 0};
    CU_ASSERT_EQUAL(poll(&mfd, 1, 2000), 1);
    size_t before = t.sink.n;
    CU_ASSERT_EQUAL(vm_interface_service(t.intf), 2);
    const uint8_t rx[] = {0x0d, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00,
                          0x02, 0x00, 0x00, 'y',  'o'};
    vmt_expect(&t, before, 1, rx, sizeof rx);
    CU_ASSERT_EQUAL(vm_uart_service(u), 0);
    char desc[256];
    vm_interface_describe(t.intf, desc, sizeof desc);
    CU_ASSERT_PTR_NOT_NULL(strstr(desc, path));
    close(user);
    vmt_down(&t);
}

static void test_uart_module_originated_types_from_ap_are_refused(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t one = 1, two = 2;
    vmt_request(&t, 1, 2, GB_UART_TYPE_RECEIVE_CREDITS, &one, 1);
    vmt_expect_response(&t, 0, 1, 2, GB_UART_TYPE_RECEIVE_CREDITS, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_request(&t, 1, 3, GB_UART_TYPE_SEND_BREAK, &two, 1);
    vmt_expect_response(&t, 1, 1, 3, GB_UART_TYPE_SEND_BREAK, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 4, GB_UART_TYPE_SEND_BREAK, &one, 1);
    vmt_request(&t, 1, 5, GB_UART_TYPE_FLUSH_FIFOS, &one, 1);
    vm_uart_state st;
    vm_uart_get_state(vm_interface_uart(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.breaks, 1);
    CU_ASSERT_EQUAL(st.flushes, 1);
    vmt_down(&t);
}

const unit_test vmt_uart_tests[] = {
    UNIT_TEST(test_uart_probe_sets_control_lines_and_line_coding),
    UNIT_TEST(test_uart_send_data_is_captured_and_credits_returned),
    UNIT_TEST(test_uart_inject_rx_sends_receive_data),
    UNIT_TEST(test_uart_loopback_backend_echoes_after_the_response),
    UNIT_TEST(test_uart_pty_backend_carries_bytes_both_ways),
    UNIT_TEST(test_uart_module_originated_types_from_ap_are_refused),
    UNIT_TESTS_END,
};
