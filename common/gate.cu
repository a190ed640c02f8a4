// gate.cu: the gate in front of every timed round (see gate.h).
#include "common/gate.h"

#include "common/check.h"

namespace gemm {

namespace {

// One thread polls the host's flag (over PCIe, through the mapped pointer) until it reaches `number`, or
// until `timeout_ns` of %globaltimer have passed, which it counts in `expired`.
__global__ void gate_kernel(const volatile uint32_t* flag, uint32_t number, uint64_t timeout_ns,
                            volatile uint32_t* expired) {
  uint64_t t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  // number - *flag as a signed difference: the count wraps after 2^32 gates
  while (int32_t(*flag - number) < 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (int64_t(t - t0) > int64_t(timeout_ns)) {
      *expired = *expired + 1;
      return;
    }
    __nanosleep(500);
  }
}

}  // namespace

Gate::Gate(double timeout_ms) : timeout_ns_(uint64_t(timeout_ms * 1e6)) {
  // Loaded now, not at its first close(): under lazy loading a kernel's first launch can wait for the GPU's
  // running kernels, which may be a gate waiting for this host thread
  cudaFuncAttributes attr;
  CUDA_CHECK(cudaFuncGetAttributes(&attr, gate_kernel));
  uint32_t* p = nullptr;
  CUDA_CHECK(cudaHostAlloc(&p, 2 * sizeof(uint32_t), cudaHostAllocMapped));
  p[0] = p[1] = 0;
  flag_       = p;
  expired_    = p + 1;
}

Gate::~Gate() {
  if (flag_ != nullptr) cudaFreeHost(const_cast<uint32_t*>(flag_));  // not checked: a destructor
}

void Gate::close(cudaStream_t stream) {
  uint32_t *flag = nullptr, *expired = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&flag, const_cast<uint32_t*>(flag_), 0));
  CUDA_CHECK(cudaHostGetDevicePointer(&expired, const_cast<uint32_t*>(expired_), 0));
  gate_kernel<<<1, 1, 0, stream>>>(flag, ++closed_, timeout_ns_, expired);
  CUDA_CHECK(cudaGetLastError());
}

void Gate::open() {
  __atomic_store_n(const_cast<uint32_t*>(flag_), closed_, __ATOMIC_SEQ_CST);
}

uint32_t Gate::timeouts() const {
  return __atomic_load_n(const_cast<uint32_t*>(expired_), __ATOMIC_SEQ_CST);
}

}  // namespace gemm
