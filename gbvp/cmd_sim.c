// SPDX-License-Identifier: MIT
// `gbvp sim`: runs the simulator alone, for users who start QEMU themselves. A poll loop over
// the gblink descriptor, a signalfd (SIGINT/SIGTERM end the run cleanly) and standard input,
// where simple commands insert and remove modules while the guest runs.
#include "gbvp/cmd_sim.h"
#include "sim/simulator.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/cli_opts.h"
#include "gbvp/ctl/ctl_server.h"
#include "gbvp/stop_signal.h"

#define MAX_INSERTS 32

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp sim [--link PATH] [--slots N] [--insert SLOT:MODULE]... [--log LEVEL]\n"
            "                [--catalog DIR] [--control PATH] [--clock realtime|fast]\n"
            "                [--timing frame|message|off] [--gear GEAR] [--series A|B] [--lanes N]\n"
            "                [--ber RATE] [--seed N] [--stats FILE.json]\n\n"
            "Runs the simulator (SVC, switch, slots, virtual modules) and waits for QEMU's\n"
            "greybus-es2 device on the gblink socket.\n\n"
            "  --link PATH           gblink socket (default: gbvp.sock)\n"
            "  --slots N             slots in the frame, 1..%u (default: 4)\n"
            "  --insert SLOT:MODULE  put catalog module MODULE into SLOT at start (repeatable)\n"
            "  --catalog DIR         module catalog (default: virtual-modules/catalog)\n"
            "  --control PATH        serve the JSON-lines control socket (gbvp ctl) at PATH\n"
            "  --log LEVEL           error, warn, info (default) or debug\n"
            "  --clock MODE          realtime (default): simulated time paced to the wall clock;\n"
            "                        fast: no pacing, the clock jumps to the next event (runs\n"
            "                        without QEMU)\n"
            "  --timing MODE         frame (default): every Greybus message between the AP\n"
            "                        bridge and an interface or the SVC crosses the modelled\n"
            "                        UniPro links and switch; message: the same at message\n"
            "                        level (no AFC, credits or bit errors; one event per\n"
            "                        message); off: delivered at once\n"
            "  --gear GEAR           every link at start: PWM-G1..PWM-G7 or HS-G1..HS-G3 with\n"
            "                        series A or B (default PWM-G1, the mode after link start-up;\n"
            "                        INTF_SET_PWRM changes a link later)\n"
            "  --series A|B          HS rate series for a gear given without one (default A)\n"
            "  --lanes N             lanes per link, 1 (default) or 2\n"
            "  --ber RATE            bit error rate on every link (default 0)\n"
            "  --seed N              seed of the fault generators (default 1)\n"
            "  --stats FILE          write the timing model's statistics as JSON at exit\n"
            "  --help                this text\n\n"
            "Commands on standard input: 'insert SLOT MODULE', 'remove SLOT', 'status' (with the\n"
            "timing statistics), 'quit',\n"
            "and 'cmd SLOT[.INTERFACE] COMMAND...' for a module's backends (docs/modules.md,\n"
            "\"Commands\"; e.g. 'cmd 0 gpio set 3 1', 'cmd 1 hid key a'; replies 'cmd: ...').\n",
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

static int parse_level(const char *s, gb_svc_log_level *out)
{
    static const char *const names[] = { "error", "warn", "info", "debug" };
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            *out = (gb_svc_log_level)i;
            return 0;
        }
    return -1;
}

static sim_time monotonic_ps(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t ns = (int64_t)(t.tv_sec - t0->tv_sec) * 1000000000 + (t.tv_nsec - t0->tv_nsec);
    return (sim_time)ns * 1000u;
}

/* "cmd SLOT[.N] BACKEND-COMMAND...": a backend command (docs/modules.md, "Commands") for
 * interface N (1-based, default 1) of the module in SLOT. Prints "cmd: REPLY" or
 * "cmd error: REASON" on standard output, flushed, so a program driving stdin can read it. */
