// SPDX-License-Identifier: MIT
// An SD memory card (see sd_card.h).
#include "virtual-modules/sd_card.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Status bits a response reports and then clears: the error bits (clear conditions B and
 * C of the specification: "cleared by read" or "related to the previous command"). */
#define R1_REPORTED                                                                          \
    (VM_SD_R1_OUT_OF_RANGE | VM_SD_R1_ADDRESS_ERROR | VM_SD_R1_BLOCK_LEN_ERROR |             \
     VM_SD_R1_ERASE_SEQ_ERROR | VM_SD_R1_ERASE_PARAM | VM_SD_R1_WP_VIOLATION |               \
     VM_SD_R1_COM_CRC_ERROR | VM_SD_R1_ILLEGAL_COMMAND | VM_SD_R1_ERROR | VM_SD_R1_ERASE_RESET)

/* Command classes the CSD announces, the ones modelled: 0 basic, 2 block read, 4 block
 * write, 5 erase, 8 application specific, 10 switch. */
#define CSD_CCC 0x535u
#define CSD_TRAN_SPEED_25MHZ 0x32u
#define CSD_TRAN_SPEED_50MHZ 0x5au
/* ACMD41s a card answers busy before its power-up is done (real cards take a few). */
#define POWER_UP_POLLS 1u
#define SSR_AU_1MIB 7u /* SD Status AU_SIZE code */
#define SSR_SPEED_CLASS_4 2u
#define SCR_SPEC_2 2u          /* SD_SPEC: physical layer 2.00 (with SD_SPEC3: 3.0x) */
#define SCR_SECURITY_SDHC 3u   /* SD_SECURITY for a card up to 32 GB; SDXC is 4 */
#define SCR_SECURITY_SDXC 4u
#define SCR_BUS_WIDTHS_1_4 0x5u
#define SCR_CMD23_SUPPORT 0x2u
#define SDXC_MIN_C_SIZE 0xffffu
#define SWITCH_GROUPS 6
#define SWITCH_NO_CHANGE 0xfu

typedef enum cmd_result {
    ANSWER,    /* *rsp holds the response */
    SILENT,    /* a legal command that has no response (CMD0, CMD7 deselect, CMD15...) */
    ILLEGAL,   /* not legal in this state, or unknown: no response, ILLEGAL_COMMAND next */
    UNDEFINED, /* (application commands) no such ACMD: taken as the standard command */
} cmd_result;

struct vm_sd_card {
    vm_store *store;
    uint64_t blocks;
    bool powered, write_protect;
    vm_sd_state state;
    uint16_t rca;
    unsigned rca_published;
    uint32_t status;     /* error bits waiting for the next R1 or R6 */
    bool app_cmd;        /* CMD55 answered: the next command is an application command */
    bool if_cond;        /* CMD8 answered since the last reset: a 2.00 host */
    unsigned busy_polls; /* ACMD41s answered busy since the last reset */
    bool wide_bus, high_speed;
    uint32_t block_count; /* CMD23, for the very next command */
    bool erase_start_set, erase_end_set;
    uint32_t erase_start, erase_end;
    uint32_t well_written; /* blocks the last write command wrote (ACMD22) */
    struct {
        vm_sd_direction dir;
        unsigned block_size;
        uint32_t left;
        uint64_t block; /* next block of a memory transfer */
        bool reg;       /* the data is reg[] (CMD6, ACMD13, ACMD22, ACMD51) */
    } xfer;
    uint8_t reg[64];
    uint32_t psn; /* product serial number in the CID */
    vm_sd_card_stats stats;
};

static const char *const state_names[] = {"idle", "ready", "ident", "stby", "tran",
                                          "data", "rcv",   "prg",   "dis"};

const char *vm_sd_state_name(vm_sd_state s)
{
    if ((unsigned)s < sizeof state_names / sizeof state_names[0])
        return state_names[s];
    return "inactive";
}

/* ---- registers ---- */

/* Sets bits [lsb, lsb + width) of a big-endian register of `bytes` bytes (bit 0 is the
 * last byte's lowest bit, as the specification numbers them). */
