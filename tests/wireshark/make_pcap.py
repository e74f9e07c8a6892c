#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes gbvp captures for the Wireshark dissector test (tests/wireshark/dissector_test.sh).

The files follow docs/tracing.md exactly: pcapng, one interface per delivery place (0 "ap",
1 "svc", 2 + S "slot S"), LINKTYPE_USER0, if_tsresol 9, and per packet the 24-byte record
header followed by the Greybus message. Standard library only.

  make_pcap.py main OUT.pcapng [MARKS.sh]  a boot of two modules: the SVC handshake,
                                           hot-plug, CONN_CREATEs, two manifests and one
                                           request (and its response) of every operation
                                           type of every protocol gbvp implements, plus a
                                           few deliberate oddities; MARKS.sh receives
                                           shell assignments NAME=FRAME for the test
  make_pcap.py fuzz OUT.pcapng [SEED]      the same boot, then random messages (random types,
                                           lengths, results, truncations) on every connection
  make_pcap.py broken OUT.pcapng MARKS.sh  the same boot, then malformed records the kernel or
                                           docs/tracing.md refuse, one of each (marks name them)
"""
import random
import struct
import sys

LINKTYPE_USER0 = 147

# record directions (docs/tracing.md, "Record header")
AP_TO_INTF, INTF_TO_AP, AP_TO_SVC, SVC_TO_AP, INTF_TO_INTF = range(5)

AP_PORT = 1
AP_DEVICE_ID = 1
SVC_PORT = 6  # the last port of a frame with slots for interfaces 2..5
RESPONSE = 0x80

# protocol ids (greybus/gb_protocols.h)
P_CONTROL, P_GPIO, P_I2C, P_UART, P_HID, P_USB, P_SDIO, P_PSY, P_PWM = (
    0x00, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09)
P_SPI, P_LIGHTS, P_VIBRATOR, P_LOOPBACK, P_AUDIO_MGMT, P_AUDIO_DATA = (
    0x0B, 0x0F, 0x10, 0x11, 0x12, 0x13)
P_BOOTROM, P_FW_DOWNLOAD, P_FW_MGMT, P_AUTH, P_LOG, P_RAW, P_VENDOR = (
    0x15, 0x17, 0x18, 0x19, 0x1A, 0xFE, 0xFF)


def le16(v):
    return struct.pack("<H", v)


def le32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def name32(s):
    return s.encode().ljust(32, b"\0")


class Pcapng:
    """The minimum of pcapng that docs/tracing.md uses."""

    def __init__(self):
        self.out = bytearray()
        body = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + self._opt(0, b"")
        self._block(0x0A0D0D0A, body)

    @staticmethod
    def _opt(code, value):
        pad = (4 - len(value) % 4) % 4
        return struct.pack("<HH", code, len(value)) + value + b"\0" * pad

    def _block(self, btype, body):
        body += b"\0" * ((4 - len(body) % 4) % 4)
        total = len(body) + 12
        self.out += struct.pack("<II", btype, total) + body + struct.pack("<I", total)

    def interface(self, name):
        opts = self._opt(2, name.encode()) + self._opt(9, bytes([9])) + self._opt(0, b"")
        self._block(1, struct.pack("<HHI", LINKTYPE_USER0, 0, 0) + opts)

    def packet(self, ifid, ts_ns, data):
        head = struct.pack("<IIIII", ifid, ts_ns >> 32, ts_ns & 0xFFFFFFFF, len(data), len(data))
        self._block(6, head + data)


def record(direction, src_port, dst_port, src_dev, dst_dev, src_cport, dst_cport, hd_cport,
           dropped=False, verdict=0, latency_ps=0, tc=0):
    return struct.pack("<BBBBBBBBHHHBBQ", 1, 0, direction, 1 if dropped else 0, src_port,
                       dst_port, src_dev, dst_dev, src_cport, dst_cport, hd_cport, tc, verdict,
                       latency_ps)


def message(op_id, mtype, payload=b"", result=0, size=None):
    if size is None:
        size = 8 + len(payload)
    return struct.pack("<HHBBBB", size, op_id, mtype, result, 0, 0) + payload


class Capture:
    """A run of the fabric: every add_*() appends one packet and returns its frame number."""

    def __init__(self):
        self.pcap = Pcapng()
        for name in ("ap", "svc", "slot 0", "slot 1"):
            self.pcap.interface(name)
        self.t = 1_000_000  # ns
        self.frames = 0
        self.marks = {}
        self.svc_ids = 0  # the SVC's request counter
        self.ap_svc_ids = 1  # the AP's counter on its SVC connection (first request: 2)
        self.conn_ids = {}  # (intf, cport) -> the AP's counter on that connection
        self.mod_ids = {}  # (intf, cport) -> the module's counter
        self.hd = {}  # (intf, cport) -> hd cport
        self.next_hd = 1
        self.conn_creates = 0

    def mark(self, name, frame=None):
        self.marks[name] = self.frames if frame is None else frame

    def _add(self, ifid, rec, msg, gap_ns=20_000):
        self.t += gap_ns
        self.pcap.packet(ifid, self.t, rec + msg)
        self.frames += 1
        return self.frames

    # --- AP <-> SVC (hd CPort 0 <-> SVC CPort 0) ---
    def svc_request(self, mtype, payload=b""):
        self.svc_ids += 1
        rec = record(SVC_TO_AP, SVC_PORT, AP_PORT, 0, AP_DEVICE_ID, 0, 0, 0, latency_ps=900_000)
        self._add(0, rec, message(self.svc_ids, mtype, payload))
        return self.svc_ids

    def ap_svc_response(self, op_id, mtype, payload=b"", result=0):
        rec = record(AP_TO_SVC, AP_PORT, SVC_PORT, AP_DEVICE_ID, 0, 0, 0, 0, latency_ps=900_000)
        return self._add(1, rec, message(op_id, mtype | RESPONSE, payload, result))

    def ap_svc_request(self, mtype, payload=b""):
        self.ap_svc_ids = self.ap_svc_ids % 0xFFFF + 1
        rec = record(AP_TO_SVC, AP_PORT, SVC_PORT, AP_DEVICE_ID, 0, 0, 0, 0, latency_ps=900_000)
        self._add(1, rec, message(self.ap_svc_ids, mtype, payload))
        return self.ap_svc_ids

    def svc_response(self, op_id, mtype, payload=b"", result=0):
        rec = record(SVC_TO_AP, SVC_PORT, AP_PORT, 0, AP_DEVICE_ID, 0, 0, 0, latency_ps=900_000)
        return self._add(0, rec, message(op_id, mtype | RESPONSE, payload, result), 50_000)

    def svc_op(self, mtype, req=b"", resp=b"", result=0):
        """AP -> SVC request and the SVC's response; returns (request, response) frames."""
        op = self.ap_svc_request(mtype, req)
        f = self.frames
        return f, self.svc_response(op, mtype, resp, result)

    def conn_create(self, intf, cport):
        hd = self.next_hd
        self.next_hd += 1
        self.hd[(intf, cport)] = hd
        self.conn_ids.setdefault((intf, cport), 1)
        self.conn_creates += 1
        self.svc_op(0x07, bytes([AP_PORT]) + le16(hd) + bytes([intf]) + le16(cport) + b"\0\x07")
        return hd

    # --- AP <-> module interface ---
    def _ap_rec(self, intf, cport, **kw):
        return record(AP_TO_INTF, AP_PORT, intf, AP_DEVICE_ID, intf, self.hd[(intf, cport)],
                      cport, self.hd[(intf, cport)], latency_ps=1_500_000, **kw)

    def _mod_rec(self, intf, cport):
        return record(INTF_TO_AP, intf, AP_PORT, intf, AP_DEVICE_ID, cport,
                      self.hd[(intf, cport)], self.hd[(intf, cport)], latency_ps=1_500_000)

    def ap_request(self, intf, cport, mtype, payload=b"", op_id=None, size=None):
        if op_id is None:
            n = self.conn_ids[(intf, cport)] % 0xFFFF + 1
            self.conn_ids[(intf, cport)] = n
            op_id = n
        self._add(intf, self._ap_rec(intf, cport), message(op_id, mtype, payload, size=size))
        return op_id

    def mod_response(self, intf, cport, op_id, mtype, payload=b"", result=0):
        return self._add(0, self._mod_rec(intf, cport),
                         message(op_id, mtype | RESPONSE, payload, result), 80_000)

    def mod_request(self, intf, cport, mtype, payload=b""):
        n = self.mod_ids.get((intf, cport), 0) % 0xFFFF + 1
        self.mod_ids[(intf, cport)] = n
        self._add(0, self._mod_rec(intf, cport), message(n, mtype, payload))
        return n

    def ap_response(self, intf, cport, op_id, mtype, payload=b"", result=0):
        return self._add(intf, self._ap_rec(intf, cport),
                         message(op_id, mtype | RESPONSE, payload, result), 60_000)

    def op(self, intf, cport, mtype, req=b"", resp=b"", result=0):
        """AP -> module request and its response; returns (request, response) frames."""
        op = self.ap_request(intf, cport, mtype, req)
        f = self.frames
        return f, self.mod_response(intf, cport, op, mtype, resp, result)

    def mod_op(self, intf, cport, mtype, req=b"", resp=b"", result=0):
        """module -> AP request and the AP's response."""
        op = self.mod_request(intf, cport, mtype, req)
        f = self.frames
        return f, self.ap_response(intf, cport, op, mtype, resp, result)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.pcap.out)


