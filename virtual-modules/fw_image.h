// SPDX-License-Identifier: MIT
// The firmware images gbvp's modules download (Bootrom and Firmware Download protocols):
// a small header, loosely after Ara's TFTF, then the text manifest of the personality the
// image boots into, then filler. Built for the guest's /lib/firmware by
// guest/firmware/mkfw.sh; the module checks the size and the CRC-32 on receipt.
//
//   offset size  field (little-endian)
//   0      8     magic "GBVPTFTF"
//   8      4     image size in bytes (the whole file)
//   12     4     CRC-32 (IEEE 802.3, as gzip computes it) of bytes 16..size
//   16     2     firmware version major, 18  2  minor
//   20     4     manifest offset, 24  4  manifest length (text form, see manifests.md)
//   28     4     reserved (0)
//   32     32    name, NUL-padded ASCII
//   64     ...   manifest text, then filler up to the image size
#ifndef GBVP_VIRTUAL_MODULES_FW_IMAGE_H
#define GBVP_VIRTUAL_MODULES_FW_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define VM_FW_MAGIC "GBVPTFTF"
#define VM_FW_HEADER_SIZE 64u
#define VM_FW_NAME_MAX 32u
#define VM_FW_IMAGE_MAX (1u << 20) /* what a module accepts to download */

typedef struct vm_fw_image {
    uint32_t size, crc;
    uint16_t major, minor;
    char name[VM_FW_NAME_MAX + 1];
    const char *manifest; /* into the image bytes */
    size_t manifest_len;
} vm_fw_image;

/* CRC-32 (reflected polynomial 0xedb88320, initial and final xor 0xffffffff). */
uint32_t vm_fw_crc32(const uint8_t *data, size_t len);
/* Checks the image: 0, or -1 with why in err. */
int vm_fw_image_parse(const uint8_t *data, size_t len, vm_fw_image *out, char *err,
                      size_t errlen);
/* Builds an image around a manifest text into buf (for tests and tools): the size, or 0
 * when it does not fit or total is too small. */
size_t vm_fw_image_build(uint8_t *buf, size_t cap, size_t total, const char *name,
                         uint16_t major, uint16_t minor, const char *manifest);

#endif
