// SPDX-License-Identifier: MIT
// libFuzzer target: a live vm_interface of a catalog module (virtual-modules/catalog) fed
// arbitrary Greybus messages on any CPort, interleaved with power events, connects and
// disconnects, DME accesses, backend events (calls and text commands) and answers to the
// module's own requests.
//
// Input: byte 0 picks the module interface; then steps, each an opcode byte and its fields
// (see step()). Checked besides "no crash, no sanitizer report":
//  - a malformed header is refused by gb_msg_parse, where gbvp takes a message in, and
//    never reaches the interface; a message on a CPort that is not connected (or an
//    inactive interface) is dropped with -ENOTCONN and nothing is sent;
//  - a well-formed request with an operation id gets exactly one response, sent first, on
//    the same CPort, with the same operation id and type | 0x80; a unidirectional request
//    or a response gets none;
//  - everything the interface sends is a well-formed Greybus message of at most 2048
//    bytes whose parsed header is the one its bytes carry, and a failed response carries
//    no payload.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/hid.h"
#include "virtual-modules/loopback.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/uart.h"
#include "virtual-modules/vm_interface.h"
#include "virtual-modules/vm_module.h"
#include "virtual-modules/vm_reply.h"
#include "tests/fuzz/fuzz_catalog.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_VERBOSE=1 prints every message sent (to see what a seed or crash input does). */
static bool verbose;

/* ---- the catalog, loaded once ---- */

#define MAX_MODULES 32
#define MAX_TARGETS 64

static vm_module *modules[MAX_MODULES];
static size_t nmodules;
static struct target {
    const vm_module *m;
    size_t index;
} targets[MAX_TARGETS];
static size_t ntargets;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    verbose = getenv("FUZZ_VERBOSE") != NULL;
    nmodules = fuzz_load_catalog("fuzz_vm_interface", modules, MAX_MODULES);
    for (size_t i = 0; i < nmodules; i++)
        for (size_t k = 0; k < vm_module_interface_count(modules[i]) && ntargets < MAX_TARGETS;
             k++)
            targets[ntargets++] = (struct target){modules[i], k};
    return 0;
}

/* ---- what the interface sends ---- */

#define SINK_MAX 256

typedef struct sink {
    size_t n, total;
    uint16_t cport[SINK_MAX];
    size_t len[SINK_MAX];
    uint8_t msg[SINK_MAX][16]; /* header and a little payload */
    /* the module's latest own request, for the "answer it" step */
    bool have_req;
    uint16_t req_cport, req_id;
    uint8_t req_type;
} sink;

static void fail(const char *what, const sink *s)
{
    fprintf(stderr, "fuzz_vm_interface: invariant broken: %s (%zu messages sent)\n", what,
            s ? s->n : 0);
    abort();
}

static void sink_send(void *ctx, uint16_t cport, const gb_msg *m)
{
    sink *s = ctx;
    const uint8_t *msg = m->bytes;
    size_t len = m->h.size;
    gb_msg_header h;
    if (len > GB_MSG_MAX_SIZE)
        fail("a message over 2048 bytes was sent", s);
    if (gb_msg_header_decode(msg, len, &h))
        fail("a malformed message was sent", s);
    /* the receiver trusts m->h and never decodes the bytes again */
    if (h.operation_id != m->h.operation_id || h.type != m->h.type || h.result != m->h.result)
        fail("a message was sent with a header its bytes do not carry", s);
    if (gb_msg_is_response(h.type) && h.result != GB_OP_SUCCESS && len != GB_MSG_HEADER_SIZE)
        fail("a failed response carries a payload", s);
    if (!gb_msg_is_response(h.type) && h.operation_id) {
        s->have_req = true;
        s->req_cport = cport;
        s->req_id = h.operation_id;
        s->req_type = h.type;
    }
    if (verbose)
        fprintf(stderr, "  -> cport %u id %u type 0x%02x result %u, %zu bytes\n", cport,
                h.operation_id, h.type, h.result, len);
    s->total++;
    if (s->n == SINK_MAX)
        return;
    s->cport[s->n] = cport;
    s->len[s->n] = len;
    memcpy(s->msg[s->n], msg, len < 16 ? len : 16);
    s->n++;
}

static size_t responses_sent(const sink *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        k += gb_msg_is_response(s->msg[i][4]);
    return k;
}

/* ---- steps ---- */

