// SPDX-License-Identifier: MIT
// `gbvp run`: builds what is missing, starts the simulator (a child `gbvp sim`, or `gbvp
// scenario --target guest` for --scenario) and QEMU (scripts/run-guest.sh --background with
// the greybus-es2 device), runs the default demo or the scenario, prints a timestamped log,
// and stops everything it started, on Ctrl-C too.
//
// The default demo is in C (run_demo below): the Lua engine's guest target runs a script
// against the QEMU guest (`--scenario FILE`), but backends are driven here through gbvp
// sim's 'cmd SLOT COMMAND' stdin lines.
#include "gbvp/cmd_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/agent/agent_client.h"

/* Signal handlers may only touch these: the children to stop at once and the flag the main
 * flow checks between steps. (The one piece of global state: a handler has no context.) */
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
    const char *scenario, *qemu, *kernel, *initrd;
    bool kvm, keep_running;
} run_opts;

typedef struct run_ctx {
    run_opts o;
    struct timespec t0;
    char repo[PATH_MAX], self[PATH_MAX], dir[64];
    char link[128], agent_sock[128], sim_log[128];
    char qemu[PATH_MAX], kernel[PATH_MAX], initrd[PATH_MAX];
    pid_t child, qemu_pid;
    int sim_in;            /* write end of the child's standard input, -1 when none */
    sim_agent *agent;
    unsigned passed, failed;
} run_ctx;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp run [--scenario FILE] [--kvm] [--keep-running] [--qemu PATH]\n"
            "                [--kernel PATH] [--initrd PATH]\n\n"
            "Builds QEMU and the guest when needed, starts the simulator and QEMU (TCG), boots\n"
            "the Linux 6.1 guest against the emulated ES2 bridge and runs a scenario: by\n"
            "default insert several catalog modules, use each from inside the guest through the\n"
            "agent, remove them. Exit status 0 when everything passed.\n\n"
            "  --scenario FILE  run a Lua scenario against the guest (gbvp scenario --target guest)\n"
            "  --kvm            use KVM instead of TCG\n"
            "  --keep-running   leave the guest and the simulator up afterwards; lines typed here go\n"
            "                   to gbvp sim (insert SLOT MODULE, remove SLOT, cmd SLOT ..., status);\n"
            "                   Ctrl-C stops both\n"
            "  --qemu PATH      QEMU binary with -device greybus-es2 (default: scripts/build-qemu.sh's)\n"
            "  --kernel PATH    guest kernel (default: scripts/build-guest.sh's)\n"
            "  --initrd PATH    guest initramfs with gbvp-agent (default: build-guest.sh's)\n"
            "  --help           this text\n\n"
            "Logs (console.log, sim.log, qemu.log) go to a /tmp/gbvp-run.* directory, kept on\n"
            "failure. docs/running.md has the details.\n");
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

/* Prints TEXT line by line behind PREFIX. */
static void show(const char *prefix, const char *text)
{
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        if (n > 0)
            printf("           %s %.*s\n", prefix, n, p);
        p = nl ? nl + 1 : NULL;
    }
    fflush(stdout);
}

static void verdict(run_ctx *r, bool ok, const char *what)
{
    if (ok)
        r->passed++;
    else
        r->failed++;
    say(r, "%s %s", ok ? "ok  " : "FAIL", what);
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

/* The repository: the current directory, or the executable's directory or one of its
 * parents (build/gbvp, build/asan/gbvp), whichever holds scripts/run-guest.sh. */
static bool has_scripts(const char *dir)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/scripts/run-guest.sh", dir);
    return n > 0 && n < (int)sizeof path && access(path, X_OK) == 0;
}

static bool find_repo(run_ctx *r)
{
    if (getcwd(r->repo, sizeof r->repo) && has_scripts(r->repo))
        return true;
    memcpy(r->repo, r->self, sizeof r->repo);
    for (int up = 0; up < 4; up++) {
        char *s = strrchr(r->repo, '/');
        if (!s || s == r->repo)
            return false;
        *s = 0;
        if (has_scripts(r->repo))
            return true;
    }
    return false;
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
    if (!r->o.kernel || !r->o.initrd) {
        say(r, "guest: scripts/build-guest.sh (cached after the first build)");
        snprintf(script, sizeof script, "%s/scripts/build-guest.sh", r->repo);
        char *argv[] = { script, NULL };
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
        if (access(f, R_OK)) {
            say(r, "%s %s cannot be read: %s", i ? "initramfs" : "kernel", f, strerror(errno));
            return false;
        }
    }
    say(r, "QEMU %s", r->qemu);
    say(r, "kernel %s, initramfs %s", r->kernel, r->initrd);
    return true;
}

