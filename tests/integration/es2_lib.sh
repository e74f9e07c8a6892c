# SPDX-License-Identifier: MIT
# Shared helpers of the two greybus-es2 tests (es2_bridge_test.sh, es2_fault_test.sh),
# sourced from the repository root after setting es2_name (the prefix of the summary line)
# and run_dir: result counting (ok / not_ok / finish), stopping processes and cleaning up,
# polling a condition, and the guest agent at $sock.
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; }
finish() {
    echo "$es2_name: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

stop() {  # stop PID: TERM, then KILL
    [ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 0
    kill "$1" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done
    kill -9 "$1" 2>/dev/null
}
es2_cleanup() {  # es2_cleanup PID...: stops them; keeps run_dir only when a check failed
    local p
    for p in "$@"; do stop "$p"; done
    if [ "$failed" -eq 0 ]; then rm -rf "$run_dir"; else echo "$es2_name: logs kept in $run_dir"; fi
}

# Polls CONDITION (a shell snippet run on the host) every 0.5 s for up to N seconds.
wait_for() {  # wait_for N CONDITION
    local end=$((SECONDS + $1))
    while [ $SECONDS -lt $end ]; do
        eval "$2" && return 0
        sleep 0.5
    done
    return 1
}

# A command in the guest through its agent (sock: the agent's socket, set once QEMU runs).
agent() { "$gbvp" agent --socket "$sock" --wait 30 --timeout 60 -- "$@"; }
