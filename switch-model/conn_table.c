// SPDX-License-Identifier: MIT
// The fabric's connection table (see conn_table.h). A small array kept in creation order: a
// handful of connections per interface, so linear search is the clear choice.
#include "switch-model/conn_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sw_conn_table {
    size_t count, capacity;
    sw_conn entries[];
};

sw_conn_table *sw_conn_table_new(size_t capacity)
{
    if (capacity == 0 || capacity > 65536)
        return NULL;
    sw_conn_table *t = calloc(1, sizeof *t + capacity * sizeof t->entries[0]);
    if (t)
        t->capacity = capacity;
    return t;
}

void sw_conn_table_free(sw_conn_table *t)
{
    free(t);
}

static bool has_end(const sw_conn *c, uint8_t port, uint16_t cport)
{
    return (c->port1 == port && c->cport1 == cport) || (c->port2 == port && c->cport2 == cport);
}

static const sw_conn *find_end(const sw_conn_table *t, uint8_t port, uint16_t cport)
{
    for (size_t i = 0; i < t->count; i++)
        if (has_end(&t->entries[i], port, cport))
            return &t->entries[i];
    return NULL;
}

int sw_conn_add(sw_conn_table *t, const sw_conn *c)
{
    if (c->port1 == c->port2 && c->cport1 == c->cport2)
        return -EBUSY;
    if (find_end(t, c->port1, c->cport1) || find_end(t, c->port2, c->cport2))
        return -EBUSY;
    if (t->count == t->capacity)
        return -ENOSPC;
    t->entries[t->count++] = *c;
    return 0;
}

static void remove_at(sw_conn_table *t, size_t i)
{
    memmove(&t->entries[i], &t->entries[i + 1], (t->count - i - 1) * sizeof t->entries[0]);
    t->count--;
}

int sw_conn_remove(sw_conn_table *t, uint8_t port1, uint16_t cport1, uint8_t port2,
                       uint16_t cport2)
{
    for (size_t i = 0; i < t->count; i++) {
        const sw_conn *c = &t->entries[i];
        bool fwd = c->port1 == port1 && c->cport1 == cport1 && c->port2 == port2 &&
                   c->cport2 == cport2;
        bool rev = c->port1 == port2 && c->cport1 == cport2 && c->port2 == port1 &&
                   c->cport2 == cport1;
        if (fwd || rev) {
            remove_at(t, i);
            return 0;
        }
    }
    return -ENOENT;
}

size_t sw_conn_remove_port(sw_conn_table *t, uint8_t port)
{
    size_t removed = 0;
    for (size_t i = 0; i < t->count;) {
        if (t->entries[i].port1 == port || t->entries[i].port2 == port) {
            remove_at(t, i);
            removed++;
        } else {
            i++;
        }
    }
    return removed;
}

bool sw_conn_peer(const sw_conn_table *t, uint8_t port, uint16_t cport,
                      uint8_t *peer_port, uint16_t *peer_cport, sw_conn *c)
{
    const sw_conn *e = find_end(t, port, cport);
    if (!e)
        return false;
    bool first = e->port1 == port && e->cport1 == cport;
    if (peer_port)
        *peer_port = first ? e->port2 : e->port1;
    if (peer_cport)
        *peer_cport = first ? e->cport2 : e->cport1;
    if (c)
        *c = *e;
    return true;
}

size_t sw_conn_count(const sw_conn_table *t)
{
    return t->count;
}

size_t sw_conn_count_port(const sw_conn_table *t, uint8_t port)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += t->entries[i].port1 == port || t->entries[i].port2 == port;
    return n;
}

const sw_conn *sw_conn_at(const sw_conn_table *t, size_t i)
{
    return i < t->count ? &t->entries[i] : NULL;
}
