// The TFLOPS arithmetic: 2*M*N*K flops over the median time, without integer overflow.
#include <catch2/catch.hpp>

#include "common/compare.h"

TEST_CASE("TFLOPS = 2MNK / time") {
  // 4096^3 in 1 ms: 2 * 2^36 flops / 1e-3 s = 137.44 TFLOPS
  CHECK(gemm::gemm_tflops(4096, 4096, 4096, 1.0) == Approx(137.438953472).epsilon(1e-12));
  // 1 TFLOP in 1 s
  CHECK(gemm::gemm_tflops(500000, 1000, 1000, 1000.0) == Approx(1.0).epsilon(1e-12));
  // cuBLAS-class speed on an H100: 4096^3 in 0.18 ms ~ 763.5 TFLOPS
  CHECK(gemm::gemm_tflops(4096, 4096, 4096, 0.18) == Approx(763.549741511).epsilon(1e-9));
}

TEST_CASE("TFLOPS does not overflow at large shapes") {
  // 2 * 65536^3 = 5.6e14 exceeds 32 bits many times over; computed in double it is exact
  CHECK(gemm::gemm_tflops(65536, 65536, 65536, 1000.0) == Approx(562.949953421312).epsilon(1e-12));
}

TEST_CASE("TFLOPS scales as expected") {
  const double t = gemm::gemm_tflops(1024, 2048, 4096, 0.5);
  CHECK(gemm::gemm_tflops(1024, 2048, 4096, 1.0) == Approx(t / 2));
  CHECK(gemm::gemm_tflops(2048, 2048, 4096, 0.5) == Approx(2 * t));
  CHECK(gemm::gemm_tflops(1024, 2048, 8192, 0.5) == Approx(2 * t));
}
