// mx_quant.h: MXFP8, the format and the plain CPU reference quantizer that defines it, bit for bit.
// The GPU quantizer (mxfp8/mx_quant.cu) must produce the same bytes; tests/test_mx_quant.cpp pins these
// rules down with hand-computed bytes and tests/test_mx_quant_gpu.cpp compares the two.
//
// The format (OCP Microscaling Formats (MX) v1.0; docs/mxfp8-quantizer.md):
//  - data: e4m3 ("fn": bias 7, 3 mantissa bits, no infinity, NaN = 0x7F / 0xFF, largest finite ±448 =
//    1.75 * 2^8, smallest subnormal 2^-9), one byte per element, same [rows, K] K-major layout as the input;
//  - scales: e8m0 (an unsigned biased exponent: byte s means 2^(s - 127), 0x00 = 2^-127, 0xFE = 2^127,
//    0xFF = NaN, no zero), one per 1x32 block along K, stored in the blocked layout of
//    common/mx_scale_layout.h (the one the tcgen05 block-scaled MMA and cuBLASLt read);
//  - an element's value is e4m3(data) * 2^(scale - 127).
//
// Quantizing one block of 32 values v (this file is the definition; every step is exact but the one cast):
//  1. amax = max |v|. A NaN or an infinity anywhere in the block: scale 0xFF (NaN) and all 32 data bytes
//     0x7F (e4m3 NaN). MX has no infinity, and a NaN scale makes every element of the block decode to NaN
//     whatever its bits (OCP MX v1.0); the block stays loudly non-finite in any GEMM that reads it instead
//     of turning an Inf into a silent 448 * scale.
//  2. The scale exponent e:
//     FLOOR (OCP MX v1.0):  e = floor(log2(amax)) - 8        (8 = emax of e4m3: 448 lies in [2^8, 2^9))
//     RCEIL (NVIDIA, torchao's default): e = ceil(log2(amax / 448)), the smallest e with amax <= 448 * 2^e.
//     Both equal floor(log2(amax)) - 8, except that RCEIL adds 1 when amax's significand is above 1.75,
//     which is exactly when FLOOR's largest element lands above 448 and saturates.
//     e is clamped below to -127, e8m0's smallest scale (2^-127): an all-zero block (log2(0) = -inf) gets
//     scale 0x00 by this same clamp, with no special case; so do blocks too small to reach the normal e4m3
//     range (amax < 2^-119), whose elements then round to e4m3 subnormals or zero. No clamp above is
//     needed: the largest finite fp32 gives e = 120 (RCEIL) or 119 (FLOOR), scale byte 0xF7 / 0xF6.
//  3. data = e4m3(v * 2^-e): v * 2^-e is exact (a power-of-two scaling of a bf16 / fp32 value), then one
//     rounding to nearest, ties to even, onto the e4m3 grid (quantum 2^-9 below 2^-6, where the results
//     are subnormal; 2^(floor(log2|x|) - 3) above), a tie going to the even significand even where that
//     crosses into the next binade (15.5 -> 16). Results above 448 saturate to ±448 (PTX cvt .satfinite);
//     only FLOOR can produce them. Signs are kept: -0 and negative values rounding to zero give 0x80.
//  4. The scale byte is e + 127.
// Padding of the blocked layout (rows up to a multiple of 128, scale columns up to a multiple of 4): 0x00,
// i.e. 2^-127. The MMA reads whole 128x4 tiles, so padding scales multiply the zeros that TMA fills in past
// the tensor's rows and K. They must not be 0xFF (NaN * 0 = NaN would reach real outputs through the K
// padding). Any finite byte gives 0 there; 0x00 is also the smallest possible weight for a non-zero byte
// that might sit in padded data (|448 * 2^-127 * 448 * 2^127| < 2^18, never an overflow), it is what a
// cudaMemset(0) of the buffer writes, and what torchao's to_blocked pads with.
//
// Where cuda_fp8.h is used: nowhere in this file. The e4m3 rounding and the scale rules are written out
// below; tests/test_mx_quant.cpp checks them bit for bit against cuda_fp8.h's host conversions
// (__nv_cvt_float_to_fp8 with __NV_SATFINITE, __nv_cvt_float_to_e8m0 with cudaRoundPosInf), and the GPU
// kernel relies on the hardware's cvt.rn.satfinite.e4m3x2.f32.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/mx_scale_layout.h"

