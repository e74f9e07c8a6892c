#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `gbvp run` as a user runs it: the default demo (scenarios/demo.lua against the guest)
# passes, and its capture (--pcap) and timeline (--trace) read back with tshark and the
# dissector; with --keep-running and --control PATH the socket named at start drives the
# running simulator (gbvp ctl) and the guest sees what it does; Ctrl-C stops QEMU and the
# simulator and removes the socket. A script that fails and a --control path that is taken
# give a clear refusal. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; }
d=$(mktemp -d /tmp/gbvp-run-test.XXXXXX)
run_pid=
cleanup() {
    [ -n "$run_pid" ] && kill -INT "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
    if [ "$failed" -eq 0 ]; then rm -rf "$d"; else echo "run_test: logs kept in $d"; fi
}
trap cleanup EXIT
[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; exit 1; }
gbvp=$(realpath "$gbvp")

# --- the default demo, captured --------------------------------------------------------------
"$gbvp" run --pcap "$d/demo.pcapng" --trace "$d/demo.json" >"$d/demo.log" 2>&1
rc=$?
summary=$(grep -o 'demo.lua: [0-9]* passed, [0-9]* failed' "$d/demo.log")
if [ "$rc" -eq 0 ] && [ "$summary" = "demo.lua: 22 passed, 0 failed" ]; then
    ok "gbvp run: the default demo passed ($summary, $(grep -o '[0-9.]*\] gbvp run: passed' "$d/demo.log" | cut -d']' -f1) s)"
else
    not_ok "gbvp run: the default demo (status $rc, ${summary:-no summary})" \
        "$(grep -E '^\[.*(not ok|FAIL|error)' "$d/demo.log" | head -n 8)"
fi
rundir=$(sed -n 's/.*gbvp run: logs in //p' "$d/demo.log")
[ -n "$rundir" ] && [ ! -e "$rundir" ] && ok "a passed run removes its run directory" ||
    not_ok "a passed run removes its run directory ($rundir)"
# its capture and timeline read back: every packet decodes, responses pair with requests
# (every protocol the guest demo uses shows its fields: SVC, control, the manifest, GPIO,
# I2C, power supply, lights, HID, vibrator, loopback, UART)
out=$(FIELDS="greybus.svc.endo_id greybus.control.manifest_size greybus.manifest.desc_size
              greybus.gpio.value greybus.i2c.functionality greybus.psy.id greybus.lights.name
              greybus.hid.length greybus.loopback.data greybus.uart.data" \
      tests/wireshark/capture_test.sh --check "$d/demo.pcapng" "$d/demo.json" 2>&1)
if [ $? -eq 0 ]; then
    ok "the demo's capture and timeline read back ($(capinfos -c -M "$d/demo.pcapng" 2>/dev/null | sed -n 's/.*packets: *//p') packets; ${out##*: })"
else
    not_ok "the demo's capture and timeline read back" "$out"
fi

# --- --keep-running with a named control socket ---------------------------------------------
sock=$d/ctl.sock
"$gbvp" run --keep-running --control "$sock" >"$d/keep.log" 2>&1 &
run_pid=$!
grep -q "control socket: $sock" <(sleep 0.5; head -n 3 "$d/keep.log") &&
    ok "the control socket is named at start" || not_ok "the control socket is named at start" "$(head -n 3 "$d/keep.log")"
for _ in $(seq 1 600); do
    grep -q "stay up" "$d/keep.log" && break
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.5
done
if grep -q "stay up" "$d/keep.log"; then
    ok "--keep-running: the demo ran and the platform stays up"
else
    not_ok "--keep-running: the demo ran and the platform stays up" "$(tail -n 5 "$d/keep.log")"
fi
rundir=$(sed -n 's/.*gbvp run: logs in //p' "$d/keep.log")
agent=$rundir/agent.sock
out=$("$gbvp" ctl --socket "$sock" status 2>&1)
grep -q '"target":"gbvp-sim+guest"' <<<"$out" && grep -q '"ap_connected":true' <<<"$out" &&
    ok "gbvp ctl status on the running demo" || not_ok "gbvp ctl status on the running demo" "$out"
out=$("$gbvp" ctl --socket "$sock" insert slot=0 module=sensor 2>&1)
grep -q '"interface":2,"ok":true' <<<"$out" && ok "gbvp ctl insert slot=0 module=sensor" ||
    not_ok "gbvp ctl insert slot=0 module=sensor" "$out"
out=$("$gbvp" agent --socket "$agent" -- \
    'i=0; until [ -e /sys/bus/greybus/devices/1-2.2.1/driver ]; do i=$((i+1)); [ $i -ge 300 ] && exit 1; sleep 0.1; done; cat /sys/bus/greybus/devices/1-2.2.1/bundle_class' 2>&1)
[ "$out" = "0x0a" ] && ok "the guest bound the sensor inserted through gbvp ctl" ||
    not_ok "the guest bound the sensor inserted through gbvp ctl" "$out"
out=$("$gbvp" ctl --socket "$sock" gpio_get slot=0 line=2 2>&1)
grep -q '"ok":true' <<<"$out" && ok "a typed command (gpio_get) on the running demo" ||
    not_ok "a typed command (gpio_get) on the running demo" "$out"
kill -INT "$run_pid"
wait "$run_pid"
rc=$?
run_pid=
sim_left=$(pgrep -f -- "--control $sock" || true)
[ -z "$sim_left" ] && [ ! -e "$sock" ] && grep -q "interrupted: stopping QEMU and the simulator" "$d/keep.log" &&
    ok "Ctrl-C stops QEMU and the simulator and removes the socket (status $rc)" ||
    not_ok "Ctrl-C stops QEMU and the simulator and removes the socket" "left: $sim_left" "$(tail -n 3 "$d/keep.log")"
rm -rf "$rundir"

# --- refusals ---------------------------------------------------------------------------------
: >"$d/taken.sock"
out=$("$gbvp" run --control "$d/taken.sock" 2>&1)
rc=$?
[ "$rc" -eq 2 ] && grep -q "the path exists" <<<"$out" && ok "a taken --control path is refused" ||
    not_ok "a taken --control path is refused (status $rc)" "$out"
printf 'gbvp.check(true, "first")\nerror("broken on purpose")\n' >"$d/bad.lua"
"$gbvp" run --scenario "$d/bad.lua" >"$d/bad.log" 2>&1
rc=$?
rundir=$(sed -n 's/.*gbvp run: logs in //p' "$d/bad.log")
[ "$rc" -eq 1 ] && grep -q "broken on purpose" "$d/bad.log" && grep -q "logs kept in $rundir" "$d/bad.log" &&
    ok "a failing scenario fails the run, says why and keeps the logs" ||
    not_ok "a failing scenario fails the run, says why and keeps the logs (status $rc)" "$(tail -n 5 "$d/bad.log")"
[ -n "$rundir" ] && rm -rf "$rundir"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
