// SPDX-License-Identifier: MIT
// `gbvp test PATH...`: the regression runner. Every scenario runs in its own simulator
// process (`gbvp scenario`), up to -j at a time; the runner prints one TAP line per
// scenario, the summary "N passed, N failed", writes a combined JUnit XML file, and keeps
// the TAP, JUnit and log of every failed scenario in the artifacts folder.
#include "gbvp/cmd_test.h"
#include "gbvp/cli_opts.h"
#include "gbvp/out_file.h"
#include "gbvp/paths.h"
#include "gbvp/scenario/scenario.h"
#include "gbvp/target/target_local.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FORWARD 64
#define MAX_JOBS 64

/* A job's status when the scenario gave none of its own. */
enum {
    JOB_KILLED = -1,      /* at the time limit */
    JOB_NOT_STARTED = -2, /* could not start */
    JOB_INTERRUPTED = -3, /* stopped, or never started, because the runner was interrupted */
};

/* What happened to a job that ended without its own exit status, or NULL. */
static const char *job_fate(int status)
{
    return status == JOB_KILLED        ? "killed at the time limit"
           : status == JOB_NOT_STARTED ? "could not start"
           : status == JOB_INTERRUPTED ? "interrupted"
                                       : NULL;
}

typedef struct job {
    char *file;
    char dir[PATH_MAX];
    pid_t pid;
    int status; /* exit status, or one of the JOB_ values below */
    bool done;
    struct timespec start;
    double seconds;
} job;

typedef struct runner {
    job *jobs;
    size_t njobs, cap;
    unsigned nproc;
    const char *artifacts, *junit, *pcap_dir, *trace_dir;
    const char *forward[MAX_FORWARD];
    size_t nforward;
    unsigned timeout_s;
    bool keep;
    bool guest; /* --target guest: every scenario through its own `gbvp run` */
    bool lockstep; /* --lockstep: those runs in lockstep (gbvp run --lockstep) */
    char own_artifacts[PATH_MAX];
} runner;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp test [-j N] [--artifacts DIR] [--junit FILE] [--seed N]\n"
            "                 [--set NAME=VALUE]... [--target T] [--timing T] [--timeout S]\n"
            "                 [--keep] [--pcap DIR [--pcap-frames]] [--trace DIR] [--lockstep]\n"
            "                 PATH...\n\n"
            "Runs every scenario (a .lua file, or each .lua file in a folder) in its own\n"
            "simulator process and prints TAP and the summary 'N passed, N failed'. With\n"
            "--target guest, each runs in a gbvp run of its own: its own simulator, QEMU and\n"
            "guest in its own run folder, so -j N boots N guests side by side.\n"
            "Exit status: 0 all passed, 1 some failed, 2 bad usage.\n\n"
            "  -j N             scenarios at a time (default 1)\n"
            "  --artifacts DIR  where a failed scenario's TAP, JUnit and log stay (default:\n"
            "                   a new $XDG_RUNTIME_DIR/gbvp/test-PID.XXXXXX or\n"
            "                   /tmp/gbvp-UID/test-PID.XXXXXX, removed when nothing failed)\n"
            "  --junit FILE     write every scenario's results as one JUnit XML file\n"
            "  --seed N         passed to every scenario (default 1)\n"
            "  --set NAME=VALUE passed to every scenario (gbvp.arg)\n"
            "  --target T       test-ap, gbvp-sim (passed to gbvp scenario) or guest (each\n"
            "                   scenario through gbvp run: QEMU and the real kernel)\n"
            "  --timing T       passed to every scenario (gbvp-sim: off, frame or message;\n"
            "                   the guest target always runs frame timing)\n"
            "  --timeout S      each scenario's wall-clock limit (default 300)\n"
            "  --keep           keep the artifacts of passed scenarios too\n"
            "  --pcap DIR       capture each scenario's messages as DIR/NAME.pcapng\n"
            "                   (docs/tracing.md)\n"
            "  --pcap-frames    with --pcap: every UniPro data-link frame too (--timing frame)\n"
            "  --trace DIR      write each scenario's timeline as DIR/NAME.json\n"
            "  --lockstep       with --target guest: each gbvp run in lockstep, so that a run\n"
            "                   repeats exactly for its seed (docs/timing-in-sim.md)\n");
}

