// SPDX-License-Identifier: MIT
// Firmware Download protocol (0x17) handler: the module side of Linux 6.1
// drivers/staging/greybus/fw-download.c. The module asks the AP for an image by its tag
// (FIND_FIRMWARE: the AP loads gmp_<ids>_<tag>.tftf with request_firmware), fetches it in
// chunks (FETCH_FIRMWARE) and releases it (RELEASE_FIRMWARE). Started by the Firmware
// Management handler of the same interface (fw_mgmt.h), which gets the image back.
#ifndef GBVP_VIRTUAL_MODULES_FW_DOWNLOAD_H
#define GBVP_VIRTUAL_MODULES_FW_DOWNLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE 0x01
#define GB_FW_DOWNLOAD_TYPE_FETCH_FIRMWARE 0x02
#define GB_FW_DOWNLOAD_TYPE_RELEASE_FIRMWARE 0x03
#define GB_FIRMWARE_TAG_MAX_SIZE 10
#define VM_FW_DOWNLOAD_CHUNK 2000u

typedef struct vm_fw_download vm_fw_download;

typedef enum vm_fw_download_result {
    VM_FW_DOWNLOAD_OK,
    VM_FW_DOWNLOAD_FAIL_FIND,  /* the AP has no such firmware (or no firmware loader) */
    VM_FW_DOWNLOAD_FAIL_FETCH, /* a FETCH failed or came back short */
} vm_fw_download_result;

/* Called once per download; image valid only during the call (NULL unless OK). */
typedef void (*vm_fw_download_done)(void *ctx, vm_fw_download_result result,
                                    const uint8_t *image, size_t len);

/* Starts FIND_FIRMWARE for `tag` (at most 9 characters). 0, -EBUSY (a download is running),
 * -EINVAL (tag), -ENOTCONN. */
int vm_fw_download_start(vm_fw_download *d, const char *tag, vm_fw_download_done done,
                         void *ctx);
typedef struct vm_fw_download_stats {
    unsigned finds, fetches, releases, completed, failed;
    uint32_t last_size;
} vm_fw_download_stats;
void vm_fw_download_get_stats(const vm_fw_download *d, vm_fw_download_stats *out);
vm_fw_download *vm_interface_fw_download(vm_interface *intf, uint16_t cport);

#endif
