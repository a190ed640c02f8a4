#include "common/gpu.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "common/check.h"
#include "common/timing.h"

namespace gemm {

// ------------------------------------------------------------------------------------------------------------
// GPU detection and dispatch
// ------------------------------------------------------------------------------------------------------------
int l2_cache_bytes() {
  int device = 0, bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return bytes;
}

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

std::string detect_gpu(GpuInfo& info, Arch& arch) {
  int count             = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    return std::string("no CUDA GPU found (") +
           (err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount returned 0") +
           "). This stage runs on sm_100a/sm_103a (B200/GB200/B300) or sm_90a (H100/H200) GPUs.";
  }
  CUDA_CHECK(cudaGetDevice(&info.device));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, info.device));
  info.name     = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = size_t(prop.l2CacheSize);
  int clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, info.device));
  info.max_sm_clock_mhz = clock_khz / 1000;
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  info.cublaslt_version = cublasLtGetVersion();

  const std::string found = info.name + " (compute capability " + std::to_string(info.cc_major) + "." +
                            std::to_string(info.cc_minor) + ")";
  if (info.cc_major == 10 && (info.cc_minor == 0 || info.cc_minor == 3)) {
    arch = Arch::Sm100;
    return "";
  }
  if (info.cc_major == 9 && info.cc_minor == 0) {
    arch = Arch::Sm90;
    return "";
  }
  return "found " + found +
         ", which this series has no kernel for. Supported: compute capability 10.0 (sm_100a: B200/GB200), "
         "10.3 (sm_103a: B300/GB300) and 9.0 (sm_90a: H100/H200); not RTX 50 / RTX PRO Blackwell (sm_120), "
         "which has no tcgen05.";
}

std::string describe_gpu(const GpuInfo& g) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "GPU: %s | sm_%d%d | %d SMs | max SM clock %d MHz | L2 %zu MB | driver API %d.%d | CUDA runtime "
      "%d.%d | cuBLASLt %zu",
      g.name.c_str(), g.cc_major, g.cc_minor, g.sm_count, g.max_sm_clock_mhz, g.l2_bytes >> 20,
      g.driver_version / 1000, (g.driver_version % 1000) / 10, g.runtime_version / 1000,
      (g.runtime_version % 1000) / 10, g.cublaslt_version);
  return buf;
}

// ------------------------------------------------------------------------------------------------------------
// HBM bandwidth: a device-to-device copy (limit.h's memory time)
// ------------------------------------------------------------------------------------------------------------
CopyBandwidth measure_copy_bandwidth(size_t bytes, int copies) {
  CopyBandwidth bw;
  bw.bytes  = bytes;
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
    cudaGetLastError();  // a failed allocation is not sticky: clear it, say so, run on without the figure
    if (src) CUDA_CHECK(cudaFree(src));
    bw.error = "not measured: cannot allocate 2 x " + std::to_string(bytes >> 20) + " MiB";
    return bw;
  }
  CUDA_CHECK(cudaMemset(src, 0x3C, bytes));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = -2; i < copies; ++i) {  // two untimed copies first: clocks up, pages mapped
    CUDA_CHECK(cudaEventRecord(start));
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i >= 0) ms.push_back(t);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaFree(src));
  CUDA_CHECK(cudaFree(dst));
  bw.copies = copies;
  bw.ms     = summarize(ms).median;
  bw.gbps   = bw.ms > 0 ? 2.0 * double(bytes) / (bw.ms * 1e-3) / 1e9 : 0;
  return bw;
}

std::string describe_copy_bandwidth(const CopyBandwidth& bw) {
  char buf[160];
  if (bw.gbps <= 0)
    std::snprintf(buf, sizeof buf, "HBM bandwidth %s", bw.error.empty() ? "not measured" : bw.error.c_str());
  else
    std::snprintf(buf, sizeof buf,
                  "HBM %.0f GB/s measured (device-to-device copy of %zu MiB, read + written, median of %d)",
                  bw.gbps, bw.bytes >> 20, bw.copies);
  return buf;
}