def manifest(strings, bundles, cports):
    """Binary manifest (docs/manifests.md): strings {id: text}, bundles [(id, class)],
    cports [(id, bundle, protocol)]."""
    descs = [struct.pack("<HBBBBBB", 8, 1, 0, 1, 2, 0, 0)]  # interface: strings 1, 2
    for sid, text in strings.items():
        raw = text.encode()
        size = (6 + len(raw) + 3) & ~3
        descs.append((struct.pack("<HBBBB", size, 2, 0, len(raw), sid) + raw).ljust(size, b"\0"))
    for bid, cls in bundles:
        descs.append(struct.pack("<HBBBBBB", 8, 3, 0, bid, cls, 0, 0))
    for cid, bid, proto in cports:
        descs.append(struct.pack("<HBBHBB", 8, 4, 0, cid, bid, proto))
    body = b"".join(descs)
    return struct.pack("<HBB", 4 + len(body), 0, 1) + body


MANIFEST_2 = manifest({1: "Project Ara", 2: "GPIO and I2C"}, [(1, 0x0A)],
                      [(1, 1, P_GPIO), (2, 1, P_I2C)])

# interface 3: one CPort per remaining protocol
INTF3_CPORTS = [
    (1, 1, P_UART), (2, 1, P_SPI), (3, 1, P_PWM), (4, 2, P_LOOPBACK), (5, 3, P_PSY),
    (6, 4, P_LIGHTS), (7, 5, P_VIBRATOR), (8, 6, P_HID), (9, 7, P_LOG), (10, 8, P_RAW),
    (11, 1, P_SDIO), (12, 9, P_FW_DOWNLOAD), (13, 9, P_FW_MGMT), (14, 9, P_AUTH),
    (15, 10, P_BOOTROM), (16, 11, P_AUDIO_MGMT), (17, 11, P_AUDIO_DATA), (18, 1, P_USB),
    (19, 12, P_VENDOR),
]
MANIFEST_3 = manifest({1: "gbvp", 2: "Everything"},
                      [(1, 0x0A), (2, 0x11), (3, 0x08), (4, 0x0F), (5, 0x10), (6, 0x05),
                       (7, 0x17), (8, 0xFE), (9, 0x16), (10, 0x15), (11, 0x12), (12, 0xFF)],
                      INTF3_CPORTS)


