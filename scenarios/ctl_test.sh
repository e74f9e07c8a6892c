#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `gbvp ctl` against a simulator serving its control socket (gbvp scenario --control, the
# test AP, no script): replies, exit statuses, events to a watcher, the socket's mode; and
# other front ends' refusals of bad options (gbvp agent, gbvp model, gbvp sim).
# Run by `make scenarios`. Prints "ctl: N passed, N failed".
set -u
gbvp=${1:-build/gbvp}
d=$(mktemp -d /tmp/gbvp-ctl-test.XXXXXX)
sock=$d/ctl.sock
passed=0 failed=0
# Every check ends in ok or bad; a check that ends in neither (a helper broken so it returns
# without a verdict, a script cut short) would pass unseen, so the total is planned, as TAP
# plans its tests. Add to it with each new check.
planned=82
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "ctl: FAIL - $*"; }
expect() { # expect NAME WANT-STATUS WANT-TEXT CTL-ARGS...
    local name=$1 want_rc=$2 want=$3; shift 3
    local out rc
    out=$("$gbvp" ctl --socket "$sock" "$@" 2>&1); rc=$?
    if [ "$rc" -eq "$want_rc" ] && grep -qF -- "$want" <<<"$out"; then ok; else
        bad "$name: status $rc, output: $out"; fi
}

