// SPDX-License-Identifier: MIT
// The module catalog for fuzz targets, loaded once in LLVMFuzzerInitialize: every entry of
// $GBVP_CATALOG (default virtual-modules/catalog), sorted by name so that an input means
// the same across runs. Any failure ends the process with a message naming the target.
#ifndef GBVP_TESTS_FUZZ_FUZZ_CATALOG_H
#define GBVP_TESTS_FUZZ_FUZZ_CATALOG_H

#include <stdio.h>
#include <stdlib.h>

#include "virtual-modules/vm_module.h"

/* Loads up to max modules into mods and returns how many (at least one). */
static inline size_t fuzz_load_catalog(const char *target, vm_module **mods, size_t max)
{
    const char *dir = getenv("GBVP_CATALOG");
    if (!dir)
        dir = "virtual-modules/catalog";
    char **names, err[512];
    long nnames = vm_catalog_names(dir, &names, err, sizeof err);
    if (nnames < 0) {
        fprintf(stderr, "%s: %s (run from the repository root or set GBVP_CATALOG)\n", target,
                err);
        exit(1);
    }
    size_t n = 0;
    for (long i = 0; i < nnames && n < max; i++) {
        vm_module *m = vm_module_load(dir, names[i], err, sizeof err);
        if (!m) {
            fprintf(stderr, "%s: catalog entry %s: %s\n", target, names[i], err);
            exit(1);
        }
        mods[n++] = m;
    }
    vm_catalog_names_free(names);
    if (!n) {
        fprintf(stderr, "%s: no module in %s\n", target, dir);
        exit(1);
    }
    return n;
}

#endif
