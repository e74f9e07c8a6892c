#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seed corpora of the fuzz targets in tests/fuzz/fuzz.mk: valid inputs shaped
# like what Linux 6.1 (and the ES2 driver, gblink peers, model and behaviour files) really
# send, in each target's input format (see the comment at the top of each fuzz_*.c).
# Usage: tests/fuzz/fuzz_seeds.py [NAME...]   (rewrites gen-* seeds only; NAME: vm, svc, es2,
# gblink, model, behaviour, control, scenario_api; default all)
import glob
import os
import shutil
import struct

ROOT = os.path.dirname(os.path.abspath(__file__))


def out(target, name, data):
    d = os.path.join(ROOT, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "gen-" + name), "wb") as f:
        f.write(data)


def clean(target):
    os.makedirs(os.path.join(ROOT, "corpus", target), exist_ok=True)
    for p in glob.glob(os.path.join(ROOT, "corpus", target, "gen-*")):
        os.remove(p)


# ---- fuzz_vm_interface ------------------------------------------------------------------
CATALOG_DIR = os.path.join(ROOT, "..", "..", "virtual-modules", "catalog")


def catalog_interfaces():
    """The catalog's modules, sorted by name as fuzz_catalog.h loads them, each with its
    interface count: NAME.mnfs is one interface, NAME.intfK.mnfs are K of them. Read from
    the catalog so that a seed's first byte keeps naming the module it was written for."""
    count = {}
    for p in glob.glob(os.path.join(CATALOG_DIR, "*.mnfs")):
        parts = os.path.basename(p)[:-len(".mnfs")].split(".")
        count[parts[0]] = count.get(parts[0], 0) + 1
    return [(name, count[name]) for name in sorted(count)]


# catalog interfaces in the target's order (module names sorted, then interface index)
VM_TARGETS = [name if n == 1 else "%s.%d" % (name, k + 1)
              for name, n in catalog_interfaces() for k in range(n)]


class Vm:
    def __init__(self, target):
        self.b = bytes([VM_TARGETS.index(target)])
        self.id = 1

    def req(self, cport, type_, payload=b"", op_id=None):
        if op_id is None:
            op_id = self.id
            self.id += 1
        self.b += struct.pack("<BBHBH", 0, cport, op_id, type_, len(payload)) + payload
        return self

    def power(self, ev):
        self.b += bytes([4, ev])
        return self

    def connect(self, cport):
        self.b += bytes([5, cport])
        return self

    def disconnect(self, cport):
        self.b += bytes([6, cport])
        return self

    def answer(self, result=0, payload=b""):
        self.b += bytes([9, result, len(payload)]) + payload
        return self

    def backend(self, which, a=0, b=0, extra=b""):
        self.b += bytes([8, which, a, b]) + extra
        return self


def control_enumeration(v, bundles=(1,), cports=(1,)):
    """What 6.1 does on CPort 0 after activation, then the bundle's connections."""
    v.req(0, 0x01, bytes([0, 1]))            # VERSION 0.1
    v.req(0, 0x03)                           # GET_MANIFEST_SIZE
    v.req(0, 0x04)                           # GET_MANIFEST
    for b in bundles:
        v.req(0, 0x12, bytes([b]))           # BUNDLE_ACTIVATE
    for c in cports:
        v.req(0, 0x05, struct.pack("<H", c))  # CONNECTED
    return v


def control_teardown(v, bundles=(1,), cports=(1,)):
    for c in cports:
        v.req(0, 0x0c, struct.pack("<H", c))  # DISCONNECTING
        v.req(c, 0x00, bytes([1]))            # CPORT_SHUTDOWN phase 1
        v.req(c, 0x00, bytes([2]))
        v.req(0, 0x06, struct.pack("<H", c))  # DISCONNECTED
    for b in bundles:
        v.req(0, 0x0f, bytes([b]))            # BUNDLE_SUSPEND
        v.req(0, 0x10, bytes([b]))            # BUNDLE_RESUME
        v.req(0, 0x11, bytes([b]))            # BUNDLE_DEACTIVATE
    v.req(0, 0x13)                            # INTF_SUSPEND_PREPARE
    v.req(0, 0x15)                            # INTF_HIBERNATE_ABORT
    v.req(0, 0x14)                            # INTF_DEACTIVATE_PREPARE
    v.power(7)                                # HIBERNATE
    v.power(8)                                # RESUME
    v.req(0, 0x0e, op_id=0)                   # MODE_SWITCH (unidirectional)
    return v


