// decode.cuh: v8's decode kernel on Blackwell (v8s 16 wide, v8t 32, v8u 144, v8v 192, the token pair
// v8q-v8r; v8d takes it at M <= 32, and at 65-256 rows where B is long or its tiles fit one wave of pairs):
// the tile turned around.
// Included by matmul_v8.cu; the Hopper twin, decode_sm90.cuh, says why each choice (the same here).
//
// C^T = B * A^T for M <= 16: B's rows fill the MMA's M side, 128 per CTA (one cta_group::1 MMA of M = 128),
// and A's at most 16 rows are its N = 16 (the ISA's step at M = 128; rows past M arrive as zeros from the
// TMA and are not stored); for 17-32 rows of A the same kernel runs 32 wide (v8t: N = 32, 20 KB stages), and
// for 129-192 rows 144 or 192 wide (v8u, v8v: N = 144 or 192, rings of 6 and 5 stages of 34 and 40 KB).
// The accumulator is 128 TMEM lanes x COLS columns (an allocation of 32, or 256 at 144 and 192 wide): lane r
// holds B row n0 + r, column j A row j, so the epilogue's thread (lane) r holds column n0 + r of C's COLS
// rows, which it reads 16 columns at a time. K is
// split (common/split_k.h) so that tiles x splits CTAs fill the GPU in one wave (no split past one wave); the
// last split of a tile to count itself adds the partials in split order and stores C. Stages of 16 KB of B
// and 2 KB of A, a ring of 8, one CTA per SM, B's map with a 128-byte L2 promotion (the Hopper twin's
// measured choices, on an H200; not timed on a Blackwell GPU). The roles are v4's: warp 0
// loads, warp 1 allocates TMEM and issues the MMAs, warps 2-5 (one per TMEM lane quarter) are the epilogue;
// one tile per CTA.
//
// In clusters of two it is the token pair (v8q, v8x, v8y, v8z, v8o, v8r: 48, 64, 80, 96, 112 or 128 of A's
// rows per CTA, cta_group::1 MMAs of N = 48 .. 128; the Hopper twin's tile at 65-256 tokens): the two CTAs
// split A's rows and share B's tile, each multicasting one 64-row box of it into both. A stage is free once
// the MMAs of both CTAs have read it: each MMA thread's commit is multicast to the empty barrier of both (an
// arrival count of 2).
//
// Status: compiled for sm_100a; not run on Blackwell hardware by this project. Through the tcgen05 emulator
// it passes against cuBLAS on an H200 (Hopper; `matmul_v8 --emulate --variant v8s`, and v8t, v8u, v8v, the
// token pair's v8q-v8r); also model-checked (layout, CuTe's instruction descriptor, SASS). One tile per CTA,
// v4's roles; its protocol (a CTA alone's ring, the token pair's two) runs on the CPU model,
// tests/test_v8_token_pair_protocol.cpp.
//
// PTX ISA sections: as matmul_v8.cu (the cta_group::1 forms), and "atom" (.acq_rel, the split counter).
#pragma once

