// SPDX-License-Identifier: MIT
// HID class handler (see hid.h).
#include "virtual-modules/hid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define HID_DESC_SIZE 10u
#define HID_BCD 0x0111u
#define HID_MAX_RDESC 1024u

/* Boot keyboard (HID 1.11 appendix B.1): modifiers, reserved, 6 key codes; 5 LEDs out. */
static const uint8_t keyboard_rdesc[] = {
    0x05, 0x01, 0x09, 0x06, 0xa1, 0x01, 0x05, 0x07, 0x19, 0xe0, 0x29, 0xe7, 0x15, 0x00,
    0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0x95, 0x01, 0x75, 0x08, 0x81, 0x01,
    0x95, 0x05, 0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x91, 0x02, 0x95, 0x01,
    0x75, 0x03, 0x91, 0x01, 0x95, 0x06, 0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07,
    0x19, 0x00, 0x29, 0x65, 0x81, 0x00, 0xc0,
};

/* Mouse: 3 buttons + 5 bits padding, relative X, Y, wheel (one byte each). */
static const uint8_t mouse_rdesc[] = {
    0x05, 0x01, 0x09, 0x02, 0xa1, 0x01, 0x09, 0x01, 0xa1, 0x00, 0x05, 0x09, 0x19, 0x01,
    0x29, 0x03, 0x15, 0x00, 0x25, 0x01, 0x95, 0x03, 0x75, 0x01, 0x81, 0x02, 0x95, 0x01,
    0x75, 0x05, 0x81, 0x01, 0x05, 0x01, 0x09, 0x30, 0x09, 0x31, 0x09, 0x38, 0x15, 0x81,
    0x25, 0x7f, 0x75, 0x08, 0x95, 0x03, 0x81, 0x06, 0xc0, 0xc0,
};

struct vm_hid {
    vm_endpoint *ep;
    uint16_t vendor, product;
    uint8_t country;
    uint8_t rdesc[HID_MAX_RDESC];
    size_t rdesc_len;
    uint8_t input[VM_HID_MAX_REPORT];
    vm_hid_state st;
};

static const char *const hid_keys[] = {
    "device", "vendor-id", "product-id", "country", "report-descriptor", "input-size",
    "output-size", "feature-size", NULL,
};
static const char *const device_names[] = {"keyboard", "mouse", "custom", NULL};

static void *hid_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    int dev;
    uint32_t vid, pid, country, in, out, feat;
    if (vm_bsection_enum(cfg, "device", device_names, 0, &dev, err, errlen) ||
        vm_bsection_u32(cfg, "vendor-id", 0x1209, 0, 0xffff, &vid, err, errlen) ||
        vm_bsection_u32(cfg, "product-id", dev == 1 ? 0x0002 : 0x0001, 0, 0xffff, &pid, err,
                        errlen) ||
        vm_bsection_u32(cfg, "country", 0, 0, 255, &country, err, errlen) ||
        vm_bsection_u32(cfg, "input-size", dev == 1 ? 4 : 8, 1, VM_HID_MAX_REPORT, &in, err,
                        errlen) ||
        vm_bsection_u32(cfg, "output-size", dev == 0 ? 1 : 0, 0, VM_HID_MAX_REPORT, &out,
                        err, errlen) ||
        vm_bsection_u32(cfg, "feature-size", 0, 0, VM_HID_MAX_REPORT, &feat, err, errlen))
        return NULL;
    vm_hid *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->ep = ep;
    h->vendor = (uint16_t)vid;
    h->product = (uint16_t)pid;
    h->country = (uint8_t)country;
    if (dev == 2) {
        if (vm_bsection_hex(cfg, "report-descriptor", h->rdesc, HID_MAX_RDESC, &h->rdesc_len,
                            err, errlen))
            goto bad;
        if (h->rdesc_len == 0) {
            vm_bsection_error(cfg, "report-descriptor", err, errlen,
                              "device = custom needs a report descriptor");
            goto bad;
        }
    } else {
        const char *bad_key = vm_bsection_get(cfg, "report-descriptor", NULL) ? "report-descriptor"
                              : vm_bsection_get(cfg, "input-size", NULL)  ? "input-size"
                              : vm_bsection_get(cfg, "output-size", NULL) ? "output-size"
                              : vm_bsection_get(cfg, "feature-size", NULL) ? "feature-size"
                                                                          : NULL;
        if (bad_key) {
            vm_bsection_error(cfg, bad_key, err, errlen, "only for device = custom");
            goto bad;
        }
        const uint8_t *src = dev == 0 ? keyboard_rdesc : mouse_rdesc;
        h->rdesc_len = dev == 0 ? sizeof keyboard_rdesc : sizeof mouse_rdesc;
        memcpy(h->rdesc, src, h->rdesc_len);
    }
    h->st.input_size = in;
    h->st.output_size = out;
    h->st.feature_size = feat;
    return h;
