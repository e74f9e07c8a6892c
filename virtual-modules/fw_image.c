// SPDX-License-Identifier: MIT
// Firmware images (see fw_image.h).
#include "virtual-modules/fw_image.h"

#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_error.h"

uint32_t vm_fw_crc32(const uint8_t *data, size_t len)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

int vm_fw_image_parse(const uint8_t *data, size_t len, vm_fw_image *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len < VM_FW_HEADER_SIZE || memcmp(data, VM_FW_MAGIC, 8)) {
        vm_error(err, errlen, "not a gbvp firmware image (no " VM_FW_MAGIC " header)");
        return -1;
    }
    out->size = gb_get_le32(data + 8);
    out->crc = gb_get_le32(data + 12);
    if (out->size != len) {
        vm_error(err, errlen, "image says %u bytes, %zu received", out->size, len);
        return -1;
    }
    uint32_t crc = vm_fw_crc32(data + 16, len - 16);
    if (crc != out->crc) {
        vm_error(err, errlen, "CRC-32 0x%08x, the header says 0x%08x", crc, out->crc);
        return -1;
    }
    out->major = gb_get_le16(data + 16);
    out->minor = gb_get_le16(data + 18);
    uint32_t off = gb_get_le32(data + 20), mlen = gb_get_le32(data + 24);
    if (off < VM_FW_HEADER_SIZE || off > len || mlen > len - off || mlen == 0) {
        vm_error(err, errlen, "manifest at %u (%u bytes) lies outside the image", off, mlen);
        return -1;
    }
    memcpy(out->name, data + 32, VM_FW_NAME_MAX);
    out->name[VM_FW_NAME_MAX] = '\0';
    out->manifest = (const char *)data + off;
    out->manifest_len = mlen;
    return 0;
}

size_t vm_fw_image_build(uint8_t *buf, size_t cap, size_t total, const char *name,
                         uint16_t major, uint16_t minor, const char *manifest)
{
    size_t mlen = strlen(manifest);
    if (total < VM_FW_HEADER_SIZE + mlen || total > cap)
        return 0;
    memset(buf, 0, VM_FW_HEADER_SIZE);
    memcpy(buf, VM_FW_MAGIC, 8);
    gb_put_le32(buf + 8, (uint32_t)total);
    gb_put_le16(buf + 16, major);
    gb_put_le16(buf + 18, minor);
    gb_put_le32(buf + 20, VM_FW_HEADER_SIZE);
    gb_put_le32(buf + 24, (uint32_t)mlen);
    size_t nlen = strlen(name);
    memcpy(buf + 32, name, nlen < VM_FW_NAME_MAX ? nlen : VM_FW_NAME_MAX);
    memcpy(buf + VM_FW_HEADER_SIZE, manifest, mlen);
    for (size_t i = VM_FW_HEADER_SIZE + mlen; i < total; i++)
        buf[i] = 0xa5;
    gb_put_le32(buf + 12, vm_fw_crc32(buf + 16, total - 16));
    return total;
}
