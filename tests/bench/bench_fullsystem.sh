#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole platform under the kernel's own loopback tool: boots the guest against `gbvp sim`
# (frame-level timing, realtime clock: what gbvp run uses), inserts the loopback module in
# slot 0, keeps its interface and bundle out of runtime suspend, sets the module's link and
# the AP bridge's own link to HS-G3B x2 (control socket `link`), and runs
# drivers/staging/greybus/tools/loopback_test (built static into the initramfs by
# scripts/build-guest.sh) in the guest, RUNS times each:
#   bench fullsystem.loopback.2040B.sync VALUE MB/s     -t transfer -s 2028 (2040-byte payload)
#   bench fullsystem.loopback.2040B.async VALUE MB/s    the same with -x -c 16 (-o 5000000)
#   bench fullsystem.loopback.64B.sync VALUE op/s       -t transfer -s 64
#   bench fullsystem.loopback.64B.async VALUE op/s      -x -c 16 (-o 5000000)
# VALUE is the median over the runs of the kernel's own figure (gb_loopback's throughput_avg:
# request and response with their headers, both ways, per guest second; requests_per_second
# for op/s). Beside each, NAME.host: the same work over the host's wall clock (the command's
# time less that of the same command with one iteration); NAME.sim_cpu, NAME.qemu_cpu and
# NAME.host_wall: CPU time of the simulator and of QEMU (all threads) and wall time per
# operation; fullsystem.guest_clock_rate: guest seconds per host second over the runs. The
# lines starting with '#' give every run's figures (the spread).
#   RUNS=N        repeats of each case (default 3)
#   ITER_2040=N   iterations of a 2040 B case (default 4000), ITER_64=N (default 6000)
#   PERF=FILE     also record `perf record -g` of gbvp sim during the runs to FILE and print
#                 its top symbols
#   GBVP=PATH     the gbvp binary (default build/gbvp); KEEP=1 keeps the run folder
#   SIM_CPUS=LIST, QEMU_CPUS=LIST  place the simulator and QEMU (gbvp sim --cpus,
#                 run-guest.sh --cpus; e.g. SIM_CPUS=1 QEMU_CPUS=0)
#   SIM_SPIN=US   the simulator's bounded busy-poll (gbvp sim --spin)
# Needs QEMU and the guest (built and cached on first use, as for gbvp run).
. "$(dirname "$0")/../integration/lib.sh"
runs=${RUNS:-3}
iter_2040=${ITER_2040:-4000}
iter_64=${ITER_64:-6000}
median() { sort -g | awk '{v[NR]=$1} END {printf "%.6g\n", (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ctl() { "$gbvp" ctl --socket "$run_dir/control.sock" "$@"; }
now_ns() { date +%s%N; }
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f\n", s}'; } # all threads, ns

# The guest's clock. Without ACPI the x86_64 guest finds no HPET or PM timer, its TSC
# calibration against the PIT fails under TCG, and it falls back to jiffies (4 ms steps, and
# slow when the loaded host loses ticks): gb_loopback then times an operation that ends in
# the jiffy it began as a whole day (its latency helper takes t2 == t1 for a wrap), and its
# averages are nonsense. Under TCG the guest's TSC is the host's, so the host's TSC rate is
# handed to the guest (tsc_early_khz, and tsc=reliable: no watchdog against jiffies).
tsc_khz=${GUEST_TSC_KHZ:-$(awk -F': *' '/^cpu MHz/ {printf "%d", $2 * 1000; exit}' /proc/cpuinfo)}

# Like gbvp_boot (lib.sh), with the kernel command line above.
boot() {
    local paths out qemu
    qemu=$(scripts/build-qemu.sh --print-path 2>/dev/null)
    [ -x "$qemu" ] || scripts/build-qemu.sh >"$run_dir/build-qemu.log" 2>&1 ||
        { not_ok "scripts/build-qemu.sh" "$(tail -n 20 "$run_dir/build-qemu.log")"; finish; }
    paths=$(scripts/build-guest.sh 2>"$run_dir/build-guest.log") ||
        { not_ok "scripts/build-guest.sh" "$(tail -n 20 "$run_dir/build-guest.log")"; finish; }
    mkfifo "$run_dir/sim.in"
    exec 7<>"$run_dir/sim.in"
    "$gbvp" sim --link "$run_dir/gbvp.sock" --slots 4 --control "$run_dir/control.sock" \
        ${SIM_CPUS:+--cpus "$SIM_CPUS"} ${SIM_SPIN:+--spin "$SIM_SPIN"} <"$run_dir/sim.in" >"$run_dir/sim.log" 2>&1 &
    sim_pid=$!
    for _ in $(seq 1 100); do [ -S "$run_dir/control.sock" ] && break; sleep 0.05; done
    out=$(scripts/run-guest.sh --background --dir "$run_dir" \
              --kernel "$(sed -n 's/^kernel: //p' <<<"$paths")" \
              --initrd "$(sed -n 's/^initramfs: //p' <<<"$paths")" \
              ${tsc_khz:+--append "tsc_early_khz=$tsc_khz tsc=reliable"} \
              ${QEMU_CPUS:+--cpus "$QEMU_CPUS"} \
              --device qemu-xhci,id=xhci --device "greybus-es2,link=$run_dir/gbvp.sock" 2>&1) ||
        { not_ok "QEMU starts with -device greybus-es2" "$out"; finish; }
    qemu_pid=$(cat "$run_dir/qemu.pid")
    "$gbvp" agent --socket "$run_dir/agent.sock" --wait 300 --wait-ready >/dev/null 2>&1 ||
        { not_ok "guest agent ready" "$(tail -n 15 "$run_dir/console.log")"; finish; }
    ok "guest booted (clocksource $(agent 'cat /sys/devices/system/clocksource/clocksource0/current_clocksource'))"
}
boot
sim_send "insert 0 loopback"
if ! wait_guest 120 'ls /sys/class/gb_loopback/gb_loopback0 >/dev/null 2>&1'; then
    not_ok "the guest binds the loopback module" "$(tail -n 20 "$run_dir/sim.log")"; finish
fi
# Runtime PM would suspend the idle bundle and hibernate the link between the cases (the
# gear would then be the kernel's again): keep every greybus device of it on.
agent 'for f in /sys/bus/greybus/devices/1-2*/power/control; do echo on > $f; done' >/dev/null
for s in 0 ap; do
    if ! out=$(ctl link slot=$s gear=HS-G3B lanes=2 2>&1); then
        not_ok "link slot=$s gear=HS-G3B lanes=2" "$out"; finish
    fi
done
modes() { for s in 0 ap; do ctl link_stats slot=$s | sed -n 's/.*"mode":"\([^"]*\)".*/\1/p'; done | paste -sd,; }
m=$(modes)
[ "$m" = "HS-G3B x2,HS-G3B x2" ] || { not_ok "both links at HS-G3B x2" "link_stats modes: $m"; finish; }
ok "loopback module bound, its link and the AP's at HS-G3B x2"

if [ -n "${PERF:-}" ]; then
    perf record -q -g -F 2999 -p "$sim_pid" -o "$PERF" >"$run_dir/perf.log" 2>&1 &
    perf_pid=$!
fi

# lbt ARGS...: runs loopback_test in the guest (a transfer test, porcelain output).
lbt() { AGENT_TIMEOUT=900 agent "loopback_test -t transfer -p -O 800 $*" 2>&1; }
# run_case NAME SIZE ITERATIONS [LOOPBACK_TEST ARGS...]: one run; appends the kernel's and
# the host's figures and the CPU per operation to $run_dir/NAME.*. The host's figure leaves
# out the fixed cost of a loopback_test command (the agent round trip, the tool's start, its
# sysfs set-up and read-out): the wall time of the same command with one iteration is taken
# off, and that iteration too.
run_case() {
    local name=$1 size=$2 iter=$3; shift 3
    local t0 t1 t2 s0 s1 q0 q1 out err rps tput wall bytes
    t0=$(now_ns)
    lbt -s "$size" -i 1 "$@" >/dev/null
    t1=$(now_ns) s0=$(cpu_ns "$sim_pid") q0=$(cpu_ns "$qemu_pid")
    out=$(lbt -s "$size" -i "$iter" "$@")
    echo "$out" >>"$run_dir/$name.out"
    t2=$(now_ns) s1=$(cpu_ns "$sim_pid") q1=$(cpu_ns "$qemu_pid")
    err=$(sed -n 's/^ *errors:[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out" | head -n1)
    rps=$(sed -n 's/.*requests per-sec:.*average=\([0-9.]*\).*/\1/p' <<<"$out" | head -n1)
    tput=$(sed -n 's/.*ap-throughput B\/s:.*average=\([0-9.]*\).*/\1/p' <<<"$out" | head -n1)
    if [ -z "$rps" ] || [ "${err:-1}" != 0 ]; then
        not_ok "$name: loopback_test -s $size -i $iter $* ran with no error" "$out"; return 1
    fi
    # the kernel's byte count for a transfer: both headers and both payloads
    bytes=$(( 2 * 8 + 2 * 12 + 2 * size ))
    wall=$(( (t2 - t1) - (t1 - t0) ))
    [ "$wall" -gt 0 ] || wall=1
    echo "scale=3; $tput / 1000000" | bc >>"$run_dir/$name.mbs"
    echo "$rps" | awk '{printf "%.1f\n", $1}' >>"$run_dir/$name.ops"
    echo "scale=3; ($iter - 1) * $bytes * 1000 / $wall" | bc >>"$run_dir/$name.host_mbs"
    echo "scale=1; ($iter - 1) * 1000000000 / $wall" | bc >>"$run_dir/$name.host_ops"
    echo "scale=1; ($s1 - $s0) / 1000 / $iter" | bc >>"$run_dir/$name.sim_cpu"
    echo "scale=1; ($q1 - $q0) / 1000 / $iter" | bc >>"$run_dir/$name.qemu_cpu"
    echo "scale=1; ($t2 - $t1) / 1000 / $iter" | bc >>"$run_dir/$name.wall"
}

# An asynchronous operation times out after 200 ms by default (loopback_test's -o): on a
# loaded host a guest descheduled that long loses some, answered later ("unexpected
# response id" in dmesg). 5 s keeps the figures about throughput, not host stalls.
async_timeout=5000000
cases=(2040B.sync 2040B.async 64B.sync 64B.async)
# The guest's clock against the host's over all runs: the kernel's figures are per guest
# second, so they stand only while that is a host second.
gclk0=$(agent 'cut -d" " -f1 /proc/uptime') hclk0=$(now_ns)
for r in $(seq 1 "$runs"); do
    run_case 2040B.sync 2028 "$iter_2040" || finish
    run_case 2040B.async 2028 "$iter_2040" -x -c 16 -o "$async_timeout" || finish
    run_case 64B.sync 64 "$iter_64" || finish
    run_case 64B.async 64 "$iter_64" -x -c 16 -o "$async_timeout" || finish
    echo "# run $r of $runs done"
done
gclk1=$(agent 'cut -d" " -f1 /proc/uptime') hclk1=$(now_ns)
m=$(modes)
[ "$m" = "HS-G3B x2,HS-G3B x2" ] && ok "both links still at HS-G3B x2 after the runs" ||
    not_ok "both links still at HS-G3B x2 after the runs" "link_stats modes: $m"

if [ -n "${PERF:-}" ]; then
    kill -INT "$perf_pid"; wait "$perf_pid"
    perf report -i "$PERF" --no-children --stdio --percent-limit 1.5 2>/dev/null |
        grep -E '^ +[0-9.]+%' | head -n 25 | sed 's/^/# perf: /'
fi

for c in "${cases[@]}"; do
    if [ "${c%%.*}" = 2040B ]; then k=mbs unit=MB/s; else k=ops unit=op/s; fi
    echo "# fullsystem.loopback.$c runs: kernel $(paste -sd' ' "$run_dir/$c.$k") $unit," \
         "host $(paste -sd' ' "$run_dir/$c.host_$k") $unit"
    echo "bench fullsystem.loopback.$c $(median <"$run_dir/$c.$k") $unit"
    echo "bench fullsystem.loopback.$c.host $(median <"$run_dir/$c.host_$k") $unit"
    [ "$k" = mbs ] && echo "bench fullsystem.loopback.$c.ops $(median <"$run_dir/$c.ops") op/s"
    echo "bench fullsystem.loopback.$c.sim_cpu $(median <"$run_dir/$c.sim_cpu") us/op"
    echo "bench fullsystem.loopback.$c.qemu_cpu $(median <"$run_dir/$c.qemu_cpu") us/op"
    echo "bench fullsystem.loopback.$c.host_wall $(median <"$run_dir/$c.wall") us/op"
done
echo "bench fullsystem.guest_clock_rate $(awk -v d="$gclk0" -v e="$gclk1" -v h=$((hclk1 - hclk0)) 'BEGIN {printf "%.4f", (e - d) * 1e9 / h}') guest-s/host-s"
dmesg_verdict "$(dmesg_lines)" "$(dmesg_lines)"
finish
