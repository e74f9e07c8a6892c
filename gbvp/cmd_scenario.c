// SPDX-License-Identifier: MIT
// `gbvp scenario FILE`: runs one Lua scenario against the simulator with the test AP
// attached (no QEMU), prints TAP, optionally writes JUnit XML, exits 0 when it passed.
#include "gbvp/cmd_scenario.h"
#include "gbvp/scenario/scenario.h"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/cli_opts.h"
#include "gbvp/ctl/ctl_server.h"
#include "gbvp/stop_signal.h"
#include "virtual-modules/vm_module.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp scenario FILE [--seed N] [--set NAME=VALUE]... [--tap FILE]\n"
            "                     [--junit FILE] [--slots N] [--catalog DIR] [--timeout S]\n"
            "                     [--verbose] [--control PATH] [--target T] [--link PATH]\n"
            "                     [--agent PATH] [--connect-timeout S] [--timing T]\n"
            "       gbvp scenario --control PATH [--slots N] [--catalog DIR]\n\n"
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
            "  --verbose         print the test AP's trace and the SVC log\n"
            "  --control PATH    serve the control socket (docs/control-protocol.md) while\n"
            "                    the scenario runs; without FILE, serve it until SIGINT\n"
            "  --target T        test-ap (default): SVC, slots and the test AP in-process;\n"
            "                    gbvp-sim: gbvp sim's simulator object with the test AP\n"
            "                    across a real gblink connection (no backends);\n"
            "                    guest: gbvp sim's simulator object, QEMU's guest as the AP\n"
            "                    (start QEMU with the greybus-es2 device on --link)\n"
            "  --link PATH       gblink socket for gbvp-sim / guest (default: gbvp.sock)\n"
            "  --agent PATH      guest: the guest agent's socket, for gbvp.guest\n"
            "  --connect-timeout S  guest: wait for QEMU and the handshake (default 300)\n"
            "  --timing T        gbvp-sim / guest: off (default), frame or message, as gbvp\n"
            "                    sim --timing; frame enables gbvp.link, gbvp.fault and\n"
            "                    gbvp.link_stats\n",
            GB_SVC_SLOTS_MAX);
}

/* ---- the control socket on the test-AP target ---- */

typedef struct ctl_adapter {
    const sim_scenario_target *t;
    const char *catalog;
    sim_control *ctl;
} ctl_adapter;

static gb_svc *a_svc(void *ctx)
{
    const sim_scenario_target *t = ((ctl_adapter *)ctx)->t;
    return t->svc(t->ctx);
}

static gb_slots *a_slots(void *ctx)
{
    const sim_scenario_target *t = ((ctl_adapter *)ctx)->t;
    return t->slots(t->ctx);
}

static int a_insert(void *ctx, unsigned slot, const char *module, char *err, size_t errlen)
{
    ctl_adapter *a = ctx;
    if (a->t->insert) {
        int rc = a->t->insert(a->t->ctx, slot, module, err, errlen);
        a->t->settle(a->t->ctx);
        return rc;
    }
    vm_module *m = vm_module_load(a->catalog, module, err, errlen);
    if (!m)
        return -ENOENT;
    int rc = gb_slots_insert(a->t->slots(a->t->ctx), slot, m, a->t->now(a->t->ctx), err,
                             errlen);
    vm_module_free(m);
    a->t->settle(a->t->ctx);
    return rc;
}

static int a_remove(void *ctx, unsigned slot, char *err, size_t errlen)
{
    ctl_adapter *a = ctx;
    int rc = a->t->remove ? a->t->remove(a->t->ctx, slot)
                          : gb_slots_remove(a->t->slots(a->t->ctx), slot, a->t->now(a->t->ctx));
    if (rc)
        snprintf(err, errlen, "the slot is empty");
    a->t->settle(a->t->ctx);
    return rc;
}

static int a_link_set(void *ctx, unsigned slot, const char *gear, const char *series,
                      const char *lanes, char *err, size_t errlen)
{
    ctl_adapter *a = ctx;
    int rc = a->t->link_set(a->t->ctx, slot, gear, series, lanes, err, errlen);
    a->t->settle(a->t->ctx);
    return rc;
}

static int a_link_fault(void *ctx, unsigned slot, const sim_link_fault *f, char *err,
                        size_t errlen)
{
    ctl_adapter *a = ctx;
    return a->t->link_fault(a->t->ctx, slot, f, err, errlen);
}

static int a_link_info(void *ctx, unsigned slot, sim_scenario_link *out, char *err,
                       size_t errlen)
{
    ctl_adapter *a = ctx;
    return a->t->link_info(a->t->ctx, slot, out, err, errlen);
}

static void a_advance(void *ctx, sim_time dt)
{
    ctl_adapter *a = ctx;
    a->t->advance(a->t->ctx, dt);
}

static int a_command(void *ctx, unsigned slot, unsigned index, const char *line, char *reply,
                     size_t len)
{
    ctl_adapter *a = ctx;
    int rc = a->t->command(a->t->ctx, slot, index, line, reply, len);
    a->t->settle(a->t->ctx);
    return rc;
}

static void on_event(void *ctx, sim_scenario_event ev, unsigned slot, const char *text)
{
    ctl_adapter *a = ctx;
    if (ev == SIM_SCENARIO_EV_ASSERTION)
        sim_control_assertion(a->ctl, slot != 0, text);
    else if (ev == SIM_SCENARIO_EV_LOG)
        sim_control_log(a->ctl, text);
}

static void on_poll(void *ctx)
{
    sim_control_service(((ctl_adapter *)ctx)->ctl);
}

