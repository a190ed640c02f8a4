// The 1x128 and 128x128 block quantizers of mxfp8/bw_quant.h (the CPU reference): scales and e4m3 bytes
// computed by hand (amax exactly 448, a scale of 2, rounding up across a binade), the amax element at ±448
// for every bf16 amax, zero and tiny blocks at the clamp, NaN and Inf, both scale layouts against cuBLASLt's
// documented ones with their padding at ragged shapes, every element and scale against an independent
// by-the-definition computation, a round-trip error bound on random data, and the GPU launcher's refusals
// (no GPU needed: nothing is launched).
// tests/CMakeLists.txt also builds this file against mutated rules (BW_QUANT_MUTANT) and expects failure.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "mxfp8/bw_quant.h"
#include "mxfp8/bw_quant_gpu.h"

using namespace gemm;

namespace {

const BwGranularity GRANULARITIES[] = {BwGranularity::Row1x128, BwGranularity::Block128x128};

uint32_t bits(float f) {
  return bw_bits_from_float(f);
}

struct Quantized {
  std::vector<uint8_t> data;
  std::vector<float> scales;
};
Quantized quantize(const std::vector<float>& in, int64_t rows, int64_t k, BwGranularity g) {
  REQUIRE(bw_check_shape(rows, k).empty());
  REQUIRE(in.size() == size_t(rows * k));
  Quantized q{std::vector<uint8_t>(in.size(), 0xAB), std::vector<float>(bw_scale_count(g, rows, k), -1.0f)};
  bw_quantize_ref_f32(in.data(), rows, k, g, q.data.data(), q.scales.data());
  return q;
}

// n values sharing one scale: `head` first, the rest `fill`.
struct QBlock {
  float scale;
  std::vector<uint8_t> data;
};
QBlock quantize_values(std::vector<float> head, int n = BW_BLOCK, float fill = 0.0f) {
  head.resize(size_t(n), fill);
  QBlock q{0.0f, std::vector<uint8_t>(size_t(n))};
  q.scale = bw_quantize_values(head.data(), n, q.data.data());
  return q;
}

}  // namespace

TEST_CASE("scale = amax / 448 and inverse = 448 / amax in fp32, amax clamped at 448 * 2^-126, by hand",
          "[bw][scale]") {
  auto check = [](float amax, float scale, float inverse) {
    INFO("amax = " << amax);
    const BwBlockScale s = bw_block_scale(amax, true);
    CHECK(bits(s.scale) == bits(scale));
    CHECK(bits(s.inverse) == bits(inverse));
  };
  check(448.0f, 1.0f, 1.0f);
  check(896.0f, 2.0f, 0.5f);
  check(7.0f, 0.015625f, 64.0f);                   // 7 / 448 = 2^-6 exactly
  check(1.0f, 0x1.24924ap-9f, 448.0f);             // 1 / 448 = 2^-6 / 7, rounded to nearest
  check(1.0f / 64.0f, 0x1.24924ap-15f, 28672.0f);  // 2^-12 / 7, rounded; 448 * 64
  check(FLT_MAX, FLT_MAX / 448.0f, 448.0f / FLT_MAX);
  CHECK(std::isnormal(448.0f / FLT_MAX));
  // The clamp: amax = 448 * 2^-126 gives exactly 2^-126 and 2^126, and so does anything below it, 0 included.
  CHECK(double(BW_AMAX_MIN) == std::ldexp(448.0, -126));
  CHECK(bits(BW_AMAX_MIN) == BW_AMAX_MIN_BITS);
  for (float amax : {BW_AMAX_MIN, 0.0f, 1e-40f, std::ldexp(1.0f, -149), std::nextafter(BW_AMAX_MIN, 0.0f)})
    check(amax, std::ldexp(1.0f, -126), std::ldexp(1.0f, 126));
  const BwBlockScale above = bw_block_scale(std::nextafter(BW_AMAX_MIN, 1.0f), true);
  CHECK(above.scale > std::ldexp(1.0f, -126));
  CHECK(std::isnormal(above.scale));
  // Not rounded to a power of two: 3 / 448 = 0x1.b6db6ep-8.
  CHECK(bits(bw_block_scale(3.0f, true).scale) == bits(0x1.b6db6ep-8f));
  // A non-finite block: NaN with the bits 0x7FC00000.
  CHECK(bits(bw_block_scale(1.0f, false).scale) == BW_SCALE_NAN_BITS);
}

