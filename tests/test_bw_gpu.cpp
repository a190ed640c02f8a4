// GPU test of the blockwise FP8 GEMM (`bw`, mxfp8/matmul_bw_sm90.cu):
//  - exact inputs (e4m3 values in {0, +-0.5, +-1, +-1.5, +-2}, power-of-two scales 2^-2..2^2, K <= 1024: every
//    partial and every sum exact in fp32): the kernel's bf16 output equals the exact product, computed in
//    double on the CPU and rounded once to bf16, bit for bit. A scale on the wrong row, block or K block, a
//    block lost or counted twice, changes it. cuBLASLt's blockwise FP8 GEMM on the same bytes and scales must
//    give the same bits where it takes the shape: that pins our reading of its scale layouts.
//  - random normal inputs with outlier rows, quantized on the GPU (A 1x128, B 128x128): within the derived
//    bound of the exact (fp64) product, as cuBLASLt's blockwise GEMM is.
// Ragged shapes (M, N not multiples of 128, odd N, a short last 128-block of K, K % 128 = 16) in both. The
// output is poisoned (NaN) before each run, with a poisoned guard band after C that must stay untouched.
// Scale padding floats are NaN in the exact test: the kernel must not let them reach C. Skipped
// (GEMM_SKIP_CODE) without an sm_90 GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_bf16.h>

#include "common/check.h"
#include "common/gpu.h"
#include "gpu_test_main.h"
#include "mxfp8/bw_gemm_host.h"
#include "mxfp8/bw_quant_gpu.h"
#include "mxfp8/matmul_bw.h"
#include "mxfp8/mx_gemm_host.h"

using namespace gemm;

