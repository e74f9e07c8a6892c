-- SPDX-License-Identifier: MIT
-- A battery drains to 5 % and charges back to full. Every change reaches the AP as a
-- power-supply EVENT, and what the AP reads with GET_PROPERTY follows the backend.
if not (gbvp.features.backends and gbvp.features.test_ap) then
    if not (gbvp.features.guest and gbvp.features.cmd) then
        gbvp.skip("needs the test AP with module backends, or a guest (target " ..
                  gbvp.target .. ")")
    end
    -- A guest: the battery changes through backend commands, and what the kernel's
    -- greybus power_supply driver reports in sysfs must follow.
    local slot = 2
    gbvp.insert(slot, "battery")
    local function guest_reads(prop)
        local rc, out = gbvp.guest("cat /sys/class/power_supply/*/" .. prop, 10000)
        return rc == 0 and out:match("^%s*(%S+)") or nil
    end
    local function follows(prop, want, name)
        local ok = pcall(gbvp.wait_for, function() return guest_reads(prop) == want end,
                         20000, 500)
        gbvp.check(ok, name, "the guest reads " .. tostring(guest_reads(prop)))
    end
    follows("capacity", "80", "the guest reads the initial capacity, 80 %")
    follows("status", "Discharging", "the guest reads status Discharging")
    for _, cap in ipairs({ 60, 30, 5 }) do
        gbvp.cmd(slot, "battery set capacity " .. cap)
        follows("capacity", tostring(cap), "the guest follows the drain to " .. cap .. " %")
    end
    gbvp.cmd(slot, "battery set status 1")  -- POWER_SUPPLY_STATUS_CHARGING
    follows("status", "Charging", "the guest reads status Charging")
    gbvp.cmd(slot, "battery set capacity 100")
    gbvp.cmd(slot, "battery set status 4")  -- POWER_SUPPLY_STATUS_FULL
    follows("capacity", "100", "the guest follows the charge to 100 %")
    follows("status", "Full", "the guest reads status Full")
    gbvp.remove(slot)
    return
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
