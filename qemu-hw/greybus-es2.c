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
 * With lockstep=on (QEMU run with -icount shift=N,sleep=off) the device and the simulator
 * share one clock: QEMU's virtual time. The device parks the guest at time barriers, tells
 * the simulator how far it got and waits for the simulator's grant of the next span; every
 * record from the simulator is taken at a barrier, so the guest sees it at a virtual time
 * that does not depend on the host (docs/qemu.md, "Lockstep").
 *
 * Endpoints, in the order the driver needs them: 0x81 bulk IN (Greybus messages to the AP,
 * NAK while none is queued), 0x82 bulk IN (ARPC responses), 0x03 bulk OUT (Greybus messages
 * from the AP). High speed only. See docs/qemu.md.
 */
#include "qemu/osdep.h"

#include <poll.h>

#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "sysemu/cpu-timers.h"
#include "sysemu/runstate.h"
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
/* Lockstep: messages for the guest are taken at every barrier whether or not it polls;
 * beyond this many waiting, the simulator is flooding the bridge and messages are dropped. */
#define ES2_LOCKSTEP_QUEUE_MAX 4096
/* Lockstep: busy polls of the ring before a barrier's wait sleeps in poll(). */
#define ES2_GRANT_SPINS 200

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
    bool lockstep;
    bool said_not_lockstep;     /* warned that the simulator is not in lockstep */
    uint32_t quantum_ns;
    uint32_t grant_timeout_ms;

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

    /* lockstep */
    bool realized;                /* realize is over: the bridge may be plugged in */
    QEMUTimer *barrier;           /* QEMU_CLOCK_VIRTUAL: where the guest waits for a grant */
    bool in_barrier;              /* inside the barrier's wait (vCPU thread, BQL held) */
    bool granted;                 /* the simulator's grant arrived in this wait */
    uint64_t grant_ns;            /* link time the simulator granted */
    bool flood_told;              /* the "flooding" warning was given on this connection */

    USBEndpoint *ep_cport_in;
    USBEndpoint *ep_arpc_in;
    USBEndpoint *ep_cport_out;
    uint8_t wakeup_eps;           /* bit n: usb_wakeup() endpoint n (at once, or by the BH) */
    unsigned in_usb;              /* inside one of our USB callbacks (xHCI's transfer) */

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

/* In lockstep the ring is read only at barriers, once the link is up: a record taken by
 * the main loop would reach the guest at a moment the host decides. */
static bool es2_reads_at_barriers(GreybusES2State *s)
{
    return s->lockstep && es2_link_up(s);
}

static void es2_update_fd_watch(GreybusES2State *s)
{
    bool want = s->link && !es2_reads_at_barriers(s) && es2_has_room(s);

    if (want != s->fd_watched) {
        qemu_set_fd_handler(gbl_fd(s->link), want ? es2_link_readable : NULL, NULL, s);
        s->fd_watched = want;
    }
}

