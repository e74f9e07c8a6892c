// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * greybus-es2: the USB face of Project Ara's ES2 "APBridgeA" USB-to-UniPro bridge, as the
 * Linux 6.1 gb-es2 driver (drivers/greybus/es2.c) expects it.
 *
 * The device keeps no bridge semantics of its own: every Greybus message, CPort operation
 * and bridge request becomes a gblink record to the gbvp simulator, and the simulator's
 * answers come back asynchronously. The USB device is plugged into its port only while the
 * simulator is connected: when it is absent, dies or stops its side of the bridge, the guest
 * sees a USB disconnect; when it comes back, a new device.
 *
 *   -device qemu-xhci -device greybus-es2,link=/path/to/gbvp.sock[,cports=N]
 *
 * Endpoints, in the order the driver needs them: 0x81 bulk IN (Greybus messages to the AP,
 * NAK while none is queued), 0x82 bulk IN (ARPC responses), 0x03 bulk OUT (Greybus messages
 * from the AP). High speed only. See docs/qemu.md.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/usb.h"
#include "hw/usb/desc.h"
#include "migration/vmstate.h"

#include "es2_proto.h"
#include "gblink/gblink.h"

#define TYPE_GREYBUS_ES2 "greybus-es2"
OBJECT_DECLARE_SIMPLE_TYPE(GreybusES2State, GREYBUS_ES2)

#define ES2_EP_CPORT_IN 1
#define ES2_EP_ARPC_IN 2
#define ES2_EP_CPORT_OUT 3

/* Messages waiting for the guest to poll. Beyond these, records stay in the gblink ring. */
#define ES2_IN_QUEUE_MAX 256
#define ES2_ARPC_QUEUE_MAX 64
#define ES2_LINK_BUDGET 32
/* ARPCs forwarded to the simulator and not answered yet. */
#define ES2_ARPC_PENDING_MAX 32
/* A connection still in handshake after this long is dropped and retried. */
#define ES2_HANDSHAKE_TIMEOUT_MS 5000

/* gbl_link_state.reason values this device sends with GBL_T_LINK_DOWN. */
enum {
    ES2_DOWN_USB_RESET = 1,    /* the guest reset the device; a LINK_UP follows at once */
    ES2_DOWN_UNPLUGGED = 2,    /* the device left the guest (simulator asked, or QEMU quits) */
};

enum {
    STR_MANUFACTURER = 1,
    STR_PRODUCT,
    STR_SERIALNUMBER,
    STR_CONFIG,
    STR_INTERFACE,
};

static const USBDescStrings desc_strings = {
    [STR_MANUFACTURER] = "gbvp",
    [STR_PRODUCT] = "APBridgeA ES2 (gbvp)",
    [STR_SERIALNUMBER] = "1",
    [STR_CONFIG] = "Greybus bridge",
    [STR_INTERFACE] = "Greybus CPorts and ARPC",
};

static const USBDescIface desc_iface_es2 = {
    .bInterfaceNumber = 0,
    .bNumEndpoints = 3,
    .bInterfaceClass = USB_CLASS_VENDOR_SPEC,
    .bInterfaceSubClass = 0xff,
    .bInterfaceProtocol = 0xff,
    .iInterface = STR_INTERFACE,
    .eps = (USBDescEndpoint[]) {
        {
            .bEndpointAddress = USB_DIR_IN | ES2_EP_CPORT_IN,
            .bmAttributes = USB_ENDPOINT_XFER_BULK,
            .wMaxPacketSize = 512,
        }, {
            .bEndpointAddress = USB_DIR_IN | ES2_EP_ARPC_IN,
            .bmAttributes = USB_ENDPOINT_XFER_BULK,
            .wMaxPacketSize = 512,
        }, {
            .bEndpointAddress = USB_DIR_OUT | ES2_EP_CPORT_OUT,
            .bmAttributes = USB_ENDPOINT_XFER_BULK,
            .wMaxPacketSize = 512,
        },
    },
};

static const USBDescDevice desc_device_es2 = {
    .bcdUSB = 0x0200,
    .bMaxPacketSize0 = 64,
    .bNumConfigurations = 1,
    .confs = (USBDescConfig[]) {
        {
            .bNumInterfaces = 1,
            .bConfigurationValue = 1,
            .iConfiguration = STR_CONFIG,
            .bmAttributes = USB_CFG_ATT_ONE | USB_CFG_ATT_SELFPOWER,
            .bMaxPower = 0,
            .nif = 1,
            .ifs = &desc_iface_es2,
        },
    },
};

