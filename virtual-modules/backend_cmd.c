// SPDX-License-Identifier: MIT
// Text commands for interface backends (see backend_cmd.h).
#include "virtual-modules/backend_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_protocols.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/hid.h"
#include "virtual-modules/i2c.h"
#include "virtual-modules/light.h"
#include "virtual-modules/log_protocol.h"
#include "virtual-modules/loopback.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/pwm.h"
#include "virtual-modules/audio.h"
#include "virtual-modules/authentication.h"
#include "virtual-modules/behaviour.h"
#include "virtual-modules/bootrom.h"
#include "virtual-modules/fw_image.h"
#include "virtual-modules/fw_mgmt.h"
#include "virtual-modules/raw.h"
#include "virtual-modules/sdio.h"
#include "virtual-modules/spi.h"
#include "virtual-modules/spi_nor.h"
#include "virtual-modules/uart.h"
#include "virtual-modules/usb.h"
#include "virtual-modules/camera.h"
#include "virtual-modules/vibrator.h"

#define MAX_ARGS 8
#define MAX_HEX 2048 /* bytes one command carries in hex */
/* Bytes one recv takes: as many as the reply's text shows in hex, so a caller reading only
 * the text loses nothing; the rest waits for the next recv. */
#define RECV_MAX ((VM_REPLY_TEXT_MAX - 1) / 2)

typedef struct cmd {
    vm_interface *intf;
    uint16_t cport;
    int argc;
    char *argv[MAX_ARGS];
    const char *rest; /* text after argv[1] in the original line (uart send) */
    sim_time now;
    vm_reply *r;
} cmd;

static int say(cmd *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int say(cmd *c, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->r->text, sizeof c->r->text, fmt, ap);
    va_end(ap);
    return rc;
}

/* The interface has no CPort of the class named: the caller may try another interface. */
static int no_class(cmd *c, const char *what)
{
    return say(c, VM_BACKEND_NO_CLASS, "the interface has no %s CPort", what);
}

static int num(cmd *c, int i, long min, long max, long *out)
{
    if (i >= c->argc)
        return say(c, -1, "%s %s: missing argument %d", c->argv[0], c->argc > 1 ? c->argv[1] : "",
                   i - 1);
    char *end;
    errno = 0;
    long v = strtol(c->argv[i], &end, vm_int_base(c->argv[i]));
    if (errno || *end || !*c->argv[i] || v < min || v > max)
        return say(c, -1, "'%s' is not a number %ld..%ld", c->argv[i], min, max);
    *out = v;
    return 0;
}

static int nargs(cmd *c, int n)
{
    if (c->argc == n)
        return 0;
    return say(c, -1, "%s %s: expected %d argument%s", c->argv[0], c->argv[1], n - 2,
               n == 3 ? "" : "s");
}

static int errno_reply(cmd *c, int rc)
{
    switch (rc) {
    case -ENOTCONN: return say(c, -1, "the CPort is not connected (the AP suspended it?)");
    case -EAGAIN: return say(c, -1, "the AP has not powered the device on");
    case -ENODEV: return say(c, -1, "no such device on the bus");
    default: return say(c, -1, "refused (%s)", strerror(-rc));
    }
}

static int hexbytes(cmd *c, const char *s, uint8_t *out, size_t cap, size_t *n)
{
    *n = 0;
    size_t len = strlen(s);
    if (len % 2 || len / 2 > cap)
        return say(c, -1, "'%s' is not an even number of hex digits (at most %zu bytes)", s,
                   cap);
    for (size_t i = 0; i < len; i += 2) {
        /* digits only: strtoul would also take a sign, and "-1" would become 0xff */
        if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]))
            return say(c, -1, "'%s' is not hex", s);
        const char b[3] = {s[i], s[i + 1], 0};
        out[(*n)++] = (uint8_t)strtoul(b, NULL, 16);
    }
    return 0;
}

static void hexout(char *buf, size_t len, const uint8_t *d, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 3 <= len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%02x", d[i]);
}

/* The answer is these bytes: hex for a person, the bytes themselves as value `name`. */
static int say_bytes(cmd *c, const char *name, const uint8_t *d, size_t n)
{
    hexout(c->r->text, sizeof c->r->text, d, n);
    vm_reply_bytes(c->r, name, d, n);
    return 0;
}

static int do_gpio(cmd *c)
{
    vm_gpio *g = vm_interface_gpio(c->intf, c->cport);
    long line, v;
    if (!g)
        return no_class(c, "GPIO");
    if (!strcmp(c->argv[1], "set")) {
        if (nargs(c, 4) || num(c, 2, 0, 255, &line) || num(c, 3, 0, 1, &v))
            return -1;
        int rc = vm_gpio_set_input(g, (unsigned)line, v);
        if (rc == -EINVAL)
            return say(c, -1, "line %ld does not exist (%u lines)", line, vm_gpio_line_count(g));
        if (rc == -ENOTCONN)
            return say(c, -1, "an interrupt was due on line %ld but the AP has not connected "
                       "the GPIO CPort", line);
        if (rc < 0)
            return errno_reply(c, rc);
        vm_reply_bool(c->r, "irq_sent", rc == 1);
        return say(c, 0, "%s", rc == 1 ? "irq" : "");
    }
    if (!strcmp(c->argv[1], "get")) {
        if (nargs(c, 3) || num(c, 2, 0, 255, &line))
            return -1;
        vm_gpio_line l;
        if (vm_gpio_get_line(g, (unsigned)line, &l))
            return say(c, -1, "line %ld does not exist (%u lines)", line, vm_gpio_line_count(g));
        int value = vm_gpio_get_value(g, (unsigned)line);
        vm_reply_int(c->r, "value", value);
        vm_reply_bool(c->r, "output", l.output);
        vm_reply_bool(c->r, "activated", l.activated);
        vm_reply_int(c->r, "irq_type", l.irq_type);
        vm_reply_bool(c->r, "masked", l.irq_masked);
        vm_reply_bool(c->r, "input_level", l.in_level);
        return say(c, 0, "%d %s%s", value, l.output ? "output" : "input",
                   l.activated ? " active" : "");
    }
    if (!strcmp(c->argv[1], "stats")) {
        if (nargs(c, 2))
            return -1;
        vm_gpio_stats st;
        vm_gpio_get_stats(g, &st);
        vm_reply_int(c->r, "irq_events", (int64_t)st.irq_events);
        vm_reply_int(c->r, "irq_rejected", (int64_t)st.irq_rejected);
        vm_reply_int(c->r, "irq_lost", (int64_t)st.irq_lost);
        vm_reply_int(c->r, "lines", vm_gpio_line_count(g));
        return say(c, 0, "irq-events %llu irq-rejected %llu irq-lost %llu lines %u",
                   (unsigned long long)st.irq_events, (unsigned long long)st.irq_rejected,
                   (unsigned long long)st.irq_lost, vm_gpio_line_count(g));
    }
    return say(c, -1, "gpio: expected set, get or stats");
}

