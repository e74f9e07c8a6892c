// SPDX-License-Identifier: MIT
// SPI class handler (protocol 0x0b, drivers/staging/greybus/spi.c + spilib.c): an SPI
// master with one simulated device per chip select. The device shifts out (MISO) the bytes
// a script queued, else echoes what it receives on MOSI in the same transfer, else 0xff;
// everything received on MOSI is kept for scripts.
//
// A transfer in SPI_LOOP mode (which MASTER_CONFIG offers) gets MOSI back, as from a
// controller's internal loopback; queued bytes wait for the next normal transfer.
//
// Behaviour keys ([cport N]): chip-selects = 1..8 (default 1, or the count of `devices`);
// devices = what DEVICE_CONFIG declares on each chip select, in order, as Ara modules did:
// `spidev` (device type spidev: 6.1 creates an SPI device of modalias "spidev", which spidev
// binds through driver_override), `spi-nor` (type SPI NOR: needs the kernel's MTD) or any
// other word, announced as that modalias; modalias = one modalias for every chip select
// (default "dh2228fv", which 6.1's spidev binds, giving /dev/spidevB.C; not with `devices`);
// max-speed-hz (default 10000000).
//
// A chip select declared `spi-nor` has a flash behind it instead (spi_nor.h): flash-part =
// w25q32 (default), w25x80 or mx25l6405d; flash-file = a host file of exactly the part's
// size holding the array (relative to the behaviour file's directory; opened and locked
// when the handler is created, closed when it is destroyed), else the array is in memory,
// erased. One flash-file backs one flash. The flash sees one chip-select assertion per
// TRANSFER message; it stays selected into the next message when the message's last
// transfer has the in-progress flag (spilib continues a transfer too long for one
// operation) or cs_change (Linux: keep the device selected), and is deselected between
// transfers with cs_change. A message to another chip select, a disconnection or a module
// reboot deselects it. The flash does not use the MISO queue, and what it receives is not
// kept for vm_spi_read_mosi; in SPI_LOOP mode it still receives MOSI, but the controller
// returns MOSI. Mode bits other than SPI_LOOP are not modelled.
#ifndef GBVP_VIRTUAL_MODULES_SPI_H
#define GBVP_VIRTUAL_MODULES_SPI_H

#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_SPI_BUFFER 65536u
#define VM_SPI_MAX_CHIP_SELECTS 8u

typedef struct vm_spi vm_spi;
typedef struct vm_spi_nor vm_spi_nor;

vm_spi *vm_interface_spi(vm_interface *intf, uint16_t cport);
/* Queues bytes the device shifts out next (any chip select). 0 or -ENOSPC. */
int vm_spi_queue_miso(vm_spi *s, const uint8_t *data, size_t len);
/* Moves up to cap bytes received on MOSI into buf; returns the count. */
size_t vm_spi_read_mosi(vm_spi *s, uint8_t *buf, size_t cap);

typedef struct vm_spi_stats {
    uint64_t messages, transfers, bytes_in, bytes_out;
    uint8_t last_chip_select, last_mode;
} vm_spi_stats;
void vm_spi_get_stats(const vm_spi *s, vm_spi_stats *out);

/* The flash behind chip select cs, NULL when cs is not declared spi-nor (owned by s). */
vm_spi_nor *vm_spi_flash(vm_spi *s, unsigned cs);
/* The first chip select with a flash, or -1. */
int vm_spi_first_flash(const vm_spi *s);

#endif
