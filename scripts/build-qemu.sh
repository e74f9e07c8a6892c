#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds QEMU 7.2 from Debian's own source package with the greybus-es2 device (qemu-hw/ and
# the gblink library) added, for x86_64-softmmu and aarch64-softmmu only.
#
#   scripts/build-qemu.sh [--targets x86_64,aarch64] [--print-path] [--fetch-only] [--quiet]
#
# --print-path prints where the first target's binary is (or will be) and does nothing else;
# --fetch-only stops after installing packages and unpacking the source.
# Results are cached in ${GBVP_CACHE:-$HOME/.cache/gbvp}/qemu/<key>/, where <key> hashes the
# source package version and the configure flags. A second run with only qemu-hw/ or gblink/
# changed re-copies those files and rebuilds incrementally. Safe to run again at any time;
# runs unattended (CI=true, no stdin) as root on Debian 12.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${GBVP_CACHE:-$HOME/.cache/gbvp}
qcache=$cache/qemu
targets=x86_64,aarch64
print_path=0
fetch_only=0
quiet=0
# Bump when the hook, the layout of the tree or anything else outside the configure flags
# changes in a way that needs a fresh tree.
hook_rev=1

usage() {
    sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
    --targets) [ $# -ge 2 ] || { echo "build-qemu: --targets needs a value" >&2; exit 2; }
        targets=$2; shift 2 ;;
    --targets=*) targets=${1#--targets=}; shift ;;
    --print-path) print_path=1; shift ;;
    --quiet) quiet=1; shift ;;
    --fetch-only) fetch_only=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build-qemu: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

target_list=
ninja_targets=()
IFS=, read -r -a tlist <<<"$targets"
for t in "${tlist[@]}"; do
    case "$t" in
    x86_64|aarch64) ;;
    *) echo "build-qemu: unsupported target '$t' (x86_64 and aarch64 are supported)" >&2
        exit 2 ;;
    esac
    target_list+=${target_list:+,}$t-softmmu
    ninja_targets+=("qemu-system-$t")