static int do_i2c(cmd *c)
{
    vm_i2c *bus = vm_interface_i2c(c->intf, c->cport);
    long addr, a, b;
    if (!bus)
        return no_class(c, "I2C");
    if (!strcmp(c->argv[1], "temp")) {
        if (c->argc != 3 && nargs(c, 4))
            return -1;
        if (num(c, 2, 0, 0x7f, &addr))
            return -1;
        if (c->argc == 4) {
            if (num(c, 3, -55000, 125000, &a))
                return -1;
            if (vm_i2c_lm75_set_temperature(bus, (uint16_t)addr, (int32_t)a))
                return say(c, -1, "no LM75 at address 0x%lx", addr);
        }
        int32_t mc;
        if (vm_i2c_lm75_get_temperature(bus, (uint16_t)addr, &mc))
            return say(c, -1, "no LM75 at address 0x%lx", addr);
        vm_reply_int(c->r, "millicelsius", mc);
        return say(c, 0, "%d", mc);
    }
    if (!strcmp(c->argv[1], "read")) {
        uint8_t data[VM_I2C_EEPROM_SIZE];
        if (nargs(c, 5) || num(c, 2, 0, 0x7f, &addr) || num(c, 3, 0, 255, &a) ||
            num(c, 4, 1, 256, &b))
            return -1;
        int rc = vm_i2c_eeprom_read(bus, (uint16_t)addr, (unsigned)a, data, (size_t)b);
        if (rc == -ENODEV)
            return say(c, -1, "no EEPROM at address 0x%lx", addr);
        if (rc)
            return rc == -EINVAL ? say(c, -1, "past the end of the EEPROM") : errno_reply(c, rc);
        return say_bytes(c, "data", data, (size_t)b);
    }
    if (!strcmp(c->argv[1], "write")) {
        uint8_t data[VM_I2C_EEPROM_SIZE];
        size_t n;
        if (nargs(c, 5) || num(c, 2, 0, 0x7f, &addr) || num(c, 3, 0, 255, &a) ||
            hexbytes(c, c->argv[4], data, sizeof data, &n))
            return -1;
        int rc = vm_i2c_eeprom_write(bus, (uint16_t)addr, (unsigned)a, data, n);
        if (rc == -ENODEV)
            return say(c, -1, "no EEPROM at address 0x%lx", addr);
        if (rc)
            return rc == -EINVAL ? say(c, -1, "past the end of the EEPROM") : errno_reply(c, rc);
        return say(c, 0, "%s", "");
    }
    return say(c, -1, "i2c: expected temp, read or write");
}

static int do_uart(cmd *c)
{
    vm_uart *u = vm_interface_uart(c->intf, c->cport);
    if (!u)
        return no_class(c, "UART");
    if (!strcmp(c->argv[1], "send") || !strcmp(c->argv[1], "inject")) {
        /* send: a line of text (a newline added); inject: exactly these bytes, in hex */
        uint8_t data[MAX_HEX];
        uint8_t *text = data;
        size_t n;
        if (c->argv[1][0] == 'i') {
            if (nargs(c, 3) || hexbytes(c, c->argv[2], data, sizeof data, &n))
                return -1;
            if (!n)
                return say(c, -1, "uart inject: nothing to send");
        } else {
            if (!c->rest || !*c->rest)
                return say(c, -1, "uart send: nothing to send");
            n = strlen(c->rest);
            if (!(text = malloc(n + 2)))
                return say(c, -1, "out of memory");
            memcpy(text, c->rest, n);
            text[n++] = '\n';
        }
        int rc = vm_uart_inject_rx(u, text, n, 0);
        if (text != data)
            free(text);
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "recv")) {
        if (nargs(c, 2))
            return -1;
        if (vm_uart_get_backend(u) != VM_UART_CAPTURE)
            return say(c, -1, "uart recv: the UART does not use the capture backend");
        uint8_t buf[VM_REPLY_TEXT_MAX - 1];
        size_t n = vm_uart_read_tx(u, buf, sizeof buf);
        for (size_t i = 0; i < n; i++)
            c->r->text[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char)buf[i]
                            : buf[i] == '\n'               ? '\n'
                                                           : '.';
        c->r->text[n] = '\0';
        vm_reply_bytes(c->r, "data", buf, n);
        return 0;
    }
    if (!strcmp(c->argv[1], "state")) {
        if (nargs(c, 2))
            return -1;
        vm_uart_state st;
        vm_uart_get_state(u, &st);
        const char *path = vm_uart_pty_path(u);
        vm_reply_int(c->r, "rate", st.rate);
        vm_reply_int(c->r, "tx_bytes", (int64_t)st.tx_bytes);
        vm_reply_int(c->r, "rx_bytes", (int64_t)st.rx_bytes);
        vm_reply_int(c->r, "credits_returned", (int64_t)st.credits_returned);
        vm_reply_int(c->r, "control", st.control);
        vm_reply_int(c->r, "breaks", (int64_t)st.breaks);
        if (path)
            vm_reply_text(c->r, "pty", path);
        return say(c, 0, "rate %u bits %u parity %u stop %u control 0x%02x tx %llu rx %llu%s%s",
                   st.rate, st.data_bits, st.parity, st.format, st.control,
                   (unsigned long long)st.tx_bytes, (unsigned long long)st.rx_bytes,
                   path ? " pty " : "", path ? path : "");
    }
    return say(c, -1, "uart: expected send, inject, recv or state");
}

/* A power supply property by name (capacity, voltage-now ...) or number. */
static int psy_prop(cmd *c, int i, uint8_t *out)
{
    char *end;
    long v = strtol(c->argv[i], &end, vm_int_base(c->argv[i]));
    if (!*end && *c->argv[i] && v >= 0 && v <= 255) {
        *out = (uint8_t)v;
        return 0;
    }
    int prop = vm_power_supply_property_by_name(c->argv[i]);
    if (prop < 0)
        return say(c, -1, "unknown property '%s' (capacity, status, voltage-now, temp, ...)",
                   c->argv[i]);
    *out = (uint8_t)prop;
    return 0;
}

static int do_battery(cmd *c)
{
    vm_power_supply *ps = vm_interface_power_supply(c->intf, c->cport);
    if (!ps)
        return no_class(c, "power supply");
    unsigned supplies = vm_power_supply_count(ps);
    if (!strcmp(c->argv[1], "notify"))
        return nargs(c, 2) ? -1 : vm_power_supply_notify(ps, 0) ? say(c, -1, "event lost: "
                                                                         "CPort not connected")
                                                               : say(c, 0, "%s", "");
    if (!strcmp(c->argv[1], "stats")) {
        if (nargs(c, 2))
            return -1;
        vm_power_supply_stats st;
        vm_power_supply_get_stats(ps, &st);
        vm_reply_int(c->r, "get_property", (int64_t)st.get_property);
        vm_reply_int(c->r, "set_property", (int64_t)st.set_property);
        vm_reply_int(c->r, "events_sent", (int64_t)st.events_sent);
        vm_reply_int(c->r, "events_rejected", (int64_t)st.events_rejected);
        return say(c, 0, "get %llu set %llu events %llu rejected %llu",
                   (unsigned long long)st.get_property, (unsigned long long)st.set_property,
                   (unsigned long long)st.events_sent, (unsigned long long)st.events_rejected);
    }
    /* set PROP VALUE [SUPPLY [quiet]], get PROP [SUPPLY] */
    bool set = !strcmp(c->argv[1], "set");
    if (!set && strcmp(c->argv[1], "get"))
        return say(c, -1, "battery: expected set, get, notify or stats");
    int first_opt = set ? 4 : 3;
    if (c->argc < first_opt || c->argc > first_opt + (set ? 2 : 1))
        return say(c, -1, "battery %s: expected %s", c->argv[1],
                   set ? "PROPERTY VALUE [SUPPLY [quiet]]" : "PROPERTY [SUPPLY]");
    uint8_t prop = 0;
    long psy = 0, v = 0;
    if (psy_prop(c, 2, &prop) || (set && num(c, 3, INT32_MIN, INT32_MAX, &v)) ||
        (c->argc > first_opt && num(c, first_opt, 0, 255, &psy)))
        return -1;
    if ((unsigned long)psy >= supplies)
        return say(c, -1, "supply %ld does not exist (0..%u)", psy, supplies - 1);
    bool notify = !(set && c->argc == first_opt + 2);
    if (notify == false && strcmp(c->argv[first_opt + 1], "quiet"))
        return say(c, -1, "battery set: '%s' is not 'quiet'", c->argv[first_opt + 1]);
    if (!set) {
        int32_t got;
        if (vm_power_supply_get(ps, (unsigned)psy, prop, &got))
            return say(c, -1, "the supply does not report property %s", c->argv[2]);
        vm_reply_int(c->r, "value", got);
        return say(c, 0, "%d", got);
    }
    int rc = vm_power_supply_set(ps, (unsigned)psy, prop, (int32_t)v, notify);
    if (rc == -EINVAL)
        return say(c, -1, "the supply does not report property %s (or %ld is not a valid "
                   "value for it)", c->argv[2], v);
    vm_reply_bool(c->r, "notified", rc == 0 && notify);
    return say(c, 0, "%s", rc == -ENOTCONN ? "set; event lost: CPort not connected" : "");
}

