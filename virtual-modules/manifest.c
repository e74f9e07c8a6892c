// SPDX-License-Identifier: MIT
// The parsed manifest: construction, accessors, loading from a file.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest_internal.h"

/* Text manifests are small; this only stops a mistaken multi-gigabyte argument. */
#define LOAD_MAX (4u * 1024u * 1024u)

vm_manifest *vm_mf_new(const char *name, vm_mf_where_kind at)
{
    vm_manifest *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->name = strdup(name ? name : "manifest");
    if (!m->name) {
        free(m);
        return NULL;
    }
    m->at = at;
    return m;
}

vm_mf_desc *vm_mf_add_desc(vm_manifest *m, uint8_t type, size_t where)
{
    if (m->ndescs == m->descs_cap) {
        size_t cap = m->descs_cap ? m->descs_cap * 2 : 16;
        vm_mf_desc *descs = realloc(m->descs, cap * sizeof *descs);
        if (!descs)
            return NULL;
        m->descs = descs;
        m->descs_cap = cap;
    }
    vm_mf_desc *desc = &m->descs[m->ndescs++];
    memset(desc, 0, sizeof *desc);
    desc->type = type;
    desc->where = where;
    return desc;
}

void vm_manifest_free(vm_manifest *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nbundles; i++)
        free(m->bundles[i].cports);
    free(m->bundles);
    free(m->cports);
    free(m->vendor);
    free(m->product);
    free(m->bytes);
    free(m->descs);
    free(m->name);
    free(m);
}

void vm_mf_desc_label(const vm_mf_desc *desc, char *buf, size_t size)
{
    switch (desc->type) {
    case VM_MF_INTERFACE:
        snprintf(buf, size, "interface-descriptor");
        break;
    case VM_MF_STRING:
        snprintf(buf, size, "string-descriptor %u", desc->u.str.id);
        break;
    case VM_MF_BUNDLE:
        snprintf(buf, size, "bundle-descriptor %u", desc->u.bundle.id);
        break;
    case VM_MF_CPORT:
        snprintf(buf, size, "cport-descriptor %u", desc->u.cport.id);
        break;
    default:
        snprintf(buf, size, "descriptor of type %u", desc->type);
        break;
    }
}

/* ---- accessors ---- */

const char *vm_manifest_name(const vm_manifest *m) { return m->name; }
uint8_t vm_manifest_version_major(const vm_manifest *m) { return m->major; }
uint8_t vm_manifest_version_minor(const vm_manifest *m) { return m->minor; }
const char *vm_manifest_vendor_string(const vm_manifest *m) { return m->vendor; }
const char *vm_manifest_product_string(const vm_manifest *m) { return m->product; }
uint8_t vm_manifest_vendor_string_id(const vm_manifest *m) { return m->intf->u.intf.vendor; }
uint8_t vm_manifest_product_string_id(const vm_manifest *m) { return m->intf->u.intf.product; }
uint8_t vm_manifest_features(const vm_manifest *m) { return m->intf->u.intf.features; }

const uint8_t *vm_manifest_bytes(const vm_manifest *m, size_t *len)
{
    if (len)
        *len = m->nbytes;
    return m->bytes;
}

size_t vm_manifest_bundle_count(const vm_manifest *m) { return m->nbundles; }

uint8_t vm_manifest_bundle_id(const vm_manifest *m, size_t bundle)
{
    return bundle < m->nbundles ? m->bundles[bundle].id : 0;
}

uint8_t vm_manifest_bundle_class(const vm_manifest *m, size_t bundle)
{
    return bundle < m->nbundles ? m->bundles[bundle].cls : 0;
}

size_t vm_manifest_bundle_cport_count(const vm_manifest *m, size_t bundle)
{
    return bundle < m->nbundles ? m->bundles[bundle].ncports : 0;
}

size_t vm_manifest_bundle_cport(const vm_manifest *m, size_t bundle, size_t i)
{
    if (bundle >= m->nbundles || i >= m->bundles[bundle].ncports)
        return (size_t)-1;
    return m->bundles[bundle].cports[i];
}

bool vm_manifest_find_bundle(const vm_manifest *m, uint8_t bundle_id, size_t *bundle)
{
    for (size_t i = 0; i < m->nbundles; i++) {
        if (m->bundles[i].id == bundle_id) {
            if (bundle)
                *bundle = i;
            return true;
        }
    }
    return false;
}

size_t vm_manifest_cport_count(const vm_manifest *m) { return m->ncports; }

uint16_t vm_manifest_cport_id(const vm_manifest *m, size_t cport)
{
    return cport < m->ncports ? m->cports[cport].id : 0;
}

uint8_t vm_manifest_cport_protocol(const vm_manifest *m, size_t cport)
{
    return cport < m->ncports ? m->cports[cport].protocol : 0;
}

size_t vm_manifest_cport_bundle(const vm_manifest *m, size_t cport)
{
    return cport < m->ncports ? m->cports[cport].bundle : (size_t)-1;
}

bool vm_manifest_find_cport(const vm_manifest *m, uint16_t cport_id, size_t *cport)
{
    for (size_t i = 0; i < m->ncports; i++) {
        if (m->cports[i].id == cport_id) {
            if (cport)
                *cport = i;
            return true;
        }
    }
    return false;
}

