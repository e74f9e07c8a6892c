// SPDX-License-Identifier: MIT
// gblink: the shared-memory link between QEMU's greybus-es2 device (client) and the gbvp
// simulator (server). Plain C11 + POSIX (Linux: memfd, eventfd, epoll), no GLib, no global
// state, so the same sources build standalone and inside QEMU's meson build.
//
// One end of the link is a gbl_link. It is driven from any event loop: watch the single
// descriptor gbl_fd() for readability (POLLIN / G_IO_IN / qemu_set_fd_handler read side) and
// call gbl_process() when it fires. Records arrive through the record callback; gbl_send()
// never blocks: it returns -EAGAIN when the ring is full (nothing is queued, nothing lost) and
// the writable callback fires once space is available again.
//
// The wire format (shared-memory layout, record header, payloads, handshake) is documented
// byte for byte in docs/gblink.md. Both ends run on the same host: every multi-byte field is
// in the host's byte order (little-endian on x86_64 and aarch64).
#ifndef GBVP_GBLINK_GBLINK_H
#define GBVP_GBLINK_GBLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Protocol constants
 * ------------------------------------------------------------------------------------- */

/* Protocol version. A different major version is refused at the handshake with a message
 * naming both versions; a different minor version is accepted (both use the lower one). */
#define GBL_VERSION_MAJOR 1u
#define GBL_VERSION_MINOR 0u

/* Largest record payload in bytes. A Greybus message through ES2 is at most 2048 bytes
 * (header included); the rest is headroom. Never larger than a ring's size / 2 - header. */
#define GBL_MAX_PAYLOAD 4096u

/* hd CPort id field of records that are not about one CPort. */
#define GBL_CPORT_NONE 0xffffu

/* Feature bits negotiated at the handshake (the server keeps the intersection). None are
 * defined in version 1.0; unknown bits are simply not granted. */
#define GBL_FEATURE_LOCKSTEP 0x00000001u /* the time-grant records are used (lockstep mode) */
#define GBL_FEATURE_AUDIO 0x00000002u    /* the server answers audio-control records */

/* Record types. The numeric values are wire format and never change meaning. */
enum gbl_type {
    GBL_T_PAD = 0x00,              /* ring padding before wrap-around; never delivered */

    GBL_T_HELLO = 0x01,            /* gbl_hello: who I am; first record each side sends */
    GBL_T_LINK_UP = 0x02,          /* gbl_link_state: the sender's side of the bridge is up */
    GBL_T_LINK_DOWN = 0x03,        /* gbl_link_state: ... is down (e.g. USB reset, sim stop) */
    GBL_T_TIME_GRANT = 0x04,       /* gbl_time_grant: peer may run up to this virtual time */

    GBL_T_GB_MESSAGE = 0x10,       /* a whole Greybus message (8-byte header + payload) to
                                    * (client->server) or from (server->client) hd CPort
                                    * `cport`; payload 8..GBL_MAX_PAYLOAD bytes */

    /* CPort control requests (client->server), each answered by one GBL_T_RESULT with the
     * same `id`. `cport` is the hd CPort id. */
    GBL_T_CPORT_RESET = 0x20,      /* no payload */
    GBL_T_CPORT_CONNECTED = 0x21,  /* no payload */
    GBL_T_CPORT_QUIESCE = 0x22,    /* gbl_cport_quiesce */
    GBL_T_CPORT_CLEAR = 0x23,      /* no payload */
    GBL_T_CPORT_FLUSH = 0x24,      /* no payload */
    GBL_T_CPORT_SHUTDOWN = 0x25,   /* gbl_cport_shutdown */
    GBL_T_CPORT_FLAGS = 0x26,      /* gbl_cport_flags (ES2 vendor request CPORT_FLAGS) */

