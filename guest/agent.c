// SPDX-License-Identifier: MIT
// gbvp-agent: the in-guest end of the guest agent channel. It serves one byte stream (the
// virtio console /dev/hvc0 in the gbvp guest, a serial port, or stdin/stdout with "-") and runs shell
// commands on request, returning their exit status and output. Built as a static binary so
// the initramfs needs no libraries. The protocol, in full (all header lines are ASCII and
// end with "\n"; TOKEN is 1-64 characters of [A-Za-z0-9_.-]):
//
//   agent -> host, once at start:   READY gbvp-agent 1
//   host  -> agent:                 PING TOKEN
//   agent -> host:                  PONG TOKEN
//   host  -> agent:                 RUN TOKEN TIMEOUT_MS LEN      then LEN bytes of command
//   agent -> host:                  RESULT TOKEN KIND CODE TRUNCATED LEN   then LEN bytes
//   agent -> host, on a bad line:   ERROR TEXT
//
// RUN runs the command with /bin/sh -c in a new session, stdin from /dev/null, stdout and
// stderr merged into one pipe. TIMEOUT_MS 0 means no limit; when the limit passes, the
// whole session is killed. KIND is "exit" (CODE = exit status), "signal" (CODE = signal
// number), "timeout" (CODE 0) or "error" (CODE = errno; the command could not be started).
// At most AGENT_OUTPUT_MAX bytes of output are returned; TRUNCATED is 1 if more was
// produced (and discarded). A host that lost sync sends PING with a fresh token and skips
// everything until the matching PONG.
//
// A NUL byte is a break: it never belongs to a request (commands may not hold one), so the
// agent drops the header line or the RUN payload it is reading and waits for the next
// header; for a payload cut short it answers "ERROR RUN TOKEN: ...". A host that connects
// after another left a request half sent (killed, or its channel full) starts with a break,
// so the agent does not read the new requests as the rest of the old command. No timer is
// needed, which matters under lockstep, where guest time jumps ahead while the guest idles.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define AGENT_LINE_MAX 256
#define AGENT_COMMAND_MAX (64 * 1024)
#define AGENT_OUTPUT_MAX (1024 * 1024)
#define AGENT_TOKEN_MAX 64

/* Buffered reader over the channel: lines for headers, exact byte counts for payloads. */
typedef struct agent_in {
    int fd;
    char buf[4096];
    size_t start, end;
} agent_in;

