// SPDX-License-Identifier: MIT
// libFuzzer target: the SVC (switch-model/svc.h) as the AP sees it, on a direct switch
// fabric (switch-model/fabric.h) with catalog modules in its slots (sim/slots.h). The AP is
// a recording endpoint on the fabric's AP port; its messages are parsed and sent into the
// fabric from that port, as the AP bridge (sim/bridge.c) does. The input is a sequence of
// steps: messages from the AP on the SVC connection (hd CPort 0) and on data CPorts,
// answers to the SVC's own requests, module insertions and removals, time passing, the AP
// going away and coming back, mailbox and oops events.
//
// Checked besides "no crash, no sanitizer report":
//  - every message that reaches the AP is a well-formed Greybus message of <= 2048 bytes,
//    whose bytes agree with the header the fabric hands over with them;
//  - a well-formed request with an operation id from the AP on hd CPort 0 gets exactly one
//    response on hd CPort 0 with the same operation id and type | 0x80; a response or a
//    unidirectional request from the AP is never answered. Malformed bytes never become a
//    message (gb_msg_parse refuses them before anything is sent), so they get no answer
//    either.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "greybus/gb_message.h"
#include "sim/slots.h"
#include "switch-model/fabric.h"
#include "switch-model/svc.h"
#include "virtual-modules/vm_module.h"
#include "tests/fuzz/fuzz_catalog.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_VERBOSE=1 prints every message to and from the AP. */
static bool verbose;

/* ---- the catalog, loaded once ---- */

#define MAX_MODULES 32

static vm_module *modules[MAX_MODULES];
static size_t nmodules;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    verbose = getenv("FUZZ_VERBOSE") != NULL;
    nmodules = fuzz_load_catalog("fuzz_svc", modules, MAX_MODULES);
    return 0;
}

/* ---- the AP side ---- */

#define PENDING_MAX 8
#define SLOTS 4
#define AP_PORT 1u /* ports: 0, the AP bridge on 1, slots on 2..5, the SVC on 6 */

typedef struct ap {
    size_t n;           /* messages in this step */
    size_t responses0;  /* responses on hd CPort 0 in this step */
    uint16_t resp_id;   /* the last of them */
    uint8_t resp_type;
    /* the SVC's latest requests on hd CPort 0, to answer */
    uint16_t pend_id[PENDING_MAX];
    uint8_t pend_type[PENDING_MAX];
    uint8_t pend_body[PENDING_MAX][2];
    size_t npend;
} ap;

/* What one input drives. */
typedef struct rig {
    sim_event_kernel *k; /* the fabric's clock; a direct fabric schedules nothing */
    sw_fabric *fabric;
    gb_svc *svc;
    sim_slots *slots;
    ap a;
} rig;

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_svc: invariant broken: %s\n", what);
    abort();
}

/* The AP bridge's endpoint: a message for one of its hd CPorts. */
static void ap_receive(void *ctx, uint16_t hd_cport, const gb_msg *m, sim_time now)
{
    (void)now;
    ap *a = ctx;
    gb_msg_header h;
    if (m->h.size > GB_MSG_MAX_SIZE)
        fail("a message over 2048 bytes went to the AP");
    if (gb_msg_header_decode(m->bytes, m->h.size, &h))
        fail("a malformed message went to the AP");
    if (h.size != m->h.size || h.operation_id != m->h.operation_id || h.type != m->h.type ||
        h.result != m->h.result)
        fail("the header handed to the AP disagrees with the message's bytes");
    if (verbose)
        fprintf(stderr, "  -> AP hd %u id %u type 0x%02x result %u, %u bytes\n", hd_cport,
                h.operation_id, h.type, h.result, h.size);
    a->n++;
    if (hd_cport != 0)
        return;
    if (gb_msg_is_response(h.type)) {
        a->responses0++;
        a->resp_id = h.operation_id;
        a->resp_type = h.type;
        return;
    }
    if (a->npend == PENDING_MAX) {
        memmove(&a->pend_id[0], &a->pend_id[1], (PENDING_MAX - 1) * sizeof a->pend_id[0]);
        memmove(&a->pend_type[0], &a->pend_type[1], PENDING_MAX - 1);
        memmove(&a->pend_body[0], &a->pend_body[1], (PENDING_MAX - 1) * 2);
        a->npend--;
    }
    a->pend_id[a->npend] = h.operation_id;
    a->pend_type[a->npend] = h.type;
    a->pend_body[a->npend][0] = h.size > 8 ? m->bytes[8] : 0;
    a->pend_body[a->npend][1] = h.size > 9 ? m->bytes[9] : 0;
    a->npend++;
}

