// SPDX-License-Identifier: MIT
// The `gbvp` table scenarios call (docs/scenarios.md): modules in slots, simulated time and
// conditions, the AP's view of interfaces, backends (GPIO, battery, HID, UART, I2C), the
// guest agent, checks, statistics and the seeded generator. Every argument is checked; a
// bad one raises an error naming the script line.
#include "gbvp/scenario/scenario_internal.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gbvp/agent/agent_client.h"
#include "gbvp/fields.h"
#include "gbvp/slot_backend.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/hid.h"
#include "virtual-modules/i2c.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/uart.h"
#include "virtual-modules/vm_module.h"

#define MAX_WAIT_MS (24.0 * 3600 * 1000)

static sim_scenario *SC(lua_State *L)
{
    return sc_from_lua(L);
}

static const char *where(lua_State *L, char *buf, size_t len)
{
    luaL_where(L, 1);
    snprintf(buf, len, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == ' ' || buf[n - 1] == ':'))
        buf[--n] = 0;
    return buf;
}

/* Interfaces that became active since the last look: ACTIVATED events. */
static void notice_activations(sim_scenario *sc)
{
    if (!sc->cfg.event)
        return;
    gb_svc *svc = sc->t.svc(sc->t.ctx);
    for (unsigned s = 0; s < gb_svc_num_slots(svc); s++) {
        uint8_t id = gb_svc_slot_intf_id(svc, s);
        sim_scenario_intf v;
        sc->t.intf(sc->t.ctx, id, &v);
        bool was = sc->active_seen[id / 64] >> (id % 64) & 1;
        if (v.active && !was)
            sc_emit(sc, SIM_SCENARIO_EV_ACTIVATED, id, NULL);
        if (v.active)
            sc->active_seen[id / 64] |= 1ull << (id % 64);
        else
            sc->active_seen[id / 64] &= ~(1ull << (id % 64));
    }
}

/* After anything that let the AP run: raise an error the step hook kept. */
static void after_run(lua_State *L, sim_scenario *sc)
{
    notice_activations(sc);
    if (sc->cfg.poll)
        sc->cfg.poll(sc->cfg.poll_ctx);
    if (sc->hook_error) {
        lua_pushstring(L, sc->hook_error);
        free(sc->hook_error);
        sc->hook_error = NULL;
        lua_error(L);
    }
}

static void settle(lua_State *L, sim_scenario *sc)
{
    sc->t.settle(sc->t.ctx);
    after_run(L, sc);
}

static unsigned check_slot(lua_State *L, int arg)
{
    sim_scenario *sc = SC(L);
    lua_Integer slot = luaL_checkinteger(L, arg);
    unsigned n = gb_svc_num_slots(sc->t.svc(sc->t.ctx));
    if (slot < 0 || slot >= (lua_Integer)n)
        sc_error(L, "slot %d does not exist (the frame has slots 0..%u)", (int)slot, n - 1);
    return (unsigned)slot;
}

static uint8_t check_intf_id(lua_State *L, int arg)
{
    lua_Integer id = luaL_checkinteger(L, arg);
    if (id < 0 || id > 255)
        sc_error(L, "interface id %d is out of range (0..255)", (int)id);
    return (uint8_t)id;
}

/* ---- modules ---- */

static vm_module *load_module(sim_scenario *sc, const char *spec, char *err, size_t errlen)
{
    const char *slash = strrchr(spec, '/');
    size_t sl = strlen(spec);
    bool is_file = slash || (sl > 5 && !strcmp(spec + sl - 5, ".mnfs"));
    if (!is_file)
        return vm_module_load(sc->cfg.catalog_dir, spec, err, errlen);
    char dir[512], name[256];
    const char *base = slash ? slash + 1 : spec;
    size_t dl = slash ? (size_t)(slash - spec) : 1;
    size_t bl = strlen(base);
    if (bl > 5 && !strcmp(base + bl - 5, ".mnfs"))
        bl -= 5;
    if (dl >= sizeof dir || bl == 0 || bl >= sizeof name) {
        snprintf(err, errlen, "'%s' is not a usable module path", spec);
        return NULL;
    }
    memcpy(dir, slash ? spec : ".", dl);
    dir[dl] = 0;
    if (slash && dl == 0)
        snprintf(dir, sizeof dir, "/");
    memcpy(name, base, bl);
    name[bl] = 0;
    return vm_module_load(dir, name, err, errlen);
}

/* gbvp.insert(slot, module [, {settle=false}]) -> interface id */
static int l_insert(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    const char *spec = luaL_checkstring(L, 2);
    bool do_settle = true;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "settle");
        if (!lua_isnil(L, -1))
            do_settle = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    char err[320] = "";
    int rc;
    if (sc->t.insert) {
        rc = sc->t.insert(sc->t.ctx, slot, spec, err, sizeof err);
    } else {
        vm_module *m = load_module(sc, spec, err, sizeof err);
        if (!m)
            return sc_error(L, "gbvp.insert: %s", err);
        rc = gb_slots_insert(sc->t.slots(sc->t.ctx), slot, m, sc->t.now(sc->t.ctx), err,
                             sizeof err);
        vm_module_free(m);
    }
    if (rc)
        return sc_error(L, "gbvp.insert(%d, '%s'): %s", (int)slot, spec, err);
    sc_emit(sc, SIM_SCENARIO_EV_INSERTED, slot, spec);
    if (do_settle)
        settle(L, sc);
    lua_pushinteger(L, gb_svc_slot_intf_id(sc->t.svc(sc->t.ctx), slot));
    return 1;
}

/* gbvp.remove(slot) */
static int l_remove(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    int rc = sc->t.remove ? sc->t.remove(sc->t.ctx, slot)
                          : gb_slots_remove(sc->t.slots(sc->t.ctx), slot, sc->t.now(sc->t.ctx));
    if (rc == -ENOENT)
        return sc_error(L, "gbvp.remove(%d): the slot is empty", (int)slot);
    sc_emit(sc, SIM_SCENARIO_EV_REMOVED, slot, NULL);
    settle(L, sc);
    return 0;
}

/* gbvp.module(slot) -> name or nil */
static int l_module(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    const char *n = sc->t.module_name ? sc->t.module_name(sc->t.ctx, slot)
                                      : gb_slots_module_name(sc->t.slots(sc->t.ctx), slot);
    if (n)
        lua_pushstring(L, n);
    else
        lua_pushnil(L);
    return 1;
}

