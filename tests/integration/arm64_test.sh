#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The arm64 guest end to end (QEMU virt, cortex-a57, TCG, qemu-xhci + greybus-es2): the boot
# and enumeration tests on arm64 (GBVP_ARCH=arm64 boot_test.sh and enumeration_test.sh, their
# checks counted here; enumeration there includes the speaker), the userland probe
# (guest/tools/userland-probe.c) in the arm64 guest, and `gbvp run --arch arm64` passing the
# default demo, and two lockstep runs of scenarios/lockstep_replay.lua with one seed giving
# identical logs. The first run cross-builds the arm64 kernel (scripts/build-guest.sh --arch
# arm64, cached in $GBVP_CACHE afterwards). Prints the build, boot and demo times and ends
# with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; return 0; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}
d=$(mktemp -d /tmp/gbvp-arm64.XXXXXX)
qemu_pid=
cleanup() {
    if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
        kill "$qemu_pid"; sleep 0.5; kill -9 "$qemu_pid" 2>/dev/null
    fi
    if [ "$failed" -eq 0 ]; then rm -rf "$d"; else echo "arm64_test: logs kept in $d"; fi
}
trap cleanup EXIT
[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
gbvp=$(realpath "$gbvp")

# --- the arm64 guest, built (cached after the first run) -------------------------------------
t0=$SECONDS
if paths=$(scripts/build-guest.sh --arch arm64 2>"$d/build.log"); then
    ok "arm64 kernel and initramfs built ($((SECONDS - t0)) s; cached after the first run)"
else
    not_ok "scripts/build-guest.sh --arch arm64" "$(tail -n 20 "$d/build.log")"
    finish
fi
kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
initrd=$(sed -n 's/^initramfs: //p' <<<"$paths")
[ -f "$(dirname "$kernel")/build-seconds" ] &&
    echo "   arm64 kernel build time (recorded by build-guest.sh): $(cat "$(dirname "$kernel")/build-seconds") s"

# --- the boot and enumeration tests on arm64 -------------------------------------------------
# arm64_run LABEL SCRIPT: runs an x86_64 test script on the arm64 guest, its checks counted
# here under LABEL; its timing lines are passed on.
arm64_run() {
    local label=$1 script=$2 log=$d/$1.log rc line
    GBVP=$gbvp GBVP_ARCH=arm64 "tests/integration/$script" >"$log" 2>&1
    rc=$?
    while IFS= read -r line; do
        case $line in
        "ok   - "*) ok "arm64 $label: ${line#ok   - }" ;;
        "FAIL - "*) not_ok "arm64 $label: ${line#FAIL - }" ;;
        "boot time"* | "   "*": insert to bound"* | "time from"*) echo "   $line" ;;
        esac
    done <"$log"
    grep -q '^[0-9]* passed, 0 failed$' "$log" && [ "$rc" -eq 0 ] ||
        not_ok "GBVP_ARCH=arm64 $script passed (status $rc)" "$(tail -n 5 "$log")"
}
arm64_run boot boot_test.sh
# every catalog module but the camera in at once, the speaker among them (bound beside the
# device tree's APBridge codec), and the kernel log clean
arm64_run enumeration enumeration_test.sh

# --- the userland probe in the arm64 guest ---------------------------------------------------
if out=$(scripts/run-guest.sh --arch arm64 --background --dir "$d/probe" --kernel "$kernel" \
             --initrd "$initrd" 2>&1); then
    qemu_pid=$(cat "$d/probe/qemu.pid")
    if "$gbvp" agent --socket "$d/probe/agent.sock" --wait 180 --wait-ready >/dev/null 2>&1; then
        out=$("$gbvp" agent --socket "$d/probe/agent.sock" --timeout 60 -- /usr/bin/gbvp-userland-probe 2>&1)
        rc=$?
        if [ "$rc" -eq 0 ] && grep -qx '0 failed' <<<"$out"; then
            ok "arm64: gbvp-userland-probe passes ($(grep -c '^ok ' <<<"$out") interfaces: eventfd, timerfd, epoll, signalfd, inotify, ...)"
        else
            not_ok "arm64: gbvp-userland-probe passes" "status $rc" "$(grep -v '^ok ' <<<"$out")"
        fi
        out=$("$gbvp" agent --socket "$d/probe/agent.sock" --timeout 30 -- '/usr/bin/gpiodetect; echo status $?' 2>&1)
        grep -qx 'status 0' <<<"$out" && ok "arm64: libgpiod's gpiodetect runs (dynamically linked, glibc in /lib)" ||
            not_ok "arm64: /usr/bin/gpiodetect runs" "$out"
    else
        not_ok "arm64 guest agent ready within 180 s" "$(tail -n 15 "$d/probe/console.log" 2>/dev/null)"
    fi
    kill "$qemu_pid" 2>/dev/null
else
    not_ok "scripts/run-guest.sh --arch arm64" "$out"
fi

# --- gbvp run --arch arm64: the default demo -------------------------------------------------
t0=$SECONDS
"$gbvp" run --arch arm64 >"$d/demo.log" 2>&1
rc=$?
summary=$(grep -o 'demo.lua: [0-9]* passed, [0-9]* failed' "$d/demo.log")
if [ "$rc" -eq 0 ] && [[ $summary =~ ^demo.lua:\ [1-9][0-9]*\ passed,\ 0\ failed$ ]] &&
   grep -q 'QEMU: arm64' "$d/demo.log"; then
    ok "gbvp run --arch arm64: the default demo passed ($summary, $((SECONDS - t0)) s wall)"
    grep -E 'guest up: agent ready' "$d/demo.log" | sed 's/^/   /'
else
    not_ok "gbvp run --arch arm64: the default demo (status $rc, ${summary:-no summary})" \
        "$(grep -E '^\[.*(not ok|FAIL|error|failed)' "$d/demo.log" | head -n 8)"
fi

# --- lockstep on arm64: one seed twice gives the same logs ---------------------------------
for i in 1 2; do
    "$gbvp" run --arch arm64 --lockstep --seed 7 --scenario scenarios/lockstep_replay.lua \
        --log-dir "$d/ls$i" >"$d/ls$i.out" 2>&1 || not_ok "arm64 lockstep run $i" "$(tail -5 "$d/ls$i.out")"
done
neutral() { sed -E 's#/[^ ]*/run-[0-9]+\.[A-Za-z0-9]+#RUNDIR#g' "$1"; }
if [ -s "$d/ls1/dmesg.log" ] && cmp -s "$d/ls1/dmesg.log" "$d/ls2/dmesg.log" &&
   cmp -s <(neutral "$d/ls1/sim.log") <(neutral "$d/ls2/sim.log"); then
    ok "gbvp run --arch arm64 --lockstep: one seed twice, identical dmesg.log ($(wc -l <"$d/ls1/dmesg.log") lines) and sim.log"
else
    not_ok "arm64 lockstep: one seed twice, identical logs" "$(diff "$d/ls1/dmesg.log" "$d/ls2/dmesg.log" 2>&1 | head -6)"
fi
finish
