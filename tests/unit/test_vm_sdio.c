// SPDX-License-Identifier: MIT
// SDIO handler and SD card model, driven as 6.1's gb-sdio (drivers/staging/greybus/sdio.c)
// and MMC core (drivers/mmc/core/{core,sd,sd_ops,mmc_ops,sdio_ops,block}.c) drive them.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "greybus/gb_protocols.h"
#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/sd_card.h"
#include "virtual-modules/sdio.h"

/* mmc_command flags as gb_sdio_command turns them into cmd_flags and cmd_type */
#define R1 GB_SDIO_RSP_R1_R5_R6_R7
#define R1B GB_SDIO_RSP_R1B
#define R2 GB_SDIO_RSP_R2
#define R3 GB_SDIO_RSP_R3_R4
#define NONE GB_SDIO_RSP_NONE
#define AC GB_SDIO_CMD_AC
#define ADTC GB_SDIO_CMD_ADTC
#define BC GB_SDIO_CMD_BC
#define BCR GB_SDIO_CMD_BCR

#define MIB (1024u * 1024u)

static const uint16_t cport1[] = {1};

/* One slot under test: the interface, and the last answer taken apart. */
typedef struct sdt {
    vmt t;
    uint16_t op;
    uint8_t resp[GB_MSG_MAX_PAYLOAD];
    size_t resp_len;
    uint8_t events[8]; /* EVENT requests the module sent after the last response */
    size_t nevents;
    uint16_t rca;
} sdt;

static sdt S; /* large (the harness keeps 64 whole messages): not on the stack */

/* The bits [start, start + size) of a 128-bit register as 6.1 holds it (resp[0] the top
 * word), read the way drivers/mmc/core/sd.c reads CID, CSD, SCR and SD status fields. */
static uint32_t field(const uint32_t r[4], unsigned start, unsigned size)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < size; i++) {
        unsigned bit = start + i;
        v |= (r[3 - bit / 32] >> (bit % 32) & 1u) << i;
    }
    return v;
}

/* The bits of a big-endian byte register (SCR, SD status, switch status). */
static uint32_t field_bytes(const uint8_t *reg, size_t bytes, unsigned start, unsigned size)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < size; i++) {
        unsigned bit = start + i;
        v |= (uint32_t)(reg[bytes - 1 - bit / 8] >> (bit % 8) & 1u) << i;
    }
    return v;
}

static void collect_events(sdt *s, size_t from)
{
    s->nevents = 0;
    for (size_t k = from; k < s->t.sink.n; k++) {
        gb_msg_header h;
        CU_ASSERT_EQUAL_FATAL(gb_msg_header_decode(s->t.sink.msg[k], s->t.sink.len[k], &h), 0);
        CU_ASSERT_EQUAL(s->t.sink.cport[k], 1);
        CU_ASSERT_EQUAL(h.type, GB_SDIO_TYPE_EVENT);
        CU_ASSERT_EQUAL(h.operation_id, 0); /* unidirectional */
        CU_ASSERT_EQUAL(h.size, GB_MSG_HEADER_SIZE + 1);
        if (s->nevents < sizeof s->events)
            s->events[s->nevents++] = s->t.sink.msg[k][GB_MSG_HEADER_SIZE];
    }
}

static bool up(sdt *s, const char *behaviour)
{
    memset(s, 0, sizeof *s);
    return vmt_up(&s->t, vmt_manifest_one(0x0a, GB_PROTOCOL_SDIO), behaviour, cport1, 1);
}

/* Sends one request on CPort 1; returns the result, the payload in s->resp. */
static uint8_t req(sdt *s, uint8_t type, const void *payload, size_t len)
{
    s->t.sink.n = 0;
    uint16_t id = ++s->op;
    vmt_request(&s->t, 1, id, type, payload, len);
    CU_ASSERT_FATAL(s->t.sink.n >= 1);
    gb_msg_header h;
    CU_ASSERT_EQUAL_FATAL(gb_msg_header_decode(s->t.sink.msg[0], s->t.sink.len[0], &h), 0);
    CU_ASSERT_EQUAL(h.operation_id, id);
    CU_ASSERT_EQUAL(h.type, type | 0x80);
    s->resp_len = h.size - GB_MSG_HEADER_SIZE;
    memcpy(s->resp, s->t.sink.msg[0] + GB_MSG_HEADER_SIZE, s->resp_len);
    if (h.result != GB_OP_SUCCESS)
        CU_ASSERT_EQUAL(s->resp_len, 0);
    collect_events(s, 1);
    return h.result;
}

/* SET_IOS as gb_mmc_set_ios builds it: vdd 1 << (21 - 8) for ocr bit 21 (3.3-3.4 V). */
static uint8_t ios(sdt *s, uint32_t clock, uint8_t power, uint8_t width, uint8_t timing)
{
    uint8_t p[GB_SDIO_SET_IOS_REQ_SIZE] = {0};
    gb_put_le32(p, clock);
    gb_put_le32(p + 4, power == GB_SDIO_POWER_OFF ? 0 : GB_SDIO_VDD_32_33);
    p[8] = GB_SDIO_BUSMODE_PUSHPULL;
    p[9] = power;
    p[10] = width;
    p[11] = timing;
    return req(s, GB_SDIO_TYPE_SET_IOS, p, sizeof p);
}

/* COMMAND as gb_sdio_command builds it; the response words into r (may be NULL). */
static uint8_t cmd(sdt *s, uint8_t index, uint32_t arg, uint8_t flags, uint8_t type,
                   uint16_t blocks, uint16_t blksz, uint32_t r[4])
{
    uint8_t p[GB_SDIO_COMMAND_REQ_SIZE];
    p[0] = index;
    p[1] = flags;
    p[2] = type;
    gb_put_le32(p + 3, arg);
    gb_put_le16(p + 7, blocks);
    gb_put_le16(p + 9, blksz);
    uint8_t rc = req(s, GB_SDIO_TYPE_COMMAND, p, sizeof p);
    if (rc == GB_OP_SUCCESS) {
        CU_ASSERT_EQUAL(s->resp_len, GB_SDIO_COMMAND_RESP_SIZE);
        for (int i = 0; r && i < 4; i++)
            r[i] = gb_get_le32(s->resp + 4 * i);
    }
    return rc;
}

/* A command the card must answer with R1 (or R1b, R6, R7, R3: one word). */
static uint32_t word(sdt *s, uint8_t index, uint32_t arg, uint8_t flags, uint8_t type,
                     uint16_t blocks, uint16_t blksz)
{
    uint32_t r[4] = {0};
    CU_ASSERT_EQUAL(cmd(s, index, arg, flags, type, blocks, blksz, r), GB_OP_SUCCESS);
    CU_ASSERT_TRUE(r[1] == 0 && r[2] == 0 && r[3] == 0);
    return r[0];
}

static uint32_t status(sdt *s)
{
    return word(s, VM_SD_CMD_SEND_STATUS, (uint32_t)s->rca << 16, R1, AC, 0, 0);
}

