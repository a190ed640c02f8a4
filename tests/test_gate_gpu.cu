// GPU test of the gate in front of every timed round (common/gate.h): a closed gate holds the work behind it
// until opened, a gate never opened lets the work through on its timeout and counts it, and the timed rounds
// (common/timing.h) measure the GPU's time, not the host's, where the host enqueues slowly. Skipped
// (GEMM_SKIP_CODE) without a GPU the series runs on (tests/gpu_test_main.h).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "common/check.h"
#include "common/gate.h"
#include "common/timing.h"
#include "gpu_test_main.h"

using namespace gemm;

namespace {

__global__ void mark(volatile uint32_t* done) {
  *done = 1;
}
__global__ void nothing() {}

// Pinned host memory the GPU writes through its mapped pointer.
struct HostWord {
  volatile uint32_t* host = nullptr;
  uint32_t* device        = nullptr;
  HostWord() {
    uint32_t* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, sizeof(uint32_t), cudaHostAllocMapped));
    *p   = 0;
    host = p;
    CUDA_CHECK(cudaHostGetDevicePointer(&device, p, 0));
  }
  ~HostWord() { cudaFreeHost(const_cast<uint32_t*>(host)); }
};

}  // namespace

// Launched once before any gate: only a kernel already loaded belongs behind one (common/gate.h)
void load_kernels() {
  static HostWord scratch;
  mark<<<1, 1>>>(scratch.device);
  nothing<<<1, 32>>>();
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("a closed gate holds the work behind it until it is opened") {
  load_kernels();
  Gate gate;
  HostWord done;
  cudaEvent_t passed;
  CUDA_CHECK(cudaEventCreate(&passed));
  gate.close(nullptr);
  mark<<<1, 1>>>(done.device);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(passed));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(*done.host == 0);
  CHECK(cudaEventQuery(passed) == cudaErrorNotReady);
  gate.open();
  CUDA_CHECK(cudaEventSynchronize(passed));
  CHECK(*done.host == 1);
  CHECK(gate.timeouts() == 0);
  // A second round through the same gate: closed again, held again, opened again
  *done.host = 0;
  gate.close(nullptr);
  mark<<<1, 1>>>(done.device);
  CUDA_CHECK(cudaEventRecord(passed));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(*done.host == 0);
  gate.open();
  CUDA_CHECK(cudaEventSynchronize(passed));
  CHECK(*done.host == 1);
  CHECK(gate.timeouts() == 0);
  CUDA_CHECK(cudaEventDestroy(passed));
}

TEST_CASE("a gate never opened lets the work through on its timeout, and counts it") {
  load_kernels();
  Gate gate(100.0);
  HostWord done;
  cudaEvent_t passed;
  CUDA_CHECK(cudaEventCreate(&passed));
  gate.close(nullptr);
  mark<<<1, 1>>>(done.device);
  CUDA_CHECK(cudaEventRecord(passed));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(*done.host == 0);  // still held, 80 ms before its timeout
  CUDA_CHECK(cudaEventSynchronize(passed));
  CHECK(*done.host == 1);
  CHECK(gate.timeouts() == 1);
  CUDA_CHECK(cudaEventDestroy(passed));
}

TEST_CASE("timed rounds measure the GPU, not a host that enqueues slowly") {
  // Each launch of an empty kernel costs the host 500 us more (a sleep before it): without the gate each
  // launch's events would bracket that sleep (the GPU idle between them); behind it the round's launches are
  // all in the stream before the first runs, and each measures the GPU's few microseconds.
  const std::vector<Launch> slow_host{[](cudaStream_t s) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    nothing<<<1, 32, 0, s>>>();
  }};
  const TimingPlan plan{4, 5, 2, 0.0};
  const SideTiming t = time_alone(slow_host, plan);
  INFO("median launch " << t.launch_ms.median * 1000 << " us, max " << t.launch_ms.max * 1000 << " us");
  REQUIRE(t.launch_ms.count == 20);
  CHECK(t.launch_ms.median < 0.25);  // ms: half the host's 500 us per launch
  CHECK(t.launch_ms.median > 0);
}

int main(int argc, char** argv) {
  GpuInfo info;
  Arch arch;
  const int code = gpu_test_start(argc, argv, info, arch, [](Arch) { return std::string(); });
  if (code >= 0) return code;
  return Catch::Session().run(argc, argv);
}
