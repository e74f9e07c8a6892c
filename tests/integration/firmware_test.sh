#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Ara boot flow against the real 6.1 kernel: the catalog's `bootrom` module (a Bootrom
# bundle, init status 0x06 "boot ROM") is bound by gb-bootrom, which names the stage-2
# image after the interface's ids and asks request_firmware() for it; the module fetches it
# over the Bootrom protocol (FIRMWARE_SIZE, GET_FIRMWARE, READY_TO_BOOT), checks size and
# CRC-32, boots it and writes the SVC mailbox; 6.1's legacy mode switch re-enumerates the
# interface, which now serves the image's manifest (GPIO + loopback), and the guest binds it.
#
# The project's guest kernel has CONFIG_FW_LOADER (guest/linux.config), so the download
# itself must succeed. A kernel without it makes request_firmware() fail with -EINVAL
# whatever /lib/firmware holds: the test then fails that check and takes the boot ROM's
# other source, so the rest still runs: the image is put into the module's flash from the
# host (`bootrom flash FILE`), first a corrupt copy the module must refuse, then the real
# one; everything after READY_TO_BOOT is the same.
#
# Then the catalog's `firmware` module (a Firmware Management bundle with Firmware Download,
# SPI and Component Authentication CPorts): the kernel's samples firmware.c and
# authenticate.c (/usr/bin/gb-firmware, /usr/bin/gb-authenticate) read the interface
# firmware version, load and validate (FAILED without a firmware loader), the backend
# version and update (FAIL_FIND likewise); spilib's SPI master gets a spidev; the module's
# Ed25519 signature of the challenge is verified on the host with openssl against the key in
# its IMS certificate, and a changed response must not verify.
# Ends with "N passed, N failed".
source "$(dirname "$0")/lib.sh"

fwname=gmp_00000126_00001002_00000042_00000b00_s2l.tftf
# The same image the guest build packs (scripts/build-guest.sh), and a corrupt copy.
img=$(guest/firmware/mkfw.sh "$run_dir/$fwname" gbvp-s2l-gpio-loopback 1 0 \
      guest/firmware/s2l-gpio-loopback.mnfs 12288) || { not_ok "mkfw.sh builds the image"; finish; }
