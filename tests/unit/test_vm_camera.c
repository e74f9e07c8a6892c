// SPDX-License-Identifier: MIT
// Camera management handler, driven as drivers/staging/greybus/camera.c drives it:
// CAPABILITIES, CONFIGURE_STREAMS (with TEST_ONLY, as the camera core's try_fmt does, then
// for real), CAPTURE, FLUSH, and the module's METADATA requests in return.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/camera.h"

static const uint16_t cports12[] = {1, 2};
static char mnfs_buf[2048], beh_buf[1024];

static bool up_catalog(vmt *t)
{
    return vmt_up(t, vmt_catalog_text("camera.mnfs", mnfs_buf, sizeof mnfs_buf),
                  vmt_catalog_text("camera.behaviour", beh_buf, sizeof beh_buf), cports12, 2);
}

/* One request on CPort 1: its result, the payload in out[0..*out_len). */
static uint8_t op(vmt *t, uint8_t type, const void *payload, size_t len, uint8_t *out,
                  size_t *out_len)
{
    return vmt_op(t, 1, 3, type, payload, len, out, out_len);
}

typedef struct stream_req {
    uint16_t w, h, fmt;
} stream_req;

/* gb_camera_configure_streams' request: num_streams, flags, padding, then the streams. */
static size_t configure_req(uint8_t *r, uint8_t flags, const stream_req *s, unsigned n)
{
    r[0] = (uint8_t)n;
    r[1] = flags;
    r[2] = r[3] = 0;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *c = r + 4 + 8 * i;
        gb_put_le16(c, s[i].w);
        gb_put_le16(c + 2, s[i].h);
        gb_put_le16(c + 4, s[i].fmt);
        gb_put_le16(c + 6, 0);
    }
    return 4 + 8 * n;
}

static uint8_t configure(vmt *t, uint8_t flags, const stream_req *s, unsigned n, uint8_t *out,
                         size_t *out_len)
{
    uint8_t r[64];
    size_t len = configure_req(r, flags, s, n);
    return op(t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, len, out, out_len);
}

static uint8_t capture(vmt *t, uint32_t id, uint8_t streams, uint16_t frames,
                       size_t settings_len)
{
    uint8_t r[GB_MSG_MAX_PAYLOAD] = {0};
    gb_put_le32(r, id);
    r[4] = streams;
    gb_put_le16(r + 6, frames);
    memset(r + 8, 0xa5, settings_len);
    return op(t, GB_CAMERA_TYPE_CAPTURE, r, 8 + settings_len, NULL, NULL);
}

/* The checks camera.c makes on a configuration response (padding, stream count, and
 * gb_camera_get_max_pkt_size's packet sizes), for the formats of its table we offer. */
static void expect_camera_c_accepts(const uint8_t *o, size_t len, unsigned requested)
{
    CU_ASSERT_FATAL(len >= 8);
    CU_ASSERT_TRUE(o[2] == 0 && o[3] == 0);
    CU_ASSERT_TRUE(o[0] <= requested);
    CU_ASSERT_EQUAL(len, 8u + 16u * o[0]);
    for (unsigned i = 0; i < o[0]; i++) {
        const uint8_t *s = o + 8 + 16 * i;
        CU_ASSERT_EQUAL(s[11], 0);
        uint16_t w = gb_get_le16(s), fmt = gb_get_le16(s + 4), pkt = gb_get_le16(s + 9);
        unsigned bpp = fmt == GB_CAMERA_FORMAT_UYVY ? 16 : fmt == GB_CAMERA_FORMAT_NV12 ? 12 : 0;
        CU_ASSERT_TRUE(fmt == GB_CAMERA_FORMAT_UYVY || fmt == GB_CAMERA_FORMAT_NV12 ||
                       fmt == GB_CAMERA_FORMAT_JPEG);
        if (bpp) {
            CU_ASSERT_EQUAL(pkt, w * bpp / 8);
        } else {
            CU_ASSERT_NOT_EQUAL(pkt, 0);
        }
    }
}

