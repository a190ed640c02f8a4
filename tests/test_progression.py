#!/usr/bin/env python3
"""CPU test of tools/progression.py's sweep (run_all.sh --sweep): the table it prints and the README block it
writes, from a synthetic log in the stage binaries' RESULT| format. Exits non-zero on the first failure."""
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tool = os.path.join(root, "tools", "progression.py")

GPU = ("GPU: NVIDIA H100 80GB HBM3 | sm_90 | 132 SMs | max SM clock 1980 MHz | L2 50 MB | driver API 13.0 | "
       "CUDA runtime 13.0 | driver 580.159.04 | power limit 700 W | cuBLASLt 130100")


def result(m, n, k, variant, ratio, status="PASS", extra=""):
    """A RESULT| line as the stage binaries print it; `extra`: the optional fields before what= (--cublas-best's,
    the limit's)."""
    return (f"RESULT|stage=v6|variant={variant}|arch=sm_90a|m={m}|n={n}|k={k}|tflops=700.00|median_ms=1|"
            f"min_ms=1|cublas_tflops=650.00|ratio={ratio:.4f}|ratio_min=0.9|ratio_max=1.2|ratio_q1=1|ratio_q3=1|"
            f"rounds=10|sm_clock_mhz=1500|sm_clock_min=1400|sm_clock_max=1600|cublas_sm_clock_mhz=1450|"
            f"cublas_sm_clock_min=1400|cublas_sm_clock_max=1500|power_w=690|cublas_power_w=680|rel_err=1e-3|"
            f"max_abs=1e-2|nonfinite=0|status={status}|seed=7|{extra}what=persistent")