// (Needs common/split_k.h, included by the file that includes this one, before its namespace.)
namespace decode {

constexpr int ROWS              = 128;  // rows of B per CTA: the MMA's M, one per TMEM lane
constexpr int MAX_COLS          = 32;   // the widest decode width (v8t): v8d takes the kernel at M up to it
constexpr int BLOCK_K           = 64;   // K of one tile load: 128 bytes of bf16
constexpr int SLICE_K           = 64;   // K of one TMA box: one 128-byte swizzle span
constexpr int MMA_K             = 16;
constexpr int MAX_STAGES        = 8;
constexpr int GROUP_COLS        = 16;      // accumulator columns the epilogue reads (and stores) at a time
constexpr int EPILOGUE_WARP0    = 2;       // warps 2-5: the epilogue, one per TMEM lane quarter
constexpr int NUM_THREADS       = 6 * 32;  // TMA, MMA, 4 x epilogue
constexpr uint32_t EPILOGUE_BAR = 1;       // named barrier of the four epilogue warps
constexpr uint32_t RING_BUDGET  = 227 * 1024 - SMEM_ALIGN - 1024;  // the ring's share of a block's 227 KB

constexpr KMajorTile B_TILE{ROWS, BLOCK_K, 2, Swizzle::B128};  // the MMA's A operand
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
// The TMA boxes of a K tile (tests/test_stage_table.cpp checks them against the layout model's table): each
// operand's tile is one 2D box {64, rows} at (k0, row0).
constexpr int TMA_BOXES = 1;
GEMM_HD constexpr TmaBox tma_box(KMajorTile, int row0, int k0, int) { return {0, {k0, row0, 0}}; }
// The token pair (v8q .. v8r): B's tile in PAIR boxes stacked along its rows, box j (64 rows) issued by CTA j
// of the cluster and multicast to both; A's tile one box, as above (the Hopper twin's).
constexpr int PAIR = 2;  // CTAs of the token pair's cluster
GEMM_HD constexpr TmaBox pair_tma_box(KMajorTile t, int row0, int k0, int j) {
  return {uint32_t(j) * uint32_t(t.rows / PAIR) * 128u, {k0, row0 + j * (t.rows / PAIR), 0}};
}

// The kernel's widths (the Hopper twin's): A's rows padded to COLS, the MMA's N, 16 (v8s), 32 (v8t), 144
// (v8u) or 192 (v8v), and 48 to 128 per CTA of the token pair (v8q-v8r); the constants that follow from it.
template <int COLS_>
struct Width {
  static constexpr int COLS           = COLS_;
  // A CTA's partial: float4 q (columns 4q to 4q + 3) of lane r at float4 q * ROWS + r (common/split_k.h,
  // split_partial_float4: a warp's stores whole 128-byte lines; the Hopper twin's)
  static constexpr int PARTIAL_FLOATS = ROWS * COLS;
  // No split shorter than this many K tiles (common/split_k.h): 4 at 16 wide (64 KB of B); 96 at 32 wide,
  // where a split costs more than it brings on shorter K (on an H200, 32 x 4096 x 4096: 17.4 us in one split,
  // 18.6 in four; 32 x 8192 x 8192: 39.2 in one, 42.0 in two) and pays at the longest (32 x 8192 x 28672:
  // 117 us in two, 122 in one); 32 wider (the turned tiles, where a K tile is 4.5 to 6 times 16 wide's work,
  // and the token pair's widths).
  static constexpr int MIN_SPLIT_K_TILES = COLS == 16 ? 4 : COLS == 32 ? 96 : 32;
  // Partials whose loads the last split issues before adding them: 4 of a 16-column group (the registers)
  static constexpr int FIXUP_BATCH = 64 / GROUP_COLS;
  // The TMEM allocation: a power of 2 of at least 32 columns that holds the accumulator
  static constexpr int TMEM_COLS = COLS <= 32 ? 32 : COLS <= 64 ? 64 : COLS <= 128 ? 128 : 256;
  static constexpr KMajorTile A_TILE{COLS, BLOCK_K, 2, Swizzle::B128};  // the MMA's B operand
  static constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
  static constexpr uint32_t STAGE_BYTES  = B_TILE_BYTES + A_TILE_BYTES;  // one ring stage: [B tile][A tile]
  // As many stages as fit, 8 at most: 8 at 16 to 96 wide, 7 at 128, 6 at 144, 5 at 192
  static constexpr int NUM_STAGES =
      RING_BUDGET / STAGE_BYTES < MAX_STAGES ? int(RING_BUDGET / STAGE_BYTES) : MAX_STAGES;
  static constexpr uint32_t SMEM_BYTES = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;
  // kind::f16, BF16 x BF16 -> F32, both K-major, M = 128 (B's rows), N = COLS (A's).
  static constexpr uint32_t IDESC = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, ROWS, COLS);
  static GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
  static GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + B_TILE_BYTES; }
  static_assert(ROWS == 128 && COLS % 16 == 0 && COLS <= 256,
                "cta_group::1 M = 128: N = 16..256 in steps of 16");
  static_assert(COLS <= TMEM_COLS && TMEM_COLS >= 32 && (TMEM_COLS & (TMEM_COLS - 1)) == 0,
                "the accumulator fits in its allocation, a power of 2 of at least 32 columns");
  static_assert(COLS % GROUP_COLS == 0, "the epilogue reads whole groups of columns");
  static_assert(NUM_STAGES >= 4, "at least 4 loads of B in flight per SM");
  static_assert(A_TILE_BYTES % 1024 == 0,
                "A's tile is whole 1024-B swizzle atoms: every tile 1024-B aligned");
  static_assert(SMEM_BYTES + 1024 <= 227 * 1024, "the ring fits in the 227 KB of shared memory per block");
};
static_assert(B_TILE_BYTES % 1024 == 0, "B's tile is whole 1024-B swizzle atoms (8 rows x 128 B)");
static_assert(BLOCK_K % MMA_K == 0, "a tile holds whole MMA K steps");
static_assert(Width<MAX_COLS>::COLS == MAX_COLS, "the widest width is MAX_COLS");

