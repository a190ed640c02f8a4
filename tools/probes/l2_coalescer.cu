// l2_coalescer.cu: when the SMs of an H100 read the same bytes at the same time, which reads does the L2
// serve once?
//
// 128 CTAs in 64 clusters of 2, one CTA per SM. Each streams 8 KB TMA boxes (64 rows x 128 B: the narrow
// tile's box of B, 128-byte swizzle) of a bf16 matrix through an 8-stage ring of shared memory and does
// nothing else. A mode chooses which CTAs read the same rows at the same step. The hardware places a
// cluster's two CTAs on one TPC (SMs 2t and 2t+1) and deals the clusters over the TPCs in order. On an H100
// mapped with clusters of 16 and of 8 CTAs (each stays in one GPC), TPC t sits in GPC t mod 8 for t < 32, and
// clusters 4-35 land on TPCs 0-31 (clusters 0-3 on SMs 124-131): for those clusters, c and c + 8 share a GPC,
// c and c + 1 do not. The tool prints each cluster's SMs.
//
// The measure is ncu's lrc__average_xbar2gpc_sectors_op_read.ratio, the L2 request coalescer's fan-out:
// sectors delivered to the SMs per sector read out of the L2 (1: nothing merged; a TMA multicast to a pair
// counts 2).
//
// Built by CMake as build/l2_coalescer (sm_90a), or by hand:
//   nvcc -arch=sm_90a -o l2c tools/probes/l2_coalescer.cu
//   ncu --metrics lrc__average_xbar2gpc_sectors_op_read.ratio,gpu__time_duration.sum -k regex:stream_boxes \
//       --launch-skip 3 --launch-count 1 ./l2c gpc8
//   ./l2c all                      # every mode, timed (cudaEvent, 10 launches)
//   ./l2c tpc2 --first-touch       # 2 MB bands read once: with ncu --cache-control all (the default), every
//                                  # box misses in the L2 for its first reader
//   ./l2c tpc2 --spread            # the cluster scheduling policy "spread" (--balance: "load balancing")
//   ./l2c gpc8 --3d                # the boxes through a 3D tensor map (a third dimension of 1), as cuBLAS's
//
// Modes (a "sharer" reads the same 64-row band, box for box, in step with the others):
//   distinct  every CTA its own band                      tpc2   the two CTAs of a cluster (one TPC)
//   gpc2      clusters c and c + 8, same rank (one GPC)   far2   clusters c and c + 1 (two GPCs)
//   gpc8      8 clusters c mod 8, same rank (8 TPCs of one GPC)   far8  8 consecutive clusters, same rank
//   gpc16     both CTAs of 8 clusters c mod 8 (one GPC)   far16  both CTAs of 8 consecutive clusters
//   smid2     the two SMs of a TPC, by %smid, whichever clusters they belong to
//
// Measured on H100 80GB HBM3s (driver 580.159.04, CUDA 13.0), 2026-11-26, several devices lent, fan-out (2048
// boxes per CTA from an L2-resident matrix; in brackets with --first-touch): distinct 1.00 (1.00), tpc2
// 1.66-1.99 (2.00), gpc2 1.10-1.22 (1.23), far2 1.01-1.03 (1.03), gpc8 1.35-1.58 (1.58), far8 1.08-1.12
// (1.12), gpc16 2.14-2.46 (2.56-2.61), far16 1.82-2.09 (2.20). A variant that held each box 150-600 cycles
// before refilling its stage (the CTAs then ran in step, far below the L2's rate) and variants with the other
// L2 promotions of the tensor map measured the same. So the two SMs of a TPC reading the same line at once
// are served once, nearly always; SMs of one GPC on different TPCs now and then; SMs of different GPCs almost
// never. The time printed depends on the bytes each SM keeps in flight (8 boxes) as much as on the L2, and it
// varied between the H100s lent (every mode at the same time on one; on another the shared modes' launches up
// to 42% shorter than distinct's): read the fan-out. The order of the TPCs within each group of eight
// clusters differed between the H100s lent (the SMs printed); c and c + 8 shared a GPC on each, by the
// fan-outs. docs/performance/l2-coalescer.md, "The GEMM's order decides who shares a GPC", applies it to the
// tile order of v8's narrow pair. On an H200 (docs/performance/l2-coalescer.md, "On an H200"), every cluster
// scheduling policy placed a cluster's two CTAs on one TPC, on the same SMs, and the 3D map merged about as much.
#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK_CUDA(call)                                                               \
  do {                                                                                 \
    const cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "error: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int CTAS = 128, STAGES = 8, BOX_ROWS = 64, BOX_COLS = 64;
constexpr int BOX_BYTES = BOX_ROWS * BOX_COLS * 2;  // 8 KB
constexpr int PAD_BYTES = 100 * 1024;               // shared memory beyond the ring: one CTA per SM

enum Mode { DISTINCT, TPC2, GPC2, FAR2, GPC8, FAR8, GPC16, FAR16, SMID2, NUM_MODES };
const char* const MODE_NAMES[NUM_MODES] = {"distinct", "tpc2", "gpc2",  "far2",
                                           "gpc8",     "far8", "gpc16", "far16", "smid2"};

// The 64-row band CTA `b` reads (0 .. 127): equal bands are read box for box in step.
__host__ __device__ int band_of(int mode, int b) {
  const int c = b / 2, r = b % 2;  // cluster, rank
  switch (mode) {
    case TPC2:
      return c;
    case GPC2:
      return ((c / 8) % 2 == 0 ? c : c - 8) * 2 + r;
    case FAR2:
      return (c % 2 == 0 ? c : c - 1) * 2 + r;
    case GPC8:
      return (c % 8) * 2 + r;
    case FAR8:
      return (c / 8) * 2 + r;
    case GPC16:
      return c % 8;
    case FAR16:
      return c / 8;
    default:
      return b;
  }
}

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __launch_bounds__(128, 1) stream_boxes(const __grid_constant__ CUtensorMap map, int mode,
                                                       int steps, int boxes_per_band, int* sm_of,
                                                       int three_d) {
  extern __shared__ __align__(1024) char ring[];
  __shared__ uint64_t full[STAGES];
  if (threadIdx.x != 0) return;
  uint32_t sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  sm_of[blockIdx.x] = int(sm);
  for (int s = 0; s < STAGES; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&full[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const int row = (mode == SMID2 ? int(sm / 2) : band_of(mode, blockIdx.x)) * BOX_ROWS;
  for (int i = 0; i < steps + STAGES; ++i) {
    const int s = i % STAGES;
    if (i >= STAGES) {  // the box loaded STAGES steps ago has landed: its stage is free again
      asm volatile(
          "{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
          "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
          "@!p bra WAIT_%=;\n\t}" ::"r"(smem_addr(&full[s])),
          "r"(uint32_t(i / STAGES - 1) & 1)
          : "memory");
    }
    if (i < steps) {
      const int col = (i % boxes_per_band) * BOX_COLS;
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&full[s])),
                   "r"(BOX_BYTES)
                   : "memory");
      if (three_d) {
        asm volatile(
            "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %5}],"
            " [%4];" ::"r"(smem_addr(ring + s * BOX_BYTES)),
            "l"(&map), "r"(col), "r"(row), "r"(smem_addr(&full[s])), "r"(0)
            : "memory");
      } else {
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
            "[%4];" ::"r"(smem_addr(ring + s * BOX_BYTES)),
            "l"(&map), "r"(col), "r"(row), "r"(smem_addr(&full[s]))
            : "memory");
      }
    }
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODE|all [--first-touch] [--spread|--balance] [--3d]\n  modes:", argv[0]);
    for (const char* m : MODE_NAMES) std::fprintf(stderr, " %s", m);
    std::fprintf(stderr, "\n");
    return 2;
  }
  int only = -1;
  for (int m = 0; m < NUM_MODES; ++m)
    if (std::strcmp(argv[1], MODE_NAMES[m]) == 0) only = m;
  if (only < 0 && std::strcmp(argv[1], "all") != 0) {
    std::fprintf(stderr, "error: unknown mode '%s' (run without arguments for the list)\n", argv[1]);
    return 2;
  }
  bool first_touch = false;
  int policy = cudaClusterSchedulingPolicyDefault, three_d = 0;
  for (int a = 2; a < argc; ++a) {
    if (std::strcmp(argv[a], "--first-touch") == 0) {
      first_touch = true;
    } else if (std::strcmp(argv[a], "--spread") == 0) {
      policy = cudaClusterSchedulingPolicySpread;
    } else if (std::strcmp(argv[a], "--balance") == 0) {
      policy = cudaClusterSchedulingPolicyLoadBalancing;
    } else if (std::strcmp(argv[a], "--3d") == 0) {
      three_d = 1;
    } else {
      std::fprintf(stderr, "error: unknown option '%s' (run without arguments for the usage)\n", argv[a]);
      return 2;
    }
  }
  // Resident: 2048 columns per band (256 KB; 32 MB in all, held in the 50 MB L2), looped over 2048 steps.
  // First touch: 16384 columns (2 MB per band, 256 MB in all), read once.
  const int cols = first_touch ? 16384 : 2048, steps = first_touch ? 256 : 2048;

  int dev = 0, major = 0;
  CHECK_CUDA(cudaGetDevice(&dev));
  CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major != 9) {
    std::fprintf(stderr, "error: this probe is built for sm_90a (H100/H200); the GPU found is sm_%d0\n",
                 major);
    return 2;
  }
  const size_t bytes = size_t(CTAS) * BOX_ROWS * cols * 2;
  void* matrix       = nullptr;
  int* sm_of         = nullptr;
  CHECK_CUDA(cudaMalloc(&matrix, bytes));
  CHECK_CUDA(cudaMemset(matrix, 0, bytes));
  CHECK_CUDA(cudaMalloc(&sm_of, CTAS * sizeof(int)));

  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK_CUDA(
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
  if (fn == nullptr || found != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "error: cuTensorMapEncodeTiled is not reachable through the driver\n");
    return 1;
  }
  CUtensorMap map;
  // 2D, or 3D with a third dimension of 1 (--3d): the first two entries are the same either way
  const cuuint64_t dims[3]    = {cuuint64_t(cols), cuuint64_t(CTAS) * BOX_ROWS, 1};
  const cuuint64_t strides[2] = {cuuint64_t(cols) * 2, cuuint64_t(cols) * 2 * CTAS * BOX_ROWS};
  const cuuint32_t box[3] = {BOX_COLS, BOX_ROWS, 1}, elem_strides[3] = {1, 1, 1};
  const CUresult res = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn)(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, three_d ? 3 : 2, matrix, dims, strides, box, elem_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS) {
    std::fprintf(stderr, "error: cuTensorMapEncodeTiled failed with CUresult %d\n", int(res));
    return 1;
  }

  const int smem = STAGES * BOX_BYTES + 1024 + PAD_BYTES;
  CHECK_CUDA(cudaFuncSetAttribute(stream_boxes, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim            = dim3(CTAS);
  cfg.blockDim           = dim3(128);
  cfg.dynamicSmemBytes   = smem;
  cudaLaunchAttribute cluster;
  cluster.id               = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 2;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchAttribute attrs[2] = {cluster, {}};
  attrs[1].id                  = cudaLaunchAttributeClusterSchedulingPolicyPreference;
  attrs[1].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicy(policy);
  cfg.attrs                    = attrs;
  cfg.numAttrs                 = 2;
  int resident                 = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveClusters(&resident, stream_boxes, &cfg));
  std::printf("cluster scheduling policy %d: %d clusters of 2 resident\n", policy, resident);
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const int boxes_per_band = cols / BOX_COLS, reps = 10;
  for (int mode = 0; mode < NUM_MODES; ++mode) {
    if (only >= 0 && mode != only) continue;
    for (int i = 0; i < 3; ++i)
      CHECK_CUDA(cudaLaunchKernelEx(&cfg, stream_boxes, map, mode, steps, boxes_per_band, sm_of, three_d));
    CHECK_CUDA(cudaEventRecord(start));
    for (int i = 0; i < reps; ++i)
      CHECK_CUDA(cudaLaunchKernelEx(&cfg, stream_boxes, map, mode, steps, boxes_per_band, sm_of, three_d));
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    const double us = 1000.0 * ms / reps;
    std::printf("%-8s %9.2f us per launch, %5.1f TB/s landed in the SMs\n", MODE_NAMES[mode], us,
                double(CTAS) * steps * BOX_BYTES / us / 1e6);
  }
  int h_sm[CTAS];
  CHECK_CUDA(cudaMemcpy(h_sm, sm_of, sizeof h_sm, cudaMemcpyDeviceToHost));
  std::printf("SM of each cluster's CTAs (cluster: rank 0 / rank 1):");
  for (int c = 0; c < CTAS / 2; ++c) std::printf(" %d:%d/%d", c, h_sm[2 * c], h_sm[2 * c + 1]);
  std::printf("\n");
  CHECK_CUDA(cudaFree(matrix));
  CHECK_CUDA(cudaFree(sm_of));
  return 0;
}
