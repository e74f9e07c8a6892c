#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian image (scripts/build-image.sh) booted by gbvp run --image:
#   build      the script prints the image's path last; the kernel that belongs to it lies
#              beside it; a bad --size is refused
#   boot       systemd is PID 1, udev and the agent's service run, the root is the image
#   autoload   udev loads gb-es2 and greybus from the bridge's USB modalias at boot, and no
#              class driver; inserting modules loads exactly their drivers (lsmod), which
#              work through Debian's own tools (gpiodetect, gpioget, i2cdetect, i2cget,
#              the power-supply and loopback sysfs); removal unbinds them cleanly (modprobe -r
#              unloads them: nothing holds them) and a second insertion loads them again
#   demo       the default demo passes on the image
# Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }

out=$(scripts/build-image.sh --size 10 2>&1); rc=$?
if [ "$rc" != 0 ] && [[ $out == *"--size wants a whole number of MiB, at least 512"* ]]; then
    ok "build-image.sh --size 10: refused with the reason"
else
    not_ok "build-image.sh --size 10 is refused" "status $rc: $out"
fi

t0=$(now_ms)
if ! scripts/build-image.sh >"$run_dir/build-image.out" 2>"$run_dir/build-image.log"; then
    not_ok "scripts/build-image.sh" "$(tail -n 20 "$run_dir/build-image.log")"; finish
fi
built=$(tail -n 1 "$run_dir/build-image.out")
if [ -f "$built" ] && [ -f "$built.kernel" ] && [ "$(scripts/build-image.sh --print-path 2>/dev/null)" = "$built" ]; then
    ok "build-image.sh: $built (and its kernel beside it) in $(secs $(($(now_ms) - t0))) s; --print-path agrees"
else
    not_ok "build-image.sh prints the image's path last, its kernel beside it" "last line '$built'"; finish
fi
grep -qE '^(systemd|udev|kmod|gpiod|i2c-tools) ' "$(dirname "$built")/packages.txt" &&
    ok "the image holds Debian's $(grep -E '^(systemd|udev|kmod) ' "$(dirname "$built")/packages.txt" | tr '\n' ' ')" ||
    not_ok "packages.txt lists systemd, udev, kmod"

# gbvp run writes to its image: each run gets a sparse copy
image=$run_dir/debian.img
copy_image() { cp --sparse=always "$built" "$image" && cp "$built.kernel" "$image.kernel"; }

cat >"$run_dir/image.lua" <<'EOF'
local GB = "/sys/bus/greybus/devices"
local function guest(cmd, ms)
    local rc, out = gbvp.guest(cmd, ms or 60000)
    for line in out:gmatch("[^\n]+") do gbvp.log("guest| " .. line) end
    return rc, out
end
local function lsmod()
    local _, out = guest("lsmod | awk 'NR > 1 && $1 ~ /^(gb_|greybus)/ {print $1}' | sort | tr '\\n' ' '")
    return " " .. out
end
local function loaded(mods, names)
    for _, n in ipairs(names) do
        if not mods:find(" " .. n .. " ", 1, true) then return false end
    end
    return true
end

-- boot: systemd, udev, the agent's service, the root on the image
local rc, out = guest("cat /proc/1/comm; systemctl is-active systemd-udevd gbvp-agent; " ..
    "findmnt -n -o SOURCE,FSTYPE /; uname -r; cat /etc/debian_version")
gbvp.check(rc == 0 and out:match("^systemd\n") ~= nil, "PID 1 is systemd", out)
gbvp.check(out:match("active\nactive\n") ~= nil, "systemd-udevd and gbvp-agent.service are active", out)
gbvp.check(out:match("/dev/vda ext4") ~= nil, "the root is the image (/dev/vda, ext4)", out)
gbvp.check(out:match("%-gbvp%-modules\n") ~= nil, "the modules-flavour kernel runs", out)

-- at boot: the bridge's driver from its USB modalias, no class driver
local mods = lsmod()
gbvp.log("loaded after boot:" .. mods)
gbvp.check(loaded(mods, { "gb_es2", "greybus" }), "udev loaded gb_es2 and greybus at boot", mods)
gbvp.check(not mods:find(" gb_gpio ", 1, true) and not mods:find(" gb_loopback ", 1, true),
           "no class driver before a module is inserted", mods)

local function bound(slots)
    local cond = "true"
    for _, s in ipairs(slots) do
        cond = cond .. string.format(" && [ -e %s/1-%d.%d.1/driver ]", GB, s + 2, s + 2)
    end
    return guest("i=0; until " .. cond .. "; do i=$((i+1)); [ $i -ge 600 ] && exit 1; sleep 0.1; done", 90000) == 0
end