TEST_CASE("one block by hand: amax 448 (scale 1), amax 896 (scale 2), amax 1 (scale 1/448)", "[bw][block]") {
  for (int n : {BW_BLOCK, BW_BLOCK * BW_BLOCK}) {  // a 1x128 block and a 128x128 block: the same rule
    INFO("block of " << n << " values");
    const QBlock one = quantize_values({448.0f, -448.0f, 1.0f, -0.5f, 15.5f, 1.0625f, 440.0f}, n);
    CHECK(one.scale == 1.0f);
    CHECK(one.data[0] == 0x7E);  // 448
    CHECK(one.data[1] == 0xFE);
    CHECK(one.data[2] == 0x38);  // 1: 0 0111 000
    CHECK(one.data[3] == 0xB0);  // -0.5: 1 0110 000
    CHECK(one.data[4] == 0x58);  // 15.5: a tie between 15 and 16, to 16 (even) across the binade
    CHECK(one.data[5] == 0x38);  // 1.0625: a tie between 1 (even) and 1.125
    CHECK(one.data[6] == 0x7E);  // 440: quantum 32 in [256, 512), to 448
    CHECK(one.data[size_t(n) - 1] == 0x00);

    const QBlock two = quantize_values({896.0f, 3.0f, -1.0f, 31.0f, 0.001f}, n);
    CHECK(two.scale == 2.0f);
    CHECK(two.data[0] == 0x7E);  // 448
    CHECK(two.data[1] == 0x3C);  // 1.5: 0 0111 100
    CHECK(two.data[2] == 0xB0);  // -0.5
    CHECK(two.data[3] == 0x58);  // 15.5 -> 16
    CHECK(two.data[4] == 0x00);  // 0.0005 < 2^-10 (half the smallest subnormal): 0

    // amax 1: inverse 448, each element x 448: 0.5 -> 224 = 1.75 * 2^7 (0 1110 110), -0.25 -> -112.
    const QBlock third = quantize_values({1.0f, 0.5f, -0.25f, 0.3f}, n);
    CHECK(third.scale == 0x1.24924ap-9f);
    CHECK(third.data[0] == 0x7E);
    CHECK(third.data[1] == 0x76);
    CHECK(third.data[2] == 0xEE);
    CHECK(third.data[3] == 0x70);  // 0.3 * 448 = 134.4: quantum 16 in [128, 256), to 128 (0 1110 000)
  }
}

TEST_CASE(
    "saturation: the block's amax element becomes exactly ±448 for every bf16 amax >= 448 * 2^-126 and "
    "for random fp32 ones: v * inverse overshoots 448 only by the fp32 rounding, which the cast removes",
    "[bw][saturation]") {
  int above = 0, below = 0, checked = 0;
  auto one = [&](float amax) {
    INFO("amax = " << amax << " (bits " << bits(amax) << ")");
    const QBlock q       = quantize_values({amax, -amax, amax * 0.5f});
    const BwBlockScale s = bw_block_scale(amax, true);
    const float x        = amax * s.inverse;  // what the cast sees for the amax element
    REQUIRE(std::fabs(double(x) - 448.0) <= 448.0 * std::ldexp(1.0, -23));
    REQUIRE(std::fabs(double(s.scale) * double(s.inverse) - 1.0) <= std::ldexp(1.0, -23));
    above += x > 448.0f, below += x < 448.0f, ++checked;
    REQUIRE(q.data[0] == 0x7E);
    REQUIRE(q.data[1] == 0xFE);
    REQUIRE(bw_dequantize(q.data[0], q.scale) == 448.0 * double(s.scale));
  };
  for (uint32_t b = bits(BW_AMAX_MIN) >> 16; b < 0x7F80; ++b) {  // every bf16 from the clamp to the largest
    const float amax = bw_float_from_bits(b << 16);
    if (amax >= BW_AMAX_MIN) one(amax);
  }
  std::mt19937 gen(2024);
  for (int i = 0; i < 1000000; ++i) {
    const float amax = bw_float_from_bits(BW_AMAX_MIN_BITS + gen() % (0x7F800000u - BW_AMAX_MIN_BITS));
    one(amax);
  }
  std::printf("saturation: %d amax values; amax * inverse above 448 for %d (saturated back), below for %d\n",
              checked, above, below);
  CHECK(above > 0);  // the saturating cast is exercised
  CHECK(below > 0);
}

