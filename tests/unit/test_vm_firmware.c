// SPDX-License-Identifier: MIT
// Firmware: the Bootrom protocol handler driven as 6.1 drivers/staging/greybus/bootrom.c
// answers it (the AP side is played here), firmware images (size, CRC-32) and the boot into
// the image's manifest with the mode-switch flag the SVC turns into a mailbox event.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/authentication.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/bootrom.h"
#include "virtual-modules/dme.h"
#include "virtual-modules/fw_download.h"
#include "virtual-modules/fw_image.h"
#include "virtual-modules/fw_mgmt.h"
#include "virtual-modules/manifest.h"
#include "virtual-modules/vm_reply.h"

static const uint16_t cport1[] = {1};

/* What the image boots into: GPIO on CPort 1, loopback on CPort 2. */
static const char fw_mnfs[] =
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
    "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
    "[string-descriptor 1]\nstring = gbvp\n"
    "[string-descriptor 2]\nstring = stage 2\n"
    "[bundle-descriptor 1]\nclass = 0x0a\n"
    "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x02\n"
    "[bundle-descriptor 2]\nclass = 0x11\n"
    "[cport-descriptor 2]\nbundle = 2\nprotocol = 0x11\n";

#define IMG_SIZE 5000u /* three fetches: 2000, 2000, 1000 */

static uint8_t *make_image(size_t *len)
{
    uint8_t *img = malloc(IMG_SIZE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(img);
    *len = vm_fw_image_build(img, IMG_SIZE, IMG_SIZE, "s2l-test", 1, 2, fw_mnfs);
    CU_ASSERT_EQUAL_FATAL(*len, IMG_SIZE);
    return img;
}

static void up_bootrom(vmt *t)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x15, 0x15),
                           "[interface]\ninit-status = 0x06000000\n", cport1, 1));
}

/* The last message the module sent must be a request of `type` on CPort 1 with this
 * payload; the AP's answer goes back. */
static void answer_on(vmt *t, uint16_t cport, uint8_t type, const void *want, size_t wlen,
                      uint8_t result, const void *payload, size_t plen)
{
    CU_ASSERT_FATAL(t->sink.n >= 1);
    size_t i = t->sink.n - 1;
    gb_msg_header h;
    CU_ASSERT_EQUAL_FATAL(gb_msg_header_decode(t->sink.msg[i], t->sink.len[i], &h), 0);
    CU_ASSERT_EQUAL_FATAL(t->sink.cport[i], cport);
    CU_ASSERT_EQUAL_FATAL(h.type, type);
    CU_ASSERT_NOT_EQUAL(h.operation_id, 0);
    CU_ASSERT_EQUAL(h.size, GB_MSG_HEADER_SIZE + wlen);
    if (want && h.size == GB_MSG_HEADER_SIZE + wlen)
        CU_ASSERT_EQUAL(memcmp(t->sink.msg[i] + GB_MSG_HEADER_SIZE, want, wlen), 0);
    uint8_t resp[GB_MSG_MAX_SIZE];
    size_t n = gb_msg_build_response(resp, sizeof resp, &h, result, payload, plen);
    CU_ASSERT_FATAL(n > 0);
    t->sink.n = 0;
    CU_ASSERT_EQUAL(vmt_receive(t, cport, resp, n, SIM_MS(2)), 0);
}

static void answer(vmt *t, uint8_t type, const void *want, size_t wlen, uint8_t result,
                   const void *payload, size_t plen)
{
    answer_on(t, 1, type, want, wlen, result, payload, plen);
}

/* VERSION, AP_READY, FIRMWARE_SIZE, GET_FIRMWARE until the whole image went over. */
static void download(vmt *t, const uint8_t *img, size_t len)
{
    const uint8_t ver[2] = {0, 1};
    vmt_request(t, 1, 1, GB_BOOTROM_TYPE_VERSION, ver, 2);
    vmt_expect_response(t, 0, 1, 1, GB_BOOTROM_TYPE_VERSION, GB_OP_SUCCESS, ver, 2);
    t->sink.n = 0;
    CU_ASSERT_EQUAL(vmt_request(t, 1, 2, GB_BOOTROM_TYPE_AP_READY, NULL, 0), 2);
    vmt_expect_response(t, 0, 1, 2, GB_BOOTROM_TYPE_AP_READY, GB_OP_SUCCESS, NULL, 0);
    const uint8_t stage = 2;
    uint8_t size[4];
    gb_put_le32(size, (uint32_t)len);
    answer(t, GB_BOOTROM_TYPE_FIRMWARE_SIZE, &stage, 1, GB_OP_SUCCESS, size, 4);
    for (size_t off = 0; off < len;) {
        size_t n = len - off < GB_BOOTROM_FETCH_MAX ? len - off : GB_BOOTROM_FETCH_MAX;
        uint8_t req[8];
        gb_put_le32(req, (uint32_t)off);
        gb_put_le32(req + 4, (uint32_t)n);
        answer(t, GB_BOOTROM_TYPE_GET_FIRMWARE, req, 8, GB_OP_SUCCESS, img + off, n);
        off += n;
    }
}