static void backend_command(sim_gbvp *s, const char *args)
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
        intf > 255) {
        printf("cmd error: want 'cmd SLOT[.INTERFACE] COMMAND...', e.g. 'cmd 0 gpio set 3 1'\n");
        fflush(stdout);
        return;
    }
    while (*end == ' ' || *end == '\t')
        end++;
    end[strcspn(end, "\r\n")] = 0;
    char reply[512];
    if (sim_gbvp_command(s, (unsigned)slot, (unsigned)intf - 1, end, reply, sizeof reply))
        printf("cmd error: %s\n", reply);
    else
        printf("cmd: %s\n", reply);
    fflush(stdout);
}

/* One command line from standard input. Returns false on 'quit'. */
static bool command(sim_gbvp *s, char *line, sim_time now)
{
    if (!strncmp(line, "cmd ", 4)) {
        backend_command(s, line + 4);
        return true;
    }
    char *argv[4] = { 0 };
    int argc = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok && argc < 4; tok = strtok(NULL, " \t\r\n"))
        argv[argc++] = tok;
    unsigned slot;
    if (argc == 0)
        return true;
    if (!strcmp(argv[0], "quit") || !strcmp(argv[0], "exit"))
        return false;
    if (!strcmp(argv[0], "status") && argc == 1) {
        sim_gbvp_status(s);
    } else if (!strcmp(argv[0], "insert") && argc == 3 && !parse_uint(argv[1], 255, &slot)) {
        sim_gbvp_insert(s, slot, argv[2], now);
    } else if (!strcmp(argv[0], "remove") && argc == 2 && !parse_uint(argv[1], 255, &slot)) {
        sim_gbvp_remove(s, slot, now);
    } else {
        fprintf(stderr, "gbvp sim: unknown command '%s' (insert SLOT MODULE, remove SLOT, "
                "cmd SLOT COMMAND, status, quit)\n", argv[0]);
    }
    return true;
}

