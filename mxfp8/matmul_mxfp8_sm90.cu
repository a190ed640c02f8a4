// matmul_mxfp8_sm90.cu: the MXFP8 stage on Hopper (sm_90a), the twin of the Blackwell block-scaled GEMM:
// e4m3 x e4m3 with one e8m0 scale per 1x32 block along K, fp32 out.
//
// C[M,N] = dequant(A)[M,K] * dequant(B)[N,K]^T, fp32 accumulation and output, both operands K-major, data and
// scales exactly as the quantizer writes them (mxfp8/mx_quant.h; scales in common/mx_scale_layout.h).
//
// What changed since v6's Hopper twin (seed 001; OCP Microscaling Formats (MX) v1.0): Hopper has no
// block-scaled MMA, but its fp8 wgmma m64nNk32 multiplies exactly 32 elements of K: one MX block. So:
//  1. fp8 wgmma. Each consumer warpgroup issues m64n128k32 e4m3 x e4m3 -> f32 with scale-d = 0 for every MX
//     block: a fresh partial P of that block alone, in registers.
//  2. Promotion (DeepGEMM's idea, at 1x32 instead of 1x128): P is added into a separate fp32 accumulator
//     with the block's two scales, acc = fma(P, sa * sb, acc) (mxfp8/mx_promote.h): sa * sb = 2^(ea+eb-254)
//     is an exact power of two, so each block lands in fp32 rounded once. Two partial register sets (P0, P1)
//     alternate: the wgmma of block i+1 runs on the tensor cores while the CUDA cores promote block i.
//     Registers per consumer thread: acc 64 + P0 64 + P1 64 = 192 fp32 (m64n128: 64 each); with m64n256 a
//     single partial and its accumulator alone would be 256, more than a thread can hold.
//  3. Scales travel with the data. Each K tile (128 of K = 4 MX blocks) of a 128-row tile has its scales in
//     one 512-byte tile of the blocked layout, contiguous in global memory: one bulk copy each for A's and
//     B's (cp.async.bulk, completing on the stage's full barrier with the data). Two spare warps of the
//     producer warpgroup then decode them once per stage into fp32 (e8m0_to_float), laid out so that each
//     consumer thread reads its 32 column scales of a block with 8 LDS.128 (and its 2 row scales with 2 LDS):
//     10 shared loads per 64 promoted elements, instead of a byte extraction per element. A consumer loads
//     block b+1's row scales and first 4 LDS.128 before it promotes block b (ncu had found the first FMUL
//     of each block waiting on its LDS: 22% of the consumers' stall samples; then 4%).
//  4. fp32 output (as the seed's Blackwell kernel): C is stored straight from the accumulators with
//     st.global, not waited for: the next tile's MMAs start at once, on stages the producer has already
//     filled, while the stores drain. v6's TMA-store epilogue is not kept, for a reason of shared memory: an
//     fp32 128x128 tile is 64 KB (v6's bf16 half-tile buffer is 32 KB), so a whole-tile buffer would take 2
//     of the ring's 6 stages of 37 KB, and v6's half-tile split (its measured choice) would still take one;
//     v6 measured 3 stages against 4 as 0.97x against 1.00x. And the consumers here are issue-bound on the
//     promotion, not idle at the epilogue: the stores are 32 per thread per tile against 128 promotions per K
//     tile. At the edges the stores are predicated (row < M, column < N), 8-byte pairs where N is even.
// Kept from v6: persistent 2-CTA clusters along M (cudaOccupancyMaxActiveClusters), each CTA multicasting
// half of the shared B tile; the grouped TileSchedule (common/scheduler.h, GROUP_M 16), every role walking
// the same tiles; the ring's stage and phase carried across tiles; cross-CTA empty barriers; the split exit
// cluster barrier; any M and N, with v6's 2D tensor maps (TMA zero-fills rows past M or N and K past a short
// last K tile), boxes wholly outside a tensor neither issued nor counted, a padding tile that stores
// nothing. Not kept: the 128x256 tile (128x128 here: the register budget above), and v6's TMA store (4.).
// K tiles are 128 elements (one 128-byte swizzle row of fp8, as v6's 64 bf16).
// The shape rule is K % 32 == 0 and nothing on M or N: the MX format itself has one scale per 32 elements of
// K (an e4m3 row is then 32-byte aligned, more than TMA's 16-byte stride rule). Every tile's scales exist in
// the blocked layout, which pads rows to 128 and K blocks to 4: a tile's 512-byte scale tiles are whole
// even at the edges. What the padding bytes hold is the quantizer's business, and a NaN byte (0xFF) times
// the zeros TMA fills in would poison a real sum; so the decoders write 0.0f for the blocks past K of a short
// last K tile, whatever their bytes. Padding rows and columns only reach outputs that are never stored.
//
// The bound (docs/performance/mxfp8-mx-bound.md): per accumulator element and MX block the tensor core does 32
// MACs, at 4096 fp8 MACs per clock per SM: 1/128 clock; the CUDA cores do 2 instructions (FMUL + FFMA) at 128
// lanes per clock per SM: 1/64 clock. Promotion, not the tensor core, is the ceiling: half the fp8 peak, i.e.
// the bf16 peak (989 TFLOPS at 1830 MHz), before the scale loads and the rest. Measured on the H100 (the table
// in mxfp8/README.md, "Measured"): about half of cuBLAS bf16, at 59% of the issue bound of its own instruction
// stream (ncu: 0.59 instructions per clock per scheduler; 2 consumer warps per scheduler, stalled on dispatch,
// the wgmma wait at each K tile's start and fixed latencies; docs/performance/mxfp8-mx-bound.md, "Where the
// issue slots go"). A second variant, mx4: 4 consumer warpgroups of m64n64k32 (one partial each), 4 consumer
// warps per scheduler: measured slightly slower (the same table).
// Tried, not kept (docs/performance/mxfp8-mx-steps.md): promote as fma(P * sb, sa, acc) (0.47x: slower);
// descriptors built once and offset per stage and block (no change); block 0 of the next K tile issued before
// block 3 of this one is promoted, so that the MMAs never drain (ptxas then serializes every wgmma, warning
// C7514, and spills).
// What it costs against v6: 2x the tensor rate per byte, but every 32 of K a promotion on the CUDA cores;
// smaller tiles (twice the L2 traffic per FLOP of a 128x256 tile, half of it for fp8 bytes); 5 KB per
// stage for scales.
//
// PTX ISA sections: as v5, plus "wgmma.mma_async" (.m64n128k32 .f32.e4m3.e4m3: fp8 operands must both be
// K-major, no transpose operands), "cp.async.bulk" (the non-tensor bulk copy, .mbarrier::complete_tx::bytes).
#include <cuda_fp8.h>

