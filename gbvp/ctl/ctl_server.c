// SPDX-License-Identifier: MIT
// The control socket's transport: a non-blocking Unix listener (mode 0600), up to
// SIM_CTL_MAX_CLIENTS clients with line buffers, replies and events queued per client, the
// waits being served, and the state watcher that turns slot, interface and AP-link changes
// into events.
#include "gbvp/ctl/ctl_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void client_close(ctl_client *cl)
{
    if (cl->fd >= 0)
        close(cl->fd);
    if (cl->wait_id)
        json_node_unref(cl->wait_id);
    free(cl->in);
    free(cl->out);
    memset(cl, 0, sizeof *cl);
    cl->fd = -1;
}

/* Queues a line (adds the newline). A client that lets more than
 * SIM_CTL_MAX_PENDING bytes pile up is dropped. */
static void client_queue(ctl_client *cl, const char *s)
{
    size_t n = strlen(s);
    if (cl->out_len + n + 1 > SIM_CTL_MAX_PENDING) {
        client_close(cl);
        return;
    }
    if (cl->out_len + n + 1 > cl->out_cap) {
        size_t cap = cl->out_cap ? cl->out_cap : 4096;
        while (cap < cl->out_len + n + 1)
            cap *= 2;
        char *o = realloc(cl->out, cap);
        if (!o) {
            client_close(cl);
            return;
        }
        cl->out = o;
        cl->out_cap = cap;
    }
    memcpy(cl->out + cl->out_len, s, n);
    cl->out[cl->out_len + n] = '\n';
    cl->out_len += n + 1;
}

static void client_flush(ctl_client *cl)
{
    while (cl->fd >= 0 && cl->out_len) {
        ssize_t w = send(cl->fd, cl->out, cl->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return;
            client_close(cl);
            return;
        }
        memmove(cl->out, cl->out + w, cl->out_len - (size_t)w);
        cl->out_len -= (size_t)w;
    }
}

static void watch_init(sim_ctl *c);

int sim_ctl_path_usable(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (!path || !*path || strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "control socket path '%s' is empty or longer than %zu bytes",
                 path ? path : "", sizeof sa.sun_path - 1);
        return -EINVAL;
    }
    memcpy(sa.sun_path, path, strlen(path));
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a socket; not replacing it", path);
        return -EEXIST;
    }
    /* a live simulator answers: never take its socket; a stale file is taken over */
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
        struct ucred who = { 0 };
        socklen_t len = sizeof who;
        if (getsockopt(probe, SOL_SOCKET, SO_PEERCRED, &who, &len) == 0 && who.pid > 0)
            snprintf(err, errlen, "%s is held by a running simulator (pid %d); give "
                     "another path or stop that one", path, (int)who.pid);
        else
            snprintf(err, errlen, "%s is held by a running simulator; give another path "
                     "or stop that one", path);
        close(probe);
        return -EADDRINUSE;
    }
    if (probe >= 0)
        close(probe);
    return 0;
}

sim_ctl *sim_ctl_new(const char *path, const sim_target *t, char *err, size_t errlen)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (sim_ctl_path_usable(path, err, errlen))
        return NULL;
    if (!t || !t->ops) {
        snprintf(err, errlen, "no target to serve");
        return NULL;
    }
    sim_ctl *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->t = t;
    c->listen_fd = -1;
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++)
        c->clients[i].fd = -1;
    memcpy(sa.sun_path, path, strlen(path));
    unlink(path); /* a stale socket file, if any (sim_ctl_path_usable found no one on it) */
    c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->listen_fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        goto fail;
    }
    /* The socket file is created with mode 0600: only its owner may drive the simulator. */
    mode_t old = umask(0177);
    int rc = bind(c->listen_fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    umask(old);
    if (rc) {
        snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(e));
        goto fail;
    }
    if (chmod(path, 0600) || listen(c->listen_fd, 8)) {
        snprintf(err, errlen, "cannot listen on %s: %s", path, strerror(errno));
        unlink(path);
        goto fail;
    }
    watch_init(c);
    return c;
