// matmul_bw_sm90.cu: blockwise-scaled FP8 on Hopper (sm_90a), the granularity Hopper can afford: e4m3 x e4m3
// with one fp32 scale per 1x128 block of A (a row, 128 elements of K) and per 128x128 block of B, bf16 out
// (DeepSeek-V3's recipe; cuBLASLt's VEC128_32F x BLK128x128_32F).
//
// C[M,N] = dequant(A)[M,K] * dequant(B)[N,K]^T, fp32 accumulation, bf16 output, both operands K-major, data
// and scales exactly as the quantizer writes them (mxfp8/bw_quant.h; layouts in mxfp8/bw_scale_layout.h).
//
// What changed since the MX kernel (matmul_mxfp8_sm90.cu, `mx`): the granularity. MX scales every 32 of K, so
// each fp8 wgmma k32 is promoted on its own: 2 FP32 instructions per accumulator element per 32 of K, which
// caps `mx` at about the bf16 peak. Here a scale covers 128 of K:
//  1. Four wgmma k32 accumulate into one partial P (scale-d 0 on the first, 1 after): the tensor core sums
//     the whole 128-wide block itself.
//  2. One promotion per 128 of K: acc = fma(P, sa[row] * sb, acc). sb is one value for the whole 128x128
//     tile of B (BLOCK_N = 128 = the B scale block), sa one per row: per thread 2 FMULs (its 2 rows) and one
//     FFMA per accumulator element, a quarter of an instruction per element per 32 of K instead of 2: 8x
//     less promotion work, and the tensor core, not the FP32 pipe, is the bound again.
//  3. No scale decoders: the scales are fp32 already. A's 128 row scales of a K tile are 512 contiguous
//     bytes (VEC128: rows contiguous per K block) and come by TMA (a 2D map over [L, M] floats, zero-filled
//     past M); B's one scale comes with its aligned group of 4 floats (BLK128x128: K blocks contiguous per
//     128-row block, columns padded to 4), one 16-byte bulk copy. Both land on the stage's full barrier.
//  4. Two partials, ping-ponged: K tile i + 1's four wgmmas (into P1) are issued before K tile i (in P0) is
//     waited for and promoted, so a warpgroup's own MMAs run under its promotion, not only the other
//     warpgroup's (wait_group 1, not 0). The K loop's body is two K tiles, so that each partial is a fixed
//     register set; one group stays in flight across the back edge, and a tile's last K tiles drain both.
//     acc 64 + P0 64 + P1 64 registers per thread (232 after setmaxnreg; no spill in the timed kernel).
//     The stage is released as soon as its wgmmas are done (the scales are in registers by then), before
//     the promotion: the producer and the peer CTA refill it meanwhile (measured +15-20%:
//     docs/performance/mxfp8-bw-steps.md). The wgmma descriptors are built once; a stage and a K step add
//     to the start-address field only.
//     GEMM_BW_PARTIALS=1 builds the one-partial loop (each K tile waited for with wait_group 0, then
//     promoted), kept for the paired comparison: two partials measured 4-7% faster (the same page).
//  5. The K loop's bookkeeping on the uniform datapath: the stage and phase from one counter of K tiles,
//     the warpgroup's index through a shuffle from lane 0, and no branch in the loop (the peer's release
//     elected inside one asm). ptxas then keeps the stage, the barrier addresses and the wgmma descriptors in
//     uniform registers instead of moving them there before every wgmma: 310 -> 246 instructions per two K
//     tiles (docs/performance/mxfp8-bw-k-loop.md).
//  6. bf16 output through v6's epilogue: stmatrix into a 128B-swizzled buffer, fence.proxy.async, a TMA store
//     per 64-column box, overlapping the next tile (predicated st.global where N % 8 != 0). cuBLASLt's
//     blockwise FP8 GEMM writes bf16 too: the pairing is like for like.
// Kept from `mx`: persistent 2-CTA clusters along M sharing B by multicast, the grouped order, the ring
// carried across tiles, any M and N (v6's 2D maps, zero fill, skipped outside boxes, the padding tile).
// At M <= 128 `bw` runs another kernel, mxfp8/bw_decode_sm90.cuh: v8's decode tile (B's rows on the MMA's M
// side, A's in row groups of 16-64, K split) with this kernel's promotion turned around (bw_decode_pick),
// but at 65-128 rows where its two groups' units outnumber the SMs, or leave it a K longer than 8192 that it
// cannot split: there this kernel runs with its clusters along N (ALONG_N), two N tiles sharing the one M
// tile's A by multicast, where clusters along M would pair that tile with a padding tile, and K split where
// the pairs leave clusters idle; four N tiles (CLUSTER 4, each CTA a quarter of A) where they make more than
// a wave of such quads (bw_along_n_quads). On an H200 (docs/performance/mxfp8-bw-decode.md): 0.88-0.94x of cuBLASLt
// against 0.63-0.68x for the decode kernel at 100-128 rows and N >= 10240; 0.99-1.00x against 0.69-0.72x at
// 128 x 8192 x 28672.
// The shape rule: K % 16 only (the 16-byte e4m3 row TMA needs; the quantizer's rule too). A short last
// 128-block is zero-filled past K by TMA and scaled by its own scale. No padding float of either scale
// tensor is read for a stored output: A's map ends at M (the rows after are TMA zeros), and B's group of 4
// is read only at its real K block.
//
// The bound: per accumulator element and 128 of K the tensor core does 128 MACs (1/32 clock at 4096 fp8
// MACs per clock per SM) and the CUDA cores 1 FFMA (1/128 clock): the fp8 tensor peak is the ceiling again.
// Measured on the H100 (docs/performance/mxfp8-bw-steps.md, "Do the figures repeat?"): 0.998-1.006x
// cuBLASLt's blockwise FP8 GEMM at 4096^3 and 0.988-0.991x at 8192^3 (five runs each), 1.55-1.70x cuBLAS
// bf16: at the 1.0x goal at 4096^3, 1% short at 8192^3; past the 1.5x one. The last 16-18% came from the K
// loop's bookkeeping moving to the uniform datapath (5 above).
//
// PTX ISA sections: as matmul_mxfp8_sm90.cu, plus v6's "cp.async.bulk.tensor" store, "stmatrix",
// "fence.proxy.async" and named barriers.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/fixup.cuh"
#include "common/fixup_memory.h"
#include "common/gpu.h"  // sm_count
#include "common/harness.h"  // SMEM_ALIGN
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/persistent_grid.h"
#include "common/scheduler.h"
#include "common/split_k.h"
#include "common/tma.h"
#include "common/wgmma.cuh"
#include "mxfp8/bw_scale_layout.h"
#include "mxfp8/matmul_bw.h"

