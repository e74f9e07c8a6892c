// SPDX-License-Identifier: MIT
// Camera management handler (see camera.h).
#include "virtual-modules/camera.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define CAPS_VERSION 1
#define JPEG_PACKET 4096u

typedef struct camera_format {
    uint16_t code;
    uint8_t bpp;       /* 0: compressed */
    uint8_t data_type; /* CSI-2 data type */
    const char *name;
} camera_format;

static const camera_format formats[] = {
    {GB_CAMERA_FORMAT_UYVY, 16, 0x1e, "uyvy"}, /* YUV422 8-bit */
    {GB_CAMERA_FORMAT_NV12, 12, 0x18, "nv12"}, /* YUV420 8-bit */
    {GB_CAMERA_FORMAT_JPEG, 0, 0x30, "jpeg"},  /* user-defined 8-bit data type 1 */
};
#define NFORMATS (sizeof formats / sizeof formats[0])

static const struct {
    uint16_t w, h;
} sizes[] = {{320, 240}, {640, 480}, {1280, 720}, {1920, 1080}}; /* ascending */
#define NSIZES (sizeof sizes / sizeof sizes[0])

struct vm_camera {
    vm_endpoint *ep;
    unsigned max_streams;
    vm_camera_state s;
};

static const char *const camera_keys[] = {"max-streams", NULL};

static void *camera_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t n;
    if (vm_bsection_u32(cfg, "max-streams", 2, 1, VM_CAMERA_MAX_STREAMS, &n, err, errlen))
        return NULL;
    vm_camera *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ep = ep;
    c->max_streams = n;
    return c;
}

static void camera_destroy(void *h)
{
    free(h);
}

/* A module reboot: streams unconfigured, no capture; the counters stay. */
static void camera_reset(void *h)
{
    vm_camera *c = h;
    vm_camera_state *s = &c->s;
    s->nstreams = 0;
    s->capturing = false;
    s->last_request = 0;
    s->streams = 0;
    s->num_frames = s->frames_sent = 0;
    s->settings_len = 0;
}

static const camera_format *find_format(uint16_t code)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].code == code)
            return &formats[i];
    return NULL;
}

/* The stream the module can deliver for a request; true when it differs. */
static bool fit_stream(vm_camera_stream *st)
{
    vm_camera_stream want = *st;
    if (!find_format(st->format))
        st->format = GB_CAMERA_FORMAT_UYVY;
    size_t k = NSIZES - 1;
    for (size_t i = 0; i < NSIZES; i++) {
        if (sizes[i].w >= want.width && sizes[i].h >= want.height) {
            k = i;
            break;
        }
    }
    st->width = sizes[k].w;
    st->height = sizes[k].h;
    return memcmp(st, &want, sizeof want) != 0;
}

static uint32_t frame_bytes(const camera_format *f, const vm_camera_stream *st)
{
    uint32_t px = (uint32_t)st->width * st->height;
    return f->bpp ? px * f->bpp / 8 : px;
}

/* One gb_camera_stream_config_response (16 bytes) for stream `vc`. */
static void put_stream(uint8_t *o, const vm_camera_stream *st, unsigned vc)
{
    const camera_format *f = find_format(st->format);
    gb_put_le16(o, st->width);
    gb_put_le16(o + 2, st->height);
    gb_put_le16(o + 4, st->format);
    o[6] = (uint8_t)vc;
    o[7] = f->data_type;
    o[8] = 0; /* data_type[1]: one data type a stream */
    gb_put_le16(o + 9, (uint16_t)(f->bpp ? st->width * f->bpp / 8 : JPEG_PACKET));
    o[11] = 0;
    gb_put_le32(o + 12, frame_bytes(f, st));
}

static uint8_t capabilities(vm_camera *c, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, 0);
    uint8_t *o = rq->resp;
    o[0] = CAPS_VERSION;
    o[1] = (uint8_t)c->max_streams;
    o[2] = (uint8_t)(NFORMATS * NSIZES);
    o[3] = 0;
    size_t n = 4;
    for (size_t f = 0; f < NFORMATS; f++) {
        for (size_t i = 0; i < NSIZES; i++, n += 8) {
            gb_put_le16(o + n, formats[f].code);
            gb_put_le16(o + n + 2, sizes[i].w);
            gb_put_le16(o + n + 4, sizes[i].h);
            gb_put_le16(o + n + 6, VM_CAMERA_FPS);
        }
    }
    rq->resp_len = n;
    return GB_OP_SUCCESS;
}