def boot(c):
    """SVC handshake and the two modules up to their manifests and connections."""
    op = c.svc_request(0x01, b"\x00\x01")  # PROTOCOL_VERSION
    c.mark("svc_version_req")
    c.mark("svc_version_resp", c.ap_svc_response(op, 0x01, b"\x00\x01"))
    hello = c.svc_request(0x02, le16(0x4755) + bytes([AP_PORT]))  # SVC_HELLO
    c.mark("svc_hello_req")
    c.svc_op(0x14, b"", b"\x02")  # PWRMON_RAIL_COUNT_GET -> 2 rails
    c.svc_op(0x15, b"", b"\x00" + name32("VSYS") + name32("VCHG"))  # RAIL_NAMES_GET
    c.svc_op(0x16, b"\x00\x02", b"\x00" + le32(3800000))  # SAMPLE_GET rail 0 voltage
    c.ap_svc_response(hello, 0x02)
    pwrm = bytes([AP_PORT, 1, 0x05, 2, 1, 1, 0, 0x05, 2, 1, 0]) + le32(0) + b"\0" * 48
    c.svc_op(0x10, pwrm, b"\x01")  # INTF_SET_PWRM -> PWR_LOCAL
    c.svc_op(0x13)  # PING
    for intf in (2, 3):
        op = c.svc_request(0x1F, bytes([intf, 1]) + le16(0))  # MODULE_INSERTED
        c.ap_svc_response(op, 0x1F)
        for t in (0x21, 0x23, 0x25):  # VSYS, REFCLK, UNIPRO enable
            c.svc_op(t, bytes([intf]), b"\x00")
        c.svc_op(0x27, bytes([intf]), b"\x00\x03")  # INTF_ACTIVATE -> Greybus
        for attr, value in ((0x5003, 0x126), (0x5004, 0x1002), (0x6000, 0x1234),
                            (0x6001, 0x5678), (0x6002, 1), (0x6003, 0)):
            f = c.svc_op(0x09, bytes([intf]) + le16(attr) + le16(0), le16(0) + le32(value))
            if intf == 2 and attr == 0x5003:
                c.mark("dme_get_req", f[0])
                c.mark("dme_get_resp", f[1])
        c.svc_op(0x03, bytes([intf, intf]))  # INTF_DEVICE_ID
        c.svc_op(0x0B, bytes([AP_PORT, AP_DEVICE_ID, intf, intf]))  # ROUTE_CREATE
        c.svc_op(0x09, bytes([intf]) + le16(0x6101) + le16(0), le16(0) + le32(0x04000000))
        c.svc_op(0x0A, bytes([intf]) + le16(0x6101) + le16(0) + le32(0), le16(0))
        c.conn_create(intf, 0)
        if intf == 2:
            c.mark("conn_create_ctrl", c.frames - 1)
        c.op(intf, 0, 0x01, b"\x00\x01", b"\x00\x01")  # VERSION
        mf = MANIFEST_2 if intf == 2 else MANIFEST_3
        c.op(intf, 0, 0x03, b"", le16(len(mf)))  # GET_MANIFEST_SIZE
        f = c.op(intf, 0, 0x04, b"", mf)  # GET_MANIFEST
        c.mark("manifest%d_req" % intf, f[0])
        c.mark("manifest%d_resp" % intf, f[1])
        cports = [(1, 1), (2, 1)] if intf == 2 else [(cid, b) for cid, b, _ in INTF3_CPORTS]
        for bundle in sorted({b for _, b in cports}):
            c.op(intf, 0, 0x12, b"\x01" if intf == 2 else bytes([bundle]), b"\x00")
        for cid, _ in cports:
            c.conn_create(intf, cid)
            if intf == 2 and cid == 1:
                c.mark("conn_create_gpio", c.frames - 1)
            c.op(intf, 0, 0x05, le16(cid))  # CONNECTED


