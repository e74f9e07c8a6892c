// SPDX-License-Identifier: MIT
// Drawing a sweep's table with tools/model_plot.py (model_plot.h).
#include "gbvp/model/model_plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbvp/paths.h"

#define PLOTTER "tools/model_plot.py"

int model_plot(const model_table *t, const char *dir, char *err, size_t len)
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        snprintf(err, len, "--plot %s: %s", dir, strerror(errno));
        return -1;
    }
    char table[4096], script[4096], e[1024];
    snprintf(table, sizeof table, "%s/table.json", dir);
    FILE *f = fopen(table, "w");
    if (!f) {
        snprintf(err, len, "--plot: %s: %s", table, strerror(errno));
        return -1;
    }
    model_table_json(t, f);
    if (fclose(f)) {
        snprintf(err, len, "--plot: %s: %s", table, strerror(errno));
        return -1;
    }
    if (sim_paths_data_file(PLOTTER, script, sizeof script, e, sizeof e)) {
        snprintf(err, len, "--plot: cannot find the plotter: %s", e);
        return -1;
    }
    const char *python = getenv(MODEL_PLOT_PYTHON_ENV);
    if (!python || !*python)
        python = "/usr/bin/python3";
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl(python, python, script, table, dir, (char *)NULL);
        fprintf(stderr, "gbvp model: --plot: cannot run %s: %s\n", python, strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) {
        snprintf(err, len, "--plot: cannot run %s: %s", python, strerror(errno));
        return -1;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        snprintf(err, len, "--plot: %s %s failed (%s %d)", python, script,
                 WIFEXITED(st) ? "exit status" : "signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        return -1;
    }
    return 0;
}
