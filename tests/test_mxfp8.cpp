// CPU tests of the MXFP8 GEMM's host side and arithmetic: the --rule option, the shape and size refusals of
// the Hopper kernel, the promotion step (mxfp8/mx_promote.h) against the dequantized sum, and the verdict's
// tolerance (mxfp8/mx_gemm_host.h), which must be able to fail.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/mx_scale_layout.h"
#include "mxfp8/bw_quant.h"
#include "mxfp8/matmul_bw.h"
#include "mxfp8/matmul_mxfp8.h"
#include "mxfp8/mx_gemm_host.h"
#include "mxfp8/mx_options.h"
#include "mxfp8/mx_promote.h"
#include "mxfp8/mx_quant.h"

using namespace gemm;

namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string take(std::vector<const char*> argv, MxRule& rule, std::vector<const char*>& rest) {
  return take_rule_option(int(argv.size()), argv.data(), rule, rest);
}

MxGemmArgs sized_args(int64_t m, int64_t n, int64_t k) {
  // Non-null, 16-byte aligned addresses: the checks never dereference them.
  alignas(16) static uint8_t dummy[16];
  MxGemmArgs g{dummy, dummy, dummy, dummy, reinterpret_cast<float*>(dummy), m, n, k, 0, 0, 0, 0, 0};
  g.a_bytes   = uint64_t(m * k);
  g.b_bytes   = uint64_t(n * k);
  g.sfa_bytes = mx_scale_tensor_bytes(m, k);
  g.sfb_bytes = mx_scale_tensor_bytes(n, k);
  g.c_bytes   = uint64_t(m * n * 4);
  return g;
}

// The kernel's arithmetic on one output element, on the CPU: for each MX block the partial (the sum of the
// block's e4m3 products, exact here in double: at most 32 terms of 8 significant bits) is promoted with
// mx_promote, as the kernel does. `exact_partial` is what the tensor core is asked for; the hardware may
// round it (docs/performance/mxfp8-checks.md, "Hopper `mx`: the reference and its tolerance"), which this
// model does not.
float promoted_dot(const uint8_t* a, const uint8_t* sa, const uint8_t* b, const uint8_t* sb, int k) {
  float acc = 0.0f;
  for (int blk = 0; blk < k / MX_BLOCK_K; ++blk) {
    double partial = 0;
    for (int i = blk * MX_BLOCK_K; i < (blk + 1) * MX_BLOCK_K; ++i) partial += e4m3_to_double(a[i]) * e4m3_to_double(b[i]);
    acc = mx_promote(acc, float(partial), e8m0_to_float(sa[blk]), e8m0_to_float(sb[blk]));
  }
  return acc;
}

// The dequantized operands' dot product, in double (exact for the inputs below).
double dequantized_dot(const uint8_t* a, const uint8_t* sa, const uint8_t* b, const uint8_t* sb, int k) {
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += mx_dequantize(a[i], sa[i / 32]) * mx_dequantize(b[i], sb[i / 32]);
  return sum;
}

}  // namespace

TEST_CASE("mxfp8 --rule: rceil by default, floor or rceil taken out of argv, anything else refused",
          "[mxfp8][options]") {
  MxRule rule = MxRule::Floor;
  std::vector<const char*> rest;
  rule = MxRule::Rceil;
  CHECK(take({"matmul_mxfp8", "--m", "512"}, rule, rest).empty());
  CHECK(rule == MxRule::Rceil);
  REQUIRE(rest.size() == 3);
  CHECK(std::string(rest[1]) == "--m");
  CHECK(std::string(rest[2]) == "512");

  CHECK(take({"matmul_mxfp8", "--rule", "floor", "--k", "256"}, rule, rest).empty());
  CHECK(rule == MxRule::Floor);
  REQUIRE(rest.size() == 3);
  CHECK(std::string(rest[1]) == "--k");
  CHECK(take({"matmul_mxfp8", "--rule", "floor", "--rule", "rceil"}, rule, rest).empty());
  CHECK(rule == MxRule::Rceil);
  CHECK(rest.size() == 1);

  CHECK(contains(take({"matmul_mxfp8", "--rule", "ceil"}, rule, rest), "--rule takes rceil"));
  CHECK(contains(take({"matmul_mxfp8", "--rule", "RCEIL"}, rule, rest), "got 'RCEIL'"));
  CHECK(contains(take({"matmul_mxfp8", "--rule"}, rule, rest), "got ''"));
}

