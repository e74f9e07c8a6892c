// SPDX-License-Identifier: MIT
// USB class handler: a USB 2.0 root hub behind HUB_CONTROL (see usb.h).
#include "virtual-modules/usb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greybus/gb_message.h"
#include "virtual-modules/vm_class.h"

#define USB_DIR_IN 0x8000 /* bmRequestType bit 7, in typeReq */
/* wHubCharacteristics: individual port power switching (bits 1:0 = 01), individual
 * over-current protection (bits 4:3 = 01), TT think time 8 FS bit times, no indicators. */
#define HUB_CHARACTERISTICS 0x0009
#define HUB_POWER_ON_TO_GOOD 10 /* bPwrOn2PwrGood, 2 ms units */
#define HUB_DESC_MAX (7 + 2 * 2)

typedef struct usb_port {
    bool attached; /* a device is plugged in (survives power and module reboots) */
    vm_usb_speed speed;
    bool powered, enabled, suspended, test;
    uint16_t change; /* wPortChange */
} usb_port;

struct vm_usb {
    unsigned nports;
    bool running;
    uint16_t hub_change; /* wHubChange; nothing sets it: power is always good */
    usb_port port[VM_USB_MAX_PORTS]; /* port N at [N - 1] */
    vm_usb_stats st;
};

static const char *const usb_keys[] = {"ports", "connected", NULL};
static const char *const speed_names[] = {"high", "full", "low", NULL};

const char *vm_usb_speed_name(vm_usb_speed speed)
{
    return speed <= VM_USB_SPEED_LOW ? speed_names[speed] : "?";
}

/* `connected = 1 3:full`: ports with a device, each with an optional speed. */
static int parse_connected(vm_usb *u, const vm_bsection *cfg, char *err, size_t errlen)
{
    const char *p = vm_bsection_get(cfg, "connected", NULL);
    while (p && *p) {
        if (*p == ' ' || *p == '\t' || *p == ',') {
            p++;
            continue;
        }
        char *end;
        long port = strtol(p, &end, 10);
        if (end == p || port < 1 || port > (long)u->nports)
            return vm_bsection_error(cfg, "connected", err, errlen,
                                     "'%.*s' is not a port 1..%u", (int)strcspn(p, " \t,"), p,
                                     u->nports);
        vm_usb_speed speed = VM_USB_SPEED_HIGH;
        p = end;
        if (*p == ':') {
            size_t n = strcspn(++p, " \t,");
            int k = -1;
            for (int i = 0; speed_names[i]; i++)
                if (strlen(speed_names[i]) == n && !strncmp(p, speed_names[i], n))
                    k = i;
            if (k < 0)
                return vm_bsection_error(cfg, "connected", err, errlen,
                                         "port %ld: speed '%.*s' is not high, full or low", port,
                                         (int)n, p);
            speed = (vm_usb_speed)k;
            p += n;
        } else if (*p && !strchr(" \t,", *p)) {
            return vm_bsection_error(cfg, "connected", err, errlen,
                                     "expected PORT or PORT:SPEED, got '%.*s'",
                                     (int)strcspn(p, " \t,"), p);
        }
        usb_port *pt = &u->port[port - 1];
        if (pt->attached)
            return vm_bsection_error(cfg, "connected", err, errlen, "port %ld is listed twice",
                                     port);
        pt->attached = true;
        pt->speed = speed;
    }
    return 0;
}

static void *usb_create(vm_endpoint *ep, const vm_bsection *cfg, char *err, size_t errlen)
{
    uint32_t n;
    (void)ep;
    if (vm_bsection_u32(cfg, "ports", 1, 1, VM_USB_MAX_PORTS, &n, err, errlen))
        return NULL;
    vm_usb *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->nports = n;
    if (parse_connected(u, cfg, err, errlen)) {
        free(u);
        return NULL;
    }
    return u;
}

static void usb_destroy(void *h)
{
    free(h);
}

/* A module reboot: the controller is stopped and its ports unpowered; plugged-in devices
 * stay plugged in. */
static void usb_reset(void *h)
{
    vm_usb *u = h;
    u->running = false;
    u->hub_change = 0;
    for (unsigned i = 0; i < u->nports; i++) {
        usb_port *p = &u->port[i];
        *p = (usb_port){.attached = p->attached, .speed = p->speed};
    }
}

static uint16_t port_status(const usb_port *p)
{
    if (!p->powered) /* a powered-off port reports nothing else (USB 2.0 11.24.2.7.1) */
        return 0;
    uint16_t s = USB_PORT_STAT_POWER;
    if (p->attached)
        s |= USB_PORT_STAT_CONNECTION;
    if (p->attached && p->speed == VM_USB_SPEED_LOW)
        s |= USB_PORT_STAT_LOW_SPEED;
    if (p->enabled)
        s |= USB_PORT_STAT_ENABLE;
    if (p->enabled && p->speed == VM_USB_SPEED_HIGH)
        s |= USB_PORT_STAT_HIGH_SPEED;
    if (p->suspended)
        s |= USB_PORT_STAT_SUSPEND;
    if (p->test)
        s |= USB_PORT_STAT_TEST;
    return s;
}

