// SPDX-License-Identifier: MIT
// Firmware Management class handler (see fw_mgmt.h).
#include "virtual-modules/fw_mgmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"
#include "virtual-modules/fw_download.h"
#include "virtual-modules/fw_image.h"
#include "virtual-modules/manifest.h"
#include "virtual-modules/vm_class.h"

#define MAX_BACKENDS 8

typedef struct backend {
    char tag[GB_FIRMWARE_TAG_MAX_SIZE];
    uint16_t major, minor;
} backend;

struct vm_fw_mgmt {
    vm_endpoint *ep;
    char tag[GB_FIRMWARE_TAG_MAX_SIZE];
    uint16_t major, minor;
    backend backends[MAX_BACKENDS];
    size_t nbackends;
    uint8_t request_id; /* of the load or update in progress */
    bool updating;      /* backend update (else interface load) */
    char pending_tag[GB_FIRMWARE_TAG_MAX_SIZE];
    vm_fw_mgmt_stats st;
};

static const char *const fwm_keys[] = {"tag", "version-major", "version-minor", NULL};

static void *fwm_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    char tag[GB_FIRMWARE_TAG_MAX_SIZE];
    uint32_t major, minor;
    if (vm_bsection_str(cfg, "tag", "s3f", tag, GB_FIRMWARE_TAG_MAX_SIZE - 1, err, errlen))
        return NULL;
    if (!*tag) {
        snprintf(err, errlen, "tag: must not be empty");
        return NULL;
    }
    if (vm_bsection_u32(cfg, "version-major", 1, 0, 65535, &major, err, errlen) ||
        vm_bsection_u32(cfg, "version-minor", 0, 0, 65535, &minor, err, errlen))
        return NULL;
    vm_fw_mgmt *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->ep = ep;
    memcpy(f->tag, tag, strlen(tag));
    f->major = (uint16_t)major;
    f->minor = (uint16_t)minor;
    return f;
}

static void fwm_destroy(void *h)
{
    free(h);
}

/* A tag field of a request: NUL within its 10 bytes, as 6.1 requires. */
static bool tag_ok(const uint8_t *p)
{
    return p[0] && memchr(p, 0, GB_FIRMWARE_TAG_MAX_SIZE);
}

static backend *find_backend(vm_fw_mgmt *f, const char *tag)
{
    for (size_t i = 0; i < f->nbackends; i++)
        if (!strcmp(f->backends[i].tag, tag))
            return &f->backends[i];
    return NULL;
}

static void report(vm_fw_mgmt *f, uint8_t status, uint16_t major, uint16_t minor)
{
    uint8_t p[6] = {f->request_id, status};
    if (f->updating) {
        f->st.last_update_status = status;
        vm_endpoint_request(f->ep, GB_FW_MGMT_TYPE_BACKEND_FW_UPDATED, p, 2, true);
    } else {
        f->st.last_load_status = status;
        gb_put_le16(p + 2, major);
        gb_put_le16(p + 4, minor);
        vm_endpoint_request(f->ep, GB_FW_MGMT_TYPE_LOADED_FW, p, 6, true);
    }
    f->request_id = 0;
}

static void downloaded(void *ctx, vm_fw_download_result r, const uint8_t *img, size_t len)
{
    vm_fw_mgmt *f = ctx;
    if (r != VM_FW_DOWNLOAD_OK) {
        report(f, f->updating ? (r == VM_FW_DOWNLOAD_FAIL_FIND ? GB_FW_BACKEND_FW_STATUS_FAIL_FIND
                                                             : GB_FW_BACKEND_FW_STATUS_FAIL_FETCH)
                              : GB_FW_LOAD_STATUS_FAILED,
               0, 0);
        return;
    }
    vm_fw_image fi;
    char why[128];
    f->st.last_crc = vm_fw_crc32(img, len);
    bool valid = vm_fw_image_parse(img, len, &fi, why, sizeof why) == 0;
    if (f->updating) {
        backend *b = find_backend(f, f->pending_tag);
        if (valid && !b && f->nbackends < MAX_BACKENDS) {
            b = &f->backends[f->nbackends++];
            memcpy(b->tag, f->pending_tag, sizeof b->tag);
        }
        if (valid && b) {
            b->major = fi.major;
            b->minor = fi.minor;
        }
        report(f, valid && b ? GB_FW_BACKEND_FW_STATUS_SUCCESS : GB_FW_BACKEND_FW_STATUS_FAIL_WRITE,
               0, 0);
        return;
    }
    vm_manifest *m = NULL;
    if (valid) {
        vm_manifest_diags *d = vm_manifest_diags_new();
        m = vm_manifest_parse_text(fi.name, fi.manifest, fi.manifest_len, d);
        vm_manifest_diags_free(d);
    }
    if (!m) {
        report(f, GB_FW_LOAD_STATUS_VALIDATION_FAILED, 0, 0);
        return;
    }
    vm_firmware_info info = {.size = fi.size, .crc = fi.crc, .major = fi.major, .minor = fi.minor};
    snprintf(info.name, sizeof info.name, "%s", fi.name);
    vm_endpoint_stage_boot(f->ep, m, &info); /* booted at the next MODE_SWITCH */
    report(f, GB_FW_LOAD_STATUS_UNVALIDATED, fi.major, fi.minor);
}

