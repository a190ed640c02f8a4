// bw_decode_sm90.cuh: blockwise FP8 at decode (M <= 16), `bw`'s kernel when M is a batch of a few tokens:
// v8's decode tile (v8_tile_shapes/decode_sm90.cuh) with `bw`'s promotion. Included by matmul_bw_sm90.cu,
// whose `bw` takes it at M <= 16.
//
// At decode the wide kernel's 128-row tiles of A hold 1-16 real rows and zeros, and its 128-column tiles of B
// are few (N = 8192: 64, for 66 clusters of two CTAs): measured at 0.47-0.67x of cuBLASLt's blockwise FP8 GEMM
// at M = 16 on an H200 (docs/performance/mxfp8-bw-decode.md). As v8's decode kernel, the operands swap sides,
// C^T = B * A^T, and all the time goes to reading B once:
//  - B's 128 rows per CTA, exactly one 128-row block of B's 128x128 scales, are the MMA's M side (two wgmma
//    m64n16k32, e4m3, one per 64-row half); A's at most 16 rows are its N = 16 (rows past M arrive as zeros
//    from the TMA and their columns of the result are not stored).
//  - A stage is one 128-wide K block, one scale block: 16 KB of B, 2 KB of A, and the block's scales, copied by
//    the producer beside them onto the stage's full barrier: A's row scales (one bulk copy of the block's
//    column of round_up(M, 4) floats) and B's aligned group of 4 (as `bw`).
//  - `bw`'s promotion, turned around: the stage's four k32 steps accumulate into a partial P, then
//    acc += P * (sa[column] * sb), sb one value for the tile and K block, sa one per column of C^T (a token).
//    A column past M multiplies zeros; its scale is taken as 0, so that no padding float (copied with the
//    column) reaches C.
//  - K is split as in v8 (common/split_k.h), the last split of a tile adding the partials in split order; a
//    ring of 8 stages, one CTA per SM, B's loads with the evict-first hint and its map's 128-byte L2
//    promotion: v8's decode kernel's measured choices (its stages hold the same bytes: 16 KB of B).
// One consumer warpgroup (warps 0-3: both halves, 16 accumulators and 16 partials per thread) and one producer
// warp (4). Each stage is waited for (wait_group 0) and promoted before the next one's wgmmas: the kernel
// streams B, and its tensor core and promotion idle most of the time. Measured on an H200: 1.03-1.54x of
// cuBLASLt's blockwise FP8 GEMM at M = 4-16 at Llama 3 70B's layers and N = K = 4096 (the same page).
//
// PTX ISA sections: as matmul_bw_sm90.cu ("wgmma" m64n16k32 .e4m3, "cp.async.bulk"), and "atom" (.acq_rel,
// the split counter).
#pragma once

