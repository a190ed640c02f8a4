// timing.h: how every number of this series is measured. The whole method is in timing.cpp.
//
// A ratio to cuBLAS is only honest if both sides ran under the same conditions. A GPU at its power limit
// changes its SM clock from one second to the next (an H100 at 8192^3: 1980 down to ~1500 MHz), so timing
// cuBLAS first and the kernel afterwards compares two different GPUs. Instead the two are timed in
// alternating rounds, reference then kernel, R launches each, back to back in one stream:
//
//     [ref x R][kernel x R][ref x R][kernel x R] ...     (ROUNDS pairs)
//
// Each launch is bracketed by CUDA events; each round gives a median time per side, and each pair of
// adjacent rounds a ratio (kernel speed / reference speed). The ratio reported is the median of those
// per-round ratios, with its min-max and interquartile range; the TFLOPS of each side is from the median
// of all its launches. While the rounds run the host samples NVML's SM clock and power draw and files each
// sample under the side whose round was executing, so every figure comes with the clock it was taken at.
// Every launch uses the next of several input copies (over 2x the L2 together), so no launch finds its
// operands in L2.
//
// Why a minimum duration: on an H100 at its power limit (8192^3) a kernel's launch time can switch between
// regimes lasting tens of milliseconds (v3: 1.7 ms and 2.4 ms per launch at the same reported clock), and
// the GPU keeps heating for seconds. Measured with v3 at 8192^3: 2 s pairings gave ratios of 0.667 and
// 0.715 in two runs; 6 s pairings 0.651, 0.650 and 0.648. Hence the default of 5 s per pairing.
// NVML's clock and power readings refresh only every ~50-100 ms: with rounds shorter than that both sides
// report the same clock, which says what the GPU ran at during the pairing, not a difference between them.
#pragma once

#include <vector>

#include "common/problem.h"

namespace gemm {

// Order statistics of a sample (quantiles by linear interpolation between order statistics). All zero for
// an empty sample.
struct Spread {
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
  int count = 0;
};
Spread summarize(std::vector<double> values);

struct TimingPlan {
  int rounds             = 20;   // pairs of rounds (reference, kernel), at least
  int launches_per_round = 5;    // launches of one side per round
  int warmup             = 10;   // untimed launches of each side first
  double min_seconds     = 5.0;  // more rounds until the timed launches of both sides add up to this
};

// One side of a timing: per-launch times and what NVML read while this side ran.
struct SideTiming {
  std::vector<std::vector<double>> rounds_ms;  // [round][launch] milliseconds
  std::vector<double> round_end_ms;            // host time at which each round was seen finished
  std::vector<double> round_clock_mhz;         // median NVML SM clock sampled during each round (0: none)
  std::vector<double> round_power_w;           // median NVML power during each round (0: none)
  Spread launch_ms;                            // over all launches of all rounds
  Spread sm_clock_mhz;                         // NVML samples taken while this side's rounds executed
  Spread power_w;
};

struct PairedTiming {
  SideTiming ref, kernel;
  Spread ratio;  // per pair of rounds: median ref time / median kernel time (> 1: the kernel is faster)
  // With a second reference (cuBLAS at its best, --cublas-best): its side, in the same cycle of rounds
  // (ref, kernel, best, ref, kernel, best, ...), and the kernel's per-round ratio to it.
  bool has_best = false;
  SideTiming best;
  Spread ratio_best;
};

// The statistics of paired rounds, from their launch times alone (no GPU: tests/test_timing.cpp checks it).
Spread round_ratios(const std::vector<std::vector<double>>& ref_rounds_ms,
                    const std::vector<std::vector<double>>& kernel_rounds_ms);

// Times `kernel` against `ref` in alternating rounds. launches[i] runs on input copy i; each side cycles
// through its copies. `best`: a second reference timed in the same cycle of rounds (may be null).
PairedTiming time_paired(const std::vector<Launch>& ref, const std::vector<Launch>& kernel,
                         const TimingPlan& plan, const std::vector<Launch>* best = nullptr);

// The same method for one side alone (the reference-only run, --variant cublas).
SideTiming time_alone(const std::vector<Launch>& launches, const TimingPlan& plan);

// Writes one line per round (side, round, end time, median launch ms, clock, power) to `path` as CSV, for
// plots of a throttling GPU (--rounds-log). Returns false if the file cannot be written.
bool write_rounds_csv(const char* path, const char* label, const PairedTiming& t, bool append);

}  // namespace gemm
