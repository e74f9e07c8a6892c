# SPDX-License-Identifier: MIT
# Shared helpers of the integration tests that boot the real guest against `gbvp sim`
# (sourced, not run). A test calls gbvp_boot once, then drives modules through the
# simulator's standard input (sim_send / sim_cmd) and inspects the guest through its agent
# (agent / wait_guest), counting results with ok / not_ok, and ends with finish.
#
#   GBVP       the gbvp binary (default build/gbvp)
#   KEEP=1     keep the run directory (console.log, sim.log, qemu.log) even on success
#   GBVP_LOCKSTEP=1  boot in lockstep (docs/timing-in-sim.md): gbvp sim --clock lockstep,
#              QEMU with -icount and greybus-es2,lockstep=on; the clock runs free (nobody
#              drives it), so the tests see a guest whose time is QEMU's virtual time
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
gbvp=${GBVP:-build/gbvp}
passed=0 failed=0
test_name=$(basename "$0" .sh)

ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; return 0; }
check() { # check NAME COMMAND...: ok when the command succeeds
    local name=$1; shift
    if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}
# demo_on WHAT ARGS...: `gbvp run ARGS` with the default demo (output in
# $run_dir/demo.out); ok when it passes, with its summary.
demo_on() {
    local what=$1 rc summary
    shift
    "$gbvp" run --timeout 900 "$@" >"$run_dir/demo.out" 2>&1
    rc=$?
    summary=$(grep -o 'demo.lua: [0-9]* passed, [0-9]* failed' "$run_dir/demo.out")
    if [ "$rc" = 0 ] && [[ $summary == *" 0 failed" ]]; then
        ok "the default demo passes on $what ($summary)"
    else
        not_ok "the default demo on $what" "status $rc, ${summary:-no summary}" \
            "$(grep -E 'not ok|gbvp run:' "$run_dir/demo.out" | tail -n 12)"
    fi
}
# Milliseconds since the epoch, and a duration in seconds with 3 decimals.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