// GEMM_BW_ORDERED=1: the two consumer warpgroups take turns to issue their K tiles' wgmmas (named barriers), so
// that one's promotion runs under the other's MMAs. Measured 4% slower than without
// (docs/performance/mxfp8-bw-steps.md); 0 is the default.
#ifndef GEMM_BW_ORDERED
#define GEMM_BW_ORDERED 0
#endif
// GEMM_BW_PARTIALS: 2 (the default) ping-pongs two partials, so that a warpgroup's next K tile's wgmmas run
// under its promotion; 1 is the one-partial loop, kept for the paired comparison (docs/performance/
// mxfp8-bw-steps.md).
#ifndef GEMM_BW_PARTIALS
#define GEMM_BW_PARTIALS 2
#endif


namespace gemm {
namespace {

// ---- configuration ----
constexpr int NUM_CONSUMERS   = 2;                  // consumer warpgroups, one per 64 rows of the tile
constexpr int BLOCK_M         = 64 * NUM_CONSUMERS;  // two rows of consumer warpgroups x WGMMA_M
constexpr int BLOCK_N         = 128;                // one 128x128 scale block of B: one sb per K tile
constexpr int BLOCK_K         = 128;                // K of one tile load: 128 bytes of fp8, one scale block
constexpr int WGMMA_M         = 64;                 // fixed for wgmma
constexpr int WGMMA_N         = 128;                // columns of C per consumer warpgroup
constexpr int WGMMA_K         = 32;                 // fixed for fp8: 32 bytes of K per MMA
constexpr int K_STEPS         = BLOCK_K / WGMMA_K;  // wgmmas per K tile, accumulated into one partial
constexpr int NUM_THREADS     = 128 * (1 + NUM_CONSUMERS);  // + the producer warpgroup
constexpr int ACC_REGS        = WGMMA_M * WGMMA_N / 128;    // fp32 per consumer thread: acc, and P
constexpr int PRODUCER_REGS   = 40;                 // after setmaxnreg.dec
constexpr int CONSUMER_REGS   = 232;                // after setmaxnreg.inc
constexpr int CLUSTER_SIZE    = 2;  // CTAs per cluster, along M sharing B's tile (or along N sharing A's; or 4)
constexpr int A_BOX_ROWS      = BLOCK_M;            // A's tile: one box
constexpr int B_BOX_ROWS      = BLOCK_N / CLUSTER_SIZE;  // B's tile: one box per CTA, multicast to both
constexpr uint32_t B_BOX_BYTES = B_BOX_ROWS * BLOCK_K;   // one CTA's half of B
// Along N (M <= 128, one tile row: bw_decode_pick) the roles swap: A's tile in halves (or quarters, in clusters
// of four: the kernel's CLUSTER), multicast, B's whole.
constexpr int GROUP_M         = 16;                 // tile order: M tiles (8 cluster pairs) per group
constexpr int C_BOX_COLS      = 64;                 // columns of a TMA store box: 128 B of bf16, one swizzle span
constexpr int C_BOXES         = WGMMA_N / C_BOX_COLS;  // TMA store boxes per warpgroup and tile
constexpr bool ORDERED        = GEMM_BW_ORDERED != 0;  // the turns: with one partial only
constexpr int PARTIALS        = GEMM_BW_PARTIALS;    // fp32 partial register sets per consumer thread
constexpr int ISSUED_BAR      = 1 + NUM_CONSUMERS;  // named barrier ISSUED_BAR + w: "consumer w has issued"

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 1, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N, BLOCK_K, 1, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES     = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES     = kmajor_tile_bytes(B_TILE);
constexpr uint32_t DATA_STAGE_BYTES = A_TILE_BYTES + B_TILE_BYTES;  // [A tile][B tile], 1024-B aligned
// Scales of one stage, after the data ring: A's 128 row scales (a TMA box: 128-B aligned), then B's aligned
// group of 4 (a bulk copy: 16-B aligned), the one of this K tile at index k_tile % 4.
constexpr uint32_t SFA_BYTES         = BLOCK_M * 4;
constexpr uint32_t SFB_GROUP         = BW_LD_ALIGN;  // floats in one 16-byte group of B's scale column
constexpr uint32_t SFB_BYTES         = SFB_GROUP * 4;
constexpr uint32_t SCALE_STAGE_BYTES = SFA_BYTES + 128;  // SFA, then SFB in a 128-byte slot
// C staging, per consumer warpgroup: C_BOXES boxes of WGMMA_M rows x 128 B, each in the 128-byte swizzle (v6)
constexpr uint32_t C_BOX_BYTES = WGMMA_M * C_BOX_COLS * 2;
constexpr uint32_t C_WG_BYTES  = C_BOXES * C_BOX_BYTES;
constexpr uint32_t C_BYTES     = NUM_CONSUMERS * C_WG_BYTES;
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * DATA_STAGE_BYTES; }
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * DATA_STAGE_BYTES + A_TILE_BYTES; }
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES =
    int((SMEM_BUDGET - C_BYTES - SMEM_ALIGN - 1024) / (DATA_STAGE_BYTES + SCALE_STAGE_BYTES));
constexpr uint32_t C_OFFSET      = NUM_STAGES * DATA_STAGE_BYTES;  // the C buffer, after the data ring
constexpr uint32_t SCALES_OFFSET = C_OFFSET + C_BYTES;             // then the scales
GEMM_HD constexpr uint32_t sfa_offset(int s) { return SCALES_OFFSET + uint32_t(s) * SCALE_STAGE_BYTES; }
GEMM_HD constexpr uint32_t sfb_offset(int s) { return sfa_offset(s) + SFA_BYTES; }
constexpr uint32_t SMEM_BYTES = NUM_STAGES * (DATA_STAGE_BYTES + SCALE_STAGE_BYTES) + C_BYTES + SMEM_ALIGN;

