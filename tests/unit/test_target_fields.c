// SPDX-License-Identifier: MIT
// The field tables every front end reports through (gbvp/target/fields.h): every field
// reads and writes its own member, whatever its width, under the name the scenario API
// and the control socket use; and named values (vm_reply) keep what they are given.
#include <stdio.h>
#include <string.h>

#include "gbvp/target/fields.h"
#include "tests/unit/unit.h"

/* The values of a reply as "name=v name=bV ...". */
static const char *text(const vm_reply *r)
{
    static char buf[512];
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < r->nvalues; i++) {
        const vm_value *v = &r->values[i];
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s=%s%lld", len ? " " : "",
                                v->name, v->kind == VM_VALUE_BOOL ? "b" : "", (long long)v->i);
    }
    return buf;
}

static const char *fields(const sim_fields *set, const void *obj)
{
    static vm_reply r;
    vm_reply_clear(&r);
    sim_fields_put(set, obj, &r);
    return text(&r);
}

static void test_stats_keep_the_order_and_names_of_the_stats_reply(void)
{
    sim_target_stats st = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, true, 11, 12, 13, 14, 15, 16, 17,
                            18, 19, 20 };
    /* every name fits a reply's value (VM_REPLY_NAME_MAX): one too long would be lost */
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_stats, &st),
                           "ap_requests=1 ap_bad_requests=2 svc_requests_sent=3 "
                           "ap_timeouts=4 pings=5 forwarded_to_ap=6 forwarded_to_intf=7 "
                           "dropped=8 connections=9 pending_events=10 handshake_done=b1 "
                           "qemu_records_queued=11 qemu_queue_peak=12 "
                           "qemu_records_waiting=13 qemu_messages_dropped=14 "
                           "qemu_answers_dropped=15 qemu_records_discarded=16 "
                           "qemu_messages_no_peer=17 qemu_messages_too_big=18 "
                           "qemu_records_refused=19 qemu_peers_refused=20");
}

static void test_fields_of_every_width_read_their_own_member(void)
{
    sim_target_intf in = { .known = true, .enabled = true, .device_id = 5, .bundles = 2,
                           .bound_bundles = 1, .connections = 3, .present = true,
                           .activations = 4000000000u, .product_id = 0xb,
                           .serial_number = 0x123456789aull };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_intf, &in),
                           "known=b1 active=b0 enabled=b1 suspended=b0 device_id=5 bundles=2 "
                           "bound_bundles=1 connections=3 present=b1 powered=b0 "
                           "activations=4000000000 vendor_id=0 product_id=11 "
                           "serial_number=78187493530");
    sim_target_link li = { .frames = 1, .from_intf_delivered = 1ull << 40,
                           .from_intf_last_ns = 113553 };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_link, &li),
                           "frames=1 replays=0 replay_timeouts=0 crc_errors=0 dropped=0 "
                           "duplicates=0 to_intf_sent=0 to_intf_delivered=0 "
                           "from_intf_sent=0 from_intf_delivered=1099511627776 "
                           "to_intf_last_ns=0 from_intf_last_ns=113553");
}

/* A remote target reads the control socket's members back into the structure. */
static void test_values_come_back_into_the_structure(void)
{
    sim_target_intf in = { .known = true, .suspended = true, .device_id = 200, .bundles = 7,
                           .activations = 3, .vendor_id = 0xfffffffeu,
                           .serial_number = 1ull << 40 };
    vm_reply r;
    vm_reply_clear(&r);
    sim_fields_put(&sim_fields_intf, &in, &r);
    vm_reply_text(&r, "state", "suspended"); /* other values are left alone */
    sim_target_intf back = { .enabled = true, .device_id = 1, .powered = true };
    sim_fields_get(&sim_fields_intf, &r, &back);
    char want[512];
    snprintf(want, sizeof want, "%s", fields(&sim_fields_intf, &in));
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_intf, &back), want);
    sim_target_stats st = { .pings = 1ull << 50, .handshake_done = true }, st2 = { .dropped = 9 };
    vm_reply_clear(&r);
    sim_fields_put(&sim_fields_stats, &st, &r);
    sim_fields_get(&sim_fields_stats, &r, &st2);
    snprintf(want, sizeof want, "%s", fields(&sim_fields_stats, &st));
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_stats, &st2), want);
}

static void test_reply_values_keep_text_and_bytes_and_refuse_what_does_not_fit(void)
{
    vm_reply r;
    vm_reply_clear(&r);
    const uint8_t bytes[] = { 0, 1, 0xff };
    vm_reply_bytes(&r, "data", bytes, sizeof bytes);
    vm_reply_text(&r, "pty", "/dev/pts/3");
    const vm_value *v = vm_reply_get(&r, "data");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(v->kind, VM_VALUE_BYTES);
    CU_ASSERT_EQUAL(v->len, 3);
    CU_ASSERT_EQUAL(memcmp(vm_reply_data(&r, v), bytes, 3), 0);
    v = vm_reply_get(&r, "pty");
    CU_ASSERT_EQUAL(v->len, 10);
    CU_ASSERT_EQUAL(memcmp(vm_reply_data(&r, v), "/dev/pts/3", 10), 0);
    CU_ASSERT_PTR_NULL(vm_reply_get(&r, "nothing"));
    /* a name too long, more data than fits, more values than fit: left out, no overflow */
    vm_reply_int(&r, "a-name-longer-than-twenty-four", 1);
    CU_ASSERT_PTR_NULL(vm_reply_get(&r, "a-name-longer-than-twenty-four"));
    static uint8_t big[VM_REPLY_DATA_MAX];
    vm_reply_bytes(&r, "big", big, sizeof big);
    CU_ASSERT_PTR_NULL(vm_reply_get(&r, "big"));
    for (int i = 0; i < 40; i++)
        vm_reply_int(&r, "n", i);
    CU_ASSERT_EQUAL(r.nvalues, VM_REPLY_VALUES_MAX);
}

static const unit_test tests[] = {
    UNIT_TEST(test_stats_keep_the_order_and_names_of_the_stats_reply),
    UNIT_TEST(test_fields_of_every_width_read_their_own_member),
    UNIT_TEST(test_values_come_back_into_the_structure),
    UNIT_TEST(test_reply_values_keep_text_and_bytes_and_refuse_what_does_not_fit),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "target_fields", tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
