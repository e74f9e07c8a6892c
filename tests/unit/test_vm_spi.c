// SPDX-License-Identifier: MIT
// SPI handler, probed and driven as drivers/staging/greybus/spilib.c does.
#include <stdio.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/spi.h"

static const uint16_t cport1[] = {1};

typedef vmt_spi_xfer xfer;

static size_t transfer_req(uint8_t *buf, uint8_t cs, const xfer *x, size_t n)
{
    return vmt_spi_transfer(buf, cs, 1000000, x, n);
}

static void test_spi_master_and_device_config(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), "[cport 1]\nchip-selects = 2\n",
                           cport1, 1));
    vmt_request(&t, 1, 2, GB_SPI_TYPE_MASTER_CONFIG, NULL, 0);
    const uint8_t mc[17] = {0x80, 0, 0, 0, 0xe8, 0x03, 0, 0, 0x80, 0x96, 0x98, 0x00,
                            0x2f, 0x00, 0x00, 0x00, 0x02};
    vmt_expect_response(&t, 0, 1, 2, GB_SPI_TYPE_MASTER_CONFIG, GB_OP_SUCCESS, mc, 17);
    const uint8_t cs1 = 1, cs2 = 2;
    vmt_request(&t, 1, 3, GB_SPI_TYPE_DEVICE_CONFIG, &cs1, 1);
    uint8_t dc[40] = {0, 0, 8, 0x80, 0x96, 0x98, 0x00, GB_SPI_SPI_MODALIAS};
    memcpy(dc + 8, "dh2228fv", 8);
    vmt_expect_response(&t, 1, 1, 3, GB_SPI_TYPE_DEVICE_CONFIG, GB_OP_SUCCESS, dc, 40);
    vmt_request(&t, 1, 4, GB_SPI_TYPE_DEVICE_CONFIG, &cs2, 1);
    vmt_expect_response(&t, 2, 1, 4, GB_SPI_TYPE_DEVICE_CONFIG, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_spi_transfer_echoes_queued_and_idle_bytes(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), NULL, cport1, 1));
    uint8_t buf[128];
    const uint8_t tx[3] = {0x9f, 0x01, 0x02};
    /* full duplex 3 bytes, then a read-only 2 bytes: echo, then idle 0xff */
    xfer x[2] = {{3, GB_SPI_XFER_WRITE | GB_SPI_XFER_READ, tx, 0}, {2, GB_SPI_XFER_READ, NULL, 0}};
    vmt_request(&t, 1, 2, GB_SPI_TYPE_TRANSFER, buf, transfer_req(buf, 0, x, 2));
    const uint8_t want[5] = {0x9f, 0x01, 0x02, 0xff, 0xff};
    vmt_expect_response(&t, 0, 1, 2, GB_SPI_TYPE_TRANSFER, GB_OP_SUCCESS, want, 5);
    /* a script queues what the device answers: a JEDEC-id style read */
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi queue 00ef4018", 0, &reply), 0);
    const uint8_t cmd = 0x9f;
    xfer y[2] = {{1, GB_SPI_XFER_WRITE, &cmd, 0}, {3, GB_SPI_XFER_READ, NULL, 0}};
    vmt_request(&t, 1, 3, GB_SPI_TYPE_TRANSFER, buf, transfer_req(buf, 0, y, 2));
    const uint8_t id[3] = {0xef, 0x40, 0x18};
    vmt_expect_response(&t, 1, 1, 3, GB_SPI_TYPE_TRANSFER, GB_OP_SUCCESS, id, 3);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi recv", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "9f01029f");
    vm_spi_stats st;
    vm_spi_get_stats(vm_interface_spi(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.messages, 2);
    CU_ASSERT_EQUAL(st.transfers, 4);
    vmt_down(&t);
}