static_assert(BLOCK_N == BW_BLOCK, "one B scale per K tile: the CTA's N tile is exactly one 128-row block of B");
static_assert(BLOCK_K == BW_BLOCK, "one K tile is one scale block along K: one promotion per K tile");
static_assert(BLOCK_M == NUM_CONSUMERS * WGMMA_M && NUM_CONSUMERS == 2, "two rows of consumer warpgroups");
static_assert(K_STEPS == 4, "4 fp8 wgmma k32 per 128 of K, accumulated into one partial");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0 && B_BOX_BYTES % 1024 == 0,
              "tiles and their halves start on whole 1024-B swizzle atoms");
static_assert(C_OFFSET % 1024 == 0 && C_BOX_BYTES % 1024 == 0, "each C box starts on a 1024-B swizzle atom");
static_assert(SCALES_OFFSET % 128 == 0 && SCALE_STAGE_BYTES % 128 == 0 && SFA_BYTES % 128 == 0,
              "TMA destinations 128-B aligned, bulk copies 16-B aligned");
static_assert(PRODUCER_REGS % 8 == 0 && CONSUMER_REGS % 8 == 0 && PRODUCER_REGS >= 24 && CONSUMER_REGS <= 256,
              "setmaxnreg takes a multiple of 8 in 24..256");
static_assert(128 * (PRODUCER_REGS + NUM_CONSUMERS * CONSUMER_REGS) <= NUM_THREADS * (65536 / NUM_THREADS / 8 * 8),
              "registers after setmaxnreg must fit the CTA's launch allocation (384 x 168 = 64512)");
static_assert(PARTIALS == 1 || PARTIALS == 2, "one partial, or two ping-ponged");
static_assert(!ORDERED || PARTIALS == 1, "the turns are a variant of the one-partial loop");
static_assert(CONSUMER_REGS >= (1 + PARTIALS) * ACC_REGS + 32,
              "a consumer holds its accumulator and its partials, plus addresses");
static_assert(NUM_STAGES * DATA_STAGE_BYTES + SMEM_ALIGN <= 256 * 1024,
              "a wgmma descriptor's start address (bits 0-13, address >> 4) never carries out when offset");
static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
static_assert(GROUP_M % CLUSTER_SIZE == 0, "the tile order groups whole cluster pairs");
static_assert(ISSUED_BAR + NUM_CONSUMERS <= 16, "named barriers: 1..NUM_CONSUMERS for the C buffers, then the turns");
static_assert(SMEM_BYTES + 1024 <= SMEM_BUDGET, "the ring, C buffer and scales must fit in 227 KB per block");

// Byte offset, in a warpgroup's C buffer, of row `row` (0..63) and 8-column chunk `chunk` (0..15): box
// chunk / 8, and inside it the 128-byte swizzle (16-byte unit u of row r at u ^ (r % 8)), as v6.
GEMM_HD constexpr uint32_t c_smem_offset(int row, int chunk) {
  return uint32_t(chunk / 8) * C_BOX_BYTES + uint32_t(row) * 128 + uint32_t(((chunk % 8) ^ (row % 8)) * 16);
}

#if defined(GEMM_HAS_WGMMA)
// ---- PTX (as matmul_mxfp8_sm90.cu) ----
// Bulk copy of `bytes` contiguous bytes from global to shared memory, completing as transaction bytes on
// `bar` (PTX ISA "cp.async.bulk"). 16-B aligned addresses, size a multiple of 16.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          ptx::smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(ptx::smem_addr(bar))
      : "memory");
}

// P[64x128] (+)= A[64x32] * B[128x32]^T, e4m3 from shared-memory descriptors, fp32 accumulators; `accumulate`
// is scale-d (0: overwrite). Fragment: thread t of warp w holds rows 16w + t/4 and +8, columns
// 8j + 2(t%4) + {0,1}: P[4j + {0,1}] on the first row, P[4j + {2,3}] on the second.
__device__ __forceinline__ void mma_m64n128k32_e4m3(float (&d)[64], uint64_t a_desc, uint64_t b_desc,
                                                    uint32_t accumulate) {
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
      : "l"(a_desc), "l"(b_desc), "r"(accumulate)
      : "memory");
}

