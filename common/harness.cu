#include "common/harness.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include <cublasLt.h>
#include <cuda_bf16.h>

#include "common/check.h"

namespace gemm {

// ------------------------------------------------------------------------------------------------------------
// GPU detection and dispatch
// ------------------------------------------------------------------------------------------------------------
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
// NVML, opened at run time (never linked): the SM clock right after timing, and the power limit.
// ------------------------------------------------------------------------------------------------------------
namespace {

struct Nvml {
  using Device                           = void*;
  int (*init)()                          = nullptr;
  int (*by_pci)(const char*, Device*)    = nullptr;
  int (*clock)(Device, int, unsigned*)   = nullptr;
  int (*power_limit)(Device, unsigned*)  = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  Device dev                             = nullptr;
  bool ok                                = false;

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
    n.clock = reinterpret_cast<int (*)(Device, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    n.power_limit =
        reinterpret_cast<int (*)(Device, unsigned*)>(dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit"));
    n.driver_version = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    if (!n.init || !n.by_pci || !n.clock || n.init() != 0) return n;
    int dev = 0;
    char pci[64];
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetPCIBusId(pci, sizeof pci, dev) != cudaSuccess)
      return n;
    n.ok = n.by_pci(pci, &n.dev) == 0;
    return n;
  }
  int sm_clock_mhz() {
    unsigned mhz = 0;
    return ok && clock(dev, /*NVML_CLOCK_SM*/ 1, &mhz) == 0 ? int(mhz) : 0;
  }
  std::string driver() {
    char v[96] = {};
    return ok && driver_version && driver_version(v, sizeof v) == 0 ? std::string(v) : std::string("?");
  }
  int power_limit_w() {
    unsigned mw = 0;
    return ok && power_limit && power_limit(dev, &mw) == 0 ? int(mw / 1000) : 0;
  }
};

}  // namespace

// ------------------------------------------------------------------------------------------------------------
// Inputs
// ------------------------------------------------------------------------------------------------------------
namespace {

__host__ __device__ inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_random_bf16_kernel(__nv_bfloat16* dst, size_t count, uint64_t seed) {
  const uint64_t key = splitmix64(seed);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t h = splitmix64(key ^ i);
    const float u    = float(h >> 40) * (1.0f / 16777216.0f);  // 24 random bits in [0, 1)
    dst[i]           = __float2bfloat16(2.0f * u - 1.0f);
  }
}

}  // namespace

void fill_random_bf16(void* dst, size_t count, uint64_t seed, cudaStream_t stream) {
  fill_random_bf16_kernel<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), count, seed);
  CUDA_CHECK(cudaGetLastError());
}

// ------------------------------------------------------------------------------------------------------------
// cuBLASLt reference
// ------------------------------------------------------------------------------------------------------------
struct CublasLtGemm::Impl {
  cublasLtHandle_t handle   = nullptr;
  cublasLtMatmulDesc_t op   = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulHeuristicResult_t heur{};
  void* workspace        = nullptr;
  size_t workspace_bytes = size_t(32) << 20;
};

// Row-major C[M,N] = A[M,K] B[N,K]^T is, in cuBLAS's column-major terms, C^T[N,M] = B[N,K] A^T: "A" of the
// call is our B read transposed (K x N, ld K), "B" is our A (K x M, ld K), and D is N x M with ld N.
CublasLtGemm::CublasLtGemm(int64_t m, int64_t n, int64_t k) : impl_(new Impl) {
  Impl& s = *impl_;
  CUBLAS_CHECK(cublasLtCreate(&s.handle));
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.la, CUDA_R_16BF, uint64_t(k), uint64_t(n), k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lb, CUDA_R_16BF, uint64_t(k), uint64_t(m), k));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s.lc, CUDA_R_16BF, uint64_t(n), uint64_t(m), n));
  CUDA_CHECK(cudaMalloc(&s.workspace, s.workspace_bytes));
  cublasLtMatmulPreference_t pref;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &s.workspace_bytes, sizeof s.workspace_bytes));
  int found = 0;
  CUBLAS_CHECK(
      cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.la, s.lb, s.lc, s.lc, pref, 1, &s.heur, &found));
  CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  if (found == 0) {
    std::fprintf(stderr, "error: cuBLASLt has no bf16 TN algorithm for M=%lld N=%lld K=%lld\n", (long long)m,
                 (long long)n, (long long)k);
    std::exit(EXIT_FAIL);
  }
}

CublasLtGemm::~CublasLtGemm() {
  Impl& s = *impl_;
  cudaFree(s.workspace);
  cublasLtMatrixLayoutDestroy(s.la);
  cublasLtMatrixLayoutDestroy(s.lb);
  cublasLtMatrixLayoutDestroy(s.lc);
  cublasLtMatmulDescDestroy(s.op);
  cublasLtDestroy(s.handle);
  delete impl_;
}

