-- SPDX-License-Identifier: MIT
-- A tour of the catalog: several modules go into the frame, each is exercised through its
-- backend commands (gbvp.cmd, every target) or through requests from the AP, the AP must
-- see the effect, and every module comes out again.
if not (gbvp.features.cmd and gbvp.features.test_ap) then
    if not (gbvp.features.guest and gbvp.features.cmd) then
        gbvp.skip("needs backend commands and the test AP, or a guest (target " ..
                  gbvp.target .. ")")
    end
    -- A guest: each module's bundle appears in sysfs with a driver bound; the battery's
    -- capacity set by command reaches the guest's power_supply class; all disappear again.
    local function guest(cmd)
        local rc, out = gbvp.guest(cmd, 10000)
        return rc == 0 and out or nil
    end
    local function eventually(fn, name, detail)
        local ok = pcall(gbvp.wait_for, fn, 30000, 500)
        gbvp.check(ok, name, detail and detail() or nil)
    end
    local modules = { [0] = "sensor", [1] = "battery", [2] = "keyboard", [3] = "loopback" }
    local ids = {}
    for slot = 0, 3 do
        ids[slot] = gbvp.insert(slot, modules[slot])
    end
    for slot = 0, 3 do
        local dir = string.format("/sys/bus/greybus/devices/1-%d.%d.1", ids[slot], ids[slot])
        eventually(function() return guest("readlink " .. dir .. "/driver") ~= nil end,
                   modules[slot] .. ": the guest bound a driver to its bundle",
                   function() return guest("ls /sys/bus/greybus/devices") end)
    end
    gbvp.cmd(1, "battery set capacity 42")
    eventually(function()
        local out = guest("cat /sys/class/power_supply/*/capacity")
        return out and out:match("^%s*42") ~= nil
    end, "battery: the guest reads capacity 42 %")
    for slot = 0, 3 do
        gbvp.remove(slot)
    end
    eventually(function()
        local out = guest("ls /sys/bus/greybus/devices")
        for slot = 0, 3 do
            if out == nil or out:find(string.format("1-%d.", ids[slot]), 1, true) then
                return false
            end
        end
        return true
    end, "every module left the guest's sysfs",
       function() return guest("ls /sys/bus/greybus/devices") end)
    return
end

local ids = {}
local function insert(slot, module)
    local id = gbvp.insert(slot, module)
    gbvp.wait_for(function() return gbvp.interface(id).enabled end, 2000)
    gbvp.check(gbvp.interface(id).bound_bundles > 0,
               module .. ": the AP bound a driver to its bundle")
    ids[slot] = id
    return id
end
local function ap(id, cport, type, payload, resp_len, what)
    local rc, resp = gbvp.ap_request(id, cport, type, payload or "", resp_len or 0)
    gbvp.assert_eq(rc, 0, what)
    return resp
end

-- sensor: GPIO line 3 driven by the module, read by the AP (ACTIVATE, GET_VALUE)
local sensor = insert(0, "sensor")
ap(sensor, 1, 0x03, string.pack("B", 3), 0, "sensor: the AP activates GPIO line 3")
gbvp.cmd(0, "gpio set 3 1")
gbvp.check_eq(string.byte(ap(sensor, 1, 0x08, string.pack("B", 3), 1, "GET_VALUE")), 1,
              "sensor: the AP reads line 3 high after 'gpio set 3 1'")
gbvp.cmd(0, "gpio set 3 0")
gbvp.check_eq(string.byte(ap(sensor, 1, 0x08, string.pack("B", 3), 1, "GET_VALUE")), 0,
              "sensor: and low after 'gpio set 3 0'")

-- battery: the capacity set through the backend is what the AP reads (GET_PROPERTY)
local battery = insert(1, "battery")
gbvp.cmd(1, "battery set capacity 42")
local cap = string.unpack("<i4", ap(battery, 1, 0x05, string.pack("<BB", 0, 0x2a), 4,
                                   "battery: GET_PROPERTY capacity"))
gbvp.check_eq(cap, 42, "battery: the AP reads capacity 42 %")

-- keyboard: once the AP powers the device on (as the HID core does when the input device
-- is opened), a key press reaches the AP as an incoming HID IRQ_EVENT
local kb = insert(2, "keyboard")
ap(kb, 1, 0x04, "", 0, "keyboard: PWR_ON")
gbvp.ap_trace_clear()
gbvp.cmd(2, "hid key a")
gbvp.check(gbvp.ap_traced("incoming request 0x08"), "keyboard: the key press reached the AP")

-- vibrator: the AP turns it on (VIBRATOR_ON; the 6.1 driver times it out itself)
local vib = insert(3, "vibrator")
ap(vib, 1, 0x02, "", 0, "vibrator: VIBRATOR_ON")
gbvp.check(gbvp.cmd(3, "vibrator state"):match("^on") ~= nil, "vibrator: the backend is on")

for slot = 0, 3 do
    gbvp.remove(slot)
    gbvp.check_eq(gbvp.interface_state(ids[slot]), "absent", "slot " .. slot .. " emptied")
end

-- loopback: an AP transfer comes back and the module counts it
local lb = insert(0, "loopback")
local data = "greybus loopback demo"
local resp = ap(lb, 1, 0x03, string.pack("<I4I4I4", #data, 0, 0) .. data, 12 + #data,
                "loopback: TRANSFER")
gbvp.check_eq(resp:sub(13), data, "loopback: the data came back")
gbvp.check(gbvp.cmd(0, "loopback stats"):match("transfers 1 ") ~= nil,
           "loopback: the module counted one transfer")

-- uart: bytes the AP sends (SEND_DATA) reach the module; bytes the module sends reach
-- the AP (RECEIVE_DATA)
insert(1, "uart")
local u = ids[1]
ap(u, 1, 0x02, string.pack("<s2", "hello"), 0, "uart: SEND_DATA")
gbvp.check(gbvp.cmd(1, "uart state"):match(" tx 5 ") ~= nil, "uart: the module got 5 bytes")
gbvp.ap_trace_clear()
gbvp.cmd(1, "uart send hi")
gbvp.check(gbvp.ap_traced("incoming request 0x03"), "uart: RECEIVE_DATA reached the AP")

gbvp.remove(0)
gbvp.remove(1)
gbvp.check_eq(gbvp.interface_state(lb), "absent", "loopback removed")
gbvp.check_eq(gbvp.interface_state(u), "absent", "uart removed")
