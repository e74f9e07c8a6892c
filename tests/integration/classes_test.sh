#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The class drivers of the real 6.1 kernel against the catalog modules, used from inside the
# guest through the agent, with module-side events driven through gbvp sim's stdin
# ('cmd SLOT COMMAND'): GPIO values both ways and an edge interrupt, the I2C EEPROM through
# i2c-dev, a tty echoing through the UART loopback backend, the battery's scripted capacity,
# LEDs, a key on /dev/input/event*, the vibrator's timeout, loopback transfers with no error.
# Every check runs twice: once fresh, once after every bundle has been runtime-suspended
# (the kernel's default autosuspend) and must resume on use. Then removal makes all of it
# disappear, and dmesg must be clean. Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

# slot -> module; the module in slot S is 1-(S+2), its first interface S+2.
# The sensor is in its slot before QEMU starts, so the simulator's log times the kernel's
# enumeration from power-on: its I2C CPort (2) connected is the gbphy driver's last step.
gbvp_boot --slots 8 --insert 0:sensor
declare -A slot=([sensor]=0 [battery]=1 [light]=2 [keyboard]=3 [vibrator]=4 [loopback]=5 [dual]=6)
t0=$(now_ms)
for m in battery light keyboard vibrator loopback dual; do sim_send "insert ${slot[$m]} $m"; done
bundles="1-2.2.1 1-3.3.1 1-4.4.1 1-5.5.1 1-6.6.1 1-7.7.1 1-8.8.1 1-8.9.1"
cond=true
for b in $bundles; do cond+=" && [ -e /sys/bus/greybus/devices/$b/driver ]"; done
if wait_guest 60 "$cond"; then
    ok "7 modules (8 interfaces) bound $(secs $(( $(now_ms) - t0 ))) s after insertion"
else
    not_ok "every bundle bound within 60 s" "$(agent 'ls /sys/bus/greybus/devices' | tr '\n' ' ')"
    finish
fi
G=/sys/bus/greybus/devices
# The driver links appear before the probes run; the class devices only inside them.
devices="ls $G/1-2.2.1/gbphy*/gpio/gpiochip* && ls -d $G/1-2.2.1/gbphy*/i2c-* && ls $G/1-8.8.1/gbphy*/tty/ttyGB*"
devices+=" && ls $G/1-3.3.1/power_supply/* && ls -d $G/1-5.5.1/*/input/input*/event* && ls $G/1-7.7.1/gb_loopback/*"
wait_guest 30 "{ $devices; } >/dev/null 2>&1" || echo "   (class devices still missing after 30 s; the checks below say which)"
if wait_guest 10 "[ -e $G/1-2.2.1/gbphy2/driver ]" && t=$(sim_log_time 'svc: connection 1:[0-9]+ <-> 2:2 '); [ -n "$t" ]; then
    echo "time from QEMU start to the first module bound (sensor, inserted before boot; sim log): $(secs $((t - (qemu_t0_ms - sim_t0_ms)))) s"
fi

# Paths the kernel chose.
gpiochip=$(agent "ls $G/1-2.2.1/gbphy*/ | grep -E '^gpiochip[0-9]+\$'")
gpiobase=$(agent "ls $G/1-2.2.1/gbphy*/gpio/" | sed -n 's/^gpiochip//p')
i2cbus=$(agent "ls $G/1-2.2.1/gbphy*/ | sed -n 's/^i2c-//p'")
tty=$(agent "ls $G/1-8.8.1/gbphy*/tty/")
battery=$(agent "ls $G/1-3.3.1/power_supply/")
event=$(agent "ls $G/1-5.5.1/*/input/input*/ | grep -E '^event[0-9]+\$'")
loopdev=$(agent "ls $G/1-7.7.1/gb_loopback/")
echo "   guest devices: $gpiochip (base $gpiobase), i2c-$i2cbus, $tty, power supply $battery, $event, $loopdev"
if [ -z "$gpiochip" ] || [ -z "$gpiobase" ] || [ -z "$i2cbus" ] || [ -z "$tty" ] || [ -z "$battery" ] ||
   [ -z "$event" ] || [ -z "$loopdev" ]; then
    not_ok "every class device appears (gpiochip, i2c adapter, ttyGB, power supply, input event, loopback)"
