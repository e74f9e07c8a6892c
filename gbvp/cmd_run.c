// SPDX-License-Identifier: MIT
// `gbvp run`: builds what is missing, starts the simulator (a child `gbvp sim` with its
// control socket) and QEMU (scripts/run-guest.sh --background with the greybus-es2 device),
// runs a scenario (scenarios/demo.lua unless --scenario names another) against them through
// the control socket and the guest agent, prints its TAP with the seconds since start, and
// stops everything it started, on Ctrl-C too. The control socket is named at start, so
// `gbvp ctl` works on the running demo.
#include "gbvp/cmd_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/agent/agent_client.h"
#include "gbvp/cli_opts.h"
#include "gbvp/cpu_list.h"
#include "gbvp/out_file.h"
#include "gbvp/paths.h"
#include "gbvp/scenario/scenario.h"
#include "gbvp/target/target_remote.h"

#define MAX_SET 64
#define MAX_QEMU_ARGS 32
/* --sim-wrapper: its words come first in the simulator's command line */
#define MAX_WRAPPER_WORDS 32
#define MAX_WRAPPER_TEXT 1024
/* the most words start_sim puts after the wrapper's: gbvp sim and its 6 fixed options (8),
 * --pcap, --trace, --pcap-frames, --timing, --cpus (9), lockstep's 7, and the NULL */
#define MAX_SIM_WORDS 25

/* Signal handlers may only touch these: the children to stop at once (which ends any wait
 * on the control socket or the agent) and the flag the main flow checks between steps.
 * (The one piece of global state: a handler has no context.) */
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t child_pid_sig;
static volatile sig_atomic_t qemu_pid_sig;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
    if (qemu_pid_sig > 0)
        kill((pid_t)qemu_pid_sig, SIGTERM);
    if (child_pid_sig > 0)
        kill((pid_t)child_pid_sig, SIGTERM);
}

typedef struct run_opts {
    const char *scenario, *control, *qemu, *kernel, *initrd, *pcap, *trace;
    const char *arch;         /* --arch: the guest's, x86_64 (default) or arm64 */
    const char *tap, *junit;  /* --tap, --junit: the scenario's reports, for gbvp test */
    const char *set[MAX_SET]; /* --set NAME=VALUE, for gbvp.arg */
    size_t nset;
    uint64_t seed;
    unsigned timeout_s;
    const char *sim_wrapper; /* --sim-wrapper: words run before `gbvp sim` (valgrind ...) */
    const char *log_dir;     /* --log-dir: the logs are copied there at the end */
    const char *timing;      /* --timing: the simulator's network timing, NULL: its default */
    const char *sim_cpus, *qemu_cpus; /* --sim-cpus, --qemu-cpus: CPU lists, NULL: any */
    bool kvm, keep_running, pcap_frames;
    bool lockstep;           /* --lockstep: one virtual clock for QEMU and the simulator */
    unsigned shift;          /* --shift: -icount shift (lockstep) */
    unsigned quantum_ns;     /* --quantum (lockstep) */
    bool seed_given;
    /* bring your own: --image (a virtio disk), --append (kernel command line), --qemu-arg */
    const char *image, *append;
    const char *qemu_args[MAX_QEMU_ARGS];
    size_t nqemu_args;
    unsigned agent_timeout_s; /* --agent-timeout: how long to wait for the guest agent */
} run_opts;

