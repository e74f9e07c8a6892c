// SPDX-License-Identifier: MIT
// `gbvp sim`: runs the simulator alone, for users who start QEMU themselves. The one event
// loop (sim/loop.h) serves the simulator (its gblink socket, the modules' ptys, its
// clock), a signal descriptor (SIGINT/SIGTERM end the run cleanly), standard input, where
// simple commands insert and remove modules while the guest runs, and the control socket.
#include "gbvp/cmd_sim.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "gbvp/cli_opts.h"
#include "gbvp/ctl/ctl_server.h"
#include "gbvp/cpu_list.h"
#include "gbvp/out_file.h"
#include "gbvp/paths.h"
#include "gbvp/stop_signal.h"
#include "gbvp/target/target_local.h"

#define MAX_INSERTS 32

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp sim [--link PATH] [--slots N] [--cports N] [--insert SLOT:MODULE]...\n"
            "                [--log LEVEL]\n"
            "                [--catalog DIR] [--control PATH] [--clock realtime|unpaced|lockstep]\n"
            "                [--quantum NS] [--quantum-max NS] [--held]\n"
            "                [--timing frame|message|off] [--gear GEAR] [--series A|B] [--lanes N]\n"
            "                [--ber RATE] [--seed N] [--stats FILE.json] [--pcap FILE]\n"
            "                [--pcap-frames] [--trace FILE.json] [--cpus LIST] [--spin US]\n\n"
            "Runs the simulator (SVC, switch, slots, virtual modules) and waits for QEMU's\n"
            "greybus-es2 device on the gblink socket.\n\n"
            "  --link PATH           gblink socket (default: RUNDIR/gbvp.sock, printed at start)\n"
            "  --slots N             slots in the frame, 1..%u (default: 4)\n"
            "  --cports N            CPorts of the AP bridge, 2..255 (default 44, APBridgeA's);\n"
            "                        each connection to a module takes one\n"
            "  --insert SLOT:MODULE  put catalog module MODULE into SLOT at start (repeatable)\n"
            "  --catalog DIR         module catalog (default: DATA/virtual-modules/catalog)\n"
            "  --control PATH        the JSON-lines control socket for gbvp ctl (default:\n"
            "                        RUNDIR/control.sock, which gbvp ctl finds by itself)\n"
            "  --log LEVEL           error, warn, info (default) or debug\n"
            "  --clock MODE          realtime (default): simulated time paced to the wall clock;\n"
            "                        unpaced: no pacing, the clock jumps to the next event (runs\n"
            "                        without QEMU); lockstep: simulated time is QEMU's virtual\n"
            "                        time (QEMU with -icount shift=N,sleep=off and\n"
            "                        -device greybus-es2,lockstep=on; docs/timing-in-sim.md)\n"
            "  --quantum NS          lockstep: shortest time grant, which bounds how late a\n"
            "                        message reaches the guest (default 100000 = 100 us)\n"
            "  --quantum-max NS      lockstep: longest grant while nothing is pending (default\n"
            "                        10000000 = 10 ms)\n"
            "  --held                lockstep: the clock stays at 0 until a control client\n"
            "                        drives it ({\"cmd\":\"drive\"}; gbvp run --lockstep does)\n"
            "  --timing MODE         frame (default): every Greybus message between the AP\n"
            "                        bridge and an interface or the SVC crosses the modelled\n"
            "                        UniPro links and switch; message: the same at message\n"
            "                        level (AFC wire time, no credits or bit errors; one event per\n"
            "                        message); off: delivered at once\n"
            "  --gear GEAR           every link at start: PWM-G1..PWM-G7 or HS-G1..HS-G3 with\n"
            "                        series A or B (default PWM-G1, the mode after link start-up;\n"
            "                        INTF_SET_PWRM changes a link later)\n"
            "  --series A|B          HS rate series for a gear given without one (default A)\n"
            "  --lanes N             lanes per link, 1 (default) or 2\n"
            "  --ber RATE            bit error rate on every link (default 0)\n"
            "  --seed N              seed of the fault generators, 0..2^63-1 (default 1)\n"
            "  --stats FILE          write the timing model's statistics as JSON at exit (the\n"
            "                        file is opened at start: a path that cannot be written\n"
            "                        is refused before the run; not with --timing off)\n"
            "  --pcap FILE           capture every Greybus message as pcapng for Wireshark\n"
            "                        (a FIFO works; docs/tracing.md)\n"
            "  --pcap-frames         the capture holds every UniPro data-link frame, AFC and\n"
            "                        NAC too (--timing frame)\n"
            "  --trace FILE          write a timeline (trace-event JSON for ui.perfetto.dev)\n"
            "  --cpus LIST           run on these CPUs only, as taskset writes them (1, 0,2,\n"
            "                        0-3): with QEMU on others, no core is shared\n"
            "  --spin US             after a pass that did work, watch QEMU's ring\n"
            "                        and the clock for up to US microseconds (0..1000) before\n"
            "                        sleeping; an idle simulator never spins (default 0)\n"
            "  --help                this text\n\n"
            "Commands on standard input: 'insert SLOT MODULE', 'remove SLOT', 'status' (with the\n"
            "timing statistics), 'quit',\n"
            "and 'cmd SLOT[.INTERFACE] COMMAND...' for a module's backends (docs/modules.md,\n"
            "\"Commands\"; e.g. 'cmd 0 gpio set 3 1', 'cmd 1 hid key a'; replies 'cmd: ...').\n\n"
            "RUNDIR is this instance's own folder, $XDG_RUNTIME_DIR/gbvp/sim-PID.XXXXXX or\n"
            "/tmp/gbvp-UID/sim-PID.XXXXXX, removed at exit; DATA is gbvp's data folder\n"
            "($GBVP_DATADIR, PREFIX/share/gbvp installed, or the source tree).\n",
            GB_SVC_SLOTS_MAX);
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v > max || s[0] == '-')
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* The longest command line on standard input, its newline included. */
#define LINE_MAX_BYTES 1024

