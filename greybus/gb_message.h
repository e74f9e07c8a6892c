// SPDX-License-Identifier: MIT
// Greybus operation messages: the 8-byte header, encode/decode, a message with its header
// parsed once (gb_msg), and building a response to a request. Pure functions on byte
// buffers; no allocation.
//
// Header (little endian): size u16 (header + payload), operation id u16 (0 = unidirectional),
// type u8 (bit 7 set = response), result u8 (responses only), pad[2] (on the ES2 USB link
// pad[0] carries the hd CPort id; gbvp keeps it 0 everywhere else).
#ifndef GBVP_GREYBUS_GB_MESSAGE_H
#define GBVP_GREYBUS_GB_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "greybus/gb_protocols.h"

#define GB_MSG_HEADER_SIZE 8u
#define GB_MSG_MAX_SIZE 2048u /* largest message the 6.1 AP allocates (ES2 buffer) */
#define GB_MSG_MAX_PAYLOAD (GB_MSG_MAX_SIZE - GB_MSG_HEADER_SIZE)

typedef struct gb_msg_header {
    uint16_t size;         /* header + payload */
    uint16_t operation_id; /* 0 = unidirectional request */
    uint8_t type;          /* includes GB_TYPE_RESPONSE_FLAG for responses */
    uint8_t result;        /* GB_OP_*; 0 in requests */
    uint8_t pad[2];
} gb_msg_header;

/* Decodes the header of the message in buf[0..len). Returns 0, or -EINVAL when len is
 * shorter than the header, -EMSGSIZE when the size field disagrees with len (smaller than
 * the header or not equal to len). */
int gb_msg_header_decode(const uint8_t *buf, size_t len, gb_msg_header *out);

/* A whole message as it travels through gbvp: its header, decoded once where it entered
 * (from the AP's bridge, a module or the SVC), and its bytes (h.size of them, header
 * included, as on the wire; borrowed). Whoever passes one on passes the same header. */
typedef struct gb_msg {
    gb_msg_header h;
    const uint8_t *bytes;
} gb_msg;

/* Parses bytes[0..len) into *out: 0, or the error of gb_msg_header_decode. */
static inline int gb_msg_parse(const uint8_t *bytes, size_t len, gb_msg *out)
{
    out->bytes = bytes;
    return gb_msg_header_decode(bytes, len, &out->h);
}

static inline const uint8_t *gb_msg_payload(const gb_msg *m)
{
    return m->bytes + GB_MSG_HEADER_SIZE;
}

static inline size_t gb_msg_payload_len(const gb_msg *m)
{
    return (size_t)m->h.size - GB_MSG_HEADER_SIZE;
}

/* Writes h into out[0..8). */
void gb_msg_header_encode(const gb_msg_header *h, uint8_t out[GB_MSG_HEADER_SIZE]);

static inline bool gb_msg_is_response(uint8_t type)
{
    return (type & GB_TYPE_RESPONSE_FLAG) != 0;
}

static inline uint8_t gb_msg_base_type(uint8_t type)
{
    return (uint8_t)(type & ~GB_TYPE_RESPONSE_FLAG);
}

/* Builds a complete message (header + payload) into out[0..cap). Returns its total size, or
 * 0 when it does not fit in cap or exceeds GB_MSG_MAX_SIZE. payload may be NULL when plen
 * is 0. */
size_t gb_msg_build(uint8_t *out, size_t cap, uint16_t operation_id, uint8_t type,
                    uint8_t result, const void *payload, size_t plen);

/* Builds the response to request `req`: same operation id, type | 0x80, the given result.
 * Per the 6.1 AP's rules a failed response (result != 0) carries no payload: pass plen 0.
 * Returns the total size or 0 as gb_msg_build. */
size_t gb_msg_build_response(uint8_t *out, size_t cap, const gb_msg_header *req,
                             uint8_t result, const void *payload, size_t plen);

/* Short name of a result code ("success", "protocol-bad", ...), never NULL. */
const char *gb_result_name(uint8_t result);

/* The errno the 6.1 AP turns a result code into (0, -EINVAL, -EIO, ...). */
int gb_result_to_errno(uint8_t result);

/* Little-endian field access. */
static inline uint16_t gb_get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t gb_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint64_t gb_get_le64(const uint8_t *p)
{
    return (uint64_t)gb_get_le32(p) | ((uint64_t)gb_get_le32(p + 4) << 32);
}

static inline void gb_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void gb_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void gb_put_le64(uint8_t *p, uint64_t v)
{
    gb_put_le32(p, (uint32_t)v);
    gb_put_le32(p + 4, (uint32_t)(v >> 32));
}

#endif
