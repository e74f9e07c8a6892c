#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the network promises the real 6.1 kernel, checked from inside the guest:
#   identity   each interface's sysfs vendor_id, product_id and serial_number are the
#              module's own (what `gbvp ctl interface` reads from the module), two
#              identical modules told apart by their serial numbers
#   routing    two loopback modules with traffic at the same time (the kernel's gb_loopback
#              driven through its sysfs): each module receives only the operations sent to
#              it, in the number the guest sent
#   class      the traffic class CONN_CREATE asks for is the one the network carries the
#              connection's data-link frames in (the capture, read with tshark)
# Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

gbvp_boot --slots 4 --control "$run_dir/control.sock" --timing frame \
    --pcap "$run_dir/net.pcapng" --pcap-frames
ctl() { "$gbvp" ctl --socket "$run_dir/control.sock" "$@"; }
G=/sys/bus/greybus/devices
sim_send "insert 0 loopback"
sim_send "insert 1 loopback"
sim_send "insert 2 battery"
if wait_guest 60 "[ -e $G/1-2.2.1/driver ] && [ -e $G/1-3.3.1/driver ] && [ -e $G/1-4.4.1/driver ]"; then
    ok "two loopback modules and a battery bound"
else
    not_ok "every bundle bound within 60 s" "$(agent "ls $G" | tr '\n' ' ')"
    finish
fi

# --- identity ---------------------------------------------------------------------------------
# json_int NAME: the integer member NAME of the JSON object on stdin.
json_int() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
serials=
for i in 2 3 4; do
    host=$(ctl --json "{\"cmd\":\"interface\",\"interface\":$i}")
    want=
    for f in vendor_id product_id serial_number; do want+=" $(json_int "$f" <<<"$host")"; done
    # sysfs shows them in hex (0x%08x, 0x%016llx)
    guest=$(agent "cd $G/1-$i.$i && cat vendor_id product_id serial_number")
    got=
    for v in $guest; do got+=" $((v))"; done
    if [ -n "$got" ] && [ "$got" = "$want" ] && [ "${want##* }" != 0 ]; then
        ok "interface $i: sysfs vendor_id product_id serial_number =$got, the module's own"
    else
        not_ok "interface $i: sysfs identity is the module's" "guest:$got ($guest)" "module:$want"
    fi
    serials+=" ${want##* }"
done
if [ "$(tr ' ' '\n' <<<"$serials" | sed '/^$/d' | sort -u | wc -l)" = 3 ]; then
    ok "three insertions, three serial numbers:$serials"
else
    not_ok "each insertion has its own serial number" "$serials"
fi

