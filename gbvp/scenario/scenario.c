// SPDX-License-Identifier: MIT
// The scenario engine's life cycle: a sandboxed Lua 5.4 state (no io, os or package: a
// scenario reaches the world only through the gbvp table), the checks it records as TAP,
// script errors reported as file:line, the seeded generator and the wall-clock limit.
#include "gbvp/scenario/scenario_internal.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Identity of the error object gbvp.assert raises after recording its failure. */
static const char assert_abort_key = 0;
/* Identity of the error object gbvp.skip raises. */
static const char skip_key = 0;

void *sc_skip_marker(void)
{
    return (void *)&skip_key;
}

static char *dupstr(const char *s)
{
    return s ? strdup(s) : NULL;
}

int sc_error(lua_State *L, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    luaL_where(L, 1);
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    return lua_error(L);
}

sim_scenario *sc_from_lua(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

/* The allocator carries the engine pointer, so every C function finds it. It keeps the
 * state under its memory limit (osize is the block's size only when ptr is not NULL). */
static void *sc_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sim_scenario *sc = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        sc->mem -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > sc->mem_limit - sc->mem) {
        sc->mem_refused = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p)
        sc->mem = sc->mem - old + nsize;
    return p;
}

uint64_t sc_random_u64(sim_scenario *sc)
{
    return sim_rng_next(&sc->rng);
}

void sc_emit(sim_scenario *sc, sim_scenario_event ev, unsigned slot, const char *text)
{
    if (sc->cfg.event)
        sc->cfg.event(sc->cfg.event_ctx, ev, slot, text);
}

/* TAP descriptions must not contain '#' (directive) or newlines. */
static void tap_text(FILE *f, const char *s)
{
    for (; s && *s; s++)
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s == '#' ? '_' : *s, f);
}

static void record(sim_scenario *sc, bool ok, const char *name, const char *where,
                   const char *detail, const char *skip)
{
    if (sc->nchecks == sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 32;
        sc_check *n = realloc(sc->checks, cap * sizeof *n);
        if (!n) {
            fprintf(stderr, "gbvp scenario: out of memory recording a check\n");
            sc->failed++;
            return;
        }
        sc->checks = n;
        sc->cap = cap;
    }
    sc_check *c = &sc->checks[sc->nchecks++];
    c->ok = ok;
    c->name = dupstr(name && *name ? name : "check");
    c->where = dupstr(where);
    c->detail = ok ? NULL : dupstr(detail ? detail : "failed");
    c->skip = dupstr(skip);
    if (ok) {
        sc->passed++;
    } else {
        sc->failed++;
        if (!sc->first_failure) {
            size_t n = strlen(c->name) + (where ? strlen(where) : 0) + strlen(c->detail) + 8;
            sc->first_failure = malloc(n);
            if (sc->first_failure)
                snprintf(sc->first_failure, n, "%s%s%s: %s", where ? where : "",
                         where ? ": " : "", c->name, c->detail);
        }
    }
    fprintf(sc->tap, "%s %zu - ", ok ? "ok" : "not ok", sc->nchecks);
    tap_text(sc->tap, c->name);
    if (skip) {
        fputs(" # SKIP ", sc->tap);
        tap_text(sc->tap, skip);
    }
    fputc('\n', sc->tap);
    if (!ok) {
        fprintf(sc->tap, "  ---\n  message: \"");
        for (const char *p = c->detail; *p; p++)
            fputs(*p == '"' ? "\\\"" : *p == '\\' ? "\\\\" : *p == '\n' ? "\\n" : (char[]){ *p, 0 },
                  sc->tap);
        fprintf(sc->tap, "\"\n");
        if (where)
            fprintf(sc->tap, "  at: %s\n", where);
        fprintf(sc->tap, "  ...\n");
    }
    fflush(sc->tap);
    sc_emit(sc, SIM_SCENARIO_EV_ASSERTION, ok, c->name);
}

void sc_record(sim_scenario *sc, bool ok, const char *name, const char *where,
               const char *detail)
{
    record(sc, ok, name, where, detail, NULL);
}

void sc_record_skip(sim_scenario *sc, const char *name, const char *reason)
{
    record(sc, true, name, NULL, NULL, reason && *reason ? reason : "skipped");
}