done
[ ${#ninja_targets[@]} -gt 0 ] || { echo "build-qemu: --targets is empty" >&2; exit 2; }

configure_flags=(
    "--target-list=$target_list"
    --without-default-features
    --enable-slirp
    --enable-fdt=system
    --enable-kvm
    --disable-docs
    --disable-werror
    --disable-install-blobs
)

say() { [ "$quiet" = 1 ] || echo "build-qemu: $*" >&2; }
die() { echo "build-qemu: error: $*" >&2; exit 1; }

# The qemu source package version apt would fetch. apt-cache showsrc needs deb-src entries;
# before they exist, the binary packages built from the same source carry the same version.
qemu_version() {
    local v
    v=$(apt-cache showsrc qemu 2>/dev/null | awk '/^Version:/ {print $2}' |
        sort -V | tail -n 1 || true)
    if [ -z "$v" ]; then
        v=$(apt-cache policy qemu-system-common 2>/dev/null |
            awk '/Candidate:/ {print $2}' | sed -E 's/\+b[0-9]+$//' || true)
        [ "$v" = "(none)" ] && v=
    fi
    echo "$v"
}

cache_key() {
    printf '%s\n' "qemu=$1" "hook=$hook_rev" "${configure_flags[@]}" |
        sha256sum | cut -c1-16
}

# --- --print-path: no side effects --------------------------------------------------------
if [ "$print_path" = 1 ]; then
    ver=$(qemu_version)
    [ -n "$ver" ] || die "cannot tell the qemu source version: run 'apt-get update' first"
    key=$(cache_key "$ver")
    echo "$qcache/$key/build/${ninja_targets[0]}"
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "run as root: the script installs Debian packages with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -o DPkg::Lock::Timeout=900 -o Acquire::Retries=3)
start=$SECONDS

# --- 1. packages -----------------------------------------------------------------------------
# Another apt-get (a parallel build, the administrator) may be rewriting the package lists:
# apt-cache then finds no qemu source, and a second apt-get update fails at once on the
# lists' lock (DPkg::Lock::Timeout covers only dpkg's own). Waits up to 15 minutes for it.
wait_for_apt() {
    local i
    for ((i = 0; i < 900; i++)); do
        pgrep -x apt-get >/dev/null || pgrep -x apt >/dev/null || pgrep -x dpkg >/dev/null ||
            return 0
        [ "$i" -eq 0 ] && say "waiting for another apt-get or dpkg to finish"
        sleep 1
    done
}
wait_for_apt
build_deps=(
    build-essential pkg-config dpkg-dev ninja-build meson python3 python3-venv flex bison
    libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev libslirp-dev xz-utils
    # run time: SeaBIOS and the option ROMs QEMU's x86 machines load (-L /usr/share/qemu
    # -L /usr/share/seabios), since the dfsg source ships no firmware blobs
    seabios qemu-system-data
)
missing=()
for p in "${build_deps[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing+=("$p")
done

# deb-src twin of Debian's own entries, so that `apt-get source qemu` works.
srcs_file=/etc/apt/sources.list.d/gbvp-deb-src.sources
need_update=0
if [ ! -f "$srcs_file" ]; then
    [ -f /etc/apt/sources.list.d/debian.sources ] ||
        die "/etc/apt/sources.list.d/debian.sources not found: add a deb-src entry for Debian's main archive by hand"
    say "adding deb-src entries in $srcs_file"
    {
        echo "# Added by gbvp scripts/build-qemu.sh: source twin of debian.sources"
        sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' \
            /etc/apt/sources.list.d/debian.sources
    } >"$srcs_file.tmp"
    mv "$srcs_file.tmp" "$srcs_file"
    need_update=1
fi
if [ "$need_update" = 1 ] || [ ${#missing[@]} -gt 0 ] ||
    ! apt-cache showsrc qemu 2>/dev/null | grep -q '^Version:'; then
    say "apt-get update"
    for try in 1 2 3; do
        wait_for_apt
        apt-get update -o DPkg::Lock::Timeout=900 -o Acquire::Retries=3 >/dev/null && break
        [ "$try" = 3 ] && die "apt-get update failed"
    done
fi
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt-get install "${apt_opts[@]}" --no-install-recommends "${missing[@]}" >/dev/null ||
        die "apt-get install ${missing[*]} failed"
fi

ver=$(qemu_version)
[ -n "$ver" ] || die "apt knows no qemu source package (is deb-src in $srcs_file working?)"
key=$(cache_key "$ver")
dir=$qcache/$key
mkdir -p "$qcache/dl" "$dir"

# One build per key at a time: a second caller waits here.
exec 9>"$dir/.lock"
if ! flock -n 9; then
    say "another build of $key is running; waiting for it"
    flock 9
fi
printf 'qemu source %s\nconfigure %s\n' "$ver" "${configure_flags[*]}" >"$dir/KEY"
say "qemu $ver, cache $dir"

# --- 2. source -------------------------------------------------------------------------------
src=$dir/src
if [ ! -f "$src/.gbvp-extracted" ]; then
    upstream=${ver#*:}          # drop the epoch: file names carry none
    dsc=$qcache/dl/qemu_${upstream}.dsc
    # Asked every time the tree is unpacked, even with the .dsc there: apt-get writes each
    # file in place, the small .dsc first, so a download that broke off leaves a .dsc beside
    # a short tarball, which dpkg-source then refused on every later run. apt-get skips the
    # files whose checksums match and fetches the rest again.
    say "downloading the qemu $ver source package (or checking the one in $qcache/dl)"
    (cd "$qcache/dl" && apt-get source --download-only "qemu=$ver" >"$qcache/dl/apt.log" 2>&1) ||
        { tail -n 20 "$qcache/dl/apt.log" >&2; die "apt-get source qemu=$ver failed"; }
    [ -f "$dsc" ] || die "$dsc missing after apt-get source"
    say "unpacking with dpkg-source -x (applies Debian's patches)"
    rm -rf "$src" "$dir/src.tmp"
    dpkg-source -x "$dsc" "$dir/src.tmp" >"$dir/dpkg-source.log" 2>&1 ||
        { tail -n 20 "$dir/dpkg-source.log" >&2; die "dpkg-source -x $dsc failed"; }
    mv "$dir/src.tmp" "$src"
    touch "$src/.gbvp-extracted"
fi
if [ "$fetch_only" = 1 ]; then
    echo "$src"
    exit 0
fi

# --- 3. hook qemu-hw/ and gblink/ into hw/usb/greybus/ ---------------------------------------
# Files are copied only when their content changed, so that ninja rebuilds only what the
# edit touched; files that disappeared from the project disappear from the tree.
sync_dir() {  # sync_dir FROM TO PATTERN...
    local from=$1 to=$2 f name
    shift 2
    mkdir -p "$to"
    local want=()
    for pat in "$@"; do
        for f in "$from"/$pat; do
            [ -f "$f" ] || continue
            name=$(basename "$f")
            want+=("$name")
            if ! cmp -s "$f" "$to/$name"; then
                cp "$f" "$to/$name.tmp" && mv "$to/$name.tmp" "$to/$name"
                say "  copied ${to#"$src"/}/$name"
            fi
        done
    done
    for f in "$to"/*; do
        [ -f "$f" ] || continue
        name=$(basename "$f")
        [[ " ${want[*]} " == *" $name "* ]] || rm -f "$f"
    done
}

[ -f "$here/qemu-hw/meson.build" ] || die "$here/qemu-hw/meson.build missing"
[ -f "$here/gblink/gblink.h" ] || die "$here/gblink/gblink.h missing: the device needs gblink"
gdir=$src/hw/usb/greybus
sync_dir "$here/qemu-hw" "$gdir" '*.c' '*.h' meson.build Kconfig
# gblink is compiled into QEMU as it is; its own meson.build names the sources (gblink_ss).
[ -f "$here/gblink/meson.build" ] || die "$here/gblink/meson.build missing"
sync_dir "$here/gblink" "$gdir/gblink" '*.h' '*.c' meson.build
grep -qx "subdir('greybus')" "$src/hw/usb/meson.build" ||
    echo "subdir('greybus')" >>"$src/hw/usb/meson.build"
grep -qx "source greybus/Kconfig" "$src/hw/usb/Kconfig" ||
    echo "source greybus/Kconfig" >>"$src/hw/usb/Kconfig"

# --- 3b. gbvp's patches to QEMU itself (qemu-hw/patches/*.patch, each says why) -------------
# A copy of every applied patch is kept in the tree, so that a patch changed or removed in
# the project is reversed first and only the files it touches are rebuilt.
# Each patch is tried with --dry-run first: patch writes the hunks that apply and leaves the
# others in .rej files, and a tree half patched that way refused the corrected patch on
# every later run ("previously applied"), with nothing recorded to reverse.
applied=$src/.gbvp-patches
mkdir -p "$applied"
# (reversed in the opposite order of applying; a glob, not ls, keeps paths with spaces whole)
was_applied=()
for f in "$applied"/*.patch; do [ -f "$f" ] && was_applied=("$f" "${was_applied[@]}"); done
for f in "${was_applied[@]}"; do
    name=$(basename "$f")
    cmp -s "$f" "$here/qemu-hw/patches/$name" && continue
    say "  reversing $name"
    patch -d "$src" -p1 -R -s --dry-run <"$f" >/dev/null &&
        patch -d "$src" -p1 -R -s <"$f" || die "cannot reverse $name in $src (remove $dir to start afresh)"
    rm -f "$f"
done
for f in "$here"/qemu-hw/patches/*.patch; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    cmp -s "$f" "$applied/$name" && continue
    say "  applying $name"
    if ! out=$(patch -d "$src" -p1 -N -s --dry-run <"$f" 2>&1); then
        printf '%s\n' "$out" >&2
        die "$name does not apply to qemu $ver (in $src; the tree is left as it was)"
    fi
    patch -d "$src" -p1 -N -s <"$f" || die "$name does not apply to qemu $ver (in $src)"
    cp "$f" "$applied/$name"
done

# --- 4. configure ----------------------------------------------------------------------------
build=$dir/build
if [ ! -f "$build/build.ninja" ] || [ ! -f "$build/.gbvp-configured" ]; then
    say "configure ${configure_flags[*]}"
    rm -rf "$build"
    mkdir -p "$build"
    t0=$SECONDS
    (cd "$build" && "$src/configure" "${configure_flags[@]}" >"$dir/configure.log" 2>&1) ||
        { tail -n 30 "$dir/configure.log" >&2; die "configure failed (log: $dir/configure.log)"; }
    touch "$build/.gbvp-configured"
    say "configured in $((SECONDS - t0)) s"
fi

# --- 5. build --------------------------------------------------------------------------------
say "ninja -j2 ${ninja_targets[*]} (log: $dir/build.log)"
t0=$SECONDS
set +e
(cd "$build" && ninja -j2 "${ninja_targets[@]}") 2>&1 | tee "$dir/build.log" | {
    # One progress line per ~5 % (ninja prints "[done/total] ..." per step).
    last=-1
    while IFS= read -r line; do
        if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
            d=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]}
            pct=$((d * 100 / n))
            if [ $((pct / 5)) -ne $last ] || [ "$d" -eq "$n" ]; then
                last=$((pct / 5))
                [ "$quiet" = 1 ] || printf 'build-qemu:   %3d%% (%d/%d) %ds\n' \
                    "$pct" "$d" "$n" $((SECONDS - t0)) >&2
            fi
        fi
    done
}
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -ne 0 ]; then
    grep -E -A12 '^FAILED|error:' "$dir/build.log" | head -n 60 >&2 || tail -n 40 "$dir/build.log" >&2
    die "ninja failed (full log: $dir/build.log)"
fi
say "built in $((SECONDS - t0)) s (total $((SECONDS - start)) s)"

for t in "${ninja_targets[@]}"; do
    [ -x "$build/$t" ] || die "$build/$t missing after the build"
    "$build/$t" -device help 2>/dev/null | grep -q '"greybus-es2"' ||
        die "$build/$t has no greybus-es2 device"
    echo "$build/$t"
done