/* gbvp.slot_interface(slot) -> interface id of the slot */
static int l_slot_interface(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    lua_pushinteger(L, gb_svc_slot_intf_id(sc->t.svc(sc->t.ctx), slot));
    return 1;
}

/* ---- time ---- */

static double check_ms(lua_State *L, int arg, const char *what)
{
    lua_Number ms = luaL_checknumber(L, arg);
    if (!(ms >= 0 && ms <= MAX_WAIT_MS))
        sc_error(L, "%s: %f ms is not a duration (0 .. 24 h)", what, (double)ms);
    return (double)ms;
}

static sim_time ms_to_time(double ms)
{
    return (sim_time)(ms * 1e9);
}

/* gbvp.wait(ms) */
static int l_wait(lua_State *L)
{
    sim_scenario *sc = SC(L);
    double ms = check_ms(L, 1, "gbvp.wait");
    sc->t.advance(sc->t.ctx, ms_to_time(ms));
    after_run(L, sc);
    return 0;
}

/* gbvp.now() -> simulated milliseconds */
static int l_now(lua_State *L)
{
    sim_scenario *sc = SC(L);
    lua_pushnumber(L, (lua_Number)sc->t.now(sc->t.ctx) / 1e9);
    return 1;
}

/* gbvp.wait_for(fn, timeout_ms [, step_ms]) -> ms waited; an error when the time is up */
static int l_wait_for(lua_State *L)
{
    sim_scenario *sc = SC(L);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    double timeout = check_ms(L, 2, "gbvp.wait_for timeout");
    double step = luaL_optnumber(L, 3, 10);
    if (!(step > 0 && step <= MAX_WAIT_MS))
        return sc_error(L, "gbvp.wait_for: step %f ms must be above 0", step);
    char at[256];
    where(L, at, sizeof at);
    double waited = 0;
    for (;;) {
        lua_pushvalue(L, 1);
        lua_call(L, 0, 1);
        bool ok = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (ok) {
            lua_pushnumber(L, waited);
            return 1;
        }
        if (waited >= timeout)
            return sc_error(L, "gbvp.wait_for: condition still false after %.0f ms of "
                              "simulated time", timeout);
        double d = step < timeout - waited ? step : timeout - waited;
        sc->t.advance(sc->t.ctx, ms_to_time(d));
        after_run(L, sc);
        waited += d;
    }
}

/* ---- the AP's view ---- */

static const char *intf_state_name(const sim_scenario_intf *v)
{
    if (!v->known)
        return "absent";
    if (!v->active)
        return "detected";
    if (v->suspended)
        return "suspended";
    return "activated";
}

/* gbvp.interface_state(id) -> "absent" | "detected" | "activated" | "suspended" */
static int l_interface_state(lua_State *L)
{
    sim_scenario *sc = SC(L);
    sim_scenario_intf v;
    sc->t.intf(sc->t.ctx, check_intf_id(L, 1), &v);
    lua_pushstring(L, intf_state_name(&v));
    return 1;
}

static void set_bool(lua_State *L, const char *k, bool v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void set_field(void *L, const char *k, sim_field_kind kind, int64_t v)
{
    if (kind == SIM_FIELD_BOOL)
        set_bool(L, k, v != 0);
    else
        set_int(L, k, (lua_Integer)v);
}

/* The fields of `set` read from `obj` (gbvp/fields.h) into the table on top. */
static void set_fields(lua_State *L, const sim_fields *set, const void *obj)
{
    sim_fields_each(set, obj, set_field, L);
}

/* A new table with the fields of `set` read from `obj`; returns 1 (the table). */
static int push_fields(lua_State *L, const sim_fields *set, const void *obj)
{
    lua_createtable(L, 0, (int)sim_fields_count(set));
    set_fields(L, set, obj);
    return 1;
}

/* gbvp.interface(id) -> { state, known, active, enabled, suspended, device_id, ... } */
static int l_interface(lua_State *L)
{
    sim_scenario *sc = SC(L);
    sim_scenario_intf v;
    uint8_t id = check_intf_id(L, 1);
    sc->t.intf(sc->t.ctx, id, &v);
    lua_createtable(L, 0, 10);
    lua_pushstring(L, intf_state_name(&v));
    lua_setfield(L, -2, "state");
    set_fields(L, &sim_fields_scenario_intf, &v);
    gb_svc_intf_info in;
    if (gb_svc_get_intf(sc->t.svc(sc->t.ctx), id, &in)) {
        set_bool(L, "present", in.present);
        set_bool(L, "powered", in.vsys);
        set_int(L, "activations", in.activations);
    }
    return 1;
}

/* ---- backends ---- */

/* The first backend of a kind among the interfaces of the module in the slot given as
 * argument 1; `what` names it in errors. */
static void *backend(lua_State *L, sim_backend_kind kind, const char *what)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    if (!sc->t.slots)
        sc_error(L, "target %s does not expose its modules' backends: no %s to drive here",
                 sc->t.name, what);
    gb_slots *slots = sc->t.slots(sc->t.ctx);
    int why;
    void *b = sim_slot_backend(slots, slot, kind, &why);
    if (!b && why == -ENOENT)
        sc_error(L, "slot %d is empty: no %s to drive", (int)slot, what);
    if (!b)
        sc_error(L, "the module in slot %d (%s) has no %s", (int)slot,
                 gb_slots_module_name(slots, slot), what);
    return b;
}

static const char *errno_text(int rc)
{
    switch (rc) {
    case -EINVAL: return "invalid argument";
    case -ENOTCONN: return "the CPort is not connected (the AP has not opened it)";
    case -EAGAIN: return "the AP has not powered the device on";
    case -ENODEV: return "no such device";
    default: return strerror(-rc);
    }
}

/* gbvp.gpio_set(slot, line, level) -> true when an IRQ event went to the AP */
static int l_gpio_set(lua_State *L)
{
    sim_scenario *sc = SC(L);
    vm_gpio *g = backend(L, SIM_BACKEND_GPIO, "GPIO controller");
    lua_Integer line = luaL_checkinteger(L, 2);
    luaL_checkany(L, 3);
    bool level = lua_isboolean(L, 3) ? lua_toboolean(L, 3) : luaL_checkinteger(L, 3) != 0;
    if (line < 0 || line >= (lua_Integer)vm_gpio_line_count(g))
        return sc_error(L, "gbvp.gpio_set: line %d does not exist (0..%u)", (int)line,
                          vm_gpio_line_count(g) - 1);
    int rc = vm_gpio_set_input(g, (unsigned)line, level);
    if (rc == -ENOTCONN)
        return sc_error(L, "gbvp.gpio_set: an interrupt was due on line %d but %s",
                          (int)line, errno_text(rc));
    if (rc < 0)
        return sc_error(L, "gbvp.gpio_set: %s", errno_text(rc));
    settle(L, sc);
    lua_pushboolean(L, rc == 1);
    return 1;
}