fail:
    if (c->listen_fd >= 0)
        close(c->listen_fd);
    free(c->path);
    free(c);
    return NULL;
}

sim_ctl *sim_ctl_new_detached(const sim_target *t, char *err, size_t errlen)
{
    if (!t || !t->ops) {
        snprintf(err, errlen, "no target to serve");
        return NULL;
    }
    sim_ctl *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->t = t;
    c->listen_fd = -1;
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++)
        c->clients[i].fd = -1;
    watch_init(c);
    return c;
}

void sim_ctl_free(sim_ctl *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++)
        if (c->clients[i].fd >= 0) {
            client_flush(&c->clients[i]);
            client_close(&c->clients[i]);
        }
    if (c->listen_fd >= 0)
        close(c->listen_fd);
    if (c->path)
        unlink(c->path);
    free(c->path);
    free(c);
}

static void accept_clients(sim_ctl *c)
{
    for (;;) {
        int fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        ctl_client *cl = NULL;
        for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS && !cl; i++)
            if (c->clients[i].fd < 0)
                cl = &c->clients[i];
        if (!cl) {
            static const char busy[] = "{\"ok\":false,\"error\":\"too many control clients\"}\n";
            ssize_t w = send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            (void)w;
            close(fd);
            continue;
        }
        cl->fd = fd;
    }
}

static void client_line(sim_ctl *c, ctl_client *cl, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    if (!len)
        return;
    char *reply = ctl_handle(c, cl, line, len);
    if (!reply) {
        client_close(cl);
        return;
    }
    if (*reply) /* "": a wait, answered when it is over */
        client_queue(cl, reply);
    g_free(reply);
}

static const char too_long[] = "{\"ok\":false,\"error\":\"request line longer than 65536 bytes\"}";

/* Handles the complete lines waiting in the client's input, up to one that starts a wait:
 * the lines behind it are handled when it is over, in order. */
static void client_lines(sim_ctl *c, ctl_client *cl)
{
    size_t start = 0;
    while (cl->fd >= 0 && !cl->waiting) {
        char *nl = memchr(cl->in + start, '\n', cl->in_len - start);
        if (!nl)
            break;
        size_t n = (size_t)(nl - (cl->in + start));
        if (n > SIM_CTL_MAX_LINE)
            client_queue(cl, too_long);
        else
            client_line(c, cl, cl->in + start, n);
        start += n + 1;
    }
    if (cl->fd < 0)
        return;
    memmove(cl->in, cl->in + start, cl->in_len - start);
    cl->in_len -= start;
    if (cl->in_len > SIM_CTL_MAX_LINE && !memchr(cl->in, '\n', cl->in_len)) {
        client_queue(cl, too_long);
        cl->in_len = 0;
        cl->discarding = true; /* up to the next newline */
    }
}

static void client_read(sim_ctl *c, ctl_client *cl)
{
    char buf[8192];
    while (cl->fd >= 0 && !cl->waiting) {
        ssize_t r = recv(cl->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            client_close(cl);
            return;
        }
        if (r < 0)
            return;
        size_t start = 0;
        if (cl->discarding) {
            char *nl = memchr(buf, '\n', (size_t)r);
            if (!nl)
                continue;
            start = (size_t)(nl - buf) + 1;
            cl->discarding = false;
        }
        size_t n = (size_t)r - start;
        char *in = realloc(cl->in, cl->in_len + n + 1);
        if (!in) {
            client_close(cl);
            return;
        }
        memcpy(in + cl->in_len, buf + start, n);
        cl->in = in;
        cl->in_len += n;
        client_lines(c, cl);
    }
}

/* Answers the waits whose time has come and goes on with what their clients sent since. */
static void finish_waits(sim_ctl *c)
{
    sim_time now = c->t->ops->now(c->t->ctx);
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++) {
        ctl_client *cl = &c->clients[i];
        if (cl->fd < 0 || !cl->waiting || now < cl->until)
            continue;
        char *reply = ctl_wait_done(cl->wait_id);
        if (cl->wait_id)
            json_node_unref(cl->wait_id);
        cl->wait_id = NULL;
        cl->waiting = false;
        if (reply)
            client_queue(cl, reply);
        g_free(reply);
        client_lines(c, cl);
    }
}

