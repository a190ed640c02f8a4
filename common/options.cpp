#include "common/options.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/edge.h"

namespace gemm {

namespace {

constexpr int64_t MAX_DIM = int64_t(1) << 20;  // far beyond any GPU's memory at these dtypes

// Strict integer parse: the whole string must be a decimal number within [lo, hi].
bool parse_int(const char* s, int64_t lo, int64_t hi, int64_t& out) {
  if (s == nullptr || *s == '\0') return false;
  errno             = 0;
  char* end         = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

std::string usage(const char* prog) {
  std::string u = "usage: ";
  u += prog;
  u += R"( [options]
  --m M, --n N, --k K   problem size: C[M,N] = A[M,K] * B[N,K]^T, all bf16, fp32 accumulation (default 4096)
  --variant NAME        one variant of this stage (e.g. v1a), several separated by commas (v1a,v1b), "all"
                        (default), or "cublas" (reference only)
  --iters N             timed launches of each side, the kernel and cuBLAS, at least (default 100;
                        0 = verify only)
  --round N             launches per round: the two sides alternate in rounds of N launches, and the ratio
                        is the median of the per-round ratios (default 5; see common/timing.h)
  --seconds S           time each kernel/cuBLAS pairing for at least S seconds in all (default 5)
  --warmup N            untimed launches of each side before timing (default 10; 0 still makes one, which
                        loads the side's kernels before the gated rounds: docs/benchmark-method.md)
  --seed S              seed of the random inputs (default: a fresh one, printed so a run can be replayed)
  --no-check            skip verification against cuBLAS (timing only)
  --csv                 also print the results as CSV
  --rounds-log FILE     write every timing round (side, time, median ms, SM clock, power) to FILE as CSV
  --trace FILE          after the timed runs, one launch of the variant with the in-kernel profiler compiled
                        in (not timed): a Chrome trace to FILE (open it in https://ui.perfetto.dev, or draw
                        it with tools/plot_trace.py) and the median time of each event kind (stages v3 on)
  --emulate             on an H100/H200: run this stage's sm_100a (Blackwell) kernels through the tcgen05
                        emulator (common/tcgen05_emu.h) and verify them against cuBLAS. Emulation checks
                        correctness only: nothing is timed
  --schedule S          with --emulate: eager, late, strict, or both (default: all three) of the emulator's
                        MMA schedules (docs/emulation.md)
  --cublas-best N       cuBLAS at its best: time the first N algorithms of cuBLASLt's heuristic (its
                        32 MB workspace each) once, and pair every kernel against the fastest as well as
                        against the first pick (both ratios reported; default 0: the first pick only)
  --energy S            after the timing, joules per GEMM of cuBLAS, cuBLAS at its best and each kernel,
                        each run alone for S seconds between two reads of NVML's total-energy counter
                        (default 0: off; S >= 1 keeps the counter's ~100 ms steps to a few %)
  --help                this text
Exit codes: 0 all variants PASS; 1 a variant FAILED or a CUDA/cuBLAS error; 2 bad option or shape;
            77 no GPU, or a GPU this stage has no kernel for (sm_100a: B200/GB200; sm_90a: H100/H200).
)";
  return u;
}

std::string parse_options(int argc, const char* const* argv, Options& opt) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    auto value    = [&](const char*) -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    int64_t v     = 0;
    if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) {
      opt.help = true;
    } else if (!std::strcmp(a, "--m") || !std::strcmp(a, "--n") || !std::strcmp(a, "--k")) {
      const char* s = value(a);
      if (!parse_int(s, 1, MAX_DIM, v))
        return std::string(a) + " needs an integer in [1, " + std::to_string(MAX_DIM) + "], got '" +
               (s ? s : "") + "'";
      (a[2] == 'm' ? opt.m : a[2] == 'n' ? opt.n : opt.k) = v;
    } else if (!std::strcmp(a, "--iters")) {
      const char* s = value(a);
      if (!parse_int(s, 0, 100000, v))
        return std::string("--iters needs an integer in [0, 100000], got '") + (s ? s : "") + "'";
      opt.iters = int(v);
    } else if (!std::strcmp(a, "--round")) {
      const char* s = value(a);
      if (!parse_int(s, 1, 10000, v))
        return std::string("--round needs an integer in [1, 10000], got '") + (s ? s : "") + "'";
      opt.round = int(v);
    } else if (!std::strcmp(a, "--seconds") || !std::strcmp(a, "--energy")) {
      const char* s  = value(a);
      char* end      = nullptr;
      const double d = s ? std::strtod(s, &end) : -1;
      if (!s || *s == '\0' || *end != '\0' || !(d >= 0 && d <= 600))
        return std::string(a) + " needs a number of seconds in [0, 600]" + (a[2] == 'e' ? " (0: off)" : "") +
               ", got '" + (s ? s : "") + "'";
      (a[2] == 's' ? opt.seconds : opt.energy) = d;
    } else if (!std::strcmp(a, "--warmup")) {
      const char* s = value(a);
      if (!parse_int(s, 0, 10000, v))
        return std::string("--warmup needs an integer in [0, 10000], got '") + (s ? s : "") + "'";
      opt.warmup = int(v);
    } else if (!std::strcmp(a, "--seed")) {
      const char* s = value(a);
      if (!parse_int(s, 1, INT64_MAX, v))
        return std::string("--seed needs a positive integer, got '") + (s ? s : "") + "'";
      opt.seed       = uint64_t(v);
      opt.seed_given = true;
    } else if (!std::strcmp(a, "--variant")) {
      const char* s = value(a);
      if (s == nullptr || *s == '\0') return "--variant needs a name (e.g. v1a), 'all' or 'cublas'";
      opt.variant = s;
    } else if (!std::strcmp(a, "--no-check")) {
      opt.check = false;
    } else if (!std::strcmp(a, "--rounds-log")) {
      const char* s = value(a);
      if (s == nullptr || *s == '\0') return "--rounds-log needs a file name";
      opt.rounds_log = s;
    } else if (!std::strcmp(a, "--trace")) {
      const char* s = value(a);
      if (s == nullptr || *s == '\0') return "--trace needs a file name (the Chrome trace JSON to write)";
      opt.trace = s;
    } else if (!std::strcmp(a, "--csv")) {
      opt.csv = true;
    } else if (!std::strcmp(a, "--emulate")) {
      opt.emulate = true;
    } else if (!std::strcmp(a, "--cublas-best")) {
      const char* s = value(a);
      if (!parse_int(s, 1, 64, v))
        return std::string("--cublas-best needs a number of algorithms in [1, 64], got '") + (s ? s : "") +
               "'";
      opt.cublas_best = int(v);
    } else if (!std::strcmp(a, "--schedule")) {
      const char* s = value(a);
      if (s == nullptr || !(!std::strcmp(s, "eager") || !std::strcmp(s, "late") || !std::strcmp(s, "strict") ||
                            !std::strcmp(s, "both")))
        return std::string("--schedule needs eager, late, strict or both, got '") + (s ? s : "") + "'";
      opt.schedule = s;
    } else {
      return std::string("unknown option '") + a + "' (see --help)";
    }
  }
  if (!opt.check && opt.iters == 0) return "--no-check with --iters 0 would do nothing";
  if (opt.emulate && !opt.check) return "--emulate verifies the kernels; it cannot be combined with --no-check";
  if (opt.emulate && !opt.trace.empty()) return "--emulate times nothing and traces nothing: drop --trace";
  if (!opt.emulate && opt.schedule != "both") return "--schedule is an option of --emulate";
  if (opt.cublas_best > 0 && opt.iters == 0) return "--cublas-best times cuBLAS: it needs --iters > 0";
  if (opt.energy > 0 && (opt.iters == 0 || opt.emulate))
    return "--energy measures each timed side after the timing: it needs --iters > 0 (and no --emulate)";
  return "";
}

