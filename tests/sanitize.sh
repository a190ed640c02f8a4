#!/usr/bin/env bash
# compute-sanitizer on every stage binary: memcheck, racecheck, synccheck and initcheck, one line per tool and
# stage. Each stage runs every variant that fits this GPU once, verified against cuBLAS (--iters 0: no timing).
#
#   ./tests/sanitize.sh                  at 256x512x1024 (a few tiles of every stage's kernels)
#   ./tests/sanitize.sh --shape 512x512x2048
#   ./tests/sanitize.sh --jobs 6         up to 6 (tool, stage) runs at once on the one GPU (default 1): the same
#                                        checks, a shorter wall time (the --emulate racechecks take minutes each)
#   ./tests/sanitize.sh --emulate        on an H100/H200: the Blackwell (sm_100a) kernels through the tcgen05
#                                        emulator instead (eager schedule; memcheck, racecheck, synccheck), at
#                                        256x256x256 unless --shape is given
#
# Needs an H100/H200 (sm_90a) or a B200/GB200/B300 (sm_100a/sm_103a) and compute-sanitizer (CUDA toolkit).
# Exits 0 when every tool is clean on every stage, 1 when one is not, 77 when there is no GPU to check on.
# Full logs: build/sanitize/<tool>_<stage>.log (build/sanitize_emulated/ with --emulate).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GEMM_BUILD_DIR:-$root/build}"
shape=""
emulate=0
jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --shape) shape="${2:?--shape needs MxNxK}"; shift 2 ;;
    --emulate) emulate=1; shift ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "tests/sanitize.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# The emulator does each MMA's arithmetic in one thread: a smaller default shape keeps the sanitizers' runs short.
case "$jobs" in ''|*[!0-9]*|0) echo "tests/sanitize.sh: --jobs needs a positive integer" >&2; exit 2 ;; esac
[ -n "$shape" ] || { [ "$emulate" = 1 ] && shape="256x256x256" || shape="256x512x1024"; }
IFS=x read -r m n k <<<"$shape"
tools="memcheck racecheck synccheck initcheck"
mode_args=(--iters 0)
if [ "$emulate" = 1 ]; then
  tools="memcheck racecheck synccheck"  # initcheck: the emulator's TMEM is memset-poisoned, nothing to add
  mode_args=(--emulate --schedule eager)
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "tests/sanitize.sh: no GPU here (nvidia-smi finds none): nothing was checked." >&2
  exit 77
fi
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -z "$sanitizer" ]; then
  echo "tests/sanitize.sh: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2
  exit 1
fi

[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null || { echo "tests/sanitize.sh: build failed" >&2; exit 1; }
stages=$(cd "$build" && ls matmul_v[0-9]* matmul_mxfp8 2>/dev/null | sort -V)
sdir="$build/sanitize"
[ "$emulate" = 1 ] && sdir="$build/sanitize_emulated"
mkdir -p "$sdir"

# One (tool, stage) run: its line of the table, in $sdir/<tool>_<stage>.result (its exit code first).
one() {
  local tool=$1 s=$2 log="$sdir/$1_$2.log" rc summary checks result
  "$sanitizer" --tool "$tool" --error-exitcode 99 "$build/$s" --m "$m" --n "$n" --k "$k" "${mode_args[@]}" \
    >"$log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n1 | sed 's/^========= //')
  checks=$(grep -cE "^check .* PASS" "$log")
  if [ $rc = 0 ] && grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards" "$log"; then
    result=clean
  else
    result=FAIL
  fi
  printf '%s %-10s %-14s %-8s %s; %s variant(s) PASS vs cuBLAS; exit %s; log %s\n' "$rc" "$tool" "$s" "$result" \
    "${summary:-no summary}" "$checks" "$rc" "${log#$root/}" >"$sdir/$1_$2.result"
}
export -f one
export sanitizer build sdir m n k root
export mode_args_str="${mode_args[*]}"

status=0
printf '%-10s %-14s %-8s %s\n' tool stage result details
pairs=()
for s in $stages; do for tool in $tools; do pairs+=("$tool $s"); rm -f "$sdir/${tool}_$s.result"; done; done
# mode_args travel to the child shells as a string (its words have no spaces)
printf '%s\n' "${pairs[@]}" |
  xargs -P "$jobs" -L 1 bash -c 'read -r -a mode_args <<<"$mode_args_str"; one "$0" "$1"'
for p in "${pairs[@]}"; do
  set -- $p
  r="$sdir/$1_$2.result"
  if [ ! -f "$r" ]; then echo "tests/sanitize.sh: no result for $1 on $2" >&2; status=1; continue; fi
  rc=$(cut -d' ' -f1 "$r")
  if [ "$rc" = 77 ]; then
    echo "tests/sanitize.sh: $2 found no GPU it has a kernel for: $(grep -m1 "$2:" "$sdir/$1_$2.log")" >&2
    exit 77
  fi
  cut -d' ' -f2- "$r"
  grep -q " clean " "$r" || status=1
done
exit $status
