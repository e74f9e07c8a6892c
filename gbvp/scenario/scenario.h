// SPDX-License-Identifier: MIT
// The scenario engine: runs a Lua 5.4 script (docs/scenarios.md) against a target (the
// simulator with an AP attached: the in-process 6.1-faithful test AP, or later the QEMU
// guest) and turns its checks into TAP and JUnit XML.
//
// The engine never reads a socket or sleeps itself: time passes only through the target's
// advance operation; the one clock it reads is the wall-clock limit that stops a runaway
// script.
#ifndef GBVP_SIM_SCENARIO_H
#define GBVP_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/link_fault.h"
#include "event-kernel/scheduler.h"
#include "sim/slots.h"
#include "switch-model/svc.h"

typedef struct sim_agent sim_agent; /* gbvp/agent/agent_client.h */
struct sim_agent_result;

/* An interface as the AP sees it. */
typedef struct sim_scenario_intf {
    bool known;     /* the AP created an interface object (its module was announced) */
    bool active;    /* activated (booted, ids read) */
    bool enabled;   /* control connection up, bundles created */
    bool suspended; /* runtime suspended */
    uint8_t device_id;
    unsigned bundles, bound_bundles, connections;
} sim_scenario_intf;


/* A modelled UniPro link as it is now (gbvp.link_stats), both directions summed. */
typedef struct sim_scenario_link {
    char mode[32];  /* e.g. "HS-G2B x2" */
    char state[24]; /* "up", "down", "startup", ... */
    double ber, drop;
    uint64_t frames, replays, replay_timeouts, crc_errors, dropped, duplicates;
    /* Whole network: messages from the AP to interfaces and back, sent and delivered. */
    uint64_t to_intf_sent, to_intf_delivered, from_intf_sent, from_intf_delivered;
} sim_scenario_link;

/* What the engine drives. Operations marked optional may be NULL: the script then gets an
 * error saying the target lacks them. */
typedef struct sim_scenario_target {
    const char *name; /* e.g. "test-ap" */
    gb_svc *(*svc)(void *ctx);
    /* The slots with their live interfaces. Optional: without them, backends (GPIO,
     * battery, ...) are unavailable and insert/remove/module_name below are required. */
    gb_slots *(*slots)(void *ctx);
    /* Optional (used instead of slots when set): module changes by catalog name; 0 or a
     * negative errno with a reason in err. */
    int (*insert)(void *ctx, unsigned slot, const char *module, char *err, size_t errlen);
    int (*remove)(void *ctx, unsigned slot);
    const char *(*module_name)(void *ctx, unsigned slot);
    /* Lets the AP react to what just happened (no simulated time passes). */
    void (*settle)(void *ctx);
    /* Lets `dt` of simulated time pass, the AP reacting all along. */
    void (*advance)(void *ctx, sim_time dt);
    sim_time (*now)(void *ctx);
    /* The AP's view of interface `intf_id`. */
    void (*intf)(void *ctx, uint8_t intf_id, sim_scenario_intf *out);
    /* Optional: one request from the AP on its connection to (intf_id, cport): 0 or a
     * negative errno; the response payload (exactly resp_len bytes) into resp. */
    int (*ap_request)(void *ctx, uint8_t intf_id, uint16_t cport, uint8_t type,
                      const void *req, size_t req_len, void *resp, size_t resp_len);
    /* Optional: the AP's trace: does a line containing needle exist; clear it; a hook run
     * after each step of the AP (NULL to remove). */
    bool (*ap_traced)(void *ctx, const char *needle);
    void (*ap_trace_clear)(void *ctx);
    void (*ap_step_hook)(void *ctx, void (*hook)(void *hctx, const char *what), void *hctx);
    /* Optional: runs a guest command through the agent (sim_agent_run's contract) while
     * the target keeps serving the guest; used instead of cfg.agent when set. */
    int (*guest_run)(void *ctx, const char *cmd, int timeout_ms, struct sim_agent_result *res);
    /* Optional: a backend command line (virtual-modules/backend_cmd.h, e.g. "battery set
     * capacity 50") on interface `index` of the module in `slot`: 0 with the answer in
     * reply, or -1 with the reason. */
    int (*command)(void *ctx, unsigned slot, unsigned index, const char *line, char *reply,
                   size_t len);
    /* Optional (a target whose simulator runs the UniPro timing model): the link of the
     * interface in `slot`: a power mode change (gear "HS-G2", "PWM-G3" ...; series "A"/"B";
     * lanes "1"/"2"; each NULL = keep), a fault, its state and counters. 0 or a negative
     * errno with the reason in err. */
    int (*link_set)(void *ctx, unsigned slot, const char *gear, const char *series,
                    const char *lanes, char *err, size_t errlen);
    int (*link_fault)(void *ctx, unsigned slot, const sim_link_fault *f, char *err,
                      size_t errlen);
    int (*link_info)(void *ctx, unsigned slot, sim_scenario_link *out, char *err,
                     size_t errlen);
    void *ctx;
} sim_scenario_target;

