// SPDX-License-Identifier: MIT
// The control socket's transport: a non-blocking Unix listener (mode 0600), up to
// SIM_CONTROL_MAX_CLIENTS clients with line buffers, replies and events queued per client,
// and the state watcher that turns slot, interface and AP-link changes into events.
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
    free(cl->in);
    free(cl->out);
    memset(cl, 0, sizeof *cl);
    cl->fd = -1;
}

/* Queues a line (adds the newline). A client that lets more than
 * SIM_CONTROL_MAX_PENDING bytes pile up is dropped. */
static void client_queue(ctl_client *cl, const char *s)
{
    size_t n = strlen(s);
    if (cl->out_len + n + 1 > SIM_CONTROL_MAX_PENDING) {
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

sim_control *sim_control_new(const char *path, const sim_control_backend *b, char *err,
                             size_t errlen)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (!path || !*path || strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "control socket path '%s' is empty or longer than %zu bytes",
                 path ? path : "", sizeof sa.sun_path - 1);
        return NULL;
    }
    if (!b || !b->svc || !b->insert || !b->remove) {
        snprintf(err, errlen, "control backend lacks a required operation");
        return NULL;
    }
    sim_control *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->b = *b;
    for (unsigned i = 0; i < SIM_CONTROL_MAX_CLIENTS; i++)
        c->clients[i].fd = -1;
    memcpy(sa.sun_path, path, strlen(path));
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            snprintf(err, errlen, "%s exists and is not a socket; not replacing it", path);
            goto fail;
        }
        unlink(path);
    }
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
    gb_svc *svc = c->b.svc(c->b.ctx);
    c->link_up = gb_svc_handshake_done(svc);
    for (unsigned s = 0; s < gb_svc_num_slots(svc) && s < GB_SVC_SLOTS_MAX; s++) {
        gb_svc_intf_info in;
        gb_svc_get_intf(svc, gb_svc_slot_intf_id(svc, s), &in);
        c->seen[s].occupied = in.present;
        c->seen[s].active = in.present && in.active;
    }
    return c;
fail:
    if (c->listen_fd > 0)
        close(c->listen_fd);
    free(c->path);
    free(c);
    return NULL;
}

void sim_control_free(sim_control *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < SIM_CONTROL_MAX_CLIENTS; i++)
        if (c->clients[i].fd >= 0) {
            client_flush(&c->clients[i]);
            client_close(&c->clients[i]);
        }
    close(c->listen_fd);
    unlink(c->path);
    if (c->b.free_ctx)
        c->b.free_ctx(c->b.ctx);
    free(c->path);
    free(c);
}

size_t sim_control_pollfds(const sim_control *c, struct pollfd *fds, size_t cap)
{
    size_t n = 0;
    if (n < cap)
        fds[n++] = (struct pollfd){ .fd = c->listen_fd, .events = POLLIN };
    for (unsigned i = 0; i < SIM_CONTROL_MAX_CLIENTS && n < cap; i++)
        if (c->clients[i].fd >= 0)
            fds[n++] = (struct pollfd){ .fd = c->clients[i].fd,
                                        .events = POLLIN | (c->clients[i].out_len ? POLLOUT : 0) };
    return n;
}