static uint8_t xfer_read(sdt *s, uint16_t blocks, uint16_t blksz, uint8_t *out)
{
    uint8_t p[GB_SDIO_TRANSFER_REQ_SIZE] = {GB_SDIO_DATA_READ};
    gb_put_le16(p + 1, blocks);
    gb_put_le16(p + 3, blksz);
    uint8_t rc = req(s, GB_SDIO_TYPE_TRANSFER, p, sizeof p);
    if (rc == GB_OP_SUCCESS) {
        size_t n = (size_t)blocks * blksz;
        CU_ASSERT_EQUAL_FATAL(s->resp_len, GB_SDIO_TRANSFER_RESP_SIZE + n);
        CU_ASSERT_EQUAL(gb_get_le16(s->resp), blocks);
        CU_ASSERT_EQUAL(gb_get_le16(s->resp + 2), blksz);
        if (out)
            memcpy(out, s->resp + GB_SDIO_TRANSFER_RESP_SIZE, n);
    }
    return rc;
}

static uint8_t xfer_write(sdt *s, uint16_t blocks, uint16_t blksz, const uint8_t *data)
{
    static uint8_t p[GB_MSG_MAX_PAYLOAD];
    size_t n = (size_t)blocks * blksz;
    CU_ASSERT_FATAL(GB_SDIO_TRANSFER_REQ_SIZE + n <= sizeof p);
    p[0] = GB_SDIO_DATA_WRITE;
    gb_put_le16(p + 1, blocks);
    gb_put_le16(p + 3, blksz);
    memcpy(p + GB_SDIO_TRANSFER_REQ_SIZE, data, n);
    uint8_t rc = req(s, GB_SDIO_TYPE_TRANSFER, p, GB_SDIO_TRANSFER_REQ_SIZE + n);
    if (rc == GB_OP_SUCCESS) {
        CU_ASSERT_EQUAL(s->resp_len, GB_SDIO_TRANSFER_RESP_SIZE);
        CU_ASSERT_EQUAL(gb_get_le16(s->resp), blocks);
        CU_ASSERT_EQUAL(gb_get_le16(s->resp + 2), blksz);
    }
    return rc;
}

