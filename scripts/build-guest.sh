#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the gbvp guest: a Linux 6.1 kernel from Debian's linux-source-6.1 package
# (tinyconfig + guest/linux.config + guest/linux-<arch>.config) and a busybox initramfs
# holding guest/init and the in-guest agent (guest/agent.c). Everything goes to
# ${GBVP_CACHE:-$HOME/.cache/gbvp}, never into the clone. Results are cached, keyed by their
# inputs (package versions, fragment and source hashes), so a rerun takes seconds.
#
# Kernel flavours (--flavour): base (the default, Greybus built in), modules (Greybus as
# loadable modules, installed for scripts/build-image.sh's Debian image) and android (the
# kernel's own Android fragments on top; guest/linux-android.config).
#
# The last two lines of a successful run are "kernel: PATH" and "initramfs: PATH"; the
# modules flavour prints "modules: DIR" (the /lib/modules tree's root) before them.
set -euo pipefail
# The helpers that fetch or build the initramfs's tools run in command substitutions
# (gpio=$(gpio_tools)), where bash otherwise turns -e off: a failed strip or cp there went
# unnoticed and the helper then moved its half-made directory into the cache, where every
# later run found it "built" and failed on the missing file.
shopt -s inherit_errexit

# Bump when the way an artifact is made changes (not when an input file changes: those are
# hashed into the key already).
KERNEL_RECIPE=1
INITRAMFS_RECIPE=1

usage() {
    cat <<EOF
usage: scripts/build-guest.sh [OPTIONS]

Builds (or finds in the cache) the guest kernel and initramfs and prints their paths.

  --arch ARCH       x86_64 (default) or arm64 (cross-built with gcc-aarch64-linux-gnu)
  --flavour NAME    the kernel: base (default: Greybus built in), modules (Greybus as
                    loadable modules under /lib/modules, for build-image.sh) or android
                    (with the kernel's android-base and android-recommended fragments)
  -j, --jobs N      parallel compile jobs (default 2)
  --kernel-only     build only the kernel
  --initramfs-only  build only the initramfs
  --print-paths     print the cached paths without building; exit 1 if one is missing
  --force           rebuild even if the cache has a result for these inputs
  -h, --help        this help

Cache: \${GBVP_CACHE:-\$HOME/.cache/gbvp} (now ${cache})
EOF
}

die() { echo "build-guest: $*" >&2; exit 1; }
say() { echo "build-guest: $*" >&2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${GBVP_CACHE:-$HOME/.cache/gbvp}
arch=x86_64 flavour=base jobs=2 print_only=0 force=0 want_kernel=1 want_initramfs=1

while [ $# -gt 0 ]; do
    case $1 in
    --arch) [ $# -ge 2 ] || die "--arch needs a value (x86_64 or arm64)"; arch=$2; shift 2 ;;
    --arch=*) arch=${1#--arch=}; shift ;;
    --flavour) [ $# -ge 2 ] || die "--flavour needs a value (base, modules or android)"; flavour=$2; shift 2 ;;
    --flavour=*) flavour=${1#--flavour=}; shift ;;
    -j|--jobs) [ $# -ge 2 ] || die "$1 needs a number"; jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --kernel-only) want_initramfs=0; shift ;;
    --initramfs-only) want_kernel=0; shift ;;
    --print-paths) print_only=1; shift ;;
    --force) force=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
    esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a positive number, not '$jobs'"

case $arch in
x86_64)
    karch=x86 cross= image_in_tree=arch/x86/boot/bzImage image_name=bzImage deb_arch=amd64 ;;
arm64|aarch64)
    arch=arm64 karch=arm64 cross=aarch64-linux-gnu- image_in_tree=arch/arm64/boot/Image
    image_name=Image deb_arch=arm64 ;;
*) die "unknown --arch '$arch' (x86_64 or arm64)" ;;
esac

# The project's own fragments (hashed into the cache key, every option checked) and, for the
# android flavour, the kernel source's fragments (merged before the project's last one; what
# 6.1 no longer has or another architecture owns is listed, the rest checked).
fragments=("$repo/guest/linux.config" "$repo/guest/linux-$arch.config")
kernel_fragments=()
case $flavour in
base) ;;
modules) fragments+=("$repo/guest/linux-modules.config") ;;
android) kernel_fragments=(kernel/configs/android-base.config kernel/configs/android-recommended.config)
         fragments+=("$repo/guest/linux-android.config") ;;