typedef struct run_ctx {
    run_opts o;
    struct timespec t0;
    char repo[PATH_MAX], self[PATH_MAX], dir[PATH_MAX], scenario[PATH_MAX + 32];
    char link[PATH_MAX + 16], agent_sock[PATH_MAX + 16], sim_log[PATH_MAX + 16];
    char control[PATH_MAX + 16];
    char qemu[PATH_MAX], kernel[PATH_MAX], initrd[PATH_MAX];
    pid_t child, qemu_pid;
    bool sim_failed; /* under --sim-wrapper: it did not exit 0 when stopped */
    bool at_line_start; /* of the timestamped TAP stream */
    FILE *tap_copy;     /* --tap: the same TAP without timestamps */
    sim_out_file junit; /* --junit: opened at start, written when the scenario ends */
} run_ctx;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp run [--scenario FILE] [--control PATH] [--pcap FILE [--pcap-frames]]\n"
            "                [--trace FILE] [--tap FILE] [--junit FILE] [--seed N]\n"
            "                [--set NAME=VALUE]... [--timeout S] [--log-dir DIR]\n"
            "                [--lockstep [--shift N] [--quantum NS]] [--timing MODE]\n"
            "                [--kvm] [--keep-running] [--qemu PATH] [--kernel PATH]\n"
            "                [--initrd PATH|none] [--image FILE] [--append ARGS]\n"
            "                [--qemu-arg ARG]... [--agent-timeout S] [--arch x86_64|arm64]\n"
            "                [--sim-cpus LIST] [--qemu-cpus LIST] [--sim-wrapper 'COMMAND ARGS']\n\n"
            "Builds QEMU and the guest when needed, starts the simulator (gbvp sim) and QEMU\n"
            "(TCG), boots the Linux 6.1 guest against the emulated ES2 bridge and runs a\n"
            "scenario through the simulator's control socket and the guest agent: by default\n"
            "scenarios/demo.lua, which inserts seven catalog modules, uses each from inside the\n"
            "guest and removes them. Exit status 0 when the scenario passed.\n\n"
            "  --scenario FILE  the Lua scenario to run: a path, or the name of one in\n"
            "                   DATA/scenarios/ (default DATA/scenarios/demo.lua)\n"
            "  --control PATH   the simulator's control socket (default RUNDIR/control.sock);\n"
            "                   named at start: gbvp ctl --socket PATH works while it runs\n"
            "                   (and plain gbvp ctl finds the default one)\n"
            "  --pcap FILE      capture every Greybus message as pcapng for Wireshark\n"
            "                   (docs/tracing.md)\n"
            "  --pcap-frames    the capture holds every UniPro data-link frame too\n"
            "  --trace FILE     write a timeline (trace-event JSON for ui.perfetto.dev)\n"
            "  --tap FILE       the scenario's TAP into FILE as well (without timestamps)\n"
            "  --junit FILE     the scenario's results as JUnit XML\n"
            "  --seed N         seed of gbvp.random (default 1); with --lockstep also of the\n"
            "                   simulator's fault generators and of QEMU's -seed\n"
            "  --lockstep       one clock for the guest and the network: QEMU counts\n"
            "                   instructions (-icount) and the simulator follows its virtual\n"
            "                   time through time grants; a run is then the same every time\n"
            "                   for one scenario and seed (docs/timing-in-sim.md, \"Lockstep\")\n"
            "  --shift N        lockstep: 2^N ns of virtual time per guest instruction, 0..10\n"
            "                   (default 3)\n"
            "  --quantum NS     lockstep: how late, at most, a message reaches the other side,\n"
            "                   in virtual ns, 1000..100000000 (default 100000)\n"
            "  --timing MODE    the network's timing in the simulator (gbvp sim --timing):\n"
            "                   frame (default), message or off (messages cross at once)\n"
            "  --log-dir DIR    keep console.log, sim.log, qemu.log and the guest's dmesg.log\n"
            "                   (fetched at the end) in DIR, passed or failed; DIR is made\n"
            "                   at start, refused there if it cannot be\n"
            "  --set NAME=VALUE a value the scenario reads with gbvp.arg(NAME, default)\n"
            "  --timeout S      the scenario's wall-clock limit (default 1800)\n"
            "  --kvm            use KVM instead of TCG\n"
            "  --keep-running   leave the guest and the simulator up afterwards, for gbvp ctl\n"
            "                   and gbvp agent; Ctrl-C stops both\n"
            "  --qemu PATH      QEMU binary with -device greybus-es2 (default: scripts/build-qemu.sh's)\n"
            "  --kernel PATH    guest kernel (default: scripts/build-guest.sh's)\n"
            "  --initrd PATH    guest initramfs with gbvp-agent (default: build-guest.sh's);\n"
            "                   none: no initramfs (the kernel mounts its root itself)\n"
            "  --image FILE     a raw disk image the guest sees as /dev/vda (written in\n"
            "                   place); with --initrd none the kernel boots from it\n"
            "                   (root=/dev/vda rw unless --append names a root=). An image\n"
            "                   with FILE.kernel beside it (scripts/build-image.sh's Debian\n"
            "                   image) boots with that kernel and no initramfs by default\n"
            "  --append ARGS    more kernel command line (after the console and agent's)\n"
            "  --qemu-arg ARG   one more QEMU argument (repeatable, in order), e.g.\n"
            "                   --qemu-arg -m --qemu-arg 512\n"
            "  --agent-timeout S  how long to wait for the guest agent (default 300). With\n"
            "                   your own --kernel, --initrd or --image and no agent by then,\n"
            "                   the scenario runs with what the simulator sees (enumeration,\n"
            "                   connections, traffic) and says so; with gbvp's own guest\n"
            "                   a missing agent is an error\n"
            "  --arch ARCH      the guest: x86_64 (default; QEMU pc) or arm64 (QEMU virt,\n"
            "                   cortex-a57); both with qemu-xhci and greybus-es2\n"
            "  --sim-cpus LIST  run the simulator on these CPUs (as taskset writes them: 1,\n"
            "                   0,2, 0-3; gbvp sim --cpus)\n"
            "  --qemu-cpus LIST run QEMU, every thread of it, on these CPUs; with --sim-cpus\n"
            "                   on others, the two share no core\n"
            "  --sim-wrapper 'COMMAND ARGS'\n"
            "                   run the simulator under COMMAND (words split at spaces, no\n"
            "                   quoting; at most 32), e.g.\n"
            "                   'valgrind --error-exitcode=99 --leak-check=full';\n"
            "                   the run fails when the simulator does not exit 0 when stopped\n"
            "  --help           this text\n\n"
            "RUNDIR, this run's own folder, holds the sockets and the logs (console.log,\n"
            "sim.log, qemu.log): $XDG_RUNTIME_DIR/gbvp/run-PID.XXXXXX, else\n"
            "/tmp/gbvp-UID/run-PID.XXXXXX; removed after a passed run, kept otherwise.\n"
            "DATA, gbvp's data folder (scripts, scenarios, the catalog, the guest's sources):\n"
            "$GBVP_DATADIR, PREFIX/share/gbvp for an installed gbvp, or the source tree of a\n"
            "built one. docs/running.md has the details.\n");
}

static double elapsed(const run_ctx *r)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - r->t0.tv_sec) + (double)(t.tv_nsec - r->t0.tv_nsec) / 1e9;
}

__attribute__((format(printf, 2, 3))) static void say(const run_ctx *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[%8.3f] ", elapsed(r));
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
}

/* Forks ARGV with standard input/output/error on the given descriptors (-1: inherit). */
static pid_t spawn(char *const argv[], int in, int out, int err, bool own_group)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (own_group)
        setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (in >= 0)
        dup2(in, STDIN_FILENO);
    if (out >= 0)
        dup2(out, STDOUT_FILENO);
    if (err >= 0)
        dup2(err, STDERR_FILENO);
    execvp(argv[0], argv);
    fprintf(stderr, "gbvp run: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static int wait_child(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs ARGV with its standard output captured into buf (standard error passes through, so
 * build progress shows). Returns the exit status. */
static int capture(char *const argv[], char *buf, size_t cap)
{
    int p[2];
    /* close-on-exec: QEMU, started in the background by run-guest.sh, must not inherit
     * the write end, or this read would wait for QEMU's end */
    if (pipe2(p, O_CLOEXEC))
        return -1;
    pid_t pid = spawn(argv, -1, p[1], -1, false);
    close(p[1]);
    size_t n = 0;
    for (;;) {
        ssize_t k = read(p[0], buf + n, cap - 1 - n);
        if (k < 0 && errno == EINTR && !stop_requested)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        if (n == cap - 1)
            break;
    }
    buf[n] = 0;
    close(p[0]);
    return pid < 0 ? -1 : wait_child(pid);
}

