// SPDX-License-Identifier: MIT
// Power supply handler, probed as drivers/staging/greybus/power_supply.c probes it.
#include <errno.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/power_supply.h"

static const uint16_t cport1[] = {1};

static void up(vmt *t, const char *behaviour)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x08, 0x08), behaviour, cport1, 1));
}

static int32_t get_prop(vmt *t, uint16_t id, uint8_t prop)
{
    const uint8_t req[2] = {0, prop};
    size_t before = t->sink.n;
    vmt_request(t, 1, id, GB_POWER_SUPPLY_TYPE_GET_PROPERTY, req, 2);
    CU_ASSERT_EQUAL_FATAL(t->sink.n, before + 1);
    CU_ASSERT_EQUAL_FATAL(t->sink.len[before], 12);
    CU_ASSERT_EQUAL(t->sink.msg[before][5], GB_OP_SUCCESS);
    return (int32_t)gb_get_le32(t->sink.msg[before] + 8);
}

static void test_psy_probe_supplies_description_and_descriptors(void)
{
    vmt t;
    up(&t, "[cport 1]\nmodel = bat0\nmanufacturer = acme\nserial = 42\n");
    vmt_request(&t, 1, 2, GB_POWER_SUPPLY_TYPE_GET_SUPPLIES, NULL, 0);
    const uint8_t one = 1;
    vmt_expect_response(&t, 0, 1, 2, GB_POWER_SUPPLY_TYPE_GET_SUPPLIES, GB_OP_SUCCESS, &one, 1);

    const uint8_t psy = 0;
    vmt_request(&t, 1, 3, GB_POWER_SUPPLY_TYPE_GET_DESCRIPTION, &psy, 1);
    uint8_t desc[99] = {0};
    memcpy(desc, "acme", 4);
    memcpy(desc + 32, "bat0", 4);
    memcpy(desc + 64, "42", 2);
    desc[96] = 0x01; /* type battery, le16 */
    unsigned nprops = vm_power_supply_property_count(vm_interface_power_supply(t.intf, 1));
    desc[98] = (uint8_t)nprops;
    vmt_expect_response(&t, 1, 1, 3, GB_POWER_SUPPLY_TYPE_GET_DESCRIPTION, GB_OP_SUCCESS, desc,
                        sizeof desc);

    vmt_request(&t, 1, 4, GB_POWER_SUPPLY_TYPE_GET_PROP_DESCRIPTORS, &psy, 1);
    CU_ASSERT_EQUAL(t.sink.len[2], 8 + 1 + 2 * nprops);
    CU_ASSERT_EQUAL(t.sink.msg[2][8], nprops);
    CU_ASSERT_EQUAL(t.sink.msg[2][9], GB_POWER_SUPPLY_PROP_STATUS);
    CU_ASSERT_EQUAL(t.sink.msg[2][10], 0); /* read-only */
    vmt_down(&t);
}

static void test_psy_every_described_property_is_readable(void)
{
    vmt t;
    up(&t, "[cport 1]\ncapacity = 50\ncharge-full-uah = 2000000\nstatus = charging\n");
    vm_power_supply *ps = vm_interface_power_supply(t.intf, 1);
    for (unsigned i = 0; i < vm_power_supply_property_count(ps); i++)
        get_prop(&t, (uint16_t)(2 + i), vm_power_supply_property_at(ps, i));
    CU_ASSERT_EQUAL(get_prop(&t, 100, GB_POWER_SUPPLY_PROP_CAPACITY), 50);
    CU_ASSERT_EQUAL(get_prop(&t, 101, GB_POWER_SUPPLY_PROP_CHARGE_NOW), 1000000);
    CU_ASSERT_EQUAL(get_prop(&t, 102, GB_POWER_SUPPLY_PROP_STATUS),
                    GB_POWER_SUPPLY_STATUS_CHARGING);
    CU_ASSERT_EQUAL(get_prop(&t, 103, GB_POWER_SUPPLY_PROP_CURRENT_NOW), -500000);
    vmt_down(&t);
}

