#!/usr/bin/env bash
# The progression: builds if needed, runs every stage binary present on this GPU, verifies each kernel against
# cuBLAS and times it against cuBLAS in alternating rounds in the same process (common/timing.h), then prints
# a markdown table and draws a chart (results/, git-ignored).
#
#   ./run_all.sh                          4096^3
#   ./run_all.sh --sizes "4096 8192"      several cube sizes (or MxNxK, e.g. 4096x8192x2048)
#   ./run_all.sh --repeat 2               the whole run twice, back to back, and how far the ratios agree
#   ./run_all.sh --update-readme          also rewrite the tables between their markers (the progression and
#                                         chart in README.md, each stage's table in its vN_*/README.md or
#                                         mxfp8/README.md, the agreement of --repeat in docs/benchmark-method.md;
#                                         tools/progression.py MARKER_FILES lists them)
#   ./run_all.sh --seconds S --round N --iters N    passed to every stage binary (see its --help)
#   ./run_all.sh --sweep                  the shape sweep of tools/sweep_shapes.txt (cubes 512-16384, LLM
#                                         layers, ragged, short K, decode) on the last stage only, with each
#                                         side's % of limit and a chart of it (--cublas-best: cuBLAS at its
#                                         best's); --update-readme then writes the sweep table and its chart
#                                         (v6_persistent/README.md, tools/figures/sweep_limit.png), nothing else
#   ./run_all.sh --stages "v5 v6" --variant v6b     only these stage binaries / only this variant of them
#   ./run_all.sh --cublas-best 8          also pair every kernel against the fastest of cuBLASLt's first 8
#                                         heuristic picks (cuBLAS at its best; both ratios in the log)
#   ./run_all.sh --build-only             configure and build only (machines without a GPU)
#   ./run_all.sh --emulate                on an H100/H200: every Blackwell (sm_100a) variant of every stage through
#                                         the tcgen05 emulator, eager, late and strict schedules, at a few shapes
#                                         per stage (ragged ones for v6 and mxfp8; --sizes replaces them), a
#                                         PASS/FAIL table; verification only, no timing (docs/emulation.md)
# Exits non-zero if any kernel fails verification.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${GEMM_BUILD_DIR:-$root/build}"
sizes="4096"
repeat=1
update_readme=0
sizes_given=0
build_only=0
emulate=0
sweep=0
only_stages=""
pass=()
args_given=""  # the command line as typed, quoted where needed, for the README
for a in "$@"; do case "$a" in *" "*) args_given+=" \"$a\"" ;; *) args_given+=" $a" ;; esac; done
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="${2:?--sizes needs a list, e.g. \"4096 8192\"}"; sizes_given=1; shift 2 ;;
    --repeat) repeat="${2:?--repeat needs a number}"; shift 2 ;;
    --seconds|--round|--iters|--warmup|--variant|--cublas-best) pass+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --stages) only_stages="${2:?--stages needs a list, e.g. \"v5 v6\"}"; shift 2 ;;
    --sweep) sweep=1; shift ;;
    --update-readme) update_readme=1; shift ;;
    --build-only) build_only=1; shift ;;
    --emulate) emulate=1; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_all.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$repeat" in ''|*[!0-9]*|0) echo "run_all.sh: --repeat needs a positive integer" >&2; exit 2 ;; esac
