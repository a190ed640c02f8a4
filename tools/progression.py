#!/usr/bin/env python3
"""The progression of run_all.sh: tables, chart and README update from the stage binaries' RESULT| lines.

  tools/progression.py table  LOG...                 markdown table(s) on stdout, CSV with --csv FILE
  tools/progression.py chart  LOG --out PREFIX       PREFIX.png and PREFIX.svg (needs matplotlib)
  tools/progression.py readme LOG... (--root DIR | --readme FILE) --command "..." [--chart PATH]
  tools/progression.py sweep  LOG... --shapes tools/sweep_shapes.txt [--csv FILE]
                              [(--root DIR | --readme FILE) --command "..." [--chart PATH]]
                                                     the shape sweep (run_all.sh --sweep)
  tools/progression.py sweep-chart LOG --out PREFIX        a sweep's ratios to cuBLAS, per shape
  tools/progression.py sweep-limit-chart LOG --out PREFIX  a sweep's % of limit per shape, ours beside cuBLAS's

With --root, each table goes between its markers in the file MARKER_FILES names (relative to DIR): the
progression in the top README, each stage's table in its stage folder's README. With --readme, every table
goes into that one file (the tests use this).

LOG is a run_all.sh log (several logs: back-to-back runs of the same command; the first is the one shown,
the others are compared with it). Only the standard library is needed, except for `chart`.
"""
import argparse
import os
import re
import statistics
import sys
import textwrap

STAGE_ORDER = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "mxfp8"]
# The progression (the top README's table and chart) holds the bf16 stages; FP8 has its own page's table.
PROGRESSION_STAGES = [s for s in STAGE_ORDER if s != "mxfp8"]

# Where each marker pair lives: run_all.sh --update-readme writes the table of NAME between
# <!-- NAME-BEGIN --> and <!-- NAME-END --> in this file, relative to the repository root. Each pair exists
# exactly once, in this file and in no other .md (tests/test_docs.py checks it).
MARKER_FILES = {
    "PROGRESSION-TABLE": "README.md",
    "STABILITY-TABLE": "docs/benchmark-method.md",
    "V1-TABLE": "v1_basic/README.md",
    "V2-TABLE": "v2_swizzle128/README.md",
    "V3-TABLE": "v3_pipeline/README.md",
    "V4-TABLE": "v4_warpspec/README.md",
    "V5-TABLE": "v5_2sm/README.md",
    "V6-TABLE": "v6_persistent/README.md",
    "V7-TABLE": "v7_streamk/README.md",
    "V8-TABLE": "v8_tile_shapes/README.md",
    "SWEEP-TABLE": "docs/performance/sweep.md",
    "MXFP8-TABLE": "mxfp8/README.md",
}


class Docs:
    """The files a readme/sweep update writes: one file for every marker (--readme), or each marker's own
    file under a root (--root). Reads each file once, writes back only the files that changed."""

    def __init__(self, root=None, single=None):
        self.root, self.single, self.texts, self.changed = root, single, {}, set()

    def path(self, name):
        return self.single if self.single else os.path.join(self.root, MARKER_FILES[name])

    def replace(self, name, lines):
        path = self.path(name)
        if path not in self.texts:
            if not os.path.exists(path):
                return False
            with open(path) as f:
                self.texts[path] = f.read()
        text, found = replace_between(self.texts[path], name, lines)
        if found:
            self.texts[path] = text
            self.changed.add(path)
        return found

    def write(self):
        for path in sorted(self.changed):
            with open(path, "w") as f:
                f.write(self.texts[path])
        return sorted(self.changed)


def parse_log(path):
    """RESULT| rows and the device line of one run_all.sh log."""
    rows, gpu, toolkit = [], None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("RESULT|"):
                row = {}
                for field in line.split("|")[1:]:
                    key, _, value = field.partition("=")
                    row[key] = value
                rows.append(row)
            elif line.startswith("GPU:") and gpu is None:
                gpu = line
            elif line.startswith("toolkit:") and toolkit is None:
                toolkit = line[len("toolkit:"):].strip()
    return {"rows": rows, "gpu": gpu or "GPU: unknown", "toolkit": toolkit or "?", "path": path}


def size_of(row):
    return (int(row["m"]), int(row["n"]), int(row["k"]))


def size_label(size):
    m, n, k = size
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


def stage_key(stage):
    return STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER)