/* No script: the simulator with the test AP serves the control socket until SIGINT or
 * SIGTERM; simulated time follows the wall clock. */
static int serve(ctl_adapter *a)
{
    int sfd = sim_stop_signalfd();
    if (sfd < 0) {
        perror("gbvp scenario: signalfd");
        return 1;
    }
    struct timespec last;
    clock_gettime(CLOCK_MONOTONIC, &last);
    for (;;) {
        struct pollfd fds[2 + SIM_CONTROL_MAX_CLIENTS];
        fds[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        size_t n = 1 + sim_control_pollfds(a->ctl, fds + 1, SIM_CONTROL_MAX_CLIENTS + 1);
        if (poll(fds, n, 100) < 0 && errno != EINTR)
            break;
        if (fds[0].revents & POLLIN)
            break;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t ns = (int64_t)(now.tv_sec - last.tv_sec) * 1000000000 + (now.tv_nsec - last.tv_nsec);
        last = now;
        if (ns > 0)
            a->t->advance(a->t->ctx, SIM_NS(ns));
        sim_control_service(a->ctl);
    }
    close(sfd);
    fprintf(stderr, "gbvp scenario: stopping\n");
    return 0;
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

int cmd_scenario_main(int argc, char **argv)
{
    const char *file = NULL, *tap_path = NULL, *junit = NULL, *catalog = NULL;
    const char *control = NULL, *target = "test-ap", *link = NULL, *agent = NULL,
               *timing = NULL;
    uint64_t connect_timeout = 300;
    const char *args[MAX_ARGS];
    size_t nargs = 0;
    uint64_t seed = 1, slots = 4, timeout = 300;
    bool verbose = false;
    const sim_cli_text_opt text_opts[] = {
        { "--tap", &tap_path }, { "--junit", &junit }, { "--catalog", &catalog },
        { "--control", &control }, { "--link", &link }, { "--agent", &agent }, { NULL, NULL },
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
        } else if (!strcmp(a, "--target")) {
            if (strcmp(v, "test-ap") && strcmp(v, "gbvp-sim") && strcmp(v, "guest")) {
                fprintf(stderr, "gbvp scenario: --target %s: want test-ap, gbvp-sim or guest\n", v);
                return 2;
            }
            target = v;
        } else if (!strcmp(a, "--timing")) {
            if (strcmp(v, "off") && strcmp(v, "frame") && strcmp(v, "message")) {
                fprintf(stderr, "gbvp scenario: --timing %s: want off, frame or message\n", v);
                return 2;
            }
            timing = v;
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
    if (!file && !control) {
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
    ctl_adapter ad = { .catalog = catalog };
    sim_scenario_tap *t = NULL;
    sim_scenario_gbvp *g = NULL;
    char link_buf[64];
    if (!strcmp(target, "test-ap")) {
        t = sim_scenario_tap_new((unsigned)slots, catalog, verbose);
        if (!t) {
            fprintf(stderr, "gbvp scenario: the simulator with the test AP did not come up\n");
            goto out;
        }
        ad.t = sim_scenario_tap_target(t);
    } else {
        bool test_ap = !strcmp(target, "gbvp-sim");
        if (!link && test_ap) {
            snprintf(link_buf, sizeof link_buf, "/tmp/gbvp-scenario-%d.sock", (int)getpid());
            link = link_buf;
        }
        sim_scenario_gbvp_config gc = { .link_path = link ? link : "gbvp.sock",
                                        .num_slots = (unsigned)slots, .catalog_dir = catalog,
                                        .test_ap = test_ap, .agent_path = agent,
                                        .connect_timeout_s = (unsigned)connect_timeout,
                                        .verbose = verbose, .timing = timing };
        g = sim_scenario_gbvp_new(&gc, err, sizeof err);
        if (!g) {
            fprintf(stderr, "gbvp scenario: %s\n", err);
            goto out;
        }
        ad.t = sim_scenario_gbvp_target(g);
    }
    if (control) {
        sim_control_backend b = { .name = ad.t->name, .svc = a_svc,
                                  .slots = ad.t->slots ? a_slots : NULL,
                                  .insert = a_insert, .remove = a_remove,
                                  .advance = a_advance,
                                  .command = ad.t->command ? a_command : NULL,
                                  .link_set = ad.t->link_set ? a_link_set : NULL,
                                  .link_fault = ad.t->link_fault ? a_link_fault : NULL,
                                  .link_info = ad.t->link_info ? a_link_info : NULL,
                                  .ctx = &ad };
        ad.ctl = sim_control_new(control, &b, err, sizeof err);
        if (!ad.ctl) {
            fprintf(stderr, "gbvp scenario: %s\n", err);
            goto out;
        }
        if (!file) {
            rc = serve(&ad);
            goto out;
        }
    }
    sim_scenario_config cfg = { .catalog_dir = catalog, .seed = seed,
                                .timeout_s = (unsigned)timeout, .tap = tap_out,
                                .args = args, .nargs = nargs,
                                .agent = g ? sim_scenario_gbvp_agent(g) : NULL,
                                .event = ad.ctl ? on_event : NULL, .event_ctx = &ad,
                                .poll = ad.ctl ? on_poll : NULL, .poll_ctx = &ad };
    sim_scenario *sc = sim_scenario_new(&cfg, ad.t, err, sizeof err);
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
    sim_control_free(ad.ctl);
    sim_scenario_tap_free(t);
    sim_scenario_gbvp_free(g);
    if (tap_out != stdout)
        fclose(tap_out);
    return rc;
}