/* --- the simulator and QEMU ------------------------------------------------------------ */

static bool start_sim(run_ctx *r)
{
    int log = open(r->sim_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0) {
        say(r, "cannot create %s: %s", r->sim_log, strerror(errno));
        return false;
    }
    if (r->o.scenario) {
        char *argv[] = { r->self, "scenario", (char *)r->o.scenario, "--target", "guest",
                         "--link", r->link, "--agent", r->agent_sock, "--slots", "8", NULL };
        say(r, "simulator: gbvp scenario %s --target guest (TAP below, simulator log %s)",
            r->o.scenario, r->sim_log);
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        r->child = spawn(argv, devnull, -1, log, true);
        if (devnull >= 0)
            close(devnull);
    } else {
        int p[2];
        if (pipe2(p, O_CLOEXEC)) {
            close(log);
            return false;
        }
        char *argv[] = { r->self, "sim", "--link", r->link, "--slots", "8", NULL };
        say(r, "simulator: gbvp sim --link %s --slots 8 (log %s)", r->link, r->sim_log);
        r->child = spawn(argv, p[0], log, log, true);
        close(p[0]);
        r->sim_in = p[1];
    }
    close(log);
    if (r->child < 0)
        return false;
    child_pid_sig = r->child;
    for (int i = 0; i < 200 && !stop_requested; i++) {
        struct stat st;
        if (stat(r->link, &st) == 0 && S_ISSOCK(st.st_mode))
            return true;
        if (waitpid(r->child, NULL, WNOHANG) == r->child) {
            r->child = 0;
            child_pid_sig = 0;
            break;
        }
        usleep(25000);
    }
    say(r, "the simulator did not open %s (see %s)", r->link, r->sim_log);
    return false;
}

static bool start_qemu(run_ctx *r)
{
    char script[PATH_MAX + 32], dev[200], out[2048];
    snprintf(script, sizeof script, "%s/scripts/run-guest.sh", r->repo);
    snprintf(dev, sizeof dev, "greybus-es2,link=%s", r->link);
    /* Without --qemu, run-guest.sh finds build-qemu.sh's binary itself and adds the
     * firmware paths that build needs (it has no blobs of its own); with --qemu, the same
     * Debian firmware directories are added as extra search paths, harmless elsewhere. */
    char *argv[] = { script, "--background", "--dir", r->dir,
                     "--kernel", r->kernel, "--initrd", r->initrd,
                     "--device", "qemu-xhci,id=xhci", "--device", dev,
                     r->o.kvm ? "--kvm" : "--background",
                     r->o.qemu ? "--qemu" : NULL, (char *)r->o.qemu,
                     "--", "-L", "/usr/share/qemu", "-L", "/usr/share/seabios", NULL };
    say(r, "QEMU: %s, 256 MiB, qemu-xhci + greybus-es2 (console %s/console.log)",
        r->o.kvm ? "KVM" : "TCG", r->dir);
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

static void stop_all(run_ctx *r)
{
    if (r->agent) {
        sim_agent_free(r->agent);
        r->agent = NULL;
    }
    if (r->sim_in >= 0) {
        if (write(r->sim_in, "quit\n", 5) < 0) { /* the child may be gone already */ }
        close(r->sim_in);
        r->sim_in = -1;
    }
    if (r->qemu_pid > 0) {
        kill(r->qemu_pid, SIGTERM);
        for (int i = 0; i < 50 && pid_alive(r->qemu_pid); i++)
            usleep(100000);
        if (pid_alive(r->qemu_pid))
            kill(r->qemu_pid, SIGKILL);
        r->qemu_pid = 0;
        qemu_pid_sig = 0;
    }
    if (r->child > 0) {
        int i = 0;
        for (; i < 30 && waitpid(r->child, NULL, WNOHANG) == 0; i++) {
            if (i == 5)
                kill(r->child, SIGTERM);
            usleep(100000);
        }
        if (i == 30) {
            kill(r->child, SIGKILL);
            waitpid(r->child, NULL, 0);
        }
        r->child = 0;
        child_pid_sig = 0;
    }
}

/* --- talking to the guest and the simulator ------------------------------------------- */

/* Runs a guest shell command; returns its exit status (or -1) and the output in *out. */
static int guest(run_ctx *r, const char *cmd, int timeout_s, char **out)
{
    sim_agent_result res = { 0 };
    *out = NULL;
    if (stop_requested)
        return -1;
    int rc = sim_agent_run(r->agent, cmd, timeout_s * 1000, &res);
    if (rc != SIM_AGENT_OK) {
        say(r, "guest agent: %s", sim_agent_last_error(r->agent));
        return -1;
    }
    *out = res.output;
    res.output = NULL;
    int code = res.kind == SIM_AGENT_EXITED ? res.code : -1;
    sim_agent_result_clear(&res);
    return code;
}

static int count_cmd_replies(const char *path, char *last, size_t cap)
{
    FILE *f = fopen(path, "r");
    int n = 0;
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "cmd", 3)) {
            n++;
            snprintf(last, cap, "%.*s", (int)strcspn(line, "\n"), line);
        }
    if (f)
        fclose(f);
    return n;
}