TEST_CASE(
    "an all-zero block: scale 2^-126 (the clamp), data zeros with their signs. A tiny block (amax below the "
    "clamp): scale 2^-126 and data exactly v * 2^126, rounded",
    "[bw][block]") {
  for (int n : {BW_BLOCK, BW_BLOCK * BW_BLOCK}) {
    INFO("block of " << n << " values");
    const QBlock zeros = quantize_values({}, n);
    CHECK(bits(zeros.scale) == 0x00800000u);  // 2^-126
    for (uint8_t b : zeros.data) REQUIRE(b == 0x00);
    const QBlock negative_zeros = quantize_values({}, n, -0.0f);
    CHECK(bits(negative_zeros.scale) == 0x00800000u);
    for (uint8_t b : negative_zeros.data) REQUIRE(b == 0x80);
    CHECK(bw_dequantize(negative_zeros.data[0], negative_zeros.scale) == 0.0);

    // amax 2^-120 < 448 * 2^-126: the elements become v * 2^126.
    const QBlock tiny =
        quantize_values({std::ldexp(1.0f, -120), -std::ldexp(3.0f, -125), std::ldexp(1.0f, -135),
                         std::ldexp(1.0f, -136), std::ldexp(1.0f, -149)},
                        n);
    CHECK(bits(tiny.scale) == 0x00800000u);
    CHECK(tiny.data[0] == 0x68);  // 64 = 2^6: 0 1101 000 (unclamped it would be 448)
    CHECK(tiny.data[1] == 0xCC);  // -6 = -1.5 * 2^2: 1 1001 100
    CHECK(tiny.data[2] == 0x01);  // 2^-9, the smallest e4m3 subnormal
    CHECK(tiny.data[3] == 0x00);  // 2^-10: a tie between 0 (even) and 2^-9
    CHECK(tiny.data[4] == 0x00);  // fp32's smallest subnormal, 2^-23 after scaling
    // amax exactly at the clamp: scale 2^-126 and the amax element at 448.
    const QBlock edge = quantize_values({BW_AMAX_MIN}, n);
    CHECK(bits(edge.scale) == 0x00800000u);
    CHECK(edge.data[0] == 0x7E);
  }
}