run_dir=$(mktemp -d /tmp/gbvp-it.XXXXXX)
qemu_pid= sim_pid=
# start_burners [N]: N (default two) CPU-burning processes (host load for tests that must
# not mind it); stop_burners ends them (gbvp_cleanup does too).
burners=
start_burners() {
    local i
    for ((i = 0; i < ${1:-2}; i++)); do sh -c 'while :; do :; done' & burners+=" $!"; done
}
stop_burners() { for p in $burners; do kill "$p" 2>/dev/null; done; burners=; }
gbvp_cleanup() {
    stop_burners
    exec 7>&- 2>/dev/null
    for p in $qemu_pid $sim_pid; do
        kill "$p" 2>/dev/null
    done
    for p in $qemu_pid $sim_pid; do
        for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    if [ "$failed" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
        rm -rf "$run_dir"
    else
        echo "$test_name: logs kept in $run_dir (console.log, sim.log, qemu.log)"
    fi
}
trap gbvp_cleanup EXIT
trap 'exit 130' INT TERM

# gbvp_boot [SIM-ARGS...]: builds what is missing, starts `gbvp sim` (standard input from a
# FIFO, output to run_dir/sim.log) and QEMU with the greybus-es2 device, and waits for the
# guest agent. Sets sim_t0_ms and qemu_t0_ms (simulator and QEMU start). Ends the test when
# any step fails. GBVP_ARCH=arm64 boots the arm64 guest (QEMU virt) instead of x86_64.
# (lockstep_sim, lockstep_qemu, es2_lockstep: the lockstep arguments of the booted simulator,
# of run-guest.sh and of the device, for a test that starts another simulator or QEMU)
lockstep_sim=() lockstep_qemu=() es2_lockstep=
gbvp_boot() {
    if [ ! -x "$gbvp" ]; then
        make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
    fi
    if ! scripts/build-qemu.sh >"$run_dir/build-qemu.log" 2>&1; then
        not_ok "scripts/build-qemu.sh" "$(tail -n 20 "$run_dir/build-qemu.log")"; finish
    fi
    local paths arch_args=()
    [ -n "${GBVP_ARCH:-}" ] && arch_args=(--arch "$GBVP_ARCH")
    if ! paths=$(scripts/build-guest.sh "${arch_args[@]}" 2>"$run_dir/build-guest.log"); then
        not_ok "scripts/build-guest.sh" "$(tail -n 20 "$run_dir/build-guest.log")"; finish
    fi
    kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
    initrd=$(sed -n 's/^initramfs: //p' <<<"$paths")

    sim_t0_ms=$(now_ms)
    mkfifo "$run_dir/sim.in"
    exec 7<>"$run_dir/sim.in"
    if [ "${GBVP_LOCKSTEP:-0}" = 1 ]; then
        lockstep_sim=(--clock lockstep)
        lockstep_qemu=(--icount 3 --seed 1)
        es2_lockstep=,lockstep=on
    fi
    "$gbvp" sim --link "$run_dir/gbvp.sock" "${lockstep_sim[@]}" "$@" <"$run_dir/sim.in" \
        >"$run_dir/sim.log" 2>&1 &
    sim_pid=$!
    for _ in $(seq 1 100); do [ -S "$run_dir/gbvp.sock" ] && break; sleep 0.05; done
    if ! [ -S "$run_dir/gbvp.sock" ]; then
        not_ok "gbvp sim listens on its gblink socket" "$(cat "$run_dir/sim.log")"; finish
    fi
    qemu_t0_ms=$(now_ms)
    local out
    if ! out=$(scripts/run-guest.sh "${arch_args[@]}" --background --dir "$run_dir" --kernel "$kernel" \
                 --initrd "$initrd" --device qemu-xhci,id=xhci "${lockstep_qemu[@]}" \
                 --device "greybus-es2,link=$run_dir/gbvp.sock$es2_lockstep" 2>&1); then
        not_ok "QEMU starts with -device greybus-es2" "$out"; finish
    fi
    qemu_pid=$(cat "$run_dir/qemu.pid")
    if ! "$gbvp" agent --socket "$run_dir/agent.sock" --wait 300 --wait-ready >/dev/null \
            2>"$run_dir/ready.err"; then
        not_ok "guest agent ready within 300 s" "$(cat "$run_dir/ready.err")" \
            "$(tail -n 15 "$run_dir/console.log" 2>/dev/null)"
        finish
    fi
    ok "guest booted with greybus-es2 (agent ready $(secs $(( $(now_ms) - qemu_t0_ms ))) s after QEMU start)"
}

# agent COMMAND: runs a shell command in the guest (60 s limit), output on stdout.
agent() { "$gbvp" agent --socket "$run_dir/agent.sock" --wait 30 --timeout "${AGENT_TIMEOUT:-60}" -- "$1"; }

# wait_guest TIMEOUT_S COMMAND: polls the guest every 0.1 s until COMMAND succeeds.
# The guest runs the loop itself (one agent round trip).
wait_guest() {
    local limit=$(( $1 * 10 ))
    AGENT_TIMEOUT=$(( $1 + 10 )) agent "i=0; until $2; do i=\$((i+1)); [ \$i -ge $limit ] && exit 1; sleep 0.1; done" >/dev/null 2>&1
}

# sim_send LINE: a command to gbvp sim's standard input (insert SLOT MODULE, remove SLOT).
sim_send() { printf '%s\n' "$1" >&7; }

# sim_cmd SLOT[.N] COMMAND...: a backend command; prints the reply, fails on "cmd error".
sim_cmd() {
    local before n line
    before=$(grep -c '^cmd' "$run_dir/sim.log")
    sim_send "cmd $*"
    for _ in $(seq 1 100); do
        n=$(grep -c '^cmd' "$run_dir/sim.log")
        if [ "$n" -gt "$before" ]; then
            line=$(grep '^cmd' "$run_dir/sim.log" | sed -n "$((before + 1))p")
            case $line in
            "cmd: "*) echo "${line#cmd: }"; return 0 ;;
            *) echo "${line#cmd error: }"; return 1 ;;
            esac
        fi
        sleep 0.05
    done
    echo "gbvp sim did not answer 'cmd $*'"
    return 1
}

