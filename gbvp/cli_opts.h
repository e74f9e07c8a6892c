// SPDX-License-Identifier: MIT
// Command-line options of the gbvp subcommands that take a text value as it is (--link
// PATH, --catalog DIR, --tap FILE ...): a table of names and where each value goes, looked
// up once instead of a strcmp branch an option.
#ifndef GBVP_GBVP_CLI_OPTS_H
#define GBVP_GBVP_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sim_cli_text_opt {
    const char *name;   /* e.g. "--link"; NULL ends the table */
    const char **value; /* receives the option's argument (borrowed from argv) */
} sim_cli_text_opt;

/* When `name` is in `opts`, stores `value` in its place and returns true. */
bool sim_cli_text_opt_set(const sim_cli_text_opt *opts, const char *name, const char *value);

/* --seed N of a scenario: 0..2^63-1, decimal or 0x hex (gbvp scenario's, which gbvp test
 * checks before forwarding it). */
bool sim_cli_seed(const char *v, uint64_t *out);
/* --set NAME=VALUE: a NAME before the '='. */
bool sim_cli_set_ok(const char *v);

#endif
