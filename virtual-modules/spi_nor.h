// SPDX-License-Identifier: MIT
// A serial NOR flash (JEDEC SPI, 3-byte addresses, 256-byte pages, 4 KiB sectors) as the
// 6.1 spi-nor core drives it, sans-IO: the SPI handler (spi.c) feeds it one chip-select
// assertion at a time, begin, any number of exchanges streaming bytes, end. Commands that
// change the array (page program, erases, write status) take effect when the chip select
// is deasserted, as on the parts; reads stream out while the clock runs. The bytes live in
// a vm_store (memory or a host file).
//
// Parts: JEDEC ids 6.1's drivers/mtd/spi-nor/{winbond,macronix}.c know (and no earlier
// manufacturer's table), chosen among entries with only SECT_4K in their flags: the core
// reads the id (0x9f) at probe and nothing else (no SFDP, no status register write, no
// 4-byte mode), uses Fast Read (0x0b, one dummy byte), Page Program (0x02), Sector Erase
// (0x20, with the guest's MTD_SPI_NOR_USE_4K_SECTORS) and Chip Erase (0xc7), and polls the
// status register (0x05) after each write.
//
// Modelled opcodes: 0x9f READ ID (the 3 id bytes, repeating); 0x03 READ, 0x0b FAST READ (one
// dummy byte), addresses wrap at the end of the array; 0x05 RDSR, 0x35 RDSR2 (parts with a
// second status register), repeating while clocked; 0x06 WREN, 0x04 WRDI; 0x01 WRSR (1 byte,
// or 2 with a second status register; the protection bits are stored, not enforced); 0x02 PP
// (wraps within its 256-byte page, the last 256 bytes sent win; programming only clears
// bits); 0x20 4 KiB sector, 0x52 32 KiB block (W25Q), 0xd8 64 KiB block and 0xc7 / 0x60
// chip erase (to 0xff); 0x5a READ SFDP (3 address bytes, one dummy, then 0xff: no SFDP
// table, which 6.1 tolerates); 0x66 + 0x99 software reset. A program, erase or WRSR needs
// WREN first (else it is ignored and counted) and the exact byte count the datasheets ask
// for (opcode, address, data); it clears WEL when it runs. Any other opcode is unknown: the
// rest of that assertion is ignored (MISO 0xff) and it is counted.
//
// Operations complete at once: WIP (status bit 0) never reads 1.
//
// A host I/O error is not silent: the flash fails (vm_spi_nor_failed, the stats' message),
// from then on reads return 0xff and programs and erases are dropped, until the store is
// reopened (the module removed and inserted).
#ifndef GBVP_VIRTUAL_MODULES_SPI_NOR_H
#define GBVP_VIRTUAL_MODULES_SPI_NOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_store.h"

#define VM_SPI_NOR_PAGE 256u
#define VM_SPI_NOR_SR_WIP 0x01u
#define VM_SPI_NOR_SR_WEL 0x02u

typedef struct vm_spi_nor_part {
    const char *name; /* as 6.1's flash_info names it */
    uint8_t id[3];    /* JEDEC manufacturer, memory type, capacity */
    uint32_t size;    /* bytes, a power of two */
    bool has_sr2;     /* RDSR2 0x35 and a 2-byte WRSR (W25Q) */
    bool has_be32k;   /* 0x52 32 KiB block erase (W25Q) */
} vm_spi_nor_part;

/* The parts, by name; NULL when unknown. */
const vm_spi_nor_part *vm_spi_nor_part_find(const char *name);
/* The i-th part (0..), NULL past the last; the first is the default. */
const vm_spi_nor_part *vm_spi_nor_part_at(size_t i);

typedef struct vm_spi_nor vm_spi_nor;

/* A flash of `part` over `store` (whose size must be the part's). Takes the store: it is
 * freed with the flash, or at once when this returns NULL (out of memory, wrong size). */
vm_spi_nor *vm_spi_nor_new(const vm_spi_nor_part *part, vm_store *store);
void vm_spi_nor_free(vm_spi_nor *f);

/* Chip select asserted: the next byte is an opcode. */
void vm_spi_nor_begin(vm_spi_nor *f);
/* n bytes clocked: mosi (NULL: the controller drives 0xff) in, miso (NULL: not sampled)
 * out. Outside an assertion the flash does not drive MISO (0xff). */
void vm_spi_nor_exchange(vm_spi_nor *f, const uint8_t *mosi, uint8_t *miso, size_t n);
/* Chip select deasserted: a complete program, erase or status write takes effect. */
void vm_spi_nor_end(vm_spi_nor *f);
bool vm_spi_nor_selected(const vm_spi_nor *f);
/* Power-on reset: deselected, WEL clear, the command under way dropped (nothing commits);
 * the array and the status register's protection bits stay. */
void vm_spi_nor_power_on(vm_spi_nor *f);

const vm_spi_nor_part *vm_spi_nor_part_of(const vm_spi_nor *f);
/* The host file behind the flash, NULL in memory. */
const char *vm_spi_nor_path(const vm_spi_nor *f);
uint8_t vm_spi_nor_status(const vm_spi_nor *f);  /* status register 1 */
uint8_t vm_spi_nor_status2(const vm_spi_nor *f); /* status register 2 (0 without one) */
bool vm_spi_nor_failed(const vm_spi_nor *f);
/* Reads the array as a debugger would (no command, no statistics). 0, -ERANGE outside the
 * array, -EIO once the flash has failed, or -errno from the host. */
int vm_spi_nor_peek(vm_spi_nor *f, uint32_t off, uint8_t *buf, size_t len);

typedef struct vm_spi_nor_stats {
    uint64_t commands;          /* assertions that carried an opcode */
    uint64_t reads;             /* READ and FAST READ commands */
    uint64_t programs, erases;  /* page programs and erases (any size) that ran */
    uint64_t bytes_read, bytes_programmed, bytes_erased;
    uint64_t ignored;           /* writes without WREN, or of the wrong length */
    uint64_t unknown;           /* unknown opcodes */
    uint8_t last_unknown;       /* the last of them */
    uint64_t io_errors;         /* host read or write failures */
    char last_error[192];       /* what the last one was ("" when none) */
} vm_spi_nor_stats;
void vm_spi_nor_get_stats(const vm_spi_nor *f, vm_spi_nor_stats *out);

#endif