TEST_CASE("NaN and Inf: the block's scale is NaN (0x7FC00000), every data byte 0x7F, other blocks unaffected",
          "[bw][special]") {
  for (float special : {NAN, -NAN, INFINITY, -INFINITY}) {
    INFO("special " << special);
    for (int n : {BW_BLOCK, BW_BLOCK * BW_BLOCK}) {
      const QBlock q = quantize_values({1.0f, special, 448.0f}, n);
      CHECK(bits(q.scale) == BW_SCALE_NAN_BITS);
      for (uint8_t b : q.data) REQUIRE(b == 0x7F);
      CHECK(std::isnan(bw_dequantize(q.data[0], q.scale)));
    }
    // 1x128, in a tensor: one row of 3 blocks, the special value in the middle one.
    std::vector<float> row(384, 2.0f);
    row[200]          = special;
    const Quantized r = quantize(row, 1, 384, BwGranularity::Row1x128);
    REQUIRE(r.scales.size() == 3 * 4);  // 3 columns of round_up(1, 4) floats
    CHECK(r.scales[0] == 2.0f / 448.0f);
    CHECK(bits(r.scales[4]) == BW_SCALE_NAN_BITS);
    CHECK(r.scales[8] == 2.0f / 448.0f);
    for (int c = 0; c < 384; ++c) REQUIRE(r.data[size_t(c)] == (c / 128 == 1 ? 0x7F : 0x7E));
    // 128x128: a 256 x 256 operand, the special value at (130, 5): block (1, 0) only.
    std::vector<float> w(256 * 256, -3.0f);
    w[130 * 256 + 5]  = special;
    const Quantized b = quantize(w, 256, 256, BwGranularity::Block128x128);
    REQUIRE(b.scales.size() == 2 * 4);  // 2 columns of round_up(2, 4) floats
    CHECK(b.scales[0] == 3.0f / 448.0f);
    CHECK(b.scales[1] == 3.0f / 448.0f);
    CHECK(bits(b.scales[4]) == BW_SCALE_NAN_BITS);
    CHECK(b.scales[5] == 3.0f / 448.0f);
    for (int r2 = 0; r2 < 256; ++r2)
      for (int c = 0; c < 256; ++c) {
        INFO("element " << r2 << ", " << c);
        REQUIRE(b.data[size_t(r2 * 256 + c)] == (r2 >= 128 && c < 128 ? 0x7F : 0xFE));
      }
  }
}

TEST_CASE(
    "the layouts by hand: 1x128 M-major columns of round_up(rows, 4) floats (cuBLASLt VEC128_32F), 128x128 "
    "K-major columns of round_up(L, 4) floats (BLK128x128_32F)",
    "[bw][layout]") {
  // VEC128_32F, rows a multiple of 4: exactly the documented M x L, M-major.
  CHECK(bw_1x128_scale_count(8, 1024) == 8 * 8);
  CHECK(bw_1x128_scale_index(3, 0, 8) == 3);
  CHECK(bw_1x128_scale_index(0, 1, 8) == 8);
  CHECK(bw_1x128_scale_index(7, 7, 8) == 63);
  // Rows not a multiple of 4: columns padded to round_up(rows, 4) (16-byte aligned columns).
  CHECK(bw_1x128_column_stride(130) == 132);
  CHECK(bw_1x128_scale_count(130, 400) == 4 * 132);  // L = ceil(400 / 128) = 4
  CHECK(bw_1x128_scale_index(5, 2, 130) == 2 * 132 + 5);
  CHECK(bw_1x128_scale_index(129, 3, 130) == 3 * 132 + 129);
  CHECK(bw_1x128_column_stride(1) == 4);
  // BLK128x128_32F: L4 = round_up(L, 4) floats per 128-row block, K blocks contiguous.
  CHECK(bw_128x128_column_stride(1024) == 8);  // L = 8
  CHECK(bw_128x128_column_stride(640) == 8);   // L = 5, L4 = 8
  CHECK(bw_128x128_column_stride(272) == 4);   // L = 3 (the last block 16 wide), L4 = 4
  CHECK(bw_128x128_column_stride(16) == 4);    // L = 1
  CHECK(bw_128x128_scale_count(300, 272) == 3 * 4);
  CHECK(bw_128x128_scale_index(2, 1, 272) == 2 * 4 + 1);
  CHECK(bw_128x128_scale_index(1, 4, 640) == 1 * 8 + 4);
  // Bytes, and the element -> scale map.
  CHECK(bw_scale_tensor_bytes(BwGranularity::Row1x128, 130, 400) == 4 * 132 * 4);
  CHECK(bw_scale_tensor_bytes(BwGranularity::Block128x128, 300, 272) == 12 * 4);
  CHECK(bw_element_scale_index(BwGranularity::Row1x128, 129, 399, 130, 400) == 3 * 132 + 129);
  CHECK(bw_element_scale_index(BwGranularity::Block128x128, 299, 271, 300, 272) == 2 * 4 + 2);
  // Every real scale has its own index, every column starts 16-byte aligned, and the rest is padding.
  for (BwGranularity g : GRANULARITIES)
    for (int rows : {1, 4, 130, 300, 513})
      for (int k : {16, 128, 272, 400, 1024}) {
        INFO(bw_granularity_name(g) << " rows=" << rows << " K=" << k);
        std::vector<int> seen(bw_scale_count(g, rows, k), 0);
        const int block_rows = g == BwGranularity::Row1x128 ? 1 : BW_BLOCK;
        int real             = 0;
        for (int r = 0; r < rows; r += block_rows)
          for (int kb = 0; kb < bw_k_blocks(k); ++kb) {
            const uint64_t i = bw_element_scale_index(g, r, int64_t(kb) * BW_BLOCK, rows, k);
            REQUIRE(i < seen.size());
            REQUIRE(seen[i]++ == 0);
            ++real;
            if ((g == BwGranularity::Row1x128 ? r : kb) == 0) REQUIRE(i % 4 == 0);
          }
        CHECK(real == (rows + block_rows - 1) / block_rows * bw_k_blocks(k));
      }
}

