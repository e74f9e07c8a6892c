// SPDX-License-Identifier: MIT
// The control socket's commands: one JSON object in, one JSON object out, each the
// target's operation of the same name (the typed backend commands from the table of
// gbvp/target/typed.h). Every field is checked for presence, type and range before
// anything is done; the reply names the field that is wrong.
#include "gbvp/ctl/ctl_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbvp/target/fields.h"
#include "gbvp/target/typed.h"

typedef struct req {
    sim_ctl *c;
    ctl_client *cl;
    JsonObject *o;
    JsonBuilder *b; /* the reply, opened; commands add members */
    char err[VM_REPLY_TEXT_MAX];
    bool deferred;  /* a wait: the reply comes when it is over */
} req;

static const struct {
    const char *name;
    unsigned bit;
} event_names[] = {
    { "module", CTL_EV_MODULE },       { "link", CTL_EV_LINK },
    { "interface", CTL_EV_INTERFACE }, { "assertion", CTL_EV_ASSERTION },
    { "log", CTL_EV_LOG },             { "all", CTL_EV_ALL },
};

unsigned ctl_event_bit(const char *name)
{
    for (size_t i = 0; i < sizeof event_names / sizeof event_names[0]; i++)
        if (!strcmp(name, event_names[i].name))
            return event_names[i].bit;
    return 0;
}