bool schedule_selected(const std::string& option, const char* name) {
  return option == "both" || option == name;
}

int64_t nearest_multiple(int64_t value, int64_t multiple) {
  const int64_t down = value / multiple * multiple;
  const int64_t up   = down + multiple;
  if (down < multiple) return multiple;
  return (value - down <= up - value) ? down : up;
}

std::string check_shape(const ShapeRule& rule, const char* variant, int64_t m, int64_t n, int64_t k) {
  struct Dim {
    const char* name;
    int64_t value, multiple;
    const char* tile;
  } dims[] = {{"M", m, rule.m_multiple, rule.m_name},
              {"N", n, rule.n_multiple, rule.n_name},
              {"K", k, rule.k_multiple, rule.k_name}};
  for (const Dim& d : dims) {
    if (d.value < 1)
      return std::string(d.name) + "=" + std::to_string(d.value) + " is below 1 (" + variant +
             " needs M, N and K of at least 1)";
  }
  if (rule.m_max > 0 && m > rule.m_max)
    return "M=" + std::to_string(m) + " is above " + std::to_string(rule.m_max) + " (" + variant + " " +
           rule.m_max_why + ")";
  for (const Dim& d : dims) {
    if (d.value % d.multiple != 0) {
      return std::string(d.name) + "=" + std::to_string(d.value) + " is not a multiple of " + d.tile + "=" +
             std::to_string(d.multiple) + " (" + variant + " " + rule.why + "; try " + d.name + "=" +
             std::to_string(nearest_multiple(d.value, d.multiple)) + ")";
    }
  }
  return "";
}

ShapeRule any_mn_shape_rule(int elem_bytes) {
  ShapeRule rule{1, 1, tma_k_multiple(elem_bytes),
                 "takes any M and N, but K is the row length of A and B, and a TMA global stride is a "
                 "multiple of 16 bytes"};
  rule.k_name = elem_bytes == 1 ? "16 B / sizeof(fp8)" : "16 B / sizeof(bf16)";
  return rule;
}

std::string check_shape_any(const char* variant, int64_t m, int64_t n, int64_t k, int elem_bytes) {
  return check_shape(any_mn_shape_rule(elem_bytes), variant, m, n, k);
}

}  // namespace gemm