def vm_seeds():
    t = "fuzz_vm_interface"
    clean(t)
    # power supply (battery, dual interface 2)
    for name in ("battery", "dual.2"):
        v = control_enumeration(Vm(name))
        v.req(1, 0x02)                                        # GET_SUPPLIES
        v.req(1, 0x03, bytes([0]))                            # GET_DESCRIPTION
        v.req(1, 0x04, bytes([0]))                            # GET_PROP_DESCRIPTORS
        for prop in (0x00, 0x04, 0x0c, 0x1d, 0x2c):
            v.req(1, 0x05, bytes([0, prop]))                  # GET_PROPERTY
        v.req(1, 0x06, struct.pack("<BBI", 0, 0x1d, 50))      # SET_PROPERTY
        v.backend(1, 0, 0x04, struct.pack("<i", 20) + b"\x01").answer()
        out(t, name + "-power-supply", control_teardown(v).b)
    # UART (dual interface 1 is a loopback UART, uart is a pty)
    for name in ("dual.1", "uart"):
        v = control_enumeration(Vm(name))
        v.req(1, 0x04, struct.pack("<IBBBB", 115200, 0, 0, 8, 0))  # SET_LINE_CODING
        v.req(1, 0x05, bytes([3]))                             # SET_CONTROL_LINE_STATE
        v.req(1, 0x02, struct.pack("<H", 5) + b"hello")        # SEND_DATA
        v.req(1, 0x06, bytes([1]))                             # SEND_BREAK
        v.req(1, 0x09, bytes([3]))                             # FLUSH_FIFOS
        v.backend(3, 1, 0, b"abcdefgh").answer().backend(4, 0x01).answer()
        out(t, name + "-uart", control_teardown(v).b)
    # HID keyboard
    v = control_enumeration(Vm("keyboard"))
    v.req(1, 0x02).req(1, 0x03).req(1, 0x04)
    v.req(1, 0x06, bytes([0, 0]))                               # GET_REPORT input
    v.req(1, 0x07, bytes([1, 0, 1]))                            # SET_REPORT output (LEDs)
    v.backend(2, 8, 0, bytes([0, 0, 4, 0, 0, 0, 0, 0])).answer()
    v.req(1, 0x05)
    out(t, "keyboard-hid", control_teardown(v).b)
    # lights
    v = control_enumeration(Vm("light"))
    v.req(1, 0x02).req(1, 0x03, bytes([0]))
    for ch in range(3):
        v.req(1, 0x04, bytes([0, ch]))
    v.req(1, 0x05, bytes([0, 0]))
    v.req(1, 0x06, bytes([0, 0, 128]))                          # SET_BRIGHTNESS
    v.req(1, 0x07, struct.pack("<BBHH", 0, 1, 100, 200))        # SET_BLINK
    v.req(1, 0x08, struct.pack("<BBI", 0, 2, 0xff0000))         # SET_COLOR
    v.req(1, 0x09, bytes([0, 0, 10, 20]))                       # SET_FADE
    v.req(1, 0x0b, struct.pack("<BBI", 0, 0, 1000))
    v.req(1, 0x0c, bytes([0, 0, 1]))
    v.req(1, 0x0d, struct.pack("<BBI", 0, 0, 5000))
    v.req(1, 0x0e, bytes([0, 0]))
    out(t, "light-lights", control_teardown(v).b)
    # loopback
    v = control_enumeration(Vm("loopback"))
    v.req(1, 0x02)
    v.req(1, 0x03, struct.pack("<III", 16, 0, 0) + bytes(range(16)))
    v.req(1, 0x04, struct.pack("<III", 32, 0, 0) + bytes(32))
    v.backend(5).answer().backend(6, 0, 16).answer(0, struct.pack("<III", 16, 0, 0) + bytes(16))
    out(t, "loopback", control_teardown(v).b)
    # sensor: GPIO on CPort 1, I2C (EEPROM 0x50, LM75 0x48) on CPort 2
    v = control_enumeration(Vm("sensor"), cports=(1, 2))
    v.req(1, 0x02)
    for line in (0, 1):
        v.req(1, 0x03, bytes([line])).req(1, 0x05, bytes([line]))
    v.req(1, 0x06, bytes([0])).req(1, 0x08, bytes([0]))
    v.req(1, 0x07, bytes([1, 1])).req(1, 0x09, bytes([1, 0]))
    v.req(1, 0x0a, struct.pack("<BH", 0, 1000))
    v.req(1, 0x0b, bytes([0, 0x03])).req(1, 0x0d, bytes([0]))
    v.backend(0, 0, 1).answer().backend(0, 0, 0).answer()
    v.req(1, 0x0c, bytes([0])).req(1, 0x04, bytes([0]))
    v.req(2, 0x02)                                              # FUNCTIONALITY
    # EEPROM: write offset 0 then read 4 bytes; LM75: read temperature register
    v.req(2, 0x05, struct.pack("<HHHH", 1, 0x50, 0, 3) + bytes([0, 0xab, 0xcd]))
    v.req(2, 0x05, struct.pack("<HHHHHHH", 2, 0x50, 0, 1, 0x50, 1, 4) + bytes([0]))
    v.req(2, 0x05, struct.pack("<HHHHHHH", 2, 0x48, 0, 1, 0x48, 1, 2) + bytes([0]))
    out(t, "sensor-gpio-i2c", control_teardown(v, cports=(1, 2)).b)
    # vibrator
    v = control_enumeration(Vm("vibrator"))
    v.req(1, 0x02).req(1, 0x03)                                 # ON (6.1: no payload), OFF
    out(t, "vibrator", control_teardown(v).b)
    # power cycling and runtime PM of connections
    v = control_enumeration(Vm("sensor"), cports=(1, 2))
    v.disconnect(1).req(1, 0x02).connect(1).req(1, 0x02)
    v.power(1).req(0, 0x01, bytes([0, 1])).power(0).power(2).power(4).power(6).connect(0)
    v.req(0, 0x01, bytes([0, 1])).req(0, 0x0b, bytes([1]))
    out(t, "sensor-power-cycle", v.b)
    # module-originated traffic through the backend commands (the `commands` of
    # fuzz_vm_interface.c, by index), on the modules that have those classes; only a request
    # sent with an operation id gets the AP's answer (SDIO events and camera METADATA are
    # unidirectional; the speaker has no jack, spi queue and usb connect send nothing)
    camera = struct.pack("<BBHHHHH", 1, 0, 0, 640, 480, 0x01, 0)   # CONFIGURE_STREAMS
    capture = struct.pack("<IBBH", 1, 1, 0, 2)                     # CAPTURE stream 0, 2 frames
    for name, reqs, cmds in (("sdcard", (), ((0, False), (1, False), (2, False), (3, False))),
                             ("speaker", (), ((4, False), (6, False), (5, False))),
                             ("camera", ((0x03, camera), (0x04, capture)),
                              ((8, False), (8, False), (8, False))),
                             ("lograw", (), ((9, True), (10, True))),
                             ("spi", (), ((11, False),)),
                             ("usb", (), ((12, False), (13, False)))):
        v = control_enumeration(Vm(name))
        for type_, payload in reqs:
            v.req(1, type_, payload)
        for k, answered in cmds:
            v.backend(7, k)
            if answered:
                v.answer()
        out(t, name + "-commands", v.b)


