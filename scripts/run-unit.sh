#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every CUnit test binary given, shows their output, and closes with one summary line
# "unit: N passed, N failed" counted over all binaries. Exits non-zero if any test failed
# or any binary crashed or ran nothing.
set -u
passed=0 failed=0 broken=0
for t in "$@"; do
    log=$(mktemp)
    "$t" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^ +tests +[0-9]+' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        # Run Summary row: tests Total Ran Passed Failed Inactive
        read -r _ _total _ran p f _ <<<"$line"
        passed=$((passed + p)); failed=$((failed + f))
    fi
    if [ "$rc" -ne 0 ] && { [ -z "$line" ] || [ "${f:-0}" -eq 0 ]; }; then
        echo "unit: $(basename "$t") exited with status $rc" >&2
        broken=$((broken + 1))
    fi
    rm -f "$log"
done
echo "unit: $((passed)) passed, $((failed + broken)) failed"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
