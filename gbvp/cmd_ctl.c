// SPDX-License-Identifier: MIT
// `gbvp ctl`: the control socket's command-line client. Sends one request built from
// KEY=VALUE words (or given as raw JSON) and prints the reply line; `watch` subscribes to
// events and prints them as they come.
#include "gbvp/cmd_ctl.h"
#include "gbvp/ctl/ctl_server.h"
#include "gbvp/paths.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp ctl [--socket PATH] [--timeout S] COMMAND [KEY=VALUE]...\n"
            "       gbvp ctl [--socket PATH] --json '{\"cmd\": ...}'\n"
            "       gbvp ctl [--socket PATH] [--count N] watch [EVENT]...\n\n"
            "Talks to a running simulator's control socket (docs/control-protocol.md).\n"
            "VALUEs that look like integers, true/false/null or JSON arrays are sent as\n"
            "such, anything else as a string. Prints the reply; exit status 0 when it says\n"
            "ok, 1 when not, 2 on bad usage or when the socket cannot be reached.\n\n"
            "  --socket PATH  control socket (default $GBVP_CONTROL, else the one running\n"
            "                 simulator's under $XDG_RUNTIME_DIR/gbvp or /tmp/gbvp-UID;\n"
            "                 with several running, they are listed and one must be named)\n"
            "  --timeout S    seconds to wait for the reply (default 30; watch: 0 = forever)\n"
            "  --count N      watch: stop after N events\n\n"
            "examples: gbvp ctl insert slot=0 module=sensor\n"
            "          gbvp ctl gpio_set slot=0 line=3 level=1\n"
            "          gbvp ctl watch module interface\n");
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static bool is_integer(const char *s)
{
    if (*s == '-')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* {"cmd": COMMAND, KEY: VALUE, ...} or NULL for a malformed word. */
static char *build_request(const char *cmd, int n, char **words)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "{\"cmd\":");
    json_string(f, cmd);
    for (int i = 0; i < n; i++) {
        char *eq = strchr(words[i], '=');
        if (!eq || eq == words[i]) {
            fclose(f);
            free(buf);
            fprintf(stderr, "gbvp ctl: '%s': want KEY=VALUE\n", words[i]);
            return NULL;
        }
        *eq = 0;
        const char *v = eq + 1;
        fputc(',', f);
        json_string(f, words[i]);
        fputc(':', f);
        if (is_integer(v) || !strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "null") ||
            v[0] == '[')
            fputs(v, f);
        else
            json_string(f, v);
        *eq = '=';
    }
    fputc('}', f);
    fclose(f);
    return buf;
}

static int connect_socket(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "gbvp ctl: socket path too long: %s\n", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        fprintf(stderr, "gbvp ctl: cannot connect to %s: %s (is the simulator running with "
                "--control %s?)\n", path, strerror(errno), path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* A connection to the socket at path when something serves it, else -1; pid: who. */
static int probe(const char *path, pid_t *pid)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct ucred who = { 0 };
    socklen_t len = sizeof who;
    *pid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &who, &len) == 0 ? who.pid : 0;
    return fd;
}

/* No socket named: the one simulator running with its default control socket (gbvp sim,
 * gbvp run). Returns a connection to it with its path in `path`, or -1 after saying why:
 * none runs, or several do and the user must choose. Sockets left by killed simulators
 * answer nothing and are passed over. */
