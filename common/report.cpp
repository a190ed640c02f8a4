#include "common/report.h"

#include <cstdio>

namespace gemm {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// --cublas-best: the ratio to cuBLAS at its best, beside the first pick's (RESULT| fields, before what=).
std::string best_fields(const ReportRow& r) {
  if (!r.has_best) return "";
  return "cublas_best_tflops=" + fmt("%.2f", r.best_tflops) +
         "|ratio_best=" + fmt("%.4f", r.ratio_best.median) +
         "|ratio_best_min=" + fmt("%.4f", r.ratio_best.min) +
         "|ratio_best_max=" + fmt("%.4f", r.ratio_best.max) + "|cublas_best=" + r.best_algo + "|";
}

}  // namespace

Limit side_limit(const ReportHeader& h, double clock_mhz) {
  return gemm_limit(h.limit, h.m, h.n, h.k, clock_mhz > 0 ? clock_mhz : double(h.max_sm_clock_mhz));
}

std::string limit_fields(const ReportHeader& h, const ReportRow& r) {
  if (!h.limit.known() || !r.timed) return "";
  const Limit own = side_limit(h, r.sm_clock_mhz.median);
  std::string f   = "hbm_gbps=" + fmt("%.1f", h.limit.hbm_gbps) + "|limit_ms=" + fmt("%.6f", own.ms()) +
                  "|limit_bound=" + own.bound() + "|limit_clock_mhz=" + fmt("%.0f", own.clock_mhz) +
                  "|limit_compute_ms=" + fmt("%.6f", own.compute_ms) +
                  "|limit_memory_ms=" + fmt("%.6f", own.memory_ms) +
                  "|pct_limit=" + fmt("%.2f", percent_of_limit(own, r.launch_ms.median)) + "|";
  if (r.ref_ms > 0) {
    const Limit ref = side_limit(h, r.ref_sm_clock_mhz.median);
    f += "cublas_limit_ms=" + fmt("%.6f", ref.ms()) +
         "|cublas_pct_limit=" + fmt("%.2f", percent_of_limit(ref, r.ref_ms)) + "|";
  }
  if (r.has_best && r.best_ms > 0) {
    const Limit best = side_limit(h, r.best_sm_clock_mhz.median);
    f += "cublas_best_limit_ms=" + fmt("%.6f", best.ms()) +
         "|cublas_best_pct_limit=" + fmt("%.2f", percent_of_limit(best, r.best_ms)) + "|";
  }
  return f;
}

std::string energy_fields(const ReportHeader& h, const ReportRow& r) {
  if (!h.energy) return "";
  auto j = [](const std::optional<double>& v) { return v ? fmt("%.5f", *v) : std::string("n/a"); };
  return "joules_per_gemm=" + j(r.joules_per_gemm) +
         "|cublas_joules_per_gemm=" + j(r.cublas_joules_per_gemm) +
         "|cublas_best_joules_per_gemm=" + j(r.cublas_best_joules_per_gemm) + "|";
}

std::string limit_line(const ReportHeader& h, const ReportRow& r) {
  if (!h.limit.known() || !r.timed) return "";
  const Limit own = side_limit(h, r.sm_clock_mhz.median);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%-7s %5.1f%% of its limit, %.1f us (%s-bound: compute %.1f us at %.0f MHz, memory %.1f us)",
                r.variant.c_str(), percent_of_limit(own, r.launch_ms.median), own.ms() * 1e3, own.bound(),
                own.compute_ms * 1e3, own.clock_mhz, own.memory_ms * 1e3);
  std::string line = buf;
  if (r.ref_ms > 0 && r.variant != "cublas") {
    const Limit ref = side_limit(h, r.ref_sm_clock_mhz.median);
    std::snprintf(buf, sizeof buf, " | cuBLAS %.1f%% of %.1f us", percent_of_limit(ref, r.ref_ms),
                  ref.ms() * 1e3);
    line += buf;
  }
  if (r.has_best && r.best_ms > 0) {
    const Limit best = side_limit(h, r.best_sm_clock_mhz.median);
    std::snprintf(buf, sizeof buf, " | cuBLAS at its best %.1f%% of %.1f us",
                  percent_of_limit(best, r.best_ms), best.ms() * 1e3);
    line += buf;
  }
  return line;
}

std::string limit_legend(const ReportHeader& h) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "limit (common/limit.h): the larger of 2MNK at the tensor rate, %.0f FLOP/clk/SM x %d SMs x the "
      "SM clock (%.1f TFLOPS at %d MHz), and A and B read and C written once, %.1f MB at the measured "
      "%.0f GB/s; %% of limit = limit / median launch time",
      h.limit.flop_per_clk_per_sm, h.limit.sm_count, tensor_tflops(h.limit, h.max_sm_clock_mhz),
      h.max_sm_clock_mhz, gemm_bytes_bf16(h.m, h.n, h.k) / 1e6, h.limit.hbm_gbps);
  return buf;
}

