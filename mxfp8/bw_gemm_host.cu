#include "mxfp8/bw_gemm_host.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "common/check.h"
#include "common/problem.h"

namespace gemm {

namespace {

__global__ void dequantize_bw_kernel(const uint8_t* data, const float* scales, BwGranularity g, int64_t rows,
                                     int64_t k, double* out, double* abs_out) {
  const size_t count = size_t(rows) * size_t(k);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const int row = int(i / size_t(k)), col = int(i % size_t(k));
    const uint64_t s = g == BwGranularity::Row1x128 ? bw_1x128_scale_index(row, col / BW_BLOCK, int(rows))
                                                    : bw_128x128_scale_index(row / BW_BLOCK, col / BW_BLOCK, int(k));
    const __half_raw h = __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(data[i]), __NV_E4M3);
    const double v     = double(__half2float(__half(h))) * double(scales[s]);  // exact in fp64
    out[i]             = v;
    if (abs_out) abs_out[i] = fabs(v);
  }
}

std::string lt_error(const char* call, cublasStatus_t st) {
  return std::string(call) + " returned cuBLAS status " + std::to_string(int(st));
}

}  // namespace

void dequantize_bw_to_f64(const void* data, const float* scales, BwGranularity g, int64_t rows, int64_t k,
                          double* out, double* abs_out, cudaStream_t stream) {
  dequantize_bw_kernel<<<1024, 256, 0, stream>>>(static_cast<const uint8_t*>(data), scales, g, rows, k, out,
                                                 abs_out);
  CUDA_CHECK(cudaGetLastError());
}

// ---- fp64 reference ----
struct LtGemmF64::Impl {
  cublasLtHandle_t handle   = nullptr;
  cublasLtMatmulDesc_t op   = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t heur{};
  void* workspace        = nullptr;
  size_t workspace_bytes = size_t(32) << 20;
};

// As LtGemm (mxfp8/mx_gemm_host.cu): row-major D = A B^T is column-major D^T = B A^T.
LtGemmF64::LtGemmF64(int64_t m, int64_t n, int64_t k) : impl_(new Impl) {
  Impl& s = *impl_;
  CUBLAS_CHECK(cublasLtCreate(&s.handle));
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_64F, CUDA_R_64F));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_64F, uint64_t(k), uint64_t(n), k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_64F, uint64_t(k), uint64_t(m), k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_64F, uint64_t(n), uint64_t(m), n));
  CUDA_CHECK(cudaMalloc(&s.workspace, s.workspace_bytes));
  cublasLtMatmulPreference_t pref;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &s.workspace_bytes, sizeof s.workspace_bytes));
  int found = 0;
  CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.la, s.lb, s.lc, s.lc, pref, 1, &s.heur, &found));
  CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  if (found == 0) {
    std::fprintf(stderr, "error: cuBLASLt has no fp64 algorithm at M=%lld N=%lld K=%lld\n", (long long)m,
                 (long long)n, (long long)k);
    std::exit(EXIT_FAIL);
  }
}

LtGemmF64::~LtGemmF64() {
  Impl& s = *impl_;
  cudaFree(s.workspace);
  cublasLtMatrixLayoutDestroy(s.la);
  cublasLtMatrixLayoutDestroy(s.lb);
  cublasLtMatrixLayoutDestroy(s.lc);
  cublasLtMatmulDescDestroy(s.op);
  cublasLtDestroy(s.handle);
  delete impl_;
}

void LtGemmF64::run(const double* a, const double* b, double* d, cudaStream_t stream) const {
  const Impl& s      = *impl_;
  const double alpha = 1.0, beta = 0.0;
  CUBLAS_CHECK(cublasLtMatmul(s.handle, s.op, &alpha, b, s.la, a, s.lb, &beta, d, s.lc, d, s.lc, &s.heur.algo,
                              s.workspace, s.workspace_bytes, stream));
}

// ---- cuBLASLt blockwise FP8 ----
struct LtBlockwiseGemm::Impl {
  cublasLtHandle_t handle   = nullptr;
  cublasLtMatmulDesc_t op   = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t heur{};
  void* workspace        = nullptr;
  size_t workspace_bytes = size_t(32) << 20;
};

LtBlockwiseGemm::LtBlockwiseGemm(int64_t m, int64_t n, int64_t k, const float* sfa, const float* sfb) {
  if (m % 4 != 0 || n % 4 != 0 || k % 16 != 0 || (n * 2) % 16 != 0) {
    error_ = "cuBLASLt's blockwise FP8 GEMM needs M and N multiples of 4 (its 1x128 scale layout), K of 16 and "
             "16-byte rows of bf16 D (N a multiple of 8); this is M=" +
             std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k);
    return;
  }
  impl_   = new Impl;
  Impl& s = *impl_;
