// SPDX-License-Identifier: MIT
// I2C class handler and its simulated bus (see i2c.h).
#include "virtual-modules/i2c.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define OP_SIZE 6u /* addr le16, flags le16, size le16 */
#define EEPROM_PAGE 8u
#define LM75_REG_TEMP 0
#define LM75_REG_CONF 1
#define LM75_REG_THYST 2
#define LM75_REG_TOS 3

typedef enum { DEV_EEPROM, DEV_LM75 } dev_kind;

typedef struct i2c_dev {
    uint16_t addr;
    dev_kind kind;
    uint8_t ptr; /* EEPROM word address / LM75 pointer register */
    uint8_t mem[VM_I2C_EEPROM_SIZE];
    int16_t temp, thyst, tos; /* LM75 registers, 9-bit values in 0.5 degC units << 7 */
    uint8_t conf;
} i2c_dev;

struct vm_i2c {
    vm_endpoint *ep;
    i2c_dev dev[VM_I2C_MAX_DEVICES];
    size_t ndev;
    vm_i2c_stats st;
};

static const char *const i2c_keys[] = {"eeprom", "lm75", "eeprom-fill", "temperature", NULL};

static int16_t lm75_encode(int32_t mc)
{
    if (mc < -55000)
        mc = -55000;
    if (mc > 125000)
        mc = 125000;
    int32_t half = mc >= 0 ? (mc + 250) / 500 : -((-mc + 250) / 500);
    return (int16_t)(half * 128);
}

static int add_devices(vm_i2c *bus, const vm_bsection *cfg, const char *key, dev_kind kind,
                       uint32_t def, uint32_t fill, int32_t temp, char *err, size_t errlen)
{
    uint32_t addrs[VM_I2C_MAX_DEVICES];
    size_t n = 1;
    const char *v = vm_bsection_get(cfg, key, NULL);
    if (v && !strcmp(v, "none"))
        return 0;
    addrs[0] = def;
    if (v && vm_bsection_u32_list(cfg, key, 0x03, 0x77, addrs, VM_I2C_MAX_DEVICES, &n, err,
                                  errlen))
        return -1;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < bus->ndev; j++) {
            if (bus->dev[j].addr == addrs[i]) {
                return vm_bsection_error(cfg, key, err, errlen,
                                         "I2C address 0x%02x is used twice", addrs[i]);
            }
        }
        if (bus->ndev == VM_I2C_MAX_DEVICES)
            return vm_bsection_error(cfg, key, err, errlen, "more than %u I2C devices",
                                     VM_I2C_MAX_DEVICES);
        i2c_dev *d = &bus->dev[bus->ndev++];
        memset(d, 0, sizeof *d);
        d->addr = (uint16_t)addrs[i];
        d->kind = kind;
        memset(d->mem, (int)fill, sizeof d->mem);
        d->temp = lm75_encode(temp);
        d->thyst = lm75_encode(75000); /* LM75 power-on defaults */
        d->tos = lm75_encode(80000);
    }
    return 0;
}

static void *i2c_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t fill;
    int32_t temp;
    if (vm_bsection_u32(cfg, "eeprom-fill", 0xff, 0, 0xff, &fill, err, errlen) ||
        vm_bsection_i32(cfg, "temperature", 25000, -55000, 125000, &temp, err, errlen))
        return NULL;
    vm_i2c *bus = calloc(1, sizeof *bus);
    if (!bus)
        return NULL;
    bus->ep = ep;
    if (add_devices(bus, cfg, "eeprom", DEV_EEPROM, 0x50, fill, temp, err, errlen) ||
        add_devices(bus, cfg, "lm75", DEV_LM75, 0x48, fill, temp, err, errlen)) {
        free(bus);
        return NULL;
    }
    return bus;
}

static void i2c_destroy(void *h)
{
    free(h);
}

