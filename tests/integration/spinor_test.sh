#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The SPI NOR flash behind a Greybus SPI module, used by the real 6.1 kernel: spilib declares
# the chip select of type SPI NOR, the spi-nor core probes the W25Q32 by its JEDEC id and
# registers /dev/mtdN, and mtd-utils (flashcp, mtd_debug, flash_erase) read, program and
# erase it. The module keeps the array in a host file (catalog copy with flash-file set):
# the file holds every byte the guest wrote while the module is in, and after a removal and
# a new insertion the guest reads them back. Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

# A catalog with `norfile`: the catalog's spinor module with flash-file = flash.bin, beside
# it (relative paths are the behaviour file's directory's). The file starts erased, with a
# marker the guest must read.
catalog=$run_dir/catalog
flash=$catalog/flash.bin
mkdir -p "$catalog"
cp virtual-modules/catalog/spinor.mnfs "$catalog/norfile.mnfs"
sed 's/^# flash-file = flash.bin$/flash-file = flash.bin/' \
    virtual-modules/catalog/spinor.behaviour >"$catalog/norfile.behaviour"
head -c 4194304 /dev/zero | tr '\0' '\377' >"$flash"
printf 'gbvp-marker' | dd of="$flash" bs=1 seek=$((0x3ff000)) conv=notrunc 2>/dev/null
grep -q '^flash-file = flash.bin$' "$catalog/norfile.behaviour" ||
    { not_ok "catalog/spinor.behaviour has the '# flash-file = flash.bin' line to enable"; finish; }

gbvp_boot --slots 2 --catalog "$catalog"
sim_send "insert 0 norfile"
if wait_guest 60 "grep -q '\"spi[0-9]*\.0\"' /proc/mtd"; then
    ok "an MTD device appears after insertion"
else
    not_ok "an MTD device within 60 s" "$(agent 'cat /proc/mtd; dmesg | tail -n 10')"
    finish
fi
line=$(agent "grep '\"spi[0-9]*\.0\"' /proc/mtd")
mtd=/dev/${line%%:*}
if [[ $line =~ ^mtd[0-9]+:\ 00400000\ 00001000\ \"spi[0-9]+\.0\"$ ]]; then
    ok "$mtd: 4 MiB, 4 KiB erase blocks ($line)"
else
    not_ok "/proc/mtd line" "got '$line', want 'mtdN: 00400000 00001000 \"spiB.0\"'"
fi
probe=$(agent "dmesg | grep spi-nor")
if [[ $probe == *"w25q32 (4096 Kbytes)"* ]]; then
    ok "spi-nor probed the JEDEC id as a w25q32"
else
    not_ok "spi-nor probe message" "$probe"
fi

# The guest reads what the host file held before insertion.
got=$(agent "mtd_debug read $mtd 0x3ff000 11 /tmp/m >/dev/null && cat /tmp/m")
check "read: the host file's marker at 0x3ff000 ($got)" [ "$got" = gbvp-marker ]

# flashcp: erase, program, verify; the host file holds the image at once.
agent "dd if=/dev/urandom of=/tmp/img bs=1024 count=70 2>/dev/null" >/dev/null
want=$(agent "md5sum /tmp/img" | cut -d' ' -f1)
out=$(agent "flashcp /tmp/img $mtd && echo flashcp-ok" 2>&1)
host=$(head -c 71680 "$flash" | md5sum | cut -d' ' -f1)
if [[ $out == *flashcp-ok* ]] && [ "$host" = "$want" ]; then
    ok "flashcp writes and verifies 70 KiB; the host file holds them (md5 $want)"
else
    not_ok "flashcp 70 KiB" "guest: ${out//$'\n'/ | }" "host md5 $host, image md5 $want"
fi
back=$(agent "mtd_debug read $mtd 0 71680 /tmp/back >/dev/null && md5sum /tmp/back" | cut -d' ' -f1)
check "mtd_debug read returns the image (md5 $back)" [ "$back" = "$want" ]

# mtd_debug write into erased flash; flash_erase of two sectors inside the image.
agent "printf 'hello flash' >/tmp/h && mtd_debug write $mtd 0x200000 11 /tmp/h" >/dev/null
got=$(dd if="$flash" bs=1 skip=$((0x200000)) count=11 2>/dev/null)
check "mtd_debug write: the host file has 'hello flash' at 0x200000" [ "$got" = "hello flash" ]
agent "flash_erase -q $mtd 0x10000 2" >/dev/null
head64=$(agent "head -c 65536 /tmp/img | md5sum" | cut -d' ' -f1)
if cmp -s <(dd if="$flash" bs=4096 skip=16 count=2 2>/dev/null) \
          <(head -c 8192 /dev/zero | tr '\0' '\377') &&
   [ "$(head -c 65536 "$flash" | md5sum | cut -d' ' -f1)" = "$head64" ]; then
    ok "flash_erase 0x10000, 2 blocks: 0xff there in the host file, the image before intact"
else
    not_ok "flash_erase 2 sectors" \
        "$(dd if="$flash" bs=4096 skip=16 count=2 2>/dev/null | od -An -tx1 | head -n 2)"
fi

stats=$(sim_cmd 0 spi flash)
if [[ $stats == "cs 0 part w25q32 id ef4016 size 4194304 file $flash status 0x00 0x00 "* ]] &&
   [[ $stats == *" io-errors 0" ]] && [[ ! $stats =~ " programs 0 " ]]; then
    ok "spi flash: ${stats#* file * }"
else
    not_ok "spi flash" "$stats"
fi

# Removal closes the file; inserted again, the flash holds the same bytes.
sim_send "remove 0"
if wait_modules_gone 60 && [ -z "$(agent "grep spi /proc/mtd")" ]; then
    ok "removal: $mtd is gone"
else
    not_ok "removal: the MTD device disappears" "$(agent 'cat /proc/mtd')"
fi
before=$(head -c 4194304 "$flash" | md5sum | cut -d' ' -f1)
sim_send "insert 0 norfile"
wait_guest 60 "grep -q '\"spi[0-9]*\.0\"' /proc/mtd" ||
    not_ok "the MTD device again after reinsertion"
line=$(agent "grep '\"spi[0-9]*\.0\"' /proc/mtd")
mtd=/dev/${line%%:*}
# (64 KiB reads: 6.1's spilib copies the rest of a long transfer after every operation's
# answer, quadratic in the read's length, so one 4 MiB read takes some 20 s of guest time)
again=$(agent "dd if=$mtd bs=65536 2>/dev/null | md5sum" | cut -d' ' -f1)
check "reinserted: the guest reads the whole flash as the host file has it (md5 $before)" \
    [ "$again" = "$before" ]

# Chip erase (flash_erase of the whole device sends 0xc7).
agent "flash_erase -q $mtd 0 0" >/dev/null
if cmp -s "$flash" <(head -c 4194304 /dev/zero | tr '\0' '\377'); then
    ok "flash_erase of the whole device: the host file is all 0xff"
else
    not_ok "chip erase" "$(sim_cmd 0 spi flash)"
fi

mark_a=$(dmesg_lines)
sim_send "remove 0"
wait_modules_gone 60 || not_ok "removal: module gone within 60 s"
dmesg_verdict "$mark_a" "$(dmesg_lines)"
finish
