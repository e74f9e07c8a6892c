// SPDX-License-Identifier: MIT
#include "gbvp/cmd_model.h"

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbvp/model/model_desc.h"
#include "gbvp/model/model_flags.h"
#include "gbvp/model/model_net.h"
#include "gbvp/model/model_parallel.h"
#include "gbvp/model/model_plot.h"
#include "gbvp/model/model_sweep.h"
#include "gbvp/model/model_table.h"
#include "gbvp/model/model_timing.h"
#include "gbvp/model/model_topo.h"
#include "gbvp/out_file.h"

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
            "  --quiet           no text summary (it goes to stderr when a table goes to '-')\n"
            "  --timing LEVEL    frame (default): every frame, AFC, credit and replay; message:\n"
            "                    one event per message, much faster; saturate, cbr, poisson\n"
            "                    and rr flows with e2efc=off, no faults (as gbvp sim --timing);\n"
            "                    per-frame: the frame level's reference path, one event per\n"
            "                    frame with no batching or period skipping: slower, and the\n"
            "                    same results as frame (a cross-check)\n"
            "  --sweep NAME=V1,V2,...  run every combination of the values (repeatable); NAME\n"
            "                    is a flag below (gear, lanes, traffic, size, rate, ber),\n"
            "                    duration, timing, or a key of the file's statements: KEY,\n"
            "                    KIND.KEY, KINDn.KEY (link2.gear) or NAME.KEY (S.mode); a value\n"
            "                    may be a range: 1..4, 256..2048+256, 64..4096x2, HS-G1A..HS-G4B.\n"
            "                    --csv and --json then write one row per configuration\n"
            "  -j N, --jobs N    run the configurations on N processes (default 1)\n"
            "  --plot DIR        draw the table as SVG figures into DIR (matplotlib)\n"
            "flags without FILE:\n"
            "  --gear G          HS-G1A..HS-G4B or PWM-G1..PWM-G7 (default HS-G3B)\n"
            "  --lanes N         1..4 (default 2)\n"
            "  --traffic KIND    saturate, cbr, poisson or rr (default saturate)\n"
            "  --size BYTES      Greybus payload per message (default 2048)\n"
            "  --rate RATE       offered rate for cbr/poisson (e.g. 1Gb/s)\n"
            "  --ber X           bit error rate of every link\n"
            "  --switch          put a switch between the two nodes\n");
}

/* Standard output flushed: 0, or -1 having said why (a full disk, a closed pipe), so that
 * results that never arrived do not end in status 0. */
static int stdout_flushed(void)
{
    errno = 0;
    if (!fflush(stdout) && !ferror(stdout))
        return 0;
    fprintf(stderr, "gbvp model: standard output: %s\n", strerror(errno ? errno : EIO));
    return -1;
}

