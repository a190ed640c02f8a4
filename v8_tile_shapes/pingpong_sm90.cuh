// pingpong_sm90.cuh: v8's ping-pong kernel on Hopper (v8p): each consumer warpgroup a tile of its own, one
// storing C while the other multiplies. Included by matmul_v8_sm90.cu.
//
// The wide kernel's two consumer warpgroups share a 128 x 256 tile (64 rows each) and so reach its epilogue
// together: while both store C the tensor pipe waits. Where a tile has few K tiles (v8d takes this kernel at
// K <= 2048: pick_pingpong, common/streamk.h) that wait is a large share of the tile's time
// (docs/performance/short-k.md: the pipe 73% busy at 8192 x 8192 x 512, where cuBLAS's fastest kernels, which
// by their names are ping-pong kernels, reach 93%).
// Here the warpgroups take turns instead:
//  - Each consumer warpgroup owns a whole 128 x 128 tile (two wgmma m64n128k16 per K step, one per 64-row
//    half: 128 accumulators a thread, as the wide kernel's 64 x 256). Warpgroup w takes turns w, w + 2, ...
//    of the CTA's tiles (a persistent grid, v6b's grouped order over 128 x 128 tiles).
//  - The producer fills one ring in turn order, so warpgroup w's K tile kt of turn i sits at ring position
//    i * K_TILES + kt: each warpgroup finds its stages and phases by counting, and releases them as it goes.
//  - An order barrier per warpgroup keeps their main loops apart: a warpgroup issues its tile's wgmmas only
//    after the other has issued all of its previous tile's. Then one's epilogue (stmatrix into its own C
//    buffer, a TMA store) runs under the other's main loop.
//  - 128 columns (v8p), or 144 (v8w: wgmma m64n144k16, 144 accumulators a thread), where 144-wide tiles
//    need fewer turns of the grid (1536 x 1536: 11 x 12 = 132 tiles on 132 SMs, against 144 of 128 x 128):
//    v8d picks the width (prepare_picked). A 144-wide tile's C is two 64-column boxes and a 16-column one.
//  - A CTA alone (v8p, v8w: each loads its own A and B tiles), or in CTA pairs (v8c, CTAS = 2; v8d from
//    K = 1024: pick_pingpong_pair): two vertically adjacent tiles, each CTA loading its A tile and one 64-row
//    half of B's, multicast to both; a stage is freed by the warpgroup that read it in each CTA (cluster-scope
//    arrivals), so each SM asks the L2 for 24 KB per K tile instead of 32 (docs/performance/short-k.md).
// Whole tiles only (no stream-K), C stored by TMA only (N % 8 == 0). On Blackwell the same overlap comes from
// the TMEM's two accumulators (stage 6), so this kernel has no sm_100a twin.
//
// PTX ISA sections: as matmul_v8_sm90.cu ("wgmma" m64n128k16).
#pragma once

