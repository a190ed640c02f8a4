#include "common/reference.h"

#include <cstdio>
#include <cstdlib>

#include <cublasLt.h>
#include <cuda_bf16.h>

#include "common/check.h"

namespace gemm {

// ------------------------------------------------------------------------------------------------------------
// Inputs
// ------------------------------------------------------------------------------------------------------------
namespace {

__host__ __device__ inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_random_bf16_kernel(__nv_bfloat16* dst, size_t count, uint64_t seed) {
  const uint64_t key = splitmix64(seed);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t h = splitmix64(key ^ i);
    const float u    = float(h >> 40) * (1.0f / 16777216.0f);  // 24 random bits in [0, 1)
    dst[i]           = __float2bfloat16(2.0f * u - 1.0f);
  }
}

}  // namespace

void fill_random_bf16(void* dst, size_t count, uint64_t seed, cudaStream_t stream) {
  fill_random_bf16_kernel<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), count, seed);
  CUDA_CHECK(cudaGetLastError());
}

// ------------------------------------------------------------------------------------------------------------
// cuBLASLt reference
// ------------------------------------------------------------------------------------------------------------
struct CublasLtGemm::Impl {
  cublasLtHandle_t handle   = nullptr;
  cublasLtMatmulDesc_t op   = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t heur[64]{};
  int found              = 0;
  void* workspace        = nullptr;
  size_t workspace_bytes = size_t(32) << 20;
};

// Row-major C[M,N] = A[M,K] B[N,K]^T is, in cuBLAS's column-major terms, C^T[N,M] = B[N,K] A^T: "A" of the
// call is our B read transposed (K x N, ld K), "B" is our A (K x M, ld K), and D is N x M with ld N.
CublasLtGemm::CublasLtGemm(int64_t m, int64_t n, int64_t k, int candidates) : impl_(new Impl) {
  Impl& s = *impl_;
  CUBLAS_CHECK(cublasLtCreate(&s.handle));
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_16BF, uint64_t(k), uint64_t(n), k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_16BF, uint64_t(k), uint64_t(m), k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_16BF, uint64_t(n), uint64_t(m), n));
  CUDA_CHECK(cudaMalloc(&s.workspace, s.workspace_bytes));
  cublasLtMatmulPreference_t pref;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &s.workspace_bytes, sizeof s.workspace_bytes));
  const int want = candidates < 1 ? 1 : (candidates > 64 ? 64 : candidates);
  CUBLAS_CHECK(
      cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.la, s.lb, s.lc, s.lc, pref, want, s.heur, &s.found));
  CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  if (s.found == 0) {
    std::fprintf(stderr, "error: cuBLASLt has no bf16 TN algorithm for M=%lld N=%lld K=%lld\n", (long long)m,
                 (long long)n, (long long)k);
    std::exit(EXIT_FAIL);
  }
}

CublasLtGemm::~CublasLtGemm() {
  Impl& s = *impl_;
  cudaFree(s.workspace);
  cublasLtMatrixLayoutDestroy(s.la);
  cublasLtMatrixLayoutDestroy(s.lb);
  cublasLtMatrixLayoutDestroy(s.lc);
  cublasLtMatmulDescDestroy(s.op);
  cublasLtDestroy(s.handle);
  delete impl_;
}

void CublasLtGemm::run(const GemmArgs& g, cudaStream_t stream, int candidate) const {
  const Impl& s     = *impl_;
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(s.handle, s.op, &alpha, g.b, s.la, g.a, s.lb, &beta, g.c, s.lc, g.c, s.lc,
                              &s.heur[candidate].algo, s.workspace, s.workspace_bytes, stream));
}

int CublasLtGemm::candidates() const {
  return impl_->found;
}

std::string CublasLtGemm::describe(int candidate) const {
  const cublasLtMatmulAlgo_t& a = impl_->heur[candidate].algo;
  int id = 0, tile = 0, stages = 0, splitk = 0;
  size_t got = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &got);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &got);
  return "heuristic pick " + std::to_string(candidate + 1) + " (algo " + std::to_string(id) + ", tile id " +
         std::to_string(tile) + ", stages id " + std::to_string(stages) + ", split-K " +
         std::to_string(splitk) + ", workspace " +
         std::to_string(impl_->heur[candidate].workspaceSize >> 10) + " KB)";
}

}  // namespace gemm
