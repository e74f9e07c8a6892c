// SPDX-License-Identifier: MIT
// `gbvp run`: the whole platform in one command. Builds QEMU and the guest when needed
// (scripts/build-qemu.sh, scripts/build-guest.sh), starts `gbvp sim` with its control
// socket, boots the guest in QEMU with the greybus-es2 device on the simulator's gblink
// socket, runs a scenario (scenarios/demo.lua by default) through the control socket and
// the guest agent, and exits with its verdict, leaving no QEMU or simulator behind (Ctrl-C
// included). docs/running.md.
#ifndef GBVP_GBVP_CMD_RUN_H
#define GBVP_GBVP_CMD_RUN_H

int cmd_run_main(int argc, char **argv);

#endif