TEST_CASE("mxfp8 sm_90a shapes: dims >= 1, K a multiple of 32, any M and N", "[mxfp8][shape]") {
  CHECK(mxfp8_sm90_check_shape(256, 128, 128).empty());
  CHECK(mxfp8_sm90_check_shape(8192, 8192, 8192).empty());
  CHECK(mxfp8_sm90_check_shape(1, 1, 32).empty());         // any M and N: TMA zero-fills, the epilogue clips
  CHECK(mxfp8_sm90_check_shape(300, 520, 544).empty());    // a short last K tile (544 = 4 x 128 + 32)
  CHECK(mxfp8_sm90_check_shape(129, 777, 4064).empty());   // odd N: the epilogue stores one float at a time
  CHECK(contains(mxfp8_sm90_check_shape(0, 128, 128), "M=0 is below 1"));
  CHECK(contains(mxfp8_sm90_check_shape(256, -128, 128), "N=-128 is below 1"));
  CHECK(contains(mxfp8_sm90_check_shape(256, 128, 0), "K=0 is below 1"));
  const std::string k1000 = mxfp8_sm90_check_shape(256, 128, 1000);
  CHECK(contains(k1000, "not a multiple of 32"));
  CHECK(contains(k1000, "try K=992"));
  CHECK(contains(mxfp8_sm90_check_shape(256, 128, 16), "not a multiple of 32"));  // a TMA stride, no MX block
}

TEST_CASE("mxfp8 sm_90a arguments: data, scale and output sizes must be what the shape needs", "[mxfp8][shape]") {
  const MxGemmArgs good = sized_args(512, 256, 1024);
  CHECK(mxfp8_sm90_check_args(good).empty());
  CHECK(good.sfa_bytes == 512 * 32);  // 4 row blocks x 8 K tiles x 512 B: no padding at this shape
  MxGemmArgs g = good;
  g.sfa_bytes -= 512;
  CHECK(contains(mxfp8_sm90_check_args(g), "A's scales"));
  g = good;
  g.sfb_bytes = mx_scale_tensor_bytes(256, 512);  // the scales of another K
  CHECK(contains(mxfp8_sm90_check_args(g), "B's scales"));
  g = good;
  g.a_bytes += 1;
  CHECK(contains(mxfp8_sm90_check_args(g), "A's e4m3 data"));
  g = good;
  g.c_bytes /= 2;  // a bf16 output buffer: the kernel writes fp32
  CHECK(contains(mxfp8_sm90_check_args(g), "C (fp32)"));
  g     = good;
  g.sfb = nullptr;
  CHECK(contains(mxfp8_sm90_check_args(g), "null"));
  g   = good;
  g.k = 1000;
  CHECK(contains(mxfp8_sm90_check_args(g), "multiple of 32"));
}

TEST_CASE("bw sm_90a shapes and arguments: dims >= 1, K a multiple of 16, any M and N, sizes and alignment",
          "[bw][shape]") {
  CHECK(bw_sm90_check_shape(4096, 4096, 4096).empty());
  CHECK(bw_sm90_check_shape(1, 1, 16).empty());
  CHECK(bw_sm90_check_shape(129, 777, 272).empty());  // K % 128 = 16: a short last 128-block
  CHECK(contains(bw_sm90_check_shape(0, 128, 128), "M=0 is below 1"));
  const std::string k40 = bw_sm90_check_shape(256, 128, 40);
  CHECK(contains(k40, "not a multiple of 16"));
  CHECK(contains(k40, "try K=32"));
  const int64_t m = 300, n = 520, k = 544;
  const BwGemmArgs good{reinterpret_cast<const void*>(256), reinterpret_cast<const float*>(256),
                        reinterpret_cast<const void*>(256), reinterpret_cast<const float*>(256),
                        reinterpret_cast<void*>(256), m, n, k, uint64_t(m * k),
                        bw_scale_tensor_bytes(BwGranularity::Row1x128, m, k), uint64_t(n * k),
                        bw_scale_tensor_bytes(BwGranularity::Block128x128, n, k), uint64_t(m * n * 2)};
  CHECK(bw_sm90_check_args(good).empty());
  CHECK(good.sfa_bytes == 5 * 300 * 4);  // L = 5 columns of 300 floats (300 is a multiple of 4)
  CHECK(good.sfb_bytes == 5 * 8 * 4);    // 5 row blocks x round_up(5, 4) = 8 floats
  BwGemmArgs g = good;
  g.sfa_bytes -= 16;
  CHECK(contains(bw_sm90_check_args(g), "A's 1x128 scales"));
  g = good;
  g.sfb_bytes = bw_scale_tensor_bytes(BwGranularity::Row1x128, n, k);  // the other granularity's size
  CHECK(contains(bw_sm90_check_args(g), "B's 128x128 scales"));
  g = good;
  g.c_bytes *= 2;  // an fp32 output buffer: the kernel writes bf16
  CHECK(contains(bw_sm90_check_args(g), "C (bf16)"));
  g   = good;
  g.c = nullptr;
  CHECK(contains(bw_sm90_check_args(g), "null"));
  g   = good;
  g.sfb = reinterpret_cast<const float*>(264);
  CHECK(contains(bw_sm90_check_args(g), "16-byte aligned"));
}

