// SPDX-License-Identifier: MIT
// Bootrom class handler (see bootrom.h).
#include "virtual-modules/bootrom.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"
#include "virtual-modules/fw_image.h"
#include "virtual-modules/manifest.h"
#include "virtual-modules/vm_class.h"

struct vm_bootrom {
    vm_endpoint *ep;
    vm_bootrom_stats st;
    uint8_t *image;
    uint32_t asked; /* bytes of the GET_FIRMWARE in flight */
    uint8_t status; /* READY_TO_BOOT status sent */
    vm_manifest *next; /* what a valid image boots into */
    vm_firmware_info info;
    uint8_t *flash; /* the image in the module's own flash (vm_bootrom_flash), or NULL */
    size_t flash_len;
    bool from_flash;
    char error[160];
};

static void reset_state(vm_bootrom *b)
{
    free(b->image);
    vm_manifest_free(b->next);
    b->image = NULL;
    b->next = NULL;
    memset(&b->st, 0, sizeof b->st);
    b->error[0] = '\0';
    b->from_flash = false;
}

static void *bootrom_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    (void)cfg, (void)err, (void)errlen;
    vm_bootrom *b = calloc(1, sizeof *b);
    if (b)
        b->ep = ep;
    return b;
}

static void bootrom_destroy(void *h)
{
    vm_bootrom *b = h;
    reset_state(b);
    free(b->flash);
    free(b);
}

static void fail(vm_bootrom *b, const char *why)
{
    snprintf(b->error, sizeof b->error, "%s", why);
    b->st.state = VM_BOOTROM_FAILED;
}

static void send_fetch(vm_bootrom *b)
{
    uint8_t p[8];
    uint32_t left = b->st.size - b->st.received;
    b->asked = left < GB_BOOTROM_FETCH_MAX ? left : GB_BOOTROM_FETCH_MAX;
    gb_put_le32(p, b->st.received);
    gb_put_le32(p + 4, b->asked);
    b->st.state = VM_BOOTROM_FETCHING;
    b->st.fetches++;
    if (vm_endpoint_request(b->ep, GB_BOOTROM_TYPE_GET_FIRMWARE, p, sizeof p, true))
        fail(b, "GET_FIRMWARE could not be sent");
}

/* The whole image is in: check it and say READY_TO_BOOT. */
static void image_done(vm_bootrom *b)
{
    vm_fw_image img;
    char why[128];
    b->st.crc = vm_fw_crc32(b->image, b->st.size);
    b->status = GB_BOOTROM_BOOT_STATUS_INVALID;
    if (vm_fw_image_parse(b->image, b->st.size, &img, why, sizeof why) == 0) {
        vm_manifest_diags *d = vm_manifest_diags_new();
        b->next = vm_manifest_parse_text(img.name, img.manifest, img.manifest_len, d);
        if (!b->next && d && vm_manifest_diags_count(d))
            snprintf(why, sizeof why, "%s", vm_manifest_diags_message(d, 0));
        else if (!b->next)
            snprintf(why, sizeof why, "its manifest does not parse");
        vm_manifest_diags_free(d);
        if (b->next) {
            b->status = GB_BOOTROM_BOOT_STATUS_INSECURE; /* valid, not signed */
            b->info = (vm_firmware_info){.size = img.size, .crc = img.crc, .major = img.major,
                                         .minor = img.minor};
            snprintf(b->info.name, sizeof b->info.name, "%s", img.name);
        }
    }
    if (b->status == GB_BOOTROM_BOOT_STATUS_INVALID)
        snprintf(b->error, sizeof b->error, "image refused: %s", why);
    b->st.state = VM_BOOTROM_READY;
    if (vm_endpoint_request(b->ep, GB_BOOTROM_TYPE_READY_TO_BOOT, &b->status, 1, true))
        fail(b, "READY_TO_BOOT could not be sent");
}

/* Validates the flash image as if it had been downloaded and says READY_TO_BOOT. */
static void boot_flash(vm_bootrom *b)
{
    free(b->image);
    vm_manifest_free(b->next);
    b->next = NULL;
    b->image = malloc(b->flash_len);
    if (!b->image) {
        fail(b, "out of memory");
        return;
    }
    memcpy(b->image, b->flash, b->flash_len);
    b->st.size = b->st.received = (uint32_t)b->flash_len;
    b->from_flash = true;
    image_done(b);
}

int vm_bootrom_flash(vm_bootrom *b, const uint8_t *image, size_t len)
{
    if (len < VM_FW_HEADER_SIZE || len > VM_FW_IMAGE_MAX)
        return -EINVAL;
    if (b->st.state == VM_BOOTROM_READY || b->st.state == VM_BOOTROM_BOOTED)
        return -EBUSY;
    uint8_t *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, image, len);
    free(b->flash);
    b->flash = copy;
    b->flash_len = len;
    if (b->st.state != VM_BOOTROM_FAILED)
        return 0; /* kept for when the download fails */
    if (!vm_endpoint_connected(b->ep))
        return -ENOTCONN;
    b->error[0] = '\0';
    boot_flash(b);
    return b->st.state == VM_BOOTROM_READY ? 0 : -EIO;
}

