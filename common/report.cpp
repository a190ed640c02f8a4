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
  // One machine-readable line per row, '|'-separated key=value pairs (run_all.sh parses these).
  for (const ReportRow& r : rows) {
    std::printf(
        "RESULT|stage=%s|variant=%s|arch=%s|m=%lld|n=%lld|k=%lld|tflops=%.2f|median_ms=%.5f|min_ms=%.5f|"
        "cublas_tflops=%.2f|ratio=%.4f|ratio_min=%.4f|ratio_max=%.4f|ratio_q1=%.4f|ratio_q3=%.4f|rounds=%d|"
        "sm_clock_mhz=%.0f|sm_clock_min=%.0f|sm_clock_max=%.0f|cublas_sm_clock_mhz=%.0f|"
        "cublas_sm_clock_min=%.0f|cublas_sm_clock_max=%.0f|power_w=%.0f|cublas_power_w=%.0f|"
        "rel_err=%s|max_abs=%s|nonfinite=%s|status=%s|seed=%llu|%swhat=%s\n",
        h.stage.c_str(), r.variant.c_str(), h.arch.c_str(), (long long)h.m, (long long)h.n, (long long)h.k,
        r.tflops, r.launch_ms.median, r.launch_ms.min, r.ref_tflops, r.ratio.median, r.ratio.min, r.ratio.max,
        r.ratio.q1, r.ratio.q3, r.ratio.count, r.sm_clock_mhz.median, r.sm_clock_mhz.min, r.sm_clock_mhz.max,
        r.ref_sm_clock_mhz.median, r.ref_sm_clock_mhz.min, r.ref_sm_clock_mhz.max, r.power_w.median,
        r.ref_power_w.median, r.checked ? fmt("%.3e", r.check.rel_frob).c_str() : "-",
        r.checked ? fmt("%.3e", r.check.max_abs).c_str() : "-",
        r.checked ? std::to_string(r.check.nonfinite).c_str() : "-",
        r.checked ? (r.check.pass ? "PASS" : "FAIL") : (r.variant == "cublas" ? "REF" : "UNCHECKED"),
        (unsigned long long)h.seed, best_fields(r).c_str(), r.what.c_str());
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