static void test_camera_capabilities_configure_capture_flush_as_camera_c_sends_them(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    uint8_t o[GB_MSG_MAX_PAYLOAD];
    size_t n;
    /* CAPABILITIES: version, max streams, 12 entries (3 formats x 4 sizes) of 8 bytes */
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CAPABILITIES, NULL, 0, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 4 + 12 * 8);
    const uint8_t caps[12] = {1, 2, 12, 0, 0x01, 0x00, 0x40, 0x01, 0xf0, 0x00, 30, 0};
    CU_ASSERT_EQUAL(memcmp(o, caps, sizeof caps), 0);
    const uint8_t last[8] = {0x40, 0x00, 0x80, 0x07, 0x38, 0x04, 30, 0}; /* JPEG 1920x1080 */
    CU_ASSERT_EQUAL(memcmp(o + 4 + 11 * 8, last, 8), 0);
    /* the camera core tries the format first (TEST_ONLY), then configures it */
    const stream_req s[2] = {{1280, 720, GB_CAMERA_FORMAT_UYVY}, {640, 480, GB_CAMERA_FORMAT_JPEG}};
    const uint8_t want[40] = {
        2, 0, 0, 0, 0x00, 0x00, 0xc3, 0x1e, /* 516096000 bit/s: 30 frames/s of both */
        0x00, 0x05, 0xd0, 0x02, 0x01, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x20,
        0x1c, 0x00, /* 1280x720 UYVY, VC 0, DT 0x1e, 2560-byte lines, 1843200-byte frames */
        0x80, 0x02, 0xe0, 0x01, 0x40, 0x00, 0x01, 0x30, 0x00, 0x00, 0x10, 0x00, 0x00, 0xb0,
        0x04, 0x00, /* 640x480 JPEG, VC 1, DT 0x30, 4096-byte packets, 307200 bytes at most */
    };
    CU_ASSERT_EQUAL(configure(&t, GB_CAMERA_CONFIGURE_STREAMS_TEST_ONLY, s, 2, o, &n),
                    GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, sizeof want);
    CU_ASSERT_EQUAL(memcmp(o, want, sizeof want), 0);
    vm_camera *cam = vm_interface_camera(t.intf, VM_ANY_CPORT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cam);
    vm_camera_state st;
    vm_camera_get_state(cam, &st);
    CU_ASSERT_EQUAL(st.nstreams, 0); /* TEST_ONLY configures nothing */
    CU_ASSERT_EQUAL(configure(&t, 0, s, 2, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, sizeof want);
    CU_ASSERT_EQUAL(memcmp(o, want, sizeof want), 0);
    expect_camera_c_accepts(o, n, 2);
    /* CAPTURE of both streams, 10 frames, with settings; FLUSH answers its id */
    CU_ASSERT_EQUAL(capture(&t, 1, 0x3, 10, 16), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(t.sink.len[0], GB_MSG_HEADER_SIZE); /* no payload */
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera status", 0, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.text, "streams 2: 1280x720 uyvy, 640x480 jpeg; capturing request 1 "
                                   "mask 0x3 frames 0/10; configures 1 captures 1 flushes 0 "
                                   "frames 0");
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_FLUSH, NULL, 0, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_EQUAL(gb_get_le32(o), 1);
    vm_camera_get_state(cam, &st);
    CU_ASSERT_EQUAL(st.nstreams, 2);
    CU_ASSERT_FALSE(st.capturing);
    CU_ASSERT_EQUAL(st.settings_len, 16);
    CU_ASSERT_EQUAL(st.not_applied, 1);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera status", 0, &r), 0);
    const vm_value *v = vm_reply_get(&r, "last_request");
    CU_ASSERT_TRUE(v && v->i == 1);
    v = vm_reply_get(&r, "flushes");
    CU_ASSERT_TRUE(v && v->i == 1);
    v = vm_reply_get(&r, "capturing");
    CU_ASSERT_TRUE(v && v->kind == VM_VALUE_BOOL && v->i == 0);
    vmt_down(&t);
}

/* What the module cannot do comes back adjusted (flag 0x01) and is not applied; camera.c
 * then sets up no data connection either. */