static const USBDesc desc_es2 = {
    .id = {
        .idVendor = ES2_VENDOR_ID,
        .idProduct = ES2_PRODUCT_ID,
        .bcdDevice = 0x0100,
        .iManufacturer = STR_MANUFACTURER,
        .iProduct = STR_PRODUCT,
        .iSerialNumber = STR_SERIALNUMBER,
    },
    .high = &desc_device_es2,
    .str = desc_strings,
};

typedef struct ES2Msg {
    QSIMPLEQ_ENTRY(ES2Msg) next;
    uint32_t len;
    uint8_t data[];
} ES2Msg;

typedef struct ES2Queue {
    QSIMPLEQ_HEAD(, ES2Msg) head;
    unsigned len;
} ES2Queue;

typedef struct ES2PendingArpc {
    bool used;
    uint16_t arpc_id;
    uint32_t link_id;
} ES2PendingArpc;

struct GreybusES2State {
    USBDevice dev;

    /* properties */
    char *link_path;
    uint16_t cports_prop;
    uint32_t reconnect_ms;

    gbl_link *link;
    QEMUTimer *reconnect_timer;
    QEMUBH *wakeup_bh;
    bool fd_watched;
    int64_t handshake_since;      /* QEMU_CLOCK_REALTIME ms when connect() succeeded */
    bool said_absent;             /* "no simulator" already reported for this absence */

    bool peer_hello;              /* the simulator's HELLO arrived on this connection */
    bool peer_down;               /* the simulator said LINK_DOWN (and no LINK_UP since) */
    uint16_t peer_cports;         /* the simulator's cport_count from its HELLO */
    unsigned cports;              /* the count given to the guest while attached */
    int64_t time_base;            /* QEMU_CLOCK_VIRTUAL ns at link up */

    USBEndpoint *ep_cport_in;
    USBEndpoint *ep_arpc_in;
    USBEndpoint *ep_cport_out;
    uint8_t wakeup_eps;           /* bit n: usb_wakeup() endpoint n from the BH */

    ES2Queue cport_in;            /* Greybus messages for the AP, CPort id in pad[0] */
    ES2Queue arpc_in;             /* 3-byte ARPC responses */
    bool out_blocked;             /* an OUT transfer was NAKed because the ring was full */

    uint32_t next_id;             /* gblink request ids */
    ES2PendingArpc arpc[ES2_ARPC_PENDING_MAX];

    USBPacket *ctrl_packet;       /* the control transfer waiting for the simulator */
    uint32_t ctrl_id;
    es2_action ctrl_action;
};

/* ---- queues ---------------------------------------------------------------------------- */

static void es2_queue_init(ES2Queue *q)
{
    QSIMPLEQ_INIT(&q->head);
    q->len = 0;
}

/* A message of len bytes for the caller to fill, then es2_queue_add. */
static ES2Msg *es2_msg_new(uint32_t len)
{
    ES2Msg *m = g_malloc(sizeof(*m) + len);

    m->len = len;
    return m;
}

static void es2_queue_add(ES2Queue *q, ES2Msg *m)
{
    QSIMPLEQ_INSERT_TAIL(&q->head, m, next);
    q->len++;
}

static void es2_queue_push(ES2Queue *q, const void *data, uint32_t len)
{
    ES2Msg *m = es2_msg_new(len);

    memcpy(m->data, data, len);
    es2_queue_add(q, m);
}

static ES2Msg *es2_queue_pop(ES2Queue *q)
{
    ES2Msg *m = QSIMPLEQ_FIRST(&q->head);

    if (m) {
        QSIMPLEQ_REMOVE_HEAD(&q->head, next);
        q->len--;
    }
    return m;
}

static void es2_queue_flush(ES2Queue *q)
{
    ES2Msg *m;

    while ((m = es2_queue_pop(q))) {
        g_free(m);
    }
}

/* ---- link plumbing --------------------------------------------------------------------- */

static void es2_link_readable(void *opaque);

static uint64_t es2_now(GreybusES2State *s)
{
    int64_t t = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - s->time_base;

    return t > 0 ? (uint64_t)t : 0;
}

static bool es2_link_up(GreybusES2State *s)
{
    return s->link && gbl_state(s->link) == GBL_STATE_UP;
}

/* Records are taken from the ring only while the guest-facing queues have room for a
 * whole budget, so a guest that stops polling leaves the backlog in the ring. */
