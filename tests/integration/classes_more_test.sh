#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# More class drivers of the real 6.1 kernel against catalog modules, used from inside the
# guest with real tools, the module side read through gbvp sim ('cmd SLOT COMMAND' on its
# stdin, and `gbvp ctl` on its control socket):
#   pwm     the sysfs PWM interface (export, period, duty_cycle, polarity, enable, unexport);
#           the module's channel state follows each change as 6.1's gb-pwm sends it
#   spi     the SPI devices the module declares (DEVICE_CONFIG: a device of type spidev on
#           chip select 0, bound to spidev with driver_override; modalias dh2228fv on 1),
#           transfers by the kernel's spidev_test whose bytes the module sees and answers
#   log     module log lines in dmesg once dynamic debug enables gb-log's dev_dbg
#   raw     /dev/gb/rawN: what the guest writes reaches the module, one packet a read back
#   usb     6.1 refuses the protocol in its probe ("USB protocol disabled", -93): no HCD,
#           no request reaches the module
# Then removal makes all of it disappear, and dmesg must be clean. Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

gbvp_boot --slots 4 --control "$run_dir/control.sock"
declare -A slot=([pwm]=0 [spi]=1 [lograw]=2)
t0=$(now_ms)
for m in pwm spi lograw; do sim_send "insert ${slot[$m]} $m"; done
G=/sys/bus/greybus/devices
bundles="1-2.2.1 1-3.3.1 1-4.4.1 1-4.4.2"
cond=true
for b in $bundles; do cond+=" && [ -e $G/$b/driver ]"; done
if wait_guest 60 "$cond"; then
    ok "pwm, spi and lograw (4 bundles) bound $(secs $(( $(now_ms) - t0 ))) s after insertion"
else
    not_ok "every bundle bound within 60 s" "$(agent "ls $G" | tr '\n' ' ')"
    finish
fi
# The driver links appear before the probes run; the class devices only inside them.
devices="ls -d $G/1-2.2.1/gbphy*/pwm/pwmchip* && ls -d $G/1-3.3.1/gbphy*/spi_master/spi* && ls /sys/class/gb_raw/*"
wait_guest 30 "{ $devices; } >/dev/null 2>&1" || echo "   (class devices still missing after 30 s; the checks below say which)"
pwmchip=$(agent "ls $G/1-2.2.1/gbphy*/pwm/ | grep -E '^pwmchip[0-9]+\$'")
spibus=$(agent "ls $G/1-3.3.1/gbphy*/spi_master/ | sed -n 's/^spi\([0-9][0-9]*\)\$/\1/p'")
rawdev=$(agent "ls /sys/class/gb_raw/ | sed 's/^gb!/gb\//'")
echo "   guest devices: $pwmchip, SPI bus $spibus, /dev/$rawdev"

# --- PWM -------------------------------------------------------------------------------------
# pwm_get CHANNEL: the module's state of a PWM channel, through gbvp ctl.
pwm_get() {
    "$gbvp" ctl --socket "$run_dir/control.sock" cmd slot="${slot[pwm]}" "line=pwm get $1" |
        sed -n 's/.*"reply":"\([^"]*\)".*/\1/p'
}
if [ -z "$pwmchip" ]; then
    not_ok "pwm: a pwmchip under the PWM gbphy device" "$(agent "ls -R $G/1-2.2.1/ | head -n 30")"