static bool fail(req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(req *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return false;
}

/* fail() with the kind of refusal named in the reply ("code": "ENOENT", "ENODEV" or
 * "EINVAL"), so that a remote target can tell them apart. */
static bool refuse(req *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool refuse(req *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    json_builder_set_member_name(r->b, "code");
    json_builder_add_string_value(r->b, rc == -ENOENT ? "ENOENT" : rc == -ENODEV ? "ENODEV"
                                                                               : "EINVAL");
    return false;
}

/* An integer member in lo..hi. */
static bool get_int(req *r, const char *name, gint64 lo, gint64 hi, gint64 *out)
{
    JsonNode *n = json_object_get_member(r->o, name);
    if (!n)
        return fail(r, "missing field '%s'", name);
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64)
        return fail(r, "field '%s' must be an integer", name);
    gint64 v = json_node_get_int(n);
    if (v < lo || v > hi)
        return fail(r, "field '%s' is %lld, want %lld..%lld", name, (long long)v,
                    (long long)lo, (long long)hi);
    *out = v;
    return true;
}

static bool opt_int(req *r, const char *name, gint64 lo, gint64 hi, gint64 dflt, gint64 *out)
{
    if (!json_object_has_member(r->o, name)) {
        *out = dflt;
        return true;
    }
    return get_int(r, name, lo, hi, out);
}

static bool get_str(req *r, const char *name, size_t max, const char **out)
{
    JsonNode *n = json_object_get_member(r->o, name);
    if (!n)
        return fail(r, "missing field '%s'", name);
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
        return fail(r, "field '%s' must be a string", name);
    const char *s = json_node_get_string(n);
    size_t l = strlen(s);
    if (l == 0 || l > max)
        return fail(r, "field '%s' must have 1..%zu characters", name, max);
    *out = s;
    return true;
}

static void add_int(req *r, const char *name, gint64 v)
{
    json_builder_set_member_name(r->b, name);
    json_builder_add_int_value(r->b, v);
}

static void add_bool(req *r, const char *name, bool v)
{
    json_builder_set_member_name(r->b, name);
    json_builder_add_boolean_value(r->b, v);
}

static void add_str(req *r, const char *name, const char *v)
{
    json_builder_set_member_name(r->b, name);
    json_builder_add_string_value(r->b, v);
}

static void add_double(req *r, const char *name, double v)
{
    json_builder_set_member_name(r->b, name);
    json_builder_add_double_value(r->b, v);
}

/* The values of a reply as members; bytes as {"hex": "..."}. */
static void add_values(req *r, const vm_reply *v)
{
    for (size_t i = 0; i < v->nvalues; i++) {
        const vm_value *x = &v->values[i];
        const uint8_t *d = vm_reply_data(v, x);
        switch (x->kind) {
        case VM_VALUE_INT:
            add_int(r, x->name, x->i);
            break;
        case VM_VALUE_BOOL:
            add_bool(r, x->name, x->i != 0);
            break;
        case VM_VALUE_TEXT: {
            char *t = g_strndup((const char *)d, x->len);
            add_str(r, x->name, g_utf8_validate(t, -1, NULL) ? t : "(not UTF-8)");
            g_free(t);
            break;
        }
        case VM_VALUE_BYTES: {
            char *hex = g_malloc(2 * (size_t)x->len + 1);
            for (size_t k = 0; k < x->len; k++)
                snprintf(hex + 2 * k, 3, "%02x", d[k]);
            hex[2 * (size_t)x->len] = 0;
            json_builder_set_member_name(r->b, x->name);
            json_builder_begin_object(r->b);
            add_str(r, "hex", hex);
            json_builder_end_object(r->b);
            g_free(hex);
            break;
        }
        }
    }
}

static const sim_target_ops *T(req *r)
{
    return r->c->t->ops;
}

static void *TX(req *r)
{
    return r->c->t->ctx;
}

/* The AP may react, unless the loop that lets it is the one serving this socket. */
static void settle(req *r)
{
    if (!(r->c->t->features & SIM_TARGET_REALTIME))
        T(r)->settle(TX(r));
}

static bool get_slot(req *r, unsigned *slot)
{
    gint64 v;
    unsigned n = T(r)->num_slots(TX(r));
    if (!get_int(r, "slot", 0, n - 1, &v))
        return false;
    *slot = (unsigned)v;
    return true;
}

/* The slot of a link command: a slot number, or "ap" for the AP bridge's own link. */
static bool get_link_slot(req *r, unsigned *slot)
{
    JsonNode *n = json_object_get_member(r->o, "slot");
    if (n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING) {
        if (strcmp(json_node_get_string(n), "ap"))
            return fail(r, "field 'slot' must be a slot number or \"ap\"");
        *slot = SIM_TARGET_SLOT_AP;
        return true;
    }
    return get_slot(r, slot);
}

typedef enum json_echo { JSON_ECHOABLE, JSON_NOT_UTF8, JSON_NOT_FINITE } json_echo;

/* Whether a parsed request could be echoed as JSON (the first problem found): every string,
 * member names included, is UTF-8 (json-glib decodes a lone \uD800..\uDFFF escape into
 * bytes that are not), and every number is finite (json-glib reads 1e400 as infinity, and
 * an id holding it made a reply that was not JSON: fuzz_control, finding 5). */
static json_echo json_echoable(JsonNode *n)
{
    if (JSON_NODE_HOLDS_VALUE(n)) {
        GType t = json_node_get_value_type(n);
        if (t == G_TYPE_STRING && !g_utf8_validate(json_node_get_string(n), -1, NULL))
            return JSON_NOT_UTF8;
        if (t == G_TYPE_DOUBLE && !isfinite(json_node_get_double(n)))
            return JSON_NOT_FINITE;
        return JSON_ECHOABLE;
    }
    json_echo e = JSON_ECHOABLE;
    if (JSON_NODE_HOLDS_ARRAY(n)) {
        JsonArray *a = json_node_get_array(n);
        for (guint i = 0; e == JSON_ECHOABLE && i < json_array_get_length(a); i++)
            e = json_echoable(json_array_get_element(a, i));
    } else if (JSON_NODE_HOLDS_OBJECT(n)) {
        JsonObjectIter it;
        const gchar *name;
        JsonNode *v;
        json_object_iter_init(&it, json_node_get_object(n));
        while (e == JSON_ECHOABLE && json_object_iter_next(&it, &name, &v))
            e = g_utf8_validate(name, -1, NULL) ? json_echoable(v) : JSON_NOT_UTF8;
    }
    return e;
}

/* ---- commands ---- */

static bool cmd_ping(req *r)
{
    add_bool(r, "pong", true);
    add_int(r, "time_ps", (gint64)T(r)->now(TX(r)));
    return true;
}

static void add_intf(req *r, uint8_t id)
{
    sim_target_intf v;
    T(r)->intf(TX(r), id, &v);
    vm_reply f;
    vm_reply_clear(&f);
    sim_fields_put(&sim_fields_intf, &v, &f);
    add_int(r, "interface", id);
    add_values(r, &f);
}

static bool cmd_status(req *r)
{
    sim_target_stats st;
    T(r)->stats(TX(r), &st);
    json_builder_set_member_name(r->b, "target");
    json_builder_add_string_value(r->b, r->c->t->name ? r->c->t->name : "");
    add_bool(r, "ap_connected", st.handshake_done);
    add_int(r, "time_ps", (gint64)T(r)->now(TX(r)));
    json_builder_set_member_name(r->b, "features");
    json_builder_begin_object(r->b);
    add_bool(r, "link_model", r->c->t->features & SIM_TARGET_LINK_MODEL);
    add_bool(r, "test_ap", r->c->t->features & SIM_TARGET_TEST_AP);
    add_bool(r, "guest", r->c->t->features & SIM_TARGET_GUEST);
    add_bool(r, "realtime", r->c->t->features & SIM_TARGET_REALTIME);
    add_bool(r, "lockstep", r->c->t->features & SIM_TARGET_LOCKSTEP);
    json_builder_end_object(r->b);
    json_builder_set_member_name(r->b, "slots");
    json_builder_begin_array(r->b);
    for (unsigned s = 0; s < T(r)->num_slots(TX(r)); s++) {
        json_builder_begin_object(r->b);
        add_int(r, "slot", s);
        add_intf(r, T(r)->slot_intf_id(TX(r), s));
        char name[128];
        json_builder_set_member_name(r->b, "module");
        if (T(r)->module_name(TX(r), s, name, sizeof name))
            json_builder_add_string_value(r->b, name);
        else
            json_builder_add_null_value(r->b);
        json_builder_end_object(r->b);
    }
    json_builder_end_array(r->b);
    return true;
}

static bool cmd_insert(req *r)
{
    unsigned slot;
    const char *module;
    if (!get_slot(r, &slot) || !get_str(r, "module", 255, &module))
        return false;
    char err[320] = "";
    int rc = T(r)->insert(TX(r), slot, module, err, sizeof err);
    if (rc)
        return fail(r, "cannot insert %s in slot %u: %s", module, slot,
                    *err ? err : strerror(-rc));
    settle(r);
    add_int(r, "interface", T(r)->slot_intf_id(TX(r), slot));
    return true;
}

static bool cmd_remove(req *r)
{
    unsigned slot;
    if (!get_slot(r, &slot))
        return false;
    char err[256] = "";
    int rc = T(r)->remove(TX(r), slot, err, sizeof err);
    if (rc)
        return refuse(r, rc, "cannot remove slot %u: %s", slot,
                      rc == -ENOENT ? "the slot is empty" : *err ? err : strerror(-rc));
    settle(r);
    return true;
}

static bool cmd_interface(req *r)
{
    gint64 id;
    if (!get_int(r, "interface", 0, 255, &id))
        return false;
    add_intf(r, (uint8_t)id);
    return true;
}

static bool cmd_stats(req *r)
{
    sim_target_stats st;
    T(r)->stats(TX(r), &st);
    vm_reply f;
    vm_reply_clear(&f);
    sim_fields_put(&sim_fields_stats, &st, &f);
    add_values(r, &f);
    return true;
}

/* {"cmd":"wait","ms":N}: lets N ms of the target's time pass. On a realtime target the
 * reply comes when they have: the loop serves everything meanwhile. */
static bool cmd_wait(req *r)
{
    gint64 ms;
    if (!get_int(r, "ms", 0, 3600000, &ms))
        return false;
    if ((r->c->t->features & SIM_TARGET_REALTIME) && r->cl) {
        r->cl->waiting = true;
        r->cl->until = T(r)->now(TX(r)) + SIM_MS(ms);
        JsonNode *id = json_object_get_member(r->o, "id");
        r->cl->wait_id = id ? json_node_copy(id) : NULL;
        r->deferred = true;
        return true;
    }
    T(r)->advance(TX(r), SIM_MS(ms));
    return true;
}

/* {"cmd":"drive","on":true|false}: on a lockstep target, the clock stands still while this
 * client is not in a wait (docs/control-protocol.md). */
static bool cmd_drive(req *r)
{
    bool on = true;
    JsonNode *n = json_object_get_member(r->o, "on");
    if (n) {
        if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN)
            return fail(r, "field 'on' must be true or false");
        on = json_node_get_boolean(n);
    }
    if (!(r->c->t->features & SIM_TARGET_LOCKSTEP))
        return fail(r, "drive needs a lockstep clock (gbvp sim --clock lockstep)");
    if (!r->cl)
        return fail(r, "drive needs a connection");
    r->cl->driving = on;
    if (on)
        r->c->held_until_driven = false;
    add_bool(r, "driving", on);
    add_int(r, "time_ps", (gint64)T(r)->now(TX(r)));
    return true;
}

