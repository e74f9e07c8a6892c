#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instances share nothing: two `gbvp sim` with their defaults side by side get folders and
# sockets of their own, and plain `gbvp ctl` lists both and asks which; three `gbvp run` at
# once each boot a guest, pass the demo and clean up their own run folder; `gbvp test -j 2
# --target guest` runs two scenarios against two guests at once. Ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; }
t=$(mktemp -d /tmp/gbvp-multi-run-test.XXXXXX)
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    if [ "$failed" -eq 0 ]; then rm -rf "$t"; else echo "multi_run_test: logs kept in $t"; fi
}
trap cleanup EXIT
[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; exit 1; }
gbvp=$(realpath "$gbvp")
# a runtime folder of the test's own: other users' simulators stay out of its listings
mkdir -m 700 "$t/xdg"
export XDG_RUNTIME_DIR=$t/xdg
unset GBVP_CONTROL

# --- two gbvp sim with their defaults -------------------------------------------------------
for i in 1 2; do
    "$gbvp" sim </dev/null >"$t/sim$i.log" 2>&1 &
    pids+=" $!"
done
set -- $pids
for _ in $(seq 1 100); do
    grep -q "control socket" "$t/sim1.log" && grep -q "control socket" "$t/sim2.log" && break
    sleep 0.05
done
c1=$(sed -n 's/^gbvp sim: control socket \([^ ]*\) .*/\1/p' "$t/sim1.log")
c2=$(sed -n 's/^gbvp sim: control socket \([^ ]*\) .*/\1/p' "$t/sim2.log")
l1=$(sed -n 's/^gbvp sim: link socket \([^ ]*\) .*/\1/p' "$t/sim1.log")
l2=$(sed -n 's/^gbvp sim: link socket \([^ ]*\) .*/\1/p' "$t/sim2.log")
if [ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != "$c2" ] && [ "$l1" != "$l2" ] &&
   [ -S "$c1" ] && [ -S "$c2" ] && [ -S "$l1" ] && [ -S "$l2" ] &&
   [[ $c1 == "$t/xdg/gbvp/sim-$1."* && $c2 == "$t/xdg/gbvp/sim-$2."* ]]; then
    ok "two gbvp sim with defaults: each its own folder and sockets (sim-$1.*, sim-$2.*)"
else
    not_ok "two gbvp sim with defaults: each its own folder and sockets" \
        "$(cat "$t/sim1.log" "$t/sim2.log")"
fi
out=$("$gbvp" ctl status 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "2 simulators are running" <<<"$out" &&
   grep -q -- "--socket $c1 .*(pid $1)" <<<"$out" && grep -q -- "--socket $c2 .*(pid $2)" <<<"$out"; then
    ok "plain gbvp ctl lists both simulators with their pids and asks which"
else
    not_ok "plain gbvp ctl lists both simulators and asks which (status $rc)" "$out"
fi
o1=$("$gbvp" ctl --socket "$c1" insert slot=0 module=sensor 2>&1)
o2=$("$gbvp" ctl --socket "$c2" status 2>&1)
grep -q '"ok":true' <<<"$o1" && grep -q '"module":null' <<<"$o2" &&
    ok "each answers on its own socket: a module inserted into one is not in the other" ||
    not_ok "each answers on its own socket" "$o1" "$o2"
kill "$1" "$2"
wait "$1" "$2" 2>/dev/null
pids=
[ ! -e "$(dirname "$c1")" ] && [ ! -e "$(dirname "$c2")" ] &&
    ok "both remove their folders when they stop" || not_ok "both remove their folders when they stop"

# --- three gbvp run at once ------------------------------------------------------------------
start=$(date +%s)
for i in 1 2 3; do
    "$gbvp" run >"$t/run$i.log" 2>&1 &
    pids+=" $!"
done
i=0
dirs=
for p in $pids; do
    i=$((i + 1))
    wait "$p"
    rc=$?
    summary=$(grep -o 'demo.lua: [0-9]* passed, [0-9]* failed' "$t/run$i.log" | tail -n 1)
    dir=$(sed -n 's/.*gbvp run: logs in //p' "$t/run$i.log")
    dirs+=" $dir"
    if [ "$rc" -eq 0 ] && [ "$summary" = "demo.lua: 22 passed, 0 failed" ] && [ ! -e "$dir" ]; then
        ok "gbvp run $i of 3 at once: the demo passed in ${dir#"$t/"}, removed after ($summary)"
    else
        not_ok "gbvp run $i of 3 at once (status $rc, ${summary:-no summary})" \
            "$(grep -E 'not ok|FAIL|error|cannot|refused|held' "$t/run$i.log" | head -n 6)"
    fi
done
pids=
n=$(tr ' ' '\n' <<<"$dirs" | grep -c .)
u=$(tr ' ' '\n' <<<"$dirs" | grep . | sort -u | wc -l)
[ "$n" -eq 3 ] && [ "$u" -eq 3 ] && ok "the three runs had three different run folders ($(($(date +%s) - start)) s for all)" ||
    not_ok "the three runs had three different run folders" "$dirs"

# --- gbvp test -j 2 on the guest target ------------------------------------------------------
out=$("$gbvp" test -j 2 --target guest --junit "$t/guest.xml" scenarios/demo.lua \
      scenarios/hotplug_basic.lua 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^2 passed, 0 failed$' <<<"$out" &&
   [ "$(grep -c '<testsuite ' "$t/guest.xml" 2>/dev/null)" = 2 ] &&
   ! grep -q '<error' "$t/guest.xml"; then
    ok "gbvp test -j 2 --target guest: two scenarios against two guests at once, JUnit written"
else
    not_ok "gbvp test -j 2 --target guest (status $rc)" "$out"
fi
out=$("$gbvp" test --target guest --timing message scenarios/demo.lua 2>&1)
[ $? -eq 2 ] && grep -q "the guest target runs gbvp run's simulator" <<<"$out" &&
    ok "gbvp test --target guest refuses --timing, saying why" ||
    not_ok "gbvp test --target guest refuses --timing, saying why" "$out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