/* Copies the rest of the line that starts with KEY in TEXT into out. */
static bool line_value(const char *text, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, key, kl)) {
            size_t n = strcspn(p + kl, "\n");
            snprintf(out, cap, "%.*s", (int)n, p + kl);
            return true;
        }
    return false;
}

/* gbvp's data folder (paths.h: found from this program's own place, never the current
 * directory), which must hold the scripts that build and boot the guest. */
static bool find_data(run_ctx *r, char *err, size_t errlen)
{
    if (sim_paths_data_dir(r->repo, sizeof r->repo, err, errlen))
        return false;
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "%s/scripts/run-guest.sh", r->repo);
    if (access(script, X_OK)) {
        snprintf(err, errlen, "%s: %s (the scripts of gbvp's data folder; reinstall gbvp or "
                 "set GBVP_DATADIR)", script, strerror(errno));
        return false;
    }
    return true;
}

/* --- building -------------------------------------------------------------------------- */

static bool build(run_ctx *r)
{
    static char out[8192];
    char script[PATH_MAX + 32];
    if (!r->o.qemu) {
        say(r, "QEMU: scripts/build-qemu.sh (cached after the first build, ~30 min without)");
        snprintf(script, sizeof script, "%s/scripts/build-qemu.sh", r->repo);
        char *argv[] = { script, NULL };
        char *print[] = { script, "--print-path", NULL };
        if (capture(argv, out, sizeof out) != 0 || capture(print, out, sizeof out) != 0 ||
            !line_value(out, "/", r->qemu + 1, sizeof r->qemu - 1)) {
            say(r, "scripts/build-qemu.sh failed (its output is above)");
            return false;
        }
        r->qemu[0] = '/';
    } else {
        snprintf(r->qemu, sizeof r->qemu, "%s", r->o.qemu);
    }
    if (access(r->qemu, X_OK)) {
        say(r, "QEMU binary %s is not executable", r->qemu);
        return false;
    }
    /* An image from scripts/build-image.sh has the kernel that belongs to it (its modules
     * are in the image) beside it as IMAGE.kernel: that kernel boots it from the disk. */
    char image_kernel[PATH_MAX];
    if (r->o.image && !r->o.kernel && !r->o.initrd && !strcmp(r->o.arch, "x86_64") &&
        snprintf(image_kernel, sizeof image_kernel, "%s.kernel", r->o.image) < (int)sizeof image_kernel &&
        !access(image_kernel, R_OK)) {
        say(r, "guest: %s's own kernel %s, root on the image", r->o.image, image_kernel);
        snprintf(r->kernel, sizeof r->kernel, "%s", image_kernel);
        snprintf(r->initrd, sizeof r->initrd, "none");
    } else if (!r->o.kernel || !r->o.initrd) {
        say(r, "guest: scripts/build-guest.sh (cached after the first build)");
        snprintf(script, sizeof script, "%s/scripts/build-guest.sh", r->repo);
        char *argv[] = { script, "--arch", (char *)r->o.arch, NULL };
        if (capture(argv, out, sizeof out) != 0 || !line_value(out, "kernel: ", r->kernel, sizeof r->kernel) ||
            !line_value(out, "initramfs: ", r->initrd, sizeof r->initrd)) {
            say(r, "scripts/build-guest.sh failed (its output is above)");
            return false;
        }
    }
    if (r->o.kernel)
        snprintf(r->kernel, sizeof r->kernel, "%s", r->o.kernel);
    if (r->o.initrd)
        snprintf(r->initrd, sizeof r->initrd, "%s", r->o.initrd);
    for (int i = 0; i < 2; i++) {
        const char *f = i ? r->initrd : r->kernel;
        if (i && !strcmp(f, "none"))
            continue;
        if (access(f, R_OK)) {
            say(r, "%s %s cannot be read: %s", i ? "initramfs" : "kernel", f, strerror(errno));
            return false;
        }
    }
    say(r, "QEMU %s", r->qemu);
    say(r, "kernel %s, initramfs %s%s%s", r->kernel, r->initrd, r->o.image ? ", disk " : "",
        r->o.image ? r->o.image : "");
    return true;
}

/* --- the simulator and QEMU ------------------------------------------------------------ */

