// SPDX-License-Identifier: MIT
// The fabric's connection table: each entry joins CPort cport1 of the endpoint on switch
// port port1 and CPort cport2 of the one on port2 (the switch port of interface i is i), as
// the SVC set them up for CONN_CREATE and takes them down for CONN_DESTROY. A message
// leaving one CPort goes to its peer. An endpoint's CPort is in at most one connection.
#ifndef GBVP_SWITCH_MODEL_CONN_TABLE_H
#define GBVP_SWITCH_MODEL_CONN_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sw_conn {
    uint8_t port1;
    uint16_t cport1;
    uint8_t port2;
    uint16_t cport2;
    uint8_t tc;
    uint8_t flags; /* GB_SVC_CPORT_FLAG_* */
} sw_conn;

typedef struct sw_conn_table sw_conn_table;

/* A table of at most `capacity` (>= 1) connections; NULL on bad capacity or no memory.
 * The caller owns it. */
sw_conn_table *sw_conn_table_new(size_t capacity);
void sw_conn_table_free(sw_conn_table *t);

/* 0; -EBUSY when either endpoint is already connected (or both ends are the same);
 * -ENOSPC when the table is full. */
int sw_conn_add(sw_conn_table *t, const sw_conn *c);
/* Removes the connection joining exactly these two endpoints (in either order):
 * 0 or -ENOENT. */
int sw_conn_remove(sw_conn_table *t, uint8_t port1, uint16_t cport1, uint8_t port2,
                       uint16_t cport2);
/* Removes every connection with an end on `port`; returns how many went. */
size_t sw_conn_remove_port(sw_conn_table *t, uint8_t port);

/* The peer of (port, cport): true and *peer_port / *peer_cport set, or false. `c` (may be
 * NULL) receives the whole entry. */
bool sw_conn_peer(const sw_conn_table *t, uint8_t port, uint16_t cport,
                      uint8_t *peer_port, uint16_t *peer_cport, sw_conn *c);

size_t sw_conn_count(const sw_conn_table *t);
/* How many connections have an end on port. */
size_t sw_conn_count_port(const sw_conn_table *t, uint8_t port);
/* The i-th entry (0 <= i < count), in creation order; NULL past the end. */
const sw_conn *sw_conn_at(const sw_conn_table *t, size_t i);

#endif