static void test_fw_crc32_and_image_checks(void)
{
    CU_ASSERT_EQUAL(vm_fw_crc32((const uint8_t *)"123456789", 9), 0xcbf43926u);
    size_t len;
    uint8_t *img = make_image(&len);
    vm_fw_image fi;
    char err[128];
    CU_ASSERT_EQUAL(vm_fw_image_parse(img, len, &fi, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(fi.name, "s2l-test");
    CU_ASSERT_EQUAL(fi.major, 1);
    CU_ASSERT_EQUAL(fi.minor, 2);
    CU_ASSERT_EQUAL(fi.manifest_len, strlen(fw_mnfs));
    CU_ASSERT_EQUAL(vm_fw_image_parse(img, len - 1, &fi, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "4999 received"));
    img[len - 1] ^= 1;
    CU_ASSERT_EQUAL(vm_fw_image_parse(img, len, &fi, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "CRC-32"));
    img[len - 1] ^= 1;
    img[0] = 'X';
    CU_ASSERT_EQUAL(vm_fw_image_parse(img, len, &fi, err, sizeof err), -1);
    free(img);
}

static void test_bootrom_downloads_checks_and_boots_the_image(void)
{
    vmt t;
    up_bootrom(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    download(&t, img, len);
    /* valid, unsigned: READY_TO_BOOT says INSECURE */
    const uint8_t insecure = GB_BOOTROM_BOOT_STATUS_INSECURE;
    vm_bootrom *b = vm_interface_bootrom(t.intf, 1);
    vm_bootrom_stats st;
    vm_bootrom_get_stats(b, &st);
    CU_ASSERT_EQUAL(st.state, VM_BOOTROM_READY);
    CU_ASSERT_EQUAL(st.fetches, 3);
    CU_ASSERT_EQUAL(st.received, IMG_SIZE);
    CU_ASSERT_EQUAL(st.crc, vm_fw_crc32(img, len));
    CU_ASSERT_FALSE(vm_interface_mode_switch_requested(t.intf));
    answer(&t, GB_BOOTROM_TYPE_READY_TO_BOOT, &insecure, 1, GB_OP_SUCCESS, NULL, 0);

    /* booted: the mailbox flag is up, connections are gone, the new manifest is served */
    CU_ASSERT_TRUE(vm_interface_mode_switch_requested(t.intf));
    CU_ASSERT_FALSE(vm_interface_cport_connected(t.intf, 0));
    CU_ASSERT_FALSE(vm_interface_cport_connected(t.intf, 1));
    CU_ASSERT_PTR_NULL(vm_interface_bootrom(t.intf, VM_ANY_CPORT));
    CU_ASSERT_PTR_NOT_NULL(vm_interface_gpio(t.intf, 1));
    CU_ASSERT_PTR_NOT_NULL(vm_interface_loopback(t.intf, 2));
    vm_firmware_info fw;
    vm_interface_firmware_info(t.intf, &fw);
    CU_ASSERT_EQUAL(fw.boots, 1);
    CU_ASSERT_STRING_EQUAL(fw.name, "s2l-test");
    CU_ASSERT_EQUAL(fw.size, IMG_SIZE);
    CU_ASSERT_EQUAL(fw.crc, vm_fw_crc32(img + 16, len - 16));
    uint32_t v = 0;
    CU_ASSERT_EQUAL(vm_interface_dme_get(t.intf, VM_DME_TOSHIBA_INIT_STATUS, 0, &v), 0);
    CU_ASSERT_EQUAL(v, VM_INIT_STATUS_DEFAULT); /* no boot-ROM quirks after the switch */

    /* the AP re-enables the interface (6.1 gb_interface_legacy_mode_switch) */
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 0), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 1), 0);
    t.sink.n = 0;
    vmt_request(&t, 0, 5, GB_CONTROL_TYPE_GET_MANIFEST_SIZE, NULL, 0);
    CU_ASSERT_EQUAL(t.sink.n, 1);
    CU_ASSERT(gb_get_le16(t.sink.msg[0] + GB_MSG_HEADER_SIZE) > 40);
    t.sink.n = 0;
    vmt_request(&t, 1, 6, GB_GPIO_TYPE_LINE_COUNT, NULL, 0);
    const uint8_t lines = 7;
    vmt_expect_response(&t, 0, 1, 6, GB_GPIO_TYPE_LINE_COUNT, GB_OP_SUCCESS, &lines, 1);

    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "firmware state", 0, &r), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "boots 1 name s2l-test size 5000"));
    free(img);
    vmt_down(&t);
}

