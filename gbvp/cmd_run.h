// SPDX-License-Identifier: MIT
// `gbvp run`: the whole platform in one command. Builds QEMU and the guest when needed
// (scripts/build-qemu.sh, scripts/build-guest.sh), starts the simulator as a child `gbvp sim`
// (or `gbvp scenario --target guest` for --scenario), boots the guest in QEMU with the
// greybus-es2 device on the simulator's gblink socket, runs the scenario and exits with its
// verdict, leaving no QEMU or simulator behind (Ctrl-C included). docs/running.md.
#ifndef GBVP_SIM_RUN_CLI_H
#define GBVP_SIM_RUN_CLI_H

int cmd_run_main(int argc, char **argv);

#endif
