// SPDX-License-Identifier: MIT
#include "unipro-model/up_env.h"

#include "unipro-model/up_internal.h"

#include <stdlib.h>
#include <string.h>

struct up_env {
    const sim_scheduler *sched;
    up_frame *free_frames;
    up_msg *free_msgs;
    size_t live_frames;
    size_t live_msgs;
    bool per_frame;
    up_env_net net;
};

up_env_net *up_env_net_get(up_env *e)
{
    return &e->net;
}

int up_env_net_add(up_env *e, up_port *p)
{
    up_env_net *n = &e->net;
    if (n->n == n->cap) {
        unsigned cap = n->cap ? n->cap * 2 : 8;
        up_port **ports = realloc(n->ports, cap * sizeof *ports);
        if (!ports)
            return -1;
        n->ports = ports;
        n->cap = cap;
    }
    n->ports[n->n++] = p;
    return 0;
}

void up_env_net_remove(up_env *e, up_port *p)
{
    up_env_net *n = &e->net;
    for (unsigned i = 0; i < n->n; i++)
        if (n->ports[i] == p) {
            memmove(&n->ports[i], &n->ports[i + 1], (n->n - i - 1) * sizeof *n->ports);
            n->n--;
            break;
        }
    if (n->anchor == p)
        n->anchor = NULL;
}

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
    free(e->net.ports);
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
    *f = (up_frame){ 0 }; /* (inlined stores: a call to memset cost more) */
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

void up_env_set_per_frame(up_env *e, bool per_frame)
{
    e->per_frame = per_frame;
}

bool up_env_per_frame(const up_env *e)
{
    return e->per_frame;
}

size_t up_env_live_msgs(const up_env *e)
{
    return e->live_msgs;
}

size_t up_env_live_frames(const up_env *e)
{
    return e->live_frames;
}
