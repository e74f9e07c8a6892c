// SPDX-License-Identifier: MIT
// Host side of the guest agent channel: a sans-IO decoder of the agent's replies, a request
// encoder, and a blocking client that owns a stream descriptor. The wire protocol is
// described at the top of guest/agent.c.
#include "gbvp/agent/agent_client.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 256

void sim_agent_result_clear(sim_agent_result *res)
{
    if (!res)
        return;
    free(res->output);
    memset(res, 0, sizeof *res);
}

/* ---- decoder ---------------------------------------------------------------------------- */

struct sim_agent_decoder {
    char line[LINE_MAX_BYTES];
    size_t line_len;
    bool skipping;             /* inside an over-long line: drop bytes up to "\n" */
    /* while collecting a RESULT payload: */
    bool in_payload;
    sim_agent_event pending;
    size_t payload_got;
};

sim_agent_decoder *sim_agent_decoder_new(void)
{
    return calloc(1, sizeof(sim_agent_decoder));
}

void sim_agent_decoder_free(sim_agent_decoder *dec)
{
    if (!dec)
        return;
    sim_agent_result_clear(&dec->pending.result);
    free(dec);
}

static bool token_valid(const char *t)
{
    size_t n = strlen(t);
    if (n == 0 || n > SIM_AGENT_TOKEN_MAX)
        return false;
    for (; *t; t++)
        if (!(*t >= 'a' && *t <= 'z') && !(*t >= 'A' && *t <= 'Z') &&
            !(*t >= '0' && *t <= '9') && *t != '_' && *t != '.' && *t != '-')
            return false;
    return true;
}