// C^T = B * A^T for M <= COLS * CTAS. grid: tiles x split.splits clusters of CTAS CTAs, cluster b taking tile
// b / splits (rows 128 * tile of B, columns of C) and split b % splits of its K tiles, and its CTA of rank r
// A's rows [r COLS, (r + 1) COLS) (the token pair, CTAS = PAIR: each CTA multicasts one 64-row box of B's
// tile to both, and its MMAs' commit tells both that they have read the stage). workspace: one partial per
// CTA; counters: one per tile and rank, 0 between launches.
template <int COLS, int CTAS = 1>
__global__ void __launch_bounds__(NUM_THREADS)
    decode_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                  __nv_bfloat16* c, int m, int n, int k, SplitK split, float* workspace, uint32_t* counters) {
#if defined(GEMM_HAS_TCGEN05)
  using W                        = Width<COLS>;
  constexpr int FIXUP_BATCH      = W::FIXUP_BATCH;
  constexpr int PARTIAL_FLOATS   = W::PARTIAL_FLOATS;
  constexpr uint32_t STAGE_BYTES = W::STAGE_BYTES;
  constexpr KMajorTile A_TILE    = W::A_TILE;
  constexpr int NUM_STAGES = W::NUM_STAGES, TMEM_COLS = W::TMEM_COLS, GROUPS = COLS / GROUP_COLS;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);
  __shared__ uint64_t full_bar[NUM_STAGES];   // the TMA bytes of stage s have landed
  __shared__ uint64_t empty_bar[NUM_STAGES];  // the MMAs that read stage s are done (a commit)
  __shared__ uint64_t acc_full_bar;           // every MMA is done: the accumulator is final (a commit)
  __shared__ uint32_t tmem_slot;              // tcgen05.alloc writes the TMEM base address here
  __shared__ uint32_t last_split;             // this CTA counted last on its tile's counter
  static_assert(CTAS == 1 || CTAS == PAIR, "a CTA alone, or the token pair");
  constexpr uint16_t CLUSTER_MASK = (1u << CTAS) - 1;  // B's boxes and the commits to both CTAs of the pair

  const int warp_id = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int rank    = CTAS > 1 ? int(ptx::cluster_ctarank()) : 0;
  const int cluster = int(blockIdx.x) / CTAS;
  const int tile = cluster / split.splits, s_idx = cluster % split.splits;
  const int slot    = tile * CTAS + rank;  // this CTA's block of C: its counter, and its partials' row
  const int n0      = tile * ROWS;
  const int k_total = num_k_tiles(k, BLOCK_K);
  const int k_begin = split.begin(s_idx), k_end = split.end(s_idx, k_total);

  // ---- setup: barriers by one thread, TMEM by one whole warp (v4's) ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&full_bar[s], 1);   // the producer's arrive_expect_tx
      ptx::mbarrier_init(&empty_bar[s], CTAS);  // the MMA thread's commit, in the pair both CTAs'
    }
    ptx::mbarrier_init(&acc_full_bar, 1);  // the commit after the last K tile
    ptx::fence_mbarrier_init();
  } else if (warp_id == 1) {
    tc5::tmem_alloc(&tmem_slot, TMEM_COLS);
    tc5::tmem_relinquish_alloc_permit();
  }
  tc5::fence_before_thread_sync();
  if constexpr (CTAS > 1) {  // the peer's barriers initialised before any multicast or commit reaches them
    ptx::barrier_cluster_arrive();
    ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }
  tc5::fence_after_thread_sync();
  const uint32_t tmem_acc = tmem_slot;

  if (warp_id == 0) {
    // ---- producer: one thread streams this CTA's range of B (and A's rows beside it) through the ring ----
    if (ptx::elect_one_sync()) {
      const uint64_t evict_first = ptx::createpolicy_evict_first();  // B is read once
      int stage                  = 0;
      uint32_t empty_phase       = 1;  // 1 passes at once on the first lap
      for (int kt = k_begin; kt < k_end; ++kt) {
        ptx::mbarrier_wait(&empty_bar[stage], empty_phase, "empty_bar");
        // Both boxes are whole boxes: rows past N or M and K past K arrive as zeros, and count.
        ptx::mbarrier_arrive_expect_tx(&full_bar[stage], STAGE_BYTES);
        if constexpr (CTAS == 1) {
          ptx::tma_load_2d_hint(ring + W::b_tile_offset(stage), &b_map, &full_bar[stage], kt * BLOCK_K, n0,
                                evict_first);
        } else {  // this CTA's box of B's tile, into both CTAs (the full barrier at its offset in each)
          const TmaBox box = pair_tma_box(B_TILE, n0, kt * BLOCK_K, rank);
          ptx::tma_load_2d_multicast_hint(ring + W::b_tile_offset(stage) + box.smem_offset, &b_map,
                                          &full_bar[stage], CLUSTER_MASK, box.coords[0], box.coords[1],
                                          evict_first);
        }
        ptx::tma_load_2d(ring + W::a_tile_offset(stage), &a_map, &full_bar[stage], kt * BLOCK_K, rank * COLS);
        if (++stage == NUM_STAGES) {
          stage = 0;
          empty_phase ^= 1;
        }
      }
      // Exit: no commit still on its way to this CTA's empty_bar when it exits (v4's reason: the next CTA on
      // this SM initialises its barriers at the same offsets).
      for (int i = 0; i < NUM_STAGES; ++i) {
        ptx::mbarrier_wait(&empty_bar[stage], empty_phase, "empty_bar");
        if (++stage == NUM_STAGES) {
          stage = 0;
          empty_phase ^= 1;
        }
      }
    }
    __syncwarp();
  } else if (warp_id == 1) {
    // ---- mma: one thread issues the MMAs of each full stage ----
    if (ptx::elect_one_sync()) {
      int stage           = 0;
      uint32_t full_phase = 0;
      for (int kt = k_begin; kt < k_end; ++kt) {
        ptx::mbarrier_wait(&full_bar[stage], full_phase, "full_bar");
        tc5::fence_after_thread_sync();
        const uint32_t b_addr = ptx::smem_addr(ring + W::b_tile_offset(stage));
        const uint32_t a_addr = ptx::smem_addr(ring + W::a_tile_offset(stage));
#pragma unroll
        for (int ks = 0; ks < BLOCK_K / MMA_K; ++ks)  // the MMA's A: B's rows; its B: A's rows
          tc5::mma_f16_ss(tmem_acc, kmajor_desc_sm100(B_TILE, b_addr, ks),
                          kmajor_desc_sm100(A_TILE, a_addr, ks), W::IDESC,
                          (kt > k_begin || ks > 0) ? 1u : 0u);
        // arrives once the MMAs above have read this stage; in the pair, in both CTAs (each multicast a box
        // of B into this stage of both)
        if constexpr (CTAS == 1)
          tc5::commit(&empty_bar[stage]);
        else
          tc5::commit_multicast<1>(&empty_bar[stage], CLUSTER_MASK);
        if (++stage == NUM_STAGES) {
          stage = 0;
          full_phase ^= 1;
        }
      }
      tc5::commit(&acc_full_bar);  // arrives once every MMA above is done
    }
    __syncwarp();
  } else {
    // ---- epilogue (warps 2-5): thread r of the warp of lane quarter q holds B row n0 + 32q + r, that is
    //      column n0 + 32q + r of C, for C's COLS rows (the accumulator's columns) ----
    const uint32_t lane0 = tmem_warp_lane_base(warp_id);
    const int r          = int(lane0) + lane;              // 0..127: the thread's index in the partial
    const int col        = n0 + r;
    ptx::mbarrier_wait(&acc_full_bar, 0, "acc_full_bar");  // once per kernel: phase 0
    __syncwarp();
    tc5::fence_after_thread_sync();
    // Group g of the thread's columns: accumulator columns (C's rows) 16g .. 16g + 15, read from TMEM
    const auto load_group = [&](int g, float (&v)[GROUP_COLS]) {
      float lo[8], hi[8];
      tc5::ld_32x32b_x8(tmem_addr(tmem_acc, lane0, uint32_t(GROUP_COLS * g)), lo);
      tc5::ld_32x32b_x8(tmem_addr(tmem_acc, lane0, uint32_t(GROUP_COLS * g + 8)), hi);
      tc5::wait_ld();
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        v[j]     = lo[j];
        v[8 + j] = hi[j];
      }
    };
    // ... and stored: row rank COLS + 16g + j of C, if < M; the warp's 32 columns are 64 contiguous bytes
    const auto store_group = [&](int g, const float (&v)[GROUP_COLS]) {
      if (col >= n) return;
      const int row0 = rank * COLS + GROUP_COLS * g;
#pragma unroll
      for (int j = 0; j < GROUP_COLS; ++j)
        if (row0 + j < m) c[size_t(row0 + j) * size_t(n) + col] = __float2bfloat16_rn(v[j]);
    };

    if (split.splits == 1) {
#pragma unroll 1
      for (int g = 0; g < GROUPS; ++g) {
        float v[GROUP_COLS];
        load_group(g, v);
        store_group(g, v);
      }
      tc5::fence_before_thread_sync();  // the loads are ordered before the teardown's barrier
    } else {  // the split's fixup (common/split_k.h; the Hopper twin's)
      float* own = workspace + (size_t(slot) * split.splits + s_idx) * PARTIAL_FLOATS;
#pragma unroll 1
      for (int g = 0; g < GROUPS; ++g) {
        float v[GROUP_COLS];
        load_group(g, v);
#pragma unroll
        for (int j = 0; j < GROUP_COLS / 4; ++j)  // .cg: to L2, where the last split reads it
          __stcg(reinterpret_cast<float4*>(own) + split_partial_float4(r, GROUP_COLS / 4 * g + j, ROWS),
                 make_float4(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]));
      }
      tc5::fence_before_thread_sync();  // the loads ordered before the barriers below (and the teardown's)
      // the epilogue's thread 0 counts the split once all 128 have stored (common/fixup.cuh): the last stores
      if (count_split(counters + slot, split.splits, EPILOGUE_BAR, 128, r == 0, last_split)) {
        // the sum in split order, FIXUP_BATCH partials' loads at a time (the Hopper twin's), group by group
        const float4* first =
            reinterpret_cast<const float4*>(workspace + size_t(slot) * split.splits * PARTIAL_FLOATS);
#pragma unroll 1
        for (int g = 0; g < GROUPS; ++g) {
          float sum[GROUP_COLS];
          // common/fixup.cuh
          sum_split_partials<FIXUP_BATCH>(sum, first, split.splits, PARTIAL_FLOATS / 4,
                                          split_partial_float4(r, GROUP_COLS / 4 * g, ROWS), ROWS);
          store_group(g, sum);
        }
      }
    }
  }

  // ---- teardown: every TMEM read is done before the allocating warp frees it; in the pair, the cluster
  //      barrier also keeps each CTA alive while the peer may still signal its barriers ----
  tc5::fence_before_thread_sync();
  if constexpr (CTAS > 1) {
    ptx::barrier_cluster_arrive();
    ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }
  if (warp_id == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc(tmem_acc, TMEM_COLS);
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without tcgen05: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_TCGEN05
}