typedef struct sim_cmd {
    sim_local *local;
    const sim_target *t;
    int signal_fd;
    bool stdin_open, running;
    char line[LINE_MAX_BYTES]; /* what has come of the current line */
    size_t line_len;
    bool line_too_long;        /* the current line overran line: it is skipped whole */
} sim_cmd;

/* "cmd SLOT[.N] BACKEND-COMMAND...": a backend command (docs/modules.md, "Commands") for
 * interface N (1-based, default 1) of the module in SLOT. Prints "cmd: REPLY" or
 * "cmd error: REASON" on standard output, flushed, so a program driving stdin can read it. */
static void backend_command(sim_cmd *c, const char *args)
{
    char *end;
    errno = 0;
    unsigned long slot = strtoul(args, &end, 10), intf = 1;
    if (!errno && end != args && *end == '.') {
        const char *p = end + 1;
        intf = strtoul(p, &end, 10);
        if (end == p)
            intf = 0;
    }
    if (errno || end == args || (*end != ' ' && *end != '\t') || slot > 255 || intf < 1 ||
        intf > SIM_TARGET_INTERFACES_MAX) {
        printf("cmd error: want 'cmd SLOT[.INTERFACE] COMMAND...', e.g. 'cmd 0 gpio set 3 1'\n");
        fflush(stdout);
        return;
    }
    while (*end == ' ' || *end == '\t')
        end++;
    end[strcspn(end, "\r\n")] = 0;
    vm_reply reply;
    if (slot >= c->t->ops->num_slots(c->t->ctx))
        printf("cmd error: slot %lu does not exist\n", slot);
    else if (c->t->ops->command(c->t->ctx, (unsigned)slot, (int)intf - 1, end, &reply))
        printf("cmd error: %s\n", reply.text);
    else
        printf("cmd: %s\n", reply.text);
    fflush(stdout);
}

/* One command line from standard input. */
static void command(sim_cmd *c, char *line)
{
    if (!strncmp(line, "cmd ", 4)) {
        backend_command(c, line + 4);
        return;
    }
    char *argv[4] = { 0 };
    int argc = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok && argc < 4; tok = strtok(NULL, " \t\r\n"))
        argv[argc++] = tok;
    unsigned slot;
    char err[320];
    if (argc == 0)
        return;
    if (!strcmp(argv[0], "quit") || !strcmp(argv[0], "exit")) {
        c->running = false;
    } else if (!strcmp(argv[0], "status") && argc == 1) {
        sim_simulator_status(sim_local_simulator(c->local), stdout);
    } else if (!strcmp(argv[0], "insert") && argc == 3 && !parse_uint(argv[1], 255, &slot)) {
        if (slot >= c->t->ops->num_slots(c->t->ctx))
            fprintf(stderr, "gbvp sim: slot %u does not exist\n", slot);
        else
            c->t->ops->insert(c->t->ctx, slot, argv[2], err, sizeof err); /* logged */
    } else if (!strcmp(argv[0], "remove") && argc == 2 && !parse_uint(argv[1], 255, &slot)) {
        c->t->ops->remove(c->t->ctx, slot, err, sizeof err); /* logged */
    } else {
        fprintf(stderr, "gbvp sim: unknown command '%s' (insert SLOT MODULE, remove SLOT, "
                "cmd SLOT COMMAND, status, quit)\n", argv[0]);
    }
}