static i2c_dev *find_dev(const vm_i2c *bus, uint16_t addr, dev_kind kind, bool any)
{
    for (size_t i = 0; i < bus->ndev; i++)
        if (bus->dev[i].addr == addr && (any || bus->dev[i].kind == kind))
            return (i2c_dev *)&bus->dev[i];
    return NULL;
}

/* ---- device behaviour ---- */

static void eeprom_write(i2c_dev *d, const uint8_t *data, size_t len)
{
    if (len == 0)
        return; /* quick write: address ACK only */
    d->ptr = data[0];
    for (size_t i = 1; i < len; i++) {
        d->mem[d->ptr] = data[i];
        /* page write: the low 3 bits roll over inside the 8-byte page */
        d->ptr = (uint8_t)((d->ptr & ~(EEPROM_PAGE - 1)) | ((d->ptr + 1) & (EEPROM_PAGE - 1)));
    }
}

static void eeprom_read(i2c_dev *d, uint8_t *out, size_t len)
{
    for (size_t i = 0; i < len; i++)
        out[i] = d->mem[d->ptr++]; /* uint8_t wraps at 256 */
}

static size_t lm75_reg(const i2c_dev *d, uint8_t reg[2])
{
    int16_t v;
    switch (d->ptr) {
    case LM75_REG_CONF:
        reg[0] = d->conf;
        return 1;
    case LM75_REG_THYST: v = d->thyst; break;
    case LM75_REG_TOS: v = d->tos; break;
    default: v = d->temp; break;
    }
    reg[0] = (uint8_t)((uint16_t)v >> 8);
    reg[1] = (uint8_t)v;
    return 2;
}

static void lm75_write(i2c_dev *d, const uint8_t *data, size_t len)
{
    if (len == 0)
        return;
    d->ptr = data[0] & 3;
    if (d->ptr == LM75_REG_CONF && len >= 2)
        d->conf = data[1];
    else if ((d->ptr == LM75_REG_THYST || d->ptr == LM75_REG_TOS) && len >= 3) {
        int16_t v = (int16_t)(((uint16_t)data[1] << 8 | data[2]) & 0xff80);
        if (d->ptr == LM75_REG_THYST)
            d->thyst = v;
        else
            d->tos = v;
    }
}

static void lm75_read(const i2c_dev *d, uint8_t *out, size_t len)
{
    uint8_t reg[2];
    size_t n = lm75_reg(d, reg);
    for (size_t i = 0; i < len; i++)
        out[i] = reg[i % n]; /* the pointer does not advance: the register repeats */
}

/* ---- TRANSFER ---- */

static uint8_t transfer(vm_i2c *bus, vm_request *rq)
{
    if (rq->len < 2)
        return GB_OP_INVALID;
    size_t nops = gb_get_le16(rq->payload);
    if (nops == 0 || rq->len < 2 + nops * OP_SIZE)
        return GB_OP_INVALID;
    const uint8_t *ops = rq->payload + 2;
    size_t wtotal = 0, rtotal = 0;
    for (size_t i = 0; i < nops; i++) {
        uint16_t addr = gb_get_le16(ops + i * OP_SIZE);
        uint16_t flags = gb_get_le16(ops + i * OP_SIZE + 2);
        uint16_t size = gb_get_le16(ops + i * OP_SIZE + 4);
        if (!(flags & GB_I2C_M_TEN) && addr > 0x7f)
            return GB_OP_INVALID;
        if (addr > 0x3ff)
            return GB_OP_INVALID;
        if (flags & GB_I2C_M_RD)
            rtotal += size;
        else
            wtotal += size;
    }
    if (rq->len != 2 + nops * OP_SIZE + wtotal || rtotal > rq->resp_cap)
        return GB_OP_INVALID;

    const uint8_t *wdata = ops + nops * OP_SIZE;
    size_t rlen = 0;
    bus->st.transfers++;
    for (size_t i = 0; i < nops; i++) {
        uint16_t addr = gb_get_le16(ops + i * OP_SIZE);
        uint16_t flags = gb_get_le16(ops + i * OP_SIZE + 2);
        uint16_t size = gb_get_le16(ops + i * OP_SIZE + 4);
        i2c_dev *d = (flags & GB_I2C_M_TEN) ? NULL : find_dev(bus, addr, DEV_EEPROM, true);
        if (!d) {
            bus->st.nak++;
            return GB_OP_NONEXISTENT;
        }
        bus->st.ops++;
        if (flags & GB_I2C_M_RD) {
            if (d->kind == DEV_EEPROM)
                eeprom_read(d, rq->resp + rlen, size);
            else
                lm75_read(d, rq->resp + rlen, size);
            rlen += size;
            bus->st.bytes_read += size;
        } else {
            if (d->kind == DEV_EEPROM)
                eeprom_write(d, wdata, size);
            else
                lm75_write(d, wdata, size);
            wdata += size;
            bus->st.bytes_written += size;
        }
    }
    rq->resp_len = rlen;
    return GB_OP_SUCCESS;
}