bad:
    free(h);
    return NULL;
}

static void hid_destroy(void *h)
{
    free(h);
}

static void hid_reset(void *p)
{
    vm_hid *h = p;
    h->st.powered = false;
    memset(h->input, 0, sizeof h->input);
    memset(h->st.output, 0, sizeof h->st.output);
}

static size_t report_size(const vm_hid *h, uint8_t type, uint8_t **store)
{
    vm_hid *m = (vm_hid *)h;
    switch (type) {
    case GB_HID_INPUT_REPORT: *store = m->input; return h->st.input_size;
    case GB_HID_OUTPUT_REPORT: *store = m->st.output; return h->st.output_size;
    case GB_HID_FEATURE_REPORT: *store = m->st.feature; return h->st.feature_size;
    default: return 0;
    }
}

static uint8_t hid_request(void *p, vm_request *rq)
{
    vm_hid *h = p;
    uint8_t *store;
    size_t n;

    switch (rq->type) {
    case GB_HID_TYPE_GET_DESC:
        VM_REQ_EXPECT_LEN(rq, 0);
        rq->resp[0] = HID_DESC_SIZE;
        gb_put_le16(rq->resp + 1, (uint16_t)h->rdesc_len);
        gb_put_le16(rq->resp + 3, HID_BCD);
        gb_put_le16(rq->resp + 5, h->product); /* product before vendor, as 6.1 reads it */
        gb_put_le16(rq->resp + 7, h->vendor);
        rq->resp[9] = h->country;
        rq->resp_len = HID_DESC_SIZE;
        return GB_OP_SUCCESS;
    case GB_HID_TYPE_GET_REPORT_DESC:
        VM_REQ_EXPECT_LEN(rq, 0);
        memcpy(rq->resp, h->rdesc, h->rdesc_len);
        rq->resp_len = h->rdesc_len;
        return GB_OP_SUCCESS;
    case GB_HID_TYPE_PWR_ON:
    case GB_HID_TYPE_PWR_OFF:
        VM_REQ_EXPECT_LEN(rq, 0);
        h->st.powered = rq->type == GB_HID_TYPE_PWR_ON;
        return GB_OP_SUCCESS;
    case GB_HID_TYPE_GET_REPORT:
        VM_REQ_EXPECT_LEN(rq, 2);
        n = report_size(h, rq->payload[0], &store);
        if (n == 0 || rq->payload[1] != 0) /* our reports carry no report id */
            return GB_OP_INVALID;
        memcpy(rq->resp, store, n);
        rq->resp_len = n;
        h->st.get_reports++;
        return GB_OP_SUCCESS;
    case GB_HID_TYPE_SET_REPORT:
        if (rq->len < 2)
            return GB_OP_INVALID;
        n = report_size(h, rq->payload[0], &store);
        if (n == 0 || rq->payload[0] == GB_HID_INPUT_REPORT || rq->payload[1] != 0)
            return GB_OP_INVALID;
        {
            /* 6.1 sends len + 1 payload bytes for a len-byte buffer (so the last byte is
             * cut), and hidraw keeps a leading 0x00 when the report id is 0: take what
             * came, strip that 0x00, refuse only reports longer than ours. */
            const uint8_t *d = rq->payload + 2;
            size_t dl = rq->len - 2;
            if (dl == n + 1 && d[0] == 0) {
                d++;
                dl--;
            }
            if (dl > n)
                return GB_OP_INVALID;
            memset(store, 0, n);
            memcpy(store, d, dl);
        }
        h->st.set_reports++;
        return GB_OP_SUCCESS;
    default: /* IRQ_EVENT is module-originated */
        return GB_OP_PROTOCOL_BAD;
    }
}

void vm_hid_get_state(const vm_hid *h, vm_hid_state *out)
{
    *out = h->st;
}

int vm_hid_input_report(vm_hid *h, const uint8_t *report, size_t len)
{
    if (len != h->st.input_size)
        return -EINVAL;
    memcpy(h->input, report, len);
    if (!h->st.powered)
        return -EAGAIN;
    int rc = vm_endpoint_request(h->ep, GB_HID_TYPE_IRQ_EVENT, report, len, true);
    if (rc == 0)
        h->st.input_reports++;
    return rc;
}

const vm_class_ops vm_hid_class = {
    .protocol = GB_PROTOCOL_HID,
    .name = "hid",
    .keys = hid_keys,
    .create = hid_create,
    .destroy = hid_destroy,
    .request = hid_request,
    .reset = hid_reset,
};