static int add_job(runner *r, const char *file)
{
    if (r->njobs == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        job *j = realloc(r->jobs, cap * sizeof *j);
        if (!j)
            return -ENOMEM;
        r->jobs = j;
        r->cap = cap;
    }
    job *j = &r->jobs[r->njobs];
    memset(j, 0, sizeof *j);
    j->file = strdup(file);
    if (!j->file)
        return -ENOMEM;
    r->njobs++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or the .lua files of a folder in name order. */
static int add_path(runner *r, const char *path)
{
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "gbvp test: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return add_job(r, path) ? -1 : 0;
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "gbvp test: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".lua") || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        size_t pl = strlen(path) + l + 2;
        if (!(names[n] = malloc(pl))) {
            rc = -1;
            break;
        }
        snprintf(names[n++], pl, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/",
                 e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (!rc && add_job(r, names[i]))
            rc = -1;
        free(names[i]);
    }
    free(names);
    if (!rc && n == 0)
        fprintf(stderr, "gbvp test: %s: no .lua scenarios in this folder\n", path);
    return rc;
}

static void scenario_name(const char *file, char *buf, size_t len)
{
    const char *b = strrchr(file, '/');
    snprintf(buf, len, "%s", b ? b + 1 : file);
    size_t n = strlen(buf);
    if (n > 4 && !strcmp(buf + n - 4, ".lua"))
        buf[n - 4] = 0;
}

static int mkdir_p(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* Why a scenario failed, from its log (the engine's "gbvp scenario: FILE: failed: WHERE:
 * CHECK: DETAIL" or "... error: ..." lines), as TAP diagnostics, so a CI log says it. */
static void print_why(const job *j)
{
    char path[PATH_MAX + 8], line[4200];
    snprintf(path, sizeof path, "%s/log", j->dir);
    FILE *f = fopen(path, "r");
    unsigned shown = 0;
    while (f && shown < 6 && fgets(line, sizeof line, f)) {
        /* gbvp run (the guest target) puts "[SECONDS] " before its lines */
        char *l = line[0] == '[' && strstr(line, "] ") ? strstr(line, "] ") + 2 : line;
        if (!strncmp(l, "gbvp scenario: ", 15) || !strncmp(l, "gbvp: ", 6) ||
            (!strncmp(l, "gbvp run: ", 10) && strstr(l, ": failed: ")) ||
            (!strncmp(l, "gbvp run: ", 10) && strstr(l, ": error: ")) ||
            !strncmp(l, "reproduce it exactly with: ", 27) ||
            !strncmp(l, "run it again with ", 18)) {
            printf("# %s%s", l, strchr(l, '\n') ? "" : "\n");
            shown++;
        }
    }
    if (f)
        fclose(f);
    if (!shown)
        printf("# (no reason in %s)\n", path);
}

static void start(runner *r, size_t idx, const char *self)
{
    job *j = &r->jobs[idx];
    char name[256];
    scenario_name(j->file, name, sizeof name);
    snprintf(j->dir, sizeof j->dir, "%s/%03zu-%s", r->artifacts, idx + 1, name);
    clock_gettime(CLOCK_MONOTONIC, &j->start);
    if (mkdir_p(j->dir)) {
        fprintf(stderr, "gbvp test: cannot create %s: %s\n", j->dir, strerror(errno));
        j->status = JOB_NOT_STARTED;
        j->done = true;
        return;
    }
    char tap_file[PATH_MAX + 8], junit[PATH_MAX + 16], log[PATH_MAX + 8], timeout[16];
    char pcap[PATH_MAX + 300], trace[PATH_MAX + 300];
    if (r->pcap_dir)
        snprintf(pcap, sizeof pcap, "%s/%s.pcapng", r->pcap_dir, name);
    if (r->trace_dir)
        snprintf(trace, sizeof trace, "%s/%s.json", r->trace_dir, name);
    snprintf(tap_file, sizeof tap_file, "%s/tap", j->dir);
    snprintf(junit, sizeof junit, "%s/junit.xml", j->dir);
    snprintf(log, sizeof log, "%s/log", j->dir);
    snprintf(timeout, sizeof timeout, "%u", r->timeout_s);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        j->status = JOB_NOT_STARTED;
        j->done = true;
        return;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        const char *argv[16 + MAX_FORWARD];
        int n = 0;
        argv[n++] = "gbvp";
        argv[n++] = r->guest ? "run" : "scenario";
        if (r->guest)
            argv[n++] = "--scenario";
        argv[n++] = j->file;
        argv[n++] = "--tap";
        argv[n++] = tap_file;
        argv[n++] = "--junit";
        argv[n++] = junit;
        argv[n++] = "--timeout";
        argv[n++] = timeout;
        if (r->pcap_dir) {
            argv[n++] = "--pcap";
            argv[n++] = pcap;
        }
        if (r->trace_dir) {
            argv[n++] = "--trace";
            argv[n++] = trace;
        }
        for (size_t i = 0; i < r->nforward; i++)
            argv[n++] = r->forward[i];
        argv[n] = NULL;
        execv(self, (char *const *)argv);
        fprintf(stderr, "gbvp test: cannot run %s: %s\n", self, strerror(errno));
        _exit(127);
    }
    j->pid = pid;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void remove_dir(const char *dir)
{
    static const char *const files[] = { "tap", "junit.xml", "log" };
    char p[PATH_MAX + 16];
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* Appends the scenario's own JUnit testsuite (without its XML declaration), or an error
 * testsuite when it wrote none. */
static void junit_append(FILE *out, const job *j)
{
    char path[PATH_MAX + 16], name[256];
    snprintf(path, sizeof path, "%s/junit.xml", j->dir);
    scenario_name(j->file, name, sizeof name);
    FILE *f = j->status >= 0 ? fopen(path, "r") : NULL;
    char line[4096];
    bool any = false;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "<?xml", 5))
                continue;
            fputs(line, out);
            any = true;
        }
        fclose(f);
    }
    if (!any) {
        const char *why = job_fate(j->status);
        if (!why)
            why = "ended without writing results (crashed?)";
        /* the name comes from a file name: escaped like any text in the report */
        fputs("<testsuite name=\"", out);
        sim_scenario_xml_text(out, name);
        fputs("\" tests=\"1\" failures=\"0\" errors=\"1\">\n  <testcase classname=\"", out);
        sim_scenario_xml_text(out, name);
        fprintf(out, "\" name=\"scenario\">\n    <error message=\"%s\"/>\n  </testcase>\n"
                     "</testsuite>\n", why);
    }
}

