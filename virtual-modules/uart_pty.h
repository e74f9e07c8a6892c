// SPDX-License-Identifier: MIT
// A host pseudo-terminal for the UART backend: the I/O edge of the UART handler.
#ifndef GBVP_VIRTUAL_MODULES_UART_PTY_H
#define GBVP_VIRTUAL_MODULES_UART_PTY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct vm_uart_pty vm_uart_pty;

/* Opens a pty in raw mode, master non-blocking; the slave is held open by gbvp so that the
 * master never reads EIO while no user has it open. NULL with err on failure. */
vm_uart_pty *vm_uart_pty_open(char *err, size_t errlen);
void vm_uart_pty_close(vm_uart_pty *p);
const char *vm_uart_pty_path_of(const vm_uart_pty *p);
int vm_uart_pty_fd(const vm_uart_pty *p);
/* Non-blocking; bytes written (short when the pty is full), or -errno. */
ssize_t vm_uart_pty_write(vm_uart_pty *p, const uint8_t *data, size_t len);
/* Non-blocking; bytes read, 0 when nothing is pending, or -errno. */
ssize_t vm_uart_pty_read(vm_uart_pty *p, uint8_t *buf, size_t cap);

#endif