static int write_to(const char *path, void (*fn)(const void *, FILE *), const void *m)
{
    if (!strcmp(path, "-")) {
        fn(m, stdout);
        return stdout_flushed();
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gbvp model: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fn(m, f);
    errno = 0;
    bool failed = ferror(f); /* a write that failed before the last one */
    if (fclose(f) || failed) {
        fprintf(stderr, "gbvp model: %s: %s\n", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* 0 when --plot's DIR is a directory we may write, or a new name in one; else the errno. */
static int plot_dir_error(const char *path)
{
    struct stat st;
    if (!*path)
        return ENOENT;
    if (!stat(path, &st))
        return !S_ISDIR(st.st_mode) ? ENOTDIR : access(path, W_OK | X_OK) ? errno : 0;
    if (errno != ENOENT)
        return errno;
    char *copy = strdup(path);
    if (!copy)
        return ENOMEM;
    const char *parent = dirname(copy);
    int e = 0;
    if (stat(parent, &st))
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(parent, W_OK | X_OK))
        e = errno;
    free(copy);
    return e;
}

/* 0 when an output can be written, else -1 having said why. Checked before anything runs
 * so a long sweep's results are not lost to a typo; a file is only tried (sim_out_file_try:
 * nothing is left made), so a run cut short (^C) leaves no empty file behind. */
static int check_out_path(const char *opt, const char *path, bool dir)
{
    if (!strcmp(path, "-") && !dir)
        return 0;
    int e = dir ? plot_dir_error(path) : -sim_out_file_try(path);
    if (!e)
        return 0;
    fprintf(stderr, "gbvp model: %s %s: %s\n", opt, path, strerror(e));
    return -1;
}

static bool is_stdout(const char *path)
{
    return path && !strcmp(path, "-");
}

static int check_out_paths(const char *json, const char *csv, const char *series,
                           const char *plot)
{
    if (is_stdout(json) + is_stdout(csv) + is_stdout(series) > 1) {
        fprintf(stderr, "gbvp model: only one of --json, --csv and --series can be '-' "
                        "(standard output): two tables there would be one unreadable stream\n");
        return -1;
    }
    const char *names[] = { "--json", "--csv", "--series" };
    const char *paths[] = { json, csv, series };
    char why[PATH_MAX + 96];
    if (sim_out_files_distinct(names, paths, 3, why, sizeof why)) {
        fprintf(stderr, "gbvp model: %s\n", why);
        return -1;
    }
    return (json && check_out_path("--json", json, false)) ||
                   (csv && check_out_path("--csv", csv, false)) ||
                   (series && check_out_path("--series", series, false)) ||
                   (plot && check_out_path("--plot", plot, true))
               ? -1
               : 0;
}

static void w_json(const void *m, FILE *f) { model_write_json(m, f); }
static void w_csv(const void *m, FILE *f) { model_write_csv(m, f); }
static void w_series(const void *m, FILE *f) { model_write_series_csv(m, f); }

static void w_table_json(const void *t, FILE *f) { model_table_json(t, f); }
static void w_table_csv(const void *t, FILE *f) { model_table_csv(t, f); }

typedef struct outputs {
    const char *json, *csv, *series, *plot;
    bool quiet;
} outputs;

/* Where the text summary goes: standard error when a table goes to standard output, so
 * `--json - | jq` reads JSON alone. */
static FILE *summary_out(const outputs *o)
{
    return is_stdout(o->json) || is_stdout(o->csv) || is_stdout(o->series) ? stderr : stdout;
}

/* One run, as before sweeps: the summary, --json, --csv and --series of the model. */
static int run_one(const model_desc *d, sim_time duration, model_timing timing,
                   const outputs *o)
{
    model *m = model_new();
    if (!m) {
        fprintf(stderr, "gbvp model: out of memory\n");
        return 1;
    }
    char err[1024];
    int rc = model_desc_parse(d, m, NULL, NULL, 0, err, sizeof err);
    if (!rc) {
        if (!duration)
            duration = model_duration(m);
        rc = model_run_at(m, timing, duration, err, sizeof err);
    }
    if (rc) {
        fprintf(stderr, "gbvp model: %s\n", err);
        model_free(m);
        return 1;
    }
    if (!o->quiet)
        model_print_summary(m, summary_out(o));
    int out = 0;
    if (o->json && write_to(o->json, w_json, m))
        out = 1;
    if (o->csv && write_to(o->csv, w_csv, m))
        out = 1;
    if (o->series && write_to(o->series, w_series, m))
        out = 1;
    model_free(m);
    return out;
}

/* A sweep (or one run to plot): the table and its figures. */
static int run_table(const model_table_cfg *c, const outputs *o)
{
    char err[1024];
    if (model_table_check(c, err, sizeof err)) {
        fprintf(stderr, "gbvp model: %s\n", err);
        return 2;
    }
    model_table *t = model_table_run(c, err, sizeof err);
    if (!t) {
        fprintf(stderr, "gbvp model: %s\n", err);
        return 1;
    }
    if (!o->quiet)
        model_table_text(t, summary_out(o));
    int out = 0;
    if (o->json && write_to(o->json, w_table_json, t))
        out = 1;
    if (o->csv && write_to(o->csv, w_table_csv, t))
        out = 1;
    if (o->plot && model_plot(t, o->plot, err, sizeof err)) {
        fprintf(stderr, "gbvp model: %s\n", err);
        out = 1;
    }
    model_table_free(t);
    return out;
}

static int parse_jobs(const char *v, unsigned *jobs)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (errno || end == v || *end || n < 1 || n > MODEL_PARALLEL_MAX || *v == '-') {
        fprintf(stderr, "gbvp model: -j needs a number of processes 1..%d (got '%s')\n",
                MODEL_PARALLEL_MAX, v);
        return -1;
    }
    *jobs = (unsigned)n;
    return 0;
}

int cmd_model_main(int argc, char **argv)
{
    const char *file = NULL, *json = NULL, *csv = NULL, *series = NULL, *plot = NULL;
    model_flags fl = model_flags_default();
    const char *gear = fl.gear, *lanes = fl.lanes, *kind = fl.kind, *size = fl.size;
    const char *rate = NULL, *ber = fl.ber;
    bool with_switch = false, quiet = false;
    model_timing timing = MODEL_TIMING_FRAME;
    sim_time duration = 0;
    unsigned jobs = 1;
    model_sweep *sweep = model_sweep_new();
    if (!sweep) {
        fprintf(stderr, "gbvp model: out of memory\n");
        return 1;
    }
    int rc = -1; /* -1: parsing; then the exit status */
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i];
        const char **target = NULL;
        char err[512];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            rc = 0;
        } else if (!strcmp(a, "--switch")) {
            with_switch = true;
        } else if (!strcmp(a, "--quiet")) {
            quiet = true;
        } else if (!strcmp(a, "--timing")) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (!model_timing_parse(v, &timing)) {
                fprintf(stderr, "gbvp model: --timing takes frame, message or per-frame, not "
                        "'%s'\n", v);
                rc = 2;
            }
        } else if (!strcmp(a, "--fast")) {
            fprintf(stderr, "gbvp model: --fast is now --timing message\n");
            rc = 2;
        } else if (!strcmp(a, "--duration")) {
            if (i + 1 >= argc || model_parse_time(argv[++i], &duration) || !duration) {
                fprintf(stderr, "gbvp model: --duration needs a time such as 10ms\n");
                rc = 2;
            }
        } else if (!strcmp(a, "--sweep")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gbvp model: --sweep needs NAME=V1,V2,...\n");
                rc = 2;
            } else if (model_sweep_add(sweep, argv[++i], err, sizeof err)) {
                fprintf(stderr, "gbvp model: %s\n", err);
                rc = 2;
            }
        } else if (!strncmp(a, "-j", 2) && a[2]) {
            if (parse_jobs(a + 2, &jobs))
                rc = 2;
        } else if (!strcmp(a, "-j") || !strcmp(a, "--jobs")) {
            if (parse_jobs(i + 1 < argc ? argv[++i] : "", &jobs))
                rc = 2;
        } else {
            if (!strcmp(a, "--json")) target = &json;
            else if (!strcmp(a, "--csv")) target = &csv;
            else if (!strcmp(a, "--series")) target = &series;
            else if (!strcmp(a, "--plot")) target = &plot;
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
                    rc = 2;
                } else {
                    *target = argv[++i];
                }
            } else if (a[0] == '-' && a[1]) {
                fprintf(stderr, "gbvp model: unknown option '%s' (try --help)\n", a);
                rc = 2;
            } else if (file) {
                fprintf(stderr, "gbvp model: one topology file only ('%s' and '%s')\n", file, a);
                rc = 2;
            } else {
                file = a;
            }
        }
    }
    bool table = model_sweep_axes(sweep) || plot;
    if (rc < 0 && table && series) {
        fprintf(stderr, "gbvp model: --series writes one run's queue depth; with --sweep or "
                "--plot every row of --json has its switches' depth_series\n");
        rc = 2;
    }
    if (rc < 0 && check_out_paths(json, csv, series, plot))
        rc = 2;
    model_desc *d = NULL;
    if (rc < 0) {
        if (file) {
            char err[512];
            if (!(d = model_desc_new(file))) {
                fprintf(stderr, "gbvp model: out of memory\n");
                rc = 1;
            } else if (model_desc_read_file(d, file, err, sizeof err)) {
                fprintf(stderr, "gbvp model: %s\n", err);
                rc = 1;
            }
        } else {
            fl = (model_flags){ .gear = gear, .lanes = lanes, .kind = kind, .size = size,
                                .rate = rate, .ber = ber, .with_switch = with_switch };
            if (!(d = model_flags_desc(&fl))) {
                fprintf(stderr, "gbvp model: out of memory, or a flag's value is too long\n");
                rc = 1;
            }
            if (!duration)
                duration = SIM_MS(10);
        }
    }
    outputs o = { .json = json, .csv = csv, .series = series, .plot = plot, .quiet = quiet };
    if (rc < 0 && table) {
        model_table_cfg c = { .desc = d, .sweep = sweep, .duration = duration,
                              .timing = timing, .workers = jobs };
        rc = run_table(&c, &o);
    } else if (rc < 0) {
        rc = run_one(d, duration, timing, &o);
    }
    if (!rc && stdout_flushed())
        rc = 1; /* the summary (or a --json -) did not get out */
    model_desc_free(d);
    model_sweep_free(sweep);
    return rc;
}
