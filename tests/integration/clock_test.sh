#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The guest keeps a precise clock under host load, in realtime and in lockstep
# (docs/timing-in-sim.md, "The guest's clock"): with two CPU-burning processes beside it,
# a `gbvp run` of each kind boots the guest and gb_loopback pings a loopback module 200
# times; the guest must end on the `tsc` clocksource (read after the pings) with no
# "Marking clocksource 'tsc' as unstable" in its kernel log, and the pings' worst round
# trip must be plausible (under 1 s: on the
# jiffies fallback it reads as seconds, up to 500 s, while a TCG guest beside two burners on
# two cores is descheduled for 100 ms now and then); in realtime the guest's clock must
# also keep pace with the host's over 5 s (0.8..1.25: the TSC is the host's time).
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
gbvp=$(realpath "$gbvp")
export XDG_RUNTIME_DIR=$run_dir/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"

cat >"$run_dir/clock.lua" <<'EOF'
local function guest(cmd, ms)
    local rc, out = gbvp.guest(cmd, ms or 30000)
    gbvp.assert(rc == 0, cmd, out)
    return out
end
if not gbvp.features.lockstep then
    -- the guest's seconds over the host's (a realtime target's clock is the wall clock)
    local g0, h0 = tonumber(guest("cut -d' ' -f1 /proc/uptime")), gbvp.now()
    gbvp.wait(5000)
    local g1, h1 = tonumber(guest("cut -d' ' -f1 /proc/uptime")), gbvp.now()
    gbvp.log(string.format("rate %.3f", (g1 - g0) / ((h1 - h0) / 1000)))
end
local slot, id = 0, gbvp.slot_interface(0)
gbvp.insert(slot, "loopback")
gbvp.assert(pcall(gbvp.wait_for, function()
    return gbvp.guest("ls /sys/class/gb_loopback/gb_loopback0/type", 10000) == 0
end, 60000, 100), "the guest's gb_loopback driver bound the module")
local out = guest("loopback_test -t ping -i 200 -p", 300000)
gbvp.log("latency " .. (out:match("ap%-latency usec:%s*min=%d+ max=(%d+)") or "?"))
-- at the end: the switch from tsc-early to tsc waits for the TSC's refined calibration, a
-- delayed work a second or more after boot, which a fast boot reaches the agent before
gbvp.log("clocksource " .. guest("cat /sys/devices/system/clocksource/clocksource0/current_clocksource"):gsub("%s", ""))
EOF

# run NAME ARGS...: gbvp run of the scenario above beside two CPU-burning processes
run() {
    local name=$1; shift
    start_burners
    "$gbvp" run --scenario "$run_dir/clock.lua" --log-dir "$run_dir/$name" "$@" >"$run_dir/$name.out" 2>&1
    local rc=$?
    stop_burners
    return $rc
}
for mode in realtime lockstep; do
    args=()
    [ $mode = lockstep ] && args=(--lockstep)
    if ! run $mode "${args[@]}"; then
        not_ok "$mode: gbvp run under load" "$(tail -8 "$run_dir/$mode.out")"
        continue
    fi
    cs=$(sed -n 's/.*# clocksource \(.*\)/\1/p' "$run_dir/$mode.out")
    if [ "$cs" = tsc ] && ! grep -q "Marking clocksource 'tsc' as unstable\|Marking TSC unstable" "$run_dir/$mode/dmesg.log"; then
        ok "$mode under load: the guest keeps the tsc clocksource ($(grep -o "Detected [0-9.]* MHz processor" "$run_dir/$mode/dmesg.log"); also registered: $(sed -n 's/.*clocksource: \([a-z_-]*\): mask.*/\1/p' "$run_dir/$mode/dmesg.log" | grep -v '^tsc' | sort -u | paste -sd' '))"
    else
        not_ok "$mode under load: the guest keeps the tsc clocksource (it has '$cs')" \
            "$(grep -i "clocksource\|tsc" "$run_dir/$mode/dmesg.log" | tail -6)"
    fi
    max=$(sed -n 's/.*# latency \([0-9]*\).*/\1/p' "$run_dir/$mode.out")
    if [ -n "$max" ] && [ "$max" -lt 1000000 ]; then
        ok "$mode under load: gb_loopback's worst of 200 round trips is plausible ($max us)"
    else
        not_ok "$mode under load: gb_loopback's worst round trip is plausible" "max '${max}' us"
    fi
    if [ $mode = realtime ]; then
        rate=$(sed -n 's/.*# rate \([0-9.]*\).*/\1/p' "$run_dir/$mode.out")
        if awk -v r="${rate:-0}" 'BEGIN {exit !(r >= 0.8 && r <= 1.25)}'; then
            ok "realtime under load: the guest's clock keeps pace with the host's (rate $rate over 5 s)"
        else
            not_ok "realtime under load: the guest's clock keeps pace with the host's" "rate '${rate}'"
        fi
    fi
done
finish