int cmd_sim_main(int argc, char **argv)
{
    sim_gbvp_config cfg = { .link_path = "gbvp.sock", .num_slots = 4,
                            .log_level = GB_SVC_LOG_INFO };
    struct {
        unsigned slot;
        const char *name;
    } inserts[MAX_INSERTS];
    unsigned ninserts = 0;
    const char *control_path = NULL;
    const char *gear = NULL, *series = NULL, *lanes = NULL, *stats_path = NULL;
    cfg.timing = SIM_TIMING_FRAME;
    const sim_cli_text_opt text_opts[] = {
        { "--link", &cfg.link_path }, { "--catalog", &cfg.catalog_dir },
        { "--control", &control_path }, { "--gear", &gear }, { "--series", &series },
        { "--lanes", &lanes }, { "--stats", &stats_path }, { NULL, NULL },
    };

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "gbvp sim: %s: unknown option or missing value (try --help)\n", a);
            return 2;
        }
        i++;
        if (sim_cli_text_opt_set(text_opts, a, v))
            continue;
        if (!strcmp(a, "--clock")) {
            if (sim_gbvp_parse_clock(v, &cfg.clock)) {
                fprintf(stderr, "gbvp sim: --clock %s: want realtime or fast\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--timing")) {
            if (sim_gbvp_parse_timing(v, &cfg.timing)) {
                fprintf(stderr, "gbvp sim: --timing %s: want frame, message or off\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--ber")) {
            char *end;
            cfg.ber = strtod(v, &end);
            if (end == v || *end || !(cfg.ber >= 0 && cfg.ber < 1e-2)) {
                fprintf(stderr, "gbvp sim: --ber %s: want a rate from 0 to below 0.01\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            unsigned seed;
            if (parse_uint(v, 0xffffffffu, &seed)) {
                fprintf(stderr, "gbvp sim: --seed %s: want a number\n", v);
                return 2;
            }
            cfg.seed = seed;
        } else if (!strcmp(a, "--slots")) {
            if (parse_uint(v, GB_SVC_SLOTS_MAX, &cfg.num_slots) || !cfg.num_slots) {
                fprintf(stderr, "gbvp sim: --slots %s: want a number from 1 to %u\n", v,
                        GB_SVC_SLOTS_MAX);
                return 2;
            }
        } else if (!strcmp(a, "--log")) {
            if (parse_level(v, &cfg.log_level)) {
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
        cfg.link = up_phy_cfg_startup();
        if (sim_gbvp_parse_link(&cfg.link, gear, series, lanes, why, sizeof why)) {
            fprintf(stderr, "gbvp sim: %s\n", why);
            return 2;
        }
    }
    for (unsigned i = 0; i < ninserts; i++)
        if (inserts[i].slot >= cfg.num_slots) {
            fprintf(stderr, "gbvp sim: --insert %u:%s: the frame has slots 0..%u\n",
                    inserts[i].slot, inserts[i].name, cfg.num_slots - 1);
            return 2;
        }

    int sfd = sim_stop_signalfd();
    signal(SIGPIPE, SIG_IGN);

    char err[256];
    sim_gbvp *s = sim_gbvp_new(&cfg, err, sizeof err);
    if (!s) {
        fprintf(stderr, "gbvp sim: %s\n", err);
        if (sfd >= 0)
            close(sfd);
        return 1;
    }
    sim_time ctl_now = 0;
    sim_control *ctl = NULL;
    if (control_path && !(ctl = sim_control_new_gbvp(control_path, s, &ctl_now, err, sizeof err))) {
        fprintf(stderr, "gbvp sim: --control: %s\n", err);
        sim_gbvp_free(s);
        if (sfd >= 0)
            close(sfd);
        return 1;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    for (unsigned i = 0; i < ninserts; i++)
        if (sim_gbvp_insert(s, inserts[i].slot, inserts[i].name,
                            sim_gbvp_clock_now(s, monotonic_ps(&t0))))
            rc = 1;
    /* Unbuffered: poll() sees every line still waiting in the descriptor, none hides in
     * stdio's buffer when several arrive at once. */
    setvbuf(stdin, NULL, _IONBF, 0);
    bool stdin_open = true, running = rc == 0;
    while (running) {
        struct pollfd fds[4 + SIM_CONTROL_MAX_CLIENTS] = {
            { .fd = sim_gbvp_fd(s), .events = POLLIN },
            { .fd = sfd, .events = POLLIN },
            { .fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN },
        };
        nfds_t nfds = 3 + (ctl ? sim_control_pollfds(ctl, fds + 3, 1 + SIM_CONTROL_MAX_CLIENTS) : 0);
        struct timespec wait = sim_gbvp_poll_timeout(s, monotonic_ps(&t0));
        int n = ppoll(fds, nfds, &wait, NULL);
        if (n < 0 && errno != EINTR) {
            perror("gbvp sim: poll");
            rc = 1;
            break;
        }
        sim_time now = sim_gbvp_clock_now(s, monotonic_ps(&t0));
        ctl_now = now;
        if (n > 0 && (fds[1].revents & POLLIN)) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) > 0)
                fprintf(stderr, "gbvp sim: signal %u, stopping\n", si.ssi_signo);
            running = false;
        }
        if (n > 0 && (fds[2].revents & (POLLIN | POLLHUP))) {
            char line[1024];
            if (!fgets(line, sizeof line, stdin))
                stdin_open = false;
            else if (!command(s, line, now))
                running = false;
        }
        sim_gbvp_process(s, now);
        if (ctl)
            sim_control_service(ctl);
    }
    if (stats_path && sim_gbvp_write_stats(s, stats_path))
        rc = 1;
    sim_control_free(ctl);
    sim_gbvp_free(s);
    if (sfd >= 0)
        close(sfd);
    return rc;
}
