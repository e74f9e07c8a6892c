// SPDX-License-Identifier: GPL-2.0-or-later
// ES2 vendor requests, ARPC and bulk framing: checks and translation to gblink records.
#include "es2_proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gblink/gblink.h"

static uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static uint64_t get_le64(const uint8_t *p)
{
    return (uint64_t)get_le32(p) | ((uint64_t)get_le32(p + 4) << 32);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void refuse(es2_action *a, const char *fmt, ...)
{
    va_list ap;

    a->verdict = ES2_REFUSE;
    va_start(ap, fmt);
    vsnprintf(a->why, sizeof(a->why), fmt, ap);
    va_end(ap);
}

static void set_payload(es2_action *a, const void *p, uint32_t len)
{
    memcpy(a->payload, p, len);
    a->payload_len = len;
}

const char *es2_request_name(uint8_t request)
{
    switch (request) {
    case ES2_REQ_LOG: return "log";
    case ES2_REQ_EP_MAPPING: return "ep-mapping";
    case ES2_REQ_CPORT_COUNT: return "cport-count";
    case ES2_REQ_RESET_CPORT: return "reset-cport";
    case ES2_REQ_LATENCY_TAG_EN: return "latency-tag-enable";
    case ES2_REQ_LATENCY_TAG_DIS: return "latency-tag-disable";
    case ES2_REQ_CSI_TX_CONTROL: return "csi-tx-control";
    case ES2_REQ_AUDIO_CONTROL: return "audio-control";
    case ES2_REQ_TIMESYNC_ENABLE: return "timesync-enable";
    case ES2_REQ_TIMESYNC_DISABLE: return "timesync-disable";
    case ES2_REQ_TIMESYNC_AUTHORITATIVE: return "timesync-authoritative";
    case ES2_REQ_TIMESYNC_GET_LAST_EVENT: return "timesync-get-last-event";
    case ES2_REQ_CPORT_FLAGS: return "cport-flags";
    case ES2_REQ_ARPC_RUN: return "arpc-run";
    }
    return "unknown";
}

/* The direction, wValue and wLength rules each request must meet. */
static int want(const es2_ctrl *c, es2_action *a, uint8_t type, int zero_value,
                int exact_len, int min_len)
{
    const char *name = es2_request_name(c->request);

    if (c->request_type != type) {
        refuse(a, "%s request (0x%02x) with bmRequestType 0x%02x, expected 0x%02x", name,
               c->request, c->request_type, type);
        return 0;
    }
    if (zero_value && c->value != 0) {
        refuse(a, "%s request with wValue %u, expected 0", name, c->value);
        return 0;
    }
    if (exact_len >= 0 && c->length != exact_len) {
        refuse(a, "%s request with wLength %u, expected %d", name, c->length, exact_len);
        return 0;
    }
    if (min_len >= 0 && c->length < min_len) {
        refuse(a, "%s request with wLength %u, expected at least %d", name, c->length,
               min_len);
        return 0;
    }
    return 1;
}

static int want_cport(const es2_ctrl *c, es2_action *a, unsigned cport, unsigned count)
{
    if (cport >= count) {
        refuse(a, "%s request for CPort %u, but the bridge has %u CPorts (0..%u)",
               es2_request_name(c->request), cport, count, count - 1);
        return 0;
    }
    return 1;
}

static void forward(es2_action *a, uint16_t type, uint16_t cport)
{
    a->verdict = ES2_FORWARD;
    a->gbl_type = type;
    a->cport = cport;
}

/* An APBridgeA audio request (drivers/staging/greybus/audio_apbridgea.h): a 3-byte header
 * (type u8, i2s_port le16) and a body whose size the type fixes. The device checks the
 * framing and the hd CPort a REGISTER/UNREGISTER names; what the requests mean is the
 * simulator's (the APBridgeA side). */
static void decode_audio(const es2_ctrl *c, unsigned count, es2_action *a)
{
    static const uint8_t body_len[] = {
        [0x01] = 12, /* SET_CONFIG: format le32, rate le32, mclk_freq le32 */
        [0x02] = 3,  /* REGISTER_CPORT: cport le16, direction u8 */
        [0x03] = 3,  /* UNREGISTER_CPORT */
        [0x04] = 2,  /* SET_TX_DATA_SIZE: size le16 */
        [0x06] = 0,  /* PREPARE_TX */
        [0x07] = 8,  /* START_TX: timestamp le64 */
        [0x08] = 0,  /* STOP_TX */
        [0x09] = 0,  /* SHUTDOWN_TX */
        [0x0a] = 2,  /* SET_RX_DATA_SIZE */
        [0x0c] = 0,  /* PREPARE_RX */
        [0x0d] = 0,  /* START_RX */
        [0x0e] = 0,  /* STOP_RX */
        [0x0f] = 0,  /* SHUTDOWN_RX */
    };
    uint8_t type;

    if (!want(c, a, ES2_REQTYPE_OUT, 1, -1, ES2_AUDIO_HEADER)) {
        return;
    }
    type = c->data[0];
    if (type == 0 || type >= sizeof(body_len) || type == 0x05 || type == 0x0b) {
        refuse(a, "audio-control request of unknown APBridgeA type 0x%02x", type);
        return;
    }
    if (c->length != ES2_AUDIO_HEADER + body_len[type]) {
        refuse(a, "audio-control request of APBridgeA type 0x%02x with %u bytes, expected %u",
               type, c->length, ES2_AUDIO_HEADER + body_len[type]);
        return;
    }
    if ((type == 0x02 || type == 0x03) && !want_cport(c, a, get_le16(c->data + 3), count)) {
        return;
    }
    forward(a, GBL_T_AUDIO_CONTROL, GBL_CPORT_NONE);
    set_payload(a, c->data, c->length);
}

static void decode_arpc(const es2_ctrl *c, unsigned count, es2_action *a)
{
    static const struct {
        uint8_t type;
        uint8_t payload;        /* exact payload size (arpc.h request structs) */
        uint16_t gbl_type;
        const char *name;
    } kinds[] = {
        { ES2_ARPC_CPORT_CONNECTED, 2, GBL_T_CPORT_CONNECTED, "cport-connected" },
        { ES2_ARPC_CPORT_QUIESCE, 6, GBL_T_CPORT_QUIESCE, "cport-quiesce" },
        { ES2_ARPC_CPORT_CLEAR, 2, GBL_T_CPORT_CLEAR, "cport-clear" },
        { ES2_ARPC_CPORT_FLUSH, 2, GBL_T_CPORT_FLUSH, "cport-flush" },
        { ES2_ARPC_CPORT_SHUTDOWN, 5, GBL_T_CPORT_SHUTDOWN, "cport-shutdown" },
    };
    const uint8_t *d = c->data;
    uint16_t size, cport;
    size_t i;

    if (!want(c, a, ES2_REQTYPE_OUT, 1, -1, ES2_ARPC_REQUEST_HEADER)) {
        return;
    }
    size = get_le16(d + 2);
    if (size != c->length) {
        refuse(a, "ARPC request says it is %u bytes, the transfer has %u", size, c->length);
        return;
    }
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (kinds[i].type == d[4]) {
            break;
        }
    }
    if (i == sizeof(kinds) / sizeof(kinds[0])) {
        refuse(a, "unknown ARPC type 0x%02x", d[4]);
        return;
    }
    if (size - ES2_ARPC_REQUEST_HEADER != kinds[i].payload) {
        refuse(a, "ARPC %s with %u payload bytes, expected %u", kinds[i].name,
               size - ES2_ARPC_REQUEST_HEADER, kinds[i].payload);
        return;
    }
    d += ES2_ARPC_REQUEST_HEADER;
    cport = get_le16(d);
    if (cport >= count) {
        refuse(a, "ARPC %s for CPort %u, but the bridge has %u CPorts", kinds[i].name, cport,
               count);
        return;
    }
    a->verdict = ES2_ARPC;
    a->arpc_id = get_le16(c->data);
    a->gbl_type = kinds[i].gbl_type;
    a->cport = cport;
    if (kinds[i].type == ES2_ARPC_CPORT_QUIESCE) {
        gbl_cport_quiesce q = { .peer_space = get_le16(d + 2), .timeout_ms = get_le16(d + 4) };
        set_payload(a, &q, sizeof(q));
    } else if (kinds[i].type == ES2_ARPC_CPORT_SHUTDOWN) {
        gbl_cport_shutdown s = { .timeout_ms = get_le16(d + 2), .phase = d[4] };
        if (s.phase != 1 && s.phase != 2) {
            refuse(a, "ARPC cport-shutdown for CPort %u with phase %u, expected 1 or 2", cport,
                   s.phase);
            return;
        }
        set_payload(a, &s, sizeof(s));
    }
}

