// SPDX-License-Identifier: MIT
#include "unipro-model/up_env.h"

#include <stdlib.h>
#include <string.h>

struct up_env {
    const sim_scheduler *sched;
    up_frame *free_frames;
    up_msg *free_msgs;
    size_t live_frames;
    size_t live_msgs;
};

up_env *up_env_new(const sim_scheduler *sched)
{
    up_env *e = calloc(1, sizeof *e);
    if (e)
        e->sched = sched;
    return e;
}

void up_env_free(up_env *e)
{
    if (!e)
        return;
    while (e->free_frames) {
        up_frame *f = e->free_frames;
        e->free_frames = f->next;
        free(f);
    }
    while (e->free_msgs) {
        up_msg *m = e->free_msgs;
        e->free_msgs = m->next;
        free(m);
    }
    free(e);
}

const sim_scheduler *up_env_scheduler(const up_env *e)
{
    return e->sched;
}

up_frame *up_frame_alloc(up_env *e)
{
    up_frame *f = e->free_frames;
    if (f)
        e->free_frames = f->next;
    else if (!(f = malloc(sizeof *f)))
        return NULL;
    memset(f, 0, sizeof *f);
    e->live_frames++;
    return f;
}

up_frame *up_frame_alloc_copy(up_env *e, const up_frame *src)
{
    up_frame *f = e->free_frames;
    if (f)
        e->free_frames = f->next;
    else if (!(f = malloc(sizeof *f)))
        return NULL;
    *f = *src;
    e->live_frames++;
    return f;
}

void up_frame_free(up_env *e, up_frame *f)
{
    if (!f)
        return;
    if (f->msg)
        up_msg_unref(e, f->msg);
    f->msg = NULL;
    f->next = e->free_frames;
    e->free_frames = f;
    e->live_frames--;
}

up_msg *up_msg_new(up_env *e, uint32_t len, const void *data)
{
    up_msg *m = e->free_msgs;
    if (m)
        e->free_msgs = m->next;
    else if (!(m = malloc(sizeof *m)))
        return NULL;
    memset(m, 0, sizeof *m);
    if (data) {
        m->data = malloc(len ? len : 1);
        if (!m->data) {
            m->next = e->free_msgs;
            e->free_msgs = m;
            return NULL;
        }
        memcpy(m->data, data, len);
    }
    m->refs = 1;
    m->len = len;
    e->live_msgs++;
    return m;
}

void up_msg_unref(up_env *e, up_msg *m)
{
    if (--m->refs)
        return;
    free(m->data);
    m->data = NULL;
    m->next = e->free_msgs;
    e->free_msgs = m;
    e->live_msgs--;
}

size_t up_env_live_msgs(const up_env *e)
{
    return e->live_msgs;
}

size_t up_env_live_frames(const up_env *e)
{
    return e->live_frames;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void up_rng_seed(up_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t up_rng_next(up_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double up_rng_unit(up_rng *r)
{
    return ((double)(up_rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}