    /* Bridge control requests (client->server), answered by one GBL_T_RESULT. */
    GBL_T_LATENCY_TAG_ENABLE = 0x30,  /* `cport` = hd CPort id; no payload */
    GBL_T_LATENCY_TAG_DISABLE = 0x31, /* `cport` = hd CPort id; no payload */
    GBL_T_TIMESYNC_ENABLE = 0x32,     /* gbl_timesync_enable */
    GBL_T_TIMESYNC_DISABLE = 0x33,    /* no payload */
    GBL_T_TIMESYNC_AUTHORITATIVE = 0x34, /* gbl_timesync_authoritative */
    GBL_T_TIMESYNC_GET_LAST_EVENT = 0x35, /* no payload; result data: uint64_t frame time */
    GBL_T_LOG_REQUEST = 0x36,         /* no payload; result data: 0..64 bytes of log text,
                                       * empty = no more */
    GBL_T_AUDIO_CONTROL = 0x37,       /* 3..GBL_AUDIO_CONTROL_MAX bytes: an APBridgeA audio
                                       * request as ES2's AUDIO_CONTROL vendor request
                                       * carries it (type u8, i2s_port le16, body) */

    GBL_T_RESULT = 0x40,           /* gbl_result (+ data): answer to the request `id`;
                                    * `cport` copies the request's */
};

/* Status codes of a GBL_T_RESULT; the values are ES2's ARPC result codes. */
enum gbl_status {
    GBL_STATUS_OK = 0x00,
    GBL_STATUS_NO_MEMORY = 0x01,
    GBL_STATUS_INVALID = 0x02,
    GBL_STATUS_TIMEOUT = 0x03,
    GBL_STATUS_UNSUPPORTED = 0x04, /* the receiver does not implement this request */
    GBL_STATUS_UNKNOWN = 0xff,
};

/* ---------------------------------------------------------------------------------------
 * Record payloads. Fixed layouts without implicit padding; copy them with memcpy (a
 * received payload pointer has no alignment guarantee beyond 8 bytes from the record start).
 * ------------------------------------------------------------------------------------- */

typedef struct gbl_hello {         /* 48 bytes */
    uint16_t version_major;        /* GBL_VERSION_MAJOR of the sender */
    uint16_t version_minor;
    uint16_t cport_count;          /* hd CPorts the sender's bridge has (server: the
                                    * APBridgeA's count, e.g. 44; client: 0 = ask server) */
    uint16_t reserved;             /* 0 */
    uint32_t features;             /* GBL_FEATURE_* the sender uses */
    uint32_t reserved2;            /* 0 */
    char name[32];                 /* NUL-padded, e.g. "qemu greybus-es2" / "gbvp" */
} gbl_hello;

typedef struct gbl_link_state {    /* 8 bytes */
    uint32_t reason;               /* free-form code, 0 = normal */
    uint32_t reserved;             /* 0 */
} gbl_link_state;

typedef struct gbl_time_grant {    /* 8 bytes */
    uint64_t until_ns;             /* virtual nanoseconds the receiver may advance to */
} gbl_time_grant;

typedef struct gbl_cport_quiesce { /* 4 bytes; ARPC CPORT_QUIESCE */
    uint16_t peer_space;           /* bytes the peer must have free (9, or 17 in mode switch) */
    uint16_t timeout_ms;
} gbl_cport_quiesce;

typedef struct gbl_cport_shutdown { /* 4 bytes; ARPC CPORT_SHUTDOWN */
    uint16_t timeout_ms;
    uint8_t phase;                 /* 1 or 2 */
    uint8_t reserved;              /* 0 */
} gbl_cport_shutdown;

typedef struct gbl_cport_flags {   /* 4 bytes; vendor request CPORT_FLAGS */
    uint32_t flags;                /* 0x1 CONTROL, 0x2 HIGH_PRIO */
} gbl_cport_flags;

typedef struct gbl_timesync_enable { /* 24 bytes */
    uint8_t count;
    uint8_t reserved[7];           /* 0 */
    uint64_t frame_time;
    uint32_t strobe_delay;
    uint32_t refclk;
} gbl_timesync_enable;

