// lt_tn.h: the cuBLASLt plumbing that every reference of this project shares: one TN GEMM, row-major
// D[M,N] = A[M,K] * B[N,K]^T with both operands K-major.
//
// cuBLAS is column-major, so the call is D^T[N,M] = B A^T: cuBLAS's "A" is our B read transposed (K x N, ld
// K), its "B" is our A (K x M, ld K), and D is N x M with ld N. In the same way cuBLAS's A-scales are our B's
// and its B-scales our A's (the block-scaled references set them through op()).
//
// The references differ only in their types and a few descriptor attributes (scale modes and pointers), which
// they set between init() and pick(). Nothing here exits: every call returns "" or the line naming the failed
// call and its status. The bf16 reference, which every stage needs, exits on an error (lt_require); the
// optional ones (cuBLASLt MXFP8 on Blackwell, blockwise FP8) report it and settle without.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cublasLt.h>
#include <cuda_runtime.h>

namespace gemm {

class LtTn {
 public:
  static constexpr int MAX_ALGOS = 64;

  LtTn() = default;
  ~LtTn();
  LtTn(const LtTn&)            = delete;
  LtTn& operator=(const LtTn&) = delete;

  // The handle, the descriptor (compute and scale type, TN), the three layouts and a 32 MB workspace.
  std::string init(int64_t m, int64_t n, int64_t k, cudaDataType ab_type, cudaDataType d_type,
                   cublasComputeType_t compute, cudaDataType scale_type);
  // One descriptor attribute (scale modes, scale pointers); `what` names it in the error line.
  std::string set(cublasLtMatmulDescAttributes_t attr, const void* value, size_t bytes, const char* what);
  // Ask the heuristic for up to `want` algorithms (1..MAX_ALGOS) that fit the workspace. found() may be 0.
  std::string pick(int want = 1);
  int found() const { return found_; }
  const cublasLtMatmulHeuristicResult_t& algo(int i) const { return heur_[i]; }
  // D = A B^T (alpha 1, beta 0 in the scale type) with the heuristic's candidate i.
  cublasStatus_t run(const void* a, const void* b, void* d, cudaStream_t stream, int candidate = 0) const;

 private:
  cublasLtHandle_t handle_   = nullptr;
  cublasLtMatmulDesc_t op_   = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulHeuristicResult_t heur_[MAX_ALGOS]{};
  int found_               = 0;
  cudaDataType scale_type_ = CUDA_R_32F;
  void* workspace_         = nullptr;
  size_t workspace_bytes_  = size_t(32) << 20;
};

// For the references a run cannot do without: print "error: <line>" and exit (EXIT_FAIL) unless `err` is "".
void lt_require(const std::string& err);

}  // namespace gemm
