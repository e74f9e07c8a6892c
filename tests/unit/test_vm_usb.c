// SPDX-License-Identifier: MIT
// USB handler, driven as drivers/staging/greybus/usb.c would drive it: HCD_START, then the
// hub class requests the Linux hub driver sends a root hub (hub_configure, hub_activate,
// hub_port_reset, hub_port_disable, suspend and resume), each as one HUB_CONTROL whose
// response must be exactly wLength bytes.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/usb.h"

static const uint16_t cport1[] = {1};
static char mnfs_buf[2048], beh_buf[1024];

static bool up_catalog(vmt *t)
{
    return vmt_up(t, vmt_catalog_text("usb.mnfs", mnfs_buf, sizeof mnfs_buf),
                  vmt_catalog_text("usb.behaviour", beh_buf, sizeof beh_buf), cport1, 1);
}

/* One request on CPort 1: its result, the payload in out[0..*out_len). */
static uint8_t op(vmt *t, uint8_t type, const void *payload, size_t len, uint8_t *out,
                  size_t *out_len)
{
    return vmt_op(t, 1, 9, type, payload, len, out, out_len);
}

/* HUB_CONTROL as usb.c's hub_control builds it. */
static uint8_t hub(vmt *t, uint16_t req, uint16_t value, uint16_t index, uint16_t length,
                   uint8_t *out, size_t *out_len)
{
    uint8_t p[GB_USB_HUB_CONTROL_SIZE];
    gb_put_le16(p, req);
    gb_put_le16(p + 2, value);
    gb_put_le16(p + 4, index);
    gb_put_le16(p + 6, length);
    return op(t, GB_USB_TYPE_HUB_CONTROL, p, sizeof p, out, out_len);
}

static void port_status(vmt *t, unsigned port, uint16_t *status, uint16_t *change)
{
    uint8_t d[GB_MSG_MAX_PAYLOAD];
    size_t n = 0;
    CU_ASSERT_EQUAL(hub(t, USB_HUB_GET_PORT_STATUS, 0, (uint16_t)port, 4, d, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    *status = gb_get_le16(d);
    *change = gb_get_le16(d + 2);
}

static void test_usb_root_hub_brought_up_as_the_hub_driver_does(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HCD_START, NULL, 0, NULL, NULL), GB_OP_SUCCESS);
    vm_usb *u = vm_interface_usb(t.intf, VM_ANY_CPORT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_TRUE(vm_usb_running(u));
    /* hub_configure: the hub descriptor (wLength = sizeof(struct usb_hub_descriptor)) */
    uint8_t d[GB_MSG_MAX_PAYLOAD];
    size_t n;
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_HUB_DESCRIPTOR, USB_DT_HUB << 8, 0, 15, d, &n),
                    GB_OP_SUCCESS);
    const uint8_t desc[15] = {9, USB_DT_HUB, 2, 0x09, 0x00, 10, 0, 0x00, 0xff};
    CU_ASSERT_EQUAL(n, 15);
    CU_ASSERT_EQUAL(memcmp(d, desc, sizeof desc), 0);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_HUB_STATUS, 0, 0, 4, d, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_EQUAL(gb_get_le32(d), 0); /* local power good, no over-current, no change */
    /* hub_activate: power every port, then read each port's status */
    uint16_t st, ch;
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st, 0); /* unpowered: the device is not seen yet */
    for (uint16_t p = 1; p <= 2; p++)
        CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, p, 0, NULL, &n),
                        GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 0);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION);
    CU_ASSERT_EQUAL(ch, USB_PORT_STAT_C_CONNECTION);
    port_status(&t, 2, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER);
    CU_ASSERT_EQUAL(ch, 0);
    /* hub_port_connect_change: clear C_PORT_CONNECTION, reset, wait for the reset to end */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_C_CONNECTION, 1, 0, NULL,
                        NULL), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_RESET, 1, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION | USB_PORT_STAT_ENABLE |
                            USB_PORT_STAT_HIGH_SPEED);
    CU_ASSERT_EQUAL(ch, USB_PORT_STAT_C_RESET);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_C_RESET, 1, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(ch, 0);
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb status", 0, &r), 0);
    CU_ASSERT_STRING_EQUAL(r.text, "hcd running ports 2 hub-requests 12 stalled 0; port 1 status "
                                   "0x0503 change 0x0000; port 2 status 0x0100 change 0x0000");
    const vm_value *v = vm_reply_get(&r, "port1_status");
    CU_ASSERT_TRUE(v && v->i == 0x0503);
    v = vm_reply_get(&r, "running");
    CU_ASSERT_TRUE(v && v->kind == VM_VALUE_BOOL && v->i == 1);
    /* usb_remove_hcd: HCD_STOP; the halted controller drops port power */
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HCD_STOP, NULL, 0, NULL, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_FALSE(vm_usb_running(u));
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st, 0);
    vmt_down(&t);
}

