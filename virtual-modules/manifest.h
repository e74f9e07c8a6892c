// SPDX-License-Identifier: MIT
// Greybus interface manifests: manifesto's text form (.mnfs, INI) and the binary form the
// kernel reads (.mnfb), validated with the rules of Linux 6.1 (drivers/greybus/manifest.c
// and the staging class drivers). See docs/manifests.md.
//
// A vm_manifest is only ever handed out valid: every reader runs the full check and
// returns NULL when it found an error. Problems are reported through a vm_manifest_diags
// list as "FILE:LINE: error: ..." (text) or "FILE:0xOFFSET: error: ..." (binary).
#ifndef GBVP_VIRTUAL_MODULES_MANIFEST_H
#define GBVP_VIRTUAL_MODULES_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct vm_manifest vm_manifest;
typedef struct vm_manifest_diags vm_manifest_diags;

/* Largest manifest the 6.1 AP can fetch: GET_MANIFEST is one operation and the ES2
 * bridge carries at most 2048 bytes per message, 8 of them the header. */
#define VM_MANIFEST_FETCH_MAX 2040u
/* Largest manifest the format can express (the header's size field is 16 bits). */
#define VM_MANIFEST_FORMAT_MAX 65535u
/* Highest CPort id the kernel accepts in a manifest (CPORT_ID_MAX). */
#define VM_MANIFEST_CPORT_ID_MAX 4095u

typedef enum vm_manifest_severity {
    VM_MANIFEST_WARNING = 1,  /* the kernel accepts it, but something will not work */
    VM_MANIFEST_ERROR = 2,    /* the manifest is refused */
} vm_manifest_severity;

/* ---- diagnostics ---- */

/* An empty list. The caller owns it; NULL when out of memory. */
vm_manifest_diags *vm_manifest_diags_new(void);
void vm_manifest_diags_free(vm_manifest_diags *d);
/* Forgets every entry, to reuse the list. */
void vm_manifest_diags_clear(vm_manifest_diags *d);
size_t vm_manifest_diags_count(const vm_manifest_diags *d);
size_t vm_manifest_diags_errors(const vm_manifest_diags *d);
size_t vm_manifest_diags_warnings(const vm_manifest_diags *d);
vm_manifest_severity vm_manifest_diags_severity(const vm_manifest_diags *d, size_t i);
/* The whole line, e.g. "gpio.mnfs:14: error: cport-descriptor 3 names bundle 7, which
 * does not exist". Owned by the list. */
const char *vm_manifest_diags_message(const vm_manifest_diags *d, size_t i);
/* true when some entry contains `needle` (for tests and tools). */
bool vm_manifest_diags_contain(const vm_manifest_diags *d, const char *needle);
/* Prints every entry with min_severity or above, one per line. */
void vm_manifest_diags_print(const vm_manifest_diags *d, FILE *out,
                             vm_manifest_severity min_severity);

/* ---- reading ---- */

/* Parses a text manifest. `name` is used in messages. `diags` may be NULL. The caller owns
 * the result; NULL when the manifest has an error (or memory ran out). */
vm_manifest *vm_manifest_parse_text(const char *name, const char *text, size_t len,
                                    vm_manifest_diags *diags);
/* Parses a binary manifest, exactly as the 6.1 kernel walks it. The bytes are kept as
 * given: vm_manifest_bytes() returns them unchanged. */
vm_manifest *vm_manifest_parse_binary(const char *name, const uint8_t *data, size_t len,
                                      vm_manifest_diags *diags);
/* Reads a file: "*.mnfs" is text, "*.mnfb" binary, anything else is binary when
 * vm_manifest_looks_binary() says so or its first 4 bytes hold a NUL, else text. "-" reads standard
 * input. I/O errors are reported as errors in `diags`. */
vm_manifest *vm_manifest_load(const char *path, vm_manifest_diags *diags);
/* true when `data` looks like a binary manifest: its size field equals len and it does not
 * start the way a text manifest does. */
bool vm_manifest_looks_binary(const uint8_t *data, size_t len);
void vm_manifest_free(vm_manifest *m);

/* ---- writing ---- */

/* The binary manifest (what GET_MANIFEST returns), owned by the manifest. */
const uint8_t *vm_manifest_bytes(const vm_manifest *m, size_t *len);
/* The manifest as manifesto text, NUL-terminated, owned by the caller (free()). The
 * descriptors keep their order, so text -> binary gives back vm_manifest_bytes() exactly.
 * NULL (with an error in `diags`) when the binary holds something the text form cannot
 * express: descriptors longer than needed, non-zero padding, unprintable strings. */
char *vm_manifest_to_text(const vm_manifest *m, vm_manifest_diags *diags);

/* ---- the model (the kernel's view: bundle 0 and its CPorts are left out) ---- */

const char *vm_manifest_name(const vm_manifest *m);
uint8_t vm_manifest_version_major(const vm_manifest *m);
uint8_t vm_manifest_version_minor(const vm_manifest *m);
/* Interface strings as NUL-terminated text; NULL when the descriptor names string 0. */
const char *vm_manifest_vendor_string(const vm_manifest *m);
const char *vm_manifest_product_string(const vm_manifest *m);
uint8_t vm_manifest_vendor_string_id(const vm_manifest *m);
uint8_t vm_manifest_product_string_id(const vm_manifest *m);
uint8_t vm_manifest_features(const vm_manifest *m);

/* Bundles in manifest order, index 0..count-1. */
size_t vm_manifest_bundle_count(const vm_manifest *m);
uint8_t vm_manifest_bundle_id(const vm_manifest *m, size_t bundle);
uint8_t vm_manifest_bundle_class(const vm_manifest *m, size_t bundle);
/* The bundle's CPorts in manifest order, as indexes into the CPort list below. */
size_t vm_manifest_bundle_cport_count(const vm_manifest *m, size_t bundle);
size_t vm_manifest_bundle_cport(const vm_manifest *m, size_t bundle, size_t i);
/* Index of the bundle with this id; false when none. */
bool vm_manifest_find_bundle(const vm_manifest *m, uint8_t bundle_id, size_t *bundle);

/* Every CPort of every bundle, in manifest order (CPort 0, the control CPort, is not in
 * the list: every interface has it). */
size_t vm_manifest_cport_count(const vm_manifest *m);
uint16_t vm_manifest_cport_id(const vm_manifest *m, size_t cport);
uint8_t vm_manifest_cport_protocol(const vm_manifest *m, size_t cport);
/* Index (into the bundle list) of the CPort's bundle. */
size_t vm_manifest_cport_bundle(const vm_manifest *m, size_t cport);
/* Index of the CPort with this id; false when none. */
bool vm_manifest_find_cport(const vm_manifest *m, uint16_t cport_id, size_t *cport);

/* ---- names of the specification's numbers ---- */

/* "Bridged PHY", "GPIO"...; NULL for values without a name. */
const char *vm_manifest_class_name(uint8_t class_id);
const char *vm_manifest_protocol_name(uint8_t protocol_id);

#endif
