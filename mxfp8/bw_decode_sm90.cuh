// bw_decode_sm90.cuh: blockwise FP8 where A has few rows (M <= 128), `bw`'s kernel at decode and small batches:
// v8's decode tile (v8_tile_shapes/decode_sm90.cuh) with `bw`'s promotion, A's rows in groups. Included by
// matmul_bw_sm90.cu, whose `bw` takes it at M <= 64, and at 65-128 rows where its units fit the SMs and
// leave it K to split or K is at most 8192 (bw_decode_pick, mxfp8/matmul_bw.h).
//
// There the wide kernel's 128-row tiles of A hold few real rows, and its 128-column tiles of B are few (N =
// 8192: 64, for 66 clusters of two CTAs): measured at 0.47-0.67x of cuBLASLt's blockwise FP8 GEMM at M = 16
// and 0.63-0.96x at M = 32-64 on an H200 (docs/performance/mxfp8-bw-decode.md). As v8's decode kernel, the
// operands swap sides, C^T = B * A^T, and the time goes to reading B:
//  - B's 128 rows per CTA, exactly one 128-row block of B's 128x128 scales, are the MMA's M side (two wgmma
//    m64nCOLSk32, e4m3, one per 64-row half); a group of COLS = 16, 32 or 64 of A's rows is its N (rows past
//    M arrive as zeros from the TMA and their columns of the result are not stored). The grid is B's tiles x
//    K's splits x A's groups; a split's two groups (65-128 rows) are one cluster, so that the L2 serves
//    their reads of B's boxes once more often (the kernel below).
//  - A stage is one 128-wide K block, one scale block: 16 KB of B, COLS x 128 bytes of A, and the block's
//    scales, copied by the producer beside them onto the stage's full barrier: the group's column of A's row
//    scales (one bulk copy of at most COLS floats) and B's aligned group of 4 (as `bw`).
//  - `bw`'s promotion, turned around: the stage's four k32 steps accumulate into a partial P, then
//    acc += P * (sa[column] * sb), sb one value for the tile and K block, sa one per column of C^T (a token).
//    A column past M multiplies zeros; its scale is taken as 0, so that no padding float (copied with the
//    column) reaches C.
//  - K is split as in v8 (common/split_k.h), the last split of a unit adding the partials in split order; a
//    ring of 8 stages, one CTA per SM (or 4 stages each for two), B's loads with the evict-first hint and its
//    map's 128-byte L2 promotion: v8's decode kernel's measured choices (its stages hold the same bytes: 16 KB
//    of B).
// One consumer warpgroup (warps 0-3: both halves, COLS accumulators and two sets of COLS partials per
// thread) and one producer warp (4). A stage's promotion waits for its MMAs; two partials in turn let the next
// stage's MMAs run under it (as `bw`'s wide kernel), and where the units outnumber the SMs two CTAs to an SM
// overlap each other's (64 wide there, one partial: three sets of 64 floats do not fit the registers). At
// decode the kernel streams B; 32 and 64 wide its stages weigh more. Measured on an H200 (the same page):
// 1.2-1.7x of cuBLASLt's blockwise FP8 GEMM at M = 4-16 at Llama 3 70B's layers and N = K = 4096, 1.04-1.36x
// at M = 24-64, 1.03-1.16x at 80-128 rows and N <= 8192 (two groups in one wave).
//
// PTX ISA sections: as matmul_bw_sm90.cu ("wgmma" m64n{16, 32, 64}k32 .e4m3, "cp.async.bulk"), and "atom"
// (.acq_rel, the split counter).
#pragma once

// (Needs common/split_k.h and common/fixup_memory.h, included by matmul_bw_sm90.cu before its namespace, and its
// bulk_load.)
namespace bw_decode {

constexpr int ROWS              = BW_BLOCK;  // rows of B per CTA: the MMA's M side, one 128-row scale block
constexpr int BLOCK_K           = BW_BLOCK;  // K of one stage: 128 bytes of e4m3, one scale block, one swizzle span
constexpr int WGMMA_M           = 64;
constexpr int WGMMA_K           = 32;                  // fixed for fp8: 32 bytes of K per MMA
constexpr int HALVES            = ROWS / WGMMA_M;      // wgmma per K step, one per 64-row half of B's tile
constexpr int K_STEPS           = BLOCK_K / WGMMA_K;   // wgmma K steps per stage, into one partial
constexpr int NUM_THREADS       = 128 + 32;            // the consumer warpgroup (warps 0-3), the producer warp (4)
constexpr int MIN_SPLIT_K_TILES = 4;            // no split shorter than 4 K blocks (64 KB of B)
constexpr uint32_t C_BAR        = 1;            // named barrier of the consumer warpgroup
constexpr uint32_t SFB_GROUP    = BW_LD_ALIGN;  // floats in one 16-byte group of B's scale column
constexpr KMajorTile B_TILE{ROWS, BLOCK_K, 1, Swizzle::B128};
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);

