// fixup_memory.h: the stream-K fixup's memory (v7 and v8, Hopper and Blackwell), allocated once per prepared launch,
// as cuBLAS's workspace is: `slots` fp32 partials of `floats_per_slot` each and one flag per slot, the flags
// zeroed once. Each flag is raised and lowered within one launch (the kernels leave them all 0), so launches
// back to back, the timing loop's, need no reset between them. Held by a shared_ptr in the launch lambda, so
// that the copies of a Launch (std::function copies its lambda) share it. Host code only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/check.h"

namespace gemm {

struct FixupMemory {
  float* workspace = nullptr;
  uint32_t* flags  = nullptr;
  FixupMemory(size_t slots, size_t floats_per_slot) {
    CUDA_CHECK(cudaMalloc(&workspace, slots * floats_per_slot * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&flags, slots * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(flags, 0, slots * sizeof(uint32_t)));
  }
  ~FixupMemory() {
    cudaFree(workspace);
    cudaFree(flags);
  }
  FixupMemory(const FixupMemory&)            = delete;
  FixupMemory& operator=(const FixupMemory&) = delete;
};

}  // namespace gemm
