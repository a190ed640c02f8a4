// reference.h: the inputs and the reference every kernel is measured against. Random bf16 inputs generated
// on the GPU from a printed seed, and cuBLASLt's bf16 TN GEMM (fp32 accumulation) on the same buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "common/problem.h"

namespace gemm {

// Random bf16 in [-1, 1) from (seed, index): the same seed gives the same inputs on any GPU.
void fill_random_bf16(void* dst, size_t count, uint64_t seed, cudaStream_t stream);

// cuBLASLt bf16 TN GEMM with fp32 accumulation: C[M,N] = A[M,K] * B[N,K]^T, row-major C.
// `candidates` > 1: keep the first `candidates` algorithms of the heuristic (as many as it offers), each run
// by run(..., i); run() without an index runs the heuristic's first pick, which is what the reference is.
class CublasLtGemm {
 public:
  CublasLtGemm(int64_t m, int64_t n, int64_t k, int candidates = 1);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&)            = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;
  void run(const GemmArgs& args, cudaStream_t stream, int candidate = 0) const;
  int candidates() const;                     // algorithms the heuristic returned (>= 1)
  std::string describe(int candidate) const;  // "algo 21, tile 256x128, stages 4, split-K 1, ..." for reports

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace gemm
