-- SPDX-License-Identifier: MIT
-- A module pulled out while the AP is still enumerating it, at several points of 6.1's
-- sequence: the AP abandons or finishes enumeration, tears everything down, and the slot
-- works again afterwards.
-- The AP tears connections down after the module left (at once with the test AP, a
-- little later with a guest): wait for it, then check.
local function no_connections_within(ms)
    local ok = pcall(gbvp.wait_for, function() return gbvp.stats().connections == 0 end, ms)
    return ok
end
local slot, id = 1, gbvp.slot_interface(1)

if not gbvp.features.test_ap then
    -- A guest AP: no step hook, so pull the module out at increasing delays after
    -- insertion, which lands at different points of the guest's enumeration.
    -- The kernel handles MODULE_REMOVED only after the enumeration it interrupts: every
    -- request that enumeration and its teardown still send to the gone module times out
    -- (1 s each; ten of them when the pull lands in a bundle's probe), and only then does
    -- the AP see the module inserted again.
    local catch_up = 30000
    for _, delay in ipairs({ 0, 2, 5, 10, 20, 50, 100, 200 }) do
        gbvp.insert(slot, "sensor", { settle = false })
        gbvp.wait(delay)
        gbvp.remove(slot)
        gbvp.wait_for(function() return gbvp.interface_state(id) == "absent" end, 10000)
        gbvp.insert(slot, "sensor")
        gbvp.wait_for(function() return gbvp.interface(id).enabled end, catch_up)
        gbvp.check(true, "removal " .. delay .. " ms after insertion; the slot works again")
        gbvp.remove(slot)
        gbvp.wait_for(function() return gbvp.interface_state(id) == "absent" end, 10000)
    end
    gbvp.check(no_connections_within(10000), "no connection left",
               gbvp.stats().connections .. " connections left after 10 s")
    return
end
local points = {
    "INTF_ACTIVATE",      -- the SVC boots the interface
    "DME_PEER_GET",       -- reading DDBL1 / Ara ids
    "ROUTE_CREATE",       -- the route to the control CPort
    "GET_MANIFEST_SIZE",  -- control connection up
    "GET_MANIFEST ",      -- manifest transfer
    "BUNDLE_ACTIVATE",    -- bundle bring-up
}

for _, point in ipairs(points) do
    local pulled = false
    gbvp.on_ap_step(point, function(line)
        if not pulled then
            pulled = true
            gbvp.remove(slot)
        end
    end)
    gbvp.insert(slot, "sensor")
    gbvp.on_ap_step(nil)
    gbvp.check(pulled, "module pulled at " .. point)
    gbvp.wait_for(function() return gbvp.interface_state(id) == "absent" end, 2000)
    gbvp.check(no_connections_within(2000), "no connection left after removal at " .. point)
    local intf = gbvp.interface(id)
    gbvp.check(not intf.present, "SVC has no interface in the slot after removal at " .. point)

    -- the slot still works
    gbvp.insert(slot, "sensor")
    gbvp.wait_for(function() return gbvp.interface(id).enabled end, 1000)
    gbvp.check_eq(gbvp.interface(id).bound_bundles, 1, "re-insertion after " .. point .. " enumerates")
    gbvp.remove(slot)
    gbvp.wait(100)
end
-- Requests the AP sends for an interface already gone are refused (the kernel logs them);
-- what must not happen is an SVC request to the AP left unanswered.
gbvp.log("SVC requests refused after removals: " .. gbvp.stats().ap_bad_requests)
gbvp.check_eq(gbvp.stats().ap_timeouts, 0, "the AP answered every SVC request")
gbvp.check_eq(gbvp.stats().pending_events, 0, "every hot-plug event was acknowledged")