namespace {
// A [rows, K] operand whose every block holds one power of two 2^e(block) and zeros elsewhere, e different
// from block to block, so that each scale names its block: scale = 2^e / 448.
struct Tagged {
  std::vector<float> in;
  std::vector<int> exponent;  // per block, in block order (row or row block, then K block)
};
Tagged tagged(int64_t rows, int64_t k, BwGranularity g) {
  const int64_t block_rows = g == BwGranularity::Row1x128 ? 1 : BW_BLOCK;
  const int64_t blocks_r = (rows + block_rows - 1) / block_rows, blocks_k = bw_k_blocks(int(k));
  Tagged t{std::vector<float>(size_t(rows * k), 0.0f), {}};
  for (int64_t br = 0; br < blocks_r; ++br)
    for (int64_t kb = 0; kb < blocks_k; ++kb) {
      const int e = int((br * blocks_k + kb) % 60) - 30;
      t.exponent.push_back(e);
      // One element of the block: row br * block_rows + (kb % rows in the block), the block's last column.
      const int64_t r         = std::min(br * block_rows + kb % block_rows, rows - 1);
      const int64_t c         = std::min(kb * BW_BLOCK + BW_BLOCK - 1, k - 1);
      t.in[size_t(r * k + c)] = std::ldexp(kb % 2 ? -1.0f : 1.0f, e);
    }
  return t;
}
}  // namespace

TEST_CASE(
    "the reference writes each scale at its layout index and 0.0f in every padding float, ragged shapes",
    "[bw][layout]") {
  for (BwGranularity g : GRANULARITIES)
    for (const auto& [rows, k] : std::vector<std::pair<int64_t, int64_t>>{
             {130, 400}, {300, 272}, {1, 16}, {257, 144}, {128, 1024}, {3, 640}}) {
      INFO(bw_granularity_name(g) << " rows=" << rows << " K=" << k);
      const Tagged t           = tagged(rows, k, g);
      const Quantized q        = quantize(t.in, rows, k, g);
      const int64_t block_rows = g == BwGranularity::Row1x128 ? 1 : BW_BLOCK;
      std::vector<int> real(q.scales.size(), 0);
      size_t b = 0;
      for (int64_t r = 0; r < rows; r += block_rows)
        for (int kb = 0; kb < bw_k_blocks(int(k)); ++kb, ++b) {
          const uint64_t i = bw_element_scale_index(g, r, int64_t(kb) * BW_BLOCK, rows, k);
          real[i]          = 1;
          INFO("block row " << r << " K block " << kb);
          REQUIRE(bits(q.scales[i]) == bits(std::ldexp(1.0f, t.exponent[b]) / 448.0f));
        }
      size_t padding = 0;
      for (size_t i = 0; i < q.scales.size(); ++i)
        if (!real[i]) {
          ++padding;
          REQUIRE(bits(q.scales[i]) == 0u);  // +0.0f
        }
      CHECK(padding == q.scales.size() - b);
      // Every data byte written: the tagged element is ±448, the rest zeros.
      for (size_t i = 0; i < t.in.size(); ++i)
        REQUIRE(q.data[i] == (t.in[i] == 0.0f ? 0x00 : t.in[i] > 0 ? 0x7E : 0xFE));
    }
  // The padding counts of the two layouts at 130 x 400 (1x128: 2 rows per column, 4 columns) and 300 x 272
  // (128x128: one K block per column, 3 columns).
  CHECK(bw_scale_count(BwGranularity::Row1x128, 130, 400) - 130 * 4 == 8);
  CHECK(bw_scale_count(BwGranularity::Block128x128, 300, 272) - 3 * 3 == 3);
}

