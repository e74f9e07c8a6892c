// SPDX-License-Identifier: MIT
// UART class handler (see uart.h).
#include "virtual-modules/uart.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/uart_pty.h"
#include "virtual-modules/vm_class.h"

struct vm_uart {
    vm_endpoint *ep;
    vm_uart_backend backend;
    vm_uart_pty *pty;
    vm_uart_state st;
    uint8_t *cap; /* capture ring */
    size_t cap_head, cap_len;
};

static const char *const uart_keys[] = {"backend", NULL};
static const char *const backend_names[] = {"capture", "loopback", "pty", NULL};

static void uart_reset(void *h)
{
    vm_uart *u = h;
    /* power-on line coding; the AP sets its own at probe */
    u->st.rate = 115200;
    u->st.format = 0;
    u->st.parity = 0;
    u->st.data_bits = 8;
    u->st.flow_control = 0;
    u->st.control = 0;
    u->st.break_on = false;
}

static void *uart_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    int backend;
    if (vm_bsection_enum(cfg, "backend", backend_names, VM_UART_CAPTURE, &backend, err, errlen))
        return NULL;
    vm_uart *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->ep = ep;
    u->backend = (vm_uart_backend)backend;
    if (u->backend == VM_UART_CAPTURE && !(u->cap = malloc(VM_UART_TX_CAPTURE))) {
        free(u);
        return NULL;
    }
    if (u->backend == VM_UART_PTY && !(u->pty = vm_uart_pty_open(err, errlen))) {
        free(u);
        return NULL;
    }
    uart_reset(u);
    return u;
}

static void uart_destroy(void *h)
{
    vm_uart *u = h;
    vm_uart_pty_close(u->pty);
    free(u->cap);
    free(u);
}

static void capture(vm_uart *u, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (u->cap_len == VM_UART_TX_CAPTURE) {
            u->st.tx_dropped += len - i;
            return;
        }
        u->cap[(u->cap_head + u->cap_len++) % VM_UART_TX_CAPTURE] = data[i];
    }
}

static int send_rx(vm_uart *u, const uint8_t *data, size_t len, uint8_t flags)
{
    uint8_t buf[3 + VM_UART_RX_CHUNK];
    while (len) {
        size_t n = len < VM_UART_RX_CHUNK ? len : VM_UART_RX_CHUNK;
        gb_put_le16(buf, (uint16_t)n);
        buf[2] = flags;
        memcpy(buf + 3, data, n);
        int rc = vm_endpoint_request(u->ep, GB_UART_TYPE_RECEIVE_DATA, buf, 3 + n, true);
        if (rc)
            return rc;
        u->st.rx_bytes += n;
        data += n;
        len -= n;
    }
    return 0;
}

static uint8_t send_data(vm_uart *u, vm_request *rq)
{
    if (rq->len < 2 || gb_get_le16(rq->payload) != rq->len - 2)
        return GB_OP_INVALID;
    const uint8_t *data = rq->payload + 2;
    size_t n = rq->len - 2;
    u->st.tx_bytes += n;
    switch (u->backend) {
    case VM_UART_CAPTURE:
        capture(u, data, n);
        break;
    case VM_UART_LOOPBACK:
        if (n)
            send_rx(u, data, n, 0);
        break;
    case VM_UART_PTY: {
        ssize_t w = vm_uart_pty_write(u->pty, data, n);
        if (w < 0 || (size_t)w < n)
            u->st.tx_dropped += n - (w < 0 ? 0 : (size_t)w);
        break;
    }
    }
    /* the bytes are consumed (or dropped, as a real FIFO overrun would): give the credits
     * back so the AP keeps transmitting */
    if (n) {
        uint8_t credits[2];
        gb_put_le16(credits, (uint16_t)n);
        if (vm_endpoint_request(u->ep, GB_UART_TYPE_RECEIVE_CREDITS, credits, 2, true) == 0)
            u->st.credits_returned += n;
    }
    return GB_OP_SUCCESS;
}