static void power_off(usb_port *p)
{
    p->powered = p->enabled = p->suspended = p->test = false;
}

static size_t hub_descriptor(const vm_usb *u, uint8_t *d)
{
    size_t bitmap = u->nports / 8 + 1; /* bits 1..nports; bit 0 reserved */
    d[0] = (uint8_t)(7 + 2 * bitmap);
    d[1] = USB_DT_HUB;
    d[2] = (uint8_t)u->nports;
    gb_put_le16(d + 3, HUB_CHARACTERISTICS);
    d[5] = HUB_POWER_ON_TO_GOOD;
    d[6] = 0;                              /* bHubContrCurrent */
    memset(d + 7, 0, bitmap);              /* DeviceRemovable: every port removable */
    memset(d + 7 + bitmap, 0xff, bitmap);  /* PortPwrCtrlMask: all ones (USB 1.1 compat) */
    return d[0];
}

static uint8_t set_port_feature(usb_port *p, uint16_t feature, uint8_t selector)
{
    if (selector && feature != USB_PORT_FEAT_TEST)
        return GB_OP_INVALID;
    switch (feature) {
    case USB_PORT_FEAT_POWER:
        if (!p->powered && p->attached)
            p->change |= USB_PORT_STAT_C_CONNECTION;
        p->powered = true;
        return GB_OP_SUCCESS;
    case USB_PORT_FEAT_RESET: /* completes at once; a no-op on an unpowered port */
        if (p->powered) {
            p->enabled = p->attached;
            p->suspended = p->test = false;
            p->change |= USB_PORT_STAT_C_RESET;
        }
        return GB_OP_SUCCESS;
    case USB_PORT_FEAT_SUSPEND: /* a no-op on a port that is not enabled */
        if (p->enabled)
            p->suspended = true;
        return GB_OP_SUCCESS;
    case USB_PORT_FEAT_TEST: /* Test_J, Test_K, Test_SE0_NAK, Test_Packet, Test_Force_Enable */
        if (selector < 1 || selector > 5)
            return GB_OP_INVALID;
        p->test = p->powered;
        return GB_OP_SUCCESS;
    }
    return GB_OP_INVALID; /* PORT_ENABLE, PORT_INDICATOR (none), C_*: a hub stalls */
}

static uint8_t clear_port_feature(usb_port *p, uint16_t feature)
{
    switch (feature) {
    case USB_PORT_FEAT_ENABLE:
        p->enabled = p->suspended = false;
        return GB_OP_SUCCESS;
    case USB_PORT_FEAT_SUSPEND: /* resume; it completes at once */
        if (p->suspended) {
            p->suspended = false;
            p->change |= USB_PORT_STAT_C_SUSPEND;
        }
        return GB_OP_SUCCESS;
    case USB_PORT_FEAT_POWER:
        power_off(p);
        return GB_OP_SUCCESS;
    case USB_PORT_FEAT_C_CONNECTION:
    case USB_PORT_FEAT_C_ENABLE:
    case USB_PORT_FEAT_C_SUSPEND:
    case USB_PORT_FEAT_C_OVER_CURRENT:
    case USB_PORT_FEAT_C_RESET:
        p->change &= (uint16_t)~(1u << (feature - USB_PORT_FEAT_C_CONNECTION));
        return GB_OP_SUCCESS;
    }
    return GB_OP_INVALID;
}

/* One hub class request. IN requests leave their data in d[0..*n). */
static uint8_t hub_request(vm_usb *u, uint16_t req, uint16_t value, uint16_t index,
                           uint8_t *d, size_t *n)
{
    unsigned portno = index & 0xff;
    usb_port *p = portno >= 1 && portno <= u->nports ? &u->port[portno - 1] : NULL;
    switch (req) {
    case USB_HUB_GET_HUB_DESCRIPTOR:
        if (value != USB_DT_HUB << 8 || index)
            return GB_OP_INVALID;
        *n = hub_descriptor(u, d);
        return GB_OP_SUCCESS;
    case USB_HUB_GET_HUB_STATUS: /* local power good, no over-current */
        if (value || index)
            return GB_OP_INVALID;
        gb_put_le16(d, 0);
        gb_put_le16(d + 2, u->hub_change);
        *n = 4;
        return GB_OP_SUCCESS;
    case USB_HUB_SET_HUB_FEATURE:
    case USB_HUB_CLEAR_HUB_FEATURE:
        if (index || (value != USB_HUB_C_LOCAL_POWER && value != USB_HUB_C_OVER_CURRENT))
            return GB_OP_INVALID;
        if (req == USB_HUB_CLEAR_HUB_FEATURE)
            u->hub_change &= (uint16_t)~(1u << value);
        return GB_OP_SUCCESS;
    case USB_HUB_GET_PORT_STATUS:
        if (value || !p || index >> 8)
            return GB_OP_INVALID;
        gb_put_le16(d, port_status(p));
        gb_put_le16(d + 2, p->change);
        *n = 4;
        return GB_OP_SUCCESS;
    case USB_HUB_SET_PORT_FEATURE:
        return p ? set_port_feature(p, value, (uint8_t)(index >> 8)) : GB_OP_INVALID;
    case USB_HUB_CLEAR_PORT_FEATURE:
        return p && !(index >> 8) ? clear_port_feature(p, value) : GB_OP_INVALID;
    case USB_HUB_CLEAR_TT_BUFFER: /* one TT: TT_port is 1; nothing is buffered to clear */
        return index == 1 ? GB_OP_SUCCESS : GB_OP_INVALID;
    case USB_HUB_RESET_TT:
    case USB_HUB_STOP_TT:
        return value == 0 && index == 1 ? GB_OP_SUCCESS : GB_OP_INVALID;
    }
    return GB_OP_INVALID;
}

