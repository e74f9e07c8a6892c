// SPDX-License-Identifier: MIT
// Raw class handler (see raw.h).
#include "virtual-modules/raw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

struct vm_raw {
    vm_endpoint *ep;
    bool loopback;
    uint8_t *cap;
    size_t head, len;
    uint64_t received, dropped;
};

static const char *const raw_keys[] = {"backend", NULL};
static const char *const raw_backends[] = {"capture", "loopback", NULL};

static void *raw_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    int backend;
    if (vm_bsection_enum(cfg, "backend", raw_backends, 0, &backend, err, errlen))
        return NULL;
    vm_raw *r = calloc(1, sizeof *r);
    if (!r || !(r->cap = malloc(VM_RAW_CAPTURE))) {
        free(r);
        return NULL;
    }
    r->ep = ep;
    r->loopback = backend == 1;
    return r;
}

static void raw_destroy(void *h)
{
    vm_raw *r = h;
    free(r->cap);
    free(r);
}

static uint8_t raw_request(void *h, vm_request *rq)
{
    vm_raw *r = h;
    if (rq->type != GB_RAW_TYPE_SEND)
        return GB_OP_PROTOCOL_BAD;
    if (rq->len < 4 || gb_get_le32(rq->payload) != rq->len - 4 || rq->len == 4)
        return GB_OP_INVALID;
    const uint8_t *d = rq->payload + 4;
    size_t n = rq->len - 4;
    r->received += n;
    if (r->loopback) {
        vm_raw_send(r, d, n);
        return GB_OP_SUCCESS;
    }
    for (size_t i = 0; i < n; i++) {
        if (r->len == VM_RAW_CAPTURE) {
            r->dropped += n - i;
            break;
        }
        r->cap[(r->head + r->len++) % VM_RAW_CAPTURE] = d[i];
    }
    return GB_OP_SUCCESS;
}

int vm_raw_send(vm_raw *r, const uint8_t *data, size_t len)
{
    uint8_t buf[4 + VM_RAW_CHUNK];
    if (len == 0)
        return -EINVAL;
    while (len) {
        size_t n = len < VM_RAW_CHUNK ? len : VM_RAW_CHUNK;
        gb_put_le32(buf, (uint32_t)n);
        memcpy(buf + 4, data, n);
        int rc = vm_endpoint_request(r->ep, GB_RAW_TYPE_SEND, buf, 4 + n, true);
        if (rc)
            return rc;
        data += n;
        len -= n;
    }
    return 0;
}

size_t vm_raw_read(vm_raw *r, uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && r->len) {
        buf[n++] = r->cap[r->head];
        r->head = (r->head + 1) % VM_RAW_CAPTURE;
        r->len--;
    }
    return n;
}

uint64_t vm_raw_received(const vm_raw *r)
{
    return r->received;
}

vm_raw *vm_interface_raw(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_RAW);
}

const vm_class_ops vm_raw_class = {
    .protocol = GB_PROTOCOL_RAW,
    .name = "raw",
    .keys = raw_keys,
    .create = raw_create,
    .destroy = raw_destroy,
    .request = raw_request,
};
