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
#include "qapi/visitor.h"
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
/* Most gbl_process() rounds (of ES2_LINK_BUDGET records) per main-loop call: records that
 * use no room in the guest's queues (results, link states) would otherwise keep the loop
 * going for as long as the simulator writes them. gblink keeps its descriptor readable
 * when a round used its whole budget, so the main loop comes back for the rest. */
#define ES2_PUMP_ROUNDS 8

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

/* What the device dropped or held back, cumulative since realize. Each counter is a
 * read-only QOM property "stat-NAME" (qom-get), and what grew since the last report is
 * logged at the moments es2_report_drops() names. */
typedef struct ES2Stats {
    uint64_t drop_unplugged;      /* messages from the simulator while unplugged */
    uint64_t drop_flood;          /* messages beyond ES2_LOCKSTEP_QUEUE_MAX waiting */
    uint64_t drop_arpc_flood;     /* ARPC responses beyond ES2_LOCKSTEP_QUEUE_MAX waiting */
    uint64_t drop_bad;            /* malformed messages from the simulator */
    uint64_t drop_flushed;        /* queued for the guest, discarded at reset or unplug */
    uint64_t drop_too_big;        /* longer than the guest's bulk IN buffer */
    uint64_t unknown_results;     /* results answering no request that waits */
    uint64_t deferred_link_states; /* link-up/-down that waited for room in the ring */
    uint64_t deferred_requests;   /* control requests and ARPCs that waited for room */
    uint64_t cancelled_unsent;    /* of those, given up by the guest before they went */
} ES2Stats;

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
    bool flood_told;              /* the "flooding" warning was given (until it drains) */

    USBEndpoint *ep_cport_in;
    USBEndpoint *ep_arpc_in;
    USBEndpoint *ep_cport_out;
    uint8_t wakeup_eps;           /* bit n: usb_wakeup() endpoint n (at once, or by the BH) */
    unsigned in_usb;              /* inside one of our USB callbacks (xHCI's transfer) */
    bool attach_pending;          /* es2_update_attach deferred out of a USB callback */

    ES2Queue cport_in;            /* Greybus messages for the AP, CPort id in pad[0] */
    ES2Queue arpc_in;             /* 3-byte ARPC responses */
    bool out_blocked;             /* an OUT transfer was NAKed because the ring was full */

    uint32_t next_id;             /* gblink request ids */
    ES2PendingArpc arpc[ES2_ARPC_PENDING_MAX];

    USBPacket *ctrl_packet;       /* the control transfer waiting for the simulator */
    uint32_t ctrl_id;
    es2_action ctrl_action;
    bool ctrl_unsent;             /* ctrl_action waits for room in the ring (writable) */

    /* Link-state records the ring had no room for: sent by the writable callback before
     * anything newer (a LINK_DOWN first, then a LINK_UP). */
    bool pend_down;
    uint32_t pend_down_reason;
    bool pend_up;
    bool said_ring_full;          /* "ring full, X waits" told since the last writable */

    ES2Stats stats;
    ES2Stats told;                /* the counters as last reported */
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

/* Empties q; returns how many messages it held. */
static unsigned es2_queue_flush(ES2Queue *q)
{
    unsigned n = 0;
    ES2Msg *m;

    while ((m = es2_queue_pop(q))) {
        g_free(m);
        n++;
    }
    return n;
}

/* ---- statistics -------------------------------------------------------------------------- */

