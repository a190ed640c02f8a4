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

// TFLOPS of a GEMM: 2*M*N*K flops over the time in milliseconds.
inline double gemm_tflops(int64_t m, int64_t n, int64_t k, double ms) {
  return 2.0 * double(m) * double(n) * double(k) / (ms * 1e-3) / 1e12;
}

}  // namespace gemm