// Test-only mutations (tests/CMakeLists.txt builds the CPU tests once per mutant and expects them to fail):
// 1 FLOOR off by one (e = floor(log2 amax) - 7), 2 rounding toward zero instead of to nearest even,
// 3 RCEIL as ceil(log2(amax)) - 8 (the exponent of amax rounded up, not of amax / 448).
#ifndef MX_QUANT_MUTANT
#define MX_QUANT_MUTANT 0
#endif

namespace gemm {

enum class MxRule { Floor, Rceil };
inline const char* mx_rule_name(MxRule rule) {
  return rule == MxRule::Floor ? "floor" : "rceil";
}

constexpr int E4M3_EMAX         = 8;      // exponent of e4m3's largest binade: 448 = 1.75 * 2^8
constexpr double E4M3_MAX       = 448.0;  // largest finite e4m3
constexpr uint8_t E4M3_NAN      = 0x7F;   // e4m3 NaN (0xFF is the other one)
constexpr uint8_t E4M3_MAX_BITS = 0x7E;   // +448
constexpr int E8M0_BIAS         = 127;
constexpr uint8_t E8M0_NAN      = 0xFF;
constexpr int MX_SCALE_EXP_MIN  = -127;  // e8m0 0x00
constexpr int MX_SCALE_EXP_MAX  = 127;   // e8m0 0xFE
constexpr uint8_t MX_SCALE_PAD  = 0x00;  // padding bytes of the blocked layout: 2^-127 (see the header)

// ---- e4m3 and e8m0, one value at a time ----

inline double e4m3_to_double(uint8_t bits) {
  const int exp = (bits >> 3) & 0xF, man = bits & 7;
  if (exp == 15 && man == 7) return NAN;
  const double mag = exp == 0 ? std::ldexp(man, -9) : std::ldexp(8 + man, exp - 10);
  return (bits & 0x80) ? -mag : mag;
}

inline double e8m0_to_double(uint8_t bits) {
  return bits == E8M0_NAN ? NAN : std::ldexp(1.0, int(bits) - E8M0_BIAS);
}

// x rounded to nearest e4m3, ties to even, saturating to ±448; NaN gives 0x7F. (PTX cvt.rn.satfinite.e4m3x2)
inline uint8_t e4m3_from_double(double x) {
  if (std::isnan(x)) return E4M3_NAN;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a     = std::fabs(x);
  // Saturation: everything above 448 (infinity included) becomes 448. Under round-to-nearest the values in
  // (448, 464] would round to 448 anyway; those above would round to 480, which e4m3 spends on NaN.
  if (a >= E4M3_MAX) return sign | E4M3_MAX_BITS;
  // The quantum (distance between neighbours) of a's binade: 2^-9 for subnormals (a < 2^-6), else 2^-3 of
  // the binade's power of two. a / quantum is exact: a power-of-two division of a double far from underflow.
  const double quantum = a < std::ldexp(1.0, -6) ? std::ldexp(1.0, -9) : std::ldexp(1.0, std::ilogb(a) - 3);
  const double q       = a / quantum;
  double n             = std::floor(q);
#if MX_QUANT_MUTANT != 2
  const double frac = q - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) == 1.0)) n += 1.0;  // to nearest, ties to even
#endif
  const double r = n * quantum;  // may be the first value of the next binade (15.5 -> 16), at most 448
  if (r < std::ldexp(1.0, -6)) return sign | uint8_t(n);  // subnormal: exponent field 0, r = n * 2^-9
  const int e = std::ilogb(r);                            // r = (8 + man) * 2^(e - 3)
  return sign | uint8_t(((e + 7) << 3) | (int(std::ldexp(r, 3 - e)) - 8));
}

// The scale exponent of a block with largest magnitude amax (finite, >= 0), in [-127, 127].
inline int mx_scale_exponent(double amax, MxRule rule) {
  if (amax == 0.0) return MX_SCALE_EXP_MIN;  // log2(0) = -inf, clamped like any other tiny amax
  int e = std::ilogb(amax) - E4M3_EMAX;      // FLOOR: floor(log2(amax)) - 8 (ilogb is exact)
#if MX_QUANT_MUTANT == 1
  if (rule == MxRule::Floor) e += 1;
#endif
  if (rule == MxRule::Rceil) {
#if MX_QUANT_MUTANT == 3
    if (amax > std::ldexp(1.0, std::ilogb(amax))) e += 1;
#else
    // amax is in [2^(e+8), 2^(e+9)): e - 1 is always too small, e + 1 always enough.
    if (amax > std::ldexp(E4M3_MAX, e)) e += 1;  // smallest e with amax <= 448 * 2^e
#endif
  }
  return std::min(std::max(e, MX_SCALE_EXP_MIN), MX_SCALE_EXP_MAX);
}