static void test_bootrom_refuses_a_corrupt_image(void)
{
    vmt t;
    up_bootrom(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    img[len - 10] ^= 0x40;
    download(&t, img, len);
    const uint8_t invalid = GB_BOOTROM_BOOT_STATUS_INVALID;
    /* 6.1 answers an INVALID READY_TO_BOOT with -EINVAL */
    answer(&t, GB_BOOTROM_TYPE_READY_TO_BOOT, &invalid, 1, GB_OP_INVALID, NULL, 0);
    vm_bootrom *b = vm_interface_bootrom(t.intf, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    vm_bootrom_stats st;
    vm_bootrom_get_stats(b, &st);
    CU_ASSERT_EQUAL(st.state, VM_BOOTROM_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(vm_bootrom_error(b), "CRC-32"));
    CU_ASSERT_FALSE(vm_interface_mode_switch_requested(t.intf));
    vm_firmware_info fw;
    vm_interface_firmware_info(t.intf, &fw);
    CU_ASSERT_EQUAL(fw.boots, 0);
    free(img);
    vmt_down(&t);
}

static void test_bootrom_falls_back_to_flash_when_the_download_fails(void)
{
    vmt t;
    up_bootrom(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    t.sink.n = 0;
    vmt_request(&t, 1, 2, GB_BOOTROM_TYPE_AP_READY, NULL, 0);
    const uint8_t stage = 2;
    /* a kernel without a firmware loader: request_firmware() gives -EINVAL */
    answer(&t, GB_BOOTROM_TYPE_FIRMWARE_SIZE, &stage, 1, GB_OP_INVALID, NULL, 0);
    vm_bootrom *b = vm_interface_bootrom(t.intf, 1);
    vm_bootrom_stats st;
    vm_bootrom_get_stats(b, &st);
    CU_ASSERT_EQUAL(st.state, VM_BOOTROM_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(vm_bootrom_error(b), "request 0x02 with result 0x06"));
    CU_ASSERT_EQUAL(t.sink.n, 0);
    /* bad sizes are refused, a good image goes out as READY_TO_BOOT at once */
    CU_ASSERT_EQUAL(vm_bootrom_flash(b, img, 10), -EINVAL);
    CU_ASSERT_EQUAL(vm_bootrom_flash(b, img, len), 0);
    const uint8_t insecure = GB_BOOTROM_BOOT_STATUS_INSECURE;
    answer(&t, GB_BOOTROM_TYPE_READY_TO_BOOT, &insecure, 1, GB_OP_SUCCESS, NULL, 0);
    CU_ASSERT_TRUE(vm_interface_mode_switch_requested(t.intf));
    CU_ASSERT_PTR_NOT_NULL(vm_interface_gpio(t.intf, 1));
    free(img);
    vmt_down(&t);
}

static void test_bootrom_flash_stored_before_the_download_is_its_fallback(void)
{
    vmt t;
    up_bootrom(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    vm_bootrom *b = vm_interface_bootrom(t.intf, 1);
    CU_ASSERT_EQUAL(vm_bootrom_flash(b, img, len), 0);
    t.sink.n = 0;
    vmt_request(&t, 1, 2, GB_BOOTROM_TYPE_AP_READY, NULL, 0);
    const uint8_t stage = 2, insecure = GB_BOOTROM_BOOT_STATUS_INSECURE;
    answer(&t, GB_BOOTROM_TYPE_FIRMWARE_SIZE, &stage, 1, GB_OP_INVALID, NULL, 0);
    CU_ASSERT_TRUE(vm_bootrom_booted_from_flash(b));
    answer(&t, GB_BOOTROM_TYPE_READY_TO_BOOT, &insecure, 1, GB_OP_SUCCESS, NULL, 0);
    CU_ASSERT_TRUE(vm_interface_mode_switch_requested(t.intf));
    free(img);
    vmt_down(&t);
}

static void test_bootrom_protocol_errors(void)
{
    vmt t;
    up_bootrom(&t);
    const uint8_t ver[3] = {0, 1, 0};
    vmt_request(&t, 1, 1, GB_BOOTROM_TYPE_VERSION, ver, 3);
    vmt_expect_response(&t, 0, 1, 1, GB_BOOTROM_TYPE_VERSION, GB_OP_INVALID, NULL, 0);
    t.sink.n = 0;
    vmt_request(&t, 1, 2, GB_BOOTROM_TYPE_GET_VID_PID, NULL, 0);
    vmt_expect_response(&t, 0, 1, 2, GB_BOOTROM_TYPE_GET_VID_PID, GB_OP_PROTOCOL_BAD, NULL, 0);
    t.sink.n = 0;
    vmt_request(&t, 1, 3, GB_BOOTROM_TYPE_AP_READY, NULL, 0);
    const uint8_t stage = 2;
    uint8_t size[4];
    gb_put_le32(size, 12); /* smaller than any image */
    answer(&t, GB_BOOTROM_TYPE_FIRMWARE_SIZE, &stage, 1, GB_OP_SUCCESS, size, 4);
    vm_bootrom *b = vm_interface_bootrom(t.intf, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(vm_bootrom_error(b), "out of range"));
    /* a short GET_FIRMWARE answer stops the download */
    t.sink.n = 0;
    vmt_request(&t, 1, 4, GB_BOOTROM_TYPE_AP_READY, NULL, 0);
    gb_put_le32(size, 3000);
    answer(&t, GB_BOOTROM_TYPE_FIRMWARE_SIZE, &stage, 1, GB_OP_SUCCESS, size, 4);
    uint8_t chunk[100] = {0};
    answer(&t, GB_BOOTROM_TYPE_GET_FIRMWARE, NULL, 8, GB_OP_SUCCESS, chunk, sizeof chunk);
    vm_bootrom_stats st;
    vm_bootrom_get_stats(b, &st);
    CU_ASSERT_EQUAL(st.state, VM_BOOTROM_FAILED);
    CU_ASSERT_EQUAL(t.sink.n, 0);
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "firmware state", 0, &r), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "bootrom failed"));
    CU_ASSERT_NOT_EQUAL(vm_backend_command(t.intf, "bootrom flash /nonexistent/x", 0, &r), 0);
    vmt_down(&t);
}

/* The image the guest build packs: its manifest parses, and the catalog entry loads. */
static void test_shipped_firmware_manifest_and_catalog_entry(void)
{
    FILE *f = fopen("guest/firmware/s2l-gpio-loopback.mnfs", "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    vm_manifest_diags *d = vm_manifest_diags_new();
    vm_manifest *m = vm_manifest_parse_text("s2l", text, n, d);
    CU_ASSERT_PTR_NOT_NULL(m);
    CU_ASSERT_EQUAL(vm_manifest_diags_count(d), 0);
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
}

/* ---- Firmware Management + Firmware Download ------------------------------------------ */

static const char fwm_mnfs[] =
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
    "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
    "[string-descriptor 1]\nstring = gbvp\n"
    "[string-descriptor 2]\nstring = fw\n"
    "[bundle-descriptor 1]\nclass = 0x16\n"
    "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x18\n"
    "[cport-descriptor 2]\nbundle = 1\nprotocol = 0x17\n";
static const uint16_t fwm_cports[] = {1, 2};

static void up_fwm(vmt *t)
{
    CU_ASSERT_FATAL(vmt_up(t, fwm_mnfs, "[cport 1]\ntag = s3f\nversion-major = 3\n"
                                        "version-minor = 4\n", fwm_cports, 2));
}

/* The module's FIND_FIRMWARE for `tag` (last message, CPort 2) is answered with image id 9
 * and the image, which then goes over in FETCHes; RELEASE is acknowledged. */
static void serve_image(vmt *t, const char *tag, const uint8_t *img, size_t len)
{
    uint8_t find[GB_FIRMWARE_TAG_MAX_SIZE] = {0};
    memcpy(find, tag, strlen(tag));
    uint8_t fr[5] = {9};
    gb_put_le32(fr + 1, (uint32_t)len);
    answer_on(t, 2, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, find, sizeof find, GB_OP_SUCCESS, fr, 5);
    for (size_t off = 0; off < len;) {
        size_t n = len - off < VM_FW_DOWNLOAD_CHUNK ? len - off : VM_FW_DOWNLOAD_CHUNK;
        uint8_t req[9] = {9};
        gb_put_le32(req + 1, (uint32_t)off);
        gb_put_le32(req + 5, (uint32_t)n);
        answer_on(t, 2, GB_FW_DOWNLOAD_TYPE_FETCH_FIRMWARE, req, 9, GB_OP_SUCCESS, img + off, n);
        off += n;
    }
    const uint8_t id = 9;
    answer_on(t, 2, GB_FW_DOWNLOAD_TYPE_RELEASE_FIRMWARE, &id, 1, GB_OP_SUCCESS, NULL, 0);
}

static void test_fw_mgmt_interface_version_and_bad_requests(void)
{
    vmt t;
    up_fwm(&t);
    vmt_request(&t, 1, 1, GB_FW_MGMT_TYPE_INTERFACE_FW_VERSION, NULL, 0);
    const uint8_t want[14] = {'s', '3', 'f', 0, 0, 0, 0, 0, 0, 0, 3, 0, 4, 0};
    vmt_expect_response(&t, 0, 1, 1, GB_FW_MGMT_TYPE_INTERFACE_FW_VERSION, GB_OP_SUCCESS, want,
                        14);
    t.sink.n = 0;
    uint8_t load[12];
    memset(load, 'x', sizeof load); /* tag without its NUL */
    load[0] = 1;
    load[1] = GB_FW_LOAD_METHOD_UNIPRO;
    vmt_request(&t, 1, 2, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, load, 12);
    vmt_expect_response(&t, 0, 1, 2, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, GB_OP_INVALID, NULL, 0);
    t.sink.n = 0;
    vmt_request(&t, 1, 3, GB_FW_MGMT_TYPE_LOADED_FW, load, 6);
    vmt_expect_response(&t, 0, 1, 3, GB_FW_MGMT_TYPE_LOADED_FW, GB_OP_PROTOCOL_BAD, NULL, 0);
    t.sink.n = 0;
    vmt_request(&t, 2, 4, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, load, 10);
    vmt_expect_response(&t, 0, 2, 4, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, GB_OP_PROTOCOL_BAD,
                        NULL, 0);
    vmt_down(&t);
}

static void test_fw_mgmt_load_and_validate_then_mode_switch_boots_it(void)
{
    vmt t;
    up_fwm(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    uint8_t load[12] = {7, GB_FW_LOAD_METHOD_UNIPRO, 's', '3', 'f'};
    t.sink.n = 0;
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 2, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, load, 12), 2);
    vmt_expect_response(&t, 0, 1, 2, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, GB_OP_SUCCESS, NULL, 0);
    serve_image(&t, "s3f", img, len);
    /* LOADED_FW {request id, UNVALIDATED, 1, 2} on the management CPort */
    const uint8_t loaded[6] = {7, GB_FW_LOAD_STATUS_UNVALIDATED, 1, 0, 2, 0};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_LOADED_FW, loaded, 6, GB_OP_SUCCESS, NULL, 0);
    vm_fw_download_stats ds;
    vm_fw_download_get_stats(vm_interface_fw_download(t.intf, 2), &ds);
    CU_ASSERT_EQUAL(ds.fetches, 3);
    CU_ASSERT_EQUAL(ds.completed, 1);
    CU_ASSERT_FALSE(vm_interface_mode_switch_requested(t.intf));
    /* FW_MGMT_IOC_MODE_SWITCH: 6.1 sends the unidirectional control MODE_SWITCH */
    uint8_t ms[8];
    size_t n = gb_msg_build(ms, sizeof ms, 0, GB_CONTROL_TYPE_MODE_SWITCH, 0, NULL, 0);
    t.sink.n = 0;
    CU_ASSERT_EQUAL(vmt_receive(&t, 0, ms, n, SIM_MS(3)), 0);
    CU_ASSERT_EQUAL(t.sink.n, 0);
    CU_ASSERT_TRUE(vm_interface_mode_switch_requested(t.intf));
    CU_ASSERT_PTR_NOT_NULL(vm_interface_gpio(t.intf, 1));
    CU_ASSERT_PTR_NULL(vm_interface_fw_mgmt(t.intf, VM_ANY_CPORT));
    vm_firmware_info fw;
    vm_interface_firmware_info(t.intf, &fw);
    CU_ASSERT_EQUAL(fw.boots, 1);
    CU_ASSERT_EQUAL(fw.size, IMG_SIZE);
    free(img);
    vmt_down(&t);
}