static void put_bits(uint8_t *reg, size_t bytes, unsigned lsb, unsigned width, uint32_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = lsb + i;
        uint8_t *p = &reg[bytes - 1 - bit / 8];
        if (v >> i & 1)
            *p |= (uint8_t)(1u << (bit % 8));
        else
            *p &= (uint8_t)~(1u << (bit % 8));
    }
}

/* CRC7 (x^7 + x^3 + 1) of a register's bytes, MSB first. */
static uint8_t crc7(const uint8_t *d, size_t n)
{
    uint8_t crc = 0;
    for (size_t i = 0; i < n; i++)
        for (int b = 7; b >= 0; b--) {
            unsigned in = (unsigned)(d[i] >> b & 1) ^ (unsigned)(crc >> 6 & 1);
            crc = (uint8_t)((crc << 1) & 0x7f);
            if (in)
                crc ^= 0x09;
        }
    return crc;
}

/* A 128-bit register as R2 carries it: CRC7 and end bit in bits 7:0, words MSB first. */
static void r2_words(uint8_t reg[16], uint32_t out[4])
{
    reg[15] = (uint8_t)(crc7(reg, 15) << 1 | 1);
    for (int i = 0; i < 4; i++)
        out[i] = (uint32_t)reg[4 * i] << 24 | (uint32_t)reg[4 * i + 1] << 16 |
                 (uint32_t)reg[4 * i + 2] << 8 | reg[4 * i + 3];
}

void vm_sd_card_cid(const vm_sd_card *c, uint32_t out[4])
{
    uint8_t r[16] = {0};
    put_bits(r, 16, 120, 8, 0x00);               /* MID: none assigned */
    put_bits(r, 16, 104, 16, 'G' << 8 | 'B');    /* OID */
    static const char pnm[5] = {'G', 'B', 'V', 'S', 'D'};
    for (int i = 0; i < 5; i++)                  /* PNM, 103:64 */
        put_bits(r, 16, (unsigned)(96 - 8 * i), 8, (uint8_t)pnm[i]);
    put_bits(r, 16, 56, 8, 0x10);                /* PRV 1.0 */
    put_bits(r, 16, 24, 32, c->psn);             /* PSN */
    put_bits(r, 16, 12, 8, 25);                  /* MDT year: 2000 + 25 */
    put_bits(r, 16, 8, 4, 1);                    /* MDT month */
    r2_words(r, out);
}

void vm_sd_card_csd(const vm_sd_card *c, uint32_t out[4])
{
    uint8_t r[16] = {0};
    uint32_t c_size = (uint32_t)(c->blocks / (VM_SD_SIZE_UNIT / VM_SD_BLOCK) - 1);
    put_bits(r, 16, 126, 2, 1);    /* CSD_STRUCTURE: version 2.0 */
    put_bits(r, 16, 112, 8, 0x0e); /* TAAC: 1 ms */
    put_bits(r, 16, 96, 8, c->high_speed ? CSD_TRAN_SPEED_50MHZ : CSD_TRAN_SPEED_25MHZ);
    put_bits(r, 16, 84, 12, CSD_CCC);
    put_bits(r, 16, 80, 4, 9);     /* READ_BL_LEN: 512 */
    put_bits(r, 16, 48, 22, c_size);
    put_bits(r, 16, 46, 1, 1);     /* ERASE_BLK_EN: erase in 512-byte units */
    put_bits(r, 16, 39, 7, 0x7f);  /* SECTOR_SIZE: 64 KiB */
    put_bits(r, 16, 26, 3, 2);     /* R2W_FACTOR: x4 */
    put_bits(r, 16, 22, 4, 9);     /* WRITE_BL_LEN: 512 */
    put_bits(r, 16, 12, 1, c->write_protect); /* TMP_WRITE_PROTECT */
    r2_words(r, out);
}