# ---- fuzz_svc -----------------------------------------------------------------------------
CATALOG = [name for name, _ in catalog_interfaces()]  # fuzz_svc's module order


class Svc:
    def __init__(self):
        self.b = b""
        self.id = 1

    def req(self, type_, payload=b""):
        self.b += struct.pack("<BHBB", 0, self.id, type_, len(payload)) + payload
        self.id += 1
        return self

    def answer(self, result=0, payload=None):
        if payload is None:  # PROTOCOL_VERSION gets its own version echoed
            self.b += bytes([3, 0, result, 0])
        else:
            self.b += bytes([3, 0, result, len(payload)]) + payload
        return self

    def insert(self, slot, module):
        self.b += bytes([7, slot, CATALOG.index(module)])
        return self

    def remove(self, slot):
        self.b += bytes([8, slot])
        return self

    def data(self, hd, type_, payload=b""):
        self.b += struct.pack("<BBHBH", 6, hd - 1, self.id, type_, len(payload)) + payload
        self.id += 1
        return self

    def tick(self, ms):
        self.b += struct.pack("<BH", 9, ms)
        return self


def enumerate_intf(s, intf, dev, hd_cport):
    """The 6.1 AP's gb_interface_activate + enable for interface `intf`."""
    for t in (0x21, 0x23, 0x25):                     # VSYS, REFCLK, UNIPRO enable
        s.req(t, bytes([intf]))
    s.req(0x27, bytes([intf]))                       # INTF_ACTIVATE
    for attr, sel in ((0x5003, 0), (0x5004, 0), (0x6000, 0), (0x6001, 0), (0x6101, 0)):
        s.req(0x09, struct.pack("<BHH", intf, attr, sel))   # DME_PEER_GET
    s.req(0x0a, struct.pack("<BHHI", intf, 0x6101, 0, 0))   # DME_PEER_SET init status
    s.req(0x03, bytes([intf, dev]))                  # INTF_DEVICE_ID
    s.req(0x0b, bytes([1, 1, intf, dev]))            # ROUTE_CREATE
    s.req(0x07, struct.pack("<BHBHBB", 1, hd_cport, intf, 0, 0, 7))  # CONN_CREATE control
    s.data(hd_cport, 0x01, bytes([0, 1]))            # control VERSION
    s.data(hd_cport, 0x03)                           # GET_MANIFEST_SIZE
    s.data(hd_cport, 0x04)                           # GET_MANIFEST
    s.req(0x07, struct.pack("<BHBHBB", 1, hd_cport + 1, intf, 1, 0, 7))
    s.data(hd_cport, 0x05, struct.pack("<H", 1))      # CONNECTED
    return s


