// SPDX-License-Identifier: MIT
// SPI NOR flash model (see spi_nor.h). Opcodes and status bits are the JEDEC serial flash
// ones (Winbond W25Q and Macronix MX25L datasheets; 6.1 include/linux/mtd/spi-nor.h).
#include "virtual-modules/spi_nor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP_WRSR 0x01
#define OP_PP 0x02
#define OP_READ 0x03
#define OP_WRDI 0x04
#define OP_RDSR 0x05
#define OP_WREN 0x06
#define OP_FAST_READ 0x0b
#define OP_SE_4K 0x20
#define OP_RDSR2 0x35
#define OP_BE_32K 0x52
#define OP_RDSFDP 0x5a
#define OP_CE_60 0x60
#define OP_RSTEN 0x66
#define OP_RST 0x99
#define OP_RDID 0x9f
#define OP_CE_C7 0xc7
#define OP_BE_64K 0xd8

#define ADDR_BYTES 3u
#define SR1_WRITABLE 0xfcu /* block protect, TB/SEC, SRP: everything but WEL and WIP */
#define SR2_WRITABLE 0x43u /* W25Q SRP1, QE, CMP (the LB bits are one-time, not kept) */

/* 6.1 flash_info entries (drivers/mtd/spi-nor/winbond.c, macronix.c) with no other entry on
 * the same id earlier in core.c's manufacturers[] (spi_nor_match_id takes the first match:
 * the W25Q80BL's ef4014 would probe as Spansion's s25fl008k, with SFDP). */
static const vm_spi_nor_part parts[] = {
    {"w25q32", {0xef, 0x40, 0x16}, 4u << 20, true, true},
    {"w25x80", {0xef, 0x30, 0x14}, 1u << 20, false, false},
    {"mx25l6405d", {0xc2, 0x20, 0x17}, 8u << 20, false, false},
};

typedef enum cmd_kind {
    CMD_NONE,    /* no opcode yet */
    CMD_IGNORE,  /* unknown: the rest of the assertion is ignored */
    CMD_SIMPLE,  /* opcode only: WREN, WRDI, chip erase, reset enable, reset */
    CMD_REG_OUT, /* RDID, RDSR, RDSR2: a register repeats while clocked */
    CMD_READ,    /* READ, FAST READ, READ SFDP: address (+ dummy), then data out */
    CMD_PP,      /* address, then data in */
    CMD_ERASE,   /* address */
    CMD_WRSR,    /* 1 or 2 status bytes in */
} cmd_kind;

struct vm_spi_nor {
    const vm_spi_nor_part *part;
    vm_store *store;
    bool selected;
    bool failed;
    uint8_t sr1, sr2;
    bool reset_enabled; /* the previous command was RSTEN */
    /* the command of this assertion */
    uint8_t op;
    cmd_kind kind;
    size_t count;     /* bytes received in this assertion, opcode included */
    uint32_t addr;    /* address bytes, then the running address */
    uint8_t wrsr[2];
    uint8_t page[VM_SPI_NOR_PAGE]; /* PP data, 0xff where nothing was loaded */
    size_t loaded;                 /* PP data bytes received */
    vm_spi_nor_stats st;
};

const vm_spi_nor_part *vm_spi_nor_part_find(const char *name)
{
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!strcmp(parts[i].name, name))
            return &parts[i];
    return NULL;
}

const vm_spi_nor_part *vm_spi_nor_part_at(size_t i)
{
    return i < sizeof parts / sizeof parts[0] ? &parts[i] : NULL;
}

vm_spi_nor *vm_spi_nor_new(const vm_spi_nor_part *part, vm_store *store)
{
    vm_spi_nor *f = NULL;
    if (store && vm_store_size(store) == part->size)
        f = calloc(1, sizeof *f);
    if (!f) {
        vm_store_free(store);
        return NULL;
    }
    f->part = part;
    f->store = store;
    return f;
}

