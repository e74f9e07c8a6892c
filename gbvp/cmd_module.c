// SPDX-License-Identifier: MIT
// `gbvp module`: list the catalog, check entries (manifest + behaviour) and show what each
// interface's CPorts run.
#include "gbvp/cmd_module.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gbvp/paths.h"
#include "virtual-modules/vm_module.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp module [--catalog DIR] list\n"
            "       gbvp module [--catalog DIR] check NAME...\n"
            "\n"
            "list   the catalog entries, with their interface count\n"
            "check  load each entry (manifest and behaviour, as an insertion would) and\n"
            "       print its interfaces' CPorts and backends, or the first error\n"
            "\n"
            "--catalog DIR  catalog directory (default: DATA/virtual-modules/catalog, where\n"
            "               DATA is $GBVP_DATADIR, PREFIX/share/gbvp for an installed gbvp,\n"
            "               or the source tree of a built one)\n"
            "exit status: 0 success, 1 an entry does not load, 2 bad usage.\n");
}

/* Entry names: NAME.mnfs, or NAME.intf1.mnfs for multi-interface modules. */
static int list(const char *dir, FILE *out, FILE *err)
{
    char **names, msg[512];
    long n = vm_catalog_names(dir, &names, msg, sizeof msg);
    if (n < 0) {
        fprintf(err, "gbvp module: %s\n", msg);
        return 2;
    }
    int status = 0;
    for (long i = 0; i < n; i++) {
        vm_module *m = vm_module_load(dir, names[i], msg, sizeof msg);
        if (m)
            fprintf(out, "%-16s %zu %-11s %s\n", names[i], vm_module_interface_count(m),
                    vm_module_interface_count(m) == 1 ? "interface" : "interfaces",
                    vm_module_description(m));
        else
            fprintf(out, "%-16s BROKEN: %s\n", names[i], msg);
        status |= !m;
        vm_module_free(m);
    }
    vm_catalog_names_free(names);
    return status;
}

static int check(const char *dir, char **names, int count, FILE *out, FILE *err)
{
    int status = 0;
    for (int i = 0; i < count; i++) {
        char msg[512];
        vm_module *m = vm_module_load(dir, names[i], msg, sizeof msg);
        if (!m) {
            fprintf(err, "%s\n", msg);
            status = 1;
            continue;
        }
        fprintf(out, "%s: ok, %zu interface%s\n", names[i], vm_module_interface_count(m),
                vm_module_interface_count(m) == 1 ? "" : "s");
        for (size_t k = 0; k < vm_module_interface_count(m); k++) {
            vm_interface *intf = vm_module_create_interface(m, k, (vm_output){0}, 0, msg,
                                                            sizeof msg);
            if (!intf) {
                fprintf(err, "%s\n", msg);
                status = 1;
                continue;
            }
            char desc[2048];
            vm_interface_describe(intf, desc, sizeof desc);
            fprintf(out, "  interface %zu:\n", k + 1);
            for (char *line = strtok(desc, "\n"); line; line = strtok(NULL, "\n"))
                fprintf(out, "    %s\n", line);
            vm_interface_free(intf);
        }
        vm_module_free(m);
    }
    return status;
}

int cmd_module_run(int argc, char **argv, FILE *out, FILE *err)
{
    const char *dir = NULL;
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(out);
            return 0;
        }
        if (!strcmp(argv[i], "--catalog") && i + 1 < argc) {
            dir = argv[i + 1];
            i += 2;
            continue;
        }
        fprintf(err, "gbvp module: unknown option '%s'\n", argv[i]);
        usage(err);
        return 2;
    }
    bool list_cmd = i < argc && !strcmp(argv[i], "list") && i + 1 == argc;
    bool check_cmd = i < argc && !strcmp(argv[i], "check") && i + 1 < argc;
    if (!list_cmd && !check_cmd) {
        usage(err);
        return 2;
    }
    char catalog[PATH_MAX], why[PATH_MAX + 256];
    if (!dir) {
        if (sim_paths_catalog(catalog, sizeof catalog, why, sizeof why)) {
            fprintf(err, "gbvp module: no module catalog: %s (or give --catalog DIR)\n", why);
            return 2;
        }
        dir = catalog;
    }
    if (list_cmd)
        return list(dir, out, err);
    return check(dir, argv + i + 1, argc - i - 1, out, err);
}

int cmd_module_main(int argc, char **argv)
{
    return cmd_module_run(argc, argv, stdout, stderr);
}