static void test_usb_connect_and_disconnect_raise_c_port_connection(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    vm_reply r;
    /* a device on an unpowered port is seen once the port is powered */
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb connect 2 low", 0, &r), 0);
    uint16_t st, ch;
    port_status(&t, 2, &st, &ch);
    CU_ASSERT_EQUAL(st, 0);
    CU_ASSERT_EQUAL(ch, 0);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, 2, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 2, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION | USB_PORT_STAT_LOW_SPEED);
    CU_ASSERT_EQUAL(ch, USB_PORT_STAT_C_CONNECTION);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_C_CONNECTION, 2, 0, NULL,
                        NULL), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_RESET, 2, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 2, &st, &ch); /* a low-speed device: enabled, not high speed */
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION |
                            USB_PORT_STAT_LOW_SPEED | USB_PORT_STAT_ENABLE);
    CU_ASSERT_EQUAL(ch, USB_PORT_STAT_C_RESET);
    /* pulled out: connection and enable drop, C_PORT_CONNECTION rises */
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb disconnect 2", 0, &r), 0);
    port_status(&t, 2, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER);
    CU_ASSERT_EQUAL(ch, USB_PORT_STAT_C_RESET | USB_PORT_STAT_C_CONNECTION);
    /* plugged in again at full speed on a powered port: seen at once */
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb connect 2 full", 0, &r), 0);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_RESET, 2, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 2, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION | USB_PORT_STAT_ENABLE);
    /* what a script gets wrong */
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb connect 2", 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.text, "port 2 already has a device");
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb disconnect 2", 0, &r), 0);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb disconnect 2", 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.text, "port 2 has no device");
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb connect 3", 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.text, "'3' is not a number 1..2");
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb connect 2 super", 0, &r), -1);
    CU_ASSERT_STRING_EQUAL(r.text, "usb connect: speed 'super' is not high, full or low");
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb reset 1", 0, &r), -1);
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "camera status", 0, &r), VM_BACKEND_NO_CLASS);
    vmt_down(&t);
}

static void test_usb_suspend_resume_disable_and_power_off(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    uint16_t st, ch;
    hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, 1, 0, NULL, NULL);
    /* suspend is a no-op until the port is enabled */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_SUSPEND, 1, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st & USB_PORT_STAT_SUSPEND, 0);
    hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_RESET, 1, 0, NULL, NULL);
    hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_SUSPEND, 1, 0, NULL, NULL);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_TRUE(st & USB_PORT_STAT_SUSPEND);
    /* resume: ClearPortFeature(PORT_SUSPEND) completes with C_PORT_SUSPEND */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_SUSPEND, 1, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st & USB_PORT_STAT_SUSPEND, 0);
    CU_ASSERT_TRUE(ch & USB_PORT_STAT_C_SUSPEND);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_C_SUSPEND, 1, 0, NULL,
                        NULL), GB_OP_SUCCESS);
    /* hub_port_disable */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_ENABLE, 1, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION);
    CU_ASSERT_EQUAL(ch, USB_PORT_STAT_C_CONNECTION | USB_PORT_STAT_C_RESET);
    /* hub features: only the two change selectors exist */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_HUB_FEATURE, USB_HUB_C_OVER_CURRENT, 0, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_HUB_FEATURE, USB_HUB_C_LOCAL_POWER, 0, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_HUB_FEATURE, 2, 0, 0, NULL, NULL), GB_OP_INVALID);
    /* a test mode (USB 2.0 7.1.20) and the transaction translator's requests */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_TEST, 1 | 4 << 8, 0, NULL,
                        NULL), GB_OP_SUCCESS);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_TRUE(st & USB_PORT_STAT_TEST);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_TT_BUFFER, 0x0102, 1, 0, NULL, NULL), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_RESET_TT, 0, 1, 0, NULL, NULL), GB_OP_SUCCESS);
    /* power off: nothing is reported but the change bits */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_POWER, 1, 0, NULL, NULL),
                    GB_OP_SUCCESS);
    port_status(&t, 1, &st, &ch);
    CU_ASSERT_EQUAL(st, 0);
    /* a module reboot: controller stopped, ports unpowered, the device still plugged in */
    op(&t, GB_USB_TYPE_HCD_START, NULL, 0, NULL, NULL);
    hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, 1, 0, NULL, NULL);
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_ACTIVATE), 0);
    vm_usb *u = vm_interface_usb(t.intf, 1);
    CU_ASSERT_FALSE(vm_usb_running(u));
    CU_ASSERT_EQUAL(vm_usb_port_status(u, 1, &st, &ch), 0);
    CU_ASSERT_EQUAL(st, 0);
    CU_ASSERT_EQUAL(vm_usb_connect(u, 1, VM_USB_SPEED_HIGH), -EEXIST);
    CU_ASSERT_EQUAL(vm_usb_port_status(u, 0, &st, &ch), -EINVAL);
    vmt_down(&t);
}