// (Needs common/split_k.h and common/fixup_memory.h, included by matmul_bw_sm90.cu before its namespace, and its
// bulk_load.)
namespace bw_decode {

constexpr int ROWS              = BW_BLOCK;  // rows of B per CTA: the MMA's M side, one 128-row scale block
constexpr int COLS              = 16;        // A's rows, padded: the MMA's N; the largest M this kernel takes
constexpr int BLOCK_K           = BW_BLOCK;  // K of one stage: 128 bytes of e4m3, one scale block, one swizzle span
constexpr int WGMMA_M           = 64;
constexpr int WGMMA_K           = 32;                  // fixed for fp8: 32 bytes of K per MMA
constexpr int HALVES            = ROWS / WGMMA_M;      // wgmma per K step, one per 64-row half of B's tile
constexpr int K_STEPS           = BLOCK_K / WGMMA_K;   // wgmma K steps per stage, into one partial
constexpr int NUM_STAGES        = 8;                   // 8 x 18 KB: one CTA per SM (v8's decode ring)
constexpr int NUM_THREADS       = 128 + 32;            // the consumer warpgroup (warps 0-3), the producer warp (4)
constexpr int ACC_REGS          = HALVES * WGMMA_M * COLS / 128;  // 16 fp32 accumulators per consumer thread
constexpr int PARTIAL_FLOATS    = ROWS * COLS;  // a CTA's partial: thread t's float4 i at float4 128 i + t
constexpr int FIXUP_BATCH       = 4;            // partials whose loads the last split issues before adding them
constexpr int MIN_SPLIT_K_TILES = 4;            // no split shorter than 4 K blocks (64 KB of B)
constexpr uint32_t C_BAR        = 1;            // named barrier of the consumer warpgroup

// The MMA's A operand is B's tile, its B operand A's rows: both K-major, e4m3, in the 128-byte swizzle.
constexpr KMajorTile B_TILE{ROWS, BLOCK_K, 1, Swizzle::B128};
constexpr KMajorTile A_TILE{COLS, BLOCK_K, 1, Swizzle::B128};
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t STAGE_BYTES  = B_TILE_BYTES + A_TILE_BYTES;  // one ring stage: [B tile][A tile]
// A stage's scales, after the ring, in a 128-byte slot: A's column of round_up(M, 4) <= 16 floats, then B's
// aligned group of 4 at float 16.
constexpr uint32_t SFA_FLOATS    = COLS;
constexpr uint32_t SFB_GROUP     = BW_LD_ALIGN;  // floats in one 16-byte group of B's scale column
constexpr uint32_t SCALE_SLOT    = 128;
constexpr uint32_t SCALES_OFFSET = NUM_STAGES * STAGE_BYTES;
constexpr uint32_t SMEM_BYTES    = NUM_STAGES * (STAGE_BYTES + SCALE_SLOT) + SMEM_ALIGN;
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + B_TILE_BYTES; }
GEMM_HD constexpr uint32_t scale_offset(int s) { return SCALES_OFFSET + uint32_t(s) * SCALE_SLOT; }