/* A typed command's arguments from the request's members. */
static bool typed_args(req *r, const sim_typed_cmd *cmd, sim_typed_value *v, uint8_t bytes[][2048])
{
    for (int i = 0; i < SIM_TYPED_ARGS_MAX; i++)
        v[i] = (sim_typed_value){ 0 };
    for (int i = 0; i < SIM_TYPED_ARGS_MAX && cmd->args[i].name; i++) {
        const sim_typed_arg *a = &cmd->args[i];
        JsonNode *n = json_object_get_member(r->o, a->name);
        if (!n || JSON_NODE_HOLDS_NULL(n)) {
            if (!a->optional)
                return fail(r, "missing field '%s'", a->name);
            continue;
        }
        v[i].present = true;
        GType t = JSON_NODE_HOLDS_VALUE(n) ? json_node_get_value_type(n) : G_TYPE_INVALID;
        switch (a->kind) {
        case SIM_TYPED_LEVEL:
            if (t == G_TYPE_BOOLEAN) {
                v[i].i = json_node_get_boolean(n);
                break;
            }
            __attribute__((fallthrough)); /* else 0 or 1 */
        case SIM_TYPED_INT: {
            gint64 x;
            if (!get_int(r, a->name, a->min, a->max, &x))
                return false;
            v[i].i = x;
            break;
        }
        case SIM_TYPED_PROPERTY:
            if (t == G_TYPE_INT64) {
                gint64 x;
                if (!get_int(r, a->name, 0, 255, &x))
                    return false;
                v[i].i = x;
            } else if (t == G_TYPE_STRING) {
                v[i].text = json_node_get_string(n);
                if (strspn(v[i].text, "abcdefghijklmnopqrstuvwxyz0123456789-_") !=
                        strlen(v[i].text) || !*v[i].text)
                    return fail(r, "'%s' is not a power supply property", v[i].text);
            } else {
                return fail(r, "field '%s' must be a property name or number", a->name);
            }
            break;
        case SIM_TYPED_BYTES: {
            size_t len = 0;
            if (t == G_TYPE_STRING) {
                v[i].bytes = (const uint8_t *)json_node_get_string(n);
                len = strlen(json_node_get_string(n));
            } else if (JSON_NODE_HOLDS_ARRAY(n)) {
                JsonArray *arr = json_node_get_array(n);
                len = json_array_get_length(arr);
                if (len > sizeof bytes[i])
                    return fail(r, "field '%s' has %zu bytes, at most %lld", a->name, len,
                                (long long)a->max);
                for (size_t k = 0; k < len; k++) {
                    JsonNode *e = json_array_get_element(arr, (guint)k);
                    if (!JSON_NODE_HOLDS_VALUE(e) || json_node_get_value_type(e) != G_TYPE_INT64 ||
                        json_node_get_int(e) < 0 || json_node_get_int(e) > 255)
                        return fail(r, "%s byte %zu is not an integer 0..255", a->name, k);
                    bytes[i][k] = (uint8_t)json_node_get_int(e);
                }
                v[i].bytes = bytes[i];
            } else {
                return fail(r, "field '%s' must be a string or an array of bytes", a->name);
            }
            if (len < (size_t)a->min || len > (size_t)a->max)
                return fail(r, "field '%s' has %zu bytes, want %lld..%lld", a->name, len,
                            (long long)a->min, (long long)a->max);
            v[i].len = len;
            break;
        }
        }
    }
    return true;
}

