// SPDX-License-Identifier: MIT
// libFuzzer target: the argument checking of the scenario API (gbvp/scenario/scenario_api.c,
// docs/scenarios.md), in the engine's sandboxed Lua state against the simulator with the
// test AP (gbvp/target/target_local.h, catalog modules, 4 slots). A fresh simulator and
// engine per input, so an input means the same every time.
//
// The first byte picks the form of the rest:
//  - even: calls generated from the bytes. Until the input ends (at most 24 calls): u8
//    the function (the gbvp table's functions, then the typed backend commands), u8 the
//    number of arguments (0..4), and per argument a u8 kind and its value: nil, booleans,
//    small, 32-bit and edge integers (0, -1, 255, 2^31, 2^53, maxinteger, ...), edge
//    floats (-0.0, 1e308, huge, NaN, 2^63, ...), strings from a pool (module names, gears,
//    backend command lines) or from the input (any bytes), tables (options, byte arrays,
//    one whose __index raises) and functions. Each call is written as
//    `chk(pcall(gbvp.NAME, ...))` in the generated script;
//  - odd: the rest is the script itself (Lua text; tests/fuzz/fuzz_scenario_api.dict
//    holds the API's names).
// The script is run with sim_scenario_run_string, stopped after a budget of Lua
// instructions or of CPU time (a count hook raising an error, then raising again at every
// instruction so that no pcall loop outlives it), with the engine's memory limit at 16 MiB, on the target
// wrapped by fuzz_target_guard.h (at most 2 hours of simulated time per input).
//
// Checked besides "no crash, no leak, no sanitizer report":
//  - a call that fails raises a string of at least 8 characters (or the engine's own
//    assert/skip markers), never "(null)" or a nil/number error object;
//  - the run's result agrees with what the engine recorded: 1 exactly when a check failed
//    or the script ended in an error, and a script error is a non-empty message.
// FUZZ_VERBOSE=1 prints the generated script and the TAP output.
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gbvp/scenario/scenario_internal.h"
#include "gbvp/target/target_local.h"
#include "gbvp/target/typed.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/fuzz_target_guard.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool verbose;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    verbose = getenv("FUZZ_VERBOSE") != NULL;
    return 0;
}

static void fail(const char *what, const char *detail, const char *script)
{
    fprintf(stderr, "fuzz_scenario_api: %s: %s\n--- script ---\n%s\n", what,
            detail ? detail : "(none)", script);
    abort();
}

/* ---- the generated script ---- */

static const char *const functions[] = {
    "insert", "remove", "module", "slot_interface", "wait", "now", "wait_for",
    "interface_state", "interface", "link", "fault", "link_stats", "cmd", "intf_oops",
    "link_mode", "guest", "check", "skip", "assert", "check_eq", "assert_eq", "log",
    "stats", "random", "seed", "arg", "ap_request", "ap_traced", "ap_trace_clear",
    "on_ap_step", NULL,
};

static const char *const edge_ints[] = {
    "0", "-1", "1", "2", "3", "4", "7", "8", "255", "256", "65535", "65536", "2147483647",
    "2147483648", "-2147483648", "4294967295", "4294967296", "9007199254740993",
    "math.maxinteger", "math.mininteger", "0x7f", "0x8000",
};

static const char *const edge_floats[] = {
    "0.5", "-0.0", "1e308", "-1e308", "math.huge", "-math.huge", "(0/0)", "3.9999",
    "1e-300", "2^63", "-2^63", "2^53", "86400000.0", "86400001.0", "0.001", "1e-3",
};

static const char *const strings[] = {
    "", "sensor", "battery", "dual", "uart", "keyboard", "light", "loopback", "vibrator",
    "nope", "ap", "HS-G2B", "PWM-G3", "HS-G4A", "A", "B", "capacity", "voltage_now",
    "battery set capacity 20", "gpio get 1", "help", "uart send abc", "hid input 0 4",
    "i2c read 0x48 0 2", "activated", "absent", "x=1", "GET_MANIFEST_SIZE",
    "virtual-modules/catalog/sensor.mnfs", "/nonexistent/x.mnfs", "../x.mnfs",
    "%s%n%d", "\\0", "\\255\\254",
};

