// problem.h: the few types every part of the harness speaks: a problem's device buffers, a launch, the exit
// codes of the stage executables.
#pragma once

#include <cstdint>
#include <functional>

#include <cuda_runtime.h>

namespace gemm {

// Exit codes of the stage executables (and of the GPU tests, as CTest's SKIP_RETURN_CODE).
constexpr int EXIT_PASS        = 0;
constexpr int EXIT_FAIL        = 1;
constexpr int EXIT_BAD_INPUT   = 2;
constexpr int EXIT_NO_GPU_HERE = 77;

// Device buffers of one problem, all row-major bf16: A[M,K], B[N,K] (both K-major), C[M,N].
struct GemmArgs {
  const void* a;
  const void* b;
  void* c;
  int64_t m, n, k;
};

// One launch of a kernel (or of cuBLAS) on one set of buffers, enqueued on `stream`.
using Launch = std::function<void(cudaStream_t)>;

}  // namespace gemm
