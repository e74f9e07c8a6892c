#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Greybus audio in the arm64 guest (QEMU virt), with the unmodified 6.1 drivers: the device
# tree run-guest.sh adds (guest/arm64-audio.dtsi) gives gb-audio-codec its platform device
# inside a sound card; the catalog's speaker module is bound by gb-audio, which reads its
# topology (widgets, routes) and registers it with the codec and the audio manager; aplay on
# the card's PCM runs the APBridgeA audio requests through greybus-es2 to the simulator's
# bridge (configure, data size, prepare, start, stop, shut down); removal unregisters it.
# Last, a speaker whose topology lists controls shows the 6.1 deadlock that keeps module
# controls out of reach (docs/modules.md, "Audio: the speaker"). Ends with
# "N passed, N failed".
export GBVP_ARCH=arm64
source "$(dirname "$0")/lib.sh"

amixer=/usr/bin/amixer aplay=/usr/bin/aplay
# The catalog's speaker, and `mixer`: the same module with the controls in its topology.
catalog=$run_dir/catalog
mkdir -p "$catalog"
cp virtual-modules/catalog/speaker.mnfs virtual-modules/catalog/speaker.behaviour "$catalog/"
cp virtual-modules/catalog/speaker.mnfs "$catalog/mixer.mnfs"
sed 's/^topology-controls = no$/topology-controls = yes/' virtual-modules/catalog/speaker.behaviour \
    >"$catalog/mixer.behaviour"
grep -q '^topology-controls = yes$' "$catalog/mixer.behaviour" ||
    { not_ok "catalog/speaker.behaviour has the 'topology-controls = no' line"; finish; }
gbvp_boot --slots 2 --catalog "$catalog"

cards=$(agent 'cat /proc/asound/cards')
if [[ $cards == *"[gbaudio"*"]: gbaudio - gbaudio"* ]]; then
    ok "the device tree's sound card is card 0, 'gbaudio' (audio-graph-card, gb-audio-codec)"
else
    not_ok "card 0 'gbaudio' in /proc/asound/cards" "$cards" "$(agent 'dmesg | grep -iE "asoc|snd|codec"')"
    finish
fi
n=$(agent "$amixer -c 0 controls | wc -l")
check "no controls before a module is in ($n)" [ "$n" = 0 ]

# --- insertion: bound, registered with the codec and the audio manager -----------------------
line0=$(dmesg_lines)
sim_send "insert 0 speaker"
if wait_guest 60 "grep -qs gb-audio /sys/kernel/gb_audio_manager/*/name"; then
    ok "after insertion the audio manager lists the module"
else
    not_ok "audio manager entry within 60 s" "$(agent 'dmesg | tail -n 15')"
    finish
fi
driver=$(agent 'basename "$(readlink /sys/bus/greybus/devices/*-2.2.1/driver)"' 2>&1)
check "the audio bundle (interface 2, bundle 1) is bound by gb-audio ($driver)" [ "$driver" = gb-audio ]
mgr=$(agent 'cd /sys/kernel/gb_audio_manager/* && echo "$(cat name) intf $(cat intf_id) op $(cat op_devices) ip $(cat ip_devices)"')
# op_devices: GBAUDIO_DEVICE_OUT_SPEAKER (0x2), from the topology's speaker widget
if [[ $mgr =~ ^gb-audio\.[0-9]+-2\.2\.1\ intf\ 2\ op\ 0x2\ ip\ 0x0$ ]]; then
    ok "manager entry: name, interface 2, output devices 0x2 (the topology's speaker widget)"
else
    not_ok "audio manager entry" "$mgr"
fi
state=$(sim_cmd 0 audio stats)
check "the kernel read the module's topology once ($state)" grep -q 'topology-reads 1' <<<"$state"
n=$(agent "$amixer -c 0 controls | wc -l")
check "the card has no controls: the catalog speaker's topology lists none ($n)" [ "$n" = 0 ]