static const char *const tables[] = {
    "{}", "{1,2,3}", "{0,0,4,0,0,0,0,0}", "{settle=false}", "{settle=true}",
    "{gear='HS-G2B',series='A',lanes=2}", "{gear='PWM-G1'}", "{mode='x'}", "{lanes=3}",
    "{ber=1e-3}", "{ber=1}", "{drop=0.5}", "{down=true,down_for=5}", "{down=false}",
    "{delay=-1}", "{delay=10,drop=0.1}", "{1,'a',{}}", "{[1]=256}", "{-1}", "{1.5}",
    "{foo=1}", "setmetatable({}, {__index=function() error('index raises') end})",
    "setmetatable({}, {__index=function() return 1 end})",
};

static const char *const funcs[] = {
    "function() return true end", "function() return false end",
    "function() error('raised by a callback') end", "function() return gbvp end",
    "print", "function(...) return ... end", "gbvp.now",
};

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            fprintf(stderr, "fuzz_scenario_api: out of memory\n");
            abort();
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

static void puts_(buf *b, const char *s)
{
    put(b, s, strlen(s));
}

#define PICK(tab, r) ((tab)[u8(r) % (sizeof(tab) / sizeof((tab)[0]))])

/* A Lua string literal of any bytes: "\ddd" escapes. */
static void put_bytes(buf *b, const uint8_t *p, size_t n)
{
    puts_(b, "\"");
    for (size_t i = 0; i < n; i++) {
        char e[8];
        snprintf(e, sizeof e, "\\%03u", p[i]);
        puts_(b, e);
    }
    puts_(b, "\"");
}

static void put_arg(buf *b, in *r)
{
    char num[48];
    size_t n;
    const uint8_t *p;
    switch (u8(r) % 12) {
    case 0: puts_(b, "nil"); break;
    case 1: puts_(b, "false"); break;
    case 2: puts_(b, "true"); break;
    case 3:
        snprintf(num, sizeof num, "%d", (int)(int8_t)u8(r));
        puts_(b, num);
        break;
    case 4:
        snprintf(num, sizeof num, "%d", (int)(int32_t)u32(r));
        puts_(b, num);
        break;
    case 5: puts_(b, PICK(edge_ints, r)); break;
    case 6: puts_(b, PICK(edge_floats, r)); break;
    case 7:
        puts_(b, "\"");
        puts_(b, PICK(strings, r));
        puts_(b, "\"");
        break;
    case 8:
        p = bytes(r, u8(r) % 64, &n);
        put_bytes(b, p, n);
        break;
    case 9: puts_(b, PICK(tables, r)); break;
    case 10: puts_(b, PICK(funcs, r)); break;
    default: /* an array of small numbers, some out of the byte range */
        n = u8(r) % 16;
        puts_(b, "{");
        for (size_t i = 0; i < n; i++) {
            snprintf(num, sizeof num, "%s%d", i ? "," : "", (int)(u16(r) % 300) - 8);
            puts_(b, num);
        }
        puts_(b, "}");
        break;
    }
}

/* The script the input describes (caller frees). */
static char *script(const uint8_t *data, size_t size, size_t ntyped)
{
    buf b = { 0 };
    if (size && (data[0] & 1)) {
        put(&b, (const char *)data + 1, size - 1);
        puts_(&b, ""); /* a script from no bytes is the empty string */
        /* stop at an embedded NUL, as sim_scenario_run_string takes a C string */
        return b.s;
    }
    in r = { data + (size ? 1 : 0), size ? size - 1 : 0 };
    size_t nfn = sizeof functions / sizeof functions[0] - 1;
    puts_(&b, "local chk = __fuzz_check\n");
    for (unsigned k = 0; k < 24 && r.n; k++) {
        size_t f = u8(&r) % (nfn + ntyped);
        const char *name = f < nfn ? functions[f] : sim_typed_cmds[f - nfn].name;
        puts_(&b, "chk(pcall(gbvp.");
        puts_(&b, name);
        unsigned nargs = u8(&r) % 5;
        for (unsigned a = 0; a < nargs; a++) {
            puts_(&b, ", ");
            put_arg(&b, &r);
        }
        puts_(&b, "))\n");
    }
    if (!b.s)
        puts_(&b, "");
    return b.s;
}

/* ---- the checks and the instruction budget ---- */

#define BUDGET_COUNT 1000  /* the hook runs every this many instructions */
#define BUDGET_CALLS 200   /* 200 000 instructions per input */
/* ... and CPU seconds: one instruction can be a megabyte of string.rep (a loop of them
 * ran past libFuzzer's 25 s timeout on 200 000 instructions), which no count of Lua
 * instructions bounds */