bool vm_bootrom_booted_from_flash(const vm_bootrom *b)
{
    return b->from_flash;
}

static uint8_t bootrom_request(void *h, vm_request *rq)
{
    vm_bootrom *b = h;
    switch (rq->type) {
    case GB_BOOTROM_TYPE_VERSION:
        VM_REQ_EXPECT_LEN(rq, 2);
        rq->resp[0] = 0;
        rq->resp[1] = 1;
        rq->resp_len = 2;
        return GB_OP_SUCCESS;
    case GB_BOOTROM_TYPE_AP_READY: {
        VM_REQ_EXPECT_LEN(rq, 0);
        reset_state(b);
        uint8_t stage = GB_BOOTROM_BOOT_STAGE_TWO;
        b->st.state = VM_BOOTROM_SIZE;
        if (vm_endpoint_request(b->ep, GB_BOOTROM_TYPE_FIRMWARE_SIZE, &stage, 1, true))
            fail(b, "FIRMWARE_SIZE could not be sent");
        return GB_OP_SUCCESS;
    }
    default: /* GET_VID_PID is for ES2 bridges only; the rest are module requests */
        return GB_OP_PROTOCOL_BAD;
    }
}

static void bootrom_response(void *h, uint8_t type, uint8_t result, const uint8_t *payload,
                             size_t len)
{
    vm_bootrom *b = h;
    char what[64];
    if (result != GB_OP_SUCCESS && b->flash && type != GB_BOOTROM_TYPE_READY_TO_BOOT) {
        boot_flash(b); /* the UniPro download failed: the boot ROM falls back to flash */
        return;
    }
    if (result != GB_OP_SUCCESS && type == GB_BOOTROM_TYPE_READY_TO_BOOT &&
        b->status == GB_BOOTROM_BOOT_STATUS_INVALID) {
        b->st.state = VM_BOOTROM_FAILED; /* keeps why the image was refused */
        return;
    }
    if (result != GB_OP_SUCCESS) {
        snprintf(what, sizeof what, "the AP answered request 0x%02x with result 0x%02x", type,
                 result);
        fail(b, what);
        return;
    }
    switch (type) {
    case GB_BOOTROM_TYPE_FIRMWARE_SIZE:
        if (b->st.state != VM_BOOTROM_SIZE || len != 4)
            { fail(b, "unexpected FIRMWARE_SIZE response"); return; }
        b->st.size = gb_get_le32(payload);
        if (b->st.size < VM_FW_HEADER_SIZE || b->st.size > VM_FW_IMAGE_MAX) {
            snprintf(what, sizeof what, "firmware size %u out of range", b->st.size);
            { fail(b, what); return; }
        }
        b->image = malloc(b->st.size);
        if (!b->image)
            { fail(b, "out of memory"); return; }
        send_fetch(b);
        return;
    case GB_BOOTROM_TYPE_GET_FIRMWARE:
        if (b->st.state != VM_BOOTROM_FETCHING || len != b->asked)
            { fail(b, "GET_FIRMWARE response of the wrong size"); return; }
        memcpy(b->image + b->st.received, payload, len);
        b->st.received += (uint32_t)len;
        if (b->st.received < b->st.size)
            send_fetch(b);
        else
            image_done(b);
        return;
    case GB_BOOTROM_TYPE_READY_TO_BOOT:
        if (b->st.state != VM_BOOTROM_READY)
            { fail(b, "unexpected READY_TO_BOOT response"); return; }
        if (b->status == GB_BOOTROM_BOOT_STATUS_INVALID) {
            b->st.state = VM_BOOTROM_FAILED; /* the boot ROM waits to be power-cycled */
            return;
        }
        b->st.state = VM_BOOTROM_BOOTED;
        vm_manifest *m = b->next;
        b->next = NULL;
        vm_endpoint_boot(b->ep, m, &b->info); /* destroys this handler afterwards */
        return;
    }
}

static void bootrom_reset(void *h)
{
    reset_state(h);
}

static void bootrom_describe(const void *h, char *buf, size_t len)
{
    const vm_bootrom *b = h;
    snprintf(buf, len, "bootrom %s %u/%u%s%s", vm_bootrom_state_name(b->st.state),
             b->st.received, b->st.size, b->error[0] ? ": " : "", b->error);
}

const char *vm_bootrom_state_name(vm_bootrom_state s)
{
    static const char *const names[] = {"idle", "size", "fetching", "ready", "booted", "failed"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void vm_bootrom_get_stats(const vm_bootrom *b, vm_bootrom_stats *out)
{
    *out = b->st;
}

const char *vm_bootrom_error(const vm_bootrom *b)
{
    return b->error;
}

vm_bootrom *vm_interface_bootrom(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_BOOTROM);
}

static const char *const no_keys[] = {NULL};

const vm_class_ops vm_bootrom_class = {
    .protocol = GB_PROTOCOL_BOOTROM,
    .name = "bootrom",
    .keys = no_keys,
    .create = bootrom_create,
    .destroy = bootrom_destroy,
    .request = bootrom_request,
    .response = bootrom_response,
    .reset = bootrom_reset,
    .describe = bootrom_describe,
};
