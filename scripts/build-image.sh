#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a Debian bookworm root filesystem image for gbvp's guest: systemd and udev from
# Debian's packages (mmdebstrap), the project's kernel in its "modules" flavour
# (scripts/build-guest.sh --flavour modules) with the Greybus core and class drivers as
# loadable modules under /lib/modules, guest/debian/60-greybus.rules so udev loads them on
# hot-plug, and the guest agent as a systemd service (guest/debian/gbvp-agent.service).
#
# The result is an ext4 image, IMAGE, with the kernel that belongs to it beside it as
# IMAGE.kernel: `gbvp run --image IMAGE` boots that kernel from the image (root=/dev/vda).
# gbvp run writes to the image as to a disk; copy it first to keep this one as built.
# Cached in ${GBVP_CACHE:-$HOME/.cache/gbvp}/image, keyed by its inputs. The last line of a
# successful run is the image's path.
set -euo pipefail

IMAGE_RECIPE=1
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
# systemd as PID 1, udev and kmod to load drivers, and the tools the demo and the tests use
# in the guest: libgpiod's and i2c-tools' programs, hexdump (bsdextrautils), ps (procps)
PACKAGES=systemd-sysv,udev,kmod,gpiod,i2c-tools,bsdextrautils,procps

usage() {
    cat <<EOF
usage: scripts/build-image.sh [OPTIONS]

Builds (or finds in the cache) a Debian $SUITE image with systemd, udev, the project's
kernel with Greybus as loadable modules, and the gbvp agent as a service. Prints the
image's path as its last line; the kernel that boots it is that path plus ".kernel".

  --size MIB       the image's size (default 1024; sparse: only what is used takes space)
  --print-path     print the cached path without building; exit 1 if it is missing
  --force          rebuild even if the cache has an image for these inputs
  -h, --help       this help

Needs root (mmdebstrap --mode=root, and apt-get for missing host packages) and
$MIRROR (or the apt proxy the host's apt uses). x86_64 only.
Cache: \${GBVP_CACHE:-\$HOME/.cache/gbvp}/image (now $cache/image)
EOF
}

die() { echo "build-image: $*" >&2; exit 1; }
say() { echo "build-image: $*" >&2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${GBVP_CACHE:-$HOME/.cache/gbvp}
size=1024 print_only=0 force=0

while [ $# -gt 0 ]; do
    case $1 in
    --size) [ $# -ge 2 ] || die "--size needs a number of MiB"; size=$2; shift 2 ;;
    --size=*) size=${1#--size=}; shift ;;
    --print-path) print_only=1; shift ;;
    --force) force=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
    esac
done
[[ $size =~ ^[1-9][0-9]*$ ]] && [ "$size" -ge 512 ] ||
    die "--size wants a whole number of MiB, at least 512 (the image holds about 300 MiB), not '$size'"

inputs=("$repo/guest/debian/gbvp-agent.service" "$repo/guest/debian/60-greybus.rules")
for f in "${inputs[@]}"; do [ -f "$f" ] || die "missing input file $f"; done

# The kernel and its modules, and the agent as the initramfs has it (built or found in the
# cache by build-guest.sh).
guest_args=(--flavour modules)
[ "$print_only" -eq 0 ] || guest_args+=(--print-paths)
paths=$("$repo/scripts/build-guest.sh" "${guest_args[@]}") ||
    die "the modules-flavour kernel is not available (scripts/build-guest.sh ${guest_args[*]} failed)"
kernel=$(sed -n 's/^kernel: //p' <<<"$paths")
modules=$(sed -n 's/^modules: //p' <<<"$paths")
agent=$(dirname "$(sed -n 's/^initramfs: //p' <<<"$paths")")/gbvp-agent

source "$repo/scripts/packages.sh"
# The tools' versions are part of the key: a build installs them first, so that the key it
# files the image under is the one --print-path (and every later run) computes. (Keyed
# before the install, a first build on a machine without them filed the image under a key
# no later run found.)
[ "$print_only" -eq 0 ] && [ "$(id -u)" -eq 0 ] && need_packages mmdebstrap e2fsprogs
key=$( { echo "recipe=$IMAGE_RECIPE suite=$SUITE mirror=$MIRROR packages=$PACKAGES size=$size"
         echo "mmdebstrap=$(pkg_version mmdebstrap) e2fsprogs=$(pkg_version e2fsprogs) kernel=$kernel agent=$agent"
         cat "${inputs[@]}" "$0"; } | sha256sum | cut -c1-16 )
out=$cache/image/out/debian-$SUITE-x86_64-$key
image=$out/debian-$SUITE.img

if [ "$print_only" -eq 1 ]; then
    echo "$image"
    [ -f "$image" ] || { say "image not built yet"; exit 1; }
    exit 0
fi
if [ "$force" -eq 0 ] && [ -f "$image" ] && [ -f "$image.kernel" ]; then
    say "cached ($out)"
    echo "$image"
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "needs root: mmdebstrap --mode=root builds the tree with real owners"
[ "$(uname -m)" = x86_64 ] || die "x86_64 hosts only (the image is built natively, without emulation)"
need_packages mmdebstrap e2fsprogs
[ -x "$agent" ] || die "no agent at $agent (scripts/build-guest.sh builds it with the initramfs)"
[ -d "$modules/lib/modules" ] || die "the kernel at $kernel has no modules tree at $modules"

mkdir -p "$cache/image"
# One build at a time per cache (two test runs may start together).
exec 9>"$cache/image/.build.lock"
if ! flock -n 9; then
    say "waiting for another build-image.sh to finish (lock $cache/image/.build.lock)"
    flock 9
fi
if [ "$force" -eq 0 ] && [ -f "$image" ] && [ -f "$image.kernel" ]; then
    say "cached ($out, built meanwhile)"
    echo "$image"
    exit 0
fi

t0=$SECONDS
work=$out.tmp
rm -rf "$work" && mkdir -p "$work"

# The hooks run after the packages are installed, with the tree's root as $1.
#  - /lib/modules: the kernel's modules, and depmod's indexes for them
#  - the udev rules and the agent's unit (enabled); no login on the agent's console
#  - root logs in on the serial console without a password: a throwaway test machine
#  - fstab and hostname
say "mmdebstrap $SUITE ($PACKAGES) from $MIRROR"
release=$(ls "$modules/lib/modules")
[ "$(wc -w <<<"$release")" = 1 ] || die "expected one kernel release under $modules/lib/modules, found: $release"
mmdebstrap --mode=root --variant=minbase --include="$PACKAGES" \
    --aptopt='APT::Install-Recommends "false"' \
    --customize-hook="mkdir -p \"\$1/lib/modules\" && cp -a '$modules/lib/modules/$release' \"\$1/lib/modules/\"" \
    --customize-hook="chroot \"\$1\" depmod -a '$release'" \
    --customize-hook="install -m 0755 '$agent' \"\$1/usr/sbin/gbvp-agent\"" \
    --customize-hook="install -m 0644 '$repo/guest/debian/gbvp-agent.service' \"\$1/etc/systemd/system/gbvp-agent.service\"" \
    --customize-hook="install -m 0644 '$repo/guest/debian/60-greybus.rules' \"\$1/etc/udev/rules.d/60-greybus.rules\"" \
    --customize-hook="chroot \"\$1\" systemctl enable gbvp-agent.service" \
    --customize-hook="chroot \"\$1\" systemctl mask serial-getty@hvc0.service" \
    --customize-hook="chroot \"\$1\" passwd -d root" \
    --customize-hook="echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' > \"\$1/etc/fstab\"" \
    --customize-hook="echo gbvp > \"\$1/etc/hostname\"" \
    --customize-hook="chroot \"\$1\" dpkg-query -W -f='\${Package} \${Version}\n' > '$work/packages.txt'" \
    "$SUITE" "$work/root" "$MIRROR" >"$work/mmdebstrap.log" 2>&1 ||
    { tail -n 30 "$work/mmdebstrap.log" >&2; die "mmdebstrap failed (log $work/mmdebstrap.log)"; }

say "making the ext4 image ($size MiB, sparse)"
mke2fs -q -F -t ext4 -L gbvp-root -d "$work/root" "$work/debian-$SUITE.img" "${size}M" >"$work/mke2fs.log" 2>&1 ||
    { cat "$work/mke2fs.log" >&2; die "mke2fs failed (log $work/mke2fs.log)"; }
cp "$kernel" "$work/debian-$SUITE.img.kernel"
rm -rf "$work/root"
echo "$((SECONDS - t0))" >"$work/build-seconds"
rm -rf "$out" && mv "$work" "$out"
say "built in $((SECONDS - t0)) s: $image ($(du -k "$image" | cut -f1) KiB used of $size MiB; kernel $release;" \
    "$(wc -l <"$out/packages.txt") packages)"
echo "$image"