static int find_instance(char *path, size_t len)
{
    char **socks, base[PATH_MAX], err[PATH_MAX + 128];
    long n = sim_paths_instance_sockets("control.sock", &socks, base, sizeof base, err,
                                        sizeof err);
    if (n < 0) {
        fprintf(stderr, "gbvp ctl: no --socket given and %s\n", err);
        return -1;
    }
    int fd = -1, live = 0;
    pid_t pids[64];
    char *names[64];
    for (long i = 0; i < n; i++) {
        pid_t pid;
        int f = probe(socks[i], &pid);
        if (f < 0)
            continue;
        if (live < 64) {
            pids[live] = pid;
            names[live] = socks[i];
        }
        live++;
        if (fd >= 0)
            close(f);
        else
            fd = f;
    }
    if (live == 1)
        snprintf(path, len, "%s", names[0]);
    if (live == 0)
        fprintf(stderr, "gbvp ctl: no running simulator found (no live */control.sock in "
                "%s); start one with gbvp sim or gbvp run, or give --socket PATH\n", base);
    if (live > 1) {
        fprintf(stderr, "gbvp ctl: %d simulators are running; name one with --socket:\n",
                live);
        for (int i = 0; i < live && i < 64; i++)
            fprintf(stderr, "  gbvp ctl --socket %s ...   (pid %d)\n", names[i],
                    (int)pids[i]);
    }
    for (long i = 0; i < n; i++)
        free(socks[i]);
    free(socks);
    if (live != 1 && fd >= 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static int send_line(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return send(fd, "\n", 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* Reads one line (without newline) into a new string; NULL at EOF, error or timeout
 * (timeout_s 0 = none), with why it ended in `why` (a static string or `whybuf`). */
static char *read_line(int fd, char *buf, size_t *have, size_t cap, unsigned timeout_s,
                       const char **why, char *whybuf, size_t whylen)
{
    for (;;) {
        char *nl = memchr(buf, '\n', *have);
        if (nl) {
            size_t n = (size_t)(nl - buf);
            char *line = strndup(buf, n);
            memmove(buf, nl + 1, *have - n - 1);
            *have -= n + 1;
            return line;
        }
        if (*have == cap) {
            snprintf(whybuf, whylen, "a line from the simulator is longer than %zu bytes", cap);
            *why = whybuf;
            return NULL;
        }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, timeout_s ? (int)timeout_s * 1000 : -1);
        if (r == 0) {
            snprintf(whybuf, whylen, "nothing came within %u s", timeout_s);
            *why = whybuf;
            return NULL;
        }
        if (r < 0 && errno == EINTR)
            continue;
        ssize_t n = r < 0 ? -1 : recv(fd, buf + *have, cap - *have, 0);
        if (n <= 0) {
            *why = n == 0 ? "the simulator closed the connection" : strerror(errno);
            return NULL;
        }
        *have += (size_t)n;
    }
}

/* Does the reply say "ok": true? */
static bool reply_ok(const char *line)
{
    JsonParser *p = json_parser_new();
    bool ok = false;
    if (json_parser_load_from_data(p, line, -1, NULL) && json_parser_get_root(p) &&
        JSON_NODE_HOLDS_OBJECT(json_parser_get_root(p))) {
        JsonObject *o = json_node_get_object(json_parser_get_root(p));
        JsonNode *n = json_object_get_member(o, "ok");
        ok = n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_BOOLEAN &&
             json_node_get_boolean(n);
    }
    g_object_unref(p);
    return ok;
}

int cmd_ctl_main(int argc, char **argv)
{
    const char *path = getenv("GBVP_CONTROL");
    const char *json = NULL;
    unsigned timeout = 30, count = 0;
    bool timeout_given = false;
    int i = 1;
    if (path && !*path)
        path = NULL;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gbvp ctl: %s needs a value (try --help)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        bool num_ok = *v && !*end && v[0] != '-' && n <= 86400;
        if (!strcmp(a, "--socket")) {
            path = v;
        } else if (!strcmp(a, "--json")) {
            json = v;
        } else if (!strcmp(a, "--timeout") && num_ok) {
            timeout = (unsigned)n;
            timeout_given = true;
        } else if (!strcmp(a, "--count") && num_ok) {
            count = (unsigned)n;
        } else {
            fprintf(stderr, "gbvp ctl: bad option %s %s (try --help)\n", a, v);
            return 2;
        }
    }
    if (!json && i >= argc) {
        usage(stderr);
        return 2;
    }
    bool watch = !json && !strcmp(argv[i], "watch");
    char *req = NULL;
    if (json) {
        if (i < argc) {
            fprintf(stderr, "gbvp ctl: --json takes the whole request; '%s' is extra\n", argv[i]);
            return 2;
        }
        if (strchr(json, '\n')) {
            fprintf(stderr, "gbvp ctl: --json: the request must be one line\n");
            return 2;
        }
        req = strdup(json);
    } else if (watch) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            return 2;
        fprintf(f, "{\"cmd\":\"subscribe\"");
        if (i + 1 < argc) {
            fprintf(f, ",\"events\":[");
            for (int k = i + 1; k < argc; k++) {
                if (k > i + 1)
                    fputc(',', f);
                json_string(f, argv[k]);
            }
            fputc(']', f);
        }
        fputc('}', f);
        fclose(f);
        req = buf;
        if (!timeout_given)
            timeout = 0;
    } else {
        req = build_request(argv[i], argc - i - 1, argv + i + 1);
    }
    if (!req)
        return 2;
    char found[PATH_MAX];
    int fd = path ? connect_socket(path) : find_instance(found, sizeof found);
    if (!path)
        path = found;
    if (fd < 0) {
        free(req);
        return 2;
    }
    int rc = 2;
    static char buf[SIM_CTL_MAX_PENDING];
    size_t have = 0;
    if (send_line(fd, req)) {
        fprintf(stderr, "gbvp ctl: cannot send to %s: %s\n", path, strerror(errno));
        goto out;
    }
    const char *why = NULL;
    char whybuf[96];
    char *line = read_line(fd, buf, &have, sizeof buf, watch ? 30 : timeout, &why, whybuf,
                           sizeof whybuf);
    if (!line) {
        fprintf(stderr, "gbvp ctl: no reply: %s\n", why);
        goto out;
    }
    bool ok = reply_ok(line);
    if (!watch || !ok)
        printf("%s\n", line);
    free(line);
    rc = ok ? 0 : 1;
    if (!watch || !ok)
        goto out;
    fflush(stdout);
    for (unsigned seen = 0; !count || seen < count; seen++) {
        line = read_line(fd, buf, &have, sizeof buf, timeout, &why, whybuf, sizeof whybuf);
        if (!line) {
            /* with --count, fewer events than asked is a failure a script must see */
            if (count) {
                fprintf(stderr, "gbvp ctl: watch ended after %u of %u events: %s\n", seen,
                        count, why);
                rc = 1;
            } else {
                fprintf(stderr, "gbvp ctl: watch ended after %u events: %s\n", seen, why);
            }
            break;
        }
        printf("%s\n", line);
        fflush(stdout);
        free(line);
    }
out:
    close(fd);
    free(req);
    return rc;
}
