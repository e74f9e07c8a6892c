// SPDX-License-Identifier: MIT
// The SPI NOR flash model, driven byte by byte as a controller does and through the
// Greybus SPI TRANSFER requests 6.1's spilib sends for the spi-nor core's spi-mem ops.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/spi.h"
#include "virtual-modules/spi_nor.h"
#include "virtual-modules/vm_module.h"

#define MIB (1u << 20)

/* ---- the model alone ---- */

static vm_spi_nor *flash_in_memory(const char *part)
{
    const vm_spi_nor_part *p = vm_spi_nor_part_find(part);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    vm_spi_nor *f = vm_spi_nor_new(p, vm_store_memory(p->size, 0xff));
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    return f;
}

/* One chip-select assertion: tx[0..n) in, the answer in rx (may be NULL). */
static void assertion(vm_spi_nor *f, const uint8_t *tx, uint8_t *rx, size_t n)
{
    vm_spi_nor_begin(f);
    vm_spi_nor_exchange(f, tx, rx, n);
    vm_spi_nor_end(f);
}

static void op(vm_spi_nor *f, uint8_t opcode)
{
    assertion(f, &opcode, NULL, 1);
}

static uint8_t rdsr(vm_spi_nor *f)
{
    const uint8_t tx[2] = {0x05, 0xff};
    uint8_t rx[2];
    assertion(f, tx, rx, 2);
    return rx[1];
}

/* opcode + 24-bit address, then `data` (n bytes, NULL: 0xff) in one assertion. */
static void addressed(vm_spi_nor *f, uint8_t opcode, uint32_t addr, const uint8_t *data,
                      size_t n)
{
    uint8_t tx[4 + 600];
    CU_ASSERT_FATAL(n <= 600);
    tx[0] = opcode;
    tx[1] = (uint8_t)(addr >> 16);
    tx[2] = (uint8_t)(addr >> 8);
    tx[3] = (uint8_t)addr;
    if (data)
        memcpy(tx + 4, data, n);
    else
        memset(tx + 4, 0xff, n);
    assertion(f, tx, NULL, 4 + n);
}

static void program(vm_spi_nor *f, uint32_t addr, const uint8_t *data, size_t n)
{
    op(f, 0x06);
    addressed(f, 0x02, addr, data, n);
}

static void erase(vm_spi_nor *f, uint8_t opcode, uint32_t addr)
{
    op(f, 0x06);
    addressed(f, opcode, addr, NULL, 0);
}

/* READ (0x03): opcode and address, then n bytes out, MOSI left to the controller (NULL). */
static void read_at(vm_spi_nor *f, uint32_t addr, uint8_t *out, size_t n)
{
    const uint8_t tx[4] = {0x03, (uint8_t)(addr >> 16), (uint8_t)(addr >> 8), (uint8_t)addr};
    vm_spi_nor_begin(f);
    vm_spi_nor_exchange(f, tx, NULL, 4);
    vm_spi_nor_exchange(f, NULL, out, n);
    vm_spi_nor_end(f);
}