static bool es2_has_room(GreybusES2State *s)
{
    return s->cport_in.len + ES2_LINK_BUDGET <= ES2_IN_QUEUE_MAX &&
           s->arpc_in.len + ES2_LINK_BUDGET <= ES2_ARPC_QUEUE_MAX;
}

static void es2_update_fd_watch(GreybusES2State *s)
{
    bool want = s->link && es2_has_room(s);

    if (want != s->fd_watched) {
        qemu_set_fd_handler(gbl_fd(s->link), want ? es2_link_readable : NULL, NULL, s);
        s->fd_watched = want;
    }
}

static void es2_pump(GreybusES2State *s)
{
    while (s->link && es2_has_room(s)) {
        if (gbl_process(s->link) < ES2_LINK_BUDGET) {
            break;
        }
    }
    es2_update_fd_watch(s);
}

static void es2_link_readable(void *opaque)
{
    es2_pump(opaque);
}

static void es2_schedule_wakeup(GreybusES2State *s, int ep)
{
    s->wakeup_eps |= 1u << ep;
    qemu_bh_schedule(s->wakeup_bh);
}

/* Deferred: a wakeup for the endpoint xHCI is processing right now would be lost. */
static void es2_wakeup_bh(void *opaque)
{
    GreybusES2State *s = opaque;
    uint8_t eps = s->wakeup_eps;

    s->wakeup_eps = 0;
    if (!s->dev.attached) {
        return;
    }
    if (eps & (1u << ES2_EP_CPORT_IN)) {
        usb_wakeup(s->ep_cport_in, 0);
    }
    if (eps & (1u << ES2_EP_ARPC_IN)) {
        usb_wakeup(s->ep_arpc_in, 0);
    }
    if (eps & (1u << ES2_EP_CPORT_OUT)) {
        usb_wakeup(s->ep_cport_out, 0);
    }
    /* The guest drained the queues: take more records from the ring. */
    es2_pump(s);
}

static void es2_send_link_state(GreybusES2State *s, uint16_t type, uint32_t reason)
{
    gbl_link_state st = { .reason = reason };

    if (es2_link_up(s)) {
        gbl_send_msg(s->link, type, GBL_CPORT_NONE, 0, es2_now(s), &st, sizeof(st));
    }
}

/* ---- guest-visible bridge state --------------------------------------------------------- */

static void es2_forget_requests(GreybusES2State *s)
{
    es2_queue_flush(&s->cport_in);
    es2_queue_flush(&s->arpc_in);
    memset(s->arpc, 0, sizeof(s->arpc));
    s->out_blocked = false;
}

/* Finishes the control transfer waiting for the simulator, if any, with a STALL. */
static void es2_fail_ctrl(GreybusES2State *s)
{
    USBPacket *p = s->ctrl_packet;

    if (p) {
        s->ctrl_packet = NULL;
        p->status = USB_RET_STALL;
        usb_generic_async_ctrl_complete(&s->dev, p);
    }
}

/* Plugs the device into its port when the simulator is there and ready, and unplugs it
 * when it is not. */
static void es2_update_attach(GreybusES2State *s)
{
    bool want = es2_link_up(s) && s->peer_hello && !s->peer_down;
    Error *err = NULL;

    if (want && !s->dev.attached) {
        s->cports = s->cports_prop ? s->cports_prop :
                    s->peer_cports ? MIN(s->peer_cports, ES2_CPORTS_MAX) :
                    ES2_CPORTS_DEFAULT;
        es2_forget_requests(s);
        usb_device_attach(&s->dev, &err);
        if (err) {
            error_reportf_err(err, "greybus-es2: cannot plug the bridge in: ");
            return;
        }
        info_report("greybus-es2: simulator at %s ready: bridge plugged in (%u CPorts)",
                    s->link_path, s->cports);
        es2_send_link_state(s, GBL_T_LINK_UP, 0);
    } else if (!want && s->dev.attached) {
        es2_fail_ctrl(s);
        es2_send_link_state(s, GBL_T_LINK_DOWN, ES2_DOWN_UNPLUGGED);
        usb_device_detach(&s->dev);
        es2_forget_requests(s);
        info_report("greybus-es2: bridge unplugged");
    }
}

/* ---- records from the simulator ---------------------------------------------------------- */