static uint8_t i2c_request(void *h, vm_request *rq)
{
    vm_i2c *bus = h;
    uint8_t rc;
    switch (rq->type) {
    case GB_I2C_TYPE_FUNCTIONALITY:
        if (rq->len != 0) {
            bus->st.rejected++;
            return GB_OP_INVALID;
        }
        gb_put_le32(rq->resp, VM_I2C_FUNCTIONALITY);
        rq->resp_len = 4;
        return GB_OP_SUCCESS;
    case GB_I2C_TYPE_TRANSFER:
        rc = transfer(bus, rq);
        if (rc == GB_OP_INVALID)
            bus->st.rejected++;
        return rc;
    default:
        return GB_OP_PROTOCOL_BAD;
    }
}

int vm_i2c_eeprom_read(const vm_i2c *bus, uint16_t addr, unsigned offset, uint8_t *buf,
                       size_t len)
{
    const i2c_dev *d = find_dev(bus, addr, DEV_EEPROM, false);
    if (!d)
        return -ENODEV;
    if (offset > VM_I2C_EEPROM_SIZE || len > VM_I2C_EEPROM_SIZE - offset)
        return -EINVAL;
    memcpy(buf, d->mem + offset, len);
    return 0;
}

int vm_i2c_eeprom_write(vm_i2c *bus, uint16_t addr, unsigned offset, const uint8_t *buf,
                        size_t len)
{
    i2c_dev *d = find_dev(bus, addr, DEV_EEPROM, false);
    if (!d)
        return -ENODEV;
    if (offset > VM_I2C_EEPROM_SIZE || len > VM_I2C_EEPROM_SIZE - offset)
        return -EINVAL;
    memcpy(d->mem + offset, buf, len);
    return 0;
}

int vm_i2c_lm75_set_temperature(vm_i2c *bus, uint16_t addr, int32_t millicelsius)
{
    i2c_dev *d = find_dev(bus, addr, DEV_LM75, false);
    if (!d)
        return -ENODEV;
    d->temp = lm75_encode(millicelsius);
    return 0;
}

int vm_i2c_lm75_get_temperature(const vm_i2c *bus, uint16_t addr, int32_t *millicelsius)
{
    const i2c_dev *d = find_dev(bus, addr, DEV_LM75, false);
    if (!d)
        return -ENODEV;
    *millicelsius = (int32_t)(d->temp / 128) * 500;
    return 0;
}

void vm_i2c_get_stats(const vm_i2c *bus, vm_i2c_stats *out)
{
    *out = bus->st;
}

const vm_class_ops vm_i2c_class = {
    .protocol = GB_PROTOCOL_I2C,
    .name = "i2c",
    .keys = i2c_keys,
    .create = i2c_create,
    .destroy = i2c_destroy,
    .request = i2c_request,
};