static uint8_t configure_streams(vm_camera *c, vm_request *rq)
{
    const uint8_t *d = rq->payload;
    if (rq->len < GB_CAMERA_CONFIGURE_STREAMS_REQ_SIZE)
        return GB_OP_INVALID;
    unsigned n = d[0];
    uint8_t flags = d[1];
    if (n > GB_CAMERA_MAX_STREAMS || (flags & ~GB_CAMERA_CONFIGURE_STREAMS_TEST_ONLY) ||
        gb_get_le16(d + 2) ||
        rq->len != GB_CAMERA_CONFIGURE_STREAMS_REQ_SIZE + n * GB_CAMERA_STREAM_CONFIG_REQ_SIZE)
        return GB_OP_INVALID;
    vm_camera_stream st[GB_CAMERA_MAX_STREAMS];
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *s = d + GB_CAMERA_CONFIGURE_STREAMS_REQ_SIZE +
                           i * GB_CAMERA_STREAM_CONFIG_REQ_SIZE;
        if (gb_get_le16(s + 6)) /* padding */
            return GB_OP_INVALID;
        st[i] = (vm_camera_stream){gb_get_le16(s), gb_get_le16(s + 2), gb_get_le16(s + 4)};
    }
    unsigned out = n < c->max_streams ? n : c->max_streams;
    bool adjusted = out < n;
    uint64_t rate = 0;
    uint8_t *o = rq->resp;
    for (unsigned i = 0; i < out; i++) {
        adjusted |= fit_stream(&st[i]);
        rate += (uint64_t)frame_bytes(find_format(st[i].format), &st[i]) * 8u * VM_CAMERA_FPS;
        put_stream(o + GB_CAMERA_CONFIGURE_STREAMS_RESP_SIZE +
                       i * GB_CAMERA_STREAM_CONFIG_RESP_SIZE,
                   &st[i], i);
    }
    o[0] = (uint8_t)out;
    o[1] = adjusted ? GB_CAMERA_CONFIGURE_STREAMS_ADJUSTED : 0;
    o[2] = o[3] = 0;
    gb_put_le32(o + 4, rate > UINT32_MAX ? UINT32_MAX : (uint32_t)rate);
    rq->resp_len = GB_CAMERA_CONFIGURE_STREAMS_RESP_SIZE + out * GB_CAMERA_STREAM_CONFIG_RESP_SIZE;
    if (adjusted || (flags & GB_CAMERA_CONFIGURE_STREAMS_TEST_ONLY)) {
        c->s.not_applied++;
        return GB_OP_SUCCESS;
    }
    c->s.nstreams = out;
    memcpy(c->s.stream, st, out * sizeof st[0]);
    c->s.capturing = false; /* a new configuration ends the running capture */
    c->s.configures++;
    return GB_OP_SUCCESS;
}

static uint8_t capture(vm_camera *c, vm_request *rq)
{
    const uint8_t *d = rq->payload;
    if (rq->len < GB_CAMERA_CAPTURE_REQ_SIZE ||
        rq->len - GB_CAMERA_CAPTURE_REQ_SIZE > GB_CAMERA_MAX_SETTINGS_SIZE || d[5])
        return GB_OP_INVALID;
    uint8_t mask = d[4];
    if (!c->s.nstreams || !mask || (mask >> c->s.nstreams)) /* only configured streams */
        return GB_OP_INVALID;
    vm_camera_state *s = &c->s;
    s->last_request = gb_get_le32(d);
    s->streams = mask;
    s->num_frames = gb_get_le16(d + 6);
    s->frames_sent = 0;
    s->settings_len = rq->len - GB_CAMERA_CAPTURE_REQ_SIZE;
    s->capturing = true;
    s->captures++;
    return GB_OP_SUCCESS;
}

static uint8_t flush(vm_camera *c, vm_request *rq)
{
    VM_REQ_EXPECT_LEN(rq, 0);
    gb_put_le32(rq->resp, c->s.last_request);
    rq->resp_len = GB_CAMERA_FLUSH_RESP_SIZE;
    c->s.capturing = false;
    c->s.flushes++;
    return GB_OP_SUCCESS;
}

static uint8_t camera_request(void *h, vm_request *rq)
{
    vm_camera *c = h;
    switch (rq->type) {
    case GB_CAMERA_TYPE_CAPABILITIES:
        return capabilities(c, rq);
    case GB_CAMERA_TYPE_CONFIGURE_STREAMS:
        return configure_streams(c, rq);
    case GB_CAMERA_TYPE_CAPTURE:
        return capture(c, rq);
    case GB_CAMERA_TYPE_FLUSH:
        return flush(c, rq);
    }
    return GB_OP_PROTOCOL_BAD; /* METADATA goes the other way */
}

vm_camera *vm_interface_camera(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_CAMERA_MGMT);
}

void vm_camera_get_state(const vm_camera *c, vm_camera_state *out)
{
    *out = c->s;
}

int vm_camera_frame(vm_camera *c)
{
    vm_camera_state *s = &c->s;
    if (!s->capturing)
        return -ENOENT;
    uint8_t m[GB_CAMERA_METADATA_REQ_SIZE];
    unsigned stream = 0;
    while (!(s->streams & (1u << stream)))
        stream++;
    gb_put_le32(m, s->last_request);
    gb_put_le16(m + 4, s->frames_sent);
    m[6] = (uint8_t)stream;
    m[7] = 0;
    int rc = vm_endpoint_request(c->ep, GB_CAMERA_TYPE_METADATA, m, sizeof m, false);
    if (rc)
        return rc;
    s->frames_sent++;
    s->metadata++;
    if (s->num_frames && s->frames_sent >= s->num_frames)
        s->capturing = false;
    return 0;
}

const char *vm_camera_format_name(uint16_t format, char *buf, size_t len)
{
    const camera_format *f = find_format(format);
    if (f)
        return f->name;
    snprintf(buf, len, "0x%04x", format);
    return buf;
}

static void camera_describe(const void *h, char *buf, size_t len)
{
    const vm_camera *c = h;
    snprintf(buf, len, "camera %u stream%s configured (of %u)", c->s.nstreams,
             c->s.nstreams == 1 ? "" : "s", c->max_streams);
}

const vm_class_ops vm_camera_class = {
    .protocol = GB_PROTOCOL_CAMERA_MGMT,
    .name = "camera",
    .keys = camera_keys,
    .create = camera_create,
    .destroy = camera_destroy,
    .request = camera_request,
    .reset = camera_reset,
    .describe = camera_describe,
};
