// SPDX-License-Identifier: MIT
// Internals shared by up_port.c and up_link.c (not for other parts).
#ifndef GBVP_UNIPRO_MODEL_UP_INTERNAL_H
#define GBVP_UNIPRO_MODEL_UP_INTERNAL_H

#include "unipro-model/up_consts.h"
#include "unipro-model/up_link.h"

#define UP_PIPE_MAX 64u

enum { UP_SLOT_DATA = 0, UP_SLOT_AFC = 1, UP_SLOT_NAC = 2 };
enum {
    UP_SLOT_CORRUPT = 0x01,
    UP_SLOT_DROPPED = 0x02,
    UP_SLOT_EARLY = 0x04,   /* delivered at header time */
    UP_SLOT_RESUMED = 0x08, /* the rest of a preempted frame */
    UP_SLOT_CREQ = 0x10,
    UP_SLOT_REPLAY = 0x20,
};

/* One transmission on the wire, committed with its start and end time. */
typedef struct up_slot {
    sim_time start, end, arrive;
    sim_time open;         /* burst-open time at the start */
    uint8_t kind, tc, prio, flags;
    uint32_t seq;          /* data: full sequence number; AFC: acknowledged (5-bit) */
    uint64_t credits;      /* AFC: cumulative credits granted */
    unsigned symbols;
    up_frame f;            /* data: a copy, holding its own message reference */
} up_slot;

typedef struct up_txtc {
    struct up_port *port;        /* back pointers: timer events carry the TC state */
    uint8_t tcid;
    up_frame *rb[UP_WINDOW_MAX]; /* replay buffer, ring */
    unsigned rb_head, rb_count;
    unsigned next_tx;            /* index in rb of the next frame to (re)send */
    uint32_t base_seq;           /* full sequence number of rb[rb_head] */
    uint64_t cred_used, cred_limit;
    bool has_suspended;
    up_slot suspended;           /* preempted frame, remaining time in `end - start` */
    sim_event replay_ev;
    bool replay_armed;
    sim_time replay_at;          /* when replay_ev is due (period skipping moves it) */
    sim_time replay_deadline;
    sim_event prot_ev;
    bool prot_armed;
    sim_time prot_at;
    bool stalled;
    sim_time stall_since;
    uint64_t prot_cred_mark;
} up_txtc;

typedef struct up_rxtc {
    uint32_t expect;           /* next full sequence number */
    bool nac_sent;
    unsigned since_ack;        /* frames accepted since the last AFC */
    uint64_t granted;          /* cumulative credits: initial + released */
    uint64_t reported;         /* `granted` as last sent in an AFC */
    unsigned buffered;         /* credits in use */
} up_rxtc;

struct up_port {
    up_env *env;
    const sim_scheduler *s;
    const sim_scheduler_batch_ops *batch; /* NULL: the scheduler cannot batch */
    const sim_time *clock;     /* the scheduler's clock, or NULL: ask sim_now */
    up_dl_params dl;
    const up_port_upper *ops;
    void *ctx;
    up_link *link;
    unsigned side;
    up_port *peer;
    bool early_delivery;
    bool up;                   /* the link is UP (cached from the link's state) */

    up_txtc tx[UP_TCS];
    up_rxtc rx[UP_TCS];
    uint8_t afc_req;           /* bit per TC */
    uint8_t creq_req;          /* bit per TC: AFC with CReq */
    bool nac_req;
    bool flush_armed;
    bool in_pump, pump_again;
    sim_time now;              /* time of the pump in progress */
    bool maybe[UP_TCS];        /* the upper may have frames on this TC (kicked since EMPTY) */
    sim_event flush_ev;
    sim_time flush_at;

    up_slot pipe[UP_PIPE_MAX];
    unsigned pipe_head, pipe_count;
    sim_event arrive_ev;       /* the arrival of pipe[pipe_head] */
    bool head_armed;           /* arrive_ev is pending (batching defers it, up_port.c) */
    uint8_t batch_misses;      /* arrivals in a row that batching could not extend */
    uint8_t batch_skip;        /* arrivals since batching was last tried while missing */
    sim_time busy_until;       /* the wire is committed until then */
    sim_time popped_end;       /* end of the last slot that left the pipe */
    bool burst_ever;

    /* per-direction link timing (copied from the link so the hot path reads one struct) */
    uint64_t sym_fp;
    sim_time latency;          /* tx + rx */
    sim_time burst_open;
    sim_time burst_hold;
    int64_t bits_to_error;     /* countdown to the next bit error, INT64_MAX: none */
    double ln_keep;            /* log(1 - ber) */
    double drop;
    sim_rng rng;

    up_port_stats st;

    /* period skipping (up_port.c): the env's network, kept here because every arrival and
     * timer counts in it */
    struct up_env_net *net;
    struct up_period_hist *period; /* the network's snapshots when this port is its anchor */
    unsigned period_wait;      /* arrivals to let pass before looking again */
    unsigned period_backoff;   /* the next wait after a look that found no period */
};

struct up_link {
    up_env *env;
    up_link_cfg cfg;
    up_port *port[2];
    up_link_state state;
    up_phy_cfg pending_phy;
    sim_event state_ev;
    void (*hook)(void *ctx, up_link *l);
    void *hook_ctx;
    void (*observer)(void *ctx, up_link *l); /* every state change (up_link_set_observer) */
    void *observer_ctx;
    void (*frame_observer)(void *ctx, up_link *l, const up_dl_event *ev);
    void *frame_observer_ctx;
};

/* Every port of an env, for period skipping (up_port.c): the network is skipped as one. */
typedef struct up_env_net {
    up_port **ports;
    unsigned n, cap;
    up_port *anchor;     /* the port whose arrivals take the snapshots */
    uint64_t events;     /* arrivals and timers of every port: the other events are apart */
    uint64_t walks;      /* period walks so far: a message keeps the number of the last one
                          * that met it (up_pv_msg) */
} up_env_net;

up_env_net *up_env_net_get(up_env *e);
int up_env_net_add(up_env *e, up_port *p);
void up_env_net_remove(up_env *e, up_port *p);

/* up_port.c services for up_link.c */
void up_port_attach(up_port *p, up_link *l, unsigned side, up_port *peer);
void up_port_detach(up_port *p);
void up_port_retime(up_port *p);
void up_port_reseed(up_port *p);     /* also restart the fault generator from the seed */     /* re-read rates and faults from the link */
void up_port_pump(up_port *p);
void up_port_link_lost(up_port *p);  /* drop everything on the wire */
void up_port_link_restored(up_port *p);
sim_time up_port_wire_idle_at(const up_port *p);

#endif