static void test_camera_adjusts_what_it_cannot_do_and_applies_nothing(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    uint8_t o[GB_MSG_MAX_PAYLOAD];
    size_t n;
    /* three streams of a module that has two: the third is dropped */
    const stream_req three[3] = {{640, 480, GB_CAMERA_FORMAT_NV12},
                                 {320, 240, GB_CAMERA_FORMAT_UYVY},
                                 {320, 240, GB_CAMERA_FORMAT_JPEG}};
    CU_ASSERT_EQUAL(configure(&t, 0, three, 3, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(o[0], 2);
    CU_ASSERT_EQUAL(o[1], GB_CAMERA_CONFIGURE_STREAMS_ADJUSTED);
    CU_ASSERT_EQUAL(n, 8 + 2 * 16); /* shorter than asked: camera.c allows a short response */
    expect_camera_c_accepts(o, n, 3);
    CU_ASSERT_EQUAL(gb_get_le16(o + 8 + 9), 640 * 12 / 8); /* NV12 lines */
    /* a raw Bayer format (camera.c knows 0x80) and sizes off the list */
    const stream_req odd[2] = {{800, 600, 0x80}, {4000, 3000, GB_CAMERA_FORMAT_JPEG}};
    CU_ASSERT_EQUAL(configure(&t, 0, odd, 2, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(o[1], GB_CAMERA_CONFIGURE_STREAMS_ADJUSTED);
    expect_camera_c_accepts(o, n, 2);
    CU_ASSERT_EQUAL(gb_get_le16(o + 8), 1280); /* the smallest size covering 800x600 */
    CU_ASSERT_EQUAL(gb_get_le16(o + 8 + 2), 720);
    CU_ASSERT_EQUAL(gb_get_le16(o + 8 + 4), GB_CAMERA_FORMAT_UYVY);
    CU_ASSERT_EQUAL(gb_get_le16(o + 24), 1920); /* nothing covers 4000x3000: the largest */
    CU_ASSERT_EQUAL(gb_get_le16(o + 24 + 2), 1080);
    CU_ASSERT_EQUAL(gb_get_le16(o + 24 + 4), GB_CAMERA_FORMAT_JPEG);
    vm_camera_state st;
    vm_camera_get_state(vm_interface_camera(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.nstreams, 0);
    CU_ASSERT_EQUAL(st.not_applied, 2);
    /* the adjusted answer, sent back, is taken as it is */
    const stream_req fixed[2] = {{1280, 720, GB_CAMERA_FORMAT_UYVY},
                                 {1920, 1080, GB_CAMERA_FORMAT_JPEG}};
    CU_ASSERT_EQUAL(configure(&t, 0, fixed, 2, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(o[1], 0);
    vm_camera_get_state(vm_interface_camera(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.nstreams, 2);
    CU_ASSERT_EQUAL(st.stream[1].width, 1920);
    /* zero streams unconfigures; a capture then has nothing to capture */
    CU_ASSERT_EQUAL(configure(&t, 0, NULL, 0, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 8);
    const uint8_t none[8] = {0};
    CU_ASSERT_EQUAL(memcmp(o, none, 8), 0);
    CU_ASSERT_EQUAL(capture(&t, 2, 0x1, 1, 0), GB_OP_INVALID);
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera status", 0, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.text, "streams 0; idle, last request 0 mask 0x0 frames 0/0; "
                                   "configures 2 captures 0 flushes 0 frames 0");
    vmt_down(&t);
}

static void test_camera_malformed_requests_get_invalid(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    uint8_t r[64], o[GB_MSG_MAX_PAYLOAD];
    const stream_req one = {640, 480, GB_CAMERA_FORMAT_UYVY};
    size_t len = configure_req(r, 0, &one, 1);
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, 3, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, len - 1, NULL, NULL),
                    GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, len + 8, NULL, NULL),
                    GB_OP_INVALID);
    r[0] = 5; /* more than GB_CAMERA_MAX_STREAMS */
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, 4 + 5 * 8, NULL, NULL),
                    GB_OP_INVALID);
    configure_req(r, 0x02, &one, 1); /* unknown flag */
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, len, NULL, NULL), GB_OP_INVALID);
    configure_req(r, 0, &one, 1);
    r[3] = 1; /* header padding */
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, len, NULL, NULL), GB_OP_INVALID);
    configure_req(r, 0, &one, 1);
    r[4 + 6] = 1; /* stream padding */
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, len, NULL, NULL), GB_OP_INVALID);
    configure_req(r, 0, &one, 1);
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CONFIGURE_STREAMS, r, len, NULL, NULL), GB_OP_SUCCESS);
    /* CAPTURE: short, padding, empty mask, a stream not configured */
    uint8_t c[8] = {1, 0, 0, 0, 0x1, 0, 1, 0};
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CAPTURE, c, 7, NULL, NULL), GB_OP_INVALID);
    c[5] = 1;
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CAPTURE, c, 8, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(capture(&t, 1, 0x0, 1, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(capture(&t, 1, 0x2, 1, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(capture(&t, 1, 0x1, 1, GB_MSG_MAX_PAYLOAD - 8), GB_OP_SUCCESS);
    /* FLUSH and CAPABILITIES carry nothing; METADATA goes module -> AP only */
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_FLUSH, c, 1, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_CAPABILITIES, c, 4, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_METADATA, c, 8, NULL, NULL), GB_OP_PROTOCOL_BAD);
    CU_ASSERT_EQUAL(op(&t, 0x07, NULL, 0, NULL, NULL), GB_OP_PROTOCOL_BAD);
    /* the data CPort has no operations */
    t.sink.n = 0;
    CU_ASSERT_EQUAL(vmt_request(&t, 2, 4, 0x02, NULL, 0), 1);
    CU_ASSERT_EQUAL(t.sink.msg[0][5], GB_OP_PROTOCOL_BAD);
    size_t n;
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_FLUSH, NULL, 0, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(gb_get_le32(o), 1);
    vmt_down(&t);
}

static void test_camera_frames_send_metadata_until_the_capture_ends(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera frame", 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.text, "no capture is running");
    const stream_req s[2] = {{320, 240, GB_CAMERA_FORMAT_NV12},
                             {1920, 1080, GB_CAMERA_FORMAT_JPEG}};
    CU_ASSERT_EQUAL(configure(&t, 0, s, 2, NULL, NULL), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(capture(&t, 0x01020305, 0x2, 2, 0), GB_OP_SUCCESS);
    for (unsigned f = 0; f < 2; f++) {
        t.sink.n = 0;
        CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera frame", 0, &r), 0);
        /* unidirectional METADATA: request id, frame number, stream 1 (the mask's lowest) */
        const uint8_t want[16] = {16, 0, 0, 0, GB_CAMERA_TYPE_METADATA, 0, 0, 0,
                                  0x05, 0x03, 0x02, 0x01, (uint8_t)f, 0, 1, 0};
        vmt_expect(&t, 0, 1, want, sizeof want);
    }
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera frame", 0, &r), -1);
    vm_camera_state st;
    vm_camera_get_state(vm_interface_camera(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.metadata, 2);
    CU_ASSERT_FALSE(st.capturing);
    /* num_frames 0 runs until FLUSH; a disconnected CPort loses the frame */
    CU_ASSERT_EQUAL(capture(&t, 9, 0x3, 0, 0), GB_OP_SUCCESS);
    for (unsigned f = 0; f < 5; f++)
        CU_ASSERT_EQUAL(vm_camera_frame(vm_interface_camera(t.intf, 1)), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(vm_camera_frame(vm_interface_camera(t.intf, 1)), -ENOTCONN);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera frame", 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.text, "the CPort is not connected (the AP suspended it?)");
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 1), 0);
    size_t n;
    uint8_t o[8];
    CU_ASSERT_EQUAL(op(&t, GB_CAMERA_TYPE_FLUSH, NULL, 0, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(gb_get_le32(o), 9);
    CU_ASSERT_EQUAL(vm_camera_frame(vm_interface_camera(t.intf, 1)), -ENOENT);
    /* a module reboot forgets the configuration */
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_ACTIVATE), 0);
    vm_camera_get_state(vm_interface_camera(t.intf, 1), &st);
    CU_ASSERT_EQUAL(st.nstreams, 0);
    CU_ASSERT_EQUAL(st.metadata, 7);
    vmt_down(&t);
}

static void test_camera_max_streams_key(void)
{
    vmt t;
    const uint16_t c1[] = {1};
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0d, 0x0d), "[cport 1]\nmax-streams = 4\n", c1,
                           1));
    uint8_t o[GB_MSG_MAX_PAYLOAD];
    size_t n;
    const stream_req s[4] = {{1920, 1080, GB_CAMERA_FORMAT_UYVY},
                             {1920, 1080, GB_CAMERA_FORMAT_UYVY},
                             {1920, 1080, GB_CAMERA_FORMAT_UYVY},
                             {1920, 1080, GB_CAMERA_FORMAT_UYVY}};
    CU_ASSERT_EQUAL(configure(&t, 0, s, 4, o, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(o[0], 4);
    CU_ASSERT_EQUAL(o[1], 0);
    CU_ASSERT_EQUAL(gb_get_le32(o + 4), 4u * 1920 * 1080 * 2 * 8 * 30);
    CU_ASSERT_EQUAL(o[8 + 3 * 16 + 6], 3); /* virtual channel of stream 3 */
    expect_camera_c_accepts(o, n, 4);
    CU_ASSERT_EQUAL(capture(&t, 7, 0xf, 1, 0), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(capture(&t, 8, 0x1f, 1, 0), GB_OP_INVALID);
    vmt_down(&t);
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0d, 0x0d), "[cport 1]\nmax-streams = 5\n", c1,
                           1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: max-streams: "));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0d, 0x0d), "[cport 1]\nfps = 60\n", c1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "fps"));
}

static uint32_t rnd_state = 777;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

/* Guest-controlled input: random requests of every type and length; every answer is a
 * success camera.c would accept, or a failure without payload. */
static void test_camera_random_requests_keep_the_response_rules(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    uint8_t r[96], o[GB_MSG_MAX_PAYLOAD];
    static const uint16_t fmts[] = {GB_CAMERA_FORMAT_UYVY, GB_CAMERA_FORMAT_NV12,
                                    GB_CAMERA_FORMAT_JPEG, 0x80, 0};
    unsigned ok = 0;
    for (unsigned i = 0; i < 20000; i++) {
        uint8_t type = (uint8_t)(2 + rnd() % 5);
        size_t len;
        if (type == GB_CAMERA_TYPE_CONFIGURE_STREAMS && rnd() % 2) {
            stream_req s[4];
            unsigned ns = rnd() % 5;
            for (unsigned k = 0; k < ns; k++)
                s[k] = (stream_req){(uint16_t)(rnd() % 2100), (uint16_t)(rnd() % 1200),
                                    fmts[rnd() % 5]};
            len = configure_req(r, (uint8_t)(rnd() % 3 == 0), s, ns);
        } else {
            len = rnd() % sizeof r;
            for (size_t k = 0; k < len; k++)
                r[k] = (uint8_t)(rnd() % 4 ? rnd() % 4 : rnd());
        }
        size_t n = 0;
        uint8_t res = op(&t, type, r, len, o, &n);
        CU_ASSERT_TRUE(res == GB_OP_SUCCESS || res == GB_OP_INVALID || res == GB_OP_PROTOCOL_BAD);
        if (res != GB_OP_SUCCESS) {
            CU_ASSERT_EQUAL(n, 0);
            continue;
        }
        ok++;
        if (type == GB_CAMERA_TYPE_CONFIGURE_STREAMS)
            expect_camera_c_accepts(o, n, r[0]);
        if (type == GB_CAMERA_TYPE_FLUSH)
            CU_ASSERT_EQUAL(n, 4);
        if (type == GB_CAMERA_TYPE_CAPTURE)
            CU_ASSERT_EQUAL(n, 0);
        if (rnd() % 32 == 0) {
            vm_reply rep;
            t.sink.n = 0;
            vm_backend_command(t.intf, "camera frame", 0, &rep);
        }
    }
    CU_ASSERT_TRUE(ok > 500);
    vmt_down(&t);
}

const unit_test vmt_camera_tests[] = {
    UNIT_TEST(test_camera_capabilities_configure_capture_flush_as_camera_c_sends_them),
    UNIT_TEST(test_camera_adjusts_what_it_cannot_do_and_applies_nothing),
    UNIT_TEST(test_camera_malformed_requests_get_invalid),
    UNIT_TEST(test_camera_frames_send_metadata_until_the_capture_ends),
    UNIT_TEST(test_camera_max_streams_key),
    UNIT_TEST(test_camera_random_requests_keep_the_response_rules),
    UNIT_TESTS_END,
};
