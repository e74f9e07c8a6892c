// SPDX-License-Identifier: MIT
// `gbvp scenario FILE`: runs one Lua scenario against a target (the simulator with the test
// AP or a guest in this process, or a running simulator's control socket), prints TAP,
// optionally writes JUnit XML, exits 0 when it passed. With --control it also serves the
// target on a control socket, and without FILE only that.
#include "gbvp/cmd_scenario.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbvp/cli_opts.h"
#include "gbvp/ctl/ctl_server.h"
#include "gbvp/paths.h"
#include "gbvp/out_file.h"
#include "gbvp/scenario/scenario.h"
#include "gbvp/stop_signal.h"
#include "gbvp/target/target_local.h"
#include "gbvp/target/target_remote.h"

#define MAX_ARGS 64

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp scenario FILE [--seed N] [--set NAME=VALUE]... [--tap FILE]\n"
            "                     [--junit FILE] [--slots N] [--catalog DIR] [--timeout S]\n"
            "                     [--verbose] [--control PATH] [--target T] [--link PATH]\n"
            "                     [--agent PATH] [--connect-timeout S] [--timing T]\n"
            "                     [--pcap FILE [--pcap-frames]] [--trace FILE.json]\n"
            "       gbvp scenario FILE --connect PATH [--agent PATH] [options above]\n"
            "       gbvp scenario --control PATH [--slots N] [--catalog DIR] [--target T]\n\n"
            "Runs a Lua scenario (docs/scenarios.md) against the simulator with the\n"
            "6.1-faithful test AP attached, printing TAP. Exit status: 0 passed, 1 failed,\n"
            "2 bad usage.\n\n"
            "  --seed N          seed of gbvp.random (default 1); the same seed, the same run\n"
            "  --set NAME=VALUE  a value the script reads with gbvp.arg(NAME, default)\n"
            "  --tap FILE        write TAP to FILE instead of standard output\n"
            "  --junit FILE      also write JUnit XML\n"
            "  --slots N         slots in the frame, 1..%u (default 4)\n"
            "  --catalog DIR     module catalog (default DATA/virtual-modules/catalog)\n"
            "  --timeout S       wall-clock limit of the script in seconds (default 300)\n"
            "  --verbose         print the test AP's trace and the simulator's log\n"
            "  --control PATH    serve the target on a control socket (docs/control-protocol.md)\n"
            "                    while the scenario runs; without FILE, serve it until SIGINT\n"
            "  --target T        test-ap (default): the simulator and the test AP in-process;\n"
            "                    gbvp-sim: the simulator with the test AP across a real\n"
            "                    gblink connection; guest: the simulator with QEMU's guest as\n"
            "                    the AP (start QEMU with the greybus-es2 device on --link)\n"
            "  --connect PATH    instead of a target of its own: a running simulator's control\n"
            "                    socket (gbvp sim --control PATH, or gbvp run's)\n"
            "  --link PATH       gblink socket for gbvp-sim / guest (default: a new folder\n"
            "                    of this run's own, printed at start)\n"
            "  --agent PATH      guest, --connect: the guest agent's socket, for gbvp.guest\n"
            "  --connect-timeout S  guest: wait for QEMU and the handshake (default 300)\n"
            "  --timing T        off (default), frame or message, as gbvp sim --timing; frame\n"
            "                    enables gbvp.link, gbvp.fault and gbvp.link_stats\n"
            "  --pcap FILE       capture every Greybus message as pcapng for Wireshark\n"
            "                    (docs/tracing.md); with --connect, for the script's run\n"
            "  --pcap-frames     the capture holds every UniPro data-link frame too\n"
            "                    (--timing frame; not with --connect)\n"
            "  --trace FILE      write a timeline (trace-event JSON for ui.perfetto.dev) with\n"
            "                    the script's steps on it; with --connect, for its run\n\n"
            "FILE is a path, or the name of one of gbvp's own scenarios (\"demo\",\n"
            "\"hotplug_basic.lua\"), looked up in DATA/scenarios/. DATA is gbvp's data folder:\n"
            "$GBVP_DATADIR, PREFIX/share/gbvp for an installed gbvp, or the source tree.\n",
            GB_SVC_SLOTS_MAX);
}

/* ---- serving the control socket ---- */

