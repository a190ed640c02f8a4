#include "common/lt_tn.h"

#include <cstdio>
#include <cstdlib>

#include "common/check.h"    // cublasLt_status_name
#include "common/problem.h"  // EXIT_FAIL

namespace gemm {

namespace {
std::string lt_error(const char* call, cublasStatus_t st) {
  return std::string(call) + " returned cuBLAS status " + std::to_string(int(st)) + " (" +
         cublasLt_status_name(st) + ")";
}
}  // namespace

#define LT_TRY(call)                                               \
  do {                                                             \
    const cublasStatus_t st_ = (call);                             \
    if (st_ != CUBLAS_STATUS_SUCCESS) return lt_error(#call, st_); \
  } while (0)

std::string LtTn::init(int64_t m, int64_t n, int64_t k, cudaDataType ab_type, cudaDataType d_type,
                       cublasComputeType_t compute, cudaDataType scale_type) {
  scale_type_ = scale_type;
  LT_TRY(cublasLtCreate(&handle_));
  LT_TRY(cublasLtMatmulDescCreate(&op_, compute, scale_type));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  LT_TRY(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a));
  LT_TRY(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b));
  LT_TRY(cublasLtMatrixLayoutCreate(&la_, ab_type, uint64_t(k), uint64_t(n), k));
  LT_TRY(cublasLtMatrixLayoutCreate(&lb_, ab_type, uint64_t(k), uint64_t(m), k));
  LT_TRY(cublasLtMatrixLayoutCreate(&lc_, d_type, uint64_t(n), uint64_t(m), n));
  const cudaError_t err = cudaMalloc(&workspace_, workspace_bytes_);
  if (err != cudaSuccess) {
    workspace_ = nullptr;
    return std::string("cudaMalloc of the cuBLASLt workspace failed: ") + cudaGetErrorString(err);
  }
  return "";
}

std::string LtTn::set(cublasLtMatmulDescAttributes_t attr, const void* value, size_t bytes,
                      const char* what) {
  const cublasStatus_t st = cublasLtMatmulDescSetAttribute(op_, attr, value, bytes);
  return st == CUBLAS_STATUS_SUCCESS ? "" : lt_error(what, st);
}

std::string LtTn::pick(int want) {
  want                            = want < 1 ? 1 : (want > MAX_ALGOS ? MAX_ALGOS : want);
  cublasLtMatmulPreference_t pref = nullptr;
  LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &workspace_bytes_, sizeof workspace_bytes_);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(handle_, op_, la_, lb_, lc_, lc_, pref, want, heur_, &found_);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS) {
    found_ = 0;
    return lt_error("cublasLtMatmulAlgoGetHeuristic", st);
  }
  return "";
}

#undef LT_TRY

cublasStatus_t LtTn::run(const void* a, const void* b, void* d, cudaStream_t stream, int candidate) const {
  const float alpha32 = 1.0f, beta32 = 0.0f;
  const double alpha64 = 1.0, beta64 = 0.0;
  const bool f64    = scale_type_ == CUDA_R_64F;
  const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta  = f64 ? static_cast<const void*>(&beta64) : &beta32;
  // cuBLAS's A is our B, its B our A (the header)
  return cublasLtMatmul(handle_, op_, alpha, b, la_, a, lb_, beta, d, lc_, d, lc_, &heur_[candidate].algo,
                        workspace_, workspace_bytes_, stream);
}

LtTn::~LtTn() {
  if (workspace_) cudaFree(workspace_);
  if (la_) cublasLtMatrixLayoutDestroy(la_);
  if (lb_) cublasLtMatrixLayoutDestroy(lb_);
  if (lc_) cublasLtMatrixLayoutDestroy(lc_);
  if (op_) cublasLtMatmulDescDestroy(op_);
  if (handle_) cublasLtDestroy(handle_);
}

void lt_require(const std::string& err) {
  if (err.empty()) return;
  std::fprintf(stderr, "error: %s\n", err.c_str());
  std::exit(EXIT_FAIL);
}

}  // namespace gemm