void es2_decode_control(const es2_ctrl *c, unsigned count, es2_action *a)
{
    memset(a, 0, sizeof(*a));
    a->cport = GBL_CPORT_NONE;

    if ((c->request_type & 0x7f) != (ES2_REQTYPE_OUT & 0x7f)) {
        refuse(a, "control request 0x%02x/0x%02x is not a vendor request to the interface",
               c->request_type, c->request);
        return;
    }
    if (c->index != 0) {
        refuse(a, "%s request to interface %u; the bridge has only interface 0",
               es2_request_name(c->request), c->index);
        return;
    }
    if (count == 0 || count > ES2_CPORTS_MAX) {
        refuse(a, "bridge CPort count %u is out of range", count);
        return;
    }

    switch (c->request) {
    case ES2_REQ_CPORT_COUNT:
        if (want(c, a, ES2_REQTYPE_IN, 1, -1, 2)) {
            a->verdict = ES2_REPLY;
            a->reply[0] = (uint8_t)count;
            a->reply[1] = (uint8_t)(count >> 8);
            a->reply_len = 2;
        }
        return;

    case ES2_REQ_CPORT_FLAGS:
        if (want(c, a, ES2_REQTYPE_OUT, 0, 4, -1) && want_cport(c, a, c->value, count)) {
            gbl_cport_flags f = { .flags = get_le32(c->data) };
            if (f.flags & ~(uint32_t)(ES2_CPORT_FLAG_CONTROL | ES2_CPORT_FLAG_HIGH_PRIO)) {
                refuse(a, "cport-flags request for CPort %u with unknown flags 0x%08x",
                       c->value, f.flags);
                return;
            }
            forward(a, GBL_T_CPORT_FLAGS, c->value);
            set_payload(a, &f, sizeof(f));
        }
        return;

    case ES2_REQ_ARPC_RUN:
        decode_arpc(c, count, a);
        return;

    case ES2_REQ_RESET_CPORT:
    case ES2_REQ_LATENCY_TAG_EN:
    case ES2_REQ_LATENCY_TAG_DIS:
        if (want(c, a, ES2_REQTYPE_OUT, 0, 0, -1) && want_cport(c, a, c->value, count)) {
            forward(a, c->request == ES2_REQ_RESET_CPORT ? GBL_T_CPORT_RESET :
                       c->request == ES2_REQ_LATENCY_TAG_EN ? GBL_T_LATENCY_TAG_ENABLE :
                                                              GBL_T_LATENCY_TAG_DISABLE,
                    c->value);
        }
        return;

    case ES2_REQ_LOG:
        if (want(c, a, ES2_REQTYPE_IN, 1, -1, 1)) {
            forward(a, GBL_T_LOG_REQUEST, GBL_CPORT_NONE);
            a->reply_max = c->length < ES2_LOG_CHUNK ? c->length : ES2_LOG_CHUNK;
        }
        return;

    case ES2_REQ_TIMESYNC_ENABLE:
        /* {u8 count, le64 frame_time, le32 strobe_delay, le32 refclk}, packed */
        if (want(c, a, ES2_REQTYPE_OUT, 1, 17, -1)) {
            gbl_timesync_enable t = {
                .count = c->data[0],
                .frame_time = get_le64(c->data + 1),
                .strobe_delay = get_le32(c->data + 9),
                .refclk = get_le32(c->data + 13),
            };
            forward(a, GBL_T_TIMESYNC_ENABLE, GBL_CPORT_NONE);
            set_payload(a, &t, sizeof(t));
        }
        return;

    case ES2_REQ_TIMESYNC_DISABLE:
        if (want(c, a, ES2_REQTYPE_OUT, 1, 0, -1)) {
            forward(a, GBL_T_TIMESYNC_DISABLE, GBL_CPORT_NONE);
        }
        return;

    case ES2_REQ_TIMESYNC_AUTHORITATIVE:
        /* {le64 frame_time[4]} */
        if (want(c, a, ES2_REQTYPE_OUT, 1, 32, -1)) {
            gbl_timesync_authoritative t;
            for (int i = 0; i < 4; i++) {
                t.frame_time[i] = get_le64(c->data + 8 * i);
            }
            forward(a, GBL_T_TIMESYNC_AUTHORITATIVE, GBL_CPORT_NONE);
            set_payload(a, &t, sizeof(t));
        }
        return;

    case ES2_REQ_TIMESYNC_GET_LAST_EVENT:
        if (want(c, a, ES2_REQTYPE_IN, 1, -1, 8)) {
            forward(a, GBL_T_TIMESYNC_GET_LAST_EVENT, GBL_CPORT_NONE);
            a->reply_max = 8;
            a->reply_min = 8;
        }
        return;

    case ES2_REQ_AUDIO_CONTROL:
        decode_audio(c, count, a);
        return;

    case ES2_REQ_EP_MAPPING:
    case ES2_REQ_CSI_TX_CONTROL:
        refuse(a, "%s request (0x%02x) is not implemented by this bridge",
               es2_request_name(c->request), c->request);
        a->unimplemented = 1;
        return;
    }
    refuse(a, "unknown vendor request 0x%02x (bmRequestType 0x%02x)", c->request,
           c->request_type);
}

