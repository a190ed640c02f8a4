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


def result(m, n, k, variant, ratio, status="PASS"):
    return (f"RESULT|stage=v6|variant={variant}|arch=sm_90a|m={m}|n={n}|k={k}|tflops=700.00|median_ms=1|"
            f"min_ms=1|cublas_tflops=650.00|ratio={ratio:.4f}|ratio_min=0.9|ratio_max=1.2|ratio_q1=1|ratio_q3=1|"
            f"rounds=10|sm_clock_mhz=1500|sm_clock_min=1400|sm_clock_max=1600|cublas_sm_clock_mhz=1450|"
            f"cublas_sm_clock_min=1400|cublas_sm_clock_max=1500|power_w=690|cublas_power_w=680|rel_err=1e-3|"
            f"max_abs=1e-2|nonfinite=0|status={status}|seed=7|what=persistent")


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
