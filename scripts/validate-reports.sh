#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Validates gbvp's test reports with independent parsers: TAP files with Perl's TAP::Parser
# (the parser behind `prove`), JUnit XML files with Python's XML parser against the structure
# CI systems read (testsuites > testsuite > testcase, counts that match the cases).
# usage: validate-reports.sh [--tap FILE]... [--junit FILE]...
set -u
status=0
while [ $# -gt 0 ]; do
    kind=$1 file=${2:-}
    shift 2 || { echo "validate-reports: $kind needs a file" >&2; exit 2; }
    [ -r "$file" ] || { echo "validate-reports: cannot read $file" >&2; status=1; continue; }
    case $kind in
    --tap)
        perl -MTAP::Parser -e '
            my $p = TAP::Parser->new({ source => $ARGV[0] });
            while (defined(my $r = $p->next)) { }
            my @e = $p->parse_errors;
            die "$ARGV[0]: TAP parse errors: @e\n" if @e;
            die "$ARGV[0]: no plan or a plan that does not match the tests\n" unless $p->is_good_plan;
            die "$ARGV[0]: no test ran\n" unless $p->tests_run;
            printf "%s: valid TAP, %d tests, %d failed\n", $ARGV[0], $p->tests_run, scalar $p->failed;
        ' "$file" || status=1 ;;
    --junit)
        python3 - "$file" <<'PY' || status=1
import sys, xml.etree.ElementTree as ET
path = sys.argv[1]
root = ET.parse(path).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
if root.tag not in ("testsuites", "testsuite") or not suites:
    sys.exit(f"{path}: root must be <testsuites> or <testsuite> with suites inside")
total = 0
for s in suites:
    if s.tag != "testsuite" or "name" not in s.attrib:
        sys.exit(f"{path}: <{s.tag}> where a named <testsuite> belongs")
    cases = s.findall("testcase")
    fails = sum(1 for c in cases if c.find("failure") is not None)
    errs = sum(1 for c in cases if c.find("error") is not None)
    for attr, want in (("tests", len(cases)), ("failures", fails), ("errors", errs)):
        if int(s.get(attr, -1)) != want:
            sys.exit(f"{path}: suite {s.get('name')}: {attr}={s.get(attr)} but {want} counted")
    for c in cases:
        if "name" not in c.attrib:
            sys.exit(f"{path}: suite {s.get('name')}: a <testcase> without a name")
    total += len(cases)
if total == 0:
    sys.exit(f"{path}: no test case")
print(f"{path}: valid JUnit XML, {len(suites)} suites, {total} cases")
PY
        ;;
    *) echo "validate-reports: unknown option $kind" >&2; exit 2 ;;
    esac
done
exit $status