int es2_check_out_message(uint8_t *msg, size_t len, unsigned count, uint16_t *cport,
                          char *why, size_t whylen)
{
    uint16_t size;

    if (len < ES2_GB_HEADER_SIZE) {
        snprintf(why, whylen, "bulk OUT transfer of %zu bytes is shorter than a Greybus "
                 "header (%d)", len, ES2_GB_HEADER_SIZE);
        return -1;
    }
    if (len > ES2_MSG_SIZE_MAX) {
        snprintf(why, whylen, "bulk OUT transfer of %zu bytes exceeds the %d-byte message "
                 "limit", len, ES2_MSG_SIZE_MAX);
        return -1;
    }
    size = get_le16(msg);
    if (size != len) {
        snprintf(why, whylen, "Greybus header says %u bytes but the bulk OUT transfer has "
                 "%zu", size, len);
        return -1;
    }
    if (msg[ES2_GB_HEADER_CPORT] >= count) {
        snprintf(why, whylen, "bulk OUT message for CPort %u, but the bridge has %u CPorts",
                 msg[ES2_GB_HEADER_CPORT], count);
        return -1;
    }
    *cport = msg[ES2_GB_HEADER_CPORT];
    msg[ES2_GB_HEADER_CPORT] = 0;
    msg[ES2_GB_HEADER_CPORT + 1] = 0;
    return 0;
}

