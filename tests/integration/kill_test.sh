#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Faults mid-traffic (issue 15, item 5). The guest runs loopback traffic through the kernel's
# gb_loopback sysfs while `gbvp sim` is killed with SIGKILL, KILLS times (default 20; every
# third kill hits a module's enumeration instead): each time the guest must survive (agent
# answers, no WARN/BUG/oops, the bridge's USB device and every greybus device gone), and a
# new simulator on the same link and control paths must be found by QEMU (the bridge plugged
# in again, gb-es2 probes, the SVC handshake, 1-svc), take the loopback module again and
# carry traffic with no error. Then QEMU is killed with SIGKILL mid-traffic while the
# simulator runs: `gbvp ctl status` must show the AP gone, the slots as before and the AP's
# device ids and connections forgotten, and a new QEMU booted against the same simulator
# must enumerate the module and use it.
# Ends with "N passed, N failed".
#
#   KILLS=N    simulator kills (default 20)
#   KILL_VALGRIND=0  the last simulator (it sees QEMU die and the next one come) not under
#              valgrind; by default it is when valgrind is installed, and its memcheck
#              verdict (no error, no leak) is checked when it is stopped at the end
#   GBVP, KEEP as in lib.sh
source "$(dirname "$0")/lib.sh"
kills=${KILLS:-20}
link=$run_dir/gbvp.sock
control=$run_dir/control.sock
G=/sys/bus/greybus/devices
LB=$G/1-2.2.1/gb_loopback
ctl() { "$gbvp" ctl --socket "$control" --timeout 30 "$@"; }

# start_sim [WRAPPER...]: a new simulator on the same link and control paths (under WRAPPER,
# e.g. valgrind, when given; in lockstep when the first one was), its log appended to sim.log.
start_sim() {
    echo "---- gbvp sim started by kill_test ----" >>"$run_dir/sim.log"
    "$@" "$gbvp" sim --link "$link" --control "$control" --slots 4 "${lockstep_sim[@]}" <"$run_dir/sim.in" \
        >>"$run_dir/sim.log" 2>&1 &
    sim_pid=$!
    local i
    for ((i = 0; i < 1200; i++)); do
        ctl ping >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    return 1
}

# loopback_run N SIZE: N transfers of SIZE bytes through the loopback module in slot 0;
# prints "count errors" when done (or when it stopped making progress).
loopback_run() {
    AGENT_TIMEOUT=120 agent "l=\$(ls -d $LB/gb_loopback* | head -n1); cd \$l || exit 1; echo 0 > type; echo $2 > size; echo $1 > iteration_max; echo 0 > async; echo 3 > type; i=0; until [ \$(cat iteration_count) -ge $1 ]; do i=\$((i+1)); [ \$i -gt 900 ] && break; sleep 0.1; done; echo \$(cat iteration_count error)"
}

# insert_loopback: inserts the loopback module into slot 0 and waits for its gb_loopback device.
insert_loopback() {
    ctl insert slot=0 module=loopback >/dev/null 2>&1 &&
        wait_guest 60 "ls -d $LB/gb_loopback* >/dev/null 2>&1"
}

# start_traffic ASYNC: traffic until a kill. A guest loop runs batches of 50 transfers of
# 1024 bytes through the kernel's loopback thread (writing type starts one), counting the
# transfers done in /tmp/lb; ASYNC 0: synchronous, 1: asynchronous with up to 4 in flight.
# Returns once a batch is done and the next is under way. Small batches: after a kill, 6.1's
# loopback thread goes on with its batch, each transfer failing with -107 and a line on the
# serial console, until the bundle's removal stops it (8000 at a time keep a TCG guest busy
# for a minute); and unbounded asynchronous traffic has that thread hog the vCPU.
start_traffic() {
    agent "l=\$(ls -d $LB/gb_loopback* | head -n1); cd \$l && echo 0 > type && echo 1024 > size && echo 50 > iteration_max && echo 4 > outstanding_operations_max && echo $1 > async && rm -f /tmp/lb && (n=0; while [ -e \$l/type ]; do echo 3 > \$l/type 2>/dev/null || break; i=0; while [ \"\$(cat \$l/type 2>/dev/null)\" = 3 ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done; n=\$((n + \$(cat \$l/iteration_count 2>/dev/null || echo 0))); echo \$n > /tmp/lb; done) </dev/null >/dev/null 2>&1 &" >/dev/null 2>&1
    wait_guest 30 "[ \$(cat /tmp/lb 2>/dev/null || echo 0) -ge 50 ] && [ \$(cat $LB/gb_loopback*/iteration_count) -ge 5 ]"
}

