// SPDX-License-Identifier: MIT
// Text commands for interface backends (see backend_cmd.h).
#include "virtual-modules/backend_cmd.h"

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
#include "virtual-modules/log.h"
#include "virtual-modules/loopback.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/pwm.h"
#include "virtual-modules/raw.h"
#include "virtual-modules/spi.h"
#include "virtual-modules/uart.h"
#include "virtual-modules/vibrator.h"

#define MAX_ARGS 8
#define MAX_HEX 256

typedef struct cmd {
    vm_interface *intf;
    uint16_t cport;
    int argc;
    char *argv[MAX_ARGS];
    const char *rest; /* text after argv[1] in the original line (uart send) */
    sim_time now;
    char *reply;
    size_t len;
} cmd;

static int say(cmd *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int say(cmd *c, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reply, c->len, fmt, ap);
    va_end(ap);
    return rc;
}

static int num(cmd *c, int i, long min, long max, long *out)
{
    if (i >= c->argc)
        return say(c, -1, "%s %s: missing argument %d", c->argv[0], c->argc > 1 ? c->argv[1] : "",
                   i - 1);
    char *end;
    errno = 0;
    long v = strtol(c->argv[i], &end, 0);
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
        unsigned v;
        char b[3] = {s[i], s[i + 1], 0};
        char *end;
        v = (unsigned)strtoul(b, &end, 16);
        if (*end)
            return say(c, -1, "'%s' is not hex", s);
        out[(*n)++] = (uint8_t)v;
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

static int do_gpio(cmd *c)
{
    vm_gpio *g = vm_interface_gpio(c->intf, c->cport);
    long line, v;
    if (!g)
        return say(c, -1, "the interface has no GPIO CPort");
    if (!strcmp(c->argv[1], "set")) {
        if (nargs(c, 4) || num(c, 2, 0, 255, &line) || num(c, 3, 0, 1, &v))
            return -1;
        int rc = vm_gpio_set_input(g, (unsigned)line, v);
        if (rc == -EINVAL)
            return say(c, -1, "line %ld does not exist (%u lines)", line, vm_gpio_line_count(g));
        if (rc < 0)
            return errno_reply(c, rc);
        return say(c, 0, "%s", rc == 1 ? "irq" : "");
    }
    if (!strcmp(c->argv[1], "get")) {
        if (nargs(c, 3) || num(c, 2, 0, 255, &line))
            return -1;
        vm_gpio_line l;
        if (vm_gpio_get_line(g, (unsigned)line, &l))
            return say(c, -1, "line %ld does not exist (%u lines)", line, vm_gpio_line_count(g));
        return say(c, 0, "%d %s%s", vm_gpio_get_value(g, (unsigned)line),
                   l.output ? "output" : "input", l.activated ? " active" : "");
    }
    return say(c, -1, "gpio: expected set or get");
}

static int do_i2c(cmd *c)
{
    vm_i2c *bus = vm_interface_i2c(c->intf, c->cport);
    long addr, a, b;
    if (!bus)
        return say(c, -1, "the interface has no I2C CPort");
    if (!strcmp(c->argv[1], "temp")) {
        if (nargs(c, 4) || num(c, 2, 0, 0x7f, &addr) || num(c, 3, -55000, 125000, &a))
            return -1;
        int rc = vm_i2c_lm75_set_temperature(bus, (uint16_t)addr, (int32_t)a);
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "read")) {
        uint8_t data[VM_I2C_EEPROM_SIZE];
        if (nargs(c, 5) || num(c, 2, 0, 0x7f, &addr) || num(c, 3, 0, 255, &a) ||
            num(c, 4, 1, 256, &b))
            return -1;
        int rc = vm_i2c_eeprom_read(bus, (uint16_t)addr, (unsigned)a, data, (size_t)b);
        if (rc)
            return rc == -EINVAL ? say(c, -1, "past the end of the EEPROM") : errno_reply(c, rc);
        hexout(c->reply, c->len, data, (size_t)b);
        return 0;
    }
    if (!strcmp(c->argv[1], "write")) {
        uint8_t data[VM_I2C_EEPROM_SIZE];
        size_t n;
        if (nargs(c, 5) || num(c, 2, 0, 0x7f, &addr) || num(c, 3, 0, 255, &a) ||
            hexbytes(c, c->argv[4], data, sizeof data, &n))
            return -1;
        int rc = vm_i2c_eeprom_write(bus, (uint16_t)addr, (unsigned)a, data, n);
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
        return say(c, -1, "the interface has no UART CPort");
    if (!strcmp(c->argv[1], "send")) {
        if (!c->rest || !*c->rest)
            return say(c, -1, "uart send: nothing to send");
        size_t n = strlen(c->rest);
        char *text = malloc(n + 2);
        if (!text)
            return say(c, -1, "out of memory");
        memcpy(text, c->rest, n);
        text[n++] = '\n';
        int rc = vm_uart_inject_rx(u, (const uint8_t *)text, n, 0);
        free(text);
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "recv")) {
        uint8_t buf[1024];
        size_t n = vm_uart_read_tx(u, buf, c->len ? (c->len - 1 < sizeof buf ? c->len - 1
                                                                             : sizeof buf)
                                                  : 0);
        size_t i;
        for (i = 0; i < n && i + 1 < c->len; i++)
            c->reply[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? (char)buf[i]
                          : buf[i] == '\n'               ? '\n'
                                                         : '.';
        if (c->len)
            c->reply[i] = '\0';
        return 0;
    }
    if (!strcmp(c->argv[1], "state")) {
        vm_uart_state st;
        vm_uart_get_state(u, &st);
        const char *path = vm_uart_pty_path(u);
        return say(c, 0, "rate %u bits %u parity %u stop %u control 0x%02x tx %llu rx %llu%s%s",
                   st.rate, st.data_bits, st.parity, st.format, st.control,
                   (unsigned long long)st.tx_bytes, (unsigned long long)st.rx_bytes,
                   path ? " pty " : "", path ? path : "");
    }
    return say(c, -1, "uart: expected send, recv or state");
}

static int do_battery(cmd *c)
{
    vm_power_supply *ps = vm_interface_power_supply(c->intf, c->cport);
    if (!ps)
        return say(c, -1, "the interface has no power supply CPort");
    if (!strcmp(c->argv[1], "notify"))
        return nargs(c, 2) ? -1 : vm_power_supply_notify(ps, 0) ? say(c, -1, "event lost: "
                                                                         "CPort not connected")
                                                               : say(c, 0, "%s", "");
    bool set = !strcmp(c->argv[1], "set");
    if (!set && strcmp(c->argv[1], "get"))
        return say(c, -1, "battery: expected set, get or notify");
    if (nargs(c, set ? 4 : 3))
        return -1;
    int prop = vm_power_supply_property_by_name(c->argv[2]);
    if (prop < 0)
        return say(c, -1, "unknown property '%s' (capacity, status, voltage-now, temp, ...)",
                   c->argv[2]);
    if (!set) {
        int32_t v;
        vm_power_supply_get(ps, 0, (uint8_t)prop, &v);
        return say(c, 0, "%d", v);
    }
    long v;
    if (num(c, 3, INT32_MIN, INT32_MAX, &v))
        return -1;
    int rc = vm_power_supply_set(ps, 0, (uint8_t)prop, (int32_t)v, true);
    if (rc == -EINVAL)
        return say(c, -1, "%ld is not a valid %s", v, c->argv[2]);
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
    long v = strtol(k, &end, 0);
    return (*end || v < 1 || v > 0xff) ? -1 : (int)v;
}

static int do_hid(cmd *c)
{
    vm_hid *h = vm_interface_hid(c->intf, c->cport);
    if (!h)
        return say(c, -1, "the interface has no HID CPort");
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
        char out[2 * VM_HID_MAX_REPORT + 1];
        hexout(out, sizeof out, st.output, st.output_size);
        return say(c, 0, "%s input-reports %llu output %s", st.powered ? "on" : "off",
                   (unsigned long long)st.input_reports, st.output_size ? out : "-");
    }
    return say(c, -1, "hid: expected report, key or state");
}

