#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot smoke test: builds the guest (cached), boots it in QEMU under TCG with an xHCI
# controller, and checks through the guest agent that the kernel is ours, that the Greybus
# core and every class driver registered, that exit statuses travel back, and that the guest
# powers QEMU off. Prints the boot time (QEMU start to agent ready) and ends with
# "N passed, N failed". GBVP_ARCH=arm64 runs it on the arm64 guest (QEMU virt) instead.
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
arch=${GBVP_ARCH:-x86_64}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

run_dir=$(mktemp -d /tmp/gbvp-boot.XXXXXX)
qemu_pid=
cleanup() {
    if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
        kill "$qemu_pid" 2>/dev/null
        sleep 0.5
        kill -9 "$qemu_pid" 2>/dev/null
    fi
    if [ "$failed" -eq 0 ]; then rm -rf "$run_dir"; else echo "boot_test: logs kept in $run_dir"; fi
}
trap cleanup EXIT

# --- build ---------------------------------------------------------------------------------
if [ ! -x "$gbvp" ]; then
    make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
fi
t0=$(date +%s.%N)
if paths=$(scripts/build-guest.sh --arch "$arch" 2>"$run_dir/build.log"); then
    ok "$arch guest kernel and initramfs built ($(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s, cached after the first run)"
else
    not_ok "scripts/build-guest.sh" "$(tail -n 20 "$run_dir/build.log")"
    finish
fi
kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
initrd=$(sed -n 's/^initramfs: //p' <<<"$paths")

# --- boot ----------------------------------------------------------------------------------
t0=$(date +%s%N)
if out=$(scripts/run-guest.sh --arch "$arch" --background --dir "$run_dir" --kernel "$kernel" --initrd "$initrd" \
             --device qemu-xhci,id=xhci 2>&1); then
    qemu_pid=$(cat "$run_dir/qemu.pid")
    ok "QEMU started: $(awk '{print $1}' "$run_dir/qemu.cmdline")"
else
    not_ok "scripts/run-guest.sh --background" "$out"
    finish
fi
sock=$run_dir/agent.sock
agent() { "$gbvp" agent --socket "$sock" --wait 30 --timeout 60 -- "$@"; }

if "$gbvp" agent --socket "$sock" --wait 180 --wait-ready >/dev/null 2>"$run_dir/ready.err"; then
    t1=$(date +%s%N)
    boot_ms=$(( (t1 - t0) / 1000000 ))
    ok "agent ready"
    echo "boot time (QEMU start to agent ready, TCG, $arch): $(printf '%d.%03d' $((boot_ms / 1000)) $((boot_ms % 1000))) s"
else
    not_ok "agent ready within 180 s" "$(cat "$run_dir/ready.err")" "console tail:" \
        "$(tail -n 15 "$run_dir/console.log" 2>/dev/null)"
    finish
fi

# --- checks through the agent --------------------------------------------------------------
release=$(agent uname -r 2>&1); rc=$?
if [ $rc -eq 0 ] && [[ $release =~ ^6\.1\.[0-9]+-gbvp$ ]]; then
    ok "uname -r is the gbvp 6.1 kernel ($release)"
else
    not_ok "uname -r prints 6.1.N-gbvp and exits 0" "status $rc, output: $release"
fi

bus=$(agent ls /sys/bus/greybus 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -qx devices <<<"$bus" && grep -qx drivers <<<"$bus"; then
    ok "/sys/bus/greybus exists with devices/ and drivers/"
else
    not_ok "ls /sys/bus/greybus lists devices and drivers" "status $rc, output: $bus"
fi

want_greybus="bootrom gb-audio gb-firmware gbphy hid lights log loopback power_supply raw vibrator"
want_gbphy="gpio i2c pwm sdio spi uart usb"
drivers=$(agent 'ls /sys/bus/greybus/drivers; echo --; ls /sys/bus/gbphy/drivers; echo --; ls /sys/bus/usb/drivers' 2>&1)
missing=
for d in $want_greybus; do
    sed -n '1,/^--$/p' <<<"$drivers" | grep -qx "$d" || missing+=" greybus:$d"
done
for d in $want_gbphy; do
    sed -n '/^--$/,/^--$/p' <<<"$drivers" | grep -qx "$d" || missing+=" gbphy:$d"
done
sed -n '/^--$/,$p' <<<"$drivers" | grep -qx es2_ap_driver || missing+=" usb:es2_ap_driver"
if [ -z "$missing" ]; then
    ok "gb-es2 and all $(wc -w <<<"$want_greybus $want_gbphy") class drivers registered"
else
    not_ok "every Greybus driver registered" "missing:$missing"
fi

usb=$(agent 'ls /sys/bus/usb/devices' 2>&1)
if grep -qx usb1 <<<"$usb"; then
    ok "qemu-xhci probed (root hub usb1)"
else
    not_ok "qemu-xhci probed: /sys/bus/usb/devices has usb1" "$usb"
fi

agent 'echo to-stderr >&2; exit 42' >"$run_dir/exit.out" 2>&1; rc=$?
if [ $rc -eq 42 ] && grep -qx to-stderr "$run_dir/exit.out"; then
    ok "exit status and stderr come back (42)"
else
    not_ok "exit 42 comes back as status 42 with stderr" "status $rc, output: $(cat "$run_dir/exit.out")"
fi

"$gbvp" agent --socket "$sock" --timeout 1 -- 'sleep 30' >/dev/null 2>&1; rc=$?
if [ $rc -eq 124 ]; then
    ok "a command past its timeout is killed (status 124)"
else
    not_ok "sleep 30 with --timeout 1 ends with status 124" "status $rc"
fi

# A client that sent a RUN header and half its command, then left (killed mid-send): the next
# client's break ends that request, and the half command never runs.
if timeout 20 /usr/bin/python3 - "$sock" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b"\nPING half.p0\n")   # the agent reads this channel now
got = b""
while b"PONG half.p0\n" not in got:
    chunk = s.recv(4096)
    if not chunk:
        sys.exit("channel closed before PONG")
    got += chunk
s.sendall(b"RUN half.r0 0 60000\ntouch /tmp/half-command-ran; echo ")
time.sleep(2)   # QEMU passes it to the guest before this client leaves
s.close()
EOF
then
    after=$("$gbvp" agent --socket "$sock" --wait 30 --timeout 30 -- \
            'test -e /tmp/half-command-ran && echo ran; echo after' 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ "$after" = after ]; then
        ok "a request an earlier client left half sent is dropped; the next client runs"
    else
        not_ok "after a half-sent request, the next client runs (and the half command does not)" \
            "status $rc, output: $after"
    fi
else
    not_ok "send half a request to $sock"
fi

mounts=$(agent 'cat /proc/mounts' 2>&1)
missing=
for fs in proc sysfs devtmpfs debugfs; do
    grep -q " $fs " <<<"$mounts" || missing+=" $fs"
done
if [ -z "$missing" ]; then ok "proc, sysfs, devtmpfs and debugfs mounted"; else not_ok "pseudo file systems mounted" "missing:$missing"; fi

# --- power off -----------------------------------------------------------------------------
agent 'reboot -f' >/dev/null 2>&1
for _ in $(seq 1 100); do kill -0 "$qemu_pid" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$qemu_pid" 2>/dev/null; then
    not_ok "QEMU exits within 20 s of 'reboot -f' in the guest"
else
    ok "QEMU exited after 'reboot -f' in the guest"
fi
finish
