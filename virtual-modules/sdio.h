// SPDX-License-Identifier: MIT
// SDIO class handler (protocol 0x07, drivers/staging/greybus/sdio.c): the host controller
// of an SD card slot, driven by the AP over Greybus, with an SD memory card (sd_card.h) in
// the slot whose bytes are a host image file or memory. The AP's MMC core probes the card
// and 6.1's mmc_block makes it /dev/mmcblkN.
//
// The slot announces itself with an EVENT request (card inserted, and write protected, or
// removed) once the AP's connection is fully enabled: on the first request after
// GET_CAPABILITIES on each connection (6.1's gb_sdio_probe enables the connection only
// after GET_CAPABILITIES, and drops requests that come earlier). Inserting or removing a
// card later sends the EVENT at once.
//
// Behaviour keys ([cport N]):
//   card = PATH            the card's image, a host file of a multiple of 512 KiB (a path
//                          relative to the behaviour file's directory); opened, and locked,
//                          while the card is in the slot
//   card-present = yes|no  whether the card is in the slot at start (default yes)
//   write-protect = yes|no the slot's write-protect switch (default no)
//   card-size = BYTES      without `card`: the size of a card held in memory (default
//                          8 MiB; a multiple of 512 KiB up to 1 GiB)
#ifndef GBVP_VIRTUAL_MODULES_SDIO_H
#define GBVP_VIRTUAL_MODULES_SDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/sd_card.h"
#include "virtual-modules/vm_interface.h"

#define VM_SDIO_PATH_MAX 1024u
#define VM_SDIO_MEMORY_CARD_SIZE (8u * 1024u * 1024u)
#define VM_SDIO_MEMORY_CARD_MAX (1024u * 1024u * 1024u)

/* What GET_CAPABILITIES answers (see docs/modules.md, "sdcard", for why). */
#define VM_SDIO_F_MIN 400000u   /* Hz: the MMC core's first probe frequency */
#define VM_SDIO_F_MAX 50000000u /* Hz: SD high speed */
#define VM_SDIO_MAX_BLK_COUNT 128u
#define VM_SDIO_MAX_BLK_SIZE 512u

typedef struct vm_sdio vm_sdio;

vm_sdio *vm_interface_sdio(vm_interface *intf, uint16_t cport);

/* Puts a card in the slot and tells the AP: the image file `path`, or with NULL the card
 * taken out last (its file again, or the memory card with its bytes). 0; -EBUSY when the
 * slot holds a card; -EINVAL with a message in err when the image cannot be used. */
int vm_sdio_insert(vm_sdio *s, const char *path, char *err, size_t errlen);
/* Takes the card out (its image file is closed) and tells the AP. 0 or -ENOENT. */
int vm_sdio_remove(vm_sdio *s);
/* The write-protect switch. Turning it on tells the AP (EVENT write protect); 6.1 reads
 * it when it next initialises a card and never clears it, so turning it off is seen only
 * by the card (writes succeed again) until the AP probes the slot anew. */
void vm_sdio_set_write_protect(vm_sdio *s, bool on);
/* The card in the slot, or NULL. */
vm_sd_card *vm_sdio_card(vm_sdio *s);

typedef struct vm_sdio_stats {
    bool present, write_protect;
    uint64_t size;         /* of the card in the slot */
    const char *path;      /* its image, "" for memory (the last image when no card) */
    const char *state;     /* the card's state ("idle", "tran"...), "off", or "none" */
    uint64_t commands;     /* COMMAND requests */
    uint64_t timeouts;     /* of those, answered GB_OP_TIMEOUT (no response) */
    uint64_t transfers;    /* TRANSFER requests */
    uint64_t blocks_read, blocks_written, blocks_erased; /* 512-byte blocks of the cards */
    uint64_t illegal;      /* illegal commands the cards saw */
    uint64_t data_errors;  /* TRANSFERs refused: no data phase, out of range, bus width */
    uint64_t io_errors;    /* host file failures: -EIO for the AP (ERROR for an erase) */
    uint64_t events;       /* EVENT requests sent */
    const char *last_error; /* "" when none */
} vm_sdio_stats;
/* The strings live as long as the handler, until its next call. */
void vm_sdio_get_stats(const vm_sdio *s, vm_sdio_stats *out);

#endif