static void scr_data(const vm_sd_card *c, uint8_t scr[8])
{
    memset(scr, 0, 8);
    bool sdxc = c->blocks / 1024 - 1 >= SDXC_MIN_C_SIZE;
    put_bits(scr, 8, 56, 4, SCR_SPEC_2);
    put_bits(scr, 8, 52, 3, sdxc ? SCR_SECURITY_SDXC : SCR_SECURITY_SDHC);
    put_bits(scr, 8, 48, 4, SCR_BUS_WIDTHS_1_4);
    put_bits(scr, 8, 47, 1, 1); /* SD_SPEC3 */
    put_bits(scr, 8, 32, 4, SCR_CMD23_SUPPORT);
}

static void sd_status_data(const vm_sd_card *c, uint8_t ssr[64])
{
    memset(ssr, 0, 64);
    put_bits(ssr, 64, 510, 2, c->wide_bus ? 2 : 0); /* DAT_BUS_WIDTH */
    put_bits(ssr, 64, 440, 8, SSR_SPEED_CLASS_4);
    put_bits(ssr, 64, 428, 4, SSR_AU_1MIB);
    /* ERASE_SIZE and ERASE_TIMEOUT 0: no erase timeout given (the host assumes its own) */
}

/* CMD6 status (512 bits): what each function group would switch to (check, mode 0) or
 * did (set, mode 1). Group 1 (bus speed) has default and high speed; groups 2-6 only their
 * default function. Returns false when a group asks for a function the card lacks. */
static bool switch_status(vm_sd_card *c, uint32_t arg, bool set, uint8_t st[64])
{
    static const uint16_t support[SWITCH_GROUPS] = {0x8003, 0x8001, 0x8001,
                                                    0x8001, 0x8001, 0x8001};
    unsigned result[SWITCH_GROUPS];
    bool ok = true;
    for (unsigned g = 0; g < SWITCH_GROUPS; g++) {
        unsigned fn = arg >> (4 * g) & 0xf;
        unsigned current = g == 0 && c->high_speed ? 1 : 0;
        if (fn == SWITCH_NO_CHANGE)
            result[g] = current;
        else if (support[g] >> fn & 1)
            result[g] = fn;
        else {
            result[g] = 0xf;
            ok = false;
        }
    }
    if (set && ok)
        c->high_speed = result[0] == 1;
    memset(st, 0, 64);
    put_bits(st, 64, 496, 16, !ok ? 0 : result[0] == 1 ? 200 : 100); /* max current, mA */
    for (unsigned g = 0; g < SWITCH_GROUPS; g++) {
        put_bits(st, 64, 400 + 16 * g, 16, support[g]);
        put_bits(st, 64, 376 + 4 * g, 4, result[g]);
    }
    put_bits(st, 64, 368, 8, 1); /* data structure version 1: busy status bits, all 0 */
    return ok;
}

/* ---- state ---- */

static void to_idle(vm_sd_card *c)
{
    c->state = VM_SD_IDLE;
    c->rca = 0;
    c->status = 0;
    c->app_cmd = c->if_cond = false;
    c->busy_polls = 0;
    c->wide_bus = c->high_speed = false;
    c->block_count = 0;
    c->erase_start_set = c->erase_end_set = false;
    c->well_written = 0;
    memset(&c->xfer, 0, sizeof c->xfer);
}

vm_sd_card *vm_sd_card_new(vm_store *store, char *err, size_t errlen)
{
    uint64_t size = vm_store_size(store);
    const char *path = vm_store_path(store);
    if (size < VM_SD_SIZE_UNIT || size % VM_SD_SIZE_UNIT || size > VM_SD_MAX_SIZE) {
        snprintf(err, errlen,
                 "%s has %" PRIu64 " bytes; an SD card image must be a multiple of 512 KiB "
                 "(524288 bytes) between 512 KiB and 2 TiB",
                 path ? path : "the memory card", size);
        vm_store_free(store);
        return NULL;
    }
    vm_sd_card *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "%s: out of memory", path ? path : "memory card");
        vm_store_free(store);
        return NULL;
    }
    c->store = store;
    c->blocks = size / VM_SD_BLOCK;
    /* a serial number that tells images apart (FNV-1a of the path and the size) */
    uint32_t h = 2166136261u;
    for (const char *p = path ? path : "memory"; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    c->psn = h ^ (uint32_t)c->blocks;
    c->state = VM_SD_INACTIVE;
    return c;
}