static bool past(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec ||
           (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* Count hook: stops a script that runs past its wall-clock limit (an endless loop). Once
 * past it, the hook runs at every instruction: a pcall that caught the error (a loop
 * around pcall, an endless on_ap_step callback) cannot run on, the error climbs to the
 * top of the script. */
static void deadline_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    sim_scenario *sc = sc_from_lua(L);
    if (!sc->expired) {
        if (!past(&sc->deadline))
            return;
        sc->expired = true;
        lua_sethook(L, deadline_hook, LUA_MASKCOUNT, 1);
    }
    /* level 0: a hook has no frame of its own, the running function is the script's */
    luaL_where(L, 0);
    lua_pushfstring(L, "the scenario ran past its time limit of %d s (an endless loop?)",
                    (int)sc->cfg.timeout_s);
    lua_concat(L, 2);
    lua_error(L);
}

/* The watchdog: a script stuck inside one C call (a long gbvp.wait on a slow target, a
 * pattern search that backtracks for hours) runs no instruction the hook could stop.
 * When it is still running stuck_grace_ms past its deadline the process ends, saying
 * why, with exit status 1: the documented limit holds, not only under gbvp test. */
static void *watchdog_main(void *arg)
{
    sim_scenario *sc = arg;
    unsigned grace = sc->cfg.stuck_grace_ms;
    struct timespec until = sc->deadline;
    until.tv_sec += grace / 1000;
    until.tv_nsec += (long)(grace % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&sc->watchdog_mu);
    int rc = 0;
    while (!sc->watchdog_stop && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&sc->watchdog_cv, &sc->watchdog_mu, &until);
    bool stop = sc->watchdog_stop;
    pthread_mutex_unlock(&sc->watchdog_mu);
    if (stop)
        return NULL;
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "gbvp scenario: error: the scenario ran past its time limit of %u s "
                     "inside one call that cannot be interrupted (a long gbvp.wait, a "
                     "costly string pattern?); ending the process\n",
                     sc->cfg.timeout_s);
    /* the main thread is stuck, maybe inside stdio: only write(2) and _exit are safe */
    if (write(STDERR_FILENO, msg, (size_t)n) < 0)
        _exit(1);
    _exit(1);
}

static void watchdog_start(sim_scenario *sc)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&sc->watchdog_mu, NULL);
    pthread_cond_init(&sc->watchdog_cv, &attr);
    pthread_condattr_destroy(&attr);
    sc->watchdog_stop = false;
    sc->watchdog_on = pthread_create(&sc->watchdog, NULL, watchdog_main, sc) == 0;
    if (!sc->watchdog_on) {
        pthread_cond_destroy(&sc->watchdog_cv);
        pthread_mutex_destroy(&sc->watchdog_mu);
    }
}

static void watchdog_stop(sim_scenario *sc)
{
    if (!sc->watchdog_on)
        return;
    pthread_mutex_lock(&sc->watchdog_mu);
    sc->watchdog_stop = true;
    pthread_cond_signal(&sc->watchdog_cv);
    pthread_mutex_unlock(&sc->watchdog_mu);
    pthread_join(sc->watchdog, NULL);
    pthread_cond_destroy(&sc->watchdog_cv);
    pthread_mutex_destroy(&sc->watchdog_mu);
    sc->watchdog_on = false;
}

