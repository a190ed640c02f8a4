// report.h: what a stage run prints: the table for people, one RESULT| line per row for run_all.sh, and
// optionally CSV.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/limit.h"
#include "common/timing.h"

namespace gemm {

// One row of the report: a kernel variant (or the cuBLAS reference) with its paired timing and its check.
struct ReportRow {
  std::string variant, what;
  bool timed    = false;
  double tflops = 0, ref_tflops = 0;  // from the median launch of each side of the pairing
  double ref_ms = 0;                  // the reference's median launch in this row's pairing
  Spread launch_ms, ratio;            // ratio: per-round kernel/reference speed (1 for the reference row)
  Spread sm_clock_mhz, ref_sm_clock_mhz, power_w, ref_power_w;
  bool checked = false;
  CompareResult check;
  // --cublas-best: the same kernel rounds against cuBLAS at its best (the fastest heuristic pick)
  bool has_best      = false;
  double best_tflops = 0;
  Spread ratio_best;
  std::string best_algo;  // which pick it was, and of how many
  double best_ms = 0;     // its median launch, and the clock it ran at (for its % of limit)
  Spread best_sm_clock_mhz;
  // --energy: joules per GEMM of the row's kernel, of cuBLAS's first pick and of cuBLAS at its best, each
  // measured alone after the timing (timing.h, measure_energy); empty where not measured
  std::optional<double> joules_per_gemm, cublas_joules_per_gemm, cublas_best_joules_per_gemm;
};

struct ReportHeader {
  std::string stage, arch;  // "v3", "sm_90a"
  int64_t m = 0, n = 0, k = 0;
  uint64_t seed = 0;
  // The limit of the shape (limit.h): printed, with every timed side's % of it, where limit.known(). Each
  // side's compute time is taken at the SM clock NVML read during its rounds, or at max_sm_clock_mhz where
  // NVML read none.
  LimitModel limit;
  int max_sm_clock_mhz = 0;
  bool energy          = false;  // --energy was given: every row gets the energy fields (n/a where empty)
};

// The limit of one side of a row, at the clock it ran at (or the header's max clock where none was read).
Limit side_limit(const ReportHeader& h, double clock_mhz);
// The RESULT| fields of a row's limit (before what=): hbm_gbps, limit_ms, limit_bound, limit_clock_mhz,
// limit_compute_ms, limit_memory_ms, pct_limit (the row's own side), cublas_limit_ms and cublas_pct_limit
// (cuBLAS's first pick in the row's pairing), cublas_best_limit_ms and cublas_best_pct_limit (cuBLAS at its
// best, --cublas-best). Empty where the limit is unknown or the row was not timed.
std::string limit_fields(const ReportHeader& h, const ReportRow& r);
// The RESULT| fields of --energy (before what=, after the limit's): joules_per_gemm, cublas_joules_per_gemm,
// cublas_best_joules_per_gemm, each "n/a" where not measured. Empty where --energy was not given.
std::string energy_fields(const ReportHeader& h, const ReportRow& r);
// The report's line of a row's limit: its time, what binds it, and each side's % of it. Empty as above.
std::string limit_line(const ReportHeader& h, const ReportRow& r);
// The line above those: how the limit is computed, with this GPU's figures.
std::string limit_legend(const ReportHeader& h);

void print_report(const ReportHeader& h, const std::vector<ReportRow>& rows, bool csv);

}  // namespace gemm
