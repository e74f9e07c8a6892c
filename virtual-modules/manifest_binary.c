// SPDX-License-Identifier: MIT
// Binary manifests: read exactly as gb_manifest_parse() walks them (Linux 6.1,
// drivers/greybus/manifest.c), and the canonical encoding that manifesto produces.
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest_internal.h"

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static void put_le16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)((v >> 8) & 0xff);
}

static const char *type_name(uint8_t type)
{
    switch (type) {
    case VM_MF_INTERFACE: return "interface";
    case VM_MF_STRING: return "string";
    case VM_MF_BUNDLE: return "bundle";
    case VM_MF_CPORT: return "cport";
    default: return "unknown";
    }
}

static size_t string_size(size_t len) { return (VM_MF_STRING_BASE + len + 3u) & ~(size_t)3u; }

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* One descriptor at `off` with `left` bytes remaining. Returns its size, or 0 on error. */
static size_t read_descriptor(vm_manifest *m, const uint8_t *data, size_t off, size_t left,
                              vm_manifest_diags *d)
{
    const char *name = m->name;
    if (left < VM_MF_DESC_HEADER_SIZE) {
        vm_mf_diag(d, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, off,
                   "%zu stray byte(s) after the last descriptor; a descriptor header is 4 "
                   "bytes (kernel: \"manifest too small\")", left);
        return 0;
    }
    const uint8_t *p = data + off;
    size_t size = le16(p);
    uint8_t type = p[2];
    if (size > left) {
        vm_mf_diag(d, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, off,
                   "descriptor size %zu runs past the end of the manifest (%zu bytes left)",
                   size, left);
        return 0;
    }
    size_t expected;
    switch (type) {
    case VM_MF_INTERFACE:
        expected = VM_MF_INTERFACE_SIZE;
        break;
    case VM_MF_BUNDLE:
        expected = VM_MF_BUNDLE_SIZE;
        break;
    case VM_MF_CPORT:
        expected = VM_MF_CPORT_SIZE;
        break;
    case VM_MF_STRING:
        if (size < VM_MF_STRING_BASE) {
            vm_mf_diag(d, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, off,
                       "string descriptor of %zu bytes is too small for its length and id "
                       "(at least 6)", size);
            return 0;
        }
        expected = string_size(p[4]);
        break;
    default:
        vm_mf_diag(d, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, off,
                   "invalid descriptor type %u; 6.1 knows only 1 interface, 2 string, "
                   "3 bundle, 4 cport%s", type,
                   (type >= 5 && type <= 7) ? " (types 5-7 are a later mikroBUS extension)"
                                             : "");
        return 0;
    }
    if (size < expected) {
        vm_mf_diag(d, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, off,
                   "%s descriptor too small (%zu < %zu bytes)", type_name(type), size,
                   expected);
        return 0;
    }

    vm_mf_desc *desc = vm_mf_add_desc(m, type, off);
    if (!desc) {
        vm_mf_diag(d, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, off, "out of memory");
        return 0;
    }
    desc->size = size;
    if (size > expected) {
        vm_mf_diag(d, VM_MANIFEST_WARNING, name, VM_MF_AT_OFFSET, off,
                   "%s descriptor is %zu bytes, %zu expected; the kernel ignores the rest "
                   "(\"descriptor size mismatch\")", type_name(type), size, expected);
        desc->quirk = "it is longer than its fields";
    } else if (p[3]) {
        desc->quirk = "its header's pad byte is not zero";
    }
    switch (type) {
    case VM_MF_INTERFACE:
        desc->u.intf.vendor = p[4];
        desc->u.intf.product = p[5];
        desc->u.intf.features = p[6];
        if (p[7] && !desc->quirk)
            desc->quirk = "its pad byte is not zero";
        break;
    case VM_MF_STRING:
        desc->u.str.len = p[4];
        desc->u.str.id = p[5];
        memcpy(desc->u.str.bytes, p + 6, p[4]);
        if (!all_zero(p + 6 + p[4], expected - 6 - p[4]) && !desc->quirk)
            desc->quirk = "its padding is not zero";
        break;
    case VM_MF_BUNDLE:
        desc->u.bundle.id = p[4];
        desc->u.bundle.cls = p[5];
        if ((p[6] || p[7]) && !desc->quirk)
            desc->quirk = "its pad bytes are not zero";
        break;
    case VM_MF_CPORT:
        desc->u.cport.id = le16(p + 4);
        desc->u.cport.bundle = p[6];
        desc->u.cport.protocol = p[7];
        break;
    }
    return size;
}