crc=${img##* }
guest/firmware/mkfw.sh "$run_dir/bad.tftf" gbvp-s2l-gpio-loopback 1 0 \
    guest/firmware/s2l-gpio-loopback.mnfs 12288 --corrupt >/dev/null

gbvp_boot --slots 2
G=/sys/bus/greybus/devices
mark0=$(dmesg_lines)
sim_send "insert 0 bootrom"

# --- the boot ROM asks for its stage-2 image --------------------------------------------
if wait_guest 60 "dmesg | grep -q \"Firmware file '$fwname' requested\""; then
    ok "gb-bootrom bound 1-2.2.1 and requested '$fwname' (ids 0x126/0x1002/0x42/0xb00)"
else
    not_ok "gb-bootrom requests $fwname within 60 s" "$(agent "ls $G; dmesg | tail -n 8")"
    finish
fi
ids=$(agent "cd $G/1-2.2 && echo \$(cat vendor_id product_id) \$(cat 1-2.2.1/bundle_class)")
# (with a firmware loader the download and the boot follow the request within a second, so
# the bundle may already be the booted firmware's GPIO bundle, class 0x0a)
if [ "$ids" = "0x00000042 0x00000b00 0x15" ] || [ "$ids" = "0x00000042 0x00000b00 0x0a" ]; then
    ok "interface 1-2.2 shows vendor 0x42, product 0xb00; bundle 1-2.2.1 of class ${ids##* } (0x15 Bootrom, or 0x0a once booted)"
else
    not_ok "interface ids and bootrom bundle" "got '$ids'"
fi

# the image the guest build put into /lib/firmware is byte for byte the host's
gsum=$(agent "md5sum /lib/firmware/$fwname" | awk '{print $1}')
if [ -n "$gsum" ] && [ "$gsum" = "$(md5sum <"$run_dir/$fwname" | awk '{print $1}')" ]; then
    ok "/lib/firmware/$fwname in the guest is the host's image (md5 $gsum)"
else
    not_ok "the guest's /lib/firmware holds the image" "guest md5 '$gsum'"
fi
no_loader=0
sleep 2
if agent "dmesg | grep -q 'failed to find $fwname firmware (-22)'"; then
    no_loader=1
    not_ok "request_firmware: the guest kernel has no firmware loader (CONFIG_FW_LOADER)" \
        "$(agent "dmesg | grep 'failed to find'")"
    st=$(sim_cmd 0 firmware state)
    if grep -q "bootrom failed .*request 0x02 with result 0x06" <<<"$st"; then
        ok "the guest kernel has no firmware loader: request_firmware gave -22 and the module saw FIRMWARE_SIZE refused (GB_OP_INVALID)"
    else
        not_ok "module state after the refused FIRMWARE_SIZE" "$st"
    fi
    # A corrupt image: READY_TO_BOOT says INVALID, the interface stays in its boot ROM.
    out=$(sim_cmd 0 bootrom flash "$run_dir/bad.tftf")
    sleep 2
    st=$(sim_cmd 0 firmware state)
    if grep -q "boots 0 .*bootrom failed received 12288/12288 .*CRC-32" <<<"$st" &&
       agent "[ -e $G/1-2.2.1/driver ]"; then
        ok "a corrupt image is refused on its CRC-32 (READY_TO_BOOT INVALID); 1-2.2.1 stays bound to gb-bootrom"
    else
        not_ok "corrupt image refused" "$out" "$st"
    fi
    mark1=$(dmesg_lines)
    out=$(sim_cmd 0 bootrom flash "$run_dir/$fwname")
    if [ $? -eq 0 ]; then
        ok "module flash: $out"
    else
        not_ok "bootrom flash $fwname" "$out"
    fi
else
    mark1=$mark0
fi

# --- the mode switch and the new personality ---------------------------------------------
cond="[ -e $G/1-2.2.1/driver ] && [ -e $G/1-2.2.2/driver ] && [ \$(cat $G/1-2.2.1/bundle_class) = 0x0a ]"
if wait_guest 60 "$cond"; then
    ok "after the mailbox event 1-2.2 re-enumerated: bundles 1-2.2.1 (class 0x0a) and 1-2.2.2 bound"
else
    not_ok "re-enumeration with the firmware's manifest within 60 s" \
        "$(agent "ls $G; dmesg | tail -n 12")" "$(tail -n 8 "$run_dir/sim.log")"
    finish
fi
if agent "dmesg | sed -n '$((mark1 + 1)),\$p' | grep -q '1-2.2: legacy mode switch detected'"; then
    ok "dmesg: 'greybus 1-2.2: legacy mode switch detected' (6.1's boot-ROM path)"
else
    not_ok "legacy mode switch in dmesg" "$(agent "dmesg | tail -n 12")"
fi
st=$(sim_cmd 0 firmware state)
if grep -q "^boots 1 name gbvp-s2l-gpio-loopback size 12288 crc $crc version 1.0" <<<"$st"; then
    ok "the module booted the image: 12288 bytes, CRC-32 $crc as computed on the host"
else
    not_ok "firmware state after the boot" "got '$st', want size 12288 crc $crc"
fi
if [ "$no_loader" = 0 ]; then
    if agent "dmesg | grep -q \"Firmware file '$fwname' requested\"" && grep -q "^boots 1" <<<"$st"; then
        ok "the image came over UniPro (Bootrom protocol) from the guest's /lib/firmware"
    else
        not_ok "download over UniPro" "$st"
    fi
fi

# GPIO: the chip the new firmware declares, and a level the module drives.
wait_guest 30 "ls -d $G/1-2.2.1/gbphy*/gpio/gpiochip* >/dev/null 2>&1 && ls $G/1-2.2.2/gb_loopback/* >/dev/null 2>&1" || true
chip=$(agent "ls $G/1-2.2.1/gbphy*/gpio/ | grep -E '^gpiochip[0-9]+\$'")
if [ -n "$chip" ] && [ "$(agent "cat /sys/class/gpio/$chip/ngpio /sys/class/gpio/$chip/label | tr '\n' ' '")" = "8 greybus_gpio " ]; then
    ok "gpio: $chip (label greybus_gpio, ngpio 8) from the firmware's bridged-PHY bundle"
else
    not_ok "gpio chip of the booted firmware" "$(agent "ls -R $G/1-2.2.1 | head -n 20")"
fi
loop=$(agent "ls $G/1-2.2.2/gb_loopback/")
if [ -n "$loop" ]; then
    l=$G/1-2.2.2/gb_loopback/$loop
    out=$(AGENT_TIMEOUT=90 agent "cd $l; echo 0 > type; echo 64 > size; echo 20 > iteration_max; echo 0 > async; echo 3 > type; i=0; until [ \$(cat iteration_count) -ge 20 ]; do i=\$((i+1)); [ \$i -gt 600 ] && break; sleep 0.1; done; echo \$(cat iteration_count error); echo 0 > type")
    if [ "$out" = "20 0" ]; then
        ok "loopback ($loop): 20 transfers of 64 bytes, no error"
    else
        not_ok "loopback transfers on the booted firmware" "iteration_count/error '$out'"
    fi
else
    not_ok "a gb_loopback device under 1-2.2.2" "$(agent "ls $G/1-2.2.2")"
fi

# --- Firmware Management (the catalog's `firmware` module in slot 1, interface 1-3.3) ------
# Driven by the kernel's own sample, drivers/staging/greybus/Documentation/firmware/firmware.c
# (/usr/bin/gb-firmware in the guest).
sim_send "insert 1 firmware"
if wait_guest 60 "[ -e $G/1-3.3.1/driver ] && ls /dev/gb-fw-mgmt-* >/dev/null 2>&1"; then
    ok "gb-firmware bound 1-3.3.1 (class 0x16): $(agent 'ls /dev/gb-fw-mgmt-* /dev/gb-authenticate-* 2>&1' | tr '\n' ' ')"
else
    not_ok "firmware management bundle bound, /dev/gb-fw-mgmt-N within 60 s" "$(agent "ls $G /dev; dmesg | tail -n 8")"
    finish
fi
fwdev=$(agent 'ls /dev/gb-fw-mgmt-*' | head -n 1)
out=$(AGENT_TIMEOUT=60 agent "/usr/bin/gb-firmware $fwdev 1 bf_01 5000" 2>&1)
st=$(sim_cmd 1 firmware state)
if grep -q 'Backend Firmware tag (bf_01), major (0), minor (0), status (2)' <<<"$out"; then
    ok "gb-firmware: backend bf_01 version NOT_AVAILABLE (2) before any update"
else
    not_ok "backend firmware version" "$out"
fi
if [ "$no_loader" = 1 ]; then
    if grep -q 'Load status says loading failed: 2' <<<"$out" && grep -q 'updates 1 update-status 2' <<<"$st"; then
        ok "backend update: BACKEND_FW_UPDATED FAIL_FIND (2) as the AP cannot load bf_01"
    else
        not_ok "backend update without a firmware loader" "$out" "$st"
    fi
else
    if grep -q 'Backend Firmware (bf_01) Load done: status: 1' <<<"$out"; then
        ok "backend update: bf_01 written, BACKEND_FW_UPDATED SUCCESS"
    else
        not_ok "backend update" "$out" "$st"
    fi
fi
# spilib: the bundle's SPI CPort becomes an SPI master whose chip select 0 spidev binds
if wait_guest 20 "ls -d $G/1-3.3.1/spi_master/spi* >/dev/null 2>&1"; then
    bus=$(agent "ls $G/1-3.3.1/spi_master/ | sed -n 's/^spi\([0-9][0-9]*\)\$/\1/p'")
    if agent "[ -c /dev/spidev$bus.0 ]"; then
        ok "spilib: SPI master spi$bus under the firmware bundle, /dev/spidev$bus.0 bound"
    else
        not_ok "spidev on the firmware bundle's SPI master" "$(agent "ls /dev; ls $G/1-3.3.1/spi_master/spi$bus")"
    fi
else
    not_ok "an SPI master under 1-3.3.1" "$(agent "ls $G/1-3.3.1")"
fi

# --- Component Authentication: the kernel's sample authenticate.c (/usr/bin/gb-authenticate) --
capdev=$(agent 'ls /dev/gb-authenticate-*' | head -n 1)
out=$(AGENT_TIMEOUT=60 agent "/usr/bin/gb-authenticate $capdev" 2>&1)
if grep -q 'UID received: 0x6762767000000043' <<<"$out" && grep -q 'IMS Certificate size: 44' <<<"$out" &&
   grep -q 'Authenticated, result (00), sig-size (40)' <<<"$out"; then
    ok "gb-authenticate: UID 0x6762767000000043, 44-byte IMS certificate, authenticated (result 0, 64-byte signature)"
else
    not_ok "gb-authenticate on $capdev" "$out"
fi
st=$(sim_cmd 1 auth state)
cert=$(sed -n 's/.* certificate \([0-9a-f]*\) .*/\1/p' <<<"$st")
resp=$(sed -n 's/.* response \([0-9a-f]*\) .*/\1/p' <<<"$st")
sig=$(sed -n 's/.* signature \([0-9a-f]*\)$/\1/p' <<<"$st")
printf '%s' "$cert" | xxd -r -p >"$run_dir/cap-cert.der"
printf '%s' "$resp" | xxd -r -p >"$run_dir/cap-response.bin"
printf '%s' "$sig" | xxd -r -p >"$run_dir/cap-signature.bin"
# the response the module signed: our UID (little-endian), then the sample's all-zero challenge
want_head=4300000070766267$(printf '0%.0s' $(seq 1 64))
verify() { openssl pkeyutl -verify -pubin -inkey "$run_dir/cap-cert.der" -keyform DER -rawin \
               -in "$1" -sigfile "$run_dir/cap-signature.bin" 2>&1; }
v=$(verify "$run_dir/cap-response.bin")
if [ "${resp:0:80}" = "$want_head" ] && grep -q 'Signature Verified Successfully' <<<"$v"; then
    ok "host: openssl verifies the module's Ed25519 signature of UID | challenge | counter with the certificate's key"
else
    not_ok "host verification of the CAP signature" "$st" "$v"
fi
cp "$run_dir/cap-response.bin" "$run_dir/cap-forged.bin"
printf '\001' | dd of="$run_dir/cap-forged.bin" bs=1 seek=20 conv=notrunc status=none
if verify "$run_dir/cap-forged.bin" | grep -q 'Signature Verification Failure'; then
    ok "host: the same signature over a changed response is refused"
else
    not_ok "a forged response must not verify" "$(verify "$run_dir/cap-forged.bin")"
fi

# --- last, the interface firmware: a load that succeeds mode-switches the interface ----
out=$(AGENT_TIMEOUT=60 agent "/usr/bin/gb-firmware $fwdev 0 s3f 5000" 2>&1)
if grep -q 'Interface Firmware tag (s3f), major (1), minor (0)' <<<"$out"; then
    ok "gb-firmware: interface firmware version s3f 1.0 (the behaviour's, INTERFACE_FW_VERSION)"
else
    not_ok "interface firmware version" "$out"
fi
st=$(sim_cmd 1 firmware state)
if [ "$no_loader" = 1 ]; then
    # FIND_FIRMWARE fails in the AP (request_firmware -22): the module says LOADED_FW FAILED
    if grep -q 'Load status says loading failed: 0' <<<"$out" &&
       agent "dmesg | grep -q \"Requested firmware package 'gmp_00000126_00001002_00000043_00000f00_s3f.tftf'\"" &&
       grep -q 'fw-mgmt loads 1 load-status 0' <<<"$st"; then
        ok "load and validate: the module asked FIND_FIRMWARE for gmp_..._00000043_00000f00_s3f.tftf; the AP has no loader, LOADED_FW says FAILED (0), which gb-firmware prints"
    else
        not_ok "load and validate without a firmware loader" "$out" "$st"
    fi
else
    if grep -q 'Interface Firmware (s3f) Load done: major: 1, minor: 1, status: 1' <<<"$out"; then
        ok "load and validate: s3f 1.1 loaded over Firmware Download from the guest's /lib/firmware, UNVALIDATED"
    else
        not_ok "load and validate" "$out" "$st"
    fi
fi
if [ "$no_loader" = 0 ]; then
    # firmware.c asks for the mode switch after an UNVALIDATED load: the interface boots
    # the s3f image and re-enumerates with its manifest (GPIO + loopback)
    cond="[ -e $G/1-3.3.1/driver ] && [ -e $G/1-3.3.2/driver ] && [ \$(cat $G/1-3.3.1/bundle_class) = 0x0a ]"
    st=$(wait_guest 60 "$cond" && sim_cmd 1 firmware state)
    if grep -q "^boots 1 name gbvp-s3f size 8192 .*version 1.1" <<<"$st"; then
        ok "mode switch: 1-3.3 booted s3f 1.1 and re-enumerated with its bundles (class 0x0a and loopback)"
    else
        not_ok "re-enumeration after the interface firmware's mode switch" "$st" "$(agent "ls $G")"
    fi
fi

# --- removal and dmesg ------------------------------------------------------------------------
mark2=$(dmesg_lines)
sim_send "remove 0"
sim_send "remove 1"
if wait_modules_gone 90; then
    ok "removal: the module's devices are gone"
else
    not_ok "modules removed within 90 s" "$(agent "ls $G")"
fi
mark3=$(dmesg_lines)
# without a firmware loader gb-bootrom's "failed to find" is the expected error
expect="failed to find $fwname firmware \(-22\)|firmware request failed for gmp_00000126_00001002_00000043_00000f00_(s3f|bf_01).tftf \(-22\)|failed to load interface firmware, status:00"
p=$( { dmesg_problems 1 "$mark2"; dmesg_problems $((mark3 + 1)); } | grep -vE "$expect")
c=$(dmesg_crashes $((mark2 + 1)) "$mark3")
if [ -z "$p$c" ]; then
    ok "dmesg: no WARN, BUG, oops or greybus error"
else
    not_ok "dmesg is clean" "$p" "$c"
fi
finish