def svc_seeds():
    t = "fuzz_svc"
    clean(t)
    s = Svc().answer().answer(0, b"")                # version, hello
    out(t, "handshake", s.b)
    for slot, mod in ((0, "sensor"), (1, "battery"), (2, "dual")):
        s = Svc().insert(slot, mod).answer().answer(0, b"").answer(0, b"")  # + MODULE_INSERTED
        enumerate_intf(s, 2 + slot, 2 + slot, 4)
        s.data(5, 0x02)                               # a class request on the new connection
        s.req(0x10, bytes([2 + slot]) + bytes(62))    # INTF_SET_PWRM
        s.req(0x13)                                   # PING
        s.req(0x14).req(0x15).req(0x16, bytes([0, 1])).req(0x17, bytes([2 + slot, 1]))
        s.req(0x08, struct.pack("<BHBH", 1, 5, 2 + slot, 1))  # CONN_DESTROY
        s.req(0x08, struct.pack("<BHBH", 1, 4, 2 + slot, 0))
        s.req(0x0c, bytes([1, 2 + slot]))             # ROUTE_DESTROY
        s.req(0x26, bytes([2 + slot])).req(0x24, bytes([2 + slot])).req(0x22, bytes([2 + slot]))
        s.remove(slot).answer(0, b"")                 # MODULE_REMOVED
        s.req(0x11, bytes([2 + slot]))                # INTF_EJECT of a gone module
        out(t, "enumerate-" + mod, s.b)
    s = Svc().answer().answer(0, b"").insert(0, "uart").insert(1, "light").answer(0, b"")
    s.answer(0, b"").tick(500).tick(700).remove(0).insert(0, "keyboard").tick(2000)
    s.b += bytes([10 | 0x80, 10])                     # AP lost, then a new AP
    s.answer().answer(0, b"").answer(0, b"")
    s.b += bytes([11 | 0x80, 2]) + struct.pack("<I", 0x1234)   # mailbox event
    s.b += bytes([11, 3]) + struct.pack("<I", 1)               # oops
    out(t, "hotplug-restart", s.b)


