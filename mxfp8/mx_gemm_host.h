// mx_gemm_host.h: what the MXFP8 GEMM binary (mxfp8/matmul_mxfp8_main.cpp) and its GPU test share: the
// inputs, the exact dequantization that the reference multiplies, cuBLASLt GEMMs of several types, and the
// verdict with its derived tolerance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <library_types.h>  // cudaDataType

namespace gemm {

// Random normal bf16 [rows, cols] from (seed, index), N(0, 1), on the GPU; rows whose hash of (seed, row)
// is 0 mod `outlier_every` (0: none) are outlier rows, multiplied by `outlier_scale`. Returns how many rows
// are outliers (counted on the host from the same hash).
int64_t fill_random_normal_bf16(void* dst, int64_t rows, int64_t cols, uint64_t seed, int outlier_every,
                                float outlier_scale);

// e4m3 data [rows, K] + blocked e8m0 scales -> bf16 [rows, K] (and |x| into `abs_out` unless null), on the
// GPU. Returns the number of elements whose value e4m3 * 2^(s-127) is not exactly a bf16 (or is NaN): 0 is
// what the reference needs, since then it multiplies exactly the numbers the kernel multiplies.
uint64_t dequantize_mx_to_bf16(const void* data, const void* scales, int64_t rows, int64_t k, void* out,
                               void* abs_out);

// cuBLASLt D[M,N] = A[M,K] * B[N,K]^T (both K-major, row-major D), fp32 accumulation. A/B type bf16 or e4m3
// (e4m3 with per-tensor scale pointers, both 1.0: the "fp8 per-tensor" GEMM); D type fp32 or bf16.
class LtGemm {
 public:
  LtGemm(int64_t m, int64_t n, int64_t k, cudaDataType ab_type, cudaDataType d_type);
  ~LtGemm();
  LtGemm(const LtGemm&)            = delete;
  LtGemm& operator=(const LtGemm&) = delete;
  void run(const void* a, const void* b, void* d, cudaStream_t stream) const;
  std::string describe() const;

 private:
  struct Impl;
  Impl* impl_;
};

// The tolerance of an fp32 output against the reference, element by element (docs/performance/
// mxfp8-checks.md, "Hopper `mx`: the reference and its tolerance"):
//   |out - ref| <= eps(K) * S,   S = sum_k |a_k| |b_k| (computed by cuBLAS on |A|, |B|),
//   eps(K) = 2^-7 + (K + K/32) * 2^-24:
// 2^-8 for the fp8 tensor core's partial of each k32 block (products exact, aligned to the largest with at
// least 13 fraction bits: 32 terms x 2^-13 of the largest <= 2^-8 of the block's sum of |products|), 2^-8
// more for the reference's own tensor-core sums, and one fp32 rounding per addition on each side (K/32
// promotions; at most K additions in the reference).
double mx_tolerance_eps(int64_t k);

struct MxCheck {
  double eps       = 0;  // the tolerance factor used
  double rel_frob  = 0;  // ||out - ref|| / ||ref||
  double max_abs   = 0;  // max |out - ref|
  double max_ratio = 0;  // max |out - ref| / (eps * S): <= 1 everywhere to pass
  size_t nonfinite = 0, bad = 0, first_bad = SIZE_MAX;
  bool pass = false;
  std::string summary() const;
};

MxCheck check_mx_output(const float* out, const float* ref, const float* abs_sum, size_t count, int64_t k);

}  // namespace gemm
