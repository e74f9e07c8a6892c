#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An SD card behind a Greybus SDIO module, used by the real 6.1 kernel: gb-sdio registers an
# MMC host, the MMC core probes the card the module reports inserted (SDHC, 4-bit bus, high
# speed) and mmc_block makes it /dev/mmcblk0. The card's bytes are a host image file (a
# catalog copy with card = card.img) holding an ext2 file system made on the host: the guest
# mounts it and reads the host's file, its writes land in the image, and the card leaves
# and comes back with the backend commands sdio remove / sdio insert. Ends with "N passed,
# N failed".
source "$(dirname "$0")/lib.sh"

catalog=$run_dir/catalog
image=$catalog/card.img
mkdir -p "$catalog" "$run_dir/fs"
cp virtual-modules/catalog/sdcard.mnfs "$catalog/sdfile.mnfs"
sed 's/^card-size = .*$/card = card.img/' virtual-modules/catalog/sdcard.behaviour \
    >"$catalog/sdfile.behaviour"
grep -q '^card = card.img$' "$catalog/sdfile.behaviour" ||
    { not_ok "catalog/sdcard.behaviour has the card-size line to replace"; finish; }
echo "made on the host" >"$run_dir/fs/hello.txt"
truncate -s 16M "$image"
if ! out=$(mke2fs -q -F -t ext2 -d "$run_dir/fs" "$image" 2>&1); then
    not_ok "mke2fs -d on the host" "$out"; finish
fi

gbvp_boot --slots 2 --catalog "$catalog"
sdio_connections='[0-9]+/2:1'   # slot 0: the card's SDIO probe timeouts are expected there
sim_send "insert 0 sdfile"
if wait_guest 60 '[ -b /dev/mmcblk0 ]'; then
    ok "/dev/mmcblk0 appears after insertion"
else
    not_ok "/dev/mmcblk0 within 60 s" "$(agent 'dmesg | tail -n 15')"
    finish
fi
# Keep the slot awake: a runtime-suspended bundle has no connection for the module's events
# (the last part of the test lets it sleep).
agent 'for c in /sys/bus/gbphy/devices/*/power/control; do echo on >$c; done' >/dev/null
sectors=$(agent 'cat /sys/block/mmcblk0/size')
check "mmcblk0 has the image's 32768 sectors ($sectors)" [ "$sectors" = 32768 ]
probe=$(agent 'dmesg | grep -E "mmc[0-9]+: new|mmcblk0: mmc"')
if [[ $probe == *"new high speed SDHC card at address"* ]] && [[ $probe == *"GBVSD 16.0 MiB"* ]]; then
    ok "the MMC core probed a high speed SDHC card: ${probe//$'\n'/ | }"
else
    not_ok "probe messages" "$probe"
fi
width=$(agent 'cat /sys/kernel/debug/mmc*/ios 2>/dev/null | grep -E "bus width|timing spec"')
check "4-bit bus, SD high speed timing (${width//$'\n'/, })" \
    grep -q "bus width:.*(4 bits)" <<<"$width"

got=$(agent 'mkdir -p /tmp/sd && mount -t ext2 /dev/mmcblk0 /tmp/sd && cat /tmp/sd/hello.txt')
check "the guest mounts the host's ext2 and reads its file ($got)" [ "$got" = "made on the host" ]
agent 'dd if=/dev/urandom of=/tmp/sd/guest.bin bs=1024 count=300 2>/dev/null; echo written by the guest >/tmp/sd/guest.txt; md5sum /tmp/sd/guest.bin >/tmp/md5; umount /tmp/sd' >/dev/null
want=$(agent 'cut -d" " -f1 /tmp/md5')
host_txt=$(debugfs -R 'cat /guest.txt' "$image" 2>/dev/null)
host_md5=$(debugfs -R 'cat /guest.bin' "$image" 2>/dev/null | md5sum | cut -d' ' -f1)
if [ "$host_txt" = "written by the guest" ] && [ "$host_md5" = "$want" ]; then
    ok "after umount the host image holds the guest's files (300 KiB, md5 $want)"
else
    not_ok "guest writes in the host image" "guest.txt '$host_txt'" "guest.bin $host_md5, want $want"
fi
stats=$(sim_cmd 0 sdio stats)
if [[ $stats == "card present state tran size 16777216 image $image wp off "* ]] &&
   [[ $stats == *" io-errors 0 "* ]] && [[ $stats == *" data-errors 0 "* ]]; then
    ok "sdio stats: ${stats#* wp off }"
else
    not_ok "sdio stats" "$stats"
fi