/* mmc_go_idle: chip select high (a SET_IOS), CMD0 with no response, chip select back. */
static void go_idle(sdt *s)
{
    CU_ASSERT_EQUAL(ios(s, 400000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(cmd(s, VM_SD_CMD_GO_IDLE, 0, NONE, BC, 0, 0, NULL), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(ios(s, 400000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
}

static void if_cond(sdt *s)
{
    /* ((ocr & 0xFF8000) != 0) << 8 | 0xAA */
    CU_ASSERT_EQUAL(word(s, VM_SD_CMD_SEND_IF_COND, 0x1aa, R1, BCR, 0, 0), 0x1aa);
}

/* The sequence 6.1 sends from gb_sdio_probe to a card in the transfer state, for a host
 * with these capabilities: 4-bit bus and SD high speed, no UHS, no CMD23. Ends with the
 * 4-bit bus at 50 MHz. size: the card's. */
static void probe(sdt *s, uint64_t size)
{
    /* gb_sdio_probe: GET_CAPABILITIES while the connection sends only; nothing may come
     * back yet (the AP would drop it) */
    CU_ASSERT_EQUAL(req(s, GB_SDIO_TYPE_GET_CAPABILITIES, NULL, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(s->nevents, 0);
    CU_ASSERT_EQUAL_FATAL(s->resp_len, GB_SDIO_CAPS_RESP_SIZE);
    CU_ASSERT_EQUAL(gb_get_le32(s->resp), GB_SDIO_CAP_4_BIT_DATA | GB_SDIO_CAP_SD_HS);
    CU_ASSERT_EQUAL(gb_get_le32(s->resp + 4), GB_SDIO_VDD_32_33 | GB_SDIO_VDD_33_34);
    CU_ASSERT_EQUAL(gb_get_le32(s->resp + 8), 400000);
    CU_ASSERT_EQUAL(gb_get_le32(s->resp + 12), 50000000);
    CU_ASSERT_EQUAL(gb_get_le16(s->resp + 16), VM_SDIO_MAX_BLK_COUNT);
    CU_ASSERT_EQUAL(gb_get_le16(s->resp + 18), 512);

    /* mmc_add_host -> mmc_start_host -> mmc_power_up: the first request on the enabled
     * connection, after which the slot reports its card */
    CU_ASSERT_EQUAL(ios(s, 0, GB_SDIO_POWER_UP, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(s->nevents, 1);
    CU_ASSERT_EQUAL(s->events[0], GB_SDIO_CARD_INSERTED);
    CU_ASSERT_EQUAL(ios(s, 400000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(s->nevents, 0);

    /* mmc_rescan_try_freq(400 kHz): sdio_reset's CMD52 read and write of CCCR ABORT */
    CU_ASSERT_EQUAL(cmd(s, VM_SD_CMD_IO_RW_DIRECT, 6u << 9, R1, AC, 0, 0, NULL), GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL(cmd(s, VM_SD_CMD_IO_RW_DIRECT, 1u << 31 | 6u << 9 | 0x08, R1, AC, 0, 0, NULL),
                    GB_OP_TIMEOUT);
    go_idle(s);
    if_cond(s); /* mmc_send_if_cond_pcie */
    /* mmc_attach_sdio: CMD5, tried 1 + MMC_CMD_RETRIES times */
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(cmd(s, VM_SD_CMD_IO_SEND_OP_COND, 0, R3, BCR, 0, 0, NULL), GB_OP_TIMEOUT);
    /* mmc_attach_sd: the ACMD41 inquiry */
    uint32_t st = word(s, VM_SD_CMD_APP_CMD, 0, R1, BCR, 0, 0);
    CU_ASSERT_TRUE(st & VM_SD_R1_APP_CMD);          /* mmc_app_cmd checks this */
    CU_ASSERT_TRUE(st & VM_SD_R1_ILLEGAL_COMMAND); /* the SDIO commands before */
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(st), VM_SD_IDLE);
    CU_ASSERT_EQUAL(word(s, VM_SD_ACMD_SD_SEND_OP_COND, 0, R3, BCR, 0, 0), VM_SD_OCR_VOLTAGES);

    /* mmc_sd_init_card -> mmc_sd_get_cid: CMD0, CMD8, ACMD41 with the voltage
     * mmc_select_voltage picked (bit 21) and HCS, until the card is no longer busy */
    go_idle(s);
    if_cond(s);
    uint32_t ocr = 0;
    int polls = 0;
    for (; polls < 100 && !(ocr & VM_SD_OCR_BUSY); polls++) {
        st = word(s, VM_SD_CMD_APP_CMD, 0, R1, BCR, 0, 0);
        CU_ASSERT_EQUAL(st & VM_SD_R1_ILLEGAL_COMMAND, 0); /* reported once, then cleared */
        ocr = word(s, VM_SD_ACMD_SD_SEND_OP_COND, 0x40200000, R3, BCR, 0, 0);
    }
    CU_ASSERT_TRUE(polls >= 2); /* a card needs a moment to power up */
    CU_ASSERT_EQUAL(ocr, VM_SD_OCR_BUSY | VM_SD_OCR_CCS | VM_SD_OCR_VOLTAGES);
    uint32_t cid[4];
    CU_ASSERT_EQUAL(cmd(s, VM_SD_CMD_ALL_SEND_CID, 0, R2, BCR, 0, 0, cid), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(field(cid, 96, 8), 'G'); /* mmc_decode_cid: prod_name[0] */
    CU_ASSERT_EQUAL(field(cid, 64, 8), 'D');
    CU_ASSERT_EQUAL(field(cid, 0, 1), 1); /* end bit */
    /* mmc_send_relative_addr: R6 */
    uint32_t r6 = word(s, VM_SD_CMD_SEND_RELATIVE_ADDR, 0, R1, BCR, 0, 0);
    s->rca = (uint16_t)(r6 >> 16);
    CU_ASSERT_NOT_EQUAL(s->rca, 0);
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(r6), VM_SD_IDENT);
    /* mmc_sd_get_csd */
    uint32_t csd[4];
    CU_ASSERT_EQUAL(cmd(s, VM_SD_CMD_SEND_CSD, (uint32_t)s->rca << 16, R2, AC, 0, 0, csd),
                    GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(field(csd, 126, 2), 1); /* CSD 2.0: block addressed */
    CU_ASSERT_EQUAL((uint64_t)(field(csd, 48, 22) + 1) << 19, size);
    CU_ASSERT_EQUAL(field(csd, 84, 12) & (1u << 10 | 1u << 8 | 1u << 5), 1u << 10 | 1u << 8 | 1u << 5);
    CU_ASSERT_EQUAL(field(csd, 96, 8), 0x32); /* 25 MHz */
    CU_ASSERT_EQUAL(field(csd, 13, 1), 0);    /* not permanently write protected */
    /* mmc_select_card */
    st = word(s, VM_SD_CMD_SELECT_CARD, (uint32_t)s->rca << 16, R1, AC, 0, 0);
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(st), VM_SD_STBY);
    /* mmc_app_send_scr: 8 bytes */
    uint8_t reg[64];
    CU_ASSERT_TRUE(word(s, VM_SD_CMD_APP_CMD, (uint32_t)s->rca << 16, R1, AC, 0, 0) &
                   VM_SD_R1_APP_CMD);
    st = word(s, VM_SD_ACMD_SEND_SCR, 0, R1, ADTC, 1, 8);
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(st), VM_SD_TRAN);
    CU_ASSERT_TRUE(st & VM_SD_R1_APP_CMD);
    CU_ASSERT_EQUAL(xfer_read(s, 1, 8, reg), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(field_bytes(reg, 8, 60, 4), 0);   /* SCR structure */
    CU_ASSERT_EQUAL(field_bytes(reg, 8, 56, 4), 2);   /* SD_SPEC */
    CU_ASSERT_EQUAL(field_bytes(reg, 8, 48, 4), 0x5); /* 1- and 4-bit buses */
    CU_ASSERT_EQUAL(field_bytes(reg, 8, 47, 1), 1);   /* SD_SPEC3 */
    CU_ASSERT_EQUAL(field_bytes(reg, 8, 34, 1), 0);   /* no CMD48: no extension registers */
    /* mmc_read_ssr: ACMD13, 64 bytes */
    word(s, VM_SD_CMD_APP_CMD, (uint32_t)s->rca << 16, R1, AC, 0, 0);
    word(s, VM_SD_ACMD_SD_STATUS, 0, R1, ADTC, 1, 64);
    CU_ASSERT_EQUAL(xfer_read(s, 1, 64, reg), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(field_bytes(reg, 64, 510, 2), 0); /* still a 1-bit bus */
    CU_ASSERT_EQUAL(field_bytes(reg, 64, 428, 4), 7); /* AU 1 MiB */
    /* mmc_read_switch: CMD6 mode 0 */
    word(s, VM_SD_CMD_SWITCH, 0x00fffff0, R1, ADTC, 1, 64);
    CU_ASSERT_EQUAL(xfer_read(s, 1, 64, reg), GB_OP_SUCCESS);
    CU_ASSERT_TRUE(reg[13] & 0x02); /* SD_MODE_HIGH_SPEED */
    /* mmc_sd_switch_hs: CMD6 mode 1, group 1 function 1 */
    word(s, VM_SD_CMD_SWITCH, 0x80fffff1, R1, ADTC, 1, 64);
    CU_ASSERT_EQUAL(xfer_read(s, 1, 64, reg), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(reg[16] & 0xf, 1);
    CU_ASSERT_EQUAL(ios(s, 50000000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_1, GB_SDIO_TIMING_SD_HS),
                    GB_OP_SUCCESS);
    /* mmc_app_set_bus_width(4), then the host's bus */
    word(s, VM_SD_CMD_APP_CMD, (uint32_t)s->rca << 16, R1, AC, 0, 0);
    st = word(s, VM_SD_ACMD_SET_BUS_WIDTH, 2, R1, AC, 0, 0);
    CU_ASSERT_EQUAL(st & ~(VM_SD_R1_APP_CMD | VM_SD_R1_READY_FOR_DATA | 0x1e00u), 0);
    CU_ASSERT_EQUAL(ios(s, 50000000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_4, GB_SDIO_TIMING_SD_HS),
                    GB_OP_SUCCESS);
    /* the card is ready for mmc_block: transfer state, ready for data, no error */
    st = status(s);
    CU_ASSERT_EQUAL(st, (uint32_t)VM_SD_TRAN << VM_SD_R1_STATE_SHIFT | VM_SD_R1_READY_FOR_DATA);
}

/* A host image file of `size` bytes under /tmp, byte i = (i * 7 + seed); path[64]. */
static void make_image(char *path, uint64_t size, uint8_t seed)
{
    snprintf(path, 64, "/tmp/gbvp_sdcard_XXXXXX");
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    static uint8_t buf[65536];
    for (uint64_t off = 0; off < size; off += sizeof buf) {
        size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)((off + i) * 7 + seed);
        CU_ASSERT_FATAL(pwrite(fd, buf, n, (off_t)off) == (ssize_t)n);
    }
    close(fd);
}

static const char *card_behaviour(const char *path, const char *extra)
{
    static char b[512];
    snprintf(b, sizeof b, "[cport 1]\ncard = %s\n%s", path, extra ? extra : "");
    return b;
}

/* ---- the probe ---- */

static void test_sdio_probe_as_6_1_sends_it_ends_in_transfer_state(void)
{
    static char mnfs[2048], beh[2048];
    memset(&S, 0, sizeof S);
    CU_ASSERT_FATAL(vmt_up(&S.t, vmt_catalog_text("sdcard.mnfs", mnfs, sizeof mnfs),
                           vmt_catalog_text("sdcard.behaviour", beh, sizeof beh), cport1, 1));
    probe(&S, 8 * MIB);
    vm_sd_card *card = vm_sdio_card(vm_interface_sdio(S.t.intf, 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(card);
    CU_ASSERT_EQUAL(vm_sd_card_state(card), VM_SD_TRAN);
    CU_ASSERT_EQUAL(vm_sd_card_bus_width(card), 4);
    CU_ASSERT_EQUAL(vm_sd_card_size(card), 8 * MIB);
    uint32_t csd[4];
    vm_sd_card_csd(card, csd);
    CU_ASSERT_EQUAL(field(csd, 48, 22), 15); /* (15 + 1) x 512 KiB */
    CU_ASSERT_EQUAL(field(csd, 96, 8), 0x5a); /* 50 MHz after the switch */
    vmt_down(&S.t);
}

static void test_sdio_image_file_size_sets_the_csd_capacity(void)
{
    char path[64];
    make_image(path, 3 * MIB, 1);
    CU_ASSERT_FATAL(up(&S, card_behaviour(path, NULL)));
    probe(&S, 3 * MIB);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio stats", 0, &reply), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "card present state tran size 3145728 image "));
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, path));
    const vm_value *v = vm_reply_get(&reply, "timeouts");
    CU_ASSERT_TRUE(v && v->i == 6); /* 2 x CMD52, 4 x CMD5 */
    vmt_down(&S.t);
    unlink(path);
}

/* ---- data ---- */

static void test_sdio_multi_block_write_and_read_reach_the_image_file(void)
{
    char path[64];
    make_image(path, MIB, 3);
    CU_ASSERT_FATAL(up(&S, card_behaviour(path, NULL)));
    probe(&S, MIB);
    /* mmc_blk: CMD25 at block 10 for 5 blocks (no CMD23: the host lacks MMC_CAP_CMD23),
     * the data in TRANSFERs of at most 3 blocks (2035-byte data_max), CMD12 (R1b) */
    static uint8_t data[5 * 512], back[5 * 512];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i ^ 0x5a);
    uint32_t st = word(&S, VM_SD_CMD_WRITE_MULTIPLE_BLOCK, 10, R1, ADTC, 5, 512);
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(st), VM_SD_TRAN);
    CU_ASSERT_EQUAL(xfer_write(&S, 3, 512, data), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(xfer_write(&S, 2, 512, data + 3 * 512), GB_OP_SUCCESS);
    st = word(&S, VM_SD_CMD_STOP_TRANSMISSION, 0, R1B, AC, 5, 512);
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(st), VM_SD_RCV);
    st = status(&S); /* mmc_blk_card_busy */
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(st), VM_SD_TRAN);
    CU_ASSERT_TRUE(st & VM_SD_R1_READY_FOR_DATA);
    /* the bytes are in the file as soon as the write was answered */
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fseek(f, 10 * 512, SEEK_SET), 0);
    CU_ASSERT_EQUAL(fread(back, 1, sizeof back, f), sizeof back);
    CU_ASSERT_EQUAL(memcmp(back, data, sizeof data), 0);
    uint8_t around[2];
    CU_ASSERT_EQUAL(fseek(f, 10 * 512 - 1, SEEK_SET), 0);
    CU_ASSERT_EQUAL(fread(around, 1, 1, f), 1);
    CU_ASSERT_EQUAL(fseek(f, 15 * 512, SEEK_SET), 0);
    CU_ASSERT_EQUAL(fread(around + 1, 1, 1, f), 1);
    fclose(f);
    CU_ASSERT_EQUAL(around[0], (uint8_t)((10 * 512 - 1) * 7 + 3)); /* untouched neighbours */
    CU_ASSERT_EQUAL(around[1], (uint8_t)(15 * 512 * 7 + 3));
    /* and read back: CMD18 from block 9, 7 blocks, CMD12 (R1) */
    static uint8_t rd[7 * 512];
    word(&S, VM_SD_CMD_READ_MULTIPLE_BLOCK, 9, R1, ADTC, 7, 512);
    CU_ASSERT_EQUAL(xfer_read(&S, 3, 512, rd), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(xfer_read(&S, 3, 512, rd + 3 * 512), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, rd + 6 * 512), GB_OP_SUCCESS);
    st = word(&S, VM_SD_CMD_STOP_TRANSMISSION, 0, R1, AC, 7, 512);
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(st), VM_SD_DATA);
    CU_ASSERT_EQUAL(rd[511], (uint8_t)((9 * 512 + 511) * 7 + 3));
    CU_ASSERT_EQUAL(memcmp(rd + 512, data, sizeof data), 0);
    CU_ASSERT_EQUAL(rd[6 * 512], (uint8_t)(15 * 512 * 7 + 3));
    /* a single block read, CMD17, and the last block of the card */
    word(&S, VM_SD_CMD_READ_SINGLE_BLOCK, MIB / 512 - 1, R1, ADTC, 1, 512);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, rd), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(rd[0], (uint8_t)((MIB - 512) * 7 + 3));
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(status(&S)), VM_SD_TRAN); /* back by itself */
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio stats", 0, &reply), 0);
    const vm_value *w = vm_reply_get(&reply, "blocks_written");
    const vm_value *r = vm_reply_get(&reply, "blocks_read");
    CU_ASSERT_TRUE(w && w->i == 5);
    CU_ASSERT_TRUE(r && r->i == 8);
    vmt_down(&S.t);
    unlink(path);
}

static void test_sdio_transfers_the_card_does_not_expect_are_refused(void)
{
    CU_ASSERT_FATAL(up(&S, NULL));
    probe(&S, 8 * MIB);
    static uint8_t buf[3 * 512];
    memset(buf, 0xab, sizeof buf);
    /* no data command pending: the card sends and takes nothing (a data timeout) */
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, buf), GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL(xfer_write(&S, 1, 512, buf), GB_OP_TIMEOUT);
    /* CMD17 is one block, CMD24 takes writes only */
    word(&S, VM_SD_CMD_READ_SINGLE_BLOCK, 0, R1, ADTC, 1, 512);
    CU_ASSERT_EQUAL(xfer_read(&S, 2, 512, buf), GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL(xfer_write(&S, 1, 512, buf), GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 256, buf), GB_OP_TIMEOUT); /* other block size */
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, buf), GB_OP_SUCCESS);
    /* past the end: CMD18 at the last block reads one block, the next runs out */
    uint32_t st = word(&S, VM_SD_CMD_READ_MULTIPLE_BLOCK, 8 * MIB / 512 - 1, R1, ADTC, 2, 512);
    CU_ASSERT_EQUAL(st & VM_SD_R1_OUT_OF_RANGE, 0);
    CU_ASSERT_EQUAL(xfer_read(&S, 2, 512, buf), GB_OP_TIMEOUT);
    st = word(&S, VM_SD_CMD_STOP_TRANSMISSION, 0, R1, AC, 2, 512);
    CU_ASSERT_TRUE(st & VM_SD_R1_OUT_OF_RANGE);
    CU_ASSERT_EQUAL(status(&S) & VM_SD_R1_OUT_OF_RANGE, 0); /* cleared once reported */
    /* an address beyond the card: OUT_OF_RANGE at once, no data phase */
    st = word(&S, VM_SD_CMD_READ_SINGLE_BLOCK, 8 * MIB / 512, R1, ADTC, 1, 512);
    CU_ASSERT_TRUE(st & VM_SD_R1_OUT_OF_RANGE);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, buf), GB_OP_TIMEOUT);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio stats", 0, &reply), 0);
    const vm_value *v = vm_reply_get(&reply, "data_errors");
    CU_ASSERT_TRUE(v && v->i == 7);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "last-error TRANSFER: read of 1 x 512 bytes"));
    vmt_down(&S.t);
}