gbvp_boot --control "$control" --slots 4
if wait_guest 60 "[ -e $G/1-svc ]" && insert_loopback; then
    ok "loopback module in slot 0 bound in the guest ($LB)"
else
    not_ok "loopback module bound" "$(agent 'ls /sys/bus/greybus/devices; dmesg | tail -n 20' 2>&1)"
    finish
fi
read -r n e <<<"$(loopback_run 20 1024)"
if [ "$n" = 20 ] && [ "$e" = 0 ]; then
    ok "loopback before any fault: 20 transfers of 1024 bytes, no error"
else
    not_ok "loopback before any fault" "count '$n', errors '$e'"
fi

# ---- the simulator killed mid-traffic, KILLS times -----------------------------------------
mark=$(dmesg_lines)
good=0 t_kill_total=0 iter_fail=
for ((k = 1; k <= kills; k++)); do
    why=
    # every third kill hits the enumeration of a module instead (its control requests and
    # the bridge's CPort set-up in flight): the module is pulled, put back, and the
    # simulator killed 0..0.2 s after the insertion; the others hit loopback traffic,
    # synchronous and asynchronous in turn
    async=$(( (k + 1) % 2 ))
    if [ $((k % 3)) = 0 ]; then
        delay=$(printf '0.%02d' $((RANDOM % 5 * 5)))
        ctl remove slot=0 >/dev/null 2>&1
        wait_guest 30 "! ls $G | grep -q '^1-2'" || why+=" the module is not gone after its removal;"
        ctl insert slot=0 module=loopback >/dev/null 2>&1 || why+=" insert refused;"
        sleep "$delay"
        what="enumeration ($delay s after the insertion)"
    else
        start_traffic "$async" || why+=" no traffic before the kill ($(agent "cat /tmp/lb $LB/gb_loopback*/iteration_count" 2>&1));"
        what="traffic ($(agent "echo \$((\$(cat /tmp/lb) + \$(cat $LB/gb_loopback*/iteration_count)))" 2>/dev/null) $([ "$async" = 1 ] && echo asynchronous || echo synchronous) transfers done)"
    fi
    # (counted afresh each time: the surprise disconnects' error lines wrap the guest's
    # kernel log ring over 20 kills, and earlier "USB disconnect" lines fall out of it)
    disc=$(agent 'dmesg | grep -c "USB disconnect"')
    kill -9 "$sim_pid"
    wait "$sim_pid" 2>/dev/null
    t0=$(now_ms)
    # the guest lives on; the bridge is unplugged and every greybus device goes
    if ! wait_guest 60 "[ \$(dmesg | grep -c 'USB disconnect') -gt ${disc:-0} ] && [ -z \"\$(ls $G 2>/dev/null)\" ]"; then
        why+=" after the kill: no USB disconnect or greybus devices left ($(agent "ls $G | tr '\n' ' '" 2>&1));"
    fi
    [ "$(agent 'echo alive' 2>/dev/null)" = alive ] || why+=" the agent does not answer;"
    kill -0 "$qemu_pid" 2>/dev/null || why+=" QEMU died;"
    # every fourth kill, a second one while the bridge comes back (the USB plug, gb-es2's
    # probe or the SVC handshake in progress): a simulator killed 0..0.6 s after QEMU
    # connected to it
    if [ $((k % 4)) = 0 ]; then
        again=$(printf '0.%02d' $((RANDOM % 13 * 5)))
        from=$(( $(wc -l <"$run_dir/sim.log") + 1 ))
        start_sim || why+=" the simulator killed again does not answer on $control;"
        wait_sim_log "$from" 30 'bridge: QEMU connected' || why+=" QEMU did not connect to the simulator killed again;"
        sleep "$again"
        kill -9 "$sim_pid"
        wait "$sim_pid" 2>/dev/null
        sleep 0.5
        [ "$(agent 'echo alive' 2>/dev/null)" = alive ] || why+=" the agent does not answer after the second kill;"
        what+=", again $again s after QEMU reconnected"
    fi
    # a new simulator on the same paths: QEMU reconnects, gb-es2 probes, the SVC handshake
    wrap=()
    if [ "$k" = "$kills" ] && [ "${KILL_VALGRIND:-1}" = 1 ] && command -v valgrind >/dev/null; then
        wrap=(valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible
              --errors-for-leak-kinds=definite,indirect,possible --log-file="$run_dir/valgrind.log")
    fi
    start_sim "${wrap[@]}" || why+=" the new simulator does not answer on $control;"
    if wait_guest 60 "[ -e $G/1-svc ]"; then
        t_up=$(( $(now_ms) - t0 ))
    else
        why+=" no 1-svc after the restart ($(agent "ls $G | tr '\n' ' '; dmesg | tail -n 5" 2>&1));"
        t_up=0
    fi
    insert_loopback || why+=" the loopback module is not bound again;"
    read -r n e <<<"$(loopback_run 10 1024)"
    [ "$n" = 10 ] && [ "$e" = 0 ] || why+=" traffic after the restart: count '$n', errors '$e';"
    if [ -z "$why" ]; then
        good=$((good + 1)); t_kill_total=$((t_kill_total + t_up))
        echo "   kill $k: killed during $what, bridge back (1-svc) $(secs "$t_up") s after the kill, loopback works"
    else
        iter_fail+=" kill $k:$why"
        echo "   kill $k FAILED:$why"
        [ -n "$(agent 'echo alive' 2>/dev/null)" ] || break
    fi