/* A decimal number with at most 10 digits, no sign, no leading junk. */
static bool parse_number(const char *s, uint64_t *out)
{
    if (!*s || strlen(s) > 10)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

static void set_noise(sim_agent_event *ev, const char *line)
{
    ev->type = SIM_AGENT_EV_NOISE;
    snprintf(ev->text, sizeof ev->text, "%s", line);
}

/* The largest CODE each kind can carry: an exit status is 0..255, a Linux signal number at
 * most 127 (wait(2) keeps 7 bits), an errno at most 4095, a timeout 0. A guest claiming more
 * is not the agent: its exit 256 would reach a shell as 0 (success), its signal 2^31-1 would
 * overflow 128 + N. */
static bool code_fits(sim_agent_kind kind, uint64_t code)
{
    static const uint64_t max[] = {
        [SIM_AGENT_EXITED] = 255, [SIM_AGENT_SIGNALED] = 127,
        [SIM_AGENT_TIMED_OUT] = 0, [SIM_AGENT_START_FAILED] = 4095,
    };
    return code <= max[kind];
}

/* A RESULT's KIND word. */
static bool parse_kind(const char *w, sim_agent_kind *kind)
{
    static const char *const names[] = {
        [SIM_AGENT_EXITED] = "exit", [SIM_AGENT_SIGNALED] = "signal",
        [SIM_AGENT_TIMED_OUT] = "timeout", [SIM_AGENT_START_FAILED] = "error",
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (names[k] && !strcmp(w, names[k])) {
            *kind = (sim_agent_kind)k;
            return true;
        }
    return false;
}

/* Decodes one complete header line. May start a payload instead of finishing an event. */
static void decode_line(sim_agent_decoder *dec, char *line, sim_agent_event *ev)
{
    char copy[LINE_MAX_BYTES];
    snprintf(copy, sizeof copy, "%s", line);
    char *w[8];
    int n = 0;
    for (char *p = strtok(line, " "); p && n < 8; p = strtok(NULL, " "))
        w[n++] = p;
    if (n == 0) {
        set_noise(ev, copy);
        return;
    }
    uint64_t v, code, trunc, len;
    sim_agent_kind kind;
    if (!strcmp(w[0], "READY") && n == 3 && !strcmp(w[1], "gbvp-agent") &&
        parse_number(w[2], &v) && v < 1000) {
        ev->type = SIM_AGENT_EV_READY;
        ev->version = (int)v;
    } else if (!strcmp(w[0], "PONG") && n == 2 && token_valid(w[1])) {
        ev->type = SIM_AGENT_EV_PONG;
        snprintf(ev->token, sizeof ev->token, "%s", w[1]);
    } else if (!strcmp(w[0], "ERROR") && n >= 1) {
        ev->type = SIM_AGENT_EV_ERROR;
        snprintf(ev->text, sizeof ev->text, "%s", copy[5] ? copy + 6 : "");
    } else if (!strcmp(w[0], "RESULT") && n == 6 && token_valid(w[1]) &&
               parse_kind(w[2], &kind) && parse_number(w[3], &code) && code_fits(kind, code) &&
               parse_number(w[4], &trunc) && trunc <= 1 && parse_number(w[5], &len) &&
               len <= SIM_AGENT_OUTPUT_MAX) {
        sim_agent_event *p = &dec->pending;
        memset(p, 0, sizeof *p);
        p->type = SIM_AGENT_EV_RESULT;
        snprintf(p->token, sizeof p->token, "%s", w[1]);
        p->result.kind = kind;
        p->result.code = (int)code;
        p->result.truncated = trunc == 1;
        p->result.output_len = (size_t)len;
        p->result.output = malloc((size_t)len + 1);
        if (!p->result.output) {
            /* Out of memory: skip the payload, report it as an empty truncated result. */
            p->result.truncated = true;
        }
        dec->payload_got = 0;
        dec->in_payload = true;
    } else {
        set_noise(ev, copy);
    }
}

size_t sim_agent_decoder_feed(sim_agent_decoder *dec, const void *data, size_t len,
                              sim_agent_event *ev)
{
    const char *in = data;
    size_t used = 0;
    memset(ev, 0, sizeof *ev);
    while (used < len) {
        if (dec->in_payload) {
            sim_agent_result *r = &dec->pending.result;
            size_t want = r->output_len - dec->payload_got;
            size_t take = len - used < want ? len - used : want;
            if (r->output)
                memcpy(r->output + dec->payload_got, in + used, take);
            dec->payload_got += take;
            used += take;
            if (dec->payload_got == r->output_len) {
                if (r->output)
                    r->output[r->output_len] = '\0';
                else
                    r->output_len = 0;
                *ev = dec->pending;
                memset(&dec->pending, 0, sizeof dec->pending);
                dec->in_payload = false;
                return used;
            }
            continue;
        }
        char c = in[used++];
        if (c == '\n') {
            bool was_skipping = dec->skipping;
            dec->skipping = false;
            if (dec->line_len > 0 && dec->line[dec->line_len - 1] == '\r')
                dec->line_len--;
            dec->line[dec->line_len] = '\0';
            dec->line_len = 0;
            if (was_skipping) {
                set_noise(ev, "(over-long line skipped)");
                return used;
            }
            decode_line(dec, dec->line, ev);
            if (ev->type != SIM_AGENT_EV_NONE)
                return used;
            if (dec->in_payload && dec->pending.result.output_len == 0) {
                if (dec->pending.result.output)
                    dec->pending.result.output[0] = '\0';
                *ev = dec->pending;
                memset(&dec->pending, 0, sizeof dec->pending);
                dec->in_payload = false;
                return used;
            }
            continue;
        }
        if (dec->skipping)
            continue;
        if (dec->line_len + 1 >= sizeof dec->line) {
            dec->skipping = true;
            dec->line_len = 0;
            continue;
        }
        dec->line[dec->line_len++] = c;
    }
    return used;
}

int sim_agent_encode_run(const char *token, unsigned timeout_ms, const char *command,
                         char **out, size_t *out_len, char *err, size_t err_size)
{
    *out = NULL;
    *out_len = 0;
    if (!token || !token_valid(token)) {
        snprintf(err, err_size, "bad token '%s': want 1-%d characters of [A-Za-z0-9_.-]",
                 token ? token : "(null)", SIM_AGENT_TOKEN_MAX);
        return -1;
    }
    if (!command) {
        snprintf(err, err_size, "no command given");
        return -1;
    }
    size_t clen = strlen(command);
    if (clen > SIM_AGENT_COMMAND_MAX) {
        snprintf(err, err_size, "command is %zu bytes; the agent takes at most %u", clen,
                 SIM_AGENT_COMMAND_MAX);
        return -1;
    }
    if (timeout_ms > 86400000u) {
        snprintf(err, err_size, "timeout %u ms is over the agent's limit of one day", timeout_ms);
        return -1;
    }
    char header[128];
    int hlen = snprintf(header, sizeof header, "RUN %s %u %zu\n", token, timeout_ms, clen);
    char *buf = malloc((size_t)hlen + clen);
    if (!buf) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    memcpy(buf, header, (size_t)hlen);
    memcpy(buf + hlen, command, clen);
    *out = buf;
    *out_len = (size_t)hlen + clen;
    return 0;
}

/* ---- blocking client -------------------------------------------------------------------- */

struct sim_agent {
    int fd;
    sim_agent_decoder *dec;
    char in[4096];            /* bytes read but not yet fed to the decoder */
    size_t in_start, in_end;
    char session[24];         /* token prefix that tells our replies from stale ones */
    unsigned next;
    int margin_ms;
    sim_agent_wait_fn wait;   /* NULL: poll() */
    void *wait_ctx;
    char error[512];
    /* A RUN request went out only in part: the agent would read the next request's bytes as
     * the rest of that command, so the next run first breaks it off and pings. */
    bool out_of_step;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int fail(sim_agent *a, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(sim_agent *a, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->error, sizeof a->error, fmt, ap);
    va_end(ap);
    return code;
}

sim_agent *sim_agent_new(int fd)
{
    sim_agent *a = calloc(1, sizeof *a);
    if (a)
        a->dec = sim_agent_decoder_new();
    if (!a || !a->dec) {
        free(a);
        close(fd);
        return NULL;
    }
    a->fd = fd;
    a->margin_ms = 10000;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(a->session, sizeof a->session, "%x.%lx", (unsigned)getpid() & 0xffffff,
             (unsigned long)(ts.tv_nsec ^ ts.tv_sec) & 0xffffffUL);
    return a;
}

void sim_agent_set_session(sim_agent *a, const char *session)
{
    snprintf(a->session, sizeof a->session, "%s", session);
}

void sim_agent_free(sim_agent *a)
{
    if (!a)
        return;
    close(a->fd);
    sim_agent_decoder_free(a->dec);
    free(a);
}

void sim_agent_set_reply_margin(sim_agent *a, int margin_ms)
{
    a->margin_ms = margin_ms < 0 ? 0 : margin_ms;
}

void sim_agent_set_wait(sim_agent *a, sim_agent_wait_fn fn, void *ctx)
{
    a->wait = fn;
    a->wait_ctx = ctx;
}

const char *sim_agent_last_error(const sim_agent *a)
{
    return a->error;
}

int sim_agent_connect_unix(const char *path, int timeout_ms, sim_agent **out, char *err,
                           size_t err_size)
{
    *out = NULL;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (!path || !*path || strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, err_size, "agent socket path '%s' is empty or longer than %zu bytes",
                 path ? path : "(null)", sizeof sa.sun_path - 1);
        return SIM_AGENT_ERR_ARG;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            snprintf(err, err_size, "socket: %s", strerror(errno));
            return SIM_AGENT_ERR_IO;
        }
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
            *out = sim_agent_new(fd);
            if (!*out) {
                snprintf(err, err_size, "out of memory");
                return SIM_AGENT_ERR_NOMEM;
            }
            return SIM_AGENT_OK;
        }
        int e = errno;
        close(fd);
        if ((e != ENOENT && e != ECONNREFUSED && e != EAGAIN) || now_ms() >= deadline) {
            snprintf(err, err_size, "cannot connect to the agent socket %s: %s", path,
                     strerror(e));
            return e == ENOENT || e == ECONNREFUSED ? SIM_AGENT_ERR_TIMEOUT : SIM_AGENT_ERR_IO;
        }
        struct timespec pause = { 0, 50 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
}

/* Waits until the channel takes more bytes or DEADLINE passes. */
static int wait_writable(sim_agent *a, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return fail(a, SIM_AGENT_ERR_TIMEOUT, "the agent does not read its channel (guest "
                        "hung, or its console not open yet): the request could not be sent");
        struct pollfd pfd = { .fd = a->fd, .events = POLLOUT };
        int n = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
        if (n < 0 && errno != EINTR)
            return fail(a, SIM_AGENT_ERR_IO, "poll on the agent channel: %s", strerror(errno));
        if (n > 0)
            return SIM_AGENT_OK;
    }
}

/* Writes DATA by DEADLINE; *SENT says how much went out. Never blocks in send(): a guest that
 * stops reading its console (QEMU then stops draining the socket) fills the socket's buffer,
 * and a blocking send would hang past every timeout the caller gave. */
static int send_all(sim_agent *a, const char *data, size_t len, int64_t deadline, size_t *sent)
{
    *sent = 0;
    while (*sent < len) {
        ssize_t n = send(a->fd, data + *sent, len - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == ENOTSOCK)
            n = write(a->fd, data + *sent, len - *sent);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int rc = wait_writable(a, deadline);
            if (rc != SIM_AGENT_OK)
                return rc;
            continue;
        }
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            return fail(a, SIM_AGENT_ERR_CLOSED, "the agent channel was closed (guest or QEMU gone)");
        if (n < 0)
            return fail(a, SIM_AGENT_ERR_IO, "writing to the agent: %s", strerror(errno));
        *sent += (size_t)n;
    }
    return SIM_AGENT_OK;
}

