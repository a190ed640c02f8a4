// The limit of a shape (common/limit.h) and how the report prints it (common/report.h): the per-clock rates
// against the datasheets, the arithmetic and its units, which bound binds, the RESULT| fields and the line.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "common/limit.h"
#include "common/report.h"

using gemm::gemm_bytes_bf16;
using gemm::gemm_limit;
using gemm::Limit;
using gemm::LimitModel;
using gemm::percent_of_limit;

namespace {

constexpr LimitModel H100{4096, 132, 3000};  // an H100 SXM with a 3000 GB/s copy bandwidth

// The key=value pairs of a RESULT|-style string ("a=1|b=2|").
std::map<std::string, std::string> fields(const std::string& s) {
  std::map<std::string, std::string> out;
  for (size_t at = 0; at < s.size();) {
    const size_t end     = std::min(s.find('|', at), s.size());
    const std::string kv = s.substr(at, end - at);
    const size_t eq      = kv.find('=');
    if (eq != std::string::npos) out[kv.substr(0, eq)] = kv.substr(eq + 1);
    at = end + 1;
  }
  return out;
}

gemm::Spread at(double median) {
  gemm::Spread s;
  s.median = s.min = s.max = median;
  s.count                  = 1;
  return s;
}

}  // namespace

TEST_CASE("limit: the per-clock tensor rates reproduce the datasheets' dense bf16 peaks") {
  // H100 SXM: 989.4 TFLOPS at 1830 MHz on 132 SMs
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(9, 0) == 4096);
  CHECK(gemm::tensor_tflops(LimitModel{4096, 132, 0}, 1830) == Approx(989.4).epsilon(1e-4));
  // B200: 2.25 PFLOPS dense on 148 SMs at its 1.856 GHz tensor clock (HGX B200 datasheet)
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(10, 0) == 8192);
  CHECK(gemm::tensor_tflops(LimitModel{8192, 148, 0}, 1856) == Approx(2250).epsilon(1e-3));
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(10, 3) == 8192);  // B300: taken as B200's
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(8, 0) == 0);      // no rate known: no limit
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(12, 0) == 0);
}

TEST_CASE("limit: the arithmetic and its units (ms, GB/s, MHz)") {
  // 4096^3: A, B and C of 32 MiB each
  CHECK(gemm_bytes_bf16(4096, 4096, 4096) == 3.0 * 2 * 4096 * 4096);
  const Limit l = gemm_limit(H100, 4096, 4096, 4096, 1830);
  CHECK(l.compute_ms == Approx(2.0 * 4096 * 4096 * 4096 / 989.4e12 * 1e3).epsilon(1e-4));  // 0.1389 ms
  CHECK(l.memory_ms == Approx(100663296.0 / 3000e9 * 1e3).epsilon(1e-12));                 // 0.0336 ms
  CHECK(l.ms() == l.compute_ms);
  CHECK(l.clock_mhz == 1830);
  // cuBLAS-class 4096^3 on an H100 (0.18 ms) at 1830 MHz: 77% of the limit
  CHECK(percent_of_limit(l, 0.18) == Approx(100 * 0.138913 / 0.18).epsilon(1e-4));
  CHECK(percent_of_limit(l, l.ms()) == Approx(100));
  // the clock moves the compute time only, inversely; the bandwidth the memory time only
  const Limit slow = gemm_limit(H100, 4096, 4096, 4096, 915);
  CHECK(slow.compute_ms == Approx(2 * l.compute_ms));
  CHECK(slow.memory_ms == l.memory_ms);
  const Limit faster_hbm = gemm_limit(LimitModel{4096, 132, 6000}, 4096, 4096, 4096, 1830);
  CHECK(faster_hbm.memory_ms == Approx(l.memory_ms / 2));
  CHECK(faster_hbm.compute_ms == l.compute_ms);
  // no overflow: 65536^3 is 5.6e14 FLOPs and 25.8 GB
  const Limit big = gemm_limit(H100, 65536, 65536, 65536, 1980);
  CHECK(big.compute_ms == Approx(2.0 * 65536.0 * 65536.0 * 65536.0 / (4096.0 * 132 * 1980e6) * 1e3));
  CHECK(big.memory_ms == Approx(3.0 * 2 * 65536.0 * 65536.0 / 3000e9 * 1e3));
}

