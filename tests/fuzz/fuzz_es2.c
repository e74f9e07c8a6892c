// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: the ES2 bridge's USB-side protocol core (qemu-hw/es2_proto.h), i.e.
// everything a guest driver can send the greybus-es2 device.
//
// Byte 0 picks the entry point, byte 1 the bridge's hd CPort count (1..255):
//  0: a vendor control request (SETUP fields, then the OUT data stage; ARPC_RUN carries an
//     ARPC request). Checked: REFUSE says why; REPLY fits the reply buffer and wLength;
//     FORWARD and ARPC name a CPort below the count (or none) and give a record that
//     gbl_record_check accepts, i.e. that gbl_send will not refuse.
//  1: a bulk OUT transfer. Checked: accepted only as one whole message of 8..2048 bytes
//     whose size field is the transfer length and whose CPort is below the count, with the
//     pad bytes cleared.
//  2: a message from the simulator packed for bulk IN. Checked: accepted only when it is a
//     whole message of at most 2048 bytes for a CPort below the count; the packed copy is
//     the same bytes with the CPort id in byte 6.
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gblink/gblink.h"
#include "qemu-hw/es2_proto.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_es2: invariant broken: %s\n", what);
    abort();
}

/* The rest of the input as an exactly sized heap copy, so that ASan sees any overread. */
static uint8_t *rest(in *r, size_t len)
{
    uint8_t *p = malloc(len ? len : 1);
    if (!p)
        abort();
    for (size_t i = 0; i < len; i++)
        p[i] = u8(r);
    return p;
}

static bool why_ok(const char *why, size_t cap)
{
    return memchr(why, 0, cap) != NULL && why[0] != 0;
}

static void control(in *r, unsigned count)
{
    es2_ctrl c;
    c.request_type = u8(r);
    c.request = u8(r);
    c.value = u16(r);
    c.index = u16(r);
    c.length = u16(r);
    if (!(c.request_type & 0x80) && c.length > r->n + 64)
        c.length = (uint16_t)(r->n + 64); /* keep OUT data stages small; they are zero padded */
    uint8_t *d = rest(r, c.length);
    c.data = (c.request_type & 0x80) ? NULL : d;
    es2_action a;
    memset(&a, 0xa5, sizeof a); /* nothing may be left to chance */
    es2_decode_control(&c, count, &a);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "%s: verdict %d record %s payload %u%s%s\n", es2_request_name(c.request),
                (int)a.verdict, a.verdict >= ES2_FORWARD ? gbl_type_name(a.gbl_type) : "-",
                a.verdict >= ES2_FORWARD ? a.payload_len : 0,
                a.verdict == ES2_REFUSE ? ": " : "", a.verdict == ES2_REFUSE ? a.why : "");
    switch (a.verdict) {
    case ES2_REFUSE:
        if (!why_ok(a.why, sizeof a.why))
            fail("a refused control request gives no reason");
        break;
    case ES2_REPLY:
        if (a.reply_len > sizeof a.reply || a.reply_len > c.length)
            fail("a reply longer than its buffer or wLength");
        if (!(c.request_type & 0x80) && a.reply_len)
            fail("a reply with data to an OUT request");
        break;
    case ES2_FORWARD:
    case ES2_ARPC: {
        if (a.payload_len > sizeof a.payload)
            fail("a record payload longer than its buffer");
        if (a.cport != GBL_CPORT_NONE && a.cport >= count)
            fail("a record for a CPort the bridge does not have");
        gbl_record rec = {.type = a.gbl_type, .cport = a.cport, .id = 1,
                          .len = a.payload_len, .payload = a.payload_len ? a.payload : NULL};
        char why[200];
        if (gbl_record_check(&rec, why, sizeof why) < 0) {
            fprintf(stderr, "fuzz_es2: %s %s: %s\n", es2_request_name(c.request),
                    gbl_type_name(a.gbl_type), why);
            fail("a forwarded request makes a record gblink refuses");
        }
        if (a.verdict == ES2_FORWARD && (c.request_type & 0x80) &&
            (a.reply_max > c.length || a.reply_min > a.reply_max))
            fail("a forwarded IN request may return more than wLength");
        if (a.verdict == ES2_ARPC) {
            uint8_t resp[ES2_ARPC_RESPONSE_SIZE];
            es2_arpc_response(a.arpc_id, es2_arpc_result_from_status(u8(r)), resp);
            if ((uint16_t)(resp[0] | resp[1] << 8) != a.arpc_id)
                fail("the ARPC response does not carry the request id");
        }
        break;
    }
    default:
        fail("an unknown verdict");
    }
    free(d);
}

static void bulk_out(in *r, unsigned count)
{
    size_t len = r->n;
    uint8_t *msg = rest(r, len);
    uint8_t *orig = rest(&(in){msg, len}, len);
    uint16_t cport = 0xffff;
    char why[ES2_WHY_MAX] = "";
    int rc = es2_check_out_message(msg, len, count, &cport, why, sizeof why);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "bulk out: %d %s\n", rc, why);
    if (rc == 0) {
        if (len < 8 || len > ES2_MSG_SIZE_MAX || (size_t)(orig[0] | orig[1] << 8) != len)
            fail("a bulk OUT transfer that is not one whole message was accepted");
        if (cport >= count || cport != orig[ES2_GB_HEADER_CPORT])
            fail("a bulk OUT transfer for a CPort the bridge does not have was accepted");
        if (msg[6] || msg[7] || memcmp(msg, orig, 6) || memcmp(msg + 8, orig + 8, len - 8))
            fail("an accepted bulk OUT message was changed beyond its pad bytes");
    } else if (!why_ok(why, sizeof why)) {
        fail("a refused bulk OUT transfer gives no reason");
    }
    free(orig);
    free(msg);
}

static void pack_in(in *r, unsigned count)
{
    uint16_t cport = u16(r);
    size_t len = r->n;
    uint8_t *msg = rest(r, len);
    uint8_t *out = malloc(ES2_MSG_SIZE_MAX);
    char why[ES2_WHY_MAX] = "";
    if (!out)
        abort();
    int rc = es2_pack_in_message(cport, msg, len, count, out, why, sizeof why);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "pack in: %d %s\n", rc, why);
    if (rc == 0) {
        if (len < 8 || len > ES2_MSG_SIZE_MAX || (size_t)(msg[0] | msg[1] << 8) != len ||
            cport >= count)
            fail("a bad message from the simulator was packed");
        if (out[ES2_GB_HEADER_CPORT] != cport || memcmp(out, msg, 6) ||
            memcmp(out + 8, msg + 8, len - 8))
            fail("the packed message is not the same bytes with the CPort id");
    } else if (!why_ok(why, sizeof why)) {
        fail("a refused simulator message gives no reason");
    }
    free(out);
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in r = {data, size};
    uint8_t what = u8(&r);
    unsigned count = 1u + u8(&r) % ES2_CPORTS_MAX;
    switch (what % 3) {
    case 0:
        control(&r, count);
        break;
    case 1:
        bulk_out(&r, count);
        break;
    default:
        pack_in(&r, count);
        break;
    }
    return 0;
}
