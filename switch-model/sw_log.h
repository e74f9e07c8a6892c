// SPDX-License-Identifier: MIT
// How the switch fabric and the SVC report what happened: a level and one readable line,
// handed to a sink their owner provides (the simulator prints it, tests record it).
#ifndef GBVP_SWITCH_MODEL_SW_LOG_H
#define GBVP_SWITCH_MODEL_SW_LOG_H

#include <stdarg.h>

#include "event-kernel/scheduler.h"

typedef enum sw_log_level {
    SW_LOG_ERROR = 0,
    SW_LOG_WARN = 1,
    SW_LOG_INFO = 2,
    SW_LOG_DEBUG = 3,
} sw_log_level;

/* One line (no trailing newline) at simulated time `now`. */
typedef void (*sw_log_fn)(void *ctx, sw_log_level level, sim_time now, const char *line);

/* Formats one line (cut at 320 characters) and hands it to `fn`; nothing when fn is NULL. */
void sw_log_printf(sw_log_fn fn, void *ctx, sw_log_level level, sim_time now, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));
void sw_log_vprintf(sw_log_fn fn, void *ctx, sw_log_level level, sim_time now, const char *fmt,
                    va_list ap) __attribute__((format(printf, 5, 0)));

/* "error", "warn", "info" or "debug"; "?" outside the range. */
const char *sw_log_level_name(sw_log_level level);
/* The level named `name` (as sw_log_level_name). 0 or -1 for an unknown name. */
int sw_log_level_parse(const char *name, sw_log_level *out);

#endif