static void es2_rx_message(GreybusES2State *s, const gbl_record *rec)
{
    char why[ES2_WHY_MAX];
    ES2Msg *m;

    if (!s->dev.attached) {
        return;     /* nobody to give it to; the guest will see a fresh bridge */
    }
    if (rec->len > ES2_MSG_SIZE_MAX) {
        warn_report("greybus-es2: dropping a message from the simulator: %u bytes exceed "
                    "the %d-byte limit", rec->len, ES2_MSG_SIZE_MAX);
        return;
    }
    /* packed straight into the bulk IN queue: the one copy between gblink and the guest */
    m = es2_msg_new(rec->len);
    if (es2_pack_in_message(rec->cport, rec->payload, rec->len, s->cports, m->data, why,
                            sizeof(why)) < 0) {
        g_free(m);
        warn_report("greybus-es2: dropping a message from the simulator: %s", why);
        return;
    }
    es2_queue_add(&s->cport_in, m);
    es2_schedule_wakeup(s, ES2_EP_CPORT_IN);
}

static void es2_complete_ctrl(GreybusES2State *s, uint8_t status, const uint8_t *data,
                              uint32_t len)
{
    USBPacket *p = s->ctrl_packet;
    const es2_action *a = &s->ctrl_action;

    s->ctrl_packet = NULL;
    p->status = USB_RET_SUCCESS;
    if (status != GBL_STATUS_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: the simulator refused %s (CPort %u): "
                      "status 0x%02x\n", gbl_type_name(a->gbl_type), a->cport, status);
        p->status = USB_RET_STALL;
    } else if (a->reply_max) {
        if (len < a->reply_min) {
            warn_report("greybus-es2: the simulator answered %s with %u bytes, expected %u",
                        gbl_type_name(a->gbl_type), len, a->reply_min);
            p->status = USB_RET_STALL;
        } else {
            len = MIN(len, a->reply_max);
            memcpy(s->dev.data_buf, data, len);
            p->actual_length = len;
        }
    }
    usb_generic_async_ctrl_complete(&s->dev, p);
}

static void es2_rx_result(GreybusES2State *s, const gbl_record *rec)
{
    gbl_result res;
    const uint8_t *data;
    uint32_t len;
    uint8_t resp[ES2_ARPC_RESPONSE_SIZE];

    if (rec->len < sizeof(res)) {
        warn_report("greybus-es2: result record of %u bytes from the simulator", rec->len);
        return;
    }
    memcpy(&res, rec->payload, sizeof(res));
    data = (const uint8_t *)rec->payload + sizeof(res);
    len = rec->len - sizeof(res);
    if (s->ctrl_packet && rec->id == s->ctrl_id) {
        if (res.request_type != s->ctrl_action.gbl_type) {
            warn_report("greybus-es2: result %u answers %s, but %s was asked",
                        rec->id, gbl_type_name(res.request_type),
                        gbl_type_name(s->ctrl_action.gbl_type));
            es2_fail_ctrl(s);
            return;
        }
        es2_complete_ctrl(s, res.status, data, len);
        return;
    }
    for (int i = 0; i < ES2_ARPC_PENDING_MAX; i++) {
        ES2PendingArpc *pa = &s->arpc[i];

        if (pa->used && pa->link_id == rec->id) {
            pa->used = false;
            if (s->arpc_in.len >= ES2_ARPC_QUEUE_MAX) {
                warn_report("greybus-es2: ARPC response queue full, dropping %u", pa->arpc_id);
                return;
            }
            es2_arpc_response(pa->arpc_id, es2_arpc_result_from_status(res.status), resp);
            es2_queue_push(&s->arpc_in, resp, sizeof(resp));
            es2_schedule_wakeup(s, ES2_EP_ARPC_IN);
            return;
        }
    }
    /* A late answer to a request the guest gave up on, or one from before a reset. */
}

static void es2_on_record(void *ctx, const gbl_record *rec)
{
    GreybusES2State *s = ctx;
    gbl_hello hello;

    switch (rec->type) {
    case GBL_T_HELLO:
        if (rec->len < sizeof(hello)) {
            warn_report("greybus-es2: short hello from the simulator (%u bytes)", rec->len);
            return;
        }
        memcpy(&hello, rec->payload, sizeof(hello));
        s->peer_hello = true;
        s->peer_cports = hello.cport_count;
        break;
    case GBL_T_LINK_UP:
        s->peer_down = false;
        break;
    case GBL_T_LINK_DOWN:
        s->peer_down = true;
        break;
    case GBL_T_GB_MESSAGE:
        es2_rx_message(s, rec);
        return;
    case GBL_T_RESULT:
        es2_rx_result(s, rec);
        return;
    case GBL_T_TIME_GRANT:
        return;     /* lockstep is not offered; nothing to pace */
    default:
        warn_report("greybus-es2: ignoring %s record from the simulator",
                    gbl_type_name(rec->type));
        return;
    }
    es2_update_attach(s);
}