// The launch at one width (the Hopper twin's): tensor maps with B's 128-row box (64 rows in the token pair,
// one per CTA) and A's COLS-row box (rows past M zero-filled), the split from the occupancy query's resident
// CTAs (or pairs), the workspace and counters where K is split.
template <int COLS, int CTAS = 1>
Launch prepare(const GemmArgs& g) {
  using W = Width<COLS>;
  const CUtensorMap a_map =
      make_tensor_map(kmajor_tma_2d(g.m, g.k, COLS, SLICE_K, 2, Swizzle::B128), g.a, "A");
  // B, read once: the L2 fetches 128 bytes on a miss, not 256 (common/tma.h, L2Promotion)
  TmaDesc b_desc          = kmajor_tma_2d(g.n, g.k, ROWS / CTAS, SLICE_K, 2, Swizzle::B128);
  b_desc.l2_promotion     = L2Promotion::B128;
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel            = decode_kernel<COLS, CTAS>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, W::SMEM_BYTES));
  PersistentGrid grid = persistent_grid(kernel, NUM_THREADS, W::SMEM_BYTES, CTAS, 1, 1, "v8s-v8v, v8q-v8r");
  const int tiles     = num_tiles(g.n, ROWS);
  const SplitK split =
      pick_split_k(tiles, num_k_tiles(g.k, BLOCK_K), grid.max_clusters, W::MIN_SPLIT_K_TILES);
  grid.resize(tiles * split.splits);  // a cluster per tile and split, resident or not: none waits for another
  // the partials, and one counter per tile and rank (FixupMemory's flags)
  std::shared_ptr<FixupMemory> fixup;
  if (split.splits > 1)
    fixup = std::make_shared<FixupMemory>(size_t(tiles) * CTAS * split.splits, W::PARTIAL_FLOATS);
  float* workspace   = fixup ? fixup->workspace : nullptr;
  uint32_t* counters = fixup ? fixup->flags : nullptr;
  auto* c            = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, c, m, n, k, split, workspace, counters);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}