/* HID usage ids of the boot keyboard for a..z, 1..0, enter, space. */
static int key_usage(const char *k)
{
    if (strlen(k) == 1 && k[0] >= 'a' && k[0] <= 'z')
        return 0x04 + (k[0] - 'a');
    if (strlen(k) == 1 && k[0] >= '1' && k[0] <= '9')
        return 0x1e + (k[0] - '1');
    if (!strcmp(k, "0"))
        return 0x27;
    if (!strcmp(k, "enter"))
        return 0x28;
    if (!strcmp(k, "space"))
        return 0x2c;
    char *end;
    long v = strtol(k, &end, vm_int_base(k));
    return (*end || v < 1 || v > 0xff) ? -1 : (int)v;
}

static int do_hid(cmd *c)
{
    vm_hid *h = vm_interface_hid(c->intf, c->cport);
    if (!h)
        return no_class(c, "HID");
    vm_hid_state st;
    vm_hid_get_state(h, &st);
    if (!strcmp(c->argv[1], "report")) {
        uint8_t rep[VM_HID_MAX_REPORT];
        size_t n;
        if (nargs(c, 3) || hexbytes(c, c->argv[2], rep, sizeof rep, &n))
            return -1;
        int rc = vm_hid_input_report(h, rep, n);
        if (rc == -EINVAL)
            return say(c, -1, "an input report is %zu bytes, not %zu", st.input_size, n);
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "key")) {
        if (nargs(c, 3))
            return -1;
        int usage = key_usage(c->argv[2]);
        if (usage < 0)
            return say(c, -1, "unknown key '%s' (a..z, 0..9, enter, space, or a usage id)",
                       c->argv[2]);
        if (st.input_size != 8)
            return say(c, -1, "hid key needs a boot keyboard (8-byte input reports)");
        uint8_t rep[8] = {0, 0, (uint8_t)usage, 0, 0, 0, 0, 0};
        int rc = vm_hid_input_report(h, rep, 8);
        if (rc)
            return errno_reply(c, rc);
        memset(rep, 0, sizeof rep);
        rc = vm_hid_input_report(h, rep, 8);
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "state")) {
        if (nargs(c, 2))
            return -1;
        char out[2 * VM_HID_MAX_REPORT + 1];
        hexout(out, sizeof out, st.output, st.output_size);
        vm_reply_bool(c->r, "powered", st.powered);
        vm_reply_int(c->r, "input_size", (int64_t)st.input_size);
        vm_reply_int(c->r, "input_reports", (int64_t)st.input_reports);
        vm_reply_int(c->r, "set_reports", (int64_t)st.set_reports);
        vm_reply_int(c->r, "get_reports", (int64_t)st.get_reports);
        vm_reply_bytes(c->r, "output", st.output, st.output_size);
        return say(c, 0, "%s input-reports %llu output %s", st.powered ? "on" : "off",
                   (unsigned long long)st.input_reports, st.output_size ? out : "-");
    }
    return say(c, -1, "hid: expected report, key or state");
}

static int do_vibrator(cmd *c)
{
    vm_vibrator *v = vm_interface_vibrator(c->intf, c->cport);
    if (!v)
        return no_class(c, "vibrator");
    if (strcmp(c->argv[1], "state") || nargs(c, 2))
        return c->r->text[0] ? -1 : say(c, -1, "vibrator: expected state");
    uint64_t ms = vm_vibrator_on_time(v, c->now) / SIM_MS(1);
    vm_reply_bool(c->r, "on", vm_vibrator_is_on(v));
    vm_reply_int(c->r, "on_time_ms", (int64_t)ms);
    vm_reply_int(c->r, "count", (int64_t)vm_vibrator_on_count(v));
    return say(c, 0, "%s on-time-ms %llu count %llu", vm_vibrator_is_on(v) ? "on" : "off",
               (unsigned long long)ms, (unsigned long long)vm_vibrator_on_count(v));
}

static int do_light(cmd *c)
{
    vm_light *l = vm_interface_light(c->intf, c->cport);
    long ch;
    if (!l)
        return no_class(c, "lights");
    if (strcmp(c->argv[1], "get"))
        return say(c, -1, "light: expected get");
    if (nargs(c, 3) || num(c, 2, 0, 255, &ch))
        return -1;
    vm_light_channel s;
    if (vm_light_get_channel(l, (unsigned)ch, &s))
        return say(c, -1, "channel %ld does not exist (%u channels)", ch,
                   vm_light_channel_count(l));
    vm_reply_text(c->r, "color_name", s.color_name);
    vm_reply_text(c->r, "mode_name", s.mode_name);
    vm_reply_int(c->r, "brightness", s.brightness);
    vm_reply_int(c->r, "max_brightness", s.max_brightness);
    vm_reply_int(c->r, "blink_on_ms", s.blink_on_ms);
    vm_reply_int(c->r, "blink_off_ms", s.blink_off_ms);
    vm_reply_int(c->r, "color", s.color);
    return say(c, 0, "%s:%s brightness %u blink %u/%u color 0x%06x fade %u/%u", s.color_name,
               s.mode_name, s.brightness, s.blink_on_ms, s.blink_off_ms, s.color, s.fade_in,
               s.fade_out);
}

static int do_loopback(cmd *c)
{
    vm_loopback *lb = vm_interface_loopback(c->intf, c->cport);
    long n = 0;
    int rc;
    if (!lb)
        return no_class(c, "loopback");
    if (!strcmp(c->argv[1], "ping")) {
        rc = nargs(c, 2) ? -1 : vm_loopback_send_ping(lb);
    } else if (!strcmp(c->argv[1], "transfer") || !strcmp(c->argv[1], "sink")) {
        if (nargs(c, 3) || num(c, 2, 0, VM_LOOPBACK_MAX_LEN, &n))
            return -1;
        rc = c->argv[1][0] == 't' ? vm_loopback_send_transfer(lb, (uint32_t)n)
                                  : vm_loopback_send_sink(lb, (uint32_t)n);
    } else if (!strcmp(c->argv[1], "stats")) {
        if (nargs(c, 2))
            return -1;
        vm_loopback_stats st;
        vm_loopback_get_stats(lb, &st);
        vm_reply_int(c->r, "pings", (int64_t)st.pings);
        vm_reply_int(c->r, "transfers", (int64_t)st.transfers);
        vm_reply_int(c->r, "sinks", (int64_t)st.sinks);
        vm_reply_int(c->r, "bytes", (int64_t)st.bytes);
        vm_reply_int(c->r, "sent", (int64_t)st.sent);
        vm_reply_int(c->r, "answered", (int64_t)st.answered);
        vm_reply_int(c->r, "mismatches", (int64_t)st.mismatches);
        return say(c, 0, "pings %llu transfers %llu sinks %llu bytes %llu sent %llu "
                   "answered %llu mismatches %llu", (unsigned long long)st.pings,
                   (unsigned long long)st.transfers, (unsigned long long)st.sinks,
                   (unsigned long long)st.bytes, (unsigned long long)st.sent,
                   (unsigned long long)st.answered, (unsigned long long)st.mismatches);
    } else {
        return say(c, -1, "loopback: expected ping, transfer, sink or stats");
    }
    if (rc == -1 && c->r->text[0])
        return -1;
    return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
}

