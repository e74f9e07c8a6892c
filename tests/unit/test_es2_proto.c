// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of qemu-hw/es2_proto.c: how the greybus-es2 device judges and translates what
// the gb-es2 driver sends, without QEMU.
#include <string.h>

#include "gblink/gblink.h"
#include "qemu-hw/es2_proto.h"
#include "tests/unit/unit.h"

static es2_action decode(uint8_t type, uint8_t req, uint16_t value, uint16_t index,
                         uint16_t length, const uint8_t *data)
{
    es2_ctrl c = { type, req, value, index, length, data };
    es2_action a;

    es2_decode_control(&c, 44, &a);
    return a;
}

static void test_cport_count_replies_two_little_endian_bytes(void)
{
    es2_action a = decode(ES2_REQTYPE_IN, ES2_REQ_CPORT_COUNT, 0, 0, 2, NULL);
    es2_ctrl c = { ES2_REQTYPE_IN, ES2_REQ_CPORT_COUNT, 0, 0, 2, NULL };

    CU_ASSERT_EQUAL(a.verdict, ES2_REPLY);
    CU_ASSERT_EQUAL(a.reply_len, 2);
    CU_ASSERT_EQUAL(a.reply[0], 44);
    CU_ASSERT_EQUAL(a.reply[1], 0);
    es2_decode_control(&c, 255, &a);
    CU_ASSERT_EQUAL(a.reply[0], 255);
}

static void test_cport_count_refuses_wrong_direction_and_short_buffer(void)
{
    es2_action a = decode(ES2_REQTYPE_OUT, ES2_REQ_CPORT_COUNT, 0, 0, 0, NULL);

    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "bmRequestType"));
    a = decode(ES2_REQTYPE_IN, ES2_REQ_CPORT_COUNT, 0, 0, 1, NULL);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "wLength 1"));
}

static void test_requests_to_other_recipients_or_interfaces_are_refused(void)
{
    /* standard device request, vendor device request, interface 1 */
    es2_action a = decode(0x80, 0x06, 0x0100, 0, 18, NULL);

    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    a = decode(0xc0, ES2_REQ_CPORT_COUNT, 0, 0, 2, NULL);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    a = decode(ES2_REQTYPE_IN, ES2_REQ_CPORT_COUNT, 0, 1, 2, NULL);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "interface 1"));
}

static void test_cport_flags_forwards_flags_of_a_valid_cport(void)
{
    const uint8_t flags[4] = { 0x03, 0, 0, 0 };
    es2_action a = decode(ES2_REQTYPE_OUT, ES2_REQ_CPORT_FLAGS, 5, 0, 4, flags);
    gbl_cport_flags f;

    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_CPORT_FLAGS);
    CU_ASSERT_EQUAL(a.cport, 5);
    CU_ASSERT_EQUAL(a.payload_len, sizeof(f));
    memcpy(&f, a.payload, sizeof(f));
    CU_ASSERT_EQUAL(f.flags, 3);
    CU_ASSERT_EQUAL(a.reply_max, 0);
}

static void test_cport_flags_refuses_bad_cport_length_and_flags(void)
{
    const uint8_t ok[4] = { 0x02, 0, 0, 0 }, bad[4] = { 0x04, 0, 0, 0 };
    es2_action a = decode(ES2_REQTYPE_OUT, ES2_REQ_CPORT_FLAGS, 44, 0, 4, ok);

    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "CPort 44"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_CPORT_FLAGS, 0, 0, 3, ok);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_CPORT_FLAGS, 0, 0, 4, bad);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "unknown flags"));
}

static void test_arpc_cport_connected_becomes_an_arpc_with_its_id(void)
{
    /* id 0x0102, size 7, type CONNECTED, cport 0 */
    const uint8_t req[7] = { 0x02, 0x01, 7, 0, ES2_ARPC_CPORT_CONNECTED, 0, 0 };
    es2_action a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 7, req);

    CU_ASSERT_EQUAL(a.verdict, ES2_ARPC);
    CU_ASSERT_EQUAL(a.arpc_id, 0x0102);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_CPORT_CONNECTED);
    CU_ASSERT_EQUAL(a.cport, 0);
    CU_ASSERT_EQUAL(a.payload_len, 0);
}