static void test_fw_mgmt_load_failures(void)
{
    vmt t;
    up_fwm(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    uint8_t load[12] = {7, GB_FW_LOAD_METHOD_UNIPRO, 's', '3', 'f'};
    /* the AP cannot find it (no firmware loader): LOADED_FW FAILED */
    t.sink.n = 0;
    vmt_request(&t, 1, 2, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, load, 12);
    answer_on(&t, 2, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, NULL, 10, GB_OP_INVALID, NULL, 0);
    const uint8_t failed[6] = {7, GB_FW_LOAD_STATUS_FAILED, 0, 0, 0, 0};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_LOADED_FW, failed, 6, GB_OP_SUCCESS, NULL, 0);
    /* a corrupt image: VALIDATION_FAILED, nothing staged */
    img[len - 1] ^= 0xff;
    load[0] = 8;
    t.sink.n = 0;
    vmt_request(&t, 1, 3, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, load, 12);
    serve_image(&t, "s3f", img, len);
    const uint8_t bad[6] = {8, GB_FW_LOAD_STATUS_VALIDATION_FAILED, 0, 0, 0, 0};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_LOADED_FW, bad, 6, GB_OP_SUCCESS, NULL, 0);
    uint8_t ms[8];
    size_t n = gb_msg_build(ms, sizeof ms, 0, GB_CONTROL_TYPE_MODE_SWITCH, 0, NULL, 0);
    CU_ASSERT_EQUAL(vmt_receive(&t, 0, ms, n, SIM_MS(3)), 0);
    CU_ASSERT_PTR_NOT_NULL(vm_interface_fw_mgmt(t.intf, 1)); /* still the old firmware */
    /* internal storage is not offered */
    load[0] = 9;
    load[1] = 2;
    t.sink.n = 0;
    vmt_request(&t, 1, 4, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, load, 12);
    const uint8_t internal[6] = {9, GB_FW_LOAD_STATUS_FAILED, 0, 0, 0, 0};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_LOADED_FW, internal, 6, GB_OP_SUCCESS, NULL, 0);
    free(img);
    vmt_down(&t);
}

