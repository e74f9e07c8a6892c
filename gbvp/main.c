// SPDX-License-Identifier: MIT
// The gbvp program: one binary, one subcommand per job. Each part that owns a subcommand
// exposes `int <name>_cli_main(int argc, char **argv)`; this file only dispatches.
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gbvp/cmd_agent.h"
#include "gbvp/cmd_ctl.h"
#include "gbvp/cmd_manifest.h"
#include "gbvp/cmd_model.h"
#include "gbvp/cmd_module.h"
#include "gbvp/cmd_run.h"
#include "gbvp/cmd_scenario.h"
#include "gbvp/cmd_sim.h"
#include "gbvp/cmd_test.h"
#include "gbvp/paths.h"
#include "gbvp/version.h"

typedef struct sim_command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *summary;
} sim_command;

static const sim_command commands[] = {
    /* One line per subcommand; keep the table sorted by name. */
    { "agent", cmd_agent_main, "run a shell command in the guest through its agent" },
    { "ctl", cmd_ctl_main, "send a command to a running simulator's control socket" },
    { "manifest", cmd_manifest_main, "convert or check a Greybus manifest (.mnfs, .mnfb)" },
    { "model", cmd_model_main, "run a UniPro network on the timing model without QEMU" },
    { "module", cmd_module_main, "list the module catalog, check entries (manifest + behaviour)" },
    { "run", cmd_run_main, "build, boot the guest with the simulator and run a scenario" },
    { "scenario", cmd_scenario_main, "run one Lua scenario against the simulator (TAP)" },
    { "sim", cmd_sim_main, "run the simulator alone (SVC, switch, modules) for QEMU to connect" },
    { "test", cmd_test_main, "run scenarios in parallel: TAP, JUnit XML, a summary" },
    { 0, 0, 0 },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gbvp COMMAND [ARGS...]\n\n"
                 "gbvp %s: a Greybus/UniPro virtual platform.\n\ncommands:\n",
            SIM_VERSION);
    for (const sim_command *c = commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "  %-10s %s\n", "version", "print the version");
    fprintf(out, "  %-10s %s\n", "help", "print this help");
    fprintf(out, "\n'gbvp COMMAND --help' describes each command.\n");
    /* where this program takes its catalog, scenarios and scripts from (docs/running.md) */
    char data[PATH_MAX], err[PATH_MAX + 256];
    if (sim_paths_data_dir(data, sizeof data, err, sizeof err))
        fprintf(out, "data folder: none: %s\n", err);
    else
        fprintf(out, "data folder: %s (catalog, scenarios, scripts; $%s overrides)\n", data,
                SIM_PATHS_DATA_ENV);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "version") || !strcmp(name, "--version")) {
        printf("gbvp %s\n", SIM_VERSION);
        return 0;
    }
    /* A reader that goes away (a capture's FIFO, a control client, a pipe) is an error to
     * report where the write fails, not a reason to die. */
    signal(SIGPIPE, SIG_IGN);
    for (const sim_command *c = commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c->main(argc - 1, argv + 1);
    fprintf(stderr, "gbvp: unknown command '%s' (try 'gbvp help')\n", name);
    return 2;
}
