#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boots the gbvp guest (scripts/build-guest.sh: kernel + busybox initramfs with gbvp-agent)
# in QEMU. The serial console (ttyS0) goes to DIR/console.log; the guest agent's channel
# (a virtio console, hvc0 in the guest) is the Unix socket DIR/agent.sock, served by QEMU (server=on,wait=off), which
# `gbvp agent --socket DIR/agent.sock -- CMD` talks to. QEMU exits when the guest runs
# `reboot -f` (-no-reboot) or panics (panic=-1).
#
# QEMU: gbvp's own build (scripts/build-qemu.sh, has -device greybus-es2) when it exists;
# otherwise Debian's qemu-system-x86_64 (qemu-system-aarch64 for --arch arm64), which is
# enough to boot the guest without the bridge.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: scripts/run-guest.sh [OPTIONS] [-- EXTRA-QEMU-ARGS...]

  --arch ARCH       x86_64 (default; machine pc) or arm64 (machine virt, cortex-a57;
                    its device tree is virt's own with guest/arm64-audio.dtsi added,
                    DIR/guest.dtb: the sound card the Greybus audio drivers need)
  --dir DIR         run directory: console.log, agent.sock, qemu.log, qemu.pid
                    (default: a new /tmp/gbvp-guest.XXXXXX)
  --background      start QEMU and return at once; print the run directory's paths
  --interactive     console on this terminal with a shell (gbvp.shell=1), not a log file;
                    Ctrl-A x quits QEMU, Ctrl-C goes to the guest
  --kvm             use KVM instead of TCG (KVM hangs on some hosts; TCG is the default)
  --qemu PATH       QEMU binary to use (default: see above)
  --system-qemu     use Debian's QEMU even if gbvp's QEMU is built
  --device ARG      add "-device ARG" (repeatable), e.g. --device qemu-xhci,id=xhci
  --kernel PATH     kernel image (default: build-guest.sh's, built if needed)
  --initrd PATH     initramfs (default: build-guest.sh's, built if needed); none: boot
                    without one (a kernel that mounts its root itself, e.g. from --image)
  --image FILE      a disk image the guest sees as a virtio disk, /dev/vda (raw; written
                    in place)
  --append TEXT     extra kernel command-line text (e.g. "quiet" or "dyndbg=...")
  --memory MB       guest memory (default 256)
  --icount SHIFT    lockstep timing: -icount shift=SHIFT,sleep=off (2^SHIFT ns of virtual
                    time per instruction, 0..10), the guest's RTC on the virtual clock
                    (2020-01-01) and the agent's channel on gbvp-agent-port (host input at
                    virtual-time ticks, ioeventfd off), so that the guest runs the same
                    way every time (docs/qemu.md, "Lockstep"); TCG and gbvp's QEMU only
  --seed N          -seed N: the guest's random numbers from a seeded generator
  --cpus LIST       run QEMU, all its threads, on these CPUs only (taskset -c LIST:
                    1, 0,2, 0-3), e.g. away from the simulator's (gbvp sim --cpus)
  -h, --help        this help

Anything after "--" goes to QEMU unchanged (e.g. -chardev/-device for greybus-es2).
EOF
}

