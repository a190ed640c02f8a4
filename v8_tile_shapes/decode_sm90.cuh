// decode_sm90.cuh: v8's decode kernel on Hopper (v8s 16 wide, v8h 16 wide over 64-row tiles of B, v8t 32,
// v8u 144, v8v 192, the token pair v8q-v8r; v8d takes it at M <= 32, and at 65-256 rows where B is long or its
// tiles fit one wave of pairs):
// the tile turned around.
// Included by matmul_v8_sm90.cu (its Blackwell twin, decode.cuh, by matmul_v8.cu).
//
// At decode, M (the tokens of a batch) is 1 to 16 while N and K are a layer's: 8192 x 28672 at Llama 3 70B.
// The wide tile's 128 rows of A are then 1 to 16 real rows and 112 or more of zeros, and a 256-column tile
// leaves most SMs without work (N = 4096: 16 tiles for 132 SMs). All the time goes to reading B once, so the
// kernel is built for that:
//  - The operands swap sides: C^T = B * A^T. B's rows fill the MMA's M side, 128 per CTA (two wgmma
//    m64n16k16, one per 64-row half), and A's at most 16 rows are the MMA's N = 16 (rows past M arrive as
//    zeros from the TMA, and their columns of the result are not stored). A CTA's output is C's 16 x 128
//    block [0, M) x [n0, n0 + 128), transposed on the way out. For 17-32 rows of A the same kernel runs 32
//    wide (v8t: m64n32k16, 20 KB stages): measured 4-17% faster there than v8d's other units
//    (docs/performance/decode.md).
//  - K is split (common/split_k.h): each CTA takes one 128-row tile of B and a range of its K tiles, so that
//    tiles x splits CTAs fill the GPU (N = 4096: 32 tiles x 4 splits on 132 SMs; where the tiles outnumber
//    the SMs, no split). Every CTA of a split tile writes its COLS x 128 fp32 partial; the last of the
//    tile's splits to count itself on the tile's counter adds them in split order and stores C.
//  - A ring of 8 small stages (16 KB of B, 2 KB of A), one CTA per SM: 8 loads of B in flight per SM. B's
//    loads carry the evict-first L2 hint (read once); A's, read by every CTA, stay. B's map has the L2
//    fetch 128 bytes on a miss (a box row), not the series' 256: 1-6% faster on an H200
//    (docs/performance/decode.md).
// One consumer warpgroup (warps 0-3: both halves, 16 accumulators per thread) and one producer warp (4).
// Over 64-row tiles of B (v8h: one wgmma m64n16k16 per K step, a ring of 16 stages of 10 KB, the same bytes
// in flight) twice the tiles fill one wave where v8s's would split K in two: v8d takes it there when K is
// long (common/split_k.h, pick_decode_short_tile; docs/performance/decode.md).
// Measured against smaller rings with more CTAs per SM and against two boxes of K per stage on an H200:
// v8_tile_shapes/README.md, "Ideas that did not pay".
//
// The same kernel 144 and 192 wide (v8u, v8v) is the tile turned around for batches of 129-192 tokens,
// where v8d's other tiles multiply 256 rows of A (docs/performance/one-m-tile.md): A's rows padded to 144 or
// 192 are the MMA's N (m64n144k16, m64n192k16), 72 or 96 accumulators per thread and half, so two consumer
// warpgroups take one 64-row half of B's tile each (warps 0-7, the producer warp 8), in a ring of 6 stages
// of 34 KB (5 of 40 KB) that fills shared memory. Each CTA reads all of A's rows beside its 128 of B.
//
// In clusters of two it is the token pair (v8q, v8x, v8y, v8z, v8o, v8r), cuBLAS's tile at 65-256 tokens
// where B's tiles fit one wave of pairs: the two CTAs split A's rows (48, 64, 80, 96, 112 or 128 each:
// m64n48k16 .. m64n128k16, two consumer warpgroups) and share B's tile, each multicasting one 64-row box of
// it to both; a stage is free once the consumers of both CTAs have released it
// (docs/performance/one-m-tile.md).
//
// In row groups of A (GROUPS: the grid is row groups x B's tiles x splits, any M) it is the small tile (v8g:
// 64 rows of B, one wgmma m64n32k16 per K step, by 32 of A; a CTA per 32 x 64 block of C, cuBLAS's tile at
// 512^3, docs/performance/small-shapes.md) and the token pair in row groups (v8k: the 64-wide pair, two pairs
// per tile of B at 225-256 rows). Every row group reads B: no evict-first hint there.
//
// PTX ISA sections: as matmul_v8_sm90.cu ("wgmma" m64nNk16), and "atom" (.acq_rel, the split counter).
#pragma once