namespace pingpong {

constexpr int ROWS          = 128;  // rows of a warpgroup's tile: two wgmma of 64
constexpr int COLS          = 128;  // v8p's columns (the wgmma's N); WIDE_COLS: v8w's
constexpr int WIDE_COLS     = 144;
constexpr int BLOCK_K       = 64;  // K of one stage: one 128-byte swizzle span
constexpr int WGMMA_M       = 64;
constexpr int WGMMA_K       = 16;
constexpr int HALVES        = ROWS / WGMMA_M;         // wgmma per K step
constexpr int CONSUMERS     = 2;                      // consumer warpgroups, each on its own tiles
constexpr int NUM_THREADS   = 128 * (1 + CONSUMERS);  // + the producer warpgroup
constexpr int PRODUCER_REGS = 40;                     // as the wide kernel's split of 384 x 168 registers
constexpr int CONSUMER_REGS = 232;
constexpr int C_BOX_COLS    = 64;  // a TMA store box: 128 rows x 128 bytes
constexpr int GROUP_M       = 16;  // the grouped order's rows of tiles per group

constexpr KMajorTile A_TILE{ROWS, BLOCK_K, 2, Swizzle::B128};
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t C_BOX_BYTES  = ROWS * C_BOX_COLS * 2;  // 16 KB
constexpr int PAIR          = 2;  // CTAs of v8c's cluster: two vertically adjacent tiles sharing B's
// Where the TMA boxes of a K tile go (the layout model's table): one box per operand, the whole tile; in the
// pair (v8c) B's tile is two boxes of half its rows, box j issued by CTA j and multicast to both.
constexpr int TMA_BOXES = 1;
GEMM_HD constexpr TmaBox tma_box(KMajorTile, int row0, int k0, int) { return {0, {k0, row0, 0}}; }
GEMM_HD constexpr TmaBox pair_tma_box(KMajorTile t, int row0, int k0, int j) {
  return {uint32_t(j) * uint32_t(t.rows / PAIR) * 128u, {k0, row0 + j * (t.rows / PAIR), 0}};
}

// What follows from a tile's width TILE_N (128: v8p, 144: v8w).
template <int TILE_N>
struct Width {
  static constexpr int ACC_REGS = HALVES * WGMMA_M * TILE_N / 128;  // fp32 accumulators per consumer thread
  static constexpr KMajorTile B_TILE{TILE_N, BLOCK_K, 2, Swizzle::B128};
  static constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
  static constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
  // C: whole 64-column boxes in the 128-byte swizzle, then (144 wide) a 16-column box, unswizzled
  static constexpr int C_BOXES         = TILE_N / C_BOX_COLS;
  static constexpr int C_TAIL_COLS     = TILE_N % C_BOX_COLS;
  static constexpr uint32_t C_WG_BYTES = C_BOXES * C_BOX_BYTES + ROWS * C_TAIL_COLS * 2;  // a warpgroup's C
  // The ring gets what the two C buffers leave of the 227 KB: 5 stages of 32 KB + 64 KB of C (128 wide), 4
  // of 34 KB + 72 KB (144 wide).
  static constexpr int NUM_STAGES =
      int((227 * 1024 - CONSUMERS * C_WG_BYTES - SMEM_ALIGN - 1024) / STAGE_BYTES);
  static constexpr uint32_t C_OFFSET   = NUM_STAGES * STAGE_BYTES;
  static constexpr uint32_t SMEM_BYTES = C_OFFSET + CONSUMERS * C_WG_BYTES + SMEM_ALIGN;
  static GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
  static GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
  // Byte offset in a warpgroup's C buffer of row `row` (0..127) and 8-column chunk `chunk` (0..TILE_N/8 - 1):
  // box chunk / 8, and inside it the 128-byte swizzle (16-byte unit u of row r at u ^ (r % 8)), as the TMA
  // store with a SWIZZLE_128B map reads its box; past the whole boxes, the tail box's rows of 32 bytes.
  static GEMM_HD constexpr uint32_t c_offset(int row, int chunk) {
    return chunk < C_BOXES * 8 ? uint32_t(chunk / 8) * C_BOX_BYTES + uint32_t(row) * 128 +
                                     uint32_t(((chunk % 8) ^ (row % 8)) * 16)
                               : C_BOXES * C_BOX_BYTES + uint32_t(row) * (C_TAIL_COLS * 2) +
                                     uint32_t(chunk - C_BOXES * 8) * 16;
  }
  static_assert(TILE_N % 16 == 0 && TILE_N <= 256,
                "wgmma N: a multiple of 16 here (stmatrix pairs of chunks)");
  static_assert(C_TAIL_COLS == 0 || C_TAIL_COLS == 16, "a tail box of one stmatrix pair of chunks");
  static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0 && C_BOX_BYTES % 1024 == 0,
                "every tile and box starts on a whole 1024-B swizzle atom");
  static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
  static_assert(SMEM_BYTES + 1024 <= 227 * 1024, "the ring and both C buffers fit in 227 KB");
  static_assert(NUM_STAGES * STAGE_BYTES + SMEM_ALIGN <= 256 * 1024,
                "descriptors' start address below 256 KB");
  static_assert(CONSUMER_REGS >= ACC_REGS + 32, "a consumer needs its accumulators plus room for addresses");
};
static_assert(128 * (PRODUCER_REGS + CONSUMERS * CONSUMER_REGS) <= 65536 / NUM_THREADS / 8 * 8 * NUM_THREADS,
              "registers after setmaxnreg fit the CTA's launch allocation");