/* Sends a line to gbvp sim. For "cmd ..." lines waits for the reply (into reply). */
static bool sim_line(run_ctx *r, const char *line, char *reply, size_t cap)
{
    char last[1024] = "";
    int before = count_cmd_replies(r->sim_log, last, sizeof last);
    size_t len = strlen(line);
    if (r->sim_in < 0 || write(r->sim_in, line, len) != (ssize_t)len || write(r->sim_in, "\n", 1) != 1) {
        say(r, "cannot write to gbvp sim: %s", strerror(errno));
        return false;
    }
    if (strncmp(line, "cmd ", 4))
        return true;
    for (int i = 0; i < 100; i++) {
        if (count_cmd_replies(r->sim_log, last, sizeof last) > before) {
            bool ok = !strncmp(last, "cmd: ", 5);
            size_t m = strlen(ok ? last + 5 : last);
            if (m >= cap)
                m = cap - 1;
            memcpy(reply, ok ? last + 5 : last, m);
            reply[m] = 0;
            return ok;
        }
        usleep(50000);
    }
    snprintf(reply, cap, "no answer from gbvp sim");
    return false;
}

/* --- the default demo ------------------------------------------------------------------ */

typedef struct demo_step {
    unsigned slot, width;
    const char *module, *what;
    const char *guest_pre;   /* may be NULL */
    const char *sim_cmd;     /* "cmd SLOT ..." sent between pre and check; may be NULL */
    const char *guest_check; /* its exit status is the verdict; its output is shown */
} demo_step;