static const struct {
    const char *name;             /* QOM property "stat-NAME" */
    size_t offset;
    const char *what;             /* "N <what>" in the log */
} es2_stat_info[] = {
#define ES2_STAT(field, name, what) { name, offsetof(ES2Stats, field), what }
    ES2_STAT(drop_unplugged, "dropped-unplugged",
             "messages from the simulator dropped while the bridge was unplugged"),
    ES2_STAT(drop_flood, "dropped-flood",
             "messages from the simulator dropped: the guest's queue was full"),
    ES2_STAT(drop_arpc_flood, "dropped-arpc-flood",
             "ARPC responses dropped: the guest's queue was full"),
    ES2_STAT(drop_bad, "dropped-malformed", "malformed messages from the simulator dropped"),
    ES2_STAT(drop_flushed, "dropped-at-reset",
             "messages queued for the guest discarded at a USB reset or unplug"),
    ES2_STAT(drop_too_big, "dropped-too-big",
             "messages dropped: longer than the guest's bulk IN buffer"),
    ES2_STAT(unknown_results, "unknown-results",
             "results from the simulator ignored: no request of theirs was waiting"),
    ES2_STAT(deferred_link_states, "deferred-link-states",
             "link-up/-down records that waited for room in the ring to the simulator"),
    ES2_STAT(deferred_requests, "deferred-requests",
             "control requests and ARPCs that waited for room in the ring to the simulator"),
    ES2_STAT(cancelled_unsent, "cancelled-unsent",
             "of those, cancelled by the guest before there was room"),
#undef ES2_STAT
};

static uint64_t *es2_stat(ES2Stats *st, size_t i)
{
    return (uint64_t *)((char *)st + es2_stat_info[i].offset);
}

/* Logs every counter that grew since the last report: "WHEN: N <what> (T in all)". Called
 * when the bridge is plugged in or unplugged, when the link goes down, when the guest has
 * drained its queue and at exit, so that no drop goes unreported for long. */
