// SPDX-License-Identifier: MIT
// The `gbvp` table scenarios call (docs/scenarios.md): modules in slots, simulated time and
// conditions, the AP's view of interfaces, the modules' backends (gbvp.cmd and the typed
// commands of gbvp/target/typed.h), links and faults, the guest, checks, statistics and the
// seeded generator. Everything goes through the target (gbvp/target/target.h), so a script
// runs alike on every target that has what it uses. Every argument is checked; a bad one
// raises an error naming the script line.
#include "gbvp/scenario/scenario_internal.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gbvp/agent/agent_client.h"
#include "gbvp/target/fields.h"
#include "gbvp/target/typed.h"

#define MAX_WAIT_MS (24.0 * 3600 * 1000)

static sim_scenario *SC(lua_State *L)
{
    return sc_from_lua(L);
}

/* "file:line" of the script line that called the running function: the nearest Lua
 * caller, so that a call through a C function (pcall(gbvp.check, ...)) still has one. */
static const char *where(lua_State *L, char *buf, size_t len)
{
    lua_Debug ar;
    *buf = 0;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            snprintf(buf, len, "%s:%d", ar.short_src, ar.currentline);
            break;
        }
    }
    return buf;
}

/* Interfaces that became active since the last look: ACTIVATED events. */
static void notice_activations(sim_scenario *sc)
{
    if (!sc->cfg.event)
        return;
    unsigned n = sc->t.ops->num_slots(sc->t.ctx);
    for (unsigned s = 0; s < n; s++) {
        uint8_t id = sc->t.ops->slot_intf_id(sc->t.ctx, s);
        sim_target_intf v;
        sc->t.ops->intf(sc->t.ctx, id, &v);
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
    if (sc->hook_skipped) {
        /* the skip is recorded: it ends the script as gbvp.skip does */
        sc->hook_skipped = false;
        lua_pushlightuserdata(L, sc_skip_marker());
        lua_error(L);
    }
    if (sc->hook_error) {
        lua_pushstring(L, sc->hook_error);
        free(sc->hook_error);
        sc->hook_error = NULL;
        lua_error(L);
    }
}

static void settle(lua_State *L, sim_scenario *sc)
{
    sc->t.ops->settle(sc->t.ctx);
    after_run(L, sc);
}

static unsigned check_slot(lua_State *L, int arg)
{
    sim_scenario *sc = SC(L);
    lua_Integer slot = luaL_checkinteger(L, arg);
    unsigned n = sc->t.ops->num_slots(sc->t.ctx);
    if (slot < 0 || slot >= (lua_Integer)n)
        sc_error(L, "slot %lld does not exist (the frame has slots 0..%u)", (long long)slot,
                 n - 1);
    return (unsigned)slot;
}

static uint8_t check_intf_id(lua_State *L, int arg)
{
    lua_Integer id = luaL_checkinteger(L, arg);
    if (id < 0 || id > 255)
        sc_error(L, "interface id %lld is out of range (0..255)", (long long)id);
    return (uint8_t)id;
}

/* A string argument the C side reads as a C string: one with a NUL byte inside would be
 * cut there and its tail ignored ("sensor\0junk" inserting a sensor), so it is refused. */
static const char *check_text(lua_State *L, int arg)
{
    size_t len;
    const char *s = luaL_checklstring(L, arg, &len);
    if (strlen(s) != len)
        luaL_argerror(L, arg, lua_pushfstring(L, "a NUL byte at position %d would end the "
                                                 "text there", (int)strlen(s) + 1));
    return s;
}

/* ---- modules ---- */

/* gbvp.insert(slot, module [, {settle=false}]) -> interface id; module is a catalog name
 * or a path to a .mnfs file */
static int l_insert(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    const char *spec = check_text(L, 2);
    bool do_settle = true;
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "settle");
        if (!lua_isnil(L, -1))
            do_settle = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    char err[320] = "";
    if (sc->t.ops->insert(sc->t.ctx, slot, spec, err, sizeof err))
        return sc_error(L, "gbvp.insert(%d, '%s'): %s", (int)slot, spec, err);
    sc_emit(sc, SIM_SCENARIO_EV_INSERTED, slot, spec);
    if (do_settle)
        settle(L, sc);
    lua_pushinteger(L, sc->t.ops->slot_intf_id(sc->t.ctx, slot));
    return 1;
}

