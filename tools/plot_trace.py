#!/usr/bin/env python3
"""plot_trace.py: a PNG timeline of a few SMs from a Chrome trace written by `matmul_vN --trace FILE`.

    python3 tools/plot_trace.py trace.json -o trace.png               # the first 3 SMs, whole kernel
    python3 tools/plot_trace.py trace.json -o trace.png --sms 0 7      # chosen SMs
    python3 tools/plot_trace.py trace.json -o trace.png --zoom 20 30   # plus a panel of 20..30 us
    python3 tools/plot_trace.py trace.json -o trace.png --role "consumer 0" --num-sms 132
                                            # one row per SM: one role's first track, the whole grid

One row per role track of each SM (the CTAs that ran one after another on an SM share its rows; a thin grey
line marks where a CTA starts), one colour per event kind, a legend, microseconds on the x axis.
Perfetto (https://ui.perfetto.dev) opens the same file for interactive browsing.
Needs matplotlib (pip install matplotlib).
"""
import argparse
import json
import re
import sys
from collections import OrderedDict, defaultdict

# One colour per event kind (common/trace.h EVENT_NAMES); kinds not listed get the next free colour.
COLOURS = OrderedDict([
    ("setup", "#7f7f7f"),
    ("wait empty", "#ff9896"),
    ("issue TMA", "#d62728"),
    ("wait full", "#aec7e8"),
    ("issue MMA", "#1f77b4"),
    ("wait MMA", "#ffbb78"),
    ("MMA in flight", "#2ca02c"),
    ("epilogue", "#9467bd"),
    ("teardown", "#c5b0d5"),
    ("promote", "#8c564b"),
    ("decode scales", "#e377c2"),
    ("write partial", "#17becf"),
    ("fixup", "#000000"),
])
SPARE = ["#bcbd22", "#17becf", "#9edae5", "#dbdb8d"]


def load(path):
    """The complete events of a trace, [(pid, row, cta, name, ts, dur, tid)], and the SM names {pid: name}."""
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    thread_names, process_names = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            thread_names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "process_name":
            process_names[e["pid"]] = e["args"]["name"]
    out = []
    for e in events:
        if e.get("ph") != "X":
            continue
        track = thread_names.get((e["pid"], e["tid"]), "tid %s" % e["tid"])
        m = re.match(r"CTA (\d+) (.*)$", track)  # "CTA 37 consumer 0 #2" -> row "consumer 0 #2"
        cta, row = (int(m.group(1)), m.group(2)) if m else (-1, track)
        out.append((e["pid"], row, cta, e["name"], float(e["ts"]), float(e["dur"]), e["tid"]))
    return out, process_names


def split_row(row):
    """"consumer 0 #2" -> ("consumer 0", 2): the role, and which of its tracks."""
    m = re.match(r"(.*?)(?: #(\d+))?$", row)
    return m.group(1), int(m.group(2) or 1)


def ordered_rows(events, pid):
    """The rows of one SM: roles in the kernel's order (the trace numbers tracks in role order), then each
    role's extra tracks #2, #3..."""
    first_tid = {}
    for (p, row, _cta, _name, _ts, _dur, tid) in events:
        if p == pid:
            role = split_row(row)[0]
            first_tid[role] = min(first_tid.get(role, tid), tid)
    rows = {e[1] for e in events if e[0] == pid}
    return sorted(rows, key=lambda r: (first_tid[split_row(r)[0]], split_row(r)[1]))


