// The limit of a shape (common/limit.h): the per-clock rates against the datasheets, the arithmetic and its
// units, which bound binds.
#include <catch2/catch.hpp>

#include <string>

#include "common/limit.h"

using gemm::gemm_bytes_bf16;
using gemm::gemm_limit;
using gemm::Limit;
using gemm::LimitModel;
using gemm::percent_of_limit;

namespace {

constexpr LimitModel H100{4096, 132, 3000};  // an H100 SXM with a 3000 GB/s copy bandwidth

}  // namespace

TEST_CASE("limit: the per-clock tensor rates reproduce the datasheets' dense bf16 peaks") {
  // H100 SXM: 989.4 TFLOPS at 1830 MHz on 132 SMs
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(9, 0) == 4096);
  CHECK(gemm::tensor_tflops(LimitModel{4096, 132, 0}, 1830) == Approx(989.4).epsilon(1e-4));
  // B200: 2.25 PFLOPS dense on 148 SMs at its 1.856 GHz tensor clock (HGX B200 datasheet)
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(10, 0) == 8192);
  CHECK(gemm::tensor_tflops(LimitModel{8192, 148, 0}, 1856) == Approx(2250).epsilon(1e-3));
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(10, 3) == 8192);  // B300: taken as B200's
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(8, 0) == 0);      // no rate known: no limit
  CHECK(gemm::dense_bf16_flop_per_clk_per_sm(12, 0) == 0);
}

TEST_CASE("limit: the arithmetic and its units (ms, GB/s, MHz)") {
  // 4096^3: A, B and C of 32 MiB each
  CHECK(gemm_bytes_bf16(4096, 4096, 4096) == 3.0 * 2 * 4096 * 4096);
  const Limit l = gemm_limit(H100, 4096, 4096, 4096, 1830);
  CHECK(l.compute_ms == Approx(2.0 * 4096 * 4096 * 4096 / 989.4e12 * 1e3).epsilon(1e-4));  // 0.1389 ms
  CHECK(l.memory_ms == Approx(100663296.0 / 3000e9 * 1e3).epsilon(1e-12));                 // 0.0336 ms
  CHECK(l.ms() == l.compute_ms);
  CHECK(l.clock_mhz == 1830);
  // cuBLAS-class 4096^3 on an H100 (0.18 ms) at 1830 MHz: 77% of the limit
  CHECK(percent_of_limit(l, 0.18) == Approx(100 * 0.138913 / 0.18).epsilon(1e-4));
  CHECK(percent_of_limit(l, l.ms()) == Approx(100));
  // the clock moves the compute time only, inversely; the bandwidth the memory time only
  const Limit slow = gemm_limit(H100, 4096, 4096, 4096, 915);
  CHECK(slow.compute_ms == Approx(2 * l.compute_ms));
  CHECK(slow.memory_ms == l.memory_ms);
  const Limit faster_hbm = gemm_limit(LimitModel{4096, 132, 6000}, 4096, 4096, 4096, 1830);
  CHECK(faster_hbm.memory_ms == Approx(l.memory_ms / 2));
  CHECK(faster_hbm.compute_ms == l.compute_ms);
  // no overflow: 65536^3 is 5.6e14 FLOPs and 25.8 GB
  const Limit big = gemm_limit(H100, 65536, 65536, 65536, 1980);
  CHECK(big.compute_ms == Approx(2.0 * 65536.0 * 65536.0 * 65536.0 / (4096.0 * 132 * 1980e6) * 1e3));
  CHECK(big.memory_ms == Approx(3.0 * 2 * 65536.0 * 65536.0 / 3000e9 * 1e3));
}

TEST_CASE("limit: a cube is compute-bound, a decode shape memory-bound") {
  const Limit cube = gemm_limit(H100, 8192, 8192, 8192, 1755);
  CHECK_FALSE(cube.memory_bound());
  CHECK(std::string(cube.bound()) == "compute");
  // decode, 1 token through Llama 3 70B's FFN down projection: B is 8192 x 28672 bf16, 470 MB
  const Limit decode = gemm_limit(H100, 1, 8192, 28672, 1980);
  CHECK(decode.memory_bound());
  CHECK(std::string(decode.bound()) == "memory");
  CHECK(gemm_bytes_bf16(1, 8192, 28672) == 2.0 * (28672 + 8192.0 * 28672 + 8192));  // 469,835,776 B
  CHECK(decode.memory_ms == Approx(469835776.0 / 3000e9 * 1e3));                    // 0.1566 ms
  CHECK(decode.compute_ms < decode.memory_ms / 300);
  // a kernel at 2.85 TB/s on it: 95% of the limit
  CHECK(percent_of_limit(decode, 469835776.0 / 2850e9 * 1e3) == Approx(95.0));
  // the ridge: FLOPs per byte of this layer ~ M, against 1070 TFLOPS / 3 TB/s = 357 FLOP/B at 1980 MHz
  CHECK(gemm_limit(H100, 256, 8192, 28672, 1980).memory_bound());
  CHECK_FALSE(gemm_limit(H100, 512, 8192, 28672, 1980).memory_bound());
  // short K at large M and N: C dominates the bytes, FLOPs per byte ~ K, so the same ridge falls near K = 357
  CHECK(gemm_limit(H100, 8192, 8192, 256, 1980).memory_bound());
  CHECK_FALSE(gemm_limit(H100, 8192, 8192, 512, 1980).memory_bound());
}

TEST_CASE("limit: unknown where the GPU's rate or the bandwidth is") {
  CHECK(H100.known());
  CHECK_FALSE(LimitModel{0, 132, 3000}.known());
  CHECK_FALSE(LimitModel{4096, 132, 0}.known());
  CHECK(percent_of_limit(Limit{}, 1.0) == 0);
  CHECK(percent_of_limit(gemm_limit(H100, 64, 64, 64, 1980), 0) == 0);
}
