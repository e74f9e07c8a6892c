#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `gbvp model --sweep` and `--plot` (docs/performance-model.md, "Sweeps and figures"): bad
# sweeps are refused naming the problem; a small sweep gives one row per configuration in
# configuration order, the same with one worker process as with three (wall time aside);
# parameters of a file are set by KEY, KIND.KEY, KINDn.KEY and NAME.KEY; --plot draws the
# figures with the table's series in them (tests/model/check_plots.py). Two names for one
# parameter and outputs that cannot be written are refused before the run; results that
# cannot reach standard output fail the command.
# Prints "model-sweep: N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
python=${GBVP_PYTHON:-/usr/bin/python3}
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "model-sweep: FAIL - $*"; }
[ -x "$gbvp" ] || { echo "model-sweep: no $gbvp (build it first)"; exit 1; }
d=$(mktemp -d /tmp/gbvp-sweep.XXXXXX)
trap 'rm -rf "$d"' EXIT

cat >"$d/net.txt" <<'NET'
switch S ports=4
node A dev=2
node B dev=3
node C dev=4
link A S:0 gear=HS-G3B lanes=2
link B S:1 gear=HS-G3B lanes=2
link C S:2 gear=HS-G3B lanes=2
traffic A C kind=saturate size=2048 e2efc=off
traffic B C kind=cbr size=512 rate=1Gb/s e2efc=off
run 50us
NET

# refused: exit status 2 and a message holding the expected words
refused() { # WANT ARGS...
    local want=$1 out rc
    shift
    out=$("$gbvp" model "$@" --quiet 2>&1)
    rc=$?
    if [ "$rc" = 2 ] && grep -qF -- "$want" <<<"$out"; then ok; else
        bad "gbvp model $* exited $rc with '$out', wanted 2 and '$want'"; fi
}
refused "--sweep needs NAME=V1,V2,... (got 'gear')" --sweep gear
refused "--sweep gear: no values" --sweep gear=
refused "--sweep gear: value 2 is empty" --sweep gear=HS-G1A,,HS-G2A
refused "--sweep size: empty range '4096..64' (4096 > 64)" --sweep size=4096..64
refused "--sweep gear: empty range 'HS-G4B..HS-G1A'" --sweep gear=HS-G4B..HS-G1A
refused "--sweep gear: range 'HS-G1A..PWM-G2' mixes HS and PWM gears" --sweep gear=HS-G1A..PWM-G2
refused "--sweep size: bad range '64..big'" --sweep size=64..big
refused "--sweep size: range '64..4096x1' needs a factor of at least 2" --sweep size=64..4096x1
refused "--sweep gear is given twice" --sweep gear=HS-G1A --sweep gear=HS-G2A
refused "--sweep lanes: value '2' appears twice" --sweep lanes=2,1..3
refused "--sweep foo: unknown name 'foo'" --sweep foo=1,2
refused "--sweep switch: 'switch' is a statement, not a parameter" --sweep switch=1,2
refused "--sweep Q.credits: 'Q' in 'Q.credits' is no node or switch of $d/net.txt" \
    "$d/net.txt" --sweep Q.credits=9,16
refused "--sweep link9.gear: $d/net.txt has 3 link statements: there is no link9" \
    "$d/net.txt" --sweep link9.gear=HS-G1A
refused "--sweep S.gear: 'S.gear': a switch statement takes ports, latency, mode, credits, series, not 'gear'" \
    "$d/net.txt" --sweep S.gear=HS-G1A
refused "configuration 1 (gear=HS-G9A): flags: gear: bad value 'HS-G9A'" \
    --sweep gear=HS-G1A,HS-G9A
refused "configuration 0 (timing=fast): timing: bad value 'fast' (frame, message or per-frame)" \
    --sweep timing=fast
refused "-j needs a number of processes 1..256 (got '0')" -j 0 --sweep lanes=1,2
refused "--series writes one run's queue depth" --series "$d/s.csv" --sweep lanes=1,2
# two names for one parameter: the rows would be labelled with values that never ran
refused "--sweep run and --sweep duration both set the duration" --sweep run=10us,20us \
    --sweep duration=30us
refused "--sweep: gear and link1.gear both set gear of $d/net.txt:5" "$d/net.txt" \
    --sweep gear=HS-G1A --sweep link1.gear=HS-G2A,HS-G3A
refused "--sweep S.mode: value 2 holds a control character (0x0d)" "$d/net.txt" \
    --sweep $'S.mode=saf,ct\r'
