// SPDX-License-Identifier: MIT
// The SVC's connection table (see svc_conn.h). A small array kept in creation order: a
// handful of connections per interface, so linear search is the clear choice.
#include "switch-model/svc_conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct gb_svc_conn_table {
    size_t count, capacity;
    gb_svc_conn entries[];
};

gb_svc_conn_table *gb_svc_conn_table_new(size_t capacity)
{
    if (capacity == 0 || capacity > 65536)
        return NULL;
    gb_svc_conn_table *t = calloc(1, sizeof *t + capacity * sizeof t->entries[0]);
    if (t)
        t->capacity = capacity;
    return t;
}

void gb_svc_conn_table_free(gb_svc_conn_table *t)
{
    free(t);
}

static bool has_end(const gb_svc_conn *c, uint8_t intf, uint16_t cport)
{
    return (c->intf1 == intf && c->cport1 == cport) || (c->intf2 == intf && c->cport2 == cport);
}

static const gb_svc_conn *find_end(const gb_svc_conn_table *t, uint8_t intf, uint16_t cport)
{
    for (size_t i = 0; i < t->count; i++)
        if (has_end(&t->entries[i], intf, cport))
            return &t->entries[i];
    return NULL;
}

int gb_svc_conn_add(gb_svc_conn_table *t, const gb_svc_conn *c)
{
    if (c->intf1 == c->intf2 && c->cport1 == c->cport2)
        return -EBUSY;
    if (find_end(t, c->intf1, c->cport1) || find_end(t, c->intf2, c->cport2))
        return -EBUSY;
    if (t->count == t->capacity)
        return -ENOSPC;
    t->entries[t->count++] = *c;
    return 0;
}

static void remove_at(gb_svc_conn_table *t, size_t i)
{
    memmove(&t->entries[i], &t->entries[i + 1], (t->count - i - 1) * sizeof t->entries[0]);
    t->count--;
}

int gb_svc_conn_remove(gb_svc_conn_table *t, uint8_t intf1, uint16_t cport1, uint8_t intf2,
                       uint16_t cport2)
{
    for (size_t i = 0; i < t->count; i++) {
        const gb_svc_conn *c = &t->entries[i];
        bool fwd = c->intf1 == intf1 && c->cport1 == cport1 && c->intf2 == intf2 &&
                   c->cport2 == cport2;
        bool rev = c->intf1 == intf2 && c->cport1 == cport2 && c->intf2 == intf1 &&
                   c->cport2 == cport1;
        if (fwd || rev) {
            remove_at(t, i);
            return 0;
        }
    }
    return -ENOENT;
}

size_t gb_svc_conn_remove_intf(gb_svc_conn_table *t, uint8_t intf)
{
    size_t removed = 0;
    for (size_t i = 0; i < t->count;) {
        if (t->entries[i].intf1 == intf || t->entries[i].intf2 == intf) {
            remove_at(t, i);
            removed++;
        } else {
            i++;
        }
    }
    return removed;
}

bool gb_svc_conn_peer(const gb_svc_conn_table *t, uint8_t intf, uint16_t cport,
                      uint8_t *peer_intf, uint16_t *peer_cport, gb_svc_conn *c)
{
    const gb_svc_conn *e = find_end(t, intf, cport);
    if (!e)
        return false;
    bool first = e->intf1 == intf && e->cport1 == cport;
    if (peer_intf)
        *peer_intf = first ? e->intf2 : e->intf1;
    if (peer_cport)
        *peer_cport = first ? e->cport2 : e->cport1;
    if (c)
        *c = *e;
    return true;
}

size_t gb_svc_conn_count(const gb_svc_conn_table *t)
{
    return t->count;
}

size_t gb_svc_conn_count_intf(const gb_svc_conn_table *t, uint8_t intf)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += t->entries[i].intf1 == intf || t->entries[i].intf2 == intf;
    return n;
}

const gb_svc_conn *gb_svc_conn_at(const gb_svc_conn_table *t, size_t i)
{
    return i < t->count ? &t->entries[i] : NULL;
}
