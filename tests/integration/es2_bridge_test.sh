#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# greybus-es2 end to end: builds QEMU with the device (scripts/build-qemu.sh, cached), checks
# its properties and its refusal of bad ones, boots the guest kernel with the bridge on xHCI
# before the simulator exists, then starts `gbvp sim` and checks that the real gb-es2 driver
# probes (CPort count, endpoints, SVC handshake, a module enumerated) without errors; kills
# the simulator (SIGKILL) and checks for a clean USB disconnect with QEMU and the guest
# alive; starts it again and checks that the bridge comes back. Ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
es2_name=es2_bridge
run_dir=$(mktemp -d /tmp/gbvp-es2.XXXXXX)
source tests/integration/es2_lib.sh
link=$run_dir/gbvp.sock
qemu_pid= sim_pid=
trap 'es2_cleanup "$qemu_pid" "$sim_pid"' EXIT

start_sim() {  # start_sim LOGNAME
    "$gbvp" sim --link "$link" --insert 1:loopback </dev/null >"$run_dir/$1" 2>&1 &
    sim_pid=$!
    disown "$sim_pid"   # no "Killed" job notice when the test kills it
}

# --- build ---------------------------------------------------------------------------------
if [ ! -x "$gbvp" ]; then
    make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
fi
t0=$SECONDS
if bins=$(scripts/build-qemu.sh 2>"$run_dir/build-qemu.log"); then
    ok "QEMU with greybus-es2 built or found in the cache ($((SECONDS - t0)) s)"
else
    not_ok "scripts/build-qemu.sh" "$(tail -n 20 "$run_dir/build-qemu.log")"
    finish
fi
qemu=$(grep 'qemu-system-x86_64$' <<<"$bins")
qemu_arm=$(grep 'qemu-system-aarch64$' <<<"$bins")
fw=(-L /usr/share/seabios -L /usr/share/qemu)

# --- properties ----------------------------------------------------------------------------
for q in "$qemu" $qemu_arm; do
    help=$("$q" -device greybus-es2,help 2>&1)
    if grep -q 'link=<str>' <<<"$help" && grep -q 'cports=<uint16>' <<<"$help" &&
        grep -q 'reconnect-ms=<uint32>' <<<"$help"; then
        ok "$(basename "$q") -device greybus-es2,help lists link, cports and reconnect-ms"
    else
        not_ok "$(basename "$q") -device greybus-es2,help" "$help"
    fi
done

