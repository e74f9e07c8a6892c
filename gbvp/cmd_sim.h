// SPDX-License-Identifier: MIT
// `gbvp sim`: the simulator alone, for a QEMU (or other AP) the user starts; a loop
// over the gblink socket, standard input, signals and the control socket.
#ifndef GBVP_GBVP_CMD_SIM_H
#define GBVP_GBVP_CMD_SIM_H

int cmd_sim_main(int argc, char **argv);

#endif
