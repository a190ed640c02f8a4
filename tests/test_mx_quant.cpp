// The MXFP8 numerics of mxfp8/mx_quant.h, the CPU reference quantizer: e4m3 and e8m0 bytes computed by
// hand (powers of two, amax exactly 448, rounding up across a binade, an all-zero block, subnormals,
// saturation under FLOOR and none under RCEIL, NaN and Inf, the clamped scale), the e4m3 rounding and the
// RCEIL scale bit for bit against cuda_fp8.h's host conversions, the blocked layout's padding, a round-trip
// error bound on random data, and the GPU launcher's refusals (no GPU needed: nothing is launched).
// tests/CMakeLists.txt also builds this file against mutated rules (MX_QUANT_MUTANT) and expects failure.
#include <catch2/catch.hpp>

#include <array>
#include <cfloat>
#include <cstdio>
#include <random>
#include <vector>

#include <cuda_fp8.h>

#include "mxfp8/fast_div.h"
#include "mxfp8/mx_quant.h"
#include "mxfp8/mx_quant_gpu.h"

using namespace gemm;

namespace {

struct QBlock {
  uint8_t scale;
  std::array<uint8_t, 32> data;
};

// A block of 32 values: `head` first, the rest `fill`.
QBlock quantize(std::vector<float> head, MxRule rule, float fill = 0.0f) {
  head.resize(32, fill);
  QBlock q{};
  q.scale = mx_quantize_block(head.data(), rule, q.data.data());
  return q;
}

float bf16_from_bits(uint16_t b) {
  return bf16_bits_to_float(b);
}

uint8_t cuda_e4m3(float x) {
  return uint8_t(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

const MxRule RULES[] = {MxRule::Floor, MxRule::Rceil};

}  // namespace

TEST_CASE("e4m3 bytes by hand: exact values, rounding to nearest even, subnormals, saturation, NaN",
          "[mx][e4m3]") {
  // Exact values: sign | exponent + 7 (4 bits) | 3 mantissa bits.
  CHECK(e4m3_from_double(0.0) == 0x00);
  CHECK(e4m3_from_double(-0.0) == 0x80);
  CHECK(e4m3_from_double(1.0) == 0x38);    // 0 0111 000
  CHECK(e4m3_from_double(1.125) == 0x39);  // 0 0111 001
  CHECK(e4m3_from_double(-2.0) == 0xC0);   // 1 1000 000
  CHECK(e4m3_from_double(240.0) == 0x77);  // 1.875 * 2^7: 0 1110 111
  CHECK(e4m3_from_double(256.0) == 0x78);  // 0 1111 000
  CHECK(e4m3_from_double(448.0) == 0x7E);  // 1.75 * 2^8: 0 1111 110, the largest finite
  CHECK(e4m3_from_double(-448.0) == 0xFE);
  CHECK(e4m3_from_double(std::ldexp(1.0, -6)) == 0x08);  // smallest normal: 0 0001 000
  // Subnormals: exponent field 0, value = mantissa * 2^-9.
  CHECK(e4m3_from_double(std::ldexp(1.0, -9)) == 0x01);
  CHECK(e4m3_from_double(std::ldexp(7.0, -9)) == 0x07);
  CHECK(e4m3_from_double(-std::ldexp(3.0, -9)) == 0x83);
  // Rounding to nearest, ties to even.
  CHECK(e4m3_from_double(1.0625) == 0x38);  // tie between 1 (even) and 1.125
  CHECK(e4m3_from_double(1.1875) == 0x3A);  // tie between 1.125 and 1.25 (even)
  CHECK(e4m3_from_double(1.07) == 0x39);    // above the tie
  CHECK(e4m3_from_double(15.4) == 0x57);    // 15 = 1.875 * 2^3: 0 1010 111
  CHECK(e4m3_from_double(15.5) == 0x58);    // tie between 15 and 16: 16 (even) is the next binade
  CHECK(e4m3_from_double(440.0) == 0x7E);   // quantum 32 in [256, 512): 440 -> 448
  CHECK(e4m3_from_double(std::ldexp(1.0, -10)) == 0x00);  // tie between 0 (even) and 2^-9
  CHECK(e4m3_from_double(std::ldexp(1.0, -10) * 1.01) == 0x01);
  CHECK(e4m3_from_double(std::ldexp(3.0, -10)) == 0x02);   // tie between 1 and 2 (even) * 2^-9
  CHECK(e4m3_from_double(std::ldexp(7.5, -9)) == 0x08);    // tie between 7 * 2^-9 and 2^-6 (even): normal
  CHECK(e4m3_from_double(-std::ldexp(1.0, -11)) == 0x80);  // rounds to zero, keeps its sign
  // Saturation (.satfinite): everything above 448 is 448, infinities included.
  CHECK(e4m3_from_double(449.0) == 0x7E);
  CHECK(e4m3_from_double(464.0) == 0x7E);  // the tie between 448 and 480 (which e4m3 spends on NaN)
  CHECK(e4m3_from_double(1e30) == 0x7E);
  CHECK(e4m3_from_double(-1e30) == 0xFE);
  CHECK(e4m3_from_double(INFINITY) == 0x7E);
  CHECK(e4m3_from_double(-INFINITY) == 0xFE);
  CHECK(e4m3_from_double(NAN) == 0x7F);
  // Decoding: every byte but the two NaNs encodes back to itself.
  for (int b = 0; b < 256; ++b) {
    INFO("byte " << b);
    if ((b & 0x7F) == 0x7F) {
      CHECK(std::isnan(e4m3_to_double(uint8_t(b))));
    } else {
      CHECK(e4m3_from_double(e4m3_to_double(uint8_t(b))) == b);
    }
  }
  CHECK(e4m3_to_double(0x7E) == 448.0);
  CHECK(e4m3_to_double(0x01) == std::ldexp(1.0, -9));
}

TEST_CASE(
    "the e4m3 rounding equals cuda_fp8.h's (RN, satfinite) on every bf16 value and around every "
    "rounding boundary in fp32",
    "[mx][e4m3]") {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float x = bf16_from_bits(uint16_t(bits));
    INFO("bf16 bits " << bits << " = " << x);
    REQUIRE(e4m3_from_double(x) == cuda_e4m3(x));
  }
  // The midpoints between neighbouring e4m3 values (where the rounding decides), and their fp32 neighbours.
  int checked = 0;
  for (int b = 0; b < 0x7E; ++b) {
    const double lo = e4m3_to_double(uint8_t(b)), hi = e4m3_to_double(uint8_t(b + 1));
    const float mid = float((lo + hi) / 2);  // exact in fp32
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f), float(lo), float(hi)})
      for (float s : {x, -x}) {
        INFO("x = " << s);
        REQUIRE(e4m3_from_double(s) == cuda_e4m3(s));
        ++checked;
      }
  }
  CHECK(checked == 0x7E * 10);
  // Random fp32 bit patterns (every exponent, NaNs and infinities included).
  std::mt19937 gen(12345);
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t u = gen();
    float x;
    std::memcpy(&x, &u, sizeof x);
    INFO("fp32 bits " << u);
    REQUIRE(e4m3_from_double(x) == cuda_e4m3(x));
  }
}