// The kernel's width: COLS rows of A per CTA (a row group), the MMA's N; 16 at decode, 32 and 64 where M is
// larger, A's rows in groups of COLS (bw_decode_pick, mxfp8/matmul_bw.h, picks). PER_SM: CTAs resident on an
// SM, the ring shared among them (8 stages for one, 4 each for two). A stage's promotion waits for its MMAs;
// with two partials in turn the next stage's MMAs run under it, and with two CTAs on the SM the other CTA's.
template <int COLS_, int PER_SM_ = 1>
struct Width {
  static constexpr int COLS           = COLS_;
  static constexpr int PER_SM         = PER_SM_;
  static constexpr int NUM_STAGES     = 8 / PER_SM;        // stages of 16 KB of B: 128 KB of B per SM
  static constexpr int HALF_REGS      = COLS / 2;          // fp32 per thread and 64-row half (m64nCOLS)
  static constexpr int ACC_REGS       = HALVES * HALF_REGS;  // accumulators per consumer thread (and partials)
  // Partials per thread, taken in turn: two where the registers hold them beside the accumulators (3 x 64
  // floats at 64 wide: not with two CTAs to an SM, whose threads have 200 registers at most: 65536 / 320,
  // in steps of 8)
  static constexpr int PARTIALS = COLS == 64 && PER_SM == 2 ? 1 : 2;
  static constexpr int PARTIAL_FLOATS = ROWS * COLS;  // a CTA's partial: thread t's float4 i at float4 128 i + t
  static constexpr int FIXUP_BATCH    = 64 / COLS;    // partials whose loads the last split issues before adding
                                                      // them: 64 floats per thread in flight, as v8's decode
  // The MMA's A operand is B's tile, its B operand A's rows: both K-major, e4m3, in the 128-byte swizzle.
  static constexpr KMajorTile A_TILE{COLS, BLOCK_K, 1, Swizzle::B128};
  static constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
  static constexpr uint32_t STAGE_BYTES  = B_TILE_BYTES + A_TILE_BYTES;  // one ring stage: [B tile][A tile]
  // A stage's scales, after the ring, in a slot of whole 128-byte lines: the group's column of A's row scales
  // (COLS floats at most), then B's aligned group of 4 at float COLS.
  static constexpr uint32_t SFA_FLOATS    = COLS;
  static constexpr uint32_t SCALE_SLOT    = ((COLS + SFB_GROUP) * 4 + 127) / 128 * 128;
  static constexpr uint32_t SCALES_OFFSET = NUM_STAGES * STAGE_BYTES;
  static constexpr uint32_t SMEM_BYTES    = NUM_STAGES * (STAGE_BYTES + SCALE_SLOT) + SMEM_ALIGN;
  static GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
  static GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + B_TILE_BYTES; }
  static GEMM_HD constexpr uint32_t scale_offset(int s) { return SCALES_OFFSET + uint32_t(s) * SCALE_SLOT; }

  static_assert(COLS == 16 || COLS == 32 || COLS == 64, "the wgmma wrappers below: m64n{16, 32, 64}k32");
  static_assert(PER_SM == 1 || PER_SM == 2, "one or two CTAs per SM");
  static_assert(B_TILE_BYTES % 1024 == 0 && A_TILE_BYTES % 1024 == 0,
                "tiles are whole 1024-B swizzle atoms (8 rows x 128 B), so every tile starts 1024-B aligned");
  static_assert(SCALES_OFFSET % 128 == 0 && (SFA_FLOATS + SFB_GROUP) * 4 <= SCALE_SLOT && SFA_FLOATS % 4 == 0,
                "both bulk copies 16-B aligned, within the slot");
  static_assert(NUM_STAGES * STAGE_BYTES + SMEM_ALIGN <= 256 * 1024,
                "the ring ends below 256 KB: a wgmma descriptor's start-address field never carries");
  static_assert(PER_SM * (SMEM_BYTES + 1024) <= 228 * 1024, "PER_SM CTAs fit an SM's 228 KB (1 KB each reserved)");
  static_assert(PARTIAL_FLOATS == ACC_REGS * 128, "the partial holds the warpgroup's accumulators");
};