def every_operation(c):
    """One request and its response of every operation type of every protocol, with the
    payloads gbvp's handlers (and Linux 6.1) use."""
    g = (2, 1)
    c.op(*g, 0x02, b"", b"\x07")  # LINE_COUNT
    c.op(*g, 0x03, b"\x00")  # ACTIVATE
    c.op(*g, 0x05, b"\x00", b"\x01")  # GET_DIRECTION
    c.op(*g, 0x06, b"\x00")  # DIRECTION_IN
    c.op(*g, 0x07, b"\x00\x01")  # DIRECTION_OUT
    f = c.op(*g, 0x08, b"\x00", b"\x01")  # GET_VALUE
    c.mark("gpio_get_value_req", f[0])
    c.mark("gpio_get_value_resp", f[1])
    c.op(*g, 0x09, b"\x00\x00")  # SET_VALUE
    c.op(*g, 0x0A, b"\x00" + le16(1000))  # SET_DEBOUNCE
    c.op(*g, 0x0B, b"\x00\x03")  # IRQ_TYPE edge both
    c.op(*g, 0x0C, b"\x00")  # IRQ_MASK
    c.op(*g, 0x0D, b"\x00")  # IRQ_UNMASK
    f = c.mod_op(*g, 0x0E, b"\x00")  # IRQ_EVENT
    c.mark("gpio_irq_req", f[0])
    c.mark("gpio_irq_resp", f[1])
    c.op(*g, 0x04, b"\x00")  # DEACTIVATE
    f = c.op(*g, 0x08, b"\x09", b"", result=0x06)  # GET_VALUE of a line too high: INVALID
    c.mark("gpio_invalid_resp", f[1])
    c.op(*g, 0x00, b"\x01")  # CPort Shutdown phase 1

    i = (2, 2)
    f = c.op(*i, 0x02, b"", le32(0x0EFF0009))  # FUNCTIONALITY
    c.mark("i2c_func_resp", f[1])
    ops = struct.pack("<HHHHHHH", 2, 0x50, 0, 1, 0x50, 1, 4)  # write 1 byte, read 4
    f = c.op(*i, 0x05, ops + b"\x10", b"\xde\xad\xbe\xef")  # TRANSFER
    c.mark("i2c_transfer_req", f[0])
    c.mark("i2c_transfer_resp", f[1])

    u = (3, 1)
    c.op(*u, 0x02, le16(5) + b"hello")  # SEND_DATA
    c.mod_op(*u, 0x03, le16(3) + b"\x00" + b"abc")  # RECEIVE_DATA
    c.op(*u, 0x04, le32(115200) + bytes([0, 0, 8, 0]))  # SET_LINE_CODING
    c.op(*u, 0x05, b"\x03")  # SET_CONTROL_LINE_STATE DTR|RTS
    c.op(*u, 0x06, b"\x01")  # SEND_BREAK
    c.mod_op(*u, 0x07, b"\x01")  # SERIAL_STATE DCD
    c.mod_op(*u, 0x08, le16(5))  # RECEIVE_CREDITS
    c.op(*u, 0x09, b"\x03")  # FLUSH_FIFOS

    s = (3, 2)
    c.op(*s, 0x02, b"", le32(0x80) + le32(1000) + le32(10000000) + le16(0x2F) + le16(0) +
         b"\x01")  # MASTER_CONFIG
    c.op(*s, 0x03, b"\x00", le16(0) + b"\x08" + le32(10000000) + b"\x02" + name32("dh2228fv"))
    xfer = le32(0) + le32(2) + le16(0) + bytes([0, 8, 0x03])  # 2 bytes, read + write
    f = c.op(*s, 0x04, b"\x00\x00" + le16(1) + xfer + b"\xa5\x5a", b"\xa5\x5a")  # TRANSFER
    c.mark("spi_transfer_resp", f[1])

    p = (3, 3)
    c.op(*p, 0x02, b"", b"\x01")  # PWM_COUNT
    c.op(*p, 0x03, b"\x00")
    c.op(*p, 0x05, b"\x00" + le32(500000) + le32(1000000))  # CONFIG
    c.op(*p, 0x06, b"\x00\x01")  # POLARITY inversed
    c.op(*p, 0x07, b"\x00")
    c.op(*p, 0x08, b"\x00")
    c.op(*p, 0x04, b"\x00")

    lb = (3, 4)
    c.op(*lb, 0x02)  # PING
    data = bytes(range(16))
    c.op(*lb, 0x03, le32(16) + le32(0) + le32(0) + data, le32(16) + le32(0) + le32(0) + data)
    c.op(*lb, 0x04, le32(4) + le32(0) + le32(0) + b"\xa5" * 4)  # SINK
    c.mod_op(*lb, 0x03, le32(2) + le32(0) + le32(0) + b"\xa5\xa5",
             le32(2) + le32(0) + le32(0) + b"\xa5\xa5")

    ps = (3, 5)
    c.op(*ps, 0x02, b"", b"\x01")  # GET_SUPPLIES
    c.op(*ps, 0x03, b"\x00", name32("gbvp") + name32("gbvp-battery") + name32("GBVP0001") +
         le16(1) + b"\x03")  # GET_DESCRIPTION
    c.op(*ps, 0x04, b"\x00", b"\x03" + bytes([0x00, 0, 0x2A, 0, 0x1D, 1]))  # PROP_DESCRIPTORS
    f = c.op(*ps, 0x05, b"\x00\x2a", le32(80))  # GET_PROPERTY capacity
    c.mark("psy_get_property_resp", f[1])
    c.op(*ps, 0x05, b"\x00\x11", struct.pack("<i", -500000))  # current-now, negative
    c.op(*ps, 0x06, b"\x00\x1d" + le32(1500000))  # SET_PROPERTY
    c.mod_op(*ps, 0x07, b"\x00\x01")  # EVENT update

    li = (3, 6)
    c.op(*li, 0x02, b"", b"\x01")  # GET_LIGHTS
    c.op(*li, 0x03, b"\x00", b"\x02" + name32("gbvp"))  # GET_LIGHT_CONFIG
    c.op(*li, 0x04, b"\x00\x00", b"\xff" + le32(6) + le32(0xFF0000) + name32("red") +
         le32(0x40) + name32("status"))  # GET_CHANNEL_CONFIG
    c.op(*li, 0x05, b"\x00\x01", b"".join(le32(v) for v in (25000, 1000000, 25000, 10000,
                                                            1000000, 10000)))
    c.op(*li, 0x06, b"\x00\x00\x80")  # SET_BRIGHTNESS
    c.op(*li, 0x07, b"\x00\x00" + le16(500) + le16(500))  # SET_BLINK
    c.op(*li, 0x08, b"\x00\x00" + le32(0x00FF00))  # SET_COLOR
    c.op(*li, 0x09, b"\x00\x00\x01\x02")  # SET_FADE
    c.mod_op(*li, 0x0A, b"\x00\x01")  # EVENT
    c.op(*li, 0x0B, b"\x00\x01" + le32(50000))  # SET_FLASH_INTENSITY
    c.op(*li, 0x0C, b"\x00\x01\x01")  # SET_FLASH_STROBE
    c.op(*li, 0x0D, b"\x00\x01" + le32(20000))  # SET_FLASH_TIMEOUT
    c.op(*li, 0x0E, b"\x00\x01", le32(0x02))  # GET_FLASH_FAULT

    v = (3, 7)
    c.op(*v, 0x02)
    c.op(*v, 0x03)

    h = (3, 8)
    c.op(*h, 0x02, b"", b"\x0a" + le16(63) + le16(0x0111) + le16(0x0001) + le16(0x1209) + b"\0")
    c.op(*h, 0x03, b"", bytes([0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0xC0]))  # report desc
    c.op(*h, 0x04)  # PWR_ON
    c.op(*h, 0x06, b"\x00\x00", b"\0" * 8)  # GET_REPORT input
    c.op(*h, 0x07, b"\x01\x00\x01")  # SET_REPORT output
    c.mod_op(*h, 0x08, b"\x02\x00\x04\x00\x00\x00\x00\x00")  # IRQ_EVENT
    c.op(*h, 0x05)  # PWR_OFF

    text = b"gbvp: hello from the log\0"
    f = c.mod_op(3, 9, 0x02, le16(len(text)) + text)  # SEND_LOG
    c.mark("log_req", f[0])

    c.op(3, 10, 0x02, le32(3) + b"raw")  # SEND
    c.mod_op(3, 10, 0x02, le32(2) + b"ok")

    # protocols gbvp does not implement: type names only, payload as bytes
    c.op(3, 11, 0x02, b"", le32(0x03) + le32(0x00FF8000) + le32(400000) + le32(50000000) +
         le16(1) + le16(512))  # SDIO GET_CAPABILITIES
    c.op(3, 12, 0x01, b"s3f\0\0\0\0\0\0\0", b"\x01" + le32(4096))  # FIND_FIRMWARE
    c.op(3, 13, 0x01, b"", b"s3f" + b"\0" * 7 + le16(0) + le16(1))  # INTERFACE_FW_VERSION
    c.op(3, 14, 0x01, b"", b"\x01" * 8)  # GET_ENDPOINT_UID
    c.op(3, 15, 0x01, b"\x00\x01", b"\x00\x01")  # bootrom VERSION
    c.op(3, 16, 0x02, b"", le16(100))  # audio GET_TOPOLOGY_SIZE
    c.op(3, 17, 0x15, le32(0) * 2 + b"\0" * 4)  # audio data SEND_DATA
    c.op(3, 18, 0x02, b"\x01\x02")  # USB (no names in gbvp)
    c.op(3, 19, 0x42, b"\xca\xfe", b"\xbe\xef")  # vendor

    # control operations not yet seen
    c.op(2, 0, 0x0B, b"\x01", b"\x00\x01")  # BUNDLE_VERSION
    c.op(2, 0, 0x0C, le16(1))  # DISCONNECTING
    c.op(2, 0, 0x06, le16(1))  # DISCONNECTED
    c.op(2, 0, 0x0F, b"\x01", b"\x02")  # BUNDLE_SUSPEND -> BUSY
    c.op(2, 0, 0x10, b"\x01", b"\x00")  # BUNDLE_RESUME
    c.op(2, 0, 0x13, b"", b"\x00")  # INTF_SUSPEND_PREPARE
    c.op(2, 0, 0x14, b"", b"\x00")  # INTF_DEACTIVATE_PREPARE
    c.op(2, 0, 0x11, b"\x01", b"\x00")  # BUNDLE_DEACTIVATE

    # SVC operations not yet seen
    c.svc_op(0x08, bytes([AP_PORT]) + le16(2) + b"\x02" + le16(1))  # CONN_DESTROY
    c.svc_op(0x0C, bytes([AP_PORT, 2]))  # ROUTE_DESTROY
    c.svc_op(0x17, b"\x02\x01", b"\x00" + le32(120000))  # PWRMON_INTF_SAMPLE_GET current
    hib = bytes([2, 1, 0x11, 0, 0, 0, 0, 0x11, 0, 0, 0]) + le32(0) + b"\0" * 48
    c.svc_op(0x10, hib, b"\x00")  # INTF_SET_PWRM hibernate
    for t in (0x22, 0x24, 0x26):  # VSYS, REFCLK, UNIPRO disable
        c.svc_op(t, b"\x02", b"\x00")
    c.svc_op(0x28, b"\x03", b"\x00")  # INTF_RESUME
    c.svc_op(0x11, b"\x03")  # INTF_EJECT
    op = c.svc_request(0x06, b"\x03")  # INTF_RESET
    c.ap_svc_response(op, 0x06)
    op = c.svc_request(0x29, b"\x03" + le16(0) + le32(2))  # INTF_MAILBOX_EVENT
    c.ap_svc_response(op, 0x29)
    op = c.svc_request(0x2A, b"\x03\x01")  # INTF_OOPS
    c.ap_svc_response(op, 0x2A)
    op = c.svc_request(0x20, b"\x03")  # MODULE_REMOVED
    c.ap_svc_response(op, 0x20)


