#!/usr/bin/env bash
# The progression table: builds if needed, runs cuBLAS and every stage binary present, verifies each kernel
# against cuBLAS in the same process, and prints a markdown table (saved with a CSV under results/).
#
#   ./run_all.sh                       4096^3
#   ./run_all.sh --sizes "4096 8192"   several cube sizes (or MxNxK, e.g. 4096x8192x2048)
#   ./run_all.sh --iters 100           timed launches per kernel (default 50)
#   ./run_all.sh --build-only          configure and build only (machines without a GPU)
# Exits non-zero if any kernel fails verification.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${GEMM_BUILD_DIR:-$root/build}"
sizes="4096"
iters=50
build_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="${2:?--sizes needs a list, e.g. \"4096 8192\"}"; shift 2 ;;
    --iters) iters="${2:?--iters needs a number}"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_all.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# ---- build ----
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -j"$(nproc)"
[ "$build_only" = 1 ] && { echo "built: $(cd "$build" && ls matmul_* | tr '\n' ' ')"; exit 0; }

# ---- run ----
stages=$(cd "$build" && ls matmul_v[0-9]* matmul_mxfp8 2>/dev/null | sort -V || true)
[ -n "$stages" ] || { echo "run_all.sh: no stage binaries in $build" >&2; exit 1; }
mkdir -p "$root/results"
stamp=$(date +%Y%m%d-%H%M%S)
log="$root/results/run_$stamp.log"
csv="$root/results/progression_$stamp.csv"
md="$root/results/progression_$stamp.md"
: >"$log"
status=0
for size in $sizes; do
  case "$size" in
    *x*x*) m=${size%%x*}; rest=${size#*x}; n=${rest%%x*}; k=${rest#*x} ;;
    *) m=$size; n=$size; k=$size ;;
  esac
  for s in $stages; do
    echo "== $s --m $m --n $n --k $k" | tee -a "$log"
    set +e
    "$build/$s" --m "$m" --n "$n" --k "$k" --iters "$iters" >>"$log" 2>&1
    rc=$?
    set -e
    tail -n 20 "$log" | grep -E "^(check|matmul_)" || true
    case $rc in
      0) ;;
      77) echo "run_all.sh: no suitable GPU here ($(grep -m1 "$s:" "$log" | cut -d: -f2-)). Use --build-only on" \
               "machines without an H100/H200 or B200." >&2; exit 77 ;;
      2) echo "run_all.sh: $s refused ${m}x${n}x${k} (see $log); skipping it" >&2 ;;
      *) status=1 ;;
    esac
  done
done

# ---- table ----
gpu_line=$(grep -m1 "^GPU:" "$log" || echo "GPU: unknown")
echo "stage,variant,m,n,k,what_changed,tflops,pct_of_cublas,rel_err,status,sm_clock_mhz,seed" >"$csv"
grep "^RESULT|" "$log" | awk -F'|' '
  { delete f; for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
    if (f["variant"] == "cublas" && seen_cublas[f["m"] "x" f["n"] "x" f["k"]]++) next
    stage = f["variant"] == "cublas" ? "cuBLAS" : f["stage"]
    gsub(/,/, ";", f["what"])
    printf "%s,%s,%s,%s,%s,%s,%s,%.1f,%s,%s,%s,%s\n", stage, f["variant"], f["m"], f["n"], f["k"], f["what"],
           f["tflops"], 100 * f["ratio"], f["rel_err"], f["status"], f["sm_clock_mhz"], f["seed"] }' >>"$csv"
{
  echo "$gpu_line"
  echo
  echo "| size | stage | variant | what changed | TFLOPS | % of cuBLAS | rel. error | check |"
  echo "|---|---|---|---|---:|---:|---:|---|"
  tail -n +2 "$csv" | awk -F',' '{
    printf "| %sx%sx%s | %s | %s | %s | %s | %s%% | %s | %s |\n", $3, $4, $5, $1, $2, $6, $7, $8, $9, $10 }'
  echo
  echo "TFLOPS = 2MNK / median time (CUDA events, $iters launches, inputs rotated beyond L2). % of cuBLAS is"
  echo "against cuBLASLt timed in the same process as the stage; the cuBLAS row above is the first stage's."
  grep "^RESULT|" "$log" | awk -F'|' '
    { delete f; for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
      if (f["variant"] == "cublas") cub = cub sprintf("%s %s (%sx%sx%s), ", f["stage"], f["tflops"], f["m"], f["n"], f["k"])
      clk = f["sm_clock_mhz"] + 0; if (lo == "" || clk < lo) lo = clk; if (clk > hi) hi = clk }
    END { sub(/, $/, "", cub); printf "cuBLAS TFLOPS in each stage run: %s. SM clock read right after each timing: %s-%s MHz.\n", cub, lo, hi }'
  echo "Full log: results/$(basename "$log")"
} | tee "$md"
cp "$md" "$root/results/latest.md"
cp "$csv" "$root/results/latest.csv"
[ $status = 0 ] || echo "run_all.sh: at least one kernel FAILED verification (see $log)" >&2
exit $status