#include <cstdio>
#include <cstdlib>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/harness.h"  // SMEM_ALIGN
#include "common/mx_scale_layout.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/persistent_grid.h"
#include "common/scheduler.h"
#include "common/tma.h"
#include "common/wgmma.cuh"
#include "mxfp8/matmul_mxfp8.h"
#include "mxfp8/mx_promote.h"

namespace gemm {
namespace {

// ---- configuration ----
constexpr int BLOCK_M           = 128;                // two rows of consumer warpgroups x WGMMA_M
constexpr int BLOCK_N           = 128;                // partials + accumulator fit in registers (see below)
constexpr int BLOCK_K         = 128;                // K of one tile load: 128 bytes of fp8, 4 MX blocks
constexpr int WGMMA_M           = 64;                 // fixed for wgmma
constexpr int WGMMA_K         = 32;                 // fixed for fp8: 32 bytes of K per MMA = one MX block
constexpr int SLICE_K         = 128;                // one 128-byte slice of K: the width of a swizzle atom
constexpr int MX_BLOCKS         = BLOCK_K / MX_BLOCK_K;  // MX blocks (wgmmas, promotions) per K tile
constexpr int CLUSTER_SIZE    = 2;                  // CTAs per cluster, along M: they share the B tile
constexpr uint16_t CLUSTER_MASK = (1u << CLUSTER_SIZE) - 1;
constexpr int A_BOX_ROWS      = BLOCK_M;            // A's tile: one box
constexpr int B_BOX_ROWS      = BLOCK_N / CLUSTER_SIZE;  // B's tile: one box per CTA, multicast to both
constexpr uint32_t B_BOX_BYTES = B_BOX_ROWS * BLOCK_K;  // one CTA's half of B
constexpr int GROUP_M         = 16;                 // tile order: M tiles (8 cluster pairs) per group
constexpr int DECODER_WARP0   = 2;                  // producer warps 2 and 3 decode the scales
constexpr int DECODER_THREADS = 64;
// float4s of a block's column scales (of 8 for m64n128, 4 for m64n64) that each consumer thread loads one
// block ahead, with its 2 row scales; the rest are loaded during the promotion. Measured (H100, mx, 4096^3,
// same run): 2 ahead 0.495x cuBLAS, 4 ahead 0.503x; 8 spill. -DGEMM_MX_PREFETCH_SB4=0 loads only the row
// scales ahead.
#ifndef GEMM_MX_PREFETCH_SB4
#define GEMM_MX_PREFETCH_SB4 4
#endif
constexpr int PREFETCH_SB4 = GEMM_MX_PREFETCH_SB4 > 0 ? GEMM_MX_PREFETCH_SB4 : 1;
constexpr bool PREFETCH_ANY = GEMM_MX_PREFETCH_SB4 > 0;

// The two variants differ only in how the 128x128 tile is shared among consumer warpgroups:
//  mx:  2 warpgroups of 64 x 128 (m64n128k32): 2 consumer warps per scheduler, 232 registers each.
//  mx4: 4 warpgroups of 64 x 64 (m64n64k32), 2 along M x 2 along N: 4 consumer warps per scheduler, 112
//       registers each. Same work per element; twice the warps to hide the latency of the promotion's
//       loads and of each warp's FP32 issue (measured: docs/performance/mxfp8-mx-steps.md).
template <int WG_N>
struct Consumers {
  static constexpr int WGMMA_N       = WG_N;            // columns of C per consumer warpgroup
  static constexpr int WG_COLS       = BLOCK_N / WG_N;  // consumer warpgroups along N
  static constexpr int NUM_CONSUMERS = BLOCK_M / WGMMA_M * WG_COLS;
  static constexpr int NUM_THREADS   = 128 * (1 + NUM_CONSUMERS);  // + the producer warpgroup
  static constexpr int ACC_REGS      = WGMMA_M * WG_N / 128;       // fp32 per consumer thread: acc, each P
  // setmaxnreg moves registers inside the CTA's own allocation, which is fixed at launch: NUM_THREADS x the
  // per-thread count of __launch_bounds__(NUM_THREADS, 1) (65536 / NUM_THREADS rounded down to a multiple of
  // 8: 168 for 384 threads, 96 for 640), not the SM's 64K. An inc that the pool cannot grant blocks forever:
  // mx4 at 120 registers hung on the H100: by this arithmetic only two of its four consumer
  // warpgroups can get 120 (the hang report shows consumers of a CTA waiting for a stage that the producer,
  // waiting for the missing releases, never refills).
  static constexpr int LAUNCH_REGS   = 65536 / NUM_THREADS / 8 * 8;
  static constexpr int PRODUCER_REGS = NUM_CONSUMERS == 2 ? 40 : 32;    // after setmaxnreg.dec
  static constexpr int CONSUMER_REGS = NUM_CONSUMERS == 2 ? 232 : 112;  // after setmaxnreg.inc
  static_assert(WG_N == 128 || WG_N == 64, "wgmma wrappers here: m64n128k32 and m64n64k32");
  static_assert(PRODUCER_REGS % 8 == 0 && CONSUMER_REGS % 8 == 0 && PRODUCER_REGS >= 24 &&
                    CONSUMER_REGS <= 256,
                "setmaxnreg takes a multiple of 8 in 24..256");
  static_assert(128 * (PRODUCER_REGS + NUM_CONSUMERS * CONSUMER_REGS) <= NUM_THREADS * LAUNCH_REGS,
                "the warpgroups' registers after setmaxnreg must fit in the CTA's allocation at launch");
  // Two partial register sets (block b+1's MMA runs while block b is promoted) where they fit: mx. mx4 has
  // room for one (3 x 32 + scales + addresses spilled even at 120 registers).
  static constexpr bool TWO_PARTIALS = WG_N == 128;
  static_assert(CONSUMER_REGS >= (TWO_PARTIALS ? 3 : 2) * ACC_REGS + 32,
                "a consumer holds its accumulator and its partials, plus scales and addresses");
  static_assert(NUM_CONSUMERS <= 4, "at most 5 warpgroups (640 threads) with these register budgets");
};

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 1, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 1, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t DATA_STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;  // [A tile][B tile], 1024-B aligned
// Scales of one stage: the two raw 512-B tiles (bulk copies), then their fp32 decodings.
//  SFA_F32[block][row]                      block 0..3, row 0..127 of the CTA's tile
//  SFB_F32[block][q][SFB_Q_STRIDE]          q = column % 8 / 2, entry 2 * (column / 8) + column % 2: the 32
//                                           columns consumer thread t multiplies (8j + 2(t%4) + {0,1}) are
//                                           contiguous for q = t % 4; the stride of 36 floats puts the 4 q
//                                           rows on different banks.
constexpr int SFB_Q_STRIDE        = 36;
constexpr uint32_t SF_RAW_BYTES   = MX_SF_TILE_BYTES;  // 512: 128 rows x 4 blocks
constexpr uint32_t SFA_F32_BYTES  = MX_BLOCKS * BLOCK_M * 4;
constexpr uint32_t SFB_F32_BYTES  = MX_BLOCKS * 4 * SFB_Q_STRIDE * 4;
constexpr uint32_t SCALE_STAGE_BYTES = 2 * SF_RAW_BYTES + SFA_F32_BYTES + SFB_F32_BYTES;
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * DATA_STAGE_BYTES; }
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * DATA_STAGE_BYTES + A_TILE_BYTES; }
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES =
    int((SMEM_BUDGET - SMEM_ALIGN - 1024) / (DATA_STAGE_BYTES + SCALE_STAGE_BYTES));
