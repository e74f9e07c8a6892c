// SPDX-License-Identifier: MIT
#include "gbvp/cmd_model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gbvp/model/model_msg.h"
#include "gbvp/model/model_net.h"
#include "gbvp/model/model_topo.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp model [FILE] [options]\n\n"
            "Runs a UniPro network on the timing model without QEMU and prints its statistics.\n"
            "FILE describes nodes, switches, links and traffic (docs/performance-model.md);\n"
            "without FILE, the flags below describe node A -> [switch] -> node B.\n\n"
            "  --duration TIME   simulated time to run (e.g. 10ms; default: the file's 'run')\n"
            "  --json FILE       write the statistics as JSON ('-' for stdout)\n"
            "  --csv FILE        write the statistics as CSV (section,object,metric,value)\n"
            "  --series FILE     write switch queue depth over time as CSV\n"
            "  --quiet           no text summary\n"
            "  --timing LEVEL    frame (default): every frame, AFC, credit and replay; message:\n"
            "                    one event per message, much faster; saturate, cbr, poisson\n"
            "                    and rr flows with e2efc=off, no faults (as gbvp sim --timing)\n"
            "flags without FILE:\n"
            "  --gear G          HS-G1A..HS-G4B or PWM-G1..PWM-G7 (default HS-G3B)\n"
            "  --lanes N         1..4 (default 2)\n"
            "  --traffic KIND    saturate, cbr, poisson or rr (default saturate)\n"
            "  --size BYTES      Greybus payload per message (default 2048)\n"
            "  --rate RATE       offered rate for cbr/poisson (e.g. 1Gb/s)\n"
            "  --ber X           bit error rate of every link\n"
            "  --switch          put a switch between the two nodes\n");
}

static int write_to(const char *path, void (*fn)(const void *, FILE *), const void *m)
{
    if (!strcmp(path, "-")) {
        fn(m, stdout);
        return 0;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gbvp model: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fn(m, f);
    if (fclose(f)) {
        fprintf(stderr, "gbvp model: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static void w_json(const void *m, FILE *f) { model_write_json(m, f); }
static void w_csv(const void *m, FILE *f) { model_write_csv(m, f); }
static void w_series(const void *m, FILE *f) { model_write_series_csv(m, f); }

int cmd_model_main(int argc, char **argv)
{
    const char *file = NULL, *json = NULL, *csv = NULL, *series = NULL;
    const char *gear = "HS-G3B", *lanes = "2", *kind = "saturate", *size = "2048";
    const char *rate = NULL, *ber = "0";
    bool with_switch = false, quiet = false, message_level = false;
    sim_time duration = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **target = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--switch")) {
            with_switch = true;
            continue;
        } else if (!strcmp(a, "--quiet")) {
            quiet = true;
            continue;
        } else if (!strcmp(a, "--timing")) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "frame") && strcmp(v, "message")) {
                fprintf(stderr, "gbvp model: --timing takes frame or message, not '%s'\n", v);
                return 2;
            }
            message_level = !strcmp(v, "message");
            continue;
        } else if (!strcmp(a, "--fast")) {
            fprintf(stderr, "gbvp model: --fast is now --timing message\n");
            return 2;
        } else if (!strcmp(a, "--duration")) {
            if (i + 1 >= argc || model_parse_time(argv[++i], &duration) || !duration) {
                fprintf(stderr, "gbvp model: --duration needs a time such as 10ms\n");
                return 2;
            }
            continue;
        }
        if (!strcmp(a, "--json")) target = &json;
        else if (!strcmp(a, "--csv")) target = &csv;
        else if (!strcmp(a, "--series")) target = &series;
        else if (!strcmp(a, "--gear")) target = &gear;
        else if (!strcmp(a, "--lanes")) target = &lanes;
        else if (!strcmp(a, "--traffic")) target = &kind;
        else if (!strcmp(a, "--size")) target = &size;
        else if (!strcmp(a, "--rate")) target = &rate;
        else if (!strcmp(a, "--ber")) target = &ber;
        if (target) {
            if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2)) {
                fprintf(stderr, "gbvp model: %s needs a value%s%s%s\n", a,
                        i + 1 < argc ? " (got the option " : "", i + 1 < argc ? argv[i + 1] : "",
                        i + 1 < argc ? ")" : "");
                return 2;
            }
            *target = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gbvp model: unknown option '%s' (try --help)\n", a);
            return 2;
        } else if (file) {
            fprintf(stderr, "gbvp model: one topology file only ('%s' and '%s')\n", file, a);
            return 2;
        } else {
            file = a;
        }
    }
    model *m = model_new();
    if (!m) {
        fprintf(stderr, "gbvp model: out of memory\n");
        return 1;
    }
    char err[512];
    int rc = 0;
    if (file) {
        rc = model_parse_file(m, file, err, sizeof err);
    } else {
        char lines[4][512];
        snprintf(lines[0], sizeof lines[0], "node A dev=2");
        snprintf(lines[1], sizeof lines[1], "node B dev=3");
        if (with_switch)
            snprintf(lines[2], sizeof lines[2],
                     "switch S ports=15\nlink A S:0 gear=%s lanes=%s ber=%s", gear, lanes, ber);
        else
            snprintf(lines[2], sizeof lines[2], "link A B gear=%s lanes=%s ber=%s", gear, lanes,
                     ber);
        snprintf(lines[3], sizeof lines[3], "traffic A B kind=%s size=%s%s%s e2efc=off", kind,
                 size, rate ? " rate=" : "", rate ? rate : "");
        for (int i = 0; i < 4 && !rc; i++) {
            char *save = NULL;
            for (char *l = strtok_r(lines[i], "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save))
                rc = model_parse_line(m, l, "flags", err, sizeof err);
        }
        if (!rc && with_switch) {
            char l[200];
            snprintf(l, sizeof l, "link S:1 B gear=%s lanes=%s ber=%s", gear, lanes, ber);
            rc = model_parse_line(m, l, "flags", err, sizeof err);
        }
        if (!duration)
            duration = SIM_MS(10);
    }
    if (!rc) {
        if (!duration)
            duration = model_duration(m);
        rc = message_level ? model_run_message(m, duration, err, sizeof err)
                  : model_run(m, duration, err, sizeof err);
    }
    if (rc) {
        fprintf(stderr, "gbvp model: %s\n", err);
        model_free(m);
        return 1;
    }
    if (!quiet)
        model_print_summary(m, stdout);
    int out = 0;
    if (json && write_to(json, w_json, m))
        out = 1;
    if (csv && write_to(csv, w_csv, m))
        out = 1;
    if (series && write_to(series, w_series, m))
        out = 1;
    model_free(m);
    return out;
}