TEST_CASE("bw's kernel pick: the decode kernel's narrowest group up to 64 rows, two groups of 64 up to 128, two "
          "CTAs to an SM where the units outnumber the SMs (not at 16 rows), at 65-128 rows there (or where K > "
          "8192 and the decode kernel could not split it) the wide kernel along N, the wide kernel past 128",
          "[bw][shape]") {
  auto pick = [](int64_t m, int64_t n, int sms, int64_t k = 4096) {
    const BwDecodePick p = bw_decode_pick(m, n, k, sms);
    return std::to_string(p.cols) + "/" + std::to_string(p.per_sm) + (p.along_n ? "/N" : "");
  };
  CHECK(pick(1, 8192, 132) == "16/1");
  CHECK(pick(16, 57344, 132) == "16/1");  // 448 tiles, but B's stream bounds it: one to an SM
  CHECK(pick(17, 8192, 132) == "32/1");
  CHECK(pick(32, 16896, 132) == "32/1");  // 132 tiles: one wave
  CHECK(pick(32, 16897, 132) == "32/2");  // 133 tiles: two to an SM
  CHECK(pick(33, 8192, 132) == "64/1");
  CHECK(pick(64, 57344, 132) == "64/2");  // one group: the decode kernel, two to an SM
  CHECK(pick(65, 8192, 132) == "64/1");   // 64 tiles x 2 groups = 128 units: one wave
  CHECK(pick(128, 8448, 132) == "64/1");  // 66 x 2 = 132: still one wave
  CHECK(pick(128, 8449, 132) == "0/1/N");  // 67 x 2 = 134: the wide kernel, its clusters along N
  CHECK(pick(65, 8449, 132) == "0/1/N");
  CHECK(pick(100, 57344, 132) == "0/1/N");
  CHECK(pick(128, 8192, 114) == "0/1/N");  // the SM count is the GPU's: 128 units outnumber 114 SMs
  // K > 8192 where the decode kernel's units take more than half the SMs (no split of K): along N, K split
  CHECK(pick(128, 8192, 132, 28672) == "0/1/N");  // 128 units: one CTA each would stream all 224 K tiles
  CHECK(pick(65, 4352, 132, 8320) == "0/1/N");    // 34 x 2 = 68 units
  CHECK(pick(128, 8192, 132, 8192) == "64/1");    // K = 8192: the decode kernel
  CHECK(pick(128, 4224, 132, 28672) == "64/1");   // 33 x 2 = 66 units: two splits of K each
  CHECK(pick(64, 8192, 132, 28672) == "64/1");    // one group: the decode kernel
  CHECK(pick(129, 8192, 132) == "0/1");    // the wide kernel, its clusters along M
  CHECK(pick(129, 57344, 132) == "0/1");
  CHECK(pick(4096, 4096, 132) == "0/1");
}

TEST_CASE("bw along N: quads of N tiles (each CTA a quarter of A) where they make more than a wave of resident "
          "quads in no more turns than the pairs, else pairs",
          "[bw][shape]") {
  // An H200: 66 resident pairs, 30 quads (120 of 132 SMs)
  CHECK(gemm::bw_along_n_quads(28672, 66, 30));   // 224 tiles: 56 quads (2 turns), 112 pairs (2 turns)
  CHECK(gemm::bw_along_n_quads(57344, 66, 30));   // 448: 112 quads, 4 turns; 224 pairs, 4 turns
  CHECK_FALSE(gemm::bw_along_n_quads(14336, 66, 30));  // 112 tiles: 28 quads, one wave (measured 1-2% slower)
  CHECK_FALSE(gemm::bw_along_n_quads(10240, 66, 30));  // 80 tiles: 20 quads
  CHECK_FALSE(gemm::bw_along_n_quads(8192, 66, 30));   // 64 tiles: the pairs split K, quads could not
  CHECK_FALSE(gemm::bw_along_n_quads(15360, 66, 30));  // 120 tiles: 30 quads, one wave, not more
  CHECK_FALSE(gemm::bw_along_n_quads(15361, 66, 30));  // 121 tiles: 31 quads take 2 turns, 61 pairs 1
  CHECK(gemm::bw_along_n_quads(17025, 66, 30));        // 134 tiles: 34 quads and 67 pairs, 2 turns each
  CHECK_FALSE(gemm::bw_along_n_quads(57344, 66, 0));   // no quad fits (the host passes 0): pairs
}