fi

# --- one round of use ----------------------------------------------------------------------
use_all() {
    local r=$1 out v
    # GPIO, guest drives line 0; the module sees it.
    agent "cd /sys/class/gpio; echo $gpiobase > export; echo out > gpio$gpiobase/direction; echo 1 > gpio$gpiobase/value" >/dev/null 2>&1
    v1=$(sim_cmd 0 gpio get 0)
    agent "echo 0 > /sys/class/gpio/gpio$gpiobase/value" >/dev/null 2>&1
    v0=$(sim_cmd 0 gpio get 0)
    # the module drives line 1; the guest reads it.
    agent "cd /sys/class/gpio; echo $((gpiobase + 1)) > export; echo in > gpio$((gpiobase + 1))/direction" >/dev/null 2>&1
    sim_cmd 0 gpio set 1 1 >/dev/null
    in1=$(agent "cat /sys/class/gpio/gpio$((gpiobase + 1))/value")
    sim_cmd 0 gpio set 1 0 >/dev/null
    in0=$(agent "cat /sys/class/gpio/gpio$((gpiobase + 1))/value")
    agent "cd /sys/class/gpio; echo $gpiobase > unexport; echo $((gpiobase + 1)) > unexport" >/dev/null 2>&1
    if [[ $v1 == "1 output"* ]] && [[ $v0 == "0 output"* ]] && [ "$in1" = 1 ] && [ "$in0" = 0 ]; then
        ok "gpio ($r): guest-driven output seen by the module (1, 0), module-driven input read by the guest (1, 0)"
    else
        not_ok "gpio ($r): values both ways" "module saw '$v1' / '$v0', guest read '$in1' / '$in0'"
    fi
    # GPIO interrupt: the guest waits for edges on line 3; the module raises and lowers it.
    agent "rm -f /tmp/ev; (timeout 20 gpio-event-mon -n $gpiochip -o 3 -r -f -c 2 >/tmp/ev 2>&1 </dev/null &); i=0; until grep -q 'Initial line value' /tmp/ev; do i=\$((i+1)); [ \$i -gt 50 ] && exit 1; sleep 0.1; done" >/dev/null 2>&1
    a=$(sim_cmd 0 gpio set 3 1); b=$(sim_cmd 0 gpio set 3 0)
    wait_guest 10 "[ \$(grep -c 'GPIO EVENT' /tmp/ev) -ge 2 ]"
    out=$(agent 'cat /tmp/ev')
    if grep -q 'rising edge' <<<"$out" && grep -q 'falling edge' <<<"$out"; then
        ok "gpio ($r): module-side edges on line 3 reach gpio-event-mon as rising and falling IRQs"
    else
        not_ok "gpio ($r): edge interrupts" "sim: '$a' '$b'" "guest: ${out//$'\n'/ | }"
    fi
    # I2C: the guest writes the EEPROM, the module sees it; the module's contents read back.
    v=$(printf '0x%02x' $(( (RANDOM % 254) + 1 )))
    agent "i2cset -y $i2cbus 0x50 0x10 $v" >/dev/null 2>&1
    mod=$(sim_cmd 0 i2c read 0x50 0x10 1)
    sim_cmd 0 i2c write 0x50 0x20 5a >/dev/null
    out=$(agent "i2cget -y $i2cbus 0x50 0x20; i2cget -y $i2cbus 0x50 0x10" 2>&1)
    if [ "$mod" = "${v#0x}" ] && [ "$out" = "$(printf '0x5a\n%s' "$v")" ]; then
        ok "i2c ($r): i2c-dev write $v seen in the module's EEPROM, module byte 0x5a and $v read back"
    else
        not_ok "i2c ($r): EEPROM through i2c-$i2cbus" "module holds '$mod' (want ${v#0x}); guest read: ${out//$'\n'/ }"
    fi
    # UART: the loopback backend echoes what the guest writes.
    out=$(agent "stty -F /dev/$tty raw -echo 115200; rm -f /tmp/u; (timeout 5 cat /dev/$tty >/tmp/u </dev/null &); sleep 0.5; echo gbvp-echo-$r > /dev/$tty; i=0; until grep -q gbvp-echo /tmp/u; do i=\$((i+1)); [ \$i -gt 40 ] && break; sleep 0.1; done; cat /tmp/u" 2>&1)
    if grep -qx "gbvp-echo-$r" <<<"$out"; then
        ok "uart ($r): /dev/$tty echoes through the loopback backend"
    else
        not_ok "uart ($r): echo on /dev/$tty" "read: $out"
    fi
    # Power supply: the scripted capacity.
    v=$(( (RANDOM % 90) + 5 ))
    sim_cmd 1 battery set capacity "$v" >/dev/null
    if wait_guest 10 "[ \$(cat /sys/class/power_supply/$battery/capacity) = $v ]"; then
        ok "power_supply ($r): $battery shows the scripted capacity $v"
    else
        not_ok "power_supply ($r): capacity $v" "guest: $(agent "cat /sys/class/power_supply/$battery/capacity")"
    fi
    # LEDs: brightness set in the guest reaches the module, and reads back.
    v=$(( (RANDOM % 200) + 20 ))
    out=$(agent "l='/sys/class/leds/gbvp:green:status'; echo $v > \$l/brightness && cat \$l/brightness" 2>&1)
    mod=$(sim_cmd 2 light get 1)
    agent "echo 0 > '/sys/class/leds/gbvp:green:status/brightness'" >/dev/null 2>&1
    if [ "$out" = "$v" ] && [[ $mod == *"brightness $v "* ]]; then
        ok "leds ($r): gbvp:green:status brightness $v in the guest and in the module ($mod)"
    else
        not_ok "leds ($r): brightness $v" "guest: $out" "module: $mod"
    fi
    # Input: a key pressed on the module arrives on /dev/input/$event (EV_KEY KEY_A down).
    # The keyboard's bundle must be awake to send (docs/modules.md): pin it while reading.
    agent "echo on > $G/1-5.5.1/power/control; rm -f /tmp/key; (timeout 10 hexdump -v -e '24/1 \"%02x \" \"\n\"' -n 48 /dev/input/$event >/tmp/key 2>&1 </dev/null &); sleep 0.5" >/dev/null 2>&1
    a=$(sim_cmd 3 hid key a)
    wait_guest 10 "[ \$(wc -l </tmp/key) -ge 2 ]"
    out=$(agent "cat /tmp/key; echo auto > $G/1-5.5.1/power/control")
    if grep -qE '01 00 1e 00 01 00 00 00$' <<<"$out"; then
        ok "input ($r): 'hid key a' arrives on /dev/input/$event as EV_KEY KEY_A pressed"
    else
        not_ok "input ($r): key event on /dev/input/$event" "sim: '$a'" "guest: ${out//$'\n'/ | }"
    fi
    # Vibrator: a timeout in the guest turns the motor on in the module.
    before=$(sim_cmd 4 vibrator state | sed -n 's/.*count \([0-9]*\).*/\1/p')
    agent 'echo 50 > /sys/class/vibrator/vibrator0/timeout' >/dev/null 2>&1
    sleep 0.5
    st=$(sim_cmd 4 vibrator state)
    after=$(sed -n 's/.*count \([0-9]*\).*/\1/p' <<<"$st")
    if [ -n "$after" ] && [ "$after" -gt "${before:-0}" ]; then
        ok "vibrator ($r): timeout 50 ms in the guest switched the motor on ($st)"
    else
        not_ok "vibrator ($r): timeout switches the motor on" "before count '$before', now '$st'"
    fi
    # Loopback (docs/greybus.md, "Loopback measurements"): ping, transfer and sink through
    # the kernel's sysfs.
    local l=$G/1-7.7.1/gb_loopback/$loopdev bad=
    for t in "2 0" "3 1024" "4 512"; do
        set -- $t
        out=$(AGENT_TIMEOUT=90 agent "cd $l; echo 0 > type; echo $2 > size; echo 50 > iteration_max; echo 0 > async; echo $1 > type; i=0; until [ \$(cat iteration_count) -ge 50 ]; do i=\$((i+1)); [ \$i -gt 600 ] && break; sleep 0.1; done; echo \$(cat iteration_count error requests_completed latency_avg)" 2>&1)
        read -r n e c lat <<<"$out"
        if [ "$n" != 50 ] || [ "$e" != 0 ]; then bad+=" type $1 size $2: count/error/completed/latency '$out';"; fi
        summary+="type $1: $n iterations, $e errors, requests_completed $c; "
    done
    agent "echo 0 > $l/type" >/dev/null 2>&1
    if [ -z "$bad" ]; then
        ok "loopback ($r): ping, 1024-byte transfer, 512-byte sink: 50 iterations each, no error"
        echo "   loopback ($r): $summary"
    else
        not_ok "loopback ($r): transfers with no error" "$bad"
    fi
    summary=
}