/* --junit: every scenario's results as one file (ctx: the runner). */
static int write_junit(FILE *out, void *ctx)
{
    const runner *r = ctx;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for (size_t i = 0; i < r->njobs; i++)
        junit_append(out, &r->jobs[i]);
    fprintf(out, "</testsuites>\n");
    return 0;
}

/* The reason of a skipped scenario ("# SKIP reason" in its TAP), "" when not skipped. */
static void skip_reason(const job *j, char *buf, size_t len)
{
    char path[PATH_MAX + 8], line[512];
    buf[0] = 0;
    snprintf(path, sizeof path, "%s/tap", j->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *s = strstr(line, " # SKIP ");
        if (s && !strncmp(line, "ok ", 3)) {
            snprintf(buf, len, "%s", s + 8);
            buf[strcspn(buf, "\n")] = 0;
            break;
        }
    }
    fclose(f);
}

static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
        return false;
    *out = (unsigned)v;
    return true;
}

/* Reports in order, as soon as every earlier scenario is reported. */
static void report_done(const runner *r, size_t next, size_t *reported, unsigned *passed,
                        unsigned *failed)
{
    while (*reported < next && r->jobs[*reported].done) {
        const job *j = &r->jobs[(*reported)++];
        if (j->status == 0) {
            (*passed)++;
            char why[256];
            skip_reason(j, why, sizeof why);
            if (*why)
                printf("ok %zu - %s # SKIP %s\n", *reported, j->file, why);
            else
                printf("ok %zu - %s (%.2f s)\n", *reported, j->file, j->seconds);
        } else if (!j->dir[0]) {
            (*failed)++;
            printf("not ok %zu - %s (not started: interrupted)\n", *reported, j->file);
        } else {
            (*failed)++;
            const char *fate = job_fate(j->status);
            printf("not ok %zu - %s (%s; log, TAP and JUnit in %s)\n", *reported, j->file,
                   fate ? fate : j->status == 1 ? "failed" : "ended abnormally", j->dir);
            if (j->status != JOB_INTERRUPTED)
                print_why(j);
        }
        fflush(stdout);
    }
}

/* SIGINT or SIGTERM to the runner: it stops its scenarios and reports, rather than dying
 * and leaving them running on their own with an empty --junit file. */
static volatile sig_atomic_t interrupted;

static void on_stop_signal(int sig)
{
    interrupted = sig;
}

static void catch_stop_signals(struct sigaction old[2])
{
    struct sigaction sa = { .sa_handler = on_stop_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
}

/* Ends the running scenarios (SIGTERM, then SIGKILL after 5 s) and marks them and those
 * never started as interrupted. */
static void stop_all(runner *r, size_t next)
{
    for (size_t i = 0; i < next; i++)
        if (!r->jobs[i].done && r->jobs[i].pid)
            kill(r->jobs[i].pid, SIGTERM);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < r->njobs; i++) {
        job *j = &r->jobs[i];
        if (j->done)
            continue;
        while (i < next && j->pid && waitpid(j->pid, NULL, WNOHANG) == 0) {
            if (since(&t0) > 5.0) {
                kill(j->pid, SIGKILL);
                waitpid(j->pid, NULL, 0);
                break;
            }
            nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
        }
        j->status = JOB_INTERRUPTED;
        j->done = true;
    }
}

