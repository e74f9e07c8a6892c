# SPDX-License-Identifier: MIT
# Debian package helpers of the build and run scripts (sourced, not run). The caller
# defines die.

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# missing_packages PKG...: prints those of the packages that are not installed.
missing_packages() {
    local p
    for p in "$@"; do pkg_installed "$p" || printf '%s ' "$p"; done
}

# need_packages PKG...: installs those that are missing with apt-get (needs root; once more
# after an apt-get update when the package lists are stale); dies naming them otherwise.
need_packages() {
    local missing
    read -r -a missing <<<"$(missing_packages "$@")"
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die "packages missing: ${missing[*]} (run as root, or apt-get install them)"
    echo "${0##*/}: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=900 "${missing[@]}" >&2 ||
        { apt-get update -o DPkg::Lock::Timeout=900 >&2 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=900 "${missing[@]}" >&2; } ||
        die "apt-get could not install ${missing[*]}"
}