// (Needs common/split_k.h, included by the file that includes this one, before its namespace.)
namespace decode {

constexpr int ROWS        = 128;  // rows of B per CTA: the MMA's M side (two wgmma of 64); v8g's, v8h's: 64
constexpr int SMALL_ROWS  = 64;   // the small tile's (v8g) and v8h's: one wgmma of 64
constexpr int SMALL_COLS  = 32;   // and its row groups of A: 32 rows each
constexpr int MAX_COLS    = 32;   // the widest decode width (v8t): v8d takes the kernel at M up to it
constexpr int SLICE_K     = 64;   // K of one TMA box: 128 bytes of bf16, one swizzle span
constexpr int WGMMA_M     = 64;
constexpr int WGMMA_K     = 16;
constexpr int HALVES      = ROWS / WGMMA_M;  // wgmma per K step, one per 64-row half of B's tile
constexpr int MAX_STAGES  = 8;               // 8 x 18 KB at 16 wide: one CTA per SM, 8 loads of B in flight
constexpr int SHORT_STAGES = 16;             // v8h: 16 x 10 KB, as many bytes of B in flight
constexpr int BLOCK_K     = SLICE_K;         // K of one stage: one TMA box per operand
constexpr uint32_t C_BAR  = 1;               // named barrier of the consumer warpgroups
constexpr uint32_t RING_BUDGET = 227 * 1024 - SMEM_ALIGN - 1024;  // the ring's share of a block's 227 KB

// The MMA's A operand is B's tile, its B operand A's rows: both K-major, in the 128-byte swizzle.
constexpr KMajorTile B_TILE{ROWS, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
// The TMA boxes of a K tile (tests/test_stage_table.cpp checks them against the layout model's table): each
// operand's tile is one 2D box {64, rows} at (k0, row0).
constexpr int TMA_BOXES = 1;
GEMM_HD constexpr TmaBox tma_box(KMajorTile, int row0, int k0, int) { return {0, {k0, row0, 0}}; }
// The token pair (v8q .. v8r): B's tile in PAIR boxes stacked along its rows, box j (64 rows) issued by CTA j
// of the cluster and multicast to both; A's tile one box, as above.
constexpr int PAIR = 2;  // CTAs of the token pair's cluster
GEMM_HD constexpr TmaBox pair_tma_box(KMajorTile t, int row0, int k0, int j) {
  return {uint32_t(j) * uint32_t(t.rows / PAIR) * 128u, {k0, row0 + j * (t.rows / PAIR), 0}};
}

// The kernel's widths: A's rows padded to COLS, the MMA's N. 16 (v8s, M <= 16: 18 KB stages), 32 (v8t,
// 16 < M <= 32: 20 KB stages), 144 and 192 (v8u, v8v: 34 and 40 KB stages, two consumer warpgroups), and
// 48 to 128 per CTA of the token pair (v8q-v8r: 22 to 32 KB stages, two consumer warpgroups); the small
// tile (v8g) is 32 wide over 64 rows of B (12 KB stages), v8h 16 wide over 64 rows (10 KB stages). The
// constants that follow from them:
template <int COLS_, int B_ROWS_ = ROWS>
struct Width {
  static constexpr int COLS      = COLS_;
  static constexpr int B_ROWS    = B_ROWS_;           // rows of B per CTA: 128, or 64 (v8g, v8h)
  static constexpr int HALVES    = B_ROWS / WGMMA_M;  // wgmma per K step
  static constexpr KMajorTile B_TILE{B_ROWS, BLOCK_K, 2, Swizzle::B128};
  static constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
  static constexpr int HALF_REGS = COLS / 2;  // fp32 accumulators per thread and 64-row half (m64nCOLS)
  // Up to 32 wide one warpgroup takes both halves; wider, a warpgroup per half (two halves of 72 would be
  // 144 accumulators per thread, and the m64n144 wgmma of one half would wait for the other's)
  static constexpr int CONSUMERS      = COLS <= 32 ? 1 : HALVES;
  static constexpr int WG_HALVES      = HALVES / CONSUMERS;    // halves per consumer warpgroup
  static constexpr int THREADS        = 128 * CONSUMERS + 32;  // the consumers, then the producer warp
  static constexpr int PRODUCER_WARP  = 4 * CONSUMERS;
  static constexpr int ACC_REGS       = WG_HALVES * HALF_REGS;  // 16, 32, 72 or 96 per consumer thread
  // A CTA's partial: float4 i of consumer thread t at float4 i * CONSUMER_THREADS + t (common/split_k.h,
  // split_partial_float4: a warp's stores whole 128-byte lines)
  static constexpr int PARTIAL_FLOATS   = B_ROWS * COLS;
  static constexpr int CONSUMER_THREADS = 128 * CONSUMERS;
  // No split shorter than this many K tiles (common/split_k.h): 4 at 16 wide (64 KB of B); 96 at 32 wide,
  // where a split costs more than it brings on shorter K (on an H200, 32 x 4096 x 4096: 17.4 us in one split,
  // 18.6 in four; 32 x 8192 x 8192: 39.2 in one, 42.0 in two) and pays at the longest (32 x 8192 x 28672:
  // 117 us in two, 122 in one); 32 wider (the turned tiles, where a K tile is 4.5 to 6 times 16 wide's work,
  // and the token pair's widths); 16 over 64-row tiles (v8h, as measured; the small tile, v8g: of 8, 16 and
  // 32, the fastest at 256 x 256 x 4096, 128 x 512 x 4096 and 64 x 1024 x 2048, level with 32 at 256 x 256 x
  // 8192 and 64 x 512 x 16384 once the split fills each SM once: docs/performance/small-shapes.md).
  static constexpr int MIN_SPLIT_K_TILES = B_ROWS == SMALL_ROWS ? 16 : COLS == 16 ? 4 : COLS == 32 ? 96 : 32;
  // Partials whose loads the last split issues before adding them: 4 at 16 wide, 2 at 32, 1 wider (the
  // registers)
  static constexpr int FIXUP_BATCH = COLS <= 64 ? 64 / COLS : 1;
  static constexpr KMajorTile A_TILE{COLS, BLOCK_K, 2, Swizzle::B128};
  static constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
  static constexpr uint32_t STAGE_BYTES  = B_TILE_BYTES + A_TILE_BYTES;  // one ring stage: [B tile][A tile]
  // As many stages as fit, 8 at most: 8 at 16 to 96 wide, 7 at 128, 6 at 144, 5 at 192; v8h 16
  static constexpr int STAGE_CAP = B_ROWS == SMALL_ROWS && COLS == 16 ? SHORT_STAGES : MAX_STAGES;
  static constexpr int NUM_STAGES =
      RING_BUDGET / STAGE_BYTES < STAGE_CAP ? int(RING_BUDGET / STAGE_BYTES) : STAGE_CAP;
  static constexpr uint32_t SMEM_BYTES = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;
  static GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
  static GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + B_TILE_BYTES; }
  static_assert(COLS == 16 || COLS == 32 || COLS == 48 || COLS == 64 || COLS == 80 || COLS == 96 ||
                    COLS == 112 || COLS == 128 || COLS == 144 || COLS == 192,
                "the wgmma wrappers of the widths: m64n{16, 32, 48, 64, 80, 96, 112, 128, 144, 192}k16");
  static_assert(A_TILE_BYTES % 1024 == 0,
                "A's tile is whole 1024-B swizzle atoms: every tile 1024-B aligned");
  static_assert(NUM_STAGES >= 4, "at least 4 loads of B in flight per SM");
  static_assert(NUM_STAGES * STAGE_BYTES + SMEM_ALIGN <= 256 * 1024,
                "the ring ends below 256 KB: desc_sm90_advance's start-address field never carries");
  static_assert(HALF_REGS % 4 == 0, "a half's accumulators are whole float4s of the partial");
  static_assert(B_ROWS == ROWS || (B_ROWS == SMALL_ROWS && (COLS == SMALL_COLS || COLS == 16)),
                "B's tile is 128 rows, or 64 in the small tile (v8g, 32 wide) and v8h (16 wide)");
};
static_assert(ROWS % WGMMA_M == 0 && BLOCK_K % WGMMA_K == 0, "whole wgmma M halves and K steps");
static_assert(B_TILE_BYTES % 1024 == 0, "B's tile is whole 1024-B swizzle atoms (8 rows x 128 B)");
static_assert(Width<MAX_COLS>::COLS == MAX_COLS, "the widest width is MAX_COLS");

// C^T = B * A^T. grid: groups x tiles x split.splits clusters of CTAS CTAs, cluster b taking block b / splits
// (row group g = block / tiles, tile = block % tiles: rows B_ROWS * tile of B, columns of C) and split
// b % splits of its K tiles, and its CTA of rank r A's rows [(g CTAS + r) COLS, + COLS) (the token pair,
// CTAS = PAIR: each CTA multicasts one 64-row box of B's tile to both). One row group (M <= COLS * CTAS) but
// where GROUPS: the small tile (v8g) and the token pair in row groups (v8k), whose B every row group reads
// (no evict-first hint). workspace: one partial per CTA; counters: one per block and rank, 0 between launches.
template <int COLS, int CTAS = 1, int B_ROWS = ROWS, bool GROUPS = B_ROWS == SMALL_ROWS>
__global__ void __launch_bounds__(Width<COLS, B_ROWS>::THREADS, 1)
    decode_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                  __nv_bfloat16* c, int m, int n, int k, SplitK split, float* workspace, uint32_t* counters) {
#if defined(GEMM_HAS_WGMMA)
  using W                     = Width<COLS, B_ROWS>;
  constexpr int FIXUP_BATCH = W::FIXUP_BATCH;
  constexpr KMajorTile B_TILE = W::B_TILE;
  constexpr int HALF_REGS = W::HALF_REGS, ACC_REGS = W::ACC_REGS, PARTIAL_FLOATS = W::PARTIAL_FLOATS;
  constexpr uint32_t STAGE_BYTES = W::STAGE_BYTES;
  constexpr int NUM_STAGES = W::NUM_STAGES, WG_HALVES = W::WG_HALVES, CONSUMERS = W::CONSUMERS;
  constexpr KMajorTile A_TILE    = W::A_TILE;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);
  __shared__ uint64_t full_bar[NUM_STAGES];   // the TMA bytes of stage s have landed
  __shared__ uint64_t empty_bar[NUM_STAGES];  // the wgmmas that read stage s are done
  __shared__ uint32_t last_split;             // this CTA counted last on its tile's counter
  static_assert(CTAS == 1 || CTAS == PAIR, "a CTA alone, or the token pair");
  constexpr uint16_t CLUSTER_MASK = (1u << CTAS) - 1;  // B's boxes multicast to both CTAs of the pair: 0b11

  const int warp_id = threadIdx.x / 32;
  const int rank    = CTAS > 1 ? int(ptx::cluster_ctarank()) : 0;
  const int cluster = int(blockIdx.x) / CTAS;
  const int block = cluster / split.splits, s_idx = cluster % split.splits;
  const int tiles = GROUPS ? num_tiles(n, B_ROWS) : 0;  // B's tiles: a row group's blocks
  const int tile = GROUPS ? block % tiles : block, group = GROUPS ? block / tiles : 0;
  const int slot    = block * CTAS + rank;  // this CTA's block of C: its counter, and its partials' row
  const int n0      = tile * B_ROWS;
  const int row0    = (group * CTAS + rank) * COLS;  // this CTA's first row of A (and of C)
  const int k_total = num_k_tiles(k, BLOCK_K);
  const int k_begin = split.begin(s_idx), k_end = split.end(s_idx, k_total);

  if (warp_id == W::PRODUCER_WARP && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&full_bar[s], 1);           // the producer's arrive_expect_tx
      // a thread per consumer warpgroup of the cluster, after its wait_group (both CTAs' consumers read the
      // boxes this CTA multicasts)
      ptx::mbarrier_init(&empty_bar[s], CONSUMERS * CTAS);
    }
    ptx::fence_mbarrier_init();
  }
  if constexpr (CTAS > 1) {  // the peer's barriers initialised before any multicast or arrival reaches them
    ptx::barrier_cluster_arrive_relaxed();
    ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }

  if (warp_id == W::PRODUCER_WARP) {
    // ---- producer: one thread streams this CTA's range of B (and A's rows beside it) through the ring ----
    if (ptx::elect_one_sync()) {
      const uint64_t evict_first = GROUPS ? 0 : ptx::createpolicy_evict_first();
      int stage                  = 0;
      uint32_t empty_phase       = 1;  // 1 passes at once on the first lap
      for (int kt = k_begin; kt < k_end; ++kt) {
        ptx::mbarrier_wait(&empty_bar[stage], empty_phase, "empty_bar");
        // Both boxes are whole boxes: rows past N or M and K past K arrive as zeros, and count.
        ptx::mbarrier_arrive_expect_tx(&full_bar[stage], STAGE_BYTES);
        if constexpr (CTAS == 1) {
          if constexpr (!GROUPS)  // B read once: evict first
            ptx::tma_load_2d_hint(ring + W::b_tile_offset(stage), &b_map, &full_bar[stage], kt * BLOCK_K, n0,
                                  evict_first);
          else  // read by every row group: kept
            ptx::tma_load_2d(ring + W::b_tile_offset(stage), &b_map, &full_bar[stage], kt * BLOCK_K, n0);
        } else {  // this CTA's box of B's tile, into both CTAs (the full barrier at its offset in each)
          const TmaBox box = pair_tma_box(B_TILE, n0, kt * BLOCK_K, rank);
          if constexpr (!GROUPS)
            ptx::tma_load_2d_multicast_hint(ring + W::b_tile_offset(stage) + box.smem_offset, &b_map,
                                            &full_bar[stage], CLUSTER_MASK, box.coords[0], box.coords[1],
                                            evict_first);
          else
            ptx::tma_load_2d_multicast(ring + W::b_tile_offset(stage) + box.smem_offset, &b_map,
                                       &full_bar[stage], CLUSTER_MASK, box.coords[0], box.coords[1]);
        }
        ptx::tma_load_2d(ring + W::a_tile_offset(stage), &a_map, &full_bar[stage], kt * BLOCK_K, row0);
        if (++stage == NUM_STAGES) {
          stage = 0;
          empty_phase ^= 1;
        }
      }
      // The token pair: every stage's last release, by the consumers of both CTAs, has landed before this CTA
      // may leave (common/ptx.cuh; the peer's multicasts into the ring are each waited for by its consumers)
      if constexpr (CTAS > 1) ptx::producer_tail<NUM_STAGES>(empty_bar, stage, empty_phase);
    }
    return;  // the consumers wait for every load the producer issued: nothing of its is left in flight
  }

  // ---- consumer warpgroup g: thread t of warp w (of the warpgroup) holds, for its half h of B's tile (g h
  //      of the tile's), B rows 64(g WG_HALVES + h) + 16w + t/4 (+8) and A rows (C's) 8j + 2(t%4) + {0, 1},
  //      j < COLS / 8: acc[h][4j + 2r + e] ----
  const int t = threadIdx.x, lane = t % 32;
  float acc[WG_HALVES][HALF_REGS];
  // The K loop on the uniform datapath (the main kernel's "K loop's instructions", matmul_v8_sm90.cu): the
  // warpgroup's index, the K range and the ring's address through shuffles, so that ptxas can prove them
  // warp-uniform; the descriptors built once and moved per stage and K step by one add; the release without
  // a branch. Built per K step and released under `if (t % 128 == 0)`, the loop took 133 instructions at 16
  // wide (73 so) and 93 at 144 wide (70), and moved its descriptors by R2UR (docs/performance/decode.md).
  const int wg_idx         = __shfl_sync(0xffffffffu, int(threadIdx.x) / 128, 0);
  const int kt_begin       = __shfl_sync(0xffffffffu, k_begin, 0);
  const int kt_end         = __shfl_sync(0xffffffffu, k_end, 0);
  const uint32_t ring_addr = __shfl_sync(0xffffffffu, ptx::smem_addr(ring), 0);
  const uint64_t a_desc0   = kmajor_desc_sm90(A_TILE, ring_addr + W::a_tile_offset(0), 0);
  uint64_t b_desc0[WG_HALVES];  // this warpgroup's 64-row halves of B's tile