#define GB "/sys/bus/greybus/devices"
static const demo_step demo[] = {
    { 0, 1, "sensor", "GPIO lines and an I2C bus (EEPROM, LM75)", NULL, "cmd 0 gpio set 2 1",
      "B=" GB "/1-2.2.1; c=$(ls -d $B/gbphy*/gpio/gpiochip*); n=$(ls $B/gbphy*/ | sed -n 's/^i2c-//p');"
      "base=${c##*gpiochip}; g=/sys/class/gpio/gpio$((base + 2)); echo $((base + 2)) > /sys/class/gpio/export;"
      "echo in > $g/direction; v=$(cat $g/value); echo $((base + 2)) > /sys/class/gpio/unexport;"
      "echo \"$(basename $c): $(cat $c/ngpio) lines, label $(cat $c/label); line 2 (driven high by the module) reads $v\";"
      "echo \"i2c-$n: LM75 temperature register $(i2ctransfer -y $n w1@0x48 0x00 r2)\";"
      "i2cset -y $n 0x50 0x00 0x42; e=$(i2cget -y $n 0x50 0x00); echo \"i2c-$n: EEPROM byte 0 written 0x42, read $e\";"
      "[ \"$v\" = 1 ] && [ \"$e\" = 0x42 ]" },
    { 1, 1, "battery", "a battery (power supply class)", NULL, "cmd 1 battery set capacity 42",
      "P=/sys/class/power_supply/$(ls " GB "/1-3.3.1/power_supply); i=0;"
      "until [ $(cat $P/capacity) = 42 ] || [ $i -ge 20 ]; do i=$((i+1)); sleep 0.5; done;"
      "echo \"$(basename $P): capacity $(cat $P/capacity) % (set to 42 by the simulator), status $(cat $P/status), $(cat $P/voltage_now) uV\";"
      "[ $(cat $P/capacity) = 42 ]" },
    { 2, 1, "light", "an RGB status light", NULL, NULL,
      "for c in red green blue; do echo 128 > /sys/class/leds/gbvp:$c:status/brightness; done;"
      "ls /sys/class/leds | grep gbvp | tr '\\n' ' '; echo; r=$(cat /sys/class/leds/gbvp:red:status/brightness);"
      "echo \"red brightness $r of $(cat /sys/class/leds/gbvp:red:status/max_brightness)\";"
      "for c in red green blue; do echo 0 > /sys/class/leds/gbvp:$c:status/brightness; done; [ \"$r\" = 128 ]" },
    { 3, 1, "keyboard", "a HID keyboard",
      "B=" GB "/1-5.5.1; echo on > $B/power/control; e=$(ls $B/*/input/input*/ | grep ^event);"
      "(timeout 10 hexdump -v -e '24/1 \"%02x \" \"\\n\"' -n 48 /dev/input/$e > /tmp/key 2>&1 </dev/null &); sleep 0.5",
      "cmd 3 hid key a",
      "B=" GB "/1-5.5.1; e=$(ls $B/*/input/input*/ | grep ^event); i=0;"
      "until grep -q '01 00 1e 00 01 00 00 00' /tmp/key || [ $i -ge 20 ]; do i=$((i+1)); sleep 0.25; done;"
      "echo auto > $B/power/control; echo \"$(cat $B/*/input/input*/name) on /dev/input/$e:\"; cat /tmp/key;"
      "grep -q '01 00 1e 00 01 00 00 00' /tmp/key && echo 'EV_KEY KEY_A pressed'" },
    { 4, 1, "vibrator", "a vibration motor", NULL, NULL,
      "echo 100 > /sys/class/vibrator/vibrator0/timeout && echo 'vibrator0: on for 100 ms'" },
    { 5, 1, "loopback", "a loopback module", NULL, NULL,
      "L=$(ls -d " GB "/1-7.7.1/gb_loopback/*); cd $L; echo 1024 > size; echo 20 > iteration_max; echo 3 > type;"
      "i=0; until [ $(cat iteration_count) -ge 20 ] || [ $i -ge 200 ]; do i=$((i+1)); sleep 0.1; done;"
      "n=$(cat iteration_count); e=$(cat error); echo 0 > type;" /* writing type resets the counters */
      "echo \"$(basename $L): $n transfers of 1024 bytes, $e errors\"; [ $n -ge 20 ] && [ $e = 0 ]" },
    { 6, 2, "dual", "a UART (loopback backend) and a battery on two interfaces", NULL, NULL,
      "t=$(ls " GB "/1-8.8.1/gbphy*/tty); stty -F /dev/$t raw -echo 115200;"
      "(timeout 5 cat /dev/$t > /tmp/u </dev/null &); sleep 0.5; echo hello-greybus > /dev/$t; i=0;"
      "until grep -q hello /tmp/u || [ $i -ge 20 ]; do i=$((i+1)); sleep 0.2; done;"
      "echo \"/dev/$t echoed: $(cat /tmp/u)\"; P=/sys/class/power_supply/$(ls " GB "/1-8.9.1/power_supply);"
      "echo \"$(basename $P): capacity $(cat $P/capacity) %, status $(cat $P/status)\"; grep -q hello-greybus /tmp/u" },
};

static const char dmesg_check[] =
    "dmesg | grep -E 'WARNING|BUG|Oops|Call Trace|greybus.*(error|fail|timed out|timeout)|"
    "(es2|svc|interface|bundle|connection|hid|gpio|i2c|uart|loopback|light|vibrator|power_supply).*(failed|error)' |"
    " grep -vE '(synchronous operation id 0x[0-9a-f]+ of type 0x[0-9a-f]+ failed: -(107|125)|"
    "failed to power off \\(-107\\))$'; true";

static unsigned dmesg_mark(run_ctx *r)
{
    char *out;
    unsigned n = guest(r, "dmesg | wc -l", 30, &out) == 0 && out ? (unsigned)atoi(out) : 0;
    free(out);
    return n;
}

static void show_kernel(run_ctx *r, unsigned *mark)
{
    char cmd[64], *out;
    snprintf(cmd, sizeof cmd, "dmesg | tail -n +%u", *mark + 1);
    if (guest(r, cmd, 30, &out) == 0 && out)
        show("kernel|", out);
    free(out);
    *mark = dmesg_mark(r);
}

