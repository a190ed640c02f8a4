// mx_lt_ref_sm100.cpp: cuBLASLt MXFP8 (VEC32_UE8M0) as the Blackwell reference. Not run in this project (no
// Blackwell GPU); see the header.
#include "mxfp8/mx_lt_ref_sm100.h"

#include <cublasLt.h>

#include <cstdio>

#include "common/check.h"
#include "common/problem.h"  // EXIT_FAIL

namespace gemm {

std::string lt_mxfp8_unavailable_reason() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return "no CUDA device";
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return "cannot read the compute capability";
  if (major != 10)
    return "cuBLASLt MXFP8 (VEC32_UE8M0 scales) needs compute capability 10.x; this GPU is " +
           std::to_string(major) + "." + std::to_string(minor);
  return "";
}

struct LtMxfp8Gemm::Impl {
  cublasLtHandle_t handle   = nullptr;
  cublasLtMatmulDesc_t op   = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t heur{};
  void* workspace        = nullptr;
  size_t workspace_bytes = size_t(32) << 20;
};

namespace {
// A cuBLAS status as the refusal line (no exit: the caller reports "no reference" and skips).
std::string lt_error(const char* call, cublasStatus_t st) {
  return std::string(call) + " returned cuBLAS status " + std::to_string(int(st));
}
}  // namespace

// Row-major D[M,N] = A B^T is column-major D^T[N,M] = B A^T: cuBLAS's "A" is our B (K x N, ld K, transposed),
// its "B" is our A (K x M, ld K). So cuBLAS's A scales are our SFB, its B scales our SFA: the blocked layout
// of each is over its own rows (N for B, M for A) and K / 32, which is what the quantizer writes.
//
// Shapes: cuBLASLt's FP8 GEMMs (MXFP8 included) require the alignments that the cuBLAS documentation lists
// under "Tensor Core Usage" (cublasLtMatmul, FP8 requirements): in cuBLAS's column-major terms every leading
// dimension times its element size, the K extent of a transposed operand and the row count of D times its
// element size must be multiples of 16 bytes, and every pointer 16-byte aligned. Here lda = ldb = K e4m3
// bytes (a multiple of 32 in any MXFP8 GEMM: it holds) and D has N fp32 per row of our C: N * 4 must be a
// multiple of 16. Where it is not (N = 777: a row of 3108 bytes) the class refuses up front, before asking
// for an algorithm that the documentation does not promise, and the caller settles without this reference.
// (cuBLASLt 13.1's per-tensor e4m3 GEMM on an H100 follows exactly this rule: matmul_mxfp8_main.cpp.)
LtMxfp8Gemm::LtMxfp8Gemm(int64_t m, int64_t n, int64_t k, const void* sfa, const void* sfb) {
  error_ = lt_mxfp8_unavailable_reason();
  if (!error_.empty()) return;
  if (k % 16 != 0 || (n * 4) % 16 != 0) {
    error_ = "cuBLASLt's FP8 GEMMs need 16-byte leading dimensions: a row of C is N=" + std::to_string(n) +
             " fp32 = " + std::to_string(n * 4) + " bytes and a row of A and B K=" + std::to_string(k) +
             " bytes (N must be a multiple of 4, K of 16)";
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
  const cublasLtMatmulMatrixScale_t vec32 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &vec32, sizeof vec32));
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &vec32, sizeof vec32));
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb));
  LT_TRY(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa));
  LT_TRY(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_8F_E4M3, uint64_t(k), uint64_t(n), k));
  LT_TRY(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_8F_E4M3, uint64_t(k), uint64_t(m), k));
  LT_TRY(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_32F, uint64_t(n), uint64_t(m), n));
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
    error_ = "cuBLASLt has no MXFP8 algorithm for M=" + std::to_string(m) + " N=" + std::to_string(n) +
             " K=" + std::to_string(k);
}

LtMxfp8Gemm::~LtMxfp8Gemm() {
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

void LtMxfp8Gemm::run(const void* a, const void* sfa, const void* b, const void* sfb, float* c,
                      cudaStream_t stream) const {
  if (!ok()) {
    std::fprintf(stderr, "error: LtMxfp8Gemm::run without a reference: %s\n", error_.c_str());
    std::exit(EXIT_FAIL);
  }
  Impl& s = *impl_;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa));
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(s.handle, s.op, &alpha, b, s.la, a, s.lb, &beta, c, s.lc, c, s.lc, &s.heur.algo,
                              s.workspace, s.workspace_bytes, stream));
}

std::string LtMxfp8Gemm::describe() const {
  return "cuBLASLt MXFP8 (e4m3 x e4m3, VEC32_UE8M0 scales) -> fp32, fp32 accumulate, TN";
}

}  // namespace gemm
