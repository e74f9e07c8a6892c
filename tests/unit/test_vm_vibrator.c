// SPDX-License-Identifier: MIT
// Vibrator handler: ON/OFF as drivers/staging/greybus/vibrator.c sends them, with times.
#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/vibrator.h"

static const uint16_t cport1[] = {1};

static void send_at(vmt *t, uint16_t id, uint8_t type, sim_time now)
{
    uint8_t msg[8];
    gb_msg_build(msg, sizeof msg, id, type, 0, NULL, 0);
    CU_ASSERT_EQUAL(vmt_receive(t, 1, msg, 8, now), 0);
}

static void test_vibrator_on_off_recorded_with_times(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x10, 0x10), NULL, cport1, 1));
    vm_vibrator *v = vm_interface_vibrator(t.intf, 1);
    send_at(&t, 2, GB_VIBRATOR_TYPE_ON, SIM_MS(10));
    vmt_expect_response(&t, 0, 1, 2, GB_VIBRATOR_TYPE_ON, GB_OP_SUCCESS, NULL, 0);
    CU_ASSERT_TRUE(vm_vibrator_is_on(v));
    CU_ASSERT_EQUAL(vm_vibrator_on_time(v, SIM_MS(60)), SIM_MS(50));
    send_at(&t, 3, GB_VIBRATOR_TYPE_OFF, SIM_MS(110));
    CU_ASSERT_FALSE(vm_vibrator_is_on(v));
    CU_ASSERT_EQUAL(vm_vibrator_on_time(v, SIM_MS(500)), SIM_MS(100));
    CU_ASSERT_EQUAL(vm_vibrator_on_count(v), 1);
    vm_vibrator_event ev[4];
    CU_ASSERT_EQUAL(vm_vibrator_events(v, ev, 4), 2);
    CU_ASSERT_TRUE(ev[0].on);
    CU_ASSERT_EQUAL(ev[0].at, SIM_MS(10));
    CU_ASSERT_FALSE(ev[1].on);
    CU_ASSERT_EQUAL(ev[1].at, SIM_MS(110));
    vmt_down(&t);
}

static void test_vibrator_event_log_keeps_the_most_recent(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x10, 0x10), NULL, cport1, 1));
    vm_vibrator *v = vm_interface_vibrator(t.intf, 1);
    for (unsigned i = 0; i < VM_VIBRATOR_LOG + 6; i++) {
        send_at(&t, 2, (i & 1) ? GB_VIBRATOR_TYPE_OFF : GB_VIBRATOR_TYPE_ON, SIM_MS(i));
        t.sink.n = 0;
    }
    vm_vibrator_event ev[VM_VIBRATOR_LOG];
    CU_ASSERT_EQUAL(vm_vibrator_events(v, ev, VM_VIBRATOR_LOG), VM_VIBRATOR_LOG);
    CU_ASSERT_EQUAL(ev[0].at, SIM_MS(6));
    CU_ASSERT_EQUAL(ev[VM_VIBRATOR_LOG - 1].at, SIM_MS(VM_VIBRATOR_LOG + 5));
    vmt_down(&t);
}

static void test_vibrator_payload_or_unknown_type_rejected(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x10, 0x10), NULL, cport1, 1));
    const uint8_t timeout[2] = {0x64, 0};
    vmt_request(&t, 1, 2, GB_VIBRATOR_TYPE_ON, timeout, 2);
    vmt_expect_response(&t, 0, 1, 2, GB_VIBRATOR_TYPE_ON, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 3, 0x04, NULL, 0);
    vmt_expect_response(&t, 1, 1, 3, 0x04, GB_OP_PROTOCOL_BAD, NULL, 0);
    CU_ASSERT_FALSE(vm_vibrator_is_on(vm_interface_vibrator(t.intf, 1)));
    vmt_down(&t);
}

const unit_test vmt_vibrator_tests[] = {
    UNIT_TEST(test_vibrator_on_off_recorded_with_times),
    UNIT_TEST(test_vibrator_event_log_keeps_the_most_recent),
    UNIT_TEST(test_vibrator_payload_or_unknown_type_rejected),
    UNIT_TESTS_END,
};