#pragma unroll
  for (int h = 0; h < WG_HALVES; ++h)
    b_desc0[h] =
        kmajor_desc_sm90(B_TILE, ring_addr + W::b_tile_offset(0), 0, (wg_idx * WG_HALVES + h) * WGMMA_M);
  uint32_t empty_bar0[CTAS];  // the token pair: stage 0's empty barrier in each CTA of the cluster
#pragma unroll
  for (int peer = 0; peer < CTAS; ++peer)
    empty_bar0[peer] = CTAS > 1 ? ptx::mapa_shared_cluster(&empty_bar[0], uint32_t(peer)) : 0u;
  // The consumers' barrier: after it ptxas knows the warps converged (without it the 16- and 32-wide loops
  // moved 12 descriptors by R2UR, with it none)
  ptx::named_barrier_sync(C_BAR, 128 * CONSUMERS);
  uint32_t ring_k = 0;  // K tiles taken: stage ring_k % NUM_STAGES, phase (ring_k / NUM_STAGES) % 2
  for (int kt = kt_begin; kt < kt_end; ++kt, ++ring_k) {
    const int stage = int(ring_k % NUM_STAGES);
    ptx::mbarrier_wait(&full_bar[stage], (ring_k / NUM_STAGES) % 2, "full_bar");
    wg::fence();
    const uint32_t stage_bytes = uint32_t(stage) * STAGE_BYTES;  // A's and B's tile alike
#pragma unroll
    for (int ks = 0; ks < BLOCK_K / WGMMA_K; ++ks) {
      const uint64_t a_rows = desc_sm90_advance(a_desc0, stage_bytes + kmajor_kstep_offset(A_TILE, ks));
      const uint32_t accumulate = kt > kt_begin || ks > 0 ? 1u : 0u;
#pragma unroll
      for (int h = 0; h < WG_HALVES; ++h) {
        const uint64_t b_rows = desc_sm90_advance(b_desc0[h], stage_bytes + kmajor_kstep_offset(B_TILE, ks));
        wg::mma_m64nNk16_bf16<COLS>(acc[h], b_rows, a_rows, accumulate);
      }
    }
    wg::commit_group();
    wg::wait_group<1>();  // the wgmmas of kt - 1 are done: their stage is free
    // one elected lane of the warpgroup's first warp; in the token pair, to both CTAs (both multicast here)
    const uint32_t prev_stage = (ring_k + NUM_STAGES - 1) % NUM_STAGES;
    const bool releases       = kt > kt_begin && warp_id % 4 == 0;
    if constexpr (CTAS == 1) {
      ptx::mbarrier_arrive_elected(&empty_bar[prev_stage], releases);
    } else {
#pragma unroll
      for (int peer = 0; peer < CTAS; ++peer)
        ptx::mbarrier_arrive_cluster_elected(empty_bar0[peer] + prev_stage * uint32_t(sizeof(uint64_t)),
                                             releases);
    }
  }
  wg::wait_group<0>();  // accumulators final
  // A CTA alone: the last stage needs no release (no load waits for it). The token pair releases it too, in
  // both CTAs, for their producers' tails: then neither CTA leaves while an arrival of the other's is in
  // flight
  if constexpr (CTAS > 1) {
    const uint32_t last_stage = (ring_k + NUM_STAGES - 1) % NUM_STAGES;
#pragma unroll
    for (int peer = 0; peer < CTAS; ++peer)
      ptx::mbarrier_arrive_cluster_elected(empty_bar0[peer] + last_stage * uint32_t(sizeof(uint64_t)),
                                           kt_end > kt_begin && warp_id % 4 == 0);
  }

  // ---- the split's fixup (common/split_k.h) ----
  if (split.splits > 1) {
    float* own = workspace + (size_t(slot) * split.splits + s_idx) * PARTIAL_FLOATS;
#pragma unroll
    for (int i = 0; i < ACC_REGS / 4; ++i)  // .cg: to L2, where the last split reads it
      __stcg(reinterpret_cast<float4*>(own) + split_partial_float4(t, i, W::CONSUMER_THREADS),
             make_float4(acc[i / (HALF_REGS / 4)][4 * (i % (HALF_REGS / 4))],
                         acc[i / (HALF_REGS / 4)][4 * (i % (HALF_REGS / 4)) + 1],
                         acc[i / (HALF_REGS / 4)][4 * (i % (HALF_REGS / 4)) + 2],
                         acc[i / (HALF_REGS / 4)][4 * (i % (HALF_REGS / 4)) + 3]));
    // Thread 0 counts the split once every consumer thread has stored (common/fixup.cuh): the last split
    // goes on.
    if (!count_split(counters + slot, split.splits, C_BAR, 128 * CONSUMERS, t == 0, last_split)) return;
    // The sum in split order (its own partial read back too): the same bits whoever is last. FIXUP_BATCH
    // partials' loads are issued before the first of their adds, so that a batch costs one trip to L2.
    float sum[ACC_REGS];
    const float4* first =
        reinterpret_cast<const float4*>(workspace + size_t(slot) * split.splits * PARTIAL_FLOATS);
    // common/fixup.cuh
    sum_split_partials<FIXUP_BATCH>(sum, first, split.splits, PARTIAL_FLOATS / 4,
                                    split_partial_float4(t, 0, W::CONSUMER_THREADS), W::CONSUMER_THREADS);
#pragma unroll
    for (int i = 0; i < ACC_REGS; ++i) acc[i / HALF_REGS][i % HALF_REGS] = sum[i];
  }

  // ---- store: C[row][col] for A row `row` < M and B row `col` < N, one bf16 at a time (C is M x N: COLS x
  //      128 at most per CTA, a sliver of B's bytes) ----
  const int warp = (t % 128) / 32;  // in the warpgroup