// v8d's launch at M <= MAX_COLS: the narrower width that holds M (nothing for --trace: common/harness.h,
// untraced_pick).
inline Launch prepare_picked(const GemmArgs& g, DeviceTrace* trace) {
  if (g.m <= Width<16>::COLS)
    return untraced_pick(prepare<16>, g, trace, "the decode kernel (v8s) at M <= 16");
  return untraced_pick(prepare<32>, g, trace, "the decode kernel 32 wide (v8t) at 16 < M <= 32");
}

// v8d's launch at 129-192 rows where common/split_k.h's pick_turned_width takes the tile turned around (144
// or 192 wide, from one CTA per SM; the Hopper twin's rule, measured on an H200); an empty Launch where it
// does not.
inline Launch prepare_turned_picked(const GemmArgs& g, DeviceTrace* trace) {
  if (g.m <= 128 || g.m > 192) return {};
  const int slots =
      resident_clusters(decode_kernel<144>, NUM_THREADS, Width<144>::SMEM_BYTES, 1, "v8u");
  const int width = pick_turned_width(g.m, num_tiles(g.n, ROWS), num_k_tiles(g.k, BLOCK_K), slots);
  if (width == 144)
    return untraced_pick(prepare<144>, g, trace, "the tile turned around 144 wide (v8u) at 128 < M <= 144");
  if (width == 192)
    return untraced_pick(prepare<192>, g, trace, "the tile turned around 192 wide (v8v) at 144 < M <= 192");
  return {};
}