TEST_CASE("e8m0_to_float: every byte decodes to 2^(s-127) exactly, 0x00 to the subnormal 2^-127, 0xFF to NaN",
          "[mxfp8][promotion]") {
  for (int s = 0; s < 255; ++s) CHECK(double(e8m0_to_float(uint32_t(s))) == std::ldexp(1.0, s - 127));
  CHECK(std::isnan(e8m0_to_float(0xFF)));
  CHECK(e8m0_to_float(0) > 0.0f);
}

TEST_CASE("promotion: sa * sb is the exact power of two 2^(ea+eb-254) down to fp32's smallest subnormal",
          "[mxfp8][promotion]") {
  int exact = 0, underflow = 0;
  for (int ea = 0; ea < 255; ++ea)
    for (int eb = 0; eb < 255; ++eb) {
      const int e     = ea + eb - 254;
      const float got = e8m0_to_float(uint32_t(ea)) * e8m0_to_float(uint32_t(eb));
      // Pairs with e > 127 overflow fp32 (sa * sb is inf) and are skipped: of the 255^2 pairs, only those
      // whose product fits fp32 or underflows below 2^-149 are checked.
      if (e >= -149 && e <= 127) {
        CHECK(double(got) == std::ldexp(1.0, e));
        ++exact;
      } else if (e < -149) {  // the documented limit: products below 2^-149 flush towards 0
        CHECK(double(got) < std::ldexp(1.0, -149));
        ++underflow;
      }
    }
  CHECK(exact > 40000);
  CHECK(underflow > 0);
  // A NaN scale makes the block's contribution NaN, whatever the partial.
  CHECK(std::isnan(mx_promote(1.0f, 0.0f, e8m0_to_float(0xFF), 1.0f)));
}

TEST_CASE("promotion: the k32-promoted sum equals the dequantized sum exactly when every term fits fp32",
          "[mxfp8][promotion]") {
  // e4m3 values from {0, +-0.5, +-1, +-1.5, +-2} and block scales 2^-2 .. 2^2: every product is a multiple
  // of 2^-6 below 2^7, every partial sum (K <= 1024) below 2^17 in magnitude: all sums are exact in fp32 in any order,
  // so promotion must reproduce the dequantized dot product bit for bit.
  const uint8_t values[] = {0x00, 0x30, 0xB0, 0x38, 0xB8, 0x3C, 0xBC, 0x40, 0xC0};
  std::mt19937 gen(12345);
  for (int k : {32, 128, 512, 1024}) {  // K <= 1024: every partial sum of the model below 2^17
    for (int trial = 0; trial < 20; ++trial) {
      const size_t kk = static_cast<size_t>(k);
      std::vector<uint8_t> a(kk), b(kk), sa(kk / 32), sb(kk / 32);
      for (auto& x : a) x = values[gen() % 9];
      for (auto& x : b) x = values[gen() % 9];
      for (auto& s : sa) s = uint8_t(125 + gen() % 5);
      for (auto& s : sb) s = uint8_t(125 + gen() % 5);
      const double want = dequantized_dot(a.data(), sa.data(), b.data(), sb.data(), k);
      REQUIRE(double(float(want)) == want);
      CHECK(double(promoted_dot(a.data(), sa.data(), b.data(), sb.data(), k)) == want);
    }
  }
}

TEST_CASE("promotion: a per-block scale applied to the wrong block changes the exact sum", "[mxfp8][promotion]") {
  // The exactness above is not vacuous: the same inputs with two blocks' scales swapped give another sum.
  std::vector<uint8_t> a(64, 0x38), b(64, 0x38), sa = {127, 129}, sb = {127, 127};  // 1.0 everywhere
  const float right = promoted_dot(a.data(), sa.data(), b.data(), sb.data(), 64);   // 32 * 1 + 32 * 4
  CHECK(right == 160.0f);
  std::vector<uint8_t> swapped = {129, 127};
  b[0] = 0x40;  // 2.0 in block 0 only
  CHECK(promoted_dot(a.data(), sa.data(), b.data(), sb.data(), 64) == 161.0f);
  CHECK(promoted_dot(a.data(), swapped.data(), b.data(), sb.data(), 64) == 164.0f);
}