typedef struct serving {
    const sim_target *t;
    sim_ctl *ctl;
    sim_loop *loop;     /* the local target's, NULL for a remote one */
    sim_simulator *sim; /* the local target's, for the timeline's marks */
} serving;

/* The script's events: to the control socket's subscribers and onto the timeline. */
static void on_event(void *ctx, sim_scenario_event ev, unsigned slot, const char *text)
{
    serving *s = ctx;
    if (s->ctl && ev == SIM_SCENARIO_EV_ASSERTION)
        sim_ctl_assertion(s->ctl, slot != 0, text);
    else if (s->ctl && ev == SIM_SCENARIO_EV_LOG)
        sim_ctl_log(s->ctl, text);
    if (!s->sim)
        return;
    char mark[320];
    switch (ev) {
    case SIM_SCENARIO_EV_INSERTED:
        snprintf(mark, sizeof mark, "insert %s into slot %u", text ? text : "?", slot);
        break;
    case SIM_SCENARIO_EV_REMOVED:
        snprintf(mark, sizeof mark, "remove slot %u", slot);
        break;
    case SIM_SCENARIO_EV_ACTIVATED:
        snprintf(mark, sizeof mark, "interface %u activated", slot);
        break;
    case SIM_SCENARIO_EV_ASSERTION:
        snprintf(mark, sizeof mark, "%s %s", slot ? "ok" : "not ok", text ? text : "");
        break;
    case SIM_SCENARIO_EV_LOG:
        snprintf(mark, sizeof mark, "# %s", text ? text : "");
        break;
    default:
        return;
    }
    sim_simulator_trace_mark(s->sim, "scenario", mark);
}

/* After each step of a script on a simulated clock: the socket is served between steps. */
static void on_poll(void *ctx)
{
    sim_ctl_service(((serving *)ctx)->ctl);
}

typedef struct stop_source {
    int fd;
    bool stop;
} stop_source;

static size_t stop_pollfds(void *ctx, struct pollfd *fds, size_t cap)
{
    stop_source *s = ctx;
    if (cap)
        fds[0] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
    return 1;
}

static void stop_ready(void *ctx, const struct pollfd *fds, size_t n)
{
    stop_source *s = ctx;
    if (n && (fds[0].revents & POLLIN))
        s->stop = true;
}

/* No script: the target serves the control socket until SIGINT or SIGTERM. A simulated
 * clock follows the wall clock meanwhile. */
static int serve(serving *s)
{
    stop_source stop = { .fd = sim_stop_signalfd() };
    if (stop.fd < 0) {
        perror("gbvp scenario: signalfd");
        return 1;
    }
    sim_loop_source src = { .pollfds = stop_pollfds, .ready = stop_ready, .ctx = &stop };
    sim_loop_add(s->loop, &src);
    sim_loop_source ctl = sim_ctl_source(s->ctl);
    sim_loop_add(s->loop, &ctl);
    bool realtime = s->t->features & SIM_TARGET_REALTIME;
    sim_time last = sim_loop_wall(s->loop);
    while (!stop.stop) {
        sim_loop_once(s->loop, SIM_MS(100));
        sim_time now = sim_loop_wall(s->loop);
        if (!realtime && now > last)
            s->t->ops->advance(s->t->ctx, now - last);
        last = now;
    }
    close(stop.fd);
    fprintf(stderr, "gbvp scenario: stopping\n");
    return 0;
}

/* ---- the command ---- */

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