// ------------------------------------------------------------------------------------------------------------
// NVML, opened at run time (never linked). The few entry points used, with their C signatures from nvml.h.
// ------------------------------------------------------------------------------------------------------------
namespace {

// nvmlFieldValue_t (nvml.h): the instantaneous power draw is a field value, NVML_FI_DEV_POWER_INSTANT.
struct NvmlFieldValue {
  uint32_t field_id;
  uint32_t scope_id;
  int64_t timestamp;
  int64_t latency_usec;
  int32_t value_type;  // nvmlValueType_t: 1 = unsigned int
  int32_t nvml_return;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
};
constexpr uint32_t NVML_FI_DEV_POWER_INSTANT = 186;  // mW
constexpr int NVML_CLOCK_SM                  = 1;

struct Nvml {
  using Device                                      = void*;
  int (*init)()                                     = nullptr;
  int (*by_pci)(const char*, Device*)               = nullptr;
  int (*clock)(Device, int, unsigned*)              = nullptr;
  int (*power_usage)(Device, unsigned*)             = nullptr;
  int (*field_values)(Device, int, NvmlFieldValue*) = nullptr;
  int (*power_limit)(Device, unsigned*)             = nullptr;
  int (*driver_version)(char*, unsigned)            = nullptr;
  int (*total_energy)(Device, unsigned long long*)  = nullptr;
  Device dev                                        = nullptr;
  bool ok                                           = false;
  bool instant_power                                = false;

  static Nvml& get() {
    static Nvml n = open();
    return n;
  }
  static Nvml open() {
    Nvml n;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY);
    if (!lib) return n;
    n.init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    n.by_pci =
        reinterpret_cast<int (*)(const char*, Device*)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    n.clock       = reinterpret_cast<int (*)(Device, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    n.power_usage = reinterpret_cast<int (*)(Device, unsigned*)>(dlsym(lib, "nvmlDeviceGetPowerUsage"));
    n.field_values =
        reinterpret_cast<int (*)(Device, int, NvmlFieldValue*)>(dlsym(lib, "nvmlDeviceGetFieldValues"));
    n.power_limit =
        reinterpret_cast<int (*)(Device, unsigned*)>(dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit"));
    n.driver_version = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    n.total_energy   = reinterpret_cast<int (*)(Device, unsigned long long*)>(
        dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption"));
    if (!n.init || !n.by_pci || !n.clock || n.init() != 0) return n;
    int dev = 0;
    char pci[64];
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(pci, sizeof pci, dev) != cudaSuccess)
      return n;
    n.ok            = n.by_pci(pci, &n.dev) == 0;
    double w        = 0;
    n.instant_power = n.ok && n.read_instant(w);
    return n;
  }
  bool read_instant(double& watts) {
    if (!field_values) return false;
    NvmlFieldValue f{};
    f.field_id = NVML_FI_DEV_POWER_INSTANT;
    if (field_values(dev, 1, &f) != 0 || f.nvml_return != 0) return false;
    const double mw = f.value_type == 1   ? double(f.value.ui)
                      : f.value_type == 0 ? f.value.d
                      : f.value_type == 2 ? double(f.value.ul)
                      : f.value_type == 3 ? double(f.value.ull)
                                          : double(f.value.sll);
    watts           = mw / 1000.0;
    return true;
  }
};

}  // namespace

namespace nvml {

int sm_clock_mhz() {
  Nvml& n      = Nvml::get();
  unsigned mhz = 0;
  return n.ok && n.clock(n.dev, NVML_CLOCK_SM, &mhz) == 0 ? int(mhz) : 0;
}

double power_w() {
  Nvml& n = Nvml::get();
  if (!n.ok) return 0;
  double w = 0;
  if (n.instant_power && n.read_instant(w)) return w;
  unsigned mw = 0;
  return n.power_usage && n.power_usage(n.dev, &mw) == 0 ? mw / 1000.0 : 0;
}

const char* power_source() {
  Nvml& n = Nvml::get();
  return !n.ok ? "none" : n.instant_power ? "instant" : n.power_usage ? "averaged" : "none";
}

int power_limit_w() {
  Nvml& n     = Nvml::get();
  unsigned mw = 0;
  return n.ok && n.power_limit && n.power_limit(n.dev, &mw) == 0 ? int(mw / 1000) : 0;
}

std::optional<double> total_energy_mj() {
  Nvml& n               = Nvml::get();
  unsigned long long mj = 0;
  if (!n.ok || !n.total_energy || n.total_energy(n.dev, &mj) != 0) return std::nullopt;
  return double(mj);
}

std::string driver() {
  Nvml& n    = Nvml::get();
  char v[96] = {};
  return n.ok && n.driver_version && n.driver_version(v, sizeof v) == 0 ? std::string(v) : std::string("?");
}

}  // namespace nvml
}  // namespace gemm
