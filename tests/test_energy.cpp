// Energy per GEMM (common/timing.h, --energy): the arithmetic of one window between two reads of NVML's
// total-energy counter, on made-up reads. No GPU needed.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "common/report.h"
#include "common/timing.h"

using gemm::energy_per_gemm;

TEST_CASE("joules per GEMM are the counter's rise over the launches and watts its rise over the window") {
  std::string why = "stale";
  // 2 s at 700 W = 1400 J = 1 400 000 mJ, over 1000 launches: 1.4 J per GEMM.
  const auto e = energy_per_gemm(5'000'000.0, 6'400'000.0, 1000, 2000.0, why);
  REQUIRE(e.has_value());
  CHECK(e->joules == Approx(1.4));
  CHECK(e->watts == Approx(700.0));
  CHECK(why.empty());  // cleared on success
}

TEST_CASE("a missing read gives no figure and says which read") {
  std::string why;
  CHECK_FALSE(energy_per_gemm(std::nullopt, 6'400'000.0, 1000, 2000.0, why).has_value());
  CHECK(why.find("before the window") != std::string::npos);
  CHECK_FALSE(energy_per_gemm(5'000'000.0, std::nullopt, 1000, 2000.0, why).has_value());
  CHECK(why.find("after the window") != std::string::npos);
}

TEST_CASE("a counter that went backwards or did not move gives no figure") {
  std::string why;
  CHECK_FALSE(energy_per_gemm(6'400'000.0, 10.0, 1000, 2000.0, why).has_value());  // driver reloaded
  CHECK(why.find("backwards") != std::string::npos);
  CHECK_FALSE(energy_per_gemm(5'000'000.0, 5'000'000.0, 1000, 2000.0, why).has_value());
  CHECK(why.find("did not move") != std::string::npos);
}

TEST_CASE("a window with no launches or no time gives no figure") {
  std::string why;
  CHECK_FALSE(energy_per_gemm(5'000'000.0, 6'400'000.0, 0, 2000.0, why).has_value());
  CHECK(why.find("no launch") != std::string::npos);
  CHECK_FALSE(energy_per_gemm(5'000'000.0, 6'400'000.0, 1000, 0.0, why).has_value());
  CHECK_FALSE(why.empty());
}

TEST_CASE("a counter read of 0 mJ is a reading and not a missing one") {
  std::string why;
  const auto e = energy_per_gemm(0.0, 1000.0, 10, 1000.0, why);  // 1 J over 10 launches in 1 s
  REQUIRE(e.has_value());
  CHECK(e->joules == Approx(0.1));
  CHECK(e->watts == Approx(1.0));
}

TEST_CASE("the RESULT fields of energy come only with the option and say n/a for a side not measured") {
  gemm::ReportHeader h;
  gemm::ReportRow r;
  r.joules_per_gemm        = 0.14021;
  r.cublas_joules_per_gemm = 0.15;
  CHECK(gemm::energy_fields(h, r).empty());  // --energy not given: no fields, the line as before
  h.energy = true;
  CHECK(gemm::energy_fields(h, r) ==
        "joules_per_gemm=0.14021|cublas_joules_per_gemm=0.15000|cublas_best_joules_per_gemm=n/a|");
}