static bool is_socket(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* The last lines of the simulator's log, where it says why it stopped. */
static void show_sim_log(const run_ctx *r)
{
    FILE *f = fopen(r->sim_log, "r");
    char lines[8][512];
    unsigned n = 0;
    while (f && fgets(lines[n % 8], sizeof lines[0], f))
        n++;
    if (f)
        fclose(f);
    for (unsigned i = n > 8 ? n - 8 : 0; i < n; i++)
        printf("           sim| %s", lines[i % 8]);
    fflush(stdout);
}

static bool start_sim(run_ctx *r)
{
    int log = open(r->sim_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (log < 0 || devnull < 0) {
        say(r, "cannot create %s: %s", r->sim_log, strerror(errno));
        if (log >= 0)
            close(log);
        return false;
    }
    /* --sim-wrapper's words first (split at spaces; parse checked they fit), then gbvp sim
     * and its options */
    char words[MAX_WRAPPER_TEXT], *argv[MAX_WRAPPER_WORDS + MAX_SIM_WORDS];
    int n = 0;
    snprintf(words, sizeof words, "%s", r->o.sim_wrapper ? r->o.sim_wrapper : "");
    for (char *save = NULL, *w = strtok_r(words, " \t", &save); w && n < MAX_WRAPPER_WORDS;
         w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    const char *sim_argv[] = { r->self, "sim", "--link", r->link, "--slots", "8", "--control",
                               r->control };
    for (size_t i = 0; i < sizeof sim_argv / sizeof sim_argv[0]; i++)
        argv[n++] = (char *)sim_argv[i];
    if (r->o.pcap) {
        argv[n++] = "--pcap";
        argv[n++] = (char *)r->o.pcap;
    }
    if (r->o.trace) {
        argv[n++] = "--trace";
        argv[n++] = (char *)r->o.trace;
    }
    if (r->o.pcap_frames)
        argv[n++] = "--pcap-frames";
    if (r->o.timing) {
        argv[n++] = "--timing";
        argv[n++] = (char *)r->o.timing;
    }
    if (r->o.sim_cpus) {
        argv[n++] = "--cpus";
        argv[n++] = (char *)r->o.sim_cpus;
    }
    char quantum[24], seed[24];
    if (r->o.lockstep) {
        snprintf(quantum, sizeof quantum, "%u", r->o.quantum_ns);
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->o.seed);
        const char *ls[] = { "--clock", "lockstep", "--held", "--quantum", quantum, "--seed",
                             seed };
        for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
            argv[n++] = (char *)ls[i];
    }
    argv[n] = NULL;
    say(r, "simulator: %s%sgbvp sim --link %s --slots 8 --control %s%s%s%s (log %s)",
        r->o.sim_wrapper ? r->o.sim_wrapper : "", r->o.sim_wrapper ? " " : "", r->link,
        r->control, r->o.timing ? " --timing " : "", r->o.timing ? r->o.timing : "",
        r->o.lockstep ? " --clock lockstep --held" : "", r->sim_log);
    r->child = spawn(argv, devnull, log, log, true);
    close(devnull);
    close(log);
    if (r->child < 0)
        return false;
    child_pid_sig = r->child;
    /* 10 s; 120 s under a wrapper (valgrind starts 20-50 times slower) */
    for (int i = 0; i < (r->o.sim_wrapper ? 4800 : 400) && !stop_requested; i++) {
        if (is_socket(r->control) && is_socket(r->link))
            return true;
        if (waitpid(r->child, NULL, WNOHANG) == r->child) {
            r->child = 0;
            child_pid_sig = 0;
            break;
        }
        usleep(25000);
    }
    say(r, "the simulator did not open %s and %s; its log says:", r->link, r->control);
    show_sim_log(r);
    return false;
}

static bool start_qemu(run_ctx *r)
{
    char script[PATH_MAX + 32], dev[PATH_MAX + 96], out[2048], shift[16], seed[24];
    snprintf(script, sizeof script, "%s/scripts/run-guest.sh", r->repo);
    if (r->o.lockstep)
        snprintf(dev, sizeof dev, "greybus-es2,link=%s,lockstep=on,quantum=%u", r->link,
                 r->o.quantum_ns);
    else
        snprintf(dev, sizeof dev, "greybus-es2,link=%s", r->link);
    snprintf(shift, sizeof shift, "%u", r->o.shift);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->o.seed);
    /* Without --qemu, run-guest.sh finds build-qemu.sh's binary itself and adds the
     * firmware paths that build needs (it has no blobs of its own); with --qemu, the same
     * Debian firmware directories are added as extra search paths, harmless elsewhere. */
    char *argv[64 + MAX_QEMU_ARGS];
    int n = 0;
    char append[4096];
    char *fixed[] = { script, "--background", "--arch", (char *)r->o.arch, "--dir", r->dir,
                      "--kernel", r->kernel, "--initrd", r->initrd,
                      "--device", "qemu-xhci,id=xhci", "--device", dev };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[n++] = fixed[i];
    if (r->o.kvm)
        argv[n++] = "--kvm";
    if (r->o.qemu_cpus) {
        argv[n++] = "--cpus";
        argv[n++] = (char *)r->o.qemu_cpus;
    }
    if (r->o.lockstep) {
        char *ls[] = { "--icount", shift, "--seed", seed };
        for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
            argv[n++] = ls[i];
    }
    if (r->o.qemu) {
        argv[n++] = "--qemu";
        argv[n++] = (char *)r->o.qemu;
    }
    if (r->o.image) {
        argv[n++] = "--image";
        argv[n++] = (char *)r->o.image;
    }
    /* booting from the disk: its root, unless the user named one */
    bool own_root = r->o.image && !strcmp(r->initrd, "none") &&
                    !(r->o.append && strstr(r->o.append, "root="));
    snprintf(append, sizeof append, "%s%s%s", own_root ? "root=/dev/vda rw" : "",
             own_root && r->o.append ? " " : "", r->o.append ? r->o.append : "");
    if (append[0]) {
        argv[n++] = "--append";
        argv[n++] = append;
    }
    char *tail[] = { "--", "-L", "/usr/share/qemu", "-L", "/usr/share/seabios" };
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        argv[n++] = tail[i];
    for (size_t i = 0; i < r->o.nqemu_args; i++)
        argv[n++] = (char *)r->o.qemu_args[i];
    argv[n] = NULL;
    say(r, "QEMU: %s, %s%s, 256 MiB, qemu-xhci + greybus-es2 (console %s/console.log)",
        r->o.arch, r->o.kvm ? "KVM" : "TCG", r->o.lockstep ? " -icount (lockstep)" : "", r->dir);
    if (capture(argv, out, sizeof out) != 0) {
        say(r, "scripts/run-guest.sh could not start QEMU (see %s/qemu.log)", r->dir);
        return false;
    }
    char pid[32];
    if (!line_value(out, "qemu pid: ", pid, sizeof pid) || atoi(pid) <= 0)
        return false;
    r->qemu_pid = (pid_t)atoi(pid);
    qemu_pid_sig = r->qemu_pid;
    return true;
}

static bool pid_alive(pid_t pid)
{
    return pid > 0 && kill(pid, 0) == 0;
}

static void stop_qemu(run_ctx *r)
{
    if (r->qemu_pid > 0) {
        kill(r->qemu_pid, SIGTERM);
        for (int i = 0; i < 50 && pid_alive(r->qemu_pid); i++)
            usleep(100000);
        if (pid_alive(r->qemu_pid))
            kill(r->qemu_pid, SIGKILL);
        r->qemu_pid = 0;
        qemu_pid_sig = 0;
    }
}

static void stop_all(run_ctx *r)
{
    stop_qemu(r);
    if (r->child > 0) {
        /* a wrapper (--sim-wrapper) may be a script: the whole group, spawn() made one */
        kill(r->o.sim_wrapper ? -r->child : r->child, SIGTERM);
        struct rusage ru;
        pid_t got = 0;
        int st = 0, limit = r->o.sim_wrapper ? 1200 : 30; /* valgrind's leak check takes time */
        for (int i = 0; i < limit && (got = wait4(r->child, &st, WNOHANG, &ru)) == 0; i++)
            usleep(100000);
        if (got == 0) {
            kill(r->o.sim_wrapper ? -r->child : r->child, SIGKILL);
            got = wait4(r->child, &st, 0, &ru);
        }
        /* under --sim-wrapper the wrapper's verdict counts (valgrind --error-exitcode) */
        if (r->o.sim_wrapper && got == r->child && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            say(r, "the simulator under '%s' %s %d (its log: %s)", r->o.sim_wrapper,
                WIFEXITED(st) ? "exited with status" : "was killed by signal",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), r->sim_log);
            r->sim_failed = true;
        }
        if (got == r->child) /* what the simulator cost, for comparing runs (docs/tracing.md) */
            say(r, "simulator: %.3f s of CPU (user %.3f, system %.3f)",
                (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
                (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
                (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
        r->child = 0;
        child_pid_sig = 0;
    }
}

/* --- the scenario ---------------------------------------------------------------------- */

/* The scenario's TAP, each line behind the seconds since start, like the rest of the log. */
static ssize_t tap_write(void *cookie, const char *buf, size_t len)
{
    run_ctx *r = cookie;
    if (r->tap_copy)
        fwrite(buf, 1, len, r->tap_copy);
    for (size_t i = 0; i < len; i++) {
        if (r->at_line_start)
            printf("[%8.3f] ", elapsed(r));
        putchar(buf[i]);
        r->at_line_start = buf[i] == '\n';
    }
    fflush(stdout);
    return (ssize_t)len;
}

/* --log-dir: the guest's kernel log, kept beside the others. */
static void fetch_dmesg(run_ctx *r, const sim_target *t)
{
    if (!(t->features & SIM_TARGET_GUEST) || stop_requested)
        return;
    char path[PATH_MAX + 16], err[256];
    snprintf(path, sizeof path, "%s/dmesg.log", r->dir);
    sim_agent_result res;
    if (t->ops->guest_run(t->ctx, "dmesg", 20000, &res, err, sizeof err)) {
        say(r, "the guest's dmesg could not be fetched: %s", err);
        return;
    }
    FILE *f = fopen(path, "w");
    if (!f || fwrite(res.output, 1, res.output_len, f) != res.output_len)
        say(r, "cannot write %s: %s", path, strerror(errno));
    if (f)
        fclose(f);
    sim_agent_result_clear(&res);
}

static bool run_scenario(run_ctx *r, double qemu_start)
{
    char err[512];
    say(r, "waiting for the guest agent on %s (console %s/console.log)", r->agent_sock, r->dir);
    /* A guest the user brought may have no agent: then the scenario sees only the
     * network side. gbvp's own guest always has one, and its absence is a failure. */
    bool own = r->o.kernel || r->o.initrd || r->o.image, missing = false;
    int wait_ms = r->o.agent_timeout_s ? (int)r->o.agent_timeout_s * 1000 : 0;
    sim_remote *remote = sim_remote_new_agent(r->control, r->agent_sock, wait_ms,
                                              own ? &missing : NULL, err, sizeof err);
    if (!remote) {
        if (!stop_requested)
            say(r, "%s", err);
        return false;
    }
    if (missing)
        say(r, "no guest agent (%s): the scenario runs with what the simulator sees of the "
               "guest (enumeration, connections, traffic); its checks inside the guest are "
               "skipped", err);
    else
        say(r, "guest up: agent ready %.3f s after QEMU started", elapsed(r) - qemu_start);
    r->at_line_start = true;
    FILE *tap = fopencookie(r, "w", (cookie_io_functions_t){ .write = tap_write });
    bool ok = false;
    if (tap) {
        setvbuf(tap, NULL, _IOLBF, 0);
        sim_scenario_config cfg = { .seed = r->o.seed, .timeout_s = r->o.timeout_s,
                                    .tap = tap, .args = r->o.set, .nargs = r->o.nset };
        sim_scenario *sc = sim_scenario_new(&cfg, sim_remote_target(remote), err, sizeof err);
        if (sc) {
            say(r, "scenario %s", r->scenario);
            ok = sim_scenario_run_file(sc, r->scenario) == 0;
            fflush(tap);
            say(r, "scenario %s: %u passed, %u failed%s", r->scenario,
                sim_scenario_passed(sc), sim_scenario_failed(sc), ok ? "" : " -- FAILED");
            /* the reason in the words of gbvp scenario, which gbvp test quotes */
            if (sim_scenario_error(sc))
                say(r, "gbvp run: %s: error: %s", r->scenario, sim_scenario_error(sc));
            else if (!ok && sim_scenario_first_failure(sc))
                say(r, "gbvp run: %s: failed: %s", r->scenario, sim_scenario_first_failure(sc));
            if (r->o.junit) {
                const char *b = strrchr(r->scenario, '/');
                char suite[PATH_MAX + 32];
                snprintf(suite, sizeof suite, "%s", b ? b + 1 : r->scenario);
                size_t sl = strlen(suite);
                if (sl > 4 && !strcmp(suite + sl - 4, ".lua"))
                    suite[sl - 4] = 0;
                sim_scenario_junit j = { sc, suite };
                int jr = sim_out_file_write(&r->junit, sim_scenario_junit_write, &j);
                if (jr) {
                    say(r, "cannot write %s: %s", r->o.junit, strerror(-jr));
                    ok = false;
                }
            }
            sim_scenario_free(sc);
        } else {
            say(r, "%s", err);
        }
        fclose(tap);
    }
    if (r->o.log_dir)
        fetch_dmesg(r, sim_remote_target(remote));
    /* In lockstep QEMU goes while this client still holds the clock: letting go first
     * would have the simulator grant QEMU's pending barrier, or not, as the host
     * schedules QEMU's end, and the run's last statistics would differ between runs. */
    if (r->o.lockstep && !r->o.keep_running)
        stop_qemu(r);
    sim_remote_free(remote);
    return ok;
}

/* --keep-running: the simulator and the guest stay for gbvp ctl and gbvp agent. */
static void keep_running(run_ctx *r)
{
    say(r, "the guest and the simulator stay up; Ctrl-C stops both");
    say(r, "  simulator: %s ctl --socket %s status", r->self, r->control);
    say(r, "  guest:     %s agent --socket %s -- 'ls /sys/bus/greybus/devices'", r->self,
        r->agent_sock);
    say(r, "  console:   %s/console.log", r->dir);
    while (!stop_requested && pid_alive(r->qemu_pid) &&
           waitpid(r->child, NULL, WNOHANG) == 0)
        usleep(200000);
    if (!stop_requested)
        say(r, "%s ended", pid_alive(r->qemu_pid) ? "the simulator" : "QEMU");
}

/* --seed N, --timeout S, --set NAME=VALUE. */
static int parse_number_or_set(const char *a, const char *v, run_opts *o)
{
    if (!strcmp(a, "--set")) {
        if (!sim_cli_set_ok(v) || o->nset == MAX_SET) {
            fprintf(stderr, "gbvp run: --set %s: want NAME=VALUE (at most %d)\n", v, MAX_SET);
            return -1;
        }
        o->set[o->nset++] = v;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    bool seed = !strcmp(a, "--seed"), shift = !strcmp(a, "--shift"),
         quantum = !strcmp(a, "--quantum");
    unsigned long long lo = seed || shift ? 0 : quantum ? 1000 : 1;
    unsigned long long hi = seed ? INT64_MAX : shift ? 10 : quantum ? 100000000 : 86400;
    if (errno || end == v || *end || v[0] == '-' || n < lo || n > hi) {
        fprintf(stderr, "gbvp run: %s %s: want %s\n", a, v,
                seed    ? "a number 0..2^63-1"
                : shift ? "0..10 (2^N ns per instruction)"
                : quantum ? "virtual nanoseconds, 1000..100000000"
                          : "seconds, 1..86400");
        return -1;
    }
    if (seed) {
        o->seed = n;
        o->seed_given = true;
    } else if (shift) {
        o->shift = (unsigned)n;
    } else if (quantum) {
        o->quantum_ns = (unsigned)n;
    } else {
        o->timeout_s = (unsigned)n;
    }
    return 0;
}

/* The words of --sim-wrapper as start_sim splits them: how many. */
static size_t wrapper_words(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p;) {
        p += strspn(p, " \t");
        if (!*p)
            break;
        n++;
        p += strcspn(p, " \t");
    }
    return n;
}

static int parse(int argc, char **argv, run_opts *o)
{
    o->seed = 1;
    o->timeout_s = 1800;
    o->shift = 3;
    o->quantum_ns = 100000;
    bool shift_or_quantum = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--kvm")) {
            o->kvm = true;
        } else if (!strcmp(a, "--keep-running")) {
            o->keep_running = true;
        } else if (!strcmp(a, "--pcap-frames")) {
            o->pcap_frames = true;
        } else if (!strcmp(a, "--lockstep")) {
            o->lockstep = true;
        } else if (!strcmp(a, "--log-dir")) {
            slot = &o->log_dir;
        } else if (!strcmp(a, "--scenario")) {
            slot = &o->scenario;
        } else if (!strcmp(a, "--control")) {
            slot = &o->control;
        } else if (!strcmp(a, "--pcap")) {
            slot = &o->pcap;
        } else if (!strcmp(a, "--trace")) {
            slot = &o->trace;
        } else if (!strcmp(a, "--qemu")) {
            slot = &o->qemu;
        } else if (!strcmp(a, "--kernel")) {
            slot = &o->kernel;
        } else if (!strcmp(a, "--initrd")) {
            slot = &o->initrd;
        } else if (!strcmp(a, "--image")) {
            slot = &o->image;
        } else if (!strcmp(a, "--append")) {
            slot = &o->append;
        } else if (!strcmp(a, "--qemu-arg")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gbvp run: --qemu-arg needs a value\n");
                return 2;
            }
            if (o->nqemu_args == MAX_QEMU_ARGS) {
                fprintf(stderr, "gbvp run: more than %d --qemu-arg\n", MAX_QEMU_ARGS);
                return 2;
            }
            o->qemu_args[o->nqemu_args++] = argv[++i];
        } else if (!strcmp(a, "--agent-timeout")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gbvp run: --agent-timeout needs a number of seconds\n");
                return 2;
            }
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (!*argv[i] || *end || v < 1 || v > 3600) {
                fprintf(stderr, "gbvp run: --agent-timeout %s: want whole seconds, 1..3600\n",
                        argv[i]);
                return 2;
            }
            o->agent_timeout_s = (unsigned)v;
        } else if (!strcmp(a, "--tap")) {
            slot = &o->tap;
        } else if (!strcmp(a, "--junit")) {
            slot = &o->junit;
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--timeout") || !strcmp(a, "--set") ||
                   !strcmp(a, "--shift") || !strcmp(a, "--quantum")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gbvp run: %s needs a value\n", a);
                return 2;
            }
            shift_or_quantum |= !strcmp(a, "--shift") || !strcmp(a, "--quantum");
            if (parse_number_or_set(a, argv[++i], o))
                return 2;
        } else if (!strcmp(a, "--sim-wrapper")) {
            slot = &o->sim_wrapper;
        } else if (!strcmp(a, "--timing")) {
            slot = &o->timing;
        } else if (!strcmp(a, "--sim-cpus")) {
            slot = &o->sim_cpus;
        } else if (!strcmp(a, "--qemu-cpus")) {
            slot = &o->qemu_cpus;
        } else if (!strcmp(a, "--arch")) {
            slot = &o->arch;
        } else {
            fprintf(stderr, "gbvp run: unknown option '%s' (try --help)\n", a);
            return 2;
        }
        if (slot) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gbvp run: %s needs a value\n", a);
                return 2;
            }
            *slot = argv[++i];
        }
    }
    if (o->timing && strcmp(o->timing, "frame") && strcmp(o->timing, "message") &&
        strcmp(o->timing, "off")) {
        fprintf(stderr, "gbvp run: --timing %s: want frame, message or off\n", o->timing);
        return 2;
    }
    const char *cpu_opts[][2] = { { "--sim-cpus", o->sim_cpus }, { "--qemu-cpus", o->qemu_cpus } };
    for (size_t i = 0; i < 2; i++) {
        char why[320];
        if (cpu_opts[i][1] && cpu_list_check(cpu_opts[i][1], why, sizeof why)) {
            fprintf(stderr, "gbvp run: %s: %s\n", cpu_opts[i][0], why);
            return 2;
        }
    }
    if (o->sim_wrapper) {
        size_t words = wrapper_words(o->sim_wrapper);
        if (!words || words > MAX_WRAPPER_WORDS || strlen(o->sim_wrapper) >= MAX_WRAPPER_TEXT) {
            fprintf(stderr, "gbvp run: --sim-wrapper '%s': want a command and its arguments, "
                    "1 to %d words in fewer than %d characters\n", o->sim_wrapper,
                    MAX_WRAPPER_WORDS, MAX_WRAPPER_TEXT);
            return 2;
        }
    }
    if (o->pcap_frames && (!o->pcap || (o->timing && strcmp(o->timing, "frame")))) {
        fprintf(stderr, "gbvp run: --pcap-frames needs --pcap FILE and the frame-level "
                "timing (--timing frame, the default)\n");
        return 2;
    }
    if (shift_or_quantum && !o->lockstep) {
        fprintf(stderr, "gbvp run: --shift and --quantum need --lockstep\n");
        return 2;
    }
    if (o->lockstep && o->kvm) {
        fprintf(stderr, "gbvp run: --lockstep counts TCG's instructions: it excludes --kvm\n");
        return 2;
    }
    if (!o->arch)
        o->arch = "x86_64";
    else if (!strcmp(o->arch, "aarch64"))
        o->arch = "arm64";
    if (strcmp(o->arch, "x86_64") && strcmp(o->arch, "arm64")) {
        fprintf(stderr, "gbvp run: --arch %s: want x86_64 or arm64\n", o->arch);
        return 2;
    }
    /* (--scenario may name one of gbvp's own: looked up once the data folder is known) */
    /* (the disk is written in place; --initrd none is no file) */
    struct { const char *opt, *path; int mode; } files[] = {
        { "--kernel", o->kernel, R_OK },
        { "--initrd", o->initrd && strcmp(o->initrd, "none") ? o->initrd : NULL, R_OK },
        { "--qemu", o->qemu, R_OK },
        { "--image", o->image, R_OK | W_OK },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i].path && access(files[i].path, files[i].mode)) {
            fprintf(stderr, "gbvp run: %s %s: %s\n", files[i].opt, files[i].path, strerror(errno));
            return 2;
        }
    if (o->control && (strlen(o->control) >= 100 || !o->control[0])) {
        fprintf(stderr, "gbvp run: --control %s: a socket path must have 1 to 99 characters\n",
                o->control);
        return 2;
    }
    if (o->control && access(o->control, F_OK) == 0) {
        fprintf(stderr, "gbvp run: --control %s: the path exists (another simulator's "
                        "socket?); remove it or name another\n", o->control);
        return 2;
    }
    return 0;
}

