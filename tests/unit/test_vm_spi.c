// SPDX-License-Identifier: MIT
// SPI handler, probed and driven as drivers/staging/greybus/spilib.c does.
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/spi.h"

static const uint16_t cport1[] = {1};

typedef struct xfer {
    uint32_t len;
    uint8_t flags;
    const uint8_t *tx;
} xfer;

static size_t transfer_req(uint8_t *buf, uint8_t cs, const xfer *x, size_t n)
{
    buf[0] = cs;
    buf[1] = 0;
    gb_put_le16(buf + 2, (uint16_t)n);
    size_t len = 4 + 13 * n;
    for (size_t i = 0; i < n; i++) {
        uint8_t *d = buf + 4 + 13 * i;
        gb_put_le32(d, 1000000);
        gb_put_le32(d + 4, x[i].len);
        gb_put_le16(d + 8, 0);
        d[10] = 0;
        d[11] = 8;
        d[12] = x[i].flags;
    }
    for (size_t i = 0; i < n; i++) {
        if (x[i].flags & GB_SPI_XFER_WRITE) {
            memcpy(buf + len, x[i].tx, x[i].len);
            len += x[i].len;
        }
    }
    return len;
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
    xfer x[2] = {{3, GB_SPI_XFER_WRITE | GB_SPI_XFER_READ, tx}, {2, GB_SPI_XFER_READ, NULL}};
    vmt_request(&t, 1, 2, GB_SPI_TYPE_TRANSFER, buf, transfer_req(buf, 0, x, 2));
    const uint8_t want[5] = {0x9f, 0x01, 0x02, 0xff, 0xff};
    vmt_expect_response(&t, 0, 1, 2, GB_SPI_TYPE_TRANSFER, GB_OP_SUCCESS, want, 5);
    /* a script queues what the device answers: a JEDEC-id style read */
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi queue 00ef4018", 0, &reply), 0);
    const uint8_t cmd = 0x9f;
    xfer y[2] = {{1, GB_SPI_XFER_WRITE, &cmd}, {3, GB_SPI_XFER_READ, NULL}};
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
    xfer w = {2, GB_SPI_XFER_WRITE, tx};
    size_t n = transfer_req(buf, 0, &w, 1);
    vmt_request(&t, 1, 2, GB_SPI_TYPE_TRANSFER, buf, n - 1);
    vmt_expect_response(&t, 0, 1, 2, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    n = transfer_req(buf, 1, &w, 1); /* chip select 1 of 1 */
    vmt_request(&t, 1, 3, GB_SPI_TYPE_TRANSFER, buf, n);
    vmt_expect_response(&t, 1, 1, 3, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    xfer none = {2, 0, NULL}; /* neither read nor write */
    vmt_request(&t, 1, 4, GB_SPI_TYPE_TRANSFER, buf, transfer_req(buf, 0, &none, 1));
    vmt_expect_response(&t, 2, 1, 4, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    xfer big = {3000, GB_SPI_XFER_READ, NULL};
    vmt_request(&t, 1, 5, GB_SPI_TYPE_TRANSFER, buf, transfer_req(buf, 0, &big, 1));
    vmt_expect_response(&t, 3, 1, 5, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 6, GB_SPI_TYPE_TRANSFER, buf, 3);
    vmt_expect_response(&t, 4, 1, 6, GB_SPI_TYPE_TRANSFER, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 7, 0x05, NULL, 0);
    vmt_expect_response(&t, 5, 1, 7, 0x05, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_down(&t);
}

const unit_test vmt_spi_tests[] = {
    UNIT_TEST(test_spi_master_and_device_config),
    UNIT_TEST(test_spi_transfer_echoes_queued_and_idle_bytes),
    UNIT_TEST(test_spi_malformed_transfers_get_invalid),
    UNIT_TESTS_END,
};