# ---- fuzz_es2 -----------------------------------------------------------------------------
def es2_ctrl(rt, req, value=0, index=0, length=0, data=b""):
    return bytes([0, 43]) + struct.pack("<BBHHH", rt, req, value, index, length) + data


def es2_seeds():
    t = "fuzz_es2"
    clean(t)
    IN, OUT = 0xc1, 0x41
    out(t, "cport-count", es2_ctrl(IN, 0x04, length=2))
    out(t, "log", es2_ctrl(IN, 0x02, length=64))
    out(t, "reset-cport", es2_ctrl(OUT, 0x05, value=3))
    out(t, "latency-tag-en", es2_ctrl(OUT, 0x06, value=1))
    out(t, "latency-tag-dis", es2_ctrl(OUT, 0x07, value=1))
    out(t, "cport-flags", es2_ctrl(OUT, 0x11, value=1, length=4, data=struct.pack("<I", 3)))
    out(t, "timesync-enable", es2_ctrl(OUT, 0x0d, length=17,
                                       data=struct.pack("<BQII", 4, 1000, 100, 19200000)))
    out(t, "timesync-disable", es2_ctrl(OUT, 0x0e))
    out(t, "timesync-auth", es2_ctrl(OUT, 0x0f, length=32, data=struct.pack("<4Q", 1, 2, 3, 4)))
    out(t, "timesync-last", es2_ctrl(IN, 0x10, length=8))
    out(t, "ep-mapping", es2_ctrl(OUT, 0x03))
    arpcs = {
        "connected": (0x01, struct.pack("<H", 2)),
        "quiesce": (0x02, struct.pack("<HHH", 2, 9, 50)),
        "clear": (0x03, struct.pack("<H", 2)),
        "flush": (0x04, struct.pack("<H", 2)),
        "shutdown": (0x05, struct.pack("<HHB", 2, 100, 1)),
    }
    for i, (name, (typ, body)) in enumerate(arpcs.items()):
        req = struct.pack("<HHB", 0x100 + i, 5 + len(body), typ) + body  # size counts the header
        out(t, "arpc-" + name, es2_ctrl(OUT, 0x12, length=len(req), data=req))
    # bulk OUT: an SVC PING on hd CPort 0, a control GET_MANIFEST on hd CPort 4
    out(t, "bulk-out-ping", bytes([1, 43]) + struct.pack("<HHBBBB", 8, 1, 0x13, 0, 0, 0))
    out(t, "bulk-out-manifest", bytes([1, 43]) + struct.pack("<HHBBBB", 8, 7, 0x04, 0, 4, 0))
    out(t, "bulk-out-data", bytes([1, 43]) + struct.pack("<HHBBBB", 13, 9, 0x02, 0, 5, 0) +
        b"hello")
    # bulk IN: a MODULE_INSERTED request and a response
    out(t, "pack-in-hotplug", bytes([2, 43]) + struct.pack("<H", 0) +
        struct.pack("<HHBBBB", 12, 3, 0x1f, 0, 0, 0) + bytes([2, 1, 0, 0]))
    out(t, "pack-in-response", bytes([2, 43]) + struct.pack("<H", 4) +
        struct.pack("<HHBBBB", 10, 7, 0x83, 0, 0, 0) + struct.pack("<H", 0x2c0))


# ---- fuzz_gblink --------------------------------------------------------------------------
def rec(type_, cport, payload=b"", id_=0, time_ns=0):
    n = 24 + len(payload)
    r = struct.pack("<IHHIIQ", n, type_, cport, id_, 0, time_ns) + payload
    return r + bytes((-len(r)) % 8)


