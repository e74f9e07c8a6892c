#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Integration test: every scenario of scenarios/ against the real Linux 6.1 guest in QEMU
# (gbvp scenario --target guest --timing frame: the frame-level UniPro model, as gbvp run
# uses it), one boot per scenario. Scenarios that need what the guest target lacks (module
# backends, the test AP's hooks) report a TAP skip and pass. Arguments: scenario files to
# run instead of all; GBVP_SCENARIO_ARGS adds options (e.g. "--seed 7"). Prints
# "scenarios-guest: N passed, N failed". KEEP=1 keeps every run directory.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
gbvp=${GBVP:-build/gbvp}
passed=0 failed=0
[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { echo "cannot build $gbvp"; exit 1; }
top=$(mktemp -d /tmp/gbvp-scn-guest.XXXXXX)
if ! scripts/build-qemu.sh >"$top/build-qemu.log" 2>&1; then
    echo "FAIL - scripts/build-qemu.sh"; tail -n 20 "$top/build-qemu.log"; exit 1
fi
if ! paths=$(scripts/build-guest.sh 2>"$top/build-guest.log"); then
    echo "FAIL - scripts/build-guest.sh"; tail -n 20 "$top/build-guest.log"; exit 1
fi
kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
initrd=$(sed -n 's/^initramfs: //p' <<<"$paths")

[ $# -gt 0 ] || set -- scenarios/*.lua
for scn in "$@"; do
    name=$(basename "$scn" .lua)
    d=$top/$name
    mkdir -p "$d"
    # shellcheck disable=SC2086 # GBVP_SCENARIO_ARGS: extra options, word-split on purpose
    "$gbvp" scenario "$scn" ${GBVP_SCENARIO_ARGS:-} --verbose --target guest --timing frame --link "$d/gbvp.sock" --agent "$d/agent.sock" \
        --connect-timeout 400 --timeout 900 --junit "$d/junit.xml" >"$d/tap" 2>"$d/scenario.log" &
    spid=$!
    for _ in $(seq 1 100); do [ -S "$d/gbvp.sock" ] && break; sleep 0.05; done
    qpid=
    if scripts/run-guest.sh --background --dir "$d" --kernel "$kernel" --initrd "$initrd" \
            --device qemu-xhci,id=xhci --device "greybus-es2,link=$d/gbvp.sock" \
            >"$d/run-guest.out" 2>&1; then
        qpid=$(cat "$d/qemu.pid")
    else
        # no QEMU: do not let the scenario wait for it
        kill "$spid" 2>/dev/null
        cat "$d/run-guest.out" >>"$d/scenario.log"
    fi
    wait "$spid"
    rc=$?
    [ -n "$qpid" ] && kill "$qpid" 2>/dev/null
    summary=$(grep -E '^# [0-9]+ passed' "$d/tap" | tail -n 1)
    skip=$(grep -o '# SKIP .*' "$d/tap" | head -n 1)
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "ok   - $name ${skip:-(${summary#\# })}"
        [ "${KEEP:-0}" = 1 ] || rm -rf "$d"
    else
        failed=$((failed + 1))
        echo "FAIL - $name (status $rc; TAP, logs and console in $d)"
        grep -E '^not ok|message:|at:' "$d/tap" | head -n 12 | sed 's/^/       /'
        tail -n 3 "$d/scenario.log" | sed 's/^/       /'
    fi
done
[ "$failed" -eq 0 ] && [ "${KEEP:-0}" != 1 ] && rm -rf "$top"
echo "scenarios-guest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