TEST_CASE("scale exponents by hand: FLOOR = floor(log2 amax) - 8, RCEIL = ceil(log2(amax / 448))",
          "[mx][scale]") {
  struct Case {
    double amax;
    int floor_byte, rceil_byte;
  };
  const Case cases[] = {
      {1.0, 119, 119},                  // 2^0: e = -8 both
      {1.5, 119, 119},                  // 1.5 <= 1.75: 1.5 * 2^8 = 384 <= 448
      {1.75, 119, 119},                 // 448 * 2^-8 exactly
      {1.875, 119, 120},                // above 1.75: FLOOR lands on 480 (saturates), RCEIL goes up
      {448.0, 127, 127},                // amax exactly 448: scale 1.0 both
      {449.0, 127, 128},                //
      {480.0, 127, 128},                //
      {512.0, 128, 128},                // 2^9
      {std::ldexp(1.0, 20), 139, 139},  //
      {0.0, 0, 0},                      // all-zero block: log2(0) = -inf, clamped to 2^-127
      {std::ldexp(1.0, -119), 0, 0},    // e = -127: the smallest scale exactly
      {std::ldexp(1.0, -118), 1, 1},    //
      {std::ldexp(1.0, -125), 0, 0},    // e = -133, clamped to -127
      {std::ldexp(1.0, -149), 0, 0},    // fp32's smallest subnormal
      {double(bf16_from_bits(0x7F7F)), 246, 247},  // largest bf16 = 1.9921875 * 2^127
      {double(FLT_MAX), 246, 247},                 // largest fp32
  };
  for (const Case& c : cases) {
    INFO("amax = " << c.amax);
    CHECK(mx_scale_exponent(c.amax, MxRule::Floor) + 127 == c.floor_byte);
    CHECK(mx_scale_exponent(c.amax, MxRule::Rceil) + 127 == c.rceil_byte);
  }
}