void vm_sd_card_free(vm_sd_card *c)
{
    if (!c)
        return;
    vm_store_free(c->store);
    free(c);
}

void vm_sd_card_power(vm_sd_card *c, bool on)
{
    if (on == c->powered)
        return;
    c->powered = on;
    to_idle(c);
    if (!on)
        c->state = VM_SD_INACTIVE;
}

bool vm_sd_card_powered(const vm_sd_card *c)
{
    return c->powered;
}

void vm_sd_card_set_write_protect(vm_sd_card *c, bool on)
{
    c->write_protect = on;
}

bool vm_sd_card_write_protected(const vm_sd_card *c)
{
    return c->write_protect;
}

/* ---- responses ---- */

/* R1: the error bits gathered so far and those of this command, the state the command
 * found the card in, ready for data (writes complete at once), APP_CMD for an application
 * command or CMD55. Reported bits are cleared. */
static cmd_result r1(vm_sd_card *c, vm_sd_response *rsp, vm_sd_state at, uint32_t errors,
                     bool app)
{
    uint32_t s = c->status | errors;
    c->status = 0;
    rsp->kind = VM_SD_RSP_R1;
    rsp->resp[0] = (s & R1_REPORTED) | (uint32_t)at << VM_SD_R1_STATE_SHIFT |
                   VM_SD_R1_READY_FOR_DATA | (app ? VM_SD_R1_APP_CMD : 0);
    return ANSWER;
}

static bool addressed(const vm_sd_card *c, uint32_t arg)
{
    return (arg >> 16) == c->rca;
}

/* A state in which the card has an RCA and answers addressed commands. */
static bool has_rca(vm_sd_state s)
{
    return s >= VM_SD_STBY && s <= VM_SD_DIS;
}

static void open_data(vm_sd_card *c, vm_sd_direction dir, unsigned block_size, uint32_t blocks,
                      uint64_t first, bool reg)
{
    c->xfer.dir = dir;
    c->xfer.block_size = block_size;
    c->xfer.left = blocks;
    c->xfer.block = first;
    c->xfer.reg = reg;
    c->state = dir == VM_SD_READ ? VM_SD_DATA : VM_SD_RCV;
}

static void close_data(vm_sd_card *c)
{
    memset(&c->xfer, 0, sizeof c->xfer);
    c->state = VM_SD_TRAN; /* after a write through prg, which ends at once */
}

/* CMD17/18/24/25 in the transfer state. */
static cmd_result block_command(vm_sd_card *c, uint8_t index, uint32_t arg, uint32_t count,
                                vm_sd_response *rsp)
{
    bool write = index == VM_SD_CMD_WRITE_BLOCK || index == VM_SD_CMD_WRITE_MULTIPLE_BLOCK;
    bool multi = index == VM_SD_CMD_READ_MULTIPLE_BLOCK ||
                 index == VM_SD_CMD_WRITE_MULTIPLE_BLOCK;
    if (c->state != VM_SD_TRAN)
        return ILLEGAL;
    if (arg >= c->blocks)
        return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_OUT_OF_RANGE, false);
    if (write && c->write_protect)
        return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_WP_VIOLATION, false);
    uint32_t blocks = !multi ? 1 : count ? count : VM_SD_OPEN_ENDED;
    if (write)
        c->well_written = 0;
    open_data(c, write ? VM_SD_WRITE : VM_SD_READ, VM_SD_BLOCK, blocks, arg, false);
    return r1(c, rsp, VM_SD_TRAN, 0, false);
}