#pragma unroll
  for (int i = 0; i < ACC_REGS; ++i) {
    const int h = i / HALF_REGS, q = i % HALF_REGS, j = q / 4, r = (q / 2) % 2, e = q % 2;
    const int col = n0 + (wg_idx * WG_HALVES + h) * WGMMA_M + warp * 16 + lane / 4 + 8 * r;
    const int row = row0 + 8 * j + 2 * (lane % 4) + e;
    if (row < m && col < n) c[size_t(row) * size_t(n) + col] = __float2bfloat16_rn(acc[h][q]);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// The launch at one width: tensor maps with B's B_ROWS-row box and A's COLS-row box (rows past M
// zero-filled), the split so that each SM has one CTA (the occupancy query's resident count: one CTA per SM,
// but two of v8g's), the workspace and counters where K is split.
template <int COLS, int CTAS = 1, int B_ROWS = ROWS, bool GROUPS = B_ROWS == SMALL_ROWS>
Launch prepare(const GemmArgs& g) {
  using W = Width<COLS, B_ROWS>;
  const CUtensorMap a_map =
      make_tensor_map(kmajor_tma_2d(g.m, g.k, COLS, SLICE_K, 2, Swizzle::B128), g.a, "A");
  // B, read once: the L2 fetches 128 bytes on a miss, not 256 (common/tma.h, L2Promotion); the token pair's
  // boxes are 64 rows, one per CTA
  TmaDesc b_desc          = kmajor_tma_2d(g.n, g.k, B_ROWS / CTAS, SLICE_K, 2, Swizzle::B128);
  b_desc.l2_promotion     = L2Promotion::B128;
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = decode_kernel<COLS, CTAS, B_ROWS, GROUPS>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, W::SMEM_BYTES));
  PersistentGrid grid =
      persistent_grid(kernel, W::THREADS, W::SMEM_BYTES, CTAS, 1, 1, "v8s-v8v, v8q-v8r, v8g, v8h, v8k (sm_90a)");
  const int groups = num_tiles(g.m, CTAS * COLS), blocks = num_tiles(g.n, B_ROWS) * groups;  // x B's tiles
  if (!GROUPS && groups > 1) {  // the variants' shape rules and v8d's picks keep M within the width
    std::fprintf(stderr, "error: the decode kernel %d wide takes M <= %d, got %lld\n", COLS, CTAS * COLS,
                 (long long)g.m);
    std::exit(EXIT_FAIL);
  }
  const int slots    = std::min(grid.max_clusters, sm_count() / CTAS);  // one CTA per SM
  const SplitK split = pick_split_k(blocks, num_k_tiles(g.k, BLOCK_K), slots, W::MIN_SPLIT_K_TILES);
  // a cluster per block and split, resident or not: none waits for another
  grid.resize(blocks * split.splits);
  // the partials, and one counter per tile and rank (FixupMemory's flags)
  std::shared_ptr<FixupMemory> fixup;
  if (split.splits > 1)
    fixup = std::make_shared<FixupMemory>(size_t(blocks) * CTAS * split.splits, W::PARTIAL_FLOATS);
  float* workspace   = fixup ? fixup->workspace : nullptr;
  uint32_t* counters = fixup ? fixup->flags : nullptr;
  auto* c            = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, c, m, n, k, split, workspace, counters);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}