constexpr uint32_t SCALES_OFFSET = NUM_STAGES * DATA_STAGE_BYTES;  // after the data ring
GEMM_HD constexpr uint32_t sfa_raw_offset(int s) { return SCALES_OFFSET + uint32_t(s) * SCALE_STAGE_BYTES; }
GEMM_HD constexpr uint32_t sfb_raw_offset(int s) { return sfa_raw_offset(s) + SF_RAW_BYTES; }
GEMM_HD constexpr uint32_t sfa_f32_offset(int s) { return sfa_raw_offset(s) + 2 * SF_RAW_BYTES; }
GEMM_HD constexpr uint32_t sfb_f32_offset(int s) { return sfa_f32_offset(s) + SFA_F32_BYTES; }
constexpr uint32_t SMEM_BYTES = NUM_STAGES * (DATA_STAGE_BYTES + SCALE_STAGE_BYTES) + SMEM_ALIGN;

static_assert(WGMMA_K == MX_BLOCK_K, "one fp8 wgmma k32 covers exactly one MX block: the promotion unit");
static_assert(MX_BLOCKS == 4, "the consumer loop is written out for 4 MX blocks per K tile (P0, P1, P0, P1)");
static_assert(BLOCK_M == MX_SF_TILE_ROWS && BLOCK_N == MX_SF_TILE_ROWS && MX_BLOCKS == MX_SF_TILE_COLS,
              "a K tile's scales of a 128-row tile are exactly one 512-byte tile of the blocked layout");
static_assert(BLOCK_M == 2 * WGMMA_M, "two rows of consumer warpgroups of 64 rows");
static_assert(BLOCK_K == SLICE_K, "one 128-byte swizzle row per tile row (B's halves are then contiguous)");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0 && (B_BOX_ROWS * 128) % 1024 == 0,
              "tiles and B's halves start on whole 1024-B swizzle atoms");
static_assert(SCALE_STAGE_BYTES % 16 == 0 && SF_RAW_BYTES % 16 == 0 && SCALES_OFFSET % 16 == 0,
              "bulk copies need 16-B aligned destinations and sizes; LDS.128 of the decoded scales too");
static_assert(SFB_Q_STRIDE >= 2 * (BLOCK_N / 8) && SFB_Q_STRIDE % 4 == 0, "a q row holds 32 floats, 16-B aligned");
static_assert(2 * MX_SF_TILE_BYTES / 4 == 4 * DECODER_THREADS, "each decoder thread decodes 4 words of scales");
static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
static_assert(GROUP_M % CLUSTER_SIZE == 0, "the tile order groups whole cluster pairs");
static_assert(SMEM_BYTES <= SMEM_BUDGET, "the ring must fit in the 227 KB of shared memory per block");