# an output that cannot be written is refused before the run, and nothing is made
refused "--csv $d/no/such.csv: No such file or directory" --switch --duration 10ms \
    --sweep size=64,2048 --csv "$d/no/such.csv"
refused "--plot $d/net.txt: Not a directory" --switch --duration 10ms --plot "$d/net.txt"
refused "--json $d: Is a directory" --switch --duration 10ms --json "$d"
if [ ! -e "$d/no" ]; then ok; else bad "a refused --csv made $d/no"; fi
# results that cannot be written to standard output are a failure, not status 0
out=$("$gbvp" model --switch --duration 10us --sweep size=64,128 --quiet --json - 2>&1 >/dev/full)
rc=$?
if [ "$rc" = 1 ] && grep -qF "standard output: No space left on device" <<<"$out"; then ok; else
    bad "--json - into a full disk exited $rc with '$out'"; fi
# one table on standard output, read alone: the text summary then goes to standard error
out=$("$gbvp" model --switch --duration 10us --sweep size=64,128 --json - 2>/dev/null)
if "$python" -c 'import json,sys; assert len(json.loads(sys.argv[1])["rows"]) == 2' "$out"; then ok
else bad "--json - without --quiet is not JSON alone: $(head -c 300 <<<"$out")"; fi
refused "only one of --json, --csv and --series can be '-'" --switch --duration 10us --json - --csv -
# a configuration the message level cannot run is refused before the first one runs
refused "configuration 3 (timing=message, ber=1e-6): $d/net.txt:5: --timing message does not model faults" \
    "$d/net.txt" --sweep timing=frame,message --sweep ber=0,1e-6

# a sweep: rows in configuration order (the first axis slowest), -j1 = -j3 but for wall time
args=(model --switch --duration 50us --sweep size=64..1024x4 --sweep gear=HS-G1A,HS-G3B
      --quiet)
"$gbvp" "${args[@]}" -j1 --csv "$d/j1.csv" --json "$d/j1.json" || bad "the -j1 sweep failed"
"$gbvp" "${args[@]}" -j 3 --csv "$d/j3.csv" --json "$d/j3.json" || bad "the -j3 sweep failed"
order=$(cut -d, -f1-3,5 "$d/j1.csv" | tr '\n' ' ')
want="config,size,gear,link_mode 0,64,HS-G1A,HS-G1A x2 1,64,HS-G3B,HS-G3B x2 2,256,HS-G1A,HS-G1A x2 3,256,HS-G3B,HS-G3B x2 4,1024,HS-G1A,HS-G1A x2 5,1024,HS-G3B,HS-G3B x2 "
if [ "$order" = "$want" ]; then ok; else bad "rows: '$order', wanted '$want'"; fi
# drop the wall_s column (8 + ... counted from the header) and the JSON's wall_s fields
col=$(head -n 1 "$d/j1.csv" | tr ',' '\n' | grep -nx wall_s | cut -d: -f1)
strip_csv() { cut -d, -f"1-$((col - 1)),$((col + 1))-" "$1"; }
strip_json() { sed -E 's/"wall_s": [0-9.e+-]+/"wall_s": 0/g' "$1"; }
if [ -n "$col" ] && [ "$(strip_csv "$d/j1.csv")" = "$(strip_csv "$d/j3.csv")" ]; then ok; else
    bad "the CSV of -j1 and -j3 differ"; diff <(strip_csv "$d/j1.csv") <(strip_csv "$d/j3.csv") | head; fi
if [ "$(strip_json "$d/j1.json")" = "$(strip_json "$d/j3.json")" ]; then ok; else
    bad "the JSON of -j1 and -j3 differ"; fi
# the faster gear carries more at every size
if awk -F, -v c="$(head -n 1 "$d/j1.csv" | tr ',' '\n' | grep -nx goodput_bps | cut -d: -f1)" \
    'NR > 1 { g[NR] = $c } END { for (i = 2; i <= NR; i += 2) if (!(g[i + 1] > 2 * g[i])) exit 1 }' \
    "$d/j1.csv"; then ok; else bad "HS-G3B does not carry twice HS-G1A's goodput: $(cat "$d/j1.csv")"; fi
# goodput is given to the bit per second: received payload over the simulated time
if "$python" - "$d/j1.csv" <<'PY'; then ok; else bad "goodput_bps is not exact: $(cat "$d/j1.csv")"; fi
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    want = int(r["received"]) * int(r["payload_bytes"]) * 8 / (int(r["simulated_ps"]) * 1e-12)
    assert abs(float(r["goodput_bps"]) - want) < 1, (r["goodput_bps"], want)
