#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Captures of real runs, read with tshark and the dissector: every scenario of scenarios/
# on the test AP (deterministic) and three on the frame-level model; the demo's capture
# again against goldens of one operation of each protocol (tests/wireshark/golden/). For
# each capture: every packet dissected as Greybus with no malformed mark and no unknown
# CPort or type, every response paired with its request; in the demo each protocol shows
# its fields and no expert info is raised at all. Its timeline is checked too (valid JSON,
# trace-event fields, time rising per track, every slice closed).
#   [FIELDS="f1 f2"] capture_test.sh --check PCAP [TRACE.json]
#       checks only that capture (and timeline, and that some packet shows each field), as
#       tests/integration/run_test.sh does for the guest demo
# Prints "wireshark-captures: N passed, N failed"; without tshark it says so and passes.
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
lua=tools/wireshark/greybus.lua
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "wireshark-captures: FAIL - $*"; }
if ! command -v tshark >/dev/null 2>&1; then
    echo "wireshark-captures: 0 passed, 0 failed (tshark not installed)"
    exit 0
fi
[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { echo "cannot build $gbvp"; exit 1; }
d=$(mktemp -d /tmp/gbvp-wireshark.XXXXXX)
ts() { tshark -n -2 -X "lua_script:$lua" -r "$@" 2>"$d/tshark.err"; }
count() { ts "$1" -Y "$2" | wc -l; }

check_capture() { # NAME FILE [strict]
    local name=$1 f=$2 strict=${3:-}
    local packets greybus
    packets=$(capinfos -c -M "$f" 2>/dev/null | sed -n 's/.*packets: *//p')
    greybus=$(count "$f" greybus)
    if [ -n "$packets" ] && [ "$packets" -gt 0 ] && [ "$greybus" = "$packets" ]; then ok; else
        bad "$name: $greybus of ${packets:-?} packets dissected as Greybus"; fi
    if grep -v '^Running as user' "$d/tshark.err" | grep -q .; then
        bad "$name: tshark said: $(grep -v '^Running as user' "$d/tshark.err" | head -n 3)"
    else ok; fi
    local malformed unknown
    malformed=$(count "$f" _ws.malformed)
    unknown=$(ts "$f" -Y _ws.expert -T fields -e _ws.expert.message | grep -ciE 'unknown|no request' || true)
    [ "$malformed" -eq 0 ] && [ "$unknown" -eq 0 ] && ok ||
        bad "$name: $malformed malformed, $unknown unknown-type/CPort or unpaired marks"
    local responses paired
    responses=$(count "$f" 'greybus.response == 1')
    paired=$(count "$f" 'greybus.response == 1 && greybus.request_in')
    [ "$responses" -gt 0 ] && [ "$responses" = "$paired" ] && ok ||
        bad "$name: $paired of $responses responses paired with their request"
    if [ -n "$strict" ]; then
        local experts
        experts=$(count "$f" _ws.expert)
        [ "$experts" -eq 0 ] && ok || bad "$name: $experts packets with expert info: $(ts "$f" \
            -Y _ws.expert -T fields -e _ws.expert.message | sort | uniq -c | head -n 3)"
    fi
}

check_trace() { # NAME FILE
    local out
    if out=$(python3 - "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
last, slices = {}, 0
for e in ev:
    for k in ("ph", "name", "pid"):
        assert k in e, f"an event without {k}: {e}"
    if e["ph"] == "M":
        continue
    assert isinstance(e["ts"], (int, float)), e
    key = (e["pid"], e.get("tid", 0))
    assert e["ts"] >= last.get(key, -1), f"time goes back on track {key}: {e}"
    last[key] = e["ts"]
    if e["ph"] == "X":
        slices += 1
        assert e["dur"] >= 0 and "result" in e["args"], e
    assert e["ph"] in "XiCM", e
assert slices > 0, "no operation"
print(slices)
EOF
    ); then ok; else bad "$1: timeline $2: $out"; fi
}

if [ "${1:-}" = --check ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--check PCAP [TRACE.json]]" >&2; exit 2; }
    check_capture "$2" "$2"
    [ $# -ge 3 ] && check_trace "$3" "$3"
    for field in ${FIELDS:-}; do # each protocol the run used shows its fields
        [ "$(count "$2" "$field")" -gt 0 ] && ok || bad "$2: no packet shows $field"
    done
    [ "$failed" -eq 0 ] && rm -rf "$d"
    echo "wireshark-captures: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi

# every scenario on the test AP; three on the frame-level model
for scn in scenarios/*.lua; do
    n=$(basename "$scn" .lua)
    extra=()
    [ "$n" = demo ] && extra=(--trace "$d/demo.json")
    "$gbvp" scenario "$scn" --pcap "$d/$n.pcapng" "${extra[@]}" >"$d/$n.tap" 2>&1 ||
        bad "$n: the scenario failed: $(tail -n 2 "$d/$n.tap")"
    check_capture "$n" "$d/$n.pcapng" $([ "$n" = demo ] && echo strict)
done
for n in hotplug_basic loopback_throughput uart_echo; do
    "$gbvp" scenario "scenarios/$n.lua" --target gbvp-sim --timing frame \
        --pcap "$d/$n-frame.pcapng" --trace "$d/$n-frame.json" >"$d/$n-frame.tap" 2>&1 ||
        bad "$n on gbvp-sim: $(tail -n 2 "$d/$n-frame.tap")"
    check_capture "$n-frame" "$d/$n-frame.pcapng"
    check_trace "$n-frame" "$d/$n-frame.json"
done
check_trace demo "$d/demo.json"

# --pcap-frames: the data link beside the messages (bit errors: CRC errors, NACs, replays)
"$gbvp" scenario scenarios/link_fault_traffic.lua --target gbvp-sim --timing frame \
    --pcap "$d/frames.pcapng" --pcap-frames >"$d/frames.tap" 2>&1 ||
    bad "link_fault_traffic with frames: $(tail -n 2 "$d/frames.tap")"
total=$(capinfos -c -M "$d/frames.pcapng" 2>/dev/null | sed -n 's/.*packets: *//p')
msgs=$(count "$d/frames.pcapng" 'gbvp.kind == 0')
frames=$(count "$d/frames.pcapng" 'gbvp.kind == 1')
dissected=$(count "$d/frames.pcapng" 'greybus')
[ "$frames" -gt "$msgs" ] && [ $((msgs + frames)) = "$total" ] && [ "$dissected" = "$msgs" ] && ok ||
    bad "frames: $msgs messages ($dissected dissected) and $frames frames of $total records"
for f in 'gbvp.dl.type == 0' 'gbvp.dl.type == 1' 'gbvp.dl.type == 2' 'gbvp.dl.crc_error == 1' \
         'gbvp.dl.replay == 1'; do
    [ "$(count "$d/frames.pcapng" "$f")" -gt 0 ] && ok || bad "frames: no record with $f"
done
[ "$(count "$d/frames.pcapng" '_ws.malformed || _ws.expert')" -eq 0 ] && ok ||
    bad "frames: malformed or flagged records"

# live: tshark reads a FIFO the simulator writes as it runs (wireshark -k -i FIFO the same)
mkfifo "$d/live.fifo"
tshark -n -X "lua_script:$lua" -i "$d/live.fifo" >"$d/live.out" 2>"$d/live.err" &
reader=$!
"$gbvp" scenario scenarios/hotplug_basic.lua --pcap "$d/live.fifo" >"$d/live.tap" 2>&1
for _ in $(seq 1 100); do kill -0 "$reader" 2>/dev/null || break; sleep 0.1; done
kill "$reader" 2>/dev/null
live=$(grep -c ' Greybus ' "$d/live.out")
want=$(capinfos -c -M "$d/hotplug_basic.pcapng" 2>/dev/null | sed -n 's/.*packets: *//p')
[ "$live" -gt 0 ] && [ "$live" = "$want" ] && ok ||
    bad "live through a FIFO: tshark decoded $live of $want packets ($(tail -n 2 "$d/live.err"))"

# the demo shows every protocol it uses with its fields
for field in greybus.svc.endo_id greybus.control.manifest_size greybus.manifest.desc_size \
             greybus.gpio.value greybus.i2c.functionality greybus.psy.id greybus.hid.length \
             greybus.loopback.data greybus.uart.data; do
    [ "$(count "$d/demo.pcapng" "$field")" -gt 0 ] && ok || bad "demo: no packet shows $field"
done

# goldens: one operation of each protocol, request and response (UPDATE=1 rewrites them)
while read -r name filter; do
    [ -z "$name" ] || [ "${name#\#}" != "$name" ] && continue
    if tests/wireshark/golden.sh "$d/demo.pcapng" "$filter" "tests/wireshark/golden/$name.txt" \
        >"$d/golden.out" 2>&1; then ok; else bad "golden $name: $(head -n 20 "$d/golden.out")"; fi
done <tests/wireshark/golden/list

[ "$failed" -eq 0 ] && rm -rf "$d" || echo "wireshark-captures: files kept in $d"
echo "wireshark-captures: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