# dmesg_problems: WARN, BUG, oops and greybus errors in the guest's kernel log. Expected on
# a surprise removal in 6.1 and therefore not counted: a driver's last request on a
# connection the removal already disabled fails with -ENOTCONN (-107), and one in flight
# when it went is cancelled (-ECANCELED, -125, or -ESHUTDOWN, -108, when the connection's
# disable cancels it, e.g. a battery's GET_PROPERTY poll), e.g. the HID driver's PWR_OFF ("hid
# 1-5.5.1: failed to power off (-107)") or the UART's SET_CONTROL_LINE_STATE as its tty
# hangs up. Expected too: an SD memory card (catalog sdcard) does not answer the MMC core's
# SDIO probe (sdio_reset's two CMD52, mmc_attach_sdio's CMD5 tried four times), so each of
# those gb-sdio COMMANDs (type 0x04) fails with -ETIMEDOUT (-110), logged by
# gb_operation_sync_timeout with the connection's name (HD_CPORT/INTF:CPORT): six lines per
# card probe, expected only on the connections a test names in sdio_connections (a regex,
# e.g. '[0-9]+/3:1' for the sdcard module's CPort 1 on interface 3; none by default).
# dmesg_expected lists those lines.
sdio_connections='none'
dmesg_expected_re() {
    echo "(synchronous operation id 0x[0-9a-f]+ of type 0x[0-9a-f]+ failed: -(107|108|125)|(${sdio_connections}): synchronous operation id 0x[0-9a-f]+ of type 0x04 failed: -110|failed to power off \\(-107\\))\$"
}
# dmesg_problems [FROM [TO]] looks at lines FROM..TO of dmesg (default: all).
dmesg_lines() { agent 'dmesg | wc -l'; }
dmesg_range() { agent "dmesg | sed -n '${1:-1},${2:-\$}p'"; }
dmesg_problems() {
    dmesg_range "${1:-1}" "${2:-\$}" | grep -E 'WARNING|BUG|Oops|Call Trace|greybus.*(error|fail|timed out|timeout)|gb_.*(error|fail)|(es2|svc|interface|bundle|connection|hid|gpio|i2c|uart|loopback|light|vibrator|power_supply).*(failed|error)' |
        grep -vE "$(dmesg_expected_re)"
}
dmesg_expected() { agent 'dmesg' | grep -E "$(dmesg_expected_re)"; }
# A surprise removal (gbvp sim's "remove SLOT": the module is gone before the kernel hears
# MODULE_REMOVED) of a module whose bundles are runtime-suspended makes 6.1's driver remove
# path resume them first: the BUNDLE_RESUME goes to an interface that no longer answers
# (-110 after the operation timeout) and the SVC refuses its connections (-22). Those
# greybus errors are the kernel's, by design; in a removal window only crashes count.
dmesg_crashes() { dmesg_range "$1" "${2:-\$}" | grep -E 'WARNING|BUG|Oops|Call Trace|general protection|refcount'; }
dmesg_removal_errors() { dmesg_range "$1" "${2:-\$}" | grep -cE '(failed|error).*-[0-9]+|-[0-9]+$'; }

# dmesg_verdict MARK_BEFORE_REMOVAL MARK_AFTER_REMOVAL: the three windows checked.
dmesg_verdict() {
    local a=$1 b=$2 p c
    p=$(dmesg_problems 1 "$a"; dmesg_problems $((b + 1)))
    c=$(dmesg_crashes $((a + 1)) "$b")
    if [ -z "$p$c" ]; then
        ok "dmesg: no WARN, BUG, oops or greybus error outside removal, no crash during it ($(dmesg_removal_errors $((a + 1)) "$b") greybus error line(s) of the surprise removals)"
    else
        not_ok "dmesg shows no WARN, BUG, oops or greybus error" $p $c
    fi
}

# sim_log_time PATTERN: the simulator's timestamp (ms since it started) of the first sim.log
# line matching PATTERN, empty when none.
# wait_modules_gone SECONDS: until the guest's greybus bus holds only the SVC and the host
# device (every module removed and torn down).
wait_modules_gone() {
    wait_guest "$1" '[ "$(ls /sys/bus/greybus/devices)" = "$(printf "1-svc\ngreybus1")" ]'
}

# wait_sim_log FROM_LINE SECONDS PATTERN: until the simulator's log from that line on has a
# line matching PATTERN (grep -E); fails after SECONDS.
wait_sim_log() {
    local i
    for ((i = 0; i <= $2 * 10; i++)); do
        tail -n "+$1" "$run_dir/sim.log" | grep -qE "$3" && return 0
        sleep 0.1
    done
    return 1
}

sim_log_time() {
    grep -m1 -E "$1" "$run_dir/sim.log" | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{3\}\).*/\1\2/p' | sed 's/^0*\([0-9]\)/\1/'
}
