// The statistics of the paired benchmark method (common/timing.h), on made-up launch times: no GPU needed.
#include <catch2/catch.hpp>

#include <vector>

#include "common/timing.h"

using gemm::round_ratios;
using gemm::summarize;

TEST_CASE("summarize: median, min, max and quartiles by linear interpolation") {
  const gemm::Spread s = summarize({5, 1, 4, 2, 3});
  CHECK(s.count == 5);
  CHECK(s.min == 1);
  CHECK(s.max == 5);
  CHECK(s.median == 3);
  CHECK(s.q1 == 2);
  CHECK(s.q3 == 4);
  const gemm::Spread even = summarize({4, 1, 3, 2});
  CHECK(even.median == Approx(2.5));
  CHECK(even.q1 == Approx(1.75));  // 1 + 0.75 * (2 - 1)
  CHECK(even.q3 == Approx(3.25));
  const gemm::Spread one = summarize({7});
  CHECK((one.min == 7 && one.max == 7 && one.median == 7 && one.q1 == 7 && one.q3 == 7));
  CHECK(summarize({}).count == 0);
  CHECK(summarize({}).median == 0);
}

TEST_CASE("paired rounds cancel a clock that drifts between rounds") {
  // The GPU slows down halfway (power limit): every launch of both sides takes 1.3x longer from round 2 on.
  // The kernel is always 0.8x as fast as the reference, so every round's ratio is 0.8.
  std::vector<std::vector<double>> ref, ker;
  for (int r = 0; r < 4; ++r) {
    const double slow = r < 2 ? 1.0 : 1.3;
    ref.push_back({1.00 * slow, 1.01 * slow, 0.99 * slow});
    ker.push_back({1.25 * slow, 1.26 * slow, 1.24 * slow});
  }
  const gemm::Spread ratio = round_ratios(ref, ker);
  CHECK(ratio.count == 4);
  CHECK(ratio.median == Approx(0.8));
  CHECK(ratio.min == Approx(0.8));
  CHECK(ratio.max == Approx(0.8));

  // Timed one after the other instead (all reference rounds at full clock, the kernel's after the slow-down),
  // the ratio of medians would be off by the clock change: this is the error the pairing removes.
  const double ref_fast = 1.0, ker_slow = 1.25 * 1.3;
  CHECK(ref_fast / ker_slow == Approx(0.615).epsilon(1e-3));
}

TEST_CASE("the ratio is the median of per-round ratios, robust to one disturbed round") {
  std::vector<std::vector<double>> ref(5, {1.0, 1.0, 1.0}), ker(5, {2.0, 2.0, 2.0});
  ker[3]                   = {20.0, 20.0, 20.0};  // one round hit by something else running on the GPU
  const gemm::Spread ratio = round_ratios(ref, ker);
  CHECK(ratio.median == Approx(0.5));
  CHECK(ratio.min == Approx(0.05));
  CHECK(ratio.max == Approx(0.5));
  // Within a round, the median launch is used: one outlier launch does not move the round's ratio.
  std::vector<std::vector<double>> ref1{{1.0, 1.0, 9.0}}, ker1{{2.0, 2.0, 2.0}};
  CHECK(round_ratios(ref1, ker1).median == Approx(0.5));
}

TEST_CASE("round_ratios pairs rounds one to one and ignores empty or zero-time rounds") {
  std::vector<std::vector<double>> ref{{1.0}, {1.0}, {}}, ker{{0.5}, {0.0}, {1.0}, {1.0}};
  const gemm::Spread ratio = round_ratios(ref, ker);
  CHECK(ratio.count == 1);
  CHECK(ratio.median == Approx(2.0));
}
