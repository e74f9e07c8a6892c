// SPDX-License-Identifier: MIT
// The `gbvp manifest` subcommand (argv[0] is "manifest"). Returns the exit status.
#ifndef GBVP_VM_MANIFEST_CLI_H
#define GBVP_VM_MANIFEST_CLI_H

int cmd_manifest_main(int argc, char **argv);

#endif