void vm_spi_nor_free(vm_spi_nor *f)
{
    if (!f)
        return;
    vm_store_free(f->store);
    free(f);
}

/* ---- the store: a host failure is recorded and fails the flash ---- */

static void store_failed(vm_spi_nor *f, const char *what, uint32_t off, uint64_t len, int rc)
{
    const char *path = vm_store_path(f->store);
    f->failed = true;
    f->st.io_errors++;
    snprintf(f->st.last_error, sizeof f->st.last_error,
             "%s: %s of %llu bytes at 0x%06x failed: %s; the flash reads 0xff and ignores "
             "writes until the module is reinserted",
             path ? path : "flash memory", what, (unsigned long long)len, (unsigned)off,
             strerror(-rc));
}

/* Array bytes from off on, wrapping at the end as the address counter does. */
static void array_read(vm_spi_nor *f, uint32_t off, uint8_t *buf, size_t n)
{
    uint32_t size = f->part->size;
    while (n) {
        off &= size - 1;
        size_t k = n < size - off ? n : size - off;
        int rc = f->failed ? -EIO : vm_store_read(f->store, off, buf, k);
        if (rc) {
            if (!f->failed)
                store_failed(f, "read", off, k, rc);
            memset(buf, 0xff, n);
            return;
        }
        buf += k;
        off += (uint32_t)k;
        n -= k;
    }
}

/* ---- commands taking effect at deassertion ---- */

/* A write command may run: WREN came first and the flash works. Counts the refusals. */
static bool may_write(vm_spi_nor *f)
{
    if ((f->sr1 & VM_SPI_NOR_SR_WEL) && !f->failed)
        return true;
    f->st.ignored++;
    return false;
}

static void erase(vm_spi_nor *f, uint32_t size)
{
    if (!may_write(f))
        return;
    uint32_t base = f->addr & (f->part->size - 1) & ~(size - 1);
    int rc = vm_store_fill(f->store, base, 0xff, size);
    if (rc)
        store_failed(f, "erase", base, size, rc);
    f->st.erases++;
    f->st.bytes_erased += size;
    f->sr1 &= (uint8_t)~VM_SPI_NOR_SR_WEL;
}

static void page_program(vm_spi_nor *f)
{
    if (!may_write(f))
        return;
    uint32_t base = f->addr & (f->part->size - 1) & ~(VM_SPI_NOR_PAGE - 1);
    uint8_t cur[VM_SPI_NOR_PAGE];
    int rc = vm_store_read(f->store, base, cur, sizeof cur);
    if (rc) {
        store_failed(f, "read", base, sizeof cur, rc);
    } else {
        for (size_t i = 0; i < sizeof cur; i++)
            cur[i] &= f->page[i]; /* NOR: programming only clears bits */
        rc = vm_store_write(f->store, base, cur, sizeof cur);
        if (rc)
            store_failed(f, "write", base, sizeof cur, rc);
    }
    f->st.programs++;
    f->st.bytes_programmed += f->loaded < VM_SPI_NOR_PAGE ? f->loaded : VM_SPI_NOR_PAGE;
    f->sr1 &= (uint8_t)~VM_SPI_NOR_SR_WEL;
}

static void write_status(vm_spi_nor *f, size_t nbytes)
{
    if (!may_write(f))
        return;
    f->sr1 = (uint8_t)((f->sr1 & ~SR1_WRITABLE) | (f->wrsr[0] & SR1_WRITABLE));
    if (nbytes == 2)
        f->sr2 = (uint8_t)((f->sr2 & ~SR2_WRITABLE) | (f->wrsr[1] & SR2_WRITABLE));
    f->sr1 &= (uint8_t)~VM_SPI_NOR_SR_WEL;
}