/* A typed backend command (gbvp/target/typed.h): its values are the reply's members. */
static bool cmd_typed(req *r, const sim_typed_cmd *cmd)
{
    unsigned slot;
    sim_typed_value v[SIM_TYPED_ARGS_MAX];
    uint8_t(*bytes)[2048] = g_malloc(SIM_TYPED_ARGS_MAX * sizeof *bytes);
    bool ok = get_slot(r, &slot) && typed_args(r, cmd, v, bytes);
    if (ok) {
        vm_reply out;
        int rc = sim_typed_run(r->c->t, cmd, slot, v, &out);
        if (rc)
            ok = refuse(r, rc, "%s", out.text);
        else
            add_values(r, &out);
        if (!rc && cmd->settle)
            settle(r);
    }
    g_free(bytes);
    return ok;
}

/* {"cmd":"cmd","slot":N,"line":"gpio set 3 1"[,"index":I]}: a backend command line;
 * the reply has its text ("reply") and its values. */
static bool cmd_cmd(req *r)
{
    unsigned slot;
    const char *line;
    gint64 index;
    if (!get_slot(r, &slot) || !get_str(r, "line", 8192, &line) ||
        !opt_int(r, "index", SIM_TARGET_ANY_INTERFACE, SIM_TARGET_INTERFACES_MAX - 1, 0, &index))
        return false;
    if (strchr(line, '\n'))
        return fail(r, "field 'line' must be one line");
    vm_reply out;
    int rc = T(r)->command(TX(r), slot, (int)index, line, &out);
    if (rc)
        return refuse(r, rc, "%s", out.text);
    settle(r);
    json_builder_set_member_name(r->b, "reply");
    json_builder_add_string_value(r->b, g_utf8_validate(out.text, -1, NULL) ? out.text : "");
    add_values(r, &out);
    return true;
}