static void test_fw_mgmt_backend_version_and_update(void)
{
    vmt t;
    up_fwm(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    const uint8_t tag[10] = {'b', 'f', '_', '0', '1'};
    t.sink.n = 0;
    vmt_request(&t, 1, 2, GB_FW_MGMT_TYPE_BACKEND_FW_VERSION, tag, 10);
    const uint8_t none[5] = {0, 0, 0, 0, GB_FW_BACKEND_VERSION_STATUS_NOT_AVAILABLE};
    vmt_expect_response(&t, 0, 1, 2, GB_FW_MGMT_TYPE_BACKEND_FW_VERSION, GB_OP_SUCCESS, none, 5);
    /* not found: BACKEND_FW_UPDATED FAIL_FIND */
    uint8_t upd[11] = {4};
    memcpy(upd + 1, tag, 10);
    t.sink.n = 0;
    vmt_request(&t, 1, 3, GB_FW_MGMT_TYPE_BACKEND_FW_UPDATE, upd, 11);
    answer_on(&t, 2, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, tag, 10, GB_OP_INVALID, NULL, 0);
    const uint8_t fail_find[2] = {4, GB_FW_BACKEND_FW_STATUS_FAIL_FIND};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_BACKEND_FW_UPDATED, fail_find, 2, GB_OP_SUCCESS, NULL, 0);
    /* found: SUCCESS, and the version is the image's */
    upd[0] = 5;
    t.sink.n = 0;
    vmt_request(&t, 1, 4, GB_FW_MGMT_TYPE_BACKEND_FW_UPDATE, upd, 11);
    serve_image(&t, "bf_01", img, len);
    const uint8_t success[2] = {5, GB_FW_BACKEND_FW_STATUS_SUCCESS};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_BACKEND_FW_UPDATED, success, 2, GB_OP_SUCCESS, NULL, 0);
    t.sink.n = 0;
    vmt_request(&t, 1, 5, GB_FW_MGMT_TYPE_BACKEND_FW_VERSION, tag, 10);
    const uint8_t v12[5] = {1, 0, 2, 0, GB_FW_BACKEND_VERSION_STATUS_SUCCESS};
    vmt_expect_response(&t, 0, 1, 5, GB_FW_MGMT_TYPE_BACKEND_FW_VERSION, GB_OP_SUCCESS, v12, 5);
    /* a short FETCH answer: FAIL_FETCH after RELEASE */
    upd[0] = 6;
    t.sink.n = 0;
    vmt_request(&t, 1, 6, GB_FW_MGMT_TYPE_BACKEND_FW_UPDATE, upd, 11);
    uint8_t fr[5] = {3};
    gb_put_le32(fr + 1, (uint32_t)len);
    answer_on(&t, 2, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, tag, 10, GB_OP_SUCCESS, fr, 5);
    answer_on(&t, 2, GB_FW_DOWNLOAD_TYPE_FETCH_FIRMWARE, NULL, 9, GB_OP_SUCCESS, img, 10);
    const uint8_t id = 3;
    answer_on(&t, 2, GB_FW_DOWNLOAD_TYPE_RELEASE_FIRMWARE, &id, 1, GB_OP_SUCCESS, NULL, 0);
    const uint8_t fail_fetch[2] = {6, GB_FW_BACKEND_FW_STATUS_FAIL_FETCH};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_BACKEND_FW_UPDATED, fail_fetch, 2, GB_OP_SUCCESS, NULL, 0);
    free(img);
    vmt_down(&t);
}