/* gbvp.remove(slot) */
static int l_remove(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    char err[256];
    int rc = sc->t.ops->remove(sc->t.ctx, slot, err, sizeof err);
    if (rc == -ENOENT)
        return sc_error(L, "gbvp.remove(%d): the slot is empty", (int)slot);
    if (rc)
        return sc_error(L, "gbvp.remove(%d): %s", (int)slot, err);
    sc_emit(sc, SIM_SCENARIO_EV_REMOVED, slot, NULL);
    settle(L, sc);
    return 0;
}

/* gbvp.module(slot) -> name or nil */
static int l_module(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    char name[128];
    if (sc->t.ops->module_name(sc->t.ctx, slot, name, sizeof name))
        lua_pushstring(L, name);
    else
        lua_pushnil(L);
    return 1;
}

/* gbvp.slot_interface(slot) -> interface id of the slot */
static int l_slot_interface(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    lua_pushinteger(L, sc->t.ops->slot_intf_id(sc->t.ctx, slot));
    return 1;
}

/* ---- time ---- */

static double check_ms(lua_State *L, int arg, const char *what)
{
    lua_Number ms = luaL_checknumber(L, arg);
    if (!(ms >= 0 && ms <= MAX_WAIT_MS))
        sc_error(L, "%s: %g ms is not a duration (0 .. 24 h)", what, (double)ms);
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
    sc->t.ops->advance(sc->t.ctx, ms_to_time(ms));
    after_run(L, sc);
    return 0;
}

/* gbvp.now() -> simulated milliseconds */
static int l_now(lua_State *L)
{
    sim_scenario *sc = SC(L);
    lua_pushnumber(L, (lua_Number)sc->t.ops->now(sc->t.ctx) / 1e9);
    return 1;
}

/* gbvp.wait_for(fn, timeout_ms [, step_ms]) -> ms waited; an error when the time is up */
static int l_wait_for(lua_State *L)
{
    sim_scenario *sc = SC(L);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    double timeout = check_ms(L, 2, "gbvp.wait_for timeout");
    double step = luaL_optnumber(L, 3, 10);
    /* a step below the clock's resolution (1 ps) would never move the clock: the loop
     * would spin without end */
    if (!(step >= 1e-9 && step <= MAX_WAIT_MS))
        return sc_error(L, "gbvp.wait_for: step %g ms is not 1e-09 (1 ps) .. 24 h", step);
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
        sc->t.ops->advance(sc->t.ctx, ms_to_time(d));
        after_run(L, sc);
        waited += d;
    }
}

/* ---- named values ---- */

/* The values of a reply into the table on top of the stack. */
static void set_values(lua_State *L, const vm_reply *r)
{
    for (size_t i = 0; i < r->nvalues; i++) {
        const vm_value *v = &r->values[i];
        switch (v->kind) {
        case VM_VALUE_INT:
            lua_pushinteger(L, (lua_Integer)v->i);
            break;
        case VM_VALUE_BOOL:
            lua_pushboolean(L, v->i != 0);
            break;
        case VM_VALUE_TEXT:
        case VM_VALUE_BYTES:
            lua_pushlstring(L, (const char *)vm_reply_data(r, v), v->len);
            break;
        }
        lua_setfield(L, -2, v->name);
    }
}

/* A new table of the reply's values; returns 1 (the table). */
static int push_values(lua_State *L, const vm_reply *r)
{
    lua_createtable(L, 0, (int)r->nvalues);
    set_values(L, r);
    return 1;
}

/* ---- the AP's view ---- */

static const char *intf_state_name(const sim_target_intf *v)
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
    sim_target_intf v;
    sc->t.ops->intf(sc->t.ctx, check_intf_id(L, 1), &v);
    lua_pushstring(L, intf_state_name(&v));
    return 1;
}

/* gbvp.interface(id) -> { state, known, active, enabled, suspended, device_id, bundles,
 * bound_bundles, connections, present, powered, activations } */
static int l_interface(lua_State *L)
{
    sim_scenario *sc = SC(L);
    sim_target_intf v;
    sc->t.ops->intf(sc->t.ctx, check_intf_id(L, 1), &v);
    vm_reply r;
    vm_reply_clear(&r);
    vm_reply_text(&r, "state", intf_state_name(&v));
    sim_fields_put(&sim_fields_intf, &v, &r);
    return push_values(L, &r);
}