// v8d's launch at 65-256 rows where common/split_k.h's pick_token_pair takes the token pair (48, 64, 80, 96,
// 112 or 128 of A's rows per CTA, from the pairs resident at once; the Hopper twin's rule, measured on an
// H200); an empty Launch where it does not.
inline Launch prepare_pair_picked(const GemmArgs& g, DeviceTrace* trace) {
  if (g.m <= 64 || g.m > 256) return {};
  using W         = Width<64>;  // one CTA per SM at every width
  const int slots = resident_clusters(decode_kernel<64, PAIR>, NUM_THREADS, W::SMEM_BYTES, PAIR, "v8q-v8r");
  const int width = pick_token_pair(g.m, num_tiles(g.n, ROWS), num_k_tiles(g.k, BLOCK_K), slots);
  if (width == 48)
    return untraced_pick(prepare<48, PAIR>, g, trace, "the token pair 48 wide (v8q) at 64 < M <= 96");
  if (width == 64) return untraced_pick(prepare<64, PAIR>, g, trace, "the token pair (v8x) at 96 < M <= 128");
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
// (the MMA's A operand is B's 128-row tile, its B operand A's COLS rows; a ring of 8 small stages, 6 or 5 at
// 144 and 192 wide), and the shapes it takes (M <= COLS).
template <int COLS>
SmemTiles smem_tiles() {
  return {B_TILE,  Width<COLS>::A_TILE, ROWS,   /*tma_3d=*/false, Width<COLS>::NUM_STAGES,
          SLICE_K, TMA_BOXES,           tma_box};
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
  SmemTiles t{B_TILE,  Width<COLS>::A_TILE, ROWS,        /*tma_3d=*/false, Width<COLS>::NUM_STAGES,
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