#if defined(GEMM_HAS_WGMMA)
// ---- the new PTX of this stage ----
// Bulk copy of `bytes` contiguous bytes from global to shared memory, completing as transaction bytes on
// `bar` (PTX ISA "cp.async.bulk"; cuda::ptx::cp_async_bulk). 16-B aligned addresses, size a multiple of 16.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          ptx::smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(ptx::smem_addr(bar))
      : "memory");
}

// P[64x128] = A[64x32] * B[128x32]^T, e4m3 from shared-memory descriptors, fp32 out: scale-d = 0, the
// partial of one MX block alone (PTX ISA "wgmma.mma_async", .e4m3: K-major operands, no transpose fields).
// Fragment: thread t of warp w holds rows 16w + t/4 and +8, columns 8j + 2(t%4) + {0,1}: P[4j + {0,1}] on
// the first row, P[4j + {2,3}] on the second.
__device__ __forceinline__ void mma_m64n128k32_e4m3(float (&d)[64], uint64_t a_desc, uint64_t b_desc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3\n\t"
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},\n\t"
      "%64, %65, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
        "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
        "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a_desc), "l"(b_desc), "r"(0u)
      : "memory");
}

// The same with N = 64: P[64x64], 32 fp32 per thread (columns 8j + 2(t%4) + {0,1}, j < 8).
__device__ __forceinline__ void mma_m64n64k32_e4m3(float (&d)[32], uint64_t a_desc, uint64_t b_desc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3\n\t"
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},\n\t"
      "%32, %33, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
        "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31])
      : "l"(a_desc), "l"(b_desc), "r"(0u)
      : "memory");
}
#endif  // GEMM_HAS_WGMMA

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines record each role's waits, issues, promotions and scale
// decodes (--trace); compiled out of the TRACE=false instantiation, which is the one checked and timed
// (common/profiler.cuh). Roles: 0 producer, 1 scale decoders, 2 + w consumer w.
template <bool TRACE, int WG_N>
__global__ void __launch_bounds__(Consumers<WG_N>::NUM_THREADS, 1)
    matmul_mxfp8_sm90_kernel(const __grid_constant__ CUtensorMap a_map,
                             const __grid_constant__ CUtensorMap b_map, const uint8_t* sfa,
                             const uint8_t* sfb, float* c, int m, int n, int k, TraceBuffer trace) {
#if defined(GEMM_HAS_WGMMA)
  using C               = Consumers<WG_N>;
  constexpr int WGMMA_N = C::WGMMA_N, NUM_CONSUMERS = C::NUM_CONSUMERS, ACC_REGS = C::ACC_REGS;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  auto a_smem   = [&](int s) { return smem + a_tile_offset(s); };
  auto b_smem   = [&](int s) { return smem + b_tile_offset(s); };
  auto sfa_raw  = [&](int s) { return smem + sfa_raw_offset(s); };
  auto sfb_raw  = [&](int s) { return smem + sfb_raw_offset(s); };
  auto sfa_f32  = [&](int s) { return reinterpret_cast<float*>(smem + sfa_f32_offset(s)); };
  auto sfb_f32  = [&](int s) { return reinterpret_cast<float*>(smem + sfb_f32_offset(s)); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];     // "full": data and raw scales of stage s have landed
  __shared__ uint64_t scale_ready_bar[NUM_STAGES];  // the decoders wrote stage s's fp32 scales
  __shared__ uint64_t mma_done_bar[NUM_STAGES];     // "empty": every consumer of the pair is done with s

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;  // 0: producer (and scale decoders); 1..: consumers
  // A 1-D grid of clusters along x (cluster dims 2 x 1), as v6: cluster blockIdx.x / 2 walks the grouped
  // schedule's units (256 x 128 pairs of tiles), the CTA of rank r takes M tile 2 * (the unit's pair row) + r:
  // a padding tile (t.valid false) where the number of M tiles is odd.
  const int cta_rank  = int(ptx::cluster_ctarank());
  const TileSchedule<ScheduleKind::Grouped> schedule(num_tiles(m, BLOCK_M), num_tiles(n, BLOCK_N),
                                                      int(gridDim.x) / CLUSTER_SIZE,
                                                      int(blockIdx.x) / CLUSTER_SIZE, CLUSTER_SIZE, cta_rank,
                                                      GROUP_M);
  const int role = warpgroup > 0 ? 1 + warpgroup : warp_id < DECODER_WARP0 ? 0 : 1;
  Profiler<TRACE> prof(trace, role,
                       /*records=*/warpgroup > 0 ? warp_id % 4 == 0 : warp_id % DECODER_WARP0 == 0);
  prof.begin(Ev::Setup);

  // ---- setup: the barriers by one thread ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], 1);  // this CTA's TMA thread (the peer's multicast adds bytes)
      ptx::mbarrier_init(&scale_ready_bar[s], DECODER_THREADS);
      // every consumer thread of this CTA, and every consumer warp of the peer (see release)
      ptx::mbarrier_init(&mma_done_bar[s], NUM_CONSUMERS * (128 + 4 * (CLUSTER_SIZE - 1)));
    }
    ptx::fence_mbarrier_init();
  }
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  prof.end(Ev::Setup);

  const int num_k_tiles = gemm::num_k_tiles(k, BLOCK_K);  // the last one may be short: zero-filled past K
  const int scale_cols  = k / MX_BLOCK_K;                 // MX blocks of a row: K / 32 (padded to 4 in memory)
  if (warpgroup == 0) {
    wg::setmaxnreg_dec<C::PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
      // ---- producer: one thread keeps the ring full, tile after tile: its A, its half of B (multicast),
      //      both scale tiles. The stage and its phase carry across tiles (v6). ----
      int stage = 0;
      uint32_t empty_phase = 1;  // passes at once on the first lap
      auto tiles = schedule;
      for (ScheduledTile t; tiles.next(t);) {
        const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N;
        // Boxes wholly outside the tensors are not issued (v6): this CTA's A and its scale tile unless it
        // is a padding tile (the blocked layout has no scale tile there either), each half of B that starts
        // below N. Both CTAs see the same n0, so they agree on the bytes of B that land in each.
        const bool load_a = m0 < m, load_b = n0 + cta_rank * B_BOX_ROWS < n;
        uint32_t bytes    = SF_RAW_BYTES + (load_a ? A_TILE_BYTES + SF_RAW_BYTES : 0);
        for (int j = 0; j < CLUSTER_SIZE; ++j) bytes += n0 + j * B_BOX_ROWS < n ? B_BOX_BYTES : 0;
        const uint8_t* sfa_rows = sfa + mx_scale_tile_offset(m0 / MX_SF_TILE_ROWS, 0, scale_cols);
        const uint8_t* sfb_rows = sfb + mx_scale_tile_offset(n0 / MX_SF_TILE_ROWS, 0, scale_cols);
        for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
          prof.begin(Ev::WaitEmpty);
          ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
          prof.end(Ev::WaitEmpty);
          prof.begin(Ev::IssueTma);
          ptx::mbarrier_arrive_expect_tx(&tma_full_bar[stage], bytes);
          const int k0 = k_tile * BLOCK_K;
          if (load_a) ptx::tma_load_2d(a_smem(stage), &a_map, &tma_full_bar[stage], k0, m0);
          if (load_b)
            ptx::tma_load_2d_multicast(b_smem(stage) + kmajor_row_offset(B_TILE, cta_rank * B_BOX_ROWS), &b_map,
                                       &tma_full_bar[stage], CLUSTER_MASK, k0, n0 + cta_rank * B_BOX_ROWS);
          // The 512-B tiles of K tile k_tile: consecutive along K inside a 128-row block of the layout.
          if (load_a)
            bulk_load(sfa_raw(stage), sfa_rows + size_t(k_tile) * MX_SF_TILE_BYTES, SF_RAW_BYTES,
                      &tma_full_bar[stage]);
          bulk_load(sfb_raw(stage), sfb_rows + size_t(k_tile) * MX_SF_TILE_BYTES, SF_RAW_BYTES,
                    &tma_full_bar[stage]);
          prof.end(Ev::IssueTma);
          if (++stage == NUM_STAGES) {
            stage = 0;
            empty_phase ^= 1;
          }
        }
      }
    } else if (warp_id >= DECODER_WARP0) {
      // ---- scale decoders: e8m0 bytes -> fp32, once per stage, where the consumers read them ----
      // Word w (0..127) of a raw tile holds the 4 blocks' scales of row w / 4 + 32 * (w % 4) (the layout's
      // (r % 32) * 16 + (r / 32) * 4 + block). Thread i decodes words i and i + 64 of each tile. The blocks
      // past K of a short last K tile decode to 0.0f whatever their padding bytes hold: their data is TMA's
      // zero fill, and 0 * NaN (a 0xFF byte) would be NaN in a real output.
      const int i = threadIdx.x - DECODER_WARP0 * 32;
      int stage = 0;
      uint32_t full_phase = 0;
      const int stages_to_decode = schedule.num_turns() * num_k_tiles;  // every K tile of every tile, in order
      for (int i_stage = 0; i_stage < stages_to_decode; ++i_stage) {
        prof.begin(Ev::WaitFull);
        ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar (decoder)");
        prof.end(Ev::WaitFull);
        prof.begin(Ev::Decode);
        const uint32_t* a_words = reinterpret_cast<const uint32_t*>(sfa_raw(stage));
        const uint32_t* b_words = reinterpret_cast<const uint32_t*>(sfb_raw(stage));
        const int blocks_left   = scale_cols - (i_stage % num_k_tiles) * MX_BLOCKS;  // MX blocks up to K
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int w = i + h * DECODER_THREADS, row = w / 4 + 32 * (w % 4);
          const uint32_t wa = a_words[w], wb = b_words[w];
          const int q = (row % 8) / 2, entry = 2 * (row / 8) + row % 2;  // B: row is a column of C
#pragma unroll
          for (int b = 0; b < MX_BLOCKS; ++b) {
            const bool inside = b < blocks_left;
            sfa_f32(stage)[b * BLOCK_M + row] = inside ? e8m0_to_float((wa >> (8 * b)) & 0xFFu) : 0.0f;
            sfb_f32(stage)[(b * 4 + q) * SFB_Q_STRIDE + entry] =
                inside ? e8m0_to_float((wb >> (8 * b)) & 0xFFu) : 0.0f;
          }
        }
        ptx::mbarrier_arrive(&scale_ready_bar[stage]);  // release: the consumers' acquire sees the floats
        prof.end(Ev::Decode);
        if (++stage == NUM_STAGES) {
          stage = 0;
          full_phase ^= 1;
        }
      }
    }
    __syncwarp();
    ptx::barrier_cluster_arrive();
  } else {
    // ---- consumers: warpgroup 1 + w multiplies rows 64 (w % 2) + [0, 64) and columns
    //      WGMMA_N (w / 2) + [0, WGMMA_N) of the tile ----
    wg::setmaxnreg_inc<C::CONSUMER_REGS>();
    const int consumer = warpgroup - 1;
    const int wg_row = (consumer % 2) * WGMMA_M, wg_col = (consumer / 2) * WGMMA_N;
    const int row0 = wg_row + (warp_id % 4) * 16 + lane / 4;  // and row0 + 8, in the tile
    const int q    = lane % 4;                                // columns wg_col + 8j + 2q + {0, 1}
    float acc[ACC_REGS], part0[ACC_REGS], part1[C::TWO_PARTIALS ? ACC_REGS : 1];

    // issue: the partial of MX block `b` of stage `s` into p (scale-d 0), as its own commit group. Returns
    // when it was issued (trace; 0 untraced).
    auto issue = [&](auto& p, int s, int b) {
      const uint64_t issued = prof.begin(Ev::IssueMma);
      wg::fence();  // p was read by the last promotion: order those reads before the MMA overwrites p
      const uint64_t a_desc = kmajor_desc_sm90(A_TILE, ptx::smem_addr(a_smem(s)), b, wg_row);
      const uint64_t b_desc = kmajor_desc_sm90(B_TILE, ptx::smem_addr(b_smem(s)), b, wg_col);
      if constexpr (WGMMA_N == 128)
        mma_m64n128k32_e4m3(p, a_desc, b_desc);
      else
        mma_m64n64k32_e4m3(p, a_desc, b_desc);
      wg::commit_group();
      prof.end(Ev::IssueMma);
      return issued;
    };
    // trace: the wait_group that began with prof.begin(Ev::WaitMma) saw the group issued at `issued` done
    auto mma_done = [&](uint64_t issued) {
      prof.end(Ev::WaitMma);
      prof.span(Ev::Mma, issued);
    };
    // The scales of MX block `b` of stage `s` that this thread multiplies: its two row scales, and the first
    // PF float4s of its column scales. Loaded one block ahead, before the previous block's promotion (they
    // are ready since the stage's scale_ready wait), so that a promotion does not start with a shared load.
    constexpr int SB4 = WGMMA_N / 16;                             // float4s of column scales per block
    constexpr int PF  = PREFETCH_SB4 < SB4 ? PREFETCH_SB4 : SB4;  // of which loaded ahead
    struct Scales {
      float sa0, sa1;
      float4 sb[PF];
    };
    auto sb4_of = [&](int s, int b) {  // this warpgroup's columns start at entry 2 * wg_col / 8 of each q row
      return reinterpret_cast<const float4*>(sfb_f32(s) + (b * 4 + q) * SFB_Q_STRIDE + wg_col / 4);
    };
    auto load_scales = [&](int s, int b) {
      Scales sc;
      const float* sa = sfa_f32(s) + b * BLOCK_M;
      sc.sa0 = sa[row0];
      sc.sa1 = sa[row0 + 8];
#pragma unroll
      for (int i = 0; i < (PREFETCH_ANY ? PF : 0); ++i) sc.sb[i] = sb4_of(s, b)[i];
      return sc;
    };
    // promote: acc += P * sa[row] * sb[col] for MX block `b` of stage `s` (its MMA group has completed)
    auto promote = [&](auto& p, int s, int b, const Scales& sc) {
      prof.begin(Ev::Promote);
      wg::fence_operands(p);  // the wait_group before this is where p became valid
      const float sa0 = sc.sa0, sa1 = sc.sa1;
      const float4* sb4 = sb4_of(s, b);
#pragma unroll
      for (int i = 0; i < WGMMA_N / 16; ++i) {  // columns 8j + 2q + {0,1} for j = 2i, 2i + 1
        const float4 sb = PREFETCH_ANY && i < PF ? sc.sb[i < PF ? i : 0] : sb4[i];
        float* a        = acc + 8 * i;
        const float* pp = p + 8 * i;
        a[0] = mx_promote(a[0], pp[0], sa0, sb.x);
        a[1] = mx_promote(a[1], pp[1], sa0, sb.y);
        a[2] = mx_promote(a[2], pp[2], sa1, sb.x);
        a[3] = mx_promote(a[3], pp[3], sa1, sb.y);
        a[4] = mx_promote(a[4], pp[4], sa0, sb.z);
        a[5] = mx_promote(a[5], pp[5], sa0, sb.w);
        a[6] = mx_promote(a[6], pp[6], sa1, sb.z);
        a[7] = mx_promote(a[7], pp[7], sa1, sb.w);
      }
      prof.end(Ev::Promote);
    };
    // release: this warp no longer reads stage s (MMAs waited for, scales loaded and used), to both CTAs,
    // since both multicast into it. In its own CTA every lane arrives for its own loads of the decoded scales
    // (a release each: the decoders overwrite the stage only after the producer's wait on this barrier, and
    // the refill that follows it); in the peer, which only needs to know that its multicast may land, one
    // lane per warp arrives (relaxed, as in v5). Measured no slower than one arrival per warp. Two earlier
    // forms were reported by compute-sanitizer racecheck (2048x1152x512, once the ring wraps): one arrival
    // per warpgroup, which ordered only warp 0's loads before it (a real gap), and one lane per warp after a
    // __syncwarp (docs/performance/mxfp8-mx-steps.md, "Releasing a stage: one arrival per thread").
    auto release = [&](int s) {
      ptx::mbarrier_arrive(&mma_done_bar[s]);
      __syncwarp();
      if (ptx::elect_one_sync())
        for (int peer = 0; peer < CLUSTER_SIZE; ++peer)
          if (peer != cta_rank)
            ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&mma_done_bar[s], uint32_t(peer)));
    };

    int stage = 0;              // carried across tiles, as the producer's
    uint32_t full_phase = 0;
    auto tiles = schedule;
    for (ScheduledTile t; tiles.next(t);) {
      const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N;
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) acc[i] = 0.0f;
      for (int k_tile = 0; k_tile < num_k_tiles; ++k_tile) {
        prof.begin(Ev::WaitFull);
        ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar");
        ptx::mbarrier_wait(&scale_ready_bar[stage], full_phase, "scale_ready_bar");
        prof.end(Ev::WaitFull);
        if constexpr (C::TWO_PARTIALS) {
          // Block b + 1's MMA is issued, then block b is promoted while it runs: P0 and P1 alternate. Nothing
          // is in flight across the K-tile boundary: ptxas serializes every wgmma (warning C7514) when one
          // whose group is still pending crosses the loop's back edge while the other partial is read.
          // The scales of block b + 1 are loaded before block b is promoted: a whole promotion to land.
          const Scales sc0 = load_scales(stage, 0);
          uint64_t t0 = issue(part0, stage, 0), t1 = issue(part1, stage, 1);
          prof.begin(Ev::WaitMma);
          wg::wait_group<1>();  // block 0 done, block 1 may still run
          mma_done(t0);
          const Scales sc1 = load_scales(stage, 1);
          promote(part0, stage, 0, sc0);
          t0 = issue(part0, stage, 2);
          prof.begin(Ev::WaitMma);
          wg::wait_group<1>();
          mma_done(t1);
          const Scales sc2 = load_scales(stage, 2);
          promote(part1, stage, 1, sc1);
          t1 = issue(part1, stage, 3);
          prof.begin(Ev::WaitMma);
          wg::wait_group<1>();
          mma_done(t0);
          const Scales sc3 = load_scales(stage, 3);
          promote(part0, stage, 2, sc2);
          prof.begin(Ev::WaitMma);
          wg::wait_group<0>();
          mma_done(t1);
          promote(part1, stage, 3, sc3);
        } else {
          // One partial: each block's MMA is waited for, then promoted; the other 3 consumer warps of the
          // scheduler keep the FP32 pipe and the tensor core busy meanwhile.
          Scales sc = load_scales(stage, 0);
#pragma unroll
          for (int b = 0; b < MX_BLOCKS; ++b) {
            const uint64_t t = issue(part0, stage, b);
            prof.begin(Ev::WaitMma);
            wg::wait_group<0>();
            mma_done(t);
            const Scales next = load_scales(stage, b + 1 < MX_BLOCKS ? b + 1 : b);  // block b + 1's, ahead
            promote(part0, stage, b, sc);
            sc = next;
          }
        }
        release(stage);
        if (++stage == NUM_STAGES) {
          stage = 0;
          full_phase ^= 1;
        }
      }
      if (!t.valid) continue;  // a padding tile stores nothing (its MMAs ran on whatever its A stages held)
      prof.begin(Ev::Epilogue);

      // ---- epilogue: fp32 straight from the accumulators; a warp's store of one j is 8 rows x 32 B. The
      //      stores are not waited for: the next tile's MMAs start at once (its stages are already loading),
      //      and the stores drain meanwhile, the overlap v6 gets from its TMA store. Clipped to C: a pair
      //      (8 bytes) where N is even (then col < N implies col + 1 < N), one float at a time where it is
      //      odd (a row then starts only 4-byte aligned). ----
      const int row = m0 + row0;
      const bool pairs = n % 2 == 0;