/* --log-dir: the run's logs copied into DIR (made at start). False when one could not be:
 * the run's folder is kept then. */
static bool keep_logs(run_ctx *r)
{
    bool all = true;
    static const char *const names[] = { "console.log", "sim.log", "qemu.log", "dmesg.log" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char from[PATH_MAX + 32], to[PATH_MAX + 32], buf[65536];
        snprintf(from, sizeof from, "%s/%s", r->dir, names[i]);
        snprintf(to, sizeof to, "%s/%s", r->o.log_dir, names[i]);
        FILE *in = fopen(from, "rb");
        if (!in)
            continue;
        FILE *out = fopen(to, "wb");
        size_t k;
        bool ok = out != NULL;
        while (ok && (k = fread(buf, 1, sizeof buf, in)) > 0)
            ok = fwrite(buf, 1, k, out) == k;
        if (out && fclose(out))
            ok = false;
        if (!ok) {
            say(r, "cannot write %s: %s (the run's folder keeps it)", to, strerror(errno));
            all = false;
        }
        fclose(in);
    }
    if (all)
        say(r, "logs copied to %s", r->o.log_dir);
    return all;
}

/* The command line that runs this again, with the seed spelled out; in lockstep it
 * reproduces the run exactly (docs/timing-in-sim.md). */
