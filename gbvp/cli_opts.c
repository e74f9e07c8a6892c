// SPDX-License-Identifier: MIT
// Text-valued command-line options (gbvp/cli_opts.h).
#include "gbvp/cli_opts.h"

#include <errno.h>
#include <stdlib.h>
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

bool sim_cli_seed(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    /* decimal, or hex after 0x: never octal, so 010 is ten as written */
    bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    unsigned long long n = strtoull(v, &end, hex ? 16 : 10);
    if (errno || end == v || *end || v[0] == '-' || n > INT64_MAX)
        return false;
    *out = n;
    return true;
}

bool sim_cli_set_ok(const char *v)
{
    const char *eq = strchr(v, '=');
    return eq && eq != v;
}