def gblink_seeds():
    t = "fuzz_gblink"
    clean(t)
    hello = struct.pack("<HHHHII32s", 1, 0, 0, 0, 0, 0, b"qemu greybus-es2")
    gbmsg = struct.pack("<HHBBBB", 8, 1, 0x13, 0, 0, 0)
    recs = [rec(0x01, 0xffff, hello), rec(0x02, 0xffff, bytes(8)),
            rec(0x10, 0, gbmsg, time_ns=1000), rec(0x21, 4, id_=1),
            rec(0x22, 4, struct.pack("<HH", 9, 50), id_=2),
            rec(0x26, 4, struct.pack("<I", 3), id_=3), rec(0x36, 0xffff, id_=4)]
    ring = b"".join(recs)
    # consumer from 0, one head covering everything; then the same in two steps
    out(t, "consumer-all", bytes([0]) + struct.pack("<IB", 0, 0) + struct.pack("<BH", 0, len(ring))
        + ring)
    half = sum(len(r) for r in recs[:3])
    out(t, "consumer-steps", bytes([0]) + struct.pack("<IB", 0, 1) +
        struct.pack("<BH", 0, half) + struct.pack("<BH", 0, len(ring) - half) + ring)
    # wrap: start 32 bytes before the end of the 16 KiB ring, a padding record, then records
    start = 16384 - 32
    wrapped = struct.pack("<IH", 32, 0) + bytes(26) + ring
    out(t, "consumer-wrap", bytes([0]) + struct.pack("<IB", start, 0) +
        struct.pack("<BH", 0, len(wrapped)) + wrapped)
    # producer: records, the consumer keeping up, then falling behind
    p = bytes([1]) + struct.pack("<I", 0)
    for i in range(6):
        p += bytes([0x10 << 1]) + struct.pack("<HBH", 0, i, 2040)  # GB_MESSAGE 2040 bytes
        p += bytes([1, 0]) + struct.pack("<H", 2064)               # consumer frees one
    for i in range(10):
        p += bytes([0x10 << 1]) + struct.pack("<HBH", 3, i, 4000)
    out(t, "producer", p)
    # the whole server: the same records published in one step, then in two
    out(t, "server-all", bytes([3, 0]) + struct.pack("<BH", 0, len(ring)) + ring)
    out(t, "server-steps", bytes([3, 1]) + struct.pack("<BH", 0, half) +
        struct.pack("<BH", 0, len(ring) - half) + ring)
    out(t, "map-peer-valid", bytes([2, 0, 0]))
    out(t, "map-peer-64k", bytes([2, 0, 2]))


# ---- fuzz_model and fuzz_behaviour ----------------------------------------------------------
MODELS = {
    "switched": "node A dev=2\nnode B dev=3\nswitch S ports=4 latency=100ns series=1us\n"
                "link A S:0 gear=HS-G3B lanes=2\nlink S:1 B gear=HS-G3B lanes=2\n"
                "traffic A B kind=saturate size=2048 e2efc=off\n"
                "traffic B A kind=rr size=64 depth=1\nrun 200us\n",
    "p2p-faults": "# two nodes, a lossy link\nnode AP dev=1 cports=8 credits=32\n"
                  "node M dev=2 segment=256\n"
                  "link AP M gear=PWM-G1 lanes=1 ber=1e-6 drop=0.001 seed=7 down=1us up=2us\n"
                  "traffic AP M kind=cbr size=256 rate=10Mb/s count=20 start=0ns stop=5us\n"
                  "traffic M AP kind=poisson size=128 rate=1Mb/s tc=1 response=8\nrun 5us\n",
    "saturate": "node A dev=2\nnode B dev=3\nnode C dev=4\nswitch S ports=3\nlink A S:0\n"
                "link S:1 B lanes=2\nlink C S:2\ntraffic A B kind=saturate size=1024\n"
                "traffic C B size=256\nrun 100us\n",
    "ct-switch": "switch S ports=3 mode=ct credits=16\nnode A dev=2\nnode B dev=3\n"
                 "node C dev=4\nlink A S:0\nlink B S:1 gear=HS-G1A\nlink C S:2 gear=HS-G2B\n"
                 "traffic A C size=1024\ntraffic B C size=1024 e2efc=on\nrun 1ms\n",
}


def model_seeds():
    t = "fuzz_model"
    clean(t)
    for name, text in MODELS.items():
        out(t, name + "-lines", b"\x00" + text.encode())
        out(t, name + "-file", b"\x01" + text.encode())
        out(t, name + "-fast", b"\x03" + text.encode())


