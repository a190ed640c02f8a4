// check.h: every CUDA runtime and cuBLAS call is checked; a failure names the call, file and line and exits.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cublasLt.h>
#include <cuda_runtime.h>

// A note printed after a failed CUDA call, when set: the tcgen05 emulator's trap report (tcgen05_emu.cpp).
inline const char* (*&cuda_failure_note())() {
  static const char* (*note)() = nullptr;
  return note;
}
inline void print_cuda_failure_note() {
  if (cuda_failure_note() == nullptr) return;
  const char* note = cuda_failure_note()();
  if (note != nullptr && *note != '\0') std::fprintf(stderr, "%s\n", note);
}

#define CUDA_CHECK(call)                                                                               \
  do {                                                                                                 \
    const cudaError_t err_ = (call);                                                                   \
    if (err_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "CUDA error %d (%s) at %s:%d in %s\n", int(err_), cudaGetErrorString(err_), \
                   __FILE__, __LINE__, #call);                                                         \
      print_cuda_failure_note();                                                                       \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

#define CUBLAS_CHECK(call)                                                                               \
  do {                                                                                                   \
    const cublasStatus_t st_ = (call);                                                                   \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                  \
      std::fprintf(stderr, "cuBLAS error %d (%s) at %s:%d in %s\n", int(st_), cublasLt_status_name(st_), \
                   __FILE__, __LINE__, #call);                                                           \
      std::exit(1);                                                                                      \
    }                                                                                                    \
  } while (0)

inline const char* cublasLt_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "architecture mismatch";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "execution failed";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "internal error";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "not supported";
    default:
      return "other";
  }
}
