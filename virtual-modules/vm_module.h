// SPDX-License-Identifier: MIT
// A module from the catalog: one or more interfaces, each a manifest plus behaviour.
//
// A catalog entry `<name>` is `catalog/<name>.mnfs` (manifesto text manifest) and an
// optional `catalog/<name>.behaviour` (backends and initial state, docs/modules.md). A
// loaded vm_module is immutable and may be inserted many times: each insertion creates
// live interfaces with vm_module_create_interface, owned by the caller (the SVC's slot).
#ifndef GBVP_VIRTUAL_MODULES_VM_MODULE_H
#define GBVP_VIRTUAL_MODULES_VM_MODULE_H

#include <stddef.h>

#include "virtual-modules/vm_interface.h"

typedef struct vm_module vm_module;

/* Loads catalog entry `name` from directory `catalog_dir` (NULL = "virtual-modules/catalog").
 * Returns NULL with a message in err (file:line: what is wrong) on failure. */
vm_module *vm_module_load(const char *catalog_dir, const char *name, char *err, size_t errlen);
void vm_module_free(vm_module *m);

const char *vm_module_name(const vm_module *m);
/* The behaviour file's [module] description, or "" when it has none. */
const char *vm_module_description(const vm_module *m);
/* Number of interfaces the module occupies (the SVC's intf_count, >= 1). */
size_t vm_module_interface_count(const vm_module *m);

/* A new live interface for interface `index` (0-based) of the module, sending through out.
 * `serial_number` distinguishes insertions (DME 0x6002/0x6003). Caller owns the result. */
vm_interface *vm_module_create_interface(const vm_module *m, size_t index, vm_output out,
                                         uint64_t serial_number, char *err, size_t errlen);

/* The entry names in catalog_dir (NULL = "virtual-modules/catalog"), sorted: NAME for
 * NAME.mnfs and NAME.intf1.mnfs. Stores a NULL-terminated array the caller frees with
 * vm_catalog_names_free and returns the count, or -1 with the reason in err. */
long vm_catalog_names(const char *catalog_dir, char ***names, char *err, size_t errlen);
void vm_catalog_names_free(char **names);

#endif