static uint8_t msgbuf[GB_MSG_MAX_SIZE + 256];

static size_t build(uint16_t id, uint8_t type, uint8_t result, const uint8_t *p, size_t n)
{
    gb_put_le16(msgbuf, (uint16_t)(GB_MSG_HEADER_SIZE + n));
    gb_put_le16(msgbuf + 2, id);
    msgbuf[4] = type;
    msgbuf[5] = result;
    msgbuf[6] = msgbuf[7] = 0;
    memcpy(msgbuf + GB_MSG_HEADER_SIZE, p, n);
    return GB_MSG_HEADER_SIZE + n;
}

/* The AP sends msg[0..len) on hd CPort `hd` the way its bridge does: bytes that do not
 * parse are refused there; the header's pad bytes (the hd CPort on the ES2 link) are
 * cleared before the fabric carries it. Returns whether it was sent. */
static bool ap_send(rig *g, uint16_t hd, const uint8_t *msg, size_t len)
{
    gb_msg m;
    if (gb_msg_parse(msg, len, &m))
        return false;
    m.h.pad[0] = m.h.pad[1] = 0;
    sw_fabric_send(g->fabric, AP_PORT, hd, &m);
    return true;
}

static void from_ap_checked(rig *g, const uint8_t *msg, size_t len)
{
    ap *a = &g->a;
    gb_msg_header h;
    bool wellformed = gb_msg_header_decode(msg, len, &h) == 0;
    a->n = a->responses0 = 0;
    if (verbose)
        fprintf(stderr, "<- AP hd 0, %zu bytes, type 0x%02x\n", len, len > 4 ? msg[4] : 0);
    if (ap_send(g, 0, msg, len) != wellformed)
        fail("gb_msg_parse and gb_msg_header_decode disagree");
    /* direct delivery: whatever the SVC answers has reached the AP by now */
    if (!wellformed || gb_msg_is_response(h.type) || h.operation_id == 0) {
        if (a->responses0)
            fail("a malformed message, a response or a unidirectional request was answered");
        return;
    }
    if (a->responses0 != 1)
        fail("an AP request did not get exactly one response");
    if (a->resp_id != h.operation_id)
        fail("the response has another operation id");
    if (a->resp_type != (h.type | GB_TYPE_RESPONSE_FLAG))
        fail("the response has another type");
}

/* Moves the fabric's clock (which stamps deliveries) and the owner's together. */
static sim_time advance(rig *g, sim_time *now, sim_time by)
{
    *now += by;
    if (sim_event_kernel_run_until(g->k, *now))
        fail("the event kernel refused to advance");
    return *now;
}

