// SPDX-License-Identifier: MIT
// Text-valued command-line options (gbvp/cli_opts.h).
#include "gbvp/cli_opts.h"

#include <string.h>

bool sim_cli_text_opt_set(const sim_cli_text_opt *opts, const char *name, const char *value)
{
    for (; opts->name; opts++)
        if (!strcmp(opts->name, name)) {
            *opts->value = value;
            return true;
        }
    return false;
}