def behaviour_seeds():
    t = "fuzz_behaviour"
    clean(t)
    for p in sorted(glob.glob(os.path.join(ROOT, "..", "..", "virtual-modules", "catalog",
                                           "*.behaviour"))):
        shutil.copyfile(p, os.path.join(ROOT, "corpus", t, "gen-" + os.path.basename(p)))
    out(t, "everything.behaviour",
        b"[interface]\nvendor-id = 0x1\nproduct-id = 0x2\n"
        b"[cport 1]\nlines = 16\n"
        b"[cport 2]\neeprom = 0x50\nlm75 = 0x48\ntemperature = -5000\n"
        b"[cport 3]\nbackend = loopback\n"
        b"[cport 4]\n"
        b"[cport 5]\nmodel = cell\nmanufacturer = gbvp\nstatus = charging\ncapacity = 5\n"
        b"[cport 6]\n"
        b"[cport 7]\nname = led\nchannels = red green\nmax-brightness = 100\nflash = 1\n"
        b"[cport 8]\ndevice = keyboard\nvendor-id = 0x1209\nproduct-id = 0x0001\n")


# ---- fuzz_control -----------------------------------------------------------------------
# one connection's bytes: JSON lines as `gbvp ctl` and the unit tests send them
def control_seeds():
    t = "fuzz_control"
    clean(t)

    def lines(*reqs):
        return b"".join(r.encode() + b"\n" for r in reqs)

    out(t, "ping", lines('{"id":1,"cmd":"ping"}', '{"cmd":"status"}', '{"cmd":"stats"}'))
    out(t, "insert-remove", lines(
        '{"id":1,"cmd":"insert","slot":0,"module":"sensor"}', '{"cmd":"wait","ms":50}',
        '{"cmd":"interface","interface":2}', '{"cmd":"link_mode","interface":2}',
        '{"cmd":"interface_stats","slot":0}', '{"id":"r","cmd":"remove","slot":0}'))
    out(t, "gpio", lines(
        '{"cmd":"insert","slot":1,"module":"sensor"}',
        '{"cmd":"gpio_set","slot":1,"line":3,"level":1}',
        '{"cmd":"gpio_get","slot":1,"line":3}', '{"cmd":"gpio_stats","slot":1}'))
    out(t, "battery", lines(
        '{"cmd":"insert","slot":0,"module":"battery"}',
        '{"cmd":"battery_set","slot":0,"property":"capacity","value":15,"notify":false}',
        '{"cmd":"battery_get","slot":0,"property":"capacity"}', '{"cmd":"battery_stats","slot":0}',
        '{"cmd":"cmd","slot":0,"line":"battery set capacity 20"}', '{"cmd":"pm_fault","slot":0,'
        '"control_type":15,"status":1}'))
    out(t, "uart-hid", lines(
        '{"cmd":"insert","slot":0,"module":"uart"}', '{"cmd":"uart_send","slot":0,"data":"hi"}',
        '{"cmd":"uart_read","slot":0}', '{"cmd":"uart_state","slot":0}',
        '{"cmd":"insert","slot":1,"module":"keyboard"}',
        '{"cmd":"hid_input","slot":1,"report":[0,0,4,0,0,0,0,0]}', '{"cmd":"hid_state","slot":1}'))
    out(t, "i2c", lines(
        '{"cmd":"insert","slot":2,"module":"dual"}', '{"cmd":"i2c_read","slot":2,"addr":72,'
        '"offset":0,"len":2}', '{"cmd":"i2c_write","slot":2,"addr":72,"offset":1,"data":[1,2]}',
        '{"cmd":"i2c_temperature","slot":2,"addr":72,"millicelsius":25000}'))
    out(t, "link-fault", lines(
        '{"cmd":"link","slot":0,"gear":"HS-G2B","series":"A","lanes":2}',
        '{"cmd":"fault","slot":"ap","ber":0.001,"drop":0.1,"down":true,"delay":5,"down_for":5}',
        '{"cmd":"link_stats","slot":"ap"}', '{"cmd":"intf_oops","interface":2,"reason":1}'))
    out(t, "capture-trace-subscribe", lines(
        '{"cmd":"capture","file":"x.pcapng"}', '{"cmd":"capture","stop":true}',
        '{"cmd":"trace","file":"x.json"}', '{"cmd":"trace","stop":true}',
        '{"cmd":"subscribe","events":["module","link"]}', '{"cmd":"unsubscribe"}'))
    out(t, "refused", b'not json\n{"cmd":"ping"} {"cmd":"ping"}\n[1,2]\n{"cmd":7}\n'
        b'{"cmd":"insert","slot":"0","module":"sensor"}\n{"cmd":"nope"}\n\xff\xfe\r\n'
        b'{"cmd":"wait","ms":1.5}\n{"cmd":"gpio_set","slot":0,"line":256,"level":2}\n')


