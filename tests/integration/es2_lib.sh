# SPDX-License-Identifier: MIT
# Shared helpers of the greybus-es2 tests (es2_bridge_test.sh, es2_fault_test.sh,
# es2_hostile_test.sh), sourced from the repository root after setting es2_name (the prefix
# of the summary line) and run_dir: result counting (ok / not_ok / finish), stopping
# processes and cleaning up, polling a condition, the guest agent at $sock, and pushing a
# file into the guest through it.
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

# Copies a host file into the guest as an executable (gzip + base64 through the agent, in
# pieces a command line takes).
push_file() {  # push_file HOST-FILE GUEST-FILE
    local c
    agent rm -f /tmp/push.b64 || return 1
    gzip -9 -c "$1" | base64 -w0 | split -b 60000 - "$run_dir/chunk."
    for c in "$run_dir"/chunk.*; do
        agent "printf %s '$(cat "$c")' >> /tmp/push.b64" || return 1
    done
    rm -f "$run_dir"/chunk.*
    agent "base64 -d /tmp/push.b64 | gunzip > $2 && chmod +x $2 && rm /tmp/push.b64"
}
