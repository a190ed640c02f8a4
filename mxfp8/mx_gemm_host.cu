#include "mxfp8/mx_gemm_host.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "common/check.h"
#include "common/lt_tn.h"
#include "common/mx_scale_layout.h"
#include "common/problem.h"
#include "mxfp8/mx_promote.h"

namespace gemm {

namespace {

__host__ __device__ inline uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__host__ __device__ inline bool is_outlier_row(uint64_t seed, int64_t row, int every) {
  return every > 0 && mix64(seed ^ (0xA5A5A5A5ull + uint64_t(row) * 0x100000001B3ull)) % uint64_t(every) == 0;
}

__global__ void fill_normal_kernel(__nv_bfloat16* dst, int64_t rows, int64_t cols, uint64_t seed, int every,
                                   float outlier_scale) {
  const uint64_t key = mix64(seed);
  const size_t count = size_t(rows) * size_t(cols);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t h = mix64(key ^ i);
    // Box-Muller from two 24-bit uniforms; u1 in (0, 1] so the log is finite.
    const float u1 = (float(h >> 40) + 1.0f) * (1.0f / 16777216.0f);
    const float u2 = float((h >> 16) & 0xFFFFFF) * (1.0f / 16777216.0f);
    float z        = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    if (is_outlier_row(seed, int64_t(i / size_t(cols)), every)) z *= outlier_scale;
    dst[i] = __float2bfloat16(z);
  }
}

__device__ unsigned long long g_inexact;

__global__ void dequantize_kernel(const uint8_t* data, const uint8_t* scales, int64_t rows, int64_t k,
                                  __nv_bfloat16* out, __nv_bfloat16* abs_out) {
  const size_t count   = size_t(rows) * size_t(k);
  const int scale_cols = int(k / MX_BLOCK_K);
  unsigned long long inexact = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const int row = int(i / size_t(k)), col = int(i % size_t(k));
    const uint8_t s = scales[mx_scale_offset(row, col / MX_BLOCK_K, scale_cols)];
    const __half_raw h = __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(data[i]), __NV_E4M3);
    const float v      = __half2float(__half(h));  // e4m3 -> fp16 -> fp32: exact
    const float sf     = e8m0_to_float(s);
    const float w      = v * sf;  // exact unless it underflows below fp32's subnormals
    const __nv_bfloat16 b = __float2bfloat16_rn(w);
    if (!(isfinite(w) && w / sf == v && __bfloat162float(b) == w)) ++inexact;
    out[i] = b;
    if (abs_out) abs_out[i] = __habs(b);
  }
  if (inexact) atomicAdd(&g_inexact, inexact);
}

}  // namespace

int64_t fill_random_normal_bf16(void* dst, int64_t rows, int64_t cols, uint64_t seed, int outlier_every,
                                float outlier_scale) {
  fill_normal_kernel<<<1024, 256>>>(static_cast<__nv_bfloat16*>(dst), rows, cols, seed, outlier_every,
                                    outlier_scale);
  CUDA_CHECK(cudaGetLastError());
  int64_t outliers = 0;
  for (int64_t r = 0; r < rows; ++r) outliers += is_outlier_row(seed, r, outlier_every) ? 1 : 0;
  return outliers;
}

uint64_t dequantize_mx_to_bf16(const void* data, const void* scales, int64_t rows, int64_t k, void* out,
                               void* abs_out) {
  const unsigned long long zero = 0;
  CUDA_CHECK(cudaMemcpyToSymbol(g_inexact, &zero, sizeof zero));
  dequantize_kernel<<<1024, 256>>>(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(scales), rows,
                                   k, static_cast<__nv_bfloat16*>(out), static_cast<__nv_bfloat16*>(abs_out));
  CUDA_CHECK(cudaGetLastError());
  unsigned long long inexact = 0;
  CUDA_CHECK(cudaMemcpyFromSymbol(&inexact, g_inexact, sizeof inexact));
  return inexact;
}

// ---- cuBLASLt ----
struct LtGemm::Impl {
  LtTn lt;
  float* one = nullptr;  // the per-tensor scales of the fp8 GEMM
  cudaDataType ab = CUDA_R_16BF, d = CUDA_R_32F;
};

// common/lt_tn.h holds the TN call and its transposes; the fp8 GEMM adds per-tensor scales of 1.0.
LtGemm::LtGemm(int64_t m, int64_t n, int64_t k, cudaDataType ab_type, cudaDataType d_type) : impl_(new Impl) {
  Impl& s = *impl_;
  s.ab    = ab_type;
  s.d     = d_type;
  lt_require(s.lt.init(m, n, k, ab_type, d_type, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  if (ab_type == CUDA_R_8F_E4M3) {
    const float one = 1.0f;
    CUDA_CHECK(cudaMalloc(&s.one, sizeof(float)));
    CUDA_CHECK(cudaMemcpy(s.one, &one, sizeof one, cudaMemcpyHostToDevice));
    lt_require(s.lt.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s.one, sizeof s.one, "the A scale pointer"));
    lt_require(s.lt.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s.one, sizeof s.one, "the B scale pointer"));
  }
  lt_require(s.lt.pick(1));
  if (s.lt.found() == 0) {
    std::fprintf(stderr, "error: cuBLASLt has no algorithm for %s at M=%lld N=%lld K=%lld\n", describe().c_str(),
                 (long long)m, (long long)n, (long long)k);
    std::exit(EXIT_FAIL);
  }
}

LtGemm::~LtGemm() {
  if (impl_->one) cudaFree(impl_->one);
  delete impl_;
}

void LtGemm::run(const void* a, const void* b, void* d, cudaStream_t stream) const {
  CUBLAS_CHECK(impl_->lt.run(a, b, d, stream));
}

std::string LtGemm::describe() const {
  const Impl& s = *impl_;
  std::string r = s.ab == CUDA_R_8F_E4M3 ? "cuBLASLt e4m3 x e4m3 (per-tensor scales 1.0)" : "cuBLASLt bf16 x bf16";
  return r + " -> " + (s.d == CUDA_R_32F ? "fp32" : "bf16") + ", fp32 accumulate, TN";
}

// ---- the verdict ----
double mx_tolerance_eps(int64_t k) {
  return std::ldexp(1.0, -7) + double(k + k / 32) * std::ldexp(1.0, -24);
}

std::string MxCheck::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "rel_err=%.3e max_abs=%.3e max_err/bound=%.3e (bound eps*sum|a||b|, eps=%.3e) nonfinite=%zu "
                "bad=%zu %s",
                rel_frob, max_abs, max_ratio, eps, nonfinite, bad, pass ? "PASS" : "FAIL");
  return buf;
}

MxCheck check_mx_output(const float* out, const float* ref, const float* abs_sum, size_t count, int64_t k) {
  MxCheck r;
  r.eps         = mx_tolerance_eps(k);
  double err_sq = 0, ref_sq = 0;
  for (size_t i = 0; i < count; ++i) {
    const double o = out[i], e = ref[i];
    if (!std::isfinite(o) || !std::isfinite(e)) {
      ++r.nonfinite;
      if (r.first_bad == SIZE_MAX) r.first_bad = i;
      continue;
    }
    const double d = std::fabs(o - e), bound = r.eps * double(abs_sum[i]);
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
