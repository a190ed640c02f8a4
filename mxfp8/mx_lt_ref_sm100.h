// mx_lt_ref_sm100.h: the reference of the Blackwell MXFP8 kernel on a B200: cuBLASLt's own MXFP8 GEMM
// (A and B e4m3 with CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0 scales in the same blocked layout), in the same
// process, fp32 output. It takes exactly the bytes the kernel takes, so kernel and reference differ only by
// summation order.
//
// NOT RUN in this project: cuBLASLt has MXFP8 on compute capability 10.x only (on an H100 it answers
// CUBLAS_STATUS_NOT_SUPPORTED), and no Blackwell GPU exists here. The class refuses plainly (an
// error string, nothing launched) where the GPU or cuBLASLt cannot do it, instead of exiting.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

namespace gemm {

class LtMxfp8Gemm {
 public:
  // C[M,N] (fp32, row-major) = dequant(A)[M,K] dequant(B)[N,K]^T. sfa / sfb: the blocked e8m0 scales of A and
  // B (set before the heuristic query, as cuBLASLt needs them). Check ok() / error() before run().
  LtMxfp8Gemm(int64_t m, int64_t n, int64_t k, const void* sfa, const void* sfb);
  ~LtMxfp8Gemm();
  LtMxfp8Gemm(const LtMxfp8Gemm&)            = delete;
  LtMxfp8Gemm& operator=(const LtMxfp8Gemm&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // why there is no reference here
  // C = A B^T with the scales given here (set on the descriptor before each call, so one object serves every
  // rotated input copy; the ones given to the constructor only serve the heuristic query).
  void run(const void* a, const void* sfa, const void* b, const void* sfb, float* c,
           cudaStream_t stream) const;
  std::string describe() const;

 private:
  struct Impl;
  Impl* impl_ = nullptr;
  std::string error_;
};

// "" if the current GPU can run cuBLASLt MXFP8 (compute capability 10.x); else why not.
std::string lt_mxfp8_unavailable_reason();

}  // namespace gemm