// v8d's launch at M <= MAX_COLS: the narrower width that holds M, at M <= 16 over 64-row tiles of B (v8h)
// where common/split_k.h's pick_decode_short_tile takes them, at 17-32 rows the small tile (v8g) where
// pick_small_tile_few_ctas does (nothing for --trace: common/harness.h, untraced_pick).
inline Launch prepare_picked(const GemmArgs& g, DeviceTrace* trace) {
  using H = Width<16, SMALL_ROWS>;
  if (g.m <= H::COLS) {
    const int slots = std::min(resident_clusters(decode_kernel<16, 1, SMALL_ROWS, false>, H::THREADS,
                                                 H::SMEM_BYTES, 1, "v8h (sm_90a)"),
                               sm_count());
    if (pick_decode_short_tile(num_tiles(g.n, SMALL_ROWS), num_k_tiles(g.k, BLOCK_K), slots,
                               H::MIN_SPLIT_K_TILES))
      return untraced_pick(prepare<16, 1, SMALL_ROWS, false>, g, trace,
                           "the decode kernel over 64-row tiles (v8h) where they fill one wave unsplit");
    return untraced_pick(prepare<16>, g, trace, "the decode kernel (v8s) at M <= 16");
  }
  using T             = Width<32>;
  const int sms       = std::min(resident_clusters(decode_kernel<32>, T::THREADS, T::SMEM_BYTES, 1, "v8t (sm_90a)"),
                                 sm_count());
  const int tiles     = num_tiles(g.n, ROWS);
  const int wide_ctas = tiles * pick_split_k(tiles, num_k_tiles(g.k, BLOCK_K), sms, T::MIN_SPLIT_K_TILES).splits;
  if (pick_small_tile_few_ctas(wide_ctas, sms))
    return untraced_pick(prepare<SMALL_COLS, 1, SMALL_ROWS>, g, trace,
                         "the small tile (v8g) at 16 < M <= 32 where v8t would fill a quarter of the SMs or less");
  return untraced_pick(prepare<32>, g, trace, "the decode kernel 32 wide (v8t) at 16 < M <= 32");
}

