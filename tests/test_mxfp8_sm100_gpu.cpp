// test_mxfp8_sm100_gpu.cpp: the Blackwell MXFP8 kernel (mxfp8/matmul_mxfp8.cu) on a Blackwell GPU, against an
// exact CPU result and against cuBLASLt's MXFP8 GEMM (VEC32_UE8M0) in the same process. Skipped (exit
// GEMM_SKIP_CODE) without a compute capability 10.x GPU: NEVER RUN in this project, which has no Blackwell
// GPU.
//
// Exact inputs: e4m3 data in {-3, ..., 3} and scales 2^-2 .. 2^2, so every product is a multiple of 2^-4 and
// every partial sum of K <= 4096 of them stays below 2^20 in magnitude: exact in fp32 whatever the summation
// order. So the kernel, the CPU and cuBLASLt must agree bit for bit, and any scale applied to the wrong row,
// column or K block shows. The output is poisoned (NaN) before each run, so an unwritten element fails.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "common/check.h"
#include "common/gpu.h"
#include "common/mx_scale_layout.h"
#include "mxfp8/matmul_mxfp8_sm100.h"
#include "mxfp8/mx_lt_ref_sm100.h"

using namespace gemm;

namespace {

struct Inputs {
  int m, n, k;
  std::vector<uint8_t> a, b, sfa, sfb;  // e4m3 bytes, blocked e8m0 bytes
  std::vector<float> ref;               // exact C
};

Inputs make_inputs(int m, int n, int k, uint64_t seed) {
  Inputs in{m, n, k, {}, {}, {}, {}, {}};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-3, 3), exponent(-2, 2);
  auto fill = [&](int rows, std::vector<uint8_t>& data, std::vector<uint8_t>& scales,
                  std::vector<float>& deq) {
    data.resize(size_t(rows) * k);
    const int cols = mx_scale_cols(k);
    scales.assign(mx_scale_bytes(rows, cols), 0);
    std::vector<int> e(size_t(rows) * cols);
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j) {
        e[size_t(r) * cols + j]             = exponent(rng);
        scales[mx_scale_offset(r, j, cols)] = uint8_t(127 + e[size_t(r) * cols + j]);
      }
    deq.resize(data.size());
    for (int r = 0; r < rows; ++r)
      for (int kk = 0; kk < k; ++kk) {
        const float v            = float(value(rng));
        data[size_t(r) * k + kk] = __nv_fp8_e4m3(v).__x;
        deq[size_t(r) * k + kk]  = std::ldexp(v, e[size_t(r) * cols + kk / 32]);
      }
  };
  std::vector<float> da, db;
  fill(m, in.a, in.sfa, da);
  fill(n, in.b, in.sfb, db);
  in.ref.resize(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int kk = 0; kk < k; ++kk) s += double(da[size_t(i) * k + kk]) * double(db[size_t(j) * k + kk]);
      in.ref[size_t(i) * n + j] = float(s);
    }
  return in;
}

struct Device {
  void *a = nullptr, *b = nullptr, *sfa = nullptr, *sfb = nullptr;
  float* c = nullptr;
  explicit Device(const Inputs& in) {
    auto up = [](void** dst, const std::vector<uint8_t>& v) {
      CUDA_CHECK(cudaMalloc(dst, v.size()));
      CUDA_CHECK(cudaMemcpy(*dst, v.data(), v.size(), cudaMemcpyHostToDevice));
    };
    up(&a, in.a), up(&b, in.b), up(&sfa, in.sfa), up(&sfb, in.sfb);
    CUDA_CHECK(cudaMalloc(&c, in.ref.size() * sizeof(float)));
  }
  ~Device() { cudaFree(a), cudaFree(b), cudaFree(sfa), cudaFree(sfb), cudaFree(c); }
};

// Elements of the output that differ from the exact result (bitwise), after poisoning and `run`.
template <typename Run>
size_t wrong_elements(const Inputs& in, const Device& d, Run run) {
  CUDA_CHECK(cudaMemset(d.c, 0xFF, in.ref.size() * sizeof(float)));  // NaN everywhere
  run();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> out(in.ref.size());
  CUDA_CHECK(cudaMemcpy(out.data(), d.c, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (size_t i = 0; i < out.size(); ++i) wrong += std::memcmp(&out[i], &in.ref[i], sizeof(float)) != 0;
  return wrong;
}

}  // namespace

TEST_CASE("mxfp8 sm100 GPU: every variant and cuBLASLt MXFP8 equal the exact result bit for bit",
          "[mxfp8][sm100][gpu]") {
  // one tile; ragged M, N and a last K tile with one MX block; several turns per cluster and both
  // accumulators; a K of whole MX blocks that is not a multiple of 128
  const int shapes[][3] = {{256, 256, 128}, {300, 520, 544}, {2048, 2048, 256}, {1000, 777, 4064}};
  for (const auto& s : shapes) {
    const Inputs in = make_inputs(s[0], s[1], s[2], 1234 + uint64_t(s[0]));
    Device d(in);
    MxGemmArgs g{d.a,
                 d.sfa,
                 d.b,
                 d.sfb,
                 d.c,
                 in.m,
                 in.n,
                 in.k,
                 in.a.size(),
                 in.sfa.size(),
                 in.b.size(),
                 in.sfb.size(),
                 in.ref.size() * sizeof(float)};
    REQUIRE(mxfp8_sm100_check_args(g).empty());
    for (const MxSm100Variant& v : mxfp8_sm100_variants()) {
      INFO(v.name << " M=" << in.m << " N=" << in.n << " K=" << in.k);
      const Launch launch = v.prepare(g);
      CHECK(wrong_elements(in, d, [&] { launch(nullptr); }) == 0);
    }
    LtMxfp8Gemm lt(in.m, in.n, in.k, d.sfa, d.sfb);
    INFO("cuBLASLt: " << lt.error());
    REQUIRE(lt.ok());
    CHECK(wrong_elements(in, d, [&] { lt.run(d.a, d.sfa, d.b, d.sfb, d.c, nullptr); }) == 0);
  }
}

int main(int argc, char** argv) {
  // catch_discover_tests lists the tests at build time, on machines without a GPU: never skip a listing.
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strncmp(argv[i], "--list", 6) == 0;
  if (!listing) {
    GpuInfo info;
    Arch arch              = Arch::Sm90;
    const std::string none = detect_gpu(info, arch);
    if (!none.empty()) {
      std::printf("Skipped: %s\n", none.c_str());
      return GEMM_SKIP_CODE;
    }
    if (arch != Arch::Sm100) {
      std::printf("Skipped: the sm_100a MXFP8 kernel needs a Blackwell GPU (compute capability 10.x)\n");
      return GEMM_SKIP_CODE;
    }
    std::printf("%s\n", describe_gpu(info).c_str());
  }
  return Catch::Session().run(argc, argv);
}
