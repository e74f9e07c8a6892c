#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a capture costs a guest run: `gbvp run` (the demo, about 10 s) alternately without and
# with --pcap, RUNS times each; prints the medians of the wall time and of the simulator's
# CPU time and the overheads:
#   bench trace.capture.overhead VALUE %        (wall time of the whole run)
#   bench trace.capture.sim_cpu_overhead VALUE % (the simulator process's CPU time)
# Needs QEMU and the guest (built and cached by gbvp run on first use).
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
runs=${RUNS:-4}
d=$(mktemp -d /tmp/gbvp-bench-capture.XXXXXX)
trap '[ -n "${keep:-}" ] || rm -rf "$d"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
for i in $(seq 1 "$runs"); do
    for mode in plain pcap; do
        args=()
        [ "$mode" = pcap ] && args=(--pcap "$d/run.pcapng")
        t0=$(date +%s.%N)
        if ! "$gbvp" run "${args[@]}" >"$d/log" 2>&1; then
            keep=1
            echo "bench_guest_capture: gbvp run ${args[*]} failed (log $d/log):"
            grep -E 'not ok' -A4 "$d/log" | head -n 10; exit 1
        fi
        t1=$(date +%s.%N)
        echo "$t1 - $t0" | bc >>"$d/$mode.wall"
        sed -n 's/.*simulator: \([0-9.]*\) s of CPU.*/\1/p' "$d/log" >>"$d/$mode.cpu"
    done
done
pw=$(median <"$d/plain.wall") cw=$(median <"$d/pcap.wall")
pc=$(median <"$d/plain.cpu") cc=$(median <"$d/pcap.cpu")
echo "bench trace.capture.wall.plain $pw s"
echo "bench trace.capture.wall.pcap $cw s"
echo "bench trace.capture.overhead $(echo "scale=1; 100 * ($cw - $pw) / $pw" | bc) %"
echo "bench trace.capture.sim_cpu.plain $pc s"
echo "bench trace.capture.sim_cpu.pcap $cc s"
echo "bench trace.capture.sim_cpu_overhead $(echo "scale=1; 100 * ($cc - $pc) / $pc" | bc) %"
echo "bench trace.capture.packets $(capinfos -c -M "$d/run.pcapng" 2>/dev/null | sed -n 's/.*packets: *//p') packets"