// v8d's launch where common/split_k.h's pick_small_tile takes the small tile (v8g: its blocks fit the CTAs
// resident at once, and the work is small); an empty Launch where it does not.
inline Launch prepare_small_picked(const GemmArgs& g, DeviceTrace* trace) {
  using W         = Width<SMALL_COLS, SMALL_ROWS>;
  const int slots = resident_clusters(decode_kernel<SMALL_COLS, 1, SMALL_ROWS>, W::THREADS, W::SMEM_BYTES, 1,
                                      "v8g (sm_90a)");
  const long long blocks = (long long)num_tiles(g.n, SMALL_ROWS) * num_tiles(g.m, SMALL_COLS);
  if (!pick_small_tile(blocks, num_k_tiles(g.k, BLOCK_K), slots)) return {};
  return untraced_pick(prepare<SMALL_COLS, 1, SMALL_ROWS>, g, trace,
                       "the small tile (v8g) where the problem is small");
}

// v8d's launch at 129-192 rows where common/split_k.h's pick_turned_width takes the tile turned around (144
// or 192 wide, from one CTA per SM); an empty Launch where it does not.
inline Launch prepare_turned_picked(const GemmArgs& g, DeviceTrace* trace) {
  if (g.m <= 128 || g.m > 192) return {};
  const int slots = resident_clusters(decode_kernel<144>, Width<144>::THREADS, Width<144>::SMEM_BYTES, 1,
                                      "v8u (sm_90a)");
  const int width = pick_turned_width(g.m, num_tiles(g.n, ROWS), num_k_tiles(g.k, BLOCK_K), slots);
  if (width == 144)
    return untraced_pick(prepare<144>, g, trace, "the tile turned around 144 wide (v8u) at 128 < M <= 144");
  if (width == 192)
    return untraced_pick(prepare<192>, g, trace, "the tile turned around 192 wide (v8v) at 144 < M <= 192");
  return {};
}

