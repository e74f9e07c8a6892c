#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Lockstep (docs/timing-in-sim.md): QEMU counts instructions (-icount) and the simulator
# follows its virtual clock through gblink time grants, so a run is a function of its
# scenario and seed.
#   - scenarios/lockstep_replay.lua (modules in and out at instants drawn from the seed,
#     enumeration over the modelled links, the guest's view read at the end) run twice with
#     one seed gives byte-identical dmesg.log (virtual-time stamps) and sim.log (but for the
#     run folder's name), the second run with four CPU-burning processes beside it (twice
#     the machine's cores: the vCPU thread and QEMU's main loop are preempted at random
#     points, where a race between them would show); another
#     seed, or another link gear, changes them; the scenario's output, with a command run in
#     the guest mid-run and the guest's nanosecond clock it reports, is identical too;
#   - the round trip gb_loopback measures (scenarios/lockstep_latency.lua) lies within the
#     bound derived below from the model's prediction at PWM-G1 x1 and HS-G3B x2;
#   - a failing run prints the command line that reproduces it, and that line does;
#   - the simulator's clock stays at 0 under --held until a client drives it;
#   - what cannot keep one clock is refused with a reason: a device without -icount, a
#     device in lockstep against a simulator that is not, and the reverse; a simulator that
#     stops granting time (SIGSTOP) has the bridge unplugged after grant-timeout-ms while
#     the guest runs on.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
gbvp=$(realpath "$gbvp")
scripts/build-qemu.sh >"$run_dir/build-qemu.log" 2>&1 ||
    { not_ok "scripts/build-qemu.sh" "$(tail -n 20 "$run_dir/build-qemu.log")"; finish; }
export XDG_RUNTIME_DIR=$run_dir/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"

# run NAME ARGS...: gbvp run --lockstep of the replay scenario, logs in run_dir/NAME
run() {
    local name=$1; shift
    local t0; t0=$(now_ms)
    "$gbvp" run --lockstep --scenario scenarios/lockstep_replay.lua --log-dir "$run_dir/$name" \
        "$@" >"$run_dir/$name.out" 2>&1
    local rc=$?
    echo "       ($name: $(secs $(($(now_ms) - t0))) s, status $rc)"
    return $rc
}
# The simulator's log with the run folder's name (which holds a pid) made neutral.
sim_log() { sed -E 's#/[^ ]*/run-[0-9]+\.[A-Za-z0-9]+#RUNDIR#g' "$run_dir/$1/sim.log"; }
same() { # same A B FILE
    if [ "$3" = sim.log ]; then cmp -s <(sim_log "$1") <(sim_log "$2"); else
        cmp -s "$run_dir/$1/$3" "$run_dir/$2/$3"; fi
}

# --- one seed, twice (the second under load); another seed; another gear -----------------
check "lockstep run, seed 7" run a --seed 7
start_burners 4
check "the same run with four CPU-burning processes beside it" run b --seed 7
stop_burners
check "lockstep run, seed 8" run c --seed 8
check "lockstep run, seed 7, links at HS-G3B" run d --seed 7 --set gear=HS-G3B
if [ -s "$run_dir/a/dmesg.log" ] && grep -qE '^\[ *[0-9]+\.[0-9]{6}\] greybus 1-[0-9.]+: Interface added' "$run_dir/a/dmesg.log"; then
    ok "dmesg.log holds the guest's kernel log with its time stamps ($(wc -l <"$run_dir/a/dmesg.log") lines)"
else
    not_ok "dmesg.log holds the guest's kernel log with its time stamps" "$(head -5 "$run_dir/a/dmesg.log" 2>&1)"
fi
# the scenario's own lines (a guest command mid-run, with the guest's clock), without the
# wall-clock column
tap() { sed -n 's/^\[ *[0-9.]*\] //p' "$run_dir/$1.out" | grep -v "^simulator: \|^logs copied\|^guest up\|RUNDIR\|/run-[0-9]"; }
if cmp -s <(tap a) <(tap b) && grep -q "guest mid-run at .* now at [0-9]* nsecs" "$run_dir/a.out" && grep -q "# stats: [1-9]" "$run_dir/a.out"; then
    ok "same seed: the scenario's output identical (a guest command's answer and clock mid-run, the simulator's statistics)"
else
    not_ok "same seed: the scenario's output identical" "$(diff <(tap a) <(tap b) | head -6)"
fi
for f in dmesg.log sim.log; do
    if same a b "$f"; then
        ok "same seed, one under load: $f identical"
    else
        not_ok "same seed, one under load: $f identical" \
            "$(diff <(if [ $f = sim.log ]; then sim_log a; else cat "$run_dir/a/$f"; fi) \
                     <(if [ $f = sim.log ]; then sim_log b; else cat "$run_dir/b/$f"; fi) | head -10)"
    fi
    if ! same a c "$f"; then ok "another seed: $f differs"; else not_ok "another seed: $f differs"; fi
    if ! same a d "$f"; then ok "another link gear: $f differs"; else not_ok "another link gear: $f differs"; fi