# --- a playback stream: the APBridgeA audio requests reach the bridge ---------------------------
from=$(($(wc -l <"$run_dir/sim.log") + 1))
agent "($aplay -q -D hw:0,0 -t raw -f S16_LE -r 48000 -c 2 /dev/zero >/tmp/aplay.log 2>&1 &) ; echo started" >/dev/null
if wait_sim_log "$from" 30 'bridge audio: TX started'; then
    ok "aplay's stream starts TX at the bridge (AUDIO_CONTROL requests through greybus-es2)"
else
    not_ok "bridge audio: TX started within 30 s" "$(tail -n +"$from" "$run_dir/sim.log" | tail -n 15)" \
        "$(agent 'cat /tmp/aplay.log; dmesg | tail -n 10')"
fi
log=$(tail -n +"$from" "$run_dir/sim.log")
check "the bridge was set to 16-bit 48000 Hz, MCLK 6144000 Hz (hw_params)" \
    grep -q 'bridge audio: I2S 0 set to 16-bit at 48000 Hz (MCLK 6144000 Hz)' <<<"$log"
check "TX data size 192 bytes (prepare), then TX prepared (unmute)" \
    grep -qz 'TX data size 192 bytes.*TX prepared' <<<"$log"
sim_send status
sleep 1
check "gbvp sim status shows the I2S port streaming" \
    grep -q 'bridge audio: I2S 0 16-bit 48000 Hz; TX started' "$run_dir/sim.log"
from=$(($(wc -l <"$run_dir/sim.log") + 1))
agent 'kill $(pidof aplay)' >/dev/null
if wait_sim_log "$from" 30 'bridge audio: TX shut down'; then
    ok "ending aplay stops and shuts TX down at the bridge"
else
    not_ok "TX stopped and shut down within 30 s" "$(tail -n +"$from" "$run_dir/sim.log" | tail -n 10)"
fi
refused=$(grep -c 'bridge audio: request .* refused' "$run_dir/sim.log")
check "the bridge refused none of the AP's audio requests ($refused)" [ "$refused" = 0 ]
# 6.1's gbaudio_dapm_link_component_dai_widgets (audio_helper.c) leaves out the DAPM path from
# the codec DAI to a module's AIF widget, so the stream powers no module widget: the module is
# neither registered at the bridge nor activated (docs/modules.md, "Audio: the speaker").
state=$(sim_cmd 0 audio state)
check "as 6.1 links no module widget to the stream, the module's TX stays off" \
    grep -q 'tx 0 off' <<<"$state"

# --- removal ------------------------------------------------------------------------------------
sim_send "remove 0"
if wait_guest 30 "! ls /sys/kernel/gb_audio_manager/*/name >/dev/null 2>&1"; then
    ok "removal unregisters the module (the audio manager is empty)"
else
    not_ok "audio manager empty within 30 s" "$(agent 'ls /sys/kernel/gb_audio_manager')"
fi
crashes=$(dmesg_crashes "$line0")
check "no WARN, BUG or oops in the guest" [ -z "$crashes" ]
errors=$(dmesg_range "$line0" | grep -iE 'audio|codec|asoc' | grep -iE 'error|fail|invalid' )
check "no audio errors in dmesg" [ -z "$errors" ]

# --- controls in the topology: the 6.1 deadlock -------------------------------------------------
# gbaudio_register_module (audio_codec.c) holds the card's controls_rwsem for writing while it
# adds the module's controls, and ALSA's snd_ctl_add takes that rwsem itself: the probe, run
# by the SVC's work queue, never returns. Nothing reads the card's controls here (amixer would
# block on the same rwsem); the guest is stopped with the test.
sim_send "insert 1 mixer"
sleep 15
stuck=$(agent 'for p in /proc/[0-9]*; do [ "$(cut -d" " -f3 $p/stat 2>/dev/null)" = D ] && cat $p/comm; done')
reads=$(sim_cmd 1 audio stats | grep -o 'topology-reads [0-9]*')
if [[ $stuck == *greybus1:svc* ]] && [ "$reads" = "topology-reads 1" ]; then
    ok "a topology with controls: 6.1 read it, then its probe blocks for good ($stuck)"
else
    not_ok "the 6.1 deadlock with topology controls" "blocked: ${stuck:-none}" "$reads"
fi
finish