// v8d's launch at 65-256 rows where common/split_k.h's pick_token_pair takes the token pair (48, 64, 80, 96,
// 112 or 128 of A's rows per CTA, from the pairs resident at once); an empty Launch where it does not.
inline Launch prepare_pair_picked(const GemmArgs& g, DeviceTrace* trace) {
  if (g.m <= 64 || g.m > 256) return {};
  using W         = Width<64>;  // one CTA per SM at every width
  const int slots =
      resident_clusters(decode_kernel<64, PAIR>, W::THREADS, W::SMEM_BYTES, PAIR, "v8q-v8r (sm_90a)");
  const int width = pick_token_pair(g.m, num_tiles(g.n, ROWS), num_k_tiles(g.k, BLOCK_K), slots);
  if (pick_token_pair_groups(g.m, num_tiles(g.n, ROWS), slots))  // 225-256 rows: two row groups, 64 wide
    return untraced_pick(prepare<64, PAIR, ROWS, true>, g, trace,
                         "the token pair in row groups (v8k) at 224 < M <= 256");
  if (width == 48)
    return untraced_pick(prepare<48, PAIR>, g, trace, "the token pair 48 wide (v8q) at 64 < M <= 96");
  if (width == 64)
    return untraced_pick(prepare<64, PAIR>, g, trace, "the token pair (v8x) at 96 < M <= 128");
  if (width == 80)
    return untraced_pick(prepare<80, PAIR>, g, trace, "the token pair 80 wide (v8y) at 128 < M <= 160");
  if (width == 96)
    return untraced_pick(prepare<96, PAIR>, g, trace, "the token pair 96 wide (v8z) at 160 < M <= 192");
  if (width == 112)
    return untraced_pick(prepare<112, PAIR>, g, trace, "the token pair 112 wide (v8o) at 192 < M <= 224");
  if (width == 128)
    return untraced_pick(prepare<128, PAIR>, g, trace, "the token pair 128 wide (v8r) at 224 < M <= 256");
  return {};
}