static void accept_clients(sim_control *c)
{
    for (;;) {
        int fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        ctl_client *cl = NULL;
        for (unsigned i = 0; i < SIM_CONTROL_MAX_CLIENTS && !cl; i++)
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

static void client_line(sim_control *c, ctl_client *cl, const char *line, size_t len)
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
    client_queue(cl, reply);
    g_free(reply);
}

static void client_read(sim_control *c, ctl_client *cl)
{
    char buf[8192];
    for (;;) {
        ssize_t r = recv(cl->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            client_close(cl);
            return;
        }
        if (r < 0)
            return;
        size_t start = 0;
        for (size_t i = 0; i < (size_t)r && cl->fd >= 0; i++) {
            if (buf[i] != '\n')
                continue;
            if (cl->discarding) {
                cl->discarding = false;
            } else if (cl->in_len) {
                size_t n = i - start;
                if (cl->in_len + n > SIM_CONTROL_MAX_LINE) {
                    client_queue(cl, "{\"ok\":false,\"error\":\"request line longer than 65536 bytes\"}");
                } else {
                    char *l = realloc(cl->in, cl->in_len + n + 1);
                    if (!l) {
                        client_close(cl);
                        return;
                    }
                    memcpy(l + cl->in_len, buf + start, n);
                    cl->in = l;
                    client_line(c, cl, cl->in, cl->in_len + n);
                }
                if (cl->fd >= 0)
                    cl->in_len = 0;
            } else if (i - start > SIM_CONTROL_MAX_LINE) {
                client_queue(cl, "{\"ok\":false,\"error\":\"request line longer than 65536 bytes\"}");
            } else {
                client_line(c, cl, buf + start, i - start);
            }
            start = i + 1;
        }
        if (cl->fd < 0)
            return;
        size_t rest = (size_t)r - start;
        if (!rest || cl->discarding)
            continue;
        if (cl->in_len + rest > SIM_CONTROL_MAX_LINE) {
            client_queue(cl, "{\"ok\":false,\"error\":\"request line longer than 65536 bytes\"}");
            cl->in_len = 0;
            cl->discarding = true;
            continue;
        }
        char *l = realloc(cl->in, cl->in_len + rest + 1);
        if (!l) {
            client_close(cl);
            return;
        }
        memcpy(l + cl->in_len, buf + start, rest);
        cl->in = l;
        cl->in_len += rest;
    }
}

void ctl_broadcast(sim_control *c, unsigned kind, JsonNode *event)
{
    char *s = json_to_string(event, FALSE);
    json_node_unref(event);
    if (!s)
        return;
    for (unsigned i = 0; i < SIM_CONTROL_MAX_CLIENTS; i++) {
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

/* Slots, interfaces and the AP link compared with the last look. */
static void watch_state(sim_control *c)
{
    gb_svc *svc = c->b.svc(c->b.ctx);
    gb_slots *slots = c->b.slots ? c->b.slots(c->b.ctx) : NULL;
    JsonBuilder *b;
    bool up = gb_svc_handshake_done(svc);
    if (up != c->link_up) {
        c->link_up = up;
        event_new("link_state", &b);
        json_builder_set_member_name(b, "ap");
        json_builder_add_string_value(b, up ? "up" : "down");
        ctl_broadcast(c, CTL_EV_LINK, event_end(b));
    }
    for (unsigned s = 0; s < gb_svc_num_slots(svc) && s < GB_SVC_SLOTS_MAX; s++) {
        uint8_t id = gb_svc_slot_intf_id(svc, s);
        gb_svc_intf_info in;
        gb_svc_get_intf(svc, id, &in);
        bool occ = in.present, act = in.present && in.active;
        ctl_slot_seen *seen = &c->seen[s];
        if (occ != seen->occupied) {
            event_new(occ ? "module_inserted" : "module_removed", &b);
            json_builder_set_member_name(b, "slot");
            json_builder_add_int_value(b, s);
            json_builder_set_member_name(b, "interface");
            json_builder_add_int_value(b, id);
            const char *name = occ && slots ? gb_slots_module_name(slots, s) : NULL;
            if (name) {
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

void sim_control_service(sim_control *c)
{
    accept_clients(c);
    for (unsigned i = 0; i < SIM_CONTROL_MAX_CLIENTS; i++)
        if (c->clients[i].fd >= 0)
            client_read(c, &c->clients[i]);
    watch_state(c);
    for (unsigned i = 0; i < SIM_CONTROL_MAX_CLIENTS; i++)
        client_flush(&c->clients[i]);
}

void sim_control_assertion(sim_control *c, bool ok, const char *name)
{
    JsonBuilder *b;
    event_new("assertion", &b);
    json_builder_set_member_name(b, "ok");
    json_builder_add_boolean_value(b, ok);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, name ? name : "");
    ctl_broadcast(c, CTL_EV_ASSERTION, event_end(b));
}

void sim_control_log(sim_control *c, const char *text)
{
    JsonBuilder *b;
    event_new("log", &b);
    json_builder_set_member_name(b, "text");
    json_builder_add_string_value(b, text ? text : "");
    ctl_broadcast(c, CTL_EV_LOG, event_end(b));
}

char *sim_control_handle_line(sim_control *c, const char *line, size_t len)
{
    char *r = ctl_handle(c, NULL, line, len);
    if (!r)
        return NULL;
    char *out = strdup(r);
    g_free(r);
    return out;
}