#define BUDGET_CPU_NS 3000000000LL
#define MEM_LIMIT (16u << 20) /* the engine's memory limit (a long string.rep stays quick) */

typedef struct budget {
    unsigned calls;
    long long cpu_start_ns;
    const char *script; /* for fail() */
    const uint8_t *data; /* the input, which may itself say "(null)" */
    size_t size;
} budget;

static bool input_has(const budget *bu, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; n && i + n <= bu->size; i++)
        if (!memcmp(bu->data + i, s, n))
            return true;
    return false;
}

static budget *budget_of(lua_State *L)
{
    return *(budget **)lua_getextraspace(L);
}

static long long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    budget *bu = budget_of(L);
    if (++bu->calls < BUDGET_CALLS && cpu_ns() - bu->cpu_start_ns < BUDGET_CPU_NS)
        return;
    /* from now on at every instruction, so a pcall loop cannot catch its way on */
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    luaL_error(L, "fuzz: the input ran out of its instruction budget");
}

/* __fuzz_check(ok, err, ...): what a failed pcall raised must be a message. */
static int l_check(lua_State *L)
{
    if (lua_toboolean(L, 1))
        return 0;
    budget *bu = budget_of(L);
    if (lua_touserdata(L, 2) == sc_assert_abort_marker() ||
        lua_touserdata(L, 2) == sc_skip_marker())
        return 0;
    if (lua_type(L, 2) != LUA_TSTRING)
        fail("an API error is not a string", luaL_typename(L, 2), bu->script);
    const char *m = lua_tostring(L, 2);
    if (strstr(m, "fuzz: the input ran out"))
        return 0;
    if (strlen(m) < 8)
        fail("an API error message is too short to say anything", m, bu->script);
    /* a printf of a NULL string; unless the input itself says "(null)" (in a module name,
     * say), which the message may quote */
    if (strstr(m, "(null)") && !input_has(bu, "(null)"))
        fail("an API error message has a \"(null)\" in it", m, bu->script);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t ntyped = 0;
    while (sim_typed_cmds[ntyped].name)
        ntyped++;
    char *code = script(data, size, ntyped);
    char err[320];
    sim_local_config lc = { .sim = { .num_slots = 4 }, .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&lc, err, sizeof err);
    if (!l) {
        fprintf(stderr, "fuzz_scenario_api: cannot start the simulator: %s (run from the "
                "repository root)\n", err);
        exit(1);
    }
    char *tap = NULL;
    size_t taplen = 0;
    FILE *f = open_memstream(&tap, &taplen);
    if (!f) {
        fprintf(stderr, "fuzz_scenario_api: open_memstream failed\n");
        exit(1);
    }
    static const char *const args[] = { "x=1", "name=fuzz" };
    sim_scenario_config c = { .seed = 1, .timeout_s = 0, .tap = f, .args = args, .nargs = 2,
                              .mem_limit = MEM_LIMIT };
    guard g;
    guard_init(&g, sim_local_target(l), SIM_S(7200));
    sim_scenario *sc = sim_scenario_new(&c, &g.t, err, sizeof err);
    if (!sc) {
        fprintf(stderr, "fuzz_scenario_api: %s\n", err);
        exit(1);
    }
    budget bu = { .script = code, .data = data, .size = size, .cpu_start_ns = cpu_ns() };
    *(budget **)lua_getextraspace(sc->L) = &bu;
    lua_pushcfunction(sc->L, l_check);
    lua_setglobal(sc->L, "__fuzz_check");
    lua_sethook(sc->L, budget_hook, LUA_MASKCOUNT, BUDGET_COUNT);
    int rc = sim_scenario_run_string(sc, "=fuzz.lua", code);
    fflush(f);
    if (verbose)
        printf("--- script ---\n%s\n--- TAP ---\n%s", code, tap ? tap : "");
    const char *e = sim_scenario_error(sc);
    if (e && !*e)
        fail("the script error is empty", e, code);
    if (rc != ((sim_scenario_failed(sc) || e) ? 1 : 0))
        fail("the result disagrees with the checks and the error", e, code);
    if (rc && !e && !sim_scenario_first_failure(sc))
        fail("a failed run names no failure", NULL, code);
    sim_scenario_free(sc);
    sim_local_free(l);
    fclose(f);
    free(tap);
    free(code);
    return 0;
}