static void test_arpc_quiesce_and_shutdown_carry_their_parameters(void)
{
    const uint8_t q[11] = { 1, 0, 11, 0, ES2_ARPC_CPORT_QUIESCE, 3, 0, 9, 0, 0xe8, 0x03 };
    const uint8_t sd[10] = { 2, 0, 10, 0, ES2_ARPC_CPORT_SHUTDOWN, 4, 0, 0xe8, 0x03, 2 };
    es2_action a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 11, q);
    gbl_cport_quiesce gq;
    gbl_cport_shutdown gs;

    CU_ASSERT_EQUAL(a.verdict, ES2_ARPC);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_CPORT_QUIESCE);
    CU_ASSERT_EQUAL(a.cport, 3);
    CU_ASSERT_EQUAL(a.payload_len, sizeof(gq));
    memcpy(&gq, a.payload, sizeof(gq));
    CU_ASSERT_EQUAL(gq.peer_space, 9);
    CU_ASSERT_EQUAL(gq.timeout_ms, 1000);

    a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 10, sd);
    CU_ASSERT_EQUAL(a.verdict, ES2_ARPC);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_CPORT_SHUTDOWN);
    CU_ASSERT_EQUAL(a.cport, 4);
    memcpy(&gs, a.payload, sizeof(gs));
    CU_ASSERT_EQUAL(gs.timeout_ms, 1000);
    CU_ASSERT_EQUAL(gs.phase, 2);
}

static void test_arpc_refuses_size_type_payload_cport_and_phase_errors(void)
{
    const uint8_t size_lies[7] = { 0, 0, 9, 0, ES2_ARPC_CPORT_CLEAR, 1, 0 };
    const uint8_t unknown[7] = { 0, 0, 7, 0, 0x09, 1, 0 };
    const uint8_t long_flush[8] = { 0, 0, 8, 0, ES2_ARPC_CPORT_FLUSH, 1, 0, 0 };
    const uint8_t bad_cport[7] = { 0, 0, 7, 0, ES2_ARPC_CPORT_FLUSH, 200, 0 };
    const uint8_t bad_phase[10] = { 0, 0, 10, 0, ES2_ARPC_CPORT_SHUTDOWN, 1, 0, 0, 0, 3 };
    es2_action a;

    a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 7, size_lies);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "says it is 9 bytes"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 7, unknown);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "unknown ARPC type 0x09"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 8, long_flush);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "3 payload bytes"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 7, bad_cport);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "CPort 200"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 10, bad_phase);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "phase 3"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_ARPC_RUN, 0, 0, 4, size_lies);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    a = decode(ES2_REQTYPE_IN, ES2_REQ_ARPC_RUN, 0, 0, 7, size_lies);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
}

static void test_latency_tags_and_cport_reset_forward_their_cport(void)
{
    es2_action a = decode(ES2_REQTYPE_OUT, ES2_REQ_LATENCY_TAG_EN, 7, 0, 0, NULL);

    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_LATENCY_TAG_ENABLE);
    CU_ASSERT_EQUAL(a.cport, 7);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_LATENCY_TAG_DIS, 7, 0, 0, NULL);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_LATENCY_TAG_DISABLE);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_RESET_CPORT, 2, 0, 0, NULL);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_CPORT_RESET);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_LATENCY_TAG_EN, 7, 0, 1, (const uint8_t *)"x");
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
}