static uint8_t msgbuf[GB_MSG_MAX_SIZE + 256];

static void deliver(vm_interface *intf, sink *s, uint16_t cport, const uint8_t *msg,
                    size_t len, sim_time now)
{
    bool live = vm_interface_cport_connected(intf, cport) && vm_interface_is_active(intf);
    gb_msg m;
    bool wellformed = gb_msg_parse(msg, len, &m) == 0;
    s->n = 0;
    s->total = 0;
    if (verbose)
        fprintf(stderr, "<- cport %u%s%s, %zu bytes, type 0x%02x\n", cport,
                live ? "" : " (not connected)", wellformed ? "" : " (malformed: refused)", len,
                len > 4 ? msg[4] : 0);
    /* gbvp refuses a malformed header where the message enters: no interface sees it */
    if (!wellformed)
        return;
    const gb_msg_header h = m.h;
    int rc = vm_interface_receive(intf, cport, &m, now);
    if (!live) {
        if (rc != -ENOTCONN || s->total)
            fail("a message on an unconnected CPort was not dropped silently", s);
        return;
    }
    if (rc != 0)
        fail("a well-formed message on a connected CPort was refused", s);
    if (s->total > SINK_MAX)
        fail("one message provoked more than 256 messages", s);
    if (gb_msg_is_response(h.type) || h.operation_id == 0) {
        if (responses_sent(s))
            fail("a response or unidirectional request was answered", s);
        return;
    }
    if (responses_sent(s) != 1)
        fail("a request did not get exactly one response", s);
    if (!gb_msg_is_response(s->msg[0][4]))
        fail("the response is not the first message sent", s);
    if (s->cport[0] != cport)
        fail("the response left on another CPort", s);
    if (gb_get_le16(s->msg[0] + 2) != h.operation_id)
        fail("the response has another operation id", s);
    if (s->msg[0][4] != (h.type | GB_TYPE_RESPONSE_FLAG))
        fail("the response has another type", s);
}

/* Module-originated traffic of the other classes, through the backend commands scripts
 * use (each is refused harmlessly by an interface without that class). */