/* A hub stalls what it does not support; 6.1 has no status for -EPIPE, so the module
 * answers GB_OP_INVALID (-EINVAL in gb_operation_status_map). */
static void test_usb_requests_a_hub_stalls_get_invalid(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    uint8_t d[GB_MSG_MAX_PAYLOAD];
    size_t n = 99;
    const struct {
        uint16_t req, value, index, length;
    } bad[] = {
        {USB_HUB_GET_PORT_STATUS, 0, 0, 4},                       /* port 0 */
        {USB_HUB_GET_PORT_STATUS, 0, 3, 4},                       /* port 3 of 2 */
        {USB_HUB_GET_PORT_STATUS, 0, 1 | 1 << 8, 4},              /* junk in wIndex */
        {USB_HUB_GET_PORT_STATUS, 2, 1, 8},                       /* USB 3.1 extended status */
        {USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, 16, 0},   /* port 16 */
        {USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_ENABLE, 1, 0},   /* not settable */
        {USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_C_RESET, 1, 0},  /* not settable */
        {USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_INDICATOR, 1 | 1 << 8, 0}, /* none */
        {USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_TEST, 1 | 6 << 8, 0},      /* selector 6 */
        {USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_RESET, 1 | 1 << 8, 0},
        {USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_RESET, 1, 0},  /* not clearable */
        {USB_HUB_CLEAR_PORT_FEATURE, 99, 1, 0},
        {USB_HUB_CLEAR_PORT_FEATURE, USB_PORT_FEAT_C_RESET, 0, 0},
        {USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, 1, 4},    /* OUT with data */
        {USB_HUB_GET_HUB_DESCRIPTOR, 0x2a << 8, 0, 12},           /* SuperSpeed hub */
        {USB_HUB_GET_HUB_DESCRIPTOR, USB_DT_HUB << 8, 1, 15},
        {USB_HUB_GET_HUB_STATUS, 1, 0, 4},
        {USB_HUB_SET_HUB_FEATURE, USB_HUB_C_LOCAL_POWER, 1, 0},
        {USB_HUB_CLEAR_TT_BUFFER, 0, 2, 0},                       /* one TT only */
        {USB_HUB_STOP_TT, 1, 1, 0},
        {0xa30a, 0, 1, 4},                                        /* GetTTState */
        {0x8006, 0x0100, 0, 18},  /* device GET_DESCRIPTOR: hcd.c answers it, never us */
        {0x200c, 1, 0, 0},        /* SetHubDepth (USB 3) */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t r = hub(&t, bad[i].req, bad[i].value, bad[i].index, bad[i].length, d, &n);
        if (r != GB_OP_INVALID)
            fprintf(stderr, "\nrequest %zu (typeReq 0x%04x) got result %u\n", i, bad[i].req, r);
        CU_ASSERT_EQUAL(r, GB_OP_INVALID);
        CU_ASSERT_EQUAL(n, 0); /* a failed response carries no payload */
    }
    /* more than one response can carry */
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_HUB_DESCRIPTOR, USB_DT_HUB << 8, 0, 2041, d, &n),
                    GB_OP_OVERFLOW);
    /* a HUB_CONTROL payload is exactly 8 bytes */
    const uint8_t p9[9] = {0x00, 0xa3, 0, 0, 1, 0, 4, 0, 0};
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HUB_CONTROL, p9, 7, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HUB_CONTROL, p9, 9, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HUB_CONTROL, NULL, 0, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HUB_CONTROL, p9, 8, NULL, NULL), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HCD_START, p9, 1, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, GB_USB_TYPE_HCD_STOP, p9, 2, NULL, NULL), GB_OP_INVALID);
    CU_ASSERT_EQUAL(op(&t, 0x05, NULL, 0, NULL, NULL), GB_OP_PROTOCOL_BAD);
    CU_ASSERT_EQUAL(op(&t, 0x01, NULL, 0, NULL, NULL), GB_OP_PROTOCOL_BAD);
    vm_usb_stats s;
    vm_usb_get_stats(vm_interface_usb(t.intf, 1), &s);
    size_t nbad = sizeof bad / sizeof bad[0];
    CU_ASSERT_EQUAL(s.hub_requests, nbad + 5);
    CU_ASSERT_EQUAL(s.stalled, nbad + 4);
    CU_ASSERT_FALSE(vm_usb_running(vm_interface_usb(t.intf, 1)));
    vmt_down(&t);
}

