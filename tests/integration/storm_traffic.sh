# SPDX-License-Identifier: MIT
# Guest side of storm_test.sh (busybox sh, copied into the guest and started in the
# background): keeps traffic running on whatever Greybus class devices exist while the host
# inserts and removes modules under it. Every round: loopback transfers (sync or async,
# random size) restarted on each gb_loopback device whose run ended, a power supply's
# capacity read (GET_PROPERTY), LED brightness set, the sensor's EEPROM read over i2c-dev,
# the vibrator started, each ttyGB's line coding set or a line written to it. Devices vanish at any moment: every
# failure is expected and ignored; the kernel must just not crash. Counters go to
# /tmp/storm.traffic after each round ("rounds N loopback N supply N led N i2c N vib N
# tty N"); /tmp/storm.stop ends the loop.
G=/sys/bus/greybus/devices
rounds=0 lb=0 ps=0 led=0 i2c=0 vib=0 tty=0
while [ ! -e /tmp/storm.stop ]; do
    rounds=$((rounds + 1))
    for d in $G/*/gb_loopback/*; do
        [ -e "$d/type" ] || continue
        t=$(cat "$d/type" 2>/dev/null) || continue
        c=$(cat "$d/iteration_count" 2>/dev/null) || continue
        m=$(cat "$d/iteration_max" 2>/dev/null) || continue
        if [ "$t" = 0 ] || [ "${c:-0}" -ge "${m:-0}" ]; then
            {
                echo 0 >"$d/type"
                echo $(( (rounds * 97) % 1500 + 16 )) >"$d/size"
                echo 30 >"$d/iteration_max"
                echo $((rounds % 2)) >"$d/async"
                echo $((rounds % 3 + 2)) >"$d/type"
            } 2>/dev/null && lb=$((lb + 1))
        fi
    done
    for f in $G/*/power_supply/*/capacity; do
        [ -e "$f" ] && cat "$f" >/dev/null 2>&1 && ps=$((ps + 1))
    done
    for l in /sys/class/leds/gbvp*; do
        [ -e "$l/brightness" ] && echo $((rounds % 256)) >"$l/brightness" 2>/dev/null && led=$((led + 1))
    done
    for a in $G/*/gbphy*/i2c-*; do
        [ -e "$a" ] || continue
        i2cget -y "${a##*i2c-}" 0x50 $((rounds % 256)) >/dev/null 2>&1 && i2c=$((i2c + 1))
    done
    for v in /sys/class/vibrator/*/timeout; do
        [ -e "$v" ] && echo 20 >"$v" 2>/dev/null && vib=$((vib + 1))
    done
    # a line coding every round, a write every fourth: 6.1's tx work retries a failed
    # SEND_DATA at once and for as long as the writer's close waits for the data to drain
    # (closing_wait, 30 s), holding up the removal of the module meanwhile
    # (through a node of our own, made from the device's numbers: a redirection to a
    # /dev/ttyGBn that vanished just before would create a regular file in its place)
    for d in /sys/class/tty/ttyGB*; do
        dev=$(cat "$d/dev" 2>/dev/null) || continue
        t=/tmp/storm-tty
        rm -f "$t"
        mknod "$t" c "${dev%%:*}" "${dev##*:}" 2>/dev/null || continue
        if [ $((rounds % 4)) = 0 ]; then
            timeout 2 sh -c "echo storm-$rounds >$t" 2>/dev/null && tty=$((tty + 1))
        else
            timeout 2 stty -F "$t" $(( (rounds % 2) ? 115200 : 9600 )) 2>/dev/null && tty=$((tty + 1))
        fi
    done
    echo "rounds $rounds loopback $lb supply $ps led $led i2c $i2c vib $vib tty $tty" >/tmp/storm.traffic
    sleep 0.2
done