static void es2_on_up(void *ctx)
{
    GreybusES2State *s = ctx;
    gbl_hello hello = {
        .version_major = GBL_VERSION_MAJOR,
        .version_minor = GBL_VERSION_MINOR,
        .cport_count = s->cports_prop,
    };

    pstrcpy(hello.name, sizeof(hello.name), "qemu greybus-es2");
    s->time_base = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    s->peer_hello = false;
    s->peer_down = false;
    s->said_absent = false;
    s->handshake_since = 0;
    gbl_send_msg(s->link, GBL_T_HELLO, GBL_CPORT_NONE, 0, 0, &hello, sizeof(hello));
}

static void es2_on_down(void *ctx, int err, const char *why)
{
    GreybusES2State *s = ctx;

    warn_report("greybus-es2: link to the simulator at %s lost: %s", s->link_path, why);
    s->peer_hello = false;
    s->handshake_since = 0;
    es2_update_attach(s);
    timer_mod(s->reconnect_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + s->reconnect_ms);
}

static void es2_on_writable(void *ctx)
{
    GreybusES2State *s = ctx;

    if (s->out_blocked) {
        s->out_blocked = false;
        es2_schedule_wakeup(s, ES2_EP_CPORT_OUT);
    }
}

static const gbl_callbacks es2_link_callbacks = {
    .record = es2_on_record,
    .up = es2_on_up,
    .down = es2_on_down,
    .writable = es2_on_writable,
};

/* Connects while no simulator is there; gives up on a handshake that never completes. */
static void es2_reconnect(void *opaque)
{
    GreybusES2State *s = opaque;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    int r;

    switch (gbl_state(s->link)) {
    case GBL_STATE_IDLE:
        r = gbl_connect(s->link);
        if (r == 0) {
            s->handshake_since = now;
            es2_pump(s);
        } else if (!s->said_absent) {
            s->said_absent = true;
            warn_report("greybus-es2: no simulator at %s (%s); retrying every %u ms",
                        s->link_path, strerror(-r), s->reconnect_ms);
        }
        break;
    case GBL_STATE_HANDSHAKE:
        if (s->handshake_since && now - s->handshake_since > ES2_HANDSHAKE_TIMEOUT_MS) {
            warn_report("greybus-es2: simulator at %s did not finish the handshake in %d ms;"
                        " retrying", s->link_path, ES2_HANDSHAKE_TIMEOUT_MS);
            gbl_disconnect(s->link);
            s->handshake_since = 0;
        }
        break;
    default:
        return;     /* up: the down callback re-arms the timer */
    }
    timer_mod(s->reconnect_timer, now + s->reconnect_ms);
}

/* ---- USB ----------------------------------------------------------------------------------- */

static void es2_handle_reset(USBDevice *dev)
{
    GreybusES2State *s = GREYBUS_ES2(dev);

    es2_forget_requests(s);
    if (dev->attached) {
        /* The bridge restarts: the simulator forgets its CPort state. */
        es2_send_link_state(s, GBL_T_LINK_DOWN, ES2_DOWN_USB_RESET);
        es2_send_link_state(s, GBL_T_LINK_UP, 0);
    }
}

static int es2_send_request(GreybusES2State *s, const es2_action *a, uint32_t *id)
{
    int r;

    if (!es2_link_up(s)) {
        return -ENOTCONN;
    }
    *id = ++s->next_id;
    r = gbl_send_msg(s->link, a->gbl_type, a->cport, *id, es2_now(s), a->payload,
                     a->payload_len);
    if (r == -EINVAL) {
        warn_report("greybus-es2: gblink refused %s: %s", gbl_type_name(a->gbl_type),
                    gbl_error(s->link));
    }
    return r;
}