if [ "$emulate" = 1 ] && { [ "$sweep" = 1 ] || [ "$update_readme" = 1 ] || [ "$repeat" != 1 ] || [ ${#pass[@]} -gt 0 ]; }; then
  echo "run_all.sh: --emulate verifies and times nothing: it takes --sizes and --stages only" >&2
  exit 2
fi
shapes_file="$root/tools/sweep_shapes.txt"
[ "$sweep" = 1 ] && sizes=$(awk '!/^#/ && NF {print $1}' "$shapes_file" | tr '\n' ' ')
for size in $sizes; do
  [[ "$size" =~ ^[0-9]+(x[0-9]+x[0-9]+)?$ ]] ||
    { echo "run_all.sh: bad size '$size' (a cube edge like 4096, or MxNxK like 4096x8192x2048)" >&2; exit 2; }
done

# ---- build ----
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -j"$(nproc)"
[ "$build_only" = 1 ] && { echo "built: $(cd "$build" && ls matmul_* | tr '\n' ' ')"; exit 0; }
toolkit=$(sed -n 's/^set(CMAKE_CUDA_COMPILER_VERSION "\(.*\)")$/\1/p' "$build"/CMakeFiles/*/CMakeCUDACompiler.cmake \
  2>/dev/null | head -n1)

# ---- the Blackwell kernels through the tcgen05 emulator (--emulate) ----
# Shapes per stage: small enough for the emulator (one thread per MMA does its arithmetic), large enough for
# several laps of each ring; the ragged ones exercise v6's and mxfp8's edges.
emulate_shapes() {
  case "$1" in
    matmul_v1) echo "256x384x256" ;;
    matmul_v2) echo "256x256x512" ;;
    matmul_v3|matmul_v4) echo "256x256x1024" ;;
    matmul_v5) echo "512x512x1024" ;;
    matmul_v6) echo "1000x1000x520 4096x2304x136" ;;
    matmul_v7) echo "1000x1000x520 4096x4096x136 256x256x8192" ;;
    matmul_v8) echo "1000x1000x520 256x256x8192 300x9000x200 128x28672x256" ;;
    matmul_mxfp8) echo "512x512x256 300x520x544" ;;
    *) echo "256x256x256" ;;
  esac
}
if [ "$emulate" = 1 ]; then
  stages=$(cd "$build" && ls matmul_v[0-9]* matmul_mxfp8 2>/dev/null | sort -V || true)
  [ -n "$only_stages" ] && stages=$(for w in $only_stages; do echo "matmul_$w"; done)
  mkdir -p "$root/results"
  log="$root/results/emulate_$(date +%Y%m%d-%H%M%S).log"
  : >"$log"
  table="| stage | variant | shape | eager | late | strict |\n|---|---|---|---|---|---|\n"
  status=0
  for s in $stages; do
    [ -x "$build/$s" ] || { echo "run_all.sh: no stage binary $s in $build" >&2; exit 2; }
    shapes=$(emulate_shapes "$s")
    [ "$sizes_given" = 1 ] && shapes=$sizes
    for size in $shapes; do
      case "$size" in
        *x*x*) m=${size%%x*}; rest=${size#*x}; n=${rest%%x*}; k=${rest#*x} ;;
        *) m=$size; n=$size; k=$size ;;
      esac
      echo "== $s --emulate --m $m --n $n --k $k" | tee -a "$log"
      set +e
      out=$("$build/$s" --emulate --m "$m" --n "$n" --k "$k" 2>&1)
      rc=$?
      set -e
      echo "$out" >>"$log"
      case $rc in
        77) echo "run_all.sh: --emulate needs an H100/H200 ($(echo "$out" | grep -m1 "$s:" | cut -d: -f2-))" >&2
            exit 77 ;;
        2) echo "run_all.sh: $s refused ${m}x${n}x${k}: $(echo "$out" | grep -m1 "$s:" | cut -d: -f2-)" >&2
           status=1; continue ;;
      esac
      [ $rc = 0 ] || status=1
      rows=$(echo "$out" | awk -v st="${s#matmul_}" -v sh="${m}x${n}x${k}" '
        /^check .* emulated, / { v = $2; sched = $4; r = ($0 ~ / PASS/ && $0 !~ / FAIL/) ? "PASS" : "FAIL";
                                 if (!(v in seen)) { seen[v] = 1; order[++nv] = v }
                                 res[v, sched] = r }
        END { for (i = 1; i <= nv; i++) { v = order[i]
                e = ((v, "eager") in res) ? res[v, "eager"] : "-"; l = ((v, "late") in res) ? res[v, "late"] : "-"
                x = ((v, "strict") in res) ? res[v, "strict"] : "-"
                printf "| %s | %s | %s | %s | %s | %s |\n", st, v, sh, e, l, x } }')
      if [ -z "$rows" ]; then
        rows="| ${s#matmul_} | (none: exit $rc) | ${m}x${n}x${k} | FAIL | FAIL | FAIL |"
        status=1
        echo "$out" | tail -n 5 >&2
      fi
      table+="$rows\n"
    done
  done
  echo
  printf "%b" "$table"
  echo "Emulation verifies; it says nothing about speed (docs/emulation.md). Log: ${log#$root/}"
  [ $status = 0 ] || echo "run_all.sh: at least one emulated kernel FAILED (see $log)" >&2
  exit $status
fi

# ---- run ----
stages=$(cd "$build" && ls matmul_v[0-9]* matmul_mxfp8 2>/dev/null | sort -V || true)
[ -n "$stages" ] || { echo "run_all.sh: no stage binaries in $build" >&2; exit 1; }
if [ -n "$only_stages" ]; then
  picked=""
  for want in $only_stages; do
    echo "$stages" | grep -qx "matmul_$want" || { echo "run_all.sh: no stage '$want' in $build (have:" \
      $stages")" >&2; exit 2; }
    picked+="matmul_$want "
  done
  stages=$picked
elif [ "$sweep" = 1 ]; then
  stages=$(echo "$stages" | grep -v mxfp8 | tail -n 1)  # the sweep is the last bf16 stage's, unless --stages
fi
mkdir -p "$root/results"
stamp=$(date +%Y%m%d-%H%M%S)
status=0
logs=()
for rep in $(seq 1 "$repeat"); do
  log="$root/results/run_${stamp}_$rep.log"
  logs+=("$log")
  echo "toolkit: CUDA ${toolkit:-?}" >"$log"  # the nvcc that built the binaries
  [ "$repeat" -gt 1 ] && echo "== run $rep of $repeat"
  for size in $sizes; do
    case "$size" in
      *x*x*) m=${size%%x*}; rest=${size#*x}; n=${rest%%x*}; k=${rest#*x} ;;
      *) m=$size; n=$size; k=$size ;;
    esac
    for s in $stages; do
      echo "== $s --m $m --n $n --k $k ${pass[*]:-}" | tee -a "$log"
      set +e
      "$build/$s" --m "$m" --n "$n" --k "$k" ${pass[@]+"${pass[@]}"} >>"$log" 2>&1
      rc=$?
      set -e
      case $rc in
        0) grep "^RESULT|" "$log" | tail -n 20 | grep "m=$m|n=$n|k=$k|" | grep "stage=${s#matmul_}|" |
             awk -F'|' '$3 != "variant=cublas" { split($3, v, "="); split($12, r, "="); split($8, t, "=");
                        printf "   %-6s %8s TFLOPS  %s x cuBLAS\n", v[2], t[2], r[2] }' ;;
        77) echo "run_all.sh: no suitable GPU here ($(grep -m1 "$s:" "$log" | cut -d: -f2-)). Use --build-only" \
                 "on machines without an H100/H200 or B200." >&2; exit 77 ;;
        2) echo "run_all.sh: $s refused ${m}x${n}x${k}: $(grep -m1 "$s:" "$log" | cut -d: -f2-); skipping it" >&2 ;;
        *) status=1; grep -E "^check .*FAIL|error" "$log" | tail -n 3 >&2 || true ;;
      esac
    done
  done
done

# ---- table, chart, README ----
md="$root/results/progression_$stamp.md"
csv="$root/results/progression_$stamp.csv"
if ! command -v python3 >/dev/null; then
  echo "run_all.sh: python3 not found, so no table or chart; the RESULT| lines are in ${logs[0]}" >&2
  exit $status
fi
# The charts need matplotlib: this python's, else a virtual environment under build/ that this script makes.
plot_python() {
  py=python3
  python3 -c "import matplotlib" 2>/dev/null && return 0
  venv="$build/plot-venv"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import matplotlib" 2>/dev/null; then
    echo "== installing matplotlib into $venv (python3 -m venv; pip install matplotlib)"
    { python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q --disable-pip-version-check matplotlib; } \
      >"$build/plot-venv.log" 2>&1 || true
  fi
  py="$venv/bin/python"
  "$py" -c "import matplotlib" 2>/dev/null
}
if [ "$sweep" = 1 ]; then
  python3 "$root/tools/progression.py" sweep "${logs[@]}" --shapes "$shapes_file" --csv "$csv" | tee "$md"
  echo "Logs: ${logs[*]#$root/}"
  # The chart: % of limit per shape, ours beside cuBLAS's (at its best with --cublas-best), from the first run.
  chart=""
  if plot_python; then
    "$py" "$root/tools/progression.py" sweep-limit-chart "${logs[0]}" --out "$root/results/sweep_limit_$stamp" &&
      chart="$root/results/sweep_limit_$stamp.png"
  else
    echo "run_all.sh: no chart: matplotlib is not importable and could not be installed" \
         "(see $build/plot-venv.log); the table above is complete." >&2
  fi
  if [ "$update_readme" = 1 ]; then
    readme_chart=""
    if [ -n "$chart" ]; then
      mkdir -p "$root/tools/figures"
      cp "$chart" "$root/tools/figures/sweep_limit.png"
      cp "${chart%.png}.svg" "$root/tools/figures/sweep_limit.svg"
      readme_chart="$root/tools/figures/sweep_limit.png"
    fi
    python3 "$root/tools/progression.py" sweep "${logs[@]}" --shapes "$shapes_file" --root "$root" \
      --command "./run_all.sh$args_given" ${readme_chart:+--chart "$readme_chart"} >/dev/null
  fi
  [ $status = 0 ] || echo "run_all.sh: at least one kernel FAILED verification (see ${logs[*]})" >&2
  exit $status
fi
python3 "$root/tools/progression.py" table "${logs[@]}" --csv "$csv" | tee "$md"
echo "Logs: ${logs[*]#$root/}"
cp "$md" "$root/results/latest.md"
cp "$csv" "$root/results/latest.csv"

chart=""
if plot_python; then
  "$py" "$root/tools/progression.py" chart "${logs[0]}" --out "$root/results/progression_$stamp" &&
    chart="$root/results/progression_$stamp.png" &&
    cp "$chart" "$root/results/latest.png" && cp "${chart%.png}.svg" "$root/results/latest.svg"
else
  echo "run_all.sh: no chart: matplotlib is not importable and could not be installed" \
       "(see $build/plot-venv.log); the table above is complete." >&2
fi

if [ "$update_readme" = 1 ]; then
  readme_chart=""
  if [ -n "$chart" ]; then
    mkdir -p "$root/tools/figures"
    cp "$chart" "$root/tools/figures/progression.png"
    cp "${chart%.png}.svg" "$root/tools/figures/progression.svg"
    readme_chart="tools/figures/progression.png"
  fi
  python3 "$root/tools/progression.py" readme "${logs[@]}" --root "$root" \
    --command "./run_all.sh$args_given" ${readme_chart:+--chart "$readme_chart"}
fi
[ $status = 0 ] || echo "run_all.sh: at least one kernel FAILED verification (see ${logs[*]})" >&2
exit $status
