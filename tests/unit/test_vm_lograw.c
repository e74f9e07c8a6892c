// SPDX-License-Identifier: MIT
// Log and raw handlers, as drivers/staging/greybus/log.c and raw.c receive and send.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/log_protocol.h"
#include "virtual-modules/raw.h"

static const uint16_t cport1[] = {1};

static void test_log_send_is_nul_terminated_and_split(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x17, 0x1a), NULL, cport1, 1));
    vm_log *l = vm_interface_log(t.intf, 1);
    CU_ASSERT_EQUAL(vm_log_send(l, "hi"), 0);
    const uint8_t want[] = {0x0d, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
                            0x03, 0x00, 'h',  'i',  0x00};
    vmt_expect(&t, 0, 1, want, sizeof want);
    static char big[1500];
    memset(big, 'x', sizeof big - 1);
    CU_ASSERT_EQUAL(vm_log_send(l, big), 0);
    CU_ASSERT_EQUAL(t.sink.n, 3);
    CU_ASSERT_EQUAL(gb_get_le16(t.sink.msg[1] + 8), 1024);
    CU_ASSERT_EQUAL(t.sink.msg[1][8 + 2 + 1023], 0);
    CU_ASSERT_EQUAL(gb_get_le16(t.sink.msg[2] + 8), 1499 - 1023 + 1);
    CU_ASSERT_EQUAL(vm_log_send(l, ""), -EINVAL);
    CU_ASSERT_EQUAL(vm_log_sent(l), 3);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "log send booted ok", 0, &reply), 0);
    CU_ASSERT_EQUAL(memcmp(t.sink.msg[3] + 10, "booted ok", 10), 0);
    /* the AP sends nothing but shutdown on a log CPort */
    vmt_request(&t, 1, 2, GB_LOG_TYPE_SEND_LOG, NULL, 0);
    vmt_expect_response(&t, 4, 1, 2, GB_LOG_TYPE_SEND_LOG, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

/* A recv takes what its text can show; the rest waits for the next recv, none is lost. */
static void test_raw_recv_of_more_than_a_text_holds_keeps_the_rest(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0xfe, 0xfe), NULL, cport1, 1));
    uint8_t req[4 + 600];
    req[0] = 600 & 0xff;
    req[1] = 600 >> 8;
    req[2] = req[3] = 0;
    for (unsigned i = 0; i < 600; i++)
        req[4 + i] = (uint8_t)i;
    vmt_request(&t, 1, 2, GB_RAW_TYPE_SEND, req, sizeof req);
    vmt_expect_response(&t, 0, 1, 2, GB_RAW_TYPE_SEND, GB_OP_SUCCESS, NULL, 0);
    vm_reply reply;
    size_t total = 0;
    for (int round = 0; round < 3; round++) {
        CU_ASSERT_EQUAL(vm_backend_command(t.intf, "raw recv", 0, &reply), 0);
        size_t shown = strlen(reply.text) / 2;
        const vm_value *data = vm_reply_get(&reply, "data");
        CU_ASSERT_PTR_NOT_NULL_FATAL(data);
        CU_ASSERT_EQUAL(data->len, shown);
        for (size_t i = 0; i < shown; i++) {
            unsigned byte;
            CU_ASSERT_EQUAL(sscanf(reply.text + 2 * i, "%2x", &byte), 1);
            CU_ASSERT_EQUAL(byte, (uint8_t)(total + i));
        }
        total += shown;
    }
    CU_ASSERT_EQUAL(total, 600);
    vmt_down(&t);
}