typedef struct agent_output {
    char *data;
    size_t len, cap;
    bool truncated;
} agent_output;

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            poll(&pfd, 1, 1000);
            continue;
        }
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int send_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int send_line(int fd, const char *fmt, ...)
{
    char line[AGENT_LINE_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    return write_all(fd, line, (size_t)n);
}

/* Refills the buffer; returns bytes added, 0 at end of stream, -1 on error. */
static ssize_t in_fill(agent_in *in)
{
    if (in->start == in->end)
        in->start = in->end = 0;
    if (in->end == sizeof in->buf) {
        memmove(in->buf, in->buf + in->start, in->end - in->start);
        in->end -= in->start;
        in->start = 0;
    }
    for (;;) {
        ssize_t n = read(in->fd, in->buf + in->end, sizeof in->buf - in->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            in->end += (size_t)n;
        return n;
    }
}

/* Reads one line without its "\n" (a "\r" before it is dropped too); a break (NUL) drops
 * what came before it on the line. Returns 1 with a line, 0 at end of stream, -1 on a read
 * error, -2 when the line was longer than the buffer (the rest of it is skipped). */
static int in_line(agent_in *in, char *line, size_t size)
{
    size_t len = 0;
    bool too_long = false;
    for (;;) {
        while (in->start < in->end) {
            char c = in->buf[in->start++];
            if (c == '\n') {
                if (len > 0 && line[len - 1] == '\r')
                    len--;
                line[len] = '\0';
                return too_long ? -2 : 1;
            }
            if (c == '\0') {
                len = 0;
                too_long = false;
                continue;
            }
            if (len + 1 < size)
                line[len++] = c;
            else
                too_long = true;
        }
        ssize_t n = in_fill(in);
        if (n <= 0)
            return n == 0 ? 0 : -1;
    }
}

/* Reads LEN payload bytes into DST (NULL: skips them). Returns 0 when all came, -1 at end of
 * stream or on a read error, 1 at a break (the NUL is consumed, the payload abandoned). */
static int in_payload(agent_in *in, char *dst, size_t len)
{
    while (len > 0) {
        if (in->start == in->end) {
            ssize_t n = in_fill(in);
            if (n <= 0)
                return -1;
        }
        size_t take = in->end - in->start;
        if (take > len)
            take = len;
        const char *from = in->buf + in->start;
        const char *brk = memchr(from, '\0', take);
        if (brk) {
            in->start += (size_t)(brk - from) + 1;
            return 1;
        }
        if (dst) {
            memcpy(dst, from, take);
            dst += take;
        }
        in->start += take;
        len -= take;
    }
    return 0;
}

static bool token_ok(const char *t)
{
    size_t n = strlen(t);
    if (n == 0 || n > AGENT_TOKEN_MAX)
        return false;
    for (const char *p = t; *p; p++)
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
            !(*p >= '0' && *p <= '9') && *p != '_' && *p != '.' && *p != '-')
            return false;
    return true;
}

/* Parses a decimal number in [0, max]; false on anything else. */
static bool number_ok(const char *s, unsigned long max, unsigned long *out)
{
    if (!*s || strlen(s) > 10)
        return false;
    unsigned long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

static void output_add(agent_output *out, const char *data, size_t len)
{
    if (out->len + len > AGENT_OUTPUT_MAX) {
        len = AGENT_OUTPUT_MAX - out->len;
        out->truncated = true;
    }
    if (len == 0)
        return;
    if (out->len + len > out->cap) {
        size_t cap = out->cap ? out->cap : 4096;
        while (cap < out->len + len)
            cap *= 2;
        char *p = realloc(out->data, cap);
        if (!p) {
            out->truncated = true;
            return;
        }
        out->data = p;
        out->cap = cap;
    }
    memcpy(out->data + out->len, data, len);
    out->len += len;
}

/* Reads what the pipe has now; returns false at end of file or error. */
static bool drain_pipe(int fd, agent_output *out)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            output_add(out, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && errno == EAGAIN;
    }
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct agent_status {
    const char *kind;
    int code;
} agent_status;

static agent_status run_command(const char *command, unsigned long timeout_ms, agent_output *out)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return (agent_status){ "error", errno };
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pipefd[0]);
        close(pipefd[1]);
        return (agent_status){ "error", e };
    }
    if (pid == 0) {
        setsid();
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        else
            close(0);
        dup2(pipefd[1], 1);
        dup2(pipefd[1], 2);
        signal(SIGPIPE, SIG_DFL);
        if (chdir("/") < 0)
            _exit(126);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    int rfd = pipefd[0];
    fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) | O_NONBLOCK);
    /* A pidfd tells us when the shell exits even if a background child keeps the pipe. */
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int64_t deadline = timeout_ms ? now_ms() + (int64_t)timeout_ms : 0;
    bool pipe_open = true, exited = false, timed_out = false;
    int wstatus = 0;
    while (!exited) {
        int wait_ms = -1;
        if (deadline) {
            int64_t left = deadline - now_ms();
            if (left <= 0) {
                timed_out = true;
                break;
            }
            wait_ms = left > 1000000 ? 1000000 : (int)left;
        }
        if (pidfd < 0 && (wait_ms < 0 || wait_ms > 20))
            wait_ms = 20;   /* no pidfd (old kernel): poll waitpid */
        struct pollfd pfd[2] = {
            { .fd = pipe_open ? rfd : -1, .events = POLLIN },
            { .fd = pidfd, .events = POLLIN },
        };
        int n = poll(pfd, 2, wait_ms);
        if (n < 0 && errno != EINTR)
            break;
        if (pipe_open && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            pipe_open = drain_pipe(rfd, out);
        pid_t w = waitpid(pid, &wstatus, WNOHANG);
        if (w == pid)
            exited = true;
    }
    if (!exited) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
            ;
    }
    if (pipe_open)
        drain_pipe(rfd, out);
    close(rfd);
    if (pidfd >= 0)
        close(pidfd);
    if (timed_out)
        return (agent_status){ "timeout", 0 };
    if (WIFSIGNALED(wstatus))
        return (agent_status){ "signal", WTERMSIG(wstatus) };
    return (agent_status){ "exit", WEXITSTATUS(wstatus) };
}