# Card removal and insertion, the module staying in.
out=$(sim_cmd 0 sdio remove)
if wait_guest 30 '[ ! -b /dev/mmcblk0 ]'; then
    ok "sdio remove: /dev/mmcblk0 goes ($(agent 'dmesg | grep -c "card removed now event"') removal event(s))"
else
    not_ok "sdio remove: /dev/mmcblk0 disappears" "$out" "$(agent 'dmesg | tail -n 5')"
fi
# the image is closed and unlocked while out of the slot: the host may change it
debugfs -w -R 'rm /hello.txt' "$image" >/dev/null 2>&1
out=$(sim_cmd 0 sdio insert)
if wait_guest 30 '[ -b /dev/mmcblk0 ]'; then
    got=$(agent 'mount -t ext2 /dev/mmcblk0 /tmp/sd && ls /tmp/sd | tr "\n" " "; cat /tmp/sd/guest.txt; umount /tmp/sd')
    check "sdio insert: the card again, with the host's change and the guest's file ($got)" \
        [ "$got" = "guest.bin guest.txt lost+found written by the guest" ]
else
    not_ok "sdio insert: /dev/mmcblk0 again" "$out" "$(agent 'dmesg | tail -n 5')"
fi

mark_a=$(dmesg_lines)
problems=$(dmesg_problems 1 "$mark_a"; agent 'dmesg | grep -E "mmc.*(error|timeout)|mmcblk.*error"')
check "dmesg: no WARN, BUG, oops, greybus or MMC error" [ -z "$problems" ]

# The card swapped while the AP has the bundle runtime-suspended: the events cannot reach
# it; on its next request the slot says "removed" and "inserted", and the guest gets the
# card back after the errors of the requests that met the new card.
agent 'for c in /sys/bus/gbphy/devices/*/power/control; do echo auto >$c; done' >/dev/null
if wait_guest 30 'grep -q suspended /sys/bus/gbphy/devices/*/power/runtime_status'; then
    sim_cmd 0 sdio remove >/dev/null && sim_cmd 0 sdio insert >/dev/null
    agent 'echo 3 >/proc/sys/vm/drop_caches; dd if=/dev/mmcblk0 of=/dev/null bs=4096 count=1' >/dev/null 2>&1
    if wait_guest 60 'mount -t ext2 /dev/mmcblk0 /tmp/sd 2>/dev/null && cat /tmp/sd/guest.txt >/tmp/got; umount /tmp/sd; [ -s /tmp/got ]'; then
        ok "a card swapped while the slot slept: the guest reads it after $(agent 'dmesg | grep -c "card removed now event"') removal event(s) in all"
    else
        not_ok "card swapped while suspended: mount works again within 60 s" "$(agent 'dmesg | tail -n 12')"
    fi
    crashes=$(dmesg_crashes "$mark_a")
    check "no WARN, BUG or oops after the swap" [ -z "$crashes" ]
else
    not_ok "the gbphy device runtime-suspends within 30 s" "$(agent 'cat /sys/bus/gbphy/devices/*/power/runtime_status')"
fi
# The write-protect switch is read when a card is initialised: the next card is read-only.
agent 'for c in /sys/bus/gbphy/devices/*/power/control; do echo on >$c; done' >/dev/null
sim_cmd 0 sdio remove >/dev/null
wait_guest 30 "[ ! -e /dev/mmcblk0 ]"
sim_cmd 0 sdio wp on >/dev/null
sim_cmd 0 sdio insert >/dev/null
# (busybox mount falls back to read-only on a write-protected disk)
wp=
wait_guest 30 "[ -b /dev/mmcblk0 ]" &&
    wp=$(agent "cat /sys/block/mmcblk0/ro; mount -t ext2 /dev/mmcblk0 /tmp/sd 2>/dev/null;
                grep ' /tmp/sd ' /proc/mounts | cut -d' ' -f4 | cut -d, -f1;
                echo x 2>/dev/null >/tmp/sd/new && echo wrote; [ -s /tmp/sd/guest.txt ] && echo reads; umount /tmp/sd")
if [ "$wp" = $'1\nro\nreads' ]; then
    ok "write-protect switch on: the next card is read-only (ro 1), mounted read-only, no write, its files read"
else
    not_ok "write protect" "${wp//$'\n'/ | }" "$(agent 'dmesg | tail -n 5')"
fi
sim_send "remove 0"
if wait_modules_gone 60 && wait_guest 10 "[ ! -e /dev/mmcblk0 ] && [ -z \"\$(ls /sys/class/mmc_host/)\" ]"; then
    ok "module removal: the MMC host and the disk are gone"
else
    not_ok "module removal removes the MMC host" "$(agent 'ls /sys/class/mmc_host/ /dev/mmcblk*' 2>&1)"
fi
finish