namespace {

constexpr size_t GUARD = 4096;  // bf16 after C, poisoned: must be untouched

struct DeviceBw {
  void *a = nullptr, *b = nullptr, *c = nullptr;
  float *sfa = nullptr, *sfb = nullptr;
  BwGemmArgs args{};
  DeviceBw(int64_t m, int64_t n, int64_t k) {
    args = BwGemmArgs{nullptr, nullptr, nullptr, nullptr, nullptr, m, n, k, uint64_t(m * k),
                      bw_scale_tensor_bytes(BwGranularity::Row1x128, m, k), uint64_t(n * k),
                      bw_scale_tensor_bytes(BwGranularity::Block128x128, n, k), uint64_t(m * n * 2)};
    CUDA_CHECK(cudaMalloc(&a, args.a_bytes));
    CUDA_CHECK(cudaMalloc(&b, args.b_bytes));
    CUDA_CHECK(cudaMalloc(&sfa, args.sfa_bytes));
    CUDA_CHECK(cudaMalloc(&sfb, args.sfb_bytes));
    CUDA_CHECK(cudaMalloc(&c, args.c_bytes + GUARD * 2));
    args.a = a, args.b = b, args.sfa = sfa, args.sfb = sfb, args.c = c;
  }
  ~DeviceBw() { cudaFree(a), cudaFree(b), cudaFree(sfa), cudaFree(sfb), cudaFree(c); }
  // One launch of `launch` on a poisoned output and guard band; the output's bf16 bits.
  std::vector<uint16_t> run(const Launch& launch) const {
    CUDA_CHECK(cudaMemset(c, 0xFF, args.c_bytes + GUARD * 2));
    launch(nullptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint16_t> out(size_t(args.m * args.n)), guard(GUARD);
    CUDA_CHECK(cudaMemcpy(out.data(), c, args.c_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(guard.data(), static_cast<uint16_t*>(c) + args.m * args.n, GUARD * 2,
                          cudaMemcpyDeviceToHost));
    size_t guard_written = 0;
    for (uint16_t g : guard) guard_written += g != 0xFFFF;
    CHECK(guard_written == 0);
    return out;
  }
  Launch kernel() const {
    REQUIRE(bw_sm90_check_args(args).empty());
    return bw_sm90_variants().front().prepare(args);
  }
};

uint16_t bf16_bits_rn(float f) {
  const __nv_bfloat16 b = __float2bfloat16_rn(f);
  uint16_t u;
  std::memcpy(&u, &b, sizeof u);
  return u;
}

double e4m3_value(uint8_t x) { return e4m3_to_double(x); }

}  // namespace

TEST_CASE("bw sm_90a: exact inputs give the exact product rounded to bf16, bit for bit", "[gpu][bw]") {
  const uint8_t values[] = {0x00, 0x30, 0xB0, 0x38, 0xB8, 0x3C, 0xBC, 0x40, 0xC0};  // 0, +-0.5, +-1, +-1.5, +-2
  struct Shape {
    int64_t m, n, k;
  };
  // 2048 x 1152 x 512: 72 pairs of tiles, more than the 66 clusters of an H100 (later turns of the persistent
  // loop, the ring's stages and phases carried over). 300 x 520 x 544: a padding tile, the second half of
  // the last B tile wholly outside, a last K tile of 32. 129 x 777 x 96: odd N (the st.global epilogue),
  // K below one tile. 200 x 136 x 272: K % 128 = 16. 1 x 8 x 16: one row, one 16-element K. M <= 16, the
  // decode kernel (mxfp8/bw_decode_sm90.cuh): 16 x 1000 x 1024, 8 tiles of B in 2 K splits (the fixup); 5 x 300 x
  // 272, a short last K block, M % 4 != 0 (A's scale columns padded); 13 x 20000 x 512, 157 tiles, one split,
  // more CTAs than resident ones; 1 x 8 x 16 is the decode kernel too. Its wider groups (bw_decode_pick):
  // 30 x 1000 x 1024, 32 rows, split; 50 x 777 x 96, 64 rows, odd N, one K block; 64 x 300 x 272, a short last K
  // block; 100 x 1000 x 1024, two groups of 64 (the second 36 rows) in clusters, split; 30 x 20000 x 512, 157
  // units of 32 rows, two to an SM. At 65-128 rows where the two groups' units outnumber the SMs (134 and more
  // on an H100 or H200), the wide kernel with its clusters along N, A's halves multicast: 128 x 8500 x 256, 67
  // tiles (a padding tile), odd N; 70 x 20000 x 512, 157 tiles, A's second half 6 rows; 65 x 8449 x 1056, a
  // last N tile of one row, a short last K block; 65 x 4401 x 8336, K > 8192 over 70 units: along N with K split
  // (18 pairs, the last with a padding tile; 3 splits of 22 K tiles, the last K tile 16 wide), odd N. Where
  // the N tiles make more than a wave of quads (bw_along_n_quads; an H200's 30), clusters of four, A's
  // quarters multicast: 70 x 20000 x 512 above (40 quads, three padding tiles in the last, A's third quarter
  // 6 rows, its fourth not loaded); 97 x 17025 x 272, 34 quads, two padding tiles, A's fourth quarter one
  // row, odd N, a last K block of 16. The two partials' loop (a body of two K blocks) at its ends: 20 x 300 x
  // 256, 2 K blocks; 40 x 1000 x 1152, 9 K blocks in splits of 5 and 4.
  for (const Shape s : {Shape{256, 128, 128}, Shape{256, 256, 1024}, Shape{512, 384, 512}, Shape{2048, 1152, 512},
                        Shape{300, 520, 544}, Shape{129, 777, 96}, Shape{200, 136, 272}, Shape{1, 8, 16},
                        Shape{16, 1000, 1024}, Shape{5, 300, 272}, Shape{13, 20000, 512}, Shape{30, 1000, 1024},
                        Shape{50, 777, 96}, Shape{64, 300, 272}, Shape{100, 1000, 1024}, Shape{128, 8500, 256},
                        Shape{70, 20000, 512}, Shape{65, 8449, 1056}, Shape{65, 4401, 8336}, Shape{30, 20000, 512},
                        Shape{20, 300, 256}, Shape{40, 1000, 1152}, Shape{97, 17025, 272}}) {
    CAPTURE(s.m, s.n, s.k, test_seed());
    std::mt19937_64 gen(test_seed() ^ uint64_t(s.m * 31 + s.n * 7 + s.k));
    const int kb = bw_k_blocks(int(s.k));
    const float nan = std::nanf("");
    std::vector<uint8_t> a(size_t(s.m * s.k)), b(size_t(s.n * s.k));
    for (auto& x : a) x = values[gen() % 9];
    for (auto& x : b) x = values[gen() % 9];
    // Scales 2^-2 .. 2^2; every padding float NaN (the quantizer writes 0: the kernel must not depend on it).
    std::vector<float> sfa(bw_1x128_scale_count(int(s.m), int(s.k)), nan);
    std::vector<float> sfb(bw_128x128_scale_count(int(s.n), int(s.k)), nan);
    for (int64_t r = 0; r < s.m; ++r)
      for (int j = 0; j < kb; ++j) sfa[bw_1x128_scale_index(int(r), j, int(s.m))] = std::ldexp(1.0f, int(gen() % 5) - 2);
    for (int p = 0; p < bw_row_blocks(int(s.n)); ++p)
      for (int j = 0; j < kb; ++j) sfb[bw_128x128_scale_index(p, j, int(s.k))] = std::ldexp(1.0f, int(gen() % 5) - 2);
    DeviceBw d(s.m, s.n, s.k);
    CUDA_CHECK(cudaMemcpy(d.a, a.data(), a.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.b, b.data(), b.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.sfa, sfa.data(), sfa.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.sfb, sfb.data(), sfb.size() * 4, cudaMemcpyHostToDevice));
    std::vector<uint16_t> want(size_t(s.m * s.n));
    for (int64_t r = 0; r < s.m; ++r)
      for (int64_t c = 0; c < s.n; ++c) {
        double sum = 0;
        for (int64_t i = 0; i < s.k; ++i)
          sum += e4m3_value(a[size_t(r * s.k + i)]) * double(sfa[bw_1x128_scale_index(int(r), int(i / 128), int(s.m))]) *
                 e4m3_value(b[size_t(c * s.k + i)]) *
                 double(sfb[bw_128x128_scale_index(int(c / 128), int(i / 128), int(s.k))]);
        REQUIRE(double(float(sum)) == sum);  // exact in fp32: the premise of this test
        want[size_t(r * s.n + c)] = bf16_bits_rn(float(sum));
      }
    auto mismatches = [&](const std::vector<uint16_t>& out) {
      size_t bad = 0, first = SIZE_MAX;
      for (size_t i = 0; i < out.size(); ++i)
        if (out[i] != want[i]) {
          if (first == SIZE_MAX) first = i;
          ++bad;
        }
      if (bad) UNSCOPED_INFO("first mismatch at " << first << ": " << out[first] << " vs " << want[first]);
      return bad;
    };
    CHECK(mismatches(d.run(d.kernel())) == 0);
    // cuBLASLt with NaN padding would be unfair (its layout has no padding at M, N % 4 == 0; a kernel may
    // still read the padded K blocks): give it the quantizer's 0 there.
    const LtBlockwiseGemm lt(s.m, s.n, s.k, d.sfa, d.sfb);
    if (lt.ok()) {
      for (auto& f : sfa) f = std::isnan(f) ? 0.0f : f;
      for (auto& f : sfb) f = std::isnan(f) ? 0.0f : f;
      CUDA_CHECK(cudaMemcpy(d.sfa, sfa.data(), sfa.size() * 4, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(d.sfb, sfb.data(), sfb.size() * 4, cudaMemcpyHostToDevice));
      INFO("cuBLASLt blockwise FP8 on the same bytes and scales");
      CHECK(mismatches(d.run([&](cudaStream_t st) { lt.run(d.a, d.sfa, d.b, d.sfb, d.c, st); })) == 0);
    } else {
      std::printf("(%lld x %lld x %lld: no cuBLASLt comparison: %s)\n", (long long)s.m, (long long)s.n,
                  (long long)s.k, lt.error().c_str());
    }
  }
}

TEST_CASE("bw sm_90a: random normal inputs with outlier rows, within the derived bound of the exact product",
          "[gpu][bw]") {
  struct Case {
    int64_t m, n, k;
  };
  // 2048 x 2176: 136 pairs of tiles, up to 3 per cluster on an H100. M <= 16 (the decode kernel): 16 x 4096 x
  // 4096, 32 tiles in 4 K splits; 1 x 1000 x 8192, 8 tiles in 16 splits; 9 x 777 x 1056, odd N and a short K block.
  // Its wider groups: 32 x 4096 x 4096 and 64 x 4096 x 4096, split; 65 x 777 x 1056, two groups (a cluster), the
  // second one row; 24 x 20480 x 1024, 160 units of 32 rows, two to an SM. 128 x 10240 x 2048: 160 units of two
  // groups, more than the SMs (fewer than 160): the wide kernel with its clusters along N; 65 x 4352 x 8320,
  // 68 units (more than half the SMs of an H100 or H200) at K > 8192: along N with K split (17 pairs of N
  // tiles on 66 clusters: 65 K tiles in splits of 22, 22 and 21), the fixup per warpgroup.
  for (const Case t : {Case{256, 128, 128}, Case{512, 384, 1024}, Case{1024, 768, 2048}, Case{768, 256, 4096},
                       Case{2048, 2176, 384}, Case{300, 520, 544}, Case{1000, 777, 1056}, Case{136, 200, 272},
                       Case{16, 4096, 4096}, Case{1, 1000, 8192}, Case{9, 777, 1056}, Case{32, 4096, 4096},
                       Case{64, 4096, 4096}, Case{65, 777, 1056}, Case{128, 10240, 2048}, Case{24, 20480, 1024},
                       Case{65, 4352, 8320}}) {
    CAPTURE(t.m, t.n, t.k, test_seed());
    DeviceBw d(t.m, t.n, t.k);
    void *staging = nullptr;
    double *a64 = nullptr, *b64 = nullptr, *a_abs = nullptr, *b_abs = nullptr, *ref = nullptr, *abs_sum = nullptr;
    CUDA_CHECK(cudaMalloc(&staging, size_t(std::max(t.m, t.n) * t.k * 2)));
    CUDA_CHECK(cudaMalloc(&a64, size_t(t.m * t.k * 8)));
    CUDA_CHECK(cudaMalloc(&a_abs, size_t(t.m * t.k * 8)));
    CUDA_CHECK(cudaMalloc(&b64, size_t(t.n * t.k * 8)));
    CUDA_CHECK(cudaMalloc(&b_abs, size_t(t.n * t.k * 8)));
    CUDA_CHECK(cudaMalloc(&ref, size_t(t.m * t.n * 8)));
    CUDA_CHECK(cudaMalloc(&abs_sum, size_t(t.m * t.n * 8)));
    int64_t outliers = 0;
    for (int op = 0; op < 2; ++op) {
      const int64_t rows = op == 0 ? t.m : t.n;
      const BwGranularity g = op == 0 ? BwGranularity::Row1x128 : BwGranularity::Block128x128;
      // 1 row in 13 an outlier (x 2^10), so every shape here has some
      outliers += fill_random_normal_bf16(staging, rows, t.k, test_seed() * 2 + uint64_t(op), 13, 1024.0f);
      REQUIRE(bw_quantize_gpu(staging, MxInput::Bf16, rows, t.k, g, op == 0 ? d.a : d.b, op == 0 ? d.sfa : d.sfb,
                              nullptr)
                  .empty());
      dequantize_bw_to_f64(op == 0 ? d.a : d.b, op == 0 ? d.sfa : d.sfb, g, rows, t.k, op == 0 ? a64 : b64,
                           op == 0 ? a_abs : b_abs, nullptr);
    }
    CHECK(outliers > 0);
    CUDA_CHECK(cudaMemset(ref, 0xFF, size_t(t.m * t.n * 8)));
    CUDA_CHECK(cudaMemset(abs_sum, 0xFF, size_t(t.m * t.n * 8)));
    {
      const LtGemmF64 ref64(t.m, t.n, t.k);
      ref64.run(a64, b64, ref, nullptr);
      ref64.run(a_abs, b_abs, abs_sum, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    std::vector<double> want(size_t(t.m * t.n)), bound(want.size());
    CUDA_CHECK(cudaMemcpy(want.data(), ref, want.size() * 8, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(bound.data(), abs_sum, bound.size() * 8, cudaMemcpyDeviceToHost));
    {
      const std::vector<uint16_t> out = d.run(d.kernel());
      const BwCheck r                 = check_bw_output(out.data(), want.data(), bound.data(), out.size(), t.k);
      INFO("bw: " << r.summary());
      CHECK(r.pass);
      CHECK(r.max_ratio < 0.25);  // the bf16 rounding alone can reach ~0.1 of the bound; the rest is small
      CHECK(r.rel_frob < 4e-3);   // bf16 output: ~1e-3
    }
    const LtBlockwiseGemm lt(t.m, t.n, t.k, d.sfa, d.sfb);
    if (lt.ok()) {
      const std::vector<uint16_t> out = d.run([&](cudaStream_t st) { lt.run(d.a, d.sfa, d.b, d.sfb, d.c, st); });
      const BwCheck r = check_bw_output(out.data(), want.data(), bound.data(), out.size(), t.k);
      INFO("cuBLASLt blockwise: " << r.summary());
      CHECK(r.pass);
    }
    for (void* p : {staging, static_cast<void*>(a64), static_cast<void*>(b64), static_cast<void*>(a_abs),
                    static_cast<void*>(b_abs), static_cast<void*>(ref), static_cast<void*>(abs_sum)})
      CUDA_CHECK(cudaFree(p));
  }
}

int main(int argc, char** argv) {
  GpuInfo info;
  Arch arch;
  const int skip = gpu_test_start(argc, argv, info, arch, [](Arch a) -> std::string {
    return a == Arch::Sm90 ? "" : "the blockwise FP8 GEMM is a Hopper (sm_90a) kernel";
  });
  return skip >= 0 ? skip : Catch::Session().run(argc, argv);
}