static_assert(Width<COLS>::c_offset(9, 10) == C_BOX_BYTES + 9 * 128 + ((0x2 ^ 0x1) * 16),
              "box 1, row 9, unit 2 ^ 1");
static_assert(Width<WIDE_COLS>::c_offset(9, 17) == 2 * C_BOX_BYTES + 9 * 32 + 16,
              "the tail box, row 9, chunk 1");
static_assert(Width<COLS>::NUM_STAGES == 5 && Width<WIDE_COLS>::NUM_STAGES == 4,
              "the rings the page describes");

// C = A * B^T over 128 x TILE_N tiles. grid: persistent, CTA b taking turns b, b + gridDim.x, ... of the
// grouped order; warpgroup 1 + w the turns i with i % 2 == w. c_tail_map: C's 16-column boxes (144 wide).
template <int TILE_N, int CTAS = 1>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    pingpong_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                    const __grid_constant__ CUtensorMap c_map, const __grid_constant__ CUtensorMap c_tail_map,
                    int m, int n, int k) {
#if defined(GEMM_HAS_WGMMA)
  using W                        = Width<TILE_N>;
  constexpr int ACC_REGS         = W::ACC_REGS;
  constexpr int NUM_STAGES       = W::NUM_STAGES;
  constexpr uint32_t STAGE_BYTES = W::STAGE_BYTES;
  constexpr KMajorTile B_TILE    = W::B_TILE;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);
  __shared__ uint64_t full_bar[NUM_STAGES];   // the TMA bytes of stage s have landed
  __shared__ uint64_t empty_bar[NUM_STAGES];  // the warpgroup that read stage s is done with it
  __shared__ uint64_t order_bar[CONSUMERS];   // order_bar[w]: warpgroup w may issue its next tile's wgmmas
  static_assert(CTAS == 1 || CTAS == PAIR, "a CTA alone, or a pair sharing B's tile");
  constexpr uint16_t CLUSTER_MASK = (1u << CTAS) - 1;  // B's boxes multicast to both CTAs of the pair: 0b11

  const int warp_id = threadIdx.x / 32, warpgroup = threadIdx.x / 128;
  const int rank    = CTAS > 1 ? int(ptx::cluster_ctarank()) : 0;
  // The schedule's units: a tile (a CTA alone), or two vertically adjacent tiles (the pair), CTA `rank` the
  // rank-th; both CTAs of a pair take the same units in the same turns, so their rings stay in step.
  const int units_m = num_tiles(m, ROWS * CTAS), tiles_n = num_tiles(n, TILE_N);
  const int k_tiles = num_k_tiles(k, BLOCK_K);
  const TileSchedule<ScheduleKind::Grouped> order(units_m, tiles_n, int(gridDim.x) / CTAS,
                                                  int(blockIdx.x) / CTAS, 1, 0, GROUP_M / CTAS);
  const int turns = order.num_turns();

  if (threadIdx.x == 0) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&full_bar[s], 1);  // the producer's arrive_expect_tx
      // one thread of the warpgroup that read it, in each CTA of the pair (both read the boxes each multicasts)
      ptx::mbarrier_init(&empty_bar[s], CTAS);
    }
    for (int w = 0; w < CONSUMERS; ++w) ptx::mbarrier_init(&order_bar[w], 1);  // one thread of the other
    ptx::fence_mbarrier_init();
  }
  if constexpr (CTAS > 1) {  // the peer's barriers initialised before any multicast or arrival reaches them
    ptx::barrier_cluster_arrive_relaxed();
    ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }

  if (warpgroup == 0) {
    // ---- producer: one thread loads every turn's K tiles, in turn order, into the one ring ----
    wg::setmaxnreg_dec<PRODUCER_REGS>();
    if (warp_id == 0 && ptx::elect_one_sync()) {
      int stage            = 0;
      uint32_t empty_phase = 1;  // 1 passes at once on the first lap
      for (int turn = 0; turn < turns; ++turn) {
        const ScheduledTile t = order.tile(turn);
        const int row0        = (t.m * CTAS + rank) * ROWS;  // this CTA's rows of A (and C)
        for (int kt = 0; kt < k_tiles; ++kt) {
          ptx::mbarrier_wait(&empty_bar[stage], empty_phase, "empty_bar");
          // Whole boxes: rows past M or N and K past K arrive as zeros, and count. A box wholly past M (the
          // pair's padding tile, M odd in tiles) is not issued, nor counted.
          ptx::mbarrier_arrive_expect_tx(&full_bar[stage],
                                         row0 < m ? STAGE_BYTES : STAGE_BYTES - A_TILE_BYTES);
          if (row0 < m)
            ptx::tma_load_2d(ring + W::a_tile_offset(stage), &a_map, &full_bar[stage], kt * BLOCK_K, row0);
          if constexpr (CTAS == 1) {
            ptx::tma_load_2d(ring + W::b_tile_offset(stage), &b_map, &full_bar[stage], kt * BLOCK_K,
                             t.n * TILE_N);
          } else {  // this CTA's half of B's tile, into both CTAs (the full barrier at its offset in each)
            const TmaBox box = pair_tma_box(B_TILE, t.n * TILE_N, kt * BLOCK_K, rank);
            ptx::tma_load_2d_multicast(ring + W::b_tile_offset(stage) + box.smem_offset, &b_map,
                                       &full_bar[stage], CLUSTER_MASK, box.coords[0], box.coords[1]);
          }
          if (++stage == NUM_STAGES) {
            stage = 0;
            empty_phase ^= 1;
          }
        }
      }
      // The pair: every stage's last release, by the consumers of both CTAs, has landed before this CTA may
      // leave (common/ptx.cuh; the peer's multicasts into the ring are each waited for by its consumers)
      if constexpr (CTAS > 1) ptx::producer_tail<NUM_STAGES>(empty_bar, stage, empty_phase);
    }
    return;  // the consumers wait for every load the producer issued: nothing of its is left in flight
  }

  // ---- consumer warpgroup w: turns w, w + 2, ...; thread t of warp v (in its warpgroup) holds, for half h,
  //      rows 64h + 16v + t/4 (+8), columns 8j + 2(t%4) + {0, 1} of its tile: acc[h][4j + 2r + e] ----
  wg::setmaxnreg_inc<CONSUMER_REGS>();
  const int w    = __shfl_sync(0xffffffffu, warpgroup - 1, 0);  // warp-uniform, for ptxas
  const int lane = threadIdx.x % 32, warp = warp_id % 4;
  const bool leader    = warp == 0 && ptx::elect_one_sync();  // releases stages, passes the turn, stores C
  const uint32_t c_bar = 1 + uint32_t(w);                     // named barrier of the warpgroup's 128 threads
  uint8_t* c_buf       = ring + W::C_OFFSET + uint32_t(w) * W::C_WG_BYTES;
  // The descriptors of stage 0, built once and moved per stage, K step and half by one add (the wide
  // kernel's K loop does the same: desc_sm90_advance); the ring's address through a shuffle (warp-uniform).
  const uint32_t ring_addr = __shfl_sync(0xffffffffu, ptx::smem_addr(ring), 0);
  const uint64_t a_desc0   = kmajor_desc_sm90(A_TILE, ring_addr + W::a_tile_offset(0), 0);
  const uint64_t b_desc0   = kmajor_desc_sm90(B_TILE, ring_addr + W::b_tile_offset(0), 0);
  uint32_t empty_bar0[CTAS];  // the pair: stage 0's empty barrier in each CTA of the cluster
