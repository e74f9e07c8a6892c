#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks what `gbvp model --plot DIR` drew against the table it drew from: each expected
figure is an SVG whose every series (figures.json) is a line with its id and at least as
many vertices as the series has points, and whose legend names it; the goodput series hold
the table's goodput per message size, the latency figure has a curve per configuration,
the queue figure the busiest input's series. Prints one line per problem; exit 1 on any.

usage: check_plots.py DIR FIGURE...   (FIGURE: goodput_vs_size, latency_cdf, queue_depth)
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
problems = []


def bad(msg):
    problems.append(msg)
    print(f"check_plots: FAIL - {msg}")


def vertices(g):
    n = 0
    for path in g.iter(SVG + "path"):
        n = max(n, len(re.findall(r"[ML]", path.get("d", ""))))
    return n


def check_goodput_points(name, fig, rows):
    """Every configuration with payload is one point of one line, and no line has two points
    at one size (configurations that differ in a swept name shown nowhere else)."""
    lines = [s for s in fig["series"] if not s["label"].endswith("line rate")]
    for s in lines:
        xs = [p[0] for p in s["points"]]
        if len(set(xs)) != len(xs):
            bad(f"{name}: series '{s['label']}' has two points at one size: {s['points']}")
    got = sorted(tuple(p) for s in lines for p in s["points"])
    want = sorted((r["summary"]["payload_bytes"], r["summary"]["goodput_bps"] / 1e9)
                  for r in rows if r["summary"]["payload_bytes"] > 0)
    if got != want:
        bad(f"{name}: the lines hold {got}, the table {want}")


def main():
    d, wanted = sys.argv[1], sys.argv[2:]
    table = json.load(open(os.path.join(d, "table.json")))
    figs = json.load(open(os.path.join(d, "figures.json")))
    by_file = {f["file"]: f for f in figs["figures"]}
    rows = table["rows"]
    for name in wanted:
        fig = by_file.get(name + ".svg")
        path = os.path.join(d, name + ".svg")
        if not fig or not os.path.exists(path):
            bad(f"{name}: not drawn (skipped: {figs['skipped']})")
            continue
        root = ET.parse(path).getroot()
        groups = {g.get("id"): g for g in root.iter(SVG + "g") if g.get("id")}
        texts = " ".join("".join(t.itertext()) for t in root.iter(SVG + "text"))
        if not fig["series"]:
            bad(f"{name}: no series")
        for s in fig["series"]:
            g = groups.get(s["id"])
            if g is None:
                bad(f"{name}: series '{s['label']}' ({s['id']}) is not in the SVG")
            elif vertices(g) < len(s["points"]):
                bad(f"{name}: series '{s['label']}' has {vertices(g)} vertices in the SVG "
                    f"for {len(s['points'])} points")
            if not s["label"].endswith("line rate") and s["label"] not in texts:
                bad(f"{name}: the legend does not name '{s['label']}'")
        if name == "goodput_vs_size":
            check_goodput_points(name, fig, rows)
            want = {}
            for r in rows:
                sm = r["summary"]
                want.setdefault(sm["link_mode"], {})[sm["payload_bytes"]] = sm["goodput_bps"] / 1e9
            for s in fig["series"]:
                mode = s["label"].split(" line rate")[0]
                if s["label"].endswith("line rate"):
                    rate = [r["summary"]["line_rate_bps"] / 1e9 for r in rows
                            if r["summary"]["link_mode"] == mode][0]
                    if any(abs(p[1] - rate) > 1e-9 for p in s["points"]):
                        bad(f"{name}: {s['label']} is not at {rate} Gb/s")
                    continue
                got = {p[0]: p[1] for p in s["points"]}
                if s["label"] in want and got != want[s["label"]]:
                    bad(f"{name}: series '{s['label']}' holds {got}, the table {want.get(s['label'])}")
        if name == "latency_cdf" and len(fig["series"]) != min(len(rows), 16):
            bad(f"{name}: {len(fig['series'])} curves for {len(rows)} configurations")
        if name == "queue_depth":
            for s in fig["series"]:
                if len(s["points"]) < 2 or max(p[1] for p in s["points"]) < 1:
                    bad(f"{name}: series '{s['label']}' shows no queue")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
