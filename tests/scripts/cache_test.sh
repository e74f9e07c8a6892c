#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The build scripts' caches after a failure, driven by stand-ins for apt-get, dpkg-source,
# patch's target tree, ninja, make and strip (a PATH prefix) in a throwaway GBVP_CACHE: no
# download, no real QEMU or kernel build, nothing outside /tmp touched. A failed step must
# not leave an entry that later runs take as good:
#  - build-qemu.sh: a download that broke off is fetched again (not a .dsc beside a short
#    tarball for ever); a patch that does not apply leaves the tree unpatched, so that the
#    corrected patch applies; a removed patch is reversed
#  - build-guest.sh: a tool helper that fails half way (strip) leaves no "built" directory
# Ends with "scripts: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
repo=$(pwd)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '       %s\n' "${@:2}"; return 0; }
skip() { echo "skip - $1"; }
t=$(mktemp -d /tmp/gbvp-cache-test.XXXXXX)
trap 'if [ "$failed" -eq 0 ]; then rm -rf "$t"; else echo "cache_test: files kept in $t"; fi' EXIT

fake=$t/bin
mkdir -p "$fake"
mkfake() { printf '#!/usr/bin/env bash\n%s\n' "$2" >"$fake/$1"; chmod +x "$fake/$1"; }
mkfake id 'if [ "${1:-}" = -u ]; then echo 0; else exec /usr/bin/id "$@"; fi'
mkfake pgrep 'exit 1'
mkfake dpkg-query 'case $2 in *Status*) printf "install ok installed" ;;
*Version*) case $3 in linux-source-6.1) printf 6.1.0-1 ;; *) printf 1.0 ;; esac ;; esac'
mkfake apt-cache 'case $1 in showsrc) printf "Package: qemu\nVersion: 1:7.2+dfsg-1\n" ;; esac'
# apt-get source writes the .dsc, then the tarball; FAKE_APT=fail breaks off in between.
# Anything else apt-get is asked fails: the test installs nothing.
mkfake apt-get '[ "$1" = source ] || { echo "fake apt-get: $*" >&2; exit 100; }
[ "$(cat qemu_7.2+dfsg.orig.tar.xz 2>/dev/null)" = whole ] && exit 0
echo dsc >qemu_7.2+dfsg-1.dsc
if [ "${FAKE_APT:-}" = fail ]; then printf wh >qemu_7.2+dfsg.orig.tar.xz; echo "E: connection timed out" >&2; exit 100; fi
echo whole >qemu_7.2+dfsg.orig.tar.xz'
mkfake dpkg-source 'd=$(dirname "$2")
[ "$(cat "$d/qemu_7.2+dfsg.orig.tar.xz")" = whole ] || { echo "dpkg-source: error: short tarball" >&2; exit 25; }
mkdir -p "$3/hw/usb" && touch "$3/hw/usb/meson.build" "$3/hw/usb/Kconfig" && seq 1 12 >"$3/x.c"
printf "#!/bin/sh\ntouch build.ninja\n" >"$3/configure" && chmod +x "$3/configure"'
mkfake ninja 'for a; do case $a in -*) ;; *) printf "#!/bin/sh\necho name %s\n" "'\''\"greybus-es2\"'\''" >"$a"; chmod +x "$a" ;; esac; done'
# tools/gpio and tools/spi "built" into O=; strip fails for FAKE_STRIP_FAIL (a full disk)
mkfake make 'o=; for a; do case $a in O=*) o=${a#O=} ;; esac; done
for a; do case $a in */tools/gpio) ts="lsgpio gpio-hammer gpio-event-mon gpio-watch" ;; */tools/spi) ts="spidev_test spidev_fdx" ;; esac; done
for x in $ts; do echo "$x" >"$o/$x"; chmod +x "$o/$x"; done'
mkfake strip '[ "$1" = -o ] || exit 0
[ "${3##*/}" = "${FAKE_STRIP_FAIL:-}" ] && { echo "strip: $2: No space left on device" >&2; exit 1; }
cp "$3" "$2"'
export PATH="$fake:$PATH"
unset FAKE_APT FAKE_STRIP_FAIL

