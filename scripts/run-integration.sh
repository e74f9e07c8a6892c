#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each integration test script given (each boots the real guest kernel and prints a
# closing "N passed, N failed" line), then prints the total in the same form.
set -u
passed=0 failed=0
for t in "$@"; do
    echo "== integration: $t"
    log=$(mktemp)
    bash "$t" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^([A-Za-z0-9_.-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        p=$(sed -E 's/^([A-Za-z0-9_.-]+: )?([0-9]+) passed.*/\2/' <<<"$line")
        f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
        passed=$((passed + p)); failed=$((failed + f))
    fi
    if [ "$rc" -ne 0 ] && { [ -z "$line" ] || [ "${f:-0}" -eq 0 ]; }; then
        echo "integration: $t exited with status $rc" >&2
        failed=$((failed + 1))
    fi
    rm -f "$log"
done
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
