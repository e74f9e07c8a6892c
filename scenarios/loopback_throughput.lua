-- SPDX-License-Identifier: MIT
-- Loopback throughput: the AP runs TRANSFER operations at several message sizes against a
-- loopback module; every transfer must come back with its own data and the module's
-- statistics must count each once. The figures (payload bytes both ways per simulated
-- second) come from the module's counters and the simulated clock; with the UniPro timing
-- model (--target gbvp-sim --timing frame) they reflect the gear of the module's link and
-- of the AP bridge's own (--set gear=HS-G3B changes both), without it only the simulator's
-- step size. Transfers are one at a time (closed loop), and on gbvp-sim the test AP's
-- transport advances time in steps of at least 640 us per wait (on test-ap the clock goes
-- from event to event), so the figures are lower
-- bounds of what the link could carry. --set count=N transfers per size.
if gbvp.features.guest and gbvp.features.cmd and not gbvp.features.test_ap then
    -- A guest: the kernel's gb_loopback driver runs the transfers (its sysfs interface,
    -- as tools/loopback_test does) and reports throughput and errors; the module counts
    -- each transfer once. Wall-clock figures of an emulated guest.
    local function guest(cmd)
        local rc, out = gbvp.guest(cmd, 30000)
        return rc == 0 and out or nil
    end
    local slot = 0
    gbvp.insert(slot, "loopback")
    local dir = "/sys/class/gb_loopback/gb_loopback0"
    local ok = pcall(gbvp.wait_for, function() return guest("ls " .. dir .. "/type") end,
                     30000, 500)
    gbvp.assert(ok, "the guest's gb_loopback driver bound the module")
    local count = gbvp.arg("count", 20)
    for _, size in ipairs({ 16, 256, 1024, 2028 }) do
        local before = tonumber(gbvp.cmd(slot, "loopback stats"):match("transfers (%d+)"))
        guest(string.format("cd %s && echo 0 >type && echo %d >size && echo %d " ..
                            ">iteration_max && echo 3 >type", dir, size, count))
        local done = pcall(gbvp.wait_for, function()
            return tonumber(guest("cat " .. dir .. "/iteration_count")) == count
        end, 60000, 500)
        gbvp.check(done, size .. " B: the guest ran " .. count .. " transfers")
        local after = tonumber(gbvp.cmd(slot, "loopback stats"):match("transfers (%d+)"))
        gbvp.check_eq(after - before, count, size .. " B: the module counted each once")
        gbvp.check_eq(tonumber(guest("cat " .. dir .. "/error")), 0, size .. " B: no errors")
        gbvp.log(string.format("%5d B: throughput avg %s B/s, latency avg %s us (guest)",
                               size, (guest("cat " .. dir .. "/throughput_avg") or "?"):match("%S+"),
                               (guest("cat " .. dir .. "/latency_avg") or "?"):match("%S+")))
    end
    guest("echo 0 >" .. dir .. "/type")
    gbvp.remove(slot)
    return
end
if not (gbvp.features.cmd and gbvp.features.test_ap) then
    gbvp.skip("needs the test AP and backend commands, or a guest (target " .. gbvp.target ..
              ")")
end
local TRANSFER = 0x03
local slot = 0
local count = gbvp.arg("count", 20)
local id = gbvp.insert(slot, "loopback")
gbvp.wait_for(function() return gbvp.interface(id).enabled end, 2000)
if gbvp.features.link_model then
    -- the module's link and the AP bridge's own ("ap", which the AP left in its mode)
    gbvp.link(slot, { gear = gbvp.arg("gear", "HS-G2B"), lanes = 2 })
    gbvp.link("ap", { gear = gbvp.arg("gear", "HS-G2B"), lanes = 2 })
    gbvp.wait(1)
    gbvp.log("link " .. gbvp.link_stats(slot).mode .. ", AP link " .. gbvp.link_stats("ap").mode)
else
    gbvp.log("no UniPro timing model on target " .. gbvp.target ..
             ": the figures measure the simulator's steps, not a link")
end

local function stats()
    local r = gbvp.cmd(slot, "loopback stats")
    return { transfers = tonumber(r:match("transfers (%d+)")),
             bytes = tonumber(r:match("bytes (%d+)")) }
end

for _, size in ipairs({ 16, 64, 256, 1024, 2028 }) do
    local before, t0 = stats(), gbvp.now()
    local frames0 = gbvp.features.link_model and gbvp.link_stats(slot).frames or 0
    local ok = 0
    for i = 1, count do
        local data = string.rep(string.char((size + i) % 256), size)
        local rc, resp = gbvp.ap_request(id, 1, TRANSFER,
                                         string.pack("<I4I4I4", size, 0, 0) .. data, 12 + size)
        if rc == 0 and resp:sub(13) == data then
            ok = ok + 1
        end
    end
    local after, ms = stats(), gbvp.now() - t0
    gbvp.check_eq(ok, count, size .. " B: every transfer came back with its own data")
    gbvp.check_eq(after.transfers - before.transfers, count,
                  size .. " B: the module counted each transfer once")
    local bytes = after.bytes - before.bytes
    gbvp.check(bytes >= count * size, size .. " B: the module counted the payload",
               bytes .. " bytes")
    gbvp.check(ms > 0, size .. " B: simulated time passed")
    local extra = ""
    if gbvp.features.link_model then
        extra = string.format(", %d frames on the link",
                              gbvp.link_stats(slot).frames - frames0)
    end
    gbvp.log(string.format("%5d B: %d transfers in %.3f ms simulated, %.1f us each, "
                           .. "%.2f MB/s each way%s", size, count, ms, ms * 1000 / count,
                           count * size / (ms / 1000) / 1e6, extra))
end
gbvp.remove(slot)
