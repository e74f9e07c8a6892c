// SPDX-License-Identifier: MIT
// The control socket's commands: one JSON object in, one JSON object out. Every field is
// checked for presence, type and range before anything is done; the reply names the
// field that is wrong.
#include "gbvp/ctl/ctl_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbvp/scenario/scenario.h"
#include "gbvp/fields.h"
#include "gbvp/slot_backend.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/hid.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/uart.h"

typedef struct req {
    sim_control *c;
    ctl_client *cl;
    JsonObject *o;
    JsonBuilder *b; /* the reply, opened; commands add members */
    char err[384];
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

static void add_field(void *r, const char *name, sim_field_kind kind, int64_t v)
{
    if (kind == SIM_FIELD_BOOL)
        add_bool(r, name, v != 0);
    else
        add_int(r, name, v);
}

/* The fields of `set` read from `obj` (gbvp/fields.h) as members of the reply. */
static void add_fields(req *r, const sim_fields *set, const void *obj)
{
    sim_fields_each(set, obj, add_field, r);
}

static bool get_slot(req *r, unsigned *slot)
{
    gint64 v;
    unsigned n = gb_svc_num_slots(r->c->b.svc(r->c->b.ctx));
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
        *slot = GB_SVC_SLOT_AP;
        return true;
    }
    return get_slot(r, slot);
}

/* ---- commands ---- */

static bool cmd_ping(req *r)
{
    add_bool(r, "pong", true);
    return true;
}

static void add_intf(req *r, gb_svc *svc, uint8_t id)
{
    gb_svc_intf_info in;
    gb_svc_get_intf(svc, id, &in);
    add_int(r, "interface", id);
    add_bool(r, "present", in.present);
    add_bool(r, "powered", in.vsys);
    add_bool(r, "active", in.active);
    add_bool(r, "hibernated", in.hibernated);
    add_int(r, "device_id", in.device_id);
    add_int(r, "activations", in.activations);
}