static bool all(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

static void test_spi_nor_read_id_answers_the_jedec_id_6_1_knows(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    /* 6.1 spi_nor_read_id: opcode 0x9f, then SPI_NOR_MAX_ID_LEN (6) bytes in */
    const uint8_t tx[7] = {0x9f, 0, 0, 0, 0, 0, 0};
    uint8_t rx[7];
    assertion(f, tx, rx, 7);
    const uint8_t want[7] = {0xff, 0xef, 0x40, 0x16, 0xef, 0x40, 0x16};
    CU_ASSERT_EQUAL(memcmp(rx, want, 7), 0);
    vm_spi_nor_free(f);
    f = flash_in_memory("mx25l6405d");
    assertion(f, tx, rx, 4);
    CU_ASSERT_EQUAL(rx[1], 0xc2);
    CU_ASSERT_EQUAL(rx[2], 0x20);
    CU_ASSERT_EQUAL(rx[3], 0x17);
    CU_ASSERT_EQUAL(vm_spi_nor_part_of(f)->size, 8 * MIB);
    vm_spi_nor_free(f);
    CU_ASSERT_PTR_NULL(vm_spi_nor_part_find("w25q256"));
    CU_ASSERT_STRING_EQUAL(vm_spi_nor_part_at(0)->name, "w25q32");
}

static void test_spi_nor_read_streams_from_the_address_and_wraps_at_the_end(void)
{
    const vm_spi_nor_part *p = vm_spi_nor_part_find("w25x80");
    vm_store *st = vm_store_memory(p->size, 0xff);
    uint8_t pattern[300];
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (uint8_t)(i * 7 + 1);
    CU_ASSERT_EQUAL(vm_store_write(st, 0x12345, pattern, sizeof pattern), 0);
    CU_ASSERT_EQUAL(vm_store_write(st, 0, "\x11\x22", 2), 0);
    CU_ASSERT_EQUAL(vm_store_write(st, p->size - 2, "\x33\x44", 2), 0);
    vm_spi_nor *f = vm_spi_nor_new(p, st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    uint8_t out[300];
    read_at(f, 0x12345, out, sizeof out);
    CU_ASSERT_EQUAL(memcmp(out, pattern, sizeof out), 0);
    read_at(f, p->size - 2, out, 4);
    CU_ASSERT_EQUAL(memcmp(out, "\x33\x44\x11\x22", 4), 0);
    /* a 1 MiB part ignores the address bits above its size */
    read_at(f, 0xf00000, out, 2);
    CU_ASSERT_EQUAL(memcmp(out, "\x11\x22", 2), 0);
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.reads, 3);
    CU_ASSERT_EQUAL(s.bytes_read, 306);
    vm_spi_nor_free(f);
}

static void test_spi_nor_fast_read_skips_one_dummy_byte(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    program(f, 0x001000, (const uint8_t *)"\xa1\xb2\xc3", 3);
    /* 6.1 spi-mem: opcode, address, one dummy byte (0xff), then the data transfer */
    const uint8_t tx[5] = {0x0b, 0x00, 0x10, 0x00, 0xff};
    uint8_t rx[5], data[4];
    vm_spi_nor_begin(f);
    vm_spi_nor_exchange(f, tx, rx, 5);
    vm_spi_nor_exchange(f, NULL, data, 4);
    vm_spi_nor_end(f);
    CU_ASSERT_TRUE(all(rx, 5, 0xff));
    CU_ASSERT_EQUAL(memcmp(data, "\xa1\xb2\xc3\xff", 4), 0);
    vm_spi_nor_free(f);
}

static void test_spi_nor_page_program_needs_write_enable(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    const uint8_t data[4] = {1, 2, 3, 4};
    addressed(f, 0x02, 0x2000, data, 4); /* no WREN: ignored, as on the part */
    uint8_t out[4];
    read_at(f, 0x2000, out, 4);
    CU_ASSERT_TRUE(all(out, 4, 0xff));
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.ignored, 1);
    CU_ASSERT_EQUAL(s.programs, 0);
    program(f, 0x2000, data, 4);
    read_at(f, 0x2000, out, 4);
    CU_ASSERT_EQUAL(memcmp(out, data, 4), 0);
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.programs, 1);
    CU_ASSERT_EQUAL(s.bytes_programmed, 4);
    /* WEL went with the program: a second one without WREN does nothing */
    addressed(f, 0x02, 0x2004, data, 4);
    read_at(f, 0x2004, out, 4);
    CU_ASSERT_TRUE(all(out, 4, 0xff));
    /* WRDI takes WEL back */
    op(f, 0x06);
    op(f, 0x04);
    addressed(f, 0x02, 0x2004, data, 4);
    read_at(f, 0x2004, out, 4);
    CU_ASSERT_TRUE(all(out, 4, 0xff));
    vm_spi_nor_free(f);
}

static void test_spi_nor_page_program_wraps_within_its_page(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    uint8_t data[10];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0xa0 + i);
    program(f, 0x3000 + 250, data, 10); /* 6 bytes to the page's end, 4 from its start */
    uint8_t page[258];
    read_at(f, 0x3000, page, 258);
    CU_ASSERT_EQUAL(memcmp(page + 250, data, 6), 0);
    CU_ASSERT_EQUAL(memcmp(page, data + 6, 4), 0);
    CU_ASSERT_TRUE(all(page + 4, 246, 0xff));
    CU_ASSERT_TRUE(all(page + 256, 2, 0xff)); /* the next page is untouched */
    /* more than a page: the last 256 bytes sent are programmed */
    uint8_t big[300];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)i;
    program(f, 0x4000, big, sizeof big);
    read_at(f, 0x4000, page, 256);
    for (size_t i = 0; i < 256; i++) {
        uint8_t want = i < 44 ? (uint8_t)(256 + i) : (uint8_t)i; /* bytes 256..299 wrapped */
        CU_ASSERT_EQUAL(page[i], want);
    }
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.bytes_programmed, 10 + 256);
    vm_spi_nor_free(f);
}

static void test_spi_nor_program_only_clears_bits(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    program(f, 0x100, (const uint8_t *)"\xf0\x3c", 2);
    program(f, 0x100, (const uint8_t *)"\x0f\xff", 2);
    uint8_t out[2];
    read_at(f, 0x100, out, 2);
    CU_ASSERT_EQUAL(out[0], 0x00);
    CU_ASSERT_EQUAL(out[1], 0x3c);
    vm_spi_nor_free(f);
}