TEST_CASE(
    "RCEIL equals cuda_fp8.h's e8m0 conversion of amax / 448 rounded up, FLOOR its truncation of "
    "amax minus 8, on every positive bf16 and on fp32 around 448 * 2^k",
    "[mx][scale]") {
  auto cuda_rceil = [](float amax) {
    return int(__nv_cvt_float_to_e8m0(amax / 448.0f, __NV_SATFINITE, cudaRoundPosInf));
  };
  auto cuda_floor = [](float amax) {
    return std::max(int(__nv_cvt_float_to_e8m0(amax, __NV_SATFINITE, cudaRoundZero)) - 8, 0);
  };
  for (uint32_t bits = 0; bits < 0x7F80; ++bits) {  // +0 to the largest finite bf16
    const float amax = bf16_from_bits(uint16_t(bits));
    INFO("amax = " << amax << " (bf16 bits " << bits << ")");
    REQUIRE(mx_scale_exponent(amax, MxRule::Rceil) + 127 == cuda_rceil(amax));
    if (bits > 0) REQUIRE(mx_scale_exponent(amax, MxRule::Floor) + 127 == cuda_floor(amax));
  }
  // fp32: every significand of the binade holding 448 (the RCEIL decision is at 1.75), and the fp32
  // neighbours of 448 * 2^k over the whole range.
  for (uint32_t man = 0; man < (1u << 23); ++man) {
    const uint32_t bits = (135u << 23) | man;  // [256, 512)
    float amax;
    std::memcpy(&amax, &bits, sizeof amax);
    REQUIRE(mx_scale_exponent(amax, MxRule::Rceil) + 127 == cuda_rceil(amax));
  }
  for (int k = -126; k <= 119; ++k) {
    const float edge = std::ldexp(448.0f, k);
    for (float amax : {edge, std::nextafter(edge, 0.0f), std::nextafter(edge, FLT_MAX)}) {
      INFO("amax = " << amax);
      REQUIRE(mx_scale_exponent(amax, MxRule::Rceil) + 127 == cuda_rceil(amax));
    }
  }
}

TEST_CASE("a block of powers of two, by hand", "[mx][block]") {
  // v[i] = 2^(i - 20): amax = 2^11, e = 11 - 8 = 3 under both rules (significand 1.0), scale byte 130.
  // Element i becomes 2^(i - 23): normal (byte (i - 16) << 3) down to i = 17 (2^-6), then subnormal
  // 4, 2, 1 (* 2^-9) for i = 16, 15, 14; i = 13 is 2^-10, a tie between 0 and 2^-9 that goes to 0.
  std::vector<float> v(32);
  for (int i = 0; i < 32; ++i) v[i] = std::ldexp(1.0f, i - 20);
  const std::array<uint8_t, 32> expected = {0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
                                            0,    0,    0,    0x01, 0x02, 0x04, 0x08, 0x10, 0x18, 0x20, 0x28,
                                            0x30, 0x38, 0x40, 0x48, 0x50, 0x58, 0x60, 0x68, 0x70, 0x78};
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    const QBlock q = quantize(v, rule);
    CHECK(q.scale == 130);
    CHECK(q.data == expected);
  }
}