def kernel_rows(run, stages=None):
    """Kernel rows (not the cuBLAS reference rows), in stage order, grouped by size; only `stages`' if given."""
    by_size = {}
    for r in run["rows"]:
        if r["variant"] == "cublas" or (stages is not None and r["stage"] not in stages):
            continue
        by_size.setdefault(size_of(r), []).append(r)
    for rows in by_size.values():
        rows.sort(key=lambda r: (stage_key(r["stage"]), r["variant"]))
    return dict(sorted(by_size.items()))


def fnum(v, fmt="{:.1f}"):
    if v is None:
        return "—"
    try:
        return fmt.format(float(v))
    except ValueError:
        return v


def clock_range(rows):
    lo = min(float(r["sm_clock_min"]) for r in rows)
    hi = max(float(r["sm_clock_max"]) for r in rows)
    return f"{lo:.0f}-{hi:.0f} MHz"


def device_line(run):
    """GPU, clocks, driver, toolkit: the line that goes with every table."""
    g = run["gpu"]
    fields = dict(
        name=re.search(r"GPU: ([^|]+)", g),
        sms=re.search(r"\| (\d+) SMs", g),
        clock=re.search(r"max SM clock (\d+) MHz", g),
        driver=re.search(r"\| driver ([0-9.]+)", g),
        limit=re.search(r"power limit (\d+) W", g),
        cublas=re.search(r"cuBLASLt (\d+)", g),
        runtime=re.search(r"CUDA runtime ([0-9.]+)", g),
        hbm=re.search(r"HBM ([0-9.]+) GB/s measured", g),
    )
    v = {k: (m.group(1).strip() if m else "?") for k, m in fields.items()}
    cublas = v["cublas"]
    if cublas.isdigit():
        c = int(cublas)
        cublas = f"{c // 10000}.{c // 100 % 100}.{c % 100}"
    hbm = f", HBM {v['hbm']} GB/s measured by a device-to-device copy" if fields["hbm"] else ""
    return (f"{v['name']} ({v['sms']} SMs, max SM clock {v['clock']} MHz, power limit {v['limit']} W{hbm}), "
            f"driver {v['driver']}, CUDA runtime {v['runtime']}, toolkit {run['toolkit']}, cuBLASLt {cublas}")


def pct_limit(r, key="pct_limit"):
    """A row's % of limit (common/limit.h) with what binds it ("91.2% HBM", "78.4% tensor"), or "—" where
    the log has none (a binary from before the limit, an untimed row, an fp8 row)."""
    if key not in r:
        return "—"
    bound = {"memory": " HBM", "compute": " tensor"}.get(r.get("limit_bound"), "")
    return f"{fnum(r[key])}%{bound}"


def cublas_pct_limit(r):
    """cuBLAS's % of limit in a row's pairing: at its best where the log has it, else its first pick."""
    return pct_limit(r, "cublas_best_pct_limit" if "cublas_best_pct_limit" in r else "cublas_pct_limit")


def joules(r):
    """A row's joules per GEMM, kernel / cuBLAS (at its best where measured, else its first pick), from
    --energy; "n/a" for a side not measured."""
    best = r.get("cublas_best_joules_per_gemm", "n/a")
    cublas = best if best != "n/a" else r.get("cublas_joules_per_gemm", "n/a")
    return f"{fnum(r.get('joules_per_gemm', 'n/a'), '{:.3f}')} / {fnum(cublas, '{:.3f}')} J"


def stage_table(rows):
    """The per-stage table of the README (and of run_all.sh, with the stage column)."""
    limit = any("pct_limit" in r for r in rows)
    energy = any("joules_per_gemm" in r for r in rows)
    out = ["| size | variant | what changed | TFLOPS | cuBLAS, paired | ratio | ratio min-max | "
           + ("% of limit kernel / cuBLAS | " if limit else "") +
           "SM clock kernel / cuBLAS | power kernel / cuBLAS | "
           + ("J per GEMM kernel / cuBLAS | " if energy else "") + "rel. error | check |",
           "|---|---|---|---:|---:|---:|---:|" + ("---:|" if limit else "") + "---:|---:|"
           + ("---:|" if energy else "") + "---:|---|"]
    for r in rows:
        out.append(
            f"| {size_label(size_of(r))} | {r['variant']} | {r['what']} | {fnum(r['tflops'])} | "
            f"{fnum(r['cublas_tflops'])} | {fnum(r['ratio'], '{:.3f}')}× | "
            f"{fnum(r['ratio_min'], '{:.2f}')}-{fnum(r['ratio_max'], '{:.2f}')} | "
            + (f"{pct_limit(r)} / {pct_limit(r, 'cublas_pct_limit')} | " if limit else "") +
            f"{fnum(r['sm_clock_mhz'], '{:.0f}')} / {fnum(r['cublas_sm_clock_mhz'], '{:.0f}')} MHz | "
            f"{fnum(r['power_w'], '{:.0f}')} / {fnum(r['cublas_power_w'], '{:.0f}')} W | "
            + (f"{joules(r)} | " if energy else "") +
            f"{fnum(r['rel_err'], '{:.1e}')} | {r['status']} |")
    return out