else
    P=/sys/class/pwm/$pwmchip
    npwm=$(agent "cat $P/npwm")
    if [ "$npwm" = 2 ]; then
        ok "pwm: $pwmchip has npwm 2 (the behaviour's channels; PWM_COUNT answers 1)"
    else
        not_ok "pwm: $pwmchip npwm" "got '$npwm', want 2"
    fi
    # step LABEL GUEST-COMMANDS WANT: run the commands in the guest, then compare the
    # module's view of channel 0 with WANT.
    pwm_step() {
        local out st
        out=$(agent "$2" 2>&1)
        st=$(pwm_get 0)
        if [ "$st" = "$3" ]; then
            ok "pwm: $1: module has '$st'"
        else
            not_ok "pwm: $1" "module has '$st', want '$3'" "guest: ${out//$'\n'/ | }"
        fi
    }
    pwm_step "export pwm0 (REQUEST -> ACTIVATE)" "echo 0 > $P/export && [ -d $P/pwm0 ]" \
        "off duty-ns 0 period-ns 0 polarity normal active"
    # 6.1's gb_pwm_apply sends CONFIG only for an enabled output: period and duty cycle stay
    # in the kernel until enable.
    pwm_step "period 1000000, duty_cycle 250000 while disabled (kept by the kernel)" \
        "echo 1000000 > $P/pwm0/period && echo 250000 > $P/pwm0/duty_cycle && [ \$(cat $P/pwm0/period) = 1000000 ] && [ \$(cat $P/pwm0/duty_cycle) = 250000 ]" \
        "off duty-ns 0 period-ns 0 polarity normal active"
    pwm_step "polarity inversed (POLARITY at once)" \
        "echo inversed > $P/pwm0/polarity && [ \$(cat $P/pwm0/polarity) = inversed ]" \
        "off duty-ns 0 period-ns 0 polarity inversed active"
    pwm_step "enable 1 (CONFIG, ENABLE)" "echo 1 > $P/pwm0/enable && [ \$(cat $P/pwm0/enable) = 1 ]" \
        "on duty-ns 250000 period-ns 1000000 polarity inversed active"
    pwm_step "duty_cycle 750000 while enabled (CONFIG)" "echo 750000 > $P/pwm0/duty_cycle" \
        "on duty-ns 750000 period-ns 1000000 polarity inversed active"
    pwm_step "period 2000000 while enabled (CONFIG)" "echo 2000000 > $P/pwm0/period" \
        "on duty-ns 750000 period-ns 2000000 polarity inversed active"
    pwm_step "polarity normal while enabled (DISABLE, POLARITY, CONFIG, ENABLE)" \
        "echo normal > $P/pwm0/polarity" \
        "on duty-ns 750000 period-ns 2000000 polarity normal active"
    pwm_step "enable 0 (DISABLE)" "echo 0 > $P/pwm0/enable" \
        "off duty-ns 750000 period-ns 2000000 polarity normal active"
    pwm_step "unexport (FREE -> DEACTIVATE)" "echo 0 > $P/unexport && ! [ -e $P/pwm0 ]" \
        "off duty-ns 750000 period-ns 2000000 polarity normal"
    st=$(pwm_get 1)
    if [ "$st" = "off duty-ns 0 period-ns 0 polarity normal" ]; then
        ok "pwm: channel 1, never exported, untouched in the module"
    else
        not_ok "pwm: channel 1 untouched" "module has '$st'"
    fi
fi

# --- SPI -------------------------------------------------------------------------------------
if [ -z "$spibus" ]; then
    not_ok "spi: an SPI master under the SPI gbphy device" "$(agent "ls -R $G/1-3.3.1/ | head -n 30")"
else
    S=/sys/bus/spi/devices/spi$spibus
    out=$(agent "for c in 0 1; do echo \$(cat $S.\$c/modalias) \$(basename \$(readlink $S.\$c/driver) 2>/dev/null); done" 2>&1)
    if [ "$out" = "$(printf 'spi:spidev\nspi:dh2228fv spidev')" ]; then
        ok "spi: DEVICE_CONFIG declared spi$spibus.0 (type spidev, no driver of its own) and spi$spibus.1 (dh2228fv, bound by spidev)"
    else
        not_ok "spi: the declared devices" "got: ${out//$'\n'/ | }"
    fi
    # A device of type spidev is bound as the kernel documents it (Documentation/spi/spidev.rst).
    if wait_guest 10 "echo spidev > $S.0/driver_override && echo spi$spibus.0 > /sys/bus/spi/drivers/spidev/bind; [ -c /dev/spidev$spibus.0 ]" &&
       wait_guest 10 "[ -c /dev/spidev$spibus.1 ]"; then
        ok "spi: /dev/spidev$spibus.0 (driver_override) and /dev/spidev$spibus.1 exist"
    else
        not_ok "spi: spidev nodes" "$(agent 'ls /dev | grep spi; dmesg | grep -i spi | tail -n 5')"
    fi
    # spi_xfer CS ARGS...: runs spidev_test on /dev/spidevB.CS, prints its output.
    spi_xfer() { local cs=$1; shift; agent "/usr/bin/spidev_test -D /dev/spidev$spibus.$cs $*" 2>&1; }
    sim_cmd 1 spi recv >/dev/null # (nothing yet; empties the MOSI record)
    # The module answers a JEDEC-id style read with the bytes a script queued.
    sim_cmd 1 spi queue 00ef4018 >/dev/null
    out=$(spi_xfer 0 -s 1000000 -v -p "'\\x9f\\x00\\x00\\x00'")
    mosi=$(sim_cmd 1 spi recv)
    st=$(sim_cmd 1 spi stats)
    if grep -q '^RX | 00 EF 40 18 ' <<<"$out" && [ "$mosi" = 9f000000 ] && [[ $st == *" cs 0 mode 0x00" ]]; then
        ok "spi: spidev_test on spidev$spibus.0: the module saw 9f000000 (chip select 0) and answered 00 ef 40 18"
    else
        not_ok "spi: transfer on spidev$spibus.0" "guest: ${out//$'\n'/ | }" "module saw '$mosi'; stats '$st'"
    fi
    # Nothing queued: the device echoes, in the same full-duplex transfer.
    out=$(spi_xfer 1 -v -p "'gbvp\\x01\\x80'")
    mosi=$(sim_cmd 1 spi recv)
    st=$(sim_cmd 1 spi stats)
    if grep -q '^RX | 67 62 76 70 01 80 ' <<<"$out" && [ "$mosi" = 676276700180 ] &&
       [[ $st == *" cs 1 mode 0x00" ]]; then
        ok "spi: spidev_test on spidev$spibus.1: the module saw 676276700180 (chip select 1) and echoed it"
    else
        not_ok "spi: transfer on spidev$spibus.1" "guest: ${out//$'\n'/ | }" "module saw '$mosi'; stats '$st'"
    fi
    # SPI_LOOP (the master offers it): MISO is MOSI whatever the device would say, so
    # spidev_test's own check of 3 x 300 random bytes passes although bytes are queued.
    sim_cmd 1 spi queue 5a5a5a5a >/dev/null
    before=$(sim_cmd 1 spi stats | sed -n 's/.*bytes-in \([0-9]*\).*/\1/p')
    out=$(spi_xfer 1 -l -S 300 -I 3)
    rc=$?
    st=$(sim_cmd 1 spi stats)
    after=$(sed -n 's/.*bytes-in \([0-9]*\).*/\1/p' <<<"$st")
    if [ $rc = 0 ] && grep -q '^total: tx 0.9KB, rx 0.9KB' <<<"$out" && [ $((after - before)) = 900 ] &&
       [[ $st == *" cs 1 mode 0x20" ]]; then
        ok "spi: spidev_test -l (SPI_LOOP, mode 0x20): 900 bytes looped back, none differing"
    else
        not_ok "spi: loop mode" "exit $rc; guest: ${out//$'\n'/ | }" "module: bytes-in $before -> '$st'"
    fi
    sim_cmd 1 spi recv >/dev/null
