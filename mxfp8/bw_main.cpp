// bw_main.cpp: the `bw` part of the matmul_mxfp8 binary (Hopper only): blockwise FP8 (A 1x128, B 128x128
// fp32 scales), quantized on the GPU (mxfp8/bw_quant.cu) from random normal bf16 with outlier rows, multiplied
// by mxfp8/matmul_bw_sm90.cu, verified and timed in the same process.
//
// Verified against the exact product: the operands dequantized into fp64 (e4m3 x fp32 is exact there) and
// multiplied by cuBLASLt in fp64; the bound is bw_tolerance_eps(K) * sum |a||b| (mxfp8/bw_gemm_host.h).
// cuBLASLt's own blockwise FP8 GEMM, on the same bytes and scales, is checked against the same reference
// where it takes the shape. Timed pairings, each kernel launch against one cuBLAS GEMM in alternating rounds
// (common/timing.h): cuBLASLt blockwise FP8 -> bf16 (like for like: same bytes, same scales, same output
// type), cuBLAS bf16 -> bf16 on the unquantized inputs (what blockwise FP8 replaces), cuBLASLt e4m3 per-tensor
// -> bf16 on the same e4m3 bytes (the fp8 ceiling).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/gpu.h"
#include "common/options.h"
#include "common/report.h"
#include "common/timing.h"
#include "mxfp8/bw_gemm_host.h"
#include "mxfp8/bw_quant_gpu.h"
#include "mxfp8/matmul_bw.h"
#include "mxfp8/mx_gemm_host.h"

