// bw_gemm_host.h: what the blockwise FP8 GEMM (`bw`, mxfp8/matmul_bw_sm90.cu) shares between the binary
// (mxfp8/bw_main.cpp) and its GPU test: the exact dequantization that the reference multiplies, the fp64
// reference GEMM, cuBLASLt's own blockwise FP8 GEMM on the same bytes and scales, and the verdict.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "mxfp8/bw_quant.h"  // BwGranularity

namespace gemm {

// e4m3 data [rows, K] + fp32 scales of granularity g (cuBLASLt's layout, mxfp8/bw_scale_layout.h) -> fp64
// [rows, K] (and |x| into `abs_out` unless null), on the GPU. e4m3 (4 significant bits) times an fp32 scale
// (24) is exact in fp64: the reference multiplies exactly the numbers the kernel multiplies.
void dequantize_bw_to_f64(const void* data, const float* scales, BwGranularity g, int64_t rows, int64_t k,
                          double* out, double* abs_out, cudaStream_t stream);

// cuBLASLt D[M,N] = A[M,K] * B[N,K]^T in fp64 (both K-major, row-major D): the reference, and with |A|, |B|
// the sum sum_k |a_k||b_k| that the bound scales with.
class LtGemmF64 {
 public:
  LtGemmF64(int64_t m, int64_t n, int64_t k);
  ~LtGemmF64();
  LtGemmF64(const LtGemmF64&)            = delete;
  LtGemmF64& operator=(const LtGemmF64&) = delete;
  void run(const double* a, const double* b, double* d, cudaStream_t stream) const;

 private:
  struct Impl;
  Impl* impl_;
};

// cuBLASLt's blockwise FP8 GEMM on sm_90: e4m3 x e4m3, A (ours, [M,K]) with 1x128 scales and B ([N,K]) with
// 128x128 scales, fp32 accumulate, bf16 D [M,N] row-major. In cuBLAS's column-major terms D^T = B A^T, so
// cuBLAS's "A" is our B (scale mode BLK128x128_32F, our sfb) and its "B" our A (VEC128_32F, our sfa): the
// layouts bw_quant writes. Where cuBLASLt refuses the shape (its FP8 rules: M and N multiples of 4 for the
// 1x128 layout, 16-byte rows of D, i.e. N % 8 for bf16), ok() is false and error() says why.
class LtBlockwiseGemm {
 public:
  LtBlockwiseGemm(int64_t m, int64_t n, int64_t k, const float* sfa, const float* sfb);
  ~LtBlockwiseGemm();
  LtBlockwiseGemm(const LtBlockwiseGemm&)            = delete;
  LtBlockwiseGemm& operator=(const LtBlockwiseGemm&) = delete;
  bool ok() const { return impl_ != nullptr && error_.empty(); }
  const std::string& error() const { return error_; }
  // Exits if !ok(). Scales are pointers per call (the input copies have their own).
  void run(const void* a, const float* sfa, const void* b, const float* sfb, void* d, cudaStream_t stream) const;
  std::string describe() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
  std::string error_;
};

// The tolerance of the bf16 output against the exact (fp64) product, element by element (docs/performance/
// mxfp8-checks.md, "Hopper `bw`: the reference and its tests"):
//   |out - ref| <= eps(K) * S,   S = sum_k |a_k||b_k|,
//   eps(K) = 2^-5 + 2^-7 + (3 L + 4) 2^-24,  L = ceil(K / 128):
// 2^-5 for the fp8 tensor core's partial of a 128-block (products exact; 4 wgmma k32 chained, each aligning
// its 32 products and the incoming partial to the largest with at least 13 fraction bits: 4 x 33 x 2^-13 <
// 2^-5 of the block's sum of |products|); 2^-7 for the bf16 output (half an ulp, 2^-8 of |out| <= S, with
// room); per promotion sa * sb, the FFMA, and their effect on the sum, 3 fp32 roundings; 4 more for slack.
double bw_tolerance_eps(int64_t k);

struct BwCheck {
  double eps       = 0;  // the tolerance factor used
  double rel_frob  = 0;  // ||out - ref|| / ||ref||
  double max_abs   = 0;  // max |out - ref|
  double max_ratio = 0;  // max |out - ref| / (eps * S): <= 1 everywhere to pass
  size_t nonfinite = 0, bad = 0, first_bad = SIZE_MAX;
  bool pass = false;
  std::string summary() const;
};

// out: bf16 bits; ref and abs_sum: fp64.
BwCheck check_bw_output(const uint16_t* out, const double* ref, const double* abs_sum, size_t count, int64_t k);

// The `bw` part of the matmul_mxfp8 binary (mxfp8/bw_main.cpp, linked into the binary only): inputs,
// quantization, verification, the three timed pairings and the report, for opt's shape (which must pass
// bw_sm90_check_shape) on the Hopper GPU `gpu`; --trace is honoured where `trace_this`. Returns the exit code.
struct Options;
struct GpuInfo;
int run_bw_binary(const Options& opt, const GpuInfo& gpu, bool trace_this);

}  // namespace gemm
