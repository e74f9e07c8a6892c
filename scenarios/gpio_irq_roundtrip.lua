-- SPDX-License-Identifier: MIT
-- GPIO interrupt round trip: the AP configures line 3 of the sensor's GPIO controller for
-- rising-edge interrupts and unmasks it (as gpiolib does for a requested IRQ); the script
-- drives the line; the IRQ_EVENT reaches the AP, which acknowledges it.
if not (gbvp.features.backends and gbvp.features.test_ap) then
    gbvp.skip("needs module backends and the test AP (target " .. gbvp.target .. ")")
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