TEST_CASE("ragged K: the last 1x128 block of a row is its own K % 128 elements, nothing of the next row",
          "[bw][ragged]") {
  // K = 144: block 1 of each row is 16 elements wide. Row 0's are small, row 1 starts with large values that
  // a block reading 128 elements from column 128 of row 0 would take in.
  const int64_t rows = 2, k = 144;
  std::vector<float> in(size_t(rows * k), 0.0f);
  for (int c = 128; c < 144; ++c) in[size_t(c)] = 1.0f;      // row 0, block 1: amax 1
  for (int c = 0; c < 144; ++c) in[size_t(k + c)] = 100.0f;  // row 1: amax 100
  const Quantized q = quantize(in, rows, k, BwGranularity::Row1x128);
  CHECK(bits(q.scales[bw_1x128_scale_index(0, 1, 2)]) == bits(0x1.24924ap-9f));  // 1 / 448
  for (int c = 128; c < 144; ++c) CHECK(q.data[size_t(c)] == 0x7E);
  CHECK(q.scales[bw_1x128_scale_index(0, 0, 2)] == std::ldexp(1.0f, -126));  // row 0, block 0: all zeros
  CHECK(q.scales[bw_1x128_scale_index(1, 1, 2)] == 100.0f / 448.0f);
  // 128x128: rows 0..129, K = 144: block (0, 1) is 128 x 16, block (1, 1) is 2 x 16.
  std::vector<float> w(size_t(130 * k), 0.5f);
  w[size_t(129 * k + 130)] = -7.0f;  // in block (1, 1)
  const Quantized b        = quantize(w, 130, k, BwGranularity::Block128x128);
  CHECK(b.scales[bw_128x128_scale_index(0, 0, k)] == 0.5f / 448.0f);
  CHECK(b.scales[bw_128x128_scale_index(0, 1, k)] == 0.5f / 448.0f);
  CHECK(b.scales[bw_128x128_scale_index(1, 0, k)] == 0.5f / 448.0f);
  CHECK(b.scales[bw_128x128_scale_index(1, 1, k)] == 0.015625f);  // 7 / 448
  CHECK(b.data[size_t(129 * k + 130)] == 0xFE);
  CHECK(b.data[size_t(129 * k + 131)] == 0x60);  // 0.5 * 64 = 32 = 2^5: 0 1100 000
}

namespace {
// Random normal values with outlier rows and elements, tiny rows (amax below the clamp) and zero rows.
std::vector<float> random_input(int64_t rows, int64_t k, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> in(size_t(rows * k));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < k; ++c) {
      float x = normal(gen);
      if (r % 13 == 5) x *= 1e4f;                  // outlier rows
      if (r % 7 == 2 && c % 97 == 0) x *= 300.0f;  // outlier elements
      if (r % 11 == 3) x *= 1e-37f;                // tiny rows: below the clamp, scale 2^-126
      if (r % 17 == 9) x = 0.0f;                   // zero rows
      in[size_t(r * k + c)] = x;
    }
  return in;
}