static void es2_report_drops(GreybusES2State *s, const char *when)
{
    for (size_t i = 0; i < ARRAY_SIZE(es2_stat_info); i++) {
        uint64_t now = *es2_stat(&s->stats, i), *told = es2_stat(&s->told, i);

        if (now != *told) {
            warn_report("greybus-es2: %s: %" PRIu64 " %s (%" PRIu64 " in all)", when,
                        now - *told, es2_stat_info[i].what, now);
            *told = now;
        }
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
    for (int i = 0; i < ES2_PUMP_ROUNDS; i++) {
        if (!s->link || es2_reads_at_barriers(s) || !es2_has_room(s) ||
            gbl_process(s->link) < ES2_LINK_BUDGET) {
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

static void es2_update_attach(GreybusES2State *s);

static void es2_wakeup_bh(void *opaque)
{
    GreybusES2State *s = opaque;

    if (s->attach_pending) {
        es2_update_attach(s);   /* a plug or unplug deferred out of a USB callback */
    }
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

/* The first time in a stretch of backpressure that something waits for room in the ring
 * to the simulator, says so; the writable callback ends the stretch. */
static void es2_tell_ring_full(GreybusES2State *s, const char *what)
{
    if (!s->said_ring_full) {
        s->said_ring_full = true;
        warn_report("greybus-es2: the ring to the simulator at %s is full (the simulator "
                    "reads slower than the guest writes): %s waits for room", s->link_path,
                    what);
    }
}

/* Sends the link-state records that wait for room, oldest first. Returns 0 when none
 * waits any more, else gbl_send's error (-EAGAIN: still no room; -EPROTO: the link went
 * down and the down callback ran, which forgot them). */
static int es2_flush_link_state(GreybusES2State *s)
{
    gbl_link_state st = { 0 };
    int r;

    if (s->pend_down) {
        st.reason = s->pend_down_reason;
        r = gbl_send_msg(s->link, GBL_T_LINK_DOWN, GBL_CPORT_NONE, 0, es2_now(s), &st,
                         sizeof(st));
        if (r < 0) {
            return r;
        }
        s->pend_down = false;
    }
    if (s->pend_up) {
        st.reason = 0;
        r = gbl_send_msg(s->link, GBL_T_LINK_UP, GBL_CPORT_NONE, 0, es2_now(s), &st,
                         sizeof(st));
        if (r < 0) {
            return r;
        }
        s->pend_up = false;
    }
    return 0;
}

/* Every record to the simulator but the hello goes through here, so that a link state
 * that waits for room is sent before anything newer. Returns gbl_send's result; after
 * -EPROTO the link is down and the down callback has run (but never unplugs the bridge
 * synchronously inside a USB callback, see es2_update_attach). */
static int es2_send(GreybusES2State *s, uint16_t type, uint16_t cport, uint32_t id,
                    const void *payload, uint32_t len)
{
    int r;

    if (!es2_link_up(s)) {
        return -ENOTCONN;
    }
    r = es2_flush_link_state(s);
    if (r == 0) {
        r = gbl_send_msg(s->link, type, cport, id, es2_now(s), payload, len);
    }
    if (r == 0) {
        es2_pull_barrier(s);
    }
    return r;
}

/* Tells the simulator that the AP's side of the bridge went down or up. With the ring
 * full the record waits (es2_flush_link_state) and goes before anything newer; a LINK_DOWN
 * replaces a LINK_UP still waiting (the simulator then sees two downs in a row, which
 * means what down, up, down would). */
static void es2_send_link_state(GreybusES2State *s, uint16_t type, uint32_t reason)
{
    int r;

    if (!es2_link_up(s)) {
        return;
    }
    if (type == GBL_T_LINK_DOWN) {
        s->pend_down = true;
        s->pend_down_reason = reason;
        s->pend_up = false;
    } else {
        s->pend_up = true;
    }
    r = es2_flush_link_state(s);
    if (r == 0) {
        es2_pull_barrier(s);
    } else if (r == -EAGAIN) {
        s->stats.deferred_link_states++;
        es2_tell_ring_full(s, gbl_type_name(type));
    } else if (r != -EPROTO) {
        /* (-EPROTO: the down callback said why and forgot what waited) */
        warn_report("greybus-es2: cannot send %s to the simulator: %s",
                    gbl_type_name(type), strerror(-r));
    }
}

/* ---- guest-visible bridge state --------------------------------------------------------- */

static void es2_forget_requests(GreybusES2State *s)
{
    s->stats.drop_flushed += es2_queue_flush(&s->cport_in);
    s->stats.drop_flushed += es2_queue_flush(&s->arpc_in);
    s->flood_told = false;
    memset(s->arpc, 0, sizeof(s->arpc));
    s->out_blocked = false;
}

/* Finishes the control transfer waiting for the simulator, if any, with a STALL. */
static void es2_fail_ctrl(GreybusES2State *s)
{
    USBPacket *p = s->ctrl_packet;

    if (p) {
        s->ctrl_packet = NULL;
        s->ctrl_unsent = false;
        p->status = USB_RET_STALL;
        usb_generic_async_ctrl_complete(&s->dev, p);
    }
}

/* Plugs the device into its port when the simulator is there and ready, and unplugs it
 * when it is not.
 *
 * Never inside one of the device's USB callbacks: there xHCI is in the middle of a
 * transfer of this device, and a detach frees that transfer (the packet the callback is
 * filling in) under it. A gblink send in a callback can take the link down (the
 * simulator corrupted its ring index: -EPROTO, and the down callback runs at once), so
 * the plug or unplug is left to the bottom half; until it runs the bridge stays plugged
 * in with the link down, and every transfer fails as with no simulator. */
static void es2_update_attach(GreybusES2State *s)
{
    bool want = es2_link_up(s) && s->peer_hello && !s->peer_down;
    Error *err = NULL;

    if (!s->realized) {
        return;     /* the first barrier plugs it in, once the machine is complete */
    }
    if (s->in_usb) {
        s->attach_pending = true;
        qemu_bh_schedule(s->wakeup_bh);
        return;
    }
    s->attach_pending = false;
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
        es2_report_drops(s, "while the bridge was unplugged");
        es2_send_link_state(s, GBL_T_LINK_UP, 0);
    } else if (!want && s->dev.attached) {
        es2_fail_ctrl(s);
        es2_send_link_state(s, GBL_T_LINK_DOWN, ES2_DOWN_UNPLUGGED);
        usb_device_detach(&s->dev);
        es2_forget_requests(s);
        info_report("greybus-es2: bridge unplugged");
        es2_report_drops(s, "bridge unplugged");
    }
}

/* ---- records from the simulator ---------------------------------------------------------- */

/* A queue for the guest is full and drops what comes: said once per flood (the guest
 * decides how long a flood lasts, and must not decide how much the host logs); the drops
 * are counted and reported when the guest has drained the queue. */
static void es2_tell_flood(GreybusES2State *s, const char *what)
{
    if (!s->flood_told) {
        s->flood_told = true;
        warn_report("greybus-es2: %d %s: dropping (counted; reported when the guest has "
                    "drained the queue)", ES2_LOCKSTEP_QUEUE_MAX, what);
    }
}

static void es2_rx_message(GreybusES2State *s, const gbl_record *rec)
{
    char why[ES2_WHY_MAX];
    ES2Msg *m;

    if (!s->dev.attached) {
        /* nobody to give it to; the guest will see a fresh bridge (counted, reported
         * when the bridge is plugged in again or the link goes down) */
        s->stats.drop_unplugged++;
        return;
    }
    if (s->cport_in.len >= ES2_LOCKSTEP_QUEUE_MAX) {
        s->stats.drop_flood++;
        es2_tell_flood(s, "messages wait for the guest; the simulator sends faster than "
                       "the guest reads");
        return;
    }
    if (rec->len > ES2_MSG_SIZE_MAX) {
        s->stats.drop_bad++;
        warn_report("greybus-es2: dropping a message from the simulator: %u bytes exceed "
                    "the %d-byte limit", rec->len, ES2_MSG_SIZE_MAX);
        return;
    }
    /* packed straight into the bulk IN queue: the one copy between gblink and the guest */
    m = es2_msg_new(rec->len);
    if (es2_pack_in_message(rec->cport, rec->payload, rec->len, s->cports, m->data, why,
                            sizeof(why)) < 0) {
        g_free(m);
        s->stats.drop_bad++;
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
    s->ctrl_unsent = false;
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
    if (s->ctrl_packet && !s->ctrl_unsent && rec->id == s->ctrl_id) {
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
                s->stats.drop_arpc_flood++;
                es2_tell_flood(s, "ARPC responses wait for the guest, which does not read "
                               "them");
                return;
            }
            es2_arpc_response(pa->arpc_id, es2_arpc_result_from_status(res.status), resp);
            es2_queue_push(&s->arpc_in, resp, sizeof(resp));
            es2_schedule_wakeup(s, ES2_EP_ARPC_IN);
            return;
        }
    }
    /* A late answer to a request the guest gave up on, one from before a reset, or one
     * the simulator made up: counted, reported with the drops. */
    s->stats.unknown_results++;
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
    if (g.until_ns > (uint64_t)(INT64_MAX - s->time_base)) {
        char why[160];

        /* the barrier's deadline, time_base + until_ns, would overflow QEMU's clock */
        snprintf(why, sizeof(why), "a time grant to %" PRIu64 " ns, beyond the %" PRId64
                 " ns QEMU's virtual clock can reach from this link's start", g.until_ns,
                 INT64_MAX - s->time_base);
        es2_lockstep_fail(s, why);
        return;
    }
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
    s->pend_down = s->pend_up = false;     /* (of the last connection) */
    s->said_ring_full = false;
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
    s->pend_down = s->pend_up = false;     /* nobody to tell any more */
    es2_update_attach(s);
    es2_update_fd_watch(s);
    es2_report_drops(s, "link lost");
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
            /* (es2_send: a link state waiting for room goes first) */
            int r = es2_send(s, GBL_T_TIME_GRANT, GBL_CPORT_NONE, 0, &reached,
                             sizeof(reached));
            told = r == 0;
            if (r < 0 && r != -EAGAIN) {
                break;
            }
        }
        n = gbl_process(s->link);
        if (s->granted || !es2_link_up(s)) {
            break;
        }
        /* On every pass, records or not: a simulator that keeps writing but never grants
         * must not hold the vCPU (and the BQL) past the deadline, nor QEMU from quitting. */
        if (qemu_shutdown_requested_get()) {
            break;      /* QEMU is quitting: let the main loop get there */
        }
        if (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) > deadline) {
            char why[96];

            snprintf(why, sizeof(why), "no time grant for %u ms at virtual %" PRIu64 " ns",
                     s->grant_timeout_ms, now);
            es2_lockstep_fail(s, why);
            break;
        }
        if (n != 0) {
            spins = 0;
            continue;
        }
        if (++spins < ES2_GRANT_SPINS) {
            continue;
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

static void es2_retry_ctrl(GreybusES2State *s);

/* gblink has room again for what it refused last: first the link states that wait, then
 * the control request, then the bulk OUT endpoint (NAKed meanwhile) is woken. Whatever
 * is refused again waits for the next call. */
static void es2_on_writable(void *ctx)
{
    GreybusES2State *s = ctx;

    s->said_ring_full = false;
    if (es2_flush_link_state(s) < 0) {
        return;
    }
    es2_retry_ctrl(s);
    if (s->out_blocked && es2_link_up(s)) {
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

    /* (in_usb: xHCI is resetting the port; a send that takes the link down must not
     * unplug the device in the middle of it) */
    s->in_usb++;
    es2_forget_requests(s);
    if (dev->attached) {
        /* The bridge restarts: the simulator forgets its CPort state. With the ring full
         * both wait for room and go before anything newer. */
        es2_send_link_state(s, GBL_T_LINK_DOWN, ES2_DOWN_USB_RESET);
        es2_send_link_state(s, GBL_T_LINK_UP, 0);
    }
    s->in_usb--;
    es2_report_drops(s, "USB reset");
}

static int es2_send_request(GreybusES2State *s, const es2_action *a, uint32_t *id)
{
    uint32_t next = s->next_id + 1;
    int r;

    r = es2_send(s, a->gbl_type, a->cport, next, a->payload, a->payload_len);
    if (r == 0) {
        s->next_id = next;
        *id = next;
    }
    if (r == -EINVAL) {
        warn_report("greybus-es2: gblink refused %s: %s", gbl_type_name(a->gbl_type),
                    gbl_error(s->link));
    }
    return r;
}

/* An ARPC went to the simulator as request `id`: its result becomes the ARPC response. */
static void es2_track_arpc(GreybusES2State *s, const es2_action *a, uint32_t id)
{
    ES2PendingArpc *slot = NULL;

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
    slot->used = true;
    slot->arpc_id = a->arpc_id;
    slot->link_id = id;
}

/* The ring had no room for the request of control transfer p: the transfer stays
 * pending (USB_RET_ASYNC) and es2_retry_ctrl sends it once gblink reports room. */
static void es2_defer_ctrl(GreybusES2State *s, USBPacket *p, const es2_action *a)
{
    s->ctrl_packet = p;
    s->ctrl_unsent = true;
    s->ctrl_action = *a;
    s->stats.deferred_requests++;
    es2_tell_ring_full(s, gbl_type_name(a->gbl_type));
    p->status = USB_RET_ASYNC;
}

/* Writable callback (never inside a USB callback): sends the control request that waits
 * for room. A forwarded request then waits for its result as usual; an ARPC_RUN transfer
 * completes now (its answer comes on the ARPC IN endpoint). */
static void es2_retry_ctrl(GreybusES2State *s)
{
    USBPacket *p;
    uint32_t id;
    int r;

    if (!s->ctrl_packet || !s->ctrl_unsent) {
        return;
    }
    r = es2_send_request(s, &s->ctrl_action, &id);
    if (r == -EAGAIN) {
        return;     /* still no room: the next writable callback tries again */
    }
    p = s->ctrl_packet;
    if (!p) {
        return;     /* the send took the link down, and the unplug failed the transfer */
    }
    s->ctrl_unsent = false;
    if (r < 0) {
        warn_report("greybus-es2: cannot forward %s (CPort %u), which waited for room in "
                    "the ring: %s", gbl_type_name(s->ctrl_action.gbl_type),
                    s->ctrl_action.cport, strerror(-r));
        es2_fail_ctrl(s);
        return;
    }
    if (s->ctrl_action.verdict == ES2_ARPC) {
        es2_track_arpc(s, &s->ctrl_action, id);
        s->ctrl_packet = NULL;
        p->status = USB_RET_SUCCESS;
        usb_generic_async_ctrl_complete(&s->dev, p);
        return;
    }
    s->ctrl_id = id;
}

static void es2_run_arpc(GreybusES2State *s, USBPacket *p, const es2_action *a)
{
    uint32_t id;
    int r;

    if (s->ctrl_packet) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: ARPC %s while another control request "
                      "is pending\n", gbl_type_name(a->gbl_type));
        p->status = USB_RET_STALL;
        return;
    }
    r = es2_send_request(s, a, &id);
    if (r == -EAGAIN) {
        es2_defer_ctrl(s, p, a);
        return;
    }
    if (r < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: cannot forward ARPC %s (CPort %u): %s\n",
                      gbl_type_name(a->gbl_type), a->cport, strerror(-r));
        p->status = USB_RET_STALL;
        return;
    }
    es2_track_arpc(s, a, id);
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
        if (r == -EAGAIN) {
            es2_defer_ctrl(s, p, &a);
            return;
        }
        if (r < 0) {
            /* (-EPROTO: the link went down in the send; p is still valid, the unplug
             * waits for the bottom half) */
            qemu_log_mask(LOG_GUEST_ERROR, "greybus-es2: cannot forward %s request: %s\n",
                          es2_request_name(c.request), strerror(-r));
            p->status = USB_RET_STALL;
            return;
        }
        s->ctrl_packet = p;
        s->ctrl_unsent = false;
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
        if (s->ctrl_unsent) {
            s->ctrl_unsent = false;
            s->stats.cancelled_unsent++;
            warn_report("greybus-es2: the guest gave up on %s (CPort %u) before the ring to "
                        "the simulator had room for it: never sent",
                        gbl_type_name(s->ctrl_action.gbl_type), s->ctrl_action.cport);
        }
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
        s->stats.drop_too_big++;
        p->status = USB_RET_STALL;
        return;
    }
    m = es2_queue_pop(q);
    usb_packet_copy(p, m->data, m->len);
    g_free(m);
    if (!q->len && memcmp(&s->stats, &s->told, sizeof(s->stats))) {
        /* the guest has caught up: what was dropped meanwhile is told now */
        s->flood_told = false;
        es2_report_drops(s, "guest queue drained");
    }
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
    r = es2_send(s, GBL_T_GB_MESSAGE, cport, 0, buf, len);
    if (r == -EAGAIN) {
        /* The simulator is behind: retry when it has made room (writable callback). */
        s->out_blocked = true;
        p->actual_length = 0;
        p->status = USB_RET_NAK;
    } else if (r < 0) {
        /* (-EPROTO: the link went down in the send; p is still valid, the unplug waits
         * for the bottom half) */
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

/* p lives in xHCI's transfer, which a detach frees: everything below may write p after
 * a gblink send that took the link down only because in_usb keeps the unplug out of here
 * (es2_update_attach). */
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
        if (s->pend_down || s->pend_up) {
            warn_report("greybus-es2: the ring to the simulator at %s is full: it is not "
                        "told that the bridge goes away (it sees the link close)",
                        s->link_path);
        }
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
    s->stats.drop_flushed += es2_queue_flush(&s->cport_in);
    s->stats.drop_flushed += es2_queue_flush(&s->arpc_in);
    if (s->realized) {
        es2_report_drops(s, "at exit");
    }
}

static void es2_get_stat(Object *obj, Visitor *v, const char *name, void *opaque,
                         Error **errp)
{
    GreybusES2State *s = GREYBUS_ES2(obj);
    uint64_t val = *es2_stat(&s->stats, (size_t)(uintptr_t)opaque);

    visit_type_uint64(v, name, &val, errp);
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
    for (size_t i = 0; i < ARRAY_SIZE(es2_stat_info); i++) {
        g_autofree char *prop = g_strdup_printf("stat-%s", es2_stat_info[i].name);

        object_class_property_add(klass, prop, "uint64", es2_get_stat, NULL, NULL,
                                  (void *)(uintptr_t)i);
        object_class_property_set_description(klass, prop, es2_stat_info[i].what);
    }
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
