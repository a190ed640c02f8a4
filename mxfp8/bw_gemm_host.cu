#include "mxfp8/bw_gemm_host.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "common/check.h"
#include "common/lt_tn.h"
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

}  // namespace

void dequantize_bw_to_f64(const void* data, const float* scales, BwGranularity g, int64_t rows, int64_t k,
                          double* out, double* abs_out, cudaStream_t stream) {
  dequantize_bw_kernel<<<1024, 256, 0, stream>>>(static_cast<const uint8_t*>(data), scales, g, rows, k, out,
                                                 abs_out);
  CUDA_CHECK(cudaGetLastError());
}

// ---- fp64 reference ----
struct LtGemmF64::Impl {
  LtTn lt;
};

// fp64 in and out, fp64 accumulation and scale (common/lt_tn.h: the TN call and its transposes).
LtGemmF64::LtGemmF64(int64_t m, int64_t n, int64_t k) : impl_(new Impl) {
  LtTn& lt = impl_->lt;
  lt_require(lt.init(m, n, k, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F));
  lt_require(lt.pick(1));
  if (lt.found() == 0) {
    std::fprintf(stderr, "error: cuBLASLt has no fp64 algorithm for M=%lld N=%lld K=%lld\n", (long long)m,
                 (long long)n, (long long)k);
    std::exit(EXIT_FAIL);
  }
}

LtGemmF64::~LtGemmF64() {
  delete impl_;
}

void LtGemmF64::run(const double* a, const double* b, double* d, cudaStream_t stream) const {
  CUBLAS_CHECK(impl_->lt.run(a, b, d, stream));
}

// ---- cuBLASLt blockwise FP8 ----
struct LtBlockwiseGemm::Impl {
  LtTn lt;
};

LtBlockwiseGemm::LtBlockwiseGemm(int64_t m, int64_t n, int64_t k, const float* sfa, const float* sfb) {
  if (m % 4 != 0 || n % 4 != 0 || k % 16 != 0 || (n * 2) % 16 != 0) {
    error_ = "cuBLASLt's blockwise FP8 GEMM needs M and N multiples of 4 (its 1x128 scale layout), K of 16 and "
             "16-byte rows of bf16 D (N a multiple of 8); this is M=" +
             std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k);
    return;
  }
  impl_    = new Impl;
  LtTn& lt = impl_->lt;
  // cuBLAS's A is our B (weights, 128x128), its B our A (activations, 1x128)
  const cublasLtMatmulMatrixScale_t blk = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  const cublasLtMatmulMatrixScale_t vec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  std::string err = lt.init(m, n, k, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &blk, sizeof blk, "the A scale mode");
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &vec, sizeof vec, "the B scale mode");
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb, "the A scale pointer");
  if (err.empty()) err = lt.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa, "the B scale pointer");
  if (err.empty()) err = lt.pick(1);
  if (err.empty() && lt.found() == 0)
    err = "cuBLASLt has no blockwise FP8 algorithm for M=" + std::to_string(m) + " N=" + std::to_string(n) +
          " K=" + std::to_string(k);
  error_ = err;
}

LtBlockwiseGemm::~LtBlockwiseGemm() {
  delete impl_;
}

void LtBlockwiseGemm::run(const void* a, const float* sfa, const void* b, const float* sfb, void* d,
                          cudaStream_t stream) const {
  if (!ok()) {
    std::fprintf(stderr, "error: LtBlockwiseGemm::run without an algorithm: %s\n", error_.c_str());
    std::exit(EXIT_FAIL);
  }
  LtTn& lt = impl_->lt;
  lt_require(lt.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfb, sizeof sfb, "the A scale pointer"));
  lt_require(lt.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sfa, sizeof sfa, "the B scale pointer"));
  CUBLAS_CHECK(lt.run(a, b, d, stream));
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