static int do_pwm(cmd *c)
{
    vm_pwm *p = vm_interface_pwm(c->intf, c->cport);
    long ch;
    if (!p)
        return no_class(c, "PWM");
    if (strcmp(c->argv[1], "get"))
        return say(c, -1, "pwm: expected get");
    if (nargs(c, 3) || num(c, 2, 0, 255, &ch))
        return -1;
    vm_pwm_channel s;
    if (vm_pwm_get_channel(p, (unsigned)ch, &s))
        return say(c, -1, "channel %ld does not exist (%u channels)", ch, vm_pwm_channel_count(p));
    vm_reply_bool(c->r, "enabled", s.enabled);
    vm_reply_bool(c->r, "activated", s.activated);
    vm_reply_int(c->r, "duty_ns", s.duty_ns);
    vm_reply_int(c->r, "period_ns", s.period_ns);
    vm_reply_bool(c->r, "inversed", s.inversed);
    return say(c, 0, "%s duty-ns %u period-ns %u polarity %s%s", s.enabled ? "on" : "off",
               s.duty_ns, s.period_ns, s.inversed ? "inversed" : "normal",
               s.activated ? " active" : "");
}

static int do_log(cmd *c)
{
    vm_log *l = vm_interface_log(c->intf, c->cport);
    if (!l)
        return no_class(c, "log");
    if (strcmp(c->argv[1], "send") || !c->rest || !*c->rest)
        return say(c, -1, "log: expected send TEXT...");
    int rc = vm_log_send(l, c->rest);
    return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
}

static int do_raw(cmd *c)
{
    vm_raw *r = vm_interface_raw(c->intf, c->cport);
    if (!r)
        return no_class(c, "raw");
    if (!strcmp(c->argv[1], "send")) {
        uint8_t data[MAX_HEX];
        size_t n;
        if (nargs(c, 3) || hexbytes(c, c->argv[2], data, sizeof data, &n))
            return -1;
        int rc = n ? vm_raw_send(r, data, n) : -EINVAL;
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "recv")) {
        if (nargs(c, 2))
            return -1;
        uint8_t data[RECV_MAX];
        size_t n = vm_raw_read(r, data, sizeof data);
        return say_bytes(c, "data", data, n);
    }
    return say(c, -1, "raw: expected send HEX or recv");
}

/* spi flash [CS]: the part, its file and statistics; spi flash read OFFSET LEN [CS]: bytes
 * of the array, read aside (no command, no statistics). CS: the first flash by default. */
static int do_spi_flash(cmd *c, vm_spi *s)
{
    bool rd = c->argc > 2 && !strcmp(c->argv[2], "read");
    int cs_arg = rd ? 5 : 2;
    long cs = vm_spi_first_flash(s), off, len;
    if (c->argc > cs_arg + 1)
        return say(c, -1, "spi flash: expected [CS] or read OFFSET LEN [CS]");
    if (c->argc == cs_arg + 1 && num(c, cs_arg, 0, VM_SPI_MAX_CHIP_SELECTS - 1, &cs))
        return -1;
    vm_spi_nor *f = cs >= 0 ? vm_spi_flash(s, (unsigned)cs) : NULL;
    if (!f)
        return cs < 0 ? say(c, -1, "no chip select is a flash (devices = ... spi-nor)")
                      : say(c, -1, "chip select %ld is not a flash", cs);
    const vm_spi_nor_part *p = vm_spi_nor_part_of(f);
    if (rd) {
        uint8_t data[RECV_MAX];
        if (num(c, 3, 0, (long)p->size - 1, &off) || num(c, 4, 1, RECV_MAX, &len))
            return -1;
        int rc = vm_spi_nor_peek(f, (uint32_t)off, data, (size_t)len);
        if (rc == -ERANGE)
            return say(c, -1, "%ld bytes at 0x%lx run past the end of the %u-byte flash", len,
                       off, p->size);
        if (rc)
            return say(c, -1, "cannot read the flash: %s", strerror(-rc));
        return say_bytes(c, "data", data, (size_t)len);
    }
    vm_spi_nor_stats st;
    vm_spi_nor_get_stats(f, &st);
    const char *path = vm_spi_nor_path(f);
    vm_reply_int(c->r, "chip_select", cs);
    vm_reply_text(c->r, "part", p->name);
    vm_reply_int(c->r, "jedec_id", p->id[0] << 16 | p->id[1] << 8 | p->id[2]);
    vm_reply_int(c->r, "size", p->size);
    vm_reply_text(c->r, "file", path ? path : "");
    vm_reply_int(c->r, "status", vm_spi_nor_status(f));
    vm_reply_int(c->r, "status2", vm_spi_nor_status2(f));
    vm_reply_bool(c->r, "failed", vm_spi_nor_failed(f));
    vm_reply_int(c->r, "reads", (int64_t)st.reads);
    vm_reply_int(c->r, "programs", (int64_t)st.programs);
    vm_reply_int(c->r, "erases", (int64_t)st.erases);
    vm_reply_int(c->r, "bytes_read", (int64_t)st.bytes_read);
    vm_reply_int(c->r, "bytes_programmed", (int64_t)st.bytes_programmed);
    vm_reply_int(c->r, "bytes_erased", (int64_t)st.bytes_erased);
    vm_reply_int(c->r, "ignored", (int64_t)st.ignored);
    vm_reply_int(c->r, "unknown", (int64_t)st.unknown);
    vm_reply_int(c->r, "last_unknown", st.last_unknown);
    vm_reply_int(c->r, "io_errors", (int64_t)st.io_errors);
    vm_reply_text(c->r, "error", st.last_error);
    return say(c, 0,
               "cs %ld part %s id %02x%02x%02x size %u %s%s status 0x%02x 0x%02x reads %llu "
               "programs %llu erases %llu bytes-read %llu bytes-programmed %llu bytes-erased "
               "%llu ignored %llu unknown %llu io-errors %llu%s%s",
               cs, p->name, p->id[0], p->id[1], p->id[2], p->size, path ? "file " : "memory",
               path ? path : "", vm_spi_nor_status(f), vm_spi_nor_status2(f),
               (unsigned long long)st.reads, (unsigned long long)st.programs,
               (unsigned long long)st.erases, (unsigned long long)st.bytes_read,
               (unsigned long long)st.bytes_programmed, (unsigned long long)st.bytes_erased,
               (unsigned long long)st.ignored, (unsigned long long)st.unknown,
               (unsigned long long)st.io_errors, vm_spi_nor_failed(f) ? " failed: " : "",
               vm_spi_nor_failed(f) ? st.last_error : "");
}