typedef struct gbl_timesync_authoritative { /* 32 bytes */
    uint64_t frame_time[4];
} gbl_timesync_authoritative;

typedef struct gbl_result {        /* 8 bytes, followed by 0..GBL_MAX_PAYLOAD-8 data bytes */
    uint8_t status;                /* enum gbl_status */
    uint8_t reserved;              /* 0 */
    uint16_t request_type;         /* the enum gbl_type of the request answered */
    uint32_t reserved2;            /* 0 */
} gbl_result;

#define GBL_AUDIO_CONTROL_MAX 15u  /* longest APBridgeA audio request (SET_CONFIG) */
#define GBL_LOG_MAX 64u            /* most log text one GBL_T_LOG_REQUEST result carries */

/* A record as the API sees it. On receive, everything (payload included) is a private copy
 * made after validation, valid only during the record callback. */
typedef struct gbl_record {
    uint16_t type;                 /* enum gbl_type */
    uint16_t cport;                /* hd CPort id, or GBL_CPORT_NONE */
    uint32_t id;                   /* request id (requests and results), else flags, 0 */
    uint64_t time_ns;              /* sender's virtual time in nanoseconds, 0 if none */
    uint32_t len;                  /* payload length, 0..GBL_MAX_PAYLOAD */
    const void *payload;           /* may be NULL when len == 0 */
} gbl_record;

/* Name of a record type ("gb-message", "cport-quiesce"...) or "unknown". */
const char *gbl_type_name(uint16_t type);

/* Checks a record's type, cport and payload length against the rules of docs/gblink.md.
 * Returns 0, or -EINVAL with a reason in err (when err is not NULL). Used by gbl_send() and
 * on every received record. */
int gbl_record_check(const gbl_record *rec, char *err, size_t errlen);

/* ---------------------------------------------------------------------------------------
 * The link
 * ------------------------------------------------------------------------------------- */

typedef struct gbl_link gbl_link;  /* opaque; one end of the link */

enum gbl_state {
    GBL_STATE_IDLE,                /* client: not connected (call gbl_connect) */
    GBL_STATE_LISTENING,           /* server: waiting for a client */
    GBL_STATE_HANDSHAKE,           /* connected socket, descriptors not exchanged yet */
    GBL_STATE_UP,                  /* rings usable */
};

typedef struct gbl_callbacks {
    /* One received record. Do not destroy the link from inside; gbl_send() is allowed. */
    void (*record)(void *ctx, const gbl_record *rec);
    /* The rings are usable (handshake done). */
    void (*up)(void *ctx);
    /* The link went down: err is -ECONNRESET (peer closed or died), -EPROTO (the peer broke
     * the protocol: bad index, length or type; refused version) or another -errno; why is a
     * human-readable reason (also kept for gbl_error()). A server listens again at once; a
     * client goes to GBL_STATE_IDLE and may call gbl_connect() again. Also called, without a
     * preceding up, when a handshake fails (e.g. a client of another major version was
     * refused, or this client was refused), so that the reason can be logged. */
    void (*down)(void *ctx, int err, const char *why);
    /* gbl_send() returned -EAGAIN earlier and the ring has space again. */
    void (*writable)(void *ctx);
    /* Optional (server): something to log that leaves the link as it is: a client was
     * refused, or the waiting ones reset, because this process is out of file descriptors
     * (NULL: reported through down while no client is connected, and only counted,
     * gbl_stats.refused, while one is); a client left before its hello was done. */
    void (*notice)(void *ctx, int err, const char *why);
} gbl_callbacks;

typedef struct gbl_config {
    uint32_t ring_size;            /* bytes per direction, power of two in [16 KiB, 64 MiB];
                                    * 0 = 256 KiB. The server's value wins. */
    uint32_t features;             /* GBL_FEATURE_* offered; 0 = none */
    unsigned budget;               /* most records delivered per gbl_process(); 0 = 1024 */
    const char *name;              /* peer-visible name for logs; may be NULL */
} gbl_config;

