// SPDX-License-Identifier: MIT
// The typed backend commands (see typed.h): each builds one backend command line.
#include "gbvp/target/typed.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "virtual-modules/hid.h"
#include "virtual-modules/i2c.h"

/* Appends printf output to line; false when it did not fit. */
static bool add(char *line, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool add(char *line, size_t len, const char *fmt, ...)
{
    size_t used = strlen(line);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + used, len - used, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < len - used;
}

static bool add_hex(char *line, size_t len, const sim_typed_value *v)
{
    bool ok = add(line, len, " ");
    for (size_t i = 0; ok && i < v->len; i++)
        ok = add(line, len, "%02x", v->bytes[i]);
    return ok;
}

static bool add_property(char *line, size_t len, const sim_typed_value *v)
{
    return v->text ? add(line, len, " %s", v->text) : add(line, len, " %" PRId64, v->i);
}

static int too_long(char *err, size_t errlen)
{
    snprintf(err, errlen, "the arguments make too long a command");
    return -1;
}

#define LINE_FN(fn) \
    static int fn(const sim_typed_value *v, char *line, size_t len, int *index, char *err, \
                  size_t errlen)

LINE_FN(gpio_set)
{
    (void)index;
    return add(line, len, "gpio set %" PRId64 " %d", v[0].i, v[1].i != 0) ? 0
                                                                           : too_long(err, errlen);
}

LINE_FN(gpio_get)
{
    (void)index;
    return add(line, len, "gpio get %" PRId64, v[0].i) ? 0 : too_long(err, errlen);
}

LINE_FN(gpio_stats)
{
    (void)v, (void)index, (void)err, (void)errlen;
    return add(line, len, "gpio stats") ? 0 : -1;
}

LINE_FN(battery_set)
{
    (void)index;
    bool ok = add(line, len, "battery set") && add_property(line, len, &v[0]) &&
              add(line, len, " %" PRId64, v[1].i);
    bool quiet = v[3].present && !v[3].i;
    if (ok && (v[2].present || quiet))
        ok = add(line, len, " %" PRId64, v[2].present ? v[2].i : 0);
    if (ok && quiet)
        ok = add(line, len, " quiet");
    return ok ? 0 : too_long(err, errlen);
}

LINE_FN(battery_get)
{
    (void)index;
    bool ok = add(line, len, "battery get") && add_property(line, len, &v[0]);
    if (ok && v[1].present)
        ok = add(line, len, " %" PRId64, v[1].i);
    return ok ? 0 : too_long(err, errlen);
}

LINE_FN(battery_stats)
{
    (void)v, (void)index, (void)err, (void)errlen;
    return add(line, len, "battery stats") ? 0 : -1;
}

LINE_FN(hid_input)
{
    (void)index;
    if (!v[0].len) {
        snprintf(err, errlen, "the report is empty");
        return -1;
    }
    return add(line, len, "hid report") && add_hex(line, len, &v[0]) ? 0 : too_long(err, errlen);
}

LINE_FN(hid_state)
{
    (void)v, (void)index, (void)err, (void)errlen;
    return add(line, len, "hid state") ? 0 : -1;
}

LINE_FN(uart_send)
{
    (void)index;
    if (!v[0].len) {
        snprintf(err, errlen, "nothing to send");
        return -1;
    }
    return add(line, len, "uart inject") && add_hex(line, len, &v[0]) ? 0 : too_long(err, errlen);
}

LINE_FN(uart_read)
{
    (void)v, (void)index, (void)err, (void)errlen;
    return add(line, len, "uart recv") ? 0 : -1;
}

LINE_FN(uart_state)
{
    (void)v, (void)index, (void)err, (void)errlen;
    return add(line, len, "uart state") ? 0 : -1;
}

LINE_FN(i2c_write)
{
    (void)index;
    if (!v[2].len) {
        snprintf(err, errlen, "nothing to write");
        return -1;
    }
    if ((uint64_t)v[1].i + v[2].len > VM_I2C_EEPROM_SIZE) {
        snprintf(err, errlen, "%zu bytes at %" PRId64 " pass the end of the EEPROM", v[2].len,
                 v[1].i);
        return -1;
    }
    return add(line, len, "i2c write %" PRId64 " %" PRId64, v[0].i, v[1].i) &&
                   add_hex(line, len, &v[2])
               ? 0
               : too_long(err, errlen);
}

LINE_FN(i2c_read)
{
    (void)index;
    if (v[1].i + v[2].i > (int64_t)VM_I2C_EEPROM_SIZE) {
        snprintf(err, errlen, "%" PRId64 " bytes at %" PRId64 " are outside the EEPROM", v[2].i,
                 v[1].i);
        return -1;
    }
    return add(line, len, "i2c read %" PRId64 " %" PRId64 " %" PRId64, v[0].i, v[1].i, v[2].i)
               ? 0
               : too_long(err, errlen);
}

LINE_FN(i2c_temperature)
{
    (void)index;
    bool ok = add(line, len, "i2c temp %" PRId64, v[0].i);
    if (ok && v[1].present)
        ok = add(line, len, " %" PRId64, v[1].i);
    return ok ? 0 : too_long(err, errlen);
}

LINE_FN(pm_fault)
{
    /* the control protocol of the module's first interface */
    *index = 0;
    return add(line, len, "pm %" PRId64 " %" PRId64, v[0].i, v[1].i) ? 0 : too_long(err, errlen);
}

LINE_FN(interface_stats)
{
    (void)err, (void)errlen;
    *index = v[0].present ? (int)v[0].i : 0;
    return add(line, len, "interface stats") ? 0 : -1;
}

#define INT_ARG(n, lo, hi) { n, SIM_TYPED_INT, false, lo, hi }
#define OPT_INT_ARG(n, lo, hi) { n, SIM_TYPED_INT, true, lo, hi }

const sim_typed_cmd sim_typed_cmds[] = {
    { "gpio_set", "GPIO controller",
      { INT_ARG("line", 0, 255), { "level", SIM_TYPED_LEVEL, false, 0, 1 } }, "irq_sent", true,
      gpio_set },
    { "gpio_get", "GPIO controller", { INT_ARG("line", 0, 255) }, NULL, false, gpio_get },
    { "gpio_stats", "GPIO controller", { { 0 } }, NULL, false, gpio_stats },
    { "battery_set", "battery (power supply)",
      { { "property", SIM_TYPED_PROPERTY, false, 0, 255 }, INT_ARG("value", INT32_MIN, INT32_MAX),
        OPT_INT_ARG("supply", 0, 255), { "notify", SIM_TYPED_LEVEL, true, 0, 1 } },
      "notified", true, battery_set },
    { "battery_get", "battery (power supply)",
      { { "property", SIM_TYPED_PROPERTY, false, 0, 255 }, OPT_INT_ARG("supply", 0, 255) },
      "value", false, battery_get },
    { "battery_stats", "battery (power supply)", { { 0 } }, NULL, false, battery_stats },
    { "hid_input", "HID device", { { "report", SIM_TYPED_BYTES, false, 1, VM_HID_MAX_REPORT } },
      "", true, hid_input },
    { "hid_state", "HID device", { { 0 } }, NULL, false, hid_state },
    { "uart_send", "UART", { { "data", SIM_TYPED_BYTES, false, 1, 2048 } }, "", true,
      uart_send },
    { "uart_read", "UART", { { 0 } }, "data", false, uart_read },
    { "uart_state", "UART", { { 0 } }, NULL, false, uart_state },
    { "i2c_write", "I2C bus",
      { INT_ARG("addr", 0, 0x7f), INT_ARG("offset", 0, VM_I2C_EEPROM_SIZE - 1),
        { "data", SIM_TYPED_BYTES, false, 1, VM_I2C_EEPROM_SIZE } },
      "", false, i2c_write },
    { "i2c_read", "I2C bus",
      { INT_ARG("addr", 0, 0x7f), INT_ARG("offset", 0, VM_I2C_EEPROM_SIZE - 1),
        INT_ARG("len", 1, VM_I2C_EEPROM_SIZE) },
      "data", false, i2c_read },
    { "i2c_temperature", "I2C bus",
      { INT_ARG("addr", 0, 0x7f), OPT_INT_ARG("millicelsius", -55000, 125000) },
      "millicelsius", false, i2c_temperature },
    { "pm_fault", "module", { INT_ARG("control_type", 0, 255), INT_ARG("status", 0, 255) }, "",
      false, pm_fault },
    { "interface_stats", "module",
      { OPT_INT_ARG("index", 0, SIM_TARGET_INTERFACES_MAX - 1) }, NULL, false,
      interface_stats },
    { 0 },
};

const sim_typed_cmd *sim_typed_find(const char *name)
{
    for (const sim_typed_cmd *c = sim_typed_cmds; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

int sim_typed_run(const sim_target *t, const sim_typed_cmd *cmd, unsigned slot,
                  const sim_typed_value *args, vm_reply *reply)
{
    char line[4 * 2048 + 64] = "";
    int index = SIM_TARGET_ANY_INTERFACE;
    vm_reply_clear(reply);
    if (cmd->line(args, line, sizeof line, &index, reply->text, sizeof reply->text))
        return -EINVAL;
    int rc = t->ops->command(t->ctx, slot, index, line, reply);
    if (rc == -ENOENT && index <= 0) {
        char name[64];
        if (!t->ops->module_name(t->ctx, slot, name, sizeof name))
            return vm_reply_say(reply, rc, "slot %u is empty: no %s to drive", slot, cmd->what);
    } else if (rc == -ENODEV && index == SIM_TARGET_ANY_INTERFACE) {
        char name[64] = "?";
        t->ops->module_name(t->ctx, slot, name, sizeof name);
        return vm_reply_say(reply, rc, "the module in slot %u (%s) has no %s", slot, name,
                            cmd->what);
    }
    return rc;
}
