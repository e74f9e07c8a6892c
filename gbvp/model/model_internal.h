// SPDX-License-Identifier: MIT
// Internals of `gbvp model` shared by model_topo.c and model_net.c.
#ifndef GBVP_GBVP_MODEL_MODEL_INTERNAL_H
#define GBVP_GBVP_MODEL_MODEL_INTERNAL_H

#include <stdio.h>

#include "event-kernel/event_kernel.h"
#include "switch-model/switch.h"
#include "gbvp/model/model_msg.h"
#include "gbvp/model/model_net.h"
#include "gbvp/model/model_topo.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_msg_net.h"
#include "unipro-model/up_msg_source.h"
#include "unipro-model/up_link.h"
#include "unipro-model/up_node.h"
#include "unipro-model/up_traffic.h"

#define MODEL_MAX 64
#define MODEL_NAME_MAX 32
#define MODEL_WHERE_MAX 300

typedef struct model_node {
    char name[MODEL_NAME_MAX];
    char where[MODEL_WHERE_MAX];
    int dev;
    unsigned cports, credits, segment;
    unsigned next_cport;
    up_node *n;
} model_node;

typedef struct model_switch {
    char name[MODEL_NAME_MAX];
    char where[MODEL_WHERE_MAX];
    sw_switch_cfg cfg;
    sw_switch *sw;
} model_switch;

typedef struct model_end {
    bool is_switch;
    unsigned idx, port;
} model_end;

typedef struct model_link {
    char where[MODEL_WHERE_MAX];
    model_end a, b;
    up_link_cfg cfg;
    bool has_down, has_up;
    sim_time down_at, up_at;
    up_link *l;
    struct model *m;
} model_link;

typedef struct model_flow {
    char where[MODEL_WHERE_MAX];
    unsigned src, dst;
    up_traffic_cfg cfg;
    uint8_t tc;
    bool e2efc;
    unsigned src_cport, dst_cport;
    unsigned msg_flow;       /* message level: the up_msg_net flow */
    up_msg_source *msg_src; /* message level, cbr and poisson: its source */
    up_traffic *t;
} model_flow;

struct model {
    model_node nodes[MODEL_MAX];
    model_switch switches[MODEL_MAX];
    model_link links[MODEL_MAX];
    model_flow flows[MODEL_MAX];
    unsigned n_nodes, n_switches, n_links, n_flows;
    sim_time duration;
    /* after model_run */
    bool built;
    bool message_level;      /* ran in the message-level mode */
    bool per_frame;          /* the frame level on its per-frame reference path (up_env.h) */
    up_msg_net *uf;
    sim_event_kernel *k;
    up_env *env;
    sim_time ran;
    double wall;
    uint64_t events;
};

void model_teardown(model *m);
/* model_net.c, for both run modes: the message in err, -EINVAL */
int model_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 0 when m has not run yet and has a duration and nodes; else model_fail's. */
int model_check_runnable(const model *m, sim_time duration, char *err, size_t len);
/* Runs the built model's event kernel for `duration` and records the run (ran, wall, events). */
int model_run_event_kernel(model *m, sim_time duration, char *err, size_t len);
/* model_msg.c */
void model_msg_print(const model *m, FILE *out);
void model_msg_json(const model *m, FILE *out);
void model_msg_csv(const model *m, FILE *out);

/* A latency histogram as a JSON object (count, p50, p90, p99, max, mean in ps, cdf) and as CSV
 * rows "flow,OBJ,NAME_count|_p50_ps|_p90_ps|_p99_ps|_max_ps,VALUE"; both modes use them. */
void model_json_hist(FILE *out, const up_hist *h);
/* The histogram's distribution, [[q, ps], ...] for q = 0, 0.01, ... 1 with 0.995, 0.999 and
 * 0.9999 (as model_json_hist's "cdf"); [] when empty. */
void model_json_cdf(FILE *out, const up_hist *h);
/* A queue depth series as [[t_ps, depth], ...], at most MODEL_SERIES_POINTS points (each
 * the peak of the stretch it stands for); a switch port's "depth_series" in the JSON. */
#define MODEL_SERIES_POINTS 1000
void model_json_level_series(FILE *out, const up_level *lv);
void model_csv_hist(FILE *out, const char *obj, const char *name, const up_hist *h);

#endif
