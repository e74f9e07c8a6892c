#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every CUnit test binary given, shows their output, and closes with one summary line
# "unit: N passed, N failed" counted over all binaries. Exits non-zero if any test failed
# or any binary crashed or ran nothing.
set -u
# The tests start with only stdin, stdout and stderr open, as under CI: a descriptor left
# open by the shell that runs this (a terminal's, an editor's) once hid a test's wrong
# count of free descriptors here while CI failed on it. (255: bash reads this script there.)
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && [ "$fd" != 255 ] && eval "exec $fd>&-" 2>/dev/null
done
passed=0 failed=0 broken=0
failures=$(mktemp) # the failed tests, told again at the end where a log's tail shows them
for t in "$@"; do
    log=$(mktemp)
    # Output goes to a file, not a pipe: a stray child of a test must not keep the run
    # waiting on a pipe it inherited. A test binary that runs past the limit is a failure.
    timeout --kill-after=10 "${UNIT_TIMEOUT:-600}" "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    grep '^unit: FAILED ' "$log" | sed "s|^unit: FAILED |unit: FAILED $(basename "$t"): |" \
        >>"$failures"
    [ "$rc" -eq 124 ] && echo "unit: $(basename "$t") timed out after ${UNIT_TIMEOUT:-600} s" >&2
    line=$(grep -E '^ +tests +[0-9]+' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        # Run Summary row: tests Total Ran Passed Failed Inactive
        read -r _ _total _ran p f _ <<<"$line"
        passed=$((passed + p)); failed=$((failed + f))
    fi
    if [ "$rc" -ne 0 ] && { [ -z "$line" ] || [ "${f:-0}" -eq 0 ]; }; then
        echo "unit: $(basename "$t") exited with status $rc" | tee -a "$failures" >&2
        broken=$((broken + 1))
    fi
    rm -f "$log"
done
cat "$failures"
rm -f "$failures"
echo "unit: $((passed)) passed, $((failed + broken)) failed"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