# ---- fuzz_scenario_api ------------------------------------------------------------------
# first byte odd: the rest is a Lua script (what docs/scenarios.md shows)
def scenario_api_seeds():
    t = "fuzz_scenario_api"
    clean(t)

    def lua(text):
        return b"\x01" + text.encode()

    out(t, "insert", lua('local id = gbvp.insert(0, "sensor")\n'
                         'gbvp.check_eq(gbvp.interface_state(id), "activated", "up")\n'
                         'gbvp.log(gbvp.module(0), gbvp.slot_interface(0), gbvp.now())\n'
                         'gbvp.remove(0)\n'))
    out(t, "typed", lua('gbvp.insert(1, "battery")\ngbvp.battery_set(1, "capacity", 20)\n'
                        'gbvp.check(gbvp.battery_get(1, "capacity") == 20, "cap")\n'
                        'print(gbvp.cmd(1, "battery set capacity 30"))\n'
                        'gbvp.insert(2, "sensor")\ngbvp.gpio_set(2, 3, 1)\n'
                        'print(gbvp.gpio_get(2, 3))\n'))
    out(t, "wait-for", lua('gbvp.insert(0, "keyboard")\n'
                           'gbvp.wait_for(function() return gbvp.interface(2).active end,'
                           ' 500, 5)\n'
                           'print(pcall(gbvp.hid_input, 0, {0,0,4,0,0,0,0,0}))\ngbvp.wait(10)\n'))
    out(t, "link", lua('if gbvp.features.link_model then gbvp.link(0, {gear="HS-G2B"}) end\n'
                       'print(pcall(gbvp.fault, 0, {ber=1e-3}))\n'
                       'print(pcall(gbvp.link_stats, "ap"))\n'))
    out(t, "misc", lua('print(gbvp.arg("x", "d"), gbvp.random(1, 6), gbvp.stats().pings)\n'
                       'gbvp.on_ap_step("SVC", function() end)\nprint(gbvp.ap_traced("x"))\n'
                       'gbvp.ap_trace_clear()\ngbvp.skip("done")\n'))
    out(t, "bad-args", lua('for _, f in ipairs({gbvp.insert, gbvp.remove, gbvp.wait, gbvp.link})'
                           ' do\n  print(pcall(f, nil)) print(pcall(f, -1, {}))'
                           ' print(pcall(f, 0/0))\nend\n'))
    # first byte even: generated calls (fuzz_scenario_api.c): function, argument count, kinds
    out(t, "calls", bytes([0, 0, 2, 5, 0, 7, 1, 3, 1, 3, 0, 4, 1, 6, 2, 13, 2, 5, 0, 9, 3]))


GENERATORS = {"vm": vm_seeds, "svc": svc_seeds, "es2": es2_seeds, "gblink": gblink_seeds,
              "model": model_seeds, "behaviour": behaviour_seeds, "control": control_seeds,
              "scenario_api": scenario_api_seeds}

if __name__ == "__main__":
    import sys
    # with names (e.g. `control scenario_api`), only those targets' seeds
    for name in sys.argv[1:] or list(GENERATORS):
        if name not in GENERATORS:
            sys.exit("fuzz_seeds.py: no seeds named '%s' (one of %s)" %
                     (name, ", ".join(GENERATORS)))
        GENERATORS[name]()
