-- SPDX-License-Identifier: MIT
-- A tour of the catalog (gbvp run's default scenario): several modules go into the frame,
-- each is exercised through its backend commands (gbvp.cmd, every target) and through the
-- AP (the test AP's requests, or the guest's own tools), the AP must see the effect, and
-- every module comes out again.
-- A real kernel as the AP but no way into the guest (gbvp run with a kernel or image of
-- the user's own, no agent): what the network shows of the guest is checked instead; each
-- module must be enumerated (activated, a device id, connections the AP asked the SVC
-- for), the AP's drivers must talk to it, and it must go cleanly.
if gbvp.features.cmd and not gbvp.features.test_ap and not gbvp.features.guest then
    local up = gbvp.stats().handshake_done or
               pcall(gbvp.wait_for, function() return gbvp.stats().handshake_done end, 60000, 100)
    if not up then
        gbvp.skip("needs backend commands and an AP: the test AP, a guest with the agent, " ..
                  "or a kernel connected to the simulator (none within 60 s, target " ..
                  gbvp.target .. ")")
    end
    gbvp.log("no guest agent: checking what the simulator sees of the guest (enumeration, " ..
             "connections, traffic); the checks inside the guest are skipped")
    local modules = { { "sensor", 1 }, { "battery", 1 }, { "light", 1 }, { "keyboard", 1 },
                      { "vibrator", 1 }, { "loopback", 1 }, { "dual", 2 } }
    local slot, placed = 0, {}
    local function rx_requests(s)
        return tonumber(gbvp.cmd(s, "interface stats"):match("rx%-requests (%d+)")) or 0
    end
    local function remove_placed()
        for _, p in ipairs(placed) do
            gbvp.remove(p.slot)
            local gone = pcall(gbvp.wait_for, function()
                for k = 0, p.width - 1 do
                    local st = gbvp.interface(p.slot + 2 + k)
                    if st.present or st.connections > 0 then return false end
                end
                return true
            end, 60000, 100)
            gbvp.check(gone, p.module .. ": removed, no connection left in the network")
        end
        placed = {}
    end
    for _, m in ipairs(modules) do
        local module, width = m[1], m[2]
        if slot + width > gbvp.slots then
            remove_placed()
            slot = 0
        end
        local t0 = gbvp.now()
        gbvp.insert(slot, module)
        placed[#placed + 1] = { module = module, slot = slot, width = width }
        -- enumerated: every interface activated with a device id and, besides its control
        -- connection, at least one the AP's drivers asked for
        local ok = pcall(gbvp.wait_for, function()
            for k = 0, width - 1 do
                local st = gbvp.interface(slot + 2 + k)
                if not (st.active and st.device_id > 0 and st.connections >= 2) then
                    return false
                end
            end
            return true
        end, 90000, 100)
        local st = gbvp.interface(slot + 2)
        if gbvp.check(ok, module .. ": the guest enumerated it (activated, device id, " ..
                      "connections for its bundles)") then
            gbvp.log(string.format("%s: device id %d, %d connections, %.3f s after insertion",
                                   module, st.device_id, st.connections, (gbvp.now() - t0) / 1e3))
        end
        -- traffic: the drivers' requests reach the module (probe, properties, configuration)
        local got = pcall(gbvp.wait_for, function() return rx_requests(slot) > 0 end, 30000, 100)
        gbvp.check(got, module .. ": the guest's drivers sent it requests (" ..
                   rx_requests(slot) .. " so far)")
        slot = slot + width
    end
    remove_placed()
    gbvp.check(gbvp.stats().handshake_done, "the guest's AP is still connected")
    return
end

if not (gbvp.features.cmd and gbvp.features.test_ap) then
    if not (gbvp.features.guest and gbvp.features.cmd) then
        gbvp.skip("needs backend commands and the test AP, or a guest (target " ..
                  gbvp.target .. ")")
    end
    -- A guest (gbvp run's default): seven modules go in one after the other; for each the
    -- kernel must bind its bundles and the device must work from inside the guest with the
    -- tools a user has (sysfs, i2c-tools, evdev, the tty); then every module comes out and
    -- dmesg must be clean.
    local GB = "/sys/bus/greybus/devices"
    local function guest(cmd, timeout_ms)
        local rc, out = gbvp.guest(cmd, timeout_ms or 60000)
        return rc, out
    end
    local function show(prefix, text)
        for line in (text or ""):gmatch("[^\n]+") do
            gbvp.log(prefix .. " " .. line)
        end
    end
    -- the kernel's new lines after each step (the boot log is the console's)
    local dmesg_seen = 0
    local function mark_kernel()
        local _, n = guest("dmesg | wc -l")
        dmesg_seen = tonumber(n:match("%d+")) or dmesg_seen
    end
    local function show_kernel()
        local _, out = guest("dmesg | tail -n +" .. (dmesg_seen + 1))
        show("kernel|", out)
        mark_kernel()
    end
    mark_kernel()
    local steps = {
        { width = 1, module = "sensor", what = "GPIO lines and an I2C bus (EEPROM, LM75)",
          backend = "gpio set 2 1",
          check = "B=" .. GB .. "/1-{id}.{id}.1; c=$(ls -d $B/gbphy*/gpio/gpiochip*); n=$(ls $B/gbphy*/ | sed -n 's/^i2c-//p');" ..
              "base=${c##*gpiochip}; g=/sys/class/gpio/gpio$((base + 2)); echo $((base + 2)) > /sys/class/gpio/export;" ..
              "echo in > $g/direction; v=$(cat $g/value); echo $((base + 2)) > /sys/class/gpio/unexport;" ..
              "echo \"$(basename $c): $(cat $c/ngpio) lines, label $(cat $c/label); line 2 (driven high by the module) reads $v\";" ..
              "echo \"i2c-$n: LM75 temperature register $(i2ctransfer -y $n w1@0x48 0x00 r2)\";" ..
              "i2cset -y $n 0x50 0x00 0x42; e=$(i2cget -y $n 0x50 0x00); echo \"i2c-$n: EEPROM byte 0 written 0x42, read $e\";" ..
              "[ \"$v\" = 1 ] && [ \"$e\" = 0x42 ]" },
        { width = 1, module = "battery", what = "a battery (power supply class)",
          backend = "battery set capacity 42",
          check = "P=/sys/class/power_supply/$(ls " .. GB .. "/1-{id}.{id}.1/power_supply); i=0;" ..
              "until [ $(cat $P/capacity) = 42 ] || [ $i -ge 20 ]; do i=$((i+1)); sleep 0.5; done;" ..
              "echo \"$(basename $P): capacity $(cat $P/capacity) % (set to 42 by the simulator), status $(cat $P/status), $(cat $P/voltage_now) uV\";" ..
              "[ $(cat $P/capacity) = 42 ]" },
        { width = 1, module = "light", what = "an RGB status light",
          check = "for c in red green blue; do echo 128 > /sys/class/leds/gbvp:$c:status/brightness; done;" ..
              "ls /sys/class/leds | grep gbvp | tr '\\n' ' '; echo; r=$(cat /sys/class/leds/gbvp:red:status/brightness);" ..
              "echo \"red brightness $r of $(cat /sys/class/leds/gbvp:red:status/max_brightness)\";" ..
              "for c in red green blue; do echo 0 > /sys/class/leds/gbvp:$c:status/brightness; done; [ \"$r\" = 128 ]" },
        { width = 1, module = "keyboard", what = "a HID keyboard",
          before = "B=" .. GB .. "/1-{id}.{id}.1; echo on > $B/power/control; e=$(ls $B/*/input/input*/ | grep ^event);" ..
              "(timeout 10 hexdump -v -e '24/1 \"%02x \" \"\\n\"' -n 48 /dev/input/$e > /tmp/key 2>&1 </dev/null &); sleep 0.5",
          backend = "hid key a",
          check = "B=" .. GB .. "/1-{id}.{id}.1; e=$(ls $B/*/input/input*/ | grep ^event); i=0;" ..
              "until grep -q '01 00 1e 00 01 00 00 00' /tmp/key || [ $i -ge 20 ]; do i=$((i+1)); sleep 0.25; done;" ..
              "echo auto > $B/power/control; echo \"$(cat $B/*/input/input*/name) on /dev/input/$e:\"; cat /tmp/key;" ..
              "grep -q '01 00 1e 00 01 00 00 00' /tmp/key && echo 'EV_KEY KEY_A pressed'" },
        { width = 1, module = "vibrator", what = "a vibration motor",
          check = "echo 100 > /sys/class/vibrator/vibrator0/timeout && echo 'vibrator0: on for 100 ms'" },
        { width = 1, module = "loopback", what = "a loopback module",
          check = "L=$(ls -d " .. GB .. "/1-{id}.{id}.1/gb_loopback/*); cd $L; echo 1024 > size; echo 20 > iteration_max; echo 3 > type;" ..
              "i=0; until [ $(cat iteration_count) -ge 20 ] || [ $i -ge 200 ]; do i=$((i+1)); sleep 0.1; done;" ..
              -- writing type resets the counters
              "n=$(cat iteration_count); e=$(cat error); echo 0 > type;" ..
              "echo \"$(basename $L): $n transfers of 1024 bytes, $e errors\"; [ $n -ge 20 ] && [ $e = 0 ]" },
        { width = 2, module = "dual", what = "a UART (loopback backend) and a battery on two interfaces",
          check = "t=$(ls " .. GB .. "/1-{id}.{id}.1/gbphy*/tty); stty -F /dev/$t raw -echo 115200;" ..
              "(timeout 5 cat /dev/$t > /tmp/u </dev/null &); sleep 0.5; echo hello-greybus > /dev/$t; i=0;" ..
              "until grep -q hello /tmp/u || [ $i -ge 20 ]; do i=$((i+1)); sleep 0.2; done;" ..
              "echo \"/dev/$t echoed: $(cat /tmp/u)\"; P=/sys/class/power_supply/$(ls " .. GB .. "/1-{id}.{id2}.1/power_supply);" ..
              "echo \"$(basename $P): capacity $(cat $P/capacity) %, status $(cat $P/status)\"; grep -q hello-greybus /tmp/u" },
    }
    -- the modules go into consecutive slots; when the next does not fit the frame (gbvp
    -- run has 8 slots, other targets may have fewer), the ones in it come out first
    local first = true
    local inserted = {}
    local function with_ids(text, s)
        return (text:gsub("{id2}", tostring(s.slot + 3)):gsub("{id}", tostring(s.slot + 2)))
    end
    local function remove_all()
        for _, s in ipairs(inserted) do
            gbvp.log(string.format("remove %s from slot %d", s.module, s.slot))
            -- wake the module's bundles first: 6.1 runtime-suspends an idle bundle after 3 s,
            -- and its remove path resumes a suspended bundle of a module already pulled
            -- (BUNDLE_RESUME times out, -110): on a slow host (a loaded machine, the
            -- simulator under valgrind) the modules inserted first sit idle that long
            guest(string.format("for b in %s/1-%d.*.[0-9]*; do echo on > $b/power/control; done",
                                GB, s.slot + 2))
            gbvp.remove(s.slot)
            local rc = guest(string.format("i=0; while ls %s | grep -q '^1-%d\\b'; do i=$((i+1));" ..
                                            " [ $i -ge 300 ] && exit 1; sleep 0.1; done", GB, s.slot + 2))
            show_kernel()
            gbvp.check(rc == 0, s.module .. ": gone from " .. GB)
        end
        inserted = {}
    end
    local next_slot = 0
    for _, s in ipairs(steps) do
        if s.width > gbvp.slots then
            gbvp.skip(string.format("%s needs %d slots, the frame has %d", s.module, s.width,
                                    gbvp.slots))
        end
        if next_slot + s.width > gbvp.slots then
            remove_all()
            next_slot = 0
        end
        s.slot = next_slot
        next_slot = next_slot + s.width
        local id = s.slot + 2
        gbvp.log(string.format("insert %s (%s) into slot %d", s.module, s.what, s.slot))
        local t0 = gbvp.now()
        gbvp.insert(s.slot, s.module)
        inserted[#inserted + 1] = s
        -- every interface's first bundle bound to a driver, within 60 s
        local cond = "true"
        for k = 0, s.width - 1 do
            cond = cond .. string.format(" && [ -e %s/1-%d.%d.1/driver ]", GB, id, id + k)
        end
        local rc, out = guest("i=0; until " .. cond .. "; do i=$((i+1)); [ $i -ge 600 ] && exit 1;" ..
            " sleep 0.1; done; for b in " .. GB .. "/1-" .. id .. ".*.[0-9]*; do" ..
            " echo \"$(basename $b): class $(cat $b/bundle_class), driver $(basename $(readlink $b/driver))\";" ..
            " done", 90000)
        if rc == 0 then
            gbvp.log(string.format("%s bound %.3f s after insertion", s.module,
                                   (gbvp.now() - t0) / 1e3))
            if first then
                gbvp.log(string.format("first module bound at %.3f s of simulated time",
                                       gbvp.now() / 1e3))
                first = false
            end
            show("guest |", out)
        end
        show_kernel()
        if gbvp.check(rc == 0, s.module .. ": the kernel enumerated it and bound its bundles",
                      out) then
            if s.before then
                guest(with_ids(s.before, s), 30000)
            end
            if s.backend then
                local answer = gbvp.cmd(s.slot, s.backend)
                gbvp.log(string.format("simulator: %s -> %s", s.backend,
                                       answer ~= "" and answer or "done"))
            end
            rc, out = guest(with_ids(s.check, s))
            show("guest |", out)
            gbvp.check(rc == 0, s.module .. ": works from inside the guest", out)
        end
    end
    remove_all()
    -- a surprise removal cuts the last requests of a driver: -107 (ENOTCONN), -108
    -- (ESHUTDOWN, cancelled by the connection's disable) and -125 (ECANCELED) are expected
    local _, out = guest("dmesg | grep -E 'WARNING|BUG|Oops|Call Trace|greybus.*(error|fail|timed out|timeout)|" ..
        "(es2|svc|interface|bundle|connection|hid|gpio|i2c|uart|loopback|light|vibrator|power_supply).*(failed|error)' |" ..
        " grep -vE '(synchronous operation id 0x[0-9a-f]+ of type 0x[0-9a-f]+ failed: -(107|108|125)|" ..
        "failed to power off \\(-107\\))$'; true")
    gbvp.check(out == "", "dmesg: no WARN, BUG, oops or greybus error", out)
    return
end

local ids = {}
local function insert(slot, module)
    local id = gbvp.insert(slot, module)
    gbvp.wait_for(function() return gbvp.interface(id).enabled end, 2000)
    gbvp.check(gbvp.interface(id).bound_bundles > 0,
               module .. ": the AP bound a driver to its bundle")
    ids[slot] = id
    return id
end
local function ap(id, cport, type, payload, resp_len, what)
    local rc, resp = gbvp.ap_request(id, cport, type, payload or "", resp_len or 0)
    gbvp.assert_eq(rc, 0, what)
    return resp
end

-- sensor: GPIO line 3 driven by the module, read by the AP (ACTIVATE, GET_VALUE)
local sensor = insert(0, "sensor")
ap(sensor, 1, 0x03, string.pack("B", 3), 0, "sensor: the AP activates GPIO line 3")
gbvp.cmd(0, "gpio set 3 1")
gbvp.check_eq(string.byte(ap(sensor, 1, 0x08, string.pack("B", 3), 1, "GET_VALUE")), 1,
              "sensor: the AP reads line 3 high after 'gpio set 3 1'")
gbvp.cmd(0, "gpio set 3 0")
gbvp.check_eq(string.byte(ap(sensor, 1, 0x08, string.pack("B", 3), 1, "GET_VALUE")), 0,
              "sensor: and low after 'gpio set 3 0'")

-- battery: the capacity set through the backend is what the AP reads (GET_PROPERTY)
local battery = insert(1, "battery")
gbvp.cmd(1, "battery set capacity 42")
local cap = string.unpack("<i4", ap(battery, 1, 0x05, string.pack("<BB", 0, 0x2a), 4,
                                   "battery: GET_PROPERTY capacity"))
gbvp.check_eq(cap, 42, "battery: the AP reads capacity 42 %")

-- keyboard: once the AP powers the device on (as the HID core does when the input device
-- is opened), a key press reaches the AP as an incoming HID IRQ_EVENT
local kb = insert(2, "keyboard")
ap(kb, 1, 0x04, "", 0, "keyboard: PWR_ON")
gbvp.ap_trace_clear()
gbvp.cmd(2, "hid key a")
gbvp.check(gbvp.ap_traced("incoming request 0x08"), "keyboard: the key press reached the AP")

-- vibrator: the AP turns it on (VIBRATOR_ON; the 6.1 driver times it out itself)
local vib = insert(3, "vibrator")
ap(vib, 1, 0x02, "", 0, "vibrator: VIBRATOR_ON")
gbvp.check(gbvp.cmd(3, "vibrator state"):match("^on") ~= nil, "vibrator: the backend is on")

for slot = 0, 3 do
    gbvp.remove(slot)
    gbvp.check_eq(gbvp.interface_state(ids[slot]), "absent", "slot " .. slot .. " emptied")
end

-- loopback: an AP transfer comes back and the module counts it
local lb = insert(0, "loopback")
local data = "greybus loopback demo"
local resp = ap(lb, 1, 0x03, string.pack("<I4I4I4", #data, 0, 0) .. data, 12 + #data,
                "loopback: TRANSFER")
gbvp.check_eq(resp:sub(13), data, "loopback: the data came back")
gbvp.check(gbvp.cmd(0, "loopback stats"):match("transfers 1 ") ~= nil,
           "loopback: the module counted one transfer")

-- uart: bytes the AP sends (SEND_DATA) reach the module; bytes the module sends reach
-- the AP (RECEIVE_DATA)
insert(1, "uart")
local u = ids[1]
ap(u, 1, 0x02, string.pack("<s2", "hello"), 0, "uart: SEND_DATA")
gbvp.check(gbvp.cmd(1, "uart state"):match(" tx 5 ") ~= nil, "uart: the module got 5 bytes")
gbvp.ap_trace_clear()
gbvp.cmd(1, "uart send hi")
gbvp.check(gbvp.ap_traced("incoming request 0x03"), "uart: RECEIVE_DATA reached the AP")

gbvp.remove(0)
gbvp.remove(1)
gbvp.check_eq(gbvp.interface_state(lb), "absent", "loopback removed")
gbvp.check_eq(gbvp.interface_state(u), "absent", "uart removed")