TEST_CASE("amax exactly 448: scale 1.0 (0x7F) under both rules, 448 stays 0x7E", "[mx][block]") {
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    const QBlock q = quantize({448.0f, -448.0f, 1.0f, -0.5f, 15.5f}, rule);
    CHECK(q.scale == 0x7F);
    CHECK(q.data[0] == 0x7E);
    CHECK(q.data[1] == 0xFE);
    CHECK(q.data[2] == 0x38);
    CHECK(q.data[3] == 0xB0);  // -0.5: 1 0110 000
    CHECK(q.data[4] == 0x58);  // 15.5 rounds up across the binade to 16
    CHECK(q.data[31] == 0x00);
  }
}

TEST_CASE("values that round up across a binade, after scaling", "[mx][block]") {
  // amax = 2^20: e = 12, scale byte 139. 15.5 * 2^12 -> 15.5 -> 16 (0x58); 7.5 * 2^-9 * 2^12 -> 2^-6
  // (subnormal to normal, 0x08); 1.1875 * 2^12 -> 1.25 (0x3A); 255 * 2^12 -> 256 (0x78, quantum 16 in
  // [128, 256)).
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    const QBlock q = quantize(
        {std::ldexp(1.0f, 20), 15.5f * 4096, std::ldexp(7.5f, 3), 1.1875f * 4096, -255.0f * 4096}, rule);
    CHECK(q.scale == 139);
    CHECK(q.data[0] == 0x78);  // 2^20 / 2^12 = 256
    CHECK(q.data[1] == 0x58);
    CHECK(q.data[2] == 0x08);
    CHECK(q.data[3] == 0x3A);
    CHECK(q.data[4] == 0xF8);
  }
}

TEST_CASE("an all-zero block: scale 0x00 (2^-127, the clamp of log2(0) = -inf), data zeros with their sign",
          "[mx][block]") {
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    const QBlock zeros = quantize({}, rule);
    CHECK(zeros.scale == 0x00);
    for (uint8_t b : zeros.data) CHECK(b == 0x00);
    const QBlock negative_zeros = quantize({}, rule, -0.0f);
    CHECK(negative_zeros.scale == 0x00);
    for (uint8_t b : negative_zeros.data) CHECK(b == 0x80);
    CHECK(mx_dequantize(negative_zeros.data[0], negative_zeros.scale) == 0.0);
  }
}

TEST_CASE("subnormal results", "[mx][block]") {
  // amax = 1: e = -8, scale byte 119; an element x becomes x * 2^8.
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    const QBlock q = quantize(
        {1.0f, std::ldexp(1.0f, -17), std::ldexp(3.0f, -17), std::ldexp(1.0f, -18), std::ldexp(3.0f, -18),
         std::ldexp(5.0f, -18), -std::ldexp(1.0f, -17), std::ldexp(1.0f, -20), std::ldexp(15.0f, -18)},
        rule);
    CHECK(q.scale == 119);
    CHECK(q.data[0] == 0x78);  // 2^8
    CHECK(q.data[1] == 0x01);  // 2^-9
    CHECK(q.data[2] == 0x03);  // 3 * 2^-9
    CHECK(q.data[3] == 0x00);  // 2^-10: tie, to 0 (even)
    CHECK(q.data[4] == 0x02);  // 1.5 * 2^-9: tie, to 2 (even)
    CHECK(q.data[5] == 0x02);  // 2.5 * 2^-9: tie, to 2 (even)
    CHECK(q.data[6] == 0x81);
    CHECK(q.data[7] == 0x00);  // 2^-12 underflows
    CHECK(q.data[8] == 0x08);  // 7.5 * 2^-9: tie, to 8 * 2^-9 = 2^-6, the smallest normal
  }
}