static cmd_result erase_command(vm_sd_card *c, uint8_t index, uint32_t arg, vm_sd_response *rsp)
{
    if (c->state != VM_SD_TRAN)
        return ILLEGAL;
    if (index == VM_SD_CMD_ERASE_WR_BLK_START || index == VM_SD_CMD_ERASE_WR_BLK_END) {
        if (arg >= c->blocks)
            return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_OUT_OF_RANGE, false);
        if (index == VM_SD_CMD_ERASE_WR_BLK_END && !c->erase_start_set)
            return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_ERASE_SEQ_ERROR, false);
        if (index == VM_SD_CMD_ERASE_WR_BLK_START) {
            c->erase_start = arg;
            c->erase_start_set = true;
            c->erase_end_set = false;
        } else {
            c->erase_end = arg;
            c->erase_end_set = true;
        }
        return r1(c, rsp, VM_SD_TRAN, 0, false);
    }
    /* CMD38: erase (arg 0) or discard (1) the range; both read back as 0 afterwards
     * (SCR DATA_STAT_AFTER_ERASE 0) */
    bool seq = c->erase_start_set && c->erase_end_set;
    uint32_t first = c->erase_start, last = c->erase_end;
    c->erase_start_set = c->erase_end_set = false;
    if (!seq)
        return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_ERASE_SEQ_ERROR, false);
    if (c->write_protect)
        return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_WP_VIOLATION, false);
    if (first > last)
        return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_ERASE_PARAM, false);
    uint64_t n = (uint64_t)last - first + 1;
    int rc = vm_store_fill(c->store, (uint64_t)first * VM_SD_BLOCK, 0, n * VM_SD_BLOCK);
    if (rc) {
        c->stats.host_errors++;
        snprintf(c->stats.last_error, sizeof c->stats.last_error,
                 "erasing %" PRIu64 " blocks at block %" PRIu32 " of %s: %s", n, first,
                 vm_store_path(c->store) ? vm_store_path(c->store) : "memory", strerror(-rc));
        return r1(c, rsp, VM_SD_TRAN, VM_SD_R1_ERROR, false);
    }
    c->stats.blocks_erased += n;
    return r1(c, rsp, VM_SD_TRAN, 0, false);
}

/* ACMD41: the voltage window 0 is an inquiry; a window the card cannot use sends it to the
 * inactive state; otherwise power-up runs, and ends only for a host that sent CMD8 and
 * set HCS (an SDHC/SDXC card stays busy for a 1.x host). */
static cmd_result op_cond(vm_sd_card *c, uint32_t arg, vm_sd_response *rsp)
{
    if (c->state != VM_SD_IDLE)
        return ILLEGAL;
    rsp->kind = VM_SD_RSP_R3;
    uint32_t window = arg & VM_SD_OCR_VOLTAGES;
    if ((arg & 0x00ffffffu) == 0) {
        rsp->resp[0] = VM_SD_OCR_VOLTAGES;
        return ANSWER;
    }
    if (!window) {
        c->state = VM_SD_INACTIVE;
        return SILENT;
    }
    bool ready = c->if_cond && (arg & VM_SD_OCR_CCS) && c->busy_polls >= POWER_UP_POLLS;
    if (!ready) {
        c->busy_polls++;
        rsp->resp[0] = VM_SD_OCR_VOLTAGES;
        return ANSWER;
    }
    c->state = VM_SD_READY;
    rsp->resp[0] = VM_SD_OCR_BUSY | VM_SD_OCR_CCS | VM_SD_OCR_VOLTAGES;
    return ANSWER;
}

