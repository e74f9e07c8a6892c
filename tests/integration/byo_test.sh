#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bring your own kernel and image to gbvp run:
#   no agent     a guest without the agent (--append gbvp.agent=none stands for a kernel or
#                image of the user's own): the default demo falls back to what the simulator
#                sees (enumeration, connections, traffic), says so, and passes; gbvp's own
#                guest without its agent is a failure instead
#   --image      a disk image the guest sees as /dev/vda: the host's ext4 (mke2fs -d) mounts
#                and reads back, the guest's write is in the file afterwards (debugfs);
#                --qemu-arg (-m 384) and --append reach QEMU and the kernel
#   root on it   --initrd none --image ROOT: the kernel mounts the image as its root (gbvp's
#                guest userland, copied into an ext4 image) and the default demo passes
#   bad input    a missing image, a bad --agent-timeout, --qemu-arg without a value: refused
#                with the reason before anything starts
# Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
for tool in mke2fs debugfs cpio; do
    command -v "$tool" >/dev/null || { not_ok "$tool on the host"; finish; }
done
if ! paths=$(scripts/build-guest.sh 2>"$run_dir/build-guest.log"); then
    not_ok "scripts/build-guest.sh" "$(tail -n 20 "$run_dir/build-guest.log")"; finish
fi
kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
initrd=$(sed -n 's/^initramfs: //p' <<<"$paths")
run() { "$gbvp" run --timeout 600 "$@"; }

# --- bad input ---------------------------------------------------------------------------------
# refused ARGS... -- WANT: gbvp run ARGS exits 2 at once with WANT in its message
refused() {
    local args=() want out rc
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    want=$2
    out=$(run "${args[@]}" 2>&1); rc=$?
    if [ "$rc" = 2 ] && [[ $out == *"$want"* ]]; then
        ok "gbvp run ${args[*]}: refused before anything starts (${out%%$'\n'*})"
    else
        not_ok "gbvp run ${args[*]}: refused with '$want'" "status $rc: $out"
    fi
}
refused --image "$run_dir/none.img" -- "--image $run_dir/none.img: No such file or directory"
refused --agent-timeout 0 -- "want whole seconds, 1..3600"
refused --qemu-arg -- "--qemu-arg needs a value"
refused --timing fast -- "--timing fast: want frame, message or off"
refused --timing -- "--timing needs a value"
refused --sim-cpus 4096 -- "--sim-cpus: '4096' in CPU list '4096' is not a CPU number"
refused --qemu-cpus 0-x -- "--qemu-cpus: '0-x' in CPU list '0-x' is not a CPU number"
refused --sim-cpus 1-0 -- "--sim-cpus: the range 1-0 in CPU list '1-0' runs backwards"

# --- a guest without the agent -------------------------------------------------------------------
run --kernel "$kernel" --initrd "$initrd" --append gbvp.agent=none --agent-timeout 20 \
    >"$run_dir/noagent.out" 2>&1
rc=$?
summary=$(grep -o 'scenario .*demo.lua: [0-9]* passed, [0-9]* failed' "$run_dir/noagent.out")
if [ "$rc" = 0 ] && grep -q "no guest agent (.*): the scenario runs with what the simulator sees" "$run_dir/noagent.out" &&
   grep -q "ok .* - loopback: the guest enumerated it" "$run_dir/noagent.out" &&
   grep -q "ok .* - dual: the guest's drivers sent it requests" "$run_dir/noagent.out"; then
    ok "your own guest without the agent: the demo checks from the network side and says so ($summary)"
else
    not_ok "a guest without the agent: the demo's network-side checks pass" "status $rc" \
        "$(tail -n 8 "$run_dir/noagent.out")"
fi
run --append gbvp.agent=none --agent-timeout 10 >"$run_dir/own-noagent.out" 2>&1
rc=$?
if [ "$rc" != 0 ] && grep -q "guest agent at .*did not answer within 10000 ms" "$run_dir/own-noagent.out"; then
    ok "gbvp's own guest without its agent fails, naming the agent (status $rc)"