/* Next decoded event, waiting until DEADLINE (ms on the monotonic clock). */
static int next_event(sim_agent *a, int64_t deadline, sim_agent_event *ev)
{
    for (;;) {
        while (a->in_start < a->in_end) {
            a->in_start += sim_agent_decoder_feed(a->dec, a->in + a->in_start,
                                                  a->in_end - a->in_start, ev);
            if (ev->type != SIM_AGENT_EV_NONE)
                return SIM_AGENT_OK;
        }
        a->in_start = a->in_end = 0;
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return fail(a, SIM_AGENT_ERR_TIMEOUT, "no reply from the agent in time");
        int wait_ms = left > 60000 ? 60000 : (int)left, n;
        if (a->wait) {
            n = a->wait(a->wait_ctx, a->fd, wait_ms);
            if (n < 0)
                return fail(a, SIM_AGENT_ERR_IO, "waiting on the agent channel: %s",
                            strerror(-n));
        } else {
            struct pollfd pfd = { .fd = a->fd, .events = POLLIN };
            n = poll(&pfd, 1, wait_ms);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return fail(a, SIM_AGENT_ERR_IO, "poll on the agent channel: %s",
                            strerror(errno));
        }
        if (n == 0)
            continue;
        ssize_t r = read(a->fd, a->in, sizeof a->in);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == ECONNRESET)
            r = 0;
        if (r < 0)
            return fail(a, SIM_AGENT_ERR_IO, "reading the agent channel: %s", strerror(errno));
        if (r == 0)
            return fail(a, SIM_AGENT_ERR_CLOSED, "the agent channel was closed (guest or QEMU gone)");
        a->in_end = (size_t)r;
    }
}

