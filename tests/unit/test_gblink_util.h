// SPDX-License-Identifier: MIT
// Helpers for the gblink tests: an endpoint that records what its callbacks saw, a poll loop
// with a deadline, and a hand-driven fake peer that talks the handshake itself and can write
// anything into the shared memory.
#ifndef GBVP_TESTS_UNIT_TEST_GBLINK_UTIL_H
#define GBVP_TESTS_UNIT_TEST_GBLINK_UTIL_H

#include <stdint.h>
#include <stddef.h>

#include "gblink/gblink.h"
#include "gblink/layout.h"

typedef struct tep {
    gbl_link *l;
    int ups;
    int downs;
    int last_err;
    char why[256];
    int writable;
    uint64_t received;
    gbl_record last;               /* copy of the last record; payload points at last_data */
    uint8_t last_data[GBL_MAX_PAYLOAD];
    int notices;                   /* notice callbacks (tep_callbacks_with_notice) */
    char notice[256];
    /* optional per-record hook (called after the copy above) */
    void (*on_record)(struct tep *e, const gbl_record *rec);
    void *user;
} tep;

extern const gbl_callbacks tep_callbacks;
/* The same, with the server's notice callback counted in notices/notice. */
extern const gbl_callbacks tep_callbacks_with_notice;

/* Returns a fresh socket path under /tmp, unique per process and call. */
const char *tep_path(char *buf, size_t len);

/* Processes the given endpoints until done(arg) returns non-zero or timeout_ms elapses.
 * Returns 1 when done, 0 on timeout. done may be NULL (run for timeout_ms). */
int tep_run(tep **eps, int n, int (*done)(void *arg), void *arg, int timeout_ms);

/* Deterministic payload for a sequence number; and its check. */
void tep_fill(uint8_t *buf, uint32_t len, uint32_t seq);
int tep_check(const uint8_t *buf, uint32_t len, uint32_t seq);
uint32_t tep_len_for(uint32_t seq, uint32_t max); /* 8..max, varying */

/* A fake client: raw socket handshake, then direct access to the shared memory. */
typedef struct fake_peer {
    int sock;
    uint8_t *base;
    size_t size;
    uint32_t ring_size;
    int my_wake;                   /* our doorbell */
    int peer_wake;                 /* the server's */
    gbl_ring tx;                   /* client -> server */
    gbl_ring rx;                   /* server -> client */
} fake_peer;

/* Connects to path and sends a hello with the given major version. 0 or -errno. */
int fake_connect(fake_peer *f, const char *path, uint16_t major);
/* Receives the server's reply. Returns 1 accepted (mapped), 0 refused (reason copied), -1
 * on other failure. */
int fake_finish(fake_peer *f, char *reason, size_t len);
void fake_close(fake_peer *f);

/* A fake server: a raw listening socket at a fresh path, the connection of a real client
 * (made here, in *cli, with tep_callbacks) accepted and its hello read. The test then sends
 * whatever reply it likes on `conn`. 0, or -1 when any step failed. */
typedef struct fake_server {
    char path[108];
    int listen;
    int conn;
} fake_server;

int fake_server_take(fake_server *s, tep *cli, gbl_hs_hello *hello);
/* Frees the client too. */
void fake_server_close(fake_server *s, tep *cli);
/* Rings the server's doorbell. */
void fake_kick(fake_peer *f);
/* Pointers into the shared memory. */
uint32_t *fake_ctrl(fake_peer *f, int ring, uint32_t field);
uint8_t *fake_data(fake_peer *f, int ring);

#endif