#pragma unroll
      for (int j = 0; j < WGMMA_N / 8; ++j) {
        const int col = n0 + wg_col + 8 * j + 2 * q;
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows row and row + 8
          const int r = row + 8 * h;
          float* dst  = c + size_t(r) * n + col;
          if (r >= m || col >= n) continue;
          if (pairs) {
            *reinterpret_cast<float2*>(dst) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
          } else {
            dst[0] = acc[4 * j + 2 * h];
            if (col + 1 < n) dst[1] = acc[4 * j + 2 * h + 1];
          }
        }
      }
      prof.end(Ev::Epilogue);
    }
    ptx::barrier_cluster_arrive();
  }

  // ---- teardown: no CTA exits while its peer may still arrive on its barriers or write into its ring ----
  prof.begin(Ev::Teardown);
  ptx::barrier_cluster_wait();
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

}  // namespace

// ---- host side ----
std::string mxfp8_sm90_check_shape(int64_t m, int64_t n, int64_t k) {
  const struct {
    const char* name;
    int64_t v;
  } dims[] = {{"M", m}, {"N", n}, {"K", k}};
  for (const auto& d : dims)
    if (d.v < 1) return std::string(d.name) + "=" + std::to_string(d.v) + " is below 1 (M, N and K must be >= 1)";
  // Any M and N (TMA zero-fills the edges, the epilogue clips); K in whole MX blocks, which also makes an
  // e4m3 row a valid TMA stride (a multiple of 16 bytes).
  if (k % MX_BLOCK_K != 0)
    return "K=" + std::to_string(k) + " is not a multiple of 32 (MXFP8 has one scale per 32 elements of K; try K=" +
           std::to_string(nearest_multiple(k, MX_BLOCK_K)) + ")";
  if (m > (int64_t(1) << 31) / 2 || n > (int64_t(1) << 30) || k > (int64_t(1) << 30))
    return "M, N, K must stay below 2^30 (32-bit indices in the kernel)";
  return "";
}