static void test_log_forwards_and_caps_the_reply_at_64_bytes(void)
{
    es2_action a = decode(ES2_REQTYPE_IN, ES2_REQ_LOG, 0, 0, 64, NULL);

    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_LOG_REQUEST);
    CU_ASSERT_EQUAL(a.cport, GBL_CPORT_NONE);
    CU_ASSERT_EQUAL(a.reply_max, 64);
    a = decode(ES2_REQTYPE_IN, ES2_REQ_LOG, 0, 0, 4000, NULL);
    CU_ASSERT_EQUAL(a.reply_max, 64);
    a = decode(ES2_REQTYPE_IN, ES2_REQ_LOG, 0, 0, 10, NULL);
    CU_ASSERT_EQUAL(a.reply_max, 10);
}

static void test_timesync_requests_translate_their_payloads(void)
{
    uint8_t en[17] = { 3 };
    uint8_t auth[32] = { 0 };
    gbl_timesync_enable te;
    gbl_timesync_authoritative ta;
    es2_action a;

    en[1] = 0x10;          /* frame_time = 0x10 */
    en[9] = 0x20;          /* strobe_delay = 0x20 */
    en[13] = 0x40;         /* refclk = 0x40 */
    auth[24] = 0x7;        /* frame_time[3] = 7 */
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_TIMESYNC_ENABLE, 0, 0, 17, en);
    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    memcpy(&te, a.payload, sizeof(te));
    CU_ASSERT_EQUAL(te.count, 3);
    CU_ASSERT_EQUAL(te.frame_time, 0x10);
    CU_ASSERT_EQUAL(te.strobe_delay, 0x20);
    CU_ASSERT_EQUAL(te.refclk, 0x40);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_TIMESYNC_AUTHORITATIVE, 0, 0, 32, auth);
    memcpy(&ta, a.payload, sizeof(ta));
    CU_ASSERT_EQUAL(ta.frame_time[3], 7);
    a = decode(ES2_REQTYPE_IN, ES2_REQ_TIMESYNC_GET_LAST_EVENT, 0, 0, 8, NULL);
    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    CU_ASSERT_EQUAL(a.reply_min, 8);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_TIMESYNC_ENABLE, 0, 0, 16, en);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
}

static void test_unknown_and_unimplemented_requests_are_refused(void)
{
    es2_action a = decode(ES2_REQTYPE_OUT, 0x7f, 0, 0, 0, NULL);

    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_FALSE(a.unimplemented);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "unknown vendor request 0x7f"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_CSI_TX_CONTROL, 0, 0, 0, NULL);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_TRUE(a.unimplemented);
}

/* The APBridgeA audio requests gb-audio-codec sends (audio_apbridgea.c), as bytes. */
static void test_audio_requests_are_forwarded_whole(void)
{
    static const uint8_t set_config[15] = { 0x01, 0, 0, 0x02, 0, 0, 0, 0x80, 0, 0, 0,
                                            0x00, 0xc0, 0x5d, 0x00 };
    static const uint8_t reg[6] = { 0x02, 0, 0, 5, 0, 0x01 };
    static const uint8_t start_tx[11] = { 0x07, 0, 0 };
    static const uint8_t stop_rx[3] = { 0x0e, 0, 0 };
    es2_action a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 15, set_config);

    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    CU_ASSERT_EQUAL(a.gbl_type, GBL_T_AUDIO_CONTROL);
    CU_ASSERT_EQUAL(a.cport, GBL_CPORT_NONE);
    CU_ASSERT_EQUAL(a.payload_len, 15);
    CU_ASSERT_EQUAL(memcmp(a.payload, set_config, 15), 0);
    CU_ASSERT_TRUE(a.payload_len <= GBL_AUDIO_CONTROL_MAX);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 6, reg);
    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    CU_ASSERT_EQUAL(a.payload_len, 6);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 11, start_tx);
    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 3, stop_rx);
    CU_ASSERT_EQUAL(a.verdict, ES2_FORWARD);
    CU_ASSERT_EQUAL(a.payload[0], 0x0e);
}