"$gbvp" scenario --control "$sock" 2>"$d/sim.log" &
sim=$!
for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] && ok || bad "the control socket appears"
[ "$(stat -c %a "$sock")" = 600 ] && ok || bad "the socket has mode 0600"
# a second simulator must not take a live one's socket: refused, naming the holder
out=$("$gbvp" scenario --control "$sock" 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -q "is held by a running simulator (pid $sim)" <<<"$out" && ok ||
    bad "a second simulator on a live socket: status $rc, $out"
expect "the first still answers" 0 '"pong":true' ping
# a stale socket file (its simulator gone) is taken over
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$d/stale.sock"
"$gbvp" scenario --control "$d/stale.sock" 2>"$d/stale.log" &
stale=$!
for _ in $(seq 1 100); do "$gbvp" ctl --socket "$d/stale.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
"$gbvp" ctl --socket "$d/stale.sock" ping >/dev/null 2>&1 && ok || bad "a stale socket is taken over: $(cat "$d/stale.log")"
kill "$stale"; wait "$stale"

"$gbvp" ctl --socket "$sock" --count 4 --timeout 20 watch module interface >"$d/events" 2>&1 &
watcher=$!
sleep 0.3
expect "ping" 0 '"pong":true' ping
expect "capture" 0 '"capturing":true,"ok":true' capture file="$d/live.pcapng"
expect "trace" 0 '"tracing":true,"ok":true' trace file="$d/live.json"
expect "insert" 0 '"interface":2,"ok":true' insert slot=0 module=sensor
expect "insert into an occupied slot fails" 1 'slot 0 is occupied' insert slot=0 module=sensor
expect "gpio_set" 0 '"irq_sent":false' gpio_set slot=0 line=1 level=1
expect "gpio_get" 0 '"value":1' gpio_get slot=0 line=1
expect "raw JSON" 0 '"id":"x","ok":true' --json '{"cmd":"wait","ms":2500,"id":"x"}'
expect "bad field type" 1 "field 'slot' must be an integer" --json '{"cmd":"remove","slot":"0"}'
expect "no link model without timing" 1 'has no UniPro link model' link slot=0 gear=HS-G2B
expect "no link_stats without timing" 1 'has no UniPro link model' link_stats slot=0
expect "remove" 0 '"ok":true' remove slot=0
expect "capture stop" 0 '"capturing":false,"ok":true' capture stop=true
expect "trace stop" 0 '"tracing":false,"ok":true' trace stop=true
python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['traceEvents']; sys.exit(0 if any(x['ph']=='X' for x in e) else 1)" \
    "$d/live.json" && ok || bad "the live timeline is trace-event JSON with operations"
expect "trace into a missing folder" 1 "No such file or directory" trace file=/nonexistent/x.json
[ "$(head -c 4 "$d/live.pcapng" | od -An -tx1 | tr -d ' ')" = 0a0d0d0a ] &&
    [ "$(stat -c %s "$d/live.pcapng")" -gt 2000 ] && ok || bad "the live capture holds a pcapng section"
expect "capture needs a file or stop" 1 "missing field 'file'" capture
expect "capture stop must be true" 1 "field 'stop' must be true" capture stop=false
expect "capture into a missing folder" 1 "No such file or directory" capture file=/nonexistent/x.pcapng
expect "unknown command" 1 "unknown command 'reboot'" reboot
# a scenario in another process drives this simulator through the socket (gbvp run does)
out=$("$gbvp" scenario scenarios/hotplug_basic.lua --connect "$sock" 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -q '^# [1-9][0-9]* passed, 0 failed' <<<"$out" && ! grep -q SKIP <<<"$out" && ok ||
    bad "scenario --connect: status $rc, output: $(tail -n 5 <<<"$out")"
out=$("$gbvp" scenario scenarios/hotplug_basic.lua --connect "$d/none.sock" 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -q "cannot connect to the control socket $d/none.sock" <<<"$out" && ok ||
    bad "scenario --connect to nothing: status $rc, output: $out"
wait "$watcher"
for ev in '"event":"module_inserted","slot":0,"interface":2,"module":"sensor"' \
          '"event":"interface_activated","interface":2' '"event":"module_removed","slot":0' \
          '"event":"interface_deactivated","interface":2'; do
    grep -qF "$ev" "$d/events" && ok || bad "watcher saw $ev: $(cat "$d/events")"
done
kill "$sim"
wait "$sim"
[ ! -e "$sock" ] && ok || bad "the socket file is removed at exit"
"$gbvp" ctl --socket "$sock" ping >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "no simulator: exit status 2"
# other front ends refuse what they cannot do, saying so
out=$("$gbvp" agent --socket "$d/none" --wait-ready -- ls 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "wait-ready runs no command, but 'ls' was given" <<<"$out" && ok ||
    bad "agent --wait-ready with a command: status $rc, $out"
out=$("$gbvp" model --gear --lanes 2 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--gear needs a value (got the option --lanes)" <<<"$out" && ok ||
    bad "model --gear --lanes 2: status $rc, $out"
# bad options: refused at once (status 2) naming the problem, nothing started
refused_at_once() { # refused_at_once WANT COMMAND...
    local want=$1 out rc; shift
    out=$(timeout 20 "$gbvp" "$@" </dev/null 2>&1); rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$want" <<<"$out" && ok || bad "$*: status $rc, $out"
}
sim_refused() { local want=$1; shift; refused_at_once "$want" sim "$@"; }
sim_refused "--cports 1: want a number from 2 to 255" --cports 1
sim_refused "--cports 256: want a number from 2 to 255" --cports 256
sim_refused "--spin 2000: want microseconds, 0..1000" --spin 2000
sim_refused "--cpus: the range 1-0 in CPU list '1-0' runs backwards" --cpus 1-0
# --stats is opened at start: a path that cannot take the statistics is refused before the
# run, not found at its end; a simulator that does not start leaves an existing file alone
sim_refused "--stats $d: Is a directory" --stats "$d"
sim_refused "--stats $d/no/s.json: No such file or directory" --stats "$d/no/s.json"
sim_refused "--stats $d/s.json: --timing off keeps no model statistics" --stats "$d/s.json" --timing off
echo earlier >"$d/keep.json"
out=$(timeout 10 "$gbvp" sim --stats "$d/keep.json" --control "$d/no/c.sock" --link "$d/k.sock" </dev/null 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$(cat "$d/keep.json")" = earlier ] && [ ! -e "$d/s.json" ] && ok ||
    bad "a simulator that does not start keeps the --stats file: status $rc, $(cat "$d/keep.json"), $out"
# --junit likewise, in gbvp scenario, test and run: refused before anything runs
refused_at_once "cannot write $d/no/j.xml: No such file or directory" \
    scenario --junit "$d/no/j.xml" scenarios/demo.lua
refused_at_once "--junit $d: Is a directory" test --junit "$d" scenarios/demo.lua
refused_at_once "--junit $d/no/j.xml: No such file or directory" \
    run --scenario demo --junit "$d/no/j.xml"
# a refused run leaves no --log-dir behind; a report may go into gbvp test's new
# --artifacts folder; /dev/null takes a report (nothing to empty)
out=$(timeout 20 "$gbvp" run --scenario demo --log-dir "$d/logs" --junit "$d/no/j.xml" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$d/logs" ] && ok || bad "run refused with --log-dir: status $rc, $(ls "$d"), $out"
out=$(timeout 60 "$gbvp" test --artifacts "$d/art" --junit "$d/art/junit.xml" scenarios/demo.lua 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -q '<testsuites>' "$d/art/junit.xml" && ok ||
    bad "test --junit into a new --artifacts: status $rc, $out"
out=$(timeout 60 "$gbvp" scenario --junit /dev/null scenarios/demo.lua 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 0 ] && ok || bad "scenario --junit /dev/null: status $rc, $out"
refused_at_once "--log-dir $d/keep.json: Not a directory" \
    run --scenario demo --log-dir "$d/keep.json"
refused_at_once "--log-dir $d/no/logs: No such file or directory" \
    run --scenario demo --log-dir "$d/no/logs"
# a run refused by a later check leaves an existing --tap file as it was, makes no new one
echo earlier >"$d/keep.tap"
out=$(timeout 20 "$gbvp" run --scenario demo --tap "$d/keep.tap" --log-dir "$d/no/logs" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ "$(cat "$d/keep.tap")" = earlier ] && ok ||
    bad "a refused run keeps the --tap file: status $rc, $(cat "$d/keep.tap"), $out"
out=$(timeout 20 "$gbvp" run --scenario demo --tap "$d/new.tap" --junit "$d/no/j.xml" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$d/new.tap" ] && ok || bad "a refused run made --tap $d/new.tap: status $rc, $out"
# a watch that ends before its --count (the simulator stopped) fails and says why
"$gbvp" sim --control "$d/w.ctl" --link "$d/w.sock" </dev/null 2>/dev/null &
w_sim=$!
for _ in $(seq 1 100); do [ -S "$d/w.ctl" ] && break; sleep 0.05; done
"$gbvp" ctl --socket "$d/w.ctl" --count 100 watch module >"$d/w.out" 2>&1 &
w=$!
# (insert and remove until the watch, subscribed at some point, has seen an event)
for _ in $(seq 1 100); do
    "$gbvp" ctl --socket "$d/w.ctl" insert slot=0 module=sensor >/dev/null 2>&1
    sleep 0.1
    grep -q '"event"' "$d/w.out" && break
    "$gbvp" ctl --socket "$d/w.ctl" remove slot=0 >/dev/null 2>&1
done
kill "$w_sim"; wait "$w_sim"
wait "$w"; rc=$?
[ "$rc" -eq 1 ] &&
    grep -qE "watch ended after [1-9][0-9]* of 100 events: the simulator closed the connection" "$d/w.out" && ok ||
    bad "a watch cut short: status $rc, $(cat "$d/w.out")"
# ... and one that runs replaces it with the statistics when it stops
"$gbvp" sim --stats "$d/keep.json" --control "$d/k.ctl" --link "$d/k.sock" </dev/null 2>"$d/k.log" &
k=$!
for _ in $(seq 1 100); do [ -S "$d/k.ctl" ] && break; sleep 0.05; done
kill -TERM "$k"; wait "$k"; rc=$?
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(not ("time_ps" in j and "directions" in j))' \
    "$d/keep.json" 2>/dev/null && [ "$rc" -eq 0 ] && ok ||
    bad "--stats written at exit: status $rc, $(head -c 200 "$d/keep.json"), $(tail -n 3 "$d/k.log")"
# link and fault on the gbvp-sim target with the UniPro timing model
sock=$d/timing.sock
"$gbvp" scenario --control "$sock" --target gbvp-sim --timing frame 2>"$d/timing.log" &
sim=$!
for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.05; done
expect "timing: insert" 0 '"interface":2,"ok":true' insert slot=0 module=loopback
expect "timing: link" 0 '"ok":true' link slot=0 gear=HS-G2B lanes=2
expect "timing: bad gear" 1 'HS-G9' link slot=0 gear=HS-G9
expect "timing: ber" 0 '"ok":true' fault slot=0 ber=1e-6
expect "timing: ber out of range" 1 'bit error rate 0.5 outside' fault slot=0 ber=0.5
expect "timing: not a number" 1 "field 'ber' is 'x', not a number" fault slot=0 ber=x
expect "timing: down" 0 '"ok":true' fault slot=0 down=true
expect "timing: up" 0 '"ok":true' fault slot=0 down=false
expect "timing: nothing to do" 1 'nothing to do' fault slot=0
expect "timing: link without traffic" 1 'carried no traffic' link slot=3 gear=HS-G1A
expect "timing: the AP's own link" 0 '"ok":true' link slot=ap gear=HS-G3B lanes=2
expect "timing: a fault on the AP's link" 0 '"ok":true' fault slot=ap ber=1e-7
expect "timing: slot neither number nor ap" 1 'slot number or \"ap\"' link slot=apx gear=HS-G1A
expect "timing: wait for the mode change" 0 '"ok":true' wait ms=1
expect "timing: link_stats" 0 '"mode":"HS-G2B x2","state":"up"' link_stats slot=0
expect "timing: link_stats of the AP" 0 '"mode":"HS-G3B x2"' link_stats slot=ap
# (the test AP's transport keeps simulated time moving while messages wait on a link that
# is down, up to 2 s: down_for is longer than that)
expect "timing: down for 5 s" 0 '"ok":true' fault slot=0 down=true down_for=5000
expect "timing: down now" 0 '"state":"down"' link_stats slot=0
expect "timing: wait past down_for" 0 '"ok":true' wait ms=5100
expect "timing: up again" 0 '"state":"up"' link_stats slot=0
# (simulated time here follows the wall clock between requests: the delay is far longer
# than the few milliseconds one `gbvp ctl` takes, even on a loaded machine)
expect "timing: down later" 0 '"ok":true' fault slot=0 down=true delay=2000
expect "timing: not down before the delay" 0 '"state":"up"' link_stats slot=0
expect "timing: wait past the delay" 0 '"ok":true' wait ms=2100
expect "timing: down after the delay" 0 '"state":"down"' link_stats slot=0
expect "timing: down_for needs down" 1 'down_for goes with down = true' fault slot=0 ber=0 down_for=5
expect "timing: delay out of range" 1 "field 'delay' is -1 ms, want 0..3600000" fault slot=0 down=false delay=-1
kill "$sim"
wait "$sim"
[ $((passed + failed)) -eq "$planned" ] ||
    bad "$((passed + failed)) checks gave a verdict, $planned are planned: one ran without one, or the plan is stale"
[ "$failed" -eq 0 ] && rm -rf "$d" || echo "ctl: logs in $d"
echo "ctl: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