int cmd_scenario_main(int argc, char **argv)
{
    const char *file = NULL, *tap_path = NULL, *junit = NULL, *catalog = NULL;
    const char *control = NULL, *target = "test-ap", *link = NULL, *agent = NULL,
               *connect = NULL, *pcap = NULL, *trace = NULL;
    sw_timing timing = SW_TIMING_DIRECT;
    uint64_t connect_timeout = 300;
    const char *args[MAX_ARGS];
    size_t nargs = 0;
    uint64_t seed = 1, slots = 4, timeout = 300;
    bool verbose = false, pcap_frames = false;
    const sim_cli_text_opt text_opts[] = {
        { "--tap", &tap_path }, { "--junit", &junit }, { "--catalog", &catalog },
        { "--control", &control }, { "--link", &link }, { "--agent", &agent },
        { "--connect", &connect }, { "--pcap", &pcap }, { "--trace", &trace },
        { NULL, NULL },
    };
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
        if (!strcmp(a, "--pcap-frames")) {
            pcap_frames = true;
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
        if (sim_cli_text_opt_set(text_opts, a, v))
            continue;
        if (!strcmp(a, "--seed")) {
            if (!sim_cli_seed(v, &seed)) {
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
            if (!sim_cli_set_ok(v) || nargs == MAX_ARGS) {
                fprintf(stderr, "gbvp scenario: --set %s: want NAME=VALUE (at most %d)\n", v,
                        MAX_ARGS);
                return 2;
            }
            args[nargs++] = v;
        } else if (!strcmp(a, "--target")) {
            sim_local_ap kind;
            if (sim_local_ap_parse(v, &kind)) {
                fprintf(stderr, "gbvp scenario: --target %s: want test-ap, gbvp-sim or guest\n", v);
                return 2;
            }
            target = v;
        } else if (!strcmp(a, "--timing")) {
            if (sw_timing_parse(v, &timing)) {
                fprintf(stderr, "gbvp scenario: --timing %s: want off, frame or message\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--connect-timeout")) {
            if (parse_u64(v, 86400, &connect_timeout) || !connect_timeout) {
                fprintf(stderr, "gbvp scenario: --connect-timeout %s: want 1..86400\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "gbvp scenario: unknown option %s (try --help)\n", a);
            return 2;
        }
    }
    char err[PATH_MAX + 320];
    if (!file && !control) {
        usage(stderr);
        fprintf(stderr, "\ngbvp scenario: no scenario FILE given (and no --control to serve)\n");
        return 2;
    }
    if (connect && pcap_frames) {
        fprintf(stderr, "gbvp scenario: --pcap-frames needs the simulator in this process; "
                "start gbvp sim with --pcap-frames instead\n");
        return 2;
    }
    if (connect && (control || !file)) {
        fprintf(stderr, "gbvp scenario: --connect runs a scenario against a simulator that "
                "serves its own control socket: give FILE, and no --control\n");
        return 2;
    }
    {
        const char *names[] = { "--tap", "--junit", "--pcap", "--trace" };
        const char *paths[] = { tap_path, junit, pcap, trace };
        if (sim_out_files_distinct(names, paths, 4, err, sizeof err)) {
            fprintf(stderr, "gbvp scenario: %s\n", err);
            return 2;
        }
    }
    char found[PATH_MAX], catalog_buf[PATH_MAX], rundir[PATH_MAX] = "";
    char link_buf[PATH_MAX + 16];
    if (file && sim_paths_scenario(file, found, sizeof found, err, sizeof err)) {
        fprintf(stderr, "gbvp scenario: %s\n", err);
        return 2;
    }
    if (file)
        file = found;
    if (!connect && !catalog) {
        if (sim_paths_catalog(catalog_buf, sizeof catalog_buf, err, sizeof err)) {
            fprintf(stderr, "gbvp scenario: no module catalog: %s (or give --catalog DIR)\n",
                    err);
            return 2;
        }
        catalog = catalog_buf;
    }
    bool guest = !strcmp(target, "guest");
    if (!connect && !link && (guest || !strcmp(target, "gbvp-sim"))) {
        /* the gblink socket in a folder of this run's own; QEMU is pointed at it: named */
        static const char *const files[] = { "gbvp.sock", NULL };
        sim_paths_prune("scenario", files);
        if (sim_paths_instance_dir("scenario", rundir, sizeof rundir, err, sizeof err)) {
            fprintf(stderr, "gbvp scenario: %s (or give --link PATH)\n", err);
            return 2;
        }
        snprintf(link_buf, sizeof link_buf, "%s/gbvp.sock", rundir);
        link = link_buf;
        if (guest)
            fprintf(stderr, "gbvp scenario: link socket %s (QEMU: -device greybus-es2,"
                    "link=%s)\n", link, link);
    }
    FILE *tap_out = stdout;
    if (tap_path && !(tap_out = fopen(tap_path, "w"))) {
        fprintf(stderr, "gbvp scenario: cannot write %s: %s\n", tap_path, strerror(errno));
        if (*rundir)
            rmdir(rundir);
        return 2;
    }
    /* --junit too is opened now: a path that cannot take the report is refused before the
     * run, not found when it ends (gbvp/out_file.h) */
    sim_out_file junit_out = { 0 };
    int jo = junit ? sim_out_file_open(&junit_out, junit) : 0;
    if (jo) {
        fprintf(stderr, "gbvp scenario: cannot write %s: %s\n", junit, strerror(-jo));
        if (tap_out != stdout)
            fclose(tap_out);
        if (*rundir)
            rmdir(rundir);
        return 2;
    }
    int rc = 1;
    serving sv = { 0 };
    sim_local *local = NULL;
    sim_remote *remote = NULL;
    if (connect) {
        remote = sim_remote_new(connect, agent, err, sizeof err);
        if (!remote) {
            fprintf(stderr, "gbvp scenario: %s\n", err);
            goto out;
        }
        sv.t = sim_remote_target(remote);
        if (pcap && sv.t->ops->capture(sv.t->ctx, pcap, err, sizeof err)) {
            fprintf(stderr, "gbvp scenario: --pcap: %s\n", err);
            goto out;
        }
        if (trace && sv.t->ops->trace(sv.t->ctx, trace, err, sizeof err)) {
            fprintf(stderr, "gbvp scenario: --trace: %s\n", err);
            goto out;
        }
    } else {
        sim_local_config lc = {
            .sim = { .link_path = link, .num_slots = (unsigned)slots, .catalog_dir = catalog,
                     .log_level = verbose ? (getenv("GBVP_DEBUG") ? SW_LOG_DEBUG : SW_LOG_INFO)
                                          : SW_LOG_ERROR,
                     .timing = timing, .pcap_path = pcap, .pcap_frames = pcap_frames,
                     .trace_path = trace },
            .verbose = verbose,
            .agent_path = agent,
            .connect_timeout_s = (unsigned)connect_timeout,
        };
        sim_local_ap_parse(target, &lc.ap);
        local = sim_local_new(&lc, err, sizeof err);
        if (!local) {
            fprintf(stderr, "gbvp scenario: %s\n", err);
            goto out;
        }
        sv.t = sim_local_target(local);
        sv.loop = sim_local_loop(local);
        sv.sim = trace ? sim_local_simulator(local) : NULL;
    }
    if (control) {
        sv.ctl = sim_ctl_new(control, sv.t, err, sizeof err);
        if (!sv.ctl) {
            fprintf(stderr, "gbvp scenario: %s\n", err);
            goto out;
        }
        if (!file) {
            rc = serve(&sv);
            goto out;
        }
        if (sv.t->features & SIM_TARGET_REALTIME) {
            /* the loop that serves the guest serves the socket too */
            sim_loop_source src = sim_ctl_source(sv.ctl);
            sim_loop_add(sv.loop, &src);
        }
    }
    /* this process has no children to stop: a script stuck in one C call past its time
     * limit may end it (5 s later) */
    sim_scenario_config cfg = { .seed = seed, .timeout_s = (unsigned)timeout, .tap = tap_out,
                                .stuck_grace_ms = 5000, .args = args, .nargs = nargs,
                                .event = sv.ctl || sv.sim ? on_event : NULL,
                                .event_ctx = &sv,
                                .poll = sv.ctl && !(sv.t->features & SIM_TARGET_REALTIME)
                                            ? on_poll : NULL,
                                .poll_ctx = &sv };
    sim_scenario *sc = sim_scenario_new(&cfg, sv.t, err, sizeof err);
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
        char name[PATH_MAX];
        suite_name(file, name, sizeof name);
        sim_scenario_junit j = { sc, name };
        int jr = sim_out_file_write(&junit_out, sim_scenario_junit_write, &j);
        if (jr) {
            fprintf(stderr, "gbvp scenario: cannot write %s: %s\n", junit, strerror(-jr));
            rc = 1;
        }
    }
    sim_scenario_free(sc);
out:
    if (remote && pcap)
        sv.t->ops->capture(sv.t->ctx, NULL, err, sizeof err); /* the simulator goes on */
    if (remote && trace)
        sv.t->ops->trace(sv.t->ctx, NULL, err, sizeof err);
    sim_ctl_free(sv.ctl);
    sim_local_free(local);
    sim_remote_free(remote);
    if (tap_out != stdout)
        fclose(tap_out);
    sim_out_file_abandon(&junit_out); /* the scenario never ran: no report */
    if (*rundir)
        rmdir(rundir);
    return rc;
}