static void test_spi_nor_erases_sector_blocks_and_chip_to_ff(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    static uint8_t zeros[256], out[65536];
    /* zero a page at every 4 KiB from 0 to 128 KiB */
    for (uint32_t a = 0; a < 0x20000; a += 0x1000)
        program(f, a, zeros, sizeof zeros);
    erase(f, 0x20, 0x1234); /* the 4 KiB sector holding 0x1234 */
    read_at(f, 0x1000, out, 1);
    CU_ASSERT_EQUAL(out[0], 0xff);
    read_at(f, 0x0000, out, 1);
    CU_ASSERT_EQUAL(out[0], 0x00);
    read_at(f, 0x2000, out, 1);
    CU_ASSERT_EQUAL(out[0], 0x00);
    erase(f, 0x52, 0x8000); /* 32 KiB block 0x8000..0xffff */
    read_at(f, 0x7000, out, 1);
    CU_ASSERT_EQUAL(out[0], 0x00);
    read_at(f, 0x8000, out, 0x8000);
    CU_ASSERT_TRUE(all(out, 0x8000, 0xff));
    erase(f, 0xd8, 0x1ffff); /* 64 KiB block 0x10000..0x1ffff */
    read_at(f, 0x10000, out, 0x10000);
    CU_ASSERT_TRUE(all(out, 0x10000, 0xff));
    read_at(f, 0x0000, out, 1);
    CU_ASSERT_EQUAL(out[0], 0x00);
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.erases, 3);
    CU_ASSERT_EQUAL(s.bytes_erased, 4096 + 32768 + 65536);
    /* an erase whose chip select rises late (an extra byte) does not run */
    op(f, 0x06);
    addressed(f, 0x20, 0x0000, zeros, 1);
    read_at(f, 0x0000, out, 1);
    CU_ASSERT_EQUAL(out[0], 0x00);
    op(f, 0x04);
    /* chip erase, both opcodes */
    op(f, 0x06);
    op(f, 0xc7);
    read_at(f, 0x0000, out, 0x10000);
    CU_ASSERT_TRUE(all(out, 0x10000, 0xff));
    program(f, 0x3ff000, zeros, 16);
    op(f, 0x06);
    op(f, 0x60);
    read_at(f, 0x3ff000, out, 16);
    CU_ASSERT_TRUE(all(out, 16, 0xff));
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.erases, 5);
    CU_ASSERT_EQUAL(s.ignored, 1);
    /* without WREN nothing is erased */
    program(f, 0x5000, zeros, 1);
    addressed(f, 0x20, 0x5000, NULL, 0);
    read_at(f, 0x5000, out, 1);
    CU_ASSERT_EQUAL(out[0], 0x00);
    vm_spi_nor_free(f);
}

static void test_spi_nor_status_register_shows_wel_and_never_wip(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    CU_ASSERT_EQUAL(rdsr(f), 0x00);
    op(f, 0x06);
    CU_ASSERT_EQUAL(rdsr(f), VM_SPI_NOR_SR_WEL);
    CU_ASSERT_EQUAL(vm_spi_nor_status(f), VM_SPI_NOR_SR_WEL);
    /* RDSR repeats while clocked (6.1 polls it after every program and erase) */
    const uint8_t tx[4] = {0x05, 0, 0, 0};
    uint8_t rx[4];
    assertion(f, tx, rx, 4);
    CU_ASSERT_EQUAL(memcmp(rx, "\xff\x02\x02\x02", 4), 0);
    addressed(f, 0x02, 0x0, (const uint8_t *)"\x00", 1);
    CU_ASSERT_EQUAL(rdsr(f), 0x00); /* done at once: WIP 0, WEL cleared */
    /* WREN with the chip select kept low past the opcode does not run */
    const uint8_t late[2] = {0x06, 0x00};
    assertion(f, late, NULL, 2);
    CU_ASSERT_EQUAL(rdsr(f), 0x00);
    /* WRSR keeps the protection bits (not WEL/WIP), Winbond's second register too */
    op(f, 0x06);
    assertion(f, (const uint8_t *)"\x01\x1f\x02", NULL, 3);
    CU_ASSERT_EQUAL(rdsr(f), 0x1c);
    const uint8_t rd2[2] = {0x35, 0};
    assertion(f, rd2, rx, 2);
    CU_ASSERT_EQUAL(rx[1], 0x02);
    /* software reset: 0x66 then 0x99 clears WEL; 0x99 alone does not */
    op(f, 0x06);
    op(f, 0x99);
    CU_ASSERT_EQUAL(rdsr(f) & VM_SPI_NOR_SR_WEL, VM_SPI_NOR_SR_WEL);
    op(f, 0x66);
    op(f, 0x99);
    CU_ASSERT_EQUAL(rdsr(f), 0x1c);
    vm_spi_nor_free(f);
}

static void test_spi_nor_unknown_opcode_ignores_the_rest_of_the_assertion(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    const uint8_t tx[3] = {0xab, 0x06, 0x9f}; /* release power-down: not modelled */
    uint8_t rx[3];
    assertion(f, tx, rx, 3);
    CU_ASSERT_TRUE(all(rx, 3, 0xff));
    CU_ASSERT_EQUAL(rdsr(f), 0x00); /* the 0x06 inside was not a WREN */
    op(f, 0x52); /* a known opcode without its address erases nothing */
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.unknown, 1);
    CU_ASSERT_EQUAL(s.last_unknown, 0xab);
    CU_ASSERT_EQUAL(s.erases, 0);
    vm_spi_nor_free(f);
    /* Macronix has no 32 KiB erase nor second status register */
    f = flash_in_memory("mx25l6405d");
    op(f, 0x35);
    op(f, 0x52);
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.unknown, 2);
    CU_ASSERT_EQUAL(s.last_unknown, 0x52);
    vm_spi_nor_free(f);
}

static void test_spi_nor_read_sfdp_answers_no_table(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    const uint8_t tx[9] = {0x5a, 0, 0, 0, 0xff, 0, 0, 0, 0};
    uint8_t rx[9];
    assertion(f, tx, rx, 9);
    CU_ASSERT_TRUE(all(rx, 9, 0xff)); /* no "SFDP" signature: 6.1 keeps its flash_info */
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.unknown, 0);
    vm_spi_nor_free(f);
}

static void test_spi_nor_power_on_drops_the_command_under_way(void)
{
    vm_spi_nor *f = flash_in_memory("w25q32");
    op(f, 0x06);
    vm_spi_nor_begin(f);
    vm_spi_nor_exchange(f, (const uint8_t *)"\x02\x00\x00\x00\x00", NULL, 5);
    vm_spi_nor_power_on(f);
    CU_ASSERT_FALSE(vm_spi_nor_selected(f));
    vm_spi_nor_end(f);
    uint8_t out[1];
    read_at(f, 0, out, 1);
    CU_ASSERT_EQUAL(out[0], 0xff);
    CU_ASSERT_EQUAL(rdsr(f), 0x00);
    vm_spi_nor_free(f);
}