#pragma unroll
  for (int peer = 0; peer < CTAS; ++peer)
    empty_bar0[peer] = CTAS > 1 ? ptx::mapa_shared_cluster(&empty_bar[0], uint32_t(peer)) : 0u;
  float acc[HALVES][ACC_REGS / HALVES];

  for (int turn = w, j = 0; turn < turns; turn += CONSUMERS, ++j) {
    const ScheduledTile t = order.tile(turn);
    const int row0        = (t.m * CTAS + rank) * ROWS;
    // Wait for the other warpgroup to have issued its previous tile's wgmmas (warpgroup 0's first tile
    // waits for nobody): order_bar[w]'s phase p completes when the other issued its p-th tile before ours.
    if (w == 1)
      ptx::mbarrier_wait(&order_bar[1], uint32_t(j) & 1, "order_bar");
    else if (j > 0)
      ptx::mbarrier_wait(&order_bar[0], uint32_t(j - 1) & 1, "order_bar");
    uint32_t ring_k = uint32_t(turn) * uint32_t(k_tiles);  // this tile's first K tile in the ring
    for (int kt = 0; kt < k_tiles; ++kt, ++ring_k) {
      const int stage = int(ring_k % NUM_STAGES);
      ptx::mbarrier_wait(&full_bar[stage], (ring_k / NUM_STAGES) & 1, "full_bar");
      wg::fence();
      const uint32_t stage_bytes = uint32_t(stage) * STAGE_BYTES;  // A's and B's tile alike
#pragma unroll
      for (int ks = 0; ks < BLOCK_K / WGMMA_K; ++ks) {
        const uint64_t b_desc = desc_sm90_advance(b_desc0, stage_bytes + kmajor_kstep_offset(B_TILE, ks));
#pragma unroll
        for (int h = 0; h < HALVES; ++h) {
          const uint64_t a_desc = desc_sm90_advance(a_desc0, stage_bytes + kmajor_kstep_offset(A_TILE, ks) +
                                                                 kmajor_row_offset(A_TILE, h * WGMMA_M));
          wg::mma_m64nNk16_bf16<TILE_N>(acc[h], a_desc, b_desc, kt > 0 || ks > 0 ? 1u : 0u);
        }
      }
      wg::commit_group();
      wg::wait_group<1>();  // the wgmmas of kt - 1 are done: their stage is free
      if constexpr (CTAS == 1) {
        if (kt > 0 && leader) ptx::mbarrier_arrive(&empty_bar[(ring_k + NUM_STAGES - 1) % NUM_STAGES]);
      } else {  // in both CTAs: each multicast half of B's tile into the stage
        const uint32_t prev = (ring_k + NUM_STAGES - 1) % NUM_STAGES;
#pragma unroll
        for (int peer = 0; peer < CTAS; ++peer)
          ptx::mbarrier_arrive_cluster_elected(empty_bar0[peer] + prev * uint32_t(sizeof(uint64_t)),
                                               kt > 0 && warp == 0);
      }
    }
    // Every wgmma of this tile is issued: the other warpgroup may start its main loop
    if (leader) ptx::mbarrier_arrive(&order_bar[1 - w]);
    wg::wait_group<0>();  // accumulators final
    if constexpr (CTAS == 1) {
      if (leader) ptx::mbarrier_arrive(&empty_bar[(ring_k + NUM_STAGES - 1) % NUM_STAGES]);
    } else {
      const uint32_t last = (ring_k + NUM_STAGES - 1) % NUM_STAGES;
#pragma unroll
      for (int peer = 0; peer < CTAS; ++peer)
        ptx::mbarrier_arrive_cluster_elected(empty_bar0[peer] + last * uint32_t(sizeof(uint64_t)), warp == 0);
    }

    // ---- epilogue, under the other warpgroup's main loop: bf16 into this warpgroup's C buffer, in the
    //      128-byte swizzle, then the TMA store of its boxes. The buffer is free once the previous tile's
    //      stores have read it. ----
    if (leader) ptx::bulk_wait_group_read<0>();
    ptx::named_barrier_sync(c_bar, 128);
    // stmatrix: lane l addresses row (l%8) of 8x8 matrix q = l/8; matrices 0, 1 are rows 0-7, 8-15 of column
    // chunk jc, matrices 2, 3 the same rows of chunk jc + 1
    const int q = lane / 8;
#pragma unroll
    for (int h = 0; h < HALVES; ++h) {
      const int r = h * WGMMA_M + warp * 16 + (q % 2) * 8 + lane % 8;
#pragma unroll
      for (int jj = 0; jj < TILE_N / 16; ++jj) {
        const int jc = 2 * jj;
        ptx::stmatrix_x4(ptx::smem_addr(c_buf + W::c_offset(r, jc + q / 2)),
                         pack_bf16x2(acc[h][4 * jc + 0], acc[h][4 * jc + 1]),
                         pack_bf16x2(acc[h][4 * jc + 2], acc[h][4 * jc + 3]),
                         pack_bf16x2(acc[h][4 * jc + 4], acc[h][4 * jc + 5]),
                         pack_bf16x2(acc[h][4 * jc + 6], acc[h][4 * jc + 7]));
      }
    }
    ptx::fence_proxy_async_shared();  // the stmatrix writes, visible to the TMA store (async proxy)
    ptx::named_barrier_sync(c_bar, 128);
    if (leader && row0 < m) {  // the pair's padding tile stores nothing
      for (int b = 0; b < W::C_BOXES; ++b)  // boxes past N are not issued; the others clip at M and N
        if (t.n * TILE_N + b * C_BOX_COLS < n)
          ptx::tma_store_2d(&c_map, c_buf + b * C_BOX_BYTES, t.n * TILE_N + b * C_BOX_COLS, row0);
      if constexpr (W::C_TAIL_COLS > 0) {
        const int col = t.n * TILE_N + W::C_BOXES * C_BOX_COLS;
        if (col < n) ptx::tma_store_2d(&c_tail_map, c_buf + W::C_BOXES * C_BOX_BYTES, col, row0);
      }
      ptx::bulk_commit_group();
    }
  }
  // The stores must have read the C buffer (and written C) before the CTA's shared memory goes away.
  if (leader) ptx::bulk_wait_group<0>();
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without wgmma: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_WGMMA
}

