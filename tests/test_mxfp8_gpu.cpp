// GPU test of the Hopper MXFP8 GEMM (mxfp8/matmul_mxfp8_sm90.cu):
//  - exact inputs (e4m3 values and block scales chosen so that every sum is exact in fp32): the kernel's
//    output equals the dequantized product, computed in double on the CPU, bit for bit. Any scale applied to
//    the wrong row, column or block, or any block lost or counted twice, changes it.
//  - random normal inputs with outlier rows, quantized on the GPU under both rules, at several shapes: within
//    the derived element-wise bound of the cuBLAS bf16 -> fp32 reference on the exactly dequantized operands.
// Ragged shapes (M, N not multiples of the tile, a short last K tile, odd N) in both. Outputs are poisoned
// (NaN) before each run, with a poisoned guard band after C that must stay untouched (an unclipped store at
// the edge lands there). Skipped (GEMM_SKIP_CODE) without an sm_90 GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/check.h"
#include "common/gpu.h"
#include "gpu_test_main.h"
#include "common/mx_scale_layout.h"
#include "mxfp8/matmul_mxfp8.h"
#include "mxfp8/mx_gemm_host.h"
#include "mxfp8/mx_quant_gpu.h"

using namespace gemm;

namespace {

constexpr size_t GUARD = 4096;  // fp32 after C, poisoned: must be untouched

struct DeviceMx {
  void *a = nullptr, *sfa = nullptr, *b = nullptr, *sfb = nullptr;
  float* c = nullptr;
  MxGemmArgs args{};
  DeviceMx(int64_t m, int64_t n, int64_t k) {
    args = MxGemmArgs{nullptr, nullptr, nullptr, nullptr, nullptr, m, n, k, uint64_t(m * k),
                      mx_scale_tensor_bytes(m, k), uint64_t(n * k), mx_scale_tensor_bytes(n, k), uint64_t(m * n * 4)};
    CUDA_CHECK(cudaMalloc(&a, args.a_bytes));
    CUDA_CHECK(cudaMalloc(&b, args.b_bytes));
    CUDA_CHECK(cudaMalloc(&sfa, args.sfa_bytes));
    CUDA_CHECK(cudaMalloc(&sfb, args.sfb_bytes));
    CUDA_CHECK(cudaMalloc(&c, args.c_bytes + GUARD * 4));
    args.a = a, args.b = b, args.sfa = sfa, args.sfb = sfb, args.c = c;
  }
  ~DeviceMx() {
    cudaFree(a), cudaFree(b), cudaFree(sfa), cudaFree(sfb), cudaFree(c);
  }
  std::vector<float> run(const MxVariant& v) const {  // one launch on a poisoned output
    REQUIRE(mxfp8_sm90_check_args(args).empty());
    CUDA_CHECK(cudaMemset(c, 0xFF, args.c_bytes + GUARD * 4));
    v.prepare(args)(nullptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> out(size_t(args.m * args.n));
    CUDA_CHECK(cudaMemcpy(out.data(), c, args.c_bytes, cudaMemcpyDeviceToHost));
    std::vector<uint32_t> guard(GUARD);
    CUDA_CHECK(cudaMemcpy(guard.data(), c + args.m * args.n, GUARD * 4, cudaMemcpyDeviceToHost));
    size_t guard_written = 0;
    for (uint32_t g : guard) guard_written += g != 0xFFFFFFFFu;
    CHECK(guard_written == 0);
    return out;
  }
};

}  // namespace

TEST_CASE("mxfp8 sm_90a: exact inputs give the dequantized product bit for bit", "[gpu][mxfp8]") {
  const uint8_t values[] = {0x00, 0x30, 0xB0, 0x38, 0xB8, 0x3C, 0xBC, 0x40, 0xC0};  // 0, +-0.5, +-1, +-1.5, +-2
  struct Shape {
    int64_t m, n, k;
  };
  // 2048 x 1152: 72 pairs of 128 x 128 tiles, more than the 66 clusters an H100 holds, so some CTAs run two
  // tiles, with the ring's stages and phases carried from one to the next (4 K tiles each: 8 stages of 6).
  // Ragged: 300 x 520 x 544 (3 M tiles: a padding tile; the last N tile's second half of B wholly outside;
  // a last K tile of one MX block), 129 x 777 x 96 (odd N, stored one float at a time; K below one K tile),
  // 1 x 1 x 32.
  for (const Shape s : {Shape{256, 128, 128}, Shape{256, 256, 1024}, Shape{512, 384, 512}, Shape{2048, 1152, 512},
                        Shape{300, 520, 544}, Shape{129, 777, 96}, Shape{1, 1, 32}}) {
    CAPTURE(s.m, s.n, s.k, test_seed());
    std::mt19937_64 gen(test_seed() ^ uint64_t(s.m * 31 + s.n * 7 + s.k));
    const int cols = int(s.k / 32);
    auto make = [&](int64_t rows, std::vector<uint8_t>& data, std::vector<uint8_t>& scales,
                    std::vector<uint8_t>& scale_grid) {
      data.resize(size_t(rows * s.k));
      for (auto& x : data) x = values[gen() % 9];
      // padding bytes (rows to 128, K blocks to 4) 0xFF, a NaN scale: the kernel must not let them reach C
      scales.assign(mx_scale_tensor_bytes(rows, s.k), 0xFF);
      scale_grid.resize(size_t(rows * cols));
      for (int64_t r = 0; r < rows; ++r)
        for (int j = 0; j < cols; ++j) {
          // 2^-2 .. 2^2 per block: every product a multiple of 2^-6, every sum below 2^17 (K <= 1024)
          const uint8_t e = uint8_t(125 + gen() % 5);
          scale_grid[size_t(r * cols + j)]         = e;
          scales[mx_scale_offset(int(r), j, cols)] = e;
        }
    };
    std::vector<uint8_t> a, sfa, ga, b, sfb, gb;
    make(s.m, a, sfa, ga);
    make(s.n, b, sfb, gb);
    DeviceMx d(s.m, s.n, s.k);
    CUDA_CHECK(cudaMemcpy(d.a, a.data(), a.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.b, b.data(), b.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.sfa, sfa.data(), sfa.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.sfb, sfb.data(), sfb.size(), cudaMemcpyHostToDevice));
    std::vector<double> deq_a(a.size()), deq_b(b.size()), want(size_t(s.m * s.n));
    for (size_t i = 0; i < a.size(); ++i) deq_a[i] = mx_dequantize(a[i], ga[i / 32]);
    for (size_t i = 0; i < b.size(); ++i) deq_b[i] = mx_dequantize(b[i], gb[i / 32]);
    for (int64_t r = 0; r < s.m; ++r)
      for (int64_t c = 0; c < s.n; ++c) {
        double sum = 0;
        for (int64_t i = 0; i < s.k; ++i) sum += deq_a[size_t(r * s.k + i)] * deq_b[size_t(c * s.k + i)];
        REQUIRE(double(float(sum)) == sum);  // exact in fp32: the premise of this test
        want[size_t(r * s.n + c)] = sum;
      }
    for (const MxVariant& v : mxfp8_sm90_variants()) {
      CAPTURE(v.name);
      const std::vector<float> out = d.run(v);
      size_t mismatches = 0, first = SIZE_MAX;
      for (size_t i = 0; i < out.size(); ++i)
        if (double(out[i]) != want[i]) {
          if (first == SIZE_MAX) first = i;
          ++mismatches;
        }
      CAPTURE(first);
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("mxfp8 sm_90a: random normal inputs with outlier rows, both rules, within the derived bound",
          "[gpu][mxfp8]") {
  struct Case {
    int64_t m, n, k;
    MxRule rule;
  };
  // 2048 x 2176: 136 pairs of tiles, up to 3 per cluster on an H100 (the persistent loop's later turns)
  for (const Case t : {Case{256, 128, 128, MxRule::Rceil}, Case{512, 384, 1024, MxRule::Floor},
                       Case{1024, 768, 2048, MxRule::Rceil}, Case{768, 256, 4096, MxRule::Floor},
                       Case{2048, 2176, 384, MxRule::Rceil}, Case{300, 520, 544, MxRule::Floor},
                       Case{1000, 777, 1056, MxRule::Rceil}}) {
    CAPTURE(t.m, t.n, t.k, mx_rule_name(t.rule), test_seed());
    DeviceMx d(t.m, t.n, t.k);
    void *staging = nullptr, *a16 = nullptr, *b16 = nullptr, *a_abs = nullptr, *b_abs = nullptr;
    float *ref = nullptr, *abs_sum = nullptr;
    CUDA_CHECK(cudaMalloc(&staging, size_t(std::max(t.m, t.n) * t.k * 2)));
    CUDA_CHECK(cudaMalloc(&a16, size_t(t.m * t.k * 2)));
    CUDA_CHECK(cudaMalloc(&a_abs, size_t(t.m * t.k * 2)));
    CUDA_CHECK(cudaMalloc(&b16, size_t(t.n * t.k * 2)));
    CUDA_CHECK(cudaMalloc(&b_abs, size_t(t.n * t.k * 2)));
    CUDA_CHECK(cudaMalloc(&ref, size_t(t.m * t.n * 4)));
    CUDA_CHECK(cudaMalloc(&abs_sum, size_t(t.m * t.n * 4)));
    int64_t outliers = 0;
    for (int op = 0; op < 2; ++op) {
      const int64_t rows = op == 0 ? t.m : t.n;
      // 1 row in 13 an outlier (x 2^10), so every shape here has some
      outliers += fill_random_normal_bf16(staging, rows, t.k, test_seed() * 2 + uint64_t(op), 13, 1024.0f);
      REQUIRE(mx_quantize_gpu(staging, MxInput::Bf16, rows, t.k, t.rule, op == 0 ? d.a : d.b,
                              op == 0 ? d.sfa : d.sfb, nullptr)
                  .empty());
      REQUIRE(dequantize_mx_to_bf16(op == 0 ? d.a : d.b, op == 0 ? d.sfa : d.sfb, rows, t.k, op == 0 ? a16 : b16,
                                    op == 0 ? a_abs : b_abs) == 0);
    }
    CHECK(outliers > 0);
    const LtGemm ref32(t.m, t.n, t.k, CUDA_R_16BF, CUDA_R_32F);
    CUDA_CHECK(cudaMemset(ref, 0xFF, size_t(t.m * t.n * 4)));
    ref32.run(a16, b16, ref, nullptr);
    ref32.run(a_abs, b_abs, abs_sum, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> want(size_t(t.m * t.n)), bound(want.size());
    CUDA_CHECK(cudaMemcpy(want.data(), ref, want.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(bound.data(), abs_sum, bound.size() * 4, cudaMemcpyDeviceToHost));
    for (const MxVariant& v : mxfp8_sm90_variants()) {
      CAPTURE(v.name);
      const std::vector<float> out = d.run(v);
      const MxCheck r              = check_mx_output(out.data(), want.data(), bound.data(), out.size(), t.k);
      INFO(r.summary());
      CHECK(r.pass);
      CHECK(r.max_ratio < 0.1);  // measured <= 5e-3 of the bound (docs/performance/mxfp8-checks.md)
      CHECK(r.rel_frob < 1e-3);  // measured ~3e-5 to 5e-5
    }
    for (void* p : {staging, a16, b16, a_abs, b_abs, static_cast<void*>(ref), static_cast<void*>(abs_sum)})
      CUDA_CHECK(cudaFree(p));
  }
}

int main(int argc, char** argv) {
  GpuInfo info;
  Arch arch;
  const int skip = gpu_test_start(argc, argv, info, arch, [](Arch a) -> std::string {
    return a == Arch::Sm90 ? ""
                           : "this test runs the Hopper (sm_90a) MXFP8 kernel; gpu/mxfp8_sm100 runs the "
                             "Blackwell one";
  });
  return skip >= 0 ? skip : Catch::Session().run(argc, argv);
}