/* Starts the download for a load (updating false) or a backend update. */
static void start(vm_fw_mgmt *f, uint8_t request_id, bool updating, const uint8_t *tag)
{
    f->request_id = request_id;
    f->updating = updating;
    memcpy(f->pending_tag, tag, GB_FIRMWARE_TAG_MAX_SIZE);
    if (updating)
        f->st.updates++;
    else
        f->st.loads++;
    vm_fw_download *d = vm_interface_fw_download(vm_endpoint_interface(f->ep), VM_ANY_CPORT);
    if (!d || vm_fw_download_start(d, f->pending_tag, downloaded, f))
        downloaded(f, VM_FW_DOWNLOAD_FAIL_FIND, NULL, 0);
}

static uint8_t fwm_request(void *h, vm_request *rq)
{
    vm_fw_mgmt *f = h;
    switch (rq->type) {
    case GB_FW_MGMT_TYPE_INTERFACE_FW_VERSION:
        VM_REQ_EXPECT_LEN(rq, 0);
        memset(rq->resp, 0, GB_FIRMWARE_TAG_MAX_SIZE);
        memcpy(rq->resp, f->tag, strlen(f->tag));
        gb_put_le16(rq->resp + 10, f->major);
        gb_put_le16(rq->resp + 12, f->minor);
        rq->resp_len = 14;
        return GB_OP_SUCCESS;
    case GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW:
        VM_REQ_EXPECT_LEN(rq, 12);
        if (!rq->payload[0] || !tag_ok(rq->payload + 2))
            return GB_OP_INVALID;
        if (f->request_id)
            return GB_OP_RETRY; /* one load or update at a time */
        if (rq->payload[1] != GB_FW_LOAD_METHOD_UNIPRO) { /* no internal storage */
            f->request_id = rq->payload[0];
            f->updating = false;
            f->st.loads++;
            report(f, GB_FW_LOAD_STATUS_FAILED, 0, 0);
            return GB_OP_SUCCESS;
        }
        start(f, rq->payload[0], false, rq->payload + 2);
        return GB_OP_SUCCESS;
    case GB_FW_MGMT_TYPE_BACKEND_FW_VERSION: {
        VM_REQ_EXPECT_LEN(rq, 10);
        if (!tag_ok(rq->payload))
            return GB_OP_INVALID;
        backend *b = find_backend(f, (const char *)rq->payload);
        gb_put_le16(rq->resp, b ? b->major : 0);
        gb_put_le16(rq->resp + 2, b ? b->minor : 0);
        rq->resp[4] = b ? GB_FW_BACKEND_VERSION_STATUS_SUCCESS
                        : GB_FW_BACKEND_VERSION_STATUS_NOT_AVAILABLE;
        rq->resp_len = 5;
        return GB_OP_SUCCESS;
    }
    case GB_FW_MGMT_TYPE_BACKEND_FW_UPDATE:
        VM_REQ_EXPECT_LEN(rq, 11);
        if (!rq->payload[0] || !tag_ok(rq->payload + 1))
            return GB_OP_INVALID;
        if (f->request_id)
            return GB_OP_RETRY;
        start(f, rq->payload[0], true, rq->payload + 1);
        return GB_OP_SUCCESS;
    default: /* LOADED_FW and BACKEND_FW_UPDATED are the module's */
        return GB_OP_PROTOCOL_BAD;
    }
}

static void fwm_reset(void *h)
{
    vm_fw_mgmt *f = h;
    f->request_id = 0;
}

static void fwm_describe(const void *h, char *buf, size_t len)
{
    const vm_fw_mgmt *f = h;
    snprintf(buf, len, "fw-mgmt %s %u.%u loads %u updates %u", f->tag, f->major, f->minor,
             f->st.loads, f->st.updates);
}

void vm_fw_mgmt_get_stats(const vm_fw_mgmt *f, vm_fw_mgmt_stats *out)
{
    *out = f->st;
}

vm_fw_mgmt *vm_interface_fw_mgmt(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_FW_MANAGEMENT);
}

const vm_class_ops vm_fw_mgmt_class = {
    .protocol = GB_PROTOCOL_FW_MANAGEMENT,
    .name = "fw-mgmt",
    .keys = fwm_keys,
    .create = fwm_create,
    .destroy = fwm_destroy,
    .request = fwm_request,
    .reset = fwm_reset,
    .describe = fwm_describe,
};