TEST_CASE("promotion: random MXFP8 operands stay within the tolerance's fp32 part of the dequantized sum",
          "[mxfp8][promotion]") {
  // Quantized normal data with outlier blocks: the promoted sum (exact partials) differs from the exact
  // dequantized sum only by fp32 roundings, K/32 of them: well inside (K/32) * 2^-24 * sum |a||b|.
  std::mt19937 gen(777);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int k = 2048;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> x(static_cast<size_t>(k)), y(static_cast<size_t>(k));
    for (int i = 0; i < k; ++i) {
      x[size_t(i)] = normal(gen) * ((i / 32) % 7 == 3 ? 300.0f : 1.0f);
      y[size_t(i)] = normal(gen) * ((i / 32) % 5 == 1 ? 1e-3f : 1.0f);
    }
    std::vector<uint8_t> a(static_cast<size_t>(k)), b(static_cast<size_t>(k)),
        sa(static_cast<size_t>(mx_scale_tensor_bytes(1, k))), sb(sa.size());
    mx_quantize_ref_f32(x.data(), 1, k, MxRule::Rceil, a.data(), sa.data());
    mx_quantize_ref_f32(y.data(), 1, k, MxRule::Floor, b.data(), sb.data());
    std::vector<uint8_t> sa_row(static_cast<size_t>(k / 32)), sb_row(static_cast<size_t>(k / 32));
    for (int j = 0; j < k / 32; ++j) {
      sa_row[size_t(j)] = sa[mx_scale_offset(0, j, k / 32)];
      sb_row[size_t(j)] = sb[mx_scale_offset(0, j, k / 32)];
    }
    double abs_sum = 0;
    for (int i = 0; i < k; ++i)
      abs_sum += std::fabs(mx_dequantize(a[size_t(i)], sa_row[size_t(i / 32)]) *
                           mx_dequantize(b[size_t(i)], sb_row[size_t(i / 32)]));
    const double want = dequantized_dot(a.data(), sa_row.data(), b.data(), sb_row.data(), k);
    const double got  = promoted_dot(a.data(), sa_row.data(), b.data(), sb_row.data(), k);
    CHECK(std::fabs(got - want) <= (k / 32 + 1) * std::ldexp(1.0, -24) * abs_sum);
  }
}

TEST_CASE("mxfp8 verdict: the element-wise bound eps * sum|a||b| passes at the bound and fails beyond it",
          "[mxfp8][tolerance]") {
  const int64_t k = 4096;
  const double eps = mx_tolerance_eps(k);
  CHECK(eps == std::ldexp(1.0, -7) + double(4096 + 128) * std::ldexp(1.0, -24));
  std::vector<float> ref = {1.0f, -2.0f, 0.0f, 100.0f}, bound = {10.0f, 10.0f, 0.0f, 1000.0f};
  std::vector<float> out = ref;
  CHECK(check_mx_output(out.data(), ref.data(), bound.data(), 4, k).pass);
  out[3] = float(100.0 + 0.5 * eps * 1000.0);
  const MxCheck inside = check_mx_output(out.data(), ref.data(), bound.data(), 4, k);
  CHECK(inside.pass);
  CHECK(inside.max_ratio == Approx(0.5).epsilon(1e-3));
  out[3] = float(100.0 + 1.01 * eps * 1000.0);
  const MxCheck beyond = check_mx_output(out.data(), ref.data(), bound.data(), 4, k);
  CHECK_FALSE(beyond.pass);
  CHECK(beyond.bad == 1);
  CHECK(beyond.first_bad == 3);
  out    = ref;
  out[2] = 1e-30f;  // sum |a||b| = 0 allows no error at all
  CHECK_FALSE(check_mx_output(out.data(), ref.data(), bound.data(), 4, k).pass);
  out    = ref;
  out[1] = NAN;  // the poison an unwritten element keeps
  const MxCheck nan = check_mx_output(out.data(), ref.data(), bound.data(), 4, k);
  CHECK_FALSE(nan.pass);
  CHECK(nan.nonfinite == 1);
}
