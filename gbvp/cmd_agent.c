// SPDX-License-Identifier: MIT
// `gbvp agent`: runs one shell command in the guest through the agent channel and exits
// with its status, the way ssh does. Scripts and integration tests use it.
#include "gbvp/cmd_agent.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/agent/agent_client.h"

enum {
    CLI_USAGE = 2,        /* bad arguments */
    CLI_UNREACHABLE = 3,  /* no agent on the socket, or the channel broke */
    CLI_TIMEOUT = 124,    /* the guest killed the command at its timeout (like timeout(1)) */
    CLI_NOSTART = 125,    /* the guest could not start the command */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp agent [--socket PATH] [--timeout SEC] [--wait SEC] [--] COMMAND...\n"
            "       gbvp agent [--socket PATH] [--wait SEC] --wait-ready\n\n"
            "Runs COMMAND with /bin/sh -c in the guest through gbvp-agent and prints its\n"
            "output (stdout and stderr merged). Exit status: the command's; 128+N when a\n"
            "signal N killed it; 124 when it ran past --timeout; 125 when it could not be\n"
            "started; 3 when the agent could not be reached; 2 on bad arguments.\n\n"
            "  --socket PATH  the agent's Unix socket (default: $GBVP_AGENT_SOCKET)\n"
            "  --timeout SEC  guest-side time limit of the command (default 60)\n"
            "  --wait SEC     how long to wait for the socket and the agent (default 120)\n"
            "  --wait-ready   only wait until the agent answers, and print how long it took\n");
}

/* Seconds (decimal allowed) to milliseconds; -1 if not a positive number below a day. */
static int parse_seconds(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 86400)
        return -1;
    return (int)(v * 1000.0 + 0.5) > 0 ? (int)(v * 1000.0 + 0.5) : 1;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Joins argv words with single spaces into a new string (NULL when out of memory). */
static char *join_words(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

static int write_output(const sim_agent_result *res)
{
    size_t off = 0;
    while (off < res->output_len) {
        ssize_t n = write(1, res->output + off, res->output_len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        off += (size_t)n;
    }
    return 0;
}

int cmd_agent_main(int argc, char **argv)
{
    const char *socket_path = getenv("GBVP_AGENT_SOCKET");
    int timeout_ms = 60000, wait_ms = 120000;
    bool wait_ready_only = false;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--wait-ready")) {
            wait_ready_only = true;
            continue;
        }
        if (!strcmp(a, "--socket") || !strcmp(a, "--timeout") || !strcmp(a, "--wait")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gbvp agent: %s needs a value\n", a);
                return CLI_USAGE;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--socket")) {
                socket_path = v;
                continue;
            }
            int ms = parse_seconds(v);
            if (ms < 0) {
                fprintf(stderr, "gbvp agent: %s wants seconds (0 < SEC <= 86400), not '%s'\n",
                        a, v);
                return CLI_USAGE;
            }
            *(!strcmp(a, "--timeout") ? &timeout_ms : &wait_ms) = ms;
            continue;
        }
        if (a[0] == '-') {
            fprintf(stderr, "gbvp agent: unknown option '%s' (try --help)\n", a);
            return CLI_USAGE;
        }
        break;
    }
    if (!socket_path || !*socket_path) {
        fprintf(stderr, "gbvp agent: no socket: give --socket PATH or set GBVP_AGENT_SOCKET\n");
        return CLI_USAGE;
    }
    if (wait_ready_only && i < argc) {
        fprintf(stderr, "gbvp agent: --wait-ready runs no command, but '%s' was given: drop "
                "--wait-ready to run it (gbvp agent waits for the agent anyway)\n", argv[i]);
        return 2;
    }
    if (!wait_ready_only && i >= argc) {
        fprintf(stderr, "gbvp agent: no command given (try --help)\n");
        return CLI_USAGE;
    }

    /* The command is checked before the wait for the agent, which may take minutes. */
    char *command = wait_ready_only ? NULL : join_words(argc - i, argv + i);
    if (!wait_ready_only && !command) {
        fprintf(stderr, "gbvp agent: out of memory\n");
        return CLI_UNREACHABLE;
    }
    if (command && strlen(command) > SIM_AGENT_COMMAND_MAX) {
        fprintf(stderr, "gbvp agent: the command is %zu bytes; the agent takes at most %u\n",
                strlen(command), SIM_AGENT_COMMAND_MAX);
        free(command);
        return CLI_USAGE;
    }

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sim_agent *agent;
    char err[512];
    int crc = sim_agent_connect_unix(socket_path, wait_ms, &agent, err, sizeof err);
    if (crc != SIM_AGENT_OK) {
        fprintf(stderr, "gbvp agent: %s\n", err);
        free(command);
        return crc == SIM_AGENT_ERR_ARG ? CLI_USAGE : CLI_UNREACHABLE;
    }
    int left_ms = wait_ms - (int)(seconds_since(&t0) * 1000.0);
    if (sim_agent_wait_ready(agent, left_ms > 1 ? left_ms : 1) != SIM_AGENT_OK) {
        fprintf(stderr, "gbvp agent: %s\n", sim_agent_last_error(agent));
        sim_agent_free(agent);
        free(command);
        return CLI_UNREACHABLE;
    }
    if (wait_ready_only) {
        printf("agent ready after %.3f s\n", seconds_since(&t0));
        sim_agent_free(agent);
        return 0;
    }

    sim_agent_result res;
    int rc = sim_agent_run(agent, command, timeout_ms, &res);
    free(command);
    if (rc != SIM_AGENT_OK) {
        fprintf(stderr, "gbvp agent: %s\n", sim_agent_last_error(agent));
        sim_agent_free(agent);
        return rc == SIM_AGENT_ERR_ARG ? CLI_USAGE : CLI_UNREACHABLE;
    }
    sim_agent_free(agent);
    int status;
    if (write_output(&res) < 0)
        fprintf(stderr, "gbvp agent: writing the output: %s\n", strerror(errno));
    if (res.truncated)
        fprintf(stderr, "gbvp agent: output truncated to %zu bytes by the agent\n",
                res.output_len);
    switch (res.kind) {
    case SIM_AGENT_EXITED:
        status = res.code;
        break;
    case SIM_AGENT_SIGNALED:
        fprintf(stderr, "gbvp agent: the command was killed by signal %d\n", res.code);
        status = 128 + res.code;
        break;
    case SIM_AGENT_TIMED_OUT:
        fprintf(stderr, "gbvp agent: the command ran past %.3f s and was killed\n",
                timeout_ms / 1000.0);
        status = CLI_TIMEOUT;
        break;
    default:
        fprintf(stderr, "gbvp agent: the guest could not start the command: %s\n",
                strerror(res.code));
        status = CLI_NOSTART;
        break;
    }
    sim_agent_result_clear(&res);
    return status;
}