void print_report(const ReportHeader& h, const std::vector<ReportRow>& rows, bool csv) {
  std::printf("%-7s %-44s %8s %8s %7s %15s %13s %11s %9s %s\n", "variant", "what changed", "TFLOPS", "cuBLAS",
              "ratio", "ratio min-max", "SM MHz k/ref", "W k/ref", "rel err", "check");
  for (const ReportRow& r : rows) {
    const std::string ratio  = r.timed ? fmt("%.3fx", r.ratio.median) : "-";
    const std::string spread = r.timed ? fmt("%.3f", r.ratio.min) + "-" + fmt("%.3f", r.ratio.max) : "-";
    const std::string mhz =
        r.timed ? fmt("%.0f", r.sm_clock_mhz.median) + "/" + fmt("%.0f", r.ref_sm_clock_mhz.median) : "-";
    const std::string watts =
        r.timed ? fmt("%.0f", r.power_w.median) + "/" + fmt("%.0f", r.ref_power_w.median) : "-";
    std::printf("%-7s %-44s %8s %8s %7s %15s %13s %11s %9s %s\n", r.variant.c_str(),
                r.what.substr(0, 44).c_str(), r.timed ? fmt("%.1f", r.tflops).c_str() : "-",
                r.timed ? fmt("%.1f", r.ref_tflops).c_str() : "-", ratio.c_str(), spread.c_str(), mhz.c_str(),
                watts.c_str(), r.checked ? fmt("%.2e", r.check.rel_frob).c_str() : "-",
                r.checked ? (r.check.pass ? "PASS" : "FAIL") : "-");
  }
  for (const ReportRow& r : rows)
    if (r.has_best && r.timed)
      std::printf("%-7s against cuBLAS at its best (%s): %.1f TFLOPS, ratio %.3fx (%.3f-%.3f)\n",
                  r.variant.c_str(), r.best_algo.c_str(), r.best_tflops, r.ratio_best.median,
                  r.ratio_best.min, r.ratio_best.max);
  bool any_limit = false;
  for (const ReportRow& r : rows) any_limit = any_limit || !limit_line(h, r).empty();
  if (any_limit) std::printf("%s\n", limit_legend(h).c_str());
  for (const ReportRow& r : rows)
    if (!limit_line(h, r).empty()) std::printf("%s\n", limit_line(h, r).c_str());
  // One machine-readable line per row, '|'-separated key=value pairs (run_all.sh parses these).
  for (const ReportRow& r : rows) {
    std::printf(
        "RESULT|stage=%s|variant=%s|arch=%s|m=%lld|n=%lld|k=%lld|tflops=%.2f|median_ms=%.5f|min_ms=%.5f|"
        "cublas_tflops=%.2f|ratio=%.4f|ratio_min=%.4f|ratio_max=%.4f|ratio_q1=%.4f|ratio_q3=%.4f|rounds=%d|"
        "sm_clock_mhz=%.0f|sm_clock_min=%.0f|sm_clock_max=%.0f|cublas_sm_clock_mhz=%.0f|"
        "cublas_sm_clock_min=%.0f|cublas_sm_clock_max=%.0f|power_w=%.0f|cublas_power_w=%.0f|"
        "rel_err=%s|max_abs=%s|nonfinite=%s|status=%s|seed=%llu|%s%s%swhat=%s\n",
        h.stage.c_str(), r.variant.c_str(), h.arch.c_str(), (long long)h.m, (long long)h.n, (long long)h.k,
        r.tflops, r.launch_ms.median, r.launch_ms.min, r.ref_tflops, r.ratio.median, r.ratio.min, r.ratio.max,
        r.ratio.q1, r.ratio.q3, r.ratio.count, r.sm_clock_mhz.median, r.sm_clock_mhz.min, r.sm_clock_mhz.max,
        r.ref_sm_clock_mhz.median, r.ref_sm_clock_mhz.min, r.ref_sm_clock_mhz.max, r.power_w.median,
        r.ref_power_w.median, r.checked ? fmt("%.3e", r.check.rel_frob).c_str() : "-",
        r.checked ? fmt("%.3e", r.check.max_abs).c_str() : "-",
        r.checked ? std::to_string(r.check.nonfinite).c_str() : "-",
        r.checked ? (r.check.pass ? "PASS" : "FAIL") : (r.variant == "cublas" ? "REF" : "UNCHECKED"),
        (unsigned long long)h.seed, best_fields(r).c_str(), limit_fields(h, r).c_str(),
        energy_fields(h, r).c_str(), r.what.c_str());
  }
  if (csv) {
    std::printf(
        "csv:stage,variant,arch,m,n,k,tflops,cublas_tflops,ratio,ratio_min,ratio_max,sm_clock_mhz,"
        "cublas_sm_clock_mhz,power_w,cublas_power_w,rel_err,status\n");
    for (const ReportRow& r : rows)
      std::printf("csv:%s,%s,%s,%lld,%lld,%lld,%.2f,%.2f,%.4f,%.4f,%.4f,%.0f,%.0f,%.0f,%.0f,%s,%s\n",
                  h.stage.c_str(), r.variant.c_str(), h.arch.c_str(), (long long)h.m, (long long)h.n,
                  (long long)h.k, r.tflops, r.ref_tflops, r.ratio.median, r.ratio.min, r.ratio.max,
                  r.sm_clock_mhz.median, r.ref_sm_clock_mhz.median, r.power_w.median, r.ref_power_w.median,
                  r.checked ? fmt("%.3e", r.check.rel_frob).c_str() : "",
                  r.checked ? (r.check.pass ? "PASS" : "FAIL") : "");
  }
}

}  // namespace gemm