/* ---- backends ---- */

/* A typed command's arguments from the Lua stack, at indices first..last. */
static void typed_args(lua_State *L, const sim_typed_cmd *cmd, int first, int last,
                       sim_typed_value *v, uint8_t bytes[][2048])
{
    for (int i = 0; i < SIM_TYPED_ARGS_MAX; i++)
        v[i] = (sim_typed_value){ 0 };
    for (int i = 0; i < SIM_TYPED_ARGS_MAX && cmd->args[i].name; i++) {
        const sim_typed_arg *a = &cmd->args[i];
        int at = first + i;
        if (at > last || lua_isnil(L, at)) {
            if (!a->optional)
                sc_error(L, "gbvp.%s: argument %d (%s) is missing", cmd->name, at, a->name);
            continue;
        }
        v[i].present = true;
        switch (a->kind) {
        case SIM_TYPED_LEVEL:
            if (lua_isboolean(L, at)) {
                v[i].i = lua_toboolean(L, at);
                break;
            }
            __attribute__((fallthrough)); /* else 0 or 1 */
        case SIM_TYPED_INT: {
            lua_Integer n = luaL_checkinteger(L, at);
            if (n < a->min || n > a->max)
                sc_error(L, "gbvp.%s: %s %lld is not %lld..%lld", cmd->name, a->name,
                         (long long)n, (long long)a->min, (long long)a->max);
            v[i].i = n;
            break;
        }
        case SIM_TYPED_PROPERTY:
            if (lua_type(L, at) == LUA_TNUMBER) {
                lua_Integer n = luaL_checkinteger(L, at);
                if (n < 0 || n > 255)
                    sc_error(L, "property code %d is out of range", (int)n);
                v[i].i = n;
            } else {
                v[i].text = check_text(L, at);
            }
            break;
        case SIM_TYPED_BYTES: {
            size_t n = 0;
            if (lua_istable(L, at)) {
                n = (size_t)luaL_len(L, at);
                if (n > sizeof bytes[i])
                    n = sizeof bytes[i] + 1;
                for (size_t k = 0; k < n && k < sizeof bytes[i]; k++) {
                    lua_geti(L, at, (lua_Integer)k + 1);
                    lua_Integer b = lua_tointeger(L, -1);
                    if (!lua_isinteger(L, -1) || b < 0 || b > 255)
                        sc_error(L, "gbvp.%s: byte %d of %s is not 0..255", cmd->name,
                                 (int)k + 1, a->name);
                    bytes[i][k] = (uint8_t)b;
                    lua_pop(L, 1);
                }
                v[i].bytes = bytes[i];
            } else {
                v[i].bytes = (const uint8_t *)luaL_checklstring(L, at, &n);
            }
            if (n < (size_t)a->min || n > (size_t)a->max)
                sc_error(L, "gbvp.%s: %s has %zu bytes, want %lld..%lld", cmd->name, a->name, n,
                         (long long)a->min, (long long)a->max);
            v[i].len = n;
            break;
        }
        }
    }
}

/* gbvp.<typed command>(slot, ...): the closure's upvalue is its sim_typed_cmd. */
static int l_typed(lua_State *L)
{
    sim_scenario *sc = SC(L);
    const sim_typed_cmd *cmd = lua_touserdata(L, lua_upvalueindex(1));
    unsigned slot = check_slot(L, 1);
    sim_typed_value v[SIM_TYPED_ARGS_MAX];
    int last = lua_gettop(L);
    /* room for byte lists given as tables, above the arguments; Lua frees it */
    uint8_t(*bytes)[2048] = lua_newuserdatauv(L, SIM_TYPED_ARGS_MAX * sizeof *bytes, 0);
    typed_args(L, cmd, 2, last, v, bytes);
    vm_reply r;
    int rc = sim_typed_run(&sc->t, cmd, slot, v, &r);
    if (rc)
        return sc_error(L, "gbvp.%s: %s", cmd->name, r.text);
    if (cmd->settle)
        settle(L, sc);
    if (!cmd->result)
        return push_values(L, &r);
    if (!cmd->result[0])
        return 0;
    const vm_value *val = vm_reply_get(&r, cmd->result);
    if (!val)
        lua_pushnil(L);
    else if (val->kind == VM_VALUE_INT)
        lua_pushinteger(L, (lua_Integer)val->i);
    else if (val->kind == VM_VALUE_BOOL)
        lua_pushboolean(L, val->i != 0);
    else
        lua_pushlstring(L, (const char *)vm_reply_data(&r, val), val->len);
    return 1;
}

