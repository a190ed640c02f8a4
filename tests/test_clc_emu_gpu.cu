// test_clc_emu_gpu.cu: Cluster Launch Control (common/clc.cuh), on its own, before any kernel schedules
// with it.
//
// One source, two GPUs (as tests/test_tcgen05_emu_gpu.cu): on a Blackwell GPU (sm_100a) the clc:: wrappers are
// the real instructions (never run in this project: no B200 here); on a Hopper GPU (sm_90a) they are the
// emulator's (common/tcgen05_emu.cuh, "Cluster Launch Control").
//
//   test_clc_emu_gpu steal        a grid of many more clusters than fit on the GPU at once (one CTA per SM,
//                                 forced by shared memory), each cluster one work unit (its launch index).
//                                 Every running cluster does its own unit, then asks try_cancel for another
//                                 until a request fails. Two forms: 2-CTA clusters with the multicast response
//                                 (every CTA announces 16 bytes on its own barrier; CTA 0 asks), and 1-CTA
//                                 clusters with the plain one. Checked, for two launches back to back: every
//                                 unit done exactly once by every CTA rank, both ranks of a unit by the same
//                                 cluster; under emulation also that units were taken over (the success path
//                                 ran) and that canceled clusters did not run.
//   test_clc_emu_gpu trap RULE    (Hopper only) a kernel that breaks a CLC rule (after_fail: a request after an
//                                 observed failure; ctaid_of_failed: the first CTA of a failed response) must
//                                 trap with exactly that rule's report.
// Exit: 0 pass, 1 fail, GEMM_SKIP_CODE (77) where no suitable GPU is present (and for trap tests on a B200).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/clc.cuh"
#include "common/ptx.cuh"
#include "common/tcgen05_emu.h"

#ifndef GEMM_SKIP_CODE
#define GEMM_SKIP_CODE 77
#endif

namespace {

using namespace gemm;

constexpr int THREADS    = 64;
constexpr int SMEM_BYTES = 160 * 1024;  // one CTA per SM: most clusters of the grid wait for an SM

enum class Breach : int { NONE, AFTER_FAIL, CTAID_OF_FAILED };

// done[unit * CLUSTER + rank]: how often CTA `rank` of some cluster did `unit`; by[...]: which cluster did.
template <int CLUSTER>
__global__ void __launch_bounds__(THREADS, 1) clc_kernel(uint32_t* done, uint32_t* by, Breach breach) {
#if defined(GEMM_HAS_TCGEN05)
  __shared__ clc::Response response;
  __shared__ alignas(8) uint64_t response_bar;
  extern __shared__ uint8_t pad[];  // SMEM_BYTES of dynamic shared memory, unused: one CTA per SM
  const uint32_t rank    = ptx::cluster_ctarank();
  const uint32_t cluster = blockIdx.x / CLUSTER;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&response_bar, 1);
    ptx::fence_mbarrier_init();
    pad[0] = 0;
  }
  __syncthreads();
  ptx::barrier_cluster_arrive();  // under emulation a canceled cluster exits here
  ptx::barrier_cluster_wait();
  uint32_t unit = cluster, phase = 0;
  for (;;) {
    if (threadIdx.x == 0) {
      atomicAdd(&done[unit * CLUSTER + rank], 1u);
      atomicExch(&by[unit * CLUSTER + rank], cluster);
      ptx::mbarrier_arrive_expect_tx(&response_bar, clc::CLC_RESPONSE_BYTES);
    }
    // Every CTA has announced the response's bytes and is done with the previous response.
    ptx::barrier_cluster_arrive();
    ptx::barrier_cluster_wait();
    if (threadIdx.x == 0 && rank == 0) {
      if constexpr (CLUSTER == 1)
        clc::try_cancel(&response, &response_bar);
      else
        clc::try_cancel_multicast(&response, &response_bar);
    }
    ptx::mbarrier_wait(&response_bar, phase, "response_bar");
    phase ^= 1u;
    const clc::Response r = clc::load_response(&response);
    ptx::fence_proxy_async_shared();  // the next response overwrites it through the async proxy
    if (!clc::is_canceled(r)) {
      if (breach == Breach::CTAID_OF_FAILED && threadIdx.x == 0) (void)clc::first_ctaid_x(r);
      if (breach == Breach::AFTER_FAIL && threadIdx.x == 0 && rank == 0) {
        ptx::mbarrier_arrive_expect_tx(&response_bar, clc::CLC_RESPONSE_BYTES);
        clc::try_cancel(&response, &response_bar);
      }
      break;
    }
    unit = clc::first_ctaid_x(r) / CLUSTER;
  }
  // No CTA may exit while a multicast response could still be written into it: every CTA has received the
  // last one (the failed one) before this barrier.
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
#else
  __trap();  // a target without Cluster Launch Control
#endif
}

template <int CLUSTER>
cudaError_t launch(int clusters, uint32_t* done, uint32_t* by, Breach breach) {
  cudaError_t e = cudaFuncSetAttribute(clc_kernel<CLUSTER>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       SMEM_BYTES);
  if (e != cudaSuccess) return e;
  cudaLaunchAttribute attr{};
  attr.id               = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = CLUSTER;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim            = dim3(unsigned(clusters * CLUSTER));
  cfg.blockDim           = dim3(THREADS);
  cfg.dynamicSmemBytes   = SMEM_BYTES;
  cfg.attrs              = &attr;
  cfg.numAttrs           = 1;
  e = cudaLaunchKernelEx(&cfg, clc_kernel<CLUSTER>, done, by, breach);
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}