/* gbvp.gpio_get(slot, line) -> { value, output, activated, irq_type, masked } */
static int l_gpio_get(lua_State *L)
{
    vm_gpio *g = backend(L, SIM_BACKEND_GPIO, "GPIO controller");
    lua_Integer line = luaL_checkinteger(L, 2);
    vm_gpio_line st;
    if (line < 0 || line > 0xffff || vm_gpio_get_line(g, (unsigned)line, &st))
        return sc_error(L, "gbvp.gpio_get: line %d does not exist (0..%u)", (int)line,
                          vm_gpio_line_count(g) - 1);
    lua_createtable(L, 0, 6);
    set_int(L, "value", vm_gpio_get_value(g, (unsigned)line));
    set_fields(L, &sim_fields_gpio_line, &st);
    set_bool(L, "input_level", st.in_level);
    return 1;
}

/* gbvp.gpio_stats(slot) -> { irq_events, irq_rejected, irq_lost, lines } */
static int l_gpio_stats(lua_State *L)
{
    vm_gpio *g = backend(L, SIM_BACKEND_GPIO, "GPIO controller");
    vm_gpio_stats st;
    vm_gpio_get_stats(g, &st);
    push_fields(L, &sim_fields_gpio_stats, &st);
    set_int(L, "lines", vm_gpio_line_count(g));
    return 1;
}

static uint8_t check_psy_prop(lua_State *L, int arg)
{
    if (lua_type(L, arg) == LUA_TNUMBER) {
        lua_Integer p = luaL_checkinteger(L, arg);
        if (p < 0 || p > 255)
            sc_error(L, "property code %d is out of range", (int)p);
        return (uint8_t)p;
    }
    const char *name = luaL_checkstring(L, arg);
    int p = vm_power_supply_property_by_name(name);
    if (p < 0)
        sc_error(L, "'%s' is not a power supply property (e.g. capacity, status, "
                   "voltage-now)", name);
    return (uint8_t)p;
}

/* gbvp.battery_set(slot, property, value [, supply [, notify]]) */
static int l_battery_set(lua_State *L)
{
    sim_scenario *sc = SC(L);
    vm_power_supply *ps = backend(L, SIM_BACKEND_POWER_SUPPLY, "battery (power supply)");
    uint8_t prop = check_psy_prop(L, 2);
    lua_Integer v = luaL_checkinteger(L, 3);
    lua_Integer psy = luaL_optinteger(L, 4, 0);
    bool notify = lua_isnoneornil(L, 5) ? true : lua_toboolean(L, 5);
    if (v < INT32_MIN || v > INT32_MAX)
        return sc_error(L, "gbvp.battery_set: %lld does not fit 32 bits", (long long)v);
    if (psy < 0 || psy >= (lua_Integer)vm_power_supply_count(ps))
        return sc_error(L, "gbvp.battery_set: supply %d does not exist (0..%u)", (int)psy,
                          vm_power_supply_count(ps) - 1);
    int rc = vm_power_supply_set(ps, (unsigned)psy, prop, (int32_t)v, notify);
    if (rc == -EINVAL)
        return sc_error(L, "gbvp.battery_set: the supply does not report property %d",
                          (int)prop);
    settle(L, sc);
    lua_pushboolean(L, rc == 0);
    return 1;
}

/* gbvp.battery_get(slot, property [, supply]) -> value */
static int l_battery_get(lua_State *L)
{
    vm_power_supply *ps = backend(L, SIM_BACKEND_POWER_SUPPLY, "battery (power supply)");
    uint8_t prop = check_psy_prop(L, 2);
    lua_Integer psy = luaL_optinteger(L, 3, 0);
    int32_t v;
    if (psy < 0 || psy > 255 || vm_power_supply_get(ps, (unsigned)psy, prop, &v))
        return sc_error(L, "gbvp.battery_get: supply %d has no property %d", (int)psy,
                          (int)prop);
    lua_pushinteger(L, v);
    return 1;
}

/* gbvp.battery_stats(slot) */
static int l_battery_stats(lua_State *L)
{
    vm_power_supply *ps = backend(L, SIM_BACKEND_POWER_SUPPLY, "battery (power supply)");
    vm_power_supply_stats st;
    vm_power_supply_get_stats(ps, &st);
    return push_fields(L, &sim_fields_power_supply_stats, &st);
}

/* gbvp.hid_input(slot, report) with report a string or a table of bytes */
static int l_hid_input(lua_State *L)
{
    sim_scenario *sc = SC(L);
    vm_hid *h = backend(L, SIM_BACKEND_HID, "HID device");
    uint8_t buf[VM_HID_MAX_REPORT];
    size_t n = 0;
    if (lua_istable(L, 2)) {
        n = (size_t)luaL_len(L, 2);
        if (n > sizeof buf)
            return sc_error(L, "gbvp.hid_input: %d bytes, reports have at most %u",
                              (int)n, VM_HID_MAX_REPORT);
        for (size_t i = 0; i < n; i++) {
            lua_geti(L, 2, (lua_Integer)i + 1);
            lua_Integer b = lua_tointeger(L, -1);
            if (!lua_isinteger(L, -1) || b < 0 || b > 255)
                return sc_error(L, "gbvp.hid_input: byte %d is not 0..255", (int)i + 1);
            buf[i] = (uint8_t)b;
            lua_pop(L, 1);
        }
    } else {
        const char *s = luaL_checklstring(L, 2, &n);
        if (n > sizeof buf)
            return sc_error(L, "gbvp.hid_input: %d bytes, reports have at most %u",
                              (int)n, VM_HID_MAX_REPORT);
        memcpy(buf, s, n);
    }
    int rc = vm_hid_input_report(h, buf, n);
    if (rc == -EINVAL) {
        vm_hid_state st;
        vm_hid_get_state(h, &st);
        return sc_error(L, "gbvp.hid_input: %d bytes, the device's input report has %d",
                          (int)n, (int)st.input_size);
    }
    if (rc)
        return sc_error(L, "gbvp.hid_input: report not sent: %s", errno_text(rc));
    settle(L, sc);
    return 0;
}

