-- SPDX-License-Identifier: MIT
-- The model's timing as the guest measures it, for gbvp run --lockstep: the kernel's own
-- loopback_test (drivers/staging/greybus/tools, built into the guest) pings a loopback
-- module COUNT times with the module's link and the AP bridge's own at one gear, and the
-- round trip gb_loopback reports (ap-latency, in the guest's virtual time) is set beside
-- the timing model's prediction for the same operation: the modelled latency of the last
-- request and of the last response (link_stats' to_intf_last_ns and from_intf_last_ns).
-- In lockstep the guest's figure is that prediction plus the guest's own software time
-- plus less than one quantum; the guest can never see the network faster than the model.
-- --set gear=PWM-G1|HS-G3B... lanes=1|2 count=N (defaults PWM-G1, 1, 200).
-- tests/integration/lockstep_test.sh runs it at PWM-G1 x1 and HS-G3B x2 and checks that
-- the guest's figure moves with the gear as the model's does.
if not (gbvp.features.guest and gbvp.features.link_model) then
    gbvp.skip("needs the real guest's gb_loopback and the UniPro link model (gbvp run)")
end
local gear = gbvp.arg("gear", "PWM-G1")
local lanes = tonumber(gbvp.arg("lanes", "1"))
local count = tonumber(gbvp.arg("count", "200"))
local slot = 0
local id = gbvp.slot_interface(slot)
local function guest(cmd, ms)
    local rc, out = gbvp.guest(cmd, ms or 30000)
    return rc == 0 and out or nil
end

gbvp.insert(slot, "loopback")
gbvp.assert(pcall(gbvp.wait_for, function() return gbvp.interface(id).connections == 2 end,
                  20000, 10), "loopback module enumerated and connected")
gbvp.assert(pcall(gbvp.wait_for, function()
    return guest("ls /sys/class/gb_loopback/gb_loopback0/type") ~= nil
end, 20000, 50), "the guest's gb_loopback driver bound the module")
-- runtime PM would hibernate the idle link (and the kernel would set its own gear on resume)
guest(string.format("for f in /sys/bus/greybus/devices/1-%d*/power/control; do echo on > $f; done",
                    id))
gbvp.link(slot, { gear = gear, lanes = lanes })
gbvp.link("ap", { gear = gear, lanes = lanes })
local mode = gbvp.link_stats(slot).mode
gbvp.check_eq(gbvp.link_stats("ap").mode, mode, "the AP's link and the module's at one mode")

local out = guest(string.format("loopback_test -t ping -i %d -p", count), 600000) or ""
local min, max, avg = out:match("ap%-latency usec:%s*min=(%d+) max=(%d+) average=([%d.]+)")
gbvp.assert(avg ~= nil, "loopback_test pinged " .. count .. " times", out)
local errors = tonumber(out:match("errors:%s*(%d+)") or "0")
gbvp.check_eq(errors, 0, "no loopback errors")
local ls = gbvp.link_stats(slot)
local model_us = (ls.to_intf_last_ns + ls.from_intf_last_ns) / 1000
gbvp.log(string.format("latency %s: guest min %s avg %s max %s us, model round trip %.3f us "
                       .. "(request %.3f + response %.3f)", mode, min, avg, max, model_us,
                       ls.to_intf_last_ns / 1000, ls.from_intf_last_ns / 1000))
-- gb_loopback truncates each latency to whole microseconds
gbvp.check(tonumber(min) >= math.floor(model_us) - 1,
           "the guest never sees a round trip shorter than the model's",
           string.format("guest min %s us, model %.3f us", min, model_us))
