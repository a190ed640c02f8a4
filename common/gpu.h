// gpu.h: which GPU this is, which kernel list fits it, and what NVML says about it while we time
// (SM clock, power draw, power limit, driver version).
#pragma once

#include <cstddef>
#include <string>

namespace gemm {

enum class Arch { Sm90, Sm100 };

struct GpuInfo {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count         = 0;
  int max_sm_clock_mhz = 0;
  size_t l2_bytes      = 0;
  int driver_version = 0, runtime_version = 0;
  size_t cublaslt_version = 0;
};

// Finds the GPU and the kernel list that fits it. Returns an empty string with `arch` set, or a message
// saying what was found and what is supported (no GPU, no driver, an unsupported architecture).
std::string detect_gpu(GpuInfo& info, Arch& arch);
std::string describe_gpu(const GpuInfo& info);  // the header line of every run

// NVML, opened at run time with dlopen (never linked, so the binaries load where there is no driver).
// Every query returns 0 (or "?") where NVML or the query is unavailable.
namespace nvml {
int sm_clock_mhz();          // current SM clock
double power_w();            // power draw now: the instantaneous reading where the driver has it, else the
                             // driver's averaged reading (see power_source())
const char* power_source();  // "instant" or "averaged" (or "none")
int power_limit_w();         // enforced power limit
std::string driver();        // e.g. "580.159.04"
}  // namespace nvml

}  // namespace gemm