done
if grep -q "lockstep: [0-9]* barriers, [0-9]* grants" "$run_dir/a/sim.log" &&
   [ "$(grep -c "insert .* at" "$run_dir/a.out")" -eq 3 ]; then
    ok "the simulator counted its barriers and grants; the scenario inserted at 3 instants"
else
    not_ok "barrier counts and 3 insertions" "$(tail -5 "$run_dir/a/sim.log")"
fi

# --- the model's timing reaches the guest: gb_loopback's round trip at two gears -----------
# G(gear), the guest's average ping round trip, is max(M + e, W) + c: M the model's round trip
# (last request + last response latency), e in [0, Q) the quantum's delay of the response,
# c the guest's own software time around the request, W its work after sending, which
# overlaps the network. At HS-G3B x2, M is under a microsecond: S = G - M there is the
# guest's whole software time (c + W). Then for a slower gear M <= G <= M + S + Q (+1 us:
# gb_loopback truncates to whole microseconds), and G moves with M.
q_ns=10000
latency() { # latency NAME GEAR LANES -> "GUEST_AVG MODEL_RTT" (us)
    "$gbvp" run --lockstep --quantum $q_ns --set gear="$2" --set lanes="$3" \
        --scenario scenarios/lockstep_latency.lua >"$run_dir/$1.out" 2>&1 || return 1
    sed -n 's/.*# latency .*avg \([0-9.]*\) max.*model round trip \([0-9.]*\) us.*/\1 \2/p' "$run_dir/$1.out"
}
if pwm=$(latency lat-pwm PWM-G1 1) && hs=$(latency lat-hs HS-G3B 2) && [ -n "$pwm" ] && [ -n "$hs" ]; then
    verdict=$(awk -v q=$((q_ns / 1000)) -v pwm="$pwm" -v hs="$hs" 'BEGIN {
        split(pwm, p, " "); split(hs, h, " ")
        s = h[1] - h[2]
        ok = p[1] >= p[2] - 1 && p[1] <= p[2] + s + q + 1 && h[1] >= h[2] - 1 && p[1] - h[1] > 0
        printf "%s PWM-G1 x1: guest %.1f us, model %.1f us; HS-G3B x2: guest %.1f us, model %.2f us; guest software time S = %.1f us, bound for PWM-G1: [%.1f, %.1f] us (Q = %d us); guest difference %.1f us, model difference %.1f us\n",
            ok ? "ok" : "bad", p[1], p[2], h[1], h[2], s, p[2], p[2] + s + q + 1, q, p[1] - h[1], p[2] - h[2] }')
    if [[ $verdict == ok* ]]; then
        ok "gb_loopback's round trip follows the model: ${verdict#ok }"
    else
        not_ok "gb_loopback's round trip follows the model" "${verdict#bad }"
    fi
else
    not_ok "gb_loopback's round trip at PWM-G1 x1 and HS-G3B x2" "$(tail -5 "$run_dir/lat-pwm.out" "$run_dir/lat-hs.out" 2>&1)"
fi

# --- a failing run prints how to reproduce it; that line does ------------------------------
cat >"$run_dir/fails.lua" <<'EOF'
gbvp.wait(100 + gbvp.random(0, 200))
gbvp.insert(0, "sensor")
gbvp.wait(1500)
gbvp.check(false, "fails on purpose")
EOF
"$gbvp" run --lockstep --scenario "$run_dir/fails.lua" --log-dir "$run_dir/f1" >"$run_dir/f1.out" 2>&1
rc=$?
line=$(sed -n 's/^\[ *[0-9.]*\] reproduce it exactly with: //p' "$run_dir/f1.out")
if [ "$rc" -eq 1 ] && [[ $line == "gbvp run --lockstep --scenario $run_dir/fails.lua --log-dir $run_dir/f1 --seed 1" ]]; then
    ok "a failed lockstep run prints the command line that reproduces it"
else
    not_ok "a failed lockstep run prints the command line that reproduces it (status $rc)" "$line" "$(tail -5 "$run_dir/f1.out")"
fi
cp -r "$run_dir/f1" "$run_dir/f1-first"
eval "\"$gbvp\" ${line#gbvp }" >"$run_dir/f2.out" 2>&1
if [ -s "$run_dir/f1/dmesg.log" ] && cmp -s "$run_dir/f1-first/dmesg.log" "$run_dir/f1/dmesg.log" &&
   cmp -s <(sim_log f1-first) <(sim_log f1); then
    ok "the printed command line reproduces the failed run: same dmesg.log and sim.log"
