// SPDX-License-Identifier: MIT
// UART class handler (protocol 0x04, drivers/staging/greybus/uart.c): line coding, control
// lines, break, data both ways with the transmit-credit scheme 6.1 requires (every byte the
// AP sends is given back with RECEIVE_CREDITS once consumed).
//
// Backends (behaviour key `backend`):
//   capture  - bytes from the AP are kept for scripts (vm_uart_read_tx); bytes to the AP
//              come from vm_uart_inject_rx. The default.
//   loopback - bytes from the AP are sent straight back as RECEIVE_DATA.
//   pty      - a host pseudo-terminal: bytes from the AP are written to it, bytes typed
//              into it reach the AP when the program calls vm_uart_service() after
//              vm_uart_fd() became readable. Its path is vm_uart_pty_path().
#ifndef GBVP_VIRTUAL_MODULES_UART_H
#define GBVP_VIRTUAL_MODULES_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtual-modules/vm_interface.h"

#define VM_UART_RX_CHUNK 2037u   /* RECEIVE_DATA data bytes per request (2040 - 3) */
#define VM_UART_TX_CAPTURE 65536u /* bytes kept by the capture backend */

typedef enum vm_uart_backend {
    VM_UART_CAPTURE,
    VM_UART_LOOPBACK,
    VM_UART_PTY,
} vm_uart_backend;

typedef struct vm_uart_state {
    uint32_t rate;
    uint8_t format, parity, data_bits, flow_control;
    uint8_t control;       /* GB_UART_CTRL_DTR | GB_UART_CTRL_RTS as set by the AP */
    bool break_on;
    uint8_t serial_state;  /* DCD/DSR/RI last reported to the AP */
    uint64_t tx_bytes;     /* received from the AP (SEND_DATA) */
    uint64_t rx_bytes;     /* sent to the AP (RECEIVE_DATA) */
    uint64_t credits_returned;
    uint64_t tx_dropped;   /* capture buffer full / pty not writable */
    uint64_t breaks, flushes;
} vm_uart_state;

vm_uart_backend vm_uart_get_backend(const vm_uart *u);
void vm_uart_get_state(const vm_uart *u, vm_uart_state *out);

/* Sends data to the AP as RECEIVE_DATA requests (split into VM_UART_RX_CHUNK pieces) with
 * the given GB_UART_RECV_FLAG_* flags. 0; -ENOTCONN when the CPort is down (data lost);
 * -EINVAL for len 0. */
int vm_uart_inject_rx(vm_uart *u, const uint8_t *data, size_t len, uint8_t flags);
/* Reports modem status lines (GB_UART_CTRL_DCD/DSR/RI) with SERIAL_STATE. */
int vm_uart_set_serial_state(vm_uart *u, uint8_t state);
/* Capture backend: moves up to cap captured bytes into buf; returns the count. */
size_t vm_uart_read_tx(vm_uart *u, uint8_t *buf, size_t cap);

/* pty backend: the slave's path ("/dev/pts/N"), its master fd for poll(); NULL / -1 for
 * other backends. */
const char *vm_uart_pty_path(const vm_uart *u);
int vm_uart_fd(const vm_uart *u);
/* pty backend: reads what is pending on the pty (non-blocking) and sends it to the AP.
 * Returns the number of bytes forwarded, 0 when nothing was pending, -errno on error. */
int vm_uart_service(vm_uart *u);

#endif
