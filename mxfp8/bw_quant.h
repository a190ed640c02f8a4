// bw_quant.h: block-scaled fp8 at the granularities Hopper can afford, and the plain CPU reference quantizer
// that defines it, bit for bit: e4m3 data with one fp32 scale per 1x128 block (activations: one scale per
// row per 128 elements of K) or per 128x128 block (weights), DeepSeek-V3's recipe. The GPU quantizer
// (mxfp8/bw_quant.cu) must produce the same bytes; tests/test_bw_quant.cpp pins these rules down with
// hand-computed values and tests/test_bw_quant_gpu.cpp compares the two.
//
// The format:
//  - data: e4m3 (the same e4m3 as MXFP8, mxfp8/mx_quant.h: bias 7, no infinity, NaN 0x7F / 0xFF, largest
//    finite ±448), one byte per element, same [rows, K] K-major layout as the input;
//  - scales: fp32, one per block, in cuBLASLt's layouts (mxfp8/bw_scale_layout.h: 1x128 rows-contiguous
//    columns of round_up(rows, 4) floats, 128x128 K-blocks-contiguous columns of round_up(L, 4) floats);
//  - an element's value is e4m3(data) * scale.
//
// Quantizing one block (this file is the definition):
//  1. amax = max |v| over the block's elements. A NaN or an infinity anywhere in the block: the scale is NaN
//     (the fp32 bits 0x7FC00000) and every data byte of the block 0x7F (e4m3 NaN), as the MX quantizer
//     does: e4m3 has no infinity, and the block stays loudly non-finite in any GEMM that reads it instead
//     of turning an Inf into a silent 448 * scale. A 128x128 block holds 16384 elements: one Inf in a weight
//     poisons all of them.
//  2. amax is clamped below to BW_AMAX_MIN = 448 * 2^-126 (the fp32 value 0x04E00000), the smallest amax
//     for which amax / 448 is a normal fp32 and 448 / amax is finite. An all-zero block takes this clamp
//     with no special case (scale 2^-126, data zeros with their signs), and so do blocks too small to
//     matter (amax < 5.3e-36), whose scale is then exactly 2^-126 and whose data is exactly v * 2^126
//     rounded. (DeepGEMM's reference helpers clamp at 1e-4 instead, which coarsens every block below it;
//     here the clamp is only as high as fp32 arithmetic needs.)
//  3. scale = amax / 448 and inverse = 448 / amax, each one fp32 division rounded to nearest even. The
//     scale is not rounded to a power of two: plain fp32 amax / 448, as DeepGEMM's and DeepSeek-V3's
//     reference quantizers compute it. (A power of two would make data * scale exact in any precision,
//     but the block's amax would then land anywhere in (224, 448] and lose up to one bit of e4m3
//     precision.)
//  4. data = e4m3(v * inverse): one fp32 multiply rounded to nearest even, then one rounding to nearest
//     e4m3, ties to even, saturating to ±448 (PTX cvt.rn.satfinite.e4m3x2.f32; mx_quant.h's
//     e4m3_from_double, checked against cuda_fp8.h by tests/test_mx_quant.cpp). The multiply, not
//     v / scale: it is what DeepGEMM does, and a division per element would cost the GPU quantizer far
//     more than one per block. amax * inverse is within 2^-23 of 448 relative, so the block's largest
//     element becomes exactly ±448 (0x7E / 0xFE) whenever amax >= BW_AMAX_MIN, and saturation only ever
//     removes that rounding.
// Round trip: |e4m3(data) * scale - v| <= half an e4m3 ulp of v * inverse, times scale, plus |v| * 2^-22
// (scale * inverse is 1 within two fp32 roundings). tests/test_bw_quant.cpp checks the bound.
//
// Shapes (bw_check_shape): rows >= 1; K a positive multiple of 16, so that every e4m3 row starts 16-byte
// aligned (what TMA and cuBLASLt's FP8 GEMMs need). K need not be a multiple of 128: the last block of a row
// is then partial (K % 128 elements wide) and its amax is that of its own elements; no element is invented
// beyond K. Rows need not be a multiple of 128: the last 128x128 row block is partial in the same way.
// cuBLASLt also asks for M and N to be multiples of 4; the quantizers do not, and pad the 1x128 columns to
// round_up(rows, 4) (mxfp8/bw_scale_layout.h).
// Padding floats of the scale tensors: +0.0f. A GEMM never needs them for a real output (they belong to
// rows past M or K blocks past L); a kernel that reads a whole aligned group anyway multiplies them with the
// zeros TMA fills in there, and 0 * 0 = 0 where NaN would poison the sum. It is also what cudaMemset(0)
// writes, and what cuBLAS asks for past a tensor's edge in its 16/32-element block-scaled layout.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "mxfp8/bw_scale_layout.h"
#include "mxfp8/mx_quant.h"  // e4m3_from_double, e4m3_to_double, bf16_bits_to_float