else
    not_ok "the printed command line reproduces the failed run" "$(diff "$run_dir/f1-first/dmesg.log" "$run_dir/f1/dmesg.log" | head -6)"
fi

# --- the pieces by hand: held clock, refusals, a simulator that stops granting ------------
mkdir -p "$run_dir/m"
"$gbvp" sim --clock lockstep --held --link "$run_dir/m/gbvp.sock" --control "$run_dir/m/ctl.sock" \
    --insert 0:sensor </dev/null >"$run_dir/m/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 1 100); do [ -S "$run_dir/m/ctl.sock" ] && break; sleep 0.05; done
qemu_args=(--background --dir "$run_dir/m" --device qemu-xhci,id=xhci)
scripts/run-guest.sh "${qemu_args[@]}" --icount 3 \
    --device "greybus-es2,link=$run_dir/m/gbvp.sock,lockstep=on,grant-timeout-ms=4000" >"$run_dir/m/run.out" 2>&1
qemu_pid=$(sed -n 's/^qemu pid: //p' "$run_dir/m/run.out")
sleep 0.5
t1=$("$gbvp" ctl --socket "$run_dir/m/ctl.sock" ping 2>&1); sleep 1
t2=$("$gbvp" ctl --socket "$run_dir/m/ctl.sock" ping 2>&1)
if [[ $t1 == *'"time_ps":0,'* && $t2 == *'"time_ps":0,'* ]] && grep -q "lockstep" "$run_dir/m/sim.log"; then
    ok "--held: the clock stays at 0 while QEMU waits and no client drives it"
else
    not_ok "--held: the clock stays at 0 until driven" "$t1" "$t2"
fi
# a driving client that leaves lets the clock run
d=$(timeout 60 /usr/bin/python3 - "$run_dir/m/ctl.sock" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
for line in ('{"id":1,"cmd":"drive"}', '{"id":2,"cmd":"wait","ms":50}'):
    f.write(line + "\n")
    f.flush()
    print(f.readline().strip())
EOF
)
for _ in $(seq 1 200); do grep -q "Interface added\|greybus.*added" "$run_dir/m/console.log" 2>/dev/null && break; sleep 0.1; done
t3=$("$gbvp" ctl --socket "$run_dir/m/ctl.sock" ping 2>&1)
if [[ $d == *'"driving":true'* && $t3 != *'"time_ps":0,'* ]] && grep -q "greybus 1-2.2: Interface added" "$run_dir/m/console.log"; then
    ok "drive, wait, leave: the clock runs and the guest enumerates the sensor"
else
    not_ok "drive, wait, leave: the clock runs and the guest enumerates the sensor" "$d" "$t3" "$(tail -3 "$run_dir/m/console.log")"
fi
kill -STOP "$sim_pid"
for _ in $(seq 1 150); do grep -q "no time grant for 4000 ms" "$run_dir/m/qemu.log" && break; sleep 0.1; done
sleep 2
if grep -q "no time grant for 4000 ms at virtual [1-9]" "$run_dir/m/qemu.log" &&
   grep -q "greybus-es2: bridge unplugged" "$run_dir/m/qemu.log" && kill -0 "$qemu_pid" 2>/dev/null &&
   grep -q "USB disconnect" "$run_dir/m/console.log"; then
    ok "a simulator that stops granting: the bridge is unplugged after 4 s, the guest runs on"
else
    not_ok "a simulator that stops granting: bridge unplugged, guest runs on" "$(tail -4 "$run_dir/m/qemu.log")" "$(tail -3 "$run_dir/m/console.log")"
fi
kill -CONT "$sim_pid"
kill "$qemu_pid" "$sim_pid" 2>/dev/null
wait "$sim_pid" 2>/dev/null
qemu_pid= sim_pid=

# refusals
out=$(scripts/run-guest.sh --dir "$run_dir/r1" --device qemu-xhci --device "greybus-es2,link=$run_dir/none.sock,lockstep=on" 2>&1)
if grep -q "lockstep=on needs QEMU's virtual clock to count instructions: run with -icount" <<<"$out"; then
    ok "lockstep=on without -icount: refused at start with what to add"
else
    not_ok "lockstep=on without -icount: refused at start" "$(tail -3 <<<"$out")"
fi
mkdir -p "$run_dir/r2"
"$gbvp" sim --link "$run_dir/r2/gbvp.sock" --control "$run_dir/r2/ctl.sock" </dev/null >"$run_dir/r2/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 1 100); do [ -S "$run_dir/r2/gbvp.sock" ] && break; sleep 0.05; done
out=$(timeout 60 scripts/run-guest.sh --dir "$run_dir/r2" --icount 3 --device qemu-xhci \
      --device "greybus-es2,link=$run_dir/r2/gbvp.sock,lockstep=on" 2>&1)
