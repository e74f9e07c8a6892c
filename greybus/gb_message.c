// SPDX-License-Identifier: MIT
// Greybus message header encode/decode and response building (see gb_message.h).
#include "greybus/gb_message.h"

#include <errno.h>
#include <string.h>

int gb_msg_header_decode(const uint8_t *buf, size_t len, gb_msg_header *out)
{
    if (!buf || len < GB_MSG_HEADER_SIZE)
        return -EINVAL;
    out->size = gb_get_le16(buf);
    out->operation_id = gb_get_le16(buf + 2);
    out->type = buf[4];
    out->result = buf[5];
    out->pad[0] = buf[6];
    out->pad[1] = buf[7];
    if (out->size < GB_MSG_HEADER_SIZE || out->size != len)
        return -EMSGSIZE;
    return 0;
}

void gb_msg_header_encode(const gb_msg_header *h, uint8_t out[GB_MSG_HEADER_SIZE])
{
    gb_put_le16(out, h->size);
    gb_put_le16(out + 2, h->operation_id);
    out[4] = h->type;
    out[5] = h->result;
    out[6] = h->pad[0];
    out[7] = h->pad[1];
}

size_t gb_msg_build(uint8_t *out, size_t cap, uint16_t operation_id, uint8_t type,
                    uint8_t result, const void *payload, size_t plen)
{
    size_t total = GB_MSG_HEADER_SIZE + plen;

    if (plen > GB_MSG_MAX_PAYLOAD || total > cap || (plen && !payload))
        return 0;
    gb_msg_header h = {
        .size = (uint16_t)total,
        .operation_id = operation_id,
        .type = type,
        .result = result,
    };
    gb_msg_header_encode(&h, out);
    if (plen)
        memmove(out + GB_MSG_HEADER_SIZE, payload, plen);
    return total;
}

size_t gb_msg_build_response(uint8_t *out, size_t cap, const gb_msg_header *req,
                             uint8_t result, const void *payload, size_t plen)
{
    return gb_msg_build(out, cap, req->operation_id,
                        (uint8_t)(req->type | GB_TYPE_RESPONSE_FLAG), result, payload, plen);
}

const char *gb_result_name(uint8_t result)
{
    switch (result) {
    case GB_OP_SUCCESS: return "success";
    case GB_OP_INTERRUPTED: return "interrupted";
    case GB_OP_TIMEOUT: return "timeout";
    case GB_OP_NO_MEMORY: return "no-memory";
    case GB_OP_PROTOCOL_BAD: return "protocol-bad";
    case GB_OP_OVERFLOW: return "overflow";
    case GB_OP_INVALID: return "invalid";
    case GB_OP_RETRY: return "retry";
    case GB_OP_NONEXISTENT: return "nonexistent";
    case GB_OP_INVALID_STATE: return "invalid-state";
    case GB_OP_UNKNOWN_ERROR: return "unknown-error";
    case GB_OP_MALFUNCTION: return "malfunction";
    default: return "unrecognised";
    }
}

int gb_result_to_errno(uint8_t result)
{
    switch (result) {
    case GB_OP_SUCCESS: return 0;
    case GB_OP_INTERRUPTED: return -EINTR;
    case GB_OP_TIMEOUT: return -ETIMEDOUT;
    case GB_OP_NO_MEMORY: return -ENOMEM;
    case GB_OP_PROTOCOL_BAD: return -EPROTONOSUPPORT;
    case GB_OP_OVERFLOW: return -EMSGSIZE;
    case GB_OP_INVALID: return -EINVAL;
    case GB_OP_RETRY: return -EAGAIN;
    case GB_OP_NONEXISTENT: return -ENODEV;
    case GB_OP_MALFUNCTION: return -EILSEQ;
    default: return -EIO;
    }
}