/* ---- a host file behind the flash ---- */

static int temp_file(char *path, size_t cap, uint64_t size)
{
    snprintf(path, cap, "/tmp/gbvp-spi-nor-XXXXXX");
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(ftruncate(fd, (off_t)size) == 0);
    return fd;
}

static void test_spi_nor_file_holds_what_the_flash_programs(void)
{
    char path[64], err[256];
    int fd = temp_file(path, sizeof path, MIB);
    vm_store *st = vm_store_file(path, MIB, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    vm_spi_nor *f = vm_spi_nor_new(vm_spi_nor_part_find("w25x80"), st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(vm_spi_nor_path(f), path);
    uint8_t out[4];
    read_at(f, 0x8000, out, 4);
    CU_ASSERT_TRUE(all(out, 4, 0x00)); /* the file's bytes, not an erased array */
    erase(f, 0x20, 0x8000);
    program(f, 0x8010, (const uint8_t *)"NOR!", 4);
    uint8_t file[32];
    CU_ASSERT_EQUAL(pread(fd, file, sizeof file, 0x8000), (ssize_t)sizeof file);
    CU_ASSERT_TRUE(all(file, 16, 0xff));
    CU_ASSERT_EQUAL(memcmp(file + 16, "NOR!", 4), 0);
    CU_ASSERT_EQUAL(pread(fd, file, 1, 0x9000), 1);
    CU_ASSERT_EQUAL(file[0], 0x00); /* past the sector: untouched */
    /* the file is locked while the flash holds it */
    CU_ASSERT_PTR_NULL(vm_store_file(path, MIB, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "in use"));
    vm_spi_nor_free(f);
    st = vm_store_file(path, MIB, err, sizeof err); /* released with the flash */
    CU_ASSERT_PTR_NOT_NULL(st);
    vm_store_free(st);
    close(fd);
    unlink(path);
}

static void test_spi_nor_host_write_failure_is_recorded_and_fails_the_flash(void)
{
    char path[64], err[256];
    int fd = temp_file(path, sizeof path, MIB);
    close(fd);
    vm_store *st = vm_store_file(path, MIB, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    vm_spi_nor *f = vm_spi_nor_new(vm_spi_nor_part_find("w25x80"), st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    program(f, 0x100, (const uint8_t *)"\x00", 1);
    /* a file size limit below the sector makes the host refuse the write (EFBIG) */
    struct rlimit old, lim;
    CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = 0x80000;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    erase(f, 0x20, 0x90000);
    CU_ASSERT_EQUAL(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    CU_ASSERT_TRUE(vm_spi_nor_failed(f));
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.io_errors, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(s.last_error, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(s.last_error, "erase of 4096 bytes at 0x090000"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s.last_error, strerror(EFBIG)));
    /* from now on: reads 0xff, writes dropped */
    uint8_t out[2];
    read_at(f, 0x100, out, 2);
    CU_ASSERT_TRUE(all(out, 2, 0xff));
    program(f, 0x200, (const uint8_t *)"\x00", 1);
    vm_spi_nor_get_stats(f, &s);
    CU_ASSERT_EQUAL(s.programs, 1);
    CU_ASSERT_EQUAL(s.ignored, 1);
    CU_ASSERT_EQUAL(vm_spi_nor_peek(f, 0, out, 1), -EIO);
    vm_spi_nor_free(f);
    unlink(path);
}

/* ---- behind the Greybus SPI module ---- */

static const uint16_t cport1[] = {1};

typedef vmt_spi_xfer xfer;

static size_t transfer_req(uint8_t *buf, uint8_t cs, const xfer *x, size_t n)
{
    return vmt_spi_transfer(buf, cs, 10000000, x, n);
}

/* Sends one message on chip select cs; the response's data into rx. Returns its length. */
static size_t message(vmt *t, uint8_t cs, const xfer *x, size_t n, uint8_t *rx)
{
    static uint8_t buf[GB_MSG_MAX_PAYLOAD];
    t->sink.n = 0;
    CU_ASSERT_EQUAL_FATAL(vmt_request(t, 1, 9, GB_SPI_TYPE_TRANSFER, buf,
                                      transfer_req(buf, cs, x, n)),
                          1);
    const uint8_t *m = t->sink.msg[0];
    CU_ASSERT_EQUAL(m[4], GB_SPI_TYPE_TRANSFER | 0x80);
    CU_ASSERT_EQUAL_FATAL(m[5], GB_OP_SUCCESS);
    size_t len = t->sink.len[0] - 8;
    if (rx)
        memcpy(rx, m + 8, len);
    return len;
}

#define W GB_SPI_XFER_WRITE
#define R GB_SPI_XFER_READ

/* spi-mem's shape: one transfer a phase (opcode, address, dummy, data). */
static void gb_simple(vmt *t, uint8_t cs, uint8_t opcode)
{
    xfer x = {1, W, &opcode, 0};
    message(t, cs, &x, 1, NULL);
}

static void test_spi_nor_answers_6_1_probe_and_io_over_greybus(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), "[cport 1]\ndevices = spi-nor\n",
                           cport1, 1));
    uint8_t rx[64];
    /* probe: READ ID, an opcode transfer then a 6-byte read transfer */
    const uint8_t rdid = 0x9f;
    xfer id[2] = {{1, W, &rdid, 0}, {6, R, NULL, 0}};
    CU_ASSERT_EQUAL(message(&t, 0, id, 2, rx), 6);
    CU_ASSERT_EQUAL(memcmp(rx, "\xef\x40\x16\xef\x40\x16", 6), 0);
    /* a write: WREN, PP (opcode, address, data), RDSR until ready */
    gb_simple(&t, 0, 0x06);
    const uint8_t pp = 0x02, addr[3] = {0x01, 0x23, 0x40}, data[16] = "greybus spi nor";
    xfer prog[3] = {{1, W, &pp, 0}, {3, W, addr, 0}, {16, W, data, 0}};
    CU_ASSERT_EQUAL(message(&t, 0, prog, 3, rx), 0);
    const uint8_t rdsr_op = 0x05;
    xfer sr[2] = {{1, W, &rdsr_op, 0}, {1, R, NULL, 0}};
    message(&t, 0, sr, 2, rx);
    CU_ASSERT_EQUAL(rx[0], 0x00);
    /* FAST READ with its dummy byte, the data read in several transfers of one message */
    const uint8_t fr = 0x0b, dummy = 0xff;
    xfer rd[5] = {{1, W, &fr, 0}, {3, W, addr, 0}, {1, W, &dummy, 0}, {5, R, NULL, 0},
                  {11, R, NULL, 0}};
    CU_ASSERT_EQUAL(message(&t, 0, rd, 5, rx), 16);
    CU_ASSERT_EQUAL(memcmp(rx, data, 16), 0);
    /* the flash's traffic is not the echo device's: nothing kept for `spi recv` */
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi recv", 0, &reply), 0);
    CU_ASSERT_STRING_EQUAL(reply.text, "");
    vm_spi_stats st;
    vm_spi_get_stats(vm_interface_spi(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.messages, 5);
    vmt_down(&t);
}

/* spilib splits a transfer too long for one operation and flags all but the last piece
 * in progress: the flash stays selected from one TRANSFER request to the next. */
static void test_spi_nor_read_continues_across_operations_in_progress(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), "[cport 1]\ndevices = spi-nor\n",
                           cport1, 1));
    uint8_t data[32];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0x40 + i);
    gb_simple(&t, 0, 0x06);
    const uint8_t pp = 0x02, addr[3] = {0x00, 0x00, 0x80};
    xfer prog[3] = {{1, W, &pp, 0}, {3, W, addr, 0}, {32, W, data, 0}};
    message(&t, 0, prog, 3, NULL);
    const uint8_t rd = 0x03;
    xfer first[3] = {{1, W, &rd, 0}, {3, W, addr, 0}, {20, R | GB_SPI_XFER_INPROGRESS, NULL, 0}};
    xfer rest = {12, R, NULL, 0};
    uint8_t rx[32];
    CU_ASSERT_EQUAL(message(&t, 0, first, 3, rx), 20);
    CU_ASSERT_EQUAL(message(&t, 0, &rest, 1, rx + 20), 12);
    CU_ASSERT_EQUAL(memcmp(rx, data, 32), 0);
    /* the chip select rose after the last piece: a new message is a new command */
    const uint8_t rdid = 0x9f;
    xfer id[2] = {{1, W, &rdid, 0}, {3, R, NULL, 0}};
    message(&t, 0, id, 2, rx);
    CU_ASSERT_EQUAL(memcmp(rx, "\xef\x40\x16", 3), 0);
    vmt_down(&t);
}

