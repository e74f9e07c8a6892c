#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The guest kernel carries what a distribution's userland expects (guest/linux.config,
# "what a distribution's userland expects"): libgpiod's gpiomon, dynamically linked as
# Debian ships it, sees module-side edges on a catalog GPIO module's line (it takes its
# signals through signalfd: "error creating signalfd" on a kernel without it); gpiodetect
# and gpioget work on the same chip; gbvp-userland-probe (guest/tools/userland-probe.c) uses
# eventfd, timerfd, epoll, signalfd, inotify, fanotify, file handles, AF_UNIX, the uevent
# netlink socket, memfd, POSIX message queues, System V IPC and namespaces; the allocator is
# SLUB; cgroup2 mounts; loop devices carry ext2 and vfat (busybox mke2fs, mkdosfs); the MMC
# block driver and MTD are registered. Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

gbvp_boot --slots 2 --insert 0:sensor
G=/sys/bus/greybus/devices
if wait_guest 60 "ls $G/1-2.2.1/gbphy*/ 2>/dev/null | grep -qE '^gpiochip[0-9]+\$'"; then
    ok "the sensor module's GPIO controller is bound"
else
    not_ok "the sensor's gpiochip appears within 60 s" "$(agent "ls $G" | tr '\n' ' ')"
    finish
fi
chip=$(agent "ls $G/1-2.2.1/gbphy*/ | grep -E '^gpiochip[0-9]+\$'")

# --- libgpiod's tools ----------------------------------------------------------------------
out=$(agent "/usr/bin/gpiodetect" 2>&1)
if grep -q "^$chip \[" <<<"$out"; then
    ok "gpiodetect lists $chip (${out//$'\n'/; })"
else
    not_ok "gpiodetect lists $chip" "$out"
fi
sim_cmd 0 gpio set 1 1 >/dev/null
v1=$(agent "/usr/bin/gpioget $chip 1" 2>&1)
sim_cmd 0 gpio set 1 0 >/dev/null
v0=$(agent "/usr/bin/gpioget $chip 1" 2>&1)
if [ "$v1" = 1 ] && [ "$v0" = 0 ]; then
    ok "gpioget reads the module-driven line 1 (1, then 0)"
else
    not_ok "gpioget reads line 1 as the module drives it" "read '$v1' then '$v0'"
fi
# gpiomon on line 3: two edges, line-buffered, "<event type> <offset>" per line (1 rising,
# 0 falling). Ready once gpioinfo shows the line requested by gpiomon.
agent "rm -f /tmp/mon; (timeout 30 /usr/bin/gpiomon -b -n 2 -F '%e %o' $chip 3 >/tmp/mon 2>&1 </dev/null &)" >/dev/null 2>&1
if wait_guest 20 "/usr/bin/gpioinfo $chip | grep -E 'line +3:' | grep -q gpiomon || [ -s /tmp/mon ]"; then
    a=$(sim_cmd 0 gpio set 3 1); b=$(sim_cmd 0 gpio set 3 0)
    wait_guest 15 "[ \$(grep -c . /tmp/mon) -ge 2 ]"
    out=$(agent 'cat /tmp/mon' 2>&1)
    if [ "$out" = "$(printf '1 3\n0 3')" ]; then
        ok "gpiomon sees the module's rising and falling edges on line 3"
    else
        not_ok "gpiomon reports a rising then a falling edge on line 3" "sim: '$a' '$b'" "guest: ${out//$'\n'/ | }"
    fi
else
    not_ok "gpiomon requests line 3 of $chip" "$(agent 'cat /tmp/mon' 2>&1)"
fi

# --- the probe: one check per interface ----------------------------------------------------
out=$(agent /usr/bin/gbvp-userland-probe 2>&1); rc=$?
n=0
while IFS= read -r line; do
    case $line in
    "ok "*) ok "probe: ${line#ok }"; n=$((n + 1)) ;;
    "FAIL "*) not_ok "probe: ${line#FAIL }"; n=$((n + 1)) ;;
    esac
done <<<"$out"
if [ "$rc" -ne 0 ] || [ "$n" -lt 13 ]; then
    not_ok "gbvp-userland-probe ran all 13 checks and exited 0" "status $rc, $n checks: $out"
fi

# --- kernel features for systemd, udev and the storage work -------------------------------
out=$(agent '[ -d /sys/kernel/slab ] && echo slub' 2>&1)
[ "$out" = slub ] && ok "the allocator is SLUB (/sys/kernel/slab)" || not_ok "SLUB: /sys/kernel/slab exists" "$out"
out=$(agent 'mkdir -p /tmp/cg && mount -t cgroup2 none /tmp/cg && cat /tmp/cg/cgroup.controllers >/dev/null && umount /tmp/cg && echo mounted' 2>&1)
[ "$out" = mounted ] && ok "cgroup2 mounts" || not_ok "mount -t cgroup2" "$out"
out=$(agent 'cat /proc/sys/kernel/osrelease' 2>&1)
[[ $out == 6.1.* ]] && ok "/proc/sys is there ($out)" || not_ok "/proc/sys/kernel/osrelease" "$out"
for fs in ext2 vfat; do
    mk=$([ $fs = ext2 ] && echo mke2fs || echo mkdosfs)
    out=$(AGENT_TIMEOUT=90 agent "set -e; rm -f /tmp/$fs.img; dd if=/dev/zero of=/tmp/$fs.img bs=1024 count=2048 2>/dev/null; d=\$(losetup -f); losetup \$d /tmp/$fs.img; $mk \$d >/dev/null 2>&1; mkdir -p /mnt/$fs; mount -t $fs \$d /mnt/$fs; echo hello-$fs >/mnt/$fs/f; umount /mnt/$fs; mount -t $fs \$d /mnt/$fs; cat /mnt/$fs/f; umount /mnt/$fs; losetup -d \$d; rm /tmp/$fs.img" 2>&1)
    [ "$out" = "hello-$fs" ] && ok "$fs on a loop device: a file written, remounted, read back" ||
        not_ok "$fs on a loop device" "$out"
done
out=$(agent 'grep -E " (mmc|mtdblock)$" /proc/devices | sort -k2; grep -E " mtd$" /proc/devices; [ -e /proc/mtd ] && echo proc-mtd' 2>&1)
if grep -q ' mmc$' <<<"$out" && grep -q ' mtdblock$' <<<"$out" && grep -q ' mtd$' <<<"$out" && grep -q proc-mtd <<<"$out"; then
    ok "MMC block, MTD char and mtdblock majors registered, /proc/mtd there (${out//$'\n'/; })"
else
    not_ok "MMC block (mmc), MTD (mtd, mtdblock) in /proc/devices and /proc/mtd" "$out"
fi

mark_a=$(dmesg_lines)
sim_send "remove 0"
wait_modules_gone 60 || not_ok "the sensor removed within 60 s"
dmesg_verdict "$mark_a" "$(dmesg_lines)"
finish
