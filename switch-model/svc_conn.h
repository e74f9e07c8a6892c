// SPDX-License-Identifier: MIT
// The SVC's connection table: each entry joins (intf1, cport1) and (intf2, cport2), as
// CONN_CREATE set them up; CONN_DESTROY removes them. The data path asks it where a message
// leaving one CPort goes. An endpoint takes part in at most one connection.
#ifndef GBVP_SWITCH_MODEL_SVC_CONN_H
#define GBVP_SWITCH_MODEL_SVC_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gb_svc_conn {
    uint8_t intf1;
    uint16_t cport1;
    uint8_t intf2;
    uint16_t cport2;
    uint8_t tc;
    uint8_t flags; /* GB_SVC_CPORT_FLAG_* */
} gb_svc_conn;

typedef struct gb_svc_conn_table gb_svc_conn_table;

/* A table of at most `capacity` (>= 1) connections; NULL on bad capacity or no memory.
 * The caller owns it. */
gb_svc_conn_table *gb_svc_conn_table_new(size_t capacity);
void gb_svc_conn_table_free(gb_svc_conn_table *t);

/* 0; -EBUSY when either endpoint is already connected (or both ends are the same);
 * -ENOSPC when the table is full. */
int gb_svc_conn_add(gb_svc_conn_table *t, const gb_svc_conn *c);
/* Removes the connection joining exactly these two endpoints (in either order):
 * 0 or -ENOENT. */
int gb_svc_conn_remove(gb_svc_conn_table *t, uint8_t intf1, uint16_t cport1, uint8_t intf2,
                       uint16_t cport2);
/* Removes every connection with an end on intf; returns how many went. */
size_t gb_svc_conn_remove_intf(gb_svc_conn_table *t, uint8_t intf);

/* The peer of (intf, cport): true and *peer_intf / *peer_cport set, or false. `c` (may be
 * NULL) receives the whole entry. */
bool gb_svc_conn_peer(const gb_svc_conn_table *t, uint8_t intf, uint16_t cport,
                      uint8_t *peer_intf, uint16_t *peer_cport, gb_svc_conn *c);

size_t gb_svc_conn_count(const gb_svc_conn_table *t);
/* How many connections have an end on intf. */
size_t gb_svc_conn_count_intf(const gb_svc_conn_table *t, uint8_t intf);
/* The i-th entry (0 <= i < count), in creation order; NULL past the end. */
const gb_svc_conn *gb_svc_conn_at(const gb_svc_conn_table *t, size_t i);

#endif