static_assert(ROWS % WGMMA_M == 0 && BLOCK_K % WGMMA_K == 0 && K_STEPS == 4, "whole halves, 4 k32 per stage");

#if defined(GEMM_HAS_WGMMA)
// P[64xN] (+)= A[64x32] * B[Nx32]^T, e4m3 from shared-memory descriptors, fp32; `accumulate` is scale-d
// (0: overwrite). Fragment (as m64n128k32's): thread t of warp w holds rows 16w + t/4 and +8, columns
// 8j + 2(t%4) + {0,1}: P[4j + {0,1}] on the first row, P[4j + {2,3}] on the second.
__device__ __forceinline__ void mma_m64n16k32_e4m3(float (&d)[8], uint64_t a_desc, uint64_t b_desc,
                                                   uint32_t accumulate) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %10, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3\n\t"
      "{%0, %1, %2, %3, %4, %5, %6, %7},\n\t"
      "%8, %9, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(a_desc), "l"(b_desc), "r"(accumulate)
      : "memory");
}
__device__ __forceinline__ void mma_m64n32k32_e4m3(float (&d)[16], uint64_t a_desc, uint64_t b_desc,
                                                   uint32_t accumulate) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %18, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3\n\t"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15},\n\t"
      "%16, %17, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(a_desc), "l"(b_desc), "r"(accumulate)
      : "memory");
}
__device__ __forceinline__ void mma_m64n64k32_e4m3(float (&d)[32], uint64_t a_desc, uint64_t b_desc,
                                                   uint32_t accumulate) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3\n\t"
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n\t"
      " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},\n\t"
      "%32, %33, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a_desc), "l"(b_desc), "r"(accumulate)
      : "memory");
}
template <int N>
__device__ __forceinline__ void mma_m64nNk32_e4m3(float (&d)[N / 2], uint64_t a_desc, uint64_t b_desc,
                                                  uint32_t accumulate) {
  if constexpr (N == 64)
    mma_m64n64k32_e4m3(d, a_desc, b_desc, accumulate);
  else if constexpr (N == 32)
    mma_m64n32k32_e4m3(d, a_desc, b_desc, accumulate);
  else
    mma_m64n16k32_e4m3(d, a_desc, b_desc, accumulate);
}
#endif  // GEMM_HAS_WGMMA

