#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes a gbvp firmware image (layout: virtual-modules/fw_image.h) around a manifest text:
#   mkfw.sh OUT NAME MAJOR MINOR MANIFEST SIZE [--corrupt]
# SIZE is the whole image in bytes (filler 0xa5 after the manifest). The CRC-32 is the one
# gzip stores in its trailer. --corrupt flips one filler byte after the CRC was computed (an
# image the module must refuse). Prints "OUT SIZE CRC".
set -euo pipefail
[ $# -ge 6 ] || { echo "usage: mkfw.sh OUT NAME MAJOR MINOR MANIFEST SIZE [--corrupt]" >&2; exit 2; }
out=$1 name=$2 major=$3 minor=$4 manifest=$5 size=$6 corrupt=${7:-}
mlen=$(stat -c %s "$manifest")
[ ${#name} -le 32 ] || { echo "mkfw.sh: name longer than 32 bytes" >&2; exit 1; }
fill=$((size - 64 - mlen))
[ "$fill" -ge 1 ] || { echo "mkfw.sh: SIZE $size too small for a $mlen-byte manifest" >&2; exit 1; }

bytes() { local v; for v in "$@"; do printf "\\$(printf %03o "$v")"; done; }
le16() { bytes $(($1 & 255)) $(($1 >> 8 & 255)); }
le32() { bytes $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{   # bytes 16.. : what the CRC covers
    le16 "$major"; le16 "$minor"; le32 64; le32 "$mlen"; le32 0
    printf '%s' "$name"; head -c $((32 - ${#name})) /dev/zero
    cat "$manifest"
    head -c "$fill" /dev/zero | tr '\000' '\245'
} >"$tmp/body"
gzip -c -n "$tmp/body" | tail -c 8 | head -c 4 >"$tmp/crc"
{ printf 'GBVPTFTF'; le32 "$size"; cat "$tmp/crc" "$tmp/body"; } >"$tmp/image"
if [ "$corrupt" = --corrupt ]; then
    printf '\132' | dd of="$tmp/image" bs=1 seek=$((size - 1)) conv=notrunc status=none
fi
[ "$(stat -c %s "$tmp/image")" -eq "$size" ] || { echo "mkfw.sh: wrote the wrong size" >&2; exit 1; }
mv "$tmp/image" "$out"
echo "$out $size 0x$(od -An -tx4 "$tmp/crc" | tr -d ' ')"
