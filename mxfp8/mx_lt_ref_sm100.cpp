// mx_lt_ref_sm100.cpp: cuBLASLt MXFP8 (VEC32_UE8M0) as the Blackwell reference. Not run in this project (no
// Blackwell GPU); see the header.
#include "mxfp8/mx_lt_ref_sm100.h"

#include <cublasLt.h>

#include <cstdio>

#include "common/check.h"
#include "common/lt_tn.h"
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
  LtTn lt;
};

// cuBLAS's "A" is our B and its "B" our A (common/lt_tn.h), so cuBLAS's A scales are our SFB, its B scales
// our SFA: the blocked layout of each is over its own rows (N for B, M for A) and K / 32, which is what the
// quantizer writes.
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
  impl_    = new Impl;
  LtTn& lt = impl_->lt;
  const cublasLtMatmulMatrixScale_t vec32 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
  std::string err = lt.init(m, n, k, CUDA_R_8F_E4M3, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &vec32, sizeof vec32, "the A scale mode");
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &vec32, sizeof vec32, "the B scale mode");
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb, "the A scale pointer");
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa, "the B scale pointer");
  if (err.empty()) err = lt.pick(1);
  if (err.empty() && lt.found() == 0)
    err = "cuBLASLt has no MXFP8 algorithm for M=" + std::to_string(m) + " N=" + std::to_string(n) +
          " K=" + std::to_string(k);
  error_ = err;
}

LtMxfp8Gemm::~LtMxfp8Gemm() {
  delete impl_;
}

void LtMxfp8Gemm::run(const void* a, const void* sfa, const void* b, const void* sfb, float* c,
                      cudaStream_t stream) const {
  if (!ok()) {
    std::fprintf(stderr, "error: LtMxfp8Gemm::run without a reference: %s\n", error_.c_str());
    std::exit(EXIT_FAIL);
  }
  LtTn& lt = impl_->lt;
  lt_require(lt.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb, "the A scale pointer"));
  lt_require(lt.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa, "the B scale pointer"));
  CUBLAS_CHECK(lt.run(a, b, c, stream));
}

std::string LtMxfp8Gemm::describe() const {
  return "cuBLASLt MXFP8 (e4m3 x e4m3, VEC32_UE8M0 scales) -> fp32, fp32 accumulate, TN";
}

}  // namespace gemm