static cmd_result app_command(vm_sd_card *c, uint8_t index, uint32_t arg, vm_sd_response *rsp)
{
    switch (index) {
    case VM_SD_ACMD_SD_SEND_OP_COND:
        return op_cond(c, arg, rsp);
    case VM_SD_ACMD_SET_BUS_WIDTH:
        if (c->state != VM_SD_TRAN || ((arg & 3) != 0 && (arg & 3) != 2))
            return ILLEGAL;
        c->wide_bus = (arg & 3) == 2;
        return r1(c, rsp, VM_SD_TRAN, 0, true);
    case VM_SD_ACMD_SD_STATUS:
    case VM_SD_ACMD_SEND_NUM_WR_BLOCKS:
    case VM_SD_ACMD_SEND_SCR: {
        if (c->state != VM_SD_TRAN)
            return ILLEGAL;
        unsigned len;
        if (index == VM_SD_ACMD_SD_STATUS) {
            sd_status_data(c, c->reg);
            len = 64;
        } else if (index == VM_SD_ACMD_SEND_SCR) {
            scr_data(c, c->reg);
            len = 8;
        } else {
            put_bits(c->reg, 4, 0, 32, c->well_written);
            len = 4;
        }
        open_data(c, VM_SD_READ, len, 1, 0, true);
        return r1(c, rsp, VM_SD_TRAN, 0, true);
    }
    case VM_SD_ACMD_SET_WR_BLK_ERASE_COUNT: /* a pre-erase hint: writes are instant here */
    case VM_SD_ACMD_SET_CLR_CARD_DETECT:    /* the DAT3 pull-up: nothing to model */
        if (c->state != VM_SD_TRAN)
            return ILLEGAL;
        return r1(c, rsp, VM_SD_TRAN, 0, true);
    }
    return UNDEFINED;
}

static cmd_result command(vm_sd_card *c, uint8_t index, uint32_t arg, uint32_t count,
                          vm_sd_response *rsp)
{
    vm_sd_state at = c->state;
    switch (index) {
    case VM_SD_CMD_GO_IDLE:
        to_idle(c);
        return SILENT;
    case VM_SD_CMD_SEND_IF_COND:
        if (at != VM_SD_IDLE)
            return ILLEGAL;
        if ((arg >> 8 & 0xf) != 0x1) /* not 2.7-3.6 V: the card stays silent */
            return SILENT;
        c->if_cond = true;
        rsp->kind = VM_SD_RSP_R7;
        rsp->resp[0] = arg & 0xfffu;
        return ANSWER;
    case VM_SD_CMD_ALL_SEND_CID:
        if (at != VM_SD_READY)
            return ILLEGAL;
        c->state = VM_SD_IDENT;
        rsp->kind = VM_SD_RSP_R2;
        vm_sd_card_cid(c, rsp->resp);
        return ANSWER;
    case VM_SD_CMD_SEND_RELATIVE_ADDR: {
        if (at != VM_SD_IDENT && at != VM_SD_STBY)
            return ILLEGAL;
        /* a new address each time it is asked for; never 0 */
        c->rca = (uint16_t)(0xb368u + 0x1f35u * c->rca_published++);
        if (c->rca == 0)
            c->rca = 1;
        c->state = VM_SD_STBY;
        vm_sd_response s;
        r1(c, &s, at, 0, false);
        uint32_t st = s.resp[0];
        rsp->kind = VM_SD_RSP_R6;
        rsp->resp[0] = (uint32_t)c->rca << 16 | (st >> 8 & 0x8000u) | (st >> 8 & 0x4000u) |
                       (st >> 6 & 0x2000u) | (st & 0x1fffu);
        return ANSWER;
    }
    case VM_SD_CMD_SEND_CSD:
    case VM_SD_CMD_SEND_CID:
        if (!has_rca(at))
            return ILLEGAL;
        if (!addressed(c, arg))
            return SILENT;
        if (at != VM_SD_STBY)
            return ILLEGAL;
        rsp->kind = VM_SD_RSP_R2;
        if (index == VM_SD_CMD_SEND_CSD)
            vm_sd_card_csd(c, rsp->resp);
        else
            vm_sd_card_cid(c, rsp->resp);
        return ANSWER;
    case VM_SD_CMD_SELECT_CARD:
        if (!has_rca(at))
            return ILLEGAL;
        if (!addressed(c, arg)) { /* another card, or RCA 0: deselect all */
            if (at == VM_SD_TRAN || at == VM_SD_DATA || at == VM_SD_RCV) {
                memset(&c->xfer, 0, sizeof c->xfer);
                c->state = VM_SD_STBY;
            } else if (at == VM_SD_PRG) {
                c->state = VM_SD_DIS;
            }
            return SILENT;
        }
        if (at != VM_SD_STBY && at != VM_SD_DIS)
            return ILLEGAL;
        c->state = at == VM_SD_STBY ? VM_SD_TRAN : VM_SD_PRG;
        return r1(c, rsp, at, 0, false);
    case VM_SD_CMD_SWITCH:
        if (at != VM_SD_TRAN)
            return ILLEGAL;
        switch_status(c, arg, arg >> 31, c->reg);
        open_data(c, VM_SD_READ, 64, 1, 0, true);
        return r1(c, rsp, at, 0, false);
    case VM_SD_CMD_STOP_TRANSMISSION:
        if (at != VM_SD_DATA && at != VM_SD_RCV)
            return ILLEGAL;
        close_data(c);
        return r1(c, rsp, at, 0, false);
    case VM_SD_CMD_SEND_STATUS:
    case VM_SD_CMD_GO_INACTIVE:
        if (!has_rca(at))
            return ILLEGAL;
        if (!addressed(c, arg))
            return SILENT;
        if (index == VM_SD_CMD_GO_INACTIVE) {
            c->state = VM_SD_INACTIVE;
            return SILENT;
        }
        return r1(c, rsp, at, 0, false);
    case VM_SD_CMD_SET_BLOCKLEN: /* SDHC/SDXC reads and writes stay 512 bytes a block */
        if (at != VM_SD_TRAN)
            return ILLEGAL;
        return r1(c, rsp, at, arg == 0 || arg > VM_SD_BLOCK ? VM_SD_R1_BLOCK_LEN_ERROR : 0,
                  false);
    case VM_SD_CMD_SET_BLOCK_COUNT:
        if (at != VM_SD_TRAN)
            return ILLEGAL;
        c->block_count = arg;
        return r1(c, rsp, at, 0, false);
    case VM_SD_CMD_READ_SINGLE_BLOCK:
    case VM_SD_CMD_READ_MULTIPLE_BLOCK:
    case VM_SD_CMD_WRITE_BLOCK:
    case VM_SD_CMD_WRITE_MULTIPLE_BLOCK:
        return block_command(c, index, arg, count, rsp);
    case VM_SD_CMD_ERASE_WR_BLK_START:
    case VM_SD_CMD_ERASE_WR_BLK_END:
    case VM_SD_CMD_ERASE:
        return erase_command(c, index, arg, rsp);
    case VM_SD_CMD_APP_CMD:
        if (at == VM_SD_READY || at == VM_SD_IDENT)
            return ILLEGAL;
        if (!addressed(c, arg))
            return SILENT;
        c->app_cmd = true;
        return r1(c, rsp, at, 0, true);
    }
    return ILLEGAL;
}