die() { echo "run-guest: $*" >&2; exit 1; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$repo/scripts/packages.sh"
arch=x86_64 dir= background=0 interactive=0 accel=tcg qemu= system_qemu=0 kernel= initrd= append= memory=256
icount= seed= image= cpus=
devices=() extra=()
while [ $# -gt 0 ]; do
    case $1 in
    --arch) [ $# -ge 2 ] || die "--arch needs x86_64 or arm64"; arch=$2; shift 2 ;;
    --dir) [ $# -ge 2 ] || die "--dir needs a path"; dir=$2; shift 2 ;;
    --background) background=1; shift ;;
    --interactive) interactive=1; shift ;;
    --kvm) accel=kvm; shift ;;
    --qemu) [ $# -ge 2 ] || die "--qemu needs a path"; qemu=$2; shift 2 ;;
    --system-qemu) system_qemu=1; shift ;;
    --device) [ $# -ge 2 ] || die "--device needs a value"; devices+=(-device "$2"); shift 2 ;;
    --kernel) [ $# -ge 2 ] || die "--kernel needs a path"; kernel=$2; shift 2 ;;
    --initrd) [ $# -ge 2 ] || die "--initrd needs a path"; initrd=$2; shift 2 ;;
    --append) [ $# -ge 2 ] || die "--append needs text"; append=$2; shift 2 ;;
    --image) [ $# -ge 2 ] || die "--image needs a file"; image=$2; shift 2 ;;
    --memory) [ $# -ge 2 ] || die "--memory needs a number of MB"; memory=$2; shift 2 ;;
    --icount) [ $# -ge 2 ] || die "--icount needs a shift, 0..10"; icount=$2; shift 2 ;;
    --seed) [ $# -ge 2 ] || die "--seed needs a number"; seed=$2; shift 2 ;;
    --cpus) [ $# -ge 2 ] || die "--cpus needs a CPU list (e.g. 1, 0,2 or 0-3)"; cpus=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
    esac
done
case $arch in
x86_64) qarch=x86_64 ;;
arm64|aarch64) arch=arm64 qarch=aarch64 ;;
*) die "unknown --arch '$arch' (x86_64 or arm64)" ;;
esac
[[ $memory =~ ^[1-9][0-9]*$ ]] || die "--memory wants a number of MB, not '$memory'"
[ "$background" -eq 1 ] && [ "$interactive" -eq 1 ] && die "--background and --interactive exclude each other"
[ -z "$icount" ] || [[ $icount =~ ^([0-9]|10)$ ]] || die "--icount wants a shift 0..10, not '$icount'"
[ -z "$icount" ] || [ "$accel" = tcg ] || die "--icount counts TCG's instructions: it excludes --kvm"
[ -z "$seed" ] || [[ $seed =~ ^[0-9]+$ ]] || die "--seed wants a number, not '$seed'"
placement=()
if [ -n "$cpus" ]; then
    [[ $cpus =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
        die "--cpus wants a CPU list such as 1, 0,2 or 0-3, not '$cpus'"
    why=$(taskset -c "$cpus" true 2>&1) ||
        die "--cpus $cpus: not CPUs this process may use ($(taskset -pc $$ | sed 's/.*: //')): $why"
    placement=(taskset -c "$cpus")
fi

# --- the guest images -----------------------------------------------------------------------
if [ -z "$kernel" ] || [ -z "$initrd" ]; then
    paths=$("$repo/scripts/build-guest.sh" --arch "$arch") || die "scripts/build-guest.sh failed"
    [ -n "$kernel" ] || kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
    [ -n "$initrd" ] || initrd=$(sed -n 's/^initramfs: //p' <<<"$paths")
fi
[ -f "$kernel" ] || die "kernel image '$kernel' does not exist"
[ "$initrd" = none ] || [ -f "$initrd" ] || die "initramfs '$initrd' does not exist"
if [ -n "$image" ]; then
    [ -f "$image" ] || die "disk image '$image' does not exist"
    [ -r "$image" ] && [ -w "$image" ] || die "disk image '$image' is not readable and writable"
fi

# --- which QEMU -----------------------------------------------------------------------------
wants_greybus=0
for a in "${devices[@]}" "${extra[@]}"; do
    case $a in *greybus-es2*) wants_greybus=1 ;; esac
done
firmware=()
if [ -z "$qemu" ] && [ "$system_qemu" -eq 0 ]; then
    own=$("$repo/scripts/build-qemu.sh" --print-path 2>/dev/null || true)
    # one build tree holds both targets
    [ -n "$own" ] && own=$(dirname "$own")/qemu-system-$qarch
    if [ -n "$own" ] && [ -x "$own" ]; then
        qemu=$own
        # gbvp's QEMU is configured with --disable-install-blobs: firmware from Debian's packages
        [ "$arch" = x86_64 ] && need_packages seabios qemu-system-data
        firmware=(-L /usr/share/qemu -L /usr/share/seabios)
    elif [ "$wants_greybus" -eq 1 ]; then
        die "-device greybus-es2 needs gbvp's QEMU, which is not built${own:+ (expected at $own)}: run scripts/build-qemu.sh"
    else
        echo "run-guest: gbvp's QEMU is not built (scripts/build-qemu.sh); using Debian's qemu-system-$qarch" >&2
    fi
fi
if [ -z "$qemu" ]; then
    command -v "qemu-system-$qarch" >/dev/null ||
        need_packages "$([ "$arch" = arm64 ] && echo qemu-system-arm || echo qemu-system-x86)"
    qemu=$(command -v "qemu-system-$qarch" || true)
    [ -n "$qemu" ] || die "no qemu-system-$qarch: run scripts/build-qemu.sh, or apt-get install $([ "$arch" = arm64 ] && echo qemu-system-arm || echo qemu-system-x86)"
fi
[ -x "$qemu" ] || die "QEMU binary '$qemu' is not executable"

# --- run directory --------------------------------------------------------------------------
if [ -z "$dir" ]; then
    dir=$(mktemp -d /tmp/gbvp-guest.XXXXXX)
else
    mkdir -p "$dir"
fi
dir=$(cd "$dir" && pwd)
sock=$dir/agent.sock
[ ${#sock} -lt 108 ] || die "agent socket path $sock is longer than a Unix socket allows (107 bytes): use a shorter --dir"
rm -f "$sock"

# The agent's channel: one console port (max_ports=1: the default 31 ports give QEMU's main
# loop 64 virtqueue eventfds to poll on every pass, for nothing), a chardev socket served by
# QEMU's main loop; in lockstep (--icount)
# gbvp's gbvp-agent-port instead, which takes the host's bytes only at virtual-time ticks,
# with the port served in the vCPU thread (ioeventfd=off), so that the guest gets a command
# and the host its output at the same virtual time on every run (docs/qemu.md).
ioev= console_dev=(-device virtconsole,chardev=agent)
agent_chardev=(-chardev "socket,id=agent,path=$sock,server=on,wait=off")
if [ -n "$icount" ]; then
    ioev=,ioeventfd=off
    console_dev=(-device "gbvp-agent-port,path=$sock")
    agent_chardev=()
fi
# log_buf_len: a kernel log that holds a whole test (kill and storm tests make thousands of
# lines of surprise-removal errors; the default ring drops the first of them)
if [ "$arch" = x86_64 ]; then
    machine=(-M pc)
    cmdline="console=ttyS0 panic=-1 log_buf_len=4M gbvp.agent=/dev/hvc0"
    agent_port=(-device "virtio-serial-pci,max_ports=1$ioev" "${console_dev[@]}")
else
    machine=(-M virt -cpu cortex-a57)
    cmdline="console=ttyAMA0 panic=-1 log_buf_len=4M gbvp.agent=/dev/hvc0"
    # (on virt the virtio transport, virtio-mmio, owns the property)
    agent_port=(-device virtio-serial-device,max_ports=1 "${console_dev[@]}")
    [ -n "$icount" ] && agent_port+=(-global virtio-mmio.ioeventfd=off)
fi
timing=()
[ -n "$icount" ] && timing=(-icount "shift=$icount,sleep=off" -rtc base=2020-01-01,clock=vm)
[ -n "$seed" ] && timing+=(-seed "$seed")
[ "$interactive" -eq 1 ] && cmdline+=" gbvp.shell=1"
# lockstep: the kernel log carries its virtual-time stamps, which repeat run after run
[ -n "$icount" ] && cmdline+=" printk.time=1"
[ -n "$append" ] && cmdline+=" $append"

if [ "$interactive" -eq 1 ]; then
    console=(-chardev stdio,id=console,signal=off,mux=on -serial chardev:console)
else
    console=(-serial "file:$dir/console.log")
fi

disk=()
if [ -n "$image" ]; then
    # (pc: a virtio PCI disk; virt: on the virtio-mmio transport, as the agent's console)
    disk=(-drive "file=$image,if=none,id=disk0,format=raw")
    if [ "$arch" = x86_64 ]; then disk+=(-device "virtio-blk-pci,drive=disk0$ioev")
    else disk+=(-device virtio-blk-device,drive=disk0); fi
fi
initrd_arg=(-initrd "$initrd")
[ "$initrd" = none ] && initrd_arg=()

# arm64: the device tree virt generates for this machine and memory, with the audio nodes of
# guest/arm64-audio.dtsi added (the sound card the Greybus audio drivers need; x86_64's
# machine has no device tree, so its guest has no card).
dtb=()
if [ "$arch" = arm64 ]; then
    need_packages device-tree-compiler
    rm -f "$dir/virt.dtb"
    "$qemu" "${firmware[@]}" "${machine[@]}" -accel "$accel" -m "$memory" -smp 1 -nodefaults \
        -no-user-config -display none -machine "dumpdtb=$dir/virt.dtb" >"$dir/dtb.log" 2>&1
    [ -s "$dir/virt.dtb" ] || die "QEMU did not dump virt's device tree: $(cat "$dir/dtb.log")"
    { dtc -q -I dtb -O dts "$dir/virt.dtb" && cat "$repo/guest/arm64-audio.dtsi"; } >"$dir/guest.dts" &&
        dtc -q -I dts -O dtb -o "$dir/guest.dtb" "$dir/guest.dts" 2>"$dir/dtb.log" ||
        die "cannot add guest/arm64-audio.dtsi to virt's device tree: $(cat "$dir/dtb.log")"
    dtb=(-dtb "$dir/guest.dtb")
fi
args=("${placement[@]}" "$qemu" "${firmware[@]}" "${machine[@]}" -accel "$accel" "${timing[@]}" -m "$memory" -smp 1
      -nodefaults -no-user-config -display none -no-reboot
      "${console[@]}"
      "${agent_chardev[@]}" "${agent_port[@]}"
      -kernel "$kernel" "${initrd_arg[@]}" "${dtb[@]}" -append "$cmdline"
      "${disk[@]}" "${devices[@]}" "${extra[@]}")
printf '%q ' "${args[@]}" >"$dir/qemu.cmdline"
echo >>"$dir/qemu.cmdline"

if [ "$background" -eq 1 ]; then
    "${args[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/qemu.pid"
    # QEMU creates the socket once its devices are set up; a bad argument ends it instead.
    for _ in $(seq 1 200); do
        [ -S "$sock" ] && break
        kill -0 "$pid" 2>/dev/null || { cat "$dir/qemu.log" >&2; die "QEMU exited at start (log $dir/qemu.log)"; }
        sleep 0.05
    done
    [ -S "$sock" ] || die "QEMU did not create $sock within 10 s (log $dir/qemu.log)"
    echo "qemu pid: $pid"
    echo "run dir: $dir"
    echo "console log: $dir/console.log"
    echo "agent socket: $sock"
    exit 0
fi
echo "run-guest: $(basename "$qemu") ($accel); console ${console[*]: -1}; agent socket $sock" >&2
exec "${args[@]}"