static int do_spi(cmd *c)
{
    vm_spi *s = vm_interface_spi(c->intf, c->cport);
    if (!s)
        return no_class(c, "SPI");
    if (!strcmp(c->argv[1], "queue")) {
        uint8_t data[MAX_HEX];
        size_t n;
        if (nargs(c, 3) || hexbytes(c, c->argv[2], data, sizeof data, &n))
            return -1;
        return vm_spi_queue_miso(s, data, n) ? say(c, -1, "the MISO queue is full")
                                              : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "recv")) {
        if (nargs(c, 2))
            return -1;
        uint8_t data[RECV_MAX];
        size_t n = vm_spi_read_mosi(s, data, sizeof data);
        return say_bytes(c, "data", data, n);
    }
    if (!strcmp(c->argv[1], "stats")) {
        if (nargs(c, 2))
            return -1;
        vm_spi_stats st;
        vm_spi_get_stats(s, &st);
        vm_reply_int(c->r, "messages", (int64_t)st.messages);
        vm_reply_int(c->r, "transfers", (int64_t)st.transfers);
        vm_reply_int(c->r, "bytes_in", (int64_t)st.bytes_in);
        vm_reply_int(c->r, "bytes_out", (int64_t)st.bytes_out);
        vm_reply_int(c->r, "chip_select", st.last_chip_select);
        vm_reply_int(c->r, "mode", st.last_mode);
        return say(c, 0,
                   "messages %llu transfers %llu bytes-in %llu bytes-out %llu cs %u mode 0x%02x",
                   (unsigned long long)st.messages, (unsigned long long)st.transfers,
                   (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out,
                   st.last_chip_select, st.last_mode);
    }
    if (!strcmp(c->argv[1], "flash"))
        return do_spi_flash(c, s);
    return say(c, -1, "spi: expected queue HEX, recv, stats or flash");
}

/* usb connect PORT [high|full|low], usb disconnect PORT: plug a device into a root-hub port
 * or pull it (the hub driver sees C_PORT_CONNECTION); usb status: controller and ports. */
static int do_usb(cmd *c)
{
    vm_usb *u = vm_interface_usb(c->intf, c->cport);
    if (!u)
        return no_class(c, "USB");
    unsigned nports = vm_usb_port_count(u);
    long port;
    if (!strcmp(c->argv[1], "connect")) {
        vm_usb_speed speed = VM_USB_SPEED_HIGH;
        if (c->argc != 3 && c->argc != 4)
            return say(c, -1, "usb connect: expected PORT [high|full|low]");
        if (num(c, 2, 1, nports, &port))
            return -1;
        if (c->argc == 4) {
            int k = -1;
            for (int i = VM_USB_SPEED_HIGH; i <= VM_USB_SPEED_LOW; i++)
                if (!strcmp(c->argv[3], vm_usb_speed_name((vm_usb_speed)i)))
                    k = i;
            if (k < 0)
                return say(c, -1, "usb connect: speed '%s' is not high, full or low",
                           c->argv[3]);
            speed = (vm_usb_speed)k;
        }
        if (vm_usb_connect(u, (unsigned)port, speed) == -EEXIST)
            return say(c, -1, "port %ld already has a device", port);
        return say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "disconnect")) {
        if (nargs(c, 3) || num(c, 2, 1, nports, &port))
            return -1;
        if (vm_usb_disconnect(u, (unsigned)port) == -ENOENT)
            return say(c, -1, "port %ld has no device", port);
        return say(c, 0, "%s", "");
    }
    if (strcmp(c->argv[1], "status") || nargs(c, 2))
        return say(c, -1, "usb: expected connect PORT [high|full|low], disconnect PORT or status");
    vm_usb_stats st;
    vm_usb_get_stats(u, &st);
    vm_reply_bool(c->r, "running", vm_usb_running(u));
    vm_reply_int(c->r, "ports", nports);
    char text[VM_REPLY_TEXT_MAX];
    size_t n = (size_t)snprintf(text, sizeof text, "hcd %s ports %u hub-requests %llu stalled %llu",
                                vm_usb_running(u) ? "running" : "stopped", nports,
                                (unsigned long long)st.hub_requests,
                                (unsigned long long)st.stalled);
    for (unsigned p = 1; p <= nports && n < sizeof text; p++) {
        uint16_t status, change;
        vm_usb_port_status(u, p, &status, &change);
        char name[VM_REPLY_NAME_MAX];
        snprintf(name, sizeof name, "port%u_status", p);
        vm_reply_int(c->r, name, status);
        snprintf(name, sizeof name, "port%u_change", p);
        vm_reply_int(c->r, name, change);
        n += (size_t)snprintf(text + n, sizeof text - n, "; port %u status 0x%04x change 0x%04x",
                              p, status, change);
    }
    return say(c, 0, "%s", text);
}

/* camera status: configured streams, the capture and the counters; camera frame: the
 * module finished a frame of the running capture (METADATA to the AP). */
