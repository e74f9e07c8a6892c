#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/architecture.md stays true of the code: every function its request/response walk and
# its concept table name in backticks is defined in the tree, and no folder below sim/ and
# gbvp/ includes from them (nor unipro-model/ from switch-model/). Prints
# "docs: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "docs: FAIL - $*"; }

doc=docs/architecture.md
# every identifier in backticks in the walk (from "## One request" on), and the library
# names (sim_, sw_, gb_, vm_, up_, gbl_, tap_) anywhere; memcpy and QEMU's usb_packet_copy
# are not ours
walk=$(sed -n '/^## One request/,/^## Why/p' "$doc")
names=$( { grep -o '`[a-z_][a-z0-9_]*`' <<<"$walk"
           grep -oE '`(sim|sw|gb|vm|up|gbl|tap)_[a-z0-9_]*`' "$doc"; } |
         tr -d '`' | grep -vxE 'memcpy|usb_packet_copy' | sort -u)
[ -n "$names" ] || bad "$doc names no functions"
for n in $names; do
    # a definition or a type/macro of that name: at the start of a line after a return type,
    # or as a #define / typedef / struct name
    if git grep -qE "^[a-zA-Z_][a-zA-Z0-9_ \*]*[ \*]$n\(|^#define $n\b|typedef .*\b$n\b|\b$n;$|^} $n;" \
        -- '*.c' '*.h'; then ok; else bad "$doc names '$n', which the code does not define"; fi
done
for f in event-kernel greybus gblink unipro-model switch-model virtual-modules; do
    up=$(git grep -nE '#include "(sim|gbvp)/' -- "$f/" || true)
    [ -z "$up" ] && ok || bad "$f/ includes from sim/ or gbvp/: $up"
done
up=$(git grep -n '#include "switch-model/' -- unipro-model/ || true)
[ -z "$up" ] && ok || bad "unipro-model/ includes from switch-model/: $up"
up=$(git grep -nE '#include "(sim|gbvp)/' -- ap-model/ || true)
[ -z "$up" ] && ok || bad "ap-model/ includes from sim/ or gbvp/: $up"
up=$(git grep -n '#include "gbvp/' -- sim/ || true)
[ -z "$up" ] && ok || bad "sim/ includes from gbvp/: $up"
echo "docs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
