// SPDX-License-Identifier: MIT
// The shared context of one simulated UniPro network: the scheduler and the pools of frames
// and messages that every node, link and switch of that network allocate from. One per
// simulation; not thread-safe (the models run inside one event kernel).
#ifndef GBVP_UNIPRO_MODEL_UP_ENV_H
#define GBVP_UNIPRO_MODEL_UP_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/rng.h"
#include "event-kernel/scheduler.h"

typedef struct up_env up_env;

/* An L4 message: Greybus header + payload, travelling as one or more segments. Reference
 * counted: the sending CPort and every frame carrying a segment of it hold a reference. */
typedef struct up_msg {
    struct up_msg *next; /* queue link, owned by whoever queues it */
    uint32_t refs;
    uint32_t len;        /* bytes */
    uint32_t segmented;  /* bytes already cut into segments (sender side) */
    uint16_t src_cport;
    uint8_t src_dev;
    sim_time t_submit;   /* when the application handed it to its CPort */
    uint64_t tag;        /* the application's, returned on delivery */
    uint8_t *data;       /* len bytes, or NULL for a size-only (performance) message */
    uint64_t pv_walk;    /* period skipping (up_period.h): the walk that met it last, */
    uint32_t pv_index;   /* and its number in that walk */
} up_msg;

#define UP_FRAME_EOM 0x01
#define UP_FRAME_FCT 0x02
#define UP_FRAME_SENT 0x04    /* DL: transmitted at least once (a resend is a replay) */

/* One L3 packet = one DL frame: the short L3 and L4 headers and a segment of a message. */
typedef struct up_frame {
    struct up_frame *next; /* queue link */
    up_msg *msg;           /* reference held; NULL for a token-only (FCT) segment */
    uint32_t offset;       /* of the segment in msg */
    uint16_t len;          /* segment payload bytes, 0..UP_SEGMENT_MAX */
    uint16_t dst_cport;
    uint8_t dst_dev;
    uint8_t tc;
    uint8_t flags;         /* UP_FRAME_* */
    uint8_t in_port;       /* switch: ingress port */
    uint8_t out_port;      /* switch: egress port */
    uint32_t seq;          /* DL sequence number (5 bits on the wire) */
    sim_time t_ready;      /* earliest start on the next link (0: none) */
    sim_time t_end;        /* when the whole frame has been received */
} up_frame;

/* DL payload = L3 header + L4 header + segment. */
static inline unsigned up_frame_symbols(unsigned seg_len)
{
    return 4u + (seg_len + 1u) / 2u;
}
static inline unsigned up_frame_credits(unsigned seg_len)
{
    return (seg_len + 2u + 31u) / 32u;
}

/* NULL when out of memory. The caller owns the env; free it after everything using it. */
up_env *up_env_new(const sim_scheduler *sched);
void up_env_free(up_env *env);
const sim_scheduler *up_env_scheduler(const up_env *env);

/* A frame from the pool, zeroed. NULL when out of memory. */
up_frame *up_frame_alloc(up_env *env);
/* A frame from the pool holding a copy of *src (its message reference moves with it: the
 * caller gives up src's). NULL when out of memory. */
up_frame *up_frame_alloc_copy(up_env *env, const up_frame *src);
/* Drops the frame's message reference and returns it to the pool. NULL is ignored. */
void up_frame_free(up_env *env, up_frame *f);

/* A message of len bytes with refs = 1; copies `data` when not NULL. NULL on no memory. */
up_msg *up_msg_new(up_env *env, uint32_t len, const void *data);
static inline void up_msg_ref(up_msg *m)
{
    m->refs++;
}
void up_msg_unref(up_env *env, up_msg *m);

/* The frame level's reference switch. false (the default): a port whose next arrival is
 * due before anything else in the simulation handles it at once, without queueing an
 * event (frame-exact batching, docs/performance-model.md). true: every frame, AFC and NAC
 * costs one event-kernel event, as the model always did. Results are identical either way
 * (tests/unit/test_unipro_identity.c); batching also needs a scheduler offering advance and
 * schedule_first (event-kernel/scheduler.h), else the per-frame path runs. */
void up_env_set_per_frame(up_env *env, bool per_frame);
bool up_env_per_frame(const up_env *env);

/* Messages and frames currently allocated (leak checks in tests). */
size_t up_env_live_msgs(const up_env *env);
size_t up_env_live_frames(const up_env *env);


#endif
