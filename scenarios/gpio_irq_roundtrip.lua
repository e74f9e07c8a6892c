-- SPDX-License-Identifier: MIT
-- GPIO interrupt round trip: the AP configures line 3 of the sensor's GPIO controller for
-- rising-edge interrupts and unmasks it (as gpiolib does for a requested IRQ); the script
-- drives the line; the IRQ_EVENT reaches the AP, which acknowledges it.
if not (gbvp.features.backends and gbvp.features.test_ap) then
    if not (gbvp.features.guest and gbvp.features.cmd) then
        gbvp.skip("needs the test AP with module backends, or a guest (target " ..
                  gbvp.target .. ")")
    end
    -- A guest: gpio-event-mon waits for edges on line 3 of the module's gpiochip; the
    -- module raises and lowers the line; both IRQs must reach the guest's gpiolib.
    local slot = 3
    local id = gbvp.insert(slot, "sensor")
    local dir = "/sys/bus/greybus/devices/1-" .. id .. "." .. id .. ".1"
    local chip
    pcall(gbvp.wait_for, function()
        local rc, out = gbvp.guest("ls " .. dir .. "/gbphy*/ | grep -E '^gpiochip[0-9]+$'", 10000)
        chip = rc == 0 and out:match("(gpiochip%d+)") or nil
        return chip ~= nil
    end, 20000, 500)
    gbvp.assert(chip, "the guest created the module's gpiochip")
    -- gpio-event-mon writes through a buffer it flushes when it exits (after 2 events),
    -- so give it a second to request the line and arm the interrupt
    local rc = gbvp.guest("rm -f /tmp/ev; (timeout 30 gpio-event-mon -n " .. chip ..
                          " -o 3 -r -f -c 2 >/tmp/ev 2>&1 </dev/null &); sleep 1", 15000)
    gbvp.assert_eq(rc, 0, "gpio-event-mon started on line 3")
    gbvp.cmd(slot, "gpio set 3 1")
    gbvp.cmd(slot, "gpio set 3 0")
    pcall(gbvp.wait_for, function()
        local _, out = gbvp.guest("grep -c 'GPIO EVENT' /tmp/ev", 5000)
        return (tonumber(out:match("%d+") or "0") or 0) >= 2
    end, 15000, 500)
    local _, ev = gbvp.guest("cat /tmp/ev", 5000)
    gbvp.check(ev:find("rising edge") ~= nil, "the rising edge reached the guest as an IRQ", ev)
    gbvp.check(ev:find("falling edge") ~= nil, "the falling edge reached the guest as an IRQ", ev)
    gbvp.remove(slot)
    return
end
local ACTIVATE, IRQ_TYPE, IRQ_MASK, IRQ_UNMASK = 0x03, 0x0b, 0x0c, 0x0d
local EDGE_RISING = 0x01
local slot, line = 3, 3
local id = gbvp.insert(slot, "sensor")
gbvp.wait_for(function() return gbvp.interface(id).enabled end, 1000)

local function ap(type, payload)
    local rc = gbvp.ap_request(id, 1, type, payload, 0)
    gbvp.assert_eq(rc, 0, string.format("AP GPIO request 0x%02x", type))
end
ap(ACTIVATE, string.pack("B", line))
ap(IRQ_TYPE, string.pack("BB", line, EDGE_RISING))
ap(IRQ_UNMASK, string.pack("B", line))
local l = gbvp.gpio_get(slot, line)
gbvp.check(l.activated and not l.masked and l.irq_type == EDGE_RISING, "line 3 armed for rising edges")

gbvp.ap_trace_clear()
gbvp.check(gbvp.gpio_set(slot, line, 1), "a rising edge raises an interrupt")
gbvp.check(gbvp.ap_traced("incoming request 0x0e"), "the AP received IRQ_EVENT")
gbvp.check_eq(gbvp.gpio_get(slot, line).value, 1, "line 3 reads high")
gbvp.check(not gbvp.gpio_set(slot, line, 0), "a falling edge does not")
gbvp.check(not gbvp.gpio_set(slot, 4, 1), "an unarmed line does not")

ap(IRQ_MASK, string.pack("B", line))
gbvp.check(not gbvp.gpio_set(slot, line, 1), "a masked line does not")
gbvp.gpio_set(slot, line, 0)
ap(IRQ_UNMASK, string.pack("B", line))
local n = 10
for _ = 1, n do
    gbvp.gpio_set(slot, line, 1)
    gbvp.wait(5)
    gbvp.gpio_set(slot, line, 0)
    gbvp.wait(5)
end
local st = gbvp.gpio_stats(slot)
gbvp.check_eq(st.irq_events, 1 + n, "one IRQ_EVENT per rising edge")
gbvp.check_eq(st.irq_rejected, 0, "the AP acknowledged every IRQ_EVENT")
gbvp.check_eq(st.irq_lost, 0, "no interrupt lost")