/* gbvp.hid_state(slot) */
static int l_hid_state(lua_State *L)
{
    vm_hid *h = backend(L, SIM_BACKEND_HID, "HID device");
    vm_hid_state st;
    vm_hid_get_state(h, &st);
    push_fields(L, &sim_fields_hid_state, &st);
    lua_pushlstring(L, (const char *)st.output, st.output_size);
    lua_setfield(L, -2, "output");
    return 1;
}

/* gbvp.uart_send(slot, data): bytes from the module to the AP */
static int l_uart_send(lua_State *L)
{
    sim_scenario *sc = SC(L);
    vm_uart *u = backend(L, SIM_BACKEND_UART, "UART");
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    if (n == 0)
        return sc_error(L, "gbvp.uart_send: nothing to send");
    int rc = vm_uart_inject_rx(u, (const uint8_t *)s, n, 0);
    if (rc)
        return sc_error(L, "gbvp.uart_send: %s", errno_text(rc));
    settle(L, sc);
    return 0;
}

/* gbvp.uart_read(slot) -> what the AP sent (capture backend) */
static int l_uart_read(lua_State *L)
{
    vm_uart *u = backend(L, SIM_BACKEND_UART, "UART");
    if (vm_uart_get_backend(u) != VM_UART_CAPTURE)
        return sc_error(L, "gbvp.uart_read: the UART does not use the capture backend");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    uint8_t buf[1024];
    size_t n;
    while ((n = vm_uart_read_tx(u, buf, sizeof buf)) > 0)
        luaL_addlstring(&b, (const char *)buf, n);
    luaL_pushresult(&b);
    return 1;
}

/* gbvp.uart_state(slot) */
static int l_uart_state(lua_State *L)
{
    vm_uart *u = backend(L, SIM_BACKEND_UART, "UART");
    vm_uart_state st;
    vm_uart_get_state(u, &st);
    return push_fields(L, &sim_fields_uart_state, &st);
}

static uint16_t check_i2c_addr(lua_State *L, int arg)
{
    lua_Integer a = luaL_checkinteger(L, arg);
    if (a < 0 || a > 0x3ff)
        sc_error(L, "I2C address 0x%x is out of range", (unsigned)a);
    return (uint16_t)a;
}

/* gbvp.i2c_write(slot, addr, offset, data): EEPROM contents */
static int l_i2c_write(lua_State *L)
{
    vm_i2c *bus = backend(L, SIM_BACKEND_I2C, "I2C bus");
    uint16_t addr = check_i2c_addr(L, 2);
    lua_Integer off = luaL_checkinteger(L, 3);
    size_t n;
    const char *s = luaL_checklstring(L, 4, &n);
    if (off < 0 || off > (lua_Integer)VM_I2C_EEPROM_SIZE)
        return sc_error(L, "gbvp.i2c_write: offset %d is outside the EEPROM", (int)off);
    int rc = vm_i2c_eeprom_write(bus, addr, (unsigned)off, (const uint8_t *)s, n);
    if (rc == -ENODEV)
        return sc_error(L, "gbvp.i2c_write: no EEPROM at address 0x%x", addr);
    if (rc)
        return sc_error(L, "gbvp.i2c_write: %d bytes at %d pass the end of the EEPROM",
                          (int)n, (int)off);
    return 0;
}

/* gbvp.i2c_read(slot, addr, offset, len) -> EEPROM contents */
static int l_i2c_read(lua_State *L)
{
    vm_i2c *bus = backend(L, SIM_BACKEND_I2C, "I2C bus");
    uint16_t addr = check_i2c_addr(L, 2);
    lua_Integer off = luaL_checkinteger(L, 3), len = luaL_checkinteger(L, 4);
    uint8_t buf[VM_I2C_EEPROM_SIZE];
    if (off < 0 || len < 0 || off > (lua_Integer)VM_I2C_EEPROM_SIZE ||
        len > (lua_Integer)VM_I2C_EEPROM_SIZE - off)
        return sc_error(L, "gbvp.i2c_read: %d bytes at %d are outside the EEPROM",
                          (int)len, (int)off);
    int rc = vm_i2c_eeprom_read(bus, addr, (unsigned)off, buf, (size_t)len);
    if (rc)
        return sc_error(L, "gbvp.i2c_read: no EEPROM at address 0x%x", addr);
    lua_pushlstring(L, (const char *)buf, (size_t)len);
    return 1;
}

/* gbvp.i2c_temperature(slot, addr [, millicelsius]) -> millicelsius */
static int l_i2c_temperature(lua_State *L)
{
    vm_i2c *bus = backend(L, SIM_BACKEND_I2C, "I2C bus");
    uint16_t addr = check_i2c_addr(L, 2);
    if (!lua_isnoneornil(L, 3)) {
        lua_Integer mc = luaL_checkinteger(L, 3);
        if (mc < INT32_MIN || mc > INT32_MAX ||
            vm_i2c_lm75_set_temperature(bus, addr, (int32_t)mc))
            return sc_error(L, "gbvp.i2c_temperature: no LM75 at address 0x%x (or a "
                              "temperature out of range)", addr);
    }
    int32_t v;
    if (vm_i2c_lm75_get_temperature(bus, addr, &v))
        return sc_error(L, "gbvp.i2c_temperature: no LM75 at address 0x%x", addr);
    lua_pushinteger(L, v);
    return 1;
}

/* gbvp.cmd(slot, line [, index]) -> the answer of a backend command line such as
 * "battery set capacity 50" or "gpio set 3 1" (virtual-modules/backend_cmd.h) on interface
 * `index` (default 0) of the module in `slot`; works on every target */
static int l_cmd(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    const char *line = luaL_checkstring(L, 2);
    lua_Integer idx = luaL_optinteger(L, 3, 0);
    if (!sc->t.command)
        return sc_error(L, "gbvp.cmd: target %s has no backend commands", sc->t.name);
    if (idx < 0 || idx >= (lua_Integer)SIM_MAX_INTF_PER_MODULE)
        return sc_error(L, "gbvp.cmd: interface index %lld is not 0..%u", (long long)idx,
                        SIM_MAX_INTF_PER_MODULE - 1);
    char reply[1024];
    if (sc->t.command(sc->t.ctx, slot, (unsigned)idx, line, reply, sizeof reply))
        return sc_error(L, "gbvp.cmd(%u, '%s'): %s", slot, line, reply);
    lua_pushstring(L, reply);
    settle(L, sc);
    return 1;
}