bool vm_sd_card_command(vm_sd_card *c, uint8_t index, uint32_t arg, vm_sd_response *rsp)
{
    memset(rsp, 0, sizeof *rsp);
    if (!c->powered || c->state == VM_SD_INACTIVE)
        return false;
    c->stats.commands++;
    bool app = c->app_cmd;
    c->app_cmd = false;
    uint32_t count = c->block_count; /* CMD23 counts for the next command only */
    c->block_count = 0;
    /* an erase sequence ends with anything but its own commands or a status query */
    if ((c->erase_start_set || c->erase_end_set) && index != VM_SD_CMD_ERASE_WR_BLK_START &&
        index != VM_SD_CMD_ERASE_WR_BLK_END && index != VM_SD_CMD_ERASE &&
        index != VM_SD_CMD_SEND_STATUS) {
        c->erase_start_set = c->erase_end_set = false;
        c->status |= VM_SD_R1_ERASE_RESET;
    }
    cmd_result r = app ? app_command(c, index, arg, rsp) : UNDEFINED;
    if (r == UNDEFINED)
        r = command(c, index, arg, count, rsp);
    if (r == ILLEGAL) {
        c->stats.illegal++;
        c->status |= VM_SD_R1_ILLEGAL_COMMAND;
        memset(rsp, 0, sizeof *rsp);
        return false;
    }
    return r == ANSWER;
}

/* ---- data ---- */

