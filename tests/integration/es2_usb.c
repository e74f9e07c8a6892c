// SPDX-License-Identifier: MIT
// es2_usb: runs inside the guest (static binary, pushed by es2_hostile_test.sh) and drives
// the greybus-es2 bridge through usbfs with gb-es2 unbound, one action per run, so that the
// test decides exactly what the bridge sends to the simulator and when:
//
//   es2_usb DEV fill          2048-byte Greybus messages for CPort 1 on bulk OUT until one
//                             is not taken within 300 ms, then 8-byte ones likewise (the
//                             ring to the simulator is full)
//   es2_usb DEV send          one 8-byte message for CPort 1 (2 s timeout)
//   es2_usb DEV flags CPORT   the vendor request CPORT_FLAGS(CPORT), as gb-es2's
//                             cport_enable sends it (1 s timeout)
//   es2_usb DEV arpc CPORT    an ARPC CPORT_FLUSH(CPORT), then its response on 0x82
//   es2_usb DEV drain         reads bulk IN 0x81 until nothing comes for 500 ms
//   es2_usb DEV reset         a USB reset of the device (USBDEVFS_RESET)
//
// Prints one line "ACTION: rc N errno NAME" (fill: "fill: N taken, then errno NAME") and
// exits 0 when the action succeeded, 1 when it failed, 2 on a usage or open error.
#include <errno.h>
#include <fcntl.h>
#include <linux/usbdevice_fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *errname(int e)
{
    switch (e) {
    case 0: return "0";
    case EPIPE: return "EPIPE";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ENODEV: return "ENODEV";
    case EPROTO: return "EPROTO";
    case ESHUTDOWN: return "ESHUTDOWN";
    case ENOENT: return "ENOENT";
    default: return strerror(e);
    }
}

static int ctrl(int fd, uint8_t type, uint8_t req, uint16_t value, void *data, uint16_t len,
                unsigned timeout, int *err)
{
    struct usbdevfs_ctrltransfer c = {
        .bRequestType = type, .bRequest = req, .wValue = value, .wIndex = 0,
        .wLength = len, .timeout = timeout, .data = data,
    };
    int rc = ioctl(fd, USBDEVFS_CONTROL, &c);

    *err = rc < 0 ? errno : 0;
    return rc;
}

static int bulk(int fd, unsigned ep, void *data, unsigned len, unsigned timeout, int *err)
{
    struct usbdevfs_bulktransfer b = { .ep = ep, .len = len, .timeout = timeout, .data = data };
    int rc = ioctl(fd, USBDEVFS_BULK, &b);

    *err = rc < 0 ? errno : 0;
    return rc;
}

/* A Greybus message of len bytes (header: size, operation id 0, type 0x7e) for cport. */
static void message(uint8_t *buf, uint16_t len, uint8_t cport)
{
    memset(buf, 0, len);
    buf[0] = (uint8_t)len;
    buf[1] = (uint8_t)(len >> 8);
    buf[4] = 0x7e;
    buf[6] = cport;                 /* pad[0]: the hd CPort, as gb-es2 puts it */
}

int main(int argc, char **argv)
{
    static uint8_t buf[2048];
    unsigned iface = 0;
    int fd, rc, err;

    if (argc < 3) {
        fprintf(stderr, "usage: es2_usb /dev/bus/usb/BBB/DDD fill|send|flags N|arpc N|drain|reset\n");
        return 2;
    }
    fd = open(argv[1], O_RDWR);
    if (fd < 0) {
        fprintf(stderr, "es2_usb: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    if (!strcmp(argv[2], "reset")) {
        rc = ioctl(fd, USBDEVFS_RESET, 0);
        err = rc < 0 ? errno : 0;
        printf("reset: rc %d errno %s\n", rc, errname(err));
        return rc < 0;
    }
    if (ioctl(fd, USBDEVFS_CLAIMINTERFACE, &iface) < 0) {
        fprintf(stderr, "es2_usb: claim interface 0 (is gb-es2 unbound?): %s\n",
                strerror(errno));
        return 2;
    }
    if (!strcmp(argv[2], "fill")) {
        int n = 0, small = 0;

        /* big messages, then 8-byte ones into what is left: afterwards no record of the
         * bridge's (32 bytes at least in the ring) fits */
        do {
            message(buf, sizeof(buf), 1);
            rc = bulk(fd, 0x03, buf, sizeof(buf), 300, &err);
        } while (rc == (int)sizeof(buf) && ++n < 1024);
        if (err == ETIMEDOUT) {
            do {
                message(buf, 8, 1);
                rc = bulk(fd, 0x03, buf, 8, 300, &err);
            } while (rc == 8 && ++small < 4096);
        }
        printf("fill: %d taken, then errno %s (and %d of 8 bytes)\n", n, errname(err), small);
        return !(n > 0 && err == ETIMEDOUT);
    }
    if (!strcmp(argv[2], "drain")) {
        int n = 0;

        while ((rc = bulk(fd, 0x81, buf, sizeof(buf), 500, &err)) > 0)
            n++;
        printf("drain: %d messages, then errno %s\n", n, errname(err));
        return !(err == ETIMEDOUT);
    }
    if (!strcmp(argv[2], "send")) {
        message(buf, 8, 1);
        rc = bulk(fd, 0x03, buf, 8, 2000, &err);
        printf("send: rc %d errno %s\n", rc, errname(err));
        return rc != 8;
    }
    if (!strcmp(argv[2], "flags") && argc == 4) {
        memset(buf, 0, 4);
        rc = ctrl(fd, 0x41, 0x11, (uint16_t)atoi(argv[3]), buf, 4, 1000, &err);
        printf("flags: rc %d errno %s\n", rc, errname(err));
        return rc != 4;
    }
    if (!strcmp(argv[2], "arpc") && argc == 4) {
        uint16_t cport = (uint16_t)atoi(argv[3]);
        uint8_t resp[64];

        buf[0] = 0x56;                  /* ARPC id 0x3456 */
        buf[1] = 0x34;
        buf[2] = 7;                     /* size 7 */
        buf[3] = 0;
        buf[4] = 0x04;                  /* CPORT_FLUSH */
        buf[5] = (uint8_t)cport;
        buf[6] = (uint8_t)(cport >> 8);
        rc = ctrl(fd, 0x41, 0x12, 0, buf, 7, 1000, &err);
        printf("arpc: rc %d errno %s\n", rc, errname(err));
        if (rc != 7)
            return 1;
        rc = bulk(fd, 0x82, resp, sizeof(resp), 1000, &err);
        printf("arpc response: rc %d errno %s id 0x%02x%02x result %d\n", rc, errname(err),
               rc >= 3 ? resp[1] : 0, rc >= 3 ? resp[0] : 0, rc >= 3 ? resp[2] : -1);
        return !(rc == 3 && resp[0] == 0x56 && resp[1] == 0x34 && resp[2] == 0);
    }
    fprintf(stderr, "es2_usb: unknown action '%s'\n", argv[2]);
    return 2;
}
