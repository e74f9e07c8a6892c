#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Leaks and errors (issue 15, item 6): `gbvp run` with the simulator under valgrind's
# memcheck (--sim-wrapper) through the whole default demo, with a capture and a timeline so
# that their code runs too. The demo must pass, valgrind must have run the simulator and
# report no error and no definitely, indirectly or possibly lost block (valgrind's
# --error-exitcode makes `gbvp run` fail otherwise). A wrapper that exits 99 after the
# simulator must fail the run (the check can fail). With ASAN_GBVP=PATH (a gbvp built with
# `make SAN=1`), the demo runs once more on that binary, the simulator's exit status
# (LeakSanitizer at exit) checked through the trivial wrapper `env`.
# Ends with "N passed, N failed".
#
#   GBVP       the gbvp binary (default build/gbvp)
#   ASAN_GBVP  a gbvp built with AddressSanitizer (optional)
#   KEEP=1     keep the logs even on success
set -u
cd "$(dirname "$0")/../.." || exit 2
gbvp=${GBVP:-build/gbvp}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; return 0; }
dir=$(mktemp -d /tmp/gbvp-vg.XXXXXX)
cleanup() {
    if [ "$failed" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
        rm -rf "$dir"
    else
        echo "sim_valgrind_test: logs kept in $dir"
    fi
}
trap cleanup EXIT
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

if [ ! -x "$gbvp" ]; then
    make -j2 "$gbvp" >"$dir/make.log" 2>&1 || { not_ok "build $gbvp" "$(tail -n 10 "$dir/make.log")"; finish; }
fi
if ! command -v valgrind >/dev/null; then
    not_ok "valgrind is installed (scripts/deps.sh installs it)"; finish
fi

# ---- the default demo with the simulator under memcheck -----------------------------------
vg="valgrind --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible --num-callers=30 --log-file=$dir/valgrind.log"
t0=$(now_ms)
"$gbvp" run --sim-wrapper "$vg" --pcap "$dir/demo.pcapng" --trace "$dir/demo.json" \
    >"$dir/run.log" 2>&1
rc=$?
t=$(( $(now_ms) - t0 ))
cpu=$(sed -n 's/^.*simulator: \([0-9.]*\) s of CPU.*/\1/p' "$dir/run.log")
if [ "$rc" = 0 ] && grep -q 'scenario .*demo.lua: 22 passed, 0 failed' "$dir/run.log"; then
    ok "gbvp run --sim-wrapper 'valgrind ...': the default demo passes 22/22 ($((t / 1000)) s wall, simulator ${cpu:-?} s of CPU)"
else
    not_ok "the demo passes with the simulator under valgrind (exit $rc)" "$(tail -n 25 "$dir/run.log")"
fi
if grep -q 'Memcheck, a memory error detector' "$dir/valgrind.log" 2>/dev/null &&
    grep -qE '^==[0-9]+== Command: .*gbvp sim --link' "$dir/valgrind.log"; then
    ok "valgrind's memcheck ran the simulator ($(grep -m1 'Command:' "$dir/valgrind.log" | sed 's/^==[0-9]*== //' | cut -c1-60)...)"
else
    not_ok "valgrind ran gbvp sim" "$(head -n 10 "$dir/valgrind.log" 2>&1)"
fi
summary=$(grep 'ERROR SUMMARY' "$dir/valgrind.log" 2>/dev/null | sed 's/^==[0-9]*== //')
if grep -q 'ERROR SUMMARY: 0 errors from 0 contexts' "$dir/valgrind.log" 2>/dev/null; then
    ok "memcheck: $summary"
else
    not_ok "memcheck reports no error" "${summary:-no ERROR SUMMARY: the simulator did not exit normally}" \
        "$(grep -A12 -E 'Invalid|uninitialised|lost in loss record' "$dir/valgrind.log" 2>/dev/null | head -n 60)"
fi
leaks=$(grep -E 'definitely lost|indirectly lost|possibly lost|still reachable|All heap blocks were freed' \
    "$dir/valgrind.log" 2>/dev/null | sed 's/^==[0-9]*== *//' | tr '\n' ';')
if grep -q 'All heap blocks were freed' "$dir/valgrind.log" 2>/dev/null ||
    { grep -q 'definitely lost: 0 bytes' "$dir/valgrind.log" && grep -q 'indirectly lost: 0 bytes' "$dir/valgrind.log" &&
      grep -q 'possibly lost: 0 bytes' "$dir/valgrind.log"; } 2>/dev/null; then
    ok "memcheck: no leak ($leaks)"
else
    not_ok "memcheck finds no definitely, indirectly or possibly lost block" "${leaks:-no leak summary}"
fi
if [ -s "$dir/demo.pcapng" ] && [ -s "$dir/demo.json" ]; then
    ok "the capture and the timeline were written under valgrind ($(stat -c %s "$dir/demo.pcapng") and $(stat -c %s "$dir/demo.json") bytes)"
else
    not_ok "capture and timeline written" "$(ls -l "$dir")"
fi

# ---- the check can fail: a wrapper whose verdict is "error" fails the run --------------------
printf '#!/bin/sh\n"$@" & p=$!\ntrap "kill \\$p" TERM INT\nwait $p; wait $p\nexit 99\n' >"$dir/fail-wrapper.sh"
chmod +x "$dir/fail-wrapper.sh"
printf -- '-- SPDX-License-Identifier: MIT\ngbvp.check(true, "nothing to do")\n' >"$dir/nothing.lua"
"$gbvp" run --sim-wrapper "$dir/fail-wrapper.sh" --scenario "$dir/nothing.lua" >"$dir/fail.log" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "exited with status 99" "$dir/fail.log" && grep -q 'gbvp run: FAILED' "$dir/fail.log"; then
    ok "a wrapper exiting 99 after the simulator fails the run: $(grep -m1 'exited with status 99' "$dir/fail.log" | sed 's/^\[ *[0-9.]*\] //' | cut -c1-90)"
else
    not_ok "a failing wrapper fails gbvp run (exit $rc)" "$(tail -n 8 "$dir/fail.log")"
fi

# ---- optionally: the ASan build ----------------------------------------------------------------
if [ -n "${ASAN_GBVP:-}" ]; then
    t0=$(now_ms)
    ASAN_OPTIONS=detect_leaks=1:exitcode=98 UBSAN_OPTIONS=print_stacktrace=1 \
        "$ASAN_GBVP" run --sim-wrapper env --pcap "$dir/asan.pcapng" --trace "$dir/asan.json" \
        >"$dir/asan.log" 2>&1
    rc=$?
    t=$(( $(now_ms) - t0 ))
    if [ "$rc" = 0 ] && grep -q 'demo.lua: 22 passed, 0 failed' "$dir/asan.log" &&
        ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$dir/asan.log"; then
        ok "ASan/UBSan build ($ASAN_GBVP): the demo passes 22/22, no sanitizer report from the runner or the simulator ($((t / 1000)) s)"
    else
        not_ok "the demo on the ASan build (exit $rc)" "$(grep -A20 -E 'Sanitizer|runtime error' "$dir/asan.log" | head -n 40)" \
            "$(tail -n 10 "$dir/asan.log")"
    fi
fi
finish
