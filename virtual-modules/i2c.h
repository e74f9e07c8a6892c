// SPDX-License-Identifier: MIT
// I2C class handler (protocol 0x03, drivers/staging/greybus/i2c.c): an I2C bus with
// simulated devices that multi-op TRANSFER requests reach. Devices:
//   - a 24C02-style EEPROM: 256 bytes, 8-byte write pages, a word-address pointer that
//     sequential reads advance (wrapping at 256);
//   - an LM75-style temperature sensor: pointer register, temperature (read-only,
//     0.5 degC steps), configuration, T_HYST and T_OS registers.
// An address with no device answers the whole transfer with GB_OP_NONEXISTENT, which the
// AP turns into -ENODEV (the Greybus form of "no ACK"), unlogged.
//
// Behaviour keys ([cport N]): eeprom = addresses (default 0x50); lm75 = addresses (default
// 0x48); eeprom-fill = initial byte (default 0xff); temperature = millidegrees C (default
// 25000). `eeprom = none` / `lm75 = none` leaves that kind out.
#ifndef GBVP_VIRTUAL_MODULES_I2C_H
#define GBVP_VIRTUAL_MODULES_I2C_H

#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_I2C_EEPROM_SIZE 256u
#define VM_I2C_MAX_DEVICES 16u
/* I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL: SMBus is emulated by the Linux I2C core */
#define VM_I2C_FUNCTIONALITY 0x0eff0009u

/* Reads/writes EEPROM contents directly (no page rules); -ENODEV when addr is not an
 * EEPROM, -EINVAL when the range passes the end. */
int vm_i2c_eeprom_read(const vm_i2c *bus, uint16_t addr, unsigned offset, uint8_t *buf,
                       size_t len);
int vm_i2c_eeprom_write(vm_i2c *bus, uint16_t addr, unsigned offset, const uint8_t *buf,
                        size_t len);
/* Sets / reads an LM75's temperature in millidegrees C (stored in 0.5 degC steps, clamped
 * to -55..125 degC). -ENODEV when addr is not an LM75. */
int vm_i2c_lm75_set_temperature(vm_i2c *bus, uint16_t addr, int32_t millicelsius);
int vm_i2c_lm75_get_temperature(const vm_i2c *bus, uint16_t addr, int32_t *millicelsius);

typedef struct vm_i2c_stats {
    uint64_t transfers, ops, bytes_read, bytes_written;
    uint64_t nak;      /* transfers ended by an absent address */
    uint64_t rejected; /* malformed requests */
} vm_i2c_stats;
void vm_i2c_get_stats(const vm_i2c *bus, vm_i2c_stats *out);

#endif
