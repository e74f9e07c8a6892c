// SPDX-License-Identifier: MIT
// Firmware Management protocol (0x18) handler: the module side of Linux 6.1
// drivers/staging/greybus/fw-management.c, as its /dev/gb-fw-mgmt-N ioctls drive it.
//
//   INTERFACE_FW_VERSION  the running firmware's tag and version (behaviour: `tag`,
//                         `version-major`, `version-minor`; default "s3f" 1.0)
//   LOAD_AND_VALIDATE_FW  answered at once; the module then downloads the tagged image
//                         over the interface's Firmware Download CPort (fw_download.h),
//                         checks it (fw_image.h: size, CRC-32) and reports LOADED_FW
//                         (UNVALIDATED: valid but unsigned; VALIDATION_FAILED; FAILED when
//                         the download failed). A loaded image is what the interface boots
//                         at the next control MODE_SWITCH (vm_endpoint_stage_boot).
//   BACKEND_FW_VERSION    per tag: SUCCESS with the version last written, else NOT_AVAILABLE
//   BACKEND_FW_UPDATE     answered at once; download, check, "write" (the version is kept),
//                         then BACKEND_FW_UPDATED (SUCCESS, FAIL_FIND, FAIL_FETCH, FAIL_WRITE)
#ifndef GBVP_VIRTUAL_MODULES_FW_MGMT_H
#define GBVP_VIRTUAL_MODULES_FW_MGMT_H

#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define GB_FW_MGMT_TYPE_INTERFACE_FW_VERSION 0x01
#define GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW 0x02
#define GB_FW_MGMT_TYPE_LOADED_FW 0x03
#define GB_FW_MGMT_TYPE_BACKEND_FW_VERSION 0x04
#define GB_FW_MGMT_TYPE_BACKEND_FW_UPDATE 0x05
#define GB_FW_MGMT_TYPE_BACKEND_FW_UPDATED 0x06
#define GB_FW_LOAD_METHOD_UNIPRO 0x01
#define GB_FW_LOAD_STATUS_FAILED 0x00
#define GB_FW_LOAD_STATUS_UNVALIDATED 0x01
#define GB_FW_LOAD_STATUS_VALIDATION_FAILED 0x03
#define GB_FW_BACKEND_FW_STATUS_SUCCESS 0x01
#define GB_FW_BACKEND_FW_STATUS_FAIL_FIND 0x02
#define GB_FW_BACKEND_FW_STATUS_FAIL_FETCH 0x03
#define GB_FW_BACKEND_FW_STATUS_FAIL_WRITE 0x04
#define GB_FW_BACKEND_VERSION_STATUS_SUCCESS 0x01
#define GB_FW_BACKEND_VERSION_STATUS_NOT_AVAILABLE 0x02

typedef struct vm_fw_mgmt vm_fw_mgmt;

typedef struct vm_fw_mgmt_stats {
    unsigned loads, updates;
    uint8_t last_load_status, last_update_status; /* as sent in LOADED_FW / BACKEND_FW_UPDATED */
    uint32_t last_crc;                            /* of the last image checked */
} vm_fw_mgmt_stats;

vm_fw_mgmt *vm_interface_fw_mgmt(vm_interface *intf, uint16_t cport);
void vm_fw_mgmt_get_stats(const vm_fw_mgmt *f, vm_fw_mgmt_stats *out);

#endif