static void test_sdio_bus_width_mismatch_is_a_crc_error(void)
{
    CU_ASSERT_FATAL(up(&S, NULL));
    probe(&S, 8 * MIB);
    /* the host goes back to a 1-bit bus, the card stays 4-bit */
    CU_ASSERT_EQUAL(ios(&S, 50000000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_1, GB_SDIO_TIMING_SD_HS),
                    GB_OP_SUCCESS);
    word(&S, VM_SD_CMD_READ_SINGLE_BLOCK, 0, R1, ADTC, 1, 512);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, NULL), GB_OP_MALFUNCTION); /* 6.1: -EILSEQ */
    vmt_down(&S.t);
}

static void test_sdio_host_read_failure_is_an_io_error_and_in_the_stats(void)
{
    char path[64];
    make_image(path, MIB, 0);
    CU_ASSERT_FATAL(up(&S, card_behaviour(path, NULL)));
    probe(&S, MIB);
    CU_ASSERT_EQUAL(truncate(path, 0), 0); /* the image shrinks under the card */
    word(&S, VM_SD_CMD_READ_SINGLE_BLOCK, 4, R1, ADTC, 1, 512);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, NULL), GB_OP_UNKNOWN_ERROR); /* 6.1: -EIO */
    uint32_t st = status(&S);
    CU_ASSERT_TRUE(st & VM_SD_R1_ERROR);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio stats", 0, &reply), 0);
    const vm_value *v = vm_reply_get(&reply, "io_errors");
    CU_ASSERT_TRUE(v && v->i == 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "last-error reading 1 blocks at block 4 of "));
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, path));
    vmt_down(&S.t);
    unlink(path);
}