// Test-only mutations (tests/CMakeLists.txt builds the CPU tests once per mutant and expects them to fail):
// 1 the 1x128 scales K-major (row * L + kb), 2 the 128x128 column stride L instead of round_up(L, 4),
// 3 no clamp of amax (an all-zero block gets scale 0 and inverse infinity), 4 the last 1x128 block of a
// ragged row takes its amax over 128 elements, reaching into the next row.
#ifndef BW_QUANT_MUTANT
#define BW_QUANT_MUTANT 0
#endif

namespace gemm {

enum class BwGranularity { Row1x128, Block128x128 };
inline const char* bw_granularity_name(BwGranularity g) {
  return g == BwGranularity::Row1x128 ? "1x128" : "128x128";
}

constexpr float BW_E4M3_MAX          = 448.0f;
constexpr float BW_AMAX_MIN          = 0x1.cp-118f;  // 448 * 2^-126 = 1.75 * 2^-118: scale 2^-126
constexpr uint32_t BW_AMAX_MIN_BITS  = 0x04E00000u;
constexpr uint32_t BW_SCALE_NAN_BITS = 0x7FC00000u;  // the scale of a block holding a NaN or an infinity
constexpr int BW_K_ALIGN             = 16;           // K must be a multiple of this (16-byte e4m3 rows)

inline float bw_float_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline uint32_t bw_bits_from_float(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// ---- one block ----

// The scale and inverse of a block with largest magnitude amax (finite, >= 0), or NaN and NaN.
struct BwBlockScale {
  float scale, inverse;
  bool finite;
};
inline BwBlockScale bw_block_scale(float amax, bool finite) {
  if (!finite) {
    const float nan = bw_float_from_bits(BW_SCALE_NAN_BITS);
    return {nan, nan, false};
  }
#if BW_QUANT_MUTANT != 3
  amax = std::max(amax, BW_AMAX_MIN);
#endif
  const float scale   = amax / BW_E4M3_MAX;  // one fp32 division each, rounded to nearest even
  const float inverse = BW_E4M3_MAX / amax;
  return {scale, inverse, true};
}

// One element's e4m3 byte: e4m3(v * inverse), or 0x7F in a non-finite block.
inline uint8_t bw_encode(float v, const BwBlockScale& s) {
  if (!s.finite) return E4M3_NAN;
  const float x = v * s.inverse;  // one fp32 rounding
  return e4m3_from_double(x);
}

// The value of one quantized element.
inline double bw_dequantize(uint8_t data, float scale) {
  return e4m3_to_double(data) * double(scale);
}

// Quantizes n values that share one scale (one block of either granularity) into out[0, n); returns the
// scale.
inline float bw_quantize_values(const float* v, int n, uint8_t* out) {
  float amax  = 0.0f;
  bool finite = true;
  for (int i = 0; i < n; ++i) {
    finite = finite && std::isfinite(v[i]);
    if (std::isfinite(v[i])) amax = std::max(amax, std::fabs(v[i]));
  }
  const BwBlockScale s = bw_block_scale(amax, finite);
  for (int i = 0; i < n; ++i) out[i] = bw_encode(v[i], s);
  return s.scale;
}

// ---- a whole operand [rows, K] ----

// Shapes the quantizers take (see the header); returns "" or what is wrong and the nearest valid value.
inline std::string bw_check_shape(int64_t rows, int64_t k) {
  if (rows < 1 || k < 1)
    return "rows=" + std::to_string(rows) + " K=" + std::to_string(k) + ": both must be >= 1";
  if (k % BW_K_ALIGN != 0)
    return "K=" + std::to_string(k) + " is not a multiple of " + std::to_string(BW_K_ALIGN) +
           " (each e4m3 row must start 16-byte aligned, as TMA and cuBLASLt's FP8 GEMMs need; a partial last "
           "128-block is fine; try K=" +
           std::to_string((k + BW_K_ALIGN - 1) / BW_K_ALIGN * BW_K_ALIGN) + ")";
  const int64_t limit = (int64_t(1) << 31) - BW_BLOCK;
  if (rows > limit || k > limit)
    return "rows=" + std::to_string(rows) + " K=" + std::to_string(k) + ": each must be at most 2^31 - 128";
  const int64_t col_stride = (rows + BW_LD_ALIGN - 1) / BW_LD_ALIGN * BW_LD_ALIGN;
  if (col_stride * ((k + BW_BLOCK - 1) / BW_BLOCK) >= (int64_t(1) << 31))
    return "rows=" + std::to_string(rows) + " K=" + std::to_string(k) +
           ": at most 2^31 - 1 scales of 1x128 blocks are supported";
  return "";
}

// Bytes of the e4m3 data, and floats and bytes of the scale tensor (padding included), of a [rows, K]
// operand.
inline uint64_t bw_data_bytes(int64_t rows, int64_t k) {
  return uint64_t(rows) * uint64_t(k);
}
inline uint64_t bw_scale_count(BwGranularity g, int64_t rows, int64_t k) {
  return g == BwGranularity::Row1x128 ? bw_1x128_scale_count(int(rows), int(k))
                                      : bw_128x128_scale_count(int(rows), int(k));
}
inline uint64_t bw_scale_tensor_bytes(BwGranularity g, int64_t rows, int64_t k) {
  return bw_scale_count(g, rows, k) * sizeof(float);
}
// Float index of the scale that element (row, col) is quantized with.
inline uint64_t bw_element_scale_index(BwGranularity g, int64_t row, int64_t col, int64_t rows, int64_t k) {
  return g == BwGranularity::Row1x128
             ? bw_1x128_scale_index(int(row), int(col / BW_BLOCK), int(rows))
             : bw_128x128_scale_index(int(row / BW_BLOCK), int(col / BW_BLOCK), int(k));
}

namespace detail {
// Where the reference writes the scale of block (row or row block, kb); the mutants move it.
inline uint64_t bw_ref_scale_index(BwGranularity g, int64_t r, int kb, int64_t rows, int64_t k) {
#if BW_QUANT_MUTANT == 1
  if (g == BwGranularity::Row1x128) return uint64_t(r) * uint64_t(bw_k_blocks(int(k))) + uint64_t(kb);
#endif
#if BW_QUANT_MUTANT == 2
  if (g == BwGranularity::Block128x128) return uint64_t(r) * uint64_t(bw_k_blocks(int(k))) + uint64_t(kb);
#endif
  return g == BwGranularity::Row1x128 ? bw_1x128_scale_index(int(r), kb, int(rows))
                                      : bw_128x128_scale_index(int(r), kb, int(k));
}

template <typename Load>
void bw_quantize_rows(Load load, int64_t rows, int64_t k, BwGranularity g, uint8_t* data, float* scales) {
  std::fill(scales, scales + bw_scale_count(g, rows, k), BW_SCALE_PAD);
  const int64_t block_rows = g == BwGranularity::Row1x128 ? 1 : BW_BLOCK;
  const int k_blocks       = bw_k_blocks(int(k));
  for (int64_t r0 = 0; r0 < rows; r0 += block_rows)
    for (int kb = 0; kb < k_blocks; ++kb) {
      // The block: rows [r0, r1), columns [c0, c1), clipped to the operand.
      const int64_t r1 = std::min(r0 + block_rows, rows);
      const int64_t c0 = int64_t(kb) * BW_BLOCK, c1 = std::min(c0 + BW_BLOCK, k);
      float amax  = 0.0f;
      bool finite = true;
      for (int64_t r = r0; r < r1; ++r) {
        int64_t first = r * k + c0, last = r * k + c1;
#if BW_QUANT_MUTANT == 4
        if (g == BwGranularity::Row1x128) last = std::min(first + BW_BLOCK, rows * k);
#endif
        for (int64_t i = first; i < last; ++i) {
          const float v = load(i);
          finite        = finite && std::isfinite(v);
          if (std::isfinite(v)) amax = std::max(amax, std::fabs(v));
        }
      }
      const BwBlockScale s = bw_block_scale(amax, finite);
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t c = c0; c < c1; ++c) data[r * k + c] = bw_encode(load(r * k + c), s);
      scales[bw_ref_scale_index(g, g == BwGranularity::Row1x128 ? r0 : r0 / BW_BLOCK, kb, rows, k)] = s.scale;
    }
}
}  // namespace detail

// The reference: in [rows, K] row-major (bf16 as raw bits, or fp32) -> data [rows, K] e4m3 and scales
// (bw_scale_count(g, rows, K) floats in cuBLASLt's layout for g, padding BW_SCALE_PAD). The shape must
// pass bw_check_shape.
inline void bw_quantize_ref_bf16(const uint16_t* in, int64_t rows, int64_t k, BwGranularity g, uint8_t* data,
                                 float* scales) {
  detail::bw_quantize_rows([in](int64_t i) { return bf16_bits_to_float(in[i]); }, rows, k, g, data, scales);
}
inline void bw_quantize_ref_f32(const float* in, int64_t rows, int64_t k, BwGranularity g, uint8_t* data,
                                float* scales) {
  detail::bw_quantize_rows([in](int64_t i) { return in[i]; }, rows, k, g, data, scales);
}

}  // namespace gemm
