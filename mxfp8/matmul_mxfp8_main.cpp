// matmul_mxfp8: the MXFP8 stage executable. Random normal bf16 inputs (printed seed, a few outlier rows),
// quantized on the GPU (mxfp8/mx_quant.cu, --rule), multiplied by the kernel that fits the GPU, verified and
// timed against cuBLAS in the same process (common/timing.h).
//
// Reference, in the same process:
//  - Hopper (cuBLASLt has no MX mode there: CUBLAS_STATUS_NOT_SUPPORTED on an H100): cuBLAS bf16 x bf16
//    -> fp32 on the exactly dequantized operands (checked exact: e4m3 * 2^k is a bf16 wherever the exponent
//    fits);
//  - Blackwell (mxfp8/matmul_mxfp8.cu, compiled and model-checked, NOT run on hardware in this project):
//    cuBLASLt's own MXFP8 GEMM (VEC32_UE8M0 scales) on the same e4m3 bytes and scales
//    (mxfp8/mx_lt_ref_sm100.h), where cuBLASLt takes the shape. Its FP8 GEMMs need 16-byte rows of C (N a
//    multiple of 4 for fp32); where it refuses, the run says "reference unavailable at this shape" and
//    verifies against the Hopper reference above instead.
// Timed beside it (only when timing), each in its own pairing with the kernel: cuBLAS bf16 -> bf16 (the GEMM
// MXFP8 replaces) and cuBLASLt e4m3 with per-tensor scales (the fp8 ceiling of the hardware; built only where
// its bf16 rows of D are 16-byte multiples, N a multiple of 8, and skipped with a line saying so elsewhere).
// Exit codes as the stages: 0 PASS, 1 FAIL or CUDA/cuBLAS error, 2 bad option or shape (nothing launched),
// 77 no GPU or no kernel for this GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/compare.h"
#include "common/gpu.h"
#include "common/options.h"
#include "common/report.h"
#include "common/tcgen05_emu.h"
#include "common/timing.h"
#include "mxfp8/bw_gemm_host.h"
#include "mxfp8/matmul_bw.h"
#include "mxfp8/matmul_mxfp8.h"
#include "mxfp8/matmul_mxfp8_sm100.h"
#include "mxfp8/mx_gemm_host.h"
#include "mxfp8/mx_lt_ref_sm100.h"
#include "mxfp8/mx_options.h"
#include "mxfp8/mx_quant_gpu.h"

using namespace gemm;

namespace {

constexpr int OUTLIER_EVERY   = 97;      // about 1 row in 97 of A and of B is an outlier row
constexpr float OUTLIER_SCALE = 256.0f;  // 2^8 larger: its blocks get scales 8 binades above the rest

// "" where cuBLASLt's FP8 GEMMs can take a TN problem with N columns of C (D) of `d_bytes` each and K e4m3
// bytes per row of A and B; else why not. The cuBLAS documentation (cublasLtMatmul, FP8 requirements, and
// "Tensor Core Usage") asks for every leading dimension and the row count of D, in bytes, to be a multiple of
// 16 (here: K, and N * d_bytes), and 16-byte aligned pointers (cudaMalloc gives 256). Measured on an H100
// (cuBLASLt 13.1, 2026-11-24), TN e4m3 with per-tensor scales: the heuristic answers NOT_SUPPORTED (status
// 15, on which LtGemm exits) for bf16 D at N = 777, 780 and 4996 and for fp32 D at N = 777, and finds an
// algorithm for bf16 D at N = 520 and 5000 and for fp32 D at N = 780 and 4996: this rule, no more, no less.
std::string lt_fp8_alignment_refusal(int64_t n, int64_t k, int d_bytes) {
  if (k % 16 == 0 && (n * d_bytes) % 16 == 0) return "";
  return "cuBLASLt's FP8 GEMMs need 16-byte rows: a row of D is N=" + std::to_string(n) + " x " +
         std::to_string(d_bytes) + " = " + std::to_string(n * d_bytes) +
         " bytes, a row of A and B K=" + std::to_string(k) + " bytes";
}

uint64_t fresh_seed() {
  std::random_device rd;
  const uint64_t s =
      (uint64_t(rd()) << 32 | rd()) ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return (s & 0x7FFFFFFFFFFFFFFFull) | 1;
}

// The buffers of one input copy.
struct MxSet {
  void *a8, *sfa, *b8, *sfb;  // MXFP8 operands (the fp8 per-tensor GEMM reads the same e4m3 bytes)
  void *a16, *b16;            // exactly dequantized bf16 operands (the cuBLAS references)
  float *c_kernel, *c_ref;    // fp32 outputs
  void* c16;                  // bf16 output of the bf16 and fp8 cuBLAS GEMMs
};

}  // namespace