def limit(pct, cublas, best=None, bound="memory", ratio_best=0.987):
    """The fields of --cublas-best (where `best` is given) and of the limit (common/limit.h), as report.cpp
    writes them."""
    f = ""
    if best is not None:
        f += (f"cublas_best_tflops=690.00|ratio_best={ratio_best:.4f}|ratio_best_min=0.95|ratio_best_max=1.01|"
              "cublas_best=pick 3 of 8|")
    f += (f"hbm_gbps=2950.0|limit_ms=0.159266|limit_bound={bound}|limit_clock_mhz=1980|limit_compute_ms=0.000439|"
          f"limit_memory_ms=0.159266|pct_limit={pct:.2f}|cublas_limit_ms=0.159266|cublas_pct_limit={cublas:.2f}|")
    if best is not None:
        f += f"cublas_best_limit_ms=0.159266|cublas_best_pct_limit={best:.2f}|"
    return f


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as d:
    shapes = os.path.join(d, "shapes.txt")
    with open(shapes, "w") as f:
        f.write("# comment\n512x512x512   a small cube\n\n4001x5003x3000   ragged primes\n128x8192x8192  decode\n")
    logs = []
    for run, (r1, r2) in enumerate([(1.0312, 0.8123), (1.0288, 0.8190)]):
        log = os.path.join(d, f"run{run}.log")
        with open(log, "w") as f:
            f.write("toolkit: CUDA 13.0.88\n" + GPU + "\n")
            f.write(result(512, 512, 512, "v6b", r1) + "\n")
            f.write(result(4001, 5003, 3000, "v6b", r2) + "\n")
            # a cuBLAS reference row never becomes a kernel row
            f.write(result(4001, 5003, 3000, "cublas", 1.0, status="REF") + "\n")
        logs.append(log)
    out = subprocess.run([sys.executable, tool, "sweep", *logs, "--shapes", shapes], capture_output=True,
                         text=True)
    check(out.returncode == 0, f"sweep exits 0 (got {out.returncode}: {out.stderr})")
    lines = out.stdout.splitlines()
    rows = [l for l in lines if l.startswith("| ") and "×" in l or "not run" in l]
    check(any(l.startswith("| 512³ | a small cube | v6b | 700.0 | 650.0 | **1.031×**") and "1.029×" in l
              for l in lines), "the 512^3 row: first run's numbers, second run's ratio")
    check(any(l.startswith("| 4001×5003×3000 | ragged primes | v6b |") and "**0.812×**" in l and "0.819×" in l
              for l in lines), "the ragged row")
    check(any(l.startswith("| 128×8192×8192 | decode | v6b | — |") and "not run" in l for l in lines),
          "a shape without a result says 'not run'")
    check(not any("| cublas |" in l for l in lines), "no cuBLAS row is a kernel row")
    check(any("No result for: 128×8192×8192 (v6b)" in l for l in lines), "the missing shape is listed")
    check([l for l in lines if l.startswith("| ")][0].startswith("| shape | why | variant |"), "header first")
    order = [l.split("|")[1].strip() for l in lines if l.startswith("| ") and "v6b" in l]
    check(order == ["512³", "4001×5003×3000", "128×8192×8192"], f"rows in the shapes file's order ({order})")
    check(not any("% of limit" in l or "at its best" in l for l in lines),
          "a log without the limit's and --cublas-best's fields gets no columns for them")

    # The limit (common/limit.h) and cuBLAS at its best: their columns, the device line's bandwidth, the CSV
    limit_log = os.path.join(d, "limit.log")
    with open(limit_log, "w") as f:
        f.write("toolkit: CUDA 13.0.88\n" + GPU + " | HBM 2950 GB/s measured (device-to-device copy of 256 MiB, "
                "read + written, median of 10)\n")
        f.write(result(1, 8192, 28672, "v8d", 1.05, extra=limit(91.23, 86.9, best=88.4)) + "\n")
        f.write(result(512, 512, 512, "v8d", 0.98, extra=limit(40.0, 41.0, best=42.5, bound="compute")) + "\n")
        f.write(result(512, 512, 512, "cublas", 1.0, status="REF", extra=limit(41.0, 41.0)) + "\n")
    shapes2 = os.path.join(d, "shapes2.txt")
    with open(shapes2, "w") as f:
        f.write("512x512x512   a small cube\n1x8192x28672   decode: one token\n4001x5003x3000   ragged primes\n")
    csv = os.path.join(d, "sweep.csv")
    out = subprocess.run([sys.executable, tool, "sweep", limit_log, "--shapes", shapes2, "--csv", csv],
                         capture_output=True, text=True)
    check(out.returncode == 0, f"sweep of a log with the limit exits 0 ({out.stderr})")
    lines = out.stdout.splitlines()
    table = [l for l in lines if l.startswith("| ")]
    check(table[0] == "| shape | why | variant | TFLOPS | cuBLAS, paired | ratio | ratio min-max | ratio to cuBLAS at "
          "its best | % of limit | cuBLAS at its best, % of limit | SM clock kernel / cuBLAS | check |",
          f"the header gains the ratio to cuBLAS at its best and both % of limit ({table[0]})")
    check(table[1].count("|") == table[0].count("|"), "the alignment row has a cell per column")
    check(any(l.startswith("| 1×8192×28672 | decode: one token | v8d |") and "**1.050×** | 0.90-1.20 | 0.987× | "
              "91.2% HBM | 88.4% HBM |" in l for l in lines), "the decode row: ratio to best, % of limit, memory-bound")
    check(any(l.startswith("| 512³ | a small cube | v8d |") and "| 40.0% tensor | 42.5% tensor |" in l
              for l in lines), "the cube row: compute-bound")
    check(any(l.startswith("| 4001×5003×3000 |") and "not run" in l and l.count("|") == table[0].count("|")
              for l in lines), "a shape without a result keeps the columns")
    check(any("HBM 2950 GB/s measured" in l for l in lines), "the device line carries the measured bandwidth")
    import csv as csvmod
    with open(csv) as f:
        rows = list(csvmod.DictReader(f))
    check(rows and rows[0]["pct_limit"] == "91.23" and rows[0]["cublas_best_pct_limit"] == "88.40"
          and rows[0]["limit_bound"] == "memory" and rows[0]["hbm_gbps"] == "2950.0", "the CSV has the limit's fields")

    # two runs with --cublas-best: run 2's column is its ratio to cuBLAS at its best (the floor's measure), not
    # its ratio to the first pick
    second_log = os.path.join(d, "limit2.log")
    with open(second_log, "w") as f:
        f.write("toolkit: CUDA 13.0.88\n" + GPU + "\n")
        f.write(result(1, 8192, 28672, "v8d", 1.2222, extra=limit(91.0, 86.0, best=88.0, ratio_best=0.9512)) + "\n")
    out = subprocess.run([sys.executable, tool, "sweep", limit_log, second_log, "--shapes", shapes2],
                         capture_output=True, text=True)
    table = [l for l in out.stdout.splitlines() if l.startswith("| ")]
    check(out.returncode == 0 and "| ratio to cuBLAS at its best | to cuBLAS at its best, run 2 |" in table[0],
          f"run 2's column is named as its ratio to cuBLAS at its best ({table[:1]})")
    check(any(l.startswith("| 1×8192×28672 |") and "| 0.987× | 0.951× |" in l and "1.222" not in l for l in table),
          "run 2's column carries run 2's ratio to cuBLAS at its best")

    # without --cublas-best: cuBLAS's first pick's % of limit, named as such
    first_log = os.path.join(d, "first.log")
    with open(first_log, "w") as f:
        f.write("toolkit: CUDA 13.0.88\n" + GPU + "\n")
        f.write(result(1, 8192, 28672, "v8d", 1.05, extra=limit(91.23, 86.9)) + "\n")
    out = subprocess.run([sys.executable, tool, "sweep", first_log, "--shapes", shapes2], capture_output=True,
                         text=True)
    check("| % of limit | cuBLAS, % of limit |" in out.stdout and "| 91.2% HBM | 86.9% HBM |" in out.stdout
          and "at its best" not in out.stdout, "without --cublas-best: the first pick's % of limit")

    # the chart of % of limit per shape (matplotlib; skipped where it cannot be imported)
    try:
        import matplotlib  # noqa: F401
        have_mpl = True
    except ImportError:
        have_mpl = False
    chart = os.path.join(d, "limit_chart")
    out = subprocess.run([sys.executable, tool, "sweep-limit-chart", limit_log, "--out", chart], capture_output=True,
                         text=True)
    if have_mpl:
        check(out.returncode == 0 and os.path.getsize(chart + ".png") > 0, f"the % of limit chart ({out.stderr})")
        out = subprocess.run([sys.executable, tool, "sweep-limit-chart", logs[0], "--out", chart],
                             capture_output=True, text=True)
        check(out.returncode == 3 and "no kernel rows with a % of limit" in out.stderr,
              "a log without the limit draws no chart, and says why")
    else:
        print("skipped: the % of limit chart (matplotlib cannot be imported)")
        check(out.returncode == 3 and "matplotlib" in out.stderr, "no matplotlib: said, exit 3")

    readme = os.path.join(d, "README.md")
    with open(readme, "w") as f:
        f.write("intro\n<!-- SWEEP-TABLE-BEGIN -->\nold\n<!-- SWEEP-TABLE-END -->\n"
                "<!-- PROGRESSION-TABLE-BEGIN -->\nkeep me\n<!-- PROGRESSION-TABLE-END -->\n")
    out = subprocess.run([sys.executable, tool, "sweep", *logs, "--shapes", shapes, "--readme", readme,
                          "--command", "./run_all.sh --sweep"], capture_output=True, text=True)
    check(out.returncode == 0, f"sweep --readme exits 0 ({out.stderr})")
    text = open(readme).read()
    check("old" not in text and "keep me" in text, "only the sweep block is replaced")
    check("**1.031×**" in text and "Measured with `./run_all.sh --sweep`" in text and "driver 580.159.04" in text,
          "the README block has the table, the command and the device line")

    # --chart: the sweep's chart linked under the table, relative to the file the block goes into
    sub = os.path.join(d, "page")
    os.makedirs(sub, exist_ok=True)
    page = os.path.join(sub, "README.md")
    with open(page, "w") as f:
        f.write("<!-- SWEEP-TABLE-BEGIN -->\n<!-- SWEEP-TABLE-END -->\n")
    out = subprocess.run([sys.executable, tool, "sweep", *logs, "--shapes", shapes, "--readme", page, "--command",
                          "x", "--chart", os.path.join(d, "figures", "sweep_limit.png")], capture_output=True,
                         text=True)
    check(out.returncode == 0 and "![% of limit per shape, ours beside cuBLAS's](../figures/sweep_limit.png)\n"
          "<!-- SWEEP-TABLE-END -->" in open(page).read(), f"the chart's link under the sweep table ({out.stderr})")

    # a stage's table (readme) gains the % of limit of both sides where the log has it
    with open(readme, "w") as f:
        f.write("<!-- V6-TABLE-BEGIN -->\n<!-- V6-TABLE-END -->\n")
    out = subprocess.run([sys.executable, tool, "readme", limit_log, "--readme", readme, "--command", "x"],
                         capture_output=True, text=True)
    text = open(readme).read()
    check(out.returncode == 0 and "| % of limit kernel / cuBLAS |" in text and "| 91.2% HBM / 86.9% HBM |" in text,
          f"the stage table carries the % of limit ({out.stderr})")
    check("J per GEMM" not in text, "a log without --energy's fields gets no J per GEMM column")

    # --energy: a J per GEMM column, kernel / cuBLAS at its best (else its first pick), n/a where not measured
    energy_log = os.path.join(d, "energy.log")
    with open(energy_log, "w") as f:
        f.write("toolkit: CUDA 13.0.88\n" + GPU + "\n")
        f.write(result(4096, 4096, 4096, "v6a", 1.01, extra="joules_per_gemm=0.21234|cublas_joules_per_gemm=0.22001|"
                       "cublas_best_joules_per_gemm=0.20877|") + "\n")
        f.write(result(8192, 8192, 8192, "v6a", 1.01, extra="joules_per_gemm=n/a|cublas_joules_per_gemm=1.70000|"
                       "cublas_best_joules_per_gemm=n/a|") + "\n")
    with open(readme, "w") as f:
        f.write("<!-- V6-TABLE-BEGIN -->\n<!-- V6-TABLE-END -->\n")
    out = subprocess.run([sys.executable, tool, "readme", energy_log, "--readme", readme, "--command", "x"],
                         capture_output=True, text=True)
    table = [l for l in open(readme).read().splitlines() if l.startswith("|")]
    check(out.returncode == 0 and "| J per GEMM kernel / cuBLAS |" in table[0], f"the J per GEMM column ({out.stderr})")
    check(all(l.count("|") == table[0].count("|") for l in table), "every row of the energy table has every cell")
    check("| 0.212 / 0.209 J |" in table[2], f"kernel / cuBLAS at its best ({table[2]})")
    check("| n/a / 1.700 J |" in table[3], f"n/a, and cuBLAS's first pick without a best ({table[3]})")

    with open(readme, "w") as f:
        f.write("no markers\n")
    out = subprocess.run([sys.executable, tool, "sweep", *logs, "--shapes", shapes, "--readme", readme,
                          "--command", "x"], capture_output=True, text=True)
    check(out.returncode != 0 and "no SWEEP-TABLE markers" in out.stderr, "a README without markers is an error")

    # run_all.sh refuses a malformed size before building anything
    out = subprocess.run(["bash", os.path.join(root, "run_all.sh"), "--sizes", "4096x"], capture_output=True,
                         text=True, env={**os.environ, "GEMM_BUILD_DIR": os.path.join(d, "nobuild")})
    check(out.returncode == 2 and "bad size '4096x'" in out.stderr, f"run_all.sh refuses '4096x' ({out.stderr})")
    check(not os.path.exists(os.path.join(d, "nobuild")), "nothing was configured for a refused size")

print("test_progression:", "FAILED" if failures else "all checks passed")
sys.exit(1 if failures else 0)
