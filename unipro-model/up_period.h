// SPDX-License-Identifier: MIT
// Period skipping (docs/performance-model.md, "Period skipping"): a saturated network on
// clean lines settles into a state that repeats exactly, shifted in time, every few
// messages. The port, node, switch and traffic layers describe their state to up_port.c as
// one vector of numbers through the walker below; two vectors one period apart that agree
// in their shape prove the period, and the state N periods later is the current one with
// every time and counter moved on by N times its change over the period.
#ifndef GBVP_UNIPRO_MODEL_UP_PERIOD_H
#define GBVP_UNIPRO_MODEL_UP_PERIOD_H

#include <stdbool.h>
#include <stdint.h>

#include "unipro-model/up_env.h"

/* What a number of the state is, for the comparison of two snapshots. */
enum {
    UP_PV_SHAPE = 0, /* must be equal one period apart (counts, flags, lengths, differences) */
    UP_PV_TIME = 1,  /* an instant: moves by exactly the period */
    UP_PV_COUNT = 2, /* a counter (statistics, sequence numbers, credits, tags): any change */
};

#define UP_PV_MAX 16384u
#define UP_PV_PORTS 64u
#define UP_PV_LIMS 128u
#define UP_PV_TIMERS (3u * UP_PV_PORTS)
#define UP_PV_OBJS 16u

/* One walk over the state: in `take` mode the numbers are recorded; in `shift` mode each
 * time and counter has `periods` times its change over one period (`delta`) added. */
typedef struct up_pvec {
    bool shift;
    bool ok;                 /* false: the state cannot be skipped (too big, or not eligible) */
    unsigned n;
    uint64_t *v;             /* UP_PV_MAX numbers: where take mode records */
    uint8_t *cls;
    const uint64_t *delta;   /* shift mode: per number */
    uint64_t periods;        /* shift mode */
    uint64_t walk;                  /* this walk's number: messages met are marked with it */
    unsigned nmsgs;
    const void *objs[UP_PV_OBJS];   /* other objects reachable twice (a flow's two ends) */
    unsigned nobjs;
    unsigned bits_at[UP_PV_PORTS];  /* where each port's countdown to a bit error is */
    unsigned nbits;
    struct {
        unsigned at;
        uint64_t most;
    } lim[UP_PV_LIMS];              /* counters whose change over a period is bounded */
    unsigned nlim;
    struct {
        struct up_port *port;
        uint8_t kind, tc;
        unsigned at;
    } timers[UP_PV_TIMERS];         /* the ports' armed timers and where their due times are */
    unsigned ntimers;
} up_pvec;

/* The next number is a counter whose change over one period may not exceed `most` (a log
 * that must hold a whole period): a longer period is not skipped. */
static inline void up_pv_limit(up_pvec *pv, uint64_t most)
{
    if (pv->shift)
        return;
    if (pv->nlim == UP_PV_LIMS) {
        pv->ok = false;
        return;
    }
    pv->lim[pv->nlim].at = pv->n;
    pv->lim[pv->nlim++].most = most;
}

/* Whether obj is met for the first time in this walk (walk it then, and only then). */
static inline bool up_pv_once(up_pvec *pv, const void *obj)
{
    for (unsigned i = 0; i < pv->nobjs; i++)
        if (pv->objs[i] == obj)
            return false;
    if (pv->nobjs == UP_PV_OBJS) {
        pv->ok = false;
        return false;
    }
    pv->objs[pv->nobjs++] = obj;
    return true;
}

/* The next number of the walk: recorded, or shifted in place. */
static inline uint64_t up_pv_io(up_pvec *pv, unsigned cls, uint64_t x)
{
    if (pv->n >= UP_PV_MAX) {
        pv->ok = false;
        return x;
    }
    unsigned i = pv->n++;
    if (pv->shift)
        return cls == UP_PV_SHAPE ? x : x + pv->periods * pv->delta[i];
    pv->v[i] = x;
    pv->cls[i] = (uint8_t)cls;
    return x;
}

/* An lvalue of any integer type through the walk (written back only when shifting). */
#define UP_PV(pv, cls, lv)                                                                 \
    do {                                                                                   \
        uint64_t up_pv_x_ = up_pv_io((pv), (cls), (uint64_t)(lv));                         \
        if ((pv)->shift)                                                                   \
            (lv) = (__typeof__(lv))up_pv_x_;                                               \
    } while (0)

/* A value derived from the state: compared, never written. */
static inline void up_pv_shape(up_pvec *pv, uint64_t x)
{
    up_pv_io(pv, UP_PV_SHAPE, x);
}

/* A message, walked the first time it is met; later meetings record which one it was. */
void up_pv_msg(up_pvec *pv, up_msg *m);
/* A frame held by an upper (a switch's queues). */
void up_pv_frame(up_pvec *pv, up_frame *f);

#endif
