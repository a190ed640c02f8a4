// report.h: what a stage run prints: the table for people, one RESULT| line per row for run_all.sh, and
// optionally CSV.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/timing.h"

namespace gemm {

// One row of the report: a kernel variant (or the cuBLAS reference) with its paired timing and its check.
struct ReportRow {
  std::string variant, what;
  bool timed    = false;
  double tflops = 0, ref_tflops = 0;  // from the median launch of each side of the pairing
  Spread launch_ms, ratio;            // ratio: per-round kernel/reference speed (1 for the reference row)
  Spread sm_clock_mhz, ref_sm_clock_mhz, power_w, ref_power_w;
  bool checked = false;
  CompareResult check;
  // --cublas-best: the same kernel rounds against cuBLAS at its best (the fastest heuristic pick)
  bool has_best      = false;
  double best_tflops = 0;
  Spread ratio_best;
  std::string best_algo;  // which pick it was, and of how many
};

struct ReportHeader {
  std::string stage, arch;  // "v3", "sm_90a"
  int64_t m = 0, n = 0, k = 0;
  uint64_t seed = 0;
};

void print_report(const ReportHeader& h, const std::vector<ReportRow>& rows, bool csv);

}  // namespace gemm