/* The AP drops the Firmware Download connection in the middle of a load (the driver is
 * unbound, the bundle suspended): no FETCH answer will come, so the load fails at once
 * (LOADED_FW FAILED) and the next LOAD_AND_VALIDATE starts a new download instead of being
 * told to retry for as long as the module runs. */
static void test_fw_mgmt_load_survives_a_dropped_download_connection(void)
{
    vmt t;
    up_fwm(&t);
    size_t len;
    uint8_t *img = make_image(&len);
    uint8_t load[12] = {7, GB_FW_LOAD_METHOD_UNIPRO, 's', '3', 'f'};
    t.sink.n = 0;
    vmt_request(&t, 1, 2, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, load, 12);
    uint8_t fr[5] = {9};
    gb_put_le32(fr + 1, (uint32_t)len);
    answer_on(&t, 2, GB_FW_DOWNLOAD_TYPE_FIND_FIRMWARE, NULL, 10, GB_OP_SUCCESS, fr, 5);
    CU_ASSERT_EQUAL(t.sink.n, 1); /* the first FETCH_FIRMWARE, never answered */
    t.sink.n = 0;
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 2), 0);
    const uint8_t failed[6] = {7, GB_FW_LOAD_STATUS_FAILED, 0, 0, 0, 0};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_LOADED_FW, failed, 6, GB_OP_SUCCESS, NULL, 0);
    vm_fw_download_stats ds;
    vm_fw_download_get_stats(vm_interface_fw_download(t.intf, 2), &ds);
    CU_ASSERT_EQUAL(ds.failed, 1);
    /* the connection comes back: a new load runs to its end */
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 2), 0);
    load[0] = 8;
    t.sink.n = 0;
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 3, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, load, 12), 2);
    vmt_expect_response(&t, 0, 1, 3, GB_FW_MGMT_TYPE_LOAD_AND_VALIDATE_FW, GB_OP_SUCCESS, NULL, 0);
    serve_image(&t, "s3f", img, len);
    const uint8_t loaded[6] = {8, GB_FW_LOAD_STATUS_UNVALIDATED, 1, 0, 2, 0};
    answer_on(&t, 1, GB_FW_MGMT_TYPE_LOADED_FW, loaded, 6, GB_OP_SUCCESS, NULL, 0);
    free(img);
    vmt_down(&t);
}

