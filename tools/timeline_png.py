#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Draws a gbvp timeline (gbvp ... --trace FILE.json, docs/tracing.md) as a PNG, for reports
and documentation where ui.perfetto.dev is not at hand: one row per track, operations as
bars from request to response (red when the result is not success or nobody answered),
link states as bands (green up, orange changing or in HIBERN8, grey down), bursts of frames
in purple, instants as ticks, on simulated time in microseconds.

usage: tools/timeline_png.py TRACE.json OUT.png [--from US] [--to US] [--title TEXT]
"""
import argparse
import json
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("timeline_png: needs Debian's python3-matplotlib (apt-get install python3-matplotlib)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="start, us")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="end, us")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    try:
        with open(a.trace) as f:
            events = json.load(f)["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"timeline_png: {a.trace}: {e}")

    names = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]

    def inside(t0, t1):
        return (a.t0 is None or t1 >= a.t0) and (a.t1 is None or t0 <= a.t1)

    rows, bars, ticks = {}, [], []
    for e in events:
        if e["ph"] not in "Xi" or (e["pid"], e.get("tid")) not in names:
            continue
        start = e["ts"]
        end = start + e.get("dur", 0)
        if not inside(start, end):
            continue
        key = (e["pid"], e["tid"])
        row = rows.setdefault(key, len(rows))
        if e["ph"] == "X":
            if e.get("cat") == "link":
                colour = ("tab:purple" if e["name"].startswith("burst") else
                          "tab:green" if e["name"].startswith("up") else
                          "tab:gray" if e["name"] == "down" else "tab:orange")
            else:
                colour = "tab:blue" if e["args"].get("result") == "success" else "tab:red"
            bars.append((row, start, max(end - start, 0.05), colour, e["name"]))
        else:
            ticks.append((row, start, e["name"]))
    if not rows:
        sys.exit("timeline_png: no operation or instant in that time")

    labels = [None] * len(rows)
    for key, row in rows.items():
        labels[row] = ("frame: " if key[0] == 2 else "") + names[key]
    fig, ax = plt.subplots(figsize=(12, 0.35 * len(rows) + 1.5))
    for row, start, width, colour, _ in bars:
        ax.broken_barh([(start, width)], (row - 0.35, 0.7), facecolors=colour)
    for row, t, _ in ticks:
        ax.plot([t, t], [row - 0.4, row + 0.4], color="black", linewidth=1)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("simulated time (us)")
    if a.t0 is not None or a.t1 is not None:
        ax.set_xlim(a.t0, a.t1)
    ax.set_title(a.title or a.trace, fontsize=10)
    ax.grid(axis="x", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)


if __name__ == "__main__":
    main()
