// SPDX-License-Identifier: MIT
// The control socket (docs/control-protocol.md): JSON lines over a Unix socket (mode 0600).
// A client sends one JSON object per line ({"id": 1, "cmd": "insert", "slot": 0,
// "module": "sensor"}); the simulator answers each with one line ({"id": 1, "ok": true,
// ...} or {"id": 1, "ok": false, "error": "..."}) and, to clients that subscribed, sends
// events ({"event": "module_inserted", "slot": 0, "module": "sensor"}).
//
// The socket is an input boundary: every line is parsed and checked (size, JSON syntax,
// field types and ranges) before anything happens; a bad line gets an error reply, never
// a crash. The server never blocks: the owner polls the descriptors it lists and calls
// sim_control_service.
#ifndef GBVP_SIM_CONTROL_H
#define GBVP_SIM_CONTROL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim/link_fault.h"
#include "event-kernel/scheduler.h"
#include "sim/slots.h"
#include "switch-model/svc.h"

#define SIM_CONTROL_MAX_CLIENTS 8u
#define SIM_CONTROL_MAX_LINE 65536u        /* longer request lines are refused */
#define SIM_CONTROL_MAX_PENDING (1u << 20) /* a client reading slower than this is dropped */

/* What the control socket drives. Optional operations may be NULL. */
struct sim_scenario_link; /* gbvp/scenario/scenario.h */

typedef struct sim_control_backend {
    const char *name;                 /* e.g. "gbvp sim", "test-ap" */
    gb_svc *(*svc)(void *ctx);
    /* Optional: the slots with their live interfaces (backends: GPIO, battery, ...). */
    gb_slots *(*slots)(void *ctx);
    /* 0 or a negative errno with a reason in err. */
    int (*insert)(void *ctx, unsigned slot, const char *module, char *err, size_t errlen);
    int (*remove)(void *ctx, unsigned slot, char *err, size_t errlen);
    /* Optional: lets simulated time pass (only where the owner's clock is simulated). */
    void (*advance)(void *ctx, sim_time dt);
    /* Optional: a backend command line (virtual-modules/backend_cmd.h) on interface
     * `index` of the module in `slot`: 0 with the answer in reply, or -1 with the reason. */
    int (*command)(void *ctx, unsigned slot, unsigned index, const char *line, char *reply,
                   size_t len);
    /* Optional (a simulator running the frame-level UniPro timing model): the link of the
     * interface in `slot`: a power mode change (gear "HS-G2B", "PWM-G3" ...; series "A"/"B";
     * lanes "1"/"2"; NULL = keep), and faults (see sim_link_fault). 0 or a negative
     * errno with the reason in err. */
    int (*link_set)(void *ctx, unsigned slot, const char *gear, const char *series,
                    const char *lanes, char *err, size_t errlen);
    int (*link_fault)(void *ctx, unsigned slot, const sim_link_fault *f, char *err,
                      size_t errlen);
    /* Optional, with link_set: the link as it is now (gbvp/scenario/scenario.h). */
    int (*link_info)(void *ctx, unsigned slot, struct sim_scenario_link *out, char *err,
                     size_t errlen);
    /* Optional: frees ctx when the server is freed (a server that owns its adapter). */
    void (*free_ctx)(void *ctx);
    void *ctx;
} sim_control_backend;

typedef struct sim_control sim_control;

/* Listens on `path` (an existing socket file there is replaced). NULL with a reason in
 * err. The backend is copied; its ctx must outlive the server. */
sim_control *sim_control_new(const char *path, const sim_control_backend *b, char *err,
                             size_t errlen);
/* Closes every client and removes the socket file. */
void sim_control_free(sim_control *c);

/* The descriptors to poll (listener and clients), at most 1 + SIM_CONTROL_MAX_CLIENTS. */
size_t sim_control_pollfds(const sim_control *c, struct pollfd *fds, size_t cap);
/* Accepts, reads and answers whatever is ready (non-blocking), flushes pending output,
 * and turns state changes seen since the last call into events. */
void sim_control_service(sim_control *c);

/* Events the owner reports (a scenario's assertion results, log lines). */
void sim_control_assertion(sim_control *c, bool ok, const char *name);
void sim_control_log(sim_control *c, const char *text);

/* One request line in, the reply line out (no newline; caller frees). For tests and for
 * callers without a socket. Never NULL except when out of memory. */
char *sim_control_handle_line(sim_control *c, const char *line, size_t len);

/* The control socket of `gbvp sim` (gbvp/ctl/ctl_simulator.c): insert, remove, status, stats
 * and events through the sim_gbvp API. `now` points at the loop's current time. */
typedef struct sim_gbvp sim_gbvp;
sim_control *sim_control_new_gbvp(const char *path, sim_gbvp *s, const sim_time *now,
                                  char *err, size_t errlen);

#endif