vm_manifest *vm_manifest_parse_binary(const char *name, const uint8_t *data, size_t len,
                                      vm_manifest_diags *diags)
{
    vm_manifest *m = vm_mf_new(name, VM_MF_AT_OFFSET);
    if (!m) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, name, VM_MF_AT_FILE, 0, "out of memory");
        return NULL;
    }
    name = m->name;
    if (len < VM_MF_HEADER_SIZE) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, 0,
                   "manifest is %zu bytes, shorter than its 4-byte header", len);
        goto fail;
    }
    if (len > VM_MANIFEST_FORMAT_MAX) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, 0,
                   "manifest is %zu bytes; the format's 16-bit size field allows at most %u",
                   len, VM_MANIFEST_FORMAT_MAX);
        goto fail;
    }
    if (le16(data) != len) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, name, VM_MF_AT_OFFSET, 0,
                   "header says the manifest is %u bytes but it is %zu (kernel: \"manifest "
                   "size mismatch\")", le16(data), len);
        goto fail;
    }
    m->major = data[2];
    m->minor = data[3];
    m->header_where = 0;

    size_t off = VM_MF_HEADER_SIZE;
    while (off < len) {
        size_t used = read_descriptor(m, data, off, len - off, diags);
        if (!used)
            goto fail;
        off += used;
    }

    m->bytes = malloc(len);
    if (!m->bytes) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, name, VM_MF_AT_FILE, 0, "out of memory");
        goto fail;
    }
    memcpy(m->bytes, data, len);
    m->nbytes = len;
    if (vm_mf_check(m, diags))
        goto fail;
    return m;
fail:
    vm_manifest_free(m);
    return NULL;
}

bool vm_mf_encode(vm_manifest *m, vm_manifest_diags *d)
{
    size_t total = VM_MF_HEADER_SIZE;
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *desc = &m->descs[i];
        total += desc->type == VM_MF_STRING ? string_size(desc->u.str.len) : 8u;
    }
    if (total > VM_MANIFEST_FORMAT_MAX) {
        vm_mf_diag(d, VM_MANIFEST_ERROR, m->name, VM_MF_AT_FILE, 0,
                   "the binary manifest would be %zu bytes; the format allows at most %u",
                   total, VM_MANIFEST_FORMAT_MAX);
        return false;
    }
    uint8_t *out = calloc(1, total);
    if (!out) {
        vm_mf_diag(d, VM_MANIFEST_ERROR, m->name, VM_MF_AT_FILE, 0, "out of memory");
        return false;
    }
    put_le16(out, total);
    out[2] = m->major;
    out[3] = m->minor;
    size_t off = VM_MF_HEADER_SIZE;
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *desc = &m->descs[i];
        uint8_t *p = out + off;
        size_t size = desc->type == VM_MF_STRING ? string_size(desc->u.str.len) : 8u;
        put_le16(p, size);
        p[2] = desc->type;
        switch (desc->type) {
        case VM_MF_INTERFACE:
            p[4] = desc->u.intf.vendor;
            p[5] = desc->u.intf.product;
            p[6] = desc->u.intf.features;
            break;
        case VM_MF_STRING:
            p[4] = desc->u.str.len;
            p[5] = desc->u.str.id;
            memcpy(p + 6, desc->u.str.bytes, desc->u.str.len);
            break;
        case VM_MF_BUNDLE:
            p[4] = desc->u.bundle.id;
            p[5] = desc->u.bundle.cls;
            break;
        case VM_MF_CPORT:
            put_le16(p + 4, desc->u.cport.id);
            p[6] = desc->u.cport.bundle;
            p[7] = desc->u.cport.protocol;
            break;
        }
        off += size;
    }
    free(m->bytes);
    m->bytes = out;
    m->nbytes = total;
    return true;
}