void vm_sd_card_data_phase(const vm_sd_card *c, vm_sd_data_phase *out)
{
    out->dir = c->powered ? c->xfer.dir : VM_SD_NO_DATA;
    out->block_size = out->dir ? c->xfer.block_size : 0;
    out->blocks_left = out->dir ? c->xfer.left : 0;
}

static int fits_phase(const vm_sd_card *c, vm_sd_direction dir, unsigned block_size,
                      unsigned blocks)
{
    vm_sd_state want = dir == VM_SD_READ ? VM_SD_DATA : VM_SD_RCV;
    if (!c->powered || c->state != want || c->xfer.dir != dir ||
        block_size != c->xfer.block_size || blocks == 0)
        return -EPROTO;
    if (c->xfer.left != VM_SD_OPEN_ENDED && blocks > c->xfer.left)
        return -EPROTO;
    return 0;
}

static void host_error(vm_sd_card *c, const char *what, unsigned blocks, int rc)
{
    c->status |= VM_SD_R1_ERROR;
    c->stats.host_errors++;
    const char *path = vm_store_path(c->store);
    snprintf(c->stats.last_error, sizeof c->stats.last_error,
             "%s %u blocks at block %" PRIu64 " of %s: %s", what, blocks, c->xfer.block,
             path ? path : "memory", strerror(rc == -ERANGE ? EIO : -rc));
}

static void advance(vm_sd_card *c, unsigned blocks)
{
    c->xfer.block += blocks;
    if (c->xfer.left == VM_SD_OPEN_ENDED)
        return;
    c->xfer.left -= blocks;
    if (c->xfer.left == 0)
        close_data(c);
}

int vm_sd_card_read(vm_sd_card *c, uint8_t *buf, unsigned block_size, unsigned blocks)
{
    int rc = fits_phase(c, VM_SD_READ, block_size, blocks);
    if (rc)
        return rc;
    if (c->xfer.reg) {
        memcpy(buf, c->reg, block_size);
        close_data(c);
        return 0;
    }
    if (c->xfer.block + blocks > c->blocks) {
        c->status |= VM_SD_R1_OUT_OF_RANGE;
        return -ERANGE;
    }
    rc = vm_store_read(c->store, c->xfer.block * VM_SD_BLOCK, buf, (size_t)blocks * VM_SD_BLOCK);
    if (rc) {
        host_error(c, "reading", blocks, rc);
        return -EIO;
    }
    c->stats.blocks_read += blocks;
    advance(c, blocks);
    return 0;
}

int vm_sd_card_write(vm_sd_card *c, const uint8_t *buf, unsigned block_size, unsigned blocks)
{
    int rc = fits_phase(c, VM_SD_WRITE, block_size, blocks);
    if (rc)
        return rc;
    if (c->xfer.block + blocks > c->blocks) {
        c->status |= VM_SD_R1_OUT_OF_RANGE;
        return -ERANGE;
    }
    rc = vm_store_write(c->store, c->xfer.block * VM_SD_BLOCK, buf, (size_t)blocks * VM_SD_BLOCK);
    if (rc) {
        host_error(c, "writing", blocks, rc);
        return -EIO;
    }
    c->stats.blocks_written += blocks;
    c->well_written += blocks;
    advance(c, blocks);
    return 0;
}

/* ---- inspection ---- */

uint64_t vm_sd_card_size(const vm_sd_card *c)
{
    return c->blocks * VM_SD_BLOCK;
}

const char *vm_sd_card_path(const vm_sd_card *c)
{
    return vm_store_path(c->store);
}

vm_sd_state vm_sd_card_state(const vm_sd_card *c)
{
    return c->powered ? c->state : VM_SD_INACTIVE;
}

const char *vm_sd_card_state_name(const vm_sd_card *c)
{
    return c->powered ? vm_sd_state_name(c->state) : "off";
}

uint16_t vm_sd_card_rca(const vm_sd_card *c)
{
    return c->rca;
}

unsigned vm_sd_card_bus_width(const vm_sd_card *c)
{
    return c->wide_bus ? 4 : 1;
}

void vm_sd_card_get_stats(const vm_sd_card *c, vm_sd_card_stats *out)
{
    *out = c->stats;
}
