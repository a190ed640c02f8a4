// gpu.h: which GPU this is, which kernel list fits it, and what NVML says about it while we time
// (SM clock, power draw, power limit, driver version), and the HBM bandwidth it reaches (for limit.h).
#pragma once

#include <cstddef>
#include <optional>
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
int l2_cache_bytes();                           // the L2 of the current device (for v8's L2 policy)
int sm_count();                                 // the SMs of the current device (for v8's decode split)

// The HBM bandwidth this GPU reaches, measured: a device-to-device cudaMemcpy of `bytes` (far beyond any
// L2, so each copy reads and writes HBM), timed with CUDA events, `copies` times after two untimed ones.
// Bandwidth = (bytes read + bytes written) / median time: the same count as limit.h's memory time, which
// adds A and B read to C written. Done once per process, before the inputs are allocated.
struct CopyBandwidth {
  double gbps  = 0;   // 2 * bytes / median time, 1e9 B/s; 0 where it could not be measured
  double ms    = 0;   // median time of one copy
  size_t bytes = 0;   // copied by each cudaMemcpy
  int copies   = 0;   // timed
  std::string error;  // why it was not measured (empty if it was)
};
CopyBandwidth measure_copy_bandwidth(size_t bytes = size_t(256) << 20, int copies = 10);
// For the header line: "HBM 2950 GB/s measured (device-to-device copy of 256 MiB, read + written, median of
// 10)", or why there is no figure.
std::string describe_copy_bandwidth(const CopyBandwidth& bw);

// NVML, opened at run time with dlopen (never linked, so the binaries load where there is no driver).
// Every query returns 0 (or "?") where NVML or the query is unavailable; the energy counter, for which 0 is
// a reading, returns empty instead.
namespace nvml {
int sm_clock_mhz();          // current SM clock
double power_w();            // power draw now: the instantaneous reading where the driver has it, else the
                             // driver's averaged reading (see power_source())
const char* power_source();  // "instant" or "averaged" (or "none")
int power_limit_w();         // enforced power limit
// The board's total-energy counter (nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver loaded,
// refreshed every ~10-100 ms; Volta and later): empty, never 0, where NVML, the entry point or the read
// fails. The read can take milliseconds: never inside timed rounds (timing.h, measure_energy).
std::optional<double> total_energy_mj();
std::string driver();        // e.g. "580.159.04"
}  // namespace nvml

}  // namespace gemm
