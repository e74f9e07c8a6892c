// SPDX-License-Identifier: MIT
// Bootrom protocol (0x15) handler: the module side of Linux 6.1
// drivers/staging/greybus/bootrom.c, i.e. an ES3 boot ROM loading its stage-2 firmware.
//
// The AP sends VERSION and AP_READY; the module then asks FIRMWARE_SIZE (stage 2), fetches
// the image with GET_FIRMWARE in chunks of at most GB_BOOTROM_FETCH_MAX bytes, checks it
// (fw_image.h: size and CRC-32) and reports READY_TO_BOOT (INSECURE when valid, INVALID
// otherwise). Once the AP acknowledged a valid image the module boots it: the interface
// takes the image's manifest (vm_endpoint_boot) and the SVC reports the mailbox event, which
// makes 6.1 re-enumerate the interface (its "legacy mode switch" for boot-ROM interfaces).
#ifndef GBVP_VIRTUAL_MODULES_BOOTROM_H
#define GBVP_VIRTUAL_MODULES_BOOTROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define GB_BOOTROM_TYPE_VERSION 0x01
#define GB_BOOTROM_TYPE_FIRMWARE_SIZE 0x02
#define GB_BOOTROM_TYPE_GET_FIRMWARE 0x03
#define GB_BOOTROM_TYPE_READY_TO_BOOT 0x04
#define GB_BOOTROM_TYPE_AP_READY 0x05
#define GB_BOOTROM_TYPE_GET_VID_PID 0x06
#define GB_BOOTROM_BOOT_STAGE_TWO 0x02
#define GB_BOOTROM_BOOT_STATUS_INVALID 0x00
#define GB_BOOTROM_BOOT_STATUS_INSECURE 0x01
#define GB_BOOTROM_FETCH_MAX 2000u

typedef struct vm_bootrom vm_bootrom;

typedef enum vm_bootrom_state {
    VM_BOOTROM_IDLE,        /* waiting for AP_READY */
    VM_BOOTROM_SIZE,        /* FIRMWARE_SIZE sent */
    VM_BOOTROM_FETCHING,    /* GET_FIRMWARE in flight */
    VM_BOOTROM_READY,       /* READY_TO_BOOT sent */
    VM_BOOTROM_BOOTED,      /* the image was handed to the interface */
    VM_BOOTROM_FAILED,      /* see vm_bootrom_error */
} vm_bootrom_state;

typedef struct vm_bootrom_stats {
    vm_bootrom_state state;
    uint32_t size;      /* FIRMWARE_SIZE's answer */
    uint32_t received;  /* bytes fetched */
    unsigned fetches;   /* GET_FIRMWARE operations */
    uint32_t crc;       /* CRC-32 of the image, once complete */
} vm_bootrom_stats;

vm_bootrom *vm_interface_bootrom(vm_interface *intf, uint16_t cport);
void vm_bootrom_get_stats(const vm_bootrom *b, vm_bootrom_stats *out);
const char *vm_bootrom_error(const vm_bootrom *b); /* "" when none */
const char *vm_bootrom_state_name(vm_bootrom_state s);
/* Puts an image into the module's own flash, the boot ROM's fallback when the UniPro
 * download fails (the AP refuses FIRMWARE_SIZE or GET_FIRMWARE, e.g. a kernel without a
 * firmware loader). Stored for later while the download may still work; when it has failed
 * already, the image is checked and READY_TO_BOOT sent at once. 0, -EINVAL (size),
 * -EBUSY (already booting), -ENOTCONN, -EIO (READY_TO_BOOT could not be sent). */
int vm_bootrom_flash(vm_bootrom *b, const uint8_t *image, size_t len);
bool vm_bootrom_booted_from_flash(const vm_bootrom *b);

#endif
