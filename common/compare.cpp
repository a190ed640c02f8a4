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

Recheck recheck_exact(const uint16_t* a, const uint16_t* b, int64_t m, int64_t n, int64_t k, const uint16_t* out,
                      const uint16_t* ref, const Tolerance& tol) {
  const size_t count = size_t(m) * size_t(n);
  double ref_sq      = 0;  // the same absolute term as compare_bf16: a fraction of the reference's RMS
  for (size_t i = 0; i < count; ++i) ref_sq += double(bf16_to_float(ref[i])) * bf16_to_float(ref[i]);
  const double abs_tol = tol.abs_scale * std::sqrt(ref_sq / double(count > 0 ? count : 1));
  auto off = [&](double x, double e) { return !(std::fabs(x - e) <= tol.rel_elem * std::fabs(e) + abs_tol); };
  Recheck rc;
  rc.rel_frob_tol = tol.rel_frob;
  double err_sq = 0, cref_sq = 0;  // against the corrected reference
  for (size_t i = 0; i < count; ++i) {
    const double o = bf16_to_float(out[i]), e = bf16_to_float(ref[i]);
    if (!off(o, e)) {
      err_sq += (o - e) * (o - e);
      cref_sq += e * e;
      continue;
    }
    const size_t row = i / size_t(n), col = i % size_t(n);
    double exact = 0;
    for (int64_t kk = 0; kk < k; ++kk)
      exact += double(bf16_to_float(a[row * size_t(k) + size_t(kk)])) * bf16_to_float(b[col * size_t(k) + size_t(kk)]);
    if (rc.checked++ == 0) {
      rc.first        = i;
      rc.first_kernel = o;
      rc.first_cublas = e;
      rc.first_exact  = exact;
    }
    rc.kernel_off += off(o, exact);
    rc.cublas_off += off(e, exact);
    err_sq += (o - exact) * (o - exact);
    cref_sq += exact * exact;
  }
  rc.rel_frob = cref_sq > 0 ? std::sqrt(err_sq / cref_sq) : (err_sq > 0 ? INFINITY : 0.0);
  return rc;
}

std::string Recheck::summary(int64_t n) const {
  char buf[400];
  if (checked == 0) return "no disagreement to settle";
  std::snprintf(buf, sizeof buf,
                "settled against the fp64 dot product at the %zu elements where kernel and cuBLAS disagree: "
                "kernel off at %zu, cuBLAS off at %zu (first: row %zu col %zu kernel %.4f cuBLAS %.4f exact "
                "%.4f); kernel rel_err against the corrected reference %.3e",
                checked, kernel_off, cublas_off, first / size_t(n), first % size_t(n), first_kernel, first_cublas,
                first_exact, rel_frob);
  return buf;
}

}  // namespace gemm