/* ---- the loop's sources: the signal descriptor and standard input ---- */

/* The line gathered so far has ended (a newline, or the end of the input): it runs, or,
 * when it did not fit, is refused whole (run in pieces, its tail would be a command of
 * its own). */
static void end_line(sim_cmd *c)
{
    if (c->line_too_long)
        fprintf(stderr, "gbvp sim: a command line longer than %d characters, ignored\n",
                LINE_MAX_BYTES - 1);
    else if (c->line_len) {
        c->line[c->line_len] = 0;
        command(c, c->line);
    }
    c->line_len = 0;
    c->line_too_long = false;
}

/* What standard input has now, without waiting for more: a program may write a line in
 * pieces, and the loop (QEMU's link, the control socket, the signals) must not stop until
 * it ends it. Each whole line runs as it completes. */
static void read_input(sim_cmd *c)
{
    char buf[512];
    ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (got <= 0) { /* the end (or an error, which ends it as well) */
        end_line(c);
        c->stdin_open = false;
        return;
    }
    for (ssize_t i = 0; i < got; i++) {
        if (buf[i] == '\n')
            end_line(c);
        else if (c->line_too_long)
            continue; /* the rest of a line already refused */
        else if (c->line_len + 1 < sizeof c->line)
            c->line[c->line_len++] = buf[i];
        else
            c->line_too_long = true;
    }
}

static size_t input_pollfds(void *ctx, struct pollfd *fds, size_t cap)
{
    sim_cmd *c = ctx;
    size_t n = 0;
    if (n < cap)
        fds[n++] = (struct pollfd){ .fd = c->signal_fd, .events = POLLIN };
    if (n < cap)
        fds[n++] = (struct pollfd){ .fd = c->stdin_open ? STDIN_FILENO : -1, .events = POLLIN };
    return n;
}