static void test_spi_nor_cs_change_deselects_between_transfers_or_keeps_after_the_last(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b),
                           "[cport 1]\ndevices = spi-nor spidev\n", cport1, 1));
    uint8_t rx[8];
    const uint8_t wren = 0x06, rdsr_op = 0x05;
    /* without cs_change WREN + RDSR are one assertion: the WREN does not run */
    xfer one[3] = {{1, W, &wren, 0}, {1, W, &rdsr_op, 0}, {1, R, NULL, 0}};
    message(&t, 0, one, 3, rx);
    xfer sr[2] = {{1, W, &rdsr_op, 0}, {1, R, NULL, 0}};
    message(&t, 0, sr, 2, rx);
    CU_ASSERT_EQUAL(rx[0], 0x00);
    /* cs_change after the WREN: two assertions, WEL reads 1 */
    xfer two[3] = {{1, W, &wren, 1}, {1, W, &rdsr_op, 0}, {1, R, NULL, 0}};
    message(&t, 0, two, 3, rx);
    CU_ASSERT_EQUAL(rx[0], VM_SPI_NOR_SR_WEL);
    gb_simple(&t, 0, 0x04);
    /* cs_change on the last transfer keeps the flash selected for the next message */
    const uint8_t rdid = 0x9f;
    xfer keep = {1, W, &rdid, 1};
    xfer more = {3, R, NULL, 0};
    message(&t, 0, &keep, 1, NULL);
    message(&t, 0, &more, 1, rx);
    CU_ASSERT_EQUAL(memcmp(rx, "\xef\x40\x16", 3), 0);
    /* ... unless a message goes to another chip select first */
    message(&t, 0, &keep, 1, NULL);
    const uint8_t echo = 0x5a;
    xfer other = {1, W | R, &echo, 0};
    message(&t, 1, &other, 1, rx);
    CU_ASSERT_EQUAL(rx[0], 0x5a);
    CU_ASSERT_FALSE(vm_spi_nor_selected(vm_spi_flash(vm_interface_spi(t.intf, 1), 0)));
    message(&t, 0, &more, 1, rx); /* a fresh assertion: 0xff is an unknown opcode */
    CU_ASSERT_EQUAL(memcmp(rx, "\xff\xff\xff", 3), 0);
    vmt_down(&t);
}