def oddities(c):
    # a connection between two interfaces: GPIO CPort 1 of interface 2 <-> CPort 3 of 3
    c.svc_op(0x07, b"\x02" + le16(1) + b"\x03" + le16(3) + b"\0\x07")
    c.conn_creates += 1
    rec = record(INTF_TO_INTF, 2, 3, 2, 3, 1, 3, 0xFFFF, latency_ps=2_000_000)
    c.mark("i2i_req", c._add(3, rec, message(9, 0x08, b"\x00")))
    rec = record(INTF_TO_INTF, 3, 2, 3, 2, 3, 1, 0xFFFF, latency_ps=2_000_000)
    c.mark("i2i_resp", c._add(2, rec, message(9, 0x88, b"\x01")))
    # a message on a CPort no manifest names
    c.hd[(2, 7)] = 40
    c.conn_ids[(2, 7)] = 1
    f = c.op(2, 7, 0x02, b"\x01\x02", b"\x03")
    c.mark("unknown_cport_req", f[0])
    # a request the fabric dropped: no connection, peer unknown
    rec = record(AP_TO_INTF, AP_PORT, 0xFF, AP_DEVICE_ID, 0, 9, 0xFFFF, 9, dropped=True,
                 verdict=1)
    c.mark("dropped", c._add(0, rec, message(5, 0x08, b"\x00")))
    # malformed: the size field says 20 bytes, the message has 9; type 0x33 is no GPIO type
    c.ap_request(2, 1, 0x33, b"\x00", size=20)
    c.mark("malformed")
    # the only unidirectional request 6.1 sends: control MODE_SWITCH, operation id 0
    c.ap_request(2, 0, 0x0E, b"", op_id=0)
    c.mark("mode_switch")