static void test_audio_requests_with_bad_framing_are_refused(void)
{
    uint8_t b[16] = { 0x02, 0, 0, 44, 0, 0x01 };
    es2_action a;

    /* a CPort beyond the bridge's 44 */
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 6, b);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "CPort 44"));
    /* the body a type fixes, give or take one byte */
    b[3] = 1;
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 7, b);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "expected 6"));
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 5, b);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    /* shorter than the header, IN instead of OUT, a wValue */
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 2, b);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    a = decode(ES2_REQTYPE_IN, ES2_REQ_AUDIO_CONTROL, 0, 0, 6, b);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 1, 0, 6, b);
    CU_ASSERT_EQUAL(a.verdict, ES2_REFUSE);
    /* the unused types 0x05 and 0x0b, 0 and past the last */
    for (unsigned t = 0; t < 256; t++) {
        b[0] = (uint8_t)t;
        int known = t >= 1 && t <= 0x0f && t != 0x05 && t != 0x0b;
        int refused = 1;
        for (unsigned len = 3; len <= 16; len++) {
            a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, (uint16_t)len, b);
            if (a.verdict == ES2_FORWARD) {
                refused = 0;
                CU_ASSERT_TRUE(len <= GBL_AUDIO_CONTROL_MAX);
            }
        }
        CU_ASSERT_EQUAL(refused, !known);
        if (!known) {
            a = decode(ES2_REQTYPE_OUT, ES2_REQ_AUDIO_CONTROL, 0, 0, 3, b);
            CU_ASSERT_PTR_NOT_NULL(strstr(a.why, "unknown APBridgeA type"));
        }
    }
}

static void make_msg(uint8_t *m, uint16_t size, uint8_t cport)
{
    memset(m, 0xaa, size);
    m[0] = (uint8_t)size;
    m[1] = (uint8_t)(size >> 8);
    m[6] = cport;
    m[7] = 0x55;
}