// The block an element belongs to, by its coordinates: (row, K block) or (row block, K block).
std::pair<int64_t, int64_t> block_of(BwGranularity g, int64_t r, int64_t c) {
  return {g == BwGranularity::Row1x128 ? r : r / BW_BLOCK, c / BW_BLOCK};
}
// Each block's amax (the inputs here are finite), from the elements' coordinates alone.
std::map<std::pair<int64_t, int64_t>, float> block_amax(const std::vector<float>& in, int64_t rows, int64_t k,
                                                        BwGranularity g) {
  std::map<std::pair<int64_t, int64_t>, float> amax;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < k; ++c) {
      float& a = amax[block_of(g, r, c)];
      a        = std::max(a, std::fabs(in[size_t(r * k + c)]));
    }
  return amax;
}
}  // namespace

TEST_CASE(
    "every element and scale against the definition, computed independently: each block's members found by "
    "their coordinates, amax, scale, inverse, e4m3(v * inverse), at ragged rows and K",
    "[bw][definition]") {
  for (BwGranularity g : GRANULARITIES)
    for (int64_t rows : {1, 3, 127, 129, 257})
      for (int64_t k : {16, 112, 128, 144, 400}) {
        INFO(bw_granularity_name(g) << " rows=" << rows << " K=" << k);
        const std::vector<float> in = random_input(rows, k, uint64_t(rows * 1000 + k));
        const Quantized q           = quantize(in, rows, k, g);
        auto amax                   = block_amax(in, rows, k, g);
        REQUIRE(amax.size() ==
                size_t((g == BwGranularity::Row1x128 ? rows : (rows + 127) / 128) * ((k + 127) / 128)));
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < k; ++c) {
            const float a       = std::max(amax[block_of(g, r, c)], std::ldexp(448.0f, -126));
            const float scale   = a / 448.0f;
            const float inverse = 448.0f / a;
            const float v       = in[size_t(r * k + c)];
            INFO("element " << r << ", " << c << " = " << v);
            REQUIRE(q.data[size_t(r * k + c)] == e4m3_from_double(v * inverse));
            REQUIRE(bits(q.scales[bw_element_scale_index(g, r, c, rows, k)]) == bits(scale));
          }
      }
}

TEST_CASE(
    "round trip: |e4m3(data) * scale - v| <= half an e4m3 ulp of v * inverse times the scale, plus |v| * "
    "2^-22",
    "[bw][roundtrip]") {
  const uint64_t seed = 20250611;
  std::printf("round trip: seed %llu\n", (unsigned long long)seed);
  const int64_t rows = 300,
                k    = 1040;  // ragged in both: 3 row blocks (the last 44 rows), 9 K blocks (the last 16)
  const std::vector<float> in = random_input(rows, k, seed);
  for (BwGranularity g : GRANULARITIES) {
    INFO(bw_granularity_name(g));
    const Quantized q = quantize(in, rows, k, g);
    auto amax         = block_amax(in, rows, k, g);
    double worst      = 0;  // the largest error in units of the bound
    size_t at_448     = 0;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < k; ++c) {
        const double v      = in[size_t(r * k + c)];
        const float scale   = q.scales[bw_element_scale_index(g, r, c, rows, k)];
        const float inverse = 448.0f / std::max(amax[block_of(g, r, c)], BW_AMAX_MIN);
        const double x      = std::fabs(double(float(v) * inverse));  // what the cast rounds
        const double ulp = x < std::ldexp(1.0, -6) ? std::ldexp(1.0, -9) : std::ldexp(1.0, std::ilogb(x) - 3);
        const double back  = bw_dequantize(q.data[size_t(r * k + c)], scale);
        const double bound = 0.5 * ulp * double(scale) + std::fabs(v) * std::ldexp(1.0, -22);
        INFO("row " << r << " col " << c << " v " << v << " back " << back << " scale " << scale);
        REQUIRE(std::isfinite(back));
        REQUIRE(std::fabs(back - v) <= bound);
        if (bound > 0) worst = std::max(worst, std::fabs(back - v) / bound);
        at_448 += std::fabs(back) == 448.0 * double(scale);
      }
    std::printf("  %s: largest error %.4f of the bound; %zu elements at ±448 * scale\n",
                bw_granularity_name(g), worst, at_448);
    CHECK(worst > 0.5);  // the bound is not loose by orders of magnitude
  }
}