static int do_vibrator(cmd *c)
{
    vm_vibrator *v = vm_interface_vibrator(c->intf, c->cport);
    if (!v)
        return say(c, -1, "the interface has no vibrator CPort");
    if (strcmp(c->argv[1], "state") || nargs(c, 2))
        return c->reply[0] ? -1 : say(c, -1, "vibrator: expected state");
    return say(c, 0, "%s on-time-ms %llu count %llu", vm_vibrator_is_on(v) ? "on" : "off",
               (unsigned long long)(vm_vibrator_on_time(v, c->now) / SIM_MS(1)),
               (unsigned long long)vm_vibrator_on_count(v));
}

static int do_light(cmd *c)
{
    vm_light *l = vm_interface_light(c->intf, c->cport);
    long ch;
    if (!l)
        return say(c, -1, "the interface has no lights CPort");
    if (strcmp(c->argv[1], "get"))
        return say(c, -1, "light: expected get");
    if (nargs(c, 3) || num(c, 2, 0, 255, &ch))
        return -1;
    vm_light_channel s;
    if (vm_light_get_channel(l, (unsigned)ch, &s))
        return say(c, -1, "channel %ld does not exist (%u channels)", ch,
                   vm_light_channel_count(l));
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
        return say(c, -1, "the interface has no loopback CPort");
    if (!strcmp(c->argv[1], "ping")) {
        rc = nargs(c, 2) ? -1 : vm_loopback_send_ping(lb);
    } else if (!strcmp(c->argv[1], "transfer") || !strcmp(c->argv[1], "sink")) {
        if (nargs(c, 3) || num(c, 2, 0, VM_LOOPBACK_MAX_LEN, &n))
            return -1;
        rc = c->argv[1][0] == 't' ? vm_loopback_send_transfer(lb, (uint32_t)n)
                                  : vm_loopback_send_sink(lb, (uint32_t)n);
    } else if (!strcmp(c->argv[1], "stats")) {
        vm_loopback_stats st;
        vm_loopback_get_stats(lb, &st);
        return say(c, 0, "pings %llu transfers %llu sinks %llu bytes %llu sent %llu "
                   "answered %llu mismatches %llu", (unsigned long long)st.pings,
                   (unsigned long long)st.transfers, (unsigned long long)st.sinks,
                   (unsigned long long)st.bytes, (unsigned long long)st.sent,
                   (unsigned long long)st.answered, (unsigned long long)st.mismatches);
    } else {
        return say(c, -1, "loopback: expected ping, transfer, sink or stats");
    }
    if (rc == -1 && c->reply[0])
        return -1;
    return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
}