int main(int argc, char** argv) {
  const char* prog = "matmul_mxfp8";
  MxRule rule      = MxRule::Rceil;
  std::vector<const char*> rest;
  std::string bad = take_rule_option(argc, argv, rule, rest);
  Options opt;
  if (bad.empty()) bad = parse_options(int(rest.size()), rest.data(), opt);
  // mx on both GPUs; mx4 (4 consumer warpgroups) and bw (blockwise FP8, 1x128 x 128x128 fp32 scales:
  // mxfp8/matmul_bw_sm90.cu) on Hopper only; mx-static and mx-hilbert (the Blackwell kernel's tile orders
  // forced) on Blackwell only
  if (bad.empty() && opt.variant != "all" && opt.variant != "mx" && opt.variant != "mx4" && opt.variant != "bw" &&
      opt.variant != "mx-static" && opt.variant != "mx-hilbert")
    bad = "unknown variant '" + opt.variant +
          "' (matmul_mxfp8 has: mx, all; on Hopper also mx4, bw; on Blackwell also mx-static, mx-hilbert)";
  if (bad.empty() && !opt.trace.empty()) bad = check_trace_path(opt.trace);
  if (bad.empty() && opt.energy > 0) bad = "--energy is an option of the bf16 stage binaries (matmul_vN) only";
  if (!bad.empty()) {
    std::fprintf(stderr, "%s: %s\n", prog, bad.c_str());
    return EXIT_BAD_INPUT;
  }
  if (opt.help) {
    std::printf("%s%s", usage(prog).c_str(), rule_usage());
    return EXIT_PASS;
  }
  // Shapes are refused before anything touches the GPU: first what every MXFP8 kernel needs (dimensions >= 1,
  // K a multiple of 32: the whole rule of both MX kernels), then, once the GPU is known, the Hopper kernel's
  // own check (nothing is launched before either).
  const bool bw_only = opt.variant == "bw";  // blockwise FP8: its own shape rule (K % 16), its own flow
  bad = bw_only ? bw_sm90_check_shape(opt.m, opt.n, opt.k) : mxfp8_sm100_check_shape(opt.m, opt.n, opt.k);
  if (!bad.empty()) {
    std::fprintf(stderr, "%s: %s\n", prog, bad.c_str());
    return EXIT_BAD_INPUT;
  }

  GpuInfo gpu;
  Arch arch              = Arch::Sm90;
  const std::string none = detect_gpu(gpu, arch);
  if (!none.empty()) {
    std::fprintf(stderr, "%s: %s\n", prog, none.c_str());
    return EXIT_NO_GPU_HERE;
  }
  const bool blackwell = arch == Arch::Sm100;
  if (bw_only) {
    if (blackwell || opt.emulate) {
      std::fprintf(stderr,
                   "%s: --variant bw is the Hopper blockwise FP8 kernel; on Blackwell (no 1x128 mode in cuBLASLt "
                   "there) the recipe maps onto MXFP8: --variant mx\n",
                   prog);
      return EXIT_NO_GPU_HERE;
    }
    if (!opt.seed_given) opt.seed = fresh_seed();
    std::printf("%s | driver %s | power limit %d W\n", describe_gpu(gpu).c_str(), nvml::driver().c_str(),
                nvml::power_limit_w());
    return run_bw_binary(opt, gpu, /*trace_this=*/true);
  }
  if (opt.emulate && blackwell) {
    std::fprintf(stderr,
                 "%s: --emulate runs the Blackwell kernel through the tcgen05 emulator on a Hopper GPU; this "
                 "GPU runs it for real: drop --emulate\n",
                 prog);
    return EXIT_NO_GPU_HERE;
  }
  const MxSm100Variant* bw_variant =
      blackwell ? find_mxfp8_sm100_variant(opt.variant == "all" ? "mx" : opt.variant.c_str()) : nullptr;
  // The kernels this run verifies and times: on Hopper every variant for "all", on Blackwell the default.
  struct Chosen {
    const char *name, *what, *kernel;
    Launch (*prepare)(const MxGemmArgs&);
    Launch (*prepare_traced)(const MxGemmArgs&, DeviceTrace&);  // null on Blackwell
  };
  std::vector<Chosen> chosen;
  if (opt.emulate) {  // the Blackwell variants, compiled for sm_90a through the tcgen05 emulator
    for (const MxSm100Variant& v : mxfp8_sm100_emulated_variants())
      if (opt.variant == "all" || opt.variant == v.name)
        chosen.push_back({v.name, v.what, mxfp8_sm100_kernel_name(), v.prepare, nullptr});
    if (chosen.empty()) {
      std::fprintf(stderr, "%s: --emulate runs the Blackwell variants: mx, mx-static, mx-hilbert or all\n", prog);
      return EXIT_BAD_INPUT;
    }
    opt.iters = 0;  // emulation verifies; it never times
  } else if (!blackwell) {
    for (const MxVariant& v : mxfp8_sm90_variants())
      if (opt.variant == "all" || opt.variant == v.name)
        chosen.push_back({v.name, v.what, v.kernel, v.prepare, v.prepare_traced});
    bad = mxfp8_sm90_check_shape(opt.m, opt.n, opt.k);
    if (bad.empty() && chosen.empty())
      bad = "variant '" + opt.variant + "' is the Blackwell kernel's; on Hopper: mx, mx4, bw, all";
    if (!bad.empty()) {
      std::fprintf(stderr, "%s: %s\n", prog, bad.c_str());
      return EXIT_BAD_INPUT;
    }
  } else if (!bw_variant) {
    std::fprintf(stderr, "%s: no Blackwell variant '%s'\n", prog, opt.variant.c_str());
    return EXIT_BAD_INPUT;
  } else {
    chosen.push_back(
        {bw_variant->name, bw_variant->what, mxfp8_sm100_kernel_name(), bw_variant->prepare, nullptr});
  }
  // --trace: one variant of the Hopper kernel, which has the profiler compiled into its TRACE=true instance.
  if (!opt.trace.empty() && (blackwell || chosen.size() != 1)) {
    std::fprintf(stderr, "%s: --trace records one variant of the Hopper kernel: --variant mx, mx4 or bw%s\n",
                 prog, blackwell ? " (the Blackwell MXFP8 kernel has no traced kernel)" : "");
    return EXIT_BAD_INPUT;
  }
  if (!opt.seed_given) opt.seed = fresh_seed();
  const int64_t m = opt.m, n = opt.n, k = opt.k;

  std::printf("%s | driver %s | power limit %d W\n", describe_gpu(gpu).c_str(), nvml::driver().c_str(),
              nvml::power_limit_w());
  std::printf(
      "%s: C[%lld,%lld] fp32 = A[%lld,%lld] * B[%lld,%lld]^T, MXFP8 (e4m3 data, e8m0 scale per 1x32 block, rule "
      "%s) | seed %llu (replay with --seed %llu)\n",
      prog, (long long)m, (long long)n, (long long)m, (long long)k, (long long)n, (long long)k, mx_rule_name(rule),
      (unsigned long long)opt.seed, (unsigned long long)opt.seed);
  for (const Chosen& v : chosen) std::printf("kernel %s: %s\n", v.name, v.kernel);
  if (opt.emulate)
    std::printf(
        "emulated: the sm_100a kernel source compiled for sm_90a, tcgen05 and TMEM emulated "
        "(common/tcgen05_emu.h): verification only, no timing\n");
  if (blackwell)
    std::printf(
        "note: the Blackwell MXFP8 kernel is compiled and model-checked in this series; this project has "
        "not run it on hardware\n");

  // ---- buffers: enough input copies that the set rotated through is well over twice the L2 ----
  const uint64_t a8_bytes = uint64_t(m) * k, b8_bytes = uint64_t(n) * k;
  const uint64_t sfa_bytes = mx_scale_tensor_bytes(m, k), sfb_bytes = mx_scale_tensor_bytes(n, k);
  const uint64_t c32_bytes = uint64_t(m) * n * 4, c16_bytes = uint64_t(m) * n * 2;
  const uint64_t set_bytes =
      a8_bytes + b8_bytes + sfa_bytes + sfb_bytes + 2 * (a8_bytes + b8_bytes) + 2 * c32_bytes + c16_bytes;
  int copies = 1;
  if (opt.iters > 0) copies = int(std::clamp<uint64_t>((2 * gpu.l2_bytes + set_bytes - 1) / set_bytes + 1, 2, 32));
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Check-only buffers: bf16 input staging, |A| and |B| (bf16), sum |a||b| (fp32); and cuBLAS workspaces.
  const uint64_t extra = 2 * std::max(a8_bytes, b8_bytes) + 2 * (a8_bytes + b8_bytes) + c32_bytes + (256ull << 20);
  while (copies > 1 && copies * set_bytes + extra > free_bytes) --copies;
  if (set_bytes + extra > free_bytes) {
    std::fprintf(stderr, "%s: the problem needs %.1f GB of GPU memory; %.1f GB are free\n", prog,
                 double(set_bytes + extra) / 1e9, double(free_bytes) / 1e9);
    return EXIT_FAIL;
  }

  void* staging = nullptr;  // bf16 input of one operand before quantization
  CUDA_CHECK(cudaMalloc(&staging, 2 * std::max(a8_bytes, b8_bytes)));
  void *a_abs = nullptr, *b_abs = nullptr;
  if (opt.check) {
    CUDA_CHECK(cudaMalloc(&a_abs, 2 * a8_bytes));
    CUDA_CHECK(cudaMalloc(&b_abs, 2 * b8_bytes));
  }
  std::vector<MxSet> sets(static_cast<size_t>(copies));
  int64_t outliers_a = 0, outliers_b = 0;
  for (int i = 0; i < copies; ++i) {
    MxSet& s = sets[size_t(i)];
    CUDA_CHECK(cudaMalloc(&s.a8, a8_bytes));
    CUDA_CHECK(cudaMalloc(&s.b8, b8_bytes));
    CUDA_CHECK(cudaMalloc(&s.sfa, sfa_bytes));
    CUDA_CHECK(cudaMalloc(&s.sfb, sfb_bytes));
    CUDA_CHECK(cudaMalloc(&s.a16, 2 * a8_bytes));
    CUDA_CHECK(cudaMalloc(&s.b16, 2 * b8_bytes));
    CUDA_CHECK(cudaMalloc(&s.c_kernel, c32_bytes));
    CUDA_CHECK(cudaMalloc(&s.c_ref, c32_bytes));
    CUDA_CHECK(cudaMalloc(&s.c16, c16_bytes));
    struct Operand {
      int64_t rows;
      void *data, *scales, *deq, *abs;
      int64_t* outliers;
      uint64_t seed;
    } ops[2] = {{m, s.a8, s.sfa, s.a16, i == 0 ? a_abs : nullptr, &outliers_a, opt.seed * 2 + uint64_t(i) * 1000003},
                {n, s.b8, s.sfb, s.b16, i == 0 ? b_abs : nullptr, &outliers_b,
                 opt.seed * 2 + 1 + uint64_t(i) * 1000003}};
    for (const Operand& o : ops) {
      const int64_t outl = fill_random_normal_bf16(staging, o.rows, k, o.seed, OUTLIER_EVERY, OUTLIER_SCALE);
      if (i == 0) *o.outliers = outl;
      const std::string err = mx_quantize_gpu(staging, MxInput::Bf16, o.rows, k, rule, o.data, o.scales, nullptr);
      if (!err.empty()) {
        std::fprintf(stderr, "%s: quantizer: %s\n", prog, err.c_str());
        return EXIT_FAIL;
      }
      const uint64_t inexact = dequantize_mx_to_bf16(o.data, o.scales, o.rows, k, o.deq, o.abs);
      if (inexact != 0) {
        std::fprintf(stderr,
                     "%s: %llu elements of an operand do not dequantize exactly to bf16: the bf16 reference "
                     "would not multiply the kernel's numbers (seed %llu)\n",
                     prog, (unsigned long long)inexact, (unsigned long long)opt.seed);
        return EXIT_FAIL;
      }
    }
    CUDA_CHECK(cudaMemset(s.c_kernel, 0, c32_bytes));
    CUDA_CHECK(cudaMemset(s.c_ref, 0, c32_bytes));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf(
      "inputs: N(0,1) bf16, outlier rows x%.0f: %lld of A's %lld rows, %lld of B's %lld; quantized on the GPU "
      "(rule %s); dequantization to bf16 exact for every element of both operands\n",
      double(OUTLIER_SCALE), (long long)outliers_a, (long long)m, (long long)outliers_b, (long long)n,
      mx_rule_name(rule));

  const LtGemm ref32(m, n, k, CUDA_R_16BF, CUDA_R_32F);  // the reference on Hopper; |A||B| for the bound
  // The reference on Blackwell: cuBLASLt MXFP8 on the kernel's own bytes, where cuBLASLt takes the shape;
  // elsewhere the Hopper reference (a refusal is not an error: the kernel is still verified).
  std::unique_ptr<LtMxfp8Gemm> lt_mx;
  if (blackwell) {
    lt_mx = std::make_unique<LtMxfp8Gemm>(m, n, k, sets[0].sfa, sets[0].sfb);
    if (!lt_mx->ok()) {
      std::printf(
          "reference unavailable at this shape: no cuBLASLt MXFP8 GEMM (%s); verifying against cuBLAS bf16 -> "
          "fp32 on the exactly dequantized operands instead\n",
          lt_mx->error().c_str());
      lt_mx.reset();
    }
  }
  const bool lt_mx_ref = lt_mx != nullptr;
  // The timed pairings, built only when timing: cuBLAS bf16 -> bf16 (the GEMM MXFP8 replaces) and cuBLASLt
  // e4m3 per-tensor -> bf16 (the fp8 ceiling), the latter only where its alignment rule holds.
  std::unique_ptr<LtGemm> bf16, fp8;
  if (opt.iters > 0) {
    bf16 = std::make_unique<LtGemm>(m, n, k, CUDA_R_16BF, CUDA_R_16BF);
    const std::string fp8_refusal = lt_fp8_alignment_refusal(n, k, 2);
    if (fp8_refusal.empty())
      fp8 = std::make_unique<LtGemm>(m, n, k, CUDA_R_8F_E4M3, CUDA_R_16BF);
    else
      std::printf("timing: no e4m3 per-tensor pairing at this shape: %s (N a multiple of 8 for bf16 D)\n",
                  fp8_refusal.c_str());
  }
  std::vector<std::vector<Launch>> mx(chosen.size());  // per variant, one launch per input copy
  std::vector<Launch> l_ref32, l_bf16, l_fp8;
  for (const MxSet& s : sets) {
    const MxGemmArgs g{s.a8, s.sfa, s.b8, s.sfb, s.c_kernel, m, n, k, a8_bytes, sfa_bytes, b8_bytes, sfb_bytes,
                       c32_bytes};
    const std::string why = blackwell      ? mxfp8_sm100_check_args(g)
                            : opt.emulate  ? mxfp8_sm100_emulated_check_args(g)
                                           : mxfp8_sm90_check_args(g);
    if (!why.empty()) {
      std::fprintf(stderr, "%s: %s\n", prog, why.c_str());
      return EXIT_BAD_INPUT;
    }
    // Emulated launches are prepared after tc5emu::enable() (below), which their tensor maps must follow.
    if (!opt.emulate)
      for (size_t v = 0; v < chosen.size(); ++v) mx[v].push_back(chosen[v].prepare(g));
    if (lt_mx_ref)
      l_ref32.push_back(
          [lt = lt_mx.get(), s](cudaStream_t st) { lt->run(s.a8, s.sfa, s.b8, s.sfb, s.c_ref, st); });
    else
      l_ref32.push_back([&ref32, s](cudaStream_t st) { ref32.run(s.a16, s.b16, s.c_ref, st); });
    if (bf16) l_bf16.push_back([lt = bf16.get(), s](cudaStream_t st) { lt->run(s.a16, s.b16, s.c16, st); });
    if (fp8) l_fp8.push_back([lt = fp8.get(), s](cudaStream_t st) { lt->run(s.a8, s.b8, s.c16, st); });
  }

  // ---- verification: poisoned outputs, each kernel against the reference, the bound from sum |a||b| ----
  std::vector<ReportRow> rows(1);  // rows[0]: the reference; then per variant its row and two pairing rows
  rows[0].variant = "cublas";
  rows[0].what    = lt_mx_ref ? "cuBLASLt MXFP8 (VEC32_UE8M0) -> fp32 (reference)"
                              : "cuBLAS bf16->fp32, dequantized (reference)";
  std::vector<size_t> first_row(chosen.size());
  for (size_t v = 0; v < chosen.size(); ++v) {
    first_row[v] = rows.size();
    ReportRow r;
    r.variant = chosen[v].name;
    r.what    = chosen[v].what;
    rows.push_back(r);
  }
  bool all_pass      = true;
  const size_t count = size_t(m) * size_t(n);
  std::vector<float> out, ref, bound;  // the kernel's output, the reference, sum |a||b| (with --check)
  if (opt.check) {
    const MxSet& s = sets[0];
    float* abs_sum = nullptr;
    CUDA_CHECK(cudaMalloc(&abs_sum, c32_bytes));
    CUDA_CHECK(cudaMemset(s.c_ref, 0xFF, c32_bytes));  // NaN: whatever the reference does not write fails too
    CUDA_CHECK(cudaMemset(abs_sum, 0xFF, c32_bytes));
    l_ref32[0](nullptr);  // the reference: cuBLASLt MXFP8 where it exists, else cuBLAS bf16 -> fp32
    ref32.run(a_abs, b_abs, abs_sum, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    out.resize(count), ref.resize(count), bound.resize(count);
    CUDA_CHECK(cudaMemcpy(ref.data(), s.c_ref, c32_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(bound.data(), abs_sum, c32_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(abs_sum));
    if (opt.emulate) {
      std::vector<tc5emu::Schedule> schedules;
      for (const tc5emu::Schedule each :
           {tc5emu::Schedule::Eager, tc5emu::Schedule::Late, tc5emu::Schedule::Strict})
        if (schedule_selected(opt.schedule, tc5emu::schedule_name(each))) schedules.push_back(each);
      const MxGemmArgs g{s.a8, s.sfa,    s.b8,      s.sfb,    s.c_kernel, m,        n,
                         k,    a8_bytes, sfa_bytes, b8_bytes, sfb_bytes,  c32_bytes};
      for (const Chosen& v : chosen)
        for (const tc5emu::Schedule schedule : schedules) {
          const std::string bad_setup = tc5emu::enable(schedule);
          if (!bad_setup.empty()) {
            std::fprintf(stderr, "%s: %s\n", prog, bad_setup.c_str());
            return EXIT_FAIL;
          }
          const Launch launch = v.prepare(g);
          CUDA_CHECK(cudaMemset(s.c_kernel, 0xFF, c32_bytes));
          launch(nullptr);
          CUDA_CHECK(cudaGetLastError());
          CUDA_CHECK(cudaDeviceSynchronize());
          CUDA_CHECK(cudaMemcpy(out.data(), s.c_kernel, c32_bytes, cudaMemcpyDeviceToHost));
          const MxCheck check    = check_mx_output(out.data(), ref.data(), bound.data(), count, k);
          const std::string held = tc5emu::check_all_freed();
          std::printf("check %-10s emulated, %-6s schedule: %s", v.name, tc5emu::schedule_name(schedule),
                      check.summary().c_str());
          if (!check.pass && check.first_bad != SIZE_MAX)
            std::printf("  (first bad element: row %zu, col %zu: %.6g vs %.6g)", check.first_bad / size_t(n),
                        check.first_bad % size_t(n), double(out[check.first_bad]), double(ref[check.first_bad]));
          std::printf("\n");
          if (!held.empty()) std::printf("check %-10s FAIL: %s\n", v.name, held.c_str());
          all_pass = all_pass && check.pass && held.empty();
        }
      std::printf("emulated: %s (verification only; emulation says nothing about speed)\n",
                  all_pass ? "PASS" : "FAIL");
    }
    for (size_t v = 0; v < chosen.size() && !opt.emulate; ++v) {
      CUDA_CHECK(cudaMemset(s.c_kernel, 0xFF, c32_bytes));  // NaN: whatever the kernel does not write fails
      mx[v][0](nullptr);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(out.data(), s.c_kernel, c32_bytes, cudaMemcpyDeviceToHost));
      const MxCheck check = check_mx_output(out.data(), ref.data(), bound.data(), count, k);
      std::printf("check %-4s %s", chosen[v].name, check.summary().c_str());
      if (!check.pass && check.first_bad != SIZE_MAX)
        std::printf("  (first bad element: row %zu, col %zu: %.6g vs %.6g)", check.first_bad / size_t(n),
                    check.first_bad % size_t(n), double(out[check.first_bad]), double(ref[check.first_bad]));
      std::printf("\n");
      ReportRow& r      = rows[first_row[v]];
      r.checked         = true;
      r.check.rel_frob  = check.rel_frob;
      r.check.max_abs   = check.max_abs;
      r.check.nonfinite = check.nonfinite;
      r.check.bad       = check.bad;
      r.check.pass      = check.pass;
      all_pass          = all_pass && check.pass;
    }
  }

  // ---- timing: each kernel in three pairings, one per cuBLAS GEMM (the e4m3 one where it was built) ----
  std::vector<double> ratios[3];
  if (opt.iters > 0) {
    const TimingPlan plan{(opt.iters + opt.round - 1) / opt.round, opt.round, opt.warmup, opt.seconds};
    std::printf(
        "timing: paired rounds (common/timing.h), %d launches per side and round, at least %d rounds and %.1f s "
        "per pairing, %d warm-up launches; inputs rotated through %d copies (%.0f MB, L2 %zu MB); NVML power: "
        "%s\n",
        plan.launches_per_round, plan.rounds, plan.min_seconds, plan.warmup, copies,
        double(copies * set_bytes) / 1e6, gpu.l2_bytes >> 20, nvml::power_source());
    auto tflops = [&](double ms) { return ms > 0 ? gemm_tflops(m, n, k, ms) : 0.0; };
    const struct {
      const std::vector<Launch>* ref;
      const char* suffix;
      const char* what;
    } pairings[] = {{&l_ref32, "", nullptr},
                    {&l_bf16, "/bf16", "vs cuBLAS bf16->bf16 (what MXFP8 replaces)"},
                    {&l_fp8, "/fp8", "vs cuBLASLt e4m3 per-tensor -> bf16"}};
    std::vector<ReportRow> extra;  // the /bf16 and /fp8 rows, after every variant's main row
    for (size_t v = 0; v < chosen.size(); ++v)
      for (int p = 0; p < 3; ++p) {
        if (pairings[p].ref->empty()) {  // no such cuBLAS GEMM at this shape (said above)
          ratios[p].push_back(NAN);
          continue;
        }
        const PairedTiming t    = time_paired(*pairings[p].ref, mx[v], plan);
        const std::string label = std::string(chosen[v].name) + pairings[p].suffix;
        if (!opt.rounds_log.empty() &&
            !write_rounds_csv(opt.rounds_log.c_str(), label.c_str(), t, /*append=*/v > 0 || p > 0)) {
          std::fprintf(stderr, "%s: cannot write --rounds-log %s\n", prog, opt.rounds_log.c_str());
          return EXIT_FAIL;
        }
        ReportRow r = rows[first_row[v]];  // the same kernel in every pairing: the extra rows carry its check
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
        ratios[p].push_back(t.ratio.median);
        if (p > 0) {
          extra.push_back(r);
          continue;
        }
        rows[first_row[v]] = r;
        if (!rows[0].timed) {  // the reference row: cuBLAS's side of the first variant's first pairing
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
      }
    rows.insert(rows.end(), extra.begin(), extra.end());
  }

  const ReportHeader header{"mxfp8", blackwell ? "sm_100a" : "sm_90a", m, n, k, opt.seed};
  if (!opt.emulate) print_report(header, rows, opt.csv);
  for (size_t v = 0; v < chosen.size() && opt.iters > 0; ++v) {
    char fp8_ratio[32] = "n/a";
    if (!std::isnan(ratios[2][v])) std::snprintf(fp8_ratio, sizeof fp8_ratio, "%.3fx", ratios[2][v]);
    std::printf(
        "ratios %s (kernel / cuBLAS, per-round medians): vs %s reference %.3fx, vs bf16->bf16 %.3fx, vs e4m3 "
        "per-tensor %s\n",
        chosen[v].name, lt_mx_ref ? "cuBLASLt MXFP8" : "bf16->fp32", ratios[0][v], ratios[1][v], fp8_ratio);
  }

  // --trace: one launch of the variant's TRACE=true instantiation, after the checked and timed ones, never
  // timed. Its output is checked as well: the profiler must not change the result.
  bool trace_ok = true;
  if (!opt.trace.empty()) {
    const Chosen& v = chosen.front();
    const MxSet& s  = sets[0];
    const MxGemmArgs g{s.a8, s.sfa,    s.b8,      s.sfb,    s.c_kernel, m,        n,
                       k,    a8_bytes, sfa_bytes, b8_bytes, sfb_bytes,  c32_bytes};
    DeviceTrace trace;
    const Launch traced = v.prepare_traced(g, trace);
    CUDA_CHECK(cudaMemset(s.c_kernel, 0xFF, c32_bytes));
    traced(nullptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    if (opt.check) {
      CUDA_CHECK(cudaMemcpy(out.data(), s.c_kernel, c32_bytes, cudaMemcpyDeviceToHost));
      const MxCheck check = check_mx_output(out.data(), ref.data(), bound.data(), count, k);
      std::printf("trace: %s with the profiler compiled in, one launch: %s\n", v.name,
                  check.summary().c_str());
      all_pass = all_pass && check.pass;
    }
    const std::string title = std::string("matmul_mxfp8 ") + v.name + " " + header.arch +
                              " M=" + std::to_string(m) + " N=" + std::to_string(n) +
                              " K=" + std::to_string(k) + " | " + gpu.name;
    const std::string err = save_trace(trace, opt.trace, title, rows[1].timed ? rows[1].launch_ms.median : 0);
    if (!err.empty()) {
      std::fprintf(stderr, "%s: --trace: %s\n", prog, err.c_str());
      trace_ok = false;
    }
  }

  for (MxSet& s : sets)
    for (void* p : {s.a8, s.sfa, s.b8, s.sfb, s.a16, s.b16, static_cast<void*>(s.c_kernel),
                    static_cast<void*>(s.c_ref), s.c16})
      CUDA_CHECK(cudaFree(p));
  CUDA_CHECK(cudaFree(staging));
  if (a_abs) CUDA_CHECK(cudaFree(a_abs));
  if (b_abs) CUDA_CHECK(cudaFree(b_abs));
  // --variant all on Hopper: the blockwise FP8 kernel too, in its own report (same seed)
  int bw_rc = EXIT_PASS;
  if (opt.variant == "all" && !blackwell && !opt.emulate) bw_rc = run_bw_binary(opt, gpu, /*trace_this=*/false);
  if (!all_pass) {
    std::fprintf(stderr, "%s: verification FAILED (seed %llu)\n", prog, (unsigned long long)opt.seed);
    return EXIT_FAIL;
  }
  if (!trace_ok) return EXIT_FAIL;
  return bw_rc;
}