def draw(ax, events, sms, process_names, colours, window=None):
    rows = []  # (pid, row) top to bottom
    for pid in sms:
        rows += [(pid, r) for r in ordered_rows(events, pid)]
    index = {key: i for i, key in enumerate(rows)}
    bars = defaultdict(list)  # kind -> [(row index, ts, dur)]
    cta_starts = defaultdict(lambda: float("inf"))
    for (pid, row, cta, name, ts, dur, _tid) in events:
        if (pid, row) not in index:
            continue
        if window and (ts + dur < window[0] or ts > window[1]):
            continue
        bars[name].append((index[(pid, row)], ts, dur))
        cta_starts[(pid, cta)] = min(cta_starts[(pid, cta)], ts)
    for name, items in bars.items():
        for i, ts, dur in items:
            ax.broken_barh([(ts, dur)], (i - 0.4, 0.8), facecolors=colours[name], edgecolor="none")
    for (pid, cta), ts in cta_starts.items():
        first = min(i for (p, r), i in index.items() if p == pid)
        last = max(i for (p, r), i in index.items() if p == pid)
        ax.plot([ts, ts], [first - 0.5, last + 0.5], color="#555555", linewidth=0.5, zorder=0)
    step = 1 if len(rows) <= 40 else 8  # a whole grid: label every 8th row
    ax.set_yticks(range(0, len(rows), step))
    ax.set_yticklabels(["%s  %s" % (process_names.get(p, "SM %s" % p), r) for p, r in rows][::step], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    for j in range(1, len(rows)):  # a separator between SMs
        if rows[j][0] != rows[j - 1][0]:
            ax.axhline(j - 0.5, color="black", linewidth=0.8)
    ax.set_xlabel("time since the first event (us)")
    if window:
        ax.set_xlim(*window)
    ax.grid(axis="x", linewidth=0.3)
    return set(bars)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", help="Chrome trace JSON written by --trace")
    ap.add_argument("-o", "--output", required=True, help="PNG file to write")
    ap.add_argument("--sms", type=int, nargs="+", help="SM ids to draw (default: the first --num-sms)")
    ap.add_argument("--num-sms", type=int, default=3, help="how many SMs when --sms is not given (3)")
    ap.add_argument("--zoom", type=float, nargs=2, metavar=("START", "END"),
                    help="add a panel of the first SM between START and END microseconds")
    ap.add_argument("--title", default=None, help="figure title (default: the trace's otherData.title)")
    ap.add_argument("--role", default=None,
                    help="draw only this role's first track (e.g. \"consumer 0\"): one row per SM, to see a "
                         "whole grid (when it ends, who waits) rather than a few SMs in detail")
    args = ap.parse_args(argv)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        print("plot_trace.py: matplotlib is not installed (pip install matplotlib)", file=sys.stderr)
        return 2

    try:
        events, process_names = load(args.trace)
    except (OSError, ValueError, KeyError) as err:
        print("plot_trace.py: cannot read %s as a Chrome trace: %s" % (args.trace, err), file=sys.stderr)
        return 2
    if args.role:
        events = [e for e in events if e[1] == args.role]
    if not events:
        print("plot_trace.py: %s holds no complete (\"X\") events%s" % (
            args.trace, " of role %s" % args.role if args.role else ""), file=sys.stderr)
        return 1
    present = sorted({e[0] for e in events})
    sms = args.sms if args.sms else present[:args.num_sms]
    missing = [s for s in sms if s not in present]
    if missing:
        print("plot_trace.py: no events on SM %s (the trace has SMs %s..%s)"
              % (missing, present[0], present[-1]), file=sys.stderr)
        return 2
    title = args.title
    if title is None:
        with open(args.trace) as f:
            doc = json.load(f)
        title = doc.get("otherData", {}).get("title", args.trace) if isinstance(doc, dict) else args.trace

    colours = dict(COLOURS)
    spare = iter(SPARE * 10)
    for name in sorted({e[3] for e in events}):
        if name not in colours:
            colours[name] = next(spare)

    n_rows = len({(e[0], e[1]) for e in events if e[0] in sms})
    panels = 2 if args.zoom else 1
    zoom_rows = len({e[1] for e in events if e[0] == sms[0]})
    heights = [n_rows] + ([zoom_rows] if args.zoom else [])
    row_inches = 0.22 if sum(heights) <= 40 else 0.07  # a whole grid (--role): thin rows
    fig, axes = plt.subplots(panels, 1, figsize=(14, 1.2 + row_inches * sum(heights) + 0.6 * panels),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    used = draw(axes[0][0], events, sms, process_names, colours)
    axes[0][0].set_title(title, fontsize=10)
    if args.zoom:
        used |= draw(axes[1][0], events, sms[:1], process_names, colours, window=tuple(args.zoom))
        axes[1][0].set_title("zoom: %s, %.1f to %.1f us" % (process_names.get(sms[0], "SM %s" % sms[0]),
                                                           args.zoom[0], args.zoom[1]), fontsize=9)
    handles = [Patch(color=colours[k], label=k) for k in colours if k in used]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 9), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(args.output, dpi=130)
    print("plot_trace.py: wrote %s (%d SMs, %d rows)" % (args.output, len(sms), n_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