template <int CLUSTER>
bool run_steal(int clusters, bool emulated) {
  const size_t n = size_t(clusters) * CLUSTER;
  uint32_t *d_done = nullptr, *d_by = nullptr;
  CUDA_CHECK(cudaMalloc(&d_done, n * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&d_by, n * sizeof(uint32_t)));
  bool pass = true;
  for (int launch_no = 0; launch_no < 2; ++launch_no) {
    CUDA_CHECK(cudaMemset(d_done, 0, n * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(d_by, 0xFF, n * sizeof(uint32_t)));  // poison: no cluster has this index
    const cudaError_t e = launch<CLUSTER>(clusters, d_done, d_by, Breach::NONE);
    if (e != cudaSuccess) {
      std::printf("FAIL %d-CTA clusters, launch %d: %s %s\n", CLUSTER, launch_no, cudaGetErrorString(e),
                  tc5emu::trap_report().c_str());
      return false;
    }
    std::vector<uint32_t> done(n), by(n);
    CUDA_CHECK(cudaMemcpy(done.data(), d_done, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(by.data(), d_by, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    int not_once = 0, split = 0, taken_over = 0;
    std::vector<char> ran(size_t(clusters), 0);
    for (int u = 0; u < clusters; ++u) {
      for (int r = 0; r < CLUSTER; ++r) not_once += done[size_t(u) * CLUSTER + r] != 1;
      const uint32_t owner = by[size_t(u) * CLUSTER];
      for (int r = 1; r < CLUSTER; ++r) split += by[size_t(u) * CLUSTER + r] != owner;
      if (owner < uint32_t(clusters)) ran[owner] = 1;
      taken_over += owner != uint32_t(u);
    }
    int ran_count = 0;
    for (char c : ran) ran_count += c;
    // A cluster that ran did its own unit first; a canceled one did none. Under emulation with most of the
    // grid waiting for an SM, some units must have been taken over.
    bool ok = not_once == 0 && split == 0 && taken_over == clusters - ran_count;
    if (emulated) ok = ok && taken_over > 0;
    std::printf("%s %d-CTA clusters (%s), launch %d: %d units, each done once by every rank: %s; clusters "
                "that ran %d, units taken over through try_cancel %d\n",
                ok ? "PASS" : "FAIL", CLUSTER, CLUSTER == 1 ? "try_cancel" : "try_cancel.multicast", launch_no,
                clusters, not_once == 0 && split == 0 ? "yes" : "NO", ran_count, taken_over);
    if (not_once) std::printf("  %d (unit, rank) entries not done exactly once\n", not_once);
    if (split) std::printf("  %d units whose ranks were done by different clusters\n", split);
    pass = pass && ok;
  }
  CUDA_CHECK(cudaFree(d_done));
  CUDA_CHECK(cudaFree(d_by));
  return pass;
}

int run_trap(const char* name) {
  Breach breach;
  uint32_t rule;
  if (!std::strcmp(name, "after_fail"))
    breach = Breach::AFTER_FAIL, rule = tc5emu::RULE_CLC_AFTER_FAIL;
  else if (!std::strcmp(name, "ctaid_of_failed"))
    breach = Breach::CTAID_OF_FAILED, rule = tc5emu::RULE_CLC_CTAID_OF_FAILED;
  else {
    std::fprintf(stderr, "unknown trap '%s'\n", name);
    return 1;
  }
  uint32_t *d_done = nullptr, *d_by = nullptr;
  CUDA_CHECK(cudaMalloc(&d_done, 64 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMalloc(&d_by, 64 * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemset(d_done, 0, 64 * sizeof(uint32_t)));
  const cudaError_t e      = launch<1>(4, d_done, d_by, breach);
  const std::string report = e != cudaSuccess ? tc5emu::trap_report() : "";
  const std::string want   = tc5emu::rule_text(rule);
  const bool pass          = report.find(want) != std::string::npos;
  std::printf("%s trap %s: launch %s; emulator: %s\n  expected: %s\n", pass ? "PASS" : "FAIL", name,
              cudaGetErrorString(e), report.empty() ? "(nothing)" : report.c_str(), want.c_str());
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!(mode == "steal" || (mode == "trap" && argc > 2))) {
    std::fprintf(stderr, "usage: %s steal | trap after_fail|ctaid_of_failed\n", argv[0]);
    return 2;
  }
  int count = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::printf("SKIPPED: no GPU\n");
    return GEMM_SKIP_CODE;
  }
  const bool hopper    = prop.major == 9 && prop.minor == 0;
  const bool blackwell = prop.major == 10 && (prop.minor == 0 || prop.minor == 3);
  if (!hopper && !blackwell) {
    std::printf("SKIPPED: needs an sm_90a (H100/H200: emulated) or sm_100a/103a (B200/B300: real) GPU, found %s\n",
                prop.name);
    return GEMM_SKIP_CODE;
  }
  if (mode == "trap" && !hopper) {
    std::printf("SKIPPED: the trap tests check the emulator's rules; on %s the instructions are real\n", prop.name);
    return GEMM_SKIP_CODE;
  }
  std::printf("%s: %s\n", prop.name,
              hopper ? "Cluster Launch Control through the emulator (common/tcgen05_emu.cuh)" : "real CLC");
  if (hopper) {
    const std::string bad = tc5emu::enable(tc5emu::Schedule::Eager);
    if (!bad.empty()) {
      std::fprintf(stderr, "%s\n", bad.c_str());
      return 1;
    }
  }
  if (mode == "trap") return run_trap(argv[2]);
  const int clusters = 8 * prop.multiProcessorCount;  // about 8 to 16 times what fits at once
  bool pass          = run_steal<2>(clusters, hopper);
  pass               = run_steal<1>(clusters + 7, hopper) && pass;
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
