// compare.h: the verdict on a kernel's output, against the cuBLAS reference, computed on the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gemm {

// bf16 <-> fp32 on the host, bit-exact with cuda_bf16's round-to-nearest-even.
inline float bf16_to_float(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f);

// The output is filled with this bf16 NaN before every checked run: an element the kernel never writes stays
// NaN and is counted as non-finite.
constexpr uint16_t POISON_BF16 = 0xFFFF;

// Tolerance suited to a bf16 output of an fp32-accumulated product. Both results round an fp32 sum to bf16
// (8 bits of mantissa, relative step 2^-8): they agree to about one bf16 ulp. An element fails when
//   |out - ref| > REL_TOL_ELEM * |ref| + ABS_TOL_SCALE * rms(ref)
// (the absolute term covers outputs near zero, whose fp32 sums differ by summation order), and the whole
// output fails when its relative Frobenius error exceeds REL_TOL_FROB or any element is NaN/Inf.
struct Tolerance {
  double rel_elem  = 1.0 / 64;  // 2^-6: four bf16 ulps at the element's magnitude
  double abs_scale = 1e-3;
  double rel_frob  = 5e-3;
};

struct CompareResult {
  double rel_frob  = 0;         // ||out - ref||_F / ||ref||_F over the finite elements
  double max_abs   = 0;         // max |out - ref| over the finite elements
  size_t nonfinite = 0;         // NaN or Inf in the output (poison that was never overwritten counts here)
  size_t bad       = 0;         // finite elements outside the element-wise tolerance
  size_t first_bad = SIZE_MAX;  // index of the first NaN/Inf or out-of-tolerance element
  bool pass        = false;
  std::string summary() const;  // "rel_err=... max_abs=... nonfinite=... bad=... PASS"
};

CompareResult compare_bf16(const uint16_t* out, const uint16_t* ref, size_t count, const Tolerance& tol = {});

// Where the kernel and cuBLAS disagree beyond the element-wise tolerance: each such element against the exact
// dot product (fp64 on the host, from the bf16 inputs A[m,k] and B[n,k], both K-major). At some ragged shapes
// cuBLAS's own kernel choice is the one that is off (docs/performance/v6-what-bounds-it.md, "The answer": at
// 2049x2049x2056 it misses the exact value at ~66 000 elements). The kernel must be within the tolerance of
// the exact value at every element where it disagrees with cuBLAS; cuBLAS's misses are counted and reported,
// not judged.
struct Recheck {
  size_t checked    = 0;  // elements where out and ref disagree beyond the tolerance (= CompareResult::bad)
  size_t kernel_off = 0;  // of those, where out is outside the tolerance of the exact value
  size_t cublas_off = 0;  // of those, where ref is outside the tolerance of the exact value
  size_t first      = SIZE_MAX;
  double first_kernel = 0, first_cublas = 0, first_exact = 0;
  // The kernel's relative Frobenius error against the corrected reference: cuBLAS's value where the two
  // agree, the exact value where they disagree.
  double rel_frob = 0;
  double rel_frob_tol = 0;
  // The kernel is right wherever the two disagree, and close to the corrected reference as a whole.
  bool settled() const { return kernel_off == 0 && rel_frob <= rel_frob_tol; }
  std::string summary(int64_t n) const;  // one line: counts and the first disagreement
};
Recheck recheck_exact(const uint16_t* a, const uint16_t* b, int64_t m, int64_t n, int64_t k, const uint16_t* out,
                      const uint16_t* ref, const Tolerance& tol = {});

// TFLOPS of a GEMM: 2*M*N*K flops over the time in milliseconds.
inline double gemm_tflops(int64_t m, int64_t n, int64_t k, double ms) {
  return 2.0 * double(m) * double(n) * double(k) / (ms * 1e-3) / 1e12;
}

}  // namespace gemm
