-- SPDX-License-Identifier: MIT
-- A seeded random hot-plug storm: modules go in and out of random slots at random moments.
-- The same --seed replays the same storm; --set cycles=N makes it longer (default 40).
-- The AP tears connections down after the module left (at once with the test AP, a
-- little later with a guest): wait for it, then check.
local function no_connections_within(ms)
    local ok = pcall(gbvp.wait_for, function() return gbvp.stats().connections == 0 end, ms)
    return ok
end
-- enumerated: activated, or suspended since (a guest suspends idle interfaces)
local function enumerated(state)
    return state == "activated" or state == "suspended"
end
local cycles = gbvp.arg("cycles", 40)
local modules = { "sensor", "battery", "vibrator", "uart", "loopback", "light", "keyboard" }
local slots = 4
local occupied = {}
local inserts, removals = 0, 0
gbvp.log(string.format("storm: %d cycles, seed %d", cycles, gbvp.seed()))

for cycle = 1, cycles do
    local slot = gbvp.random(0, slots - 1)
    if occupied[slot] then
        gbvp.remove(slot)
        occupied[slot] = nil
        removals = removals + 1
    else
        local name = modules[gbvp.random(#modules)]
        gbvp.insert(slot, name)
        occupied[slot] = name
        inserts = inserts + 1
    end
    gbvp.wait(gbvp.random(0, 50))
    -- the AP catches up (at once with the test AP; a guest takes its time: a module pulled
    -- while it still enumerates costs it up to ten requests timing out at 1 s each before
    -- it handles the next event)
    local sid = gbvp.slot_interface(slot)
    gbvp.wait_for(function()
        local state = gbvp.interface_state(sid)
        return occupied[slot] and enumerated(state) or (not occupied[slot] and state == "absent")
    end, 30000)
    -- every module the frame holds is enumerated, every empty slot is absent
    for s = 0, slots - 1 do
        local id = gbvp.slot_interface(s)
        local state = gbvp.interface_state(id)
        if occupied[s] then
            if not enumerated(state) then
                gbvp.assert(false, string.format("cycle %d: %s in slot %d enumerated", cycle,
                            occupied[s], s), "interface state " .. state)
            end
        elseif state ~= "absent" then
            gbvp.assert(false, string.format("cycle %d: slot %d empty", cycle, s),
                        "interface state " .. state)
        end
    end
end
gbvp.check(true, string.format("%d insertions and %d removals kept the AP in step", inserts, removals))
for s = 0, slots - 1 do
    if occupied[s] then gbvp.remove(s) end
end
-- a guest may still be timing out requests of several modules pulled mid-enumeration (1 s
-- each, one after another) before it tears their connections down
local settle_ms = 60000
gbvp.check(no_connections_within(settle_ms), "no connection left after the storm",
           gbvp.stats().connections .. " connections left after " .. settle_ms / 1000 .. " s")
gbvp.wait_for(function() return gbvp.stats().pending_events == 0 end, settle_ms)
local st = gbvp.stats()
gbvp.check_eq(st.pending_events, 0, "no hot-plug event left unacknowledged")
if gbvp.features.test_ap then
    -- the test AP finishes enumerating before the script goes on
    gbvp.check_eq(st.ap_bad_requests, 0, "the SVC refused no request of the AP")
else
    -- a real-time AP may still be enumerating a module when it is pulled out; the requests
    -- it then sends for the gone interface are refused, as on hardware
    gbvp.log("SVC requests refused (removals racing the AP): " .. st.ap_bad_requests)
end