std::string mxfp8_sm90_check_args(const MxGemmArgs& g) {
  std::string why = mxfp8_sm90_check_shape(g.m, g.n, g.k);
  if (!why.empty()) return why;
  if (!g.a || !g.sfa || !g.b || !g.sfb || !g.c) return "a data, scale or output pointer is null";
  auto size_line = [](const char* what, uint64_t got, uint64_t want) {
    return std::string(what) + " has " + std::to_string(got) + " bytes; the shape needs " + std::to_string(want);
  };
  const uint64_t a_want = uint64_t(g.m) * uint64_t(g.k), b_want = uint64_t(g.n) * uint64_t(g.k);
  const uint64_t sfa_want = mx_scale_bytes(int(g.m), mx_scale_cols(int(g.k)));
  const uint64_t sfb_want = mx_scale_bytes(int(g.n), mx_scale_cols(int(g.k)));
  const uint64_t c_want   = uint64_t(g.m) * uint64_t(g.n) * 4;
  if (g.a_bytes != a_want) return size_line("A's e4m3 data", g.a_bytes, a_want);
  if (g.b_bytes != b_want) return size_line("B's e4m3 data", g.b_bytes, b_want);
  if (g.sfa_bytes != sfa_want) return size_line("A's scales (blocked layout)", g.sfa_bytes, sfa_want);
  if (g.sfb_bytes != sfb_want) return size_line("B's scales (blocked layout)", g.sfb_bytes, sfb_want);
  if (g.c_bytes != c_want) return size_line("C (fp32)", g.c_bytes, c_want);
  if (reinterpret_cast<uintptr_t>(g.sfa) % 16 || reinterpret_cast<uintptr_t>(g.sfb) % 16)
    return "scale buffers must be 16-byte aligned (bulk copies)";
  return "";
}