/* SPI_LOOP: the controller returns MOSI; the flash still receives it. */
static void test_spi_nor_loop_mode_returns_mosi(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), "[cport 1]\ndevices = spi-nor\n",
                           cport1, 1));
    static uint8_t buf[64];
    const uint8_t tx[4] = {0x9f, 1, 2, 3};
    xfer x = {4, W | R, tx, 0};
    size_t n = transfer_req(buf, 0, &x, 1);
    buf[1] = GB_SPI_MODE_LOOP;
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 2, GB_SPI_TYPE_TRANSFER, buf, n), 1);
    vmt_expect_response(&t, 0, 1, 2, GB_SPI_TYPE_TRANSFER, GB_OP_SUCCESS, tx, 4);
    vm_spi_nor_stats s;
    vm_spi_nor_get_stats(vm_spi_flash(vm_interface_spi(t.intf, 1), 0), &s);
    CU_ASSERT_EQUAL(s.commands, 1);
    vmt_down(&t);
}

static void test_spi_nor_flash_command_reports_part_file_and_stats(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b),
                           "[cport 1]\ndevices = spidev spi-nor\nflash-part = w25x80\n",
                           cport1, 1));
    gb_simple(&t, 1, 0x06);
    const uint8_t pp[6] = {0x02, 0x00, 0x00, 0x10, 0x12, 0x34};
    xfer prog = {6, W, pp, 0};
    message(&t, 1, &prog, 1, NULL);
    gb_simple(&t, 0, 0xab); /* chip select 0 is the spidev echo device: not the flash's */
    xfer bad = {1, W, (const uint8_t *)"\xab", 0};
    message(&t, 1, &bad, 1, NULL);
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash", 0, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.text,
                           "cs 1 part w25x80 id ef3014 size 1048576 memory status 0x00 0x00 "
                           "reads 0 programs 1 erases 0 bytes-read 0 bytes-programmed 2 "
                           "bytes-erased 0 ignored 0 unknown 1 io-errors 0");
    const vm_value *v = vm_reply_get(&r, "jedec_id");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(v->i, 0xef3014);
    CU_ASSERT_PTR_NOT_NULL_FATAL((v = vm_reply_get(&r, "last_unknown")));
    CU_ASSERT_EQUAL(v->i, 0xab);
    CU_ASSERT_PTR_NOT_NULL_FATAL((v = vm_reply_get(&r, "failed")));
    CU_ASSERT_EQUAL(v->i, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL((v = vm_reply_get(&r, "file")));
    CU_ASSERT_EQUAL(v->len, 0);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash read 0xf 4", 0, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.text, "ff1234ff");
    CU_ASSERT_PTR_NOT_NULL(vm_reply_get(&r, "data"));
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash read 0 1 1", 0, &r), 0);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash 0", 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.text, "chip select 0 is not a flash");
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash read 0xffffe 4", 0, &r), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "run past the end of the 1048576-byte flash"));
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash read 0", 0, &r), -1);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash 1 2", 0, &r), -1);
    vmt_down(&t);
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), NULL, cport1, 1));
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash", 0, &r), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "no chip select is a flash"));
    vmt_down(&t);
}