static bool no_link_model(req *r)
{
    return fail(r, "%s has no UniPro link model (run it with --timing frame): link settings "
                "and faults cannot be changed", r->c->t->name);
}

static bool has_link_model(req *r)
{
    return (r->c->t->features & SIM_TARGET_LINK_MODEL) != 0;
}

/* An optional string or integer member as text in buf; NULL when absent. */
static bool opt_text(req *r, const char *name, char *buf, size_t len, const char **out)
{
    *out = NULL;
    JsonNode *n = json_object_get_member(r->o, name);
    if (!n)
        return true;
    if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64)
        snprintf(buf, len, "%lld", (long long)json_node_get_int(n));
    else if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING &&
             strlen(json_node_get_string(n)) < len)
        snprintf(buf, len, "%s", json_node_get_string(n));
    else
        return fail(r, "field '%s' must be a short string or an integer", name);
    *out = buf;
    return true;
}

/* An optional number member; *have says whether it was there. */
static bool opt_number(req *r, const char *name, bool *have, double *out)
{
    JsonNode *n = json_object_get_member(r->o, name);
    *have = n != NULL;
    if (!n)
        return true;
    GType t = JSON_NODE_HOLDS_VALUE(n) ? json_node_get_value_type(n) : G_TYPE_INVALID;
    if (t == G_TYPE_INT64)
        *out = (double)json_node_get_int(n);
    else if (t == G_TYPE_DOUBLE)
        *out = json_node_get_double(n);
    else if (t == G_TYPE_STRING) { /* gbvp ctl sends ber=1e-6 as a string */
        const char *s = json_node_get_string(n);
        char *end;
        *out = strtod(s, &end);
        if (end == s || *end)
            return fail(r, "field '%s' is '%s', not a number", name, s);
    } else {
        return fail(r, "field '%s' must be a number", name);
    }
    return true;
}

/* {"cmd":"link","slot":N|"ap","gear":"HS-G2B","series":"A","lanes":2} */
static bool cmd_link(req *r)
{
    if (!has_link_model(r))
        return no_link_model(r);
    unsigned slot;
    char g[16], s[8], l[8];
    const char *gear, *series, *lanes;
    if (!get_link_slot(r, &slot) || !opt_text(r, "gear", g, sizeof g, &gear) ||
        !opt_text(r, "series", s, sizeof s, &series) ||
        !opt_text(r, "lanes", l, sizeof l, &lanes))
        return false;
    if (!gear && !series && !lanes)
        return fail(r, "nothing to change (give gear, series or lanes)");
    if (T(r)->link_set(TX(r), slot, gear, series, lanes, r->err, sizeof r->err))
        return false;
    settle(r);
    return true;
}

/* A time in milliseconds (0..3600000) of an optional field, as simulated picoseconds. */
static bool opt_ms(req *r, const char *name, sim_time *out)
{
    bool have;
    double ms = 0;
    if (!opt_number(r, name, &have, &ms))
        return false;
    if (have && !(ms >= 0 && ms <= 3600e3))
        return fail(r, "field '%s' is %g ms, want 0..3600000", name, ms);
    *out = have ? (sim_time)(ms * 1e9 + 0.5) : 0;
    return true;
}