*) die "unknown --flavour '$flavour' (base, modules or android)" ;;
esac
initramfs_inputs=("$repo/guest/init" "$repo/guest/agent.c" "$repo/guest/firmware/mkfw.sh"
                  "$repo/guest/firmware/s2l-gpio-loopback.mnfs")
initramfs_inputs+=("$repo/guest/tools/userland-probe.c")
for f in "${fragments[@]}" "${initramfs_inputs[@]}"; do
    [ -f "$f" ] || die "missing input file $f"
done

source "$repo/scripts/packages.sh"

host_tools=(linux-source-6.1 busybox-static make gcc libc6-dev bc flex bison libelf-dev libssl-dev
            xz-utils lz4 cpio)
[ "$arch" = arm64 ] && host_tools+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
if [ "$print_only" -eq 1 ]; then
    missing=$(missing_packages "${host_tools[@]}")
    [ -z "$missing" ] || die "not built: packages missing: $missing"
else
    need_packages "${host_tools[@]}"
fi

kver=$(pkg_version linux-source-6.1)
[ -f /usr/src/linux-source-6.1.tar.xz ] || die "/usr/src/linux-source-6.1.tar.xz is missing (reinstall linux-source-6.1)"
hash16() { sha256sum | cut -c1-16; }

# (the base flavour's key and paths are those from before flavours existed)
kernel_key=$( { echo "recipe=$KERNEL_RECIPE pkg=$kver arch=$arch cc=$("${cross}gcc" -dumpfullversion)"
                [ "$flavour" = base ] || echo "flavour=$flavour"
                cat "${fragments[@]}"; } | hash16 )
kernel_tag=$arch
[ "$flavour" = base ] || kernel_tag=$arch-$flavour
kernel_out=$cache/kernel/out/$kernel_tag-$kernel_key
kernel_image=$kernel_out/$image_name

bbver=$(pkg_version busybox-static)
initramfs_key=$( { echo "recipe=$INITRAMFS_RECIPE busybox=$bbver linux=$kver arch=$arch cc=$("${cross}gcc" -dumpfullversion)"
                   cat "${initramfs_inputs[@]}" "$0"; } | hash16 )
initramfs_out=$cache/initramfs/out/$arch-$initramfs_key
initramfs_image=$initramfs_out/initramfs.cpio

print_paths() {
    [ "$flavour" != modules ] || echo "modules: $kernel_out/modules"
    echo "kernel: $kernel_image"
    echo "initramfs: $initramfs_image"
}

if [ "$print_only" -eq 1 ]; then
    print_paths
    rc=0
    [ "$want_kernel" -eq 0 ] || [ -f "$kernel_image" ] || { say "kernel not built yet"; rc=1; }
    [ "$want_initramfs" -eq 0 ] || [ -f "$initramfs_image" ] || { say "initramfs not built yet"; rc=1; }
    exit $rc
fi

# Everything wanted is cached: no lock, no waiting on a build of another architecture.
if [ "$force" -eq 0 ] && { [ "$want_kernel" -eq 0 ] || [ -f "$kernel_image" ]; } &&
   { [ "$want_initramfs" -eq 0 ] || [ -f "$initramfs_image" ]; }; then
    [ "$want_kernel" -eq 0 ] || say "kernel: cached ($kernel_out)"
    [ "$want_initramfs" -eq 0 ] || say "initramfs: cached ($initramfs_out)"
    print_paths
    exit 0
fi

mkdir -p "$cache"
# One build at a time per cache and architecture (two test runs may start together).
exec 9>"$cache/.build-guest-$arch.lock"
if ! flock -n 9; then
    say "waiting for another build-guest.sh --arch $arch run to finish (lock $cache/.build-guest-$arch.lock)"
    flock 9
fi

# --- kernel source ------------------------------------------------------------------------
src=$cache/kernel/linux-$kver
extract_source() {
    [ -f "$src/.gbvp-extracted" ] && return 0
    # shared by all architectures: its own lock
    exec 8>"$cache/.kernel-source.lock"
    flock 8
    [ -f "$src/.gbvp-extracted" ] && { exec 8>&-; return 0; }
    say "extracting /usr/src/linux-source-6.1.tar.xz ($kver) into $src (about 20 s)"
    local t0=$SECONDS
    rm -rf "$src.tmp" && mkdir -p "$src.tmp"
    tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$src.tmp" --strip-components=1
    rm -rf "$src" && mv "$src.tmp" "$src"
    touch "$src/.gbvp-extracted"
    exec 8>&-
    say "extracted in $((SECONDS - t0)) s"
}

