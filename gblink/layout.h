// SPDX-License-Identifier: MIT
// gblink internals shared by its source files and its tests: the shared-memory layout, the
// handshake messages and the ring primitives. Not part of the public API (gblink.h).
// Every offset and size here is wire format, documented in docs/gblink.md.
#ifndef GBVP_GBLINK_LAYOUT_H
#define GBVP_GBLINK_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gblink.h"

/* ---- shared memory ------------------------------------------------------------------- */

#define GBL_SHM_MAGIC 0x4b4c4247u     /* "GBLK" read as a little-endian uint32 */
#define GBL_SHM_HEADER_SIZE 4096u     /* ring 0 data starts here */
#define GBL_LINE 128u                 /* index spacing: a cache line (and its pair) each */
#define GBL_RING_CTRL_OFFSET(r) (256u + (uint32_t)(r) * 4u * GBL_LINE)
#define GBL_CTRL_HEAD 0u              /* written by the producer */
#define GBL_CTRL_TAIL GBL_LINE        /* written by the consumer */
#define GBL_CTRL_DATA_WAITING (2u * GBL_LINE)  /* consumer may sleep: kick on new data */
#define GBL_CTRL_SPACE_WAITING (3u * GBL_LINE) /* producer is blocked: kick on free space */

#define GBL_RING_MIN (16u * 1024u)
#define GBL_RING_MAX (64u * 1024u * 1024u)
#define GBL_RING_DEFAULT (256u * 1024u)

#define GBL_REC_HEADER 24u            /* record header bytes */
#define GBL_REC_ALIGN 8u              /* records start on 8-byte boundaries */
#define GBL_PAD_MIN 8u                /* a padding record needs len + type only */
#define GBL_REC_MAX (GBL_REC_HEADER + GBL_MAX_PAYLOAD)

/* Ring 0 carries client -> server records, ring 1 server -> client. */
enum { GBL_RING_C2S = 0, GBL_RING_S2C = 1 };

/* The first 64 bytes of the shared memory, written once by the server before the
 * descriptor is passed, then only read (and re-validated against the handshake). */
typedef struct gbl_shm_header {
    uint32_t magic;                /* GBL_SHM_MAGIC */
    uint16_t version_major;
    uint16_t version_minor;
    uint32_t header_size;          /* GBL_SHM_HEADER_SIZE */
    uint32_t ring_size;            /* bytes of data per ring, power of two */
    uint32_t max_payload;          /* GBL_MAX_PAYLOAD */
    uint32_t features;             /* negotiated */
    uint32_t ring_offset[2];       /* data offsets: header_size, header_size + ring_size */
    uint64_t total_size;           /* header_size + 2 * ring_size */
    uint32_t reserved[6];
} gbl_shm_header;

/* The record header as it sits in a ring (host byte order). */
typedef struct gbl_wire_record {
    uint32_t len;                  /* header + payload bytes, not rounded up */
    uint16_t type;
    uint16_t cport;
    uint32_t id;
    uint32_t flags;                /* 0 in version 1.x; ignored on receive */
    uint64_t time_ns;
} gbl_wire_record;

/* ---- handshake (SOCK_SEQPACKET messages on the Unix socket) ------------------------------ */

#define GBL_HS_HELLO_MAGIC 0x484c4247u  /* "GBLH" */
#define GBL_HS_ACCEPT_MAGIC 0x414c4247u /* "GBLA" */

typedef struct gbl_hs_hello {      /* client -> server, 64 bytes, no descriptors */
    uint32_t magic;
    uint16_t version_major;
    uint16_t version_minor;
    uint32_t features;             /* offered */
    uint32_t reserved;
    char name[48];                 /* NUL-padded */
} gbl_hs_hello;

enum { GBL_HS_ACCEPTED = 0, GBL_HS_REFUSED = 1 };

typedef struct gbl_hs_accept {     /* server -> client, 128 bytes; with SCM_RIGHTS
                                    * [memfd, client doorbell, server doorbell] if accepted */
    uint32_t magic;
    uint16_t version_major;        /* the server's own version */
    uint16_t version_minor;        /* the version both use: min of the two minors */
    uint32_t status;               /* GBL_HS_ACCEPTED or GBL_HS_REFUSED */
    uint32_t features;             /* granted: offered & server's */
    uint32_t ring_size;
    uint32_t header_size;
    uint64_t total_size;
    uint32_t max_payload;
    uint32_t reserved;
    char reason[88];               /* why refused, NUL-terminated; "" when accepted */
} gbl_hs_accept;

