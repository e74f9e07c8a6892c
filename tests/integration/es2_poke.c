// SPDX-License-Identifier: MIT
// es2_poke: runs inside the guest (static binary, pushed by es2_bridge_test.sh) and sends
// the greybus-es2 bridge malformed and well-formed requests through usbfs, the way a buggy
// or hostile driver would. Every malformed one must fail with EPIPE (a STALL) quickly, and
// the bridge must keep working afterwards. gb-es2 must be unbound from the interface first.
// Prints "ok - ..." / "FAIL - ..." lines and exits 0 when all passed.
//
//   es2_poke /dev/bus/usb/BBB/DDD
#include <errno.h>
#include <fcntl.h>
#include <linux/usbdevice_fs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fails;

static void check(int cond, const char *what, int rc, int err)
{
    printf("%s - %s (rc %d, %s)\n", cond ? "ok" : "FAIL", what, rc, rc < 0 ? strerror(err) : "-");
    if (!cond)
        fails++;
}

static int ctrl(int fd, uint8_t type, uint8_t req, uint16_t value, uint16_t index, void *data,
                uint16_t len, int *err)
{
    struct usbdevfs_ctrltransfer c = {
        .bRequestType = type, .bRequest = req, .wValue = value, .wIndex = index,
        .wLength = len, .timeout = 2000, .data = data,
    };
    int rc = ioctl(fd, USBDEVFS_CONTROL, &c);

    *err = errno;
    return rc;
}

static int bulk(int fd, unsigned ep, void *data, unsigned len, int *err)
{
    struct usbdevfs_bulktransfer b = { .ep = ep, .len = len, .timeout = 2000, .data = data };
    int rc = ioctl(fd, USBDEVFS_BULK, &b);

    *err = errno;
    return rc;
}

static void clear_halt(int fd, unsigned ep)
{
    int rc = ioctl(fd, USBDEVFS_CLEAR_HALT, &ep);

    check(rc == 0, "CLEAR_FEATURE(ENDPOINT_HALT) after a stall is accepted", rc, errno);
}

/* A control request that must be refused with a STALL. */
static void refused(int fd, const char *what, uint8_t type, uint8_t req, uint16_t value,
                    uint16_t index, void *data, uint16_t len)
{
    int err, rc = ctrl(fd, type, req, value, index, data, len, &err);

    check(rc < 0 && err == EPIPE, what, rc, err);
}

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