/* Events a scenario produces (the control socket forwards them). */
typedef enum sim_scenario_event {
    SIM_SCENARIO_EV_INSERTED,  /* slot, text = module */
    SIM_SCENARIO_EV_REMOVED,   /* slot */
    SIM_SCENARIO_EV_ACTIVATED, /* slot = interface id */
    SIM_SCENARIO_EV_ASSERTION, /* slot = 1 passed / 0 failed, text = its name */
    SIM_SCENARIO_EV_LOG,       /* text */
} sim_scenario_event;

typedef struct sim_scenario_config {
    const char *catalog_dir; /* NULL = virtual-modules/catalog */
    uint64_t seed;           /* gbvp.random; the same seed replays the same run */
    unsigned timeout_s;      /* wall-clock limit of one script; 0 = none */
    FILE *tap;               /* TAP output; NULL = stdout */
    /* "name=value" strings scripts read with gbvp.arg(name, default); borrowed. */
    const char *const *args;
    size_t nargs;
    sim_agent *agent;        /* the guest agent; NULL = no guest attached (borrowed) */
    void (*event)(void *ctx, sim_scenario_event ev, unsigned slot, const char *text);
    void *event_ctx;
    /* Called after every step that let the AP run (e.g. to serve the control socket). */
    void (*poll)(void *ctx);
    void *poll_ctx;
} sim_scenario_config;

typedef struct sim_scenario sim_scenario;

/* NULL with a reason in err. The target is borrowed and must outlive the engine. */
sim_scenario *sim_scenario_new(const sim_scenario_config *cfg, const sim_scenario_target *t,
                               char *err, size_t errlen);
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

/* Writes the results as a JUnit XML testsuite named `suite`. 0 or -errno. */
int sim_scenario_write_junit(const sim_scenario *sc, const char *path, const char *suite);

/* The test-AP target: an in-process SVC, slots and the 6.1-faithful test AP (tests/ap),
 * probed and ready. NULL on a bad configuration. */
typedef struct sim_scenario_tap sim_scenario_tap;
sim_scenario_tap *sim_scenario_tap_new(unsigned num_slots, const char *catalog_dir,
                                       bool verbose);
void sim_scenario_tap_free(sim_scenario_tap *t);
const sim_scenario_target *sim_scenario_tap_target(sim_scenario_tap *t);

/* The gbvp-sim target (gbvp/scenario/target_simulator.c): the simulator object of `gbvp sim` (gblink
 * server, bridge, SVC, slots) with its AP across gblink. With test_ap, the test AP plays
 * the ES2 device and the 6.1 host in this process over a real gblink connection, time
 * simulated; without, the AP is QEMU's guest (connected at link_path), time real, and
 * agent_path (may be NULL) reaches the guest agent for gbvp.guest. NULL with a reason. */
typedef struct sim_scenario_gbvp sim_scenario_gbvp;
typedef struct sim_scenario_gbvp_config {
    const char *link_path;
    unsigned num_slots;
    const char *catalog_dir;
    bool test_ap;
    const char *agent_path;
    unsigned connect_timeout_s; /* guest: how long to wait for QEMU and the SVC handshake */
    bool verbose;
    const char *timing;         /* "off" (NULL), "frame" or "message" (gbvp sim --timing) */
} sim_scenario_gbvp_config;
sim_scenario_gbvp *sim_scenario_gbvp_new(const sim_scenario_gbvp_config *cfg, char *err,
                                         size_t errlen);
void sim_scenario_gbvp_free(sim_scenario_gbvp *g);
const sim_scenario_target *sim_scenario_gbvp_target(sim_scenario_gbvp *g);
sim_agent *sim_scenario_gbvp_agent(sim_scenario_gbvp *g); /* NULL without a guest agent */

#endif