fi

# --- Log -------------------------------------------------------------------------------------
# gb-log prints with dev_dbg on the bundle: nothing shows until dynamic debug enables it.
tag=$RANDOM
sim_cmd 2 log send "gbvp-log-hidden-$tag" >/dev/null
sleep 1
hidden=$(agent "dmesg | grep -c gbvp-log-hidden-$tag")
ddc=$(agent "echo 'module gb_log +p' > /sys/kernel/debug/dynamic_debug/control && grep -c 'gb_log' /sys/kernel/debug/dynamic_debug/control" 2>&1)
a=$(sim_cmd 2 log send "gbvp-log-line-$tag hello from the module")
b=$(sim_cmd 2 log send "gbvp-log-line-$tag second line")
if wait_guest 10 "[ \$(dmesg | grep -c 'gbvp-log-line-$tag') -ge 2 ]"; then
    out=$(agent "dmesg | grep 'gbvp-log-line-$tag' | sed 's/^\[[ 0-9.]*\] //'")  # (time stamps with printk.time=1, as in lockstep)
    if grep -qx "log 1-4.4.1: gbvp-log-line-$tag hello from the module" <<<"$out" &&
       grep -qx "log 1-4.4.1: gbvp-log-line-$tag second line" <<<"$out" && [ "$hidden" = 0 ]; then
        ok "log: module lines in dmesg as 'log 1-4.4.1: TEXT' (driver, bundle) once 'module gb_log +p' is set, none before"
    else
        not_ok "log: dmesg lines" "got: ${out//$'\n'/ | }" "lines before dynamic debug: $hidden"
    fi
else
    not_ok "log: module lines reach dmesg" "sim: '$a' '$b'" "dynamic_debug gb_log entries: $ddc" \
        "$(agent 'dmesg | tail -n 5')"
fi

# --- Raw -------------------------------------------------------------------------------------
if [ -z "$rawdev" ]; then
    not_ok "raw: a gb_raw device" "$(agent 'ls /sys/class/gb_raw /dev/gb' 2>&1)"