/* {"cmd":"fault","slot":N|"ap","ber":1e-6,"drop":0.01,"down":true,"delay":ms,"down_for":ms} */
static bool cmd_fault(req *r)
{
    if (!has_link_model(r))
        return no_link_model(r);
    unsigned slot;
    sw_link_fault f = { 0 };
    if (!get_link_slot(r, &slot) || !opt_number(r, "ber", &f.set_ber, &f.ber) ||
        !opt_number(r, "drop", &f.set_drop, &f.drop) || !opt_ms(r, "delay", &f.delay) ||
        !opt_ms(r, "down_for", &f.down_for))
        return false;
    JsonNode *n = json_object_get_member(r->o, "down");
    if (n) {
        if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN)
            return fail(r, "field 'down' must be true or false");
        f.set_down = true;
        f.down = json_node_get_boolean(n);
    }
    if (!f.set_ber && !f.set_drop && !f.set_down)
        return fail(r, "nothing to do (give ber, drop or down)");
    if (T(r)->link_fault(TX(r), slot, &f, r->err, sizeof r->err))
        return false;
    return true;
}

/* {"cmd":"link_stats","slot":N|"ap"}: mode, state, faults and counters of the link */
static bool cmd_link_stats(req *r)
{
    if (!has_link_model(r))
        return no_link_model(r);
    unsigned slot;
    sim_target_link li;
    if (!get_link_slot(r, &slot))
        return false;
    if (T(r)->link_info(TX(r), slot, &li, r->err, sizeof r->err))
        return false;
    add_str(r, "mode", li.mode);
    add_str(r, "state", li.state);
    add_double(r, "ber", li.ber);
    add_double(r, "drop", li.drop);
    vm_reply f;
    vm_reply_clear(&f);
    sim_fields_put(&sim_fields_link, &li, &f);
    add_values(r, &f);
    return true;
}

static bool cmd_subscribe(req *r, bool on)
{
    if (!r->cl)
        return fail(r, "subscriptions need a socket connection");
    unsigned bits = 0;
    JsonNode *n = json_object_get_member(r->o, "events");
    if (!n) {
        bits = CTL_EV_ALL;
    } else if (!JSON_NODE_HOLDS_ARRAY(n)) {
        return fail(r, "field 'events' must be an array of names (module, link, interface, "
                    "assertion, log, all)");
    } else {
        JsonArray *a = json_node_get_array(n);
        for (guint i = 0; i < json_array_get_length(a); i++) {
            JsonNode *e = json_array_get_element(a, i);
            const char *s = JSON_NODE_HOLDS_VALUE(e) &&
                            json_node_get_value_type(e) == G_TYPE_STRING
                            ? json_node_get_string(e) : NULL;
            unsigned bit = s ? ctl_event_bit(s) : 0;
            if (!bit)
                return fail(r, "events[%u] is not one of module, link, interface, assertion, "
                            "log, all", i);
            bits |= bit;
        }
    }
    if (on)
        r->cl->events |= bits;
    else
        r->cl->events &= ~bits;
    add_int(r, "subscribed", r->cl->events);
    return true;
}

static bool cmd_sub(req *r)
{
    return cmd_subscribe(r, true);
}

static bool cmd_unsub(req *r)
{
    return cmd_subscribe(r, false);
}

/* {"cmd":"link_mode","interface":I}: tx and rx mode the AP last set */
static bool cmd_link_mode(req *r)
{
    gint64 id;
    uint8_t tx, rx;
    if (!get_int(r, "interface", 0, 255, &id))
        return false;
    if (T(r)->link_mode(TX(r), (uint8_t)id, &tx, &rx, r->err, sizeof r->err))
        return false;
    add_int(r, "tx_mode", tx);
    add_int(r, "rx_mode", rx);
    return true;
}

/* {"cmd":"intf_oops","interface":I[,"reason":R]}: the interface crashes */
static bool cmd_intf_oops(req *r)
{
    gint64 id, reason;
    if (!get_int(r, "interface", 0, 255, &id) || !opt_int(r, "reason", 0, 255, 0, &reason))
        return false;
    if (T(r)->intf_oops(TX(r), (uint8_t)id, (uint8_t)reason, r->err, sizeof r->err))
        return false;
    settle(r);
    return true;
}

/* {"cmd":WHAT,"file":PATH} starts a capture (pcapng) or a trace (timeline), replacing a
 * running one; {"cmd":WHAT,"stop":true} ends it (docs/tracing.md). */
static bool file_command(req *r, int (*op)(void *ctx, const char *path, char *err,
                                           size_t errlen), const char *state)
{
    const char *path = NULL;
    bool stop = json_object_has_member(r->o, "stop");
    if (stop) {
        JsonNode *n = json_object_get_member(r->o, "stop");
        if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN ||
            !json_node_get_boolean(n))
            return fail(r, "field 'stop' must be true");
        if (json_object_has_member(r->o, "file"))
            return fail(r, "give 'file' to start or 'stop' to end, not both");
    } else if (!get_str(r, "file", 255, &path)) {
        return false;
    }
    if (op(TX(r), path, r->err, sizeof r->err))
        return false;
    add_bool(r, state, !stop);
    return true;
}

