// SPDX-License-Identifier: MIT
// `gbvp test PATH...`: runs scenarios in parallel, each in its own process: TAP, JUnit
// XML and a summary.
#ifndef GBVP_GBVP_CMD_TEST_H
#define GBVP_GBVP_CMD_TEST_H

int cmd_test_main(int argc, char **argv);

#endif
