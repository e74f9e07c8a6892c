#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden test of the Wireshark dissector on a stored capture: the gbvp and Greybus trees
# (tshark -2 -V -O gbvp,greybus, in UTC) of the packets of CAPTURE that match the display
# FILTER must equal the text stored in GOLDEN. With UPDATE=1 the text is written to GOLDEN
# instead (review the diff before committing it).
#
#   tests/wireshark/golden.sh CAPTURE FILTER GOLDEN
#   UPDATE=1 tests/wireshark/golden.sh run.pcapng 'greybus.protocol == 0x02' gpio.golden
#
# Prints "golden: PASS|FAIL|UPDATED GOLDEN" (a diff on failure) and exits non-zero on
# failure; prints "golden: SKIP GOLDEN (tshark not installed)" and exits 0 without tshark.
# The first lines of the output depend on the tshark version only through the frame
# summary line, since only the two protocols of the dissector are expanded.
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 CAPTURE FILTER GOLDEN (UPDATE=1 to write GOLDEN)" >&2
    exit 2
fi
cap=$1 filter=$2 golden=$3
lua=$(cd "$(dirname "$0")/../.." && pwd)/tools/wireshark/greybus.lua

if ! command -v tshark >/dev/null 2>&1; then
    echo "golden: SKIP $golden (tshark not installed)"
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! TZ=UTC tshark -n -2 -V -O gbvp,greybus -X "lua_script:$lua" -r "$cap" -Y "$filter" \
    >"$tmp/out" 2>"$tmp/err"; then
    echo "golden: FAIL $golden (tshark failed: $(grep -v '^Running as user' "$tmp/err" | head -3))"
    exit 1
fi
if grep -v '^Running as user' "$tmp/err" | grep -q .; then
    echo "golden: FAIL $golden (tshark: $(grep -v '^Running as user' "$tmp/err" | head -3))"
    exit 1
fi
if [ ! -s "$tmp/out" ]; then
    echo "golden: FAIL $golden (no packet of $cap matches '$filter')"
    exit 1
fi

if [ "${UPDATE:-0}" = 1 ]; then
    mkdir -p "$(dirname "$golden")"
    cp "$tmp/out" "$golden"
    echo "golden: UPDATED $golden ($(grep -c '^Frame ' "$golden") packets)"
    exit 0
fi
if [ ! -f "$golden" ]; then
    echo "golden: FAIL $golden (missing; UPDATE=1 writes it)"
    exit 1
fi
if diff -u "$golden" "$tmp/out" >"$tmp/diff"; then
    echo "golden: PASS $golden"
    exit 0
fi
head -60 "$tmp/diff"
n=$(grep -c '^[-+][^-+]' "$tmp/diff")
echo "golden: FAIL $golden ($n differing lines; UPDATE=1 rewrites it)"
exit 1
