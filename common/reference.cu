#include "common/reference.h"

#include <cstdio>
#include <cstdlib>

#include <cublasLt.h>
#include <cuda_bf16.h>

#include "common/check.h"
#include "common/lt_tn.h"

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
  LtTn lt;
};

// bf16 A and B, bf16 C, fp32 accumulation and scale (common/lt_tn.h: the TN call and its transposes).
CublasLtGemm::CublasLtGemm(int64_t m, int64_t n, int64_t k, int candidates) : impl_(new Impl) {
  LtTn& lt = impl_->lt;
  lt_require(lt.init(m, n, k, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  lt_require(lt.pick(candidates));
  if (lt.found() == 0) {
    std::fprintf(stderr, "error: cuBLASLt has no bf16 TN algorithm for M=%lld N=%lld K=%lld\n", (long long)m,
                 (long long)n, (long long)k);
    std::exit(EXIT_FAIL);
  }
}

CublasLtGemm::~CublasLtGemm() {
  delete impl_;
}

void CublasLtGemm::run(const GemmArgs& g, cudaStream_t stream, int candidate) const {
  CUBLAS_CHECK(impl_->lt.run(g.a, g.b, g.c, stream, candidate));
}

int CublasLtGemm::candidates() const {
  return impl_->lt.found();
}

std::string CublasLtGemm::describe(int candidate) const {
  const cublasLtMatmulAlgo_t& a = impl_->lt.algo(candidate).algo;
  int id = 0, tile = 0, stages = 0, splitk = 0;
  size_t got = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &got);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
  cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &got);
  return "heuristic pick " + std::to_string(candidate + 1) + " (algo " + std::to_string(id) + ", tile id " +
         std::to_string(tile) + ", stages id " + std::to_string(stages) + ", split-K " +
         std::to_string(splitk) + ", workspace " +
         std::to_string(impl_->lt.algo(candidate).workspaceSize >> 10) + " KB)";
}

}  // namespace gemm