/* ---- link settings and faults ---- */

static const char *const no_link_model =
    "%s: target %s has no UniPro link model (use --target gbvp-sim --timing frame)";

/* Raises an error naming the first key of the table at `arg` not in `keys`. */
static void check_keys(lua_State *L, int arg, const char *fn, const char *const *keys)
{
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        lua_pop(L, 1);
        bool known = false;
        for (size_t i = 0; keys[i] && !known; i++)
            known = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), keys[i]);
        if (!known) {
            const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a name)";
            sc_error(L, "%s: unknown setting '%s'", fn, k);
        }
    }
}

/* The start of gbvp.link, gbvp.fault and gbvp.link_stats (`fn`): the target must model
 * links (`op` is its operation), argument 1 is a slot and, when `keys` is given, argument 2
 * a table with no other keys. Returns the slot. */
static unsigned link_args(lua_State *L, const void *op, const char *fn, const char *const *keys)
{
    if (!op)
        sc_error(L, no_link_model, fn, SC(L)->t.name);
    /* "ap": the AP bridge's own link */
    unsigned slot = lua_type(L, 1) == LUA_TSTRING && !strcmp(lua_tostring(L, 1), "ap")
                        ? GB_SVC_SLOT_AP : check_slot(L, 1);
    if (keys)
        check_keys(L, 2, fn, keys);
    return slot;
}

/* The slot as the script wrote it: its number or "ap". */
static const char *link_slot_name(unsigned slot, char buf[16])
{
    if (slot == GB_SVC_SLOT_AP)
        return "ap";
    snprintf(buf, 16, "%u", slot);
    return buf;
}

/* A string or number field of table `arg` as text in buf; NULL when absent. */
static const char *field_text(lua_State *L, int arg, const char *key, char *buf, size_t len)
{
    lua_getfield(L, arg, key);
    const char *v = NULL;
    if (lua_type(L, -1) == LUA_TNUMBER && lua_isinteger(L, -1)) {
        snprintf(buf, len, "%lld", (long long)lua_tointeger(L, -1));
        v = buf;
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        snprintf(buf, len, "%s", lua_tostring(L, -1));
        v = buf;
    } else if (!lua_isnil(L, -1)) {
        lua_pop(L, 1);
        sc_error(L, "gbvp.link: %s must be a string or an integer", key);
    }
    lua_pop(L, 1);
    return v;
}

/* gbvp.link(slot, {gear=, series=, lanes=, mode=}): a power mode change on the modelled
 * link of the interface in slot. gear is "HS-G2B", "PWM-G3" ... or a number with
 * mode = "hs" (default) or "pwm"; series "A"/"B"; lanes 1 or 2. */
static int l_link(lua_State *L)
{
    sim_scenario *sc = SC(L);
    static const char *const keys[] = { "gear", "series", "lanes", "mode", NULL };
    unsigned slot = link_args(L, (const void *)sc->t.link_set, "gbvp.link", keys);
    char gbuf[32], sbuf[8], lbuf[8], mbuf[8], full[48];
    const char *gear = field_text(L, 2, "gear", gbuf, sizeof gbuf);
    const char *series = field_text(L, 2, "series", sbuf, sizeof sbuf);
    const char *lanes = field_text(L, 2, "lanes", lbuf, sizeof lbuf);
    const char *mode = field_text(L, 2, "mode", mbuf, sizeof mbuf);
    if (mode && strcasecmp(mode, "hs") && strcasecmp(mode, "pwm"))
        return sc_error(L, "gbvp.link: mode '%s': want \"hs\" or \"pwm\"", mode);
    if (gear && gear[0] >= '0' && gear[0] <= '9') {
        snprintf(full, sizeof full, "%s-G%s", mode && !strcasecmp(mode, "pwm") ? "PWM" : "HS",
                 gear);
        gear = full;
    } else if (mode && !gear) {
        return sc_error(L, "gbvp.link: mode needs a gear number");
    } else if (mode && gear && strncasecmp(gear, mode, strlen(mode))) {
        return sc_error(L, "gbvp.link: gear %s is not a %s gear", gear, mode);
    }
    if (!gear && !series && !lanes)
        return sc_error(L, "gbvp.link: nothing to change (give gear, series or lanes)");
    char err[256], name[16];
    if (sc->t.link_set(sc->t.ctx, slot, gear, series, lanes, err, sizeof err))
        return sc_error(L, "gbvp.link(%s): %s", link_slot_name(slot, name), err);
    settle(L, sc);
    return 0;
}

static bool field_number(lua_State *L, int arg, const char *key, double *out)
{
    lua_getfield(L, arg, key);
    bool have = !lua_isnil(L, -1);
    if (have && !lua_isnumber(L, -1)) {
        lua_pop(L, 1);
        sc_error(L, "gbvp.fault: %s must be a number", key);
    }
    if (have)
        *out = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return have;
}

/* gbvp.fault(slot, {ber=, drop=, down=true|false, delay=ms, down_for=ms}): bit errors,
 * frame drops (0 clears them) or link down / up on the modelled link of the interface in
 * slot; delay applies it later (simulated ms), down_for brings a downed link up again. */
