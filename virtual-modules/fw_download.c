// SPDX-License-Identifier: MIT
// Firmware Download class handler (see fw_download.h).
#include "virtual-modules/fw_download.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"
#include "virtual-modules/fw_image.h"
#include "virtual-modules/vm_class.h"

typedef enum { DL_IDLE, DL_FIND, DL_FETCH, DL_RELEASE } dl_state;

struct vm_fw_download {
    vm_endpoint *ep;
    dl_state state;
    uint8_t id;
    uint8_t *image;
    uint32_t size, received, asked;
    vm_fw_download_result result;
    vm_fw_download_done done;
    void *ctx;
    vm_fw_download_stats st;
};

static void *dl_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    (void)cfg, (void)err, (void)errlen;
    vm_fw_download *d = calloc(1, sizeof *d);
    if (d)
        d->ep = ep;
    return d;
}

static void dl_clear(vm_fw_download *d)
{
    free(d->image);
    d->image = NULL;
    d->state = DL_IDLE;
    d->done = NULL;
}

static void dl_destroy(void *h)
{
    dl_clear(h);
    free(h);
}

/* Ends the download and tells the starter (who may start another one). */
static void finish(vm_fw_download *d, vm_fw_download_result r)
{
    vm_fw_download_done done = d->done;
    void *ctx = d->ctx;
    uint8_t *img = d->image;
    size_t len = d->size;
    d->image = NULL;
    d->state = DL_IDLE;
    d->done = NULL;
    if (r == VM_FW_DOWNLOAD_OK)
        d->st.completed++;
    else
        d->st.failed++;
    if (done)
        done(ctx, r, r == VM_FW_DOWNLOAD_OK ? img : NULL, r == VM_FW_DOWNLOAD_OK ? len : 0);
    free(img);
}

static void release(vm_fw_download *d, vm_fw_download_result r)
{
    d->result = r;
    d->state = DL_RELEASE;
    d->st.releases++;
    if (vm_endpoint_request(d->ep, GB_FW_DOWNLOAD_TYPE_RELEASE_FIRMWARE, &d->id, 1, true))
        finish(d, r);
}

static void fetch(vm_fw_download *d)
{
    uint8_t p[9];
    uint32_t left = d->size - d->received;
    d->asked = left < VM_FW_DOWNLOAD_CHUNK ? left : VM_FW_DOWNLOAD_CHUNK;
    p[0] = d->id;
    gb_put_le32(p + 1, d->received);
    gb_put_le32(p + 5, d->asked);
    d->state = DL_FETCH;
    d->st.fetches++;
    if (vm_endpoint_request(d->ep, GB_FW_DOWNLOAD_TYPE_FETCH_FIRMWARE, p, sizeof p, true))
        finish(d, VM_FW_DOWNLOAD_FAIL_FETCH);
}

int vm_fw_download_start(vm_fw_download *d, const char *tag, vm_fw_download_done done,
                         void *ctx)
{
    uint8_t p[GB_FIRMWARE_TAG_MAX_SIZE] = {0};
    size_t n = strlen(tag);
    if (d->state != DL_IDLE)
        return -EBUSY;
    if (n == 0 || n >= GB_FIRMWARE_TAG_MAX_SIZE)
        return -EINVAL;
    memcpy(p, tag, n);
    d->done = done;
    d->ctx = ctx;
    d->state = DL_FIND;
    d->st.finds++;
    int rc = vm_endpoint_request(d->ep, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, p, sizeof p, true);
    if (rc) {
        d->state = DL_IDLE;
        d->done = NULL;
    }
    return rc;
}

static uint8_t dl_request(void *h, vm_request *rq)
{
    (void)h, (void)rq;
    return GB_OP_PROTOCOL_BAD; /* every operation is the module's */
}

static void dl_response(void *h, uint8_t type, uint8_t result, const uint8_t *payload,
                        size_t len)
{
    vm_fw_download *d = h;
    switch (type) {
    case GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE:
        if (d->state != DL_FIND)
            return;
        if (result != GB_OP_SUCCESS || len != 5) {
            finish(d, VM_FW_DOWNLOAD_FAIL_FIND);
            return;
        }
        d->id = payload[0];
        d->size = gb_get_le32(payload + 1);
        d->received = 0;
        d->st.last_size = d->size;
        if (d->size < VM_FW_HEADER_SIZE || d->size > VM_FW_IMAGE_MAX ||
            !(d->image = malloc(d->size))) {
            release(d, VM_FW_DOWNLOAD_FAIL_FETCH);
            return;
        }
        fetch(d);
        return;
    case GB_FW_DOWNLOAD_TYPE_FETCH_FIRMWARE:
        if (d->state != DL_FETCH)
            return;
        if (result != GB_OP_SUCCESS || len != d->asked) {
            release(d, VM_FW_DOWNLOAD_FAIL_FETCH);
            return;
        }
        memcpy(d->image + d->received, payload, len);
        d->received += (uint32_t)len;
        if (d->received < d->size)
            fetch(d);
        else
            release(d, VM_FW_DOWNLOAD_OK);
        return;
    case GB_FW_DOWNLOAD_TYPE_RELEASE_FIRMWARE:
        if (d->state == DL_RELEASE)
            finish(d, d->result); /* a failed RELEASE does not undo a complete image */
        return;
    }
}

static void dl_reset(void *h)
{
    dl_clear(h);
}

/* A dropped connection takes the answers of the requests in flight with it (the interface
 * forgets them): the download ends now, or it would wait for them for as long as the module
 * runs and its starter would never hear back (Firmware Management would refuse every later
 * load with GB_OP_RETRY). An image already complete stays complete without its RELEASE. */
static void dl_connection(void *h, bool connected)
{
    vm_fw_download *d = h;
    if (connected || d->state == DL_IDLE)
        return;
    finish(d, d->state == DL_RELEASE ? d->result
              : d->state == DL_FIND  ? VM_FW_DOWNLOAD_FAIL_FIND
                                     : VM_FW_DOWNLOAD_FAIL_FETCH);
}

void vm_fw_download_get_stats(const vm_fw_download *d, vm_fw_download_stats *out)
{
    *out = d->st;
}

vm_fw_download *vm_interface_fw_download(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_FW_DOWNLOAD);
}



static const char *const no_keys[] = {NULL};

const vm_class_ops vm_fw_download_class = {
    .protocol = GB_PROTOCOL_FW_DOWNLOAD,
    .name = "fw-download",
    .keys = no_keys,
    .create = dl_create,
    .destroy = dl_destroy,
    .request = dl_request,
    .response = dl_response,
    .connection = dl_connection,
    .reset = dl_reset,
};