else
    not_ok "gbvp's own guest without its agent is a failure" "status $rc" "$(tail -n 4 "$run_dir/own-noagent.out")"
fi

# --- a disk image ----------------------------------------------------------------------------------
mkdir -p "$run_dir/disk"
echo "made on the host" >"$run_dir/disk/hello.txt"
mke2fs -q -F -t ext4 -d "$run_dir/disk" "$run_dir/disk.img" 16M >/dev/null
cat >"$run_dir/disk.lua" <<'EOF'
local rc, out = gbvp.guest("cat /proc/cmdline; sed -n 's/^MemTotal: *//p' /proc/meminfo; " ..
    "cat /sys/block/vda/size; " ..
    "mkdir -p /mnt/d && mount -t ext4 /dev/vda /mnt/d && cat /mnt/d/hello.txt && " ..
    "echo written-in-the-guest > /mnt/d/guest.txt && umount /mnt/d", 60000)
for line in out:gmatch("[^\n]+") do gbvp.log("guest| " .. line) end
gbvp.check_eq(rc, 0, "the disk mounts and takes a write")
gbvp.check(out:match("gbvp%.byo=1") ~= nil, "--append reached the kernel command line")
local mem = tonumber(out:match("\n(%d+) kB\n")) or 0
gbvp.check(mem > 300000, "--qemu-arg -m 384: the guest has " .. mem .. " kB (gbvp's default is 256 MiB)")
gbvp.check(out:match("\n32768\n") ~= nil, "/dev/vda has the image's 32768 sectors")
gbvp.check(out:match("made on the host") ~= nil, "the host's file reads back")
EOF
run --image "$run_dir/disk.img" --append gbvp.byo=1 --qemu-arg -m --qemu-arg 384 \
    --scenario "$run_dir/disk.lua" >"$run_dir/disk.out" 2>&1
rc=$?
back=$(debugfs -R "cat /guest.txt" "$run_dir/disk.img" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$back" = written-in-the-guest ]; then
    ok "--image: /dev/vda of 16 MiB, the host's ext4 reads back, the guest's write is in the file; --append and --qemu-arg -m 384 reached the guest ($(grep -o '[0-9]* passed, [0-9]* failed' "$run_dir/disk.out" | tail -n 1))"
else
    not_ok "--image with --append and --qemu-arg" "status $rc, guest.txt '$back'" "$(grep -E 'not ok|guest\|' "$run_dir/disk.out" | head -n 8)"
fi

# --- the root file system on the image -------------------------------------------------------------
# gbvp's guest userland, unpacked from its initramfs (device nodes included: as root) into an
# ext4 image the kernel mounts as its root, without an initramfs.
mkdir -p "$run_dir/root"
(cd "$run_dir/root" && cpio -id --quiet <"$initrd") 2>"$run_dir/cpio.err"
if [ -x "$run_dir/root/init" ] &&
   mke2fs -q -F -t ext4 -d "$run_dir/root" "$run_dir/root.img" 64M >/dev/null 2>>"$run_dir/cpio.err"; then
    run --initrd none --image "$run_dir/root.img" --append init=/init \
        --log-dir "$run_dir/rootlogs" >"$run_dir/root.out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q "demo.lua: [0-9]* passed, 0 failed" "$run_dir/root.out" &&
       grep -q "Kernel command line: .*root=/dev/vda rw init=/init" "$run_dir/rootlogs/console.log" &&
       grep -q "Mounted root (ext4 filesystem)" "$run_dir/rootlogs/console.log"; then
        ok "--initrd none --image ROOT: the kernel boots from the disk (root=/dev/vda rw) and the default demo passes ($(grep -o 'demo.lua: [0-9]* passed, [0-9]* failed' "$run_dir/root.out"))"
    else
        not_ok "booting from the image" "status $rc" "$(tail -n 6 "$run_dir/root.out")"
    fi
else
    not_ok "a root image from the guest's initramfs (cpio, mke2fs -d)" "$(cat "$run_dir/cpio.err")"
fi
finish