#define LT_TRY(call)                    \
  do {                                  \
    const cublasStatus_t st_ = (call);  \
    if (st_ != CUBLAS_STATUS_SUCCESS) { \
      error_ = lt_error(#call, st_);    \
      return;                           \
    }                                   \
  } while (0)
  LT_TRY(cublasLtCreate(&s.handle));
  LT_TRY(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a));
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b));
  // cuBLAS's A is our B (weights, 128x128), its B our A (activations, 1x128)
  const cublasLtMatmulMatrixScale_t blk = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  const cublasLtMatmulMatrixScale_t vec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &blk, sizeof blk));
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &vec, sizeof vec));
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb));
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa));
  LT_TRY(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_8F_E4M3, uint64_t(k), uint64_t(n), k));
  LT_TRY(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_8F_E4M3, uint64_t(k), uint64_t(m), k));
  LT_TRY(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_16BF, uint64_t(n), uint64_t(m), n));
  if (cudaMalloc(&s.workspace, s.workspace_bytes) != cudaSuccess) {
    error_ = "cudaMalloc of the cuBLASLt workspace failed";
    return;
  }
  cublasLtMatmulPreference_t pref = nullptr;
  LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
  const cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &s.workspace_bytes, sizeof s.workspace_bytes);
  int found = 0;
  const cublasStatus_t hst =
      st == CUBLAS_STATUS_SUCCESS
          ? cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.la, s.lb, s.lc, s.lc, pref, 1, &s.heur, &found)
          : st;
  cublasLtMatmulPreferenceDestroy(pref);
  LT_TRY(hst);
#undef LT_TRY
  if (found == 0)
    error_ = "cuBLASLt has no blockwise FP8 algorithm for M=" + std::to_string(m) + " N=" + std::to_string(n) +
             " K=" + std::to_string(k);
}

LtBlockwiseGemm::~LtBlockwiseGemm() {
  if (!impl_) return;
  Impl& s = *impl_;
  if (s.workspace) cudaFree(s.workspace);
  if (s.la) cublasLtMatrixLayoutDestroy(s.la);
  if (s.lb) cublasLtMatrixLayoutDestroy(s.lb);
  if (s.lc) cublasLtMatrixLayoutDestroy(s.lc);
  if (s.op) cublasLtMatmulDescDestroy(s.op);
  if (s.handle) cublasLtDestroy(s.handle);
  delete impl_;
}

void LtBlockwiseGemm::run(const void* a, const float* sfa, const void* b, const float* sfb, void* d,
                          cudaStream_t stream) const {
  if (!ok()) {
    std::fprintf(stderr, "error: LtBlockwiseGemm::run without an algorithm: %s\n", error_.c_str());
    std::exit(EXIT_FAIL);
  }
  Impl& s = *impl_;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa));
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(s.handle, s.op, &alpha, b, s.la, a, s.lb, &beta, d, s.lc, d, s.lc, &s.heur.algo,
                              s.workspace, s.workspace_bytes, stream));
}

std::string LtBlockwiseGemm::describe() const {
  return "cuBLASLt e4m3 x e4m3, scales BLK128x128_32F (B) x VEC128_32F (A) -> bf16, fp32 accumulate, TN";
}

// ---- the verdict ----
double bw_tolerance_eps(int64_t k) {
  const int64_t blocks = (k + BW_BLOCK - 1) / BW_BLOCK;
  return std::ldexp(1.0, -5) + std::ldexp(1.0, -7) + double(3 * blocks + 4) * std::ldexp(1.0, -24);
}

std::string BwCheck::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "rel_err=%.3e max_abs=%.3e max_err/bound=%.3e (bound eps*sum|a||b|, eps=%.3e) nonfinite=%zu "
                "bad=%zu %s",
                rel_frob, max_abs, max_ratio, eps, nonfinite, bad, pass ? "PASS" : "FAIL");
  return buf;
}

BwCheck check_bw_output(const uint16_t* out, const double* ref, const double* abs_sum, size_t count, int64_t k) {
  BwCheck r;
  r.eps         = bw_tolerance_eps(k);
  double err_sq = 0, ref_sq = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t bits = uint32_t(out[i]) << 16;
    float of;
    std::memcpy(&of, &bits, sizeof of);
    const double o = of, e = ref[i];
    if (!std::isfinite(o) || !std::isfinite(e)) {
      ++r.nonfinite;
      if (r.first_bad == SIZE_MAX) r.first_bad = i;
      continue;
    }
    const double d = std::fabs(o - e), bound = r.eps * abs_sum[i];
    err_sq += d * d;
    ref_sq += e * e;
    if (d > r.max_abs) r.max_abs = d;
    if (bound > 0 && d / bound > r.max_ratio) r.max_ratio = d / bound;
    if (!(d <= bound)) {
      if (bound == 0 && r.max_ratio < 1e30) r.max_ratio = 1e30;  // a non-zero error where none is allowed
      ++r.bad;
      if (r.first_bad == SIZE_MAX) r.first_bad = i;
    }
  }
  r.rel_frob = ref_sq > 0 ? std::sqrt(err_sq / ref_sq) : std::sqrt(err_sq);
  r.pass     = count > 0 && r.nonfinite == 0 && r.bad == 0;
  return r;
}

}  // namespace gemm
