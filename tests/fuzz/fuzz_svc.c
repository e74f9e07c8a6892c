// SPDX-License-Identifier: MIT
// libFuzzer target: the SVC (switch-model/svc.h) as the AP sees it, with catalog modules in
// its slots (sim/slots.h). The input is a sequence of steps: messages from the
// AP on the SVC connection (hd CPort 0) and on data CPorts, answers to the SVC's own
// requests, module insertions and removals, time passing, the AP going away and coming
// back, mailbox and oops events.
//
// Checked besides "no crash, no sanitizer report":
//  - every message the SVC sends the AP is a well-formed Greybus message of <= 2048 bytes;
//  - a well-formed request with an operation id from the AP on hd CPort 0 gets exactly one
//    response on hd CPort 0 with the same operation id and type | 0x80; a response or a
//    unidirectional request from the AP is never answered.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/slots.h"
#include "switch-model/svc.h"
#include "greybus/gb_message.h"
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

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_svc: invariant broken: %s\n", what);
    abort();
}

static void to_ap(void *ctx, uint16_t hd_cport, const uint8_t *msg, size_t len)
{
    ap *a = ctx;
    gb_msg_header h;
    if (len > GB_MSG_MAX_SIZE)
        fail("a message over 2048 bytes went to the AP");
    if (gb_msg_header_decode(msg, len, &h))
        fail("a malformed message went to the AP");
    if (verbose)
        fprintf(stderr, "  -> AP hd %u id %u type 0x%02x result %u, %zu bytes\n", hd_cport,
                h.operation_id, h.type, h.result, len);
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
    a->pend_body[a->npend][0] = len > 8 ? msg[8] : 0;
    a->pend_body[a->npend][1] = len > 9 ? msg[9] : 0;
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

static void from_ap_checked(gb_svc *svc, ap *a, const uint8_t *msg, size_t len, sim_time now)
{
    gb_msg_header h;
    bool wellformed = gb_msg_header_decode(msg, len, &h) == 0;
    a->n = a->responses0 = 0;
    if (verbose)
        fprintf(stderr, "<- AP hd 0, %zu bytes, type 0x%02x\n", len, len > 4 ? msg[4] : 0);
    gb_svc_from_ap(svc, 0, msg, len, now);
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

static void step(gb_svc *svc, gb_slots *slots, ap *a, in *r, sim_time *now)
{
    uint8_t op = u8(r);
    size_t n;
    *now += SIM_US(10);
    switch (op % 12) {
    case 0:
    case 1:
    case 2: { /* a request from the AP on the SVC connection */
        uint16_t id = u16(r);
        uint8_t type = u8(r);
        const uint8_t *p = bytes(r, u8(r), &n);
        size_t len = build(id, type, type & GB_TYPE_RESPONSE_FLAG ? u8(r) : 0, p, n);
        from_ap_checked(svc, a, msgbuf, len, *now);
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
        from_ap_checked(svc, a, msgbuf, len, *now);
        break;
    }
    case 5: { /* raw bytes on the SVC connection */
        const uint8_t *p = bytes(r, u16(r) % (GB_MSG_MAX_SIZE + 64), &n);
        memcpy(msgbuf, p, n);
        from_ap_checked(svc, a, msgbuf, n, *now);
        break;
    }
    case 6: { /* a message on a data hd CPort (through the data path to a module) */
        uint16_t hd = (uint16_t)(1 + u8(r) % 48);
        uint16_t id = u16(r);
        uint8_t type = u8(r);
        const uint8_t *p = bytes(r, u16(r) % (GB_MSG_MAX_PAYLOAD + 16), &n);
        size_t len = build(id, type, 0, p, n);
        if (op & 0x80 && len > 0)
            len--; /* now malformed */
        if (verbose)
            fprintf(stderr, "<- AP hd %u, %zu bytes, type 0x%02x\n", hd, len, type);
        gb_svc_from_ap(svc, hd, msgbuf, len, *now);
        break;
    }
    case 7: {
        unsigned slot = u8(r) % (SLOTS + 1);
        char err[256];
        int rc = gb_slots_insert(slots, slot, modules[u8(r) % nmodules], *now, err, sizeof err);
        if (verbose)
            fprintf(stderr, "insert slot %u: %d %s\n", slot, rc, rc ? err : "");
        break;
    }
    case 8:
        gb_slots_remove(slots, u8(r) % (SLOTS + 1), *now);
        break;
    case 9:
        *now += SIM_MS(u16(r));
        gb_svc_tick(svc, *now);
        break;
    case 10:
        if (op & 0x80) {
            gb_svc_ap_lost(svc, *now);
            a->npend = 0;
        } else {
            gb_svc_start(svc, *now);
        }
        break;
    default: {
        uint8_t intf = u8(r) % (SLOTS + 4);
        uint32_t v = u32(r);
        if (op & 0x80)
            gb_svc_intf_mailbox(svc, intf, v, *now);
        else
            gb_svc_intf_oops(svc, intf, (uint8_t)v, *now);
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in r = {data, size};
    static ap a;
    memset(&a, 0, sizeof a);
    gb_svc_config cfg = {.num_slots = SLOTS};
    gb_svc_env env = {.to_ap = to_ap, .ctx = &a};
    char err[256];
    gb_svc *svc = gb_svc_new(&cfg, &env, err, sizeof err);
    if (!svc)
        fail(err);
    gb_slots *slots = gb_slots_new(svc);
    if (!slots)
        fail("gb_slots_new");
    sim_time now = SIM_MS(1);
    gb_svc_start(svc, now);
    while (r.n)
        step(svc, slots, &a, &r, &now);
    gb_slots_free(slots, now);
    gb_svc_free(svc);
    return 0;
}