TEST_CASE("a block too small for any scale: clamped to 2^-127, its elements subnormal", "[mx][block]") {
  // Values near the bottom of fp32 / bf16: amax = 2^-125 gives e = -133 unclamped; clamped to -127 the
  // elements are x * 2^127.
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    const QBlock q = quantize({std::ldexp(1.0f, -125), std::ldexp(1.0f, -133), std::ldexp(1.0f, -136)}, rule);
    CHECK(q.scale == 0x00);
    CHECK(q.data[0] == 0x48);  // 2^-125 * 2^127 = 4: 0 1001 000 (unclamped it would be 256)
    CHECK(q.data[1] == 0x08);  // 2^-6
    CHECK(q.data[2] == 0x01);  // 2^-9
  }
}

TEST_CASE("saturation under FLOOR, none under RCEIL", "[mx][block]") {
  const std::vector<float> v = {480.0f, 1.0f, -470.0f, 448.0f, 400.0f};
  const QBlock floor_q       = quantize(v, MxRule::Floor);
  CHECK(floor_q.scale == 127);     // floor(log2 480) - 8 = 0
  CHECK(floor_q.data[0] == 0x7E);  // 480 saturates to 448
  CHECK(floor_q.data[1] == 0x38);
  CHECK(floor_q.data[2] == 0xFE);  // -470 saturates to -448
  CHECK(floor_q.data[3] == 0x7E);
  CHECK(floor_q.data[4] == 0x7C);  // 400: a tie between 384 and 416 (quantum 32), to 384 (even): 0 1111 100
  const QBlock rceil_q = quantize(v, MxRule::Rceil);
  CHECK(rceil_q.scale == 128);     // ceil(log2(480 / 448)) = 1
  CHECK(rceil_q.data[0] == 0x77);  // 240
  CHECK(rceil_q.data[1] == 0x30);  // 0.5
  CHECK(rceil_q.data[2] == 0xF7);  // -235 -> -240 (quantum 16)
  CHECK(rceil_q.data[3] == 0x76);  // 224 = 1.75 * 2^7
  CHECK(rceil_q.data[4] ==
        0x74);  // 200 -> 192 (quantum 16: 200 / 16 = 12.5, a tie, to 12 (even)): 0 1110 100
  // The largest bf16 (1.9921875 * 2^127): FLOOR 2^119 saturates 510 to 448; RCEIL 2^120 rounds 255 to 256.
  const float big = bf16_from_bits(0x7F7F);
  CHECK(quantize({big}, MxRule::Floor).scale == 0xF6);
  CHECK(quantize({big}, MxRule::Floor).data[0] == 0x7E);
  CHECK(quantize({-big}, MxRule::Rceil).scale == 0xF7);
  CHECK(quantize({-big}, MxRule::Rceil).data[0] == 0xF8);
}

TEST_CASE("NaN and Inf: the block's scale is 0xFF (e8m0 NaN) and its data 0x7F, other blocks unaffected",
          "[mx][block][special]") {
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    for (float special : {NAN, -NAN, INFINITY, -INFINITY}) {
      INFO("special " << special);
      const QBlock q = quantize({1.0f, special, 448.0f}, rule);
      CHECK(q.scale == 0xFF);
      for (uint8_t b : q.data) CHECK(b == 0x7F);
      CHECK(std::isnan(mx_dequantize(q.data[0], q.scale)));
    }
    // In a tensor: one row of 3 blocks, a NaN in the middle one.
    std::vector<float> row(96, 2.0f);
    row[40] = NAN;
    std::vector<uint8_t> data(96), scales(mx_scale_tensor_bytes(1, 96));
    mx_quantize_ref_f32(row.data(), 1, 96, rule, data.data(), scales.data());
    CHECK(scales[0] == 120);  // 2 = 2^1: e = -7
    CHECK(scales[1] == 0xFF);
    CHECK(scales[2] == 120);
    CHECK(data[31] == 0x78);  // 2 * 2^7 = 256
    CHECK(data[32] == 0x7F);
    CHECK(data[64] == 0x78);
  }
}

