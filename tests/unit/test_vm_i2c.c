// SPDX-License-Identifier: MIT
// I2C handler: TRANSFER requests built as drivers/staging/greybus/i2c.c builds them (op
// count, ops, then the data of the write ops), against the simulated EEPROM and LM75.
#include <errno.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/i2c.h"

static const uint16_t cport1[] = {1};

typedef struct op {
    uint16_t addr, flags, size;
    const uint8_t *wdata;
} op;

/* Builds a TRANSFER payload into buf; returns its length. */
static size_t transfer_req(uint8_t *buf, const op *ops, size_t n)
{
    size_t len = 2 + 6 * n;
    gb_put_le16(buf, (uint16_t)n);
    for (size_t i = 0; i < n; i++) {
        gb_put_le16(buf + 2 + 6 * i, ops[i].addr);
        gb_put_le16(buf + 4 + 6 * i, ops[i].flags);
        gb_put_le16(buf + 6 + 6 * i, ops[i].size);
    }
    for (size_t i = 0; i < n; i++) {
        if (!(ops[i].flags & GB_I2C_M_RD) && ops[i].size) {
            memcpy(buf + len, ops[i].wdata, ops[i].size);
            len += ops[i].size;
        }
    }
    return len;
}

static void up(vmt *t, const char *behaviour)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x0a, 0x03), behaviour, cport1, 1));
}

static void test_i2c_functionality_is_i2c_plus_smbus_emulation(void)
{
    vmt t;
    up(&t, NULL);
    vmt_request(&t, 1, 2, GB_I2C_TYPE_FUNCTIONALITY, NULL, 0);
    const uint8_t want[] = {0x0c, 0x00, 0x02, 0x00, 0x82, 0x00, 0x00, 0x00,
                            0x09, 0x00, 0xff, 0x0e};
    vmt_expect(&t, 0, 1, want, sizeof want);
    vmt_down(&t);
}

static void test_i2c_eeprom_write_then_random_read(void)
{
    vmt t;
    up(&t, NULL);
    uint8_t buf[128];
    const uint8_t wr[] = {0x10, 0xde, 0xad, 0xbe, 0xef};
    op w = {0x50, 0, sizeof wr, wr};
    vmt_request(&t, 1, 2, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, &w, 1));
    vmt_expect_response(&t, 0, 1, 2, GB_I2C_TYPE_TRANSFER, GB_OP_SUCCESS, NULL, 0);
    /* i2c_smbus_read_i2c_block_data: write the word address, repeated start, read 4 */
    const uint8_t addr = 0x10;
    op rd[2] = {{0x50, 0, 1, &addr}, {0x50, GB_I2C_M_RD, 4, NULL}};
    vmt_request(&t, 1, 3, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, rd, 2));
    const uint8_t want[] = {0xde, 0xad, 0xbe, 0xef};
    vmt_expect_response(&t, 1, 1, 3, GB_I2C_TYPE_TRANSFER, GB_OP_SUCCESS, want, 4);
    uint8_t direct[4];
    CU_ASSERT_EQUAL(vm_i2c_eeprom_read(vm_interface_i2c(t.intf, 1), 0x50, 0x10, direct, 4), 0);
    CU_ASSERT_EQUAL(memcmp(direct, want, 4), 0);
    vmt_down(&t);
}

static void test_i2c_eeprom_page_write_wraps_within_8_bytes(void)
{
    vmt t;
    up(&t, "[cport 1]\neeprom-fill = 0\n");
    uint8_t buf[64];
    const uint8_t wr[] = {0x06, 1, 2, 3, 4};
    op w = {0x50, 0, sizeof wr, wr};
    vmt_request(&t, 1, 2, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, &w, 1));
    uint8_t mem[16];
    vm_i2c_eeprom_read(vm_interface_i2c(t.intf, 1), 0x50, 0, mem, 16);
    const uint8_t want[16] = {3, 4, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(memcmp(mem, want, 16), 0);
    vmt_down(&t);
}

static void test_i2c_absent_address_answers_nonexistent(void)
{
    vmt t;
    up(&t, NULL);
    uint8_t buf[32];
    op quick = {0x51, 0, 0, NULL}; /* i2cdetect -q: zero-length write */
    vmt_request(&t, 1, 2, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, &quick, 1));
    vmt_expect_response(&t, 0, 1, 2, GB_I2C_TYPE_TRANSFER, GB_OP_NONEXISTENT, NULL, 0);
    quick.addr = 0x50;
    vmt_request(&t, 1, 3, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, &quick, 1));
    vmt_expect_response(&t, 1, 1, 3, GB_I2C_TYPE_TRANSFER, GB_OP_SUCCESS, NULL, 0);
    vm_i2c_stats st;
    vm_i2c_get_stats(vm_interface_i2c(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.nak, 1);
    vmt_down(&t);
}