static int l_fault(lua_State *L)
{
    sim_scenario *sc = SC(L);
    static const char *const keys[] = { "ber", "drop", "down", "delay", "down_for", NULL };
    unsigned slot = link_args(L, (const void *)sc->t.link_fault, "gbvp.fault", keys);
    sim_link_fault f = { 0 };
    f.set_ber = field_number(L, 2, "ber", &f.ber);
    f.set_drop = field_number(L, 2, "drop", &f.drop);
    lua_getfield(L, 2, "down");
    if (!lua_isnil(L, -1)) {
        if (!lua_isboolean(L, -1))
            return sc_error(L, "gbvp.fault: down must be true or false");
        f.set_down = true;
        f.down = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    double delay = 0, down_for = 0;
    if (field_number(L, 2, "delay", &delay) && !(delay >= 0 && delay <= 3600e3))
        return sc_error(L, "gbvp.fault: delay %g ms outside 0..3600000", delay);
    if (field_number(L, 2, "down_for", &down_for) &&
        (!(down_for > 0 && down_for <= 3600e3) || !f.set_down || !f.down))
        return sc_error(L, "gbvp.fault: down_for (ms, 0..3600000) goes with down = true");
    f.delay = (sim_time)(delay * 1e9);
    f.down_for = (sim_time)(down_for * 1e9);
    if (!f.set_ber && !f.set_drop && !f.set_down)
        return sc_error(L, "gbvp.fault: nothing to do (give ber, drop or down)");
    char err[256], name[16];
    if (sc->t.link_fault(sc->t.ctx, slot, &f, err, sizeof err))
        return sc_error(L, "gbvp.fault(%s): %s", link_slot_name(slot, name), err);
    /* no settle: a delay counts from this call, so it can land inside the next request */
    return 0;
}

/* gbvp.link_stats(slot) -> {mode=, state=, ber=, drop=, frames=, replays=,
 * replay_timeouts=, crc_errors=, dropped=, duplicates=} of the modelled link */
static int l_link_stats(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = link_args(L, (const void *)sc->t.link_info, "gbvp.link_stats", NULL);
    sim_scenario_link li;
    char err[256], name[16];
    if (sc->t.link_info(sc->t.ctx, slot, &li, err, sizeof err))
        return sc_error(L, "gbvp.link_stats(%s): %s", link_slot_name(slot, name), err);
    lua_createtable(L, 0, 10);
    lua_pushstring(L, li.mode);
    lua_setfield(L, -2, "mode");
    lua_pushstring(L, li.state);
    lua_setfield(L, -2, "state");
    lua_pushnumber(L, li.ber);
    lua_setfield(L, -2, "ber");
    lua_pushnumber(L, li.drop);
    lua_setfield(L, -2, "drop");
    set_fields(L, &sim_fields_link_counters, &li);
    return 1;
}

/* gbvp.pm_fault(slot, control_type, status): a module answers a control request with an
 * error status (0 clears it) */
static int l_pm_fault(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    lua_Integer type = luaL_checkinteger(L, 2), status = luaL_checkinteger(L, 3);
    if (!sc->t.slots)
        return sc_error(L, "gbvp.pm_fault: target %s does not expose its modules", sc->t.name);
    vm_interface *intf = gb_slots_interface(sc->t.slots(sc->t.ctx), slot, 0);
    if (!intf)
        return sc_error(L, "gbvp.pm_fault: slot %d is empty", (int)slot);
    if (type < 0 || type > 255 || status < 0 || status > 255 ||
        vm_interface_set_pm_status(intf, (uint8_t)type, (uint8_t)status))
        return sc_error(L, "gbvp.pm_fault: control type 0x%x cannot be made to fail",
                          (unsigned)type);
    return 0;
}

/* gbvp.intf_oops(intf_id, reason): the interface crashes; the SVC reports INTF_OOPS */
static int l_intf_oops(lua_State *L)
{
    sim_scenario *sc = SC(L);
    uint8_t id = check_intf_id(L, 1);
    lua_Integer reason = luaL_optinteger(L, 2, 0);
    if (reason < 0 || reason > 255)
        return sc_error(L, "gbvp.intf_oops: reason %lld is not 0..255", (long long)reason);
    int rc = gb_svc_intf_oops(sc->t.svc(sc->t.ctx), id, (uint8_t)reason, sc->t.now(sc->t.ctx));
    if (rc == -ENOENT)
        return sc_error(L, "gbvp.intf_oops: no interface %d in the frame", id);
    if (rc == -ENOTCONN)
        return sc_error(L, "gbvp.intf_oops: the AP has not completed the SVC handshake");
    settle(L, sc);
    return 0;
}

/* gbvp.link_mode(intf_id) -> tx_mode, rx_mode as the AP last set them with INTF_SET_PWRM
 * (0 = never); for the AP's own interface, its tx mode only */
static int l_link_mode(lua_State *L)
{
    sim_scenario *sc = SC(L);
    uint8_t id = check_intf_id(L, 1);
    gb_svc *svc = sc->t.svc(sc->t.ctx);
    if (id == gb_svc_ap_intf_id(svc)) {
        lua_pushinteger(L, gb_svc_ap_link_tx_mode(svc));
        return 1;
    }
    gb_svc_intf_info in;
    if (!gb_svc_get_intf(sc->t.svc(sc->t.ctx), id, &in))
        return sc_error(L, "gbvp.link_mode: no interface %d in the frame", id);
    lua_pushinteger(L, in.tx_mode);
    lua_pushinteger(L, in.rx_mode);
    return 2;
}

/* ---- the guest ---- */

/* gbvp.guest(command [, timeout_ms]) -> exit status, output */
static int l_guest(lua_State *L)
{
    sim_scenario *sc = SC(L);
    const char *cmd = luaL_checkstring(L, 1);
    lua_Integer t = luaL_optinteger(L, 2, 10000);
    if (t <= 0 || t > 3600000)
        return sc_error(L, "gbvp.guest: timeout %d ms is not 1 .. 3600000", (int)t);
    if (!sc->cfg.agent)
        return sc_error(L, "gbvp.guest: no guest is attached (target %s runs without "
                          "QEMU); this step needs a guest with its agent", sc->t.name);
    sim_agent_result res = { 0 };
    int rc = sc->t.guest_run ? sc->t.guest_run(sc->t.ctx, cmd, (int)t, &res)
                             : sim_agent_run(sc->cfg.agent, cmd, (int)t, &res);
    after_run(L, sc);
    if (rc != SIM_AGENT_OK)
        return sc_error(L, "gbvp.guest('%s'): %s", cmd, sim_agent_last_error(sc->cfg.agent));
    if (res.kind == SIM_AGENT_TIMED_OUT) {
        sim_agent_result_clear(&res);
        return sc_error(L, "gbvp.guest('%s'): still running after %d ms, killed", cmd,
                          (int)t);
    }
    if (res.kind == SIM_AGENT_START_FAILED) {
        int e = res.code;
        sim_agent_result_clear(&res);
        return sc_error(L, "gbvp.guest('%s'): the guest could not start it (errno %d)",
                          cmd, e);
    }
    lua_pushinteger(L, res.kind == SIM_AGENT_EXITED ? res.code : 128 + res.code);
    lua_pushlstring(L, res.output ? res.output : "", res.output_len);
    sim_agent_result_clear(&res);
    return 2;
}

/* ---- checks ---- */

static const char *detail_arg(lua_State *L, int arg, const char *dflt)
{
    return lua_isnoneornil(L, arg) ? dflt : luaL_tolstring(L, arg, NULL);
}

/* gbvp.check(cond, name [, detail]) -> cond: records a result, goes on;
 * gbvp.assert(cond, name [, detail]): the same, but stops the script when false */
static int cond_check(lua_State *L, bool stop)
{
    sim_scenario *sc = SC(L);
    luaL_checkany(L, 1);
    const char *name = luaL_checkstring(L, 2);
    bool ok = lua_toboolean(L, 1);
    char at[256];
    sc_record(sc, ok, name, where(L, at, sizeof at), detail_arg(L, 3, "condition was false"));
    if (!ok && stop) {
        lua_pushlightuserdata(L, sc_assert_abort_marker());
        return lua_error(L);
    }
    if (stop)
        return 0;
    lua_pushboolean(L, ok);
    return 1;
}

static int l_check(lua_State *L)
{
    return cond_check(L, false);
}

static int l_assert(lua_State *L)
{
    return cond_check(L, true);
}

/* gbvp.skip(reason): the scenario does not apply to this target; ends it, passed */
static int l_skip(lua_State *L)
{
    sim_scenario *sc = SC(L);
    const char *reason = luaL_checkstring(L, 1);
    sc_record_skip(sc, "scenario", reason);
    lua_pushlightuserdata(L, sc_skip_marker());
    return lua_error(L);
}

/* gbvp.assert_eq(actual, expected, name) / gbvp.check_eq: equality with both values shown */
static int eq(lua_State *L, bool stop)
{
    sim_scenario *sc = SC(L);
    luaL_checkany(L, 2);
    const char *name = luaL_checkstring(L, 3);
    bool ok = lua_rawequal(L, 1, 2) || lua_compare(L, 1, 2, LUA_OPEQ);
    char at[256];
    where(L, at, sizeof at);
    const char *a = luaL_tolstring(L, 1, NULL);
    const char *e = luaL_tolstring(L, 2, NULL);
    lua_pushfstring(L, "got %s, expected %s", a, e);
    sc_record(sc, ok, name, at, lua_tostring(L, -1));
    if (!ok && stop) {
        lua_pushlightuserdata(L, sc_assert_abort_marker());
        return lua_error(L);
    }
    lua_pushboolean(L, ok);
    return 1;
}

static int l_assert_eq(lua_State *L)
{
    return eq(L, true);
}

static int l_check_eq(lua_State *L)
{
    return eq(L, false);
}

/* gbvp.log(...): a TAP diagnostic line */
static int l_log(lua_State *L)
{
    sim_scenario *sc = SC(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            luaL_addchar(&b, ' ');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    const char *s = lua_tostring(L, -1);
    fputs("# ", sc->tap);
    for (const char *p = s; *p; p++) {
        fputc(*p, sc->tap);
        if (*p == '\n')
            fputs("# ", sc->tap);
    }
    fputc('\n', sc->tap);
    fflush(sc->tap);
    sc_emit(sc, SIM_SCENARIO_EV_LOG, 0, s);
    return 0;
}

/* ---- statistics ---- */

static int l_stats(lua_State *L)
{
    sim_scenario *sc = SC(L);
    sim_svc_report rep;
    sim_svc_report_take(sc->t.svc(sc->t.ctx), &rep);
    push_fields(L, &sim_fields_svc_counters, &rep);
    set_fields(L, &sim_fields_svc_state, &rep);
    return 1;
}

/* gbvp.interface_stats(slot [, index]) */
static int l_interface_stats(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    lua_Integer idx = luaL_optinteger(L, 2, 0);
    if (!sc->t.slots)
        return sc_error(L, "gbvp.interface_stats: target %s does not expose its modules",
                        sc->t.name);
    vm_interface *intf = idx >= 0 && idx < (lua_Integer)SIM_MAX_INTF_PER_MODULE
                         ? gb_slots_interface(sc->t.slots(sc->t.ctx), slot, (unsigned)idx)
                         : NULL;
    if (!intf)
        return sc_error(L, "gbvp.interface_stats: no interface %d in slot %d", (int)idx,
                          (int)slot);
    vm_interface_stats st;
    vm_interface_get_stats(intf, &st);
    return push_fields(L, &sim_fields_interface_stats, &st);
}

/* ---- randomness and arguments ---- */

/* gbvp.random() -> [0,1); random(m) -> 1..m; random(m, n) -> m..n (as math.random) */
static int l_random(lua_State *L)
{
    sim_scenario *sc = SC(L);
    uint64_t r = sc_random_u64(sc);
    int n = lua_gettop(L);
    if (n == 0) {
        lua_pushnumber(L, (lua_Number)(r >> 11) * 0x1.0p-53);
        return 1;
    }
    lua_Integer lo = 1, hi;
    if (n == 1) {
        hi = luaL_checkinteger(L, 1);
    } else {
        lo = luaL_checkinteger(L, 1);
        hi = luaL_checkinteger(L, 2);
    }
    if (lo > hi)
        return sc_error(L, "gbvp.random: interval is empty (%lld > %lld)", (long long)lo, (long long)hi);
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    uint64_t v = span == UINT64_MAX ? r : r % (span + 1);
    lua_pushinteger(L, (lua_Integer)((uint64_t)lo + v));
    return 1;
}

static int l_seed(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)SC(L)->cfg.seed);
    return 1;
}

