// SPDX-License-Identifier: MIT
// The INI dialect of manifesto's text manifests: Python's configparser with its defaults
// (what manifesto uses), reimplemented so that files read the same way here as there.
// Internal to the manifest reader.
#ifndef GBVP_VIRTUAL_MODULES_MANIFEST_INI_H
#define GBVP_VIRTUAL_MODULES_MANIFEST_INI_H

#include <stdbool.h>
#include <stddef.h>

#include "virtual-modules/manifest.h"

typedef struct vm_ini_key {
    char *name;          /* lower-cased, NUL-terminated */
    char *value;         /* lines joined with '\n', trailing whitespace removed */
    size_t value_len;    /* the value may hold NUL bytes */
    size_t value_cap;
    size_t line;
    bool used;
} vm_ini_key;

typedef struct vm_ini_section {
    char *name;          /* as written between the brackets */
    size_t line;
    vm_ini_key *keys;
    size_t nkeys, cap;
} vm_ini_section;

typedef struct vm_ini {
    vm_ini_section *sections;
    size_t nsections, cap;
} vm_ini;

/* Limits that keep hostile input linear: a manifest small enough for the AP (2040 bytes)
 * has at most 254 descriptors of a few keys each. */
#define VM_INI_SECTIONS_MAX 1024
#define VM_INI_KEYS_MAX 32

/* Splits `text` into sections and keys. Syntax errors go to `d` (named `name`) and are
 * counted in *errors; the sections that could be read are returned all the same. NULL
 * only when out of memory. */
vm_ini *vm_ini_parse(const char *name, const char *text, size_t len, vm_manifest_diags *d,
                     size_t *errors);
void vm_ini_free(vm_ini *ini);

/* The key of a section, or NULL. Marks it used. */
vm_ini_key *vm_ini_get(vm_ini_section *s, const char *key);

#endif