static int do_camera(cmd *c)
{
    vm_camera *cam = vm_interface_camera(c->intf, c->cport);
    if (!cam)
        return no_class(c, "camera");
    if (!strcmp(c->argv[1], "frame")) {
        if (nargs(c, 2))
            return -1;
        int rc = vm_camera_frame(cam);
        if (rc == -ENOENT)
            return say(c, -1, "no capture is running");
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (strcmp(c->argv[1], "status") || nargs(c, 2))
        return say(c, -1, "camera: expected status or frame");
    vm_camera_state s;
    vm_camera_get_state(cam, &s);
    vm_reply_int(c->r, "streams", s.nstreams);
    vm_reply_bool(c->r, "capturing", s.capturing);
    vm_reply_int(c->r, "last_request", s.last_request);
    vm_reply_int(c->r, "configures", (int64_t)s.configures);
    vm_reply_int(c->r, "captures", (int64_t)s.captures);
    vm_reply_int(c->r, "flushes", (int64_t)s.flushes);
    vm_reply_int(c->r, "frames", (int64_t)s.metadata);
    char streams[160] = "";
    size_t n = 0;
    for (unsigned i = 0; i < s.nstreams && n < sizeof streams; i++) {
        char fmt[8];
        n += (size_t)snprintf(streams + n, sizeof streams - n, "%s%ux%u %s", i ? ", " : ": ",
                              s.stream[i].width, s.stream[i].height,
                              vm_camera_format_name(s.stream[i].format, fmt, sizeof fmt));
    }
    return say(c, 0, "streams %u%s; %s request %u mask 0x%x frames %u/%u; configures %llu "
               "captures %llu flushes %llu frames %llu", s.nstreams, streams,
               s.capturing ? "capturing" : "idle, last", s.last_request, s.streams,
               s.frames_sent, s.num_frames, (unsigned long long)s.configures,
               (unsigned long long)s.captures, (unsigned long long)s.flushes,
               (unsigned long long)s.metadata);
}

/* sdio insert [PATH]: a card into the slot (the image file PATH, or the card taken out
 * last); sdio remove; sdio wp on|off: the write-protect switch; sdio stats. */
static int do_sdio(cmd *c)
{
    vm_sdio *s = vm_interface_sdio(c->intf, c->cport);
    if (!s)
        return no_class(c, "SDIO");
    if (!strcmp(c->argv[1], "insert")) {
        char path[VM_SDIO_PATH_MAX] = "", why[512];
        if (c->argc > 2) { /* the rest of the line: a path may hold blanks */
            size_t n = strlen(c->rest);
            while (n && (c->rest[n - 1] == ' ' || c->rest[n - 1] == '\t' ||
                         c->rest[n - 1] == '\r' || c->rest[n - 1] == '\n'))
                n--;
            if (n >= sizeof path)
                return say(c, -1, "sdio insert: the path is longer than %zu bytes",
                           sizeof path - 1);
            memcpy(path, c->rest, n);
            path[n] = '\0';
        }
        if (vm_sdio_insert(s, c->argc > 2 ? path : NULL, why, sizeof why))
            return say(c, -1, "sdio insert: %s", why);
        return say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "remove")) {
        if (nargs(c, 2))
            return -1;
        if (vm_sdio_remove(s))
            return say(c, -1, "sdio remove: the slot is empty");
        return say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "wp")) {
        if (c->argc != 3 || (strcmp(c->argv[2], "on") && strcmp(c->argv[2], "off")))
            return say(c, -1, "sdio wp: expected on or off");
        vm_sdio_set_write_protect(s, !strcmp(c->argv[2], "on"));
        return say(c, 0, "%s", "");
    }
    if (strcmp(c->argv[1], "stats") || c->argc != 2)
        return say(c, -1, "sdio: expected insert [PATH], remove, wp on|off or stats");
    vm_sdio_stats st;
    vm_sdio_get_stats(s, &st);
    vm_reply_bool(c->r, "present", st.present);
    vm_reply_text(c->r, "state", st.state);
    vm_reply_int(c->r, "size", (int64_t)st.size);
    vm_reply_text(c->r, "image", st.path);
    vm_reply_bool(c->r, "write_protect", st.write_protect);
    vm_reply_int(c->r, "commands", (int64_t)st.commands);
    vm_reply_int(c->r, "timeouts", (int64_t)st.timeouts);
    vm_reply_int(c->r, "transfers", (int64_t)st.transfers);
    vm_reply_int(c->r, "blocks_read", (int64_t)st.blocks_read);
    vm_reply_int(c->r, "blocks_written", (int64_t)st.blocks_written);
    vm_reply_int(c->r, "blocks_erased", (int64_t)st.blocks_erased);
    vm_reply_int(c->r, "illegal", (int64_t)st.illegal);
    vm_reply_int(c->r, "data_errors", (int64_t)st.data_errors);
    vm_reply_int(c->r, "io_errors", (int64_t)st.io_errors);
    vm_reply_int(c->r, "events", (int64_t)st.events);
    vm_reply_text(c->r, "error", st.last_error);
    return say(c, 0,
               "card %s state %s size %llu image %s wp %s commands %llu timeouts %llu "
               "transfers %llu blocks-read %llu blocks-written %llu blocks-erased %llu "
               "illegal %llu data-errors %llu io-errors %llu events %llu%s%s",
               st.present ? "present" : "absent", st.state, (unsigned long long)st.size,
               st.path[0] ? st.path : st.present ? "(memory)" : "-",
               st.write_protect ? "on" : "off", (unsigned long long)st.commands,
               (unsigned long long)st.timeouts, (unsigned long long)st.transfers,
               (unsigned long long)st.blocks_read, (unsigned long long)st.blocks_written,
               (unsigned long long)st.blocks_erased, (unsigned long long)st.illegal,
               (unsigned long long)st.data_errors, (unsigned long long)st.io_errors,
               (unsigned long long)st.events, st.last_error[0] ? " last-error " : "",
               st.last_error);
}

/* A reply value name from a module's name or key: lower case, '_' for blanks and '-'. */
static void value_name(char *out, size_t cap, const char *from, const char *suffix)
{
    size_t n = 0;
    for (; *from && n + 1 < cap; from++)
        out[n++] = *from == ' ' || *from == '-' ? '_' : (char)tolower((unsigned char)*from);
    out[n] = '\0';
    snprintf(out + n, cap - n, "%s", suffix);
}

/* audio state: the streams' configuration, the controls by name, the widgets, the jack. */
static int audio_state(cmd *c, const vm_audio *a)
{
    char text[VM_REPLY_TEXT_MAX], name[VM_REPLY_NAME_MAX], fmt[12];
    size_t n = 0;
#define ADD(...)                                                                              \
    do {                                                                                      \
        if (n < sizeof text)                                                                  \
            n += (size_t)snprintf(text + n, sizeof text - n, __VA_ARGS__);                    \
    } while (0)
    text[0] = '\0';
    for (size_t i = 0; i < vm_audio_stream_count(a); i++) {
        const vm_audio_stream *s = vm_audio_get_stream(a, i);
        ADD("%scport %u %s %u Hz %u ch %u bits tx %u %s rx %u %s", i ? "; " : "", s->cport,
            vm_audio_format_name(s->pcm.format, fmt, sizeof fmt), vm_audio_rate_hz(s->pcm.rate),
            s->pcm.channels, s->pcm.sig_bits, s->tx_size, s->tx_active ? "on" : "off",
            s->rx_size, s->rx_active ? "on" : "off");
        if (i)
            continue; /* named values: the first stream's */
        vm_reply_int(c->r, "data_cport", s->cport);
        vm_reply_text(c->r, "format", vm_audio_format_name(s->pcm.format, fmt, sizeof fmt));
        vm_reply_int(c->r, "rate", vm_audio_rate_hz(s->pcm.rate));
        vm_reply_int(c->r, "channels", s->pcm.channels);
        vm_reply_int(c->r, "sig_bits", s->pcm.sig_bits);
        vm_reply_int(c->r, "tx_size", s->tx_size);
        vm_reply_bool(c->r, "tx_active", s->tx_active);
        vm_reply_int(c->r, "rx_size", s->rx_size);
        vm_reply_bool(c->r, "rx_active", s->rx_active);
        vm_reply_int(c->r, "messages", (int64_t)s->messages);
        vm_reply_int(c->r, "bytes", (int64_t)s->bytes);
    }
    ADD("%scontrols", n ? "; " : "");
    for (size_t i = 0; i < vm_audio_control_count(a); i++) {
        vm_audio_control_info ci;
        vm_audio_get_control(a, i, &ci);
        bool stereo = ci.count_values == 2;
        if (ci.item)
            ADD("%s %s %s", i ? "," : "", ci.name, ci.item);
        else if (stereo)
            ADD("%s %s %d %d", i ? "," : "", ci.name, ci.value[0], ci.value[1]);
        else
            ADD("%s %s %d", i ? "," : "", ci.name, ci.value[0]);
        value_name(name, sizeof name, ci.key, stereo ? "_left" : "");
        vm_reply_int(c->r, name, ci.value[0]);
        if (stereo) {
            value_name(name, sizeof name, ci.key, "_right");
            vm_reply_int(c->r, name, ci.value[1]);
        }
    }
    ADD("; widgets");
    for (size_t i = 0; i < vm_audio_widget_count(a); i++) {
        vm_audio_widget_info wi;
        vm_audio_get_widget(a, i, &wi);
        ADD("%s %s %s", i ? "," : "", wi.name, wi.enabled ? "on" : "off");
        value_name(name, sizeof name, wi.name, "_on");
        vm_reply_bool(c->r, name, wi.enabled);
    }
    ADD("; jack %s", !vm_audio_has_jack(a) ? "none" : vm_audio_jack_inserted(a) ? "in" : "out");
    if (vm_audio_has_jack(a))
        vm_reply_bool(c->r, "jack", vm_audio_jack_inserted(a));
#undef ADD
    return say(c, 0, "%s", text);
}