// A width's row of the variant table (v8s: 16, v8t: 32, v8u: 144, v8v: 192): its ring for the layout model
// (the MMA's A operand is B's 128-row tile, its B operand A's COLS rows; a ring of 8 small stages, 6 or 5
// at 144 and 192, no cluster), and the shapes it takes (M <= COLS).
template <int COLS, int B_ROWS = ROWS>
SmemTiles smem_tiles() {
  using W = Width<COLS, B_ROWS>;
  return SmemTiles{W::B_TILE,     W::A_TILE, WGMMA_M,   /*tma_3d=*/false,
                   W::NUM_STAGES, SLICE_K,   TMA_BOXES, tma_box}
      .with_cluster(1);
}
template <int COLS>
ShapeRule shape_rule(ShapeRule rule) {
  rule.m_max = COLS;
  rule.m_max_why =
      COLS == 16   ? "is the decode kernel: A's rows are its MMA's N, 16 at most (v8d takes any M)"
      : COLS == 32 ? "is the decode kernel 32 wide: A's rows are its MMA's N, 32 at most (v8d takes any M)"
      : COLS == 144
          ? "is the tile turned around 144 wide: A's rows are its MMA's N, 144 at most (v8d takes any M)"
          : "is the tile turned around 192 wide: A's rows are its MMA's N, 192 at most (v8d takes any M)";
  return rule;
}

// The token pair's rows of the variant table (v8q: 48, v8x: 64, v8y: 80, v8z: 96, v8o: 112, v8r: 128 wide
// per CTA): its ring for the layout model (B's 128-row tile in two 64-row boxes, one per CTA of the pair; 8
// stages, 7 at 112 and 128 wide), and the shapes it takes (M <= 2 COLS).
template <int COLS>
SmemTiles pair_smem_tiles() {
  SmemTiles t{B_TILE,  Width<COLS>::A_TILE, WGMMA_M, /*tma_3d=*/false, Width<COLS>::NUM_STAGES,
              SLICE_K, TMA_BOXES,           pair_tma_box};
  t.a_split = PAIR;  // the MMA's A operand: B's tile, box j from CTA j
  return t;
}
template <int COLS>
ShapeRule pair_shape_rule(ShapeRule rule) {
  rule.m_max = PAIR * COLS;
  rule.m_max_why =
      COLS == 48   ? "is the token pair 48 wide: two CTAs' MMA N of 48, 96 rows at most (v8d takes any M)"
      : COLS == 64 ? "is the token pair: A's rows are two CTAs' MMA N of 64, 128 at most (v8d takes any M)"
      : COLS == 80 ? "is the token pair 80 wide: two CTAs' MMA N of 80, 160 rows at most (v8d takes any M)"
      : COLS == 96 ? "is the token pair 96 wide: two CTAs' MMA N of 96, 192 rows at most (v8d takes any M)"
      : COLS == 112
          ? "is the token pair 112 wide: two CTAs' MMA N of 112, 224 rows at most (v8d takes any M)"
          : "is the token pair 128 wide: two CTAs' MMA N of 128, 256 rows at most (v8d takes any M)";
  return rule;
}

}  // namespace decode