static_assert(ROWS % WGMMA_M == 0 && BLOCK_K % WGMMA_K == 0 && K_STEPS == 4, "whole halves, 4 k32 per stage");
static_assert(COLS % 8 == 0 && COLS >= 8 && COLS <= 256, "wgmma N: 8..256 in steps of 8");
static_assert(B_TILE_BYTES % 1024 == 0 && A_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms (8 rows x 128 B), so every tile starts 1024-B aligned");
static_assert(SCALES_OFFSET % 128 == 0 && (SFA_FLOATS + SFB_GROUP) * 4 <= SCALE_SLOT && SFA_FLOATS % 4 == 0,
              "both bulk copies 16-B aligned, within the slot");
static_assert(NUM_STAGES * STAGE_BYTES + SMEM_ALIGN <= 256 * 1024,
              "the ring ends below 256 KB: a wgmma descriptor's start-address field never carries");
static_assert(PARTIAL_FLOATS == ACC_REGS * 128, "the partial holds the warpgroup's accumulators");

#if defined(GEMM_HAS_WGMMA)
// P[64x16] (+)= A[64x32] * B[16x32]^T, e4m3 from shared-memory descriptors, fp32; `accumulate` is scale-d
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
#endif  // GEMM_HAS_WGMMA

// C^T = B * A^T for M <= 16. grid: tiles x split.splits CTAs, CTA b taking tile b / splits (rows 128 * tile of
// B, columns of C, and 128-row scale block `tile`) and split b % splits of its K blocks. workspace: one
// partial per CTA; counters: one per tile, 0 between launches.
__global__ void __launch_bounds__(NUM_THREADS, 1)
    bw_decode_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     const float* sfa, const float* sfb, __nv_bfloat16* c, int m, int n, int k, SplitK split,
                     float* workspace, uint32_t* counters) {
#if defined(GEMM_HAS_WGMMA)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);
  __shared__ uint64_t full_bar[NUM_STAGES];   // the TMA bytes and the scales of stage s have landed
  __shared__ uint64_t empty_bar[NUM_STAGES];  // every consumer thread is done with stage s (MMAs and scales)
  __shared__ uint32_t last_split;             // this CTA counted last on its tile's counter

  const int warp_id = threadIdx.x / 32;
  const int tile = int(blockIdx.x) / split.splits, s_idx = int(blockIdx.x) % split.splits;
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
    // ---- producer: one thread streams this CTA's range of B, A's rows and both scales through the ring ----
    if (ptx::elect_one_sync()) {
      const uint64_t evict_first = ptx::createpolicy_evict_first();  // B is read once
      const float* sfb_column    = sfb + bw_128x128_scale_index(tile, 0, k);
      const uint32_t sfa_bytes   = uint32_t(sfa_floats) * 4;
      int stage                  = 0;
      uint32_t empty_phase       = 1;  // 1 passes at once on the first lap
      for (int kt = k_begin; kt < k_end; ++kt) {
        ptx::mbarrier_wait(&empty_bar[stage], empty_phase, "empty_bar");
        // Both boxes are whole boxes: rows past N or M and K past K arrive as zeros, and count.
        ptx::mbarrier_arrive_expect_tx(&full_bar[stage], STAGE_BYTES + sfa_bytes + SFB_GROUP * 4);
        ptx::tma_load_2d_hint(ring + b_tile_offset(stage), &b_map, &full_bar[stage], kt * BLOCK_K, n0,
                              evict_first);
        ptx::tma_load_2d(ring + a_tile_offset(stage), &a_map, &full_bar[stage], kt * BLOCK_K, 0);
        uint8_t* scales = ring + scale_offset(stage);
        bulk_load(scales, sfa + bw_1x128_scale_index(0, kt, m), sfa_bytes, &full_bar[stage]);
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
  //      and A rows (C's) 8j + 2(t%4) + {0, 1}: acc[h][4j + 2r + e] ----
  const int t = threadIdx.x, lane = t % 32;
  float acc[HALVES][8], part[HALVES][8];
#pragma unroll
  for (int h = 0; h < HALVES; ++h)
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[h][i] = 0.0f;
  const uint32_t ring_addr = ptx::smem_addr(ring);
  int stage                = 0;
  uint32_t full_phase      = 0;
  for (int kt = k_begin; kt < k_end; ++kt) {
    ptx::mbarrier_wait(&full_bar[stage], full_phase, "full_bar");
    wg::fence();  // part was read by the last promotion: order those reads before the MMAs overwrite it
#pragma unroll
    for (int ks = 0; ks < K_STEPS; ++ks) {
      const uint64_t a_rows = kmajor_desc_sm90(A_TILE, ring_addr + a_tile_offset(stage), ks);
#pragma unroll
      for (int h = 0; h < HALVES; ++h)
        mma_m64n16k32_e4m3(part[h], kmajor_desc_sm90(B_TILE, ring_addr + b_tile_offset(stage), ks, h * WGMMA_M),
                           a_rows, ks > 0 ? 1u : 0u);
    }
    wg::commit_group();
    // The stage's scales while the MMAs run: sb for the tile, sa for this thread's four columns (0 past M).
    const float* scales = reinterpret_cast<const float*>(ring + scale_offset(stage));
    const float sb      = scales[SFA_FLOATS + kt % SFB_GROUP];
    float s[2][2];  // [j][e]: column 8j + 2(t%4) + e
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int col = 8 * j + 2 * (lane % 4) + e;
        s[j][e]       = col < m ? scales[col] * sb : 0.0f;
      }
    wg::wait_group<0>();
    ptx::mbarrier_arrive(&empty_bar[stage]);  // this thread's MMAs are done and its scales read
#pragma unroll
    for (int h = 0; h < HALVES; ++h) {
      wg::fence_operands(part[h]);  // the wait_group above is where part became valid
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[h][i] = fmaf(part[h][i], s[i / 4][i % 2], acc[h][i]);
    }
    if (++stage == NUM_STAGES) {
      stage = 0;
      full_phase ^= 1;
    }
  }

  // ---- the split's fixup (common/split_k.h; v8's decode kernel's) ----
  if (split.splits > 1) {
    float* own = workspace + size_t(blockIdx.x) * PARTIAL_FLOATS;
#pragma unroll
    for (int i = 0; i < ACC_REGS / 4; ++i)  // .cg: to L2, where the last split reads it
      __stcg(reinterpret_cast<float4*>(own) + split_partial_float4(t, i, 128),  // common/split_k.h
             make_float4(acc[i / 2][4 * (i % 2)], acc[i / 2][4 * (i % 2) + 1], acc[i / 2][4 * (i % 2) + 2],
                         acc[i / 2][4 * (i % 2) + 3]));
    // Thread 0 counts the split once all 128 threads have stored (common/fixup.cuh): the last split goes on.
    if (!count_split(counters + tile, split.splits, C_BAR, 128, t == 0, last_split)) return;
    // The sum in split order (its own partial read back too): the same bits whoever is last.
    float sum[ACC_REGS];
    const float4* first =
        reinterpret_cast<const float4*>(workspace + size_t(blockIdx.x - s_idx) * PARTIAL_FLOATS);
    // common/fixup.cuh
    sum_split_partials<FIXUP_BATCH>(sum, first, split.splits, PARTIAL_FLOATS / 4,
                                    split_partial_float4(t, 0, 128), 128);
#pragma unroll
    for (int i = 0; i < ACC_REGS; ++i) acc[i / 8][i % 8] = sum[i];
  }

  // ---- store: C[row][col] for A row `row` < M and B row `col` < N, one bf16 at a time ----
  const int warp = t / 32;
#pragma unroll
  for (int i = 0; i < ACC_REGS; ++i) {
    const int h = i / 8, j = (i / 4) % 2, r = (i / 2) % 2, e = i % 2;
    const int col = n0 + h * WGMMA_M + warp * 16 + lane / 4 + 8 * r;
    const int row = 8 * j + 2 * (lane % 4) + e;
    if (row < m && col < n) c[size_t(row) * size_t(n) + col] = __float2bfloat16_rn(acc[h][i % 8]);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// The launch (bw_sm90_check_args(g) passed, M <= COLS): tensor maps with B's 128-row box and A's 16-row box
// (rows past M zero-filled), the split from the occupancy query's resident CTAs, the workspace and counters
// where K is split.
inline Launch prepare(const BwGemmArgs& g) {
  const CUtensorMap a_map =
      make_tensor_map(kmajor_tma_2d(g.m, g.k, COLS, BLOCK_K, 1, Swizzle::B128), g.a, "A (e4m3)");
  // B, read once: the L2 fetches 128 bytes on a miss, not 256 (common/tma.h, L2Promotion)
  TmaDesc b_desc          = kmajor_tma_2d(g.n, g.k, ROWS, BLOCK_K, 1, Swizzle::B128);
  b_desc.l2_promotion     = L2Promotion::B128;
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B (e4m3)");
  CUDA_CHECK(cudaFuncSetAttribute(bw_decode_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  PersistentGrid grid = persistent_grid(bw_decode_kernel, NUM_THREADS, SMEM_BYTES, 1, 1, 1, "bw decode (sm_90a)");
  const int tiles     = num_tiles(g.n, ROWS);
  const SplitK split  = pick_split_k(tiles, num_k_tiles(g.k, BLOCK_K), grid.max_clusters, MIN_SPLIT_K_TILES);
  grid.resize(tiles * split.splits);  // one CTA per tile and split, resident or not: no CTA waits for another
  std::shared_ptr<FixupMemory> fixup;  // the partials, and one counter per tile (FixupMemory's flags)
  if (split.splits > 1) fixup = std::make_shared<FixupMemory>(size_t(tiles) * split.splits, PARTIAL_FLOATS);
  float* workspace   = fixup ? fixup->workspace : nullptr;
  uint32_t* counters = fixup ? fixup->flags : nullptr;
  const float *sfa = g.sfa, *sfb = g.sfb;
  auto* c          = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, bw_decode_kernel, a_map, b_map, sfa, sfb, c, m, n, k, split, workspace, counters);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}

}  // namespace bw_decode