/* 6.1's gb_operation takes a response of exactly the size it allocated (wLength): the data
 * is cut or padded with zeros to wLength. */
static void test_usb_response_is_exactly_wlength_bytes(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    uint8_t d[GB_MSG_MAX_PAYLOAD];
    size_t n;
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_HUB_DESCRIPTOR, USB_DT_HUB << 8, 0, 4, d, &n),
                    GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 4);
    const uint8_t head[4] = {9, USB_DT_HUB, 2, 0x09};
    CU_ASSERT_EQUAL(memcmp(d, head, 4), 0);
    memset(d, 0x5a, sizeof d);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_HUB_DESCRIPTOR, USB_DT_HUB << 8, 0, 64, d, &n),
                    GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 64);
    CU_ASSERT_EQUAL(d[8], 0xff); /* PortPwrCtrlMask, the last byte of the 9 */
    for (size_t i = 9; i < 64; i++)
        CU_ASSERT_EQUAL(d[i], 0);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_PORT_STATUS, 0, 1, 2, d, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_HUB_STATUS, 0, 0, 0, d, &n), GB_OP_SUCCESS);
    CU_ASSERT_EQUAL(n, 0);
    vmt_down(&t);
}

static void test_usb_fifteen_ports_and_behaviour_errors(void)
{
    vmt t;
    CU_ASSERT_FATAL(vmt_up(&t, vmt_manifest_one(0x0a, 0x06),
                           "[cport 1]\nports = 15\nconnected = 9, 15:full 8:low\n", cport1, 1));
    uint8_t d[GB_MSG_MAX_PAYLOAD];
    size_t n;
    CU_ASSERT_EQUAL(hub(&t, USB_HUB_GET_HUB_DESCRIPTOR, USB_DT_HUB << 8, 0, 15, d, &n),
                    GB_OP_SUCCESS);
    /* 15 ports: bits 1..15 need two bytes of DeviceRemovable and of PortPwrCtrlMask */
    const uint8_t desc[15] = {11, USB_DT_HUB, 15, 0x09, 0, 10, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(memcmp(d, desc, 15), 0);
    uint16_t st, ch;
    hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, 15, 0, NULL, NULL);
    hub(&t, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, 8, 0, NULL, NULL);
    port_status(&t, 15, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION);
    port_status(&t, 8, &st, &ch);
    CU_ASSERT_EQUAL(st, USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION | USB_PORT_STAT_LOW_SPEED);
    vm_reply r;
    CU_ASSERT_EQUAL(vm_backend_command(t.intf, "usb status", 0, &r), 0);
    CU_ASSERT_PTR_NOT_NULL(vm_reply_get(&r, "port15_change"));
    vmt_down(&t);

    static const struct {
        const char *beh, *err;
    } bad[] = {
        {"[cport 1]\nports = 16\n", "test.behaviour:2: ports: "},
        {"[cport 1]\nports = 0\n", "test.behaviour:2: ports: "},
        {"[cport 1]\nconnected = 2\n", "test.behaviour:2: connected: '2' is not a port 1..1"},
        {"[cport 1]\nports = 2\nconnected = 1 1\n",
         "test.behaviour:3: connected: port 1 is listed twice"},
        {"[cport 1]\nconnected = 1:super\n",
         "test.behaviour:2: connected: port 1: speed 'super' is not high, full or low"},
        {"[cport 1]\nconnected = 1x\n",
         "test.behaviour:2: connected: expected PORT or PORT:SPEED, got 'x'"},
        {"[cport 1]\nconnected = high\n", "test.behaviour:2: connected: 'high' is not a port"},
        {"[cport 1]\nlanes = 2\n", "lanes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x06), bad[i].beh, cport1, 1));
        if (!strstr(t.err, bad[i].err))
            fprintf(stderr, "\n%zu: %s\n", i, t.err);
        CU_ASSERT_PTR_NOT_NULL(strstr(t.err, bad[i].err));
    }
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

/* Guest-controlled input: whatever HUB_CONTROL carries, the answer is a success of exactly
 * wLength bytes (no data for OUT requests) or a failure without payload. */
static void test_usb_random_hub_requests_keep_the_response_rules(void)
{
    vmt t;
    CU_ASSERT_FATAL(up_catalog(&t));
    static const uint16_t reqs[] = {
        USB_HUB_GET_HUB_STATUS,   USB_HUB_GET_PORT_STATUS, USB_HUB_CLEAR_HUB_FEATURE,
        USB_HUB_CLEAR_PORT_FEATURE, USB_HUB_SET_HUB_FEATURE, USB_HUB_SET_PORT_FEATURE,
        USB_HUB_GET_HUB_DESCRIPTOR, USB_HUB_CLEAR_TT_BUFFER, USB_HUB_RESET_TT, USB_HUB_STOP_TT};
    uint8_t d[GB_MSG_MAX_PAYLOAD];
    unsigned ok = 0;
    for (unsigned i = 0; i < 20000; i++) {
        uint16_t req = rnd() % 4 ? reqs[rnd() % (sizeof reqs / sizeof reqs[0])] : (uint16_t)rnd();
        uint16_t value = rnd() % 4 ? (uint16_t)(rnd() % 24) : (uint16_t)rnd();
        if (req & 0x8000 && rnd() % 2)
            value = req == USB_HUB_GET_HUB_DESCRIPTOR ? USB_DT_HUB << 8 : 0;
        uint16_t index = rnd() % 4 ? (uint16_t)(rnd() % 4) : (uint16_t)rnd();
        uint16_t length = rnd() % 4 == 0 ? (uint16_t)rnd()
                          : (req & 0x8000) ? (uint16_t)(rnd() % 20) : 0;
        size_t n = 0;
        uint8_t r = hub(&t, req, value, index, length, d, &n);
        CU_ASSERT_TRUE(r == GB_OP_SUCCESS || r == GB_OP_INVALID || r == GB_OP_OVERFLOW);
        if (r == GB_OP_SUCCESS) {
            ok++;
            CU_ASSERT_EQUAL(n, (req & 0x8000) ? length : 0);
        } else {
            CU_ASSERT_EQUAL(n, 0);
        }
        if (rnd() % 64 == 0) {
            vm_reply rep;
            vm_backend_command(t.intf, rnd() % 2 ? "usb connect 1" : "usb disconnect 2", 0, &rep);
        }
    }
    if (ok < 500)
        fprintf(stderr, "\nonly %u of 20000 random requests succeeded\n", ok);
    CU_ASSERT_TRUE(ok >= 500);
    vmt_down(&t);
}

const unit_test vmt_usb_tests[] = {
    UNIT_TEST(test_usb_root_hub_brought_up_as_the_hub_driver_does),
    UNIT_TEST(test_usb_connect_and_disconnect_raise_c_port_connection),
    UNIT_TEST(test_usb_suspend_resume_disable_and_power_off),
    UNIT_TEST(test_usb_requests_a_hub_stalls_get_invalid),
    UNIT_TEST(test_usb_response_is_exactly_wlength_bytes),
    UNIT_TEST(test_usb_fifteen_ports_and_behaviour_errors),
    UNIT_TEST(test_usb_random_hub_requests_keep_the_response_rules),
    UNIT_TESTS_END,
};