static int do_pwm(cmd *c)
{
    vm_pwm *p = vm_interface_pwm(c->intf, c->cport);
    long ch;
    if (!p)
        return say(c, -1, "the interface has no PWM CPort");
    if (strcmp(c->argv[1], "get"))
        return say(c, -1, "pwm: expected get");
    if (nargs(c, 3) || num(c, 2, 0, 255, &ch))
        return -1;
    vm_pwm_channel s;
    if (vm_pwm_get_channel(p, (unsigned)ch, &s))
        return say(c, -1, "channel %ld does not exist (%u channels)", ch, vm_pwm_channel_count(p));
    return say(c, 0, "%s duty-ns %u period-ns %u polarity %s%s", s.enabled ? "on" : "off",
               s.duty_ns, s.period_ns, s.inversed ? "inversed" : "normal",
               s.activated ? " active" : "");
}

static int do_log(cmd *c)
{
    vm_log *l = vm_interface_log(c->intf, c->cport);
    if (!l)
        return say(c, -1, "the interface has no log CPort");
    if (strcmp(c->argv[1], "send") || !c->rest || !*c->rest)
        return say(c, -1, "log: expected send TEXT...");
    int rc = vm_log_send(l, c->rest);
    return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
}

static int do_raw(cmd *c)
{
    vm_raw *r = vm_interface_raw(c->intf, c->cport);
    if (!r)
        return say(c, -1, "the interface has no raw CPort");
    if (!strcmp(c->argv[1], "send")) {
        uint8_t data[MAX_HEX];
        size_t n;
        if (nargs(c, 3) || hexbytes(c, c->argv[2], data, sizeof data, &n))
            return -1;
        int rc = n ? vm_raw_send(r, data, n) : -EINVAL;
        return rc ? errno_reply(c, rc) : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "recv")) {
        uint8_t data[MAX_HEX];
        size_t n = vm_raw_read(r, data, c->len / 2 < sizeof data ? c->len / 2 : sizeof data);
        hexout(c->reply, c->len, data, n);
        return 0;
    }
    return say(c, -1, "raw: expected send HEX or recv");
}

