#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# greybus-es2 against a misbehaving simulator (tests/integration/es2_peer.c): one that never
# answers (the guest's requests time out, the device forgets the cancelled transfer and
# drops the late answer), one that sends malformed messages and a result nobody asked for
# (dropped with a warning), and one that drops and restores its side of the bridge (USB
# unplug and replug). QEMU and the guest must survive all of it. Ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
gbvp=${GBVP:-build/gbvp}
peer=build/tests/es2_peer
es2_name=es2_fault
run_dir=$(mktemp -d /tmp/gbvp-es2f.XXXXXX)
source tests/integration/es2_lib.sh
link=$run_dir/peer.sock
qemu_pid= peer_pid=
cleanup() {
    exec 3>&- 2>/dev/null
    es2_cleanup "$qemu_pid" "$peer_pid"
}
trap cleanup EXIT
tell() { echo "$1" >&3; }

make -j2 "$gbvp" "$peer" >"$run_dir/make.log" 2>&1 ||
    { not_ok "build $gbvp and $peer" "$(tail -n 10 "$run_dir/make.log")"; finish; }
bins=$(scripts/build-qemu.sh --targets x86_64,aarch64 2>"$run_dir/build-qemu.log") ||
    { not_ok "scripts/build-qemu.sh" "$(tail -n 20 "$run_dir/build-qemu.log")"; finish; }
qemu=$(grep 'qemu-system-x86_64$' <<<"$bins")
paths=$(scripts/build-guest.sh 2>"$run_dir/build-guest.log") ||
    { not_ok "scripts/build-guest.sh" "$(tail -n 20 "$run_dir/build-guest.log")"; finish; }

# --- a silent simulator --------------------------------------------------------------------
mkfifo "$run_dir/peer.in"
"$peer" --link "$link" <"$run_dir/peer.in" >"$run_dir/peer.log" 2>&1 &
peer_pid=$!
disown "$peer_pid"
exec 3>"$run_dir/peer.in"
if ! scripts/run-guest.sh --background --dir "$run_dir/g" --qemu "$qemu" \
        --kernel "$(sed -n 's/^kernel: //p' <<<"$paths")" \
        --initrd "$(sed -n 's/^initramfs: //p' <<<"$paths")" \
        --device qemu-xhci,id=xhci --device "greybus-es2,bus=xhci.0,link=$link" \
        -- -L /usr/share/seabios -L /usr/share/qemu >"$run_dir/start.log" 2>&1; then
    not_ok "QEMU starts" "$(cat "$run_dir/start.log")"
    finish
fi
qemu_pid=$(cat "$run_dir/g/qemu.pid")
sock=$run_dir/g/agent.sock
"$gbvp" agent --socket "$sock" --wait 240 --wait-ready >/dev/null 2>&1 ||
    { not_ok "guest agent ready" "$(tail -n 20 "$run_dir/g/console.log")"; finish; }

if wait_for 30 'agent dmesg 2>/dev/null | grep -q "failed to set cport flags for port 0"'; then
    ok "simulator never answers CPORT_FLAGS: gb-es2's probe times out cleanly"
else
    not_ok "probe timeout against a silent simulator" "$(agent dmesg 2>&1 | tail -n 8)" \
        "$(cat "$run_dir/peer.log")"
fi
if grep -q 'rx cport-flags cport=0' "$run_dir/peer.log"; then
    ok "the request reached the simulator as a cport-flags record for CPort 0"
else
    not_ok "cport-flags record" "$(cat "$run_dir/peer.log")"
fi

# --- lies from the simulator -----------------------------------------------------------------
tell "answer on"
tell garbage
if wait_for 10 'grep -q "garbage sent 3" "$run_dir/peer.log"' &&
    wait_for 10 '[ "$(grep -c "dropping a message from the simulator" "$run_dir/g/qemu.log")" -ge 2 ]'; then
    ok "malformed messages from the simulator are dropped with a warning: $(grep -m1 'dropping' "$run_dir/g/qemu.log" | sed 's/^.*: //')"
else
    not_ok "garbage from the simulator" "$(tail -n 5 "$run_dir/g/qemu.log")"
fi
if kill -0 "$qemu_pid" 2>/dev/null && [ "$(agent echo alive 2>/dev/null)" = alive ]; then
    ok "QEMU and the guest survive the silent and lying simulator"
else
    not_ok "QEMU alive" "$(tail -n 10 "$run_dir/g/qemu.log")"
fi

# --- the simulator drops its side of the bridge and brings it back --------------------------
tell link-down
if wait_for 20 'agent dmesg 2>/dev/null | grep -q "usb 1-1: USB disconnect"'; then
    ok "simulator says link-down: the guest sees a USB disconnect"
else
    not_ok "disconnect on link-down" "$(agent dmesg 2>&1 | tail -n 5)"
fi
tell link-up
if wait_for 30 'agent test -e /sys/bus/greybus/devices/greybus1 2>/dev/null' &&
    agent dmesg 2>/dev/null | grep -q 'new high-speed USB device number [3-9]'; then
    ok "simulator says link-up: the bridge is plugged in again and gb-es2 probes (answers on)"
else
    not_ok "replug on link-up" "$(agent dmesg 2>&1 | tail -n 8)" "$(tail -n 8 "$run_dir/peer.log")"
fi
if grep -q 'rx link-down' "$run_dir/peer.log" && grep -q 'rx link-up' "$run_dir/peer.log"; then
    ok "QEMU reports its own side: link-up on plug, link-down on unplug and USB reset"
else
    not_ok "link-state records from QEMU" "$(cat "$run_dir/peer.log")"
fi
finish