static void test_spi_malformed_transfers_get_invalid(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), NULL, cport1, 1));
    uint8_t buf[128];
    const uint8_t tx[2] = {1, 2};
    xfer w = {2, GB_SPI_XFER_WRITE, tx, 0};
    size_t n = transfer_req(buf, 0, &w, 1);
    vmt_request(&t, 1, 2, GB_SPI_TYPE_TRANSFER, buf, n - 1);
    vmt_expect_response(&t, 0, 1, 2, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    n = transfer_req(buf, 1, &w, 1); /* chip select 1 of 1 */
    vmt_request(&t, 1, 3, GB_SPI_TYPE_TRANSFER, buf, n);
    vmt_expect_response(&t, 1, 1, 3, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    xfer none = {2, 0, NULL, 0}; /* neither read nor write */
    vmt_request(&t, 1, 4, GB_SPI_TYPE_TRANSFER, buf, transfer_req(buf, 0, &none, 1));
    vmt_expect_response(&t, 2, 1, 4, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    xfer big = {3000, GB_SPI_XFER_READ, NULL, 0};
    vmt_request(&t, 1, 5, GB_SPI_TYPE_TRANSFER, buf, transfer_req(buf, 0, &big, 1));
    vmt_expect_response(&t, 3, 1, 5, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 6, GB_SPI_TYPE_TRANSFER, buf, 3);
    vmt_expect_response(&t, 4, 1, 6, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 7, 0x05, NULL, 0);
    vmt_expect_response(&t, 5, 1, 7, 0x05, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

/* `devices` declares each chip select as Ara modules did: 6.1's spilib turns type spidev
 * into modalias "spidev", type SPI NOR into "spi-nor" and copies a modalias's name. */
static void test_spi_devices_declare_each_chip_select_by_type(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b),
                           "[cport 1]\ndevices = spidev, spi-nor dh2228fv\n"
                           "max-speed-hz = 2000000\n",
                           cport1, 1));
    vmt_request(&t, 1, 2, GB_SPI_TYPE_MASTER_CONFIG, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(t.sink.msg[0][8 + 16], 3); /* num_chipselect: one per device */
    const uint8_t want_type[3] = {GB_SPI_SPI_DEV, GB_SPI_SPI_NOR, GB_SPI_SPI_MODALIAS};
    for (uint8_t cs = 0; cs < 3; cs++) {
        vmt_request(&t, 1, (uint16_t)(3 + cs), GB_SPI_TYPE_DEVICE_CONFIG, &cs, 1);
        uint8_t dc[40] = {0, 0, 8, 0x80, 0x84, 0x1e, 0x00, want_type[cs]};
        if (cs == 2)
            memcpy(dc + 8, "dh2228fv", 8);
        vmt_expect_response(&t, 1u + cs, 1, (uint16_t)(3 + cs), GB_SPI_TYPE_DEVICE_CONFIG,
                            GB_OP_SUCCESS, dc, 40);
    }
    vmt_down(&t);
}

static void test_spi_bad_devices_settings_are_refused(void)
{
    static const struct {
        const char *behaviour, *error;
    } cases[] = {
        {"[cport 1]\ndevices = spidev dh2228fv\nchip-selects = 3\n",
         "2 devices listed for 3 chip selects"},
        {"[cport 1]\ndevices = spidev\nmodalias = dh2228fv\n", "not both"},
        {"[cport 1]\ndevices = ,\n", "no device listed"},
        {"[cport 1]\ndevices = Bad!\n", "not a driver name"},
        {"[cport 1]\ndevices = a b c d e f g h i\n", "more than 8 devices"},
        {"[cport 1]\ndevices = abcdefghijklmnopqrstuvwxyz0123456\n", "longer than 31"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vmt t;
        CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), cases[i].behaviour, cport1, 1));
        if (!strstr(t.err, cases[i].error))
            fprintf(stderr, "\n%s: got '%s'\n", cases[i].behaviour, t.err);
        CU_ASSERT_PTR_NOT_NULL(strstr(t.err, cases[i].error));
    }
}