void CublasLtGemm::run(const GemmArgs& g, cudaStream_t stream) const {
  const Impl& s     = *impl_;
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(s.handle, s.op, &alpha, g.b, s.la, g.a, s.lb, &beta, g.c, s.lc, g.c, s.lc,
                              &s.heur.algo, s.workspace, s.workspace_bytes, stream));
}

// ------------------------------------------------------------------------------------------------------------
// Verification and timing
// ------------------------------------------------------------------------------------------------------------
CompareResult check_launch(const Launch& launch, const GemmArgs& args, const std::vector<uint16_t>& ref_host,
                           std::vector<uint16_t>* out_host) {
  const size_t count = size_t(args.m) * size_t(args.n);
  // Poison: every bf16 of C becomes 0xFFFF, a NaN. Whatever the kernel does not write fails the check.
  CUDA_CHECK(cudaMemset(args.c, 0xFF, count * sizeof(uint16_t)));
  launch(nullptr);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<uint16_t> local;
  std::vector<uint16_t>& out = out_host ? *out_host : local;
  out.resize(count);
  CUDA_CHECK(cudaMemcpy(out.data(), args.c, count * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  return compare_bf16(out.data(), ref_host.data(), count);
}

Timing time_launches(const std::vector<Launch>& launches, int warmup, int iters) {
  Timing t;
  if (iters <= 0) return t;
  for (int i = 0; i < warmup; ++i) launches[i % launches.size()](nullptr);
  CUDA_CHECK(cudaGetLastError());
  std::vector<cudaEvent_t> ev(static_cast<size_t>(iters) + 1);
  for (auto& e : ev) CUDA_CHECK(cudaEventCreate(&e));
  // Back-to-back launches with an event between each: event i..i+1 brackets launch i.
  CUDA_CHECK(cudaEventRecord(ev[0]));
  for (int i = 0; i < iters; ++i) {
    launches[(warmup + i) % launches.size()](nullptr);
    CUDA_CHECK(cudaEventRecord(ev[size_t(i) + 1]));
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventSynchronize(ev.back()));
  t.sm_clock_mhz = Nvml::get().sm_clock_mhz();
  std::vector<double> ms(static_cast<size_t>(iters));
  for (int i = 0; i < iters; ++i) {
    float f = 0;
    CUDA_CHECK(cudaEventElapsedTime(&f, ev[size_t(i)], ev[size_t(i) + 1]));
    ms[size_t(i)] = f;
  }
  for (auto& e : ev) CUDA_CHECK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  t.min_ms    = ms.front();
  t.median_ms = iters % 2 ? ms[size_t(iters) / 2] : 0.5 * (ms[size_t(iters) / 2 - 1] + ms[size_t(iters) / 2]);
  return t;
}

// ------------------------------------------------------------------------------------------------------------
// The stage executable
// ------------------------------------------------------------------------------------------------------------
namespace {

struct Row {
  std::string variant, what;
  Timing timing;
  double tflops = 0, ratio = 0;
  CompareResult check;
  bool checked = false;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

int run_stage(int argc, char** argv, const char* stage, const std::vector<Variant>& sm100,
              const std::vector<Variant>& sm90) {
  const std::string prog = std::string("matmul_") + stage;
  Options opt;
  const std::string bad = parse_options(argc, argv, opt);
  if (!bad.empty()) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), bad.c_str());
    return EXIT_BAD_INPUT;
  }
  if (opt.help) {
    std::printf("%s", usage(prog.c_str()).c_str());
    return EXIT_PASS;
  }

  GpuInfo gpu;
  Arch arch        = Arch::Sm90;
  std::string none = detect_gpu(gpu, arch);
  if (!none.empty()) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), none.c_str());
    return EXIT_NO_GPU_HERE;
  }
  const std::vector<Variant>& all = arch == Arch::Sm100 ? sm100 : sm90;

  // Which variants, and do they accept this shape? Nothing is allocated or launched before this passes.
  std::vector<const Variant*> chosen;
  if (opt.variant == "all") {
    for (const Variant& v : all) chosen.push_back(&v);
  } else if (opt.variant != "cublas") {
    for (const Variant& v : all)
      if (opt.variant == v.name) chosen.push_back(&v);
    if (chosen.empty()) {
      std::string names;
      for (const Variant& v : all) names += std::string(names.empty() ? "" : ", ") + v.name;
      std::fprintf(stderr, "%s: unknown variant '%s' (this stage has: %s, all, cublas)\n", prog.c_str(),
                   opt.variant.c_str(), names.c_str());
      return EXIT_BAD_INPUT;
    }
  }
  for (const Variant* v : chosen) {
    const std::string why = check_shape(v->shape, v->name, opt.m, opt.n, opt.k);
    if (!why.empty()) {
      std::fprintf(stderr, "%s: %s\n", prog.c_str(), why.c_str());
      return EXIT_BAD_INPUT;
    }
  }

  if (!opt.seed_given) {
    std::random_device rd;
    opt.seed =
        (uint64_t(rd()) << 32 | rd()) ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    opt.seed = (opt.seed & 0x7FFFFFFFFFFFFFFFull) | 1;
  }

  Nvml& nvml = Nvml::get();
  std::printf("%s | driver %s | power limit %d W\n", describe_gpu(gpu).c_str(), nvml.driver().c_str(),
              nvml.power_limit_w());
  std::printf(
      "%s: C[%lld,%lld] = A[%lld,%lld] * B[%lld,%lld]^T, bf16 in and out, fp32 accumulate | seed %llu "
      "(replay with --seed %llu)\n",
      prog.c_str(), (long long)opt.m, (long long)opt.n, (long long)opt.m, (long long)opt.k, (long long)opt.n,
      (long long)opt.k, (unsigned long long)opt.seed, (unsigned long long)opt.seed);
  if (!chosen.empty()) std::printf("kernels: %s\n", chosen.front()->kernel);

  // Input copies: enough that the set rotated through is well over the L2 (2x), so a timed launch cannot
  // find its operands left in L2 by the previous one.
  const size_t a_bytes = size_t(opt.m) * size_t(opt.k) * 2, b_bytes = size_t(opt.n) * size_t(opt.k) * 2;
  const size_t c_bytes = size_t(opt.m) * size_t(opt.n) * 2, set_bytes = a_bytes + b_bytes + c_bytes;
  int copies = 1;
  if (opt.iters > 0)
    copies = int(std::clamp<size_t>((2 * gpu.l2_bytes + set_bytes - 1) / set_bytes + 1, 2, 32));
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t reserve = (size_t(256) << 20) + c_bytes;  // reference output, cuBLAS workspace
  while (copies > 1 && copies * set_bytes + reserve > free_bytes) --copies;
  if (set_bytes + reserve > free_bytes) {
    std::fprintf(stderr, "%s: the problem needs %.1f GB of GPU memory; %.1f GB are free\n", prog.c_str(),
                 double(set_bytes + reserve) / 1e9, double(free_bytes) / 1e9);
    return EXIT_FAIL;
  }

  std::vector<GemmArgs> sets(static_cast<size_t>(copies));
  for (int i = 0; i < copies; ++i) {
    void *a, *b, *c;
    CUDA_CHECK(cudaMalloc(&a, a_bytes));
    CUDA_CHECK(cudaMalloc(&b, b_bytes));
    CUDA_CHECK(cudaMalloc(&c, c_bytes));
    fill_random_bf16(a, a_bytes / 2, opt.seed * 2 + uint64_t(i) * 1000003, nullptr);
    fill_random_bf16(b, b_bytes / 2, opt.seed * 2 + 1 + uint64_t(i) * 1000003, nullptr);
    CUDA_CHECK(cudaMemset(c, 0, c_bytes));
    sets[size_t(i)] = GemmArgs{a, b, c, opt.m, opt.n, opt.k};
  }
  CUDA_CHECK(cudaDeviceSynchronize());

  CublasLtGemm cublas(opt.m, opt.n, opt.k);
  std::vector<uint16_t> ref_host;
  if (opt.check && !chosen.empty()) {
    void* ref = nullptr;
    CUDA_CHECK(cudaMalloc(&ref, c_bytes));
    GemmArgs r = sets[0];
    r.c        = ref;
    cublas.run(r, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    ref_host.resize(c_bytes / 2);
    CUDA_CHECK(cudaMemcpy(ref_host.data(), ref, c_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(ref));
  }

  std::vector<Row> rows;
  // cuBLAS first: every ratio is against this measurement, taken in the same process on the same inputs.
  Row ref_row;
  ref_row.variant = "cublas";
  ref_row.what    = "cuBLASLt bf16 TN, fp32 accumulate (reference)";
  if (opt.iters > 0) {
    std::vector<Launch> launches;
    for (const GemmArgs& s : sets) launches.push_back([&cublas, s](cudaStream_t st) { cublas.run(s, st); });
    ref_row.timing = time_launches(launches, opt.warmup, opt.iters);
    ref_row.tflops = gemm_tflops(opt.m, opt.n, opt.k, ref_row.timing.median_ms);
    ref_row.ratio  = 1.0;
  }
  rows.push_back(ref_row);

  bool all_pass = true;
  for (const Variant* v : chosen) {
    Row row;
    row.variant = v->name;
    row.what    = v->what;
    std::vector<Launch> launches;
    for (const GemmArgs& s : sets) launches.push_back(v->prepare(s));
    if (opt.check) {
      row.check   = check_launch(launches[0], sets[0], ref_host);
      row.checked = true;
      all_pass    = all_pass && row.check.pass;
      std::printf("check %-5s %s", v->name, row.check.summary().c_str());
      if (!row.check.pass && row.check.first_bad != SIZE_MAX)
        std::printf("  (first bad element: row %zu, col %zu)", row.check.first_bad / size_t(opt.n),
                    row.check.first_bad % size_t(opt.n));
      std::printf("\n");
    }
    if (opt.iters > 0) {
      row.timing = time_launches(launches, opt.warmup, opt.iters);
      row.tflops = gemm_tflops(opt.m, opt.n, opt.k, row.timing.median_ms);
      row.ratio  = ref_row.tflops > 0 ? row.tflops / ref_row.tflops : 0;
    }
    rows.push_back(row);
  }

  if (opt.iters > 0)
    std::printf(
        "timing: CUDA events, median and min of %d launches after %d warm-up, inputs rotated through "
        "%d copies (%.0f MB, L2 %zu MB)\n",
        opt.iters, opt.warmup, copies, double(copies * set_bytes) / 1e6, gpu.l2_bytes >> 20);
  std::printf("%-7s %-52s %8s %10s %9s %8s %9s %s\n", "variant", "what changed", "TFLOPS", "median ms",
              "min ms", "vs cuBLAS", "rel err", "check");
  for (const Row& r : rows) {
    std::printf("%-7s %-52s %8s %10s %9s %8s %9s %s\n", r.variant.c_str(), r.what.substr(0, 52).c_str(),
                opt.iters ? fmt("%.1f", r.tflops).c_str() : "-",
                opt.iters ? fmt("%.4f", r.timing.median_ms).c_str() : "-",
                opt.iters ? fmt("%.4f", r.timing.min_ms).c_str() : "-",
                opt.iters ? fmt("%.3fx", r.ratio).c_str() : "-",
                r.checked ? fmt("%.2e", r.check.rel_frob).c_str() : "-",
                r.checked ? (r.check.pass ? "PASS" : "FAIL") : "-");
  }
  // One machine-readable line per row, '|'-separated key=value pairs (run_all.sh parses these).
  const char* arch_name = arch == Arch::Sm100 ? "sm_100a" : "sm_90a";
  for (const Row& r : rows) {
    std::printf(
        "RESULT|stage=%s|variant=%s|arch=%s|m=%lld|n=%lld|k=%lld|tflops=%.2f|median_ms=%.5f|min_ms=%.5f|"
        "cublas_tflops=%.2f|ratio=%.4f|rel_err=%s|max_abs=%s|nonfinite=%s|status=%s|sm_clock_mhz=%d|"
        "seed=%llu|what=%s\n",
        stage, r.variant.c_str(), arch_name, (long long)opt.m, (long long)opt.n, (long long)opt.k, r.tflops,
        r.timing.median_ms, r.timing.min_ms, ref_row.tflops, r.ratio,
        r.checked ? fmt("%.3e", r.check.rel_frob).c_str() : "-",
        r.checked ? fmt("%.3e", r.check.max_abs).c_str() : "-",
        r.checked ? std::to_string(r.check.nonfinite).c_str() : "-",
        r.checked ? (r.check.pass ? "PASS" : "FAIL") : (r.variant == "cublas" ? "REF" : "UNCHECKED"),
        r.timing.sm_clock_mhz, (unsigned long long)opt.seed, r.what.c_str());
  }
  if (opt.csv) {
    std::printf("csv:stage,variant,arch,m,n,k,tflops,median_ms,min_ms,ratio_vs_cublas,rel_err,status\n");
    for (const Row& r : rows)
      std::printf("csv:%s,%s,%s,%lld,%lld,%lld,%.2f,%.5f,%.5f,%.4f,%s,%s\n", stage, r.variant.c_str(),
                  arch_name, (long long)opt.m, (long long)opt.n, (long long)opt.k, r.tflops,
                  r.timing.median_ms, r.timing.min_ms, r.ratio,
                  r.checked ? fmt("%.3e", r.check.rel_frob).c_str() : "",
                  r.checked ? (r.check.pass ? "PASS" : "FAIL") : "");
  }

  for (GemmArgs& s : sets) {
    CUDA_CHECK(cudaFree(const_cast<void*>(s.a)));
    CUDA_CHECK(cudaFree(const_cast<void*>(s.b)));
    CUDA_CHECK(cudaFree(s.c));
  }
  if (!all_pass)
    std::fprintf(stderr, "%s: verification FAILED (seed %llu)\n", prog.c_str(), (unsigned long long)opt.seed);
  return all_pass ? EXIT_PASS : EXIT_FAIL;
}

}  // namespace gemm