local wanted = { "gb_gbphy", "gb_gpio", "gb_i2c", "gb_power_supply", "gb_loopback" }
for round = 1, 2 do
    gbvp.insert(0, "sensor")
    gbvp.insert(1, "battery")
    gbvp.insert(2, "loopback")
    gbvp.check(bound({ 0, 1, 2 }), "round " .. round .. ": sensor, battery, loopback enumerated and bound")
    mods = lsmod()
    gbvp.log("loaded after insertion:" .. mods)
    gbvp.check(loaded(mods, wanted), "round " .. round .. ": udev loaded " ..
               table.concat(wanted, ", ") .. " (lsmod)", mods)
    gbvp.check(not mods:find(" gb_hid ", 1, true) and not mods:find(" gb_raw ", 1, true),
               "round " .. round .. ": and no driver of a class nobody inserted", mods)
    -- the drivers work, through Debian's tools
    rc, out = guest("c=$(gpiodetect | awk '/greybus|gb/ {print $1; exit}'); echo chip $c; " ..
        "gpioinfo $c | head -n 3; n=$(i2cdetect -l | awk '/Greybus/ {sub(\"i2c-\", \"\", $1); print $1; exit}');" ..
        "echo bus $n; i2cset -y $n 0x50 0x00 0x5a && i2cget -y $n 0x50 0x00")
    gbvp.check(rc == 0 and out:match("chip gpiochip%d+") ~= nil and out:match("0x5a") ~= nil,
               "round " .. round .. ": gpiodetect/gpioinfo see the module's GPIO chip, " ..
               "i2cset/i2cget reach its EEPROM", out)
    gbvp.cmd(1, "battery set capacity 37")
    rc, out = guest("P=/sys/class/power_supply/$(ls " .. GB .. "/1-3.3.1/power_supply); i=0;" ..
        "until [ $(cat $P/capacity) = 37 ] || [ $i -ge 20 ]; do i=$((i+1)); sleep 0.5; done; cat $P/capacity")
    gbvp.check(rc == 0 and out:match("^37") ~= nil, "round " .. round .. ": the battery's capacity reads 37", out)
    rc, out = guest("cd $(ls -d " .. GB .. "/1-4.4.1/gb_loopback/*) && echo 256 > size && " ..
        "echo 10 > iteration_max && echo 3 > type && i=0; until [ $(cat iteration_count) -ge 10 ] || " ..
        "[ $i -ge 200 ]; do i=$((i+1)); sleep 0.1; done; n=$(cat iteration_count); e=$(cat error); " ..
        "echo 0 > type; echo $n transfers, $e errors; [ $n -ge 10 ] && [ $e = 0 ]")
    gbvp.check(rc == 0, "round " .. round .. ": gb-loopback transfers", out)

    for slot = 0, 2 do
        guest(string.format("for b in %s/1-%d.*.[0-9]*; do echo on > $b/power/control; done", GB, slot + 2))
        gbvp.remove(slot)
    end
    rc = guest("i=0; while ls " .. GB .. " | grep -q '^1-[234]\\b'; do i=$((i+1)); [ $i -ge 300 ] && exit 1;" ..
               " sleep 0.1; done")
    gbvp.check(rc == 0, "round " .. round .. ": the modules are gone from " .. GB)
    -- a clean unbind leaves nothing holding the drivers
    rc, out = guest("modprobe -r gb-gpio gb-i2c gb-gbphy gb-power-supply gb-loopback 2>&1; echo status $?; " ..
                    "lsmod | grep -cE '^gb_(gpio|i2c|gbphy|power_supply|loopback) '")
    gbvp.check(out:match("status 0\n0") ~= nil,
               "round " .. round .. ": modprobe -r unloads the five drivers (none held)", out)
end

rc, out = guest("dmesg | grep -E 'WARNING|BUG|Oops|Call Trace|greybus.*(timed out|timeout)|" ..
    "(gpio|i2c|loopback|power_supply|gbphy).*(failed|error)' | " ..
    "grep -vE '(synchronous operation id 0x[0-9a-f]+ of type 0x[0-9a-f]+ failed: -(107|108|125)|" ..
    "failed to power off \\(-107\\))$'; true")
gbvp.check(out == "", "dmesg: no WARN, BUG, oops or driver error", out)
EOF

copy_image
"$gbvp" run --timeout 900 --image "$image" --scenario "$run_dir/image.lua" --log-dir "$run_dir/logs" \
    >"$run_dir/image.out" 2>&1
rc=$?
grep -E '\] (ok|not ok) ' "$run_dir/image.out" | sed 's/^/       /'
summary=$(grep -o 'image.lua: [0-9]* passed, [0-9]* failed' "$run_dir/image.out")
if [ "$rc" = 0 ] && [[ $summary == *" 0 failed" ]] &&
   grep -q "$image's own kernel" "$run_dir/image.out" &&
   grep -q "guest up: agent ready" "$run_dir/image.out"; then
    ok "gbvp run --image: systemd boots, udev loads the Greybus drivers on insertion and they unbind cleanly ($summary; $(sed -n 's/.*\(agent ready [0-9.]* s\).*/\1/p' "$run_dir/image.out"))"
else
    not_ok "the Debian image: boot, udev autoloading, removal" "status $rc, ${summary:-no summary}" \
        "$(grep -E 'not ok|gbvp run:' "$run_dir/image.out" | tail -n 12)"
fi

copy_image
demo_on "the Debian image (gbvp run --image)" --image "$image"
finish