// The launch at one width: A's tensor map with 128-row boxes, B's with TILE_N-row boxes (TILE_N / 2 in the
// pair), C's with 128-row x 64-column boxes (and, 144 wide, 16-column ones), a persistent grid of as many CTAs
// (or pairs) as are resident (one CTA per SM), never more than there are tiles (or pairs of tiles).
template <int TILE_N, int CTAS = 1>
Launch prepare(const GemmArgs& g) {
  using W = Width<TILE_N>;
  const CUtensorMap a_map =
      make_tensor_map(kmajor_tma_2d(g.m, g.k, ROWS, BLOCK_K, 2, Swizzle::B128), g.a, "A");
  const CUtensorMap b_map =
      make_tensor_map(kmajor_tma_2d(g.n, g.k, TILE_N / CTAS, BLOCK_K, 2, Swizzle::B128), g.b, "B");
  const CUtensorMap c_map =
      make_tensor_map(kmajor_tma_2d(g.m, g.n, ROWS, C_BOX_COLS, 2, Swizzle::B128), g.c, "C");
  const CUtensorMap c_tail_map =
      W::C_TAIL_COLS > 0
          ? make_tensor_map(kmajor_tma_2d(g.m, g.n, ROWS, W::C_TAIL_COLS, 2, Swizzle::None), g.c, "C (tail)")
          : c_map;
  auto* kernel = pingpong_kernel<TILE_N, CTAS>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, W::SMEM_BYTES));
  PersistentGrid grid = persistent_grid(kernel, NUM_THREADS, W::SMEM_BYTES, CTAS, num_tiles(g.m, ROWS),
                                        num_tiles(g.n, TILE_N), "v8p/v8w/v8c (sm_90a)");
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, c_map, c_tail_map, m, n, k);
  };
}

