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

#include <optional>
#include <string>
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
  int warmup             = 10;   // untimed launches of each side first (at least 1: it loads the kernels)
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

// Energy per GEMM (--energy): after the paired timing, one side alone. ~0.2 s of launches first (clocks
// settle), then NVML's total-energy counter is read, the stream is kept full for `seconds` (launches
// enqueued in batches, never more than ~50 ms of work ahead, polled with cudaEventQuery; no NVML read in the
// window), the GPU drained, and the counter read again. The reads stay out of the timed rounds: a read can
// take milliseconds, long enough for the GPU to run dry between rounds. The counter refreshes every
// ~10-100 ms, so each end of the window may miss up to that much: a window of >= 1 s keeps it to a few %.
// It counts the whole board (HBM, regulators), not the die.
struct EnergyPerGemm {
  double joules = 0;  // per GEMM
  double watts  = 0;  // average over the window
};
struct EnergyWindow {
  long launches    = 0;                    // in the window
  double window_ms = 0;                    // CUDA events around the window
  std::optional<double> start_mj, end_mj;  // the counter's two reads
  std::optional<EnergyPerGemm> per_gemm;   // empty: `why_not` says why
  std::string why_not;
};
EnergyWindow measure_energy(const std::vector<Launch>& launches, double seconds);
// The arithmetic of a window (no GPU: tests/test_energy.cpp): joules per GEMM = (end - start) mJ / 1000 /
// launches, watts = (end - start) mJ / window ms. Empty, with `why` set, where a read is missing, the counter
// went backwards (the driver reloaded) or did not move, or there were no launches or no time.
std::optional<EnergyPerGemm> energy_per_gemm(std::optional<double> start_mj, std::optional<double> end_mj,
                                             long launches, double window_ms, std::string& why);

// Writes one line per round (side, round, end time, median launch ms, clock, power) to `path` as CSV, for
// plots of a throttling GPU (--rounds-log). Returns false if the file cannot be written.
bool write_rounds_csv(const char* path, const char* label, const PairedTiming& t, bool append);

}  // namespace gemm