static void say_reproduce(run_ctx *r, int argc, char **argv)
{
    char line[4096];
    size_t n = (size_t)snprintf(line, sizeof line, "gbvp run");
    for (int i = 1; i < argc && n < sizeof line; i++) {
        bool plain = argv[i][0] && strspn(argv[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
                                                   "qrstuvwxyz0123456789-_=./:,+@%") ==
                                           strlen(argv[i]);
        if (plain) {
            n += (size_t)snprintf(line + n, sizeof line - n, " %s", argv[i]);
            continue;
        }
        n += (size_t)snprintf(line + n, sizeof line - n, " '");
        for (const char *c = argv[i]; *c && n < sizeof line; c++)
            n += (size_t)snprintf(line + n, sizeof line - n, *c == '\'' ? "'\\''" : "%c", *c);
        if (n < sizeof line)
            n += (size_t)snprintf(line + n, sizeof line - n, "'");
    }
    if (!r->o.seed_given && n < sizeof line)
        snprintf(line + n, sizeof line - n, " --seed %llu", (unsigned long long)r->o.seed);
    say(r, "%s: %s", r->o.lockstep ? "reproduce it exactly with" : "run it again with (add "
        "--lockstep for a run that repeats exactly)", line);
}

/* The run folder holds only files (logs, sockets, QEMU's pid and command line). */
static int remove_run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    char path[PATH_MAX + 300];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    return rmdir(dir);
}

