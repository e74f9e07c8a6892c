// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gbvp-agent-port: a virtio console port (hvc in the guest) whose host side is a Unix
 * socket read only at QEMU_CLOCK_VIRTUAL ticks, for lockstep runs (docs/qemu.md,
 * "Lockstep"). A chardev is read by the main loop whenever the host schedules it, so what
 * a host writes reaches the guest at an instruction the host decides; here the socket is
 * polled from a virtual-time timer, which under -icount fires at the same instruction on
 * every run: bytes written while QEMU is parked (a lockstep barrier) enter the guest at the
 * next tick after it. What the guest writes goes to the socket at once, in the vCPU thread
 * (with ioeventfd=off on the virtio-serial transport).
 *
 *   -device virtio-serial-pci,ioeventfd=off -device gbvp-agent-port,path=DIR/agent.sock
 *
 * One host connection at a time (a new one replaces the old); the socket is created at
 * start, an existing socket file at the path replaced.
 */
#include "qemu/osdep.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "qemu/error-report.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/qdev-properties.h"
#include "hw/virtio/virtio-serial.h"
#include "qom/object.h"

#define TYPE_GBVP_AGENT_PORT "gbvp-agent-port"
OBJECT_DECLARE_SIMPLE_TYPE(GbvpAgentPort, GBVP_AGENT_PORT)

/* Guest output not yet taken by the host beyond this throttles the guest's writes. */
#define AGENT_OUT_MAX (4 * 1024 * 1024)
#define AGENT_IN_CHUNK 4096

struct GbvpAgentPort {
    VirtIOSerialPort parent_obj;

    char *path;
    uint32_t tick_ns;

    int listen_fd;
    int conn_fd;
    QEMUTimer *tick;
    int64_t next_tick;            /* QEMU_CLOCK_VIRTUAL ns: the tick after this one */
    GByteArray *out;              /* guest -> host, not written yet */
    uint8_t in[AGENT_IN_CHUNK];   /* host -> guest, read at a tick, not delivered yet */
    size_t in_len, in_off;
    bool throttled;               /* virtio-serial holds the guest's output for us */
    uint64_t dropped;             /* guest output bytes dropped: no host connected, or the
                                   * host left with output not yet taken */
    uint64_t dropped_told;
};

static void agent_close_conn(GbvpAgentPort *s)
{
    if (s->conn_fd >= 0) {
        close(s->conn_fd);
        s->conn_fd = -1;
    }
    s->dropped += s->out->len;
    g_byte_array_set_size(s->out, 0);
    s->in_len = s->in_off = 0;
}

/* Says how much guest output went nowhere since the last time (counted in have_data and
 * agent_close_conn), when a host connects and at exit. */
static void agent_report_dropped(GbvpAgentPort *s, const char *when)
{
    if (s->dropped != s->dropped_told) {
        warn_report("gbvp-agent-port: %s: %" PRIu64 " bytes of guest output dropped: no "
                    "host was connected to %s, or it left before taking them (%" PRIu64
                    " in all)", when, s->dropped - s->dropped_told, s->path, s->dropped);
        s->dropped_told = s->dropped;
    }
}

/* Writes what the socket takes now; the rest waits for the next tick. */
static void agent_flush_out(GbvpAgentPort *s)
{
    VirtIOSerialPort *port = VIRTIO_SERIAL_PORT(s);

    while (s->conn_fd >= 0 && s->out->len) {
        ssize_t n = send(s->conn_fd, s->out->data, s->out->len, MSG_DONTWAIT | MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        }
        if (n <= 0) {
            agent_close_conn(s);    /* the host went away: its output is dropped with it */
            break;
        }
        g_byte_array_remove_range(s->out, 0, n);
    }
    if (s->throttled && s->out->len < AGENT_OUT_MAX / 2) {
        s->throttled = false;
        virtio_serial_throttle_port(port, false);
    }
}

/* Hands the guest as much of the pending input as it has buffers for. */
static void agent_deliver_in(GbvpAgentPort *s)
{
    VirtIOSerialPort *port = VIRTIO_SERIAL_PORT(s);

    while (s->in_off < s->in_len) {
        size_t room = virtio_serial_guest_ready(port);
        ssize_t n;

        if (!room) {
            return;     /* the guest_writable callback continues */
        }
        n = virtio_serial_write(port, s->in + s->in_off, MIN(room, s->in_len - s->in_off));
        if (n <= 0) {
            return;
        }
        s->in_off += n;
    }
    s->in_len = s->in_off = 0;
}

/* Ticks fall on multiples of tick_ns, whenever the callback happens to run: re-arming
 * from the clock's reading would carry any lateness of one tick into all that follow. */
static void agent_arm_tick(GbvpAgentPort *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (s->next_tick <= now) {
        s->next_tick = (now / s->tick_ns + 1) * s->tick_ns;
    }
    timer_mod_ns(s->tick, s->next_tick);
    s->next_tick += s->tick_ns;
}