static int do_spi(cmd *c)
{
    vm_spi *s = vm_interface_spi(c->intf, c->cport);
    if (!s)
        return say(c, -1, "the interface has no SPI CPort");
    if (!strcmp(c->argv[1], "queue")) {
        uint8_t data[MAX_HEX];
        size_t n;
        if (nargs(c, 3) || hexbytes(c, c->argv[2], data, sizeof data, &n))
            return -1;
        return vm_spi_queue_miso(s, data, n) ? say(c, -1, "the MISO queue is full")
                                              : say(c, 0, "%s", "");
    }
    if (!strcmp(c->argv[1], "recv")) {
        uint8_t data[MAX_HEX];
        size_t n = vm_spi_read_mosi(s, data, c->len / 2 < sizeof data ? c->len / 2
                                                                       : sizeof data);
        hexout(c->reply, c->len, data, n);
        return 0;
    }
    return say(c, -1, "spi: expected queue HEX or recv");
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

static int do_pm(cmd *c)
{
    long status;
    if (c->argc != 3)
        return say(c, -1, "pm: expected TYPE STATUS");
    for (size_t i = 0; i < sizeof pm_types / sizeof pm_types[0]; i++) {
        if (strcmp(pm_types[i].name, c->argv[1]))
            continue;
        if (num(c, 2, 0, 255, &status))
            return -1;
        vm_interface_set_pm_status(c->intf, pm_types[i].type, (uint8_t)status);
        return say(c, 0, "%s", "");
    }
    return say(c, -1, "pm: unknown type '%s' (bundle-suspend, bundle-resume, "
               "bundle-activate, bundle-deactivate, intf-suspend-prepare, "
               "intf-deactivate-prepare, intf-hibernate-abort)", c->argv[1]);
}

static const struct {
    const char *name;
    int (*run)(cmd *c);
} classes[] = {
    {"gpio", do_gpio},         {"i2c", do_i2c},     {"uart", do_uart},
    {"battery", do_battery},   {"hid", do_hid},     {"vibrator", do_vibrator},
    {"light", do_light},       {"loopback", do_loopback}, {"pm", do_pm},
    {"pwm", do_pwm},           {"log", do_log},     {"raw", do_raw},
    {"spi", do_spi},
};

int vm_backend_command(vm_interface *intf, const char *line, sim_time now, char *reply,
                       size_t len)
{
    char buf[512];
    char one[1];
    if (!reply || !len) {
        reply = one;
        len = sizeof one;
    }
    cmd c = {.intf = intf, .cport = VM_ANY_CPORT, .now = now, .reply = reply, .len = len};
    reply[0] = '\0';
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
                   "vibrator, light, loopback, pwm, log, raw, spi, pm)");
    char *at = strchr(c.argv[0], '@');
    if (at) {
        *at = '\0';
        char *end;
        long cp = strtol(at + 1, &end, 0);
        if (*end || !at[1] || cp < 1 || cp > 4095)
            return say(&c, -1, "'%s' is not a CPort id 1..4095", at + 1);
        c.cport = (uint16_t)cp;
    }
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (!strcmp(classes[i].name, c.argv[0]))
            return classes[i].run(&c);
    return say(&c, -1, "unknown class '%s' (gpio, i2c, uart, battery, hid, vibrator, light, "
               "loopback, pwm, log, raw, spi, pm)", c.argv[0]);
}