done
if [ "$good" = "$kills" ]; then
    ok "$kills SIGKILLs of the simulator mid-traffic or mid-enumeration: the guest survives each, the bridge reconnects to the next simulator (1-svc after $(secs $((t_kill_total / kills))) s on average), loopback works again"
else
    not_ok "$good of $kills kills survived with a working bridge afterwards" "$iter_fail"
fi
crash=$(dmesg_crashes $((mark + 1)))
if [ -z "$crash" ]; then
    ok "dmesg during the kills: no WARN, BUG, oops or call trace ($(dmesg_removal_errors $((mark + 1))) error line(s) of the surprise disconnects)"
else
    not_ok "dmesg during the kills shows a crash" "$crash"
fi
mark=$(dmesg_lines)

# ---- QEMU killed while the simulator runs --------------------------------------------------
# (mid-traffic too: asynchronous transfers in flight, the simulator's queue towards the AP
# not empty)
start_traffic 1 || not_ok "traffic before QEMU's death" "$(agent "cat /tmp/lb" 2>&1)"
before_status=$(ctl status 2>&1)
kill -9 "$qemu_pid"
wait "$qemu_pid" 2>/dev/null
gone=
for _ in $(seq 1 100); do
    st=$(ctl status 2>&1)
    grep -q '"ap_connected":false' <<<"$st" && { gone=1; break; }
    sleep 0.1
done
if [ -n "$gone" ] && kill -0 "$sim_pid" 2>/dev/null; then
    ok "QEMU killed: the simulator lives on and says ap_connected false"
else
    not_ok "the simulator notices QEMU's death" "$st" "$(tail -n 5 "$run_dir/sim.log")"
fi
# the slot keeps its module; the SVC forgot what the dead AP set up (no device id, no
# connection, the interface no longer active) so that the next AP enumerates it afresh
slots=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("%s:%s" % (s["slot"], s.get("module") or "-") for s in d["slots"]))
s0 = d["slots"][0]
print("slot 0: active %s, device_id %s, connections %s, present %s" % (
    s0.get("active"), s0.get("device_id"), s0.get("connections"), s0.get("present")))' <<<"$st" 2>&1)
