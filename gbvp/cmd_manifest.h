// SPDX-License-Identifier: MIT
// The `gbvp manifest` subcommand (argv[0] is "manifest"). Returns the exit status.
#ifndef GBVP_GBVP_CMD_MANIFEST_H
#define GBVP_GBVP_CMD_MANIFEST_H

int cmd_manifest_main(int argc, char **argv);

#endif
