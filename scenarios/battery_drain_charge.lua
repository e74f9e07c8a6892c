-- SPDX-License-Identifier: MIT
-- A battery drains to 5 % and charges back to full. Every change reaches the AP as a
-- power-supply EVENT, and what the AP reads with GET_PROPERTY follows the backend.
if not (gbvp.features.backends and gbvp.features.test_ap) then
    gbvp.skip("needs module backends and the test AP (target " .. gbvp.target .. ")")
end
local GET_PROPERTY = 0x05
local STATUS_CHARGING, STATUS_DISCHARGING, STATUS_FULL = 1, 2, 4
local slot = 2
local id = gbvp.insert(slot, "battery")
gbvp.wait_for(function() return gbvp.interface(id).enabled end, 1000)

local function ap_reads(prop)
    -- GET_PROPERTY { psy_id, property } -> { s32 value }
    local rc, resp = gbvp.ap_request(id, 1, GET_PROPERTY, string.pack("<BB", 0, prop), 4)
    gbvp.assert_eq(rc, 0, "AP GET_PROPERTY " .. prop .. " succeeds")
    return (string.unpack("<i4", resp))
end

gbvp.check_eq(ap_reads(0x2a), 80, "the AP reads the initial capacity, 80 %")
local events0 = gbvp.battery_stats(slot).events_sent

gbvp.battery_set(slot, "status", STATUS_DISCHARGING)
local steps = 0
for cap = 75, 5, -5 do
    gbvp.battery_set(slot, "capacity", cap)
    gbvp.wait(1000)
    steps = steps + 1
end
gbvp.check_eq(ap_reads(0x2a), 5, "the AP reads 5 % after draining")
gbvp.check_eq(ap_reads(0x00), STATUS_DISCHARGING, "status discharging while draining")

gbvp.battery_set(slot, "status", STATUS_CHARGING)
for cap = 10, 100, 10 do
    gbvp.battery_set(slot, "capacity", cap)
    gbvp.wait(1000)
    steps = steps + 1
end
gbvp.battery_set(slot, "status", STATUS_FULL)
gbvp.check_eq(ap_reads(0x2a), 100, "the AP reads 100 % after charging")
gbvp.check_eq(ap_reads(0x00), STATUS_FULL, "status full at the end")

local st = gbvp.battery_stats(slot)
gbvp.check_eq(st.events_sent - events0, steps + 3, "one EVENT to the AP per change")
gbvp.check_eq(st.events_rejected, 0, "the AP accepted every EVENT")
gbvp.check(gbvp.now() >= 25000, "25 s of simulated time passed")