static void test_spi_nor_flash_file_setting_opens_checks_and_locks_the_file(void)
{
    char path[64], beh[256];
    int fd = temp_file(path, sizeof path, MIB);
    vmt t, t2;
    snprintf(beh, sizeof beh, "[cport 1]\ndevices = spi-nor\nflash-file = %s\n", path);
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), beh, cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:3: flash-file: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "has 1048576 bytes; this device needs exactly 4194304"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, path));
    snprintf(beh, sizeof beh,
             "[cport 1]\ndevices = spi-nor\nflash-part = w25x80\nflash-file = %s\n", path);
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), beh, cport1, 1));
    /* a second module on the same file is refused while the first holds it */
    CU_ASSERT_FALSE(vmt_up(&t2, vmt_manifest_one(0x0a, 0x0b), beh, cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t2.err, "test.behaviour:4: flash-file: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(t2.err, "is in use"));
    gb_simple(&t, 0, 0x06);
    const uint8_t se[4] = {0x20, 0x00, 0x00, 0x00};
    xfer erase_x = {4, W, se, 0};
    message(&t, 0, &erase_x, 1, NULL);
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash", 0, &r), 0);
    const vm_value *v = vm_reply_get(&r, "file");
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    CU_ASSERT_EQUAL(v->len, strlen(path));
    CU_ASSERT_EQUAL(memcmp(vm_reply_data(&r, v), path, v->len), 0);
    char desc[512];
    vm_interface_describe(t.intf, desc, sizeof desc);
    CU_ASSERT_PTR_NOT_NULL(strstr(desc, "spi, cs 0 flash w25x80 1024 KiB file /tmp/"));
    vmt_down(&t); /* removal closes the file */
    uint8_t b[2];
    CU_ASSERT_EQUAL(pread(fd, b, 2, 0xfff), 2);
    CU_ASSERT_EQUAL(b[0], 0xff);
    CU_ASSERT_EQUAL(b[1], 0x00);
    CU_ASSERT_FATAL(vmt_up(&t2, vmt_manifest_one(0x0a, 0x0b), beh, cport1, 1));
    vmt_down(&t2);
    close(fd);
    unlink(path);
}

static void test_spi_nor_bad_flash_settings_are_refused(void)
{
    static const struct {
        const char *behaviour, *error;
    } cases[] = {
        {"[cport 1]\ndevices = spi-nor\nflash-part = w25q999\n",
         "test.behaviour:3: flash-part: 'w25q999' is not one of: w25q32, w25x80, mx25l6405d"},
        {"[cport 1]\ndevices = spidev\nflash-part = w25q32\n",
         "test.behaviour:3: flash-part: no chip select is a flash"},
        {"[cport 1]\nflash-file = /tmp/x.bin\n",
         "test.behaviour:2: flash-file: no chip select is a flash"},
        {"[cport 1]\ndevices = spi-nor spi-nor\nflash-file = /tmp/x.bin\n",
         "test.behaviour:3: flash-file: one file for 2 spi-nor chip selects"},
        {"[cport 1]\ndevices = spi-nor\nflash-file = /nonexistent/flash.bin\n",
         "test.behaviour:3: flash-file: cannot open /nonexistent/flash.bin: No such file"},
        {"[cport 1]\ndevices = spi-nor\nflash-file =\n", "flash-file: expected a file path"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vmt t;
        CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b), cases[i].behaviour, cport1, 1));
        if (!strstr(t.err, cases[i].error))
            fprintf(stderr, "\n%s: got '%s'\n", cases[i].behaviour, t.err);
        CU_ASSERT_PTR_NOT_NULL(strstr(t.err, cases[i].error));
    }
    /* two flashes in memory are fine, each its own */
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x0b),
                           "[cport 1]\ndevices = spi-nor spi-nor\n", cport1, 1));
    vm_spi *s = vm_interface_spi(t.intf, 1);
    CU_ASSERT_PTR_NOT_NULL(vm_spi_flash(s, 0));
    CU_ASSERT_PTR_NOT_NULL(vm_spi_flash(s, 1));
    CU_ASSERT_PTR_NOT_EQUAL(vm_spi_flash(s, 0), vm_spi_flash(s, 1));
    vmt_down(&t);
}

/* The catalog's spinor module: chip select 0 of type SPI NOR, a W25Q32 in memory. */
static void test_spi_nor_catalog_entry_declares_a_w25q32(void)
{
    vmt t;
    static char mnfs[2048], beh[2048];
    CU_ASSERT_FATAL(vmt_up(&t, vmt_catalog_text("spinor.mnfs", mnfs, sizeof mnfs),
                           vmt_catalog_text("spinor.behaviour", beh, sizeof beh), cport1, 1));
    const uint8_t cs0 = 0;
    vmt_request(&t, 1, 3, GB_SPI_TYPE_DEVICE_CONFIG, &cs0, 1);
    CU_ASSERT_EQUAL_FATAL(t.sink.n, 1);
    CU_ASSERT_EQUAL(t.sink.msg[0][8 + 7], GB_SPI_SPI_NOR);
    uint8_t rx[3];
    const uint8_t rdid = 0x9f;
    xfer id[2] = {{1, W, &rdid, 0}, {3, R, NULL, 0}};
    message(&t, 0, id, 2, rx);
    CU_ASSERT_EQUAL(memcmp(rx, "\xef\x40\x16", 3), 0);
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "spi flash read 0 4", 0, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.text, "ffffffff");
    vmt_down(&t);
}

