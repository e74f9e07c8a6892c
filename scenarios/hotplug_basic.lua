-- SPDX-License-Identifier: MIT
-- Hot-plug, the plain case: a module goes into a slot, the AP enumerates it (interface
-- activated, bundle bound), the module comes out and the AP forgets it; a different module
-- in the same slot enumerates again with the same interface id.
-- The AP tears connections down after the module left (at once with the test AP, a
-- little later with a guest): wait for it, then check.
local function no_connections_within(ms)
    local ok = pcall(gbvp.wait_for, function() return gbvp.stats().connections == 0 end, ms)
    return ok
end
local slot = 0
local id = gbvp.slot_interface(slot)

gbvp.check_eq(gbvp.interface_state(id), "absent", "slot empty before insertion")
gbvp.insert(slot, "sensor")
local waited = gbvp.wait_for(function() return gbvp.interface_state(id) == "activated" end, 10000)
gbvp.log(string.format("interface %d activated after %.0f ms", id, waited))
-- a guest enables it a little after activation (its messages cross the modelled links)
local enabled = pcall(gbvp.wait_for, function() return gbvp.interface(id).enabled end, 10000)
local intf = gbvp.interface(id)
gbvp.assert(enabled and intf.enabled, "sensor interface enabled by the AP")
if gbvp.features.test_ap then
    gbvp.check_eq(intf.bound_bundles, 1, "sensor's one bundle bound")
end
gbvp.check(intf.device_id ~= 0, "the AP gave the interface a device id")
if gbvp.features.test_ap then
    gbvp.check(gbvp.ap_traced("GET_MANIFEST"), "the AP read the manifest")
end
-- Connections of a module once the AP has enumerated it: its control connection and one
-- per CPort of its manifest (virtual-modules/catalog/*.mnfs).
local connections = { sensor = 3, battery = 2 }
-- A guest creates the module 1-2, its interface 1-2.2 and bundle 1 of that, 1-2.2.1, a
-- little after the SVC saw the interface enabled, then binds a driver to the bundle, whose
-- probe has the SVC create the bundle's connections. The driver link in sysfs appears
-- before the probe runs, so wait for the connections too: pulling the module in the middle
-- of its enumeration would have the SVC refuse the probe's CONN_CREATE.
local function enumerated_check(module)
    local want = connections[module]
    local all = pcall(gbvp.wait_for, function() return gbvp.interface(id).connections == want end,
                      10000)
    gbvp.check(all, module .. ": the AP connected all its CPorts",
               string.format("%d connections, expected %d", gbvp.interface(id).connections, want))
    if not gbvp.features.guest then
        return
    end
    local bundle, out = string.format("1-%d.%d.1", id, id), ""
    local bound = pcall(gbvp.wait_for, function()
        local rc, o = gbvp.guest("ls /sys/bus/greybus/devices; ls -d /sys/bus/greybus/devices/" ..
                                 bundle .. "/driver", 10000)
        out = o or ""
        return rc == 0
    end, 10000, 100)
    gbvp.check(bound, module .. ": the guest bound a driver to bundle " .. bundle, out)
end
enumerated_check("sensor")

gbvp.remove(slot)
gbvp.wait_for(function() return gbvp.interface_state(id) == "absent" end, 10000)
gbvp.check(no_connections_within(10000), "no connection left after removal",
           gbvp.stats().connections .. " connections left after 10 s")
gbvp.check_eq(gbvp.module(slot), nil, "slot empty after removal")

gbvp.insert(slot, "battery")
gbvp.wait_for(function() return gbvp.interface(id).enabled end, 10000)
gbvp.check(gbvp.interface(id).enabled, "battery enumerates in the same slot")
enumerated_check("battery")
gbvp.remove(slot)

gbvp.wait_for(function() return gbvp.stats().pending_events == 0 end, 10000)
local st = gbvp.stats()
if gbvp.features.test_ap or gbvp.features.guest then
    -- enumeration was complete (test AP, or checked in the guest's sysfs) before removal
    gbvp.check_eq(st.ap_bad_requests, 0, "the SVC refused no request of the AP")
end
gbvp.check_eq(st.pending_events, 0, "every hot-plug event was acknowledged")