TEST_CASE("bf16 and fp32 entry points give the same bytes on bf16 values", "[bw]") {
  std::mt19937 gen(7);
  const int64_t rows = 130, k = 272;
  std::vector<uint16_t> bf(size_t(rows * k));
  std::vector<float> f(bf.size());
  for (size_t i = 0; i < bf.size(); ++i) {
    bf[i] = uint16_t(gen() & 0xFFFF);  // every bf16 bit pattern: NaNs, infinities, subnormals
    f[i]  = bf16_bits_to_float(bf[i]);
  }
  for (BwGranularity g : GRANULARITIES) {
    std::vector<uint8_t> d1(bf.size()), d2(bf.size());
    std::vector<float> s1(bw_scale_count(g, rows, k)), s2(s1.size());
    bw_quantize_ref_bf16(bf.data(), rows, k, g, d1.data(), s1.data());
    bw_quantize_ref_f32(f.data(), rows, k, g, d2.data(), s2.data());
    CHECK(d1 == d2);
    CHECK(std::memcmp(s1.data(), s2.data(), s1.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("bad shapes and pointers are refused with a message, before anything is launched", "[bw][refuse]") {
  CHECK(bw_check_shape(128, 4096).empty());
  CHECK(bw_check_shape(1, 16).empty());
  CHECK(bw_check_shape(1000, 7168).empty());
  CHECK(bw_check_shape(3, 144).empty());  // neither rows nor K a multiple of 128
  const std::string not16 = bw_check_shape(128, 100);
  CHECK(not16.find("K=100 is not a multiple of 16") != std::string::npos);
  CHECK(not16.find("try K=112") != std::string::npos);
  CHECK(bw_check_shape(0, 128).find("must be >= 1") != std::string::npos);
  CHECK(bw_check_shape(16, -128).find("must be >= 1") != std::string::npos);
  CHECK(bw_check_shape(int64_t(1) << 31, 128).find("2^31 - 128") != std::string::npos);
  CHECK(bw_check_shape(int64_t(1) << 20, int64_t(1) << 20).find("2^31 - 1 scales") != std::string::npos);
  // The GPU entry point refuses the same, and bad pointers, without touching CUDA (this runs without a GPU).
  void* fake   = reinterpret_cast<void*>(uintptr_t(1) << 20);  // aligned, never dereferenced
  void* odd    = reinterpret_cast<void*>((uintptr_t(1) << 20) + 8);
  float* fakef = static_cast<float*>(fake);
  for (BwGranularity g : GRANULARITIES) {
    CHECK(bw_quantize_gpu(fake, MxInput::Bf16, 128, 100, g, fake, fakef, nullptr).find("K=100") !=
          std::string::npos);
    CHECK(bw_quantize_gpu(nullptr, MxInput::Bf16, 128, 128, g, fake, fakef, nullptr).find("non-null") !=
          std::string::npos);
    CHECK(bw_quantize_gpu(fake, MxInput::F32, 128, 128, g, fake, nullptr, nullptr).find("non-null") !=
          std::string::npos);
    CHECK(bw_quantize_gpu(odd, MxInput::F32, 128, 128, g, fake, fakef, nullptr).find("16-byte") !=
          std::string::npos);
    CHECK(bw_quantize_gpu(fake, MxInput::F32, 128, 128, g, odd, fakef, nullptr).find("16-byte") !=
          std::string::npos);
    CHECK(bw_quantize_gpu(fake, MxInput::Bf16, 128, 128, g, fake, static_cast<float*>(odd), nullptr)
              .find("16-byte") != std::string::npos);
  }
}