static void simple(vm_spi_nor *f, bool reset_enabled)
{
    switch (f->op) {
    case OP_WREN:
        f->sr1 |= VM_SPI_NOR_SR_WEL;
        break;
    case OP_WRDI:
        f->sr1 &= (uint8_t)~VM_SPI_NOR_SR_WEL;
        break;
    case OP_CE_C7:
    case OP_CE_60:
        f->addr = 0;
        erase(f, f->part->size);
        break;
    case OP_RSTEN:
        f->reset_enabled = true; /* for the next command only */
        break;
    case OP_RST:
        if (reset_enabled)
            f->sr1 &= (uint8_t)~VM_SPI_NOR_SR_WEL;
        break;
    }
}

void vm_spi_nor_end(vm_spi_nor *f)
{
    if (!f->selected)
        return;
    f->selected = false;
    if (!f->count)
        return; /* nothing clocked: no command */
    size_t args = f->count - 1; /* bytes after the opcode */
    bool reset_enabled = f->reset_enabled;
    f->reset_enabled = false;
    switch (f->kind) {
    case CMD_SIMPLE:
        /* the parts act only when the chip select rises right after the opcode */
        if (!args)
            simple(f, reset_enabled);
        else if (f->op == OP_CE_C7 || f->op == OP_CE_60)
            f->st.ignored++;
        break;
    case CMD_PP:
        if (args > ADDR_BYTES)
            page_program(f);
        else
            f->st.ignored++;
        break;
    case CMD_ERASE:
        if (args == ADDR_BYTES)
            erase(f, f->op == OP_SE_4K ? 4096u : f->op == OP_BE_32K ? 32768u : 65536u);
        else
            f->st.ignored++;
        break;
    case CMD_WRSR:
        if (args >= 1 && args <= (f->part->has_sr2 ? 2u : 1u))
            write_status(f, args);
        else
            f->st.ignored++;
        break;
    default:
        break;
    }
}

void vm_spi_nor_begin(vm_spi_nor *f)
{
    if (f->selected)
        vm_spi_nor_end(f);
    f->selected = true;
    f->kind = CMD_NONE;
    f->count = 0;
    f->addr = 0;
    f->loaded = 0;
}

/* ---- the bytes of an assertion ---- */

static cmd_kind decode(const vm_spi_nor_part *p, uint8_t op)
{
    switch (op) {
    case OP_WREN:
    case OP_WRDI:
    case OP_CE_C7:
    case OP_CE_60:
    case OP_RSTEN:
    case OP_RST:
        return CMD_SIMPLE;
    case OP_RDID:
    case OP_RDSR:
        return CMD_REG_OUT;
    case OP_RDSR2:
        return p->has_sr2 ? CMD_REG_OUT : CMD_IGNORE;
    case OP_READ:
    case OP_FAST_READ:
    case OP_RDSFDP:
        return CMD_READ;
    case OP_PP:
        return CMD_PP;
    case OP_SE_4K:
    case OP_BE_64K:
        return CMD_ERASE;
    case OP_BE_32K:
        return p->has_be32k ? CMD_ERASE : CMD_IGNORE;
    case OP_WRSR:
        return CMD_WRSR;
    default:
        return CMD_IGNORE;
    }
}

static void opcode(vm_spi_nor *f, uint8_t op)
{
    f->op = op;
    f->kind = decode(f->part, op);
    f->st.commands++;
    if (f->kind == CMD_IGNORE) {
        f->st.unknown++;
        f->st.last_unknown = op;
    }
    if (op == OP_READ || op == OP_FAST_READ)
        f->st.reads++;
    if (f->kind == CMD_PP)
        memset(f->page, 0xff, sizeof f->page);
}

/* Where the data of the command starts: opcode, address, dummy bytes. */
static size_t data_start(const vm_spi_nor *f)
{
    switch (f->kind) {
    case CMD_READ:
        return 1 + ADDR_BYTES + (f->op == OP_READ ? 0 : 1);
    case CMD_PP:
        return 1 + ADDR_BYTES;
    case CMD_IGNORE:
        return 1;
    default:
        return SIZE_MAX; /* byte by byte */
    }
}