conns=$(sim_send status; sleep 1; tail -n 30 "$run_dir/sim.log" | grep -c '^connection ')
if [ "$(head -n 1 <<<"$slots")" = "0:loopback 1:- 2:- 3:-" ] &&
    grep -q 'active False, device_id 0, connections 0' <<<"$slots" && [ "$conns" = 0 ]; then
    ok "state after QEMU's death: slots $(head -n 1 <<<"$slots"), $(tail -n 1 <<<"$slots"), no connection in the switch"
else
    not_ok "state after QEMU's death: slot 0 keeps loopback, no device id, no connection" \
        "$slots" "switch connections listed: $conns" "before: $before_status"
fi
if grep -q 'QEMU gone' "$run_dir/sim.log"; then
    ok "the simulator logged QEMU's death: $(grep 'QEMU gone' "$run_dir/sim.log" | tail -n 1 | sed 's/^.*bridge: //')"
else
    not_ok "sim.log says QEMU is gone" "$(tail -n 5 "$run_dir/sim.log")"
fi

# a new QEMU against the same simulator
qemu_t0_ms=$(now_ms)
rm -f "$run_dir/agent.sock"
for f in console.log qemu.log; do mv "$run_dir/$f" "$run_dir/first-$f" 2>/dev/null; done
if out=$(scripts/run-guest.sh --background --dir "$run_dir" --kernel "$kernel" \
            --initrd "$initrd" --device qemu-xhci,id=xhci "${lockstep_qemu[@]}" \
            --device "greybus-es2,link=$link$es2_lockstep" 2>&1); then
    qemu_pid=$(cat "$run_dir/qemu.pid")
else
    not_ok "a new QEMU starts" "$out"; finish
fi
if "$gbvp" agent --socket "$run_dir/agent.sock" --wait 300 --wait-ready >/dev/null 2>&1 &&
    wait_guest 60 "ls -d $LB/gb_loopback* >/dev/null 2>&1"; then
    ok "a new QEMU against the same simulator: the guest enumerates the module left in slot 0 ($(secs $(( $(now_ms) - qemu_t0_ms ))) s after QEMU start)"
else
    not_ok "the new guest enumerates the loopback module" \
        "$(agent "ls $G; dmesg | tail -n 20" 2>&1)" "$(tail -n 10 "$run_dir/sim.log")"
fi
read -r n e <<<"$(loopback_run 20 1024)"
if [ "$n" = 20 ] && [ "$e" = 0 ]; then
    ok "loopback in the new guest: 20 transfers of 1024 bytes, no error"
else
    not_ok "loopback in the new guest" "count '$n', errors '$e'"
fi
if ctl status 2>/dev/null | grep -q '"ap_connected":true'; then
    ok "gbvp ctl status: ap_connected true again"
else
    not_ok "ap_connected after the new QEMU" "$(ctl status 2>&1)"
fi
p=$(dmesg_problems 1)
if [ -z "$p" ]; then
    ok "the new guest's dmesg: no WARN, BUG, oops or greybus error"
else
    not_ok "the new guest's dmesg is clean" "$p"
fi
# the last simulator ran under valgrind through a QEMU death and the next QEMU
if [ -f "$run_dir/valgrind.log" ]; then
    kill -TERM "$sim_pid"
    wait "$sim_pid"
    rc=$?
    sim_pid=
    vg=$(grep -E 'ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|All heap blocks' \
        "$run_dir/valgrind.log" | sed 's/^==[0-9]*== *//' | tr '\n' ';')
    if [ "$rc" = 0 ] && grep -q 'ERROR SUMMARY: 0 errors' "$run_dir/valgrind.log" &&
        { grep -q 'All heap blocks were freed' "$run_dir/valgrind.log" ||
          ! grep -qE '(definitely|indirectly|possibly) lost: [1-9]' "$run_dir/valgrind.log"; }; then
        ok "the last simulator under valgrind (a QEMU killed, the next one served): exit 0, $vg"
    else
        not_ok "the last simulator under valgrind: no memcheck error or leak (exit $rc)" "$vg" \
            "$(grep -A12 -E 'Invalid|uninitialised|lost in loss record' "$run_dir/valgrind.log" | head -n 60)"
    fi
fi
finish
