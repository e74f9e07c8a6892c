// SPDX-License-Identifier: MIT
// The host side of the guest agent channel: runs shell commands in the guest through
// gbvp-agent (guest/agent.c, which describes the wire protocol) and returns their exit
// status and output. Two layers:
//   - sim_agent_decoder: sans-IO. Bytes from the agent in, decoded replies out.
//   - sim_agent: a blocking client on a connected stream descriptor (the Unix socket QEMU
//     serves for the guest's virtio console, or any socket speaking the protocol).
#ifndef GBVP_GBVP_AGENT_AGENT_CLIENT_H
#define GBVP_GBVP_AGENT_AGENT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/* Largest output the client accepts in one reply (the agent sends at most 1 MiB). */
#define SIM_AGENT_OUTPUT_MAX (16u * 1024 * 1024)
/* Largest command the agent accepts. */
#define SIM_AGENT_COMMAND_MAX (64u * 1024)
/* Tokens are 1..64 characters of [A-Za-z0-9_.-]. */
#define SIM_AGENT_TOKEN_MAX 64

typedef enum sim_agent_kind {
    SIM_AGENT_EXITED,        /* code = exit status */
    SIM_AGENT_SIGNALED,      /* code = signal number */
    SIM_AGENT_TIMED_OUT,     /* the guest killed the command at its timeout; code = 0 */
    SIM_AGENT_START_FAILED,  /* the guest could not start it; code = errno in the guest */
} sim_agent_kind;

typedef struct sim_agent_result {
    sim_agent_kind kind;
    int code;
    bool truncated;        /* the command wrote more than the agent returns */
    char *output;          /* owned; stdout and stderr merged; NUL-terminated for
                            * convenience (it may contain NULs of its own) */
    size_t output_len;
} sim_agent_result;

/* Frees the output and zeroes the result. Safe on a zeroed result. */
void sim_agent_result_clear(sim_agent_result *res);

/* ---- sans-IO decoder -------------------------------------------------------------------- */

typedef enum sim_agent_event_type {
    SIM_AGENT_EV_NONE,    /* nothing complete yet: feed more bytes */
    SIM_AGENT_EV_READY,   /* "READY gbvp-agent N": the agent (re)started; version = N */
    SIM_AGENT_EV_PONG,    /* token */
    SIM_AGENT_EV_RESULT,  /* token, result (the event owns result.output) */
    SIM_AGENT_EV_ERROR,   /* text: the agent refused a request */
    SIM_AGENT_EV_NOISE,   /* text: a line that is not a reply (boot noise, echo) */
} sim_agent_event_type;

typedef struct sim_agent_event {
    sim_agent_event_type type;
    int version;
    char token[SIM_AGENT_TOKEN_MAX + 1];
    char text[256];
    sim_agent_result result;
} sim_agent_event;

typedef struct sim_agent_decoder sim_agent_decoder;

/* Returns NULL when out of memory. Owned by the caller; free with sim_agent_decoder_free. */
sim_agent_decoder *sim_agent_decoder_new(void);
void sim_agent_decoder_free(sim_agent_decoder *dec);

/* Consumes bytes until one event is complete or the input ends. Returns how many bytes were
 * consumed; *ev is SIM_AGENT_EV_NONE if no event completed. Call again with the rest. An
 * RESULT event's output belongs to the caller (sim_agent_result_clear). Never fails: bytes
 * that do not form a reply come out as NOISE events. */
size_t sim_agent_decoder_feed(sim_agent_decoder *dec, const void *data, size_t len,
                              sim_agent_event *ev);

/* Writes the RUN request for COMMAND into a new buffer (*out, owned by the caller; *out_len
 * bytes). Returns 0, or -1 if TOKEN or COMMAND is not acceptable to the agent (message in
 * err). */
int sim_agent_encode_run(const char *token, unsigned timeout_ms, const char *command,
                         char **out, size_t *out_len, char *err, size_t err_size);

/* ---- blocking client -------------------------------------------------------------------- */

/* Return codes of the client functions. */
enum {
    SIM_AGENT_OK = 0,
    SIM_AGENT_ERR_TIMEOUT = -1,   /* no reply in time */
    SIM_AGENT_ERR_CLOSED = -2,    /* the peer closed the channel (guest or QEMU gone) */
    SIM_AGENT_ERR_IO = -3,        /* read/write/connect failed */
    SIM_AGENT_ERR_ARG = -4,       /* the request itself is unacceptable */
    SIM_AGENT_ERR_NOMEM = -5,
};

typedef struct sim_agent sim_agent;

/* Wraps a connected stream descriptor; takes ownership of fd (closed by sim_agent_free).
 * Returns NULL when out of memory (fd is then closed). */
sim_agent *sim_agent_new(int fd);
void sim_agent_free(sim_agent *agent);

/* Connects to the Unix socket at PATH, retrying until TIMEOUT_MS passes while it does not
 * exist yet or refuses (QEMU may still be starting). */
int sim_agent_connect_unix(const char *path, int timeout_ms, sim_agent **out, char *err,
                           size_t err_size);

/* Pings until the agent answers or TIMEOUT_MS passes: the guest may still be booting. Each
 * ping starts with a break, which ends a request an earlier client left half sent. */
int sim_agent_wait_ready(sim_agent *agent, int timeout_ms);
/* Waits, sending nothing, for the agent's "READY" line, which it writes once when it starts;
 * for a guest whose input must not change (lockstep), connected before the agent starts. */
int sim_agent_wait_started(sim_agent *agent, int timeout_ms);

/* Runs COMMAND in the guest with /bin/sh -c. The guest kills it after TIMEOUT_MS (> 0); the
 * client waits that long plus the reply margin (default 10 s, for slow TCG guests) before
 * giving up with SIM_AGENT_ERR_TIMEOUT. On SIM_AGENT_OK, *res holds the outcome (clear it
 * with sim_agent_result_clear). After a request that went out only in part, the next run
 * first breaks it off (a NUL, guest/agent.c) and pings, within the same time. */
int sim_agent_run(sim_agent *agent, const char *command, int timeout_ms, sim_agent_result *res);
/* sim_agent_run with the reason of a failure copied into err. */
int sim_agent_run_or_say(sim_agent *agent, const char *command, int timeout_ms,
                         sim_agent_result *res, char *err, size_t errlen);

void sim_agent_set_reply_margin(sim_agent *agent, int margin_ms);

/* The prefix of this client's request tokens (default: from its pid and the time, so that
 * replies meant for an earlier client are told apart). A run that must repeat exactly
 * (lockstep) sets a fixed one: the tokens are part of what the guest reads. 1..20 of
 * [A-Za-z0-9_.-]. */
void sim_agent_set_session(sim_agent *agent, const char *session);

/* How the client waits for the channel to become readable: by default poll() on it; an
 * owner with an event loop (sim/loop.h) passes a function that keeps the loop running
 * meanwhile. It returns 1 when fd is readable, 0 when timeout_ms passed, or a negative
 * errno. */
typedef int (*sim_agent_wait_fn)(void *ctx, int fd, int timeout_ms);
void sim_agent_set_wait(sim_agent *agent, sim_agent_wait_fn fn, void *ctx);

/* What went wrong in the last failed call, for a user to read. */
const char *sim_agent_last_error(const sim_agent *agent);

#endif