/* ---- insert, remove, write protect ---- */

static void test_sdio_remove_and_insert_send_events_and_silence_the_card(void)
{
    char path[64], other[64];
    make_image(path, MIB, 0);
    make_image(other, 2 * MIB, 0);
    CU_ASSERT_FATAL(up(&S, card_behaviour(path, NULL)));
    probe(&S, MIB);
    vm_reply reply;
    S.t.sink.n = 0;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio remove", 0, &reply), 0);
    collect_events(&S, 0);
    CU_ASSERT_EQUAL_FATAL(S.nevents, 1);
    CU_ASSERT_EQUAL(S.events[0], GB_SDIO_CARD_REMOVED);
    /* no card: every command with a response times out; no data moves */
    CU_ASSERT_EQUAL(cmd(&S, VM_SD_CMD_SEND_STATUS, (uint32_t)S.rca << 16, R1, AC, 0, 0, NULL),
                    GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL(cmd(&S, VM_SD_CMD_GO_IDLE, 0, NONE, BC, 0, 0, NULL), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 512, NULL), GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio remove", 0, &reply), -1);
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio stats", 0, &reply), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "card absent state none size 0 image "));
    /* the image is closed: another store may take it */
    char err[256];
    vm_store *st = vm_store_file(path, 0, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL(st);
    vm_store_free(st);
    /* another card, a new image: the AP is told, then probes it from power-up */
    S.t.sink.n = 0;
    char line[128];
    snprintf(line, sizeof line, "sdio insert %s", other);
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, line, 0, &reply), 0);
    collect_events(&S, 0);
    CU_ASSERT_EQUAL_FATAL(S.nevents, 1);
    CU_ASSERT_EQUAL(S.events[0], GB_SDIO_CARD_INSERTED);
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, line, 0, &reply), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "holds a card already"));
    /* the card saw power all along (the slot is powered): it starts idle */
    CU_ASSERT_EQUAL(vm_sd_card_state(vm_sdio_card(vm_interface_sdio(S.t.intf, 1))), VM_SD_IDLE);
    CU_ASSERT_EQUAL(vm_sd_card_size(vm_sdio_card(vm_interface_sdio(S.t.intf, 1))), 2 * MIB);
    /* write protect on: the WP event alone (6.1 ignores it beside INSERTED of a card it
     * has), and the card refuses writes */
    S.t.sink.n = 0;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio wp on", 0, &reply), 0);
    collect_events(&S, 0);
    CU_ASSERT_EQUAL_FATAL(S.nevents, 1);
    CU_ASSERT_EQUAL(S.events[0], GB_SDIO_WP);
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio wp maybe", 0, &reply), -1);
    vmt_down(&S.t);
    unlink(path);
    unlink(other);
}