static void run_demo(run_ctx *r, double qemu_start)
{
    unsigned mark = dmesg_mark(r);
    char *out = NULL, cmd[1024], reply[512];
    bool first = true;
    for (size_t i = 0; i < sizeof demo / sizeof demo[0] && !stop_requested; i++) {
        const demo_step *d = &demo[i];
        unsigned mod = d->slot + 2;
        say(r, "insert %s (%s) into slot %u", d->module, d->what, d->slot);
        double t = elapsed(r);
        snprintf(cmd, sizeof cmd, "insert %u %s", d->slot, d->module);
        sim_line(r, cmd, NULL, 0);
        int n = snprintf(cmd, sizeof cmd, "i=0; until true");
        for (unsigned k = 0; k < d->width; k++)
            n += snprintf(cmd + n, sizeof cmd - (size_t)n, " && [ -e " GB "/1-%u.%u.1/driver ]", mod, mod + k);
        snprintf(cmd + n, sizeof cmd - (size_t)n, "; do i=$((i+1)); [ $i -ge 600 ] && exit 1; sleep 0.1; done;"
                 " for b in " GB "/1-%u.*.[0-9]*; do echo \"$(basename $b): class $(cat $b/bundle_class),"
                 " driver $(basename $(readlink $b/driver))\"; done", mod);
        int rc = guest(r, cmd, 90, &out);
        if (rc == 0) {
            double now = elapsed(r);
            say(r, "%s bound %.3f s after insertion%s", d->module, now - t, "");
            if (first)
                say(r, "first module bound %.3f s after QEMU started", now - qemu_start);
            first = false;
            show("guest |", out);
        }
        free(out);
        show_kernel(r, &mark);
        verdict(r, rc == 0, "the kernel enumerated it and bound its bundles");
        if (rc != 0)
            continue;
        if (d->guest_pre) {
            guest(r, d->guest_pre, 30, &out);
            free(out);
        }
        if (d->sim_cmd) {
            bool ok = sim_line(r, d->sim_cmd, reply, sizeof reply);
            say(r, "simulator: %s -> %s", d->sim_cmd + 4, reply[0] ? reply : (ok ? "done" : "?"));
        }
        rc = guest(r, d->guest_check, 60, &out);
        show("guest |", out ? out : "");
        free(out);
        snprintf(cmd, sizeof cmd, "%s works from inside the guest", d->module);
        verdict(r, rc == 0, cmd);
    }
    for (size_t i = 0; i < sizeof demo / sizeof demo[0] && !stop_requested && !r->o.keep_running; i++) {
        const demo_step *d = &demo[i];
        say(r, "remove %s from slot %u", d->module, d->slot);
        snprintf(cmd, sizeof cmd, "remove %u", d->slot);
        sim_line(r, cmd, NULL, 0);
        snprintf(cmd, sizeof cmd, "i=0; while ls " GB " | grep -q '^1-%u\\b'; do i=$((i+1));"
                 " [ $i -ge 300 ] && exit 1; sleep 0.1; done", d->slot + 2);
        int rc = guest(r, cmd, 60, &out);
        free(out);
        show_kernel(r, &mark);
        verdict(r, rc == 0, "gone from /sys/bus/greybus/devices");
    }
    if (stop_requested)
        return;
    int rc = guest(r, dmesg_check, 30, &out);
    bool clean = rc == 0 && out && !out[0];
    if (!clean)
        show("kernel|", out ? out : "(no answer)");
    free(out);
    verdict(r, clean, "dmesg: no WARN, BUG, oops or greybus error");
}

/* --keep-running: lines typed here go to gbvp sim until Ctrl-C or the guest stops. */
static void keep_running(run_ctx *r)
{
    say(r, "the guest stays up. Console log: %s/console.log", r->dir);
    say(r, "run commands in it: %s agent --socket %s -- CMD", r->self, r->agent_sock);
    if (r->sim_in >= 0)
        say(r, "type simulator commands here (insert SLOT MODULE, remove SLOT, cmd SLOT COMMAND, "
               "status; output in %s); Ctrl-C stops everything", r->sim_log);
    else
        say(r, "the scenario's simulator has ended; Ctrl-C stops QEMU");
    char line[1024];
    size_t used = 0;
    bool input = r->sim_in >= 0;
    while (!stop_requested && pid_alive(r->qemu_pid)) {
        struct pollfd p = { .fd = input ? STDIN_FILENO : -1, .events = POLLIN };
        if (poll(&p, 1, 500) <= 0 || !(p.revents & (POLLIN | POLLHUP)))
            continue;
        ssize_t k = read(STDIN_FILENO, line + used, sizeof line - 1 - used);
        if (k <= 0) {
            input = false; /* end of input: wait for Ctrl-C or the guest's end */
            continue;
        }
        used += (size_t)k;
        line[used] = 0;
        char *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = 0;
            char reply[512] = "";
            if (line[0]) {
                bool ok = sim_line(r, line, reply, sizeof reply);
                if (!strncmp(line, "cmd ", 4))
                    say(r, "%s -> %s%s", line, ok ? "" : "error: ", reply);
            }
            used -= (size_t)(nl + 1 - line);
            memmove(line, nl + 1, used + 1);
        }
        if (used == sizeof line - 1)
            used = 0;
    }
}