namespace {

// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
template <int WG_N>
Launch prepare_mxfp8_sm90(const MxGemmArgs& g, DeviceTrace* trace) {
  using C               = Consumers<WG_N>;
  const std::string why = mxfp8_sm90_check_args(g);
  if (!why.empty()) {
    std::fprintf(stderr, "prepare_mxfp8_sm90: %s\n", why.c_str());
    std::exit(EXIT_BAD_INPUT);
  }
  // 2D maps (v6): K extent = K, so the box of a short last K tile is zero-filled past K; rows past M or N too.
  const TmaDesc a_desc = kmajor_tma_2d(g.m, g.k, A_BOX_ROWS, BLOCK_K, 1, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_2d(g.n, g.k, B_BOX_ROWS, BLOCK_K, 1, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A (e4m3)");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B (e4m3)");
  auto* kernel = trace ? matmul_mxfp8_sm90_kernel<true, WG_N> : matmul_mxfp8_sm90_kernel<false, WG_N>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  // The persistent grid (v6; common/persistent_grid.h): every 2-CTA cluster that can be resident at once,
  // never more than there are 256 x 128 pairs of tiles. A 1-D grid of clusters along x.
  const int tiles_m = num_tiles(g.m, BLOCK_M), tiles_n = num_tiles(g.n, BLOCK_N);
  PersistentGrid grid =
      persistent_grid(kernel, C::NUM_THREADS, SMEM_BYTES, CLUSTER_SIZE, tiles_m, tiles_n, "mxfp8 (sm_90a)");
  // --trace: per CTA and role, setup, per tile and K tile at most 1 + 4 x 4 events (a consumer's wait, and
  // per MX block issue, wait, MMA in flight, promotion), per tile an epilogue, teardown
  TraceBuffer buf;
  if (trace) {
    std::vector<std::string> roles = {"producer", "scale decoders"};
    for (int w = 0; w < C::NUM_CONSUMERS; ++w) roles.push_back("consumer " + std::to_string(w));
    const int turns =
        TileSchedule<ScheduleKind::Grouped>(tiles_m, tiles_n, grid.clusters, 0, CLUSTER_SIZE, 0, GROUP_M)
            .num_turns();
    buf = trace->allocate(grid.cfg.gridDim.x, roles,
                          uint32_t(turns) * (uint32_t(1 + 4 * MX_BLOCKS) * uint32_t(num_k_tiles(g.k, BLOCK_K)) + 2) + 8);
  }
  const auto* sfa = static_cast<const uint8_t*>(g.sfa);
  const auto* sfb = static_cast<const uint8_t*>(g.sfb);
  float* c        = g.c;
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  return [=](cudaStream_t stream) mutable { grid.launch(stream, kernel, a_map, b_map, sfa, sfb, c, m, n, k, buf); };
}
template <int WG_N>
Launch prepare_plain(const MxGemmArgs& g) {
  return prepare_mxfp8_sm90<WG_N>(g, nullptr);
}
template <int WG_N>
Launch prepare_traced(const MxGemmArgs& g, DeviceTrace& trace) {
  return prepare_mxfp8_sm90<WG_N>(g, &trace);
}

}  // namespace

std::vector<MxVariant> mxfp8_sm90_variants() {
  return {
      {"mx", "fp8 wgmma m64n128k32, 2 consumer WGs, promoted",
       "sm_90a fp8 wgmma, promoted per MX block: 2 consumer warpgroups of m64n128k32 "
       "(mxfp8/matmul_mxfp8_sm90.cu)",
       prepare_plain<128>, prepare_traced<128>},
      {"mx4", "fp8 wgmma m64n64k32, 4 consumer WGs, promoted",
       "sm_90a fp8 wgmma, promoted per MX block: 4 consumer warpgroups of m64n64k32 "
       "(mxfp8/matmul_mxfp8_sm90.cu)",
       prepare_plain<64>, prepare_traced<64>},
  };
}

}  // namespace gemm
