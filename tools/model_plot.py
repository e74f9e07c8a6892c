#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Draws the table of a `gbvp model` sweep (--json of a sweep, or DIR/table.json that
`gbvp model --plot DIR` writes) as SVG figures, docs/performance-model.md shows them:

  goodput_vs_size.svg  goodput against message size, a line per power mode (and per value of
                       every other swept name), its line-rate limit dashed beside it
  latency_cdf.svg      the latency distribution of each configuration (all flows)
  queue_depth.svg      the depth of the busiest switch input over time, per configuration

and figures.json beside them: per figure its series, each with its label, the id of its
line in the SVG and its points, for tests and for anyone redrawing them. A figure the table
has no data for (no switch: no queue depth) is listed under "skipped" with the reason.

usage: tools/model_plot.py TABLE.json OUTDIR [--title TEXT]
"""
import argparse
import json
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker as ticker
except ImportError:
    sys.exit("model_plot: needs Debian's python3-matplotlib (apt-get install python3-matplotlib)")

MAX_CURVES = 16  # latency and queue figures: at most this many configurations, evenly chosen
# The swept names the goodput figure's axes and lines already show: the first flow's size
# (the x axis: summary payload_bytes) and the first link's gear and lanes (a line's power
# mode: summary link_mode). Every other swept name, link3.gear or traffic2.size or the
# duration among them, gets a line per value: grouped with the rest, configurations that
# differ in it would share a line with two points at one size.
SIZE_NAMES = re.compile(r"^(traffic1?\.)?size$")
MODE_NAMES = re.compile(r"^(link1?\.)?(gear|lanes)$")


def label_of(row, names):
    if names:
        return " ".join(f"{n}={row['values'][n]}" for n in names)
    s = row["summary"]
    return f"{s['link_mode']} {s['payload_bytes']}B"


def evenly(rows, most):
    if len(rows) <= most:
        return rows
    step = (len(rows) - 1) / (most - 1)
    return [rows[round(i * step)] for i in range(most)]


def series_id(figure, n):
    return f"series-{figure}-{n}"


class Figure:
    def __init__(self, name, title, xlabel, ylabel):
        self.name = name
        self.fig, self.ax = plt.subplots(figsize=(9.5, 5))
        self.ax.set_title(title)
        self.ax.set_xlabel(xlabel)
        self.ax.set_ylabel(ylabel)
        self.ax.grid(True, which="both", alpha=0.3)
        self.record = {"file": f"{name}.svg", "title": title, "x": xlabel, "y": ylabel,
                       "series": []}

    def line(self, xs, ys, label, legend=True, **kw):
        n = len(self.record["series"])
        (ln,) = self.ax.plot(xs, ys, label=label if legend else "_" + label, **kw)
        ln.set_gid(series_id(self.name, n))
        self.record["series"].append({"label": label, "id": series_id(self.name, n),
                                      "points": [[x, y] for x, y in zip(xs, ys)]})
        return ln

    def save(self, outdir):
        self.ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
        self.fig.tight_layout()
        self.fig.savefig(os.path.join(outdir, self.record["file"]), format="svg",
                         metadata={"Date": None})
        plt.close(self.fig)
        return self.record


def goodput(rows, names, title):
    rows = [r for r in rows if r["summary"]["payload_bytes"] > 0]
    if not rows:
        return None, "no flow carries payload"
    others = [n for n in names if not SIZE_NAMES.search(n) and not MODE_NAMES.search(n)]
    groups = {}
    for r in rows:
        s = r["summary"]
        key = " ".join([s["link_mode"]] + [f"{n}={r['values'][n]}" for n in others])
        groups.setdefault(key, []).append(r)
    f = Figure("goodput_vs_size", title or "Goodput against message size",
               "Greybus payload per message (bytes)", "goodput (Gb/s)")
    # a colour per gear, a marker per lane count; the line-rate limit dashed in the colour
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours, markers = {}, {"1": "o", "2": "s", "3": "D", "4": "^"}
    limits = {}
    for key, grp in groups.items():
        grp.sort(key=lambda r: r["summary"]["payload_bytes"])
        mode = grp[0]["summary"]["link_mode"]
        gear, _, lanes = mode.partition(" x")
        colour = colours.setdefault(gear, cycle[len(colours) % len(cycle)])
        xs = [r["summary"]["payload_bytes"] for r in grp]
        ys = [r["summary"]["goodput_bps"] / 1e9 for r in grp]
        f.line(xs, ys, key, marker=markers.get(lanes, "o"), color=colour)
        limits.setdefault(mode, (grp[0]["summary"]["line_rate_bps"] / 1e9, colour))
    lo = min(r["summary"]["payload_bytes"] for r in rows)
    hi = max(r["summary"]["payload_bytes"] for r in rows)
    for mode, (rate, colour) in limits.items():
        f.line([lo, hi], [rate, rate], f"{mode} line rate", linestyle="--", color=colour,
               linewidth=1, legend=False)
    f.ax.plot([], [], linestyle="--", color="grey", linewidth=1,
              label="line-rate limit (after 8b10b)")
    if hi > lo:
        f.ax.set_xscale("log", base=2)
    f.ax.set_ylim(bottom=0)
    return f, None


def latency(rows, names, title):
    rows = [r for r in rows if r["summary"]["latency_ps"]["count"] > 0]
    if not rows:
        return None, "no message was delivered"
    f = Figure("latency_cdf", title or "Message latency distribution (all flows)",
               "latency (us)", "fraction of messages at or below")
    for r in evenly(rows, MAX_CURVES):
        cdf = r["summary"]["latency_ps"]["cdf"]
        f.line([p[1] / 1e6 for p in cdf], [p[0] for p in cdf], label_of(r, names))
    f.ax.set_xscale("log")
    f.ax.xaxis.set_minor_locator(ticker.LogLocator(subs=(2, 5)))
    for axis in (f.ax.xaxis.set_major_formatter, f.ax.xaxis.set_minor_formatter):
        axis(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    f.ax.set_ylim(0, 1.02)
    return f, None


def busiest_series(row):
    port = row["summary"]["queue_port"]
    if not port:
        return None, None
    name, _, p = port.rpartition(":")
    for sw in row["result"].get("switches", []):
        if sw["name"] == name:
            for pt in sw["ports"]:
                if pt["port"] == int(p) and pt.get("depth_series"):
                    return port, pt["depth_series"]
    return None, None


def queues(rows, names, title):
    found = []
    for r in rows:
        port, series = busiest_series(r)
        if series:
            found.append((r, port, series))
    if not found:
        return None, "no switch queue depth series (no switch, or --timing message)"
    f = Figure("queue_depth", title or "Switch input queue depth over time (busiest input)",
               "simulated time (us)", "queue depth (frames)")
    for r, port, series in evenly(found, MAX_CURVES):
        f.line([p[0] / 1e6 for p in series], [p[1] for p in series],
               f"{label_of(r, names)} {port}", drawstyle="steps-post")
    f.ax.set_ylim(bottom=0)
    return f, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table")
    ap.add_argument("outdir")
    ap.add_argument("--title", default=None, help="title of the goodput figure")
    a = ap.parse_args()
    try:
        with open(a.table) as fh:
            table = json.load(fh)
        rows, names = table["rows"], [s["name"] for s in table["sweep"]]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"model_plot: {a.table}: {e}")
    os.makedirs(a.outdir, exist_ok=True)
    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "gbvp-model",
                         "path.simplify": False})
    out = {"table": os.path.basename(a.table), "figures": [], "skipped": []}
    for figure, draw in (("goodput_vs_size", goodput), ("latency_cdf", latency),
                         ("queue_depth", queues)):
        try:
            fig, why = draw(rows, names, a.title if draw is goodput else None)
        except (KeyError, TypeError, ValueError) as e:
            sys.exit(f"model_plot: {a.table}: not a gbvp model table ({e!r})")
        if fig:
            out["figures"].append(fig.save(a.outdir))
        else:
            out["skipped"].append({"figure": figure, "reason": why})
    with open(os.path.join(a.outdir, "figures.json"), "w") as fh:
        json.dump(out, fh)
        fh.write("\n")
    for fig in out["figures"]:
        print(f"model_plot: {os.path.join(a.outdir, fig['file'])}: "
              f"{len(fig['series'])} series")
    for s in out["skipped"]:
        print(f"model_plot: no {s['figure']} figure: {s['reason']}")


if __name__ == "__main__":
    main()