static uint8_t uart_request(void *h, vm_request *rq)
{
    vm_uart *u = h;
    const uint8_t *p = rq->payload;

    switch (rq->type) {
    case GB_UART_TYPE_SEND_DATA:
        return send_data(u, rq);
    case GB_UART_TYPE_SET_LINE_CODING:
        VM_REQ_EXPECT_LEN(rq, 8);
        if (p[4] > 2 || p[5] > 4 || p[6] < 5 || p[6] > 8)
            return GB_OP_INVALID;
        u->st.rate = gb_get_le32(p);
        u->st.format = p[4];
        u->st.parity = p[5];
        u->st.data_bits = p[6];
        u->st.flow_control = p[7];
        return GB_OP_SUCCESS;
    case GB_UART_TYPE_SET_CONTROL_LINE_STATE:
        VM_REQ_EXPECT_LEN(rq, 1);
        u->st.control = p[0];
        return GB_OP_SUCCESS;
    case GB_UART_TYPE_SEND_BREAK:
        VM_REQ_EXPECT_LEN(rq, 1);
        if (p[0] > 1)
            return GB_OP_INVALID;
        u->st.breaks += !u->st.break_on && p[0];
        u->st.break_on = p[0];
        return GB_OP_SUCCESS;
    case GB_UART_TYPE_FLUSH_FIFOS:
        VM_REQ_EXPECT_LEN(rq, 1);
        u->st.flushes++;
        return GB_OP_SUCCESS; /* nothing is ever held: data is consumed on arrival */
    default: /* RECEIVE_DATA, SERIAL_STATE, RECEIVE_CREDITS are module-originated */
        return GB_OP_PROTOCOL_BAD;
    }
}

vm_uart_backend vm_uart_get_backend(const vm_uart *u)
{
    return u->backend;
}

void vm_uart_get_state(const vm_uart *u, vm_uart_state *out)
{
    *out = u->st;
}

int vm_uart_inject_rx(vm_uart *u, const uint8_t *data, size_t len, uint8_t flags)
{
    if (len == 0)
        return -EINVAL;
    return send_rx(u, data, len, flags);
}

int vm_uart_set_serial_state(vm_uart *u, uint8_t state)
{
    int rc = vm_endpoint_request(u->ep, GB_UART_TYPE_SERIAL_STATE, &state, 1, true);
    if (rc == 0)
        u->st.serial_state = state;
    return rc;
}

size_t vm_uart_read_tx(vm_uart *u, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && u->cap_len) {
        buf[n++] = u->cap[u->cap_head];
        u->cap_head = (u->cap_head + 1) % VM_UART_TX_CAPTURE;
        u->cap_len--;
    }
    return n;
}

const char *vm_uart_pty_path(const vm_uart *u)
{
    return u->pty ? vm_uart_pty_path_of(u->pty) : NULL;
}

int vm_uart_fd(const vm_uart *u)
{
    return u->pty ? vm_uart_pty_fd(u->pty) : -1;
}

int vm_uart_service(vm_uart *u)
{
    if (!u->pty)
        return -EINVAL;
    uint8_t buf[VM_UART_RX_CHUNK];
    ssize_t n = vm_uart_pty_read(u->pty, buf, sizeof buf);
    if (n <= 0)
        return (int)n;
    int rc = send_rx(u, buf, (size_t)n, 0);
    return rc ? rc : (int)n;
}

static int uart_fd_op(const void *h)
{
    return vm_uart_fd(h);
}

static int uart_service_op(void *h)
{
    vm_uart *u = h;
    return u->pty ? vm_uart_service(u) : 0;
}

static void uart_describe(const void *h, char *buf, size_t len)
{
    const vm_uart *u = h;
    if (u->pty)
        snprintf(buf, len, "uart pty %s", vm_uart_pty_path_of(u->pty));
    else
        snprintf(buf, len, "uart %s", backend_names[u->backend]);
}

const vm_class_ops vm_uart_class = {
    .protocol = GB_PROTOCOL_UART,
    .name = "uart",
    .keys = uart_keys,
    .create = uart_create,
    .destroy = uart_destroy,
    .request = uart_request,
    .reset = uart_reset,
    .fd = uart_fd_op,
    .service = uart_service_op,
    .describe = uart_describe,
};