if grep -q "the simulator at .* does not run in lockstep; start it with gbvp sim --clock lockstep" <<<"$out"; then
    ok "a lockstep device against a realtime simulator: refused at start with a reason"
else
    not_ok "a lockstep device against a realtime simulator: refused" "$(tail -3 <<<"$out")"
fi
kill "$sim_pid"; wait "$sim_pid" 2>/dev/null
mkdir -p "$run_dir/r3"
"$gbvp" sim --clock lockstep --link "$run_dir/r3/gbvp.sock" --control "$run_dir/r3/ctl.sock" </dev/null >"$run_dir/r3/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 1 100); do [ -S "$run_dir/r3/gbvp.sock" ] && break; sleep 0.05; done
scripts/run-guest.sh --background --dir "$run_dir/r3" --device qemu-xhci \
    --device "greybus-es2,link=$run_dir/r3/gbvp.sock" >"$run_dir/r3/run.out" 2>&1
qemu_pid=$(sed -n 's/^qemu pid: //p' "$run_dir/r3/run.out")
for _ in $(seq 1 100); do grep -q "does not offer lockstep" "$run_dir/r3/sim.log" && break; sleep 0.1; done
if grep -q "error: bridge: QEMU's greybus-es2 does not offer lockstep.*give the device lockstep=on" "$run_dir/r3/sim.log" &&
   kill -0 "$sim_pid" 2>/dev/null; then
    ok "a lockstep simulator against a device without lockstep: the link is refused with a reason"
else
    not_ok "a lockstep simulator against a realtime device: refused" "$(tail -3 "$run_dir/r3/sim.log")"
fi
kill "$qemu_pid" "$sim_pid" 2>/dev/null; wait "$sim_pid" 2>/dev/null

# A lockstep device whose simulator dies and is replaced by a realtime one: the guest runs on
# (never parked at a barrier waiting for grants a realtime simulator does not give), the
# device says why it stays unplugged, and a lockstep simulator started later is taken.
r4=$run_dir/r4
mkdir -p "$r4"
sim4() { "$gbvp" sim "$@" --link "$r4/gbvp.sock" --control "$r4/ctl.sock" --slots 2 </dev/null >>"$r4/sim.log" 2>&1 & sim_pid=$!; }
sim4 --clock lockstep
for _ in $(seq 1 100); do [ -S "$r4/gbvp.sock" ] && break; sleep 0.05; done
scripts/run-guest.sh --background --dir "$r4" --icount 3 --device qemu-xhci \
    --device "greybus-es2,link=$r4/gbvp.sock,lockstep=on" >"$r4/run.out" 2>&1
qemu_pid=$(sed -n 's/^qemu pid: //p' "$r4/run.out")
a4() { "$gbvp" agent --socket "$r4/agent.sock" --wait "$1" --timeout 20 -- "$2"; }
svc_back='i=0; until [ -e /sys/bus/greybus/devices/1-svc ]; do i=$((i+1)); [ $i -ge 300 ] && exit 1; sleep 0.1; done'
if a4 300 "$svc_back" >/dev/null 2>&1; then
    kill -9 "$sim_pid"; wait "$sim_pid" 2>/dev/null
    sim4
    for _ in $(seq 1 100); do grep -q "does not run in lockstep.*retrying every" "$r4/qemu.log" && break; sleep 0.1; done
    t0=$(now_ms)
    up=$(a4 5 "cat /proc/uptime")
    t_agent=$(( $(now_ms) - t0 ))
    if grep -q "does not run in lockstep (start it with gbvp sim --clock lockstep): the bridge stays unplugged; retrying every" "$r4/qemu.log" &&
       [ -n "$up" ] && [ "$t_agent" -lt 5000 ]; then
        ok "its simulator replaced by a realtime one: the device says why it stays unplugged, the guest runs on (agent answered in $(secs "$t_agent") s)"
    else
        not_ok "a realtime simulator in place of a lockstep one: the guest runs on, the device says why" \
            "agent: '$up' after $t_agent ms" "$(grep greybus-es2 "$r4/qemu.log" | tail -n 3)"
    fi
    kill "$sim_pid"; wait "$sim_pid" 2>/dev/null
    sim4 --clock lockstep
    if a4 30 "$svc_back" >/dev/null 2>&1; then
        ok "then a lockstep simulator: the device takes it and the guest enumerates its SVC again"
    else
        not_ok "a lockstep simulator after the realtime one: 1-svc again within 30 s" \
            "$(grep greybus-es2 "$r4/qemu.log" | tail -n 3)" "$(tail -n 3 "$r4/sim.log")"
    fi
else
    not_ok "a lockstep guest boots with its lockstep simulator" "$(tail -n 5 "$r4/qemu.log")"
fi
finish