static void test_raw_capture_and_send_both_ways(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0xfe, 0xfe), NULL, cport1, 1));
    const uint8_t req[4 + 3] = {3, 0, 0, 0, 0xaa, 0xbb, 0xcc};
    vmt_request(&t, 1, 2, GB_RAW_TYPE_SEND, req, sizeof req);
    vmt_expect_response(&t, 0, 1, 2, GB_RAW_TYPE_SEND, GB_OP_SUCCESS, NULL, 0);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "raw recv", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "aabbcc");
    const vm_value *data = vm_reply_get(&reply, "data"); /* the same bytes, not hex */
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    CU_ASSERT_EQUAL(data->kind, VM_VALUE_BYTES);
    CU_ASSERT_EQUAL(data->len, 3);
    CU_ASSERT_EQUAL(memcmp(vm_reply_data(&reply, data), req + 4, 3), 0);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "raw send 0102", 0, &reply), 0);
    const uint8_t want[] = {0x0e, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
                            0x02, 0x00, 0x00, 0x00, 0x01, 0x02};
    vmt_expect(&t, 1, 1, want, sizeof want);
    const uint8_t bad[4 + 2] = {3, 0, 0, 0, 1, 2};
    vmt_request(&t, 1, 3, GB_RAW_TYPE_SEND, bad, sizeof bad);
    vmt_expect_response(&t, 2, 1, 3, GB_RAW_TYPE_SEND, GB_OP_INVALID, NULL, 0);
    const uint8_t empty[4] = {0};
    vmt_request(&t, 1, 4, GB_RAW_TYPE_SEND, empty, 4);
    vmt_expect_response(&t, 3, 1, 4, GB_RAW_TYPE_SEND, GB_OP_INVALID, NULL, 0);
    CU_ASSERT_EQUAL(vm_raw_received(vm_interface_raw(t.intf, 1)), 3);
    vmt_down(&t);
}

static void test_raw_loopback_backend_echoes_after_response(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0xfe, 0xfe), "[cport 1]\nbackend = loopback\n",
                           cport1, 1));
    const uint8_t req[4 + 1] = {1, 0, 0, 0, 0x42};
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 2, GB_RAW_TYPE_SEND, req, sizeof req), 2);
    vmt_expect_response(&t, 0, 1, 2, GB_RAW_TYPE_SEND, GB_OP_SUCCESS, NULL, 0);
    const uint8_t echo[] = {0x0d, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
                            0x01, 0x00, 0x00, 0x00, 0x42};
    vmt_expect(&t, 1, 1, echo, sizeof echo);
    vmt_down(&t);
}

/* The catalog's lograw module: log on CPort 1 (class 0x17), raw on CPort 2 (class 0xfe,
 * capture backend); each handler sends on its own CPort. */
static void test_lograw_catalog_entry_has_log_and_raw_cports(void)
{
    vmt t;
    static char mnfs[2048], beh[1024];
    const uint16_t cports[] = {1, 2};
    CU_ASSERT_FATAL(vmt_up(&t, vmt_catalog_text("lograw.mnfs", mnfs, sizeof mnfs),
                           vmt_catalog_text("lograw.behaviour", beh, sizeof beh), cports, 2));
    CU_ASSERT_PTR_NOT_NULL(vm_interface_log(t.intf, 1));
    CU_ASSERT_PTR_NOT_NULL(vm_interface_raw(t.intf, 2));
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "log send up", 0, &reply), 0);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "raw send 01", 0, &reply), 0);
    CU_ASSERT_EQUAL_FATAL(t.sink.n, 2);
    CU_ASSERT_EQUAL(t.sink.cport[0], 1);
    CU_ASSERT_EQUAL(t.sink.msg[0][4], GB_LOG_TYPE_SEND_LOG);
    CU_ASSERT_EQUAL(t.sink.cport[1], 2);
    CU_ASSERT_EQUAL(t.sink.msg[1][4], GB_RAW_TYPE_SEND);
    const uint8_t req[4 + 2] = {2, 0, 0, 0, 0x61, 0x62};
    vmt_request(&t, 2, 2, GB_RAW_TYPE_SEND, req, sizeof req);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "raw recv", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "6162");
    vmt_down(&t);
}

const unit_test vmt_lograw_tests[] = {
    UNIT_TEST(test_lograw_catalog_entry_has_log_and_raw_cports),
    UNIT_TEST(test_log_send_is_nul_terminated_and_split),
    UNIT_TEST(test_raw_capture_and_send_both_ways),
    UNIT_TEST(test_raw_recv_of_more_than_a_text_holds_keeps_the_rest),
    UNIT_TEST(test_raw_loopback_backend_echoes_after_response),
    UNIT_TESTS_END,
};