static void test_sdio_slot_state_is_announced_after_each_connect(void)
{
    CU_ASSERT_FATAL(up(&S, "[cport 1]\ncard-present = no\nwrite-protect = yes\n"));
    /* nothing before the AP's connection takes requests */
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_GET_CAPABILITIES, NULL, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(S.nevents, 0);
    CU_ASSERT_EQUAL(ios(&S, 0, GB_SDIO_POWER_UP, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(S.nevents, 1);
    CU_ASSERT_EQUAL(S.events[0], GB_SDIO_CARD_REMOVED);
    CU_ASSERT_EQUAL(ios(&S, 400000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(S.nevents, 0);
    /* no card: commands time out (mmc_rescan would not even ask) */
    CU_ASSERT_EQUAL(cmd(&S, VM_SD_CMD_SEND_IF_COND, 0x1aa, R1, BCR, 0, 0, NULL), GB_OP_TIMEOUT);
    /* inserted while the CPort is down: the AP hears of it on the next connection */
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(S.t.intf, 1), 0);
    vm_reply reply;
    S.t.sink.n = 0;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio insert", 0, &reply), 0);
    CU_ASSERT_EQUAL(S.t.sink.n, 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(S.t.intf, 1), 0);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_GET_CAPABILITIES, NULL, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(S.nevents, 0);
    CU_ASSERT_EQUAL(ios(&S, 0, GB_SDIO_POWER_OFF, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(S.nevents, 2); /* WP alone, in case the AP knows the card */
    CU_ASSERT_EQUAL(S.events[0], GB_SDIO_WP);
    CU_ASSERT_EQUAL(S.events[1], GB_SDIO_CARD_INSERTED | GB_SDIO_WP);
    /* a card in memory (no `card`), write protected, unpowered until the AP powers it */
    vm_sd_card *card = vm_sdio_card(vm_interface_sdio(S.t.intf, 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(card);
    CU_ASSERT_PTR_NULL(vm_sd_card_path(card));
    CU_ASSERT_EQUAL(vm_sd_card_size(card), VM_SDIO_MEMORY_CARD_SIZE);
    CU_ASSERT_TRUE(vm_sd_card_write_protected(card));
    CU_ASSERT_FALSE(vm_sd_card_powered(card));
    CU_ASSERT_EQUAL(ios(&S, 0, GB_SDIO_POWER_UP, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(S.nevents, 0); /* said once */
    CU_ASSERT_TRUE(vm_sd_card_powered(card));
    vmt_down(&S.t);
}

/* A card swapped while the AP had the bundle runtime-suspended (CPort down): the AP still
 * believes in the old card and ignores "inserted", so the slot says "removed" first. */
static void test_sdio_card_swapped_while_disconnected_is_announced_removed_then_inserted(void)
{
    char path[64], other[64];
    make_image(path, MIB, 0);
    make_image(other, MIB, 9);
    CU_ASSERT_FATAL(up(&S, card_behaviour(path, NULL)));
    probe(&S, MIB);
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(S.t.intf, 1), 0);
    vm_reply reply;
    char line[128];
    snprintf(line, sizeof line, "sdio insert %s", other);
    S.t.sink.n = 0;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio remove", 0, &reply), 0);
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, line, 0, &reply), 0);
    CU_ASSERT_EQUAL(S.t.sink.n, 0); /* nothing reaches an AP that is not connected */
    CU_ASSERT_EQUAL(vm_interface_cport_connect(S.t.intf, 1), 0);
    /* the AP resumes and goes on with the old card: the new one, idle, does not answer */
    CU_ASSERT_EQUAL(cmd(&S, VM_SD_CMD_READ_MULTIPLE_BLOCK, 0, R1, ADTC, 8, 512, NULL),
                    GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL_FATAL(S.nevents, 2);
    CU_ASSERT_EQUAL(S.events[0], GB_SDIO_CARD_REMOVED);
    CU_ASSERT_EQUAL(S.events[1], GB_SDIO_CARD_INSERTED);
    CU_ASSERT_EQUAL(cmd(&S, VM_SD_CMD_SEND_STATUS, 0, R1, AC, 0, 0, NULL), GB_OP_TIMEOUT);
    CU_ASSERT_EQUAL(S.nevents, 0); /* said once */
    /* taken out while disconnected and left out: "removed" once */
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(S.t.intf, 1), 0);
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio remove", 0, &reply), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(S.t.intf, 1), 0);
    CU_ASSERT_EQUAL(ios(&S, 0, GB_SDIO_POWER_OFF, GB_SDIO_BUS_WIDTH_1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(S.nevents, 1);
    CU_ASSERT_EQUAL(S.events[0], GB_SDIO_CARD_REMOVED);
    vmt_down(&S.t);
    unlink(path);
    unlink(other);
}

/* ---- malformed requests ---- */

static void test_sdio_malformed_requests_are_invalid(void)
{
    CU_ASSERT_FATAL(up(&S, NULL));
    probe(&S, 8 * MIB);
    static uint8_t p[GB_MSG_MAX_PAYLOAD];
    memset(p, 0, sizeof p);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_GET_CAPABILITIES, p, 1), GB_OP_INVALID);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_SET_IOS, p, 13), GB_OP_INVALID);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_COMMAND, p, 10), GB_OP_INVALID);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_COMMAND, p, 12), GB_OP_INVALID);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_TRANSFER, p, 4), GB_OP_INVALID);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_EVENT, p, 1), GB_OP_PROTOCOL_BAD); /* AP -> module */
    CU_ASSERT_EQUAL(req(&S, 0x07, NULL, 0), GB_OP_PROTOCOL_BAD);
    /* SET_IOS: an 8-bit bus (not offered), unknown power mode, clock above f_max */
    CU_ASSERT_EQUAL(ios(&S, 400000, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_8, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(ios(&S, 400000, 4, GB_SDIO_BUS_WIDTH_4, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(ios(&S, 50000001, GB_SDIO_POWER_ON, GB_SDIO_BUS_WIDTH_4, 0), GB_OP_INVALID);
    /* COMMAND: index 64, flags 6.1 never sends, unknown type, a data command without data */
    CU_ASSERT_EQUAL(cmd(&S, 64, 0, R1, AC, 0, 0, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(cmd(&S, 13, 0, GB_SDIO_RSP_136, AC, 0, 0, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(cmd(&S, 13, 0, R1, 4, 0, 0, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(cmd(&S, 17, 0, R1, ADTC, 0, 512, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(cmd(&S, 17, 0, R1, ADTC, 1, 1024, NULL), GB_OP_INVALID);
    /* a response of the other length than expected: a CRC error for the AP */
    CU_ASSERT_EQUAL(cmd(&S, VM_SD_CMD_SEND_STATUS, (uint32_t)S.rca << 16, R2, AC, 0, 0, NULL),
                    GB_OP_MALFUNCTION);
    /* TRANSFER: flags, zero blocks or size, blocks x blksz beyond the payload, lengths */
    word(&S, VM_SD_CMD_READ_MULTIPLE_BLOCK, 0, R1, ADTC, 8, 512);
    uint8_t t[5] = {GB_SDIO_DATA_READ | GB_SDIO_DATA_WRITE, 1, 0, 0, 2};
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_TRANSFER, t, 5), GB_OP_INVALID);
    t[0] = GB_SDIO_DATA_READ | GB_SDIO_DATA_STREAM;
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_TRANSFER, t, 5), GB_OP_INVALID);
    CU_ASSERT_EQUAL(xfer_read(&S, 0, 512, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 0, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(xfer_read(&S, 1, 513, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(xfer_read(&S, 4, 512, NULL), GB_OP_INVALID); /* 2048 > 2040 - 4 */
    CU_ASSERT_EQUAL(xfer_read(&S, 7, 291, NULL), GB_OP_INVALID); /* 2037: one too many */
    CU_ASSERT_EQUAL(xfer_read(&S, 4, 509, NULL), GB_OP_TIMEOUT); /* 2036 fits; the card
                                                                   * sends 512-byte blocks */
    CU_ASSERT_EQUAL(xfer_read(&S, 0xffff, 0xffff, NULL), GB_OP_INVALID);
    p[0] = GB_SDIO_DATA_READ;
    gb_put_le16(p + 1, 1);
    gb_put_le16(p + 3, 512);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_TRANSFER, p, 6), GB_OP_INVALID); /* a read with data */
    p[0] = GB_SDIO_DATA_WRITE;
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_TRANSFER, p, 5 + 511), GB_OP_INVALID);
    gb_put_le16(p + 1, 4);
    CU_ASSERT_EQUAL(req(&S, GB_SDIO_TYPE_TRANSFER, p, GB_MSG_MAX_PAYLOAD), GB_OP_INVALID);
    /* none of it disturbed the read: it goes on */
    CU_ASSERT_EQUAL(xfer_read(&S, 3, 512, NULL), GB_OP_SUCCESS);
    word(&S, VM_SD_CMD_STOP_TRANSMISSION, 0, R1, AC, 8, 512);
    CU_ASSERT_EQUAL(VM_SD_R1_STATE(status(&S)), VM_SD_TRAN);
    vmt_down(&S.t);
}

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* Random requests of the SDIO types after a real probe: each gets exactly one response,
 * errors without payload, and the slot keeps working. */
static void test_sdio_random_requests_never_crash(void)
{
    CU_ASSERT_FATAL(up(&S, NULL));
    probe(&S, 8 * MIB);
    static uint8_t p[GB_MSG_MAX_PAYLOAD];
    for (unsigned iter = 0; iter < 20000; iter++) {
        uint8_t type = (uint8_t)(2 + rnd() % 6);
        size_t len = rnd() % 4 == 0 ? rnd() % sizeof p : rnd() % 16;
        for (size_t i = 0; i < len; i++)
            p[i] = (uint8_t)(rnd() % 3 == 0 ? rnd() : rnd() % 4);
        if (type == GB_SDIO_TYPE_COMMAND && len == GB_SDIO_COMMAND_REQ_SIZE)
            p[0] = (uint8_t)(rnd() % 64); /* mostly real command indexes */
        req(&S, type, p, len);
        CU_ASSERT_TRUE(S.resp_len <= GB_MSG_MAX_PAYLOAD);
    }
    /* the card still answers when brought back to a known state */
    go_idle(&S);
    if_cond(&S);
    vmt_down(&S.t);
}

/* ---- behaviour ---- */

static void test_sdio_bad_settings_name_file_and_line(void)
{
    char path[64];
    make_image(path, 1000000, 0);
    CU_ASSERT_FALSE(up(&S, card_behaviour(path, NULL)));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:2: card: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "has 1000000 bytes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "multiple of 512 KiB"));
    /* not opened at all while not present; refused on insertion */
    CU_ASSERT_FATAL(up(&S, card_behaviour(path, "card-present = no\n")));
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(S.t.intf, "sdio insert", 0, &reply), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(reply.text, "has 1000000 bytes"));
    vmt_down(&S.t);
    unlink(path);
    CU_ASSERT_FALSE(up(&S, "[cport 1]\ncard = /nonexistent/gbvp/card.img\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:2: card: cannot open /nonexistent"));
    CU_ASSERT_FALSE(up(&S, "[cport 1]\n\ncard-present = maybe\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:3: card-present: 'maybe'"));
    CU_ASSERT_FALSE(up(&S, "[cport 1]\nwrite-protect = 1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:2: write-protect:"));
    CU_ASSERT_FALSE(up(&S, "[cport 1]\ncard-size = 1000\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:2: card-size: 1000 bytes"));
    CU_ASSERT_FALSE(up(&S, "[cport 1]\ncard = x.img\ncard-size = 524288\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:3: card-size: only for a card in"));
    CU_ASSERT_FALSE(up(&S, "[cport 1]\ncard =\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:2: card: "));
    CU_ASSERT_FALSE(up(&S, "[cport 1]\nimage = x.img\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(S.t.err, "test.behaviour:2:"));
}

static void test_sdio_image_in_use_by_another_slot_is_refused(void)
{
    char path[64];
    make_image(path, MIB, 0);
    CU_ASSERT_FATAL(up(&S, card_behaviour(path, NULL)));
    static vmt other;
    memset(&other, 0, sizeof other);
    CU_ASSERT_FALSE(vmt_up(&other, vmt_manifest_one(0x0a, GB_PROTOCOL_SDIO),
                           card_behaviour(path, NULL), cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(other.err, "is in use"));
    vmt_down(&S.t);
    unlink(path);
}

/* ---- the card alone (sans-IO model) ---- */

static vm_sd_card *card_in_tran(uint64_t size, uint16_t *rca)
{
    char err[256];
    vm_sd_card *c = vm_sd_card_new(vm_store_memory(size, 0xee), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    vm_sd_response r;
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_GO_IDLE, 0, &r)); /* unpowered */
    vm_sd_card_power(c, true);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SEND_IF_COND, 0x1aa, &r));
    do {
        CU_ASSERT_TRUE_FATAL(vm_sd_card_command(c, VM_SD_CMD_APP_CMD, 0, &r));
        CU_ASSERT_TRUE_FATAL(vm_sd_card_command(c, VM_SD_ACMD_SD_SEND_OP_COND, 0x40300000, &r));
    } while (!(r.resp[0] & VM_SD_OCR_BUSY));
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_ALL_SEND_CID, 0, &r));
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SEND_RELATIVE_ADDR, 0, &r));
    *rca = (uint16_t)(r.resp[0] >> 16);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SELECT_CARD, (uint32_t)*rca << 16, &r));
    CU_ASSERT_EQUAL(vm_sd_card_state(c), VM_SD_TRAN);
    return c;
}

