// limit.h: the fastest a bf16 GEMM of a given shape could run on this GPU, printed as "% of limit" beside
// every ratio to cuBLAS. A ratio says how far a kernel is from cuBLAS; the limit says how far both are from
// the hardware, and which part of it (the tensor pipe or HBM) the shape leans on.
//
// Two times, each a bound no kernel can beat:
//  - compute: 2*M*N*K FLOPs at the dense bf16 tensor rate, FLOP per clock per SM x SMs x the SM clock the
//    kernel ran at (NVML's median over its timed rounds: at the power limit the clock falls, and the rate
//    with it, so the bound follows the GPU the kernel actually had);
//  - memory: A and B read once and C written once, 2 bytes an element each, at the HBM bandwidth measured by
//    the binary itself (gpu.h measure_copy_bandwidth: a device-to-device copy, bytes read + written). The
//    timed launches rotate their inputs through copies larger than the L2 (timing.h), so every operand
//    byte does come from HBM at least once.
// The limit is the larger of the two: a kernel that overlapped its loads with its MMAs perfectly and moved
// no byte twice would take that long. % of limit = limit / median launch time.
//
// The per-clock rates, from the datasheets' dense (not 2:4 sparse) bf16 peaks:
//  - sm_90, H100 SXM (NVIDIA H100 Tensor Core GPU datasheet and architecture whitepaper): 989.4 TFLOPS at the
//    1830 MHz boost clock the whitepaper quotes its peaks at, 132 SMs: 989.4e12 / (132 x 1.83e9) = 4096
//    FLOP/clk/SM, one m64n256k16 wgmma (524,288 FLOPs) per 128 clocks per SM.
//  - sm_100, B200 (NVIDIA HGX B200 datasheet and Blackwell architecture technical brief: 4.5 PFLOPS bf16 with
//    sparsity, 2.25 dense, per GPU at 1000 W; 148 SMs): 2.25e15 / (148 x 8192) = 1.856 GHz, the 1.86 GHz
//    tensor clock spec sheets list for the B200 (no other power of two gives a clock in its range), so 8192
//    FLOP/clk/SM, twice Hopper's: one cta_group::1 m128n256k16 tcgen05.mma (1,048,576 FLOPs) per 128 clocks
//    per SM. Only used where a Blackwell GPU runs the binary.
//  - sm_103 (B300) is taken at sm_100's rate: not checked against a B300 here.
#pragma once

#include <algorithm>
#include <cstdint>

namespace gemm {

// Dense bf16 tensor FLOPs per clock per SM of a compute capability; 0 where the series knows no rate.
constexpr double dense_bf16_flop_per_clk_per_sm(int cc_major, int /*cc_minor*/) {
  return cc_major == 9 ? 4096.0 : cc_major == 10 ? 8192.0 : 0.0;
}

// What the limit of a shape needs to know about the GPU.
struct LimitModel {
  double flop_per_clk_per_sm = 0;  // dense bf16, dense_bf16_flop_per_clk_per_sm()
  int sm_count               = 0;
  double hbm_gbps            = 0;  // measured: (bytes read + bytes written) / s / 1e9
  constexpr bool known() const { return flop_per_clk_per_sm > 0 && sm_count > 0 && hbm_gbps > 0; }
};

// Bytes a bf16-in, bf16-out GEMM must move at the least: A (M x K) and B (N x K) read once, C (M x N) written
// once. In double: 2 (M K + N K + M N) overflows no integer at any shape.
constexpr double gemm_bytes_bf16(int64_t m, int64_t n, int64_t k) {
  return 2.0 * (double(m) * double(k) + double(n) * double(k) + double(m) * double(n));
}

// The tensor rate in TFLOPS at an SM clock in MHz.
constexpr double tensor_tflops(const LimitModel& g, double clock_mhz) {
  return g.flop_per_clk_per_sm * g.sm_count * clock_mhz * 1e6 / 1e12;
}

struct Limit {
  double compute_ms = 0;  // 2MNK at the tensor rate at clock_mhz
  double memory_ms  = 0;  // gemm_bytes_bf16 at the measured HBM bandwidth
  double clock_mhz  = 0;  // the SM clock the compute time is taken at
  constexpr double ms() const { return std::max(compute_ms, memory_ms); }
  constexpr bool memory_bound() const { return memory_ms > compute_ms; }
  constexpr const char* bound() const { return memory_bound() ? "memory" : "compute"; }
};

constexpr Limit gemm_limit(const LimitModel& g, int64_t m, int64_t n, int64_t k, double clock_mhz) {
  Limit l;
  l.clock_mhz        = clock_mhz;
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const double rate  = tensor_tflops(g, clock_mhz) * 1e12;  // FLOP/s
  l.compute_ms       = rate > 0 ? flops / rate * 1e3 : 0;
  l.memory_ms        = g.hbm_gbps > 0 ? gemm_bytes_bf16(m, n, k) / (g.hbm_gbps * 1e9) * 1e3 : 0;
  return l;
}

// % of limit: the limit over the time a launch took (100: at the limit). 0 where either is unknown.
constexpr double percent_of_limit(const Limit& l, double time_ms) {
  return time_ms > 0 && l.ms() > 0 ? 100.0 * l.ms() / time_ms : 0.0;
}

}  // namespace gemm
