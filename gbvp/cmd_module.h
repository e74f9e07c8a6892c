// SPDX-License-Identifier: MIT
// The `gbvp module` subcommand (argv[0] is "module"): list and check catalog entries.
#ifndef GBVP_GBVP_CMD_MODULE_H
#define GBVP_GBVP_CMD_MODULE_H

#include <stdio.h>

int cmd_module_main(int argc, char **argv);
/* The same, writing to out/err (for tests). Returns the exit status. */
int cmd_module_run(int argc, char **argv, FILE *out, FILE *err);

#endif