static void test_sd_card_illegal_commands_are_silent_and_reported_next(void)
{
    uint16_t rca;
    vm_sd_card *c = card_in_tran(MIB, &rca);
    vm_sd_response r;
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_ALL_SEND_CID, 0, &r)); /* not in tran */
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_STOP_TRANSMISSION, 0, &r));
    CU_ASSERT_FALSE(vm_sd_card_command(c, 11, 0, &r)); /* no 1.8 V switch */
    CU_ASSERT_FALSE(vm_sd_card_command(c, 56, 0, &r));
    CU_ASSERT_EQUAL(vm_sd_card_state(c), VM_SD_TRAN); /* nothing changed */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SEND_STATUS, (uint32_t)rca << 16, &r));
    CU_ASSERT_EQUAL(r.kind, VM_SD_RSP_R1);
    CU_ASSERT_TRUE(r.resp[0] & VM_SD_R1_ILLEGAL_COMMAND);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SEND_STATUS, (uint32_t)rca << 16, &r));
    CU_ASSERT_EQUAL(r.resp[0] & VM_SD_R1_ILLEGAL_COMMAND, 0);
    /* another card's address: no answer, and no error either */
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_SEND_STATUS, (uint32_t)(rca + 1) << 16, &r));
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SEND_STATUS, (uint32_t)rca << 16, &r));
    CU_ASSERT_EQUAL(r.resp[0] & VM_SD_R1_ILLEGAL_COMMAND, 0);
    /* an ACMD that does not exist is the standard command, without APP_CMD */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_APP_CMD, (uint32_t)rca << 16, &r));
    CU_ASSERT_TRUE(r.resp[0] & VM_SD_R1_APP_CMD);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SET_BLOCKLEN, 512, &r));
    CU_ASSERT_EQUAL(r.resp[0] & VM_SD_R1_APP_CMD, 0);
    CU_ASSERT_EQUAL(vm_sd_card_state(c), VM_SD_TRAN);
    /* deselect, then CMD9 works in stby; CMD15 silences the card for good */
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_SELECT_CARD, 0, &r));
    CU_ASSERT_EQUAL(vm_sd_card_state(c), VM_SD_STBY);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SEND_CSD, (uint32_t)rca << 16, &r));
    CU_ASSERT_EQUAL(r.kind, VM_SD_RSP_R2);
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_GO_INACTIVE, (uint32_t)rca << 16, &r));
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_GO_IDLE, 0, &r));
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_SEND_IF_COND, 0x1aa, &r));
    vm_sd_card_power(c, false);
    vm_sd_card_power(c, true); /* only a power cycle brings it back */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SEND_IF_COND, 0x1aa, &r));
    vm_sd_card_stats st;
    vm_sd_card_get_stats(c, &st);
    CU_ASSERT_EQUAL(st.illegal, 4);
    vm_sd_card_free(c);
}

static void test_sd_card_power_up_needs_cmd8_and_hcs(void)
{
    char err[256];
    vm_sd_card *c = vm_sd_card_new(vm_store_memory(MIB, 0), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    vm_sd_card_power(c, true);
    vm_sd_response r;
    /* a 1.x host (no CMD8): an SDHC card never leaves busy */
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_APP_CMD, 0, &r));
        CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_ACMD_SD_SEND_OP_COND, 0x00300000, &r));
        CU_ASSERT_EQUAL(r.resp[0] & VM_SD_OCR_BUSY, 0);
    }
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_CMD_SEND_IF_COND, 0x2aa, &r)); /* 1.8 V: no */
    CU_ASSERT_EQUAL(vm_sd_card_state(c), VM_SD_IDLE);
    /* voltages the card lacks: inactive */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_APP_CMD, 0, &r));
    CU_ASSERT_FALSE(vm_sd_card_command(c, VM_SD_ACMD_SD_SEND_OP_COND, 0x40000080, &r));
    CU_ASSERT_EQUAL(vm_sd_card_state(c), VM_SD_INACTIVE);
    vm_sd_card_free(c);
}

/* Zeros filled into an image file (an SD erase or discard) become a hole where the file
 * system can punch one: erasing most of a sparse 64 MiB image allocates nothing, and the
 * bytes around the range keep their values. */
