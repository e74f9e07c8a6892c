// SPDX-License-Identifier: MIT
// Log level names and line formatting (see sw_log.h).
#include "switch-model/sw_log.h"

#include <stdio.h>
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

void sw_log_vprintf(sw_log_fn fn, void *ctx, sw_log_level level, sim_time now, const char *fmt,
                    va_list ap)
{
    if (!fn)
        return;
    char line[320];
    vsnprintf(line, sizeof line, fmt, ap);
    fn(ctx, level, now, line);
}

void sw_log_printf(sw_log_fn fn, void *ctx, sw_log_level level, sim_time now, const char *fmt,
                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    sw_log_vprintf(fn, ctx, level, now, fmt, ap);
    va_end(ap);
}