// C^T = B * A^T, A's rows in groups of COLS (one or two groups). grid: tiles x split.splits x groups CTAs, in
// clusters of `groups`; CTA b takes group g = b % groups (rows COLS * g of A, rows of C) and split
// s = (b / groups) % splits of its K blocks of tile b / groups / splits (rows 128 * tile of B, columns of C,
// and 128-row scale block `tile`): unit u = tile * groups + g. The two groups of a tile's split are one
// cluster, which the hardware puts on one TPC, whose L2 request coalescer serves their reads of the same B
// boxes once more often than not (docs/performance/l2-coalescer.md). workspace: one partial per unit and
// split, at u * splits + s; counters: one per unit, 0 between launches.
template <int COLS, int PER_SM>
__global__ void __launch_bounds__(NUM_THREADS, PER_SM)
    bw_decode_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     const float* sfa, const float* sfb, __nv_bfloat16* c, int m, int n, int k, int groups,
                     SplitK split, float* workspace, uint32_t* counters) {
#if defined(GEMM_HAS_WGMMA)
  using W                       = Width<COLS, PER_SM>;
  constexpr int HALF_REGS       = W::HALF_REGS, ACC_REGS = W::ACC_REGS, NUM_STAGES = W::NUM_STAGES;
  constexpr int PARTIAL_FLOATS  = W::PARTIAL_FLOATS;
  constexpr uint32_t SFA_FLOATS = W::SFA_FLOATS;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);
  __shared__ uint64_t full_bar[NUM_STAGES];   // the TMA bytes and the scales of stage s have landed
  __shared__ uint64_t empty_bar[NUM_STAGES];  // every consumer thread is done with stage s (MMAs and scales)
  __shared__ uint32_t last_split;             // this CTA counted last on its unit's counter

  const int warp_id = threadIdx.x / 32;
  const int group = int(blockIdx.x) % groups, s_idx = int(blockIdx.x) / groups % split.splits;
  const int tile = int(blockIdx.x) / groups / split.splits, unit = tile * groups + group;
  const int slot       = unit * split.splits + s_idx;  // this CTA's partial in the workspace
  const int m0         = group * COLS;
  const int n0         = tile * ROWS;
  const int k_total    = num_k_tiles(k, BLOCK_K);
  const int k_begin    = split.begin(s_idx), k_end = split.end(s_idx, k_total);
  const int sfa_floats = bw_1x128_column_stride(m);  // A's scales of one K block: round_up(M, 4) floats

  if (warp_id == 4 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&full_bar[s], 1);     // the producer's arrive_expect_tx
      ptx::mbarrier_init(&empty_bar[s], 128);  // every consumer thread, after its wait_group and scale loads
    }
    ptx::fence_mbarrier_init();
  }
  __syncthreads();

  if (warp_id == 4) {
    // ---- producer: one thread streams this CTA's range of B, its group's rows of A and both scales ----
    if (ptx::elect_one_sync()) {
      const uint64_t evict_first = ptx::createpolicy_evict_first();  // B is read once
      const float* sfb_column    = sfb + bw_128x128_scale_index(tile, 0, k);
      // the group's scales: COLS floats, fewer in the last group (round_up(M, 4) is a multiple of 4, as COLS)
      const uint32_t sfa_bytes = uint32_t(min(int(SFA_FLOATS), sfa_floats - m0)) * 4;
      int stage                = 0;
      uint32_t empty_phase     = 1;  // 1 passes at once on the first lap
      for (int kt = k_begin; kt < k_end; ++kt) {
        ptx::mbarrier_wait(&empty_bar[stage], empty_phase, "empty_bar");
        // Both boxes are whole boxes: rows past N or M and K past K arrive as zeros, and count.
        ptx::mbarrier_arrive_expect_tx(&full_bar[stage], W::STAGE_BYTES + sfa_bytes + SFB_GROUP * 4);
        ptx::tma_load_2d_hint(ring + W::b_tile_offset(stage), &b_map, &full_bar[stage], kt * BLOCK_K, n0,
                              evict_first);
        ptx::tma_load_2d(ring + W::a_tile_offset(stage), &a_map, &full_bar[stage], kt * BLOCK_K, m0);
        uint8_t* scales = ring + W::scale_offset(stage);
        bulk_load(scales, sfa + bw_1x128_scale_index(m0, kt, m), sfa_bytes, &full_bar[stage]);
        bulk_load(scales + SFA_FLOATS * 4, sfb_column + kt / SFB_GROUP * SFB_GROUP, SFB_GROUP * 4,
                  &full_bar[stage]);
        if (++stage == NUM_STAGES) {
          stage = 0;
          empty_phase ^= 1;
        }
      }
    }
    return;  // the consumers wait for every load the producer issued: nothing of its is left in flight
  }

  // ---- consumer warpgroup: thread t of warp w holds, for half h of B's tile, B rows 64h + 16w + t/4 (+8)
  //      and A rows (C's) m0 + 8j + 2(t%4) + {0, 1}: acc[h][4j + 2r + e] ----
  const int t = threadIdx.x, lane = t % 32;
  float acc[HALVES][HALF_REGS], part0[HALVES][HALF_REGS], part1[HALVES][HALF_REGS];
#pragma unroll
  for (int h = 0; h < HALVES; ++h)
