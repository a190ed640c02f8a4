// The comparison against cuBLAS: a single wrong element, a NaN, an Inf or an unwritten (poisoned) element fails.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/compare.h"

using namespace gemm;

namespace {
// A plausible reference: K=4096 dot products of values in [-1, 1) have a standard deviation of about 21.
std::vector<uint16_t> make_reference(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 21.0f);
  std::vector<uint16_t> ref(count);
  for (auto& r : ref) r = float_to_bf16(dist(rng));
  return ref;
}
// What a correct kernel produces: the same fp32 value rounded to bf16 after a different summation order,
// i.e. the reference or one bf16 ulp away.
std::vector<uint16_t> one_ulp_noise(const std::vector<uint16_t>& ref, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> out = ref;
  for (auto& o : out) {
    const int step = int(rng() % 3) - 1;
    if (o != 0 && o != 0x8000) o = uint16_t(int(o) + step);
  }
  return out;
}
}  // namespace

TEST_CASE("bf16 conversion rounds to nearest even and keeps NaN") {
  CHECK(float_to_bf16(1.0f) == 0x3F80);
  CHECK(float_to_bf16(-2.0f) == 0xC000);
  CHECK(bf16_to_float(0x3F80) == 1.0f);
  CHECK(float_to_bf16(1.0f + 1.0f / 256) == 0x3F80);          // tie: round to even (down)
  CHECK(float_to_bf16(1.0f + 3.0f / 256) == 0x3F82);          // tie: round to even (up)
  CHECK(float_to_bf16(1.0f + 1.0f / 256 + 1e-6f) == 0x3F81);  // just above the tie
  CHECK(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  CHECK(std::isnan(bf16_to_float(POISON_BF16)));
}

TEST_CASE("an output within one bf16 ulp of the reference passes") {
  const auto ref = make_reference(1 << 16, 1);
  const auto out = one_ulp_noise(ref, 2);
  const CompareResult r = compare_bf16(out.data(), ref.data(), ref.size());
  INFO(r.summary());
  CHECK(r.pass);
  CHECK(r.nonfinite == 0);
  CHECK(r.bad == 0);
  CHECK(r.rel_frob > 0);
  CHECK(r.rel_frob < 5e-3);
}

TEST_CASE("an identical output passes with zero error") {
  const auto ref        = make_reference(4096, 3);
  const CompareResult r = compare_bf16(ref.data(), ref.data(), ref.size());
  CHECK(r.pass);
  CHECK(r.rel_frob == 0);
  CHECK(r.max_abs == 0);
}

TEST_CASE("a single wrong element fails") {
  const auto ref = make_reference(1 << 18, 4);
  auto out       = one_ulp_noise(ref, 5);
  const size_t i = 123457;
  out[i]         = float_to_bf16(bf16_to_float(ref[i]) + 2.0f);  // off by 2 in values of size ~21
  const CompareResult r = compare_bf16(out.data(), ref.data(), ref.size());
  INFO(r.summary());
  CHECK_FALSE(r.pass);
  CHECK(r.bad == 1);
  CHECK(r.first_bad == i);
  // the Frobenius norm alone would not have caught it: the element-wise check did
  CHECK(r.rel_frob < 5e-3);
}

TEST_CASE("a wrong sign on one element fails") {
  auto ref = make_reference(1 << 14, 6);
  ref[77]  = float_to_bf16(30.0f);
  auto out = ref;
  out[77]  = float_to_bf16(-30.0f);
  CHECK_FALSE(compare_bf16(out.data(), ref.data(), ref.size()).pass);
}

TEST_CASE("a NaN or an Inf fails") {
  const auto ref = make_reference(1 << 14, 7);
  for (uint16_t bad : {uint16_t(0x7FC0), uint16_t(0x7F80), uint16_t(0xFF80)}) {
    auto out              = ref;
    out[4321]             = bad;
    const CompareResult r = compare_bf16(out.data(), ref.data(), ref.size());
    CHECK_FALSE(r.pass);
    CHECK(r.nonfinite == 1);
    CHECK(r.first_bad == 4321);
  }
}

TEST_CASE("an unwritten output (left poisoned) fails") {
  const auto ref = make_reference(1 << 14, 8);
  auto out       = ref;
  // a kernel that skipped the last 8x16 block of a 128-column output
  for (size_t row = 120; row < 128; ++row)
    for (size_t col = 112; col < 128; ++col) out[row * 128 + col] = POISON_BF16;
  const CompareResult r = compare_bf16(out.data(), ref.data(), ref.size());
  CHECK_FALSE(r.pass);
  CHECK(r.nonfinite == 8 * 16);

  std::vector<uint16_t> never_written(ref.size(), POISON_BF16);
  CHECK_FALSE(compare_bf16(never_written.data(), ref.data(), ref.size()).pass);
}

TEST_CASE("an all-zero output fails against a non-zero reference") {
  const auto ref = make_reference(1 << 12, 9);
  std::vector<uint16_t> zeros(ref.size(), 0);
  CHECK_FALSE(compare_bf16(zeros.data(), ref.data(), ref.size()).pass);
}

TEST_CASE("transposed output fails") {
  const size_t n = 64;
  const auto ref = make_reference(n * n, 10);
  std::vector<uint16_t> t(ref.size());
  for (size_t r = 0; r < n; ++r)
    for (size_t c = 0; c < n; ++c) t[c * n + r] = ref[r * n + c];
  CHECK_FALSE(compare_bf16(t.data(), ref.data(), ref.size()).pass);
}

TEST_CASE("an empty comparison does not pass") {
  CHECK_FALSE(compare_bf16(nullptr, nullptr, 0).pass);
}
