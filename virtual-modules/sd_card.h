// SPDX-License-Identifier: MIT
// An SD memory card (SDHC/SDXC: block-addressed, 512-byte blocks) as the SD bus sees it:
// a command (index, argument) in, a response or none out, and data blocks for the commands
// that move data. Sans-IO: the card's bytes are a vm_store (memory or a host image file);
// the host controller around it (sdio.c) carries commands and data over Greybus.
//
// Modelled (SD Physical Layer Simplified Specification 3.01, the registers and states Linux
// 6.1 drivers/mmc/core reads):
//   CMD0 2 3 6 7 8 9 10 12 13 15 16 17 18 23 24 25 32 33 38 55,
//   ACMD6 13 22 23 41 42 51.
// Everything else (SDIO CMD5/52/53, CMD1, CMD11 voltage switch, CMD19 tuning, CMD27,
// write-protect groups, CMD42 lock, CMD56...) is an illegal command: no response, and
// ILLEGAL_COMMAND in the status of the next command the card answers, as on a card.
//
// Source: SD Specifications Part 1, Physical Layer Simplified Specification 3.01 (card
// states, R1 status bits, OCR, CID, CSD 2.0, SCR, SD Status, switch function status).
#ifndef GBVP_VIRTUAL_MODULES_SD_CARD_H
#define GBVP_VIRTUAL_MODULES_SD_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_store.h"

#define VM_SD_BLOCK 512u
#define VM_SD_SIZE_UNIT (512u * 1024u) /* CSD 2.0 C_SIZE counts 512 KiB */
#define VM_SD_MAX_SIZE (0x400000ull * VM_SD_SIZE_UNIT) /* 22-bit C_SIZE: 2 TiB */

/* Commands (index) */
#define VM_SD_CMD_GO_IDLE 0
#define VM_SD_CMD_ALL_SEND_CID 2
#define VM_SD_CMD_SEND_RELATIVE_ADDR 3
#define VM_SD_CMD_IO_SEND_OP_COND 5 /* SDIO only */
#define VM_SD_CMD_SWITCH 6
#define VM_SD_CMD_SELECT_CARD 7
#define VM_SD_CMD_SEND_IF_COND 8
#define VM_SD_CMD_SEND_CSD 9
#define VM_SD_CMD_SEND_CID 10
#define VM_SD_CMD_STOP_TRANSMISSION 12
#define VM_SD_CMD_SEND_STATUS 13
#define VM_SD_CMD_GO_INACTIVE 15
#define VM_SD_CMD_SET_BLOCKLEN 16
#define VM_SD_CMD_READ_SINGLE_BLOCK 17
#define VM_SD_CMD_READ_MULTIPLE_BLOCK 18
#define VM_SD_CMD_SET_BLOCK_COUNT 23
#define VM_SD_CMD_WRITE_BLOCK 24
#define VM_SD_CMD_WRITE_MULTIPLE_BLOCK 25
#define VM_SD_CMD_ERASE_WR_BLK_START 32
#define VM_SD_CMD_ERASE_WR_BLK_END 33
#define VM_SD_CMD_ERASE 38
#define VM_SD_CMD_IO_RW_DIRECT 52 /* SDIO only */
#define VM_SD_CMD_APP_CMD 55
/* Application commands (after CMD55) */
#define VM_SD_ACMD_SET_BUS_WIDTH 6
#define VM_SD_ACMD_SD_STATUS 13
#define VM_SD_ACMD_SEND_NUM_WR_BLOCKS 22
#define VM_SD_ACMD_SET_WR_BLK_ERASE_COUNT 23
#define VM_SD_ACMD_SD_SEND_OP_COND 41
#define VM_SD_ACMD_SET_CLR_CARD_DETECT 42
#define VM_SD_ACMD_SEND_SCR 51

/* Card status (R1) */
#define VM_SD_R1_OUT_OF_RANGE (1u << 31)
#define VM_SD_R1_ADDRESS_ERROR (1u << 30)
#define VM_SD_R1_BLOCK_LEN_ERROR (1u << 29)
#define VM_SD_R1_ERASE_SEQ_ERROR (1u << 28)
#define VM_SD_R1_ERASE_PARAM (1u << 27)
#define VM_SD_R1_WP_VIOLATION (1u << 26)
#define VM_SD_R1_COM_CRC_ERROR (1u << 23)
#define VM_SD_R1_ILLEGAL_COMMAND (1u << 22)
#define VM_SD_R1_ERROR (1u << 19)
#define VM_SD_R1_ERASE_RESET (1u << 13)
#define VM_SD_R1_STATE_SHIFT 9 /* CURRENT_STATE, bits 12:9 */
#define VM_SD_R1_READY_FOR_DATA (1u << 8)
#define VM_SD_R1_APP_CMD (1u << 5)
#define VM_SD_R1_STATE(status) (((status) >> VM_SD_R1_STATE_SHIFT) & 0xfu)

/* OCR (R3) */
#define VM_SD_OCR_BUSY (1u << 31) /* 1: power-up done */
#define VM_SD_OCR_CCS (1u << 30)  /* card capacity status: block addressed */
#define VM_SD_OCR_VOLTAGES 0x00ff8000u /* 2.7-3.6 V */