static void input_ready(void *ctx, const struct pollfd *fds, size_t n)
{
    sim_cmd *c = ctx;
    if (n > 0 && (fds[0].revents & POLLIN)) {
        struct signalfd_siginfo si;
        if (read(c->signal_fd, &si, sizeof si) > 0)
            fprintf(stderr, "gbvp sim: signal %u, stopping\n", si.ssi_signo);
        c->running = false;
    }
    if (n > 1 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
        read_input(c);
}

/* What an instance keeps in its own folder; what a killed one left there is removed. */
static const char *const instance_files[] = { "gbvp.sock", "control.sock", NULL };

/* The paths found or made at start (the configuration points into them). */
typedef struct sim_paths_found {
    char catalog[PATH_MAX];
    char rundir[PATH_MAX]; /* "" when every socket was named on the command line */
    char link[PATH_MAX + 16], control[PATH_MAX + 16];
} sim_paths_found;

/* The defaults that need the file system: the catalog from the data folder, and the
 * sockets not named on the command line in a new folder of this instance's own. */
static int resolve_defaults(sim_local_config *cfg, const char **control, sim_paths_found *p)
{
    char err[PATH_MAX + 256];
    if (!cfg->sim.catalog_dir) {
        if (sim_paths_catalog(p->catalog, sizeof p->catalog, err, sizeof err)) {
            fprintf(stderr, "gbvp sim: no module catalog: %s (or give --catalog DIR)\n", err);
            return -1;
        }
        cfg->sim.catalog_dir = p->catalog;
    }
    if (cfg->sim.link_path && *control)
        return 0;
    sim_paths_prune("sim", instance_files);
    if (sim_paths_instance_dir("sim", p->rundir, sizeof p->rundir, err, sizeof err)) {
        fprintf(stderr, "gbvp sim: %s (or give --link and --control)\n", err);
        return -1;
    }
    if (!cfg->sim.link_path) {
        snprintf(p->link, sizeof p->link, "%s/gbvp.sock", p->rundir);
        cfg->sim.link_path = p->link;
    }
    if (!*control) {
        snprintf(p->control, sizeof p->control, "%s/control.sock", p->rundir);
        *control = p->control;
    }
    return 0;
}

/* --stats FILE, opened at start (gbvp/out_file.h), is written at exit through this. */
static int write_stats(FILE *f, void *sim)
{
    return sim_simulator_write_stats(sim, f);
}

int cmd_sim_main(int argc, char **argv)
{
    sim_local_config cfg = { .sim = { .num_slots = 4,
                                      .log_level = SW_LOG_INFO, .timing = SW_TIMING_FRAME },
                             .ap = SIM_LOCAL_GUEST };
    struct {
        unsigned slot;
        const char *name;
    } inserts[MAX_INSERTS];
    unsigned ninserts = 0;
    const char *control_path = NULL;
    bool held = false;
    unsigned spin_us = 0;
    const char *gear = NULL, *series = NULL, *lanes = NULL, *stats_path = NULL, *cpus = NULL;
    const sim_cli_text_opt text_opts[] = {
        { "--link", &cfg.sim.link_path }, { "--catalog", &cfg.sim.catalog_dir },
        { "--control", &control_path }, { "--gear", &gear }, { "--series", &series },
        { "--lanes", &lanes }, { "--stats", &stats_path }, { "--pcap", &cfg.sim.pcap_path },
        { "--trace", &cfg.sim.trace_path }, { "--cpus", &cpus },
        { NULL, NULL },
    };

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--pcap-frames")) {
            cfg.sim.pcap_frames = true;
            continue;
        }
        if (!strcmp(a, "--held")) {
            held = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "gbvp sim: %s: unknown option or missing value (try --help)\n", a);
            return 2;
        }
        i++;
        if (sim_cli_text_opt_set(text_opts, a, v))
            continue;
        if (!strcmp(a, "--clock")) {
            if (sim_clock_parse(v, &cfg.sim.clock) || cfg.sim.clock == SIM_CLOCK_STEPPED) {
                fprintf(stderr, "gbvp sim: --clock %s: want realtime, unpaced or lockstep%s\n", v,
                        !strcmp(v, "fast") ? " (\"fast\" is now called \"unpaced\")" : "");
                return 2;
            }
        } else if (!strcmp(a, "--timing")) {
            if (sw_timing_parse(v, &cfg.sim.timing)) {
                fprintf(stderr, "gbvp sim: --timing %s: want frame, message or off\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--ber")) {
            char *end;
            cfg.sim.ber = strtod(v, &end);
            if (end == v || *end || !(cfg.sim.ber >= 0 && cfg.sim.ber < 1e-2)) {
                fprintf(stderr, "gbvp sim: --ber %s: want a rate from 0 to below 0.01\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            if (!sim_cli_seed(v, &cfg.sim.seed)) {
                fprintf(stderr, "gbvp sim: --seed %s: want a number from 0 to 2^63-1 "
                        "(9223372036854775807)\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--quantum") || !strcmp(a, "--quantum-max")) {
            unsigned ns;
            if (parse_uint(v, 1000000000u, &ns) || ns < 1000) {
                fprintf(stderr, "gbvp sim: %s %s: want nanoseconds, 1000..1000000000\n", a, v);
                return 2;
            }
            if (!strcmp(a, "--quantum"))
                cfg.sim.lockstep.quantum_ns = ns;
            else
                cfg.sim.lockstep.quantum_max_ns = ns;
        } else if (!strcmp(a, "--spin")) {
            if (parse_uint(v, 1000, &spin_us)) {
                fprintf(stderr, "gbvp sim: --spin %s: want microseconds, 0..1000\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--cports")) {
            unsigned n;
            if (parse_uint(v, 255, &n) || n < 2) {
                fprintf(stderr, "gbvp sim: --cports %s: want a number from 2 to 255\n", v);
                return 2;
            }
            cfg.sim.cport_count = (uint16_t)n;
        } else if (!strcmp(a, "--slots")) {
            if (parse_uint(v, GB_SVC_SLOTS_MAX, &cfg.sim.num_slots) || !cfg.sim.num_slots) {
                fprintf(stderr, "gbvp sim: --slots %s: want a number from 1 to %u\n", v,
                        GB_SVC_SLOTS_MAX);
                return 2;
            }
        } else if (!strcmp(a, "--log")) {
            if (sw_log_level_parse(v, &cfg.sim.log_level)) {
                fprintf(stderr, "gbvp sim: --log %s: want error, warn, info or debug\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--insert")) {
            const char *colon = strchr(v, ':');
            char num[16];
            size_t n = colon ? (size_t)(colon - v) : 0;
            if (!colon || n == 0 || n >= sizeof num || !colon[1]) {
                fprintf(stderr, "gbvp sim: --insert %s: want SLOT:MODULE, e.g. 0:sensor\n", v);
                return 2;
            }
            memcpy(num, v, n);
            num[n] = 0;
            if (ninserts == MAX_INSERTS || parse_uint(num, 255, &inserts[ninserts].slot)) {
                fprintf(stderr, "gbvp sim: --insert %s: bad slot '%s' (or more than %u "
                        "insertions)\n", v, num, MAX_INSERTS);
                return 2;
            }
            inserts[ninserts++].name = colon + 1;
        } else {
            fprintf(stderr, "gbvp sim: unknown option %s (try --help)\n", a);
            return 2;
        }
    }
    if (gear || series || lanes) {
        char why[200];
        cfg.sim.link = up_phy_cfg_startup();
        if (sw_link_parse(&cfg.sim.link, gear, series, lanes, why, sizeof why)) {
            fprintf(stderr, "gbvp sim: %s\n", why);
            return 2;
        }
    }
    if (cfg.sim.clock != SIM_CLOCK_LOCKSTEP &&
        (held || cfg.sim.lockstep.quantum_ns || cfg.sim.lockstep.quantum_max_ns)) {
        fprintf(stderr, "gbvp sim: --held, --quantum and --quantum-max need --clock lockstep\n");
        return 2;
    }
    if (cfg.sim.lockstep.quantum_ns && cfg.sim.lockstep.quantum_max_ns &&
        cfg.sim.lockstep.quantum_max_ns < cfg.sim.lockstep.quantum_ns) {
        fprintf(stderr, "gbvp sim: --quantum-max %llu is below --quantum %llu\n",
                (unsigned long long)cfg.sim.lockstep.quantum_max_ns,
                (unsigned long long)cfg.sim.lockstep.quantum_ns);
        return 2;
    }
    for (unsigned i = 0; i < ninserts; i++)
        if (inserts[i].slot >= cfg.sim.num_slots) {
            fprintf(stderr, "gbvp sim: --insert %u:%s: the frame has slots 0..%u\n",
                    inserts[i].slot, inserts[i].name, cfg.sim.num_slots - 1);
            return 2;
        }

    {
        /* (the simulator refuses these too, but as a failed start: here they are bad usage) */
        char why[200];
        if (sim_config_check(&cfg.sim, why, sizeof why)) {
            fprintf(stderr, "gbvp sim: %s\n", why);
            return 2;
        }
    }
    {
        const char *names[] = { "--stats", "--pcap", "--trace" };
        const char *paths[] = { stats_path, cfg.sim.pcap_path, cfg.sim.trace_path };
        char why[PATH_MAX + 96];
        if (sim_out_files_distinct(names, paths, 3, why, sizeof why)) {
            fprintf(stderr, "gbvp sim: %s\n", why);
            return 2;
        }
    }
    if (stats_path && cfg.sim.timing == SW_TIMING_DIRECT) {
        fprintf(stderr, "gbvp sim: --stats %s: --timing off keeps no model statistics\n",
                stats_path);
        return 2;
    }
    if (cpus) {
        char why[320];
        if (cpu_list_pin_self(cpus, why, sizeof why)) {
            fprintf(stderr, "gbvp sim: --cpus: %s\n", why);
            return 2;
        }
    }

    sim_out_file stats = { 0 };
    int so = stats_path ? sim_out_file_open(&stats, stats_path) : 0;
    if (so) {
        fprintf(stderr, "gbvp sim: --stats %s: %s\n", stats_path, strerror(-so));
        return 2;
    }
    sim_paths_found found = { .rundir = "" };
    const char *rundir = found.rundir;
    if (resolve_defaults(&cfg, &control_path, &found)) {
        sim_out_file_abandon(&stats);
        return 1;
    }

    /* The control socket is made once the simulator is, but a path another simulator holds
     * is refused now: the simulator's start empties --pcap and --trace, which a run refused
     * right after must not have done. */
    char err[320];
    if (sim_ctl_path_usable(control_path, err, sizeof err)) {
        fprintf(stderr, "gbvp sim: --control: %s\n", err);
        sim_out_file_abandon(&stats);
        if (*rundir)
            rmdir(rundir);
        return 1;
    }
    sim_cmd c = { .signal_fd = sim_stop_signalfd(), .stdin_open = true, .running = true };
    if (c.signal_fd < 0)
        fprintf(stderr, "gbvp sim: no signal descriptor (%s): SIGINT and SIGTERM end the "
                "process without its clean stop\n", strerror(errno));
    signal(SIGPIPE, SIG_IGN);
    c.local = sim_local_new(&cfg, err, sizeof err);
    if (!c.local) {
        fprintf(stderr, "gbvp sim: %s\n", err);
        sim_out_file_abandon(&stats);
        if (c.signal_fd >= 0)
            close(c.signal_fd);
        if (*rundir)
            rmdir(rundir);
        return 1;
    }
    c.t = sim_local_target(c.local);
    sim_loop *loop = sim_local_loop(c.local);
    sim_ctl *ctl = NULL;
    if (!(ctl = sim_ctl_new(control_path, c.t, err, sizeof err))) {
        fprintf(stderr, "gbvp sim: --control: %s\n", err);
        sim_out_file_abandon(&stats);
        sim_local_free(c.local);
        if (c.signal_fd >= 0)
            close(c.signal_fd);
        if (*rundir)
            rmdir(rundir);
        return 1;
    }
    if (held)
        sim_ctl_hold_until_driven(ctl);
    /* Named at start so that QEMU and gbvp ctl can be pointed at them. */
    fprintf(stderr, "gbvp sim: link socket %s (QEMU: -device greybus-es2,link=%s%s)\n",
            cfg.sim.link_path, cfg.sim.link_path,
            cfg.sim.clock == SIM_CLOCK_LOCKSTEP ? ",lockstep=on and -icount shift=N,sleep=off"
                                                : "");
    fprintf(stderr, "gbvp sim: control socket %s (gbvp ctl --socket %s COMMAND%s)\n",
            control_path, control_path,
            control_path == found.control ? "; plain gbvp ctl finds it when no other runs"
                                          : "");
    fprintf(stderr, "gbvp sim: module catalog %s\n", cfg.sim.catalog_dir);
    int rc = 0;
    for (unsigned i = 0; i < ninserts; i++)
        if (c.t->ops->insert(c.t->ctx, inserts[i].slot, inserts[i].name, err, sizeof err))
            rc = 1;
    sim_loop_set_spin(loop, SIM_US(spin_us));
    sim_loop_source input = { .pollfds = input_pollfds, .ready = input_ready, .ctx = &c };
    sim_loop_add(loop, &input);
    sim_loop_source ctl_src = sim_ctl_source(ctl);
    sim_loop_add(loop, &ctl_src);
    c.running = c.running && rc == 0;
    while (c.running) {
        int n = sim_loop_once(loop, SIM_MS(100));
        if (n < 0) {
            fprintf(stderr, "gbvp sim: poll: %s\n", strerror(-n));
            rc = 1;
            break;
        }
    }
    int sr = stats.path ? sim_out_file_write(&stats, write_stats, sim_local_simulator(c.local))
                        : 0;
    if (sr) {
        fprintf(stderr, "gbvp sim: --stats %s: %s\n", stats.path, strerror(-sr));
        rc = 1;
    }
    if (spin_us) {
        sim_loop_spin_stats sp;
        sim_loop_get_spin_stats(loop, &sp);
        fprintf(stderr, "gbvp sim: busy-poll: %llu waits spun (%llu ended by QEMU's input, "
                "%llu by an event due), %.1f ms spinning\n", (unsigned long long)sp.spins,
                (unsigned long long)sp.input, (unsigned long long)sp.due, (double)sp.spun * 1e-9);
    }
    sim_ctl_free(ctl);
    sim_local_free(c.local); /* both remove their sockets */
    if (*rundir && rmdir(rundir))
        fprintf(stderr, "gbvp sim: cannot remove %s: %s\n", rundir, strerror(errno));
    if (c.signal_fd >= 0)
        close(c.signal_fd);
    return rc;
}