TEST_CASE("limit: a cube is compute-bound, a decode shape memory-bound") {
  const Limit cube = gemm_limit(H100, 8192, 8192, 8192, 1755);
  CHECK_FALSE(cube.memory_bound());
  CHECK(std::string(cube.bound()) == "compute");
  // decode, 1 token through Llama 3 70B's FFN down projection: B is 8192 x 28672 bf16, 470 MB
  const Limit decode = gemm_limit(H100, 1, 8192, 28672, 1980);
  CHECK(decode.memory_bound());
  CHECK(std::string(decode.bound()) == "memory");
  CHECK(gemm_bytes_bf16(1, 8192, 28672) == 2.0 * (28672 + 8192.0 * 28672 + 8192));  // 469,835,776 B
  CHECK(decode.memory_ms == Approx(469835776.0 / 3000e9 * 1e3));                    // 0.1566 ms
  CHECK(decode.compute_ms < decode.memory_ms / 300);
  // a kernel at 2.85 TB/s on it: 95% of the limit
  CHECK(percent_of_limit(decode, 469835776.0 / 2850e9 * 1e3) == Approx(95.0));
  // the ridge: FLOPs per byte of this layer ~ M, against 1070 TFLOPS / 3 TB/s = 357 FLOP/B at 1980 MHz
  CHECK(gemm_limit(H100, 256, 8192, 28672, 1980).memory_bound());
  CHECK_FALSE(gemm_limit(H100, 512, 8192, 28672, 1980).memory_bound());
  // short K at large M and N: C dominates the bytes, FLOPs per byte ~ K, so the same ridge falls near K = 357
  CHECK(gemm_limit(H100, 8192, 8192, 256, 1980).memory_bound());
  CHECK_FALSE(gemm_limit(H100, 8192, 8192, 512, 1980).memory_bound());
}

TEST_CASE("limit: unknown where the GPU's rate or the bandwidth is") {
  CHECK(H100.known());
  CHECK_FALSE(LimitModel{0, 132, 3000}.known());
  CHECK_FALSE(LimitModel{4096, 132, 0}.known());
  CHECK(percent_of_limit(Limit{}, 1.0) == 0);
  CHECK(percent_of_limit(gemm_limit(H100, 64, 64, 64, 1980), 0) == 0);
}

TEST_CASE("limit: the report's RESULT| fields and line") {
  gemm::ReportHeader h;
  h.stage            = "v8";
  h.arch             = "sm_90a";
  h.m                = 1;
  h.n                = 8192;
  h.k                = 28672;
  h.limit            = H100;
  h.max_sm_clock_mhz = 1980;
  gemm::ReportRow r;
  r.variant           = "v8d";
  r.timed             = true;
  const double limit  = 469835776.0 / 3000e9 * 1e3;
  r.launch_ms         = at(limit / 0.9);  // 90% of the limit
  r.sm_clock_mhz      = at(1980);
  r.ref_ms            = limit / 0.8;  // cuBLAS's first pick: 80%
  r.ref_sm_clock_mhz  = at(1980);
  r.has_best          = true;
  r.best_ms           = limit / 0.85;  // at its best: 85%
  r.best_sm_clock_mhz = at(1980);

  auto f = fields(gemm::limit_fields(h, r));
  CHECK(f["hbm_gbps"] == "3000.0");
  CHECK(std::stod(f["limit_ms"]) == Approx(limit).epsilon(1e-5));
  CHECK(f["limit_bound"] == "memory");
  CHECK(f["limit_clock_mhz"] == "1980");
  CHECK(std::stod(f["limit_memory_ms"]) == Approx(limit).epsilon(1e-5));
  CHECK(std::stod(f["limit_compute_ms"]) < 1e-3);
  CHECK(f["pct_limit"] == "90.00");
  CHECK(f["cublas_pct_limit"] == "80.00");
  CHECK(f["cublas_best_pct_limit"] == "85.00");
  CHECK(std::stod(f["cublas_best_limit_ms"]) == Approx(limit).epsilon(1e-5));

  const std::string line = gemm::limit_line(h, r);
  INFO(line);
  CHECK(line.rfind("v8d      90.0% of its limit, 156.6 us (memory-bound", 0) == 0);
  CHECK(line.find("| cuBLAS 80.0% of 156.6 us | cuBLAS at its best 85.0% of 156.6 us") != std::string::npos);
  CHECK(gemm::limit_legend(h).find("4096 FLOP/clk/SM x 132 SMs") != std::string::npos);
  CHECK(gemm::limit_legend(h).find("469.8 MB at the measured 3000 GB/s") != std::string::npos);

  // without --cublas-best: no best fields; where NVML read no clock: the GPU's max clock
  r.has_best     = false;
  r.sm_clock_mhz = at(0);
  f              = fields(gemm::limit_fields(h, r));
  CHECK(f.count("cublas_best_pct_limit") == 0);
  CHECK(f["limit_clock_mhz"] == "1980");
  // a compute-bound shape takes each side's own clock
  h.m = h.n = h.k    = 8192;
  r.launch_ms        = at(1.6);
  r.sm_clock_mhz     = at(1500);
  r.ref_ms           = 1.6;
  r.ref_sm_clock_mhz = at(1400);
  f                  = fields(gemm::limit_fields(h, r));
  CHECK(f["limit_bound"] == "compute");
  CHECK(std::stod(f["limit_ms"]) ==
        Approx(2.0 * 8192 * 8192 * 8192 / (4096.0 * 132 * 1500e6) * 1e3).epsilon(1e-5));
  CHECK(std::stod(f["cublas_limit_ms"]) ==
        Approx(2.0 * 8192 * 8192 * 8192 / (4096.0 * 132 * 1400e6) * 1e3).epsilon(1e-5));
  // an unknown limit or an untimed row: nothing
  r.timed = false;
  CHECK(gemm::limit_fields(h, r).empty());
  CHECK(gemm::limit_line(h, r).empty());
  r.timed = true;
  h.limit = LimitModel{};
  CHECK(gemm::limit_fields(h, r).empty());
}
