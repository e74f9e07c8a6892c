// SPDX-License-Identifier: MIT
// `gbvp ctl`: the command-line client of a running simulator's control socket.
#ifndef GBVP_GBVP_CMD_CTL_H
#define GBVP_GBVP_CMD_CTL_H

int cmd_ctl_main(int argc, char **argv);

#endif