def fuzz(c, seed):
    rnd = random.Random(seed)
    conns = [(2, 0), (2, 1), (2, 2)] + [(3, cid) for cid, _, _ in INTF3_CPORTS] + [(3, 0)]
    for _ in range(600):
        intf, cport = rnd.choice(conns)
        mtype = rnd.choice([rnd.randrange(0, 0x80), rnd.randrange(0, 0x16),
                            rnd.randrange(0, 0x10)])
        n = rnd.choice([0, 1, 2, 3, 4, 5, 6, 8, 12, 13, 17, 40, 77, 99, rnd.randrange(0, 200)])
        payload = bytes(rnd.randrange(256) for _ in range(n))
        result = rnd.choice([0, 0, 0, 6, 0xFE])
        kind = rnd.randrange(5)
        if kind == 0:
            c.op(intf, cport, mtype, payload, bytes(rnd.randrange(256) for _ in range(n // 2)),
                 result)
        elif kind == 1:
            c.mod_op(intf, cport, mtype, payload, b"", result)
        elif kind == 2:
            c.ap_request(intf, cport, mtype, payload, size=rnd.randrange(0, 300))
        elif kind == 3:
            mtype = rnd.randrange(0, 0x30)
            c.svc_op(mtype, payload, payload[: n // 2], result)
        else:  # a short record: the header cut anywhere
            raw = c._ap_rec(intf, cport) + message(1, mtype, payload)
            cut = rnd.randrange(0, min(len(raw), 40))
            c.t += 1000
            c.pcap.packet(intf, c.t, raw[:cut])
            c.frames += 1


def broken(c):
    """One packet of each malformation that only a close look at the layout finds."""
    intf = struct.pack("<HBBBBBB", 8, 1, 0, 1, 2, 0, 0)

    def get_manifest(name, descs):
        body = intf + descs
        f = c.op(2, 0, 0x04, b"", struct.pack("<HBB", 4 + len(body), 0, 1) + body)
        c.mark(name, f[1])

    # a descriptor whose size field is 0: smaller than its own header
    get_manifest("mf_size0", b"\0\0\x03\0")
    # a string of 0 bytes in 6: the kernel wants round_up(6 + 0, 4) = 8
    get_manifest("mf_string_unpadded", struct.pack("<HBBBB", 6, 2, 0, 0, 3))
    # a data-link frame record with 2 bytes after its 24
    rec = struct.pack("<BBBBBBBBIIHHI", 1, 1, 0, 0, AP_PORT, 0, 0, 2, 5, 10, 0, 0, 1000)
    c.mark("dl_long", c._add(0, rec, b"\xde\xad"))


def main(argv):
    if len(argv) < 3 or argv[1] not in ("main", "fuzz", "broken"):
        sys.stderr.write(__doc__)
        return 2
    c = Capture()
    boot(c)
    if argv[1] == "main":
        every_operation(c)
        oddities(c)
    elif argv[1] == "broken":
        broken(c)
    else:
        fuzz(c, int(argv[3]) if len(argv) > 3 else 1)
    c.write(argv[2])
    if argv[1] in ("main", "broken") and len(argv) > 3:
        with open(argv[3], "w") as f:
            f.write("FRAMES=%d\nN_conn_create=%d\n" % (c.frames, c.conn_creates))
            for k, v in sorted(c.marks.items()):
                f.write("F_%s=%d\n" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
