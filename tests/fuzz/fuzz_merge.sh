#!/bin/sh
# SPDX-License-Identifier: MIT
# Merges what a campaign found (BUILD/fuzz/corpus/NAME) into the repository's corpus
# (tests/fuzz/corpus/NAME) with libFuzzer's -merge=1: every seed already there stays
# (gen-*, crash-*, IID1-* and the other named ones), and only the new inputs that add
# coverage beyond them are copied in (named by their SHA-1). Run from the repository root.
#
#   tests/fuzz/fuzz_merge.sh [-b BUILD] TARGET...
#
# Prints per target how many inputs were added and the corpus's files and size after.
# FUZZ_MERGE_FLAGS adds libFuzzer flags: `-use_counters=0` keeps one input per new edge
# rather than per new hit count, for a much smaller corpus.
set -u
build=build-fuzz
while getopts b: o; do
    case $o in
    b) build=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD] TARGET..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "$0: name at least one target" >&2; exit 2; }
mkdir -p "$build/fuzz/logs" /tmp/fuzz-art
for t in "$@"; do
    bin="$build/fuzz/$t"
    repo="tests/fuzz/corpus/$t"
    found="$build/fuzz/corpus/$t"
    if [ ! -x "$bin" ] || [ ! -d "$found" ]; then
        echo "$t: $bin or $found missing: run the campaign first" >&2
        continue
    fi
    mkdir -p "$repo"
    before=$(ls "$repo" | wc -l)
    # the merge writes only into the first directory: the repository's corpus
    # shellcheck disable=SC2086
    nice -n 19 "$bin" -merge=1 ${FUZZ_MERGE_FLAGS:-} -timeout=25 -artifact_prefix="/tmp/fuzz-art/$t-merge-" \
        "$repo" "$found" >"$build/fuzz/logs/$t.merge.log" 2>&1 ||
        { echo "$t: merge failed, see $build/fuzz/logs/$t.merge.log" >&2; continue; }
    after=$(ls "$repo" | wc -l)
    echo "$t: $((after - before)) inputs added; $after files, $(cat "$repo"/* | wc -c) bytes"
done