static void step(rig *g, in *r, sim_time *now)
{
    ap *a = &g->a;
    uint8_t op = u8(r);
    size_t n;
    advance(g, now, SIM_US(10));
    switch (op % 12) {
    case 0:
    case 1:
    case 2: { /* a request from the AP on the SVC connection */
        uint16_t id = u16(r);
        uint8_t type = u8(r);
        const uint8_t *p = bytes(r, u8(r), &n);
        size_t len = build(id, type, type & GB_TYPE_RESPONSE_FLAG ? u8(r) : 0, p, n);
        from_ap_checked(g, msgbuf, len);
        break;
    }
    case 3:
    case 4: { /* the AP answers one of the SVC's requests */
        if (!a->npend)
            break;
        size_t k = a->npend - 1 - u8(r) % a->npend;
        uint8_t result = u8(r);
        result = result & 1 ? result : 0;
        uint8_t body[256];
        size_t want = u8(r);
        if (a->pend_type[k] == 0x01 && want == 0) { /* PROTOCOL_VERSION: echo it */
            memcpy(body, a->pend_body[k], 2);
            n = 2;
        } else {
            const uint8_t *p = bytes(r, want, &n);
            memcpy(body, p, n);
        }
        size_t len = build(a->pend_id[k], (uint8_t)(a->pend_type[k] | GB_TYPE_RESPONSE_FLAG),
                           result, body, n);
        from_ap_checked(g, msgbuf, len);
        break;
    }
    case 5: { /* raw bytes on the SVC connection */
        const uint8_t *p = bytes(r, u16(r) % (GB_MSG_MAX_SIZE + 64), &n);
        memcpy(msgbuf, p, n);
        from_ap_checked(g, msgbuf, n);
        break;
    }
    case 6: { /* a message on a data hd CPort (through the fabric to a module) */
        uint16_t hd = (uint16_t)(1 + u8(r) % 48);
        uint16_t id = u16(r);
        uint8_t type = u8(r);
        const uint8_t *p = bytes(r, u16(r) % (GB_MSG_MAX_PAYLOAD + 16), &n);
        size_t len = build(id, type, 0, p, n);
        if (op & 0x80 && len > 0)
            len--; /* now malformed */
        if (verbose)
            fprintf(stderr, "<- AP hd %u, %zu bytes, type 0x%02x\n", hd, len, type);
        a->n = 0;
        ap_send(g, hd, msgbuf, len);
        break;
    }
    case 7: {
        unsigned slot = u8(r) % (SLOTS + 1);
        char err[256];
        int rc = sim_slots_insert(g->slots, slot, modules[u8(r) % nmodules], *now, err,
                                  sizeof err);
        if (verbose)
            fprintf(stderr, "insert slot %u: %d %s\n", slot, rc, rc ? err : "");
        break;
    }
    case 8:
        sim_slots_remove(g->slots, u8(r) % (SLOTS + 1), *now);
        break;
    case 9:
        gb_svc_tick(g->svc, advance(g, now, SIM_MS(u16(r))));
        break;
    case 10: /* as the bridge ends or starts an AP session on hd CPort 0 */
        sw_fabric_reset(g->fabric, AP_PORT);
        if (op & 0x80) {
            gb_svc_ap_lost(g->svc, *now);
            a->npend = 0;
        } else {
            gb_svc_start(g->svc, *now);
        }
        break;
    default: {
        uint8_t intf = u8(r) % (SLOTS + 4);
        uint32_t v = u32(r);
        if (op & 0x80)
            gb_svc_intf_mailbox(g->svc, intf, v, *now);
        else
            gb_svc_intf_oops(g->svc, intf, (uint8_t)v, *now);
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in r = {data, size};
    static rig g;
    memset(&g, 0, sizeof g);
    char err[256];
    g.k = sim_event_kernel_new(0);
    if (!g.k)
        fail("sim_event_kernel_new");
    sw_fabric_cfg fc = {.ports = SLOTS + 3u, .ap_port = AP_PORT, .timing = SW_TIMING_DIRECT};
    g.fabric = sw_fabric_new(sim_event_kernel_scheduler(g.k), &fc, err, sizeof err);
    if (!g.fabric)
        fail(err);
    sw_endpoint ep = {.receive = ap_receive, .ctx = &g.a};
    if (sw_fabric_attach(g.fabric, AP_PORT, &ep))
        fail("sw_fabric_attach");
    gb_svc_config cfg = {.num_slots = SLOTS};
    gb_svc_env env = {0};
    g.svc = gb_svc_new(&cfg, &env, g.fabric, err, sizeof err);
    if (!g.svc)
        fail(err);
    g.slots = sim_slots_new(g.svc, g.fabric);
    if (!g.slots)
        fail("sim_slots_new");
    sim_time now = 0;
    gb_svc_start(g.svc, advance(&g, &now, SIM_MS(1)));
    while (r.n)
        step(&g, &r, &now);
    sim_slots_free(g.slots, now);
    gb_svc_free(g.svc);
    sw_fabric_free(g.fabric); /* before the kernel it schedules on */
    sim_event_kernel_free(g.k);
    return 0;
}
