// SPDX-License-Identifier: MIT
// Loopback class handler (see loopback.h).
#include "virtual-modules/loopback.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define LB_HDR 12u /* len le32, reserved0 le32, reserved1 le32 */
#define LB_FILL 0xa5

struct vm_loopback {
    vm_endpoint *ep;
    vm_loopback_stats st;
    uint32_t last_sent_len;
};

static const char *const loopback_keys[] = {NULL};

static void *lb_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    (void)cfg;
    vm_loopback *lb = calloc(1, sizeof *lb);
    if (!lb && err && errlen)
        strncpy(err, "out of memory", errlen - 1);
    if (lb)
        lb->ep = ep;
    return lb;
}

static void lb_destroy(void *h)
{
    free(h);
}

/* TRANSFER / SINK payload: the 12-byte header and exactly len data bytes. */
static bool lb_valid(const vm_request *rq, uint32_t *len)
{
    if (rq->len < LB_HDR)
        return false;
    *len = gb_get_le32(rq->payload);
    return *len == rq->len - LB_HDR && *len <= VM_LOOPBACK_MAX_LEN;
}

static uint8_t lb_request(void *h, vm_request *rq)
{
    vm_loopback *lb = h;
    uint32_t len;

    switch (rq->type) {
    case GB_LOOPBACK_TYPE_PING:
        if (rq->len != 0)
            break;
        lb->st.pings++;
        return GB_OP_SUCCESS;
    case GB_LOOPBACK_TYPE_TRANSFER:
        if (!lb_valid(rq, &len))
            break;
        lb->st.transfers++;
        lb->st.bytes += len;
        /* echo: len, reserved0 = reserved1 = 0 (no latency figures emulated), data */
        gb_put_le32(rq->resp, len);
        memset(rq->resp + 4, 0, 8);
        memcpy(rq->resp + LB_HDR, rq->payload + LB_HDR, len);
        rq->resp_len = LB_HDR + len;
        return GB_OP_SUCCESS;
    case GB_LOOPBACK_TYPE_SINK:
        if (!lb_valid(rq, &len))
            break;
        lb->st.sinks++;
        lb->st.bytes += len;
        return GB_OP_SUCCESS;
    default:
        return GB_OP_PROTOCOL_BAD;
    }
    lb->st.rejected++;
    return GB_OP_INVALID;
}

static void lb_response(void *h, uint8_t type, uint8_t result, const uint8_t *payload,
                        size_t len)
{
    vm_loopback *lb = h;
    lb->st.answered++;
    if (result != GB_OP_SUCCESS) {
        lb->st.mismatches++;
        return;
    }
    if (type == GB_LOOPBACK_TYPE_TRANSFER) {
        bool ok = len == LB_HDR + lb->last_sent_len && gb_get_le32(payload) == lb->last_sent_len;
        for (size_t i = LB_HDR; ok && i < len; i++)
            ok = payload[i] == LB_FILL;
        if (!ok)
            lb->st.mismatches++;
    } else if (len != 0) {
        lb->st.mismatches++;
    }
}

static int lb_send(vm_loopback *lb, uint8_t type, uint32_t len)
{
    uint8_t buf[LB_HDR + VM_LOOPBACK_MAX_LEN];
    if (len > VM_LOOPBACK_MAX_LEN)
        return -EINVAL;
    gb_put_le32(buf, len);
    memset(buf + 4, 0, 8);
    memset(buf + LB_HDR, LB_FILL, len);
    size_t n = type == GB_LOOPBACK_TYPE_PING ? 0 : LB_HDR + len;
    int rc = vm_endpoint_request(lb->ep, type, buf, n, true);
    if (rc == 0) {
        lb->st.sent++;
        if (type == GB_LOOPBACK_TYPE_TRANSFER)
            lb->last_sent_len = len;
    }
    return rc;
}

int vm_loopback_send_ping(vm_loopback *lb)
{
    return lb_send(lb, GB_LOOPBACK_TYPE_PING, 0);
}

int vm_loopback_send_transfer(vm_loopback *lb, uint32_t len)
{
    return lb_send(lb, GB_LOOPBACK_TYPE_TRANSFER, len);
}

int vm_loopback_send_sink(vm_loopback *lb, uint32_t len)
{
    return lb_send(lb, GB_LOOPBACK_TYPE_SINK, len);
}

void vm_loopback_get_stats(const vm_loopback *lb, vm_loopback_stats *out)
{
    *out = lb->st;
}

const vm_class_ops vm_loopback_class = {
    .protocol = GB_PROTOCOL_LOOPBACK,
    .name = "loopback",
    .keys = loopback_keys,
    .create = lb_create,
    .destroy = lb_destroy,
    .request = lb_request,
    .response = lb_response,
};