/* Card states: the CURRENT_STATE codes; VM_SD_INACTIVE has none (the card is silent). */
typedef enum vm_sd_state {
    VM_SD_IDLE = 0,
    VM_SD_READY = 1,
    VM_SD_IDENT = 2,
    VM_SD_STBY = 3,
    VM_SD_TRAN = 4,
    VM_SD_DATA = 5,
    VM_SD_RCV = 6,
    VM_SD_PRG = 7,
    VM_SD_DIS = 8,
    VM_SD_INACTIVE = 15,
} vm_sd_state;
/* "idle", "ready", ..., "inactive"; "off" is what vm_sd_card_state_name says unpowered. */
const char *vm_sd_state_name(vm_sd_state s);

typedef enum vm_sd_response_kind {
    VM_SD_RSP_R1,  /* also R1b: the busy signal is over when the response leaves */
    VM_SD_RSP_R2,  /* CID or CSD, 136 bits */
    VM_SD_RSP_R3,  /* OCR */
    VM_SD_RSP_R6,  /* published RCA and status bits 23, 22, 19, 12:0 */
    VM_SD_RSP_R7,  /* interface condition */
} vm_sd_response_kind;

/* A response as Linux 6.1 keeps it in mmc_command.resp[]: the 32 content bits of a 48-bit
 * response in resp[0]; for R2, register bits 127:96 in resp[0] down to bits 31:0 in
 * resp[3] (bits 7:1 the register's CRC7, bit 0 a 1), as the MMC core's UNSTUFF_BITS reads
 * them. */
typedef struct vm_sd_response {
    vm_sd_response_kind kind;
    uint32_t resp[4];
} vm_sd_response;

typedef struct vm_sd_card vm_sd_card;

/* A card holding the bytes of `store` (ownership passes, also on failure). NULL with a
 * message naming the file (or "memory card") and its size when the size is not a multiple
 * of 512 KiB between 512 KiB and 2 TiB, or when out of memory. The card starts unpowered. */
vm_sd_card *vm_sd_card_new(vm_store *store, char *err, size_t errlen);
void vm_sd_card_free(vm_sd_card *c);

/* Supply voltage off: the card answers nothing and forgets its state. On (from off): the
 * card is in the idle state, as after power-up. */
void vm_sd_card_power(vm_sd_card *c, bool on);
bool vm_sd_card_powered(const vm_sd_card *c);

/* The write-protect switch: a protected card refuses writes and erases with WP_VIOLATION
 * (and reports TMP_WRITE_PROTECT in its CSD). */
void vm_sd_card_set_write_protect(vm_sd_card *c, bool on);
bool vm_sd_card_write_protected(const vm_sd_card *c);

/* One command. true with the response in *rsp when the card answers; false when it does
 * not (unpowered, inactive, not addressed, or an illegal command): the host times out. */
bool vm_sd_card_command(vm_sd_card *c, uint8_t index, uint32_t arg, vm_sd_response *rsp);

/* The data phase the last data command opened. */
typedef enum vm_sd_direction {
    VM_SD_NO_DATA,
    VM_SD_READ,  /* card -> host */
    VM_SD_WRITE, /* host -> card */
} vm_sd_direction;
#define VM_SD_OPEN_ENDED UINT32_MAX /* CMD18/CMD25 without CMD23: until CMD12 */
typedef struct vm_sd_data_phase {
    vm_sd_direction dir;
    unsigned block_size;
    uint32_t blocks_left; /* or VM_SD_OPEN_ENDED */
} vm_sd_data_phase;
void vm_sd_card_data_phase(const vm_sd_card *c, vm_sd_data_phase *out);

/* Moves `blocks` blocks of `block_size` bytes of the open data phase. 0; -EPROTO when no
 * such phase is open or the blocks do not fit it (the card sends or takes nothing);
 * -ERANGE when they run past the end of the card (OUT_OF_RANGE in the next status);
 * -EIO when the host file failed (ERROR in the next status, the failure in the stats). */
int vm_sd_card_read(vm_sd_card *c, uint8_t *buf, unsigned block_size, unsigned blocks);
int vm_sd_card_write(vm_sd_card *c, const uint8_t *buf, unsigned block_size, unsigned blocks);

uint64_t vm_sd_card_size(const vm_sd_card *c);
/* The host image file, or NULL for a card in memory. */
const char *vm_sd_card_path(const vm_sd_card *c);
/* The state (VM_SD_INACTIVE also when unpowered) and its name ("off" when unpowered). */
vm_sd_state vm_sd_card_state(const vm_sd_card *c);
const char *vm_sd_card_state_name(const vm_sd_card *c);
uint16_t vm_sd_card_rca(const vm_sd_card *c);
/* The data bus width ACMD6 set: 1 or 4. */
unsigned vm_sd_card_bus_width(const vm_sd_card *c);
/* Raw registers, for tests and scripts: CSD and CID as R2 carries them. */
void vm_sd_card_csd(const vm_sd_card *c, uint32_t out[4]);
void vm_sd_card_cid(const vm_sd_card *c, uint32_t out[4]);

typedef struct vm_sd_card_stats {
    uint64_t commands;   /* every command the card was powered to see */
    uint64_t illegal;    /* of those, illegal commands */
    uint64_t blocks_read, blocks_written, blocks_erased;
    uint64_t host_errors; /* failed reads and writes of the host file */
    char last_error[192]; /* the last host failure, "" when none */
} vm_sd_card_stats;
void vm_sd_card_get_stats(const vm_sd_card *c, vm_sd_card_stats *out);

#endif
