// harness.h: what a stage provides (its Variants) and what it gets (run_stage: the whole run of a stage
// executable). The other parts of common/, one concern each:
//   options.h     command line and shape rules          gpu.h        GPU detection; NVML clock and power
//   reference.h   random inputs, the cuBLASLt reference   compare.h    the verdict on an output
//   timing.h      the benchmark method (paired rounds)    report.h     the table and the RESULT| lines
//   limit.h       a shape's limit: the tensor rate, HBM
//   tma.h         tensor maps                             descriptors.cuh, ptx.cuh, tcgen05.cuh, wgmma.cuh:
//                                                         device-side builders and PTX wrappers
//   trace.h       --trace: the profiler's buffer and the Chrome trace; profiler.cuh: its device side
//
// A stage provides two lists of Variants (its sm_100a kernels and its sm_90a twins); stage_main.cpp hands
// them to run_stage(), which picks the list that matches the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/compare.h"
#include "common/descriptors.cuh"
#include "common/gpu.h"
#include "common/options.h"
#include "common/problem.h"
#include "common/reference.h"
#include "common/timing.h"
#include "common/trace.h"

namespace gemm {

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
  // 2-CTA stages (v5); the defaults describe stages whose CTAs work alone.
  int cta_group = 1;  // tcgen05 .cta_group: one MMA spans this many CTAs, each holding a_mma_rows rows of A
                      // and b.rows rows of B (MMA M = a_mma_rows * cta_group, N = b.rows * cta_group)
  int b_split = 1;    // B's tile is written by b_split boxes stacked along its rows, box j (tma_box(b, ..,
                      // j)) by CTA j of the cluster: the Hopper v5 CTAs each multicast their half of it
  int a_split = 1;    // the same for A, whose CTAs then sit side by side along N (Hopper v8's narrow pair;
                      // v8m's B, whose rows are A's, is b_split boxes too, all its own)
  int cluster = 0;    // CTAs per cluster where it is not max(cta_group, b_split, a_split): 1 for Hopper v8's
                      // CTA alone (v8a), which issues all b_split boxes of B itself; CLUSTER_PICKED where
                      // the launcher picks per shape between that and b_split (v8d)
  SmemTiles with_cluster(int ctas) const {  // the same ring in clusters of `ctas` (or CLUSTER_PICKED)
    SmemTiles t = *this;
    t.cluster   = ctas;
    return t;
  }
};

constexpr int CLUSTER_PICKED = -1;  // SmemTiles::cluster of a variant that picks its unit per shape

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
  // The same kernel with the in-kernel profiler compiled in (its TRACE=true instantiation, profiler.cuh),
  // recording into `trace`, which it allocates for its grid. Used by --trace for one launch, never timed.
  // Null where the stage has no traced kernel (v1, v2).
  Launch (*prepare_traced)(const GemmArgs&, DeviceTrace& trace) = nullptr;
};

// A picking variant's (v8d's) launch of a kernel that has no traced build (v8's decode and ping-pong kernels):
// with --trace (`trace` set) it exits with EXIT_BAD_INPUT before anything is launched, saying which kernel it
// would run and where ("the decode kernel (v8s) at M <= 16"), since a trace of another kernel would not show
// the one that runs; otherwise it returns `prepare`'s launch.
Launch untraced_pick(Launch (*prepare)(const GemmArgs&), const GemmArgs& g, const DeviceTrace* trace,
                     const std::string& kernel_and_where);

// Runs `launch` once on a poisoned output and compares it with `ref_host` (bf16 bits of the reference).
// If `out_host` is given, the output bits are left there.
CompareResult check_launch(const Launch& launch, const GemmArgs& args, const std::vector<uint16_t>& ref_host,
                           std::vector<uint16_t>* out_host = nullptr);

// Defined by each stage: matmul_vN.cu (sm_100a kernels) and matmul_vN_sm90.cu (their Hopper twins).
std::vector<Variant> sm100_variants();
std::vector<Variant> sm90_variants();
// The sm_100a kernels compiled a second time, for sm_90a, through the tcgen05 emulator (common/tcgen05_emu.h):
// the same file with GEMM_TCGEN05_EMULATE, whose sm100_variants() is renamed to this by the build.
std::vector<Variant> sm100_emulated_variants();

// Shared memory handed to TMA and MMA is aligned by hand: the dynamic shared-memory window has no alignment
// guarantee beyond 16 B, and 128B-swizzled tiles need 1024 B. Kernels request SMEM_ALIGN bytes of slack.
constexpr uint32_t SMEM_ALIGN = 1024;

// The whole run of a stage executable: options, GPU dispatch, shape checks, verification, timing, report.
// `sm100_emulated`: what --emulate runs on a Hopper GPU (empty: the binary has no emulated kernels).
int run_stage(int argc, char** argv, const char* stage, const std::vector<Variant>& sm100,
              const std::vector<Variant>& sm90, const std::vector<Variant>& sm100_emulated = {});

}  // namespace gemm
