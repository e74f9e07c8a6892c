// SPDX-License-Identifier: MIT
// Inside the scenario engine: the engine state shared by scenario.c (life cycle, checks,
// TAP), scenario_api.c (the gbvp table) and scenario_report.c (JUnit XML).
#ifndef GBVP_GBVP_SCENARIO_SCENARIO_INTERNAL_H
#define GBVP_GBVP_SCENARIO_SCENARIO_INTERNAL_H

#include <lua.h>
#include <pthread.h>
#include <time.h>

#include "event-kernel/rng.h"
#include "gbvp/scenario/scenario.h"

typedef struct sc_check {
    bool ok;
    char *name;
    char *where;  /* "file:line" of the check */
    char *detail; /* why it failed; NULL when it passed */
    char *skip;   /* a skipped scenario: the reason (ok is true) */
} sc_check;

struct sim_scenario {
    sim_scenario_config cfg;
    sim_target t;
    lua_State *L;
    FILE *tap;
    sc_check *checks;
    size_t nchecks, cap;
    unsigned passed, failed;
    char *error;          /* script error, "file:line: message" */
    char *first_failure;
    sim_rng rng;          /* gbvp.random */
    struct timespec deadline;
    bool has_deadline, ran;
    bool expired;         /* past the deadline: every Lua instruction raises the error */
    /* the watchdog thread that ends a script stuck in C past its deadline */
    pthread_t watchdog;
    pthread_mutex_t watchdog_mu;
    pthread_cond_t watchdog_cv;
    bool watchdog_on, watchdog_stop;
    int step_hook_ref;    /* LUA_NOREF or the Lua function of gbvp.on_ap_step */
    char *step_needle;
    char *hook_error;     /* an error raised inside the step hook, raised again later */
    bool hook_skipped;    /* gbvp.skip inside the step hook: the skip is raised again later */
    uint64_t active_seen[4]; /* interface ids seen active (ACTIVATED events) */
    double wall_s;        /* how long the run took */
    size_t mem;           /* bytes the Lua state holds; allocations past mem_limit fail */
    size_t mem_limit;     /* cfg.mem_limit or SC_MEM_LIMIT */
    bool mem_refused;     /* one did: the script's "not enough memory" is this limit */
};

/* The most a script's Lua state may hold by default: a runaway script gets an error, not
 * the host's memory. */
#define SC_MEM_LIMIT ((size_t)256 << 20)

/* Records one check and writes its TAP line. where may be NULL. */
void sc_record(sim_scenario *sc, bool ok, const char *name, const char *where,
               const char *detail);
void sc_emit(sim_scenario *sc, sim_scenario_event ev, unsigned slot, const char *text);
/* The next 64 random bits of the seeded generator. */
uint64_t sc_random_u64(sim_scenario *sc);
/* Installs the gbvp table into the engine's Lua state. */
void sc_api_open(sim_scenario *sc);
/* The error object gbvp.assert raises after recording its failure (stops the script). */
void *sc_assert_abort_marker(void);
/* The error object gbvp.skip raises after recording the skip (ends the script, passed). */
void *sc_skip_marker(void);
/* Records a skip ("ok N - name # SKIP reason"). */
void sc_record_skip(sim_scenario *sc, const char *name, const char *reason);
/* luaL_error with the full printf format set: raises "file:line: message" naming the
 * script line that called the running C function. */
int sc_error(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The engine from inside a Lua C function. */
sim_scenario *sc_from_lua(lua_State *L);

#endif