static int handle_run(agent_in *in, int out_fd, char **args, int nargs)
{
    unsigned long timeout_ms, len;
    bool len_ok = nargs == 4 && number_ok(args[3], AGENT_COMMAND_MAX, &len);
    if (!len_ok || !token_ok(args[1]) || !number_ok(args[2], 86400000UL, &timeout_ms)) {
        /* Skip a payload whose length is known, so the next header is read in step. */
        if (len_ok && in_payload(in, NULL, len) < 0)
            return -1;
        return send_line(out_fd, "ERROR RUN wants: RUN TOKEN TIMEOUT_MS LEN "
                                 "(TOKEN [A-Za-z0-9_.-]{1,64}, TIMEOUT_MS <= 86400000, LEN <= %d)",
                         AGENT_COMMAND_MAX);
    }
    char *command = malloc(len + 1);
    if (!command)
        return -1;
    int got = in_payload(in, command, len);
    if (got != 0) {
        free(command);
        if (got < 0)
            return -1;
        return send_line(out_fd, "ERROR RUN %s: a break (NUL) came before the command's %lu "
                                 "bytes; not run", args[1], len);
    }
    command[len] = '\0';
    agent_output out = { 0 };
    agent_status st = run_command(command, timeout_ms, &out);
    free(command);
    int rc = send_line(out_fd, "RESULT %s %s %d %d %zu", args[1], st.kind, st.code,
                       out.truncated ? 1 : 0, out.len);
    if (rc == 0 && out.len)
        rc = write_all(out_fd, out.data, out.len);
    free(out.data);
    return rc;
}

/* Splits on spaces in place; returns the number of words (at most max). */
static int split(char *line, char **words, int max)
{
    int n = 0;
    for (char *p = strtok(line, " "); p; p = strtok(NULL, " ")) {
        if (n == max)
            return max + 1;
        words[n++] = p;
    }
    return n;
}

static void set_raw(int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t) < 0)
        return;   /* not a tty (stdio or a socket): nothing to do */
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cflag &= ~(tcflag_t)CRTSCTS;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    tcsetattr(fd, TCSANOW, &t);
    tcflush(fd, TCIOFLUSH);
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '\0' || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: gbvp-agent DEVICE   (or '-' for stdin/stdout)\n"
                        "Serves gbvp's guest agent protocol (RUN/PING) on DEVICE.\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int in_fd = 0, out_fd = 1;
    if (strcmp(argv[1], "-") != 0) {
        in_fd = out_fd = open(argv[1], O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (in_fd < 0) {
            fprintf(stderr, "gbvp-agent: cannot open %s: %s\n", argv[1], strerror(errno));
            return 1;
        }
        set_raw(in_fd);
    }
    agent_in in = { .fd = in_fd };
    if (send_line(out_fd, "READY gbvp-agent 1") < 0)
        return 1;
    char line[AGENT_LINE_MAX];
    for (;;) {
        int r = in_line(&in, line, sizeof line);
        if (r == 0)
            return 0;
        if (r == -1) {
            fprintf(stderr, "gbvp-agent: read: %s\n", strerror(errno));
            return 1;
        }
        if (r == -2) {
            if (send_line(out_fd, "ERROR line longer than %d bytes", AGENT_LINE_MAX - 1) < 0)
                return 1;
            continue;
        }
        char *words[5];
        int n = split(line, words, 4);
        int rc = 0;
        if (n == 0)
            continue;   /* empty line: ignored, so a host may send "\n" to flush noise */
        if (!strcmp(words[0], "PING") && n == 2 && token_ok(words[1]))
            rc = send_line(out_fd, "PONG %s", words[1]);
        else if (!strcmp(words[0], "RUN"))
            rc = handle_run(&in, out_fd, words, n);
        else
            rc = send_line(out_fd, "ERROR unknown request (want PING TOKEN or RUN TOKEN TIMEOUT_MS LEN)");
        if (rc < 0) {
            fprintf(stderr, "gbvp-agent: channel lost: %s\n", strerror(errno));
            return 1;
        }
    }
}