/* ---- Component Authentication -------------------------------------------------------- */

/* Verifies an Ed25519 signature with OpenSSL: true when valid. */
static bool ed25519_verify(const uint8_t *pub, const uint8_t *msg, size_t len, const uint8_t *sig)
{
    EVP_PKEY *pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = pk && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pk) == 1 &&
              EVP_DigestVerify(ctx, sig, 64, msg, len) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pk);
    return ok;
}

static const char cap_mnfs[] =
    "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
    "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
    "[string-descriptor 1]\nstring = gbvp\n"
    "[string-descriptor 2]\nstring = cap\n"
    "[bundle-descriptor 1]\nclass = 0x16\n"
    "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x18\n"
    "[cport-descriptor 4]\nbundle = 1\nprotocol = 0x19\n";
static const uint16_t cap_cports[] = {1, 4};

static void test_cap_uid_certificate_and_signed_challenge(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, cap_mnfs, "[cport 4]\nuid = 0x1122334455667788\n", cap_cports, 2));
    vmt_request(&t, 4, 1, GB_CAP_TYPE_GET_ENDPOINT_UID, NULL, 0);
    const uint8_t uid[8] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
    vmt_expect_response(&t, 0, 4, 1, GB_CAP_TYPE_GET_ENDPOINT_UID, GB_OP_SUCCESS, uid, 8);
    const vm_cap_state *st = vm_cap_get_state(vm_interface_cap(t.intf, 4));
    CU_ASSERT_FATAL(st->have_key);
    /* IMS certificate: result 0, then the DER SubjectPublicKeyInfo */
    const uint8_t cert_req[8] = {0};
    t.sink.n = 0;
    vmt_request(&t, 4, 2, GB_CAP_TYPE_GET_IMS_CERTIFICATE, cert_req, 8);
    CU_ASSERT_EQUAL_FATAL(t.sink.len[0], GB_MSG_HEADER_SIZE + 1 + VM_CAP_CERT_SIZE);
    const uint8_t *cert = t.sink.msg[0] + GB_MSG_HEADER_SIZE;
    CU_ASSERT_EQUAL(cert[0], 0);
    const uint8_t spki[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0};
    CU_ASSERT_EQUAL(memcmp(cert + 1, spki, 12), 0);
    uint8_t pub[32];
    memcpy(pub, cert + 13, 32);
    /* AUTHENTICATE as 6.1 sends it: type 0, the UID, a 32-byte challenge */
    uint8_t auth[44] = {0};
    memcpy(auth + 4, uid, 8);
    for (int i = 0; i < 32; i++)
        auth[12 + i] = (uint8_t)(0xc0 + i);
    t.sink.n = 0;
    vmt_request(&t, 4, 3, GB_CAP_TYPE_AUTHENTICATE, auth, 44);
    CU_ASSERT_EQUAL_FATAL(t.sink.len[0], GB_MSG_HEADER_SIZE + 1 + 64 + 64);
    const uint8_t *r = t.sink.msg[0] + GB_MSG_HEADER_SIZE;
    CU_ASSERT_EQUAL(r[0], 0);
    CU_ASSERT_EQUAL(memcmp(r + 1, uid, 8), 0);
    CU_ASSERT_EQUAL(memcmp(r + 9, auth + 12, 32), 0);
    CU_ASSERT_TRUE(ed25519_verify(pub, r + 1, 64, r + 65));
    uint8_t forged[64];
    memcpy(forged, r + 1, 64);
    forged[20] ^= 1;
    CU_ASSERT_FALSE(ed25519_verify(pub, forged, 64, r + 65));
    CU_ASSERT_EQUAL(st->authentications, 1);
    /* a wrong UID and a wrong type: a 65-byte response with the result code, no signature */
    auth[4] ^= 1;
    t.sink.n = 0;
    vmt_request(&t, 4, 4, GB_CAP_TYPE_AUTHENTICATE, auth, 44);
    CU_ASSERT_EQUAL(t.sink.len[0], GB_MSG_HEADER_SIZE + 65);
    CU_ASSERT_EQUAL(t.sink.msg[0][GB_MSG_HEADER_SIZE], 0x02); /* WRONG_EP */
    auth[4] ^= 1;
    auth[0] = 1;
    t.sink.n = 0;
    vmt_request(&t, 4, 5, GB_CAP_TYPE_AUTHENTICATE, auth, 44);
    CU_ASSERT_EQUAL(t.sink.msg[0][GB_MSG_HEADER_SIZE], 0x01); /* BAD_TYPE */
    const uint8_t other[8] = {1, 0, 0, 0};
    t.sink.n = 0;
    vmt_request(&t, 4, 6, GB_CAP_TYPE_GET_IMS_CERTIFICATE, other, 8);
    const uint8_t class_inval = 0x01;
    vmt_expect_response(&t, 0, 4, 6, GB_CAP_TYPE_GET_IMS_CERTIFICATE, GB_OP_SUCCESS, &class_inval, 1);
    vm_reply rep;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "auth state", 0, &rep), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rep.text, "uid 0x1122334455667788 authentications 1 certificate 302a3005"));
    vmt_down(&t);
}