/* The options passed on to every scenario, checked once here: a bad one is bad usage
 * (status 2) before anything runs, not N scenarios that each end abnormally. */
static bool forward_ok(const char *opt, const char *v)
{
    uint64_t seed;
    if (!strcmp(opt, "--seed")) {
        if (!sim_cli_seed(v, &seed)) {
            fprintf(stderr, "gbvp test: --seed %s: want a number 0..2^63-1\n", v);
            return false;
        }
    } else if (!strcmp(opt, "--set")) {
        if (!sim_cli_set_ok(v)) {
            fprintf(stderr, "gbvp test: --set %s: want NAME=VALUE\n", v);
            return false;
        }
    } else if (!strcmp(opt, "--target")) {
        sim_local_ap kind;
        if (sim_local_ap_parse(v, &kind)) {
            fprintf(stderr, "gbvp test: --target %s: want test-ap, gbvp-sim or guest\n", v);
            return false;
        }
    } else if (!strcmp(opt, "--timing")) {
        sw_timing t;
        if (sw_timing_parse(v, &t)) {
            fprintf(stderr, "gbvp test: --timing %s: want off, frame or message\n", v);
            return false;
        }
    }
    return true;
}

int cmd_test_main(int argc, char **argv)
{
    runner r = { .nproc = 1, .timeout_s = 300 };
    sim_out_file junit_out = { 0 }; /* --junit */
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            rc = 0;
            goto out;
        }
        if (!strcmp(a, "--keep")) {
            r.keep = true;
            continue;
        }
        if (!strcmp(a, "--pcap-frames") || !strcmp(a, "--lockstep")) { /* passed on */
            r.lockstep |= !strcmp(a, "--lockstep");
            if (r.nforward + 1 > MAX_FORWARD) {
                fprintf(stderr, "gbvp test: too many options to pass on\n");
                goto out;
            }
            r.forward[r.nforward++] = a;
            continue;
        }
        if (a[0] != '-') {
            if (add_path(&r, a))
                goto out;
            continue;
        }
        const char *v = NULL;
        if (!strncmp(a, "-j", 2) && a[2]) {
            v = a + 2;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            fprintf(stderr, "gbvp test: %s needs a value (try --help)\n", a);
            goto out;
        }
        if (!strncmp(a, "-j", 2)) {
            if (!parse_uint(v, 1, MAX_JOBS, &r.nproc)) {
                fprintf(stderr, "gbvp test: -j %s: want 1..%d\n", v, MAX_JOBS);
                goto out;
            }
        } else if (!strcmp(a, "--artifacts")) {
            r.artifacts = v;
        } else if (!strcmp(a, "--junit")) {
            r.junit = v;
        } else if (!strcmp(a, "--pcap")) {
            r.pcap_dir = v;
        } else if (!strcmp(a, "--trace")) {
            r.trace_dir = v;
        } else if (!strcmp(a, "--timeout")) {
            if (!parse_uint(v, 1, 86400, &r.timeout_s)) {
                fprintf(stderr, "gbvp test: --timeout %s: want 1..86400 seconds\n", v);
                goto out;
            }
        } else if (!strcmp(a, "--target") && !strcmp(v, "guest")) {
            r.guest = true;
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--set") || !strcmp(a, "--target") ||
                   !strcmp(a, "--timing")) {
            if (!forward_ok(a, v))
                goto out;
            if (r.nforward + 2 > MAX_FORWARD) {
                fprintf(stderr, "gbvp test: too many --seed/--set/--target/--timing options\n");
                goto out;
            }
            r.forward[r.nforward++] = a;
            r.forward[r.nforward++] = v;
        } else {
            fprintf(stderr, "gbvp test: unknown option %s (try --help)\n", a);
            goto out;
        }
    }
    if (!r.njobs) {
        fprintf(stderr, "gbvp test: no scenarios given (try --help)\n");
        goto out;
    }
    if (r.lockstep && !r.guest) {
        fprintf(stderr, "gbvp test: --lockstep is a way to run the guest target: add "
                "--target guest\n");
        goto out;
    }
    for (size_t i = 0; r.guest && i < r.nforward; i++)
        if (!strcmp(r.forward[i], "--timing") || !strcmp(r.forward[i], "--target")) {
            fprintf(stderr, "gbvp test: %s %s: the guest target runs gbvp run's simulator "
                    "(frame timing) and no other target\n", r.forward[i], r.forward[i + 1]);
            goto out;
        }
    char no_dir[PATH_MAX + 256];
    if (!r.artifacts) {
        if (sim_paths_instance_dir("test", r.own_artifacts, sizeof r.own_artifacts, no_dir,
                                   sizeof no_dir)) {
            fprintf(stderr, "gbvp test: %s (or give --artifacts DIR)\n", no_dir);
            goto out;
        }
        r.artifacts = r.own_artifacts;
    }
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        fprintf(stderr, "gbvp test: cannot find my own program: %s\n", strerror(errno));
        goto out;
    }
    self[sl] = 0;
    if (mkdir_p(r.artifacts)) {
        fprintf(stderr, "gbvp test: cannot create %s: %s\n", r.artifacts, strerror(errno));
        goto out;
    }
    if (r.pcap_dir && mkdir_p(r.pcap_dir)) {
        fprintf(stderr, "gbvp test: --pcap %s: %s\n", r.pcap_dir, strerror(errno));
        goto out;
    }
    if (r.trace_dir && mkdir_p(r.trace_dir)) {
        fprintf(stderr, "gbvp test: --trace %s: %s\n", r.trace_dir, strerror(errno));
        goto out;
    }
    /* opened now, once --artifacts exists (the report may go there): a path that cannot
     * take it is refused before the scenarios run, not found when they have
     * (gbvp/out_file.h) */
    int jo = r.junit ? sim_out_file_open(&junit_out, r.junit) : 0;
    if (jo) {
        fprintf(stderr, "gbvp test: --junit %s: %s\n", r.junit, strerror(-jo));
        if (r.artifacts == r.own_artifacts)
            rmdir(r.artifacts);
        goto out;
    }

    struct sigaction old_sa[2];
    catch_stop_signals(old_sa);
    printf("TAP version 13\n1..%zu\n", r.njobs);
    fflush(stdout);
    size_t next = 0, running = 0, finished = 0, reported = 0;
    unsigned passed = 0, failed = 0;
    while (finished < r.njobs && !interrupted) {
        while (running < r.nproc && next < r.njobs) {
            start(&r, next, self);
            if (r.jobs[next].done)
                finished++;
            else
                running++;
            next++;
        }
        for (size_t i = 0; i < next; i++) {
            job *j = &r.jobs[i];
            if (j->done || !j->pid)
                continue;
            int st;
            pid_t p = waitpid(j->pid, &st, WNOHANG);
            if (p == j->pid) {
                j->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            } else if (since(&j->start) > r.timeout_s + (r.guest ? 600.0 : 10.0)) {
                /* (a guest's run also builds or boots it first) */
                kill(j->pid, SIGKILL);
                waitpid(j->pid, &st, 0);
                j->status = JOB_KILLED;
            } else {
                continue;
            }
            j->done = true;
            j->seconds = since(&j->start);
            running--;
            finished++;
        }
        report_done(&r, next, &reported, &passed, &failed);
        if (finished < r.njobs)
            nanosleep(&(struct timespec){ .tv_nsec = 5000000 }, NULL);
    }
    int sig = interrupted;
    if (sig) {
        /* every scenario still running or not started is reported as interrupted, so
         * the TAP plan and the JUnit file stay complete */
        stop_all(&r, next);
        report_done(&r, r.njobs, &reported, &passed, &failed);
        printf("# gbvp test: interrupted by %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
    sigaction(SIGINT, &old_sa[0], NULL);
    sigaction(SIGTERM, &old_sa[1], NULL);
    bool report_failed = false; /* a report not written fails the run, not a scenario */
    if (r.junit) {
        int jr = sim_out_file_write(&junit_out, write_junit, &r);
        if (jr) {
            fprintf(stderr, "gbvp test: cannot write %s: %s\n", r.junit, strerror(-jr));
            report_failed = true;
        }
    }
    if (!r.keep)
        for (size_t i = 0; i < r.njobs; i++)
            if (r.jobs[i].status == 0)
                remove_dir(r.jobs[i].dir);
    if (!failed && !r.keep)
        rmdir(r.artifacts); /* only if empty */
    printf("%u passed, %u failed\n", passed, failed);
    rc = sig ? 128 + sig : failed || report_failed ? 1 : 0;
out:
    sim_out_file_abandon(&junit_out); /* still open: no scenario ran */
    for (size_t i = 0; i < r.njobs; i++)
        free(r.jobs[i].file);
    free(r.jobs);
    return rc;
}