// CTAs of this kernel resident at once on this GPU (one per SM): v8d's rule compares its tiles with them.
template <int TILE_N = COLS>
int resident_ctas() {
  return resident_clusters(pingpong_kernel<TILE_N>, NUM_THREADS, Width<TILE_N>::SMEM_BYTES, 1,
                           "v8p/v8w (sm_90a)");
}

// Clusters of v8c resident at once (one CTA per SM): the pair's turns against the CTAs alone's.
inline int resident_pairs() {
  return resident_clusters(pingpong_kernel<COLS, PAIR>, NUM_THREADS, Width<COLS>::SMEM_BYTES, PAIR,
                           "v8c (sm_90a)");
}

// v8d's launch where it picks this kernel (nothing for --trace: common/harness.h, untraced_pick): 144 columns
// where they need fewer turns of the grid (common/streamk.h, pick_pingpong_width), else 128.
inline Launch prepare_picked(const GemmArgs& g, DeviceTrace* trace) {
  const std::string why = " at this shape (K <= " + std::to_string(PINGPONG_MAX_K_TILES * BLOCK_K) + ")";
  const int tiles_m     = num_tiles(g.m, ROWS);
  if (pick_pingpong_width(tiles_m * num_tiles(g.n, COLS), tiles_m * num_tiles(g.n, WIDE_COLS),
                          resident_ctas(), resident_ctas<WIDE_COLS>(), COLS, WIDE_COLS) == WIDE_COLS)
    return untraced_pick(prepare<WIDE_COLS>, g, trace, "the ping-pong kernel 144 wide (v8w)" + why);
  if (pick_pingpong_pair(num_k_tiles(g.k, BLOCK_K), tiles_m, num_tiles(g.n, COLS), resident_ctas(),
                         resident_pairs()))
    return untraced_pick(prepare<COLS, PAIR>, g, trace,
                         "the ping-pong kernel in CTA pairs (v8c)" + why + ", K >= " +
                             std::to_string(PINGPONG_PAIR_MIN_K_TILES * BLOCK_K));
  return untraced_pick(prepare<COLS>, g, trace, "the ping-pong kernel (v8p)" + why);
}