/* The data phase of reads and programs, n bytes at once; 0 when not in one. */
static size_t stream(vm_spi_nor *f, const uint8_t *mosi, uint8_t *miso, size_t n)
{
    if (!f->count || f->count < data_start(f))
        return 0;
    if (f->kind == CMD_READ && f->op != OP_RDSFDP) {
        if (miso)
            array_read(f, f->addr, miso, n);
        f->addr = (uint32_t)((f->addr + n) & (f->part->size - 1));
        f->st.bytes_read += n;
    } else {
        if (f->kind == CMD_PP) {
            for (size_t i = 0; i < n; i++) /* the column wraps within the page */
                f->page[(f->addr + f->loaded++) % VM_SPI_NOR_PAGE] = mosi ? mosi[i] : 0xff;
        }
        if (miso) /* no SFDP table; nothing driven while data comes in or when ignoring */
            memset(miso, 0xff, n);
    }
    f->count += n;
    return n;
}

/* One byte of the opcode, address, dummy or register phases. */
static uint8_t step(vm_spi_nor *f, uint8_t in)
{
    size_t pos = f->count++;
    if (pos == 0) {
        opcode(f, in);
        return 0xff;
    }
    switch (f->kind) {
    case CMD_REG_OUT:
        if (f->op == OP_RDID)
            return f->part->id[(pos - 1) % 3];
        return f->op == OP_RDSR ? f->sr1 : f->sr2;
    case CMD_READ:
    case CMD_PP:
    case CMD_ERASE:
        if (pos <= ADDR_BYTES)
            f->addr = (f->addr << 8 | in) & 0xffffffu;
        return 0xff;
    case CMD_WRSR:
        if (pos <= 2)
            f->wrsr[pos - 1] = in;
        return 0xff;
    default:
        return 0xff;
    }
}

void vm_spi_nor_exchange(vm_spi_nor *f, const uint8_t *mosi, uint8_t *miso, size_t n)
{
    if (!f->selected) {
        if (miso)
            memset(miso, 0xff, n);
        return;
    }
    for (size_t i = 0; i < n;) {
        size_t k = stream(f, mosi ? mosi + i : NULL, miso ? miso + i : NULL, n - i);
        if (k) {
            i += k;
            continue;
        }
        uint8_t out = step(f, mosi ? mosi[i] : 0xff);
        if (miso)
            miso[i] = out;
        i++;
    }
}

bool vm_spi_nor_selected(const vm_spi_nor *f)
{
    return f->selected;
}

void vm_spi_nor_power_on(vm_spi_nor *f)
{
    f->selected = false;
    f->kind = CMD_NONE;
    f->count = 0;
    f->reset_enabled = false;
    f->sr1 &= (uint8_t)~(VM_SPI_NOR_SR_WEL | VM_SPI_NOR_SR_WIP);
}

/* ---- for the backend commands ---- */

const vm_spi_nor_part *vm_spi_nor_part_of(const vm_spi_nor *f)
{
    return f->part;
}

const char *vm_spi_nor_path(const vm_spi_nor *f)
{
    return vm_store_path(f->store);
}

uint8_t vm_spi_nor_status(const vm_spi_nor *f)
{
    return f->sr1;
}

uint8_t vm_spi_nor_status2(const vm_spi_nor *f)
{
    return f->part->has_sr2 ? f->sr2 : 0;
}

bool vm_spi_nor_failed(const vm_spi_nor *f)
{
    return f->failed;
}

int vm_spi_nor_peek(vm_spi_nor *f, uint32_t off, uint8_t *buf, size_t len)
{
    if (off > f->part->size || len > f->part->size - off)
        return -ERANGE;
    if (f->failed)
        return -EIO;
    return vm_store_read(f->store, off, buf, len);
}

void vm_spi_nor_get_stats(const vm_spi_nor *f, vm_spi_nor_stats *out)
{
    *out = f->st;
}