static bool cmd_capture(req *r)
{
    return file_command(r, T(r)->capture, "capturing");
}

static bool cmd_trace(req *r)
{
    return file_command(r, T(r)->trace, "tracing");
}

static const struct {
    const char *name;
    bool (*fn)(req *r);
} commands[] = {
    { "ping", cmd_ping },           { "status", cmd_status },
    { "insert", cmd_insert },       { "remove", cmd_remove },
    { "interface", cmd_interface }, { "stats", cmd_stats },
    { "wait", cmd_wait },           { "link", cmd_link },
    { "link_stats", cmd_link_stats }, { "link_mode", cmd_link_mode },
    { "intf_oops", cmd_intf_oops }, { "cmd", cmd_cmd },
    { "fault", cmd_fault },         { "subscribe", cmd_sub },
    { "unsubscribe", cmd_unsub },   { "capture", cmd_capture },
    { "trace", cmd_trace },         { "drive", cmd_drive },
};

/* Where the number token starting at s[i] ends. */
static size_t number_end(const char *s, size_t len, size_t i)
{
    while (i < len && strchr("0123456789+-.eE", s[i]))
        i++;
    return i;
}

/* Whether a number token is an integer (no fraction, no exponent) outside int64: json-glib
 * reads it wrapped round, without a word (-18446744073709551615 as 1, 2^63 as -2^63), so a
 * field would take a value the client never wrote. */
static bool integer_out_of_range(const char *tok, size_t n)
{
    if (memchr(tok, '.', n) || memchr(tok, 'e', n) || memchr(tok, 'E', n))
        return false;
    char buf[32];
    if (n >= sizeof buf)
        return true; /* more digits than any int64 has (JSON allows no leading zeros) */
    memcpy(buf, tok, n);
    buf[n] = '\0';
    errno = 0;
    (void)strtoll(buf, NULL, 10);
    return errno == ERANGE;
}

/* The shape of a request line, before json-glib parses it. `single`: one JSON value and
 * nothing after it but white space (json-glib alone accepts "{...} {...}"); only objects
 * and arrays are scanned, anything else is refused later as not an object. `missing`: the
 * '"', '}' or ']' a line that stops too early leaves open, else 0; json-glib's message
 * would name whatever token came last (e.g. "invalid string constant" for
 * `{"cmd": "status"`), so the reply says what is missing instead. `nul`: a string holds
 * the escape \u0000. `huge`: an integer is out of the 64-bit range. */
static void scan_line(const char *s, size_t len, bool *single, char *missing, bool *nul,
                      bool *huge)
{
    *single = true;
    *missing = 0;
    *nul = false;
    *huge = false;
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", s[i]))
        i++;
    if (i == len || (s[i] != '{' && s[i] != '['))
        return;
    char open[64]; /* the closers expected, as deep as any request goes */
    size_t depth = 0;
    bool in_str = false, matched = true;
    for (; i < len; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\') {
                /* \u0000: json-glib's strings are C strings, which would end there */
                if (len - i >= 6 && !memcmp(s + i + 1, "u0000", 5))
                    *nul = true;
                i++;
            } else if (ch == '"') {
                in_str = false;
            }
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            size_t end = number_end(s, len, i);
            if (integer_out_of_range(s + i, end - i))
                *huge = true;
            i = end - 1;
        } else if (ch == '{' || ch == '[') {
            if (depth < sizeof open)
                open[depth] = ch == '{' ? '}' : ']';
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (depth <= sizeof open && open[depth - 1] != ch)
                matched = false; /* a wrong closer, not a missing one: the parser names it */
            if (--depth == 0)
                break;
        }
    }
    if (i < len) { /* the first value closed: only white space may follow */
        for (i++; i < len; i++)
            if (!strchr(" \t\r\n", s[i]))
                *single = false;
        return;
    }
    if (matched)
        *missing = in_str ? '"' : depth <= sizeof open ? open[depth - 1] : 0;
}