static bool cmd_status(req *r)
{
    gb_svc *svc = r->c->b.svc(r->c->b.ctx);
    gb_slots *slots = r->c->b.slots ? r->c->b.slots(r->c->b.ctx) : NULL;
    json_builder_set_member_name(r->b, "backend");
    json_builder_add_string_value(r->b, r->c->b.name ? r->c->b.name : "");
    add_bool(r, "ap_connected", gb_svc_handshake_done(svc));
    add_int(r, "time_ps", (gint64)gb_svc_now(svc));
    json_builder_set_member_name(r->b, "slots");
    json_builder_begin_array(r->b);
    for (unsigned s = 0; s < gb_svc_num_slots(svc); s++) {
        json_builder_begin_object(r->b);
        add_int(r, "slot", s);
        add_intf(r, svc, gb_svc_slot_intf_id(svc, s));
        const char *name = slots ? gb_slots_module_name(slots, s) : NULL;
        json_builder_set_member_name(r->b, "module");
        if (name)
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
    char err[256] = "";
    int rc = r->c->b.insert(r->c->b.ctx, slot, module, err, sizeof err);
    if (rc)
        return fail(r, "cannot insert %s in slot %u: %s", module, slot,
                    *err ? err : strerror(-rc));
    add_int(r, "interface", gb_svc_slot_intf_id(r->c->b.svc(r->c->b.ctx), slot));
    return true;
}

static bool cmd_remove(req *r)
{
    unsigned slot;
    if (!get_slot(r, &slot))
        return false;
    char err[256] = "";
    int rc = r->c->b.remove(r->c->b.ctx, slot, err, sizeof err);
    if (rc)
        return fail(r, "cannot remove slot %u: %s", slot, *err ? err : strerror(-rc));
    return true;
}

static bool cmd_interface(req *r)
{
    gint64 id;
    if (!get_int(r, "interface", 0, 255, &id))
        return false;
    add_intf(r, r->c->b.svc(r->c->b.ctx), (uint8_t)id);
    return true;
}

static bool cmd_stats(req *r)
{
    sim_svc_report rep;
    sim_svc_report_take(r->c->b.svc(r->c->b.ctx), &rep);
    add_fields(r, &sim_fields_svc_counters, &rep);
    return true;
}

static bool cmd_wait(req *r)
{
    gint64 ms;
    if (!r->c->b.advance)
        return fail(r, "wait: %s runs in real time; simulated time cannot be advanced",
                    r->c->b.name);
    if (!get_int(r, "ms", 0, 3600000, &ms))
        return false;
    r->c->b.advance(r->c->b.ctx, SIM_MS(ms));
    return true;
}

/* The first backend of a kind in the module in `slot`; `what` names it in errors. */
static void *backend(req *r, unsigned slot, sim_backend_kind kind, const char *what)
{
    if (!r->c->b.slots) {
        fail(r, "%s: not available in %s (the simulator does not expose its modules' "
             "backends to the control socket yet)", what, r->c->b.name);
        return NULL;
    }
    gb_slots *slots = r->c->b.slots(r->c->b.ctx);
    int why;
    void *b = sim_slot_backend(slots, slot, kind, &why);
    if (!b && why == -ENOENT)
        fail(r, "slot %u is empty: no %s", slot, what);
    else if (!b)
        fail(r, "the module in slot %u (%s) has no %s", slot,
             gb_slots_module_name(slots, slot), what);
    return b;
}

static bool cmd_gpio_set(req *r)
{
    unsigned slot;
    gint64 line, level;
    if (!get_slot(r, &slot))
        return false;
    vm_gpio *g = backend(r, slot, SIM_BACKEND_GPIO, "GPIO controller");
    if (!g || !get_int(r, "line", 0, vm_gpio_line_count(g) - 1, &line) ||
        !get_int(r, "level", 0, 1, &level))
        return false;
    int rc = vm_gpio_set_input(g, (unsigned)line, level != 0);
    if (rc == -ENOTCONN)
        return fail(r, "an interrupt was due on line %lld but the AP has not connected the "
                    "GPIO CPort", (long long)line);
    add_bool(r, "irq_sent", rc == 1);
    return true;
}

static bool cmd_gpio_get(req *r)
{
    unsigned slot;
    gint64 line;
    if (!get_slot(r, &slot))
        return false;
    vm_gpio *g = backend(r, slot, SIM_BACKEND_GPIO, "GPIO controller");
    if (!g || !get_int(r, "line", 0, vm_gpio_line_count(g) - 1, &line))
        return false;
    vm_gpio_line st;
    vm_gpio_get_line(g, (unsigned)line, &st);
    add_int(r, "value", vm_gpio_get_value(g, (unsigned)line));
    add_fields(r, &sim_fields_gpio_line, &st);
    return true;
}

static bool psy_prop(req *r, uint8_t *prop)
{
    const char *name;
    if (!get_str(r, "property", 64, &name))
        return false;
    int p = vm_power_supply_property_by_name(name);
    if (p < 0)
        return fail(r, "'%s' is not a power supply property", name);
    *prop = (uint8_t)p;
    return true;
}

static bool cmd_battery_set(req *r)
{
    unsigned slot;
    uint8_t prop;
    gint64 value, psy;
    if (!get_slot(r, &slot))
        return false;
    vm_power_supply *ps = backend(r, slot, SIM_BACKEND_POWER_SUPPLY, "battery");
    if (!ps || !psy_prop(r, &prop) || !get_int(r, "value", INT32_MIN, INT32_MAX, &value) ||
        !opt_int(r, "supply", 0, vm_power_supply_count(ps) - 1, 0, &psy))
        return false;
    int rc = vm_power_supply_set(ps, (unsigned)psy, prop, (int32_t)value, true);
    if (rc == -EINVAL)
        return fail(r, "the supply does not report that property");
    add_bool(r, "notified", rc == 0);
    return true;
}

static bool cmd_battery_get(req *r)
{
    unsigned slot;
    uint8_t prop;
    gint64 psy;
    if (!get_slot(r, &slot))
        return false;
    vm_power_supply *ps = backend(r, slot, SIM_BACKEND_POWER_SUPPLY, "battery");
    if (!ps || !psy_prop(r, &prop) ||
        !opt_int(r, "supply", 0, vm_power_supply_count(ps) - 1, 0, &psy))
        return false;
    int32_t v;
    if (vm_power_supply_get(ps, (unsigned)psy, prop, &v))
        return fail(r, "the supply does not report that property");
    add_int(r, "value", v);
    return true;
}

static bool cmd_uart_send(req *r)
{
    unsigned slot;
    const char *data;
    if (!get_slot(r, &slot))
        return false;
    vm_uart *u = backend(r, slot, SIM_BACKEND_UART, "UART");
    if (!u || !get_str(r, "data", 8192, &data))
        return false;
    int rc = vm_uart_inject_rx(u, (const uint8_t *)data, strlen(data), 0);
    if (rc)
        return fail(r, "data not sent: the AP has not connected the UART CPort");
    return true;
}

static bool cmd_hid_input(req *r)
{
    unsigned slot;
    if (!get_slot(r, &slot))
        return false;
    vm_hid *h = backend(r, slot, SIM_BACKEND_HID, "HID device");
    if (!h)
        return false;
    JsonNode *n = json_object_get_member(r->o, "report");
    if (!n || !JSON_NODE_HOLDS_ARRAY(n))
        return fail(r, "field 'report' must be an array of bytes");
    JsonArray *a = json_node_get_array(n);
    guint len = json_array_get_length(a);
    uint8_t buf[VM_HID_MAX_REPORT];
    if (len > sizeof buf)
        return fail(r, "field 'report' has %u bytes, at most %u", len, VM_HID_MAX_REPORT);
    for (guint i = 0; i < len; i++) {
        JsonNode *e = json_array_get_element(a, i);
        if (!JSON_NODE_HOLDS_VALUE(e) || json_node_get_value_type(e) != G_TYPE_INT64 ||
            json_node_get_int(e) < 0 || json_node_get_int(e) > 255)
            return fail(r, "report byte %u is not an integer 0..255", i);
        buf[i] = (uint8_t)json_node_get_int(e);
    }
    int rc = vm_hid_input_report(h, buf, len);
    if (rc == -EINVAL)
        return fail(r, "the report has the wrong size for the device");
    if (rc)
        return fail(r, "report not sent: %s", rc == -EAGAIN ? "the AP has not powered the "
                    "device on" : "the AP has not connected the HID CPort");
    return true;
}

static bool cmd_cmd(req *r)
{
    unsigned slot;
    const char *line;
    gint64 index;
    if (!r->c->b.command)
        return fail(r, "%s has no backend commands", r->c->b.name);
    if (!get_slot(r, &slot) || !get_str(r, "line", 512, &line) ||
        !opt_int(r, "index", 0, SIM_MAX_INTF_PER_MODULE - 1, 0, &index))
        return false;
    if (strchr(line, '\n'))
        return fail(r, "field 'line' must be one line");
    char reply[1024];
    if (r->c->b.command(r->c->b.ctx, slot, (unsigned)index, line, reply, sizeof reply))
        return fail(r, "%s", reply);
    json_builder_set_member_name(r->b, "reply");
    json_builder_add_string_value(r->b, reply);
    return true;
}

static bool no_link_model(req *r)
{
    return fail(r, "%s has no UniPro link model (run it with --timing frame): link settings "
                "and faults cannot be changed", r->c->b.name);
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
    if (!r->c->b.link_set)
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
    if (r->c->b.link_set(r->c->b.ctx, slot, gear, series, lanes, r->err, sizeof r->err))
        return false;
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
    if (!r->c->b.link_fault)
        return no_link_model(r);
    unsigned slot;
    sim_link_fault f = { 0 };
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
    if (r->c->b.link_fault(r->c->b.ctx, slot, &f, r->err, sizeof r->err))
        return false;
    return true;
}

/* {"cmd":"link_stats","slot":N|"ap"}: mode, state, faults and counters of the link */
static bool cmd_link_stats(req *r)
{
    if (!r->c->b.link_info)
        return no_link_model(r);
    unsigned slot;
    sim_scenario_link li;
    if (!get_link_slot(r, &slot))
        return false;
    if (r->c->b.link_info(r->c->b.ctx, slot, &li, r->err, sizeof r->err))
        return false;
    add_str(r, "mode", li.mode);
    add_str(r, "state", li.state);
    add_double(r, "ber", li.ber);
    add_double(r, "drop", li.drop);
    add_fields(r, &sim_fields_link_counters, &li);
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

static const struct {
    const char *name;
    bool (*fn)(req *r);
} commands[] = {
    { "ping", cmd_ping },           { "status", cmd_status },
    { "insert", cmd_insert },       { "remove", cmd_remove },
    { "interface", cmd_interface }, { "stats", cmd_stats },
    { "wait", cmd_wait },           { "gpio_set", cmd_gpio_set },
    { "gpio_get", cmd_gpio_get },   { "battery_set", cmd_battery_set },
    { "battery_get", cmd_battery_get }, { "uart_send", cmd_uart_send },
    { "hid_input", cmd_hid_input }, { "link", cmd_link },
    { "link_stats", cmd_link_stats },
    { "cmd", cmd_cmd },
    { "fault", cmd_fault },          { "subscribe", cmd_sub },
    { "unsubscribe", cmd_unsub },
};

/* One JSON value and nothing after it but white space (json-glib alone accepts
 * "{...} {...}"). Only objects and arrays are scanned; anything else is refused later as
 * not an object. */
static bool single_value(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", s[i]))
        i++;
    if (i == len || (s[i] != '{' && s[i] != '['))
        return true;
    unsigned depth = 0;
    bool in_str = false;
    for (; i < len; i++) {
        char ch = s[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (depth && --depth == 0)
                break;
        }
    }
    for (i++; i < len; i++)
        if (!strchr(" \t\r\n", s[i]))
            return false;
    return true;
}

char *ctl_handle(sim_control *c, ctl_client *cl, const char *line, size_t len)
{
    req r = { .c = c, .cl = cl };
    JsonParser *p = json_parser_new();
    r.b = json_builder_new();
    json_builder_begin_object(r.b);
    bool ok = false;
    JsonNode *id = NULL;
    if (len > SIM_CONTROL_MAX_LINE) {
        fail(&r, "request line longer than %u bytes", SIM_CONTROL_MAX_LINE);
    } else if (memchr(line, 0, len) || !g_utf8_validate(line, (gssize)len, NULL)) {
        fail(&r, "request is not UTF-8 text");
    } else if (!single_value(line, len)) {
        fail(&r, "request is not JSON: more than one value on the line");
    } else {
        GError *e = NULL;
        if (!json_parser_load_from_data(p, line, (gssize)len, &e)) {
            fail(&r, "request is not JSON: %s", e ? e->message : "?");
            g_clear_error(&e);
        } else if (!json_parser_get_root(p) || !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(p))) {
            fail(&r, "request must be a JSON object");
        } else {
            r.o = json_node_get_object(json_parser_get_root(p));
            id = json_object_get_member(r.o, "id");
            const char *cmd;
            if (get_str(&r, "cmd", 64, &cmd)) {
                size_t i;
                for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
                    if (!strcmp(commands[i].name, cmd))
                        break;
                if (i == sizeof commands / sizeof commands[0])
                    fail(&r, "unknown command '%s'", cmd);
                else
                    ok = commands[i].fn(&r);
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
    char *s = root ? json_to_string(root, FALSE) : NULL;
    if (root)
        json_node_unref(root);
    g_object_unref(r.b);
    g_object_unref(p);
    return s;
}