static void open_sandbox(lua_State *L)
{
    static const luaL_Reg libs[] = {
        { LUA_GNAME, luaopen_base },       { LUA_TABLIBNAME, luaopen_table },
        { LUA_STRLIBNAME, luaopen_string }, { LUA_MATHLIBNAME, luaopen_math },
        { LUA_UTF8LIBNAME, luaopen_utf8 }, { NULL, NULL },
    };
    for (const luaL_Reg *l = libs; l->name; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    /* Nothing that reads files or escapes the sandbox. */
    static const char *const unsafe[] = { "dofile", "loadfile", "load", "require",
                                          "collectgarbage", NULL };
    for (const char *const *u = unsafe; *u; u++) {
        lua_pushnil(L);
        lua_setglobal(L, *u);
    }
}

sim_scenario *sim_scenario_new(const sim_scenario_config *cfg, const sim_target *t, char *err,
                               size_t errlen)
{
    if (!t || !t->ops) {
        snprintf(err, errlen, "no scenario target");
        return NULL;
    }
    sim_scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sc->cfg = *cfg;
    sc->t = *t;
    sc->tap = cfg->tap ? cfg->tap : stdout;
    sc->step_hook_ref = LUA_NOREF;
    sc->mem_limit = cfg->mem_limit ? cfg->mem_limit : SC_MEM_LIMIT;
    sim_rng_seed(&sc->rng, cfg->seed);
    sc->L = lua_newstate(sc_alloc, sc);
    if (!sc->L) {
        free(sc);
        snprintf(err, errlen, "cannot create a Lua state (out of memory)");
        return NULL;
    }
    open_sandbox(sc->L);
    sc_api_open(sc);
    return sc;
}

void sim_scenario_free(sim_scenario *sc)
{
    if (!sc)
        return;
    if (sc->t.features & SIM_TARGET_TEST_AP)
        sc->t.ops->ap_step_hook(sc->t.ctx, NULL, NULL);
    lua_close(sc->L);
    for (size_t i = 0; i < sc->nchecks; i++) {
        free(sc->checks[i].name);
        free(sc->checks[i].where);
        free(sc->checks[i].detail);
        free(sc->checks[i].skip);
    }
    free(sc->checks);
    free(sc->error);
    free(sc->first_failure);
    free(sc->step_needle);
    free(sc->hook_error);
    free(sc);
}

/* Message handler: keeps the assertion marker, adds a traceback to anything else. */
static int msgh(lua_State *L)
{
    if (lua_touserdata(L, 1) == &assert_abort_key || lua_touserdata(L, 1) == &skip_key)
        return 1;
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

void *sc_assert_abort_marker(void)
{
    return (void *)&assert_abort_key;
}

static int run(sim_scenario *sc, int load_status)
{
    lua_State *L = sc->L;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (sc->ran) {
        lua_pop(L, 1);
        return 1;
    }
    sc->ran = true;
    fprintf(sc->tap, "TAP version 13\n");
    fprintf(sc->tap, "# seed %llu\n", (unsigned long long)sc->cfg.seed);
    int status = load_status;
    if (status == LUA_OK) {
        if (sc->cfg.timeout_s) {
            sc->has_deadline = true;
            sc->deadline = t0;
            sc->deadline.tv_sec += sc->cfg.timeout_s;
            lua_sethook(L, deadline_hook, LUA_MASKCOUNT, 10000);
            if (sc->cfg.stuck_grace_ms)
                watchdog_start(sc);
        }
        lua_pushcfunction(L, msgh);
        lua_insert(L, -2);
        status = lua_pcall(L, 0, 0, -2);
        lua_remove(L, status == LUA_OK ? -1 : -2);
        lua_sethook(L, NULL, 0, 0);
        watchdog_stop(sc);
    }
    if (status != LUA_OK) {
        if (lua_touserdata(L, -1) == &skip_key) {
            /* a skip ends the script normally */
        } else if (lua_touserdata(L, -1) == &assert_abort_key) {
            fprintf(sc->tap, "# stopped at a failed gbvp.assert\n");
        } else {
            const char *m = lua_tostring(L, -1);
            m = m ? m : "error object is not a string";
            char mem[96];
            if (status == LUA_ERRMEM && sc->mem_refused) {
                bool mib = sc->mem_limit % ((size_t)1 << 20) == 0;
                snprintf(mem, sizeof mem, "the scenario ran past its memory limit of %zu %s",
                         mib ? sc->mem_limit >> 20 : sc->mem_limit >> 10, mib ? "MiB" : "KiB");
                m = mem;
            }
            /* First line is "file:line: message"; the traceback follows for stderr. */
            size_t first = strcspn(m, "\n");
            sc->error = strndup(m, first);
            fprintf(stderr, "gbvp scenario: %s\n", m);
            sc_record(sc, false, "script ran to its end", NULL, sc->error);
        }
        lua_pop(L, 1);
    }
    /* A script that ran to its end and checked nothing has shown nothing: a skip says so
     * in TAP and JUnit (a lost check or a loop that ran zero times would otherwise pass
     * unseen in a regression run). */
    if (sc->nchecks == 0)
        sc_record_skip(sc, "scenario", "it made no checks");
    fprintf(sc->tap, "1..%zu\n", sc->nchecks);
    fprintf(sc->tap, "# %u passed, %u failed\n", sc->passed, sc->failed);
    fflush(sc->tap);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    sc->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return sc->failed || sc->error ? 1 : 0;
}

int sim_scenario_run_file(sim_scenario *sc, const char *path)
{
    return run(sc, luaL_loadfile(sc->L, path));
}

int sim_scenario_run_string(sim_scenario *sc, const char *chunkname, const char *code)
{
    return run(sc, luaL_loadbuffer(sc->L, code, strlen(code), chunkname));
}

unsigned sim_scenario_passed(const sim_scenario *sc)
{
    return sc->passed;
}

unsigned sim_scenario_failed(const sim_scenario *sc)
{
    return sc->failed;
}

const char *sim_scenario_error(const sim_scenario *sc)
{
    return sc->error;
}

const char *sim_scenario_first_failure(const sim_scenario *sc)
{
    return sc->first_failure;
}