// Arrive on named barrier `id` (of `threads` threads) without waiting for it (PTX ISA "bar.arrive"): the
// producer side of a named barrier whose consumer side is bar.sync.
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}
#endif  // GEMM_HAS_WGMMA

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines (--trace); compiled out of the TRACE=false instantiation,
// which is the one checked and timed. Roles: 0 producer, 1 + w consumer w. c_tma: N % 8 == 0, C is stored
// through c_map; else with predicated st.global (v6). ALONG_N: the cluster's two CTAs take neighbouring N
// tiles of one M tile and share A's tile (each loads one half, multicast to both; a_map's box is half a
// tile, b_map's a whole one), for M <= 128, where a cluster along M would pair the one real M tile with a
// padding tile; the schedule runs over the transposed grid of tiles. Only the consumers' tile coordinates
// and the producer's boxes differ, and where the pairs leave clusters idle, K is split (split.splits > 1: a
// cluster per pair and split, each warpgroup's partial summed by the split that counts last, as the decode
// kernels' fixup, common/split_k.h). CLUSTER 4 (along N only): four N tiles, each CTA a quarter of A, and
// each stage released to three peers.
template <bool TRACE, bool ALONG_N = false, int CLUSTER = CLUSTER_SIZE>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_bw_sm90_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                          const __grid_constant__ CUtensorMap sfa_map, const __grid_constant__ CUtensorMap c_map,
                          const float* sfb, __nv_bfloat16* c, int m, int n, int k, bool c_tma,
                          SplitK split, float* workspace, uint32_t* counters, TraceBuffer trace) {
#if defined(GEMM_HAS_WGMMA)
  static_assert(CLUSTER == 2 || (ALONG_N && CLUSTER == 4), "pairs; along N, quads too");
  constexpr uint16_t MASK           = (1u << CLUSTER) - 1;
  constexpr int A_PART_ROWS         = BLOCK_M / CLUSTER;  // along N: this CTA's part of A, multicast to all
  constexpr uint32_t A_PART_BYTES   = A_PART_ROWS * BLOCK_K;
  static_assert(A_PART_BYTES % 1024 == 0, "A's parts start on whole 1024-B swizzle atoms");
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  auto a_smem   = [&](int s) { return smem + a_tile_offset(s); };
  auto b_smem   = [&](int s) { return smem + b_tile_offset(s); };
  auto sfa_smem = [&](int s) { return reinterpret_cast<float*>(smem + sfa_offset(s)); };
  auto sfb_smem = [&](int s) { return reinterpret_cast<float*>(smem + sfb_offset(s)); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full": data and scales of stage s have landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": every consumer of the pair is done with s
  __shared__ uint32_t last_split[NUM_CONSUMERS];  // along N with K split: this warpgroup's split counted last

  const int warp_id   = threadIdx.x / 32;
  const int lane      = threadIdx.x % 32;
  const int warpgroup = threadIdx.x / 128;  // 0: producer; 1, 2: consumers
  // A 1-D grid of clusters along x (cluster dims 2 x 1), as v6: a padding tile (t.valid false) where the
  // number of M tiles (along N: of N tiles) is odd. A scheduled tile's (m, n) are (n, m) along N.
  const int cta_rank    = int(ptx::cluster_ctarank());
  const int num_k_tiles = gemm::num_k_tiles(k, BLOCK_K);  // the last one may be short: zero-filled past K
  // Along N, K may be split (split.splits > 1: one unit per cluster, clusters pair x split); the host's split
  // there is always pick_split_k's, whose one split is the whole of K. Along M, K is whole.
  const int split_idx = ALONG_N ? int(blockIdx.x) / CLUSTER % split.splits : 0;
  const int k_begin   = ALONG_N ? split.begin(split_idx) : 0;
  const int k_end     = ALONG_N ? split.end(split_idx, num_k_tiles) : num_k_tiles;
  const int sfb_stride  = bw_128x128_column_stride(k);    // floats per 128-row block of B's scales
  const int tiles_m = num_tiles(m, BLOCK_M), tiles_n = num_tiles(n, BLOCK_N);
  const TileSchedule<ScheduleKind::Grouped> schedule(ALONG_N ? tiles_n : tiles_m, ALONG_N ? tiles_m : tiles_n,
                                                      int(gridDim.x) / CLUSTER / split.splits,
                                                      int(blockIdx.x) / CLUSTER / split.splits, CLUSTER,
                                                      cta_rank, GROUP_M);
  Profiler<TRACE> prof(trace, /*role=*/warpgroup, /*records=*/warp_id % 4 == 0);
  prof.begin(Ev::Setup);

  // ---- setup: the barriers by one thread ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], 1);  // this CTA's TMA thread (the peers' multicasts add bytes)
      // every consumer thread of this CTA, and every consumer warp of each peer (see release)
      ptx::mbarrier_init(&mma_done_bar[s], NUM_CONSUMERS * (128 + 4 * (CLUSTER - 1)));
    }
    ptx::fence_mbarrier_init();
  }
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  prof.end(Ev::Setup);

  if (warpgroup == 0) {
    wg::setmaxnreg_dec<PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
      // ---- producer: one thread keeps the ring full, tile after tile: its A and A's row scales, its half
      //      of B (multicast), B's scale group. The stage and its phase carry across tiles (v6). ----
      int stage = 0;
      uint32_t empty_phase = 1;  // passes at once on the first lap
      auto tiles = schedule;
      for (ScheduledTile t; tiles.next(t);) {
        const int tile_m = ALONG_N ? t.n : t.m, tile_n = ALONG_N ? t.m : t.n;
        const int m0 = tile_m * BLOCK_M, n0 = tile_n * BLOCK_N;
        // Boxes wholly outside the tensors are not issued (v6): this CTA's A and its row scales unless it is
        // a padding tile, each half of B that starts below N. Along N: A's row scales, each part of A (a half
        // or a quarter) that starts below M, and this CTA's B unless it is a padding tile.
        const bool load_a = ALONG_N ? m0 + cta_rank * A_PART_ROWS < m : m0 < m;
        const bool load_b = ALONG_N ? n0 < n : n0 + cta_rank * B_BOX_ROWS < n;
        uint32_t bytes    = SFB_BYTES;
        if constexpr (ALONG_N) {
          bytes += SFA_BYTES + (load_b ? B_TILE_BYTES : 0);
          for (int j = 0; j < CLUSTER; ++j) bytes += m0 + j * A_PART_ROWS < m ? A_PART_BYTES : 0;
        } else {
          bytes += load_a ? A_TILE_BYTES + SFA_BYTES : 0;
          for (int j = 0; j < CLUSTER; ++j) bytes += n0 + j * B_BOX_ROWS < n ? B_BOX_BYTES : 0;
        }
        // this 128-row block of B's scales (a padding tile along N takes the last one's, and stores nothing)
        const float* sfb_column = sfb + size_t(min(tile_n, tiles_n - 1)) * size_t(sfb_stride);
        for (int k_tile = k_begin; k_tile < k_end; ++k_tile) {
          prof.begin(Ev::WaitEmpty);
          ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
          prof.end(Ev::WaitEmpty);
          prof.begin(Ev::IssueTma);
          ptx::mbarrier_arrive_expect_tx(&tma_full_bar[stage], bytes);
          const int k0 = k_tile * BLOCK_K;
          if constexpr (ALONG_N) {
            ptx::tma_load_2d(sfa_smem(stage), &sfa_map, &tma_full_bar[stage], m0, k_tile);  // rows m0..+127
            if (load_a)
              ptx::tma_load_2d_multicast(a_smem(stage) + kmajor_row_offset(A_TILE, cta_rank * A_PART_ROWS),
                                         &a_map, &tma_full_bar[stage], MASK, k0,
                                         m0 + cta_rank * A_PART_ROWS);
            if (load_b) ptx::tma_load_2d(b_smem(stage), &b_map, &tma_full_bar[stage], k0, n0);
          } else {
            if (load_a) {
              ptx::tma_load_2d(a_smem(stage), &a_map, &tma_full_bar[stage], k0, m0);
              ptx::tma_load_2d(sfa_smem(stage), &sfa_map, &tma_full_bar[stage], m0, k_tile);  // rows m0..+127
            }
            if (load_b)
              ptx::tma_load_2d_multicast(b_smem(stage) + kmajor_row_offset(B_TILE, cta_rank * B_BOX_ROWS),
                                         &b_map, &tma_full_bar[stage], MASK, k0,
                                         n0 + cta_rank * B_BOX_ROWS);
          }
          bulk_load(sfb_smem(stage), sfb_column + (k_tile / SFB_GROUP) * SFB_GROUP, SFB_BYTES,
                    &tma_full_bar[stage]);
          prof.end(Ev::IssueTma);
          if (++stage == NUM_STAGES) {
            stage = 0;
            empty_phase ^= 1;
          }
        }
      }
    }
    __syncwarp();
    ptx::barrier_cluster_arrive();
  } else {
    // ---- consumers: warpgroup 1 + w multiplies rows 64 w + [0, 64) of the tile, all 128 columns ----
    wg::setmaxnreg_inc<CONSUMER_REGS>();
    // The warpgroup's index through a shuffle from lane 0, so that ptxas knows it is the same in every lane
    // (as CUTLASS's canonical_warp_group_idx): A's descriptors, made from it, can then live in uniform
    // registers (see the K-tile counter below).
    const int consumer = __shfl_sync(0xffffffffu, warpgroup - 1, 0);
    const int wg_row   = consumer * WGMMA_M;
    const int row0     = wg_row + (warp_id % 4) * 16 + lane / 4;  // and row0 + 8, in the tile
    float acc[ACC_REGS], part0[ACC_REGS], part1[PARTIALS == 2 ? ACC_REGS : 1];
    uint8_t* c_buf          = smem + C_OFFSET + consumer * C_WG_BYTES;  // this warpgroup's C staging
    const bool store_thread = warp_id % 4 == 0 && ptx::elect_one_sync();  // issues the TMA stores
    const uint32_t c_bar    = 1 + consumer;  // named barrier of the warpgroup's 128 threads

    // release: as `mx`: every lane of this CTA arrives (each read the stage's scales with its own loads), one
    // lane per warp on each peer's barrier (its multicast may land), elected without a branch (see the K-tile
    // counter below); the peers' barriers' addresses are found once.
    uint32_t peer_done_bar[CLUSTER - 1];
#pragma unroll
    for (int j = 1; j < CLUSTER; ++j)
      peer_done_bar[j - 1] = ptx::mapa_shared_cluster(&mma_done_bar[0], uint32_t((cta_rank + j) % CLUSTER));
    auto release = [&](int s) {
      ptx::mbarrier_arrive(&mma_done_bar[s]);
#pragma unroll
      for (int j = 0; j < CLUSTER - 1; ++j)
        ptx::mbarrier_arrive_cluster_elected(peer_done_bar[j] + uint32_t(s) * uint32_t(sizeof(uint64_t)));
    };

    // Turns (ORDERED, off by default): consumer 0 issues K tile i, then consumer 1 issues K tile i, then
    // consumer 0 K tile i + 1, ..., so that one warpgroup's promotion runs under the other's wgmmas instead of
    // both issuing together off the same full barrier. Measured 4% slower than without (docs/performance/
    // mxfp8-bw-steps.md: the consumers stall at the named barriers). Consumer w waits on ISSUED_BAR + (1 - w)
    // before its issue and arrives on ISSUED_BAR + w after it; the first wait of consumer 0 and the last
    // arrival of consumer 1 are left out, so that every arrival has its wait (256 threads: 128 arrive, 128
    // sync).
    const int issues = schedule.num_turns() * (k_end - k_begin);  // K tiles this warpgroup issues, all tiles
    int issued       = 0;
    // The ring's position as a count of the K tiles this warpgroup has taken, all tiles: stage ring %
    // NUM_STAGES, phase (ring / NUM_STAGES) % 2. Where the loop holds no divergent branch (the release
    // above) and the warpgroup's index is known to be warp-uniform (above), ptxas computes the stage, the
    // barrier addresses and the wgmma descriptors from this counter on the uniform datapath, and the loop
    // body of two K tiles falls from 310 instructions to 246 (SASS; docs/performance/mxfp8-bw-k-loop.md).
    // With a stage and a phase flipped at the wrap, or any one of the three missing, it stays at 269-310;
    // without the shuffle at each tile (below), the timed kernel spills.
    uint32_t ring = 0;
    // The wgmma descriptors, built once: a stage and a K step move only the start-address field (bits 0-13,
    // the byte address >> 4), which never carries out (the ring ends below 256 KB): one 32-bit add each
    // (desc_sm90_advance, common/descriptors.cuh).
    const uint64_t a_desc0 = kmajor_desc_sm90(A_TILE, ptx::smem_addr(a_smem(0)), 0, wg_row);
    const uint64_t b_desc0 = kmajor_desc_sm90(B_TILE, ptx::smem_addr(b_smem(0)), 0);
    // wait_full, then issue: the 128-wide block's partial of the K tile in `stage`, 4 wgmma k32 into p
    // (scale-d 0 on the first), one commit group; then the K tile's scales for this thread's two rows,
    // sa[row] * sb, read while the MMAs run (rounded once, as the MX kernel's sa * sb; here neither is a power
    // of two, so the product is one more fp32 rounding). Returns the issue time (trace). A padding tile
    // multiplies whatever its A stages hold and stores nothing (a branch around wgmmas serialises them, v6).
    auto issue = [&](float (&p)[ACC_REGS], int k_tile, float& s0, float& s1, int& stage) {
      stage = int(ring % NUM_STAGES);
      prof.begin(Ev::WaitFull);
      ptx::mbarrier_wait(&tma_full_bar[stage], (ring / NUM_STAGES) % 2, "tma_full_bar");
      prof.end(Ev::WaitFull);
      if (ORDERED && (consumer == 1 || issued > 0)) ptx::named_barrier_sync(ISSUED_BAR + (1 - consumer), 256);
      const uint64_t issue_time = prof.begin(Ev::IssueMma);
      const uint32_t stage_bytes = uint32_t(stage) * DATA_STAGE_BYTES;  // A's and B's tile alike
      wg::fence();  // p was read by its last promotion: order those reads before the MMAs overwrite it
#pragma unroll
      for (int k_step = 0; k_step < K_STEPS; ++k_step)
        mma_m64n128k32_e4m3(p, desc_sm90_advance(a_desc0, stage_bytes + kmajor_kstep_offset(A_TILE, k_step)),
                            desc_sm90_advance(b_desc0, stage_bytes + kmajor_kstep_offset(B_TILE, k_step)),
                            k_step > 0 ? 1u : 0u);
      wg::commit_group();
      prof.end(Ev::IssueMma);
      if (ORDERED && (consumer == 0 || issued + 1 < issues)) named_barrier_arrive(ISSUED_BAR + consumer, 256);
      ++issued;
      const float sb = sfb_smem(stage)[k_tile % SFB_GROUP];
      s0 = sfa_smem(stage)[row0] * sb;
      s1 = sfa_smem(stage)[row0 + 8] * sb;
      ++ring;
      return issue_time;
    };
    // retire: the K tile's MMAs are done (the wait_group before this) and its scales are in registers, so its
    // stage is free: released before the promotion (the release orders the scale loads before it), so that
    // the producer refills it meanwhile. Then the promotion: acc += P * sa[row] * sb, one FFMA per element.
    auto retire = [&](float (&p)[ACC_REGS], int s, float s0, float s1, uint64_t issue_time) {
      prof.end(Ev::WaitMma);
      prof.span(Ev::Mma, issue_time);
      release(s);
      prof.begin(Ev::Promote);
      wg::fence_operands(p);  // the wait_group before this is where p became valid
#pragma unroll
      for (int j = 0; j < WGMMA_N / 8; ++j) {
        acc[4 * j + 0] = fmaf(p[4 * j + 0], s0, acc[4 * j + 0]);
        acc[4 * j + 1] = fmaf(p[4 * j + 1], s0, acc[4 * j + 1]);
        acc[4 * j + 2] = fmaf(p[4 * j + 2], s1, acc[4 * j + 2]);
        acc[4 * j + 3] = fmaf(p[4 * j + 3], s1, acc[4 * j + 3]);
      }
      prof.end(Ev::Promote);
    };
    auto tiles = schedule;
    for (ScheduledTile t; tiles.next(t);) {
      const int m0 = (ALONG_N ? t.n : t.m) * BLOCK_M, n0 = (ALONG_N ? t.m : t.n) * BLOCK_N;
      ring = __shfl_sync(0xffffffffu, ring, 0);  // warp-uniform, said again after the epilogue's branches
#pragma unroll
      for (int i = 0; i < ACC_REGS; ++i) acc[i] = 0.0f;
      if constexpr (PARTIALS == 2) {
        // Two partials: K tile i + 1's wgmmas are issued before K tile i is promoted, so that this
        // warpgroup's own MMAs run under its promotion. P0 takes the even K tiles, P1 the odd ones, and the
        // loop body is two K tiles, so that each partial is a fixed set of registers. One group stays in
        // flight across the back edge (P0's); the tail drains both.
        float s0, s1, n0s, n1s;  // scales of the K tile being retired, and of the one just issued
        int st0, st1;            // their stages
        uint64_t t_cur = issue(part0, k_begin, s0, s1, st0), t_next;
        int k_tile = k_begin;
        for (; k_tile + 2 < k_end; k_tile += 2) {
          t_next = issue(part1, k_tile + 1, n0s, n1s, st1);
          prof.begin(Ev::WaitMma);
          wg::wait_group<1>();  // K tile k_tile (P0) done, k_tile + 1 (P1) may still run
          retire(part0, st0, s0, s1, t_cur);
          t_cur = issue(part0, k_tile + 2, s0, s1, st0);
          prof.begin(Ev::WaitMma);
          wg::wait_group<1>();  // K tile k_tile + 1 (P1) done, k_tile + 2 (P0) may still run
          retire(part1, st1, n0s, n1s, t_next);
        }
        if (k_tile + 1 < k_end) {  // two K tiles left: k_tile in flight in P0, k_tile + 1 to issue
          t_next = issue(part1, k_tile + 1, n0s, n1s, st1);
          prof.begin(Ev::WaitMma);
          wg::wait_group<1>();
          retire(part0, st0, s0, s1, t_cur);
          prof.begin(Ev::WaitMma);
          wg::wait_group<0>();
          retire(part1, st1, n0s, n1s, t_next);
        } else {  // one: k_tile, in flight in P0
          prof.begin(Ev::WaitMma);
          wg::wait_group<0>();
          retire(part0, st0, s0, s1, t_cur);
        }
      } else {
        // One partial: each K tile's wgmmas are waited for, then promoted; the other consumer warpgroup's
        // wgmmas may run meanwhile.
        for (int k_tile = k_begin; k_tile < k_end; ++k_tile) {
          float s0, s1;
          int st;
          const uint64_t issue_time = issue(part0, k_tile, s0, s1, st);
          prof.begin(Ev::WaitMma);
          wg::wait_group<0>();
          retire(part0, st, s0, s1, issue_time);
        }
      }
      if (!t.valid) continue;  // a padding tile stores nothing
      if constexpr (ALONG_N) {
        if (split.splits > 1) {
          // The split's fixup (common/split_k.h, as the decode kernels'), per warpgroup: its 64 x 128 partial
          // to the workspace, counted on the counter of its half tile; the split that counts last adds them
          // all in split order and stores C.
          const int t128 = threadIdx.x % 128, unit = (n0 / BLOCK_N) * NUM_CONSUMERS + consumer;
          float* own     = workspace + (size_t(unit) * split.splits + split_idx) * size_t(ACC_REGS * 128);
#pragma unroll
          for (int i = 0; i < ACC_REGS / 4; ++i)
            __stcg(reinterpret_cast<float4*>(own) + split_partial_float4(t128, i, 128),
                   make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
          if (!count_split(counters + unit, split.splits, c_bar, 128, t128 == 0, last_split[consumer])) continue;
          const float4* first = reinterpret_cast<const float4*>(workspace + size_t(unit) * split.splits *
                                                                                 size_t(ACC_REGS * 128));
          float sum[ACC_REGS];
          sum_split_partials<1>(sum, first, split.splits, ACC_REGS * 128 / 4, split_partial_float4(t128, 0, 128),
                                128);
#pragma unroll
          for (int i = 0; i < ACC_REGS; ++i) acc[i] = sum[i];
        }
      }
      prof.begin(Ev::Epilogue);

      // ---- epilogue (v6's): bf16 through a swizzled buffer and TMA stores that drain under the next tile ----
      const int wg_row0 = m0 + wg_row;  // the warpgroup's first row of C
      if (c_tma) {
        // stmatrix: lane l addresses row (l%8) of 8x8 matrix q = l/8; matrices 0, 1 are rows 0-7, 8-15 of
        // column chunk j, matrices 2, 3 the same rows of chunk j + 1
        const int q = lane / 8, r = (warp_id % 4) * 16 + (q % 2) * 8 + lane % 8;
        // the C buffer is free once the stores that read it last (the previous tile) have read it
        if (store_thread) ptx::bulk_wait_group_read<0>();
        ptx::named_barrier_sync(c_bar, 128);
#pragma unroll
        for (int jj = 0; jj < WGMMA_N / 16; ++jj) {
          const int j = 2 * jj;  // accumulator column chunk
          ptx::stmatrix_x4(ptx::smem_addr(c_buf + c_smem_offset(r, 2 * jj + q / 2)),
                           pack_bf16x2(acc[4 * j + 0], acc[4 * j + 1]), pack_bf16x2(acc[4 * j + 2], acc[4 * j + 3]),
                           pack_bf16x2(acc[4 * j + 4], acc[4 * j + 5]), pack_bf16x2(acc[4 * j + 6], acc[4 * j + 7]));
        }
        ptx::fence_proxy_async_shared();  // the stmatrix writes, visible to the TMA store (async proxy)
        ptx::named_barrier_sync(c_bar, 128);
        if (store_thread) {
          for (int b = 0; b < C_BOXES; ++b) {
            const int col0 = n0 + b * C_BOX_COLS;
            if (col0 < n && wg_row0 < m)  // boxes wholly outside C are not issued; the others clip
              ptx::tma_store_2d(&c_map, c_buf + b * C_BOX_BYTES, col0, wg_row0);
          }
          ptx::bulk_commit_group();
        }
      } else {
        // N % 8 != 0: predicated st.global, one bf16 at a time (row starts are only 2-byte aligned)
        const int row = wg_row0 + (warp_id % 4) * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < WGMMA_N / 8; ++j) {
          const int col = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int rr = row + 8 * (e / 2), cc = col + e % 2;
            if (rr < m && cc < n) c[size_t(rr) * n + cc] = __float2bfloat16_rn(acc[4 * j + e]);
          }
        }
      }
      prof.end(Ev::Epilogue);
    }
    // The TMA stores must have read the C buffer (and written C) before this CTA's shared memory goes away.
    ptx::barrier_cluster_arrive();
    if (store_thread) ptx::bulk_wait_group<0>();
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
std::string bw_sm90_check_shape(int64_t m, int64_t n, int64_t k) {
  const struct {
    const char* name;
    int64_t v;
  } dims[] = {{"M", m}, {"N", n}, {"K", k}};
  for (const auto& d : dims)
    if (d.v < 1) return std::string(d.name) + "=" + std::to_string(d.v) + " is below 1 (M, N and K must be >= 1)";
  if (k % 16 != 0)
    return "K=" + std::to_string(k) +
           " is not a multiple of 16 (an e4m3 row must be a 16-byte TMA stride; a partial last 128-block is "
           "fine; try K=" +
           std::to_string(nearest_multiple(k, 16)) + ")";
  if (m > (int64_t(1) << 30) || n > (int64_t(1) << 30) || k > (int64_t(1) << 30))
    return "M, N, K must stay below 2^30 (32-bit indices in the kernel)";
  return "";
}