/* gbvp.arg(name [, default]) -> the --set name=value string, converted to a number when
 * the default is one */
static int l_arg(lua_State *L)
{
    sim_scenario *sc = SC(L);
    size_t nl;
    const char *name = luaL_checklstring(L, 1, &nl);
    for (size_t i = sc->cfg.nargs; i-- > 0;) {
        const char *a = sc->cfg.args[i];
        if (strncmp(a, name, nl) || a[nl] != '=')
            continue;
        const char *v = a + nl + 1;
        if (lua_type(L, 2) == LUA_TNUMBER) {
            if (!lua_stringtonumber(L, v))
                return sc_error(L, "gbvp.arg: %s=%s is not a number", name, v);
            return 1;
        }
        lua_pushstring(L, v);
        return 1;
    }
    lua_settop(L, 2);
    return 1;
}

/* ---- the test AP's own view (simulator-only targets) ---- */

static void need(lua_State *L, const void *op, const char *fn)
{
    if (!op)
        sc_error(L, "%s: target %s has no test AP (this needs the simulator-only target)",
                   fn, SC(L)->t.name);
}

/* gbvp.ap_request(intf, cport, type [, payload [, response_len]]) -> status, response */
static int l_ap_request(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need(L, (const void *)sc->t.ap_request, "gbvp.ap_request");
    uint8_t intf = check_intf_id(L, 1);
    lua_Integer cport = luaL_checkinteger(L, 2), type = luaL_checkinteger(L, 3);
    size_t n = 0;
    const char *payload = luaL_optlstring(L, 4, "", &n);
    lua_Integer rlen = luaL_optinteger(L, 5, 0);
    if (cport < 0 || cport > 0xffff || type < 1 || type > 0x7f || rlen < 0 || rlen > 2040 ||
        n > 2040)
        return sc_error(L, "gbvp.ap_request: bad cport, type (1..0x7f) or size");
    uint8_t resp[2040];
    int rc = sc->t.ap_request(sc->t.ctx, intf, (uint16_t)cport, (uint8_t)type, payload, n,
                              resp, (size_t)rlen);
    after_run(L, sc);
    lua_pushinteger(L, rc);
    lua_pushlstring(L, (const char *)resp, rc == 0 ? (size_t)rlen : 0);
    return 2;
}

