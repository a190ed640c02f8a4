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

// The fp64 settlement of a disagreement with cuBLAS (common/compare.h, recheck_exact): where the reference is
// the one that is off, the kernel is settled right; where the kernel is off, it is not, whatever cuBLAS did.
TEST_CASE("an fp64 recheck settles a disagreement for whichever side matches the exact product") {
  const int64_t m = 16, n = 24, k = 40;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<uint16_t> a(size_t(m * k)), b(size_t(n * k));
  for (auto& x : a) x = float_to_bf16(u(rng));
  for (auto& x : b) x = float_to_bf16(u(rng));
  std::vector<uint16_t> exact(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        s += double(bf16_to_float(a[size_t(i * k + kk)])) * bf16_to_float(b[size_t(j * k + kk)]);
      exact[size_t(i * n + j)] = float_to_bf16(float(s));
    }
  // cuBLAS off by +1.0 at three elements (as a split-K reduction gone wrong); the kernel exact.
  auto cublas = exact;
  for (size_t i : {size_t(0), size_t(77), size_t(m * n - 1)}) cublas[i] = float_to_bf16(bf16_to_float(exact[i]) + 1.f);
  const CompareResult r = compare_bf16(exact.data(), cublas.data(), exact.size());
  REQUIRE_FALSE(r.pass);
  REQUIRE(r.bad == 3);
  const Recheck rc = recheck_exact(a.data(), b.data(), m, n, k, exact.data(), cublas.data());
  CHECK(rc.checked == 3);
  CHECK(rc.kernel_off == 0);
  CHECK(rc.cublas_off == 3);
  CHECK(rc.first == 0);
  CHECK(rc.rel_frob < 1e-2);
  CHECK(rc.settled());

  // The kernel off instead, cuBLAS exact: not settled.
  auto kernel = exact;
  kernel[77]  = float_to_bf16(bf16_to_float(exact[77]) - 1.f);
  const Recheck bad = recheck_exact(a.data(), b.data(), m, n, k, kernel.data(), exact.data());
  CHECK(bad.checked == 1);
  CHECK(bad.kernel_off == 1);
  CHECK(bad.cublas_off == 0);
  CHECK_FALSE(bad.settled());

  // Both off at the same element, in opposite directions: the kernel is still off.
  auto both_k = exact, both_c = exact;
  both_k[5]   = float_to_bf16(bf16_to_float(exact[5]) + 1.f);
  both_c[5]   = float_to_bf16(bf16_to_float(exact[5]) - 1.f);
  const Recheck both = recheck_exact(a.data(), b.data(), m, n, k, both_k.data(), both_c.data());
  CHECK(both.kernel_off == 1);
  CHECK(both.cublas_off == 1);
  CHECK_FALSE(both.settled());
  // No disagreement: nothing to settle.
  CHECK(recheck_exact(a.data(), b.data(), m, n, k, exact.data(), exact.data()).checked == 0);
}
