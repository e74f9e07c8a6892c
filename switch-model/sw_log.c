// SPDX-License-Identifier: MIT
// Log level names (see sw_log.h).
#include "switch-model/sw_log.h"

#include <string.h>

static const char *const names[] = { "error", "warn", "info", "debug" };

const char *sw_log_level_name(sw_log_level level)
{
    return (unsigned)level < sizeof names / sizeof names[0] ? names[level] : "?";
}

int sw_log_level_parse(const char *name, sw_log_level *out)
{
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i])) {
            *out = (sw_log_level)i;
            return 0;
        }
    return -1;
}
