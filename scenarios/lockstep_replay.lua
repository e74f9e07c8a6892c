-- SPDX-License-Identifier: MIT
-- Hot-plug at chosen instants, for replay in lockstep (gbvp run --lockstep): modules go in
-- and out at times drawn from gbvp.random, so the seed decides when; the guest enumerates
-- them over the modelled links; the guest is asked, between the insertions and at the end,
-- what it sees and what its clock says. Run twice with one seed, the simulator's log and
-- the guest's kernel log are identical; another seed moves every instant, and another
-- link gear (--set gear=HS-G3B; default: the PWM-G1 of link start-up) changes how long
-- every message takes (tests/integration/lockstep_test.sh). Waits here are on the simulated clock and ask
-- nothing of the guest until the end: in lockstep every step is one virtual instant.
local function at_random(lo, hi)
    gbvp.wait(lo + gbvp.random(0, hi - lo))
end
local light_slot, sensor_slot = 0, 1
local light_id, sensor_id = gbvp.slot_interface(light_slot), gbvp.slot_interface(sensor_slot)
local function activated(id)
    return pcall(gbvp.wait_for, function() return gbvp.interface_state(id) == "activated" end,
                 20000, 10)
end
local gear = gbvp.arg("gear", "")
local function insert(slot, module)
    gbvp.log(string.format("insert %s at %.3f ms", module, gbvp.now()))
    gbvp.insert(slot, module)
    if gear ~= "" then
        -- a link has a frame-level model once it carried traffic: the gear is set at the
        -- first instant it has (a fixed wait would race the guest's enumeration)
        gbvp.assert(pcall(gbvp.wait_for, function() return (pcall(gbvp.link_stats, slot)) end,
                          20000, 1), "the link of slot " .. slot .. " carried traffic")
        gbvp.link(slot, { gear = gear })
        -- the AP's own link has a model once it carried traffic
        pcall(gbvp.link, "ap", { gear = gear })
    end
end
local function connected(id, n)
    return pcall(gbvp.wait_for, function() return gbvp.interface(id).connections == n end,
                 20000, 10)
end

at_random(50, 400)
insert(sensor_slot, "sensor")
gbvp.check(activated(sensor_id), "sensor activated")
gbvp.check(connected(sensor_id, 3), "sensor: the guest connected its CPorts")

at_random(20, 300)
insert(light_slot, "light")
gbvp.check(activated(light_id), "light activated")
gbvp.check(connected(light_id, 2), "light: the guest connected its CPorts")

-- a command in the guest mid-run: what it sees, and when by its own clock
if gbvp.features.guest then
    local rc, out = gbvp.guest("ls /sys/bus/greybus/devices | wc -l; grep 'now at' /proc/timer_list",
                               20000)
    gbvp.check_eq(rc, 0, "the guest answers mid-run")
    gbvp.log(string.format("guest mid-run at %.3f ms: %s", gbvp.now(), out:gsub("\n", " ")))
end

at_random(100, 600)
gbvp.log(string.format("remove sensor at %.3f ms", gbvp.now()))
gbvp.remove(sensor_slot)
gbvp.check(pcall(gbvp.wait_for, function() return gbvp.stats().connections == 2 end, 20000, 10),
           "sensor's connections gone after removal")

at_random(50, 300)
insert(sensor_slot, "battery")
gbvp.check(activated(sensor_id), "battery activated")
gbvp.check(connected(sensor_id, 2), "battery: the guest connected its CPorts")
gbvp.wait(500)

-- the simulator's statistics, which repeat with the run
local st = gbvp.stats()
gbvp.log(string.format("stats: %d AP requests, %d SVC requests, %d to the AP, %d to interfaces, "
                       .. "%d dropped, %d pings", st.ap_requests, st.svc_requests_sent,
                       st.forwarded_to_ap, st.forwarded_to_intf, st.dropped, st.pings))

-- the guest's view, at the end (the test AP's targets have no guest to ask)
if not gbvp.features.guest then
    return
end
local rc, out = gbvp.guest("ls /sys/bus/greybus/devices | sort", 20000)
gbvp.check_eq(rc, 0, "the guest lists its Greybus devices")
gbvp.check(out:find(string.format("1%%-%d%%.%d%%.1", light_id, light_id)) ~= nil,
           "the guest has the light's bundle", out)
gbvp.check(out:find(string.format("1%%-%d%%.%d%%.1", sensor_id, sensor_id)) ~= nil,
           "the guest has the battery's bundle", out)
