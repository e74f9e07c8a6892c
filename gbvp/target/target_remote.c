// SPDX-License-Identifier: MIT
// A target behind a control socket (see target_remote.h).
#include "gbvp/target/target_remote.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gbvp/agent/agent_client.h"
#include "gbvp/target/fields.h"

/* How long a reply may take beyond the time a request itself asks for. */
#define REPLY_MARGIN_MS 30000
#define SLOTS_MAX 32

struct sim_remote {
    sim_target target;
    char name[64];
    int fd;
    char err[256];     /* why the connection broke; "" while it is fine */
    char *in;          /* bytes read and not yet a whole line */
    size_t in_len;
    unsigned next_id;
    int refusal;       /* the kind of the last refusal: -errno from its "code" */
    unsigned num_slots;
    uint8_t intf_ids[SLOTS_MAX];
    sim_agent *agent;
    bool lockstep; /* the simulator's clock is QEMU's: this client drives it */
};

/* Lockstep: while this client waits for the guest agent, virtual time moves in steps of
 * this length; after each, QEMU is parked and what the guest wrote is in the socket. */
#define LOCKSTEP_AGENT_STEP_MS 5
/* Lockstep: a wait of N ms of virtual time may take longer on the wall clock (a busy guest
 * under TCG runs slower than real time): this many times N, plus REPLY_MARGIN_MS. */
#define LOCKSTEP_WALL_FACTOR 20

/* ---- requests and replies ---- */

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void broken(sim_remote *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void broken(sim_remote *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
}

static bool send_all(sim_remote *r, const char *s, size_t n)
{
    while (n) {
        ssize_t w = send(r->fd, s, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            broken(r, "the simulator's control socket: %s", strerror(errno));
            return false;
        }
        s += w;
        n -= (size_t)w;
    }
    return true;
}

/* The next whole line from the socket (a new string, caller frees), NULL on timeout or a
 * closed connection (with the reason kept). */
static char *read_line(sim_remote *r, int64_t deadline)
{
    for (;;) {
        char *nl = r->in_len ? memchr(r->in, '\n', r->in_len) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - r->in);
            char *line = g_strndup(r->in, n);
            memmove(r->in, nl + 1, r->in_len - n - 1);
            r->in_len -= n + 1;
            return line;
        }
        int64_t left = deadline - now_ms();
        if (left <= 0) {
            broken(r, "the simulator did not answer in time");
            return NULL;
        }
        struct pollfd p = { .fd = r->fd, .events = POLLIN };
        int n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            continue;
        char buf[8192];
        ssize_t got = recv(r->fd, buf, sizeof buf, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            broken(r, "the simulator closed its control socket (it stopped?)");
            return NULL;
        }
        char *in = realloc(r->in, r->in_len + (size_t)got);
        if (!in) {
            broken(r, "out of memory");
            return NULL;
        }
        memcpy(in + r->in_len, buf, (size_t)got);
        r->in = in;
        r->in_len += (size_t)got;
    }
}

/* Sends `req` (a JSON object without "id"; this adds one) and waits for its reply, at most
 * wait_ms plus the margin. Returns the parsed reply object (the caller unrefs the parser),
 * or NULL with the reason in err. Events and replies to other ids are skipped. */