static int parse(int argc, char **argv, run_opts *o)
{
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
        } else if (!strcmp(a, "--scenario")) {
            slot = &o->scenario;
        } else if (!strcmp(a, "--qemu")) {
            slot = &o->qemu;
        } else if (!strcmp(a, "--kernel")) {
            slot = &o->kernel;
        } else if (!strcmp(a, "--initrd")) {
            slot = &o->initrd;
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
    const char *files[] = { o->scenario, o->kernel, o->initrd, o->qemu };
    const char *names[] = { "--scenario", "--kernel", "--initrd", "--qemu" };
    for (int i = 0; i < 4; i++)
        if (files[i] && access(files[i], R_OK)) {
            fprintf(stderr, "gbvp run: %s %s: %s\n", names[i], files[i], strerror(errno));
            return 2;
        }
    return 0;
}

int cmd_run_main(int argc, char **argv)
{
    run_ctx *r = calloc(1, sizeof *r);
    if (!r)
        return 1;
    r->sim_in = -1;
    int prc = parse(argc, argv, &r->o);
    if (prc) {
        free(r);
        return prc == 1 ? 0 : 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    ssize_t n = readlink("/proc/self/exe", r->self, sizeof r->self - 1);
    if (n <= 0 || !find_repo(r)) {
        fprintf(stderr, "gbvp run: cannot find the gbvp source tree (scripts/run-guest.sh); run "
                        "it from the repository\n");
        free(r);
        return 1;
    }
    snprintf(r->dir, sizeof r->dir, "/tmp/gbvp-run.XXXXXX");
    if (!mkdtemp(r->dir)) {
        perror("gbvp run: mkdtemp");
        free(r);
        return 1;
    }
    snprintf(r->link, sizeof r->link, "%s/gbvp.sock", r->dir);
    snprintf(r->agent_sock, sizeof r->agent_sock, "%s/agent.sock", r->dir);
    snprintf(r->sim_log, sizeof r->sim_log, "%s/sim.log", r->dir);

    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    say(r, "gbvp run: logs in %s", r->dir);
    bool ok = build(r) && !stop_requested && start_sim(r) && !stop_requested;
    double qemu_start = elapsed(r);
    ok = ok && start_qemu(r);
    if (ok && r->o.scenario) {
        int rc = wait_child(r->child);
        r->child = 0;
        child_pid_sig = 0;
        ok = rc == 0;
        say(r, "scenario %s: %s (status %d)", r->o.scenario, ok ? "passed" : "FAILED", rc);
        ok ? r->passed++ : r->failed++;
    } else if (ok) {
        char err[256];
        if (sim_agent_connect_unix(r->agent_sock, 30000, &r->agent, err, sizeof err) ||
            sim_agent_wait_ready(r->agent, 300000) != SIM_AGENT_OK) {
            if (!stop_requested)
                say(r, "the guest agent did not answer within 300 s (%s); console %s/console.log",
                r->agent ? sim_agent_last_error(r->agent) : err, r->dir);
            ok = false;
        } else {
            say(r, "guest up: agent ready %.3f s after QEMU started", elapsed(r) - qemu_start);
            run_demo(r, qemu_start);
            ok = r->failed == 0;
        }
    }
    ok = ok && !stop_requested;
    if (!stop_requested && r->o.keep_running && pid_alive(r->qemu_pid))
        keep_running(r); /* Ctrl-C is how this ends: the verdict is the scenario's */
    if (stop_requested)
        say(r, "interrupted: stopping QEMU and the simulator");
    stop_all(r);
    say(r, "%u passed, %u failed%s", r->passed, r->failed, ok ? "" : " -- FAILED");
    if (ok && !r->o.keep_running) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
        if (system(cmd) != 0)
            say(r, "could not remove %s", r->dir);
    } else {
        say(r, "logs kept in %s (console.log, sim.log, qemu.log)", r->dir);
    }
    free(r);
    return ok ? 0 : 1;
}