static void es2_run_arpc(GreybusES2State *s, USBPacket *p, const es2_action *a)
{
    ES2PendingArpc *slot = NULL;
    uint32_t id;
    int r;

    for (int i = 0; i < ES2_ARPC_PENDING_MAX; i++) {
        if (!s->arpc[i].used) {
            slot = &s->arpc[i];
            break;
        }
    }
    if (!slot) {
        /* The simulator answers none of them: make room, the oldest has timed out. */
        warn_report("greybus-es2: %d ARPCs unanswered by the simulator; forgetting the "
                    "oldest", ES2_ARPC_PENDING_MAX);
        slot = &s->arpc[0];
        for (int i = 1; i < ES2_ARPC_PENDING_MAX; i++) {
            if (s->arpc[i].link_id - slot->link_id > UINT32_MAX / 2) {
                slot = &s->arpc[i];
            }
        }
    }
    r = es2_send_request(s, a, &id);
    if (r < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: cannot forward ARPC %s (CPort %u): %s\n",
                      gbl_type_name(a->gbl_type), a->cport, strerror(-r));
        p->status = USB_RET_STALL;
        return;
    }
    slot->used = true;
    slot->arpc_id = a->arpc_id;
    slot->link_id = id;
}

static bool es2_has_endpoint(int address)
{
    switch (address) {
    case 0x00:
    case 0x80:
    case USB_DIR_IN | ES2_EP_CPORT_IN:
    case USB_DIR_IN | ES2_EP_ARPC_IN:
    case USB_DIR_OUT | ES2_EP_CPORT_OUT:
        return true;
    }
    return false;
}

/* The standard requests hw/usb/desc.c leaves to the device: endpoint halt and status.
 * Returns false for anything else (a vendor request, or a refusal the caller makes). */
static bool es2_standard_request(USBPacket *p, int request, int value, int index,
                                 int length, uint8_t *data)
{
    switch (request) {
    case EndpointOutRequest | USB_REQ_CLEAR_FEATURE:
        if (value != 0 || !es2_has_endpoint(index)) {     /* 0 = ENDPOINT_HALT */
            qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: CLEAR_FEATURE %d on endpoint "
                          "0x%02x, which the bridge does not have\n", value, index);
            p->status = USB_RET_STALL;
        }
        return true;
    case EndpointRequest | USB_REQ_GET_STATUS:
    case InterfaceRequest | USB_REQ_GET_STATUS:
        if (length < 2 || (request == EndpointRequest && !es2_has_endpoint(index)) ||
            (request == InterfaceRequest && index != 0)) {
            qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: GET_STATUS of %s 0x%02x with "
                          "wLength %d refused\n", request == EndpointRequest ? "endpoint" :
                          "interface", index, length);
            p->status = USB_RET_STALL;
            return true;
        }
        data[0] = 0;
        data[1] = 0;
        p->actual_length = 2;
        return true;
    }
    return false;
}

static void es2_handle_control(USBDevice *dev, USBPacket *p, int request, int value,
                               int index, int length, uint8_t *data)
{
    GreybusES2State *s = GREYBUS_ES2(dev);
    es2_ctrl c = {
        .request_type = request >> 8,
        .request = request & 0xff,
        .value = value,
        .index = index,
        .length = length,
        .data = data,
    };
    es2_action a;
    uint32_t id;
    int r;

    if (usb_desc_handle_control(dev, p, request, value, index, length, data) >= 0) {
        return;
    }
    if (es2_standard_request(p, request, value, index, length, data)) {
        return;
    }
    es2_decode_control(&c, s->cports, &a);
    switch (a.verdict) {
    case ES2_REFUSE:
        qemu_log_mask(a.unimplemented ? LOG_UNIMP : LOG_GUEST_ERROR, "greybus-es2: %s\n",
                      a.why);
        p->status = USB_RET_STALL;
        return;
    case ES2_REPLY:
        memcpy(data, a.reply, a.reply_len);
        p->actual_length = a.reply_len;
        return;
    case ES2_ARPC:
        es2_run_arpc(s, p, &a);
        return;
    case ES2_FORWARD:
        if (s->ctrl_packet) {
            /* EP0 carries one transfer at a time; a second one means a confused HCD. */
            qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: %s while another control request "
                          "is pending\n", es2_request_name(c.request));
            p->status = USB_RET_STALL;
            return;
        }
        r = es2_send_request(s, &a, &id);
        if (r < 0) {
            qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: cannot forward %s request: %s\n",
                          es2_request_name(c.request), strerror(-r));
            p->status = USB_RET_STALL;
            return;
        }
        s->ctrl_packet = p;
        s->ctrl_id = id;
        s->ctrl_action = a;
        p->status = USB_RET_ASYNC;
        return;
    }
}