int main(int argc, char **argv)
{
    uint8_t buf[4096], resp[128];
    unsigned iface = 0;
    int fd, rc, err;

    if (argc != 2) {
        fprintf(stderr, "usage: es2_poke /dev/bus/usb/BBB/DDD\n");
        return 2;
    }
    fd = open(argv[1], O_RDWR);
    if (fd < 0) {
        fprintf(stderr, "es2_poke: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    rc = ioctl(fd, USBDEVFS_CLAIMINTERFACE, &iface);
    check(rc == 0, "claim interface 0 (gb-es2 unbound)", rc, errno);
    if (rc < 0)
        return 1;

    /* Sanity: the well-formed CPORT_COUNT. */
    memset(buf, 0, sizeof(buf));
    rc = ctrl(fd, 0xc1, 0x04, 0, 0, buf, 2, &err);
    check(rc == 2 && buf[0] > 0, "CPORT_COUNT answers 2 bytes", rc, err);

    /* Malformed control requests. */
    refused(fd, "unknown vendor request 0x7f is stalled", 0x41, 0x7f, 0, 0, NULL, 0);
    refused(fd, "CPORT_COUNT with wLength 1 is stalled", 0xc1, 0x04, 0, 0, buf, 1);
    refused(fd, "CPORT_COUNT to interface 1 is stalled", 0xc1, 0x04, 0, 1, buf, 2);
    refused(fd, "CPORT_COUNT as a device request is stalled", 0xc0, 0x04, 0, 0, buf, 2);
    memset(buf, 0, 4);
    refused(fd, "CPORT_FLAGS for CPort 250 is stalled", 0x41, 0x11, 250, 0, buf, 4);
    refused(fd, "CPORT_FLAGS with 3 data bytes is stalled", 0x41, 0x11, 1, 0, buf, 3);
    buf[0] = 0x80;
    refused(fd, "CPORT_FLAGS with unknown flag bits is stalled", 0x41, 0x11, 1, 0, buf, 4);
    refused(fd, "LATENCY_TAG_EN with a data stage is stalled", 0x41, 0x06, 1, 0, buf, 1);
    put_le16(buf, 1);
    put_le16(buf + 2, 99);          /* size lies */
    buf[4] = 0x01;
    put_le16(buf + 5, 1);
    refused(fd, "ARPC whose size field lies is stalled", 0x41, 0x12, 0, 0, buf, 7);
    put_le16(buf + 2, 7);
    buf[4] = 0x42;
    refused(fd, "ARPC of unknown type 0x42 is stalled", 0x41, 0x12, 0, 0, buf, 7);
    buf[4] = 0x01;
    put_le16(buf + 5, 240);
    refused(fd, "ARPC CPORT_CONNECTED for CPort 240 is stalled", 0x41, 0x12, 0, 0, buf, 7);
    refused(fd, "ARPC shorter than its header is stalled", 0x41, 0x12, 0, 0, buf, 3);
    memset(buf, 0xee, 2000);
    refused(fd, "a 2000-byte garbage ARPC is stalled", 0x41, 0x12, 0, 0, buf, 2000);

    /* Malformed bulk OUT messages; each stall is cleared as a driver would. */
    memset(buf, 0, sizeof(buf));
    rc = bulk(fd, 0x03, buf, 3, &err);
    check(rc < 0 && err == EPIPE, "3-byte bulk OUT (short header) is stalled", rc, err);
    clear_halt(fd, 0x03);
    put_le16(buf, 8);
    rc = bulk(fd, 0x03, buf, 9, &err);
    check(rc < 0 && err == EPIPE, "bulk OUT longer than its header's size is stalled", rc, err);
    clear_halt(fd, 0x03);
    put_le16(buf, 8);
    buf[6] = 250;
    rc = bulk(fd, 0x03, buf, 8, &err);
    check(rc < 0 && err == EPIPE, "bulk OUT for CPort 250 is stalled", rc, err);
    clear_halt(fd, 0x03);
    put_le16(buf, 4096);
    buf[6] = 1;
    rc = bulk(fd, 0x03, buf, 4096, &err);
    check(rc < 0 && err == EPIPE, "4096-byte bulk OUT (over 2048) is stalled", rc, err);
    clear_halt(fd, 0x03);
    rc = bulk(fd, 0x81, resp, 8, &err);
    check(rc < 0 && err == ETIMEDOUT, "nothing queued: bulk IN NAKs until the timeout", rc, err);

    /* Well-formed requests still work: an ARPC is answered on the ARPC endpoint. */
    put_le16(buf, 0x1234);
    put_le16(buf + 2, 7);
    buf[4] = 0x04;                  /* CPORT_FLUSH */
    put_le16(buf + 5, 5);
    rc = ctrl(fd, 0x41, 0x12, 0, 0, buf, 7, &err);
    check(rc == 7, "a well-formed ARPC CPORT_FLUSH(5) is accepted", rc, err);
    memset(resp, 0xff, sizeof(resp));
    rc = bulk(fd, 0x82, resp, sizeof(resp), &err);
    check(rc == 3 && resp[0] == 0x34 && resp[1] == 0x12,
          "its 3-byte ARPC response with the same id arrives on 0x82", rc, err);
    memset(buf, 0, 4);
    rc = ctrl(fd, 0x41, 0x11, 5, 0, buf, 4, &err);
    check(rc == 4 || (rc < 0 && err == EPIPE),
          "CPORT_FLAGS(5) completes (asynchronously, with the simulator's answer)", rc, err);

    ioctl(fd, USBDEVFS_RELEASEINTERFACE, &iface);
    close(fd);
    printf("es2_poke: %d failed\n", fails);
    return fails ? 1 : 0;
}