void ctl_broadcast(sim_ctl *c, unsigned kind, JsonNode *event)
{
    char *s = json_to_string(event, FALSE);
    json_node_unref(event);
    if (!s)
        return;
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++) {
        ctl_client *cl = &c->clients[i];
        if (cl->fd >= 0 && (cl->events & kind)) {
            client_queue(cl, s);
            client_flush(cl);
        }
    }
    g_free(s);
}

static void event_new(const char *name, JsonBuilder **bp)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "event");
    json_builder_add_string_value(b, name);
    *bp = b;
}

static JsonNode *event_end(JsonBuilder *b)
{
    json_builder_end_object(b);
    JsonNode *n = json_builder_get_root(b);
    g_object_unref(b);
    return n;
}

/* What the watcher compares with: the slots and the AP's SVC connection as they are. */
static void watch_look(sim_ctl *c, unsigned s, bool *occupied, bool *active, char *name,
                       size_t len)
{
    const sim_target *t = c->t;
    sim_target_intf v;
    t->ops->intf(t->ctx, t->ops->slot_intf_id(t->ctx, s), &v);
    *occupied = t->ops->module_name(t->ctx, s, name, len);
    *active = *occupied && v.active;
}

static unsigned watched_slots(const sim_ctl *c)
{
    unsigned n = c->t->ops->num_slots(c->t->ctx);
    return n < CTL_SLOTS_MAX ? n : CTL_SLOTS_MAX;
}

static void watch_init(sim_ctl *c)
{
    sim_target_stats st;
    c->t->ops->stats(c->t->ctx, &st);
    c->link_up = st.handshake_done;
    for (unsigned s = 0; s < watched_slots(c); s++) {
        char name[64];
        watch_look(c, s, &c->seen[s].occupied, &c->seen[s].active, name, sizeof name);
    }
}

/* Slots, interfaces and the AP link compared with the last look. */
static void watch_state(sim_ctl *c)
{
    JsonBuilder *b;
    sim_target_stats st;
    c->t->ops->stats(c->t->ctx, &st);
    bool up = st.handshake_done;
    if (up != c->link_up) {
        c->link_up = up;
        event_new("link_state", &b);
        json_builder_set_member_name(b, "ap");
        json_builder_add_string_value(b, up ? "up" : "down");
        ctl_broadcast(c, CTL_EV_LINK, event_end(b));
    }
    for (unsigned s = 0; s < watched_slots(c); s++) {
        uint8_t id = c->t->ops->slot_intf_id(c->t->ctx, s);
        bool occ, act;
        char name[64];
        watch_look(c, s, &occ, &act, name, sizeof name);
        ctl_slot_seen *seen = &c->seen[s];
        if (occ != seen->occupied) {
            event_new(occ ? "module_inserted" : "module_removed", &b);
            json_builder_set_member_name(b, "slot");
            json_builder_add_int_value(b, s);
            json_builder_set_member_name(b, "interface");
            json_builder_add_int_value(b, id);
            if (occ) {
                json_builder_set_member_name(b, "module");
                json_builder_add_string_value(b, name);
            }
            ctl_broadcast(c, CTL_EV_MODULE, event_end(b));
        }
        if (act != seen->active) {
            event_new(act ? "interface_activated" : "interface_deactivated", &b);
            json_builder_set_member_name(b, "interface");
            json_builder_add_int_value(b, id);
            json_builder_set_member_name(b, "slot");
            json_builder_add_int_value(b, s);
            ctl_broadcast(c, CTL_EV_INTERFACE, event_end(b));
        }
        seen->occupied = occ;
        seen->active = act;
    }
}

static size_t source_pollfds(void *ctx, struct pollfd *fds, size_t cap)
{
    sim_ctl *c = ctx;
    size_t n = 0;
    if (n < cap)
        fds[n++] = (struct pollfd){ .fd = c->listen_fd, .events = POLLIN };
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS && n < cap; i++) {
        const ctl_client *cl = &c->clients[i];
        if (cl->fd >= 0)
            fds[n++] = (struct pollfd){ .fd = cl->fd,
                                        .events = (short)((cl->waiting ? 0 : POLLIN) |
                                                          (cl->out_len ? POLLOUT : 0)) };
    }
    return n;
}

