// SPDX-License-Identifier: MIT
// Error reasons into the caller's buffer (virtual-modules/vm_error.h).
#include "virtual-modules/vm_error.h"

#include <stdarg.h>
#include <stdio.h>

void vm_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
