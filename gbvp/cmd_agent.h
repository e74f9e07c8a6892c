// SPDX-License-Identifier: MIT
// `gbvp agent`: runs one shell command in the guest through its agent and exits with
// its status, the way ssh does.
#ifndef GBVP_GBVP_CMD_AGENT_H
#define GBVP_GBVP_CMD_AGENT_H

int cmd_agent_main(int argc, char **argv);

#endif