static void test_store_fills_zeros_of_a_file_as_a_hole(void)
{
    char path[64], err[256];
    unit_tmp_path(path, sizeof path, "sparse.img");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL_FATAL(ftruncate(fd, 64 * MIB), 0);
    bool holes = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
    close(fd);
    vm_store *st = vm_store_file(path, 0, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    uint8_t pattern[4096], back[4096];
    memset(pattern, 0x5a, sizeof pattern);
    CU_ASSERT_EQUAL(vm_store_write(st, MIB, pattern, sizeof pattern), 0);
    CU_ASSERT_EQUAL(vm_store_write(st, 40 * MIB, pattern, sizeof pattern), 0);
    struct stat before, after;
    CU_ASSERT_EQUAL(stat(path, &before), 0);
    CU_ASSERT_EQUAL(vm_store_fill(st, MIB + 512, 0, 39 * MIB - 512), 0);
    CU_ASSERT_EQUAL(stat(path, &after), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, MIB, back, sizeof back), 0);
    CU_ASSERT_TRUE(back[0] == 0x5a && back[511] == 0x5a && back[512] == 0 && back[4095] == 0);
    CU_ASSERT_EQUAL(vm_store_read(st, 40 * MIB, back, sizeof back), 0);
    CU_ASSERT_EQUAL(memcmp(back, pattern, sizeof back), 0);
    CU_ASSERT_EQUAL(after.st_size, 64 * MIB);
    if (holes) /* (writing 39 MiB of zeros would allocate some 80 000 sectors) */
        CU_ASSERT_TRUE(after.st_blocks <= before.st_blocks);
    vm_store_free(st);
    unlink(path);
}

static void test_sd_card_erase_write_protect_and_block_count(void)
{
    uint16_t rca;
    vm_sd_card *c = card_in_tran(MIB, &rca);
    vm_sd_response r;
    uint8_t blk[512];
    /* CMD38 without its sequence */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_ERASE, 0, &r));
    CU_ASSERT_TRUE(r.resp[0] & VM_SD_R1_ERASE_SEQ_ERROR);
    /* blocks 2..3 erased read 0, blocks 1 and 4 keep their bytes */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_ERASE_WR_BLK_START, 2, &r));
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_ERASE_WR_BLK_END, 3, &r));
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_ERASE, 0, &r));
    CU_ASSERT_EQUAL(r.resp[0] & 0xffff0000u, 0);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SET_BLOCK_COUNT, 4, &r)); /* CMD23 */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_READ_MULTIPLE_BLOCK, 1, &r));
    uint8_t four[4 * 512];
    CU_ASSERT_EQUAL(vm_sd_card_read(c, four, 512, 4), 0);
    CU_ASSERT_EQUAL(vm_sd_card_state(c), VM_SD_TRAN); /* the count ended it */
    CU_ASSERT_TRUE(four[0] == 0xee && four[512] == 0 && four[3 * 512 - 1] == 0 &&
                   four[3 * 512] == 0xee);
    /* an erase sequence broken by another command */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_ERASE_WR_BLK_START, 2, &r));
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SET_BLOCKLEN, 512, &r));
    CU_ASSERT_TRUE(r.resp[0] & VM_SD_R1_ERASE_RESET);
    /* write protected: writes and erases refused, the CSD says so */
    vm_sd_card_set_write_protect(c, true);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_WRITE_BLOCK, 0, &r));
    CU_ASSERT_TRUE(r.resp[0] & VM_SD_R1_WP_VIOLATION);
    CU_ASSERT_EQUAL(vm_sd_card_write(c, blk, 512, 1), -EPROTO);
    uint32_t csd[4];
    vm_sd_card_csd(c, csd);
    CU_ASSERT_EQUAL(field(csd, 12, 1), 1);
    vm_sd_card_set_write_protect(c, false);
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_WRITE_BLOCK, 0, &r));
    memset(blk, 0x11, sizeof blk);
    CU_ASSERT_EQUAL(vm_sd_card_write(c, blk, 512, 1), 0);
    /* ACMD22: blocks the last write command wrote */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_APP_CMD, (uint32_t)rca << 16, &r));
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_ACMD_SEND_NUM_WR_BLOCKS, 0, &r));
    uint8_t n[4];
    CU_ASSERT_EQUAL(vm_sd_card_read(c, n, 4, 1), 0);
    CU_ASSERT_TRUE(n[0] == 0 && n[1] == 0 && n[2] == 0 && n[3] == 1);
    /* CMD16 beyond a block */
    CU_ASSERT_TRUE(vm_sd_card_command(c, VM_SD_CMD_SET_BLOCKLEN, 1024, &r));
    CU_ASSERT_TRUE(r.resp[0] & VM_SD_R1_BLOCK_LEN_ERROR);
    vm_sd_card_stats st;
    vm_sd_card_get_stats(c, &st);
    CU_ASSERT_EQUAL(st.blocks_erased, 2);
    CU_ASSERT_EQUAL(st.blocks_written, 1);
    vm_sd_card_free(c);
}

static void test_sd_card_sizes_outside_the_csd_units_are_refused(void)
{
    char err[256];
    CU_ASSERT_PTR_NULL(vm_sd_card_new(vm_store_memory(MIB + 512, 0), err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "the memory card has 1049088 bytes"));
    CU_ASSERT_PTR_NULL(vm_sd_card_new(vm_store_memory(256 * 1024, 0), err, sizeof err));
    vm_sd_card *c = vm_sd_card_new(vm_store_memory(512 * 1024, 0), err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c); /* the smallest: C_SIZE 0 */
    uint32_t csd[4];
    vm_sd_card_csd(c, csd);
    CU_ASSERT_EQUAL(field(csd, 48, 22), 0);
    vm_sd_card_free(c);
}

const unit_test vmt_sdio_tests[] = {
    UNIT_TEST(test_sdio_probe_as_6_1_sends_it_ends_in_transfer_state),
    UNIT_TEST(test_sdio_image_file_size_sets_the_csd_capacity),
    UNIT_TEST(test_sdio_multi_block_write_and_read_reach_the_image_file),
    UNIT_TEST(test_sdio_transfers_the_card_does_not_expect_are_refused),
    UNIT_TEST(test_sdio_bus_width_mismatch_is_a_crc_error),
    UNIT_TEST(test_sdio_host_read_failure_is_an_io_error_and_in_the_stats),
    UNIT_TEST(test_sdio_remove_and_insert_send_events_and_silence_the_card),
    UNIT_TEST(test_sdio_slot_state_is_announced_after_each_connect),
    UNIT_TEST(test_sdio_card_swapped_while_disconnected_is_announced_removed_then_inserted),
    UNIT_TEST(test_sdio_malformed_requests_are_invalid),
    UNIT_TEST(test_sdio_random_requests_never_crash),
    UNIT_TEST(test_sdio_bad_settings_name_file_and_line),
    UNIT_TEST(test_sdio_image_in_use_by_another_slot_is_refused),
    UNIT_TEST(test_sd_card_illegal_commands_are_silent_and_reported_next),
    UNIT_TEST(test_sd_card_power_up_needs_cmd8_and_hcs),
    UNIT_TEST(test_sd_card_erase_write_protect_and_block_count),
    UNIT_TEST(test_store_fills_zeros_of_a_file_as_a_hole),
    UNIT_TEST(test_sd_card_sizes_outside_the_csd_units_are_refused),
    UNIT_TESTS_END,
};