static void es2_cancel_packet(USBDevice *dev, USBPacket *p)
{
    GreybusES2State *s = GREYBUS_ES2(dev);

    if (p == s->ctrl_packet) {
        s->ctrl_packet = NULL;   /* a late answer finds no packet and is dropped */
    }
}

static void es2_data_in(GreybusES2State *s, USBPacket *p, ES2Queue *q)
{
    ES2Msg *m = QSIMPLEQ_FIRST(&q->head);

    if (!m) {
        p->status = USB_RET_NAK;
        return;
    }
    if (m->len > usb_packet_size(p)) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: bulk IN buffer of %zu bytes on EP %d "
                      "for a %u-byte message; message dropped\n", usb_packet_size(p),
                      p->ep->nr, m->len);
        g_free(es2_queue_pop(q));
        p->status = USB_RET_STALL;
        return;
    }
    m = es2_queue_pop(q);
    usb_packet_copy(p, m->data, m->len);
    g_free(m);
    if (!s->fd_watched && es2_has_room(s)) {
        qemu_bh_schedule(s->wakeup_bh);     /* resumes reading the ring */
    }
}

static void es2_data_out(GreybusES2State *s, USBPacket *p)
{
    size_t len = usb_packet_size(p);
    uint8_t buf[ES2_MSG_SIZE_MAX];
    char why[ES2_WHY_MAX];
    uint16_t cport;
    int r;

    if (len == 0) {
        return;     /* the zero-length packet after a multiple of 512 (URB_ZERO_PACKET) */
    }
    if (len > sizeof(buf)) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: bulk OUT transfer of %zu bytes exceeds "
                      "the %d-byte message limit\n", len, ES2_MSG_SIZE_MAX);
        p->status = USB_RET_STALL;
        return;
    }
    usb_packet_copy(p, buf, len);
    if (es2_check_out_message(buf, len, s->cports, &cport, why, sizeof(why)) < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: %s\n", why);
        p->status = USB_RET_STALL;
        return;
    }
    r = es2_link_up(s) ? gbl_send_msg(s->link, GBL_T_GB_MESSAGE, cport, 0, es2_now(s), buf,
                                      len)
                       : -ENOTCONN;
    if (r == -EAGAIN) {
        /* The simulator is behind: retry when it has made room (writable callback). */
        s->out_blocked = true;
        p->actual_length = 0;
        p->status = USB_RET_NAK;
    } else if (r < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: cannot forward a message for CPort %u: "
                      "%s\n", cport, strerror(-r));
        p->status = USB_RET_STALL;
    }
}

static void es2_handle_data(USBDevice *dev, USBPacket *p)
{
    GreybusES2State *s = GREYBUS_ES2(dev);

    if (p->pid == USB_TOKEN_IN && p->ep->nr == ES2_EP_CPORT_IN) {
        es2_data_in(s, p, &s->cport_in);
    } else if (p->pid == USB_TOKEN_IN && p->ep->nr == ES2_EP_ARPC_IN) {
        es2_data_in(s, p, &s->arpc_in);
    } else if (p->pid == USB_TOKEN_OUT && p->ep->nr == ES2_EP_CPORT_OUT) {
        es2_data_out(s, p);
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: %s transfer on endpoint %d, which the "
                      "bridge does not have\n", p->pid == USB_TOKEN_IN ? "IN" : "OUT",
                      p->ep->nr);
        p->status = USB_RET_STALL;
    }
}