TEST_CASE("the blocked layout: each scale at mx_scale_offset, every padding byte 0x00", "[mx][layout]") {
  // 130 rows (padded to 256) x K = 96 (3 scale columns, padded to 4): 2 row blocks x 1 column tile.
  // Block (r, j) holds the value 2^((r * 3 + j) % 40 - 20) once and zeros: scale byte (r*3+j)%40 - 28 + 127.
  const int rows = 130, k = 96, cols = 3;
  for (MxRule rule : RULES) {
    std::vector<float> in(size_t(rows) * k, 0.0f);
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j)
        in[size_t(r) * k + j * 32 + (r + j) % 32] = std::ldexp(1.0f, (r * 3 + j) % 40 - 20);
    std::vector<uint8_t> data(size_t(rows) * k, 0xAB), scales(mx_scale_tensor_bytes(rows, k), 0xAB);
    REQUIRE(scales.size() == 256 * 4);
    mx_quantize_ref_f32(in.data(), rows, k, rule, data.data(), scales.data());
    std::vector<int> real(scales.size(), 0);
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < cols; ++j) {
        const uint64_t off = mx_scale_offset(r, j, cols);
        real[off]          = 1;
        INFO("row " << r << " scale column " << j);
        CHECK(int(scales[off]) == (r * 3 + j) % 40 - 20 - 8 + 127);
        CHECK(data[size_t(r) * k + j * 32 + (r + j) % 32] == 0x78);  // 2^8 = 256
      }
    int padding = 0;
    for (size_t off = 0; off < scales.size(); ++off)
      if (!real[off]) {
        ++padding;
        CHECK(scales[off] == MX_SCALE_PAD);
      }
    CHECK(padding == 256 * 4 - rows * cols);
    CHECK(MX_SCALE_PAD == 0x00);
    CHECK(
        std::isfinite(e8m0_to_double(MX_SCALE_PAD)));  // padding times the zeros of TMA's fill is 0, not NaN
    for (uint8_t b : data) CHECK(b != 0xAB);           // every data byte written
  }
}

TEST_CASE(
    "round trip: every dequantized value is within half an e4m3 ulp (times the scale) of its input, "
    "except FLOOR's saturated ones (RCEIL never saturates)",
    "[mx][roundtrip]") {
  const uint64_t seed = 20250611;
  std::printf("round trip: seed %llu\n", (unsigned long long)seed);
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int rows = 96, k = 1024;
  std::vector<float> in(size_t(rows) * k);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < k; ++c) {
      float x = normal(gen);
      if (r % 13 == 5) x *= 1e4f;                  // outlier rows
      if (r % 7 == 2 && c % 97 == 0) x *= 300.0f;  // outlier elements
      if (r % 11 == 3) x *= 1e-37f;                // tiny rows: the scale clamps at 2^-127, subnormal results
      in[size_t(r) * k + c] = x;
    }
  for (MxRule rule : RULES) {
    INFO(mx_rule_name(rule));
    std::vector<uint8_t> data(in.size()), scales(mx_scale_tensor_bytes(rows, k));
    mx_quantize_ref_f32(in.data(), rows, k, rule, data.data(), scales.data());
    size_t saturated = 0;
    double worst     = 0;  // largest error in units of the bound
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < k; ++c) {
        const double v     = in[size_t(r) * k + c];
        const uint8_t sb   = scales[mx_scale_offset(r, c / 32, k / 32)];
        const double scale = e8m0_to_double(sb);
        const double x     = v / scale;  // the exact scaled value
        const double ulp =
            std::fabs(x) < std::ldexp(1.0, -6) ? std::ldexp(1.0, -9) : std::ldexp(1.0, std::ilogb(x) - 3);
        const double back = mx_dequantize(data[size_t(r) * k + c], sb);
        if (std::fabs(x) > E4M3_MAX) {
          ++saturated;
          CHECK(std::fabs(back) == E4M3_MAX * scale);
          continue;
        }
        INFO("row " << r << " col " << c << " v " << v << " back " << back);
        REQUIRE(std::fabs(back - v) <= 0.5 * ulp * scale);
        worst = std::max(worst, std::fabs(back - v) / (0.5 * ulp * scale));
      }
    std::printf("  %s: %zu of %zu saturated; largest error %.4f of the bound\n", mx_rule_name(rule),
                saturated, in.size(), worst);
    if (rule == MxRule::Floor) CHECK(saturated > 0);  // the exception is exercised
    if (rule == MxRule::Rceil) CHECK(saturated == 0);
  }
}