#pragma unroll
    for (int i = 0; i < HALF_REGS; ++i) acc[h][i] = 0.0f;
  const uint32_t ring_addr = ptx::smem_addr(ring);
  uint32_t count           = 0;  // K blocks issued: stage count % NUM_STAGES, phase (count / NUM_STAGES) % 2
  // The next K block's MMAs (its stage and phase from the count) into a partial, committed as one group.
  auto issue = [&](float (&part)[HALVES][HALF_REGS]) {
    const int stage = int(count % NUM_STAGES);
    ptx::mbarrier_wait(&full_bar[stage], (count / NUM_STAGES) % 2, "full_bar");
    wg::fence();  // part was read by its last promotion: order those reads before the MMAs overwrite it
#pragma unroll
    for (int ks = 0; ks < K_STEPS; ++ks) {
      const uint64_t a_rows = kmajor_desc_sm90(W::A_TILE, ring_addr + W::a_tile_offset(stage), ks);
#pragma unroll
      for (int h = 0; h < HALVES; ++h)
        mma_m64nNk32_e4m3<COLS>(
            part[h], kmajor_desc_sm90(B_TILE, ring_addr + W::b_tile_offset(stage), ks, h * WGMMA_M), a_rows,
            ks > 0 ? 1u : 0u);
    }
    wg::commit_group();
    ++count;
  };
  // K block kt's scales from its stage: sb for the tile times sa for this thread's columns (0 past M).
  using Scales      = float[COLS / 8][2];  // [j][e]: column 8j + 2(t%4) + e of the group
  auto load_scales = [&](Scales& s, int kt) {
    const float* scales = reinterpret_cast<const float*>(ring + W::scale_offset((kt - k_begin) % NUM_STAGES));
    const float sb      = scales[SFA_FLOATS + kt % SFB_GROUP];
#pragma unroll
    for (int j = 0; j < COLS / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int col = 8 * j + 2 * (lane % 4) + e;
        s[j][e]       = m0 + col < m ? scales[col] * sb : 0.0f;
      }
  };
  // K block kt's MMAs are done (the wait_group before this) and its scales read: its stage's release, then
  // its promotion.
  auto retire = [&](float (&part)[HALVES][HALF_REGS], int kt, const Scales& s) {
    ptx::mbarrier_arrive(&empty_bar[(kt - k_begin) % NUM_STAGES]);  // its MMAs are done and its scales read
#pragma unroll
    for (int h = 0; h < HALVES; ++h) {
      wg::fence_operands(part[h]);  // the wait_group before this is where part became valid
#pragma unroll
      for (int i = 0; i < HALF_REGS; ++i) acc[h][i] = fmaf(part[h][i], s[i / 4][i % 2], acc[h][i]);
    }
  };
  Scales s;
  if constexpr (W::PARTIALS == 2) {
    // Two partials in turn, a loop body of two K blocks (as `bw`'s wide kernel): K block kt + 1's MMAs run
    // while kt is promoted. One group stays in flight across the back edge (part0's); the tail drains both.
    // The scales are read after the wait, so that no registers hold them across it (at 64 wide the kernel
    // takes 242 a thread as it is).
    issue(part0);
    int kt = k_begin;
    for (; kt + 2 < k_end; kt += 2) {
      issue(part1);
      wg::wait_group<1>();  // kt (part0) done, kt + 1 (part1) may still run
      load_scales(s, kt);
      retire(part0, kt, s);
      issue(part0);
      wg::wait_group<1>();  // kt + 1 (part1) done, kt + 2 (part0) may still run
      load_scales(s, kt + 1);
      retire(part1, kt + 1, s);
    }
    if (kt + 1 < k_end) {  // two left: kt in flight in part0, kt + 1 to issue
      issue(part1);
      wg::wait_group<1>();
      load_scales(s, kt);
      retire(part0, kt, s);
      wg::wait_group<0>();
      load_scales(s, kt + 1);
      retire(part1, kt + 1, s);
    } else {  // one: kt, in flight in part0
      wg::wait_group<0>();
      load_scales(s, kt);
      retire(part0, kt, s);
    }
  } else {
    // One partial: each K block's scales are read while its MMAs run, then it is waited for and promoted;
    // the SM's other CTA runs meanwhile.
    for (int kt = k_begin; kt < k_end; ++kt) {
      issue(part0);
      load_scales(s, kt);
      wg::wait_group<0>();
      retire(part0, kt, s);
    }
  }

  // ---- the split's fixup (common/split_k.h; v8's decode kernel's) ----
  if (split.splits > 1) {
    float* own = workspace + size_t(slot) * PARTIAL_FLOATS;
#pragma unroll
    for (int i = 0; i < ACC_REGS / 4; ++i) {  // .cg: to L2, where the last split reads it
      const float* a4 = &acc[4 * i / HALF_REGS][4 * i % HALF_REGS];
      __stcg(reinterpret_cast<float4*>(own) + split_partial_float4(t, i, 128),  // common/split_k.h
             make_float4(a4[0], a4[1], a4[2], a4[3]));
    }
    // Thread 0 counts the split once all 128 threads have stored (common/fixup.cuh): the last split goes on.
    if (!count_split(counters + unit, split.splits, C_BAR, 128, t == 0, last_split)) return;
    // The sum in split order (its own partial read back too): the same bits whoever is last.
    float sum[ACC_REGS];
    const float4* first =
        reinterpret_cast<const float4*>(workspace + size_t(slot - s_idx) * PARTIAL_FLOATS);
    // common/fixup.cuh
    sum_split_partials<W::FIXUP_BATCH>(sum, first, split.splits, PARTIAL_FLOATS / 4,
                                    split_partial_float4(t, 0, 128), 128);
#pragma unroll
    for (int i = 0; i < ACC_REGS; ++i) acc[i / HALF_REGS][i % HALF_REGS] = sum[i];
  }

  // ---- store: C[row][col] for A row `row` < M and B row `col` < N, one bf16 at a time ----
  const int warp = t / 32;