int sim_agent_wait_ready(sim_agent *a, int timeout_ms)
{
    int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "%s.p", a->session);
    size_t plen = strlen(prefix);
    for (;;) {
        /* The leading break (NUL, guest/agent.c) ends a request some earlier client left
         * half sent, and the newline after it any partial line left in the guest's input. */
        char ping[96] = { '\0' };
        int n = 1 + snprintf(ping + 1, sizeof ping - 1, "\nPING %s%u\n", prefix, a->next++);
        int64_t until = now_ms() + 250;
        if (until > deadline)
            until = deadline;
        /* A ping that does not go out in time is no failure yet (the guest may still be
         * booting); half of one is ended by the next one's leading newline. */
        size_t sent;
        int rc = send_all(a, ping, (size_t)n, until, &sent);
        if (rc != SIM_AGENT_OK && rc != SIM_AGENT_ERR_TIMEOUT)
            return rc;
        sim_agent_event ev;
        while ((rc = next_event(a, until, &ev)) == SIM_AGENT_OK) {
            bool ours = ev.type == SIM_AGENT_EV_PONG && !strncmp(ev.token, prefix, plen);
            sim_agent_result_clear(&ev.result);
            if (ours)
                return SIM_AGENT_OK;
        }
        if (rc != SIM_AGENT_ERR_TIMEOUT)
            return rc;
        if (now_ms() >= deadline)
            return fail(a, SIM_AGENT_ERR_TIMEOUT,
                        "the guest agent did not answer within %d ms (guest still booting, "
                        "or no agent on this channel)", timeout_ms);
    }
}