/* ---- loading ---- */

/* The first byte of a manifesto text file: a section, a comment, a blank or a UTF-8 BOM. */
static bool starts_like_text(uint8_t c)
{
    return c == '[' || c == ';' || c == '#' || c == ' ' || c == '\t' || c == '\r' ||
           c == '\n' || c == 0xef;
}

bool vm_manifest_looks_binary(const uint8_t *data, size_t len)
{
    if (len < VM_MF_HEADER_SIZE)
        return false;
    /* A text file whose first two bytes happen to read as its length ("; " is 8251) is
     * still text. A binary whose size starts with such a byte (32 bytes: ' ') has a NUL in
     * its header, its major version 0 (the only one a kernel reads), which no text has. */
    if ((size_t)(data[0] | (data[1] << 8)) != len)
        return false;
    return memchr(data, 0, VM_MF_HEADER_SIZE) || !starts_like_text(data[0]);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Reads all of `f` into a fresh buffer; false with an error message on failure. */
static bool read_all(FILE *f, const char *path, uint8_t **out, size_t *len,
                     vm_manifest_diags *diags)
{
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, path, VM_MF_AT_FILE, 0, "out of memory");
        return false;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= LOAD_MAX) {
                vm_mf_diag(diags, VM_MANIFEST_ERROR, path, VM_MF_AT_FILE, 0,
                           "file is larger than %u bytes; no manifest is that big",
                           LOAD_MAX);
                free(buf);
                return false;
            }
            uint8_t *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                vm_mf_diag(diags, VM_MANIFEST_ERROR, path, VM_MF_AT_FILE, 0, "out of memory");
                free(buf);
                return false;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                vm_mf_diag(diags, VM_MANIFEST_ERROR, path, VM_MF_AT_FILE, 0,
                           "cannot read: %s", strerror(errno));
                free(buf);
                return false;
            }
            break;
        }
    }
    *out = buf;
    *len = n;
    return true;
}

vm_manifest *vm_manifest_load(const char *path, vm_manifest_diags *diags)
{
    bool is_stdin = !strcmp(path, "-");
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        vm_mf_diag(diags, VM_MANIFEST_ERROR, name, VM_MF_AT_FILE, 0, "cannot open: %s",
                   strerror(errno));
        return NULL;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    bool ok = read_all(f, name, &data, &len, diags);
    if (!is_stdin)
        fclose(f);
    if (!ok)
        return NULL;

    bool binary;
    if (ends_with(path, ".mnfb"))
        binary = true;
    else if (ends_with(path, ".mnfs"))
        binary = false;
    else
        /* a text manifest starts with '[', ';', '#' or a blank, never with a NUL */
        binary = vm_manifest_looks_binary(data, len) ||
                 memchr(data, '\0', len < VM_MF_HEADER_SIZE ? len : VM_MF_HEADER_SIZE);

    vm_manifest *m = binary ? vm_manifest_parse_binary(name, data, len, diags)
                            : vm_manifest_parse_text(name, (const char *)data, len, diags);
    free(data);
    return m;
}

/* ---- names ---- */

const char *vm_manifest_class_name(uint8_t class_id)
{
    switch (class_id) {
    case 0x00: return "Control";
    case 0x01: return "AP";
    case 0x05: return "HID";
    case 0x08: return "Power Supply";
    case 0x0a: return "Bridged PHY";
    case 0x0c: return "Display";
    case 0x0d: return "Camera";
    case 0x0e: return "Sensor";
    case 0x0f: return "Lights";
    case 0x10: return "Vibrator";
    case 0x11: return "Loopback";
    case 0x12: return "Audio";
    case 0x14: return "SVC";
    case 0x15: return "Bootrom";
    case 0x16: return "Firmware Management";
    case 0x17: return "Log";
    case 0xfe: return "Raw";
    case 0xff: return "Vendor Specific";
    default: return NULL;
    }
}

const char *vm_manifest_protocol_name(uint8_t protocol_id)
{
    switch (protocol_id) {
    case 0x00: return "Control";
    case 0x01: return "AP";
    case 0x02: return "GPIO";
    case 0x03: return "I2C";
    case 0x04: return "UART";
    case 0x05: return "HID";
    case 0x06: return "USB";
    case 0x07: return "SDIO";
    case 0x08: return "Power Supply";
    case 0x09: return "PWM";
    case 0x0b: return "SPI";
    case 0x0c: return "Display";
    case 0x0d: return "Camera Management";
    case 0x0e: return "Sensor";
    case 0x0f: return "Lights";
    case 0x10: return "Vibrator";
    case 0x11: return "Loopback";
    case 0x12: return "Audio Management";
    case 0x13: return "Audio Data";
    case 0x14: return "SVC";
    case 0x15: return "Bootrom";
    case 0x16: return "Camera Data";
    case 0x17: return "Firmware Download";
    case 0x18: return "Firmware Management";
    case 0x19: return "Authentication";
    case 0x1a: return "Log";
    case 0xfe: return "Raw";
    case 0xff: return "Vendor Specific";
    default: return NULL;
    }
}