summary=
use_all fresh

# --- runtime PM ----------------------------------------------------------------------------
# The kernel default autosuspend delay; a bundle whose driver polls (power supply) or holds a
# reference while in use (a lit LED) wakes again, so each bundle must be seen suspended at
# least once within the window, not all at the same moment.
delay=$(agent "cat $G/1-2.2.1/power/autosuspend_delay_ms")
seen=$(AGENT_TIMEOUT=60 agent "end=\$((\$(date +%s) + ${delay:-3000} / 1000 + 15)); seen=
    while [ \$(date +%s) -lt \$end ]; do
        for b in $bundles; do
            case \" \$seen \" in *\" \$b \"*) continue ;; esac
            [ \$(cat $G/\$b/power/runtime_status) = suspended ] && seen=\"\$seen \$b\"
        done
        [ \$(echo \$seen | wc -w) -eq $(wc -w <<<"$bundles") ] && break
        sleep 0.2
    done; echo \$seen")
# 6.1's power_supply driver holds a runtime PM reference while a supply is charging
# (drivers/staging/greybus/power_supply.c, "wake lock for charging state"): dual's second
# interface (status = charging) must stay active, every other bundle must suspend.
missing=
for b in $bundles; do
    [ "$b" = 1-8.9.1 ] && continue
    grep -qw "$b" <<<"$seen" || missing+=" $b"
done
if [ -z "$missing" ]; then
    ok "every bundle runtime-suspended after the autosuspend delay ($delay ms, the kernel default)"
else
    not_ok "every bundle seen runtime-suspended within $(( ${delay:-3000} / 1000 + 15 )) s" "never suspended:$missing"
fi
if grep -qw 1-8.9.1 <<<"$seen"; then
    not_ok "a charging power supply's bundle (1-8.9.1) stays active (6.1's charging wake lock)"
else
    ok "a charging power supply's bundle (1-8.9.1) stays active (6.1's charging wake lock)"
fi
suspends=$(grep -c 'hibernated' "$run_dir/sim.log")
echo "   interface links hibernated so far (sim log): $suspends"
use_all "after suspend"

# --- removal -------------------------------------------------------------------------------
mark_a=$(dmesg_lines)
for m in sensor battery light keyboard vibrator loopback dual; do sim_send "remove ${slot[$m]}"; done
if wait_modules_gone 60; then
    left=$(agent "ls /dev/$tty /dev/$gpiochip /dev/i2c-$i2cbus /dev/input/$event /sys/class/power_supply/$battery /sys/class/vibrator/vibrator0 /sys/class/gb_loopback/$loopdev 2>/dev/null; ls /sys/class/leds | grep gbvp")
    if [ -z "$left" ]; then
        ok "removal: all devices, class entries and /dev nodes are gone"
    else
        not_ok "removal makes every class device disappear" "left: ${left//$'\n'/ }"
    fi
else
    not_ok "removal: modules gone within 60 s" "$(agent 'ls /sys/bus/greybus/devices' | tr '\n' ' ')"
fi

dmesg_verdict "$mark_a" "$(dmesg_lines)"
finish