PY

# --timing per-frame, the frame level's reference path, gives the default path's results
# (wall time aside) with period skipping (clean saturated links) and without (bit errors)
"$gbvp" model --sweep timing=frame,per-frame --sweep size=64,2048 --sweep ber=0,1e-6 \
    --duration 3ms -j2 --quiet --json "$d/per-frame.json" || bad "the per-frame sweep failed"
if "$python" - "$d/per-frame.json" <<'PY'; then ok; else bad "--timing per-frame differs from frame"; fi
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "wall_s"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 8, len(rows)
by = {}
for r in rows:
    v = r["values"]
    by.setdefault((v["size"], v["ber"]), {})[v["timing"]] = strip(r["result"])
for key, t in by.items():
    assert t["frame"] == t["per-frame"], key
    assert t["frame"]["flows"][0]["received"] > 0, key
PY

# a file's parameters: every link (KEY), the n-th flow (KINDn.KEY), a switch (NAME.KEY)
"$gbvp" model "$d/net.txt" --sweep gear=HS-G1B,HS-G2B --sweep traffic2.size=256,1024 \
    --sweep S.mode=saf,ct --sweep timing=frame -j2 --quiet --json "$d/file.json" ||
    bad "the file sweep failed"
if "$python" - "$d/file.json" <<'PY'; then ok; else bad "the file sweep's parameters were not applied"; fi
import json, sys
t = json.load(open(sys.argv[1]))
rows = t["rows"]
assert t["configurations"] == 8 and len(rows) == 8, len(rows)
for i, r in enumerate(rows):
    v, res = r["values"], r["result"]
    assert r["config"] == i
    assert all(l["mode"] == v["gear"] + " x2" for l in res["links"]), (v, res["links"])
    assert res["flows"][0]["size"] == 2048 and res["flows"][1]["size"] == int(v["traffic2.size"])
    assert res["flows"][1]["received"] > 0
    assert res["switches"][0]["mode"] == v["S.mode"], (v, res["switches"][0]["mode"])
PY

# `make plots` draws from docs/figures/incast.txt, the file docs/performance-model.md shows
awk '/^```/ { if (inb) exit; getline l; if (l == "# incast.txt") { inb = 1; print l }; next } inb' \
    docs/performance-model.md >"$d/incast-doc.txt"
if cmp -s "$d/incast-doc.txt" docs/figures/incast.txt; then ok; else
    bad "docs/figures/incast.txt differs from the incast.txt of docs/performance-model.md"; fi

# figures
if ! "$python" -c 'import matplotlib' 2>/dev/null; then
    bad "$python has no matplotlib (scripts/deps.sh installs python3-matplotlib)"
else
    if "$gbvp" model "$d/net.txt" --sweep link1.gear=HS-G1B,HS-G3B --sweep traffic1.size=64,2048 \
        --sweep link1.lanes=1,2 -j2 --quiet --plot "$d/plots" >"$d/plot.out" 2>&1; then ok; else
        bad "--plot failed: $(cat "$d/plot.out")"; fi
    if "$python" tests/model/check_plots.py "$d/plots" goodput_vs_size latency_cdf queue_depth
    then ok; else bad "the figures do not hold the table's series"; fi
    # a swept gear of another link than the first, and duration, get lines of their own:
    # no line holds two configurations at one size
    if "$gbvp" model "$d/net.txt" --sweep link3.gear=HS-G1B,HS-G3B --sweep traffic1.size=256,2048 \
        --sweep duration=20us,50us -j2 --quiet --plot "$d/plots3" >"$d/plot3.out" 2>&1 &&
        "$python" tests/model/check_plots.py "$d/plots3" goodput_vs_size; then ok; else
        bad "--plot of link3.gear and duration: $(cat "$d/plot3.out")"; fi
    # without a switch there is no queue to draw, and the plotter says so
    "$gbvp" model --sweep size=64,256 --duration 20us --quiet --plot "$d/noswitch" >"$d/ns.out" 2>&1
    if grep -q "no queue_depth figure: no switch queue depth series" "$d/ns.out" &&
        [ -f "$d/noswitch/goodput_vs_size.svg" ] && [ ! -f "$d/noswitch/queue_depth.svg" ]; then ok
    else bad "--plot without a switch: $(cat "$d/ns.out")"; fi
fi

echo "model-sweep: $passed passed, $failed failed"
[ "$failed" = 0 ]