namespace gemm {

namespace {
constexpr int OUTLIER_EVERY   = 97;      // as the MX inputs: about 1 row in 97 of A and of B is an outlier row
constexpr float OUTLIER_SCALE = 256.0f;

struct BwSet {
  void *a8, *b8;        // e4m3 data
  float *sfa, *sfb;     // 1x128 and 128x128 fp32 scales
  void *a16, *b16;      // the bf16 inputs before quantization (the bf16 pairing multiplies them)
  void *c_kernel, *c_lt, *c16;  // bf16 outputs: the kernel, cuBLASLt blockwise, the other cuBLAS GEMMs
};
}  // namespace

int run_bw_binary(const Options& opt_in, const GpuInfo& gpu, bool trace_this) {
  const char* prog = "matmul_mxfp8 (bw)";
  Options opt      = opt_in;
  const int64_t m = opt.m, n = opt.n, k = opt.k;
  std::printf(
      "%s: C[%lld,%lld] bf16 = A[%lld,%lld] * B[%lld,%lld]^T, blockwise FP8 (e4m3; fp32 scales: A per 1x128, B "
      "per 128x128) | seed %llu (replay with --seed %llu)\n",
      prog, (long long)m, (long long)n, (long long)m, (long long)k, (long long)n, (long long)k,
      (unsigned long long)opt.seed, (unsigned long long)opt.seed);
  const std::vector<BwVariant> variants = bw_sm90_variants();
  const BwVariant& v                     = variants.front();
  std::printf("kernel %s: %s\n", v.name, v.kernel);

  const uint64_t a8_bytes = uint64_t(m) * k, b8_bytes = uint64_t(n) * k;
  const uint64_t sfa_bytes = bw_scale_tensor_bytes(BwGranularity::Row1x128, m, k);
  const uint64_t sfb_bytes = bw_scale_tensor_bytes(BwGranularity::Block128x128, n, k);
  const uint64_t c16_bytes = uint64_t(m) * n * 2;
  const uint64_t set_bytes = a8_bytes + b8_bytes + sfa_bytes + sfb_bytes + 2 * (a8_bytes + b8_bytes) + 3 * c16_bytes;
  int copies = 1;
  if (opt.iters > 0) copies = int(std::clamp<uint64_t>((2 * gpu.l2_bytes + set_bytes - 1) / set_bytes + 1, 2, 32));
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Check-only: the fp64 operands and their magnitudes, the fp64 reference and sum |a||b|; cuBLAS workspaces.
  const uint64_t extra = opt.check ? 16 * (a8_bytes + b8_bytes) + 16 * uint64_t(m) * n + (256ull << 20) : (256ull << 20);
  while (copies > 1 && copies * set_bytes + extra > free_bytes) --copies;
  if (set_bytes + extra > free_bytes) {
    std::fprintf(stderr, "%s: the problem needs %.1f GB of GPU memory; %.1f GB are free\n", prog,
                 double(set_bytes + extra) / 1e9, double(free_bytes) / 1e9);
    return EXIT_FAIL;
  }

  std::vector<BwSet> sets(static_cast<size_t>(copies));
  int64_t outliers_a = 0, outliers_b = 0;
  for (int i = 0; i < copies; ++i) {
    BwSet& s = sets[size_t(i)];
    CUDA_CHECK(cudaMalloc(&s.a8, a8_bytes));
    CUDA_CHECK(cudaMalloc(&s.b8, b8_bytes));
    CUDA_CHECK(cudaMalloc(&s.sfa, sfa_bytes));
    CUDA_CHECK(cudaMalloc(&s.sfb, sfb_bytes));
    CUDA_CHECK(cudaMalloc(&s.a16, 2 * a8_bytes));
    CUDA_CHECK(cudaMalloc(&s.b16, 2 * b8_bytes));
    CUDA_CHECK(cudaMalloc(&s.c_kernel, c16_bytes));
    CUDA_CHECK(cudaMalloc(&s.c_lt, c16_bytes));
    CUDA_CHECK(cudaMalloc(&s.c16, c16_bytes));
    const uint64_t seed_a = opt.seed * 2 + uint64_t(i) * 1000003, seed_b = seed_a + 1;
    const int64_t oa = fill_random_normal_bf16(s.a16, m, k, seed_a, OUTLIER_EVERY, OUTLIER_SCALE);
    const int64_t ob = fill_random_normal_bf16(s.b16, n, k, seed_b, OUTLIER_EVERY, OUTLIER_SCALE);
    if (i == 0) outliers_a = oa, outliers_b = ob;
    std::string err = bw_quantize_gpu(s.a16, MxInput::Bf16, m, k, BwGranularity::Row1x128, s.a8, s.sfa, nullptr);
    if (err.empty())
      err = bw_quantize_gpu(s.b16, MxInput::Bf16, n, k, BwGranularity::Block128x128, s.b8, s.sfb, nullptr);
    if (!err.empty()) {
      std::fprintf(stderr, "%s: quantizer: %s\n", prog, err.c_str());
      return EXIT_FAIL;
    }
    for (void* c : {s.c_kernel, s.c_lt, s.c16}) CUDA_CHECK(cudaMemset(c, 0, c16_bytes));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf(
      "inputs: N(0,1) bf16, outlier rows x%.0f: %lld of A's %lld rows, %lld of B's %lld; quantized on the GPU "
      "(A 1x128, B 128x128, fp32 scales amax/448)\n",
      double(OUTLIER_SCALE), (long long)outliers_a, (long long)m, (long long)outliers_b, (long long)n);

  LtBlockwiseGemm lt(m, n, k, sets[0].sfa, sets[0].sfb);
  if (!lt.ok()) std::printf("cuBLASLt blockwise FP8 unavailable at this shape: %s\n", lt.error().c_str());
  std::unique_ptr<LtGemm> bf16, fp8;
  if (opt.iters > 0) {
    bf16 = std::make_unique<LtGemm>(m, n, k, CUDA_R_16BF, CUDA_R_16BF);
    if (k % 16 == 0 && (n * 2) % 16 == 0)
      fp8 = std::make_unique<LtGemm>(m, n, k, CUDA_R_8F_E4M3, CUDA_R_16BF);
    else
      std::printf("timing: no e4m3 per-tensor pairing at this shape (cuBLASLt's FP8 needs N %% 8 == 0 for bf16 D)\n");
  }
  std::vector<Launch> kernel, l_lt, l_bf16, l_fp8;
  for (const BwSet& s : sets) {
    const BwGemmArgs g{s.a8, s.sfa, s.b8, s.sfb, s.c_kernel, m, n, k, a8_bytes, sfa_bytes, b8_bytes, sfb_bytes,
                       c16_bytes};
    const std::string why = bw_sm90_check_args(g);
    if (!why.empty()) {
      std::fprintf(stderr, "%s: %s\n", prog, why.c_str());
      return EXIT_BAD_INPUT;
    }
    kernel.push_back(v.prepare(g));
    if (lt.ok()) l_lt.push_back([&lt, s](cudaStream_t st) { lt.run(s.a8, s.sfa, s.b8, s.sfb, s.c_lt, st); });
    if (bf16) l_bf16.push_back([lt16 = bf16.get(), s](cudaStream_t st) { lt16->run(s.a16, s.b16, s.c16, st); });
    if (fp8) l_fp8.push_back([lt8 = fp8.get(), s](cudaStream_t st) { lt8->run(s.a8, s.b8, s.c16, st); });
  }

  // ---- verification: poisoned outputs against the exact product ----
  std::vector<ReportRow> rows(2);
  rows[0].variant = "cublas";
  rows[0].what    = "cuBLASLt blockwise FP8 (VEC128 x BLK128x128) -> bf16";
  rows[1].variant = v.name;
  rows[1].what    = v.what;
  bool all_pass      = true;
  const size_t count = size_t(m) * size_t(n);
  std::vector<double> ref, bound;
  std::vector<uint16_t> out(count);
  auto check_one = [&](const char* name, const Launch& launch, void* c, ReportRow* row) {
    CUDA_CHECK(cudaMemset(c, 0xFF, c16_bytes));  // NaN: whatever is not written fails
    launch(nullptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out.data(), c, c16_bytes, cudaMemcpyDeviceToHost));
    const BwCheck check = check_bw_output(out.data(), ref.data(), bound.data(), count, k);
    std::printf("check %-6s %s", name, check.summary().c_str());
    if (!check.pass && check.first_bad != SIZE_MAX) {
      const uint32_t bits = uint32_t(out[check.first_bad]) << 16;
      float o;
      std::memcpy(&o, &bits, sizeof o);
      std::printf("  (first bad element: row %zu, col %zu: %.6g vs %.6g)", check.first_bad / size_t(n),
                  check.first_bad % size_t(n), double(o), ref[check.first_bad]);
    }
    std::printf("\n");
    if (row) {
      row->checked         = true;
      row->check.rel_frob  = check.rel_frob;
      row->check.max_abs   = check.max_abs;
      row->check.nonfinite = check.nonfinite;
      row->check.bad       = check.bad;
      row->check.pass      = check.pass;
    }
    return check.pass;
  };
  if (opt.check) {
    const BwSet& s = sets[0];
    double *a64 = nullptr, *b64 = nullptr, *a_abs = nullptr, *b_abs = nullptr, *c64 = nullptr, *s64 = nullptr;
    CUDA_CHECK(cudaMalloc(&a64, 8 * a8_bytes));
    CUDA_CHECK(cudaMalloc(&a_abs, 8 * a8_bytes));
    CUDA_CHECK(cudaMalloc(&b64, 8 * b8_bytes));
    CUDA_CHECK(cudaMalloc(&b_abs, 8 * b8_bytes));
    CUDA_CHECK(cudaMalloc(&c64, 8 * count));
    CUDA_CHECK(cudaMalloc(&s64, 8 * count));
    CUDA_CHECK(cudaMemset(c64, 0xFF, 8 * count));
    CUDA_CHECK(cudaMemset(s64, 0xFF, 8 * count));
    dequantize_bw_to_f64(s.a8, s.sfa, BwGranularity::Row1x128, m, k, a64, a_abs, nullptr);
    dequantize_bw_to_f64(s.b8, s.sfb, BwGranularity::Block128x128, n, k, b64, b_abs, nullptr);
    {
      const LtGemmF64 ref64(m, n, k);
      ref64.run(a64, b64, c64, nullptr);
      ref64.run(a_abs, b_abs, s64, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    ref.resize(count), bound.resize(count);
    CUDA_CHECK(cudaMemcpy(ref.data(), c64, 8 * count, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(bound.data(), s64, 8 * count, cudaMemcpyDeviceToHost));
    for (double* p : {a64, b64, a_abs, b_abs, c64, s64}) CUDA_CHECK(cudaFree(p));
    std::printf("reference: the exact product (operands dequantized into fp64, cuBLASLt fp64 GEMM)\n");
    all_pass = check_one(v.name, kernel[0], s.c_kernel, &rows[1]) && all_pass;
    if (lt.ok()) all_pass = check_one("cublas", l_lt[0], s.c_lt, &rows[0]) && all_pass;
  }

  // ---- timing: three pairings ----
  std::vector<double> ratios(3, NAN);
  if (opt.iters > 0) {
    const TimingPlan plan{(opt.iters + opt.round - 1) / opt.round, opt.round, opt.warmup, opt.seconds};
    std::printf(
        "timing: paired rounds (common/timing.h), %d launches per side and round, at least %d rounds and %.1f s "
        "per pairing, %d warm-up launches; inputs rotated through %d copies (%.0f MB, L2 %zu MB)\n",
        plan.launches_per_round, plan.rounds, plan.min_seconds, plan.warmup, copies,
        double(copies * set_bytes) / 1e6, gpu.l2_bytes >> 20);
    auto tflops = [&](double ms) { return ms > 0 ? gemm_tflops(m, n, k, ms) : 0.0; };
    const struct {
      const std::vector<Launch>* ref;
      const char* suffix;
      const char* what;
    } pairings[] = {{&l_lt, "", nullptr},
                    {&l_bf16, "/bf16", "vs cuBLAS bf16->bf16 (what blockwise FP8 replaces)"},
                    {&l_fp8, "/fp8", "vs cuBLASLt e4m3 per-tensor -> bf16"}};
    std::vector<ReportRow> extra;
    for (int p = 0; p < 3; ++p) {
      if (pairings[p].ref->empty()) continue;  // said above
      const PairedTiming t    = time_paired(*pairings[p].ref, kernel, plan);
      const std::string label = std::string(v.name) + pairings[p].suffix;
      if (!opt.rounds_log.empty() &&
          !write_rounds_csv(opt.rounds_log.c_str(), label.c_str(), t, /*append=*/true)) {
        std::fprintf(stderr, "%s: cannot write --rounds-log %s\n", prog, opt.rounds_log.c_str());
        return EXIT_FAIL;
      }
      ReportRow r = rows[1];
      r.variant   = label;
      if (pairings[p].what) r.what = pairings[p].what;
      r.timed            = true;
      r.launch_ms        = t.kernel.launch_ms;
      r.tflops           = tflops(t.kernel.launch_ms.median);
      r.ratio            = t.ratio;
      r.sm_clock_mhz     = t.kernel.sm_clock_mhz;
      r.power_w          = t.kernel.power_w;
      r.ref_tflops       = tflops(t.ref.launch_ms.median);
      r.ref_sm_clock_mhz = t.ref.sm_clock_mhz;
      r.ref_power_w      = t.ref.power_w;
      ratios[size_t(p)]  = t.ratio.median;
      if (p > 0) {
        extra.push_back(r);
        continue;
      }
      rows[1]             = r;
      ReportRow& rr       = rows[0];
      rr.timed            = true;
      rr.launch_ms        = t.ref.launch_ms;
      rr.tflops           = r.ref_tflops;
      rr.ref_tflops       = r.ref_tflops;
      rr.sm_clock_mhz     = t.ref.sm_clock_mhz;
      rr.ref_sm_clock_mhz = t.ref.sm_clock_mhz;
      rr.power_w          = t.ref.power_w;
      rr.ref_power_w      = t.ref.power_w;
      rr.ratio            = summarize({1.0});
    }
    rows.insert(rows.end(), extra.begin(), extra.end());
  }
  if (!lt.ok()) rows.erase(rows.begin());  // no cuBLASLt blockwise row where it refused the shape
  const ReportHeader header{"mxfp8", "sm_90a", m, n, k, opt.seed};
  print_report(header, rows, opt.csv);
  if (opt.iters > 0) {
    auto fmt = [](double r) {
      char b[32] = "n/a";
      if (!std::isnan(r)) std::snprintf(b, sizeof b, "%.3fx", r);
      return std::string(b);
    };
    std::printf(
        "ratios %s (kernel / cuBLAS, per-round medians): vs cuBLASLt blockwise FP8 %s, vs bf16->bf16 %s, vs e4m3 "
        "per-tensor %s\n",
        v.name, fmt(ratios[0]).c_str(), fmt(ratios[1]).c_str(), fmt(ratios[2]).c_str());
  }

  bool trace_ok = true;
  if (trace_this && !opt.trace.empty()) {
    const BwSet& s = sets[0];
    const BwGemmArgs g{s.a8, s.sfa, s.b8, s.sfb, s.c_kernel, m, n, k, a8_bytes, sfa_bytes, b8_bytes, sfb_bytes,
                       c16_bytes};
    DeviceTrace trace;
    const Launch traced = v.prepare_traced(g, trace);
    if (opt.check) all_pass = check_one("bw (traced)", traced, s.c_kernel, nullptr) && all_pass;
    const std::string title = std::string("matmul_mxfp8 ") + v.name + " sm_90a M=" + std::to_string(m) +
                              " N=" + std::to_string(n) + " K=" + std::to_string(k) + " | " + gpu.name;
    const std::string err = save_trace(trace, opt.trace, title, rows.back().timed ? rows[lt.ok() ? 1 : 0].launch_ms.median : 0);
    if (!err.empty()) {
      std::fprintf(stderr, "%s: --trace: %s\n", prog, err.c_str());
      trace_ok = false;
    }
  }

  for (BwSet& s : sets)
    for (void* p : {s.a8, s.b8, static_cast<void*>(s.sfa), static_cast<void*>(s.sfb), s.a16, s.b16, s.c_kernel,
                    s.c_lt, s.c16})
      CUDA_CHECK(cudaFree(p));
  if (!all_pass) {
    std::fprintf(stderr, "%s: verification FAILED (seed %llu)\n", prog, (unsigned long long)opt.seed);
    return EXIT_FAIL;
  }
  return trace_ok ? EXIT_PASS : EXIT_FAIL;
}

}  // namespace gemm