int sim_agent_wait_started(sim_agent *a, int timeout_ms)
{
    int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    sim_agent_event ev;
    int rc;
    while ((rc = next_event(a, deadline, &ev)) == SIM_AGENT_OK) {
        bool ready = ev.type == SIM_AGENT_EV_READY;
        sim_agent_result_clear(&ev.result);
        if (ready)
            return SIM_AGENT_OK;
    }
    if (rc == SIM_AGENT_ERR_TIMEOUT)
        return fail(a, rc, "the guest agent did not start within %d ms (guest still booting, "
                    "or no agent on this channel)", timeout_ms);
    return rc;
}

int sim_agent_run(sim_agent *a, const char *command, int timeout_ms, sim_agent_result *res)
{
    memset(res, 0, sizeof *res);
    if (timeout_ms <= 0)
        return fail(a, SIM_AGENT_ERR_ARG, "the command timeout must be positive, not %d ms",
                    timeout_ms);
    char token[48];
    snprintf(token, sizeof token, "%s.r%u", a->session, a->next++);
    char *req;
    size_t req_len;
    if (sim_agent_encode_run(token, (unsigned)timeout_ms, command, &req, &req_len, a->error,
                             sizeof a->error) < 0)
        return SIM_AGENT_ERR_ARG;
    int64_t deadline = now_ms() + timeout_ms + a->margin_ms;
    if (a->out_of_step) {
        int64_t left = deadline - now_ms();
        int rc = sim_agent_wait_ready(a, left > 1 ? (int)left : 1);
        if (rc != SIM_AGENT_OK) {
            char why[sizeof a->error];
            snprintf(why, sizeof why, "%s", a->error);
            free(req);
            return fail(a, rc, "an earlier request reached the agent only in part, and the "
                        "agent did not answer once it was broken off: %s", why);
        }
        a->out_of_step = false;
    }
    size_t sent;
    int rc = send_all(a, req, req_len, deadline, &sent);
    free(req);
    if (rc != SIM_AGENT_OK) {
        a->out_of_step = sent > 0;
        return rc;
    }
    char last_error[256] = "";
    sim_agent_event ev;
    while ((rc = next_event(a, deadline, &ev)) == SIM_AGENT_OK) {
        if (ev.type == SIM_AGENT_EV_RESULT && !strcmp(ev.token, token)) {
            *res = ev.result;
            return SIM_AGENT_OK;
        }
        if (ev.type == SIM_AGENT_EV_ERROR)
            snprintf(last_error, sizeof last_error, "%s", ev.text);
        if (ev.type == SIM_AGENT_EV_READY)
            snprintf(last_error, sizeof last_error, "the agent restarted while the command ran");
        sim_agent_result_clear(&ev.result);
    }
    if (rc == SIM_AGENT_ERR_TIMEOUT)
        return fail(a, rc, "no result from the guest within %d ms + %d ms margin%s%s",
                    timeout_ms, a->margin_ms, last_error[0] ? "; agent said: " : "", last_error);
    return rc;
}

int sim_agent_run_or_say(sim_agent *a, const char *command, int timeout_ms, sim_agent_result *res,
                         char *err, size_t errlen)
{
    int rc = sim_agent_run(a, command, timeout_ms, res);
    if (rc != SIM_AGENT_OK)
        snprintf(err, errlen, "%s", sim_agent_last_error(a));
    return rc;
}