/* gbvp.cmd(slot, line [, index]) -> the answer of a backend command line such as
 * "battery set capacity 50" or "gpio set 3 1" (virtual-modules/backend_cmd.h) on interface
 * `index` (default 0) of the module in `slot`; works on every target */
static int l_cmd(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = check_slot(L, 1);
    const char *line = check_text(L, 2);
    lua_Integer idx = luaL_optinteger(L, 3, 0);
    if (idx < 0 || idx >= SIM_TARGET_INTERFACES_MAX)
        return sc_error(L, "gbvp.cmd: interface index %lld is not 0..%d", (long long)idx,
                        SIM_TARGET_INTERFACES_MAX - 1);
    vm_reply r;
    if (sc->t.ops->command(sc->t.ctx, slot, (int)idx, line, &r))
        return sc_error(L, "gbvp.cmd(%u, '%s'): %s", slot, line, r.text);
    lua_pushstring(L, r.text);
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
 * links, argument 1 is a slot and, when `keys` is given, argument 2 a table with no other
 * keys. Returns the slot. */
static unsigned link_args(lua_State *L, const char *fn, const char *const *keys)
{
    if (!(SC(L)->t.features & SIM_TARGET_LINK_MODEL))
        sc_error(L, no_link_model, fn, SC(L)->t.name);
    /* "ap": the AP bridge's own link */
    unsigned slot = lua_type(L, 1) == LUA_TSTRING && !strcmp(lua_tostring(L, 1), "ap")
                        ? SIM_TARGET_SLOT_AP : check_slot(L, 1);
    if (keys)
        check_keys(L, 2, fn, keys);
    return slot;
}

/* The slot as the script wrote it: its number or "ap". */
static const char *link_slot_name(unsigned slot, char buf[16])
{
    if (slot == SIM_TARGET_SLOT_AP)
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
    unsigned slot = link_args(L, "gbvp.link", keys);
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
    if (sc->t.ops->link_set(sc->t.ctx, slot, gear, series, lanes, err, sizeof err))
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
    unsigned slot = link_args(L, "gbvp.fault", keys);
    sw_link_fault f = { 0 };
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
    if (sc->t.ops->link_fault(sc->t.ctx, slot, &f, err, sizeof err))
        return sc_error(L, "gbvp.fault(%s): %s", link_slot_name(slot, name), err);
    /* no settle: a delay counts from this call, so it can land inside the next request */
    return 0;
}

/* gbvp.link_stats(slot) -> {mode=, state=, ber=, drop=, frames=, replays=,
 * replay_timeouts=, crc_errors=, dropped=, duplicates=} of the modelled link */
static int l_link_stats(lua_State *L)
{
    sim_scenario *sc = SC(L);
    unsigned slot = link_args(L, "gbvp.link_stats", NULL);
    sim_target_link li;
    char err[256], name[16];
    if (sc->t.ops->link_info(sc->t.ctx, slot, &li, err, sizeof err))
        return sc_error(L, "gbvp.link_stats(%s): %s", link_slot_name(slot, name), err);
    vm_reply r;
    vm_reply_clear(&r);
    vm_reply_text(&r, "mode", li.mode);
    vm_reply_text(&r, "state", li.state);
    sim_fields_put(&sim_fields_link, &li, &r);
    push_values(L, &r);
    lua_pushnumber(L, li.ber);
    lua_setfield(L, -2, "ber");
    lua_pushnumber(L, li.drop);
    lua_setfield(L, -2, "drop");
    return 1;
}

/* gbvp.intf_oops(intf_id, reason): the interface crashes; the SVC reports INTF_OOPS */
static int l_intf_oops(lua_State *L)
{
    sim_scenario *sc = SC(L);
    uint8_t id = check_intf_id(L, 1);
    lua_Integer reason = luaL_optinteger(L, 2, 0);
    if (reason < 0 || reason > 255)
        return sc_error(L, "gbvp.intf_oops: reason %lld is not 0..255", (long long)reason);
    char err[256];
    if (sc->t.ops->intf_oops(sc->t.ctx, id, (uint8_t)reason, err, sizeof err))
        return sc_error(L, "gbvp.intf_oops: %s", err);
    settle(L, sc);
    return 0;
}

/* gbvp.link_mode(intf_id) -> tx_mode, rx_mode as the AP last set them with INTF_SET_PWRM
 * (0 = never); for the AP's own interface, its tx mode only */
static int l_link_mode(lua_State *L)
{
    sim_scenario *sc = SC(L);
    uint8_t id = check_intf_id(L, 1);
    uint8_t tx, rx;
    char err[256];
    if (sc->t.ops->link_mode(sc->t.ctx, id, &tx, &rx, err, sizeof err))
        return sc_error(L, "gbvp.link_mode: %s", err);
    lua_pushinteger(L, tx);
    if (id == 1) /* the AP bridge's interface */
        return 1;
    lua_pushinteger(L, rx);
    return 2;
}

/* ---- the guest ---- */

/* gbvp.guest(command [, timeout_ms]) -> exit status, output */
static int l_guest(lua_State *L)
{
    sim_scenario *sc = SC(L);
    const char *cmd = check_text(L, 1);
    lua_Integer t = luaL_optinteger(L, 2, 10000);
    if (t <= 0 || t > 3600000)
        return sc_error(L, "gbvp.guest: timeout %lld ms is not 1 .. 3600000", (long long)t);
    if (!(sc->t.features & SIM_TARGET_GUEST))
        return sc_error(L, "gbvp.guest: no guest is attached (target %s runs without "
                          "QEMU); this step needs a guest with its agent", sc->t.name);
    sim_agent_result res = { 0 };
    char err[512];
    int rc = sc->t.ops->guest_run(sc->t.ctx, cmd, (int)t, &res, err, sizeof err);
    after_run(L, sc);
    if (rc != SIM_AGENT_OK)
        return sc_error(L, "gbvp.guest('%s'): %s", cmd, err);
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
    const char *name = check_text(L, 2);
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
    const char *reason = check_text(L, 1);
    sc_record_skip(sc, "scenario", reason);
    lua_pushlightuserdata(L, sc_skip_marker());
    return lua_error(L);
}

/* gbvp.assert_eq(actual, expected, name) / gbvp.check_eq: equality with both values shown */
static int eq(lua_State *L, bool stop)
{
    sim_scenario *sc = SC(L);
    luaL_checkany(L, 2);
    const char *name = check_text(L, 3);
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

/* gbvp.stats() -> the SVC's and the fabric's counters */
static int l_stats(lua_State *L)
{
    sim_scenario *sc = SC(L);
    sim_target_stats st;
    sc->t.ops->stats(sc->t.ctx, &st);
    vm_reply r;
    vm_reply_clear(&r);
    sim_fields_put(&sim_fields_stats, &st, &r);
    return push_values(L, &r);
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
        if (hi == 0) { /* as math.random(0): an integer with every bit random */
            lua_pushinteger(L, (lua_Integer)r);
            return 1;
        }
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

static void need_test_ap(lua_State *L, const char *fn)
{
    if (!(SC(L)->t.features & SIM_TARGET_TEST_AP))
        sc_error(L, "%s: target %s has no test AP (this needs the simulator-only target)",
                   fn, SC(L)->t.name);
}

/* gbvp.ap_request(intf, cport, type [, payload [, response_len]]) -> status, response */
static int l_ap_request(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need_test_ap(L, "gbvp.ap_request");
    uint8_t intf = check_intf_id(L, 1);
    lua_Integer cport = luaL_checkinteger(L, 2), type = luaL_checkinteger(L, 3);
    size_t n = 0;
    const char *payload = luaL_optlstring(L, 4, "", &n);
    lua_Integer rlen = luaL_optinteger(L, 5, 0);
    if (cport < 0 || cport > 0xffff || type < 1 || type > 0x7f || rlen < 0 || rlen > 2040 ||
        n > 2040)
        return sc_error(L, "gbvp.ap_request: bad cport, type (1..0x7f) or size");
    uint8_t resp[2040];
    int rc = sc->t.ops->ap_request(sc->t.ctx, intf, (uint16_t)cport, (uint8_t)type, payload, n,
                              resp, (size_t)rlen);
    after_run(L, sc);
    lua_pushinteger(L, rc);
    lua_pushlstring(L, (const char *)resp, rc == 0 ? (size_t)rlen : 0);
    return 2;
}

static int l_ap_traced(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need_test_ap(L, "gbvp.ap_traced");
    lua_pushboolean(L, sc->t.ops->ap_traced(sc->t.ctx, check_text(L, 1)));
    return 1;
}

static int l_ap_trace_clear(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need_test_ap(L, "gbvp.ap_trace_clear");
    sc->t.ops->ap_trace_clear(sc->t.ctx);
    return 0;
}

static void step_hook(void *ctx, const char *what)
{
    sim_scenario *sc = ctx;
    lua_State *L = sc->L;
    if (sc->step_hook_ref == LUA_NOREF || sc->hook_error || sc->hook_skipped ||
        !strstr(what, sc->step_needle))
        return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, sc->step_hook_ref);
    lua_pushstring(L, what);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        if (lua_touserdata(L, -1) == sc_skip_marker())
            sc->hook_skipped = true;
        else if (lua_touserdata(L, -1) == sc_assert_abort_marker())
            sc->hook_error = strdup("gbvp.assert failed inside gbvp.on_ap_step");
        else if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
            sc->hook_error = strdup(lua_tostring(L, -1));
        else {
            sc->hook_error = strdup(lua_pushfstring(L, "gbvp.on_ap_step: the callback raised "
                                                   "a %s value", luaL_typename(L, -1)));
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

/* gbvp.on_ap_step(needle, fn(line)) / gbvp.on_ap_step(nil): fn runs after each AP step
 * whose trace line contains needle (e.g. "GET_MANIFEST_SIZE") */
static int l_on_ap_step(lua_State *L)
{
    sim_scenario *sc = SC(L);
    need_test_ap(L, "gbvp.on_ap_step");
    if (sc->step_hook_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, sc->step_hook_ref);
        sc->step_hook_ref = LUA_NOREF;
    }
    free(sc->step_needle);
    sc->step_needle = NULL;
    if (lua_isnoneornil(L, 1)) {
        sc->t.ops->ap_step_hook(sc->t.ctx, NULL, NULL);
        return 0;
    }
    const char *needle = check_text(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    sc->step_needle = strdup(needle);
    if (!sc->step_needle)
        return sc_error(L, "out of memory");
    lua_pushvalue(L, 2);
    sc->step_hook_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    sc->t.ops->ap_step_hook(sc->t.ctx, step_hook, sc);
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
        { "link", l_link },
        { "fault", l_fault },
        { "link_stats", l_link_stats },
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
    unsigned f = sc->t.features;
    luaL_newlib(L, fns);
    /* the typed backend commands: one closure each over its table entry */
    for (const sim_typed_cmd *c = sim_typed_cmds; c->name; c++) {
        lua_pushlightuserdata(L, (void *)c);
        lua_pushcclosure(L, l_typed, 1);
        lua_setfield(L, -2, c->name);
    }
    lua_pushstring(L, sc->t.name ? sc->t.name : "unknown");
    lua_setfield(L, -2, "target");
    lua_pushinteger(L, sc->t.ops->num_slots(sc->t.ctx));
    lua_setfield(L, -2, "slots");
    lua_pushboolean(L, (f & SIM_TARGET_GUEST) != 0);
    lua_setfield(L, -2, "has_guest");
    /* What the target offers, so one script can run on several targets. */
    lua_createtable(L, 0, 6);
    lua_pushboolean(L, true);
    lua_setfield(L, -2, "backends");
    lua_pushboolean(L, true);
    lua_setfield(L, -2, "cmd");
    lua_pushboolean(L, (f & SIM_TARGET_TEST_AP) != 0);
    lua_setfield(L, -2, "test_ap");
    lua_pushboolean(L, (f & SIM_TARGET_GUEST) != 0);
    lua_setfield(L, -2, "guest");
    lua_pushboolean(L, (f & SIM_TARGET_LINK_MODEL) != 0);
    lua_setfield(L, -2, "link_model");
    lua_pushboolean(L, (f & SIM_TARGET_LOCKSTEP) != 0);
    lua_setfield(L, -2, "lockstep");
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