std::string bw_sm90_check_args(const BwGemmArgs& g) {
  std::string why = bw_sm90_check_shape(g.m, g.n, g.k);
  if (!why.empty()) return why;
  if (!g.a || !g.sfa || !g.b || !g.sfb || !g.c) return "a data, scale or output pointer is null";
  auto size_line = [](const char* what, uint64_t got, uint64_t want) {
    return std::string(what) + " has " + std::to_string(got) + " bytes; the shape needs " + std::to_string(want);
  };
  const uint64_t a_want = uint64_t(g.m) * uint64_t(g.k), b_want = uint64_t(g.n) * uint64_t(g.k);
  const uint64_t sfa_want = bw_1x128_scale_count(int(g.m), int(g.k)) * 4;
  const uint64_t sfb_want = bw_128x128_scale_count(int(g.n), int(g.k)) * 4;
  const uint64_t c_want   = uint64_t(g.m) * uint64_t(g.n) * 2;
  if (g.a_bytes != a_want) return size_line("A's e4m3 data", g.a_bytes, a_want);
  if (g.b_bytes != b_want) return size_line("B's e4m3 data", g.b_bytes, b_want);
  if (g.sfa_bytes != sfa_want) return size_line("A's 1x128 scales", g.sfa_bytes, sfa_want);
  if (g.sfb_bytes != sfb_want) return size_line("B's 128x128 scales", g.sfb_bytes, sfb_want);
  if (g.c_bytes != c_want) return size_line("C (bf16)", g.c_bytes, c_want);
  for (const void* p : {g.a, g.b, static_cast<const void*>(g.sfa), static_cast<const void*>(g.sfb),
                        static_cast<const void*>(g.c)})
    if (reinterpret_cast<uintptr_t>(p) % 16) return "every buffer must be 16-byte aligned (TMA, bulk copies)";
  return "";
}