/* A virtual-time tick (BQL held): the one place host input is taken. */
static void agent_tick(void *opaque)
{
    GbvpAgentPort *s = opaque;
    int fd;

    fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
        agent_close_conn(s);
        s->conn_fd = fd;
        agent_report_dropped(s, "host connected");
    }
    agent_flush_out(s);
    if (s->conn_fd >= 0 && s->in_len == 0) {
        ssize_t n = recv(s->conn_fd, s->in, sizeof(s->in), MSG_DONTWAIT);

        if (n > 0) {
            s->in_len = n;
            s->in_off = 0;
        } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            agent_close_conn(s);
        }
    }
    agent_deliver_in(s);
    agent_arm_tick(s);
}

static ssize_t agent_have_data(VirtIOSerialPort *port, const uint8_t *buf, ssize_t len)
{
    GbvpAgentPort *s = GBVP_AGENT_PORT(port);
    ssize_t take;

    if (s->conn_fd < 0) {
        /* nobody listening: dropped, as a console without a reader does (counted, told
         * when a host connects) */
        s->dropped += len;
        return len;
    }
    take = MIN(len, (ssize_t)(AGENT_OUT_MAX - MIN(s->out->len, AGENT_OUT_MAX)));
    g_byte_array_append(s->out, buf, take);
    agent_flush_out(s);     /* (never unthrottles here: not throttled on entry) */
    if (take < len) {
        /* The host is not reading. Returning less than len alone would not do: unless
         * the port is throttled, virtio-serial takes the rest of the buffer as consumed
         * and the guest's output is lost. Throttled, it keeps the rest and offers it
         * again once agent_flush_out has made room and unthrottles. */
        s->throttled = true;
        virtio_serial_throttle_port(port, true);
    }
    return take;
}

static void agent_guest_writable(VirtIOSerialPort *port)
{
    agent_deliver_in(GBVP_AGENT_PORT(port));
}

static void agent_realize(DeviceState *dev, Error **errp)
{
    GbvpAgentPort *s = GBVP_AGENT_PORT(dev);
    VirtIOSerialPort *port = VIRTIO_SERIAL_PORT(dev);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    s->listen_fd = -1;
    s->conn_fd = -1;
    if (!s->path || !*s->path || strlen(s->path) >= sizeof(sa.sun_path)) {
        error_setg(errp, "gbvp-agent-port: property 'path' is required: a Unix socket path "
                   "of 1..%zu bytes", sizeof(sa.sun_path) - 1);
        return;
    }
    if (s->tick_ns < 1000 || s->tick_ns > 100000000) {
        error_setg(errp, "gbvp-agent-port: tick=%u ns is out of range: 1000..100000000",
                   s->tick_ns);
        return;
    }
    memcpy(sa.sun_path, s->path, strlen(s->path));
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0) {
        error_setg_errno(errp, errno, "gbvp-agent-port: socket");
        return;
    }
    unlink(s->path);
    if (bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(s->listen_fd, 1) < 0) {
        error_setg_errno(errp, errno, "gbvp-agent-port: cannot listen on %s", s->path);
        close(s->listen_fd);
        s->listen_fd = -1;
        return;
    }
    s->out = g_byte_array_new();
    s->tick = timer_new_ns(QEMU_CLOCK_VIRTUAL, agent_tick, s);
    s->next_tick = s->tick_ns;
    agent_arm_tick(s);
    virtio_serial_open(port);
}

static void agent_unrealize(DeviceState *dev)
{
    GbvpAgentPort *s = GBVP_AGENT_PORT(dev);

    if (s->tick) {
        timer_free(s->tick);
        s->tick = NULL;
    }
    if (s->out) {
        agent_close_conn(s);
        g_byte_array_free(s->out, true);
        s->out = NULL;
        agent_report_dropped(s, "at exit");
    }
    if (s->listen_fd >= 0) {
        close(s->listen_fd);
        unlink(s->path);
        s->listen_fd = -1;
    }
}

static Property agent_properties[] = {
    DEFINE_PROP_STRING("path", GbvpAgentPort, path),
    DEFINE_PROP_UINT32("tick", GbvpAgentPort, tick_ns, 1000000),
    DEFINE_PROP_END_OF_LIST(),
};

static void agent_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    VirtIOSerialPortClass *k = VIRTIO_SERIAL_PORT_CLASS(klass);

    k->is_console = true;
    k->realize = agent_realize;
    k->unrealize = agent_unrealize;
    k->have_data = agent_have_data;
    k->guest_writable = agent_guest_writable;
    dc->desc = "gbvp guest agent console, host input taken at virtual-time ticks (lockstep)";
    device_class_set_props(dc, agent_properties);
    object_class_property_set_description(klass, "path",
        "Unix socket the host connects to (created at start)");
    object_class_property_set_description(klass, "tick",
        "virtual ns between looks at the host's input, 1000..100000000");
    set_bit(DEVICE_CATEGORY_INPUT, dc->categories);
}

static const TypeInfo agent_info = {
    .name = TYPE_GBVP_AGENT_PORT,
    .parent = TYPE_VIRTIO_SERIAL_PORT,
    .instance_size = sizeof(GbvpAgentPort),
    .class_init = agent_class_init,
};

static void agent_register_types(void)
{
    type_register_static(&agent_info);
}

type_init(agent_register_types)
