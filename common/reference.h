// reference.h: the inputs and the reference every kernel is measured against. Random bf16 inputs generated
// on the GPU from a printed seed, and cuBLASLt's bf16 TN GEMM (fp32 accumulation) on the same buffers.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "common/problem.h"

namespace gemm {

// Random bf16 in [-1, 1) from (seed, index): the same seed gives the same inputs on any GPU.
void fill_random_bf16(void* dst, size_t count, uint64_t seed, cudaStream_t stream);

// cuBLASLt bf16 TN GEMM with fp32 accumulation: C[M,N] = A[M,K] * B[N,K]^T, row-major C.
class CublasLtGemm {
 public:
  CublasLtGemm(int64_t m, int64_t n, int64_t k);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&)            = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;
  void run(const GemmArgs& args, cudaStream_t stream) const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace gemm