static void test_out_message_gives_cport_and_clears_the_pad(void)
{
    uint8_t m[ES2_MSG_SIZE_MAX];
    uint16_t cport = 0xffff;
    char why[ES2_WHY_MAX];

    make_msg(m, 12, 9);
    CU_ASSERT_EQUAL(es2_check_out_message(m, 12, 44, &cport, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(cport, 9);
    CU_ASSERT_EQUAL(m[6], 0);
    CU_ASSERT_EQUAL(m[7], 0);
    make_msg(m, ES2_MSG_SIZE_MAX, 43);
    CU_ASSERT_EQUAL(es2_check_out_message(m, ES2_MSG_SIZE_MAX, 44, &cport, why, sizeof(why)),
                    0);
    CU_ASSERT_EQUAL(cport, 43);
}

static void test_out_message_refuses_short_long_lying_and_bad_cport(void)
{
    uint8_t m[ES2_MSG_SIZE_MAX + 8];
    uint16_t cport;
    char why[ES2_WHY_MAX];

    make_msg(m, 12, 1);
    CU_ASSERT_EQUAL(es2_check_out_message(m, 7, 44, &cport, why, sizeof(why)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "shorter"));
    make_msg(m, 12, 1);
    CU_ASSERT_EQUAL(es2_check_out_message(m, 13, 44, &cport, why, sizeof(why)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "header says 12 bytes"));
    make_msg(m, ES2_MSG_SIZE_MAX + 8, 1);
    CU_ASSERT_EQUAL(es2_check_out_message(m, ES2_MSG_SIZE_MAX + 8, 44, &cport, why,
                                          sizeof(why)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "exceeds"));
    make_msg(m, 8, 44);
    CU_ASSERT_EQUAL(es2_check_out_message(m, 8, 44, &cport, why, sizeof(why)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "CPort 44"));
}

static void test_in_message_carries_cport_in_header_byte_6(void)
{
    uint8_t m[16], out[ES2_MSG_SIZE_MAX];
    char why[ES2_WHY_MAX];

    make_msg(m, 16, 0);
    CU_ASSERT_EQUAL(es2_pack_in_message(3, m, 16, 44, out, why, sizeof(why)), 0);
    CU_ASSERT_EQUAL(out[6], 3);
    CU_ASSERT_EQUAL(out[7], 0);
    CU_ASSERT_EQUAL(out[0], 16);
    CU_ASSERT_EQUAL(out[15], 0xaa);
}

static void test_in_message_refuses_bad_cport_size_and_header(void)
{
    uint8_t m[ES2_MSG_SIZE_MAX + 1], out[ES2_MSG_SIZE_MAX];
    char why[ES2_WHY_MAX];

    make_msg(m, 16, 0);
    CU_ASSERT_EQUAL(es2_pack_in_message(44, m, 16, 44, out, why, sizeof(why)), -1);
    CU_ASSERT_EQUAL(es2_pack_in_message(GBL_CPORT_NONE, m, 16, 255, out, why, sizeof(why)),
                    -1);
    CU_ASSERT_EQUAL(es2_pack_in_message(1, m, 4, 44, out, why, sizeof(why)), -1);
    CU_ASSERT_EQUAL(es2_pack_in_message(1, m, 15, 44, out, why, sizeof(why)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "header says 16"));
    make_msg(m, ES2_MSG_SIZE_MAX + 1, 0);
    CU_ASSERT_EQUAL(es2_pack_in_message(1, m, ES2_MSG_SIZE_MAX + 1, 44, out, why,
                                        sizeof(why)), -1);
}

static void test_arpc_response_and_result_codes(void)
{
    uint8_t r[ES2_ARPC_RESPONSE_SIZE];

    es2_arpc_response(0x1234, ES2_ARPC_INVALID, r);
    CU_ASSERT_EQUAL(r[0], 0x34);
    CU_ASSERT_EQUAL(r[1], 0x12);
    CU_ASSERT_EQUAL(r[2], ES2_ARPC_INVALID);
    CU_ASSERT_EQUAL(es2_arpc_result_from_status(GBL_STATUS_OK), ES2_ARPC_SUCCESS);
    CU_ASSERT_EQUAL(es2_arpc_result_from_status(GBL_STATUS_TIMEOUT), ES2_ARPC_TIMEOUT);
    CU_ASSERT_EQUAL(es2_arpc_result_from_status(GBL_STATUS_UNSUPPORTED),
                    ES2_ARPC_UNKNOWN_ERROR);
}

static const unit_test control_tests[] = {
    UNIT_TEST(test_cport_count_replies_two_little_endian_bytes),
    UNIT_TEST(test_cport_count_refuses_wrong_direction_and_short_buffer),
    UNIT_TEST(test_requests_to_other_recipients_or_interfaces_are_refused),
    UNIT_TEST(test_cport_flags_forwards_flags_of_a_valid_cport),
    UNIT_TEST(test_cport_flags_refuses_bad_cport_length_and_flags),
    UNIT_TEST(test_arpc_cport_connected_becomes_an_arpc_with_its_id),
    UNIT_TEST(test_arpc_quiesce_and_shutdown_carry_their_parameters),
    UNIT_TEST(test_arpc_refuses_size_type_payload_cport_and_phase_errors),
    UNIT_TEST(test_latency_tags_and_cport_reset_forward_their_cport),
    UNIT_TEST(test_log_forwards_and_caps_the_reply_at_64_bytes),
    UNIT_TEST(test_timesync_requests_translate_their_payloads),
    UNIT_TEST(test_unknown_and_unimplemented_requests_are_refused),
    UNIT_TEST(test_audio_requests_are_forwarded_whole),
    UNIT_TEST(test_audio_requests_with_bad_framing_are_refused),
    UNIT_TESTS_END,
};

static const unit_test bulk_tests[] = {
    UNIT_TEST(test_out_message_gives_cport_and_clears_the_pad),
    UNIT_TEST(test_out_message_refuses_short_long_lying_and_bad_cport),
    UNIT_TEST(test_in_message_carries_cport_in_header_byte_6),
    UNIT_TEST(test_in_message_refuses_bad_cport_size_and_header),
    UNIT_TEST(test_arpc_response_and_result_codes),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "es2_control", control_tests, NULL, NULL },
    { "es2_bulk", bulk_tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
