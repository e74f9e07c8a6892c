-- SPDX-License-Identifier: MIT
-- Link faults during traffic: the AP runs loopback transfers to a module while the UniPro
-- link of its slot suffers bit errors, then goes down in the middle of a transfer and comes
-- back up. The data link layer replays what was lost: every transfer completes with its own
-- data, the module counts each exactly once, and the link's statistics show the replays.
-- Needs the timing model (--timing frame, on the gbvp-sim or guest target); elsewhere it
-- is skipped. On the guest target the kernel's gb_loopback driver makes the traffic.
if not gbvp.features.link_model then
    gbvp.skip("needs the UniPro link model (target " .. gbvp.target ..
              "; run with --target gbvp-sim or guest and --timing frame)")
end

if gbvp.features.guest and not gbvp.features.test_ap then
    local function guest(cmd)
        local rc, out = gbvp.guest(cmd, 30000)
        return rc == 0 and out or nil
    end
    local slot = 2
    gbvp.insert(slot, "loopback")
    local dir = "/sys/class/gb_loopback/gb_loopback0"
    local bound = pcall(gbvp.wait_for, function() return guest("ls " .. dir .. "/type") end,
                        30000, 500)
    gbvp.assert(bound, "the guest's gb_loopback driver bound the module")
    local function module_transfers()
        return tonumber(gbvp.cmd(slot, "loopback stats"):match("transfers (%d+)"))
    end
    local function count() return tonumber(guest("cat " .. dir .. "/iteration_count")) end
    -- the kernel runs `n` TRANSFER operations of `size` bytes in the background
    local function start(n, size)
        guest(string.format("cd %s && echo 0 >type && echo %d >size && echo %d " ..
                            ">iteration_max && echo 3 >type", dir, size, n))
    end
    local function finish(n, what, before)
        local done = pcall(gbvp.wait_for, function() return count() == n end, 60000, 200)
        gbvp.check(done, what .. ": the kernel ran " .. n .. " transfers", tostring(count()))
        gbvp.check_eq(tonumber(guest("cat " .. dir .. "/error")), 0,
                      what .. ": the kernel saw no error (data compared, no timeout)")
        gbvp.check_eq(module_transfers() - before, n,
                      what .. ": the module saw each transfer exactly once")
    end

    local s0, m0 = gbvp.link_stats(slot), module_transfers()
    start(20, 1000)
    finish(20, "no fault", m0)
    local clean = gbvp.link_stats(slot)
    gbvp.check_eq(clean.crc_errors, s0.crc_errors, "no CRC errors without faults")
    gbvp.check(clean.frames > s0.frames, "the transfers crossed the modelled link",
               clean.frames - s0.frames .. " frames")

    gbvp.fault(slot, { ber = 1e-5 })
    local m1 = module_transfers()
    start(40, 1000)
    finish(40, "bit error rate 1e-5", m1)
    gbvp.fault(slot, { ber = 0 })
    local ber = gbvp.link_stats(slot)
    gbvp.check(ber.crc_errors > clean.crc_errors, "bit errors were detected (CRC)",
               "CRC errors " .. ber.crc_errors - clean.crc_errors)
    gbvp.check(ber.replays > clean.replays, "the data link layer replayed frames",
               "replays " .. ber.replays - clean.replays)

    -- the link goes down for 20 ms while the kernel is transferring, then starts up again
    -- (in PWM-G1, as after power-on) and resends what was not acknowledged
    local m2 = module_transfers()
    start(30, 1000)
    gbvp.wait_for(function() return (count() or 0) >= 5 end, 30000, 20)
    gbvp.fault(slot, { down = true, down_for = 20 })
    gbvp.check_eq(gbvp.link_stats(slot).state, "down", "the link went down mid-run")
    finish(30, "link down and up during the run", m2)
    local down = gbvp.link_stats(slot)
    gbvp.check_eq(down.state, "up", "the link is up again")
    gbvp.check_eq(down.to_intf_delivered, down.to_intf_sent,
                  "every message to the interface was delivered")
    gbvp.check_eq(down.from_intf_delivered, down.from_intf_sent,
                  "every message from the interface was delivered")
    gbvp.log(string.format("guest: 90 transfers, %d frames, %d replays, %d CRC errors",
                           down.frames, down.replays, down.crc_errors))
    guest("echo 0 >" .. dir .. "/type")
    gbvp.remove(slot)
    return
end
local TRANSFER = 0x03
local slot = 2
local id = gbvp.insert(slot, "loopback")
gbvp.wait_for(function() return gbvp.interface(id).enabled end, 2000)
gbvp.link(slot, { gear = 2, series = "B", lanes = 2 })
gbvp.wait(1)
gbvp.check_eq(gbvp.link_stats(slot).mode, "HS-G2B x2", "the link runs at HS-G2B x2")

local sent = 0
local function transfers(count, size, what)
    local ok = 0
    for i = 1, count do
        local tag = (sent + i) % 251
        local data = string.rep(string.char(tag), size)
        local rc, resp = gbvp.ap_request(id, 1, TRANSFER,
                                         string.pack("<I4I4I4", size, 0, 0) .. data, 12 + size)
        if rc == 0 and resp:sub(13) == data then
            ok = ok + 1
        end
    end
    sent = sent + count
    gbvp.check_eq(ok, count, what .. ": every transfer came back with its own data")
end
local function module_transfers()
    return tonumber(gbvp.cmd(slot, "loopback stats"):match("transfers (%d+)"))
end

local before = gbvp.link_stats(slot)
transfers(20, 1000, "no fault")
local clean = gbvp.link_stats(slot)
gbvp.check_eq(clean.replays, before.replays, "no replays without faults")

gbvp.fault(slot, { ber = 1e-5 })
transfers(40, 1000, "bit error rate 1e-5")
local ber = gbvp.link_stats(slot)
gbvp.fault(slot, { ber = 0 })
gbvp.check(ber.crc_errors > clean.crc_errors, "bit errors were detected (CRC)",
           "CRC errors " .. ber.crc_errors)
gbvp.check(ber.replays > clean.replays, "the data link layer replayed frames",
           "replays " .. ber.replays)

-- down 14 us into the next transfer (while its frames cross the links), up again 2 ms
-- later: the link starts up again (in PWM-G1, as after power-on) and resends what was not
-- acknowledged
local t0 = gbvp.now()
gbvp.fault(slot, { down = true, delay = 0.014, down_for = 2 })
transfers(1, 1000, "link down and up during a transfer")
gbvp.check(gbvp.now() - t0 >= 2, "the transfer waited for the link to come back",
           string.format("%.3f ms", gbvp.now() - t0))
transfers(9, 1000, "after the link came back")
local down = gbvp.link_stats(slot)
gbvp.check_eq(down.state, "up", "the link is up again")

gbvp.check_eq(module_transfers(), sent, "the module saw each transfer exactly once")
gbvp.check_eq(down.to_intf_delivered, down.to_intf_sent,
              "every message to the interface was delivered")
gbvp.check_eq(down.from_intf_delivered, down.from_intf_sent,
              "every message from the interface was delivered")
gbvp.log(string.format("%d transfers, %d frames, %d replays, %d CRC errors", sent, down.frames,
                       down.replays, down.crc_errors))
gbvp.remove(slot)
