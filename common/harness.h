// harness.h: what every stage executable shares on the host: GPU detection and dispatch, random inputs,
// the cuBLASLt reference, verification, timing and report lines.
//
// A stage provides two lists of Variants (its sm_100a kernels and its sm_90a twins); stage_main.cpp hands
// them to run_stage(), which picks the list that matches the GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/compare.h"
#include "common/descriptors.cuh"
#include "common/options.h"

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

using Launch = std::function<void(cudaStream_t)>;

// One TMA box of a K tile: where it lands (byte offset from the tile's start in shared memory) and where it
// starts in the tensor map (element coordinates, innermost first; 0 where the map has fewer dimensions).
struct TmaBox {
  uint32_t smem_offset;
  int coords[3];
};

// The shared-memory operand tiles of a variant: an A and a B tile per ring stage, laid out as KMajorTile
// says. tests/stage_configs.h must list every one of them for the layout model; tests/test_stage_table.cpp
// checks that it does, against these values taken from the kernels' own constants and functions.
struct SmemTiles {
  KMajorTile a, b;
  int a_mma_rows;  // rows of A one MMA instruction reads (wgmma: 64, a sub-tile per warpgroup; tcgen05: all)
  bool tma_3d;     // one 3D box per operand, or block_k / slice 2D boxes
  int num_stages;  // depth of the shared-memory ring
  int box_k;       // inner extent of a TMA box, elements (the launcher's tensor maps use the same constant)
  int num_boxes;   // TMA boxes per operand and K tile
  // Box j (0 .. num_boxes-1) of the tile whose first row is row0 and first K element k0: the very function
  // the kernel calls to issue its TMA copies, so the layout model checks the boxes the kernel issues.
  TmaBox (*tma_box)(KMajorTile tile, int row0, int k0, int j);
};

// One kernel variant of a stage.
struct Variant {
  const char* name;    // "v1a"
  const char* what;    // what changed, one line for the progression table
  const char* kernel;  // which kernel and file: "sm_100a tcgen05, v1_basic/matmul_v1.cu"
  ShapeRule shape;
  SmemTiles tiles;
  // Builds what a launch on these buffers needs (tensor maps, smem limits) and returns the launch.
  // Called once per input copy; the shape has already passed `shape`.
  Launch (*prepare)(const GemmArgs&);
};

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

// Random bf16 in [-1, 1) from (seed, index): the same seed gives the same inputs on any GPU.
void fill_random_bf16(void* dst, size_t count, uint64_t seed, cudaStream_t stream);

// cuBLASLt bf16 TN GEMM with fp32 accumulation: C[M,N] = A[M,K] * B[N,K]^T, row-major C.
class CublasLtGemm {
 public:
  CublasLtGemm(int64_t m, int64_t n, int64_t k);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&)            = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;
  void run(const GemmArgs& args, cudaStream_t stream) const;

 private:
  struct Impl;
  Impl* impl_;
};

// Runs `launch` once on a poisoned output and compares it with `ref_host` (bf16 bits of the reference).
// If `out_host` is given, the output bits are left there.
CompareResult check_launch(const Launch& launch, const GemmArgs& args, const std::vector<uint16_t>& ref_host,
                           std::vector<uint16_t>* out_host = nullptr);

// Median and minimum of `iters` timed launches after `warmup` untimed ones, rotating through the launches
// (one per input copy) so that the inputs are not already in L2.
struct Timing {
  double median_ms = 0, min_ms = 0;
  int sm_clock_mhz = 0;  // SM clock read right after timing (NVML), 0 if unavailable
};
Timing time_launches(const std::vector<Launch>& launches, int warmup, int iters);

// Defined by each stage: matmul_vN.cu (sm_100a kernels) and matmul_vN_sm90.cu (their Hopper twins).
std::vector<Variant> sm100_variants();
std::vector<Variant> sm90_variants();

// Shared memory handed to TMA and MMA is aligned by hand: the dynamic shared-memory window has no alignment
// guarantee beyond 16 B, and 128B-swizzled tiles need 1024 B. Kernels request SMEM_ALIGN bytes of slack.
constexpr uint32_t SMEM_ALIGN = 1024;

// The whole run of a stage executable: options, GPU dispatch, shape checks, verification, timing, report.
int run_stage(int argc, char** argv, const char* stage, const std::vector<Variant>& sm100,
              const std::vector<Variant>& sm90);

}  // namespace gemm