static void test_cap_key_seed_is_checked(void)
{
    vmt t;
    CU_ASSERT_FALSE(vmt_up(&t, cap_mnfs, "[cport 4]\nkey-seed = 0102\n", cap_cports, 2));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "32 bytes"));
}

const unit_test vmt_firmware_tests[] = {
    UNIT_TEST(test_fw_crc32_and_image_checks),
    UNIT_TEST(test_bootrom_downloads_checks_and_boots_the_image),
    UNIT_TEST(test_bootrom_refuses_a_corrupt_image),
    UNIT_TEST(test_bootrom_falls_back_to_flash_when_the_download_fails),
    UNIT_TEST(test_bootrom_flash_stored_before_the_download_is_its_fallback),
    UNIT_TEST(test_bootrom_protocol_errors),
    UNIT_TEST(test_shipped_firmware_manifest_and_catalog_entry),
    UNIT_TEST(test_fw_mgmt_interface_version_and_bad_requests),
    UNIT_TEST(test_fw_mgmt_load_and_validate_then_mode_switch_boots_it),
    UNIT_TEST(test_fw_mgmt_load_failures),
    UNIT_TEST(test_fw_mgmt_backend_version_and_update),
    UNIT_TEST(test_fw_mgmt_load_survives_a_dropped_download_connection),
    UNIT_TEST(test_cap_uid_certificate_and_signed_challenge),
    UNIT_TEST(test_cap_key_seed_is_checked),
    UNIT_TESTS_END,
};