/* SPI_LOOP (mode 0x20, which MASTER_CONFIG offers): MISO is MOSI, the queue waits. */
static void test_spi_loop_mode_returns_mosi_and_keeps_the_queue(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), NULL, cport1, 1));
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi queue a5a5", 0, &reply), 0);
    uint8_t buf[64];
    const uint8_t tx[2] = {0x12, 0x34};
    xfer x = {2, GB_SPI_XFER_WRITE | GB_SPI_XFER_READ, tx, 0};
    size_t n = transfer_req(buf, 0, &x, 1);
    buf[1] = GB_SPI_MODE_LOOP;
    vmt_request(&t, 1, 2, GB_SPI_TYPE_TRANSFER, buf, n);
    vmt_expect_response(&t, 0, 1, 2, GB_SPI_TYPE_TRANSFER, GB_OP_SUCCESS, tx, 2);
    buf[1] = 0; /* out of loop mode the device answers with the queued bytes */
    vmt_request(&t, 1, 3, GB_SPI_TYPE_TRANSFER, buf, n);
    const uint8_t queued[2] = {0xa5, 0xa5};
    vmt_expect_response(&t, 1, 1, 3, GB_SPI_TYPE_TRANSFER, GB_OP_SUCCESS, queued, 2);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi stats", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text,
                           "messages 2 transfers 2 bytes-in 4 bytes-out 4 cs 0 mode 0x00");
    const vm_value *v = vm_reply_get(&reply, "messages");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(v->i, 2);
    vmt_down(&t);
}

/* The catalog's spi module: a device of type spidev on chip select 0 (6.1 names it
 * "spidev"; spidev binds it through driver_override), a dh2228fv on 1. */
static void test_spi_catalog_entry_declares_spidev_and_dh2228fv(void)
{
    vmt t;
    static char mnfs[2048], beh[1024];
    CU_ASSERT_FATAL(vmt_up(&t, vmt_catalog_text("spi.mnfs", mnfs, sizeof mnfs),
                           vmt_catalog_text("spi.behaviour", beh, sizeof beh), cport1, 1));
    vmt_request(&t, 1, 2, GB_SPI_TYPE_MASTER_CONFIG, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(t.sink.msg[0][8 + 16], 2);
    const uint8_t cs0 = 0, cs1 = 1;
    vmt_request(&t, 1, 3, GB_SPI_TYPE_DEVICE_CONFIG, &cs0, 1);
    uint8_t dc[40] = {0, 0, 8, 0x80, 0x96, 0x98, 0x00, GB_SPI_SPI_DEV};
    vmt_expect_response(&t, 1, 1, 3, GB_SPI_TYPE_DEVICE_CONFIG, GB_OP_SUCCESS, dc, 40);
    vmt_request(&t, 1, 4, GB_SPI_TYPE_DEVICE_CONFIG, &cs1, 1);
    dc[7] = GB_SPI_SPI_MODALIAS;
    memcpy(dc + 8, "dh2228fv", 8);
    vmt_expect_response(&t, 2, 1, 4, GB_SPI_TYPE_DEVICE_CONFIG, GB_OP_SUCCESS, dc, 40);
    vmt_down(&t);
}

const unit_test vmt_spi_tests[] = {
    UNIT_TEST(test_spi_catalog_entry_declares_spidev_and_dh2228fv),
    UNIT_TEST(test_spi_master_and_device_config),
    UNIT_TEST(test_spi_devices_declare_each_chip_select_by_type),
    UNIT_TEST(test_spi_bad_devices_settings_are_refused),
    UNIT_TEST(test_spi_loop_mode_returns_mosi_and_keeps_the_queue),
    UNIT_TEST(test_spi_transfer_echoes_queued_and_idle_bytes),
    UNIT_TEST(test_spi_malformed_transfers_get_invalid),
    UNIT_TESTS_END,
};
