// SPDX-License-Identifier: MIT
// The reason a virtual-modules call failed, written into the caller's buffer: the
// `char *err, size_t errlen` pair that loaders and constructors take.
#ifndef GBVP_VIRTUAL_MODULES_VM_ERROR_H
#define GBVP_VIRTUAL_MODULES_VM_ERROR_H

#include <stddef.h>

/* printf into err (nothing when err is NULL or errlen is 0; cut to errlen). */
void vm_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
