#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Load does not matter in lockstep: RUNS times (default 10), with two CPU-burning processes
# beside it, every scenario in scenarios/ runs against the real guest in lockstep
# (`gbvp test --target guest --lockstep`; SCENARIOS=0 leaves them out), and then each
# integration test named in TESTS (default: enumeration and classes) runs with its guest
# booted in lockstep (GBVP_LOCKSTEP=1). Only the tests that boot through lib.sh's gbvp_boot
# honour it (enumeration, classes, classes_more, firmware, userland, kill, storm); the
# others (boot, es2_bridge, ...) boot their own guest and run in realtime. Prints one line per round and ends with
# "N passed, N failed" (a round passes when every scenario and test in it passed). Not part
# of `make check` (RUNS=10 takes about 40 minutes on two cores); the figures of its last
# run are in docs/timing-in-sim.md.
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
runs=${RUNS:-10}
tests=${TESTS:-enumeration classes}
passed=0 failed=0
t=$(mktemp -d /tmp/gbvp-lockstep-load.XXXXXX)
burners=
stop_burners() { for p in $burners; do kill "$p" 2>/dev/null; done; burners=; }
trap 'stop_burners' EXIT
[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { echo "cannot build $gbvp"; exit 1; }
for _ in 1 2; do sh -c 'while :; do :; done' & burners+=" $!"; done
for i in $(seq 1 "$runs"); do
    t0=$SECONDS
    rc=0 line="round $i:"
    if [ "${SCENARIOS:-1}" = 1 ]; then
        "$gbvp" test --target guest --lockstep --seed "$i" --artifacts "$t/scenarios-$i" \
            scenarios >"$t/scenarios-$i.out" 2>&1 || rc=1
        line+=" scenarios $(tail -n 1 "$t/scenarios-$i.out");"
    fi
    for name in $tests; do
        GBVP_LOCKSTEP=1 bash "tests/integration/${name}_test.sh" >"$t/$name-$i.out" 2>&1 || rc=1
        line+=" $name $(grep -o '^[0-9]* passed, [0-9]* failed' "$t/$name-$i.out" | tail -n 1);"
    done
    echo "$line ($((SECONDS - t0)) s)"
    if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ]; then rm -rf "$t"; else echo "lockstep_load: logs kept in $t"; fi
[ "$failed" -eq 0 ]
