// SPDX-License-Identifier: MIT
// The scenario engine: runs a Lua 5.4 script (docs/scenarios.md) against a target
// (gbvp/target/target.h: a simulator with the test AP or a guest, in this process or
// behind a control socket) and turns its checks into TAP and JUnit XML.
//
// The engine never reads a socket or sleeps itself: time passes only through the target's
// advance operation; the one clock it reads is the wall-clock limit that stops a runaway
// script.
#ifndef GBVP_GBVP_SCENARIO_SCENARIO_H
#define GBVP_GBVP_SCENARIO_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gbvp/target/target.h"

/* Events a scenario produces (the control socket forwards them). */
typedef enum sim_scenario_event {
    SIM_SCENARIO_EV_INSERTED,  /* slot, text = module */
    SIM_SCENARIO_EV_REMOVED,   /* slot */
    SIM_SCENARIO_EV_ACTIVATED, /* slot = interface id */
    SIM_SCENARIO_EV_ASSERTION, /* slot = 1 passed / 0 failed, text = its name */
    SIM_SCENARIO_EV_LOG,       /* text */
} sim_scenario_event;

typedef struct sim_scenario_config {
    uint64_t seed;           /* gbvp.random; the same seed replays the same run */
    unsigned timeout_s;      /* wall-clock limit of one script; 0 = none */
    FILE *tap;               /* TAP output; NULL = stdout */
    /* "name=value" strings scripts read with gbvp.arg(name, default); borrowed. */
    const char *const *args;
    size_t nargs;
    void (*event)(void *ctx, sim_scenario_event ev, unsigned slot, const char *text);
    void *event_ctx;
    /* Called after every step that let the AP run (e.g. to serve the control socket). */
    void (*poll)(void *ctx);
    void *poll_ctx;
    /* The most memory the script's Lua state may hold (an allocation past it fails with
     * an error naming the limit); 0 = 256 MiB. */
    size_t mem_limit;
    /* How long past timeout_s a script stuck inside one C call (a long gbvp.wait, a
     * pattern search), where the Lua hook cannot stop it, may go on before the process
     * is ended with exit status 1; 0 = never (a process with children to stop, such as
     * gbvp run's QEMU and simulator, must not end that way). */
    unsigned stuck_grace_ms;
} sim_scenario_config;

typedef struct sim_scenario sim_scenario;

/* NULL with a reason in err. The target is borrowed and must outlive the engine. */
sim_scenario *sim_scenario_new(const sim_scenario_config *cfg, const sim_target *t, char *err,
                               size_t errlen);
void sim_scenario_free(sim_scenario *sc);

/* Runs a script file / a string (chunkname names it in messages). Writes TAP as it goes
 * and the plan at the end. Returns 0 when every check passed and the script ended without
 * error, 1 otherwise. Call once per engine. */
int sim_scenario_run_file(sim_scenario *sc, const char *path);
int sim_scenario_run_string(sim_scenario *sc, const char *chunkname, const char *code);

unsigned sim_scenario_passed(const sim_scenario *sc);
unsigned sim_scenario_failed(const sim_scenario *sc);
/* The script error ("file:line: message"), NULL when the script ended normally. */
const char *sim_scenario_error(const sim_scenario *sc);
/* The first failed check as "file:line: name: detail", NULL when none failed. */
const char *sim_scenario_first_failure(const sim_scenario *sc);

/* Writes the results to `f` as a JUnit XML testsuite named `suite` (flushed). 0, or -errno
 * when the stream refused them. */
int sim_scenario_write_junit(const sim_scenario *sc, FILE *f, const char *suite);
/* The same as a writer taking its arguments through ctx (a report written later, as
 * gbvp/out_file.h's sim_out_file_write does). */
typedef struct sim_scenario_junit {
    const sim_scenario *sc;
    const char *suite;
} sim_scenario_junit;
int sim_scenario_junit_write(FILE *f, void *ctx);
/* Writes s as XML character data or attribute text: markup escaped, and every byte that
 * is not part of a UTF-8 sequence XML 1.0 allows (control characters, invalid UTF-8)
 * written as '?', so that a report is well-formed whatever a script named its checks. */
void sim_scenario_xml_text(FILE *f, const char *s);

#endif
