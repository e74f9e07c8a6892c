#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An installed gbvp runs from anywhere: `make install PREFIX=...` into a new folder, then,
# from an unrelated current directory, the installed program finds its catalog, scenarios
# and scripts from its own place: `gbvp sim` with its defaults names its sockets in a
# private run folder, plain `gbvp ctl insert module=sensor` finds it, `gbvp run` boots the
# guest and passes the demo. What cannot be found is named with where gbvp looked: a
# module not in the catalog, a missing catalog folder, a program without its data, a
# scenario that does not exist. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
repo=$(pwd)
gbvp=${GBVP:-build/gbvp}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; }
check() { # check NAME TEXT PATTERN: ok when TEXT matches the extended regex PATTERN
    if grep -Eq -- "$3" <<<"$2"; then ok "$1"; else not_ok "$1" "$2"; fi
}
t=$(mktemp -d /tmp/gbvp-install-test.XXXXXX)
sim_pid=
cleanup() {
    [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
    if [ "$failed" -eq 0 ]; then rm -rf "$t"; else echo "install_test: files kept in $t"; fi
}
trap cleanup EXIT

# --- make install ------------------------------------------------------------------------
prefix=$t/prefix
b=$(dirname "$gbvp")
if out=$(make --no-print-directory B="$b" install PREFIX="$prefix" 2>&1); then
    ok "make install PREFIX=$prefix"
else
    not_ok "make install PREFIX=$prefix" "$(tail -n 10 <<<"$out")"
    echo "$passed passed, $failed failed"; exit 1
fi
missing=
for f in bin/gbvp share/gbvp/virtual-modules/catalog/sensor.mnfs share/gbvp/scenarios/demo.lua \
         share/gbvp/scripts/run-guest.sh share/gbvp/scripts/build-guest.sh \
         share/gbvp/scripts/build-qemu.sh share/gbvp/guest/agent.c share/gbvp/guest/init \
         share/gbvp/qemu-hw/greybus-es2.c share/gbvp/gblink/gblink.h \
         share/doc/gbvp/README.md share/doc/gbvp/docs/running.md; do
    [ -e "$prefix/$f" ] || missing+=" $f"
done
[ -x "$prefix/share/gbvp/scripts/run-guest.sh" ] || missing+=" (run-guest.sh not executable)"
[ -z "$missing" ] && ok "the program, catalog, scenarios, scripts, sources and docs are installed" ||
    not_ok "the program, catalog, scenarios, scripts, sources and docs are installed" "missing:$missing"
# the scripts are byte for byte the tree's: the cached QEMU and guest builds are keyed on them
cmp -s scripts/build-guest.sh "$prefix/share/gbvp/scripts/build-guest.sh" &&
    cmp -s guest/agent.c "$prefix/share/gbvp/guest/agent.c" &&
    ok "installed scripts and guest sources are the tree's (the build caches stay valid)" ||
    not_ok "installed scripts and guest sources are the tree's"

# --- from an unrelated directory, with a private runtime folder ---------------------------
g=$prefix/bin/gbvp
elsewhere=$t/elsewhere
mkdir -p "$elsewhere" "$t/xdg"
chmod 700 "$t/xdg"
cd "$elsewhere" || exit 1
export XDG_RUNTIME_DIR=$t/xdg
unset GBVP_DATADIR GBVP_CONTROL

out=$("$g" module list 2>&1)
check "gbvp module list from $elsewhere lists the installed catalog" "$out" '^sensor +1 interface'

"$g" sim </dev/null >"$t/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 1 100); do grep -q "control socket" "$t/sim.log" && break; sleep 0.05; done
ctl=$(sed -n 's/^gbvp sim: control socket \([^ ]*\) .*/\1/p' "$t/sim.log")
link=$(sed -n 's/^gbvp sim: link socket \([^ ]*\) .*/\1/p' "$t/sim.log")
rundir=$(dirname "$ctl")
if [[ $ctl == "$t/xdg/gbvp/sim-$sim_pid."*/control.sock && $link == "$rundir/gbvp.sock" ]] &&
   [ -S "$ctl" ] && [ -S "$link" ] && [ "$(stat -c %a "$rundir")" = 700 ]; then
    ok "gbvp sim with defaults: both sockets in its own folder ${rundir#"$t/"} (mode 700), named at start"
else
    not_ok "gbvp sim with defaults: both sockets in its own folder, named at start" "$(cat "$t/sim.log")"
fi
[ -z "$(ls -A "$elsewhere")" ] && ok "nothing was written to the current directory" ||
    not_ok "nothing was written to the current directory" "$(ls -A "$elsewhere")"
out=$("$g" ctl insert slot=0 module=sensor 2>&1)
check "plain gbvp ctl finds the one simulator: insert slot=0 module=sensor" "$out" '"interface":2,"ok":true'
out=$("$g" ctl insert slot=1 module=nosuch 2>&1)
check "a module not in the catalog is refused naming the catalog folder" "$out" \
    "$prefix/share/gbvp/virtual-modules/catalog: no catalog entry 'nosuch'"
kill "$sim_pid"; wait "$sim_pid" 2>/dev/null; sim_pid=
[ ! -e "$rundir" ] && ok "gbvp sim removes its folder when it stops" ||
    not_ok "gbvp sim removes its folder when it stops" "$(ls -la "$rundir")"
out=$("$g" ctl status 2>&1)
check "gbvp ctl with no simulator says so and where it looked" "$out" \
    "no running simulator found .*$t/xdg/gbvp"

out=$(timeout 20 "$g" sim --catalog "$t/no-catalog" --insert 0:sensor </dev/null 2>&1)
check "a missing catalog folder is named" "$out" "catalog folder $t/no-catalog: No such file"

# the program alone, without its data: every place looked is named; GBVP_DATADIR helps
mkdir -p "$t/lonely/bin"
cp "$g" "$t/lonely/bin/gbvp"
out=$("$t/lonely/bin/gbvp" module list 2>&1)
check "without its data, gbvp names every place it looked" "$out" \
    "looked in $t/lonely/share/gbvp, $t/lonely, $t; .*GBVP_DATADIR"
out=$(GBVP_DATADIR=$prefix/share/gbvp "$t/lonely/bin/gbvp" module list 2>&1)
check "GBVP_DATADIR names the data folder" "$out" '^sensor '
out=$(GBVP_DATADIR=$t/nowhere "$t/lonely/bin/gbvp" module list 2>&1)
check "a wrong GBVP_DATADIR is named" "$out" "GBVP_DATADIR=$t/nowhere does not hold"

# scenarios by name from the data folder; a missing one names where gbvp looked
out=$("$g" scenario hotplug_basic 2>&1)
check "gbvp scenario hotplug_basic runs the installed scenario" "$out" '^# [0-9]+ passed, 0 failed'
out=$("$g" scenario nosuch 2>&1)
check "a scenario not found is named with where gbvp looked" "$out" \
    "scenario nosuch not found: looked in $elsewhere and at $prefix/share/gbvp/scenarios/nosuch.lua"

# --- gbvp run, installed, from elsewhere: boots the guest and passes the demo --------------
"$g" run >"$t/run.log" 2>&1
rc=$?
summary=$(grep -o 'demo.lua: [0-9]* passed, [0-9]* failed' "$t/run.log" | tail -n 1)
if [ "$rc" -eq 0 ] && [ "$summary" = "demo.lua: 22 passed, 0 failed" ]; then
    ok "installed gbvp run from $elsewhere: the demo passed ($summary)"
else
    not_ok "installed gbvp run from $elsewhere: the demo (status $rc, ${summary:-no summary})" \
        "$(grep -E 'not ok|FAIL|error|cannot' "$t/run.log" | head -n 8)"
fi
grep -q "scenario $prefix/share/gbvp/scenarios/demo.lua" "$t/run.log" &&
    grep -q "logs in $t/xdg/gbvp/run-" "$t/run.log" &&
    ok "gbvp run used the installed demo and a run folder of its own" ||
    not_ok "gbvp run used the installed demo and a run folder of its own" "$(head -n 3 "$t/run.log")"
[ -z "$(ls -A "$elsewhere")" ] && ok "still nothing in the current directory" ||
    not_ok "still nothing in the current directory" "$(ls -A "$elsewhere")"
cd "$repo" || exit 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