static void test_i2c_lm75_temperature_reads_msb_first(void)
{
    vmt t;
    up(&t, "[cport 1]\nlm75 = 0x49\ntemperature = 25500\n");
    uint8_t buf[32];
    const uint8_t reg = 0;
    op rd[2] = {{0x49, 0, 1, &reg}, {0x49, GB_I2C_M_RD, 2, NULL}};
    vmt_request(&t, 1, 2, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, rd, 2));
    const uint8_t want[2] = {0x19, 0x80}; /* 25.5 degC */
    vmt_expect_response(&t, 0, 1, 2, GB_I2C_TYPE_TRANSFER, GB_OP_SUCCESS, want, 2);
    vm_i2c *bus = vm_interface_i2c(t.intf, 1);
    CU_ASSERT_EQUAL(vm_i2c_lm75_set_temperature(bus, 0x49, -10000), 0);
    vmt_request(&t, 1, 3, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, rd, 2));
    const uint8_t neg[2] = {0xf6, 0x00};
    vmt_expect_response(&t, 1, 1, 3, GB_I2C_TYPE_TRANSFER, GB_OP_SUCCESS, neg, 2);
    int32_t mc;
    CU_ASSERT_EQUAL(vm_i2c_lm75_get_temperature(bus, 0x49, &mc), 0);
    CU_ASSERT_EQUAL(mc, -10000);
    CU_ASSERT_EQUAL(vm_i2c_lm75_set_temperature(bus, 0x50, 0), -ENODEV);
    vmt_down(&t);
}

static void test_i2c_malformed_transfers_get_invalid(void)
{
    vmt t;
    up(&t, NULL);
    uint8_t buf[64];
    const uint8_t wr[2] = {0, 1};
    op w = {0x50, 0, 2, wr};
    size_t n = transfer_req(buf, &w, 1);
    vmt_request(&t, 1, 2, GB_I2C_TYPE_TRANSFER, buf, n - 1); /* write data short */
    vmt_expect_response(&t, 0, 1, 2, GB_I2C_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 3, GB_I2C_TYPE_TRANSFER, buf, 1);
    vmt_expect_response(&t, 1, 1, 3, GB_I2C_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    gb_put_le16(buf, 0);
    vmt_request(&t, 1, 4, GB_I2C_TYPE_TRANSFER, buf, 2); /* no ops */
    vmt_expect_response(&t, 2, 1, 4, GB_I2C_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    op big = {0x50, GB_I2C_M_RD, 3000, NULL};
    vmt_request(&t, 1, 5, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, &big, 1));
    vmt_expect_response(&t, 3, 1, 5, GB_I2C_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    op wide = {0x150, GB_I2C_M_RD, 1, NULL};
    vmt_request(&t, 1, 6, GB_I2C_TYPE_TRANSFER, buf, transfer_req(buf, &wide, 1));
    vmt_expect_response(&t, 4, 1, 6, GB_I2C_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 7, 0x03, NULL, 0);
    vmt_expect_response(&t, 5, 1, 7, 0x03, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

static void test_i2c_duplicate_address_is_a_behaviour_error(void)
{
    vmt t;
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x03),
                           "[cport 1]\neeprom = 0x50\nlm75 = 0x50\n", cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:3: lm75: I2C address 0x50"));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x03), "[cport 1]\neeprom = 0x90\n",
                           cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: eeprom"));
}

const unit_test vmt_i2c_tests[] = {
    UNIT_TEST(test_i2c_functionality_is_i2c_plus_smbus_emulation),
    UNIT_TEST(test_i2c_eeprom_write_then_random_read),
    UNIT_TEST(test_i2c_eeprom_page_write_wraps_within_8_bytes),
    UNIT_TEST(test_i2c_absent_address_answers_nonexistent),
    UNIT_TEST(test_i2c_lm75_temperature_reads_msb_first),
    UNIT_TEST(test_i2c_malformed_transfers_get_invalid),
    UNIT_TEST(test_i2c_duplicate_address_is_a_behaviour_error),
    UNIT_TESTS_END,
};