int cmd_run_main(int argc, char **argv)
{
    run_ctx *r = calloc(1, sizeof *r);
    if (!r)
        return 1;
    int prc = parse(argc, argv, &r->o);
    if (prc) {
        free(r);
        return prc == 1 ? 0 : 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    ssize_t n = readlink("/proc/self/exe", r->self, sizeof r->self - 1);
    char err[PATH_MAX * 2];
    if (n <= 0) {
        fprintf(stderr, "gbvp run: cannot find my own program (/proc/self/exe): %s\n",
                strerror(errno));
        free(r);
        return 1;
    }
    bool found = find_data(r, err, sizeof err);
    if (found && r->o.scenario) {
        found = !sim_paths_scenario(r->o.scenario, r->scenario, sizeof r->scenario, err,
                                    sizeof err);
    } else if (found) { /* the data folder's, never one in the current directory */
        snprintf(r->scenario, sizeof r->scenario, "%s/scenarios/demo.lua", r->repo);
        if (access(r->scenario, R_OK)) {
            snprintf(err, sizeof err, "the default scenario %s: %s", r->scenario,
                     strerror(errno));
            found = false;
        }
    }
    if (!found) {
        fprintf(stderr, "gbvp run: %s\n", err);
        int rc = r->o.scenario ? 2 : 1; /* a --scenario not found is bad usage */
        free(r);
        return rc;
    }
    {
        const char *names[] = { "--tap", "--junit", "--pcap", "--trace" };
        const char *paths[] = { r->o.tap, r->o.junit, r->o.pcap, r->o.trace };
        char why[PATH_MAX + 96];
        if (sim_out_files_distinct(names, paths, 4, why, sizeof why)) {
            fprintf(stderr, "gbvp run: %s\n", why);
            free(r);
            return 2;
        }
    }
    /* Files written as the run goes are only tried here (opened without emptying, removed
     * again if this made them): --tap is emptied once every check passed; --pcap and --trace
     * are the simulator's to write once it starts, after a build that may take half an hour,
     * so a path it could not write is refused now. */
    const char *run_files[][2] = { { "--tap", r->o.tap }, { "--pcap", r->o.pcap },
                                   { "--trace", r->o.trace } };
    for (size_t i = 0; i < sizeof run_files / sizeof run_files[0]; i++) {
        int fo = run_files[i][1] ? sim_out_file_try(run_files[i][1]) : 0;
        if (fo) {
            fprintf(stderr, "gbvp run: %s %s: %s\n", run_files[i][0], run_files[i][1],
                    strerror(-fo));
            free(r);
            return 2;
        }
    }
    int jo = r->o.junit ? sim_out_file_open(&r->junit, r->o.junit) : 0;
    if (jo) {
        fprintf(stderr, "gbvp run: --junit %s: %s\n", r->o.junit, strerror(-jo));
        free(r);
        return 2;
    }
    /* --log-dir is made now, the last of the checks: a path that cannot hold the logs is
     * refused before the run */
    struct stat st;
    if (r->o.log_dir && ((mkdir(r->o.log_dir, 0755) && errno != EEXIST) ||
                         stat(r->o.log_dir, &st) ||
                         (!S_ISDIR(st.st_mode) && (errno = ENOTDIR)) ||
                         access(r->o.log_dir, W_OK | X_OK))) {
        fprintf(stderr, "gbvp run: --log-dir %s: %s\n", r->o.log_dir, strerror(errno));
        sim_out_file_abandon(&r->junit);
        free(r);
        return 2;
    }
    if (r->o.tap && !(r->tap_copy = fopen(r->o.tap, "w"))) { /* (tried above) */
        fprintf(stderr, "gbvp run: --tap %s: %s\n", r->o.tap, strerror(errno));
        sim_out_file_abandon(&r->junit);
        free(r);
        return 2;
    }
    if (sim_paths_instance_dir("run", r->dir, sizeof r->dir, err, sizeof err)) {
        fprintf(stderr, "gbvp run: %s\n", err);
        if (r->tap_copy)
            fclose(r->tap_copy);
        sim_out_file_abandon(&r->junit);
        free(r);
        return 1;
    }
    snprintf(r->link, sizeof r->link, "%s/gbvp.sock", r->dir);
    snprintf(r->agent_sock, sizeof r->agent_sock, "%s/agent.sock", r->dir);
    snprintf(r->sim_log, sizeof r->sim_log, "%s/sim.log", r->dir);
    if (r->o.control)
        snprintf(r->control, sizeof r->control, "%s", r->o.control);
    else
        snprintf(r->control, sizeof r->control, "%s/control.sock", r->dir);

    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    say(r, "gbvp run: logs in %s", r->dir);
    say(r, "control socket: %s (gbvp ctl --socket %s COMMAND)", r->control, r->control);
    bool ok = build(r) && !stop_requested && start_sim(r) && !stop_requested;
    double qemu_start = elapsed(r);
    ok = ok && start_qemu(r) && run_scenario(r, qemu_start);
    if (!ok && !stop_requested && r->child > 0 && waitpid(r->child, NULL, WNOHANG) != 0) {
        r->child = 0;
        child_pid_sig = 0;
        say(r, "the simulator ended; its log says:");
        show_sim_log(r);
    }
    ok = ok && !stop_requested;
    if (!stop_requested && r->o.keep_running && pid_alive(r->qemu_pid) && r->child > 0)
        keep_running(r); /* Ctrl-C is how this ends: the verdict is the scenario's */
    if (stop_requested)
        say(r, "interrupted: stopping QEMU and the simulator");
    stop_all(r);
    ok = ok && !r->sim_failed;
    bool logs_copied = !r->o.log_dir || keep_logs(r);
    if (!ok && !stop_requested)
        say_reproduce(r, argc, argv);
    if (r->o.control)
        unlink(r->control); /* the simulator removes it on a clean stop; not after SIGKILL */
    if (r->tap_copy)
        fclose(r->tap_copy);
    sim_out_file_abandon(&r->junit); /* the scenario never ran: no report */
    if (ok && !r->o.keep_running && logs_copied) {
        if (remove_run_dir(r->dir))
            say(r, "could not remove %s: %s", r->dir, strerror(errno));
    } else {
        say(r, "logs kept in %s (console.log, sim.log, qemu.log)", r->dir);
    }
    say(r, "gbvp run: %s", ok ? "passed" : "FAILED");
    free(r);
    return ok ? 0 : 1;
}