else
    sim_cmd 2 raw recv >/dev/null
    agent "printf 'hello-raw' > /dev/$rawdev && printf '\\000\\001\\376\\377' > /dev/$rawdev" >/dev/null 2>&1
    mod=$(sim_cmd 2 raw recv)
    if [ "$mod" = 68656c6c6f2d7261770001feff ]; then
        ok "raw: two writes to /dev/$rawdev reach the module in order ($mod)"
    else
        not_ok "raw: guest writes reach the module" "module has '$mod', want 68656c6c6f2d7261770001feff"
    fi
    # 2036 bytes, the most one write's SEND request holds (2040-byte payload): md5 both sides.
    agent "dd if=/dev/urandom of=/tmp/raw.bin bs=2036 count=1 2>/dev/null && dd if=/tmp/raw.bin of=/dev/$rawdev bs=2036 2>/dev/null" >/dev/null 2>&1
    want=$(agent "md5sum /tmp/raw.bin" | cut -d' ' -f1)
    hex=
    for _ in $(seq 1 10); do
        part=$(sim_cmd 2 raw recv) || break
        [ -z "$part" ] && break
        hex+=$part
    done
    got=$(xxd -r -p <<<"$hex" | md5sum | cut -d' ' -f1)
    if [ ${#hex} = 4072 ] && [ "$got" = "$want" ]; then
        ok "raw: a 2036-byte write arrives whole (md5 $want)"
    else
        not_ok "raw: 2036-byte write" "module got $(( ${#hex} / 2 )) bytes, md5 $got; guest md5 $want"
    fi
    # The module sends two packets; each read returns one, then 0 (raw.c never blocks).
    sim_cmd 2 raw send cafe >/dev/null
    sim_cmd 2 raw send 0102030405 >/dev/null
    out=$(agent "sleep 0.5; for i in 1 2 3; do echo \"\$(dd if=/dev/$rawdev bs=8192 count=1 2>/dev/null | hexdump -v -e '1/1 \"%02x\"')\"; done" 2>&1)
    if [ "$out" = "$(printf 'cafe\n0102030405\n')" ]; then
        ok "raw: module data read back on /dev/$rawdev one packet a read (cafe, 0102030405, then nothing)"
    else
        not_ok "raw: module data read back" "guest read: ${out//$'\n'/ | }"
    fi
fi

# --- USB ------------------------------------------------------------------------------------
# 6.1's gb-usb never registers its host controller: gb_usb_probe (drivers/staging/greybus/
# usb.c, lines 187-201) creates and enables the connection, then stops at
# `if (1) { dev_warn(dev, "USB protocol disabled\n"); retval = -EPROTONOSUPPORT; ... }`,
# so no HCD_START or HUB_CONTROL ever reaches the module (test_vm_ap_path drives the root hub
# through the AP model instead). What the guest shows: the bundle bound by gbphy, the gbphy
# device's probe refused with -93 and that warning, no Greybus USB bus; the module saw its
# CPort connected and nothing else.
mark_u=$(dmesg_lines)
sim_send "insert 3 usb"
if wait_guest 60 "[ -e $G/1-5.5.1/driver ] && dmesg | grep -q 'USB protocol disabled'"; then
    usbmsg=$(dmesg_range "$mark_u" | grep -E 'USB protocol disabled|probe of gbphy[0-9]+ failed with error -93' | sed 's/^\[[ 0-9.]*\] //' | paste -sd';')
    hcd=$(agent "grep -l 'Greybus USB Host Controller' /sys/bus/usb/devices/usb*/product 2>/dev/null")
    st=$(sim_cmd 3 usb status)
    if [[ $usbmsg == *"USB protocol disabled"*"failed with error -93"* ]] && [ -z "$hcd" ] &&
       [[ $st == "hcd stopped "*" hub-requests 0 "* ]]; then
        ok "usb: bound by gbphy, 6.1's probe stops as its source says ($usbmsg); no Greybus HCD; the module saw no HCD or hub request (${st%%;*})"
    else
        not_ok "usb: 6.1 refuses the protocol, the module sees no request" "dmesg: $usbmsg" "hcd: '$hcd'" "module: $st"
    fi
else
    not_ok "usb: the bundle bound and 6.1's warning within 60 s" "$(dmesg_range "$mark_u" | tail -n 5)"
fi

# --- removal -------------------------------------------------------------------------------
mark_a=$(dmesg_lines)
for m in pwm spi lograw; do sim_send "remove ${slot[$m]}"; done
sim_send "remove 3"
if wait_modules_gone 60; then
    left=$(agent "ls /dev/$rawdev /dev/spidev* /sys/class/pwm/$pwmchip /sys/bus/spi/devices/spi$spibus.0 2>/dev/null")
    if [ -z "$left" ]; then
        ok "removal: the pwmchip, SPI devices, spidev and raw nodes are gone"
    else
        not_ok "removal makes every class device disappear" "left: ${left//$'\n'/ }"
    fi
else
    not_ok "removal: modules gone within 60 s" "$(agent "ls $G" | tr '\n' ' ')"
fi

dmesg_verdict "$mark_a" "$(dmesg_lines)"
finish
