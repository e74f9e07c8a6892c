// SPDX-License-Identifier: MIT
// Audio data handler (see audio_data.h).
#include "virtual-modules/audio_data.h"

#include <stdlib.h>

#include "virtual-modules/audio.h"
#include "virtual-modules/vm_class.h"

struct vm_audio_data {
    vm_endpoint *ep;
    uint64_t orphaned;
};

static const char *const data_keys[] = {NULL};

static void *data_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    (void)cfg, (void)err, (void)errlen;
    vm_audio_data *d = calloc(1, sizeof *d);
    if (d)
        d->ep = ep;
    return d;
}

static void data_destroy(void *h)
{
    free(h);
}

/* Looked up at each use: the management handler may be created after this one. */
vm_audio *vm_audio_data_module(const vm_audio_data *d)
{
    uint16_t mgmt;
    if (vm_endpoint_bundle_cports(d->ep, GB_PROTOCOL_AUDIO_MGMT, &mgmt, 1) < 1)
        return NULL;
    return vm_interface_handler(vm_endpoint_interface(d->ep), mgmt, GB_PROTOCOL_AUDIO_MGMT);
}

uint64_t vm_audio_data_orphaned(const vm_audio_data *d)
{
    return d->orphaned;
}

static uint8_t data_request(void *h, vm_request *rq)
{
    vm_audio_data *d = h;
    if (rq->type != GB_AUDIO_TYPE_SEND_DATA)
        return GB_OP_PROTOCOL_BAD;
    vm_audio *a = vm_audio_data_module(d);
    vm_audio_stream *s = a ? vm_audio_find_stream(a, vm_endpoint_cport(d->ep)) : NULL;
    if (!s) {
        d->orphaned++;
        return GB_OP_INVALID;
    }
    return vm_audio_stream_receive(s, rq->payload, rq->len);
}

const vm_class_ops vm_audio_data_class = {
    .protocol = GB_PROTOCOL_AUDIO_DATA,
    .name = "audio-data",
    .keys = data_keys,
    .create = data_create,
    .destroy = data_destroy,
    .request = data_request,
};
