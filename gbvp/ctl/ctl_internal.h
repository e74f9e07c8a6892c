// SPDX-License-Identifier: MIT
// Inside the control socket: the server state shared by ctl_server.c (sockets, lines,
// events, waits) and ctl_commands.c (the commands).
#ifndef GBVP_GBVP_CTL_CTL_INTERNAL_H
#define GBVP_GBVP_CTL_CTL_INTERNAL_H

#include <json-glib/json-glib.h>

#include "gbvp/ctl/ctl_server.h"

enum {
    CTL_EV_MODULE = 1u << 0,    /* module_inserted, module_removed */
    CTL_EV_LINK = 1u << 1,      /* link_state (the AP's SVC connection up/down) */
    CTL_EV_INTERFACE = 1u << 2, /* interface_activated, interface_deactivated */
    CTL_EV_ASSERTION = 1u << 3, /* assertion (scenario checks) */
    CTL_EV_LOG = 1u << 4,       /* log (scenario log lines) */
    CTL_EV_ALL = 0x1f,
};

typedef struct ctl_client {
    int fd;          /* -1 = unused */
    char *in;        /* partial request line */
    size_t in_len;
    bool discarding; /* an over-long line is being skipped up to its newline */
    char *out;       /* replies and events not yet written */
    size_t out_len, out_cap;
    unsigned events; /* CTL_EV_* subscribed */
    /* a `wait` being served: answered when the target's time reaches `until`; the client's
     * next requests wait behind it */
    bool waiting;
    sim_time until;
    JsonNode *wait_id;
    /* `drive`: on a lockstep target the clock stands still while this client is not in a
     * wait, so what it does between waits happens at one virtual instant */
    bool driving;
} ctl_client;

#define CTL_SLOTS_MAX 32u

typedef struct ctl_slot_seen {
    bool occupied, active;
} ctl_slot_seen;

struct sim_ctl {
    const sim_target *t;
    char *path;
    int listen_fd;
    ctl_client clients[SIM_CTL_MAX_CLIENTS];
    ctl_slot_seen seen[CTL_SLOTS_MAX];
    bool link_up;
    bool held_until_driven; /* sim_ctl_hold_until_driven: at 0 until a client drives */
};

/* Handles one request from `cl` (NULL: no connection: no subscriptions, waits done at
 * once). Returns the reply as a new string without newline, NULL when out of memory, or
 * the empty string "" when the reply is deferred (a wait: ctl_server.c answers it). */
char *ctl_handle(sim_ctl *c, ctl_client *cl, const char *line, size_t len);
/* The reply to a wait that is over: {"id":..,"ok":true}. */
char *ctl_wait_done(JsonNode *id);
/* Sends an event object (built by the caller, consumed) to clients subscribed to `kind`. */
void ctl_broadcast(sim_ctl *c, unsigned kind, JsonNode *event);
/* Names for the subscribe command; 0 for an unknown name. */
unsigned ctl_event_bit(const char *name);

#endif