/* audio stats: what arrived on the data CPorts, what the management CPort answered. */
static int audio_stats(cmd *c, const vm_audio *a)
{
    char text[VM_REPLY_TEXT_MAX];
    size_t n = 0;
    text[0] = '\0';
    for (size_t i = 0; i < vm_audio_stream_count(a) && n < sizeof text; i++) {
        const vm_audio_stream *s = vm_audio_get_stream(a, i);
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "cport %u messages %llu bytes %llu frames %llu dropped-inactive "
                              "%llu dropped-size %llu timestamp %llu activations %llu session "
                              "%llu bytes crc 0x%08x peak %u; ", s->cport,
                              (unsigned long long)s->messages, (unsigned long long)s->bytes,
                              (unsigned long long)s->frames,
                              (unsigned long long)s->dropped_inactive,
                              (unsigned long long)s->dropped_size,
                              (unsigned long long)s->last_timestamp,
                              (unsigned long long)s->activations,
                              (unsigned long long)s->session_bytes, s->session_crc,
                              s->session_peak);
        if (i)
            continue;
        vm_reply_int(c->r, "messages", (int64_t)s->messages);
        vm_reply_int(c->r, "bytes", (int64_t)s->bytes);
        vm_reply_int(c->r, "frames", (int64_t)s->frames);
        vm_reply_int(c->r, "dropped_inactive", (int64_t)s->dropped_inactive);
        vm_reply_int(c->r, "dropped_size", (int64_t)s->dropped_size);
        vm_reply_int(c->r, "timestamp", (int64_t)s->last_timestamp);
        vm_reply_int(c->r, "activations", (int64_t)s->activations);
        vm_reply_int(c->r, "session_bytes", (int64_t)s->session_bytes);
        vm_reply_int(c->r, "session_crc", s->session_crc);
        vm_reply_int(c->r, "peak", s->session_peak);
    }
    vm_audio_stats st;
    vm_audio_get_stats(a, &st);
    vm_reply_int(c->r, "topology_reads", (int64_t)st.topology_reads);
    vm_reply_int(c->r, "control_gets", (int64_t)st.control_gets);
    vm_reply_int(c->r, "control_sets", (int64_t)st.control_sets);
    vm_reply_int(c->r, "widget_enables", (int64_t)st.widget_enables);
    vm_reply_int(c->r, "widget_disables", (int64_t)st.widget_disables);
    vm_reply_int(c->r, "refused", (int64_t)st.refused);
    vm_reply_int(c->r, "events_sent", (int64_t)st.events_sent);
    vm_reply_int(c->r, "events_refused", (int64_t)st.events_refused);
    vm_reply_int(c->r, "events_lost", (int64_t)st.events_lost);
    return say(c, 0, "%stopology-reads %llu control-gets %llu control-sets %llu "
               "widget-enables %llu widget-disables %llu refused %llu events %llu "
               "events-refused %llu events-lost %llu", text,
               (unsigned long long)st.topology_reads, (unsigned long long)st.control_gets,
               (unsigned long long)st.control_sets, (unsigned long long)st.widget_enables,
               (unsigned long long)st.widget_disables, (unsigned long long)st.refused,
               (unsigned long long)st.events_sent, (unsigned long long)st.events_refused,
               (unsigned long long)st.events_lost);
}

/* audio state | stats | jack insert|remove | button press|release [1..4] */
static int do_audio(cmd *c)
{
    vm_audio *a = vm_interface_audio(c->intf, c->cport);
    if (!a)
        return no_class(c, "audio");
    if (!strcmp(c->argv[1], "state"))
        return nargs(c, 2) ? -1 : audio_state(c, a);
    if (!strcmp(c->argv[1], "stats"))
        return nargs(c, 2) ? -1 : audio_stats(c, a);
    int rc;
    if (!strcmp(c->argv[1], "jack")) {
        if (c->argc != 3 || (strcmp(c->argv[2], "insert") && strcmp(c->argv[2], "remove")))
            return say(c, -1, "audio jack: expected insert or remove");
        rc = vm_audio_jack(a, c->argv[2][0] == 'i');
        if (rc == -EALREADY)
            return say(c, -1, "the jack is already %s", c->argv[2][0] == 'i' ? "in" : "out");
    } else if (!strcmp(c->argv[1], "button")) {
        long button = 1;
        if ((c->argc != 3 && c->argc != 4) ||
            (strcmp(c->argv[2], "press") && strcmp(c->argv[2], "release")))
            return say(c, -1, "audio button: expected press or release [BUTTON 1..4]");
        if (c->argc == 4 && num(c, 3, 1, 4, &button))
            return -1;
        rc = vm_audio_button(a, (unsigned)button, c->argv[2][0] == 'p');
    } else {
        return say(c, -1, "audio: expected state, stats, jack insert|remove or "
                   "button press|release [1..4]");
    }
    if (rc == -ENODEV)
        return say(c, -1, "the module has no jack (jack = headset in its behaviour)");
    if (rc == -ENOTCONN)
        return say(c, -1, "event lost: the CPort is not connected (the AP suspended it?)");
    return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
}

static const struct {
    const char *name;
    uint8_t type;
} pm_types[] = {
    {"bundle-suspend", GB_CONTROL_TYPE_BUNDLE_SUSPEND},
    {"bundle-resume", GB_CONTROL_TYPE_BUNDLE_RESUME},
    {"bundle-activate", GB_CONTROL_TYPE_BUNDLE_ACTIVATE},
    {"bundle-deactivate", GB_CONTROL_TYPE_BUNDLE_DEACTIVATE},
    {"intf-suspend-prepare", GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE},
    {"intf-deactivate-prepare", GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE},
    {"intf-hibernate-abort", GB_CONTROL_TYPE_INTF_HIBERNATE_ABORT},
};

/* pm TYPE STATUS: the control protocol answers TYPE (a name above or its number) with
 * STATUS until it is set back to 0. */
static int do_pm(cmd *c)
{
    long status, type = -1;
    if (c->argc != 3)
        return say(c, -1, "pm: expected TYPE STATUS");
    for (size_t i = 0; i < sizeof pm_types / sizeof pm_types[0]; i++)
        if (!strcmp(pm_types[i].name, c->argv[1]))
            type = pm_types[i].type;
    char *end;
    long n = strtol(c->argv[1], &end, vm_int_base(c->argv[1]));
    if (type < 0 && !*end && *c->argv[1] && n >= 0 && n <= 255)
        type = n;
    if (type < 0)
        return say(c, -1, "pm: unknown type '%s' (bundle-suspend, bundle-resume, "
                   "bundle-activate, bundle-deactivate, intf-suspend-prepare, "
                   "intf-deactivate-prepare, intf-hibernate-abort)", c->argv[1]);
    if (num(c, 2, 0, 255, &status))
        return -1;
    if (vm_interface_set_pm_status(c->intf, (uint8_t)type, (uint8_t)status))
        return say(c, -1, "pm: control type 0x%lx cannot be made to fail", type);
    return say(c, 0, "%s", "");
}

/* interface stats: what the interface received and sent. */
static int do_interface(cmd *c)
{
    if (strcmp(c->argv[1], "stats") || nargs(c, 2))
        return say(c, -1, "interface: expected stats");
    vm_interface_stats st;
    vm_interface_get_stats(c->intf, &st);
    vm_reply_int(c->r, "rx_requests", (int64_t)st.rx_requests);
    vm_reply_int(c->r, "rx_responses", (int64_t)st.rx_responses);
    vm_reply_int(c->r, "tx_requests", (int64_t)st.tx_requests);
    vm_reply_int(c->r, "tx_responses", (int64_t)st.tx_responses);
    vm_reply_int(c->r, "dropped", (int64_t)st.dropped);
    return say(c, 0, "rx-requests %llu rx-responses %llu tx-requests %llu tx-responses %llu "
               "dropped %llu", (unsigned long long)st.rx_requests,
               (unsigned long long)st.rx_responses, (unsigned long long)st.tx_requests,
               (unsigned long long)st.tx_responses, (unsigned long long)st.dropped);
}