static JsonObject *request(sim_remote *r, JsonParser **pp, int64_t wait_ms, char *err,
                           size_t errlen, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static JsonObject *request_v(sim_remote *r, JsonParser **pp, int64_t wait_ms, char *err,
                             size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

static JsonObject *request_v(sim_remote *r, JsonParser **pp, int64_t wait_ms, char *err,
                             size_t errlen, const char *fmt, va_list ap)
{
    *pp = NULL;
    if (r->err[0]) {
        snprintf(err, errlen, "%s", r->err);
        return NULL;
    }
    char *body = g_strdup_vprintf(fmt, ap);
    unsigned id = ++r->next_id;
    /* body is an object: its members follow the id ("{" dropped, its "}" closes) */
    char *line = g_strdup_printf("{\"id\":%u,%s\n", id, body + 1);
    g_free(body);
    bool sent = send_all(r, line, strlen(line));
    g_free(line);
    int64_t deadline = now_ms() + wait_ms + REPLY_MARGIN_MS;
    while (sent) {
        char *text = read_line(r, deadline);
        if (!text)
            break;
        JsonParser *p = json_parser_new();
        bool parsed = json_parser_load_from_data(p, text, -1, NULL);
        g_free(text);
        JsonNode *root = parsed ? json_parser_get_root(p) : NULL;
        JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
        if (o && json_object_has_member(o, "id") &&
            json_object_get_int_member_with_default(o, "id", 0) == (gint64)id) {
            if (!json_object_get_boolean_member_with_default(o, "ok", FALSE)) {
                snprintf(err, errlen, "%s", json_object_get_string_member_with_default(
                                                o, "error", "the simulator refused it"));
                const char *code = json_object_get_string_member_with_default(o, "code", "");
                r->refusal = !strcmp(code, "ENOENT")   ? -ENOENT
                             : !strcmp(code, "ENODEV") ? -ENODEV
                                                       : -EINVAL;
                g_object_unref(p);
                return NULL;
            }
            *pp = p;
            return o;
        }
        if (o && !json_object_has_member(o, "id") && !json_object_has_member(o, "event")) {
            /* a refusal the simulator could not attribute: it could not read the request */
            snprintf(err, errlen, "the simulator could not read a request: %s",
                     json_object_get_string_member_with_default(o, "error", "?"));
            r->refusal = -EINVAL;
            g_object_unref(p);
            return NULL;
        }
        g_object_unref(p); /* an event, or a line that is not ours */
    }
    snprintf(err, errlen, "%s", r->err);
    r->refusal = -EPIPE;
    return NULL;
}

static JsonObject *request(sim_remote *r, JsonParser **pp, int64_t wait_ms, char *err,
                           size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    JsonObject *o = request_v(r, pp, wait_ms, err, errlen, fmt, ap);
    va_end(ap);
    return o;
}

/* A request whose reply says only whether it was done: 0, or the refusal (-ENOENT,
 * -ENODEV, -EINVAL; -EPIPE when the simulator is gone) with the reason in err. */
__attribute__((format(printf, 4, 5))) static int command(sim_remote *r, char *err,
                                                          size_t errlen, const char *fmt, ...)
{
    JsonParser *p;
    va_list ap;
    va_start(ap, fmt);
    JsonObject *o = request_v(r, &p, 0, err, errlen, fmt, ap);
    va_end(ap);
    if (p)
        g_object_unref(p);
    return o ? 0 : r->refusal;
}

/* The reply's members as named values (id, ok and error left out). */
static void reply_values(JsonObject *o, vm_reply *out)
{
    GList *names = json_object_get_members(o);
    for (GList *n = names; n; n = n->next) {
        const char *k = n->data;
        if (!strcmp(k, "id") || !strcmp(k, "ok") || !strcmp(k, "error"))
            continue;
        JsonNode *v = json_object_get_member(o, k);
        if (JSON_NODE_HOLDS_OBJECT(v)) {
            const char *hex = json_object_get_string_member_with_default(
                json_node_get_object(v), "hex", NULL);
            if (!hex)
                continue;
            size_t len = strlen(hex) / 2;
            uint8_t *bytes = g_malloc(len + 1);
            for (size_t i = 0; i < len; i++) {
                char b[3] = { hex[2 * i], hex[2 * i + 1], 0 };
                bytes[i] = (uint8_t)strtoul(b, NULL, 16);
            }
            vm_reply_bytes(out, k, bytes, len);
            g_free(bytes);
            continue;
        }
        if (!JSON_NODE_HOLDS_VALUE(v))
            continue;
        GType t = json_node_get_value_type(v);
        if (t == G_TYPE_INT64)
            vm_reply_int(out, k, json_node_get_int(v));
        else if (t == G_TYPE_BOOLEAN)
            vm_reply_bool(out, k, json_node_get_boolean(v));
        else if (t == G_TYPE_STRING)
            vm_reply_text(out, k, json_node_get_string(v));
    }
    g_list_free(names);
}

/* ---- operations ---- */

static sim_remote *R(void *ctx)
{
    return ctx;
}

static unsigned t_num_slots(void *ctx)
{
    return R(ctx)->num_slots;
}

static uint8_t t_slot_intf_id(void *ctx, unsigned slot)
{
    sim_remote *r = ctx;
    return slot < r->num_slots ? r->intf_ids[slot] : 0;
}

static int t_insert(void *ctx, unsigned slot, const char *module, char *err, size_t errlen)
{
    char *m = g_strescape(module, NULL);
    int rc = command(R(ctx), err, errlen, "{\"cmd\":\"insert\",\"slot\":%u,\"module\":\"%s\"}",
                     slot, m);
    g_free(m);
    return rc;
}

static int t_remove(void *ctx, unsigned slot, char *err, size_t errlen)
{
    return command(R(ctx), err, errlen, "{\"cmd\":\"remove\",\"slot\":%u}", slot);
}

static bool t_module_name(void *ctx, unsigned slot, char *buf, size_t len)
{
    JsonParser *p;
    char err[256];
    JsonObject *o = request(R(ctx), &p, 0, err, sizeof err, "{\"cmd\":\"status\"}");
    bool found = false;
    JsonArray *a = o ? json_object_get_array_member(o, "slots") : NULL;
    if (a && slot < json_array_get_length(a)) {
        JsonObject *s = json_array_get_object_element(a, slot);
        const char *name = json_object_get_string_member_with_default(s, "module", NULL);
        if (name) {
            snprintf(buf, len, "%s", name);
            found = true;
        }
    }
    if (p)
        g_object_unref(p);
    return found;
}

static int t_command(void *ctx, unsigned slot, int index, const char *line, vm_reply *reply)
{
    JsonParser *p;
    vm_reply_clear(reply);
    char *l = g_strescape(line, NULL);
    JsonObject *o = request(R(ctx), &p, 0, reply->text, sizeof reply->text,
                            "{\"cmd\":\"cmd\",\"slot\":%u,\"index\":%d,\"line\":\"%s\"}", slot,
                            index, l);
    g_free(l);
    if (!o)
        return R(ctx)->refusal;
    snprintf(reply->text, sizeof reply->text, "%s",
             json_object_get_string_member_with_default(o, "reply", ""));
    reply_values(o, reply);
    g_object_unref(p);
    return 0;
}

/* A request whose reply's members fill a structure through a field table. */
static void fields_request(sim_remote *r, const sim_fields *set, void *obj, const char *req)
{
    JsonParser *p;
    char err[256];
    JsonObject *o = request(r, &p, 0, err, sizeof err, "%s", req);
    if (!o)
        return;
    vm_reply v;
    vm_reply_clear(&v);
    reply_values(o, &v);
    sim_fields_get(set, &v, obj);
    g_object_unref(p);
}

static void t_intf(void *ctx, uint8_t id, sim_target_intf *out)
{
    *out = (sim_target_intf){ 0 };
    char req[64];
    snprintf(req, sizeof req, "{\"cmd\":\"interface\",\"interface\":%u}", id);
    fields_request(ctx, &sim_fields_intf, out, req);
}

static void t_stats(void *ctx, sim_target_stats *out)
{
    *out = (sim_target_stats){ 0 };
    fields_request(ctx, &sim_fields_stats, out, "{\"cmd\":\"stats\"}");
}

static int t_link_mode(void *ctx, uint8_t id, uint8_t *tx, uint8_t *rx, char *err,
                       size_t errlen)
{
    JsonParser *p;
    JsonObject *o = request(R(ctx), &p, 0, err, errlen,
                            "{\"cmd\":\"link_mode\",\"interface\":%u}", id);
    if (!o)
        return R(ctx)->refusal;
    *tx = (uint8_t)json_object_get_int_member_with_default(o, "tx_mode", 0);
    *rx = (uint8_t)json_object_get_int_member_with_default(o, "rx_mode", 0);
    g_object_unref(p);
    return 0;
}

static int t_intf_oops(void *ctx, uint8_t id, uint8_t reason, char *err, size_t errlen)
{
    return command(R(ctx), err, errlen,
                   "{\"cmd\":\"intf_oops\",\"interface\":%u,\"reason\":%u}", id, reason);
}

static void t_advance(void *ctx, sim_time dt)
{
    JsonParser *p;
    char err[256];
    uint64_t ms = (dt + SIM_MS(1) - 1) / SIM_MS(1);
    int64_t wall = (int64_t)ms * (R(ctx)->lockstep ? LOCKSTEP_WALL_FACTOR : 1);
    JsonObject *o = request(R(ctx), &p, wall, err, sizeof err,
                            "{\"cmd\":\"wait\",\"ms\":%llu}", (unsigned long long)ms);
    if (o)
        g_object_unref(p);
}

/* The AP reacts on the simulator's own loop: a short wait lets it. */
static void t_settle(void *ctx)
{
    t_advance(ctx, SIM_MS(20));
}

static sim_time t_now(void *ctx)
{
    JsonParser *p;
    char err[256];
    JsonObject *o = request(R(ctx), &p, 0, err, sizeof err, "{\"cmd\":\"ping\"}");
    sim_time now = o ? (sim_time)json_object_get_int_member_with_default(o, "time_ps", 0) : 0;
    if (p)
        g_object_unref(p);
    return now;
}

/* "ap" or the slot number, for link requests. */
static void slot_json(unsigned slot, char *buf, size_t len)
{
    if (slot == SIM_TARGET_SLOT_AP)
        snprintf(buf, len, "\"ap\"");
    else
        snprintf(buf, len, "%u", slot);
}

static int t_link_set(void *ctx, unsigned slot, const char *gear, const char *series,
                      const char *lanes, char *err, size_t errlen)
{
    char s[16];
    slot_json(slot, s, sizeof s);
    GString *req = g_string_new(NULL);
    g_string_printf(req, "{\"cmd\":\"link\",\"slot\":%s", s);
    const char *names[] = { "gear", "series", "lanes" }, *vals[] = { gear, series, lanes };
    for (int i = 0; i < 3; i++)
        if (vals[i]) {
            char *v = g_strescape(vals[i], NULL);
            g_string_append_printf(req, ",\"%s\":\"%s\"", names[i], v);
            g_free(v);
        }
    g_string_append(req, "}");
    int rc = command(R(ctx), err, errlen, "%s", req->str);
    g_string_free(req, TRUE);
    return rc;
}

static int t_link_fault(void *ctx, unsigned slot, const sw_link_fault *f, char *err,
                        size_t errlen)
{
    char s[16];
    slot_json(slot, s, sizeof s);
    GString *req = g_string_new(NULL);
    g_string_printf(req, "{\"cmd\":\"fault\",\"slot\":%s", s);
    if (f->set_ber)
        g_string_append_printf(req, ",\"ber\":%.17g", f->ber);
    if (f->set_drop)
        g_string_append_printf(req, ",\"drop\":%.17g", f->drop);
    if (f->set_down)
        g_string_append_printf(req, ",\"down\":%s", f->down ? "true" : "false");
    if (f->delay)
        g_string_append_printf(req, ",\"delay\":%.9g", (double)f->delay / 1e9);
    if (f->down_for)
        g_string_append_printf(req, ",\"down_for\":%.9g", (double)f->down_for / 1e9);
    g_string_append(req, "}");
    int rc = command(R(ctx), err, errlen, "%s", req->str);
    g_string_free(req, TRUE);
    return rc;
}

static int t_link_info(void *ctx, unsigned slot, sim_target_link *out, char *err,
                       size_t errlen)
{
    char s[16];
    slot_json(slot, s, sizeof s);
    JsonParser *p;
    JsonObject *o = request(R(ctx), &p, 0, err, errlen, "{\"cmd\":\"link_stats\",\"slot\":%s}",
                            s);
    if (!o)
        return R(ctx)->refusal;
    *out = (sim_target_link){ 0 };
    snprintf(out->mode, sizeof out->mode, "%s",
             json_object_get_string_member_with_default(o, "mode", ""));
    snprintf(out->state, sizeof out->state, "%s",
             json_object_get_string_member_with_default(o, "state", ""));
    out->ber = json_object_get_double_member_with_default(o, "ber", 0);
    out->drop = json_object_get_double_member_with_default(o, "drop", 0);
    vm_reply v;
    vm_reply_clear(&v);
    reply_values(o, &v);
    sim_fields_get(&sim_fields_link, &v, out);
    g_object_unref(p);
    return 0;
}

static int t_guest_run(void *ctx, const char *cmd, int timeout_ms, sim_agent_result *res,
                       char *err, size_t errlen)
{
    return sim_agent_run_or_say(((sim_remote *)ctx)->agent, cmd, timeout_ms, res, err, errlen);
}

/* capture and trace: {"cmd": what, "file": path} or {"cmd": what, "stop": true} */
static int file_command(void *ctx, const char *what, const char *path, char *err,
                        size_t errlen)
{
    if (!path)
        return command(R(ctx), err, errlen, "{\"cmd\":\"%s\",\"stop\":true}", what);
    char *f = g_strescape(path, NULL);
    int rc = command(R(ctx), err, errlen, "{\"cmd\":\"%s\",\"file\":\"%s\"}", what, f);
    g_free(f);
    return rc;
}

static int t_capture(void *ctx, const char *path, char *err, size_t errlen)
{
    return file_command(ctx, "capture", path, err, errlen);
}

static int t_trace(void *ctx, const char *path, char *err, size_t errlen)
{
    return file_command(ctx, "trace", path, err, errlen);
}

static const sim_target_ops remote_ops = {
    .num_slots = t_num_slots,
    .slot_intf_id = t_slot_intf_id,
    .insert = t_insert,
    .remove = t_remove,
    .module_name = t_module_name,
    .command = t_command,
    .intf = t_intf,
    .stats = t_stats,
    .link_mode = t_link_mode,
    .intf_oops = t_intf_oops,
    .settle = t_settle,
    .advance = t_advance,
    .now = t_now,
    .link_set = t_link_set,
    .link_fault = t_link_fault,
    .link_info = t_link_info,
    .guest_run = t_guest_run,
    .capture = t_capture,
    .trace = t_trace,
};

/* ---- life cycle ---- */

/* Lockstep: the agent client's wait. Nothing reaches the guest meanwhile, and the guest's
 * output is looked at only while QEMU is parked, so when a reply is seen does not depend on
 * the host. */
static int lockstep_agent_wait(void *ctx, int fd, int timeout_ms)
{
    sim_remote *r = ctx;
    int64_t deadline = now_ms() + timeout_ms;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int n = poll(&p, 1, 0);
        if (n < 0 && errno != EINTR)
            return -errno;
        if (n > 0)
            return 1;
        if (now_ms() >= deadline)
            return 0;
        if (r->err[0])
            return -EPIPE;
        t_advance(r, SIM_MS(LOCKSTEP_AGENT_STEP_MS));
    }
}

static int connect_socket(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (!path || !*path || strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "control socket path '%s' is empty or too long", path ? path : "");
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        snprintf(err, errlen, "cannot connect to the control socket %s: %s (is the simulator "
                 "running with --control %s?)", path, strerror(errno), path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

sim_remote *sim_remote_new(const char *ctl_path, const char *agent_path, char *err,
                           size_t errlen)
{
    return sim_remote_new_agent(ctl_path, agent_path, 0, NULL, err, errlen);
}

sim_remote *sim_remote_new_agent(const char *ctl_path, const char *agent_path, int agent_wait_ms,
                                 bool *agent_missing, char *err, size_t errlen)
{
    if (agent_missing)
        *agent_missing = false;
    sim_remote *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->fd = connect_socket(ctl_path, err, errlen);
    if (r->fd < 0) {
        free(r);
        return NULL;
    }
    JsonParser *p;
    JsonObject *o = request(r, &p, 0, err, errlen, "{\"cmd\":\"status\"}");
    if (!o) {
        sim_remote_free(r);
        return NULL;
    }
    snprintf(r->name, sizeof r->name, "remote %s",
             json_object_get_string_member_with_default(o, "target", "?"));
    JsonObject *f = json_object_get_object_member(o, "features");
    unsigned features = 0;
    if (f && json_object_get_boolean_member_with_default(f, "link_model", FALSE))
        features |= SIM_TARGET_LINK_MODEL;
    if (f && json_object_get_boolean_member_with_default(f, "realtime", FALSE))
        features |= SIM_TARGET_REALTIME;
    if (f && json_object_get_boolean_member_with_default(f, "lockstep", FALSE))
        features |= SIM_TARGET_LOCKSTEP;
    JsonArray *a = json_object_get_array_member(o, "slots");
    r->num_slots = a ? json_array_get_length(a) : 0;
    if (r->num_slots > SLOTS_MAX)
        r->num_slots = SLOTS_MAX;
    for (unsigned i = 0; i < r->num_slots; i++)
        r->intf_ids[i] = (uint8_t)json_object_get_int_member_with_default(
            json_array_get_object_element(a, i), "interface", 0);
    g_object_unref(p);
    if (!r->num_slots) {
        snprintf(err, errlen, "the simulator at %s reports no slots", ctl_path);
        sim_remote_free(r);
        return NULL;
    }
    /* lockstep: this client drives the clock, which stands still between its waits */
    r->lockstep = features & SIM_TARGET_LOCKSTEP;
    if (r->lockstep && command(r, err, errlen, "{\"cmd\":\"drive\"}")) {
        sim_remote_free(r);
        return NULL;
    }
    if (agent_path) {
        char aerr[256];
        if (sim_agent_connect_unix(agent_path, 10000, &r->agent, aerr, sizeof aerr) == 0 &&
            r->lockstep) {
            sim_agent_set_wait(r->agent, lockstep_agent_wait, r);
            sim_agent_set_session(r->agent, "lockstep"); /* the same bytes every run */
        }
        int wait_ms = agent_wait_ms > 0 ? agent_wait_ms : r->lockstep ? 600000 : 300000;
        if (!r->agent || (r->lockstep ? sim_agent_wait_started(r->agent, wait_ms)
                                      : sim_agent_wait_ready(r->agent, wait_ms))) {
            snprintf(err, errlen, "guest agent at %s: %s", agent_path,
                     r->agent ? sim_agent_last_error(r->agent) : aerr);
            if (!agent_missing) {
                sim_remote_free(r);
                return NULL;
            }
            /* a guest without the agent: the target goes on without SIM_TARGET_GUEST */
            *agent_missing = true;
            sim_agent_free(r->agent);
            r->agent = NULL;
        } else {
            features |= SIM_TARGET_GUEST;
        }
    }
    r->target = (sim_target){ .name = r->name, .features = features, .ops = &remote_ops,
                              .ctx = r };
    return r;
}

void sim_remote_free(sim_remote *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    sim_agent_free(r->agent);
    free(r->in);
    free(r);
}

const sim_target *sim_remote_target(sim_remote *r)
{
    return &r->target;
}
