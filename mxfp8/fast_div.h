// fast_div.h: division of 31-bit numerators by a runtime divisor as one 64-bit multiply and a shift, with
// the multiplier computed once on the host (Granlund & Montgomery, "Division by invariant integers using
// multiplication", 1994). The MXFP8 quantizer divides every block index by K/32 to find its row; the
// compiler's generic 32-bit division costs ~15 instructions there, this costs 2.
//
// For a divisor d >= 1, l = ceil(log2 d) and m = ceil(2^(31+l) / d) (< 2^32). Then for every n < 2^31,
// floor(n * m / 2^(31+l)) = floor(n / d): with e = m*d - 2^(31+l) (0 <= e < d <= 2^l),
// n*m / 2^(31+l) = n/d + n*e / (d * 2^(31+l)), and the error term is below 1/d because n*e < 2^31 * 2^l,
// too small to carry n/d past the next integer (n/d's fractional part is at most 1 - 1/d).
// tests/test_mx_quant.cpp checks it against '/' on every divisor up to 4096 and on numerators near 2^31.
#pragma once

#include <cstdint>

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

struct FastDiv {
  uint32_t divisor    = 1;
  uint32_t multiplier = 1u << 31;
  uint32_t shift      = 31;
};

// The multiplier and shift for divisor d (1 <= d < 2^31).
inline FastDiv make_fast_div(uint32_t d) {
  uint32_t l = 0;
  while ((uint64_t(1) << l) < d) ++l;
  const uint64_t power = uint64_t(1) << (31 + l);
  return FastDiv{d, uint32_t((power + d - 1) / d), 31 + l};
}

// floor(n / f.divisor) for n < 2^31.
GEMM_HD inline uint32_t fast_div(uint32_t n, const FastDiv& f) {
  return uint32_t((uint64_t(n) * f.multiplier) >> f.shift);
}

}  // namespace gemm