/* Creates the server end listening on a Unix socket at path (an existing socket file there
 * is replaced). Returns NULL with a reason in err on failure. The link owns its
 * descriptors; cb is copied; ctx is passed to every callback. */
gbl_link *gbl_server_new(const char *path, const gbl_config *cfg, const gbl_callbacks *cb,
                         void *ctx, char *err, size_t errlen);

/* Creates the client end (state IDLE); it does not connect yet. */
gbl_link *gbl_client_new(const char *path, const gbl_config *cfg, const gbl_callbacks *cb,
                         void *ctx, char *err, size_t errlen);

/* Client: connects to the server and starts the handshake (completion is reported by the up
 * callback from gbl_process()). Returns 0, -EISCONN when not IDLE, or -errno of connect()
 * (-ENOENT / -ECONNREFUSED while no server runs: retry later, e.g. once a second). */
int gbl_connect(gbl_link *l);

/* Drops the current connection (if any) without calling the down callback: a client goes to
 * IDLE, a server to LISTENING. */
void gbl_disconnect(gbl_link *l);

/* Closes everything and frees the link (NULL is ignored). A server unlinks its socket. */
void gbl_free(gbl_link *l);

/* The one descriptor to watch for readability. Constant for the link's lifetime. */
int gbl_fd(const gbl_link *l);

/* Does all pending work: accepts clients, runs the handshake, notices a dead peer,
 * delivers up to `budget` records, fires writable. Never blocks. Returns the number of
 * records delivered (>= 0), or a negative -errno when the link went down in this call
 * (after the down callback ran). Safe to call at any time, e.g. for busy polling. */
int gbl_process(gbl_link *l);

/* Whether the peer has written records that gbl_process() would deliver now, read from
 * the shared ring alone: no system call, nothing changes. For a bounded busy-poll before
 * sleeping on gbl_fd(); false while the link is not UP. */
bool gbl_has_records(const gbl_link *l);

/* Queues one record for the peer. Returns 0; -EAGAIN when the ring has no room (nothing
 * queued; the writable callback fires when it has); -ENOTCONN when the link is not UP;
 * -EINVAL when the record breaks the rules of gbl_record_check() (reason in gbl_error());
 * -EPROTO when the peer corrupted the ring (the link went down, down callback ran). */
int gbl_send(gbl_link *l, const gbl_record *rec);

/* Convenience: a record with the given fields. */
int gbl_send_msg(gbl_link *l, uint16_t type, uint16_t cport, uint32_t id, uint64_t time_ns,
                 const void *payload, uint32_t len);

/* Convenience: a GBL_T_RESULT answering request (type, cport, id), with optional data. */
int gbl_send_result(gbl_link *l, const gbl_record *request, uint8_t status,
                    const void *data, uint32_t len, uint64_t time_ns);

enum gbl_state gbl_state(const gbl_link *l);

/* The last error or drop reason ("" if none). Valid until the next call on the link. */
const char *gbl_error(const gbl_link *l);

/* Negotiated values while UP (0 otherwise). */
uint32_t gbl_features(const gbl_link *l);
uint32_t gbl_ring_size(const gbl_link *l);

/* Statistics, cumulative over the link's lifetime. */
typedef struct gbl_stats {
    uint64_t sent;                 /* records sent */
    uint64_t received;             /* records delivered */
    uint64_t would_block;          /* sends refused with -EAGAIN */
    uint64_t doorbells_rung;       /* eventfd writes to wake the peer */
    uint64_t wakeups;              /* own doorbell reads that found a kick */
    uint64_t connections;          /* handshakes completed */
    uint64_t protocol_errors;      /* links dropped for a protocol error */
    uint64_t refused;              /* clients turned away: another one is connected, or no
                                    * file descriptor was left to take them */
} gbl_stats;

void gbl_get_stats(const gbl_link *l, gbl_stats *out);

#ifdef __cplusplus
}
#endif

#endif
