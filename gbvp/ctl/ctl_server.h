// SPDX-License-Identifier: MIT
// The control socket (docs/control-protocol.md): a target (gbvp/target/target.h) served as
// JSON lines over a Unix socket (mode 0600). A client sends one JSON object per line
// ({"id": 1, "cmd": "insert", "slot": 0, "module": "sensor"}); the server answers each with
// one line ({"id": 1, "ok": true, ...} or {"id": 1, "ok": false, "error": "..."}) and, to
// clients that subscribed, sends events ({"event": "module_inserted", "slot": 0, ...}).
// Every command is the target's operation of the same name; the typed backend commands
// are gbvp/target/typed.h's.
//
// The socket is an input boundary: every line is parsed and checked (size, JSON syntax,
// field types and ranges) before anything happens; a bad line gets an error reply, never
// a crash. The server never blocks: it is a source of the one event loop (sim/loop.h), or
// its owner calls sim_ctl_service. A `wait` on a target whose time is the wall clock is
// answered when that time has passed, the loop serving everything meanwhile.
#ifndef GBVP_GBVP_CTL_CTL_SERVER_H
#define GBVP_GBVP_CTL_CTL_SERVER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "gbvp/target/target.h"
#include "sim/loop.h"

#define SIM_CTL_MAX_CLIENTS 8u
#define SIM_CTL_MAX_LINE 65536u        /* longer request lines are refused */
#define SIM_CTL_MAX_PENDING (1u << 20) /* a client reading slower than this is dropped */

typedef struct sim_ctl sim_ctl;

/* Whether sim_ctl_new could listen on `path`: 0 when nothing is there or only a stale
 * socket file; -EADDRINUSE when a running simulator holds it, -EEXIST when another kind of
 * file is there, -EINVAL for a path a socket cannot have; err says which. For a front end
 * that must know before it starts what it cannot undo (emptying a capture file). */
int sim_ctl_path_usable(const char *path, char *err, size_t errlen);
/* Listens on `path` (an existing socket file there is replaced) for `t` (borrowed; it must
 * outlive the server). NULL with a reason in err. */
sim_ctl *sim_ctl_new(const char *path, const sim_target *t, char *err, size_t errlen);
/* The server without a socket: for sim_ctl_handle_line and tests (fuzz_control). NULL with a
 * reason in err. */
sim_ctl *sim_ctl_new_detached(const sim_target *t, char *err, size_t errlen);
/* Closes every client and removes the socket file. */
void sim_ctl_free(sim_ctl *c);

/* The server as a source of the event loop: it handles what its descriptors have ready. */
sim_loop_source sim_ctl_source(sim_ctl *c);
/* Accepts, reads and answers whatever is ready (non-blocking), flushes pending output,
 * answers waits that are due, and turns state changes seen since the last call into
 * events: for owners without a loop. */
void sim_ctl_service(sim_ctl *c);

/* Lockstep: the clock stays where it is (0 at start) until a client sends `drive`, so a
 * driving client (gbvp run's scenario) sees every virtual instant from the beginning. */
void sim_ctl_hold_until_driven(sim_ctl *c);

/* Events the owner reports (a scenario's assertion results, log lines). */
void sim_ctl_assertion(sim_ctl *c, bool ok, const char *name);
void sim_ctl_log(sim_ctl *c, const char *text);

/* One request line in, the reply line out (no newline; caller frees). For tests and for
 * callers without a socket; a `wait` is done at once. Never NULL except when out of
 * memory. */
char *sim_ctl_handle_line(sim_ctl *c, const char *line, size_t len);

#endif