int es2_pack_in_message(uint16_t cport, const void *msg, size_t len, unsigned count,
                        uint8_t *out, char *why, size_t whylen)
{
    const uint8_t *m = msg;

    if (cport >= count || cport > 0xff) {
        snprintf(why, whylen, "message for CPort %u, but the bridge has %u CPorts", cport,
                 count);
        return -1;
    }
    if (len < ES2_GB_HEADER_SIZE || len > ES2_MSG_SIZE_MAX) {
        snprintf(why, whylen, "message for CPort %u of %zu bytes; a Greybus message through "
                 "ES2 has %d..%d", cport, len, ES2_GB_HEADER_SIZE, ES2_MSG_SIZE_MAX);
        return -1;
    }
    if (get_le16(m) != len) {
        snprintf(why, whylen, "message for CPort %u: header says %u bytes, record has %zu",
                 cport, get_le16(m), len);
        return -1;
    }
    memcpy(out, m, len);
    out[ES2_GB_HEADER_CPORT] = (uint8_t)cport;
    out[ES2_GB_HEADER_CPORT + 1] = 0;
    return 0;
}

void es2_arpc_response(uint16_t id, uint8_t result, uint8_t out[ES2_ARPC_RESPONSE_SIZE])
{
    out[0] = (uint8_t)id;
    out[1] = (uint8_t)(id >> 8);
    out[2] = result;
}

uint8_t es2_arpc_result_from_status(uint8_t status)
{
    switch (status) {
    case GBL_STATUS_OK: return ES2_ARPC_SUCCESS;
    case GBL_STATUS_NO_MEMORY: return ES2_ARPC_NO_MEMORY;
    case GBL_STATUS_INVALID: return ES2_ARPC_INVALID;
    case GBL_STATUS_TIMEOUT: return ES2_ARPC_TIMEOUT;
    }
    return ES2_ARPC_UNKNOWN_ERROR;
}