def progression_table(run):
    """The bf16 stages' rows (PROGRESSION_STAGES), every size."""
    out = ["| size | stage | variant | what changed | TFLOPS | cuBLAS, paired | ratio | ratio min-max | "
           "SM clock | check |", "|---|---|---|---|---:|---:|---:|---:|---:|---|"]
    for size, rows in kernel_rows(run, PROGRESSION_STAGES).items():
        for r in rows:
            out.append(
                f"| {size_label(size)} | {r['stage']} | {r['variant']} | {r['what']} | {fnum(r['tflops'])} | "
                f"{fnum(r['cublas_tflops'])} | **{fnum(r['ratio'], '{:.3f}')}×** | "
                f"{fnum(r['ratio_min'], '{:.2f}')}-{fnum(r['ratio_max'], '{:.2f}')} | "
                f"{fnum(r['sm_clock_mhz'], '{:.0f}')} MHz | {r['status']} |")
    return out


def agreement_table(runs):
    """Each row's ratio in every run, and its largest deviation from the mean of the runs."""
    keyed = [{(size_of(r), r["stage"], r["variant"]): r for r in run["rows"] if r["variant"] != "cublas"}
             for run in runs]
    heads = " | ".join(f"run {i + 1}" for i in range(len(runs)))
    out = [f"| size | variant | {heads} | max deviation from the mean | SM clock, runs |",
           "|---|---|" + "---:|" * len(runs) + "---:|---|"]
    worst = 0.0
    for key in sorted(keyed[0], key=lambda k: (k[0], stage_key(k[1]), k[2])):
        if not all(key in k for k in keyed):
            continue
        ratios = [float(k[key]["ratio"]) for k in keyed]
        mean = statistics.fmean(ratios)
        dev = max(abs(x - mean) for x in ratios) / mean if mean > 0 else 0
        worst = max(worst, dev)
        clocks = ", ".join(f"{float(k[key]['sm_clock_mhz']):.0f}" for k in keyed)
        cells = " | ".join(f"{x:.3f}×" for x in ratios)
        out.append(f"| {size_label(key[0])} | {key[2]} | {cells} | ±{100 * dev:.1f}% | {clocks} MHz |")
    return out, worst


def cmd_table(args):
    runs = [parse_log(p) for p in args.logs]
    first = runs[0]
    print(device_line(first))
    print()
    print("\n".join(progression_table(first)))
    krows = [r for rows in kernel_rows(first).values() for r in rows]
    if krows:
        print()
        print(f"Ratio = median over rounds of (cuBLAS time / kernel time), cuBLAS and the kernel alternating in "
              f"the same process (common/timing.h); SM clock read by NVML during the rounds: "
              f"{clock_range(krows)}.")
    if len(runs) > 1:
        table, worst = agreement_table(runs)
        print()
        print(f"Back-to-back runs of the same command ({len(runs)}): largest deviation of a ratio from its "
              f"mean ±{100 * worst:.1f}%")
        print("\n".join(table))
    if args.csv:
        keys = ["stage", "variant", "arch", "m", "n", "k", "tflops", "cublas_tflops", "ratio", "ratio_min",
                "ratio_max", "ratio_q1", "ratio_q3", "sm_clock_mhz", "cublas_sm_clock_mhz", "power_w",
                "cublas_power_w", "hbm_gbps", "limit_ms", "limit_bound", "pct_limit", "cublas_pct_limit",
                "cublas_best_pct_limit", "rel_err", "status", "seed", "what"]
        with open(args.csv, "w") as f:
            f.write(",".join(keys) + "\n")
            for r in first["rows"]:
                f.write(",".join(r.get(k, "").replace(",", ";") for k in keys) + "\n")
    return 0


