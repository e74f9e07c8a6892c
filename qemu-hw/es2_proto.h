// SPDX-License-Identifier: GPL-2.0-or-later
// The USB face of the ES2 APBridgeA bridge as Linux 6.1 drivers/greybus/es2.c drives it:
// constants, and the checks and translations between what the guest sends over USB and
// gblink records. Sans-IO and QEMU-free, so it is unit-tested outside QEMU
// (tests/unit/test_es2_proto.c) and compiled into QEMU next to greybus-es2.c.
//
// Facts from include/linux/greybus/greybus_protocols.h, drivers/greybus/arpc.h and es2.c.
#ifndef GBVP_QEMU_HW_ES2_PROTO_H
#define GBVP_QEMU_HW_ES2_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define ES2_VENDOR_ID 0x18d1
#define ES2_PRODUCT_ID 0x1eaf

#define ES2_GB_HEADER_SIZE 8          /* struct gb_operation_msg_hdr */
#define ES2_GB_HEADER_CPORT 6         /* header byte (pad[0]) carrying the hd CPort id */
#define ES2_MSG_SIZE_MAX 2048         /* ES2_GBUF_MSG_SIZE_MAX, header included */
#define ES2_ARPC_RESPONSE_SIZE 3      /* struct arpc_response_message */
#define ES2_ARPC_REQUEST_HEADER 5     /* struct arpc_request_message without data */
#define ES2_CPORTS_MAX 255            /* the hd CPort id travels in one header byte */
#define ES2_CPORTS_DEFAULT 44         /* the real APBridgeA's count */
#define ES2_AUDIO_HEADER 3            /* struct audio_apbridgea_hdr */
#define ES2_LOG_CHUNK 64              /* APB1_LOG_MSG_SIZE */

/* bmRequestType of the bridge's vendor requests: vendor type, interface recipient. */
#define ES2_REQTYPE_OUT 0x41
#define ES2_REQTYPE_IN 0xc1

/* bRequest values (GB_APB_REQUEST_*). */
enum es2_request {
    ES2_REQ_LOG = 0x02,
    ES2_REQ_EP_MAPPING = 0x03,
    ES2_REQ_CPORT_COUNT = 0x04,
    ES2_REQ_RESET_CPORT = 0x05,
    ES2_REQ_LATENCY_TAG_EN = 0x06,
    ES2_REQ_LATENCY_TAG_DIS = 0x07,
    ES2_REQ_CSI_TX_CONTROL = 0x08,
    ES2_REQ_AUDIO_CONTROL = 0x09,
    ES2_REQ_TIMESYNC_ENABLE = 0x0d,
    ES2_REQ_TIMESYNC_DISABLE = 0x0e,
    ES2_REQ_TIMESYNC_AUTHORITATIVE = 0x0f,
    ES2_REQ_TIMESYNC_GET_LAST_EVENT = 0x10,
    ES2_REQ_CPORT_FLAGS = 0x11,
    ES2_REQ_ARPC_RUN = 0x12,
};

/* ARPC request types (ARPC_TYPE_*) and result codes (enum arpc_result). */
enum es2_arpc_type {
    ES2_ARPC_CPORT_CONNECTED = 0x01,
    ES2_ARPC_CPORT_QUIESCE = 0x02,
    ES2_ARPC_CPORT_CLEAR = 0x03,
    ES2_ARPC_CPORT_FLUSH = 0x04,
    ES2_ARPC_CPORT_SHUTDOWN = 0x05,
};

enum es2_arpc_result {
    ES2_ARPC_SUCCESS = 0x00,
    ES2_ARPC_NO_MEMORY = 0x01,
    ES2_ARPC_INVALID = 0x02,
    ES2_ARPC_TIMEOUT = 0x03,
    ES2_ARPC_UNKNOWN_ERROR = 0xff,
};

#define ES2_CPORT_FLAG_CONTROL 0x01
#define ES2_CPORT_FLAG_HIGH_PRIO 0x02

/* One control transfer as the device sees it (SETUP fields plus the OUT data stage). */
typedef struct es2_ctrl {
    uint8_t request_type;             /* bmRequestType */
    uint8_t request;                  /* bRequest */
    uint16_t value;                   /* wValue */
    uint16_t index;                   /* wIndex */
    uint16_t length;                  /* wLength */
    const uint8_t *data;              /* OUT: the `length` bytes of the data stage */
} es2_ctrl;

/* What to do with a vendor control request. */
typedef enum es2_verdict {
    ES2_REFUSE,        /* STALL it; `why` says what is wrong */
    ES2_REPLY,         /* answer now: IN with reply[0..reply_len), OUT with an ACK */
    ES2_FORWARD,       /* send the record to the simulator; complete the transfer when its
                        * GBL_T_RESULT arrives (USB_RET_ASYNC meanwhile) */
    ES2_ARPC,          /* send the record to the simulator and ACK the transfer now; its
                        * result goes to the guest as an ARPC response carrying arpc_id */
} es2_verdict;

#define ES2_ACTION_PAYLOAD_MAX 32
#define ES2_WHY_MAX 160

typedef struct es2_action {
    es2_verdict verdict;
    int unimplemented;                /* REFUSE: a known request the bridge does not do */
    uint16_t gbl_type;                /* FORWARD/ARPC: enum gbl_type of the record */
    uint16_t cport;                   /* FORWARD/ARPC: hd CPort, or GBL_CPORT_NONE */
    uint16_t arpc_id;                 /* ARPC: the request id to answer */
    uint32_t payload_len;             /* FORWARD/ARPC: record payload */
    uint8_t payload[ES2_ACTION_PAYLOAD_MAX];
    uint16_t reply_max;               /* FORWARD of an IN request: most bytes to return */
    uint16_t reply_min;               /* FORWARD of an IN request: fewest valid result bytes */
    uint16_t reply_len;               /* REPLY */
    uint8_t reply[8];
    char why[ES2_WHY_MAX];            /* REFUSE */
} es2_action;

/* Decides what to do with a non-standard control request, given the bridge's hd CPort
 * count. Every field of the request is checked; nothing is trusted. */
void es2_decode_control(const es2_ctrl *c, unsigned cport_count, es2_action *a);

/* Checks one bulk OUT transfer (AP -> bridge): one whole Greybus message whose header size
 * equals the transfer length, with the hd CPort id in header byte 6 below cport_count.
 * Returns 0 and the CPort id, with the header's pad bytes cleared in msg; or -1 with a
 * reason in why. */
int es2_check_out_message(uint8_t *msg, size_t len, unsigned cport_count, uint16_t *cport,
                          char *why, size_t whylen);

/* Checks a Greybus message from the simulator for hd CPort `cport` and writes what the AP
 * must receive (the same bytes with the CPort id in header byte 6) into out, which has room
 * for ES2_MSG_SIZE_MAX bytes. Returns 0, or -1 with a reason in why. */
int es2_pack_in_message(uint16_t cport, const void *msg, size_t len, unsigned cport_count,
                        uint8_t *out, char *why, size_t whylen);

/* ARPC response bytes for request `id` with result `result`. */
void es2_arpc_response(uint16_t id, uint8_t result, uint8_t out[ES2_ARPC_RESPONSE_SIZE]);

/* The ARPC result code that reports a gblink result status to the guest. */
uint8_t es2_arpc_result_from_status(uint8_t gbl_status);

/* Name of a vendor request ("cport-count", ...) or "unknown". */
const char *es2_request_name(uint8_t request);

#endif