static void test_psy_script_change_sends_update_event(void)
{
    vmt t;
    up(&t, NULL);
    vm_power_supply *ps = vm_interface_power_supply(t.intf, VM_ANY_CPORT);
    int cap = vm_power_supply_property_by_name("capacity");
    CU_ASSERT_EQUAL(cap, GB_POWER_SUPPLY_PROP_CAPACITY);
    CU_ASSERT_EQUAL(vm_power_supply_set(ps, 0, (uint8_t)cap, 3, true), 0);
    const uint8_t ev[] = {0x0a, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x01};
    vmt_expect(&t, 0, 1, ev, sizeof ev);
    CU_ASSERT_EQUAL(get_prop(&t, 2, GB_POWER_SUPPLY_PROP_CAPACITY_LEVEL),
                    GB_POWER_SUPPLY_CAPACITY_LEVEL_CRITICAL);
    CU_ASSERT_EQUAL(vm_power_supply_set(ps, 0, (uint8_t)cap, 101, false), -EINVAL);
    CU_ASSERT_EQUAL(vm_power_supply_set(ps, 1, (uint8_t)cap, 10, false), -EINVAL);
    CU_ASSERT_EQUAL(vm_power_supply_set(ps, 0, GB_POWER_SUPPLY_PROP_CALIBRATE, 1, false),
                    -EINVAL);
    vm_interface_cport_disconnect(t.intf, 1);
    CU_ASSERT_EQUAL(vm_power_supply_set(ps, 0, GB_POWER_SUPPLY_PROP_TEMP, 400, true),
                    -ENOTCONN);
    int32_t v;
    CU_ASSERT_EQUAL(vm_power_supply_get(ps, 0, GB_POWER_SUPPLY_PROP_TEMP, &v), 0);
    CU_ASSERT_EQUAL(v, 400);
    vmt_down(&t);
}

static void test_psy_set_property_only_on_writable_ones(void)
{
    vmt t;
    up(&t, NULL);
    uint8_t req[6] = {0, GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_CURRENT};
    gb_put_le32(req + 2, 1000000);
    vmt_request(&t, 1, 2, GB_POWER_SUPPLY_TYPE_SET_PROPERTY, req, 6);
    vmt_expect_response(&t, 0, 1, 2, GB_POWER_SUPPLY_TYPE_SET_PROPERTY, GB_OP_SUCCESS, NULL, 0);
    CU_ASSERT_EQUAL(get_prop(&t, 3, GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_CURRENT), 1000000);
    req[1] = GB_POWER_SUPPLY_PROP_CAPACITY;
    vmt_request(&t, 1, 4, GB_POWER_SUPPLY_TYPE_SET_PROPERTY, req, 6);
    vmt_expect_response(&t, 2, 1, 4, GB_POWER_SUPPLY_TYPE_SET_PROPERTY, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_psy_bad_ids_and_lengths_get_invalid(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t bad_psy = 1, bad_prop[2] = {0, 0x70};
    vmt_request(&t, 1, 2, GB_POWER_SUPPLY_TYPE_GET_DESCRIPTION, &bad_psy, 1);
    vmt_expect_response(&t, 0, 1, 2, GB_POWER_SUPPLY_TYPE_GET_DESCRIPTION, GB_OP_INVALID, NULL,
                        0);
    vmt_request(&t, 1, 3, GB_POWER_SUPPLY_TYPE_GET_PROPERTY, bad_prop, 2);
    vmt_expect_response(&t, 1, 1, 3, GB_POWER_SUPPLY_TYPE_GET_PROPERTY, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 4, GB_POWER_SUPPLY_TYPE_GET_PROPERTY, bad_prop, 1);
    vmt_expect_response(&t, 2, 1, 4, GB_POWER_SUPPLY_TYPE_GET_PROPERTY, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 5, GB_POWER_SUPPLY_TYPE_EVENT, bad_prop, 2);
    vmt_expect_response(&t, 3, 1, 5, GB_POWER_SUPPLY_TYPE_EVENT, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

static void test_psy_two_supplies_from_behaviour(void)
{
    vmt t;
    up(&t, "[cport 1]\nsupplies = 2\n");
    const uint8_t two = 2, psy1 = 1;
    vmt_request(&t, 1, 2, GB_POWER_SUPPLY_TYPE_GET_SUPPLIES, NULL, 0);
    vmt_expect_response(&t, 0, 1, 2, GB_POWER_SUPPLY_TYPE_GET_SUPPLIES, GB_OP_SUCCESS, &two, 1);
    vmt_request(&t, 1, 3, GB_POWER_SUPPLY_TYPE_GET_DESCRIPTION, &psy1, 1);
    CU_ASSERT_EQUAL(t.sink.msg[1][5], GB_OP_SUCCESS);
    vmt_down(&t);
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x08, 0x08), "[cport 1]\nstatus = empty\n",
                           cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: status: 'empty' is not one of"));
}

const unit_test vmt_power_supply_tests[] = {
    UNIT_TEST(test_psy_probe_supplies_description_and_descriptors),
    UNIT_TEST(test_psy_every_described_property_is_readable),
    UNIT_TEST(test_psy_script_change_sends_update_event),
    UNIT_TEST(test_psy_set_property_only_on_writable_ones),
    UNIT_TEST(test_psy_bad_ids_and_lengths_get_invalid),
    UNIT_TEST(test_psy_two_supplies_from_behaviour),
    UNIT_TESTS_END,
};