def pyplot():
    """matplotlib's pyplot without a display, or None (said on stderr) where it cannot be imported."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"no chart: matplotlib cannot be imported ({e})", file=sys.stderr)
        return None
    return plt


def cmd_chart(args):
    plt = pyplot()
    if plt is None:
        return 3
    run = parse_log(args.log)
    sizes = kernel_rows(run, PROGRESSION_STAGES)
    if not sizes:
        print("no chart: the log has no rows of a bf16 stage", file=sys.stderr)
        return 3
    colors = {"v1": "#9ecae1", "v2": "#6baed6", "v3": "#4292c6", "v4": "#2171b5", "v5": "#08519c",
              "v6": "#08306b", "v7": "#31a354", "v8": "#74c476", "mxfp8": "#e6550d"}
    # about a quarter inch per bar beyond twenty, so that the ratio labels (turned upright when crowded) stay apart
    most = max(len(rows) for rows in sizes.values())
    crowded = most > 16
    fig, axes = plt.subplots(1, len(sizes), figsize=((5.2 + 0.25 * max(0, most - 20)) * len(sizes) + 0.6, 4.6),
                             squeeze=False)
    for ax, (size, rows) in zip(axes[0], sizes.items()):
        names = [r["variant"] for r in rows]
        tflops = [float(r["tflops"]) for r in rows]
        bars = ax.bar(names, tflops, color=[colors.get(r["stage"], "#888888") for r in rows])
        # cuBLAS as it ran in each kernel's own pairing (same process, alternating rounds, same clock): one
        # marker per bar, since a kernel that pulls the GPU to its power limit slows cuBLAS with it. The fp8
        # reference of mxfp8 (its "/fp8" row) is a different GEMM and would squash the axis: its ratio is printed.
        marked = [(i, float(r["cublas_tflops"])) for i, r in enumerate(rows) if not r["variant"].endswith("/fp8")]
        ax.scatter([i for i, _ in marked], [c for _, c in marked], marker="_", s=500, linewidths=2.5,
                   color="#d62728", zorder=3, label="cuBLAS in the same pairing (TFLOPS)")
        for bar, r in zip(bars, rows):
            ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), f"{float(r['ratio']):.2f}×",
                    ha="center", va="bottom", fontsize=7 if crowded else 8, rotation=90 if crowded else 0)
        ax.set_title(f"{size_label(size)}  (SM clock {clock_range(rows)})", fontsize=10)
        ax.set_ylabel("TFLOPS (bf16, fp32 accumulate)")
        ax.set_ylim(0, max(max(tflops), max((c for _, c in marked), default=0)) * (1.28 if crowded else 1.18))
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        ax.tick_params(axis="x", labelsize=8, labelrotation=45)
    fig.suptitle(device_line(run), fontsize=7)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{args.out}.{ext}", dpi=130)
    print(f"chart: {args.out}.png, {args.out}.svg")
    return 0


def cmd_sweep_chart(args):
    """One group of bars per shape (in the log's order), one bar per variant: its ratio to cuBLAS at its best
    (--cublas-best; the first pick where the log has no best), a marker at its ratio to the first pick, and
    cuBLAS itself as the line at 1."""
    plt = pyplot()
    if plt is None:
        return 3
    run = parse_log(args.log)
    rows = [r for r in run["rows"] if r["variant"] != "cublas"]
    if not rows:
        print("no chart: the log has no kernel rows", file=sys.stderr)
        return 3
    shapes, variants = [], []
    for r in rows:
        if size_of(r) not in shapes:
            shapes.append(size_of(r))
        if r["variant"] not in variants:
            variants.append(r["variant"])
    by = {(size_of(r), r["variant"]): r for r in rows}
    palette = ["#9ecae1", "#08306b", "#e6550d", "#31a354", "#756bb1"]
    TOP = 1.3  # the chart's top, as a ratio to cuBLAS
    width = 0.8 / len(variants)
    fig, ax = plt.subplots(figsize=(max(8.0, 0.9 * len(shapes) + 2), 4.8))
    for j, v in enumerate(variants):
        xs = [i + (j - (len(variants) - 1) / 2) * width for i in range(len(shapes))]
        best = [float(by[(s, v)].get("ratio_best", by[(s, v)]["ratio"])) if (s, v) in by else 0 for s in shapes]
        first = [float(by[(s, v)]["ratio"]) if (s, v) in by else 0 for s in shapes]
        ax.bar(xs, best, width, color=palette[j % len(palette)], label=f"{v}: ratio to cuBLAS at its best")
        ax.scatter(xs, first, marker="_", s=120, color="#d62728", zorder=3,
                   label="ratio to cuBLAS's first pick" if j == 0 else None)
        for x, r in zip(xs, best):  # bars that run off the top (TOP) carry their value
            if r > TOP:
                ax.text(x, TOP - 0.02, f"{r:.2f}", ha="center", va="top", rotation=90, fontsize=7, color="white")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([size_label(s) for s in shapes], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("speed relative to cuBLAS (1 = cuBLAS)")
    ax.set_ylim(0, TOP)  # ratios above (cuBLAS's slow path at odd N) run off the top, labelled
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=len(variants) + 1, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.suptitle(device_line(run), fontsize=7)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{args.out}.{ext}", dpi=130)
    print(f"chart: {args.out}.png, {args.out}.svg")
    return 0


def cmd_sweep_limit_chart(args):
    """One group of horizontal bars per shape (in the log's order, top to bottom): each variant's % of limit
    (common/limit.h) and cuBLAS's beside it (at its best where the log has --cublas-best, else its first
    pick), the line at 100%, and after each shape what binds its limit (HBM or the tensor pipe)."""
    plt = pyplot()
    if plt is None:
        return 3
    run = parse_log(args.log)
    rows = [r for r in run["rows"] if r["variant"] != "cublas" and "pct_limit" in r]
    if not rows:
        print("no chart: the log has no kernel rows with a % of limit (pct_limit=)", file=sys.stderr)
        return 3
    shapes, variants = [], []
    for r in rows:
        if size_of(r) not in shapes:
            shapes.append(size_of(r))
        if r["variant"] not in variants:
            variants.append(r["variant"])
    by = {(size_of(r), r["variant"]): r for r in rows}
    first = {s: next(by[(s, v)] for v in variants if (s, v) in by) for s in shapes}  # cuBLAS's pairing
    best = any("cublas_best_pct_limit" in r for r in rows)
    cublas_key = "cublas_best_pct_limit" if best else "cublas_pct_limit"
    palette = ["#08306b", "#31a354", "#756bb1", "#e6550d"]
    bars = variants + ["cuBLAS"]
    height = 0.8 / len(bars)
    fig, ax = plt.subplots(figsize=(9.0, 1.6 + 0.16 * len(shapes) * len(bars)))
    for j, name in enumerate(bars):
        ys = [i + (j - (len(bars) - 1) / 2) * height for i in range(len(shapes))]
        if name == "cuBLAS":  # cuBLAS as it ran in the first variant's pairing at each shape
            pct = [float(first[s].get(cublas_key, 0)) for s in shapes]
            label, color = f"cuBLAS{' at its best' if best else ' (first pick)'}", "#d62728"
        else:
            pct = [float(by[(s, name)]["pct_limit"]) if (s, name) in by else 0 for s in shapes]
            label, color = name, palette[j % len(palette)]
        ax.barh(ys, pct, height, color=color, label=label)
    ax.axvline(100, color="black", linewidth=0.8)
    ax.set_yticks(range(len(shapes)))
    ax.set_yticklabels([f"{size_label(s)} ({'HBM' if first[s].get('limit_bound') == 'memory' else 'tensor'})"
                        for s in shapes], fontsize=8)
    ax.invert_yaxis()  # the shapes file's order, top to bottom
    ax.set_xlabel("% of limit = limit / median time; limit: the larger of 2MNK at the tensor rate (at the SM "
                  "clock it ran at)\nand A and B read and C written once at the measured HBM bandwidth "
                  "(common/limit.h)", fontsize=8)
    ax.set_xlim(0, max(110, max(float(r["pct_limit"]) for r in rows) + 5))
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=len(bars), frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.suptitle(textwrap.fill(device_line(run), 150), fontsize=7)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{args.out}.{ext}", dpi=130)
    print(f"chart: {args.out}.png, {args.out}.svg")
    return 0


def replace_between(text, name, lines):
    begin, end = f"<!-- {name}-BEGIN -->", f"<!-- {name}-END -->"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        return text, False
    return pattern.sub(lambda _: begin + "\n" + "\n".join(lines) + "\n" + end, text), True


def cmd_readme(args):
    runs = [parse_log(p) for p in args.logs]
    first = runs[0]
    docs = Docs(args.root, args.readme)
    dev = device_line(first)
    src = f"`{args.command}`"
    krows = [r for rows in kernel_rows(first).values() for r in rows]
    prows = [r for r in krows if r["stage"] in PROGRESSION_STAGES]
    # The progression at the top (the bf16 stages): the table, the chart, the device line, the agreement of the
    # runs. The FP8 stage's rows go to its own page's table only.
    block = progression_table(first) + ["", f"Measured with {src}. Device: {dev}. SM clock during the "
                                             f"timing: {clock_range(prows)}."]
    if args.chart:
        block += ["", f"![The progression on this GPU]({args.chart})"]
    if not docs.replace("PROGRESSION-TABLE", block):
        print(f"{docs.path('PROGRESSION-TABLE')} has no PROGRESSION-TABLE markers: the progression was not "
              f"written", file=sys.stderr)
    if len(runs) > 1:
        table, worst = agreement_table(runs)
        block = [f"{len(runs)} back-to-back runs of {src}: every ratio is within ±{100 * worst:.1f}% of its "
                 f"mean over the runs.", ""] + table + ["", f"Device: {dev}."]
        if not docs.replace("STABILITY-TABLE", block):
            print(f"{docs.path('STABILITY-TABLE')} has no STABILITY-TABLE markers: the agreement was not "
                  f"written", file=sys.stderr)
    stages = sorted({r["stage"] for r in krows}, key=stage_key)
    for stage in stages:
        rows = [r for r in krows if r["stage"] == stage]
        block = stage_table(rows) + ["", f"Measured with {src}. Device: {dev}."]
        name = f"{stage.upper()}-TABLE"
        if name not in MARKER_FILES and not args.readme:
            print(f"no file is named for {name}: its table was not written", file=sys.stderr)
            continue
        if not docs.replace(name, block):
            print(f"{docs.path(name)} has no {name} markers: its table was not written", file=sys.stderr)
    written = docs.write()
    print(f"updated {', '.join(written) or 'nothing'}: progression, stages {' '.join(stages)}"
          + (", stability" if len(runs) > 1 else ""))
    return 0


def read_shapes(path):
    """(M, N, K) -> why, in file order, from tools/sweep_shapes.txt."""
    shapes = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            shape, _, why = line.partition(" ")
            m, n, k = (int(x) for x in shape.split("x"))
            shapes[(m, n, k)] = why.strip()
    return shapes


def sweep_table(runs, shapes):
    """One row per shape of the sweep and variant run: the first run's numbers, the other runs' ratios."""
    keyed = [{(size_of(r), r["variant"]): r for r in run["rows"] if r["variant"] != "cublas"} for run in runs]
    variants = sorted({v for k in keyed for (_, v) in k}, key=lambda v: (stage_key(v[:2]), v))
    first = list(keyed[0].values())
    # Columns that only logs with them get: the ratio to cuBLAS at its best (--cublas-best) and the % of limit
    # of both sides (common/limit.h; cuBLAS's at its best where the log has it).
    best = any("ratio_best" in r for r in first)
    limit = any("pct_limit" in r for r in first)
    # The other runs' ratios: to cuBLAS at its best where the log has it (the floor's measure), else to its
    # first pick
    extra = "".join(f" {'to cuBLAS at its best' if best else 'ratio'}, run {i + 1} |" for i in range(1, len(runs)))
    heads = (" ratio to cuBLAS at its best |" if best else "") + extra + (
        f" % of limit | cuBLAS{' at its best' if best else ''}, % of limit |" if limit else "")
    ncols = int(best) + (len(runs) - 1) + 2 * int(limit)
    out = [f"| shape | why | variant | TFLOPS | cuBLAS, paired | ratio | ratio min-max |{heads} "
           f"SM clock kernel / cuBLAS | check |",
           "|---|---|---|---:|---:|---:|---:|" + "---:|" * ncols + "---:|---|"]
    missing = []
    for shape, why in shapes.items():
        for v in variants:
            r = keyed[0].get((shape, v))
            if r is None:
                missing.append(f"{size_label(shape)} ({v})")
                out.append(f"| {size_label(shape)} | {why} | {v} | — | — | not run | — |" + " — |" * ncols
                           + " — | refused or failed: see the log |")
                continue
            cells = ""
            if best:
                cells = f" {fnum(r['ratio_best'], '{:.3f}')}× |" if "ratio_best" in r else " — |"
            other = "ratio_best" if best else "ratio"
            cells += "".join(f" {fnum(k[(shape, v)].get(other), '{:.3f}')}× |" if (shape, v) in k else " — |"
                             for k in keyed[1:])
            if limit:
                cells += f" {pct_limit(r)} | {cublas_pct_limit(r)} |"
            out.append(
                f"| {size_label(shape)} | {why} | {v} | {fnum(r['tflops'])} | {fnum(r['cublas_tflops'])} | "
                f"**{fnum(r['ratio'], '{:.3f}')}×** | "
                f"{fnum(r['ratio_min'], '{:.2f}')}-{fnum(r['ratio_max'], '{:.2f}')} |{cells} "
                f"{fnum(r['sm_clock_mhz'], '{:.0f}')} / {fnum(r['cublas_sm_clock_mhz'], '{:.0f}')} MHz | "
                f"{r['status']} |")
    return out, missing


def cmd_sweep(args):
    runs = [parse_log(p) for p in args.logs]
    shapes = read_shapes(args.shapes)
    table, missing = sweep_table(runs, shapes)
    dev = device_line(runs[0])
    if args.readme or args.root:
        if not args.command:
            print("sweep --readme/--root needs --command", file=sys.stderr)
            return 2
        docs = Docs(args.root, args.readme)
        block = table + ["", f"Measured with `{args.command}`. Device: {dev}."]
        if args.chart:  # linked from the file the block goes into
            here = os.path.dirname(os.path.abspath(docs.path("SWEEP-TABLE")))
            link = os.path.relpath(os.path.abspath(args.chart), here)
            block += ["", f"![% of limit per shape, ours beside cuBLAS's]({link})"]
        if not docs.replace("SWEEP-TABLE", block):
            print(f"{docs.path('SWEEP-TABLE')} has no SWEEP-TABLE markers: the sweep was not written",
                  file=sys.stderr)
            return 1
        print(f"updated {', '.join(docs.write())}: sweep")
        return 0
    print(dev)
    print()
    print("\n".join(table))
    if missing:
        print()
        print(f"No result for: {', '.join(missing)}")
    if args.csv:
        keys = ["stage", "variant", "m", "n", "k", "tflops", "cublas_tflops", "ratio", "ratio_min", "ratio_max",
                "ratio_best", "cublas_best", "sm_clock_mhz", "cublas_sm_clock_mhz", "hbm_gbps", "limit_ms",
                "limit_bound", "pct_limit", "cublas_pct_limit", "cublas_best_pct_limit", "rel_err", "status",
                "seed"]
        with open(args.csv, "w") as f:
            f.write(",".join(keys) + "\n")
            for run in runs[:1]:
                for r in run["rows"]:
                    f.write(",".join(r.get(k, "").replace(",", ";") for k in keys) + "\n")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table")
    t.add_argument("logs", nargs="+")
    t.add_argument("--csv")
    c = sub.add_parser("chart")
    c.add_argument("log")
    c.add_argument("--out", required=True)
    r = sub.add_parser("readme")
    r.add_argument("logs", nargs="+")
    where = r.add_mutually_exclusive_group(required=True)
    where.add_argument("--readme", help="write every table into this one file")
    where.add_argument("--root", help="write each table into its own file under this root (MARKER_FILES)")
    r.add_argument("--command", required=True)
    r.add_argument("--chart")
    w = sub.add_parser("sweep")
    w.add_argument("logs", nargs="+")
    w.add_argument("--shapes", required=True)
    w.add_argument("--csv")
    where = w.add_mutually_exclusive_group()
    where.add_argument("--readme")
    where.add_argument("--root")
    w.add_argument("--command")
    w.add_argument("--chart", help="a chart to link under the table, a path from here (sweep-limit-chart's)")
    sc = sub.add_parser("sweep-chart")
    sc.add_argument("log")
    sc.add_argument("--out", required=True)
    sl = sub.add_parser("sweep-limit-chart")
    sl.add_argument("log")
    sl.add_argument("--out", required=True)
    args = p.parse_args()
    return {"table": cmd_table, "chart": cmd_chart, "readme": cmd_readme, "sweep": cmd_sweep,
            "sweep-chart": cmd_sweep_chart, "sweep-limit-chart": cmd_sweep_limit_chart}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