// The value of one quantized element.
inline double mx_dequantize(uint8_t data, uint8_t scale) {
  return e4m3_to_double(data) * e8m0_to_double(scale);
}

// ---- one block ----

// Quantizes the 32 values of one block into out[0, 32); returns the block's scale byte.
inline uint8_t mx_quantize_block(const float* v, MxRule rule, uint8_t* out) {
  double amax = 0.0;
  bool finite = true;
  for (int i = 0; i < MX_BLOCK_K; ++i) {
    finite = finite && std::isfinite(v[i]);
    if (std::isfinite(v[i])) amax = std::max(amax, std::fabs(double(v[i])));
  }
  if (!finite) {
    std::memset(out, E4M3_NAN, MX_BLOCK_K);
    return E8M0_NAN;
  }
  const int e = mx_scale_exponent(amax, rule);
  for (int i = 0; i < MX_BLOCK_K; ++i) out[i] = e4m3_from_double(std::ldexp(double(v[i]), -e));
  return uint8_t(e + E8M0_BIAS);
}

// ---- a whole operand [rows, K] ----

// Shapes the quantizers take: K a positive multiple of 32 (whole blocks: the GEMM needs them too, and it
// keeps every 16-byte load of the GPU kernel inside one block), rows >= 1, and fewer than 2^31 blocks in
// all (block indices and the layout's row numbers are 32-bit). Returns "" or what is wrong.
inline std::string mx_check_shape(int64_t rows, int64_t k) {
  if (rows < 1 || k < 1)
    return "rows=" + std::to_string(rows) + " K=" + std::to_string(k) + ": both must be >= 1";
  if (k % MX_BLOCK_K != 0)
    return "K=" + std::to_string(k) + " is not a multiple of " + std::to_string(MX_BLOCK_K) +
           " (MXFP8 has one scale per 32 consecutive K elements; try K=" +
           std::to_string((k + MX_BLOCK_K - 1) / MX_BLOCK_K * MX_BLOCK_K) + ")";
  if (rows > (int64_t(1) << 31) - MX_SF_TILE_ROWS || rows * (k / MX_BLOCK_K) >= (int64_t(1) << 31))
    return "rows=" + std::to_string(rows) + " K=" + std::to_string(k) +
           ": at most 2^31 - 1 blocks of 32 (and rows < 2^31 - 128) are supported";
  return "";
}

// Bytes of the e4m3 data and of the blocked scales of a [rows, K] operand.
inline uint64_t mx_data_bytes(int64_t rows, int64_t k) {
  return uint64_t(rows) * uint64_t(k);
}
inline uint64_t mx_scale_tensor_bytes(int64_t rows, int64_t k) {
  return mx_scale_bytes(int(rows), mx_scale_cols(int(k)));
}

inline float bf16_bits_to_float(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;  // bf16 is the top half of an fp32: exact
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

namespace detail {
template <typename Load>
void mx_quantize_rows(Load load, int64_t rows, int64_t k, MxRule rule, uint8_t* data, uint8_t* scales) {
  const int scale_cols = mx_scale_cols(int(k));
  std::memset(scales, MX_SCALE_PAD, mx_scale_tensor_bytes(rows, k));
  float block[MX_BLOCK_K];
  for (int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < scale_cols; ++j) {
      const int64_t first = r * k + int64_t(j) * MX_BLOCK_K;
      for (int i = 0; i < MX_BLOCK_K; ++i) block[i] = load(first + i);
      scales[mx_scale_offset(int(r), j, scale_cols)] = mx_quantize_block(block, rule, data + first);
    }
}
}  // namespace detail

// The reference: in [rows, K] row-major (bf16 as raw bits, or fp32) -> data [rows, K] e4m3 and scales
// (mx_scale_tensor_bytes(rows, K) bytes, blocked layout, padding MX_SCALE_PAD). The shape must pass
// mx_check_shape.
inline void mx_quantize_ref_bf16(const uint16_t* in, int64_t rows, int64_t k, MxRule rule, uint8_t* data,
                                 uint8_t* scales) {
  detail::mx_quantize_rows([in](int64_t i) { return bf16_bits_to_float(in[i]); }, rows, k, rule, data,
                           scales);
}
inline void mx_quantize_ref_f32(const float* in, int64_t rows, int64_t k, MxRule rule, uint8_t* data,
                                uint8_t* scales) {
  detail::mx_quantize_rows([in](int64_t i) { return in[i]; }, rows, k, rule, data, scales);
}

}  // namespace gemm