// A width's row of the variant table (v8p: 128, v8w: 144): its ring for the layout model (128-row tiles of A,
// TILE_N-row tiles of B, 5 or 4 stages, no cluster; v8c's below), and the shapes it takes (N % 8 == 0: C's
// rows are stored by TMA, 16-byte aligned).
template <int TILE_N>
SmemTiles smem_tiles() {
  return SmemTiles{
      A_TILE, Width<TILE_N>::B_TILE, WGMMA_M, /*tma_3d=*/false, Width<TILE_N>::NUM_STAGES, BLOCK_K, TMA_BOXES,
      tma_box}
      .with_cluster(1);
}
// v8c's row: v8p's ring, B's tile written by two boxes of 64 rows, box j by CTA j of the pair.
inline SmemTiles pair_smem_tiles() {
  SmemTiles t = smem_tiles<COLS>().with_cluster(PAIR);
  t.tma_box   = pair_tma_box;
  t.b_split   = PAIR;
  return t;
}
inline ShapeRule shape_rule(ShapeRule rule) {
  rule.n_multiple = rule.k_multiple;
  rule.n_name     = rule.k_name;
  rule.why =
      "takes any M, but K is the row length of A and B, N that of C, which it stores by TMA only, "
      "and a TMA global stride is a multiple of 16 bytes";
  return rule;
}

}  // namespace pingpong