static void es2_realize(USBDevice *dev, Error **errp)
{
    GreybusES2State *s = GREYBUS_ES2(dev);
    gbl_config cfg = { .budget = ES2_LINK_BUDGET, .name = "qemu greybus-es2" };
    Error *local_err = NULL;
    char err[256];

    if (!s->link_path || !*s->link_path) {
        error_setg(errp, "greybus-es2: property 'link' is required: the path of the gbvp "
                   "simulator's socket (e.g. link=/tmp/gbvp.sock)");
        return;
    }
    if (s->cports_prop > ES2_CPORTS_MAX) {
        error_setg(errp, "greybus-es2: cports=%u is out of range: 1..%d (0 = as many as "
                   "the simulator says)", s->cports_prop, ES2_CPORTS_MAX);
        return;
    }
    if (s->reconnect_ms < 10 || s->reconnect_ms > 60000) {
        error_setg(errp, "greybus-es2: reconnect-ms=%u is out of range: 10..60000",
                   s->reconnect_ms);
        return;
    }
    usb_desc_create_serial(dev);
    usb_desc_init(dev);
    dev->auto_attach = 0;
    usb_check_attach(dev, &local_err);
    if (local_err) {
        error_propagate(errp, local_err);
        return;
    }
    s->cports = s->cports_prop ? s->cports_prop : ES2_CPORTS_DEFAULT;
    s->ep_cport_in = usb_ep_get(dev, USB_TOKEN_IN, ES2_EP_CPORT_IN);
    s->ep_arpc_in = usb_ep_get(dev, USB_TOKEN_IN, ES2_EP_ARPC_IN);
    s->ep_cport_out = usb_ep_get(dev, USB_TOKEN_OUT, ES2_EP_CPORT_OUT);
    es2_queue_init(&s->cport_in);
    es2_queue_init(&s->arpc_in);

    s->link = gbl_client_new(s->link_path, &cfg, &es2_link_callbacks, s, err, sizeof(err));
    if (!s->link) {
        error_setg(errp, "greybus-es2: cannot create the link to %s: %s", s->link_path, err);
        return;
    }
    s->wakeup_bh = qemu_bh_new_guarded(es2_wakeup_bh, s, &DEVICE(dev)->mem_reentrancy_guard);
    s->reconnect_timer = timer_new_ms(QEMU_CLOCK_REALTIME, es2_reconnect, s);
    es2_update_fd_watch(s);
    es2_reconnect(s);
}

static void es2_unrealize(USBDevice *dev)
{
    GreybusES2State *s = GREYBUS_ES2(dev);

    if (s->link) {
        es2_send_link_state(s, GBL_T_LINK_DOWN, ES2_DOWN_UNPLUGGED);
        if (s->fd_watched) {
            qemu_set_fd_handler(gbl_fd(s->link), NULL, NULL, NULL);
            s->fd_watched = false;
        }
        gbl_free(s->link);
        s->link = NULL;
    }
    if (s->reconnect_timer) {
        timer_free(s->reconnect_timer);
        s->reconnect_timer = NULL;
    }
    if (s->wakeup_bh) {
        qemu_bh_delete(s->wakeup_bh);
        s->wakeup_bh = NULL;
    }
    es2_queue_flush(&s->cport_in);
    es2_queue_flush(&s->arpc_in);
}

static Property es2_properties[] = {
    DEFINE_PROP_STRING("link", GreybusES2State, link_path),
    DEFINE_PROP_UINT16("cports", GreybusES2State, cports_prop, 0),
    DEFINE_PROP_UINT32("reconnect-ms", GreybusES2State, reconnect_ms, 1000),
    DEFINE_PROP_END_OF_LIST(),
};

/* The link's state lives in the simulator: migration and snapshots are refused. */
static const VMStateDescription vmstate_es2 = {
    .name = "greybus-es2",
    .unmigratable = 1,
};

static void es2_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    USBDeviceClass *uc = USB_DEVICE_CLASS(klass);

    uc->realize = es2_realize;
    uc->unrealize = es2_unrealize;
    uc->handle_reset = es2_handle_reset;
    uc->handle_attach = usb_desc_attach;
    uc->handle_control = es2_handle_control;
    uc->handle_data = es2_handle_data;
    uc->cancel_packet = es2_cancel_packet;
    uc->product_desc = "gbvp APBridgeA ES2";
    uc->usb_desc = &desc_es2;
    dc->desc = "Greybus ES2 APBridgeA USB bridge (to the gbvp simulator)";
    dc->vmsd = &vmstate_es2;
    device_class_set_props(dc, es2_properties);
    object_class_property_set_description(klass, "link",
        "path of the gbvp simulator's gblink socket (required)");
    object_class_property_set_description(klass, "cports",
        "hd CPorts reported to the guest, 1..255; 0 = as many as the simulator says (44 if it says 0)");
    object_class_property_set_description(klass, "reconnect-ms",
        "how often to retry connecting while the simulator is absent, 10..60000");
    set_bit(DEVICE_CATEGORY_BRIDGE, dc->categories);
}

static const TypeInfo es2_info = {
    .name = TYPE_GREYBUS_ES2,
    .parent = TYPE_USB_DEVICE,
    .instance_size = sizeof(GreybusES2State),
    .class_init = es2_class_init,
};

static void es2_register_types(void)
{
    type_register_static(&es2_info);
}

type_init(es2_register_types)
