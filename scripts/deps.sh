#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs every Debian package gbvp needs to build and test the simulator. Idempotent; run
# as root on Debian 12. The QEMU and guest-kernel build scripts install their own build
# dependencies (they also need deb-src entries, which they add themselves).
set -euo pipefail
packages=(
    build-essential pkg-config make gcc clang llvm valgrind
    libcunit1-dev libglib2.0-dev libjson-glib-dev liblua5.4-dev lua5.4 libssl-dev openssl
    python3 python3-matplotlib perl jq xz-utils tshark libsystemc-dev
)
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: run as root (or through sudo): apt-get must install ${packages[*]}" >&2
    exit 1
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: all ${#packages[@]} packages present"
    exit 0
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -o DPkg::Lock::Timeout=900
apt-get install -y -o DPkg::Lock::Timeout=900 "${missing[@]}"