static void es2_pump(GreybusES2State *s)
{
    while (s->link && !es2_reads_at_barriers(s) && es2_has_room(s)) {
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

static void es2_wake_endpoints(GreybusES2State *s)
{
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
}

/* The wakeup is immediate unless xHCI is inside a transfer of ours: records are taken from
 * the ring by the main loop's descriptor handler, a timer or the barrier, all with the BQL
 * and outside xHCI, so the guest gets the message without another main-loop pass (and at a
 * barrier without a bottom half, which would run at a moment the host decides). Inside one
 * of our USB callbacks it is deferred, since a wakeup for the endpoint xHCI is processing
 * right now would be lost. */
static void es2_schedule_wakeup(GreybusES2State *s, int ep)
{
    s->wakeup_eps |= 1u << ep;
    if (s->in_usb) {
        qemu_bh_schedule(s->wakeup_bh);
    } else {
        es2_wake_endpoints(s);
    }
}

static void es2_wakeup_bh(void *opaque)
{
    GreybusES2State *s = opaque;

    es2_wake_endpoints(s);
    /* The guest drained the queues: take more records from the ring. */
    es2_pump(s);
}

/* Lockstep: after the guest sent something, the next barrier is no later than the end of
 * the current quantum, so the simulator's answer is not held back by a long idle grant. */
static void es2_pull_barrier(GreybusES2State *s)
{
    uint64_t now, next;

    if (!s->lockstep || !timer_pending(s->barrier)) {
        return;
    }
    now = es2_now(s);
    next = (now / s->quantum_ns + 1) * s->quantum_ns;
    if ((int64_t)next + s->time_base < (int64_t)timer_expire_time_ns(s->barrier)) {
        timer_mod_ns(s->barrier, (int64_t)next + s->time_base);
    }
}

static void es2_send_link_state(GreybusES2State *s, uint16_t type, uint32_t reason)
{
    gbl_link_state st = { .reason = reason };

    if (es2_link_up(s)) {
        gbl_send_msg(s->link, type, GBL_CPORT_NONE, 0, es2_now(s), &st, sizeof(st));
        es2_pull_barrier(s);
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

    if (!s->realized) {
        return;     /* the first barrier plugs it in, once the machine is complete */
    }
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
    if (s->cport_in.len >= ES2_LOCKSTEP_QUEUE_MAX) {
        if (!s->flood_told) {
            s->flood_told = true;
            warn_report("greybus-es2: %d messages wait for the guest; the simulator sends "
                        "faster than the guest reads: dropping", ES2_LOCKSTEP_QUEUE_MAX);
        }
        return;
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
            if (s->arpc_in.len >= ES2_LOCKSTEP_QUEUE_MAX) {
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

static void es2_lockstep_fail(GreybusES2State *s, const char *why);

static void es2_rx_grant(GreybusES2State *s, const gbl_record *rec)
{
    gbl_time_grant g;

    if (!s->lockstep) {
        return;     /* lockstep was not negotiated; nothing to pace */
    }
    if (rec->len < sizeof(g)) {
        es2_lockstep_fail(s, "a time grant record too short");
        return;
    }
    memcpy(&g, rec->payload, sizeof(g));
    if (g.until_ns <= es2_now(s)) {
        char why[96];

        snprintf(why, sizeof(why), "a time grant to %" PRIu64 " ns, not after the device's "
                 "%" PRIu64 " ns", g.until_ns, es2_now(s));
        es2_lockstep_fail(s, why);
        return;
    }
    s->granted = true;
    s->grant_ns = g.until_ns;
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
        es2_rx_grant(s, rec);
        return;
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
    s->flood_told = false;
    s->peer_down = false;
    s->said_absent = false;
    s->handshake_since = 0;
    if (s->lockstep && s->realized && !(gbl_features(s->link) & GBL_FEATURE_LOCKSTEP)) {
        /* (before realize, es2_connect_now refuses it with the reason)
         * A realtime simulator never grants time: a barrier would hold the guest for
         * grant-timeout-ms at every attempt. Leave it (the guest runs on, the bridge
         * unplugged) and try again at the next reconnect-ms, which may find a simulator
         * in lockstep. Safe inside a gblink callback: gbl_process notices. */
        if (!s->said_not_lockstep) {
            s->said_not_lockstep = true;
            warn_report("greybus-es2: the simulator at %s does not run in lockstep (start it "
                        "with gbvp sim --clock lockstep): the bridge stays unplugged; "
                        "retrying every %u ms", s->link_path, s->reconnect_ms);
        }
        gbl_disconnect(s->link);
        es2_update_fd_watch(s);
        return;
    }
    s->said_not_lockstep = false;
    gbl_send_msg(s->link, GBL_T_HELLO, GBL_CPORT_NONE, 0, 0, &hello, sizeof(hello));
    if (s->lockstep) {
        /* the first barrier at once: the simulator grants the first span */
        timer_mod_ns(s->barrier, s->time_base);
        es2_update_fd_watch(s);
    }
}

static void es2_on_down(void *ctx, int err, const char *why)
{
    GreybusES2State *s = ctx;

    warn_report("greybus-es2: link to the simulator at %s lost: %s", s->link_path, why);
    if (s->barrier) {
        timer_del(s->barrier);
    }
    s->peer_hello = false;
    s->handshake_since = 0;
    es2_update_attach(s);
    es2_update_fd_watch(s);
    timer_mod(s->reconnect_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + s->reconnect_ms);
}

/* The simulator broke the lockstep contract (or stopped granting): the bridge leaves the
 * guest as if unplugged and the device connects again later. Safe inside a gblink
 * callback: gbl_process notices the disconnection. */
static void es2_lockstep_fail(GreybusES2State *s, const char *why)
{
    warn_report("greybus-es2: lockstep with the simulator at %s broken: %s; unplugging the "
                "bridge", s->link_path, why);
    gbl_disconnect(s->link);
    es2_on_down(s, -EPROTO, why);
}

/* ---- lockstep barriers ------------------------------------------------------------------- */

/* Runs in the vCPU thread with the BQL held, at a QEMU_CLOCK_VIRTUAL deadline: guest, virtual
 * time and main loop stand still until the simulator grants the next span. The wait touches
 * only the ring and its descriptor, never the main loop (which cannot run meanwhile). */
static void es2_barrier(void *opaque)
{
    GreybusES2State *s = opaque;
    uint64_t now = es2_now(s);
    gbl_time_grant reached = { .until_ns = now };
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + s->grant_timeout_ms;
    bool told = false;
    unsigned spins = 0;

    if (!es2_link_up(s)) {
        return;     /* the next connection arms the barrier again */
    }
    if (!s->realized) {
        return;
    }
    es2_update_attach(s);       /* the first barrier plugs the bridge in */
    s->granted = false;
    s->in_barrier = true;
    while (es2_link_up(s) && !s->granted) {
        int n;

        if (!told) {
            int r = gbl_send_msg(s->link, GBL_T_TIME_GRANT, GBL_CPORT_NONE, 0, now,
                                 &reached, sizeof(reached));
            told = r == 0;
            if (r < 0 && r != -EAGAIN) {
                break;
            }
        }
        n = gbl_process(s->link);
        if (n != 0) {
            spins = 0;
            continue;
        }
        if (qemu_shutdown_requested_get()) {
            break;      /* QEMU is quitting: let the main loop get there */
        }
        if (++spins < ES2_GRANT_SPINS) {
            continue;
        }
        if (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) > deadline) {
            char why[96];

            snprintf(why, sizeof(why), "no time grant for %u ms at virtual %" PRIu64 " ns",
                     s->grant_timeout_ms, now);
            es2_lockstep_fail(s, why);
            break;
        }
        {
            struct pollfd p = { .fd = gbl_fd(s->link), .events = POLLIN };

            poll(&p, 1, 20);
        }
    }
    s->in_barrier = false;
    if (s->granted && es2_link_up(s)) {
        timer_mod_ns(s->barrier, (int64_t)s->grant_ns + s->time_base);
    }
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
    if (r == 0) {
        es2_pull_barrier(s);
    }
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

static void es2_control(GreybusES2State *s, USBPacket *p, int request, int value,
                        int index, int length, uint8_t *data)
{
    USBDevice *dev = &s->dev;
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
        if (a.gbl_type == GBL_T_AUDIO_CONTROL && es2_link_up(s) &&
            !(gbl_features(s->link) & GBL_FEATURE_AUDIO)) {
            qemu_log_mask(LOG_UNIMP, "greybus-es2: audio-control request, but the simulator "
                          "does not implement APBridgeA audio\n");
            p->status = USB_RET_STALL;
            return;
        }
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
    if (!s->fd_watched && !es2_reads_at_barriers(s) && es2_has_room(s)) {
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
    if (r == 0) {
        es2_pull_barrier(s);
    } else if (r == -EAGAIN) {
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

static void es2_handle_control(USBDevice *dev, USBPacket *p, int request, int value,
                               int index, int length, uint8_t *data)
{
    GreybusES2State *s = GREYBUS_ES2(dev);

    s->in_usb++;
    es2_control(s, p, request, value, index, length, data);
    s->in_usb--;
}

static void es2_data(GreybusES2State *s, USBPacket *p)
{
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

static void es2_handle_data(USBDevice *dev, USBPacket *p)
{
    GreybusES2State *s = GREYBUS_ES2(dev);

    s->in_usb++;
    es2_data(s, p);
    s->in_usb--;
}

static void es2_unrealize(USBDevice *dev);

/* Lockstep: the link is made before the guest runs, so both clocks start together at
 * virtual time 0 (a handshake finished by the main loop would start at a moment the host
 * decides). The simulator must be running already. */
static bool es2_connect_now(GreybusES2State *s, Error **errp)
{
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + ES2_HANDSHAKE_TIMEOUT_MS;
    int r = gbl_connect(s->link);

    if (r < 0) {
        error_setg(errp, "greybus-es2: lockstep=on: no simulator at %s (%s); start gbvp sim "
                   "--clock lockstep first", s->link_path, strerror(-r));
        return false;
    }
    while (gbl_state(s->link) == GBL_STATE_HANDSHAKE) {
        struct pollfd p = { .fd = gbl_fd(s->link), .events = POLLIN };

        if (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) > deadline) {
            error_setg(errp, "greybus-es2: lockstep=on: the simulator at %s did not finish "
                       "the handshake in %d ms", s->link_path, ES2_HANDSHAKE_TIMEOUT_MS);
            return false;
        }
        poll(&p, 1, 20);
        gbl_process(s->link);
    }
    if (!es2_link_up(s)) {
        error_setg(errp, "greybus-es2: lockstep=on: the simulator at %s refused the link: %s",
                   s->link_path, gbl_error(s->link));
        return false;
    }
    if (!(gbl_features(s->link) & GBL_FEATURE_LOCKSTEP)) {
        error_setg(errp, "greybus-es2: lockstep=on: the simulator at %s does not run in "
                   "lockstep; start it with gbvp sim --clock lockstep", s->link_path);
        return false;
    }
    return true;
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
    if (s->lockstep && !icount_enabled()) {
        error_setg(errp, "greybus-es2: lockstep=on needs QEMU's virtual clock to count "
                   "instructions: run with -icount shift=N,sleep=off (TCG, not KVM)");
        return;
    }
    if (s->quantum_ns < 1000 || s->quantum_ns > 100000000) {
        error_setg(errp, "greybus-es2: quantum=%u ns is out of range: 1000..100000000",
                   s->quantum_ns);
        return;
    }
    if (s->grant_timeout_ms < 100 || s->grant_timeout_ms > 3600000) {
        error_setg(errp, "greybus-es2: grant-timeout-ms=%u is out of range: 100..3600000",
                   s->grant_timeout_ms);
        return;
    }
    cfg.features = GBL_FEATURE_AUDIO;
    if (s->lockstep) {
        cfg.features |= GBL_FEATURE_LOCKSTEP;
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
    s->barrier = timer_new_ns(QEMU_CLOCK_VIRTUAL, es2_barrier, s);
    if (s->lockstep && !es2_connect_now(s, errp)) {
        es2_unrealize(dev);
        return;
    }
    s->realized = true;
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
    if (s->barrier) {
        timer_free(s->barrier);
        s->barrier = NULL;
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
    DEFINE_PROP_BOOL("lockstep", GreybusES2State, lockstep, false),
    DEFINE_PROP_UINT32("quantum", GreybusES2State, quantum_ns, 100000),
    DEFINE_PROP_UINT32("grant-timeout-ms", GreybusES2State, grant_timeout_ms, 30000),
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
    object_class_property_set_description(klass, "lockstep",
        "share QEMU's virtual clock with the simulator through time grants (needs -icount "
        "shift=N,sleep=off and gbvp sim --clock lockstep)");
    object_class_property_set_description(klass, "quantum",
        "lockstep: after the guest sends, the next barrier is at most this many virtual ns "
        "away, 1000..100000000");
    object_class_property_set_description(klass, "grant-timeout-ms",
        "lockstep: a simulator that grants no time for this long is unplugged, 100..3600000");
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