# --- routing ----------------------------------------------------------------------------------
lb_stats() { sim_cmd "$1" loopback stats; }
# start_loopback BUNDLE TYPE ITERATIONS: the bundle's gb_loopback runs TYPE (3 transfer, 4
# sink) ITERATIONS times with 512-byte payloads (writing `type` starts it).
start_loopback() {
    agent "d=\$(ls -d $G/$1/gb_loopback/gb_loopback*) && echo 512 > \$d/size &&
           echo $3 > \$d/iteration_max && echo $2 > \$d/type"
}
before0=$(lb_stats 0) before1=$(lb_stats 1)
start_loopback 1-2.2.1 4 60
start_loopback 1-3.3.1 3 45
if wait_guest 120 "[ \$(cat $G/1-2.2.1/gb_loopback/*/iteration_count) = 60 ] &&
                   [ \$(cat $G/1-3.3.1/gb_loopback/*/iteration_count) = 45 ]"; then
    ok "both loopback runs completed in the guest (60 sinks on interface 2, 45 transfers on 3)"
else
    not_ok "loopback runs completed within 120 s" \
        "$(agent "cat $G/1-2.2.1/gb_loopback/*/iteration_count $G/1-3.3.1/gb_loopback/*/iteration_count $G/1-*/gb_loopback/*/error")"
fi
after0=$(lb_stats 0) after1=$(lb_stats 1)
# delta FIELD BEFORE AFTER: how much a "FIELD N" counter of the loopback stats grew.
delta() { echo $(( $(sed -n "s/.*$1 \([0-9]*\).*/\1/p" <<<"$3") - $(sed -n "s/.*$1 \([0-9]*\).*/\1/p" <<<"$2") )); }
d0="sinks $(delta sinks "$before0" "$after0") transfers $(delta transfers "$before0" "$after0") bytes $(delta bytes "$before0" "$after0")"
d1="sinks $(delta sinks "$before1" "$after1") transfers $(delta transfers "$before1" "$after1") bytes $(delta bytes "$before1" "$after1")"
check "interface 2 received its own 60 sinks and nothing of interface 3's ($d0)" \
    test "$d0" = "sinks 60 transfers 0 bytes 30720"
check "interface 3 received its own 45 transfers and nothing of interface 2's ($d1)" \
    test "$d1" = "sinks 0 transfers 45 bytes 23040"

# --- traffic class ----------------------------------------------------------------------------
# The capture is flushed when the simulator ends; stop it (QEMU first) and read it.
kill "$qemu_pid" 2>/dev/null
wait_sim_exit() { for _ in $(seq 1 50); do kill -0 "$sim_pid" 2>/dev/null || return 0; sleep 0.1; done; return 1; }
kill -INT "$sim_pid" 2>/dev/null
wait_sim_exit || kill -9 "$sim_pid" 2>/dev/null
if ! command -v tshark >/dev/null 2>&1; then
    not_ok "tshark is installed (make check installs it)"
    finish
fi
lua=$PWD/tools/wireshark/greybus.lua
ts() { tshark -n -2 -X "lua_script:$lua" -r "$run_dir/net.pcapng" "$@" 2>>"$run_dir/tshark.err"; }
# CONN_CREATE requests: intf1 cport1 intf2 cport2 tc
creates=$(ts -Y 'greybus.svc.tc && greybus.response == 0' -T fields -e greybus.svc.intf1_id \
    -e greybus.svc.cport1_id -e greybus.svc.intf2_id -e greybus.svc.cport2_id -e greybus.svc.tc | sort -u)
ncreate=$(grep -c . <<<"$creates")
# Data-link data frames: port, destination device, destination CPort, traffic class
frames=$(ts -Y 'gbvp.dl.tc' -T fields -e gbvp.dl.dst_device_id -e gbvp.dl.dst_cport -e gbvp.dl.tc |
    sort | uniq -c)
if [ "$ncreate" -lt 6 ] || [ -z "$frames" ]; then
    not_ok "the capture holds the CONN_CREATE requests and the data-link frames" \
        "$ncreate CONN_CREATE; frames: $(head -c 300 <<<"$frames")" "$(tail -n 3 "$run_dir/tshark.err")"
    finish
fi
# The device ids the AP gave the interfaces (ROUTE_CREATE/INTF_DEVICE_ID: intf -> device id).
devids=$(ts -Y 'greybus.svc.device_id && greybus.svc.intf_id && greybus.response == 0' -T fields \
    -e greybus.svc.intf_id -e greybus.svc.device_id | sort -u)
bad=0 checked=0
while read -r i1 c1 i2 c2 tc; do
    [ -n "$tc" ] || continue
    for end in "$i1 $c1" "$i2 $c2"; do
        set -- $end
        dev=$(awk -v i="$1" '$1 == i { print $2 }' <<<"$devids" | tail -n 1)
        [ -n "$dev" ] || continue
        # every data frame to this connection end travels in the traffic class asked for
        wrong=$(awk -v d="$dev" -v c="$2" -v t="$tc" '$2 == d && $3 == c && $4 != t' <<<"$frames")
        right=$(awk -v d="$dev" -v c="$2" -v t="$tc" '$2 == d && $3 == c && $4 == t { n += $1 } END { print n + 0 }' <<<"$frames")
        checked=$((checked + right))
        if [ -n "$wrong" ]; then
            bad=$((bad + 1))
            echo "   connection $i1:$c1-$i2:$c2 asked TC$tc; frames to device $dev CPort $2: $wrong"
        fi
    done
done <<<"$creates"
if [ "$bad" = 0 ] && [ "$checked" -gt 100 ]; then
    ok "the $checked data-link frames of $ncreate connections travel in the traffic class their CONN_CREATE asked for ($(cut -f5 <<<"$creates" | sort -u | sed 's/^/TC/' | paste -sd,))"
else
    not_ok "every data-link frame travels in its connection's traffic class" \
        "$bad connection ends with frames in another class, $checked frames checked"
fi
finish
