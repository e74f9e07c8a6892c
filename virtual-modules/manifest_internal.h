// SPDX-License-Identifier: MIT
// Shared by the manifest readers, writers and checker; not part of the public interface.
// Descriptor layouts: include/linux/greybus/greybus_manifest.h (Linux 6.1).
#ifndef GBVP_VIRTUAL_MODULES_MANIFEST_INTERNAL_H
#define GBVP_VIRTUAL_MODULES_MANIFEST_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/manifest.h"

/* Descriptor types (enum greybus_descriptor_type). */
enum {
    VM_MF_INTERFACE = 0x01,
    VM_MF_STRING = 0x02,
    VM_MF_BUNDLE = 0x03,
    VM_MF_CPORT = 0x04,
};

enum {
    VM_MF_HEADER_SIZE = 4,
    VM_MF_DESC_HEADER_SIZE = 4,
    VM_MF_INTERFACE_SIZE = 8,
    VM_MF_BUNDLE_SIZE = 8,
    VM_MF_CPORT_SIZE = 8,
    VM_MF_STRING_BASE = 6,
    VM_MF_STRING_MAX = 255,
};

/* Bundle classes and protocols the checker names (enum greybus_class_type and
 * enum greybus_protocol). */
enum {
    VM_CLASS_CONTROL = 0x00,
    VM_CLASS_HID = 0x05,
    VM_CLASS_POWER_SUPPLY = 0x08,
    VM_CLASS_BRIDGED_PHY = 0x0a,
    VM_CLASS_CAMERA = 0x0d,
    VM_CLASS_LIGHTS = 0x0f,
    VM_CLASS_VIBRATOR = 0x10,
    VM_CLASS_LOOPBACK = 0x11,
    VM_CLASS_AUDIO = 0x12,
    VM_CLASS_BOOTROM = 0x15,
    VM_CLASS_FW_MANAGEMENT = 0x16,
    VM_CLASS_LOG = 0x17,
    VM_CLASS_RAW = 0xfe,
};
enum {
    VM_PROTOCOL_CONTROL = 0x00,
    VM_PROTOCOL_GPIO = 0x02,
    VM_PROTOCOL_I2C = 0x03,
    VM_PROTOCOL_UART = 0x04,
    VM_PROTOCOL_HID = 0x05,
    VM_PROTOCOL_USB = 0x06,
    VM_PROTOCOL_SDIO = 0x07,
    VM_PROTOCOL_POWER_SUPPLY = 0x08,
    VM_PROTOCOL_PWM = 0x09,
    VM_PROTOCOL_SPI = 0x0b,
    VM_PROTOCOL_CAMERA_MGMT = 0x0d,
    VM_PROTOCOL_LIGHTS = 0x0f,
    VM_PROTOCOL_VIBRATOR = 0x10,
    VM_PROTOCOL_LOOPBACK = 0x11,
    VM_PROTOCOL_AUDIO_MGMT = 0x12,
    VM_PROTOCOL_AUDIO_DATA = 0x13,
    VM_PROTOCOL_BOOTROM = 0x15,
    VM_PROTOCOL_CAMERA_DATA = 0x16,
    VM_PROTOCOL_FW_DOWNLOAD = 0x17,
    VM_PROTOCOL_FW_MANAGEMENT = 0x18,
    VM_PROTOCOL_AUTHENTICATION = 0x19,
    VM_PROTOCOL_LOG = 0x1a,
    VM_PROTOCOL_RAW = 0xfe,
};

/* Where a diagnostic points: a text line, a byte offset, or the whole file. */
typedef enum vm_mf_where_kind { VM_MF_AT_FILE, VM_MF_AT_LINE, VM_MF_AT_OFFSET } vm_mf_where_kind;

typedef struct vm_mf_desc {
    uint8_t type;
    size_t where;        /* line (text) or byte offset (binary) of the descriptor */
    size_t size;         /* size as read from a binary, else the canonical size */
    const char *quirk;   /* binary only: why the text form cannot express it, or NULL */
    union {
        struct { uint8_t vendor, product, features; } intf;
        struct { uint8_t id, len; uint8_t bytes[VM_MF_STRING_MAX]; } str;
        struct { uint8_t id, cls; } bundle;
        struct { uint16_t id; uint8_t bundle, protocol; } cport;
    } u;
} vm_mf_desc;

typedef struct vm_mf_bundle {
    uint8_t id, cls;
    size_t *cports;      /* indexes into vm_manifest.cports */
    size_t ncports;
} vm_mf_bundle;

typedef struct vm_mf_cport {
    uint16_t id;
    uint8_t protocol;
    size_t bundle;       /* index into vm_manifest.bundles */
} vm_mf_cport;

struct vm_manifest {
    char *name;
    vm_mf_where_kind at;         /* VM_MF_AT_LINE for text, VM_MF_AT_OFFSET for binary */
    uint8_t major, minor;
    size_t header_where;
    vm_mf_desc *descs;
    size_t ndescs, descs_cap;
    uint8_t *bytes;              /* the binary form */
    size_t nbytes;
    /* the kernel's view, filled in by vm_mf_check() */
    const vm_mf_desc *intf;
    char *vendor, *product;
    vm_mf_bundle *bundles;
    size_t nbundles;
    vm_mf_cport *cports;
    size_t ncports;
};

/* Diagnostics. `name` and `at` say where; `where` is a line or an offset. Adding to a NULL
 * list only counts nothing. Returns nothing: a list that cannot grow drops the entry but
 * still counts errors. */
void vm_mf_diag(vm_manifest_diags *d, vm_manifest_severity sev, const char *name,
                vm_mf_where_kind at, size_t where, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void vm_mf_vdiag(vm_manifest_diags *d, vm_manifest_severity sev, const char *name,
                 vm_mf_where_kind at, size_t where, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

/* Model construction. */
vm_manifest *vm_mf_new(const char *name, vm_mf_where_kind at);
/* Appends a zeroed descriptor; NULL when out of memory. */
vm_mf_desc *vm_mf_add_desc(vm_manifest *m, uint8_t type, size_t where);

/* Runs every rule; fills the kernel's view when there is no error. Returns the number of
 * errors found (reported to d, which may be NULL). */
size_t vm_mf_check(vm_manifest *m, vm_manifest_diags *d);
/* Encodes the descriptors into m->bytes. false (with an error) when over 64 KiB. */
bool vm_mf_encode(vm_manifest *m, vm_manifest_diags *d);
/* Strict UTF-8 (no overlong forms, no surrogates). */
bool vm_mf_valid_utf8(const uint8_t *s, size_t n);
/* "cport-descriptor 3", "string-descriptor 1", "interface-descriptor". */
void vm_mf_desc_label(const vm_mf_desc *desc, char *buf, size_t size);

#endif
