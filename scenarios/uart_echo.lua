-- SPDX-License-Identifier: MIT
-- UART data both ways. With module backends (test AP): a UART whose port is the capture
-- backend shows exactly what the AP sent (SEND_DATA) and sends what the script gives it
-- (RECEIVE_DATA); a UART whose port is the loopback backend echoes every byte the AP sends
-- back to it. Without backends (gbvp-sim): the catalog UART's counters and the AP's trace.
local SEND_DATA, RECEIVE_DATA = 0x02, 0x03
if gbvp.features.guest and gbvp.features.cmd and not gbvp.features.test_ap then
    -- A guest: bytes written to the module's tty reach the module; bytes the module sends
    -- come out of the tty.
    local function guest(cmd)
        local rc, out = gbvp.guest(cmd, 15000)
        return rc == 0 and out or nil
    end
    gbvp.insert(0, "uart")
    local tty
    pcall(gbvp.wait_for, function()
        local out = guest("ls /dev | grep -E '^ttyGB[0-9]+$'")
        tty = out and out:match("(ttyGB%d+)")
        return tty ~= nil
    end, 30000, 500)
    gbvp.assert(tty, "the guest created the module's tty")
    local dev = "/dev/" .. tty
    gbvp.assert(guest("stty -F " .. dev .. " raw -echo && printf 'hello module' >" .. dev),
                "the guest wrote to " .. dev)
    local ok = pcall(gbvp.wait_for, function()
        return gbvp.cmd(0, "uart state"):match(" tx 12 ") ~= nil
    end, 20000, 500)
    gbvp.check(ok, "the module received the guest's 12 bytes", gbvp.cmd(0, "uart state"))
    guest("rm -f /tmp/u; (timeout 20 head -c 9 " .. dev .. " >/tmp/u </dev/null &); sleep 1")
    gbvp.cmd(0, "uart send hello AP")
    ok = pcall(gbvp.wait_for, function() return guest("cat /tmp/u") == "hello AP\n" end,
               20000, 500)
    gbvp.check(ok, "the module's bytes came out of the guest's tty", guest("cat /tmp/u"))
    gbvp.remove(0)
    return
end
if not (gbvp.features.cmd and gbvp.features.test_ap) then
    gbvp.skip("needs the test AP and backend commands, or a guest (target " .. gbvp.target ..
              ")")
end
local function send(id, data, what)
    local rc = gbvp.ap_request(id, 1, SEND_DATA, string.pack("<s2", data), 0)
    gbvp.assert_eq(rc, 0, what)
end
local function counters(slot)
    local tx, rx = gbvp.cmd(slot, "uart state"):match(" tx (%d+) rx (%d+)")
    return tonumber(tx), tonumber(rx)
end
local function enumerated(id)
    gbvp.wait_for(function() return gbvp.interface(id).enabled end, 2000)
end

if not gbvp.features.backends then
    local id = gbvp.insert(0, "uart")
    enumerated(id)
    send(id, "hello module", "the AP sends 12 bytes")
    gbvp.ap_trace_clear()
    gbvp.cmd(0, "uart send hello AP")
    gbvp.check(gbvp.ap_traced(string.format("incoming request 0x%02x", RECEIVE_DATA)),
               "RECEIVE_DATA reached the AP")
    local tx, rx = counters(0)
    gbvp.check_eq(tx, 12, "the module received the AP's 12 bytes")
    gbvp.check_eq(rx, 9, "the module sent 'hello AP' and a newline")
    gbvp.remove(0)
    return
end

-- the two manifests are in scenarios/modules/ (a path from the repository's top folder,
-- where make runs; --set modules=DIR elsewhere)
local dir = gbvp.arg("modules", "scenarios/modules") .. "/"

-- capture: both directions, byte for byte
local cap = gbvp.insert(0, dir .. "uart_capture.mnfs")
enumerated(cap)
local total = 0
for i, text in ipairs({ "hello module", string.rep("x", 200), "\0\1\2\255 binary" }) do
    send(cap, text, "SEND_DATA " .. i)
    gbvp.check_eq(gbvp.uart_read(0), text, "the module captured message " .. i .. " exactly")
    total = total + #text
end
gbvp.ap_trace_clear()
gbvp.uart_send(0, "hello AP")
gbvp.check(gbvp.ap_traced(string.format("incoming request 0x%02x", RECEIVE_DATA)),
           "the module's bytes reached the AP as RECEIVE_DATA")
local st = gbvp.uart_state(0)
gbvp.check_eq(st.tx_bytes, total, "the module counted every byte from the AP")
gbvp.check_eq(st.rx_bytes, 8, "and the 8 it sent")

-- loopback: every byte the AP sends comes back to it
local lb = gbvp.insert(1, dir .. "uart_loopback.mnfs")
enumerated(lb)
gbvp.ap_trace_clear()
local sent = 0
for i = 1, 5 do
    local text = string.format("echo %d %s", i, string.rep("*", i * 20))
    send(lb, text, "SEND_DATA to the loopback UART " .. i)
    sent = sent + #text
end
gbvp.check(gbvp.ap_traced(string.format("incoming request 0x%02x", RECEIVE_DATA)),
           "the echo reached the AP as RECEIVE_DATA")
local tx, rx = counters(1)
gbvp.check_eq(tx, sent, "the loopback UART received every byte")
gbvp.check_eq(rx, sent, "and sent every byte back")
gbvp.remove(0)
gbvp.remove(1)