char *ctl_wait_done(JsonNode *id)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    if (id) {
        json_builder_set_member_name(b, "id");
        json_builder_add_value(b, json_node_copy(id));
    }
    json_builder_set_member_name(b, "ok");
    json_builder_add_boolean_value(b, TRUE);
    json_builder_end_object(b);
    JsonNode *root = json_builder_get_root(b);
    char *s = root ? json_to_string(root, FALSE) : NULL;
    if (root)
        json_node_unref(root);
    g_object_unref(b);
    return s;
}

char *ctl_handle(sim_ctl *c, ctl_client *cl, const char *line, size_t len)
{
    req r = { .c = c, .cl = cl };
    JsonParser *p = json_parser_new();
    r.b = json_builder_new();
    json_builder_begin_object(r.b);
    bool ok = false, single = true, nul = false, huge = false;
    char missing = 0;
    json_echo echo;
    JsonNode *id = NULL;
    if (len <= SIM_CTL_MAX_LINE)
        scan_line(line, len, &single, &missing, &nul, &huge);
    if (len > SIM_CTL_MAX_LINE) {
        fail(&r, "request line longer than %u bytes", SIM_CTL_MAX_LINE);
    } else if (memchr(line, 0, len) || !g_utf8_validate(line, (gssize)len, NULL)) {
        fail(&r, "request is not UTF-8 text");
    } else if (!single) {
        fail(&r, "request is not JSON: more than one value on the line");
    } else if (huge) {
        /* json-glib would read it wrapped round: refused whole, its id not echoed */
        fail(&r, "request holds an integer out of the 64-bit range "
                 "(-9223372036854775808..9223372036854775807)");
    } else if (nul) {
        /* "sensor\u0000junk" would insert a sensor: refused whole, its id not echoed */
        fail(&r, "request holds a string with a NUL character (\\u0000), where its text "
                 "would end");
    } else {
        GError *e = NULL;
        if (!json_parser_load_from_data(p, line, (gssize)len, &e) && missing) {
            fail(&r, "request is not JSON: the line ends before its closing '%c'", missing);
            g_clear_error(&e);
        } else if (e) {
            /* json-glib quotes the offending token as it decoded it: a lone surrogate
             * escape becomes bytes that are not UTF-8 (U+FFFD stands in for them) */
            char *why = g_utf8_make_valid(e->message, -1);
            fail(&r, "request is not JSON: %s", why);
            g_free(why);
            g_clear_error(&e);
        } else if (!json_parser_get_root(p) || !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(p))) {
            fail(&r, "request must be a JSON object");
        } else if ((echo = json_echoable(json_parser_get_root(p))) == JSON_NOT_UTF8) {
            /* json-glib decodes a lone \uD800..\uDFFF escape into bytes that are not UTF-8;
             * nothing of such a request is used, nor echoed (its id included) */
            fail(&r, "request holds a string that is not valid UTF-8 (a lone surrogate "
                 "escape such as \\ud800?)");
        } else if (echo == JSON_NOT_FINITE) {
            /* likewise refused whole, its id not echoed */
            fail(&r, "request holds a number out of the range of a double (such as 1e400)");
        } else {
            r.o = json_node_get_object(json_parser_get_root(p));
            id = json_object_get_member(r.o, "id");
            const char *cmd;
            if (get_str(&r, "cmd", 64, &cmd)) {
                size_t i;
                for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
                    if (!strcmp(commands[i].name, cmd))
                        break;
                const sim_typed_cmd *typed = sim_typed_find(cmd);
                if (i < sizeof commands / sizeof commands[0])
                    ok = commands[i].fn(&r);
                else if (typed)
                    ok = cmd_typed(&r, typed);
                else
                    fail(&r, "unknown command '%s'", cmd);
            }
        }
    }
    /* The reply: id first when the request had one, then ok and (error | results). The
     * results were added already; JSON objects are unordered, so id/ok go last here. */
    if (id) {
        json_builder_set_member_name(r.b, "id");
        json_builder_add_value(r.b, json_node_copy(id));
    }
    add_bool(&r, "ok", ok);
    if (!ok) {
        json_builder_set_member_name(r.b, "error");
        json_builder_add_string_value(r.b, r.err[0] ? r.err : "failed");
    }
    json_builder_end_object(r.b);
    JsonNode *root = json_builder_get_root(r.b);
    char *s = r.deferred ? g_strdup("") : root ? json_to_string(root, FALSE) : NULL;
    if (root)
        json_node_unref(root);
    g_object_unref(r.b);
    g_object_unref(p);
    return s;
}