TEST_CASE("bf16 and fp32 entry points give the same bytes on bf16 values", "[mx]") {
  std::mt19937 gen(7);
  const int rows = 3, k = 256;
  std::vector<uint16_t> bf(size_t(rows) * k);
  std::vector<float> f(bf.size());
  for (size_t i = 0; i < bf.size(); ++i) {
    bf[i] = uint16_t(gen() & 0xFFFF);
    f[i]  = bf16_bits_to_float(bf[i]);
  }
  for (MxRule rule : RULES) {
    std::vector<uint8_t> d1(bf.size()), d2(bf.size()), s1(mx_scale_tensor_bytes(rows, k)), s2(s1.size());
    mx_quantize_ref_bf16(bf.data(), rows, k, rule, d1.data(), s1.data());
    mx_quantize_ref_f32(f.data(), rows, k, rule, d2.data(), s2.data());
    CHECK(d1 == d2);
    CHECK(s1 == s2);
  }
}

TEST_CASE("bad shapes and pointers are refused with a message, before anything is launched", "[mx][refuse]") {
  CHECK(mx_check_shape(128, 4096).empty());
  CHECK(mx_check_shape(1, 32).empty());
  const std::string not32 = mx_check_shape(128, 100);
  CHECK(not32.find("K=100 is not a multiple of 32") != std::string::npos);
  CHECK(not32.find("try K=128") != std::string::npos);
  CHECK(mx_check_shape(0, 32).find("must be >= 1") != std::string::npos);
  CHECK(mx_check_shape(16, -32).find("must be >= 1") != std::string::npos);
  CHECK(mx_check_shape(int64_t(1) << 20, int64_t(1) << 16).find("2^31") != std::string::npos);
  // The GPU entry point refuses the same, and bad pointers, without touching CUDA (this runs without a GPU).
  void* fake = reinterpret_cast<void*>(uintptr_t(1) << 20);  // aligned, never dereferenced
  void* odd  = reinterpret_cast<void*>((uintptr_t(1) << 20) + 8);
  CHECK(mx_quantize_gpu(fake, MxInput::Bf16, 128, 100, MxRule::Rceil, fake, fake, nullptr).find("K=100") !=
        std::string::npos);
  CHECK(mx_quantize_gpu(nullptr, MxInput::Bf16, 128, 128, MxRule::Rceil, fake, fake, nullptr)
            .find("non-null") != std::string::npos);
  CHECK(mx_quantize_gpu(odd, MxInput::F32, 128, 128, MxRule::Floor, fake, fake, nullptr).find("16-byte") !=
        std::string::npos);
  CHECK(mx_quantize_gpu(fake, MxInput::F32, 128, 128, MxRule::Floor, odd, fake, nullptr).find("16-byte") !=
        std::string::npos);
}

TEST_CASE("fast_div (the GPU kernel's row = block / (K/32)) equals '/' for numerators below 2^31",
          "[mx][fastdiv]") {
  std::mt19937 gen(99);
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 4096; ++d) divisors.push_back(d);
  for (uint32_t d : {65535u, 65536u, 65537u, (1u << 26) - 1, 1u << 26, (1u << 30) + 1, (1u << 31) - 1})
    divisors.push_back(d);
  for (uint32_t d : divisors) {
    const FastDiv f = make_fast_div(d);
    INFO("d = " << d);
    // Multiples of d and their neighbours (where a wrong quotient would show first), the top of the
    // range, and random numerators.
    for (uint32_t q : {0u, 1u, 2u, 1000u, (0x7FFFFFFFu / d) - 1, 0x7FFFFFFFu / d})
      for (int64_t delta : {-1, 0, 1}) {
        const int64_t n = int64_t(q) * d + delta;
        if (n < 0 || n > 0x7FFFFFFF) continue;
        REQUIRE(fast_div(uint32_t(n), f) == uint32_t(n) / d);
      }
    for (int i = 0; i < 200; ++i) {
      const uint32_t n = gen() & 0x7FFFFFFFu;
      REQUIRE(fast_div(n, f) == n / d);
    }
  }
}
