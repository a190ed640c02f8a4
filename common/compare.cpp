#include "common/compare.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace gemm {

uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) return uint16_t((u >> 16) | 0x0040u);  // NaN
  u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest even
  return uint16_t(u >> 16);
}

std::string CompareResult::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "rel_err=%.3e max_abs=%.3e nonfinite=%zu bad=%zu %s", rel_frob, max_abs,
                nonfinite, bad, pass ? "PASS" : "FAIL");
  return buf;
}

CompareResult compare_bf16(const uint16_t* out, const uint16_t* ref, size_t count, const Tolerance& tol) {
  CompareResult r;
  // Pass 1: the scale of the reference, for the absolute part of the element-wise tolerance.
  double ref_sq = 0;
  for (size_t i = 0; i < count; ++i) {
    const double v = bf16_to_float(ref[i]);
    ref_sq += v * v;
  }
  const double ref_rms = count ? std::sqrt(ref_sq / double(count)) : 0.0;
  const double abs_tol = tol.abs_scale * ref_rms;

  // Pass 2: errors.
  double err_sq = 0;
  for (size_t i = 0; i < count; ++i) {
    const double o = bf16_to_float(out[i]);
    const double e = bf16_to_float(ref[i]);
    if (!std::isfinite(o)) {
      ++r.nonfinite;
      if (r.first_bad == SIZE_MAX) r.first_bad = i;
      continue;
    }
    const double d = std::fabs(o - e);
    err_sq += d * d;
    if (d > r.max_abs) r.max_abs = d;
    if (!(d <= tol.rel_elem * std::fabs(e) + abs_tol)) {
      ++r.bad;
      if (r.first_bad == SIZE_MAX) r.first_bad = i;
    }
  }
  r.rel_frob = ref_sq > 0 ? std::sqrt(err_sq / ref_sq) : std::sqrt(err_sq);
  r.pass     = count > 0 && r.nonfinite == 0 && r.bad == 0 && r.rel_frob <= tol.rel_frob;
  return r;
}

}  // namespace gemm