namespace {

// At M <= 128 `bw` takes a kernel of its own: v8's decode tile with this file's promotion.
#include "mxfp8/bw_decode_sm90.cuh"

Launch prepare_bw(const BwGemmArgs& g, DeviceTrace* trace) {
  const std::string why = bw_sm90_check_args(g);
  if (!why.empty()) {
    std::fprintf(stderr, "prepare_bw: %s\n", why.c_str());
    std::exit(EXIT_BAD_INPUT);
  }
  const BwDecodePick pick = bw_decode_pick(g.m, g.n, g.k, sm_count());
  if (trace && (pick.cols || pick.along_n)) {  // a trace of the traced build would not show the one that runs
    std::fprintf(stderr,
                 "error: --trace: at M <= 128 bw runs its decode kernel (mxfp8/bw_decode_sm90.cuh) or its wide "
                 "kernel with clusters along N, which have no traced build; trace a shape with M > 128\n");
    std::exit(EXIT_BAD_INPUT);
  }
  if (pick.cols) {
    if (pick.cols == 16) return bw_decode::prepare<16>(g);
    if (pick.cols == 32) return pick.per_sm == 1 ? bw_decode::prepare<32>(g) : bw_decode::prepare<32, 2>(g);
    return pick.per_sm == 1 ? bw_decode::prepare<64>(g) : bw_decode::prepare<64, 2>(g);
  }
  // The kernel: along M (clusters of two sharing B), along N in pairs or quads sharing A (bw_along_n_quads,
  // from the resident clusters of each), or the traced build (along M only).
  const bool along_n = pick.along_n;
  auto* kernel       = trace     ? matmul_bw_sm90_kernel<true>
                       : along_n ? matmul_bw_sm90_kernel<false, true>
                                 : matmul_bw_sm90_kernel<false>;
  // the schedule's grid of tiles: M x N, or N x M along N (the cluster runs along its first dimension)
  const int tiles_m = along_n ? num_tiles(g.n, BLOCK_N) : num_tiles(g.m, BLOCK_M);
  const int tiles_n = along_n ? num_tiles(g.m, BLOCK_M) : num_tiles(g.n, BLOCK_N);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  PersistentGrid grid =
      persistent_grid(kernel, NUM_THREADS, SMEM_BYTES, CLUSTER_SIZE, tiles_m, tiles_n, "bw (sm_90a)");
  int cluster = CLUSTER_SIZE;
  if (along_n) {
    auto* quad_kernel = matmul_bw_sm90_kernel<false, true, 4>;
    CUDA_CHECK(cudaFuncSetAttribute(quad_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    const int quad_clusters = max_active_clusters(quad_kernel, NUM_THREADS, SMEM_BYTES, 4);  // 0: pairs then
    if (bw_along_n_quads(g.n, grid.max_clusters, quad_clusters)) {
      kernel  = quad_kernel;
      grid    = persistent_grid(quad_kernel, NUM_THREADS, SMEM_BYTES, 4, tiles_m, tiles_n, "bw (sm_90a)");
      cluster = 4;
    }
  }
  // 2D maps (v6): K extent = K, so the box of a short last K tile is zero-filled past K; rows past M or N too.
  // Along N A's box is this CTA's part of the tile (a half or a quarter) and B's a whole one.
  const TmaDesc a_desc =
      kmajor_tma_2d(g.m, g.k, along_n ? BLOCK_M / cluster : A_BOX_ROWS, BLOCK_K, 1, Swizzle::B128);
  const TmaDesc b_desc    = kmajor_tma_2d(g.n, g.k, along_n ? BLOCK_N : B_BOX_ROWS, BLOCK_K, 1, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A (e4m3)");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B (e4m3)");
  // A's 1x128 scales: L columns of round_up(M, 4) floats (bw_scale_layout.h); the map's rows end at M, so the
  // box of the last M tile is zero-filled past M, and the padding floats are never read.
  TmaDesc sfa_desc;
  sfa_desc.rank       = 2;
  sfa_desc.dims[0]    = uint64_t(g.m);
  sfa_desc.dims[1]    = uint64_t(bw_k_blocks(int(g.k)));
  sfa_desc.strides[0] = uint64_t(bw_1x128_column_stride(int(g.m))) * 4;
  sfa_desc.box[0]     = BLOCK_M;
  sfa_desc.box[1]     = 1;
  sfa_desc.elem_bytes = 4;
  sfa_desc.swizzle    = Swizzle::None;
  const CUtensorMap sfa_map = make_tensor_map(sfa_desc, g.sfa, "A's 1x128 scales (fp32)");
  const bool c_tma          = tma_row_stride_ok(g.n, 2);
  CUtensorMap c_map         = {};  // unused by the st.global epilogue
  if (c_tma) c_map = make_tensor_map(kmajor_tma_2d(g.m, g.n, WGMMA_M, C_BOX_COLS, 2, Swizzle::B128), g.c, "C");
  TraceBuffer buf;  // --trace: per CTA and role, setup, per tile 5 events per K tile and 2 more, teardown
  if (trace) {
    const int turns =
        TileSchedule<ScheduleKind::Grouped>(tiles_m, tiles_n, grid.clusters, 0, CLUSTER_SIZE, 0, GROUP_M)
            .num_turns();
    std::vector<std::string> roles = {"producer"};
    for (int w = 0; w < NUM_CONSUMERS; ++w) roles.push_back("consumer " + std::to_string(w));
    buf = trace->allocate(grid.cfg.gridDim.x, roles,
                          uint32_t(turns) * (5 * uint32_t(num_k_tiles(g.k, BLOCK_K)) + 2) + 8);
  }
  // Along N, where the clusters' units (pairs or quads of N tiles) leave resident clusters idle, K is split to
  // fill them (common/split_k.h, no split shorter than 4 K tiles): one unit per cluster, units x splits
  // clusters, a partial of 64 x 128 per warpgroup and split, a counter per half tile. (Quads are taken only
  // past a wave of them: never split.)
  SplitK split;
  std::shared_ptr<FixupMemory> fixup;
  if (along_n) {
    const int units = num_tiles(tiles_m, cluster);  // N tiles (the transposed M) in pairs or quads
    split           = pick_split_k(units, num_k_tiles(g.k, BLOCK_K), grid.max_clusters, 4);
    if (split.splits > 1) {
      grid.resize(units * split.splits);
      fixup = std::make_shared<FixupMemory>(size_t(tiles_m) * NUM_CONSUMERS * split.splits, size_t(ACC_REGS) * 128);
    }
  }
  float* workspace   = fixup ? fixup->workspace : nullptr;
  uint32_t* counters = fixup ? fixup->flags : nullptr;
  const float* sfb = g.sfb;
  auto* c          = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, sfa_map, c_map, sfb, c, m, n, k, c_tma, split, workspace, counters,
                buf);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}
Launch prepare_bw_plain(const BwGemmArgs& g) { return prepare_bw(g, nullptr); }
Launch prepare_bw_traced(const BwGemmArgs& g, DeviceTrace& trace) { return prepare_bw(g, &trace); }

}  // namespace

std::vector<BwVariant> bw_sm90_variants() {
  return {{"bw", "fp8 wgmma, 1x128 x 128x128 fp32 scales, promoted per 128 of K",
           "sm_90a fp8 wgmma, blockwise scales (A 1x128, B 128x128), promoted once per 128 of K: 2 consumer "
           "warpgroups of m64n128k32 (mxfp8/matmul_bw_sm90.cu); at M <= 128 the decode tile, B's rows on the "
           "MMA's M side, A's in groups of 16, 32 or 64 (m64n16k32-m64n64k32), K split (mxfp8/bw_decode_sm90.cuh), "
           "but at 65-128 rows where two groups would outnumber the SMs or leave a K > 8192 unsplit: the 128x128 "
           "tile with its clusters along N sharing A, K split where the pairs leave clusters idle",
           prepare_bw_plain, prepare_bw_traced}};
}

}  // namespace gemm