# A copy of the scripts and what build-qemu.sh hooks in, with a patch of the stand-in x.c.
r=$t/repo
mkdir -p "$r/qemu-hw/patches"
cp -r scripts gblink guest "$r/"
cp qemu-hw/*.c qemu-hw/*.h qemu-hw/meson.build qemu-hw/Kconfig "$r/qemu-hw/"
patch_with() { # patch_with OLD10: a two-hunk patch of x.c whose second hunk wants line 10 to be OLD10
    printf -- '--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n@@ -9,3 +9,3 @@\n 9\n-%s\n+ten\n 11\n' "$1" \
        >"$r/qemu-hw/patches/x.patch"
}

# --- build-qemu.sh -----------------------------------------------------------------------
if [ ! -f /etc/apt/sources.list.d/gbvp-deb-src.sources ]; then
    # (without it the script would write it: not in a test)
    skip "build-qemu.sh: /etc/apt/sources.list.d/gbvp-deb-src.sources is not there"
else
    export GBVP_CACHE=$t/cache-qemu
    patch_with 10
    out=$(FAKE_APT=fail "$r/scripts/build-qemu.sh" 2>&1) && not_ok "build-qemu.sh fails while the download breaks off" "$out"
    if out=$("$r/scripts/build-qemu.sh" 2>&1); then
        ok "build-qemu.sh: a download that broke off is fetched again"
    else
        not_ok "build-qemu.sh: a download that broke off is fetched again" "$(tail -n 5 <<<"$out")"
    fi
    src=$(echo "$GBVP_CACHE"/qemu/*/src)
    rm -rf "$src"
    patch_with TEN
    out=$("$r/scripts/build-qemu.sh" 2>&1) && not_ok "build-qemu.sh refuses a patch that does not apply" "$out"
    if [ "$(seq 1 12)" = "$(cat "$src/x.c")" ] && ! ls "$src"/*.rej >/dev/null 2>&1; then
        ok "build-qemu.sh: a patch that does not apply leaves the tree as it was"
    else
        not_ok "build-qemu.sh: a patch that does not apply leaves the tree as it was" "$(tr '\n' ' ' <"$src/x.c")"
    fi
    patch_with 10
    if out=$("$r/scripts/build-qemu.sh" 2>&1) && [ "$(sed -n 10p "$src/x.c")" = ten ]; then
        ok "build-qemu.sh: the corrected patch applies"
    else
        not_ok "build-qemu.sh: the corrected patch applies" "$(tail -n 5 <<<"$out")"
    fi
    rm "$r/qemu-hw/patches/x.patch"
    if out=$("$r/scripts/build-qemu.sh" 2>&1) && [ "$(seq 1 12)" = "$(cat "$src/x.c")" ]; then
        ok "build-qemu.sh: a removed patch is reversed"
    else
        not_ok "build-qemu.sh: a removed patch is reversed" "$(tail -n 5 <<<"$out")"
    fi
fi

# --- build-guest.sh ----------------------------------------------------------------------
# The initramfs with every fetched tool already cached (stand-ins) but tools/gpio's, which
# the stand-in make builds and strip fails on once.
if [ ! -f /usr/src/linux-source-6.1.tar.xz ] || [ ! -x /bin/busybox ]; then
    skip "build-guest.sh: linux-source-6.1 or busybox-static is not installed"
else
    export GBVP_CACHE=$t/cache-guest
    k=$GBVP_CACHE/kernel/linux-6.1.0-1 i=$GBVP_CACHE/initramfs
    mkdir -p "$k/drivers/staging/greybus/Documentation/firmware" "$k/drivers/staging/greybus/tools" \
        "$i/gpiod-x86_64/bin" "$i/gpiod-x86_64/lib" "$i/mtd-utils-x86_64" "$i/alsa-utils-x86_64/bin" \
        "$i/alsa-utils-x86_64/lib" "$i/alsa-utils-x86_64/share/alsa"
    touch "$k/.gbvp-extracted"
    for f in firmware/firmware.c firmware/authenticate.c; do
        echo 'int main(void) { return 0; }' >"$k/drivers/staging/greybus/Documentation/$f"
    done
    echo 'int main(void) { return 0; }' >"$k/drivers/staging/greybus/tools/loopback_test.c"
    for f in gpiod-x86_64/bin/gpiomon gpiod-x86_64/interp-file gpiod-x86_64/lib/libc.so.6 \
             gpiod-x86_64/lib/libgpiod.so.2 mtd-utils-x86_64/flash_erase mtd-utils-x86_64/flashcp \
             mtd-utils-x86_64/mtd_debug mtd-utils-x86_64/mtdinfo alsa-utils-x86_64/bin/amixer \
             alsa-utils-x86_64/bin/aplay alsa-utils-x86_64/lib/libasound.so.2 \
             alsa-utils-x86_64/lib/libm.so.6 alsa-utils-x86_64/share/alsa/alsa.conf; do
        echo x >"$i/$f" && chmod +x "$i/$f"
    done
    echo /lib64/ld-linux-x86-64.so.2 >"$i/gpiod-x86_64/interp"
    # gen_init_cpio's stand-in: fails, as it does, on a file entry that is not there
    printf '#!/bin/sh\nawk '\''$1 == "file" { if (system("test -f \\"" $3 "\\"")) { print "missing " $3 > "/dev/stderr"; bad = 1 } } END { exit bad }'\'' "$1"\n' \
        >"$i/gen_init_cpio-6.1.0-1"
    chmod +x "$i/gen_init_cpio-6.1.0-1"
    out=$(FAKE_STRIP_FAIL=gpio-watch "$r/scripts/build-guest.sh" --initramfs-only 2>&1) &&
        not_ok "build-guest.sh fails when strip fails" "$out"
    if [ ! -e "$i/gpio-tools-x86_64-6.1.0-1" ]; then
        ok "build-guest.sh: a tool helper that failed leaves no cached directory"
    else
        not_ok "build-guest.sh: a tool helper that failed leaves no cached directory" \
            "$(ls "$i/gpio-tools-x86_64-6.1.0-1")"
    fi
    if out=$("$r/scripts/build-guest.sh" --initramfs-only 2>&1) &&
       [ -x "$i/gpio-tools-x86_64-6.1.0-1/gpio-watch" ]; then
        ok "build-guest.sh: the next run builds the tools again"
    else
        not_ok "build-guest.sh: the next run builds the tools again" "$(tail -n 5 <<<"$out")"
    fi
fi
echo "scripts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
