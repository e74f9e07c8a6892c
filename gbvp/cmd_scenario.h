// SPDX-License-Identifier: MIT
// `gbvp scenario FILE`: runs one Lua scenario against a target and prints TAP.
#ifndef GBVP_GBVP_CMD_SCENARIO_H
#define GBVP_GBVP_CMD_SCENARIO_H

int cmd_scenario_main(int argc, char **argv);

#endif
