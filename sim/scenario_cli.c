// SPDX-License-Identifier: MIT
// `gbvp scenario FILE`: runs one Lua scenario against the simulator with the test AP
// attached (no QEMU), prints TAP, optionally writes JUnit XML, exits 0 when it passed.
#include "sim/scenario.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp scenario FILE [--seed N] [--set NAME=VALUE]... [--tap FILE]\n"
            "                     [--junit FILE] [--slots N] [--catalog DIR] [--timeout S]\n"
            "                     [--verbose]\n\n"
            "Runs a Lua scenario (docs/scenarios.md) against the simulator with the\n"
            "6.1-faithful test AP attached, printing TAP. Exit status: 0 passed, 1 failed,\n"
            "2 bad usage.\n\n"
            "  --seed N          seed of gbvp.random (default 1); the same seed, the same run\n"
            "  --set NAME=VALUE  a value the script reads with gbvp.arg(NAME, default)\n"
            "  --tap FILE        write TAP to FILE instead of standard output\n"
            "  --junit FILE      also write JUnit XML\n"
            "  --slots N         slots in the frame, 1..%u (default 4)\n"
            "  --catalog DIR     module catalog (default virtual-modules/catalog)\n"
            "  --timeout S       wall-clock limit of the script in seconds (default 300)\n"
            "  --verbose         print the test AP's trace and the SVC log\n",
            GB_SVC_SLOTS_MAX);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || v > max)
        return -1;
    *out = v;
    return 0;
}

/* The scenario's name in reports: its file name without directory and .lua. */
static void suite_name(const char *path, char *buf, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(buf, len, "%s", b ? b + 1 : path);
    size_t n = strlen(buf);
    if (n > 4 && !strcmp(buf + n - 4, ".lua"))
        buf[n - 4] = 0;
}

int sim_scenario_cli_main(int argc, char **argv)
{
    const char *file = NULL, *tap_path = NULL, *junit = NULL, *catalog = NULL;
    const char *args[MAX_ARGS];
    size_t nargs = 0;
    uint64_t seed = 1, slots = 4, timeout = 300;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--verbose")) {
            verbose = true;
            continue;
        }
        if (a[0] != '-') {
            if (file) {
                fprintf(stderr, "gbvp scenario: one scenario at a time ('%s' and '%s'); "
                        "'gbvp test' runs several\n", file, a);
                return 2;
            }
            file = a;
            continue;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v) {
            fprintf(stderr, "gbvp scenario: %s needs a value (try --help)\n", a);
            return 2;
        }
        if (!strcmp(a, "--seed")) {
            if (parse_u64(v, INT64_MAX, &seed)) {
                fprintf(stderr, "gbvp scenario: --seed %s: want a number 0..2^63-1\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--slots")) {
            if (parse_u64(v, GB_SVC_SLOTS_MAX, &slots) || !slots) {
                fprintf(stderr, "gbvp scenario: --slots %s: want 1..%u\n", v, GB_SVC_SLOTS_MAX);
                return 2;
            }
        } else if (!strcmp(a, "--timeout")) {
            if (parse_u64(v, 86400, &timeout)) {
                fprintf(stderr, "gbvp scenario: --timeout %s: want seconds, 0..86400\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--set")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || nargs == MAX_ARGS) {
                fprintf(stderr, "gbvp scenario: --set %s: want NAME=VALUE (at most %d)\n", v,
                        MAX_ARGS);
                return 2;
            }
            args[nargs++] = v;
        } else if (!strcmp(a, "--tap")) {
            tap_path = v;
        } else if (!strcmp(a, "--junit")) {
            junit = v;
        } else if (!strcmp(a, "--catalog")) {
            catalog = v;
        } else {
            fprintf(stderr, "gbvp scenario: unknown option %s (try --help)\n", a);
            return 2;
        }
    }
    if (!file) {
        usage(stderr);
        return 2;
    }
    FILE *tap_out = stdout;
    if (tap_path && !(tap_out = fopen(tap_path, "w"))) {
        fprintf(stderr, "gbvp scenario: cannot write %s: %s\n", tap_path, strerror(errno));
        return 2;
    }
    int rc = 1;
    char err[256];
    sim_scenario_tap *t = sim_scenario_tap_new((unsigned)slots, catalog, verbose);
    if (!t) {
        fprintf(stderr, "gbvp scenario: the simulator with the test AP did not come up\n");
        goto out;
    }
    sim_scenario_config cfg = { .catalog_dir = catalog, .seed = seed,
                                .timeout_s = (unsigned)timeout, .tap = tap_out,
                                .args = args, .nargs = nargs };
    sim_scenario *sc = sim_scenario_new(&cfg, sim_scenario_tap_target(t), err, sizeof err);
    if (!sc) {
        fprintf(stderr, "gbvp scenario: %s\n", err);
        goto out;
    }
    rc = sim_scenario_run_file(sc, file);
    if (sim_scenario_error(sc))
        fprintf(stderr, "gbvp scenario: %s: error: %s\n", file, sim_scenario_error(sc));
    else if (rc)
        fprintf(stderr, "gbvp scenario: %s: failed: %s\n", file,
                sim_scenario_first_failure(sc) ? sim_scenario_first_failure(sc) : "?");
    if (junit) {
        char name[256];
        suite_name(file, name, sizeof name);
        int jr = sim_scenario_write_junit(sc, junit, name);
        if (jr) {
            fprintf(stderr, "gbvp scenario: cannot write %s: %s\n", junit, strerror(-jr));
            rc = 1;
        }
    }
    sim_scenario_free(sc);
out:
    sim_scenario_tap_free(t);
    if (tap_out != stdout)
        fclose(tap_out);
    return rc;
}