refused() {  # refused DESCRIPTION EXPECTED-TEXT DEVICE-ARGS
    local out rc
    out=$(timeout 30 "$qemu" "${fw[@]}" -M pc -accel tcg -nodefaults -display none -S \
        -device qemu-xhci,id=xhci -device "$3" </dev/null 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q -- "$2" <<<"$out"; then
        ok "$1 is refused: $(head -n 1 <<<"$out" | sed 's/^.*greybus-es2: //')"
    else
        not_ok "$1 is refused with '$2' (exit $rc)" "$out"
    fi
}
refused "a bridge without link=" "property 'link' is required" "greybus-es2,bus=xhci.0"
refused "cports=300" "cports=300 is out of range" "greybus-es2,bus=xhci.0,link=$link,cports=300"
refused "reconnect-ms=1" "reconnect-ms=1 is out of range" \
    "greybus-es2,bus=xhci.0,link=$link,reconnect-ms=1"

# --- boot with no simulator ----------------------------------------------------------------
paths=$(scripts/build-guest.sh 2>"$run_dir/build-guest.log") ||
    { not_ok "scripts/build-guest.sh" "$(tail -n 20 "$run_dir/build-guest.log")"; finish; }
kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
initrd=$(sed -n 's/^initramfs: //p' <<<"$paths")
if out=$(scripts/run-guest.sh --background --dir "$run_dir/g" --qemu "$qemu" \
        --kernel "$kernel" --initrd "$initrd" --device qemu-xhci,id=xhci \
        --device "greybus-es2,bus=xhci.0,link=$link,reconnect-ms=250" \
        -- "${fw[@]}" -d guest_errors,unimp 2>&1); then
    qemu_pid=$(cat "$run_dir/g/qemu.pid")
else
    not_ok "QEMU starts with greybus-es2 and no simulator" "$out"
    finish
fi
sock=$run_dir/g/agent.sock
if "$gbvp" agent --socket "$sock" --wait 240 --wait-ready >/dev/null 2>"$run_dir/ready.err"; then
    ok "the guest boots while no simulator is there"
else
    not_ok "guest agent ready" "$(cat "$run_dir/ready.err")" "$(tail -n 20 "$run_dir/g/console.log")"
    finish
fi
if grep -q "no simulator at $link" "$run_dir/g/qemu.log" &&
    [ -z "$(agent ls /sys/bus/greybus/devices 2>/dev/null)" ]; then
    ok "no simulator: QEMU says so once and the guest sees no bridge"
else
    not_ok "no simulator: no bridge" "$(cat "$run_dir/g/qemu.log")"
fi

# --- simulator up: the real gb-es2 driver probes --------------------------------------------
start_sim sim1.log
if wait_for 60 'agent test -e /sys/bus/greybus/devices/1-svc 2>/dev/null'; then
    ok "simulator started: gb-es2 probed and the SVC handshake finished (greybus1, 1-svc)"
else
    not_ok "gb-es2 probe and SVC handshake" "$(agent dmesg 2>&1 | tail -n 15)"
fi
ids=$(for f in idVendor idProduct speed; do agent cat "/sys/bus/usb/devices/1-1/$f"; done 2>&1 |
    tr '\n' ' ')
if [ "$ids" = "18d1 1eaf 480 " ]; then
    ok "the bridge is 18d1:1eaf at 480 Mb/s"
else
    not_ok "USB ids and speed" "$ids"
fi
has_module() { agent ls /sys/bus/greybus/devices 2>/dev/null | grep -q -E '^1-[0-9]+\.[0-9]+\.ctrl$'; }
if wait_for 60 has_module; then
    ok "a module's interface enumerated through the bridge ($(agent ls /sys/bus/greybus/devices | grep -c '^1-') greybus devices)"
else
    not_ok "module enumeration" "$(agent ls /sys/bus/greybus/devices 2>&1)" "$(tail -n 15 "$run_dir/sim1.log")"
fi
bad=$(agent dmesg 2>&1 | grep -E 'es2|greybus|usb 1-1' |
    grep -i -E 'Cannot retrieve|Not enough endpoints|failed|invalid|error|short|timed out' || true)
if [ -z "$bad" ]; then
    ok "no gb-es2 or greybus errors in dmesg"
else
    not_ok "gb-es2 errors in dmesg" "$bad"
fi

# --- hostile guest: malformed requests through usbfs are stalled ---------------------------
# tests/integration/es2_poke.c, built static, pushed into the guest (gzip + base64 through
# the agent), run with gb-es2 unbound; then gb-es2 is bound again and must probe anew.
if ! cc -static -O2 -Wall -Wextra -Werror -o "$run_dir/es2_poke" tests/integration/es2_poke.c \
        2>"$run_dir/poke-build.log"; then
    not_ok "build tests/integration/es2_poke.c (static)" "$(cat "$run_dir/poke-build.log")"
elif ! push_file "$run_dir/es2_poke" /tmp/es2_poke >"$run_dir/push.log" 2>&1; then
    not_ok "copy es2_poke into the guest" "$(tail -n 5 "$run_dir/push.log")"
else
    dev=$(agent 'printf /dev/bus/usb/%03d/%03d "$(cat /sys/bus/usb/devices/1-1/busnum)" "$(cat /sys/bus/usb/devices/1-1/devnum)"')
    poke=$(agent "echo 1-1:1.0 > /sys/bus/usb/drivers/es2_ap_driver/unbind && /tmp/es2_poke $dev" 2>&1)
    rc=$?
    echo "$poke" >"$run_dir/poke.log"
    n_ok=$(grep -c '^ok - ' <<<"$poke")
    if [ "$rc" -eq 0 ] && [ "$n_ok" -ge 20 ]; then
        ok "malformed control, ARPC and bulk requests from the guest are stalled, the bridge keeps working ($n_ok checks in the guest)"
    else
        not_ok "es2_poke in the guest (exit $rc)" "$(grep -v '^ok - ' <<<"$poke")"
    fi
    if grep -q 'greybus-es2: ARPC request says it is 99 bytes' "$run_dir/g/qemu.log"; then
        ok "each refusal is logged as a guest error (-d guest_errors)"
    else
        not_ok "guest errors logged" "$(tail -n 5 "$run_dir/g/qemu.log")"
    fi
    agent 'echo 1-1:1.0 > /sys/bus/usb/drivers/es2_ap_driver/bind' >/dev/null 2>&1
    if wait_for 30 'agent test -e /sys/bus/greybus/devices/1-svc 2>/dev/null'; then
        ok "gb-es2 bound again: probe and SVC handshake succeed after the abuse"
    else
        not_ok "rebind after es2_poke" "$(agent dmesg 2>&1 | tail -n 10)"
    fi
fi

# --- simulator killed: a clean USB disconnect ----------------------------------------------
kill -9 "$sim_pid"
wait_for 10 '! kill -0 "$sim_pid" 2>/dev/null'
sim_pid=
if wait_for 30 'agent dmesg 2>/dev/null | grep -q "usb 1-1: USB disconnect"' &&
    wait_for 30 '! agent test -e /sys/bus/greybus/devices/greybus1 2>/dev/null'; then
    ok "simulator killed: the guest sees a USB disconnect and greybus1 goes away"
else
    not_ok "disconnect after SIGKILL" "$(agent dmesg 2>&1 | tail -n 10)"
fi
if kill -0 "$qemu_pid" 2>/dev/null && [ "$(agent echo alive 2>/dev/null)" = alive ]; then
    ok "QEMU and the guest keep running without the simulator"
else
    not_ok "QEMU alive after the simulator died" "$(tail -n 10 "$run_dir/g/qemu.log")"
fi

# --- simulator back: the bridge comes back -------------------------------------------------
start_sim sim2.log
if wait_for 60 'agent test -e /sys/bus/greybus/devices/1-svc 2>/dev/null' &&
    agent dmesg 2>/dev/null | grep -q 'usb 1-1: new high-speed USB device number [3-9]'; then
    ok "simulator back: the bridge is plugged in again and gb-es2 probes anew"
else
    not_ok "reconnect" "$(agent dmesg 2>&1 | tail -n 10)" "$(tail -n 5 "$run_dir/g/qemu.log")"
fi

# --- aarch64: the same device on the virt machine's xHCI -----------------------------------
stop "$qemu_pid"
qemu_pid=
if [ -n "$qemu_arm" ]; then
    usb=$({ sleep 3; echo 'info usb'; sleep 1; echo quit; } |
        timeout 30 "$qemu_arm" -M virt -cpu cortex-a57 -accel tcg -nodefaults -display none \
            -device qemu-xhci,id=xhci -device "greybus-es2,bus=xhci.0,link=$link" \
            -monitor stdio 2>&1)
    if grep -q 'Speed 480 Mb/s, Product gbvp APBridgeA ES2' <<<"$usb"; then
        ok "qemu-system-aarch64 (virt): the bridge attaches to the simulator at 480 Mb/s"
    else
        not_ok "aarch64 attach" "$usb"
    fi
fi
finish
