#!/bin/sh
# SPDX-License-Identifier: MIT
# A fuzzing campaign (docs/robustness.md): runs the given libFuzzer targets one after the
# other (never two at once), each for 10^7 executions or its share of the time budget,
# whichever comes first, at nice 19. Run from the repository root after
# `make B=build-fuzz fuzz-build`.
#
#   tests/fuzz/fuzz_campaign.sh [-b BUILD] [-t BUDGET_S] [-r RUNS] TARGET...
#
# A target's cap is what is left of BUDGET_S (default 4500) divided by the targets left, so
# time a fast target does not use goes to the later ones. New inputs go to
# BUILD/fuzz/corpus/NAME (the repository's corpus is read as the second directory), crash
# reproducers to /tmp/fuzz-art/NAME-*, the log to BUILD/fuzz/logs/NAME.log; one summary
# line per target (executions, exec/s, cov, ft, corpus, wall seconds, exit status) is
# appended to BUILD/fuzz/logs/summary.txt.
set -u
build=build-fuzz
budget=4500
runs=10000000
while getopts b:t:r: o; do
    case $o in
    b) build=$OPTARG ;;
    t) budget=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD] [-t BUDGET_S] [-r RUNS] TARGET..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
    echo "$0: name at least one target (e.g. fuzz_es2)" >&2
    exit 2
fi
mkdir -p "$build/fuzz/logs" /tmp/fuzz-art
start=$(date +%s)
left=$#
for t in "$@"; do
    # a target still being built is waited for (up to 30 minutes), then skipped
    waited=0
    while [ ! -x "$build/fuzz/$t" ] && [ $waited -lt 1800 ]; do
        sleep 10
        waited=$((waited + 10))
    done
    if [ ! -x "$build/fuzz/$t" ]; then
        echo "$t not built ($build/fuzz/$t; make B=$build fuzz-build): skipped" |
            tee -a "$build/fuzz/logs/summary.txt"
        left=$((left - 1))
        continue
    fi
    now=$(date +%s)
    rest=$((budget - (now - start)))
    cap=$((rest / left))
    [ "$cap" -lt 30 ] && cap=30
    left=$((left - 1))
    mkdir -p "$build/fuzz/corpus/$t"
    dict=
    [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
    extra=
    # the front-end targets print every refused script/line; keep the log readable
    case $t in fuzz_scenario_api) extra=-close_fd_mask=1 ;; esac
    log="$build/fuzz/logs/$t.log"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    nice -n 19 "$build/fuzz/$t" -runs="$runs" -max_total_time="$cap" -timeout=25 \
        -print_final_stats=1 -artifact_prefix="/tmp/fuzz-art/$t-" $dict $extra \
        "$build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    t1=$(date +%s)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p')
    echo "$t execs=${execs:-?} exec/s=${speed:-?} cov=${cov:-?} ft=${ft:-?} corp=${corp:-?}" \
        "wall=$((t1 - t0))s cap=${cap}s rc=$rc" | tee -a "$build/fuzz/logs/summary.txt"
done