/* ---- rings --------------------------------------------------------------------------- */

/* One direction as seen by one end. Every value here is local and validated once; only the
 * four indices live in shared memory and those are re-validated on every load. */
typedef struct gbl_ring {
    uint8_t *data;
    uint32_t size;
    uint32_t mask;
    void *head;                    /* _Atomic uint32_t * in ring.c */
    void *tail;
    void *data_waiting;
    void *space_waiting;
    uint32_t local;                /* producer: our head; consumer: our tail */
    uint32_t peer;                 /* last validated peer index (a cache: reloaded only
                                    * when it says "full" / "empty") */
    uint32_t max_record;           /* GBL_REC_MAX */
} gbl_ring;

/* Points r at ring `which` inside a mapping of base (size bytes, validated by the caller). */
void gbl_ring_attach(gbl_ring *r, uint8_t *base, uint32_t ring_size, int which);

/* Producer: appends one record (fields validated by the caller). Returns 0, -EAGAIN (ring
 * full, space_waiting armed), or -EPROTO with a reason in err (corrupt consumer index). */
int gbl_ring_write(gbl_ring *r, const gbl_record *rec, char *err, size_t errlen);
/* Producer: after writes, true when the consumer asked to be woken (flag consumed). */
bool gbl_ring_producer_kick(gbl_ring *r);
/* Producer: bytes that a record of `payload` bytes needs at the current position, and
 * whether it fits now (re-arming space_waiting if not). -EPROTO on corrupt index. */
int gbl_ring_fits(gbl_ring *r, uint32_t payload, char *err, size_t errlen);

/* Consumer: copies the next record (header + payload, `*len` bytes) into buf, which holds
 * GBL_REC_MAX bytes, and releases its space. Returns 1, 0 when empty, -EPROTO with a
 * reason in err. The `len` field inside buf is replaced by the validated *len. */
int gbl_ring_read(gbl_ring *r, uint8_t *buf, uint32_t *len, char *err, size_t errlen);
/* Consumer: announces it may sleep. Returns true when data arrived meanwhile (keep going). */
bool gbl_ring_consumer_arm(gbl_ring *r);
/* Consumer: whether the producer has published data not read yet. No system call, no
 * side effect: for polling. */
bool gbl_ring_has_data(const gbl_ring *r);
/* Consumer: after reads, true when the producer is blocked and asked to be woken. */
bool gbl_ring_consumer_kick(gbl_ring *r);

/* Initialises a fresh shared-memory header and indices (server side). */
void gbl_shm_init(uint8_t *base, uint32_t ring_size, uint32_t features, uint16_t minor);

/* ---- shm.c --------------------------------------------------------------------------- */

/* Server: a sealed memfd (size can never change) holding a fresh layout, mapped. */
int gbl_shm_create(uint32_t ring_size, uint32_t features, uint16_t minor, int *fd,
                   uint8_t **base, size_t *size, char *err, size_t errlen);
/* Client: checks the server's memfd (size, seals) and the header inside against the
 * handshake reply, then maps it. Returns 0 or -EPROTO / -errno with a reason. */
int gbl_shm_map_peer(int fd, const gbl_hs_accept *acc, uint8_t **base, size_t *size,
                     char *err, size_t errlen);
void gbl_shm_unmap(uint8_t *base, size_t size);

/* ---- handshake.c --------------------------------------------------------------------- */

/* Sends one SOCK_SEQPACKET message with up to 3 descriptors. 0 or -errno. */
int gbl_hs_send(int sock, const void *msg, size_t len, const int *fds, int nfds);
/* Receives one message of exactly cap bytes at most, and up to maxfds descriptors (extra or
 * truncated descriptors are closed and reported as -EPROTO). Returns the byte count (0 at
 * EOF), -EAGAIN, -EPROTO (message too long, descriptors truncated) or -errno. */
long gbl_hs_recv(int sock, void *msg, size_t cap, int *fds, int maxfds, int *nfds);

#endif