/* Only what poll() found ready: no accept4() or recv() on a quiet descriptor. */
static void source_ready(void *ctx, const struct pollfd *fds, size_t n)
{
    sim_ctl *c = ctx;
    for (size_t k = 0; k < n; k++) {
        if (!fds[k].revents)
            continue;
        if (fds[k].fd == c->listen_fd) {
            accept_clients(c);
            continue;
        }
        for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++)
            if (c->clients[i].fd == fds[k].fd) {
                client_read(c, &c->clients[i]);
                break;
            }
    }
    finish_waits(c);
    watch_state(c);
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++)
        client_flush(&c->clients[i]);
}

/* What the loop would do, for owners without one (after every step of a script on a
 * simulated clock): one poll() that does not wait, then only what it found ready, so a
 * quiet socket costs no accept4() or recv() per call. */
void sim_ctl_service(sim_ctl *c)
{
    struct pollfd fds[1 + SIM_CTL_MAX_CLIENTS];
    size_t n = source_pollfds(c, fds, sizeof fds / sizeof fds[0]);
    if (poll(fds, (nfds_t)n, 0) < 0)
        n = 0;
    source_ready(c, fds, n);
}

/* A wait is due when the target's clock (the wall clock, for a realtime target) gets to
 * it. */
static sim_time source_idle_for(void *ctx)
{
    sim_ctl *c = ctx;
    sim_time now = c->t->ops->now(c->t->ctx), wait = SIM_TIME_MAX;
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++) {
        const ctl_client *cl = &c->clients[i];
        if (cl->fd >= 0 && cl->waiting)
            wait = cl->until <= now ? 0 : cl->until - now < wait ? cl->until - now : wait;
    }
    return wait;
}

/* Lockstep: the clock stops at every wait's end (so it is answered at that very instant),
 * and where a driving client is between waits. */
static sim_time source_hold_at(void *ctx)
{
    sim_ctl *c = ctx;
    if (!(c->t->features & SIM_TARGET_LOCKSTEP))
        return SIM_TIME_MAX;
    sim_time now = c->t->ops->now(c->t->ctx);
    sim_time hold = c->held_until_driven ? now : SIM_TIME_MAX;
    for (unsigned i = 0; i < SIM_CTL_MAX_CLIENTS; i++) {
        const ctl_client *cl = &c->clients[i];
        sim_time h = cl->fd < 0              ? SIM_TIME_MAX
                     : cl->waiting           ? cl->until
                     : cl->driving           ? now
                                             : SIM_TIME_MAX;
        if (h < hold)
            hold = h;
    }
    return hold;
}

void sim_ctl_hold_until_driven(sim_ctl *c)
{
    c->held_until_driven = true;
}

sim_loop_source sim_ctl_source(sim_ctl *c)
{
    return (sim_loop_source){ .pollfds = source_pollfds, .ready = source_ready,
                              .idle_for = source_idle_for, .hold_at = source_hold_at,
                              .ctx = c };
}

void sim_ctl_assertion(sim_ctl *c, bool ok, const char *name)
{
    JsonBuilder *b;
    event_new("assertion", &b);
    json_builder_set_member_name(b, "ok");
    json_builder_add_boolean_value(b, ok);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, name ? name : "");
    ctl_broadcast(c, CTL_EV_ASSERTION, event_end(b));
}

void sim_ctl_log(sim_ctl *c, const char *text)
{
    JsonBuilder *b;
    event_new("log", &b);
    json_builder_set_member_name(b, "text");
    json_builder_add_string_value(b, text ? text : "");
    ctl_broadcast(c, CTL_EV_LOG, event_end(b));
}

char *sim_ctl_handle_line(sim_ctl *c, const char *line, size_t len)
{
    char *r = ctl_handle(c, NULL, line, len);
    if (!r)
        return NULL;
    char *out = strdup(r);
    g_free(r);
    return out;
}