static uint8_t hub_control(vm_usb *u, vm_request *rq)
{
    u->st.hub_requests++;
    if (rq->len != GB_USB_HUB_CONTROL_SIZE) {
        u->st.stalled++;
        return GB_OP_INVALID;
    }
    uint16_t req = gb_get_le16(rq->payload), value = gb_get_le16(rq->payload + 2),
             index = gb_get_le16(rq->payload + 4), length = gb_get_le16(rq->payload + 6);
    bool in = req & USB_DIR_IN;
    if (length > rq->resp_cap) { /* more than one Greybus response carries */
        u->st.stalled++;
        return GB_OP_OVERFLOW;
    }
    uint8_t data[HUB_DESC_MAX];
    size_t n = 0;
    uint8_t result = in || length == 0 ? hub_request(u, req, value, index, data, &n)
                                       : GB_OP_INVALID; /* OUT requests carry no data */
    if (result != GB_OP_SUCCESS) {
        u->st.stalled++;
        return result;
    }
    if (in) { /* exactly wLength bytes, as 6.1's gb_operation insists */
        memset(rq->resp, 0, length);
        memcpy(rq->resp, data, n < length ? n : length);
        rq->resp_len = length;
    }
    return GB_OP_SUCCESS;
}

static uint8_t usb_request(void *h, vm_request *rq)
{
    vm_usb *u = h;
    switch (rq->type) {
    case GB_USB_TYPE_HCD_START:
        VM_REQ_EXPECT_LEN(rq, 0);
        u->running = true;
        u->st.starts++;
        return GB_OP_SUCCESS;
    case GB_USB_TYPE_HCD_STOP: /* a halted controller drops port power */
        VM_REQ_EXPECT_LEN(rq, 0);
        u->running = false;
        for (unsigned i = 0; i < u->nports; i++)
            power_off(&u->port[i]);
        u->st.stops++;
        return GB_OP_SUCCESS;
    case GB_USB_TYPE_HUB_CONTROL:
        return hub_control(u, rq);
    }
    return GB_OP_PROTOCOL_BAD;
}

vm_usb *vm_interface_usb(vm_interface *intf, uint16_t cport)
{
    return vm_interface_handler(intf, cport, GB_PROTOCOL_USB);
}

unsigned vm_usb_port_count(const vm_usb *u)
{
    return u->nports;
}

bool vm_usb_running(const vm_usb *u)
{
    return u->running;
}

int vm_usb_connect(vm_usb *u, unsigned port, vm_usb_speed speed)
{
    if (port < 1 || port > u->nports || speed > VM_USB_SPEED_LOW)
        return -EINVAL;
    usb_port *p = &u->port[port - 1];
    if (p->attached)
        return -EEXIST;
    p->attached = true;
    p->speed = speed;
    if (p->powered)
        p->change |= USB_PORT_STAT_C_CONNECTION;
    return 0;
}

int vm_usb_disconnect(vm_usb *u, unsigned port)
{
    if (port < 1 || port > u->nports)
        return -EINVAL;
    usb_port *p = &u->port[port - 1];
    if (!p->attached)
        return -ENOENT;
    p->attached = p->enabled = p->suspended = false;
    if (p->powered)
        p->change |= USB_PORT_STAT_C_CONNECTION;
    return 0;
}

int vm_usb_port_status(const vm_usb *u, unsigned port, uint16_t *status, uint16_t *change)
{
    if (port < 1 || port > u->nports)
        return -EINVAL;
    *status = port_status(&u->port[port - 1]);
    *change = u->port[port - 1].change;
    return 0;
}

void vm_usb_get_stats(const vm_usb *u, vm_usb_stats *out)
{
    *out = u->st;
}

static void usb_describe(const void *h, char *buf, size_t len)
{
    const vm_usb *u = h;
    unsigned devices = 0;
    for (unsigned i = 0; i < u->nports; i++)
        devices += u->port[i].attached;
    snprintf(buf, len, "usb root hub %u port%s, %u device%s", u->nports,
             u->nports == 1 ? "" : "s", devices, devices == 1 ? "" : "s");
}

const vm_class_ops vm_usb_class = {
    .protocol = GB_PROTOCOL_USB,
    .name = "usb",
    .keys = usb_keys,
    .create = usb_create,
    .destroy = usb_destroy,
    .request = usb_request,
    .reset = usb_reset,
    .describe = usb_describe,
};