static int l_ap_traced(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need(L, (const void *)sc->t.ap_traced, "gbvp.ap_traced");
    lua_pushboolean(L, sc->t.ap_traced(sc->t.ctx, luaL_checkstring(L, 1)));
    return 1;
}

static int l_ap_trace_clear(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need(L, (const void *)sc->t.ap_trace_clear, "gbvp.ap_trace_clear");
    sc->t.ap_trace_clear(sc->t.ctx);
    return 0;
}

static void step_hook(void *ctx, const char *what)
{
    sim_scenario *sc = ctx;
    lua_State *L = sc->L;
    if (sc->step_hook_ref == LUA_NOREF || sc->hook_error || !strstr(what, sc->step_needle))
        return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, sc->step_hook_ref);
    lua_pushstring(L, what);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        if (lua_touserdata(L, -1) == sc_assert_abort_marker())
            sc->hook_error = strdup("gbvp.assert failed inside gbvp.on_ap_step");
        else
            sc->hook_error = strdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
        lua_pop(L, 1);
    }
}

/* gbvp.on_ap_step(needle, fn(line)) / gbvp.on_ap_step(nil): fn runs after each AP step
 * whose trace line contains needle (e.g. "GET_MANIFEST_SIZE") */
static int l_on_ap_step(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need(L, (const void *)sc->t.ap_step_hook, "gbvp.on_ap_step");
    if (sc->step_hook_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, sc->step_hook_ref);
        sc->step_hook_ref = LUA_NOREF;
    }
    free(sc->step_needle);
    sc->step_needle = NULL;
    if (lua_isnoneornil(L, 1)) {
        sc->t.ap_step_hook(sc->t.ctx, NULL, NULL);
        return 0;
    }
    const char *needle = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    sc->step_needle = strdup(needle);
    if (!sc->step_needle)
        return sc_error(L, "out of memory");
    lua_pushvalue(L, 2);
    sc->step_hook_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    sc->t.ap_step_hook(sc->t.ctx, step_hook, sc);
    return 0;
}

/* print() goes to the TAP stream as diagnostics. */
static int l_print(lua_State *L)
{
    return l_log(L);
}

void sc_api_open(sim_scenario *sc)
{
    static const luaL_Reg fns[] = {
        { "insert", l_insert },
        { "remove", l_remove },
        { "module", l_module },
        { "slot_interface", l_slot_interface },
        { "wait", l_wait },
        { "now", l_now },
        { "wait_for", l_wait_for },
        { "interface_state", l_interface_state },
        { "interface", l_interface },
        { "gpio_set", l_gpio_set },
        { "gpio_get", l_gpio_get },
        { "gpio_stats", l_gpio_stats },
        { "battery_set", l_battery_set },
        { "battery_get", l_battery_get },
        { "battery_stats", l_battery_stats },
        { "hid_input", l_hid_input },
        { "hid_state", l_hid_state },
        { "uart_send", l_uart_send },
        { "uart_read", l_uart_read },
        { "uart_state", l_uart_state },
        { "i2c_write", l_i2c_write },
        { "i2c_read", l_i2c_read },
        { "i2c_temperature", l_i2c_temperature },
        { "link", l_link },
        { "fault", l_fault },
        { "link_stats", l_link_stats },
        { "pm_fault", l_pm_fault },
        { "cmd", l_cmd },
        { "intf_oops", l_intf_oops },
        { "link_mode", l_link_mode },
        { "guest", l_guest },
        { "check", l_check },
        { "skip", l_skip },
        { "assert", l_assert },
        { "check_eq", l_check_eq },
        { "assert_eq", l_assert_eq },
        { "log", l_log },
        { "stats", l_stats },
        { "interface_stats", l_interface_stats },
        { "random", l_random },
        { "seed", l_seed },
        { "arg", l_arg },
        { "ap_request", l_ap_request },
        { "ap_traced", l_ap_traced },
        { "ap_trace_clear", l_ap_trace_clear },
        { "on_ap_step", l_on_ap_step },
        { NULL, NULL },
    };
    lua_State *L = sc->L;
    luaL_newlib(L, fns);
    lua_pushstring(L, sc->t.name ? sc->t.name : "unknown");
    lua_setfield(L, -2, "target");
    lua_pushboolean(L, sc->cfg.agent != NULL);
    lua_setfield(L, -2, "has_guest");
    /* What the target offers, so one script can run on several targets. */
    lua_createtable(L, 0, 4);
    lua_pushboolean(L, sc->t.slots != NULL);
    lua_setfield(L, -2, "backends");
    lua_pushboolean(L, sc->t.command != NULL);
    lua_setfield(L, -2, "cmd");
    lua_pushboolean(L, sc->t.ap_traced != NULL && sc->t.ap_request != NULL);
    lua_setfield(L, -2, "test_ap");
    lua_pushboolean(L, sc->cfg.agent != NULL);
    lua_setfield(L, -2, "guest");
    lua_pushboolean(L, sc->t.link_set && sc->t.link_fault && sc->t.link_info);
    lua_setfield(L, -2, "link_model");
    lua_setfield(L, -2, "features");
    lua_setglobal(L, "gbvp");
    lua_pushcfunction(L, l_print);
    lua_setglobal(L, "print");
    /* math.random follows the seed too, so every run with one seed is the same. */
    lua_getglobal(L, "math");
    lua_pushcfunction(L, l_random);
    lua_setfield(L, -2, "random");
    lua_pushnil(L);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
}
