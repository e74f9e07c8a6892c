#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What lockstep costs (docs/timing-in-sim.md, "Lockstep"): RUNS pairs (default 3) of gbvp run
# with the default demo, realtime then lockstep, back to back so that both see the same host:
#   bench lockstep.demo.slowdown VALUE x        wall time of the lockstep run over the
#                                              realtime one (median of the pairs)
#   bench lockstep.grant.rate VALUE grants/s    time grants the simulator sent per second of
#                                              the lockstep run's wall time (median)
#   bench lockstep.demo.wall VALUE s            and realtime.demo.wall: the runs' wall times
#   bench fullsystem.loopback.2040B.lockstep VALUE MB/s
#                                              the kernel's loopback_test, synchronous
#                                              2040-byte transfers at HS-G3B x2, in lockstep
#                                              (gb_loopback's own figure, in virtual time)
# The lines starting with '#' give every run's figures (the spread). Wall times include the
# guest's boot and QEMU's start, as a user's run does.
#   RUNS=N   pairs (default 3)     GBVP=PATH   the gbvp binary (default build/gbvp)
. "$(dirname "$0")/../integration/lib.sh"
runs=${RUNS:-3}
median() { sort -g | awk '{v[NR]=$1} END {printf "%.4g\n", (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
gbvp=$(realpath "$gbvp")
export XDG_RUNTIME_DIR=$run_dir/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
# timed NAME ARGS...: one gbvp run; its wall time in seconds on stdout
timed() {
    local name=$1; shift
    local t0; t0=$(date +%s%N)
    "$gbvp" run --log-dir "$run_dir/$name" "$@" >"$run_dir/$name.out" 2>&1 ||
        { echo "gbvp run $* failed: $(tail -3 "$run_dir/$name.out")" >&2; return 1; }
    awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN {printf "%.3f\n", (b - a) / 1e9}'
}
"$gbvp" run --lockstep --scenario scenarios/lockstep_replay.lua >/dev/null 2>&1 # warm caches
for i in $(seq 1 "$runs"); do
    rt=$(timed rt$i) || { not_ok "realtime demo run $i"; finish; }
    ls=$(timed ls$i --lockstep --seed "$i") || { not_ok "lockstep demo run $i"; finish; }
    grants=$(sed -n 's/.*lockstep: [0-9]* barriers, \([0-9]*\) grants.*/\1/p' "$run_dir/ls$i/sim.log")
    echo "# pair $i: realtime $rt s, lockstep $ls s, $grants grants"
    echo "$rt $ls $grants" >>"$run_dir/pairs"
done
awk '{print $2 / $1}' "$run_dir/pairs" | median | sed 's/^/bench lockstep.demo.slowdown /; s/$/ x/'
awk '{print $3 / $2}' "$run_dir/pairs" | median | sed 's/^/bench lockstep.grant.rate /; s/$/ grants\/s/'
awk '{print $2}' "$run_dir/pairs" | median | sed 's/^/bench lockstep.demo.wall /; s/$/ s/'
awk '{print $1}' "$run_dir/pairs" | median | sed 's/^/bench realtime.demo.wall /; s/$/ s/'

# the loopback throughput in lockstep: a scenario of its own (the guest's figure)
cat >"$run_dir/tput.lua" <<'LUA'
local slot, id = 0, gbvp.slot_interface(0)
gbvp.insert(slot, "loopback")
gbvp.assert(pcall(gbvp.wait_for, function() return gbvp.interface(id).connections == 2 end, 20000, 10), "bound")
gbvp.assert(pcall(gbvp.wait_for, function()
    return gbvp.guest("ls /sys/class/gb_loopback/gb_loopback0/type", 10000) == 0 end, 20000, 50), "driver")
gbvp.guest(string.format("for f in /sys/bus/greybus/devices/1-%d*/power/control; do echo on > $f; done", id), 10000)
gbvp.link(slot, { gear = "HS-G3B", lanes = 2 })
gbvp.link("ap", { gear = "HS-G3B", lanes = 2 })
local rc, out = gbvp.guest("loopback_test -t transfer -p -O 800 -s 2028 -i " .. gbvp.arg("iter", "2000"), 900000)
gbvp.assert(rc == 0, "loopback_test", out)
gbvp.log("tput " .. (out:match("ap%-throughput B/s:%s*min=%S+ max=%S+ average=([%d.]+)") or "?"))
LUA
for i in $(seq 1 "$runs"); do
    "$gbvp" run --lockstep --seed "$i" --scenario "$run_dir/tput.lua" >"$run_dir/tput$i.out" 2>&1 ||
        { not_ok "lockstep loopback run $i" "$(tail -5 "$run_dir/tput$i.out")"; finish; }
    v=$(sed -n 's/.*# tput \([0-9.]*\).*/\1/p' "$run_dir/tput$i.out")
    echo "# loopback run $i: $v B/s"
    echo "$v" >>"$run_dir/tput"
done
median <"$run_dir/tput" | awk '{printf "bench fullsystem.loopback.2040B.lockstep %.3g MB/s\n", $1 / 1e6}'