static const char *const commands[] = {
    "sdio remove",       "sdio insert",         "sdio wp on",         "sdio wp off",
    "audio jack insert", "audio jack remove",   "audio button press", "audio button release 2",
    "camera frame",      "raw send 0102",       "log send fuzz",      "spi queue a5a5",
    "usb connect 1 low", "usb disconnect 1",    "battery notify",     "uart send hi",
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void backend_event(vm_interface *intf, in *r)
{
    uint8_t which = u8(r);
    uint8_t a = u8(r), b = u8(r);
    size_t n;
    const uint8_t *p;
    /* backend calls take the handler the interface has (never NULL) */
    vm_gpio *gpio = vm_interface_gpio(intf, VM_ANY_CPORT);
    vm_power_supply *ps = vm_interface_power_supply(intf, VM_ANY_CPORT);
    vm_hid *hid = vm_interface_hid(intf, VM_ANY_CPORT);
    vm_uart *uart = vm_interface_uart(intf, VM_ANY_CPORT);
    vm_loopback *lb = vm_interface_loopback(intf, VM_ANY_CPORT);
    static vm_reply reply;
    switch (which % 8) {
    case 0:
        if (gpio)
            vm_gpio_set_input(gpio, a, b & 1);
        break;
    case 1: {
        int32_t v = (int32_t)u32(r);
        bool notify = u8(r) & 1;
        if (ps)
            vm_power_supply_set(ps, a % 4, b, v, notify);
        break;
    }
    case 2:
        p = bytes(r, a, &n);
        if (hid)
            vm_hid_input_report(hid, p, n);
        break;
    case 3:
        p = bytes(r, (size_t)a * 8, &n);
        if (uart)
            vm_uart_inject_rx(uart, p, n, b);
        break;
    case 4:
        if (uart)
            vm_uart_set_serial_state(uart, a);
        break;
    case 5:
        if (lb)
            vm_loopback_send_ping(lb);
        break;
    case 6:
        if (lb)
            vm_loopback_send_transfer(lb, (uint32_t)a * 8 + b);
        break;
    default:
        vm_backend_command(intf, commands[a % NCOMMANDS], SIM_MS(1), &reply);
        break;
    }
}

static void step(vm_interface *intf, sink *s, in *r, sim_time *now)
{
    uint8_t op = u8(r);
    *now += SIM_US(1 + (op >> 4));
    switch (op % 10) {
    case 0:
    case 1:
    case 2: { /* a request or response built the way the kernel builds them */
        uint16_t cport = u8(r);
        uint16_t id = u16(r);
        uint8_t type = u8(r);
        uint8_t result = (type & GB_TYPE_RESPONSE_FLAG) ? u8(r) : 0;
        size_t want = u16(r) % (GB_MSG_MAX_PAYLOAD + 64), n;
        const uint8_t *p = bytes(r, want, &n);
        gb_put_le16(msgbuf, (uint16_t)(GB_MSG_HEADER_SIZE + n));
        gb_put_le16(msgbuf + 2, id);
        msgbuf[4] = type;
        msgbuf[5] = result;
        msgbuf[6] = msgbuf[7] = 0;
        memcpy(msgbuf + GB_MSG_HEADER_SIZE, p, n);
        deliver(intf, s, cport, msgbuf, GB_MSG_HEADER_SIZE + n, *now);
        break;
    }
    case 3: { /* raw bytes */
        uint16_t cport = u8(r);
        size_t n;
        const uint8_t *p = bytes(r, u16(r) % sizeof msgbuf, &n);
        memcpy(msgbuf, p, n);
        deliver(intf, s, cport, msgbuf, n, *now);
        break;
    }
    case 4: /* power: VM_POWER_* and one value past the last */
        s->n = 0;
        vm_interface_power(intf, (vm_power_event)(u8(r) % 10));
        break;
    case 5:
        s->n = 0;
        vm_interface_cport_connect(intf, u8(r));
        break;
    case 6:
        s->n = 0;
        vm_interface_cport_disconnect(intf, u8(r));
        break;
    case 7: {
        uint16_t attr = u16(r), sel = u16(r);
        uint32_t v = u32(r);
        s->n = 0;
        if (attr & 1)
            vm_interface_dme_set(intf, attr, sel, v);
        else
            vm_interface_dme_get(intf, attr, sel, &v);
        break;
    }
    case 8:
        s->n = 0;
        backend_event(intf, r);
        if (responses_sent(s))
            fail("a backend event sent a response", s);
        break;
    default: { /* answer the module's latest own request */
        if (!s->have_req)
            break;
        uint8_t result = u8(r);
        size_t n;
        const uint8_t *p = bytes(r, u8(r), &n);
        gb_put_le16(msgbuf, (uint16_t)(GB_MSG_HEADER_SIZE + n));
        gb_put_le16(msgbuf + 2, s->req_id);
        msgbuf[4] = (uint8_t)(s->req_type | GB_TYPE_RESPONSE_FLAG);
        msgbuf[5] = result & 1 ? result : 0;
        msgbuf[6] = msgbuf[7] = 0;
        memcpy(msgbuf + GB_MSG_HEADER_SIZE, p, n);
        deliver(intf, s, s->req_cport, msgbuf, GB_MSG_HEADER_SIZE + n, *now);
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    in r = {data, size};
    const struct target *t = &targets[u8(&r) % ntargets];
    static sink s;
    memset(&s, 0, sizeof s);
    char err[512];
    vm_interface *intf = vm_module_create_interface(t->m, t->index,
                                                    (vm_output){sink_send, &s}, 42, err,
                                                    sizeof err);
    if (!intf) {
        fprintf(stderr, "fuzz_vm_interface: %s interface %zu: %s\n", vm_module_name(t->m),
                t->index, err);
        abort();
    }
    /* brought up as the 6.1 AP does it: power, activate, control connection */
    if (vm_interface_power(intf, VM_POWER_VSYS_ENABLE) ||
        vm_interface_power(intf, VM_POWER_REFCLK_ENABLE) ||
        vm_interface_power(intf, VM_POWER_UNIPRO_ENABLE) ||
        vm_interface_power(intf, VM_POWER_ACTIVATE) || vm_interface_cport_connect(intf, 0))
        fail("the interface does not come up", NULL);
    /* connect every CPort 1..15 the manifest has, so requests reach the handlers */
    for (uint16_t c = 1; c < 16; c++)
        vm_interface_cport_connect(intf, c);
    sim_time now = SIM_MS(1);
    while (r.n)
        step(intf, &s, &r, &now);
    vm_interface_free(intf);
    return 0;
}