# Reads kbuild output on stdin; prints a progress line every 50 steps and every warning or
# error at once. The full log goes to the file given.
progress() {
    local log=$1 what=$2 n=0 t0=$SECONDS line
    : >"$log"
    while IFS= read -r line; do
        printf '%s\n' "$line" >>"$log"
        case $line in
        *error:*|*warning:*|*Error\ *) echo "$what: $line" >&2 ;;
        "  "[A-Z]*) n=$((n + 1))
            if [ $((n % 50)) -eq 0 ]; then
                echo "$what: $n steps, $((SECONDS - t0)) s, at ${line##* }" >&2
            fi ;;
        esac
    done
    echo "$what: $n steps in $((SECONDS - t0)) s (log $log)" >&2
}

# Checks the final .config against the fragments, in merge order: for each option the last
# fragment that names it decides (the android flavour's fragments turn off two options
# guest/linux.config sets). An option the project's fragments set must be in the .config as
# written, one they turn off must be off: Kconfig silently drops options with unmet
# dependencies. An option the kernel's own fragments set may instead be one 6.1 no longer
# has or one of another architecture: those are listed in $report, not failed.
verify_config() {
    local config=$1 report=$2 bad=0 line sym f got val
    shift 2
    local -A want from
    local order=()
    for f in "$@"; do
        while IFS= read -r line; do
            if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] ||
               [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
                sym=${BASH_REMATCH[1]}
                [ -n "${want[$sym]+set}" ] || order+=("$sym")
                want[$sym]=$line from[$sym]=$f
            fi
        done <"$f"
    done
    local kconfig_index=""
    : >"$report"
    for sym in "${order[@]}"; do
        line=${want[$sym]}
        if [[ $line == "# "* ]]; then
            grep -qE "^$sym=" "$config" || continue
            got=$(grep -E "^$sym=" "$config")
        else
            val=${line#*=}
            grep -qxF -- "$line" "$config" && continue
            # a string option written without quotes in a fragment
            [[ $val == \"* ]] || ! grep -qxF -- "$sym=\"$val\"" "$config" || continue
            got=$(grep -E "^(# )?$sym[= ]" "$config" || true)
        fi
        f=${from[$sym]}
        if [[ $f == "$src"/* ]]; then
            if [ -z "$kconfig_index" ]; then
                kconfig_index=$cache/kernel/kconfig-symbols-$kver
                [ -s "$kconfig_index" ] ||
                    (cd "$src" && grep -rHoE '^[[:space:]]*(menu)?config [A-Za-z0-9_]+$' --include='Kconfig*' . |
                     sed -E 's#^\./##' | awk -F: '{ split($2, w, " "); print w[2], $1 }' |
                     sort -u >"$kconfig_index.tmp.$$" && mv "$kconfig_index.tmp.$$" "$kconfig_index")
            fi
            local where
            where=$(awk -v s="${sym#CONFIG_}" '$1 == s {print $2}' "$kconfig_index")
            if [ -z "$where" ]; then
                echo "not in 6.1: $line (${f##*/})" >>"$report"
                continue
            fi
            if ! grep -qvE "^arch/" <<<"$where" && ! grep -qE "^arch/$karch/" <<<"$where"; then
                echo "another architecture's: $line (${f##*/}: $(sed -E 's#^arch/([^/]*)/.*#\1#' <<<"$where" | sort -u | paste -sd, -))" >>"$report"
                continue
            fi
        fi
        if [[ $line == "# "* ]]; then
            echo "build-guest: ${f##*/} turns $sym off but the final .config has '$got'" >&2
        else
            echo "build-guest: ${f##*/} wants '$line' but the final .config has '${got:-nothing}'" >&2
        fi
        bad=$((bad + 1))
    done
    [ "$bad" -eq 0 ] || die "$bad fragment option(s) did not survive olddefconfig (see above; an unmet Kconfig dependency is the usual cause)"
    verified_options=$(( ${#order[@]} - $(wc -l <"$report") ))
}

build_kernel() {
    if [ "$force" -eq 0 ] && [ -f "$kernel_image" ]; then
        say "kernel: cached ($kernel_out)"
        return 0
    fi
    extract_source
    local bld=$cache/kernel/build-$kernel_tag-$kver t0=$SECONDS
    local kmake=(make -C "$src" O="$bld" ARCH="$karch" CROSS_COMPILE="$cross")
    # merge order: the project's fragments, the kernel's own, the flavour's file last
    local all=("${fragments[@]}") f
    if [ ${#kernel_fragments[@]} -gt 0 ]; then
        all=("${fragments[@]:0:${#fragments[@]}-1}")
        for f in "${kernel_fragments[@]}"; do
            [ -f "$src/$f" ] || die "the kernel source has no $f"
            all+=("$src/$f")
        done
        all+=("${fragments[@]: -1}")
    fi
    mkdir -p "$bld"
    say "kernel: configuring (tinyconfig + ${all[*]##*/}) in $bld"
    {
        "${kmake[@]}" tinyconfig &&
        "$src/scripts/kconfig/merge_config.sh" -m -O "$bld" "$bld/.config" "${all[@]}" &&
        "${kmake[@]}" olddefconfig
    } >"$bld/configure.log" 2>&1 || { tail -n 30 "$bld/configure.log" >&2; die "kernel configuration failed (log $bld/configure.log)"; }
    verify_config "$bld/.config" "$bld/fragments-not-applied" "${all[@]}"
    say "kernel: $verified_options fragment options verified; compiling with -j$jobs"
    if [ -s "$bld/fragments-not-applied" ]; then
        say "kernel: $(wc -l <"$bld/fragments-not-applied") options of the kernel's fragments do not apply here:"
        sed 's/^/    /' "$bld/fragments-not-applied" >&2
    fi
    local targets=("$image_name")
    [ "$flavour" != modules ] || targets+=(modules)
    if ! "${kmake[@]}" -j"$jobs" "${targets[@]}" 2>&1 | progress "$bld/build.log" kernel; then
        tail -n 40 "$bld/build.log" >&2
        die "kernel build failed (log $bld/build.log)"
    fi
    rm -rf "$kernel_out.tmp" && mkdir -p "$kernel_out.tmp"
    cp "$bld/fragments-not-applied" "$kernel_out.tmp/fragments-not-applied"
    if [ "$flavour" = modules ]; then
        "${kmake[@]}" INSTALL_MOD_PATH="$kernel_out.tmp/modules" INSTALL_MOD_STRIP=1 modules_install \
            >"$bld/modules_install.log" 2>&1 ||
            { tail -n 20 "$bld/modules_install.log" >&2; die "modules_install failed (log $bld/modules_install.log)"; }
        # (the build and source links point into the cache; an image needs neither)
        rm -f "$kernel_out.tmp"/modules/lib/modules/*/build "$kernel_out.tmp"/modules/lib/modules/*/source
    fi
    cp "$bld/$image_in_tree" "$kernel_out.tmp/$image_name"
    cp "$bld/.config" "$kernel_out.tmp/config"
    cp "$bld/System.map" "$kernel_out.tmp/System.map"
    echo "$((SECONDS - t0))" >"$kernel_out.tmp/build-seconds"
    rm -rf "$kernel_out" && mv "$kernel_out.tmp" "$kernel_out"
    say "kernel: built in $((SECONDS - t0)) s: $kernel_image ($(stat -c %s "$kernel_image") bytes)"
}

# --- initramfs ----------------------------------------------------------------------------
# The busybox binary for the target architecture from Debian's busybox-static package.
busybox_binary() {
    if [ "$deb_arch" = "$(dpkg --print-architecture)" ]; then
        echo /bin/busybox
        return 0
    fi
    local dir=$cache/initramfs/busybox-$deb_arch-$bbver
    if [ ! -x "$dir/bin/busybox" ]; then
        say "initramfs: fetching busybox-static:$deb_arch $bbver"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
        # A private apt state for the foreign architecture: the system's dpkg architectures
        # and package lists stay as they are.
        local state=$cache/apt-$deb_arch
        mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
        local apt=(apt-get -o "APT::Architecture=$deb_arch" -o "APT::Architectures::=$deb_arch"
                   -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
                   -o "Dir::State::status=/dev/null" -o DPkg::Lock::Timeout=900)
        "${apt[@]}" update >"$dir.tmp/apt.log" 2>&1 ||
            { cat "$dir.tmp/apt.log" >&2; die "apt-get update for $deb_arch failed"; }
        (cd "$dir.tmp" && "${apt[@]}" download "busybox-static:$deb_arch=$bbver" >>apt.log 2>&1) ||
            { cat "$dir.tmp/apt.log" >&2; die "apt-get download busybox-static:$deb_arch=$bbver failed"; }
        dpkg -x "$dir.tmp"/busybox-static_*.deb "$dir.tmp/root"
        mkdir -p "$dir/bin" && cp "$dir.tmp/root/bin/busybox" "$dir/bin/busybox"
        rm -rf "$dir.tmp"
    fi
    echo "$dir/bin/busybox"
}

# The kernel's GPIO character-device tools (lsgpio, gpio-hammer, gpio-event-mon,
# gpio-watch) from tools/gpio, linked statically. Prints their directory.
gpio_tools() {
    local dir=$cache/initramfs/gpio-tools-$arch-$kver
    if [ ! -x "$dir/lsgpio" ]; then
        say "initramfs: building tools/gpio (static)"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/obj"
        make -C "$src/tools/gpio" O="$dir.tmp/obj/" CROSS_COMPILE="$cross" CC="${cross}gcc" LDFLAGS=-static \
            >"$dir.tmp/build.log" 2>&1 || { tail -n 20 "$dir.tmp/build.log" >&2; die "tools/gpio build failed"; }
        local t
        for t in lsgpio gpio-hammer gpio-event-mon gpio-watch; do
            "${cross}strip" -o "$dir.tmp/$t" "$dir.tmp/obj/$t"
        done
        rm -rf "$dir.tmp/obj" "$dir" && mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}

# The kernel's SPI tools (spidev_test, spidev_fdx) from tools/spi, linked statically: the
# transfers on /dev/spidevB.C. Prints their directory.
spi_tools() {
    local dir=$cache/initramfs/spi-tools-$arch-$kver
    if [ ! -x "$dir/spidev_test" ]; then
        say "initramfs: building tools/spi (static)"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/obj"
        make -C "$src/tools/spi" O="$dir.tmp/obj/" CROSS_COMPILE="$cross" CC="${cross}gcc" LDFLAGS=-static \
            >"$dir.tmp/build.log" 2>&1 || { tail -n 20 "$dir.tmp/build.log" >&2; die "tools/spi build failed"; }
        local t
        for t in spidev_test spidev_fdx; do
            "${cross}strip" -o "$dir.tmp/$t" "$dir.tmp/obj/$t"
        done
        rm -rf "$dir.tmp/obj" "$dir" && mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}

# The kernel's Greybus loopback tool (drivers/staging/greybus/tools/loopback_test), linked
# statically for the full-system benchmark. Its source defines its own abort(), which a
# static link would clash with libc's: the macro renames it at compile time. Prints its path.
loopback_tool() {
    local dir=$cache/initramfs/loopback-test-$arch-$kver
    if [ ! -x "$dir/loopback_test" ]; then
        say "initramfs: building drivers/staging/greybus/tools/loopback_test (static)"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
        "${cross}gcc" -O2 -static -std=gnu99 -D_GNU_SOURCE -Dabort=loopback_test_abort \
            -o "$dir.tmp/loopback_test.full" "$src/drivers/staging/greybus/tools/loopback_test.c" \
            >"$dir.tmp/build.log" 2>&1 || { tail -n 20 "$dir.tmp/build.log" >&2; die "loopback_test build failed"; }
        "${cross}strip" -o "$dir.tmp/loopback_test" "$dir.tmp/loopback_test.full"
        rm -f "$dir.tmp/loopback_test.full" && rm -rf "$dir" && mv "$dir.tmp" "$dir"
    fi
    echo "$dir/loopback_test"
}

# Downloads Debian binary packages of the target architecture into DIR (apt-get download;
# for a foreign architecture through the private apt state busybox_binary set up) and
# unpacks them into DIR/root.
deb_fetch() {
    local dir=$1; shift
    local apt=(apt-get -o DPkg::Lock::Timeout=900) pkgs=() p
    for p in "$@"; do pkgs+=("$p:$deb_arch"); done
    if [ "$deb_arch" != "$(dpkg --print-architecture)" ]; then
        local state=$cache/apt-$deb_arch
        mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
        apt+=(-o "APT::Architecture=$deb_arch" -o "APT::Architectures::=$deb_arch"
              -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
              -o "Dir::State::status=/dev/null")
        ls "$state/lists/"*Packages* >/dev/null 2>&1 || "${apt[@]}" update >"$dir/apt.log" 2>&1 ||
            { cat "$dir/apt.log" >&2; die "apt-get update for $deb_arch failed"; }
    fi
    # (stale or missing package lists: one apt-get update, then again)
    (cd "$dir" && "${apt[@]}" download "${pkgs[@]}" >>apt.log 2>&1) ||
        { "${apt[@]}" update >>"$dir/apt.log" 2>&1 &&
          (cd "$dir" && "${apt[@]}" download "${pkgs[@]}" >>apt.log 2>&1); } ||
        { cat "$dir/apt.log" >&2; die "apt-get download ${pkgs[*]} failed"; }
    local d
    for d in "$dir"/*.deb; do dpkg -x "$d" "$dir/root"; done
    rm -f "$dir"/*.deb
}

# libgpiod's command-line tools (gpiodetect, gpioinfo, gpioget, gpioset, gpiomon, gpiofind)
# from Debian's gpiod package as a distribution ships them: dynamically linked, with
# libgpiod.so.2 and the target's glibc beside them. Prints their directory: bin/, lib/ (the
# libraries, for /lib/<triplet>), interp (the ELF interpreter's path, for the same path in
# the guest).
gpiod_tools() {
    local dir=$cache/initramfs/gpiod-$arch
    if [ ! -x "$dir/bin/gpiomon" ]; then
        say "initramfs: fetching gpiod + libgpiod2 ($deb_arch)"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/bin" "$dir.tmp/lib"
        deb_fetch "$dir.tmp" gpiod libgpiod2
        cp "$dir.tmp"/root/usr/bin/gpio* "$dir.tmp/bin/"
        cp -L "$(find "$dir.tmp/root" -name libgpiod.so.2 | head -n 1)" "$dir.tmp/lib/libgpiod.so.2"
        local interp
        interp=$("${cross}readelf" -l "$dir.tmp/bin/gpiomon" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
        [ -n "$interp" ] || die "no ELF interpreter in gpiomon"
        cp -L "$("${cross}gcc" -print-file-name=libc.so.6)" "$dir.tmp/lib/libc.so.6"
        cp -L "$("${cross}gcc" -print-file-name="${interp##*/}")" "$dir.tmp/interp-file"
        echo "$interp" >"$dir.tmp/interp"
        rm -rf "$dir.tmp/root" "$dir" && mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}

# mtd-utils' tools for /dev/mtdN (flash_erase, flashcp, mtd_debug, mtdinfo) from Debian's
# mtd-utils package, linked against glibc alone (gpiod_tools ships it and its loader). Prints
# their directory.
mtd_tools() {
    local dir=$cache/initramfs/mtd-utils-$arch t
    if [ ! -x "$dir/mtdinfo" ]; then
        say "initramfs: fetching mtd-utils ($deb_arch)"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
        deb_fetch "$dir.tmp" mtd-utils
        for t in $mtd_utils; do
            cp "$dir.tmp/root/usr/sbin/$t" "$dir.tmp/$t"
            if "${cross}readelf" -d "$dir.tmp/$t" | grep NEEDED | grep -vE 'libc\.so\.6|ld-linux' >&2; then
                die "mtd-utils' $t needs more than glibc"
            fi
        done
        rm -rf "$dir.tmp/root" "$dir" && mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}
mtd_utils="flash_erase flashcp mtd_debug mtdinfo"

# ALSA's command-line tools (amixer, aplay) from Debian's alsa-utils as a distribution ships
# them: with libasound.so.2, libm and alsa-lib's configuration (/usr/share/alsa), which
# amixer and aplay read before they open a card. Prints their directory: bin/, lib/,
# share/alsa/.
alsa_tools() {
    local dir=$cache/initramfs/alsa-utils-$arch t
    if [ ! -x "$dir/bin/amixer" ]; then
        say "initramfs: fetching alsa-utils + libasound2 ($deb_arch)"
        rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/bin" "$dir.tmp/lib" "$dir.tmp/share"
        deb_fetch "$dir.tmp" alsa-utils libasound2 libasound2-data
        for t in amixer aplay; do
            cp "$dir.tmp/root/usr/bin/$t" "$dir.tmp/bin/$t"
        done
        cp -L "$(find "$dir.tmp/root" -name libasound.so.2 | head -n 1)" "$dir.tmp/lib/libasound.so.2"
        cp -L "$("${cross}gcc" -print-file-name=libm.so.6)" "$dir.tmp/lib/libm.so.6"
        cp -r "$dir.tmp/root/usr/share/alsa" "$dir.tmp/share/alsa"
        for t in bin/amixer bin/aplay lib/libasound.so.2; do
            if "${cross}readelf" -d "$dir.tmp/$t" | grep NEEDED |
                    grep -vE 'lib(c|m|asound)\.so\.[26]|ld-linux' >&2; then
                die "alsa-utils' $t needs more than glibc, libm and libasound"
            fi
        done
        rm -rf "$dir.tmp/root" "$dir" && mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}

build_initramfs() {
    if [ "$force" -eq 0 ] && [ -f "$initramfs_image" ]; then
        say "initramfs: cached ($initramfs_out)"
        return 0
    fi
    extract_source   # for usr/gen_init_cpio.c: builds the archive with device nodes, no root needed
    local t0=$SECONDS work=$initramfs_out.tmp
    rm -rf "$work" && mkdir -p "$work"
    local gen=$cache/initramfs/gen_init_cpio-$kver
    if [ ! -x "$gen" ]; then
        gcc -O2 -o "$gen.tmp.$$" "$src/usr/gen_init_cpio.c" && mv "$gen.tmp.$$" "$gen"
    fi
    say "initramfs: compiling the agent (${cross}gcc -static)"
    "${cross}gcc" -std=c11 -Os -static -Wall -Wextra -Werror -D_GNU_SOURCE \
        -o "$work/gbvp-agent" "$repo/guest/agent.c"
    "${cross}strip" "$work/gbvp-agent"
    "${cross}gcc" -std=c11 -Os -static -Wall -Wextra -Werror -D_GNU_SOURCE \
        -o "$work/gbvp-userland-probe" "$repo/guest/tools/userland-probe.c"
    "${cross}strip" "$work/gbvp-userland-probe"
    local gpiod triplet interp
    gpiod=$(gpiod_tools)
    triplet=$("${cross}gcc" -dumpmachine) interp=$(cat "$gpiod/interp")
    # The kernel's Greybus firmware samples (drivers/staging/greybus/Documentation/firmware):
    # gb-firmware drives /dev/gb-fw-mgmt-N, gb-authenticate /dev/gb-authenticate-N.
    local fwdoc=$src/drivers/staging/greybus/Documentation/firmware
    "${cross}gcc" -O2 -static -o "$work/gb-firmware" "$fwdoc/firmware.c"
    "${cross}gcc" -O2 -static -o "$work/gb-authenticate" "$fwdoc/authenticate.c"
    "${cross}strip" "$work/gb-firmware" "$work/gb-authenticate"
    # Firmware images for /lib/firmware (layout: virtual-modules/fw_image.h), named as 6.1
    # asks for them: gmp_<ddbl1 mfr>_<ddbl1 product>_<vendor>_<product>_<tag>.tftf. The
    # catalog's bootrom module (vendor 0x42, product 0xb00) boots the s2l image.
    mkdir -p "$work/firmware"
    local fwimg=gmp_00000126_00001002_00000042_00000b00_s2l.tftf
    "$repo/guest/firmware/mkfw.sh" "$work/firmware/$fwimg" gbvp-s2l-gpio-loopback 1 0 \
        "$repo/guest/firmware/s2l-gpio-loopback.mnfs" 12288 >&2
    # ... and the catalog's firmware module (vendor 0x43, product 0xf00) loads these two by
    # the tags the kernel's firmware sample uses by default (interface "s3f", backend "bf_01")
    local tag
    for tag in s3f bf_01; do
        "$repo/guest/firmware/mkfw.sh" "$work/firmware/gmp_00000126_00001002_00000043_00000f00_$tag.tftf" \
            "gbvp-$tag" 1 1 "$repo/guest/firmware/s2l-gpio-loopback.mnfs" 8192 >&2
    done
    local busybox gpio spi lbtest mtd alsa
    busybox=$(busybox_binary)
    mtd=$(mtd_tools)
    alsa=$(alsa_tools)
    gpio=$(gpio_tools)
    spi=$(spi_tools)
    lbtest=$(loopback_tool)
    # The applet list comes from the host's busybox (same Debian version); the binary is the
    # target's.
    local applets
    applets=$(/bin/busybox --list-full | sort -u)
    {
        echo "dir /dev 0755 0 0"
        echo "nod /dev/console 0600 0 0 c 5 1"
        echo "nod /dev/null 0666 0 0 c 1 3"
        for d in bin sbin usr usr/bin usr/sbin proc sys tmp run root etc mnt; do
            echo "dir /$d 0755 0 0"
        done
        echo "file /bin/busybox $busybox 0755 0 0"
        echo "file /init $repo/guest/init 0755 0 0"
        echo "file /sbin/gbvp-agent $work/gbvp-agent 0755 0 0"
        echo "file /usr/bin/gbvp-userland-probe $work/gbvp-userland-probe 0755 0 0"
        echo "dir /lib 0755 0 0"
        echo "dir /lib/$triplet 0755 0 0"
        [ "${interp%/*}" = /lib ] || echo "dir ${interp%/*} 0755 0 0"
        echo "file $interp $gpiod/interp-file 0755 0 0"
        echo "file /lib/$triplet/libc.so.6 $gpiod/lib/libc.so.6 0755 0 0"
        echo "file /lib/$triplet/libgpiod.so.2 $gpiod/lib/libgpiod.so.2 0644 0 0"
        for t in "$gpiod"/bin/gpio*; do
            echo "file /usr/bin/${t##*/} $t 0755 0 0"
        done
        echo "file /usr/bin/gb-firmware $work/gb-firmware 0755 0 0"
        echo "file /usr/bin/gb-authenticate $work/gb-authenticate 0755 0 0"
        echo "dir /lib 0755 0 0"
        echo "dir /lib/firmware 0755 0 0"
        for t in "$work"/firmware/*.tftf; do
            echo "file /lib/firmware/${t##*/} $t 0644 0 0"
        done
        local t
        for t in lsgpio gpio-hammer gpio-event-mon gpio-watch; do
            echo "file /usr/bin/$t $gpio/$t 0755 0 0"
        done
        for t in spidev_test spidev_fdx; do
            echo "file /usr/bin/$t $spi/$t 0755 0 0"
        done
        echo "file /usr/bin/loopback_test $lbtest 0755 0 0"
        for t in $mtd_utils; do
            echo "file /usr/sbin/$t $mtd/$t 0755 0 0"
        done
        for t in amixer aplay; do
            echo "file /usr/bin/$t $alsa/bin/$t 0755 0 0"
        done
        for t in libasound.so.2 libm.so.6; do
            echo "file /lib/$triplet/$t $alsa/lib/$t 0644 0 0"
        done
        echo "dir /usr/share 0755 0 0"
        (cd "$alsa/share" && find alsa -type d | sort | sed 's|.*|dir /usr/share/& 0755 0 0|' &&
            find alsa -type f | sort | sed "s|.*|file /usr/share/& $alsa/share/& 0644 0 0|")
        local a
        for a in $applets; do
            [ "$a" = bin/busybox ] && continue
            echo "slink /$a /bin/busybox 0777 0 0"
        done
        echo "file /etc/gbvp-initramfs-key $work/key 0644 0 0"
    } >"$work/cpio.list"
    echo "$initramfs_key" >"$work/key"
    "$gen" "$work/cpio.list" >"$work/initramfs.cpio"
    echo "$((SECONDS - t0))" >"$work/build-seconds"
    rm -rf "$initramfs_out" && mv "$work" "$initramfs_out"
    say "initramfs: built in $((SECONDS - t0)) s: $initramfs_image ($(stat -c %s "$initramfs_image") bytes, $(wc -w <<<"$applets") busybox applets)"
}

[ "$want_kernel" -eq 1 ] && build_kernel
[ "$want_initramfs" -eq 1 ] && build_initramfs
print_paths