/* flash-file is taken relative to the behaviour file's directory. */
static void test_spi_nor_relative_flash_file_sits_beside_the_behaviour(void)
{
    char dir[] = "/tmp/gbvp-spinor-cat-XXXXXX", p[128], err[512];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    static char mnfs[2048];
    vmt_catalog_text("spinor.mnfs", mnfs, sizeof mnfs);
    snprintf(p, sizeof p, "%s/nor.mnfs", dir);
    FILE *fp = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(mnfs, fp);
    fclose(fp);
    snprintf(p, sizeof p, "%s/nor.behaviour", dir);
    fp = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs("[cport 1]\ndevices = spi-nor\nflash-part = w25x80\nflash-file = nor.bin\n", fp);
    fclose(fp);
    snprintf(p, sizeof p, "%s/nor.bin", dir);
    int fd = open(p, O_RDWR | O_CREAT, 0600);
    CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, MIB) == 0);
    close(fd);
    vm_module *m = vm_module_load(dir, "nor", err, sizeof err);
    if (!m)
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    vm_interface *intf = vm_module_create_interface(m, 0, (vm_output){0}, 1, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(intf);
    vm_spi_nor *f = vm_spi_flash(vm_interface_spi(intf, 1), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_STRING_EQUAL(vm_spi_nor_path(f), p);
    vm_interface_free(intf);
    vm_module_free(m);
    unlink(p);
    snprintf(p, sizeof p, "%s/nor.behaviour", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/nor.mnfs", dir);
    unlink(p);
    rmdir(dir);
}

/* ---- the memory store under the flash (and the SD card) ---- */

/* Resident pages of this process, in bytes. */
static long resident_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * sysconf(_SC_PAGESIZE);
}

static void test_memory_store_reads_its_fill_and_costs_nothing_until_written(void)
{
    const uint64_t size = 256u * MIB;
    long before = resident_bytes();
    vm_store *st = vm_store_memory(size, 0xff);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    uint8_t out[8], want[8];
    memset(want, 0xff, sizeof want);
    CU_ASSERT_EQUAL(vm_store_read(st, 0, out, sizeof out), 0);
    CU_ASSERT_EQUAL(memcmp(out, want, sizeof out), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, size - 8, out, sizeof out), 0);
    CU_ASSERT_EQUAL(memcmp(out, want, sizeof out), 0);
    /* written bytes read back as written, 0x00 and 0xff included */
    CU_ASSERT_EQUAL(vm_store_write(st, 100 * MIB, "\x00\x5a\xff\x01", 4), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, 100 * MIB - 2, out, 8), 0);
    CU_ASSERT_EQUAL(memcmp(out, "\xff\xff\x00\x5a\xff\x01\xff\xff", 8), 0);
    /* a fill (an erase, or zeroing) of part of it */
    CU_ASSERT_EQUAL(vm_store_fill(st, 100 * MIB + 1, 0x00, 2), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, 100 * MIB, out, 4), 0);
    CU_ASSERT_EQUAL(memcmp(out, "\x00\x00\x00\x01", 4), 0);
    CU_ASSERT_EQUAL(vm_store_fill(st, 100 * MIB, 0xff, 4), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, 100 * MIB, out, 4), 0);
    CU_ASSERT_EQUAL(memcmp(out, want, 4), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, size - 4, out, 8), -ERANGE);
    /* a write and a read across the boundary of the store's 64 KiB pieces, and a read
     * that runs from written bytes into never written ones */
    CU_ASSERT_EQUAL(vm_store_write(st, 3 * 65536 - 2, "\x10\x20\x30\x40", 4), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, 3 * 65536 - 3, out, 6), 0);
    CU_ASSERT_EQUAL(memcmp(out, "\xff\x10\x20\x30\x40\xff", 6), 0);
    CU_ASSERT_EQUAL(vm_store_fill(st, 3 * 65536 - 1, 0x00, 65536 + 2), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, 3 * 65536 - 2, out, 2), 0);
    CU_ASSERT_EQUAL(memcmp(out, "\x10\x00", 2), 0);
    CU_ASSERT_EQUAL(vm_store_read(st, 4 * 65536, out, 3), 0);
    CU_ASSERT_EQUAL(memcmp(out, "\x00\xff\xff", 3), 0);
    /* 256 MiB of erased flash is not 256 MiB of memory: only written pages are touched
     * (not measured under a sanitizer's shadow memory or valgrind's allocator) */
#if !defined(__SANITIZE_ADDRESS__)
    const char *preload = getenv("LD_PRELOAD");
    if (!preload || !strstr(preload, "vgpreload"))
        CU_ASSERT(resident_bytes() - before < 16 * (long)MIB);
#endif
    (void)before;
    vm_store_free(st);
}

const unit_test vmt_spi_nor_tests[] = {
    UNIT_TEST(test_spi_nor_read_id_answers_the_jedec_id_6_1_knows),
    UNIT_TEST(test_spi_nor_read_streams_from_the_address_and_wraps_at_the_end),
    UNIT_TEST(test_spi_nor_fast_read_skips_one_dummy_byte),
    UNIT_TEST(test_spi_nor_page_program_needs_write_enable),
    UNIT_TEST(test_spi_nor_page_program_wraps_within_its_page),
    UNIT_TEST(test_spi_nor_program_only_clears_bits),
    UNIT_TEST(test_spi_nor_erases_sector_blocks_and_chip_to_ff),
    UNIT_TEST(test_spi_nor_status_register_shows_wel_and_never_wip),
    UNIT_TEST(test_spi_nor_unknown_opcode_ignores_the_rest_of_the_assertion),
    UNIT_TEST(test_spi_nor_read_sfdp_answers_no_table),
    UNIT_TEST(test_spi_nor_power_on_drops_the_command_under_way),
    UNIT_TEST(test_spi_nor_file_holds_what_the_flash_programs),
    UNIT_TEST(test_spi_nor_host_write_failure_is_recorded_and_fails_the_flash),
    UNIT_TEST(test_spi_nor_answers_6_1_probe_and_io_over_greybus),
    UNIT_TEST(test_spi_nor_read_continues_across_operations_in_progress),
    UNIT_TEST(test_spi_nor_cs_change_deselects_between_transfers_or_keeps_after_the_last),
    UNIT_TEST(test_spi_nor_loop_mode_returns_mosi),
    UNIT_TEST(test_spi_nor_flash_command_reports_part_file_and_stats),
    UNIT_TEST(test_spi_nor_flash_file_setting_opens_checks_and_locks_the_file),
    UNIT_TEST(test_spi_nor_bad_flash_settings_are_refused),
    UNIT_TEST(test_spi_nor_catalog_entry_declares_a_w25q32),
    UNIT_TEST(test_spi_nor_relative_flash_file_sits_beside_the_behaviour),
    UNIT_TEST(test_memory_store_reads_its_fill_and_costs_nothing_until_written),
    UNIT_TESTS_END,
};