/* bootrom flash FILE: an image (a host file) in the module's flash, its boot ROM's fallback
 * when the download over UniPro fails (bootrom.h). */
static int do_bootrom(cmd *c)
{
    vm_bootrom *b = vm_interface_bootrom(c->intf, c->cport);
    if (!b)
        return no_class(c, "bootrom");
    if (strcmp(c->argv[1], "flash") || nargs(c, 3))
        return say(c, -1, "bootrom: expected flash FILE");
    FILE *f = fopen(c->argv[2], "rb");
    if (!f)
        return say(c, -1, "%s: %s", c->argv[2], strerror(errno));
    uint8_t *img = malloc(VM_FW_IMAGE_MAX + 1);
    size_t n = img ? fread(img, 1, VM_FW_IMAGE_MAX + 1, f) : 0;
    fclose(f);
    int rc = img ? vm_bootrom_flash(b, img, n) : -ENOMEM;
    free(img);
    if (rc == -EINVAL)
        return say(c, -1, "%s: %zu bytes; an image has %u..%u", c->argv[2], n,
                   VM_FW_HEADER_SIZE, VM_FW_IMAGE_MAX);
    if (rc == -EBUSY)
        return say(c, -1, "the module is already booting an image");
    if (rc == -EIO)
        return say(c, -1, "image refused: %s", vm_bootrom_error(b));
    return rc ? errno_reply(c, rc) : say(c, 0, "%zu bytes flashed", n);
}

/* auth state: the authentication CPort's UID, certificate and last signed response. */
static int do_auth(cmd *c)
{
    vm_cap *a = vm_interface_cap(c->intf, c->cport);
    if (!a)
        return no_class(c, "authentication");
    if (strcmp(c->argv[1], "state") || nargs(c, 2))
        return say(c, -1, "auth: expected state");
    const vm_cap_state *st = vm_cap_get_state(a);
    char cert[2 * VM_CAP_CERT_SIZE + 1], resp[2 * VM_CAP_RESPONSE_SIZE + 1],
        sig[2 * VM_CAP_SIGNATURE_SIZE + 1];
    hexout(cert, sizeof cert, st->certificate, st->have_key ? VM_CAP_CERT_SIZE : 0);
    hexout(resp, sizeof resp, st->response, st->authentications ? VM_CAP_RESPONSE_SIZE : 0);
    hexout(sig, sizeof sig, st->signature, st->authentications ? VM_CAP_SIGNATURE_SIZE : 0);
    vm_reply_int(c->r, "authentications", st->authentications);
    vm_reply_bytes(c->r, "certificate", st->certificate, st->have_key ? VM_CAP_CERT_SIZE : 0);
    return say(c, 0, "uid 0x%016llx authentications %u certificate %s response %s signature %s",
               (unsigned long long)st->uid, st->authentications, cert[0] ? cert : "-",
               resp[0] ? resp : "-", sig[0] ? sig : "-");
}

/* firmware state: what the module downloaded and booted (bootrom.h, fw_image.h). */
static int do_firmware(cmd *c)
{
    if (strcmp(c->argv[1], "state") || nargs(c, 2))
        return say(c, -1, "firmware: expected state");
    vm_firmware_info fw;
    vm_interface_firmware_info(c->intf, &fw);
    vm_reply_int(c->r, "boots", fw.boots);
    vm_reply_text(c->r, "name", fw.name);
    vm_reply_int(c->r, "size", fw.size);
    vm_reply_int(c->r, "crc", fw.crc);
    char boot[256] = "";
    vm_bootrom *b = vm_interface_bootrom(c->intf, c->cport);
    if (b) {
        vm_bootrom_stats st;
        vm_bootrom_get_stats(b, &st);
        vm_reply_text(c->r, "bootrom", vm_bootrom_state_name(st.state));
        vm_reply_int(c->r, "received", st.received);
        snprintf(boot, sizeof boot, " bootrom %s received %u/%u fetches %u%s%s",
                 vm_bootrom_state_name(st.state), st.received, st.size, st.fetches,
                 vm_bootrom_error(b)[0] ? " error " : "", vm_bootrom_error(b));
    }
    vm_fw_mgmt *m = vm_interface_fw_mgmt(c->intf, VM_ANY_CPORT);
    if (m) {
        vm_fw_mgmt_stats ms;
        vm_fw_mgmt_get_stats(m, &ms);
        vm_reply_int(c->r, "loads", ms.loads);
        vm_reply_int(c->r, "updates", ms.updates);
        size_t used = strlen(boot);
        snprintf(boot + used, sizeof boot - used,
                 " fw-mgmt loads %u load-status %u updates %u update-status %u", ms.loads,
                 ms.last_load_status, ms.updates, ms.last_update_status);
    }
    return say(c, 0, "boots %u name %s size %u crc 0x%08x version %u.%u%s%s%s", fw.boots,
               fw.name[0] ? fw.name : "-", fw.size, fw.crc, fw.major, fw.minor, boot,
               fw.error[0] ? " boot-error " : "", fw.error);
}

static const struct {
    const char *name;
    int (*run)(cmd *c);
} classes[] = {
    {"gpio", do_gpio},         {"i2c", do_i2c},     {"uart", do_uart},
    {"battery", do_battery},   {"hid", do_hid},     {"vibrator", do_vibrator},
    {"light", do_light},       {"loopback", do_loopback}, {"pm", do_pm},
    {"pwm", do_pwm},           {"log", do_log},     {"raw", do_raw},
    {"spi", do_spi},           {"interface", do_interface}, {"firmware", do_firmware},
    {"bootrom", do_bootrom},   {"auth", do_auth},
    {"usb", do_usb},           {"camera", do_camera},
    {"sdio", do_sdio},         {"audio", do_audio},
};

int vm_backend_command(vm_interface *intf, const char *line, sim_time now, vm_reply *reply)
{
    char buf[2 * MAX_HEX + 64];
    cmd c = {.intf = intf, .cport = VM_ANY_CPORT, .now = now, .r = reply};
    vm_reply_clear(reply);
    if (strlen(line) >= sizeof buf)
        return say(&c, -1, "command longer than %zu characters", sizeof buf - 1);
    strcpy(buf, line);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t\r\n", &save); tok && c.argc < MAX_ARGS;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        c.argv[c.argc++] = tok;
        if (c.argc == 2) { /* where the free text of `uart send` starts */
            const char *p = line + (save ? (size_t)(save - buf) : strlen(line));
            while (*p == ' ' || *p == '\t')
                p++;
            c.rest = p;
        }
    }
    if (c.argc < 2)
        return say(&c, -1, "expected CLASS[@CPORT] VERB ... (gpio, i2c, uart, battery, hid, "
                   "vibrator, light, loopback, pwm, log, raw, spi, pm, interface, firmware, "
                   "bootrom, auth, usb, camera, sdio, audio)");
    char *at = strchr(c.argv[0], '@');
    if (at) {
        *at = '\0';
        char *end;
        long cp = strtol(at + 1, &end, vm_int_base(at + 1));
        if (*end || !at[1] || cp < 1 || cp > 4095)
            return say(&c, -1, "'%s' is not a CPort id 1..4095", at + 1);
        c.cport = (uint16_t)cp;
    }
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (!strcmp(classes[i].name, c.argv[0]))
            return classes[i].run(&c);
    return say(&c, -1, "unknown class '%s' (gpio, i2c, uart, battery, hid, vibrator, light, "
               "loopback, pwm, log, raw, spi, pm, interface, firmware, bootrom, auth, usb, camera, sdio, "
               "audio)",
               c.argv[0]);
}