#pragma unroll
  for (int i = 0; i < ACC_REGS; ++i) {
    const int h = i / HALF_REGS, q = i % HALF_REGS, j = q / 4, r = (q / 2) % 2, e = q % 2;
    const int col = n0 + h * WGMMA_M + warp * 16 + lane / 4 + 8 * r;
    const int row = m0 + 8 * j + 2 * (lane % 4) + e;
    if (row < m && col < n) c[size_t(row) * size_t(n) + col] = __float2bfloat16_rn(acc[h][q]);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// The launch (bw_sm90_check_args(g) passed): tensor maps with B's 128-row box and A's COLS-row box (rows past
// M zero-filled), the split from the occupancy query's resident CTAs over the tiles and groups, the workspace
// and counters where K is split.
template <int COLS, int PER_SM = 1>
Launch prepare(const BwGemmArgs& g) {
  using W = Width<COLS, PER_SM>;
  const CUtensorMap a_map =
      make_tensor_map(kmajor_tma_2d(g.m, g.k, COLS, BLOCK_K, 1, Swizzle::B128), g.a, "A (e4m3)");
  // B, read once: the L2 fetches 128 bytes on a miss, not 256 (common/tma.h, L2Promotion)
  TmaDesc b_desc          = kmajor_tma_2d(g.n, g.k, ROWS, BLOCK_K, 1, Swizzle::B128);
  b_desc.l2_promotion     = L2Promotion::B128;
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B (e4m3)");
  auto* kernel            = bw_decode_kernel<COLS, PER_SM>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, W::SMEM_BYTES));
  const int groups = num_tiles(g.m, COLS);
  if (groups > 2) {  // bw_decode_pick never asks for more (64 wide up to 128 rows)
    std::fprintf(stderr, "error: bw decode (sm_90a): %lld rows of A in groups of %d: at most two groups\n",
                 static_cast<long long>(g.m), COLS);
    std::exit(EXIT_BAD_INPUT);
  }
  PersistentGrid grid = persistent_grid(kernel, NUM_THREADS, W::SMEM_BYTES, groups, 1, 1, "bw decode (sm_90a)");
  const int units     = num_tiles(g.n, ROWS) * groups;
  const SplitK split =
      pick_split_k(units, num_k_tiles(g.k, BLOCK_K), grid.max_clusters * groups, MIN_SPLIT_K_TILES);
  grid.resize(units * split.splits / groups);  // one CTA per unit and split, resident or not: none waits
  std::shared_ptr<FixupMemory> fixup;  // the partials, and one counter per unit (FixupMemory's flags)
  if (split.splits > 1) fixup = std::make_shared<FixupMemory>(size_t(units) * split.splits, W::PARTIAL_FLOATS);
  float* workspace   = fixup ? fixup->workspace : nullptr;
  uint32_t* counters = fixup ? fixup->flags : nullptr;
  const float *sfa = g.sfa, *sfb = g.sfb;
  auto* c          = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, sfa, sfb, c, m, n, k, groups, split, workspace, counters);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}

}  // namespace bw_decode
