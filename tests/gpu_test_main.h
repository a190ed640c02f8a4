// gpu_test_main.h: what every GPU test does before Catch runs, and the seed its random inputs come from.
//
// CTest discovers the tests by listing them at build time, on machines that may have no GPU, so a listing
// always runs. Otherwise a test without a GPU it can run on exits with CTest's skip code (GEMM_SKIP_CODE:
// "Skipped", never "Passed") and says why; a test that runs prints the GPU and the seed to replay it with.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/gpu.h"

// The seed of this process: GEMM_TEST_SEED if set (a replay), a fresh one otherwise.
inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    if (const char* s = std::getenv("GEMM_TEST_SEED")) return uint64_t(std::strtoull(s, nullptr, 10));
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) | 1;
  }();
  return seed;
}

// Call first in main(). Returns -1 when Catch should run (a listing, or a GPU this test runs on), or the code
// to exit with (the skip code). `refuse(arch)` says why this test does not run on a GPU of `arch` ("" when it
// does); `note`, if any, is printed after the GPU line.
template <class Refuse>
int gpu_test_start(int argc, char** argv, gemm::GpuInfo& info, gemm::Arch& arch, Refuse refuse,
                   const char* note = nullptr) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0) return -1;
  arch            = gemm::Arch::Sm90;
  std::string why = gemm::detect_gpu(info, arch);
  if (why.empty()) why = refuse(arch);
  if (!why.empty()) {
    std::printf("Skipped: %s\n", why.c_str());
    return GEMM_SKIP_CODE;
  }
  std::printf("%s | test seed %llu (replay with GEMM_TEST_SEED=%llu)\n", gemm::describe_gpu(info).c_str(),
              (unsigned long long)test_seed(), (unsigned long long)test_seed());
  if (note != nullptr) std::printf("%s\n", note);
  return -1;
}
