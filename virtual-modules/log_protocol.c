// SPDX-License-Identifier: MIT
// Log class handler (see log.h).
#include "virtual-modules/log_protocol.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

struct vm_log {
    vm_endpoint *ep;
    uint64_t sent;
};

static const char *const log_keys[] = {NULL};

static void *log_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    (void)cfg, (void)err, (void)errlen;
    vm_log *l = calloc(1, sizeof *l);
    if (l)
        l->ep = ep;
    return l;
}

static void log_destroy(void *h)
{
    free(h);
}

static uint8_t log_request(void *h, vm_request *rq)
{
    (void)h, (void)rq;
    return GB_OP_PROTOCOL_BAD; /* SEND_LOG is module-originated; the AP sends nothing else */
}

int vm_log_send(vm_log *l, const char *text)
{
    size_t n = strlen(text);
    if (n == 0)
        return -EINVAL;
    uint8_t buf[2 + GB_LOG_MAX_LEN];
    while (n) {
        size_t piece = n < GB_LOG_MAX_LEN - 1 ? n : GB_LOG_MAX_LEN - 1;
        gb_put_le16(buf, (uint16_t)(piece + 1));
        memcpy(buf + 2, text, piece);
        buf[2 + piece] = '\0';
        int rc = vm_endpoint_request(l->ep, GB_LOG_TYPE_SEND_LOG, buf, 3 + piece, true);
        if (rc)
            return rc;
        l->sent++;
        text += piece;
        n -= piece;
    }
    return 0;
}

uint64_t vm_log_sent(const vm_log *l)
{
    return l->sent;
}

vm_log *vm_interface_log(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_LOG);
}

const vm_class_ops vm_log_class = {
    .protocol = GB_PROTOCOL_LOG,
    .name = "log",
    .keys = log_keys,
    .create = log_create,
    .destroy = log_destroy,
    .request = log_request,
};
