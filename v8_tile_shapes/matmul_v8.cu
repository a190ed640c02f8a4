// matmul_v8.cu: stage 8 on Blackwell (sm_100a): the tile fits the problem. v7's kernel (TMEM double buffer,
// six warps, any M and N) and its stream-K plans (v7d's picking rule), unchanged; what changes is the unit
// a piece of work covers, one template parameter each (UNIT_CTAS, TILE_N): v7's CTA pair (cta_group::2,
// 256 x 256), a CTA alone (cta_group::1, 128 x 256, no cluster), or the narrow pair (cta_group::2, 256 x 64),
// which v8d picks per shape with the Hopper twin's rules.
//
// C[M,N] = A[M,K] * B[N,K]^T, bf16 in and out, fp32 accumulation, both operands K-major.
//
// What changed since v7:
//  1. The unit: the pair, or a CTA alone (UNIT_CTAS, CLUSTER_SIZE or 1; the struct Unit holds what differs).
//     A CTA alone is v4's form of the roles: a cta_group::1 MMA of M = 128, N = 256, its instruction
//     descriptor for M = 128; all 256 rows of B loaded by the CTA itself with the 1-CTA TMA (one 2D box), so
//     4 ring stages of 48 KB instead of 7 of 32 KB; its commits arrive on its own barriers (no multicast, no
//     arrival from a peer), tcgen05.alloc/dealloc with cta_group::1, its own 512 TMEM columns. Where M <= 128
//     half of each pair MMA is padding (the second CTA has no rows of C); as many CTAs alone are resident as
//     CTAs in pairs, so 112 tiles of 128 x 256 are one turn of CTAs alone but two of pairs. v8d picks the unit
//     with the Hopper twin's rule (pick_unit, common/streamk.h: a CTA alone, with whole units, only where it
//     costs at most 3/4 of the pair's plan), from the resident counts of the occupancy query; v8a runs v7d's
//     plans on CTAs alone at every shape. The rule's quarter was measured on an H100: unmeasured on Blackwell.
//  2. The narrow tile (v8n; Unit's TILE_N): a 256 x 64 pair unit, the cta_group::2 M = 256, N = 64 MMA, each
//     CTA loading 32 rows of B, 11 stages of 20 KB, 2 x 64 TMEM columns, a 8 KB partial per epilogue warp;
//     v7d's plan rule on narrow units (the Hopper twin's v8n, for the shapes where cuBLAS takes 128 x 64
//     tiles on an H100). v8d takes it with the Hopper twin's rule (pick_width, common/streamk.h: where half
//     its plan's cost, a narrow iteration counted as half a wide one, NARROW_PERCENT_SM100, is less than the
//     picked unit's); that half was measured on an H100 with the Hopper pair along M as here (the Hopper
//     twin's pair now sits along N, and counts 36%): unmeasured on Blackwell.
//  3. Decode (v8s; v8d at M <= 16): a kernel of its own, decode.cuh, which turns the tile around (B's rows on
//     the MMA's M side, M = 128, A's at most 16 its N = 16) and splits K to fill the GPU (the Hopper twin's);
//     in clusters of two it is the token pair (v8q-v8r; v8d at 65-256 rows where B's tiles fit one wave of
//     pairs): the two CTAs split A's rows and share B's tile, each multicasting one 64-row box of it and
//     committing its MMAs to both CTAs' empty barriers (tcgen05.commit.cta_group::1 .multicast::cluster).
//  v7's Cluster Launch Control (v7clc) is not carried over: every v8 plan is static.
// Why it helps: a unit as large as v7's leaves SMs idle where the shape has few of them (skinny M, small
// cubes); a smaller unit gives every SM work without a fixup. What it costs: a CTA alone loads all of B itself
// and runs a 128-row MMA (half the pair's work per instruction); the narrow pair a quarter of the wide MMA's
// N per K tile.
//
// PTX ISA sections: as v7, plus the cta_group::1 forms of tcgen05.alloc/mma/commit (v4's) and the
// cta_group::1 multicast commit ("tcgen05.commit", the token pair).
//
// Status: compiled for sm_100a and sm_103a; not run on Blackwell hardware by this project, so no number of
// its own. Through the tcgen05 emulator (common/tcgen05_emu.h) every variant passes against cuBLAS on an
// H100 (v8s, the decode kernel, on an H200): `matmul_v8 --emulate` (correctness only; emulation times
// nothing). Also model-checked: SASS per
// kernel, the layout model.
#include <cuda_bf16.h>

#include <memory>

#include "common/check.h"
#include "common/descriptors.cuh"
#include "common/edge.h"
#include "common/fixup.cuh"
#include "common/fixup_memory.h"
#include "common/harness.h"
#include "common/persistent_grid.h"
#include "common/profiler.cuh"
#include "common/ptx.cuh"
#include "common/scheduler.h"
#include "common/split_k.h"
#include "common/streamk.h"
#include "common/tcgen05.cuh"
#include "common/tma.h"

namespace gemm {
namespace {

// ---- configuration ----
constexpr int BLOCK_M     = 128;      // this CTA's rows of A and of C: all 128 TMEM lanes
constexpr int BLOCK_N     = 256;      // = MMA N, the pair's N (cta_group::2 allows N = 16..256, step 16)
constexpr int CLUSTER_SIZE = 2;       // the CTA pair of one MMA: two M tiles, one N tile
constexpr int MMA_M       = CLUSTER_SIZE * BLOCK_M;  // 256: the pair's rows
constexpr int CTA_GROUP   = CLUSTER_SIZE;            // every tcgen05 instruction's .cta_group
constexpr uint16_t CLUSTER_MASK = (1u << CLUSTER_SIZE) - 1;  // commits multicast to both CTAs: 0b11
constexpr int GROUP_M     = 16;       // the unit -> tile map: grouped, M tiles (8 cluster pairs) per group
constexpr int BLOCK_K     = 64;       // K of one tile load: 128 bytes of bf16
constexpr int MMA_K       = 16;       // fixed for kind::f16: 32 bytes of K per MMA
constexpr int SLICE_K     = 64;       // one 128-byte slice of K: the width of a 128B swizzle atom
constexpr int EPILOGUE_WARP0     = 2;  // warps 2..5: the epilogue
constexpr int NUM_EPILOGUE_WARPS = 4;  // one per 32-lane TMEM quarter
constexpr int NUM_THREADS = (EPILOGUE_WARP0 + NUM_EPILOGUE_WARPS) * 32;  // 6 warps: TMA, MMA, 4 x epilogue
constexpr int NUM_ACCUMULATORS = 2;   // the TMEM ring: the MMAs fill one while the epilogue drains the other
constexpr int TMEM_COLS   = NUM_ACCUMULATORS * BLOCK_N;  // one fp32 TMEM column per output column, twice
// tmem_empty_bar's count: every epilogue warp of both CTAs (CTA 0's MMAs write both CTAs' TMEM)
constexpr uint32_t EPILOGUE_ARRIVALS = NUM_EPILOGUE_WARPS * CLUSTER_SIZE;
// Stream-K (v7a-v7d): the fixup's unit of exchange is one epilogue warp's share of a tile, its 32 TMEM lanes
// (rows) x BLOCK_N columns of fp32: 32 KB, with one flag. Laid out chunk-major ([BLOCK_N / 8][32 lanes][8]) so
// that one warp's 8 columns of all 32 rows are 1 KB contiguous in global memory.
constexpr int PARTIAL_FLOATS = 32 * BLOCK_N;
constexpr int MIN_SK_ITERS = 4;  // v7b, v7c: no stream-K range shorter than this many K tiles (the Hopper twin's)
constexpr int FIXUP_ITERS  = 4;  // v7d's rule: a partial written or read costs ~4 K tiles (measured on Hopper)

constexpr KMajorTile A_TILE{BLOCK_M, BLOCK_K, 2, Swizzle::B128};
constexpr KMajorTile B_TILE{BLOCK_N / CLUSTER_SIZE, BLOCK_K, 2, Swizzle::B128};  // this CTA's half of B
constexpr uint32_t A_TILE_BYTES = kmajor_tile_bytes(A_TILE);
constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
// The ring's layout must be the same in both CTAs: the MMA reads the peer's tiles at the offsets of CTA 0's
// descriptors, and the commits arrive at the offset of CTA 0's barrier in each CTA. It is a function of
// these constants only (no CTA rank), and the barriers are static shared memory, laid out identically by the
// compiler for every CTA of the kernel: nothing here can differ between the two CTAs.
GEMM_HD constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
GEMM_HD constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
// Ring depth: as many stages as fit in the 227 KB a block may have, after the alignment slack and the
// barriers and TMEM slot (static shared memory, under 1 KB). The accumulators live in TMEM, so the
// persistent loop takes no shared memory from the ring.
constexpr uint32_t SMEM_BUDGET = 227 * 1024;
constexpr int NUM_STAGES       = int((SMEM_BUDGET - SMEM_ALIGN - 1024) / STAGE_BYTES);
constexpr uint32_t SMEM_BYTES  = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;
// kind::f16, BF16 x BF16 -> F32, both K-major, M = 256, N = 256.
constexpr uint32_t IDESC = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, MMA_M, BLOCK_N);

static_assert(BLOCK_M == 128 && MMA_M == 256, "cta_group::2 M=256 MMA: 128 rows per CTA, one per TMEM lane");
static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 16 && BLOCK_N <= 256, "MMA N must be 16..256 in steps of 16");
static_assert(CLUSTER_SIZE == 2 && CTA_GROUP == 2, "cta_group::2 spans exactly the 2 CTAs of the cluster");
static_assert(BLOCK_N % (16 * CLUSTER_SIZE) == 0, "each CTA holds a whole half of B");
static_assert(b_tile_offset(1) - b_tile_offset(0) == STAGE_BYTES && a_tile_offset(0) == 0 &&
                  b_tile_offset(NUM_STAGES - 1) + B_TILE_BYTES == NUM_STAGES * STAGE_BYTES,
              "the ring layout: [A_s B_s] per stage, contiguous, from the 1024-B aligned base");
static_assert(GROUP_M % CLUSTER_SIZE == 0, "the tile order groups whole cluster pairs");
static_assert(BLOCK_K % MMA_K == 0, "a tile holds whole MMA K steps");
static_assert(BLOCK_K % SLICE_K == 0, "a tile holds whole 128-byte swizzle spans of K");
static_assert(A_TILE_BYTES % 1024 == 0 && B_TILE_BYTES % 1024 == 0,
              "tiles are whole 1024-B swizzle atoms, so the B tile after A starts 1024-B aligned too");
static_assert(TMEM_COLS <= 512, "two accumulators of BLOCK_N fp32 columns must fit the 512 TMEM columns");
static_assert(TMEM_COLS >= 32 && (TMEM_COLS & (TMEM_COLS - 1)) == 0, "TMEM allocations are powers of 2 >= 32");
static_assert(NUM_EPILOGUE_WARPS == 4 && EPILOGUE_WARP0 >= 2,
              "one epilogue warp per TMEM lane quarter, after the TMA and MMA warps");
static_assert(NUM_THREADS == 6 * 32, "6 warps: TMA, MMA, 4 epilogue");
static_assert(NUM_ACCUMULATORS == 2, "the accumulator ring's phase flips every second tile");
static_assert(NUM_STAGES >= 2, "a pipeline needs one stage to multiply and at least one to load into");
static_assert(NUM_STAGES == 7, "128-row A and B-half tiles, 64 K: 7 stages of 32 KB fit in 227 KB");
static_assert(SMEM_BYTES <= SMEM_BUDGET,
              "the ring must fit in the 227 KB of shared memory per block: use fewer stages");

// ---- the unit: the CTA pair (UNIT_CTAS = CLUSTER_SIZE) or a CTA alone (UNIT_CTAS = 1) ----
// The pair: a 2-CTA cluster, one cta_group::2 MMA of M = 256 for both CTAs, each CTA loading its 128 rows of
// A and its half of B. A CTA alone (v4's form): no cluster, a cta_group::1 MMA of M = 128, the CTA loading its
// A rows and all 256 rows of B itself; its commits arrive on its own barriers, its TMEM is its own. Where
// M <= 128 a pair's second CTA has no rows of C and half of each MMA is padding; a CTA alone is a 128 x 256
// unit, and twice as many of them are resident (v8d picks per shape: pick_unit, common/streamk.h).
// TILE_N: the unit's width, the MMA's N: v6's 256, or 64 (v8n, the narrow tile: a 256 x 64 pair unit, each
// CTA loading 32 rows of B; the Hopper twin's v8n).
template <int UNIT_CTAS, int TILE_N = BLOCK_N>
struct Unit {
  static_assert(UNIT_CTAS == CLUSTER_SIZE || UNIT_CTAS == 1, "a unit is the CTA pair, or one CTA alone");
  static constexpr int CTA_GROUP = UNIT_CTAS;            // every tcgen05 instruction's .cta_group
  static constexpr int MMA_M     = UNIT_CTAS * BLOCK_M;  // 256 (the pair's rows) or 128
  static constexpr int N         = TILE_N;               // the MMA's N, the unit's columns
  static constexpr int TMEM_COLS = NUM_ACCUMULATORS * N; // one fp32 TMEM column per output column, twice
  static constexpr int PARTIAL_FLOATS = 32 * N;          // the fixup's slot: one warp's 32 rows x N (below)
  // tmem_empty_bar's count: every epilogue warp of the unit's CTAs (CTA 0's MMAs write the pair's TMEM)
  static constexpr uint32_t EPILOGUE_ARRIVALS = NUM_EPILOGUE_WARPS * UNIT_CTAS;
  static constexpr KMajorTile B_TILE{N / UNIT_CTAS, BLOCK_K, 2, Swizzle::B128};  // this CTA's B rows
  static constexpr uint32_t B_TILE_BYTES = kmajor_tile_bytes(B_TILE);
  static constexpr uint32_t STAGE_BYTES  = A_TILE_BYTES + B_TILE_BYTES;  // one ring stage: [A tile][B tile]
  // Ring depth: as many stages as fit in the 227 KB a block may have, after the alignment slack and the
  // barriers and TMEM slot (static shared memory, under 1 KB): 7 x 32 KB (the pair), 4 x 48 KB (alone). The
  // accumulators live in TMEM, so the persistent loop takes no shared memory from the ring.
  static constexpr int NUM_STAGES      = int((SMEM_BUDGET - SMEM_ALIGN - 1024) / STAGE_BYTES);
  static constexpr uint32_t SMEM_BYTES = NUM_STAGES * STAGE_BYTES + SMEM_ALIGN;
  // kind::f16, BF16 x BF16 -> F32, both K-major, M = 256 (the pair) or 128 (alone), N = TILE_N.
  static constexpr uint32_t IDESC = make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, MMA_M, N);
  // The ring's layout must be the same in both CTAs of a pair: the MMA reads the peer's tiles at the offsets
  // of CTA 0's descriptors, and the commits arrive at the offset of CTA 0's barrier in each CTA. It is a
  // function of these constants only (no CTA rank), and the barriers are static shared memory, laid out
  // identically by the compiler for every CTA of the kernel: nothing here can differ between the two CTAs.
  GEMM_HD static constexpr uint32_t a_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES; }
  GEMM_HD static constexpr uint32_t b_tile_offset(int s) { return uint32_t(s) * STAGE_BYTES + A_TILE_BYTES; }
};
using Pair = Unit<CLUSTER_SIZE>;
using Alone = Unit<1>;
constexpr int NARROW_N = 64;  // v8n
using NarrowPair = Unit<CLUSTER_SIZE, NARROW_N>;
template <int UNIT_CTAS, int TILE_N = BLOCK_N>
constexpr bool unit_ok() {
  using U = Unit<UNIT_CTAS, TILE_N>;
  static_assert(BLOCK_M == 128 && U::MMA_M == 128 * UNIT_CTAS,
                "M = 128 per CTA, one row per TMEM lane: cta_group::2 M = 256, cta_group::1 M = 128");
  static_assert(TILE_N % 16 == 0 && TILE_N >= 16 && TILE_N <= 256, "MMA N must be 16..256 in steps of 16");
  static_assert(TILE_N % (16 * UNIT_CTAS) == 0, "each CTA holds a whole part of B");
  static_assert(U::TMEM_COLS <= 512, "two accumulators of N fp32 columns must fit the 512 TMEM columns");
  static_assert(U::TMEM_COLS >= 32 && (U::TMEM_COLS & (U::TMEM_COLS - 1)) == 0,
                "TMEM allocations are powers of 2 >= 32");
  static_assert(U::b_tile_offset(1) - U::b_tile_offset(0) == U::STAGE_BYTES && U::a_tile_offset(0) == 0 &&
                    U::b_tile_offset(U::NUM_STAGES - 1) + U::B_TILE_BYTES == U::NUM_STAGES * U::STAGE_BYTES,
                "the ring layout: [A_s B_s] per stage, contiguous, from the 1024-B aligned base");
  static_assert(U::B_TILE_BYTES % 1024 == 0, "tiles are whole 1024-B swizzle atoms");
  static_assert(U::NUM_STAGES == (TILE_N == NARROW_N ? 11 : UNIT_CTAS == 2 ? 7 : 4),
                "128-row A tiles and B tiles of 128 (pair) or 256 (alone) rows, 64 K: 7 x 32 KB or 4 x 48 KB; "
                "the narrow pair's 32 rows of B: 11 x 20 KB");
  static_assert(U::SMEM_BYTES <= SMEM_BUDGET,
                "the ring must fit in the 227 KB of shared memory per block: use fewer stages");
  return true;
}
static_assert(unit_ok<CLUSTER_SIZE>() && unit_ok<1>() && unit_ok<CLUSTER_SIZE, NARROW_N>());
static_assert(Pair::NUM_STAGES == NUM_STAGES && Pair::B_TILE_BYTES == B_TILE_BYTES && Pair::IDESC == IDESC &&
                  Pair::TMEM_COLS == TMEM_COLS && Pair::PARTIAL_FLOATS == PARTIAL_FLOATS &&
                  Pair::EPILOGUE_ARRIVALS == EPILOGUE_ARRIVALS && Pair::CTA_GROUP == CTA_GROUP,
              "the pair unit is v7's pair: the constants above");

// ---- where the TMA box of a K tile goes: the kernel issues exactly this one (tests/test_stage_table.cpp
//      checks it against the layout model's table) ----
// BLOCK_K / 64 2D boxes {64, rows} at K offset k0 + 64 j, box j landing as the j-th [rows x 128 B] slice.
// BLOCK_K = 64: one box, which lands exactly as v5's 3D box did; the 2D map's K extent is K itself, so the
// short last K tile's tail is zero-filled.
constexpr int TMA_BOXES = BLOCK_K / SLICE_K;
GEMM_HD constexpr TmaBox tma_box(KMajorTile tile, int row0, int k0, int j) {
  return {uint32_t(j * tile.rows * 128), {k0 + j * SLICE_K, row0, 0}};
}

// ---- the kernel ----
// TRACE: the in-kernel profiler's `prof.` lines record each warp's waits and issues (--trace); compiled out
// of the TRACE=false instantiation, which is the one checked and timed (common/profiler.cuh).
// The work: a persistent grid, each cluster (worker) walking the pieces of a stream-K plan fixed on the host
// (common/streamk.h), with the fixup through `workspace` and `flags`, as v7a-v7d.
// UNIT_CTAS: the unit (Unit above), the CTA pair (CLUSTER_SIZE: v8n) or a CTA alone (1: v8a); v8d picks one
// per shape. The roles and the plan are the same in both; the pair's loads and commits reach CTA 0's
// barriers and both CTAs', a CTA alone's only its own. TILE_N: the unit's width (v8n: the narrow pair).
template <bool TRACE, int UNIT_CTAS, int TILE_N = BLOCK_N>
__global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_v8_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                     __nv_bfloat16* c, int m, int n, int k, const StreamKPlan plan, float* workspace,
                     uint32_t* flags, TraceBuffer trace) {
#if defined(GEMM_HAS_TCGEN05)
  using U = Unit<UNIT_CTAS, TILE_N>;
  // The unit's constants under v7's names (the pair's, above): from here on the body reads as v7's.
  constexpr int BLOCK_N = U::N, CTA_GROUP = U::CTA_GROUP, TMEM_COLS = U::TMEM_COLS, NUM_STAGES = U::NUM_STAGES;
  constexpr int PARTIAL_FLOATS = U::PARTIAL_FLOATS;
  constexpr uint32_t B_TILE_BYTES = U::B_TILE_BYTES, EPILOGUE_ARRIVALS = U::EPILOGUE_ARRIVALS, IDESC = U::IDESC;
  constexpr KMajorTile B_TILE = U::B_TILE;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* ring = align_smem_1024(smem_raw);  // stage s: A tile at s * STAGE_BYTES, then its B tile
  auto a_smem   = [&](int s) { return ring + U::a_tile_offset(s); };
  auto b_smem   = [&](int s) { return ring + U::b_tile_offset(s); };
  __shared__ uint64_t tma_full_bar[NUM_STAGES];  // "full" (CTA 0's only): both CTAs' bytes of stage s landed
  __shared__ uint64_t mma_done_bar[NUM_STAGES];  // "empty": the MMAs that read stage s of both CTAs are done
  __shared__ uint64_t tmem_full_bar[NUM_ACCUMULATORS];   // accumulator a holds a finished tile (both CTAs)
  __shared__ uint64_t tmem_empty_bar[NUM_ACCUMULATORS];  // (CTA 0's only) both epilogues have read it
  __shared__ uint32_t tmem_slot;     // tcgen05.alloc writes the TMEM base address here

  const int warp_id = threadIdx.x / 32;
  const int lane    = threadIdx.x % 32;
  // The grid is a row of clusters, blockIdx.x = 2c + rank (cluster dims 2 x 1). A unit is a pair of tiles in
  // v6b's grouped order (TileSchedule<Grouped>::tile_of_unit): the CTA of rank r takes M tile 2p + r of the
  // pair row p and B rows n0 + r * 128. Every role of both CTAs walks the same pieces of work (a unit and a
  // range of its K tiles, common/streamk.h). A CTA alone (UNIT_CTAS 1) is a cluster of one: its unit is one
  // tile, and it loads all of B's 256 rows.
  // Cluster c is worker c of the plan; its pieces are fixed before the launch.
  const int cta_rank   = int(ptx::cluster_ctarank());
  const int tiles_m    = num_tiles(m, BLOCK_M);
  const int tiles_n    = num_tiles(n, BLOCK_N);
  const int cluster_id = int(blockIdx.x) / UNIT_CTAS;  // its worker index in the plan
  const TileSchedule<ScheduleKind::Grouped> order(tiles_m, tiles_n, 1, 0, UNIT_CTAS, cta_rank, GROUP_M);
  const int num_k_tiles = gemm::num_k_tiles(k, BLOCK_K);  // the last one may be short: TMA zero-fills it

  Profiler<TRACE> prof(trace, /*role=*/warp_id, /*records=*/true);
  prof.begin(Ev::Setup);

  // ---- setup: barriers by one thread, TMEM by one whole warp ----
  if (warp_id == 0 && ptx::elect_one_sync()) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      ptx::mbarrier_init(&tma_full_bar[s], UNIT_CTAS);  // one arrival per CTA's TMA thread (CTA 0's only)
      ptx::mbarrier_init(&mma_done_bar[s], 1);          // one arrival: CTA 0's (multicast) tcgen05.commit
    }
    for (int a = 0; a < NUM_ACCUMULATORS; ++a) {
      ptx::mbarrier_init(&tmem_full_bar[a], 1);                   // CTA 0's multicast commit after a tile
      ptx::mbarrier_init(&tmem_empty_bar[a], EPILOGUE_ARRIVALS);  // every epilogue warp of the unit
    }
    ptx::fence_mbarrier_init();
  }
  // Cluster barrier 1: both CTAs have started and initialised their barriers before either allocates.
  // tcgen05.alloc.cta_group::2 is an exchange between the pair (in SASS the even CTA writes into the odd
  // CTA's shared memory and arrives on a barrier there): a peer that has not started yet would hang or
  // fault it. CUTLASS and DeepGEMM also allocate only after a cluster barrier.
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::tmem_alloc<CTA_GROUP>(&tmem_slot, TMEM_COLS);  // the pair: with warp 1 of the peer CTA
    tc5::tmem_relinquish_alloc_permit<CTA_GROUP>();
  }
  // Cluster barrier 2: the TMEM address is in tmem_slot, in both CTAs, before anyone reads it.
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  tc5::fence_after_thread_sync();
  const uint32_t tmem_base = tmem_slot;  // accumulator a at columns a * U::N
  prof.end(Ev::Setup);
  if (warp_id == 0) {
    // ---- producer (warp 0): one thread keeps the ring full, tile after tile ----
    if (ptx::elect_one_sync()) {
      // load: announce this CTA's bytes of K tile `k_tile` on CTA 0's full barrier, then issue the copies of
      // its A rows and its half of B into its own ring stage `s`, completing on that same barrier. A box
      // wholly outside its tensor is neither issued nor announced (its rows of C are never stored). A CTA
      // alone: its own barrier, all of B, and the 1-CTA copies (v4's).
      auto load = [&](int m0, int b_row0, int k_tile, int s) {
        const bool load_a = m0 < m, load_b = b_row0 < n;
        const uint32_t bytes = (load_a ? A_TILE_BYTES : 0u) + (load_b ? B_TILE_BYTES : 0u);
        const uint32_t full_bar_cta0 = ptx::mapa_shared_cluster(&tma_full_bar[s], 0);
        if constexpr (UNIT_CTAS == 1)
          ptx::mbarrier_arrive_expect_tx(&tma_full_bar[s], bytes);
        else
          ptx::mbarrier_arrive_expect_tx_cluster(full_bar_cta0, bytes);
        const int k0 = k_tile * BLOCK_K;
        for (int j = 0; j < TMA_BOXES; ++j) {
          const TmaBox a = tma_box(A_TILE, m0, k0, j);
          const TmaBox b = tma_box(B_TILE, b_row0, k0, j);
          if constexpr (UNIT_CTAS == 1) {
            if (load_a)
              ptx::tma_load_2d(a_smem(s) + a.smem_offset, &a_map, &tma_full_bar[s], a.coords[0], a.coords[1]);
            if (load_b)
              ptx::tma_load_2d(b_smem(s) + b.smem_offset, &b_map, &tma_full_bar[s], b.coords[0], b.coords[1]);
          } else {
            if (load_a)
              tc5::tma_load_2d_cta_group2(a_smem(s) + a.smem_offset, &a_map, full_bar_cta0, a.coords[0],
                                          a.coords[1]);
            if (load_b)
              tc5::tma_load_2d_cta_group2(b_smem(s) + b.smem_offset, &b_map, full_bar_cta0, b.coords[0],
                                          b.coords[1]);
          }
        }
      };
      int stage            = 0;  // ring stage of the next load: carries across tiles
      uint32_t empty_phase = 1;  // parity of the "empty" phase to wait for: 1 passes at once on the first lap
      StreamKWork work(plan, cluster_id);
      StreamKPiece piece;
      bool more = work.next(piece);
      while (more) {
        const ScheduledTile t = order.tile_of_unit(piece.unit);
        const int m0 = t.m * BLOCK_M, b_row0 = t.n * BLOCK_N + cta_rank * B_TILE.rows;
        for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
          prof.begin(Ev::WaitEmpty);
          ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
          prof.end(Ev::WaitEmpty);
          prof.begin(Ev::IssueTma);
          load(m0, b_row0, k_tile, stage);
          prof.end(Ev::IssueTma);
          if (++stage == NUM_STAGES) {
            stage = 0;
            empty_phase ^= 1;
          }
        }
        more = work.next(piece);
      }
      // Exit: wait for the release of the last NUM_STAGES loads, so that no commit is still on its way to
      // this CTA's mma_done_bar when it exits: the next CTA on this SM initialises its barriers at the same
      // offsets, and a late arrival would complete a phase of one of them (waits for loads that never were
      // pass at once).
      prof.begin(Ev::WaitEmpty);
      for (int i = 0; i < NUM_STAGES; ++i) {
        ptx::mbarrier_wait(&mma_done_bar[stage], empty_phase, "mma_done_bar");
        if (++stage == NUM_STAGES) {
          stage = 0;
          empty_phase ^= 1;
        }
      }
      prof.end(Ev::WaitEmpty);
    }
    __syncwarp();  // the other 31 lanes sleep here instead of spinning beside the producer thread
  } else if (warp_id == 1 && cta_rank == 0) {
    // ---- mma (warp 1 of CTA 0): one thread issues the pair's MMAs, into one accumulator per tile ----
    if (ptx::elect_one_sync()) {
      int stage           = 0;  // ring stage of the next K tile: carries across tiles
      uint32_t full_phase = 0;  // parity of this use of the stage's "full" barrier: flips when `stage` wraps
      int acc                  = 0;  // the accumulator of this tile: carries across tiles
      uint32_t acc_empty_phase = 1;  // parity of tmem_empty_bar[acc] to wait for: 1 passes on the first lap
      StreamKWork work(plan, cluster_id);
      StreamKPiece piece;
      bool more = work.next(piece);
      while (more) {
        // wait until the epilogues of both CTAs have read this accumulator's previous tile
        prof.begin(Ev::WaitEmpty);
        ptx::mbarrier_wait(&tmem_empty_bar[acc], acc_empty_phase, "tmem_empty_bar");
        prof.end(Ev::WaitEmpty);
        tc5::fence_after_thread_sync();
        const uint32_t tmem_acc = tmem_base + uint32_t(acc * BLOCK_N);
        for (int k_tile = piece.k_begin; k_tile < piece.k_end; ++k_tile) {
          prof.begin(Ev::WaitFull);
          ptx::mbarrier_wait(&tma_full_bar[stage], full_phase, "tma_full_bar");
          prof.end(Ev::WaitFull);
          tc5::fence_after_thread_sync();

          // compute: BLOCK_K/16 MMAs; the first of the tile's K loop overwrites the accumulator
          prof.begin(Ev::IssueMma);
          const uint32_t a_addr = ptx::smem_addr(a_smem(stage)), b_addr = ptx::smem_addr(b_smem(stage));
#pragma unroll
          for (int k_step = 0; k_step < BLOCK_K / MMA_K; ++k_step) {
            const uint64_t a_desc = kmajor_desc_sm100(A_TILE, a_addr, k_step);
            const uint64_t b_desc = kmajor_desc_sm100(B_TILE, b_addr, k_step);
            tc5::mma_f16_ss<CTA_GROUP>(tmem_acc, a_desc, b_desc, IDESC,
                                          (k_tile > piece.k_begin || k_step > 0) ? 1u : 0u);
          }
          // arrives, in both CTAs, once the MMAs above have read this stage of both: it is empty
          if constexpr (UNIT_CTAS == 1)
            tc5::commit(&mma_done_bar[stage]);
          else
            tc5::commit_multicast<CTA_GROUP>(&mma_done_bar[stage], CLUSTER_MASK);
          prof.end(Ev::IssueMma);

          if (++stage == NUM_STAGES) {
            stage = 0;
            full_phase ^= 1;
          }
        }
        // once every MMA of this tile is done: accumulator `acc` holds it, in both CTAs
        if constexpr (UNIT_CTAS == 1)
          tc5::commit(&tmem_full_bar[acc]);
        else
          tc5::commit_multicast<CTA_GROUP>(&tmem_full_bar[acc], CLUSTER_MASK);
        if (++acc == NUM_ACCUMULATORS) {
          acc = 0;
          acc_empty_phase ^= 1;
        }
        more = work.next(piece);
      }
    }
    __syncwarp();
  } else if (warp_id >= EPILOGUE_WARP0) {
    // ---- epilogue (warps 2-5 of both CTAs): TMEM -> registers -> C, one accumulator per tile ----
    // Warp w may only touch TMEM lanes 32 * (w % 4) .. +31: thread t holds row 32 * (w % 4) + t of the tile.
    const uint32_t lane0  = tmem_warp_lane_base(warp_id);
    const int row_in_tile = int(lane0) + lane;
    const bool vector_stores = n % 8 == 0;  // rows start 16-B aligned: 8 columns in one 16-byte store
    int acc                 = 0;
    uint32_t acc_full_phase = 0;  // parity of tmem_full_bar[acc]: flips when `acc` wraps
    // Stream-K: this warp's share of a partial (its 32 rows), and its flag, for worker w.
    const int quarter  = int(lane0) / 32;
    const auto slot_of = [&](int w) { return (w * UNIT_CTAS + cta_rank) * NUM_EPILOGUE_WARPS + quarter; };
    StreamKWork work(plan, cluster_id);
    StreamKPiece piece;
    bool more = work.next(piece);
    while (more) {
      const ScheduledTile t = order.tile_of_unit(piece.unit);
      prof.begin(Ev::WaitMma);
      ptx::mbarrier_wait(&tmem_full_bar[acc], acc_full_phase, "tmem_full_bar");
      prof.end(Ev::WaitMma);
      __syncwarp();  // the warp is converged again before the .sync.aligned TMEM loads
      tc5::fence_after_thread_sync();

      prof.begin(Ev::Epilogue);
      // The valid part of an edge tile (common/edge.h): 0 rows for a padding tile, which stores nothing.
      const int rows_valid = tile_extent(m, BLOCK_M, t.m);
      const int cols_valid = tile_extent(n, BLOCK_N, t.n);
      const bool row_ok    = row_in_tile < rows_valid;
      __nv_bfloat16* c_row = c + (row_ok ? size_t(t.m * BLOCK_M + row_in_tile) * size_t(n) : 0) +
                             size_t(t.n) * BLOCK_N;
      // Stream-K's fixup, by each warp for its 32 rows (a padding tile, t.valid false, takes no part in it: its
      // writer and its finisher are CTAs of the same rank, and both skip it). A partial piece leaves its fp32
      // sums in this worker's slot and raises the slot's flag with release semantics after __syncwarp (which
      // orders the other lanes' stores before lane 0's release). A finisher first waits for the flags of the
      // later segments' workers (acquire), one lane per segment, lowers each for the next launch, and then adds
      // their partials to its own sums in K order: the order is the plan's, so two runs give the same bits.
      const bool partial  = piece.role == StreamKPiece::Partial;
      const bool finisher = piece.role == StreamKPiece::Finisher && t.valid;
      const int last      = finisher ? plan.last_worker(piece.unit) : cluster_id;
      if (partial && t.valid) {
        float* part = workspace + size_t(slot_of(cluster_id)) * PARTIAL_FLOATS + lane * 8;
        for (int col = 0; col < cols_valid; col += 8) {
          float v[8];
          tc5::ld_32x32b_x8(tmem_addr(tmem_base, lane0, uint32_t(acc * BLOCK_N + col)), v);
          tc5::wait_ld();
          __stcg(reinterpret_cast<float4*>(part + col * 32), make_float4(v[0], v[1], v[2], v[3]));
          __stcg(reinterpret_cast<float4*>(part + col * 32 + 4), make_float4(v[4], v[5], v[6], v[7]));
        }
        __syncwarp();
        if (lane == 0) ptx::st_release_gpu(flags + slot_of(cluster_id), 1u);
      }
      if (finisher) {
        // lane i waits for the flag of segment i + 1, i + 33, ...: the waits overlap instead of queueing (the
        // Hopper twin measured the serial form's round trips at 10% of 256 x 256 x 8192)
        for (int w = cluster_id + 1 + lane; w <= last; w += 32) {
          while (ptx::ld_acquire_gpu(flags + slot_of(w)) == 0) {
          }
          flags[slot_of(w)] = 0;  // consumed: 0 again for the next launch (whose writer comes after this one)
        }
        __syncwarp();
      }
      // Chunks wholly past N are skipped by the whole warp (cols_valid is warp-uniform).
#pragma unroll 4
      for (int col = 0; col < (partial ? 0 : cols_valid); col += 8) {
        float v[8];
        tc5::ld_32x32b_x8(tmem_addr(tmem_base, lane0, uint32_t(acc * BLOCK_N + col)), v);
        tc5::wait_ld();
#pragma unroll 4  // four partials' loads issued before their adds
        for (int w = cluster_id + 1; w <= last; ++w) {  // the finisher: the later segments, in K order
          const float* part = workspace + size_t(slot_of(w)) * PARTIAL_FLOATS + lane * 8 + col * 32;
          const float4 lo = __ldcg(reinterpret_cast<const float4*>(part));
          const float4 hi = __ldcg(reinterpret_cast<const float4*>(part + 4));
          v[0] += lo.x, v[1] += lo.y, v[2] += lo.z, v[3] += lo.w;
          v[4] += hi.x, v[5] += hi.y, v[6] += hi.z, v[7] += hi.w;
        }
        if (row_ok) {
          if (vector_stores && col + 8 <= cols_valid) {
            __nv_bfloat162 packed[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) packed[i] = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
            *reinterpret_cast<uint4*>(c_row + col) = *reinterpret_cast<const uint4*>(packed);
          } else {
#pragma unroll
            for (int i = 0; i < 8; ++i)
              if (col + i < cols_valid) c_row[col + i] = __float2bfloat16_rn(v[i]);
          }
        }
      }
      prof.end(Ev::Epilogue);

      // Release the accumulator to CTA 0's MMA thread: the loads above are complete (wait::ld), and the
      // fence orders them before the arrival (PTX ISA "tcgen05 Memory Consistency Model": tcgen05.ld,
      // wait::ld, fence::before_thread_sync, mbarrier.arrive.relaxed.cluster). One arrival per warp.
      tc5::fence_before_thread_sync();
      __syncwarp();
      // (The barrier's address is computed here, not kept in a 2-entry array: an array of registers indexed
      // by the runtime `acc` would go to local memory.)
      if constexpr (UNIT_CTAS == 1) {
        if (lane == 0) ptx::mbarrier_arrive(&tmem_empty_bar[acc]);
      } else {
        if (lane == 0) ptx::mbarrier_arrive_cluster(ptx::mapa_shared_cluster(&tmem_empty_bar[acc], 0));
      }
      if (++acc == NUM_ACCUMULATORS) {
        acc = 0;
        acc_full_phase ^= 1;
      }
      more = work.next(piece);
    }
  }

  // ---- teardown: every TMEM read of BOTH CTAs is done before the allocating warps free the pair's TMEM;
  //      the cluster barrier also keeps each CTA alive while the peer may still signal its barriers ----
  prof.begin(Ev::Teardown);
  tc5::fence_before_thread_sync();
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
  if (warp_id == 1) {
    tc5::fence_after_thread_sync();
    tc5::tmem_dealloc<CTA_GROUP>(tmem_base, TMEM_COLS);  // the pair: with warp 1 of the peer CTA
  }
  prof.end(Ev::Teardown);
#elif defined(__CUDA_ARCH__)
  __trap();  // compiled for a GPU without tcgen05: fail loudly, never return with C unwritten
#endif  // GEMM_HAS_TCGEN05
}

// The decode kernel (v8s, and v8d at M <= 16): the tile turned around, K split.
#include "v8_tile_shapes/decode.cuh"

// ---- host launcher ----
// With `trace`: the TRACE=true instantiation, recording into a buffer sized from the grid (--trace).
// The plan's policy, or (PICK) the picking rule's choice. UNIT_CTAS: the unit, the pair (CLUSTER_SIZE) or a
// CTA alone (1). TILE_N: the unit's width (Unit).
template <StreamKPolicy POLICY, bool PICK, int UNIT_CTAS = CLUSTER_SIZE, int TILE_N = BLOCK_N>
Launch prepare_v8(const GemmArgs& g, DeviceTrace* trace) {
  using U = Unit<UNIT_CTAS, TILE_N>;
  // B's tensor map is N rows high: B is [N, K] (seed 000's first version got this wrong). Its box is one
  // CTA's part of the MMA's N: half of it (the pair), or all 256 rows (alone). 2D maps: their K extent is K
  // itself, so a short last K tile is zero-filled.
  const TmaDesc a_desc = kmajor_tma_2d(g.m, g.k, BLOCK_M, SLICE_K, 2, Swizzle::B128);
  const TmaDesc b_desc = kmajor_tma_2d(g.n, g.k, U::B_TILE.rows, SLICE_K, 2, Swizzle::B128);
  const CUtensorMap a_map = make_tensor_map(a_desc, g.a, "A");
  const CUtensorMap b_map = make_tensor_map(b_desc, g.b, "B");
  auto* kernel = trace ? matmul_v8_kernel<true, UNIT_CTAS, TILE_N> : matmul_v8_kernel<false, UNIT_CTAS, TILE_N>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, U::SMEM_BYTES));
  auto* c = static_cast<__nv_bfloat16*>(g.c);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  const int tiles_m = num_tiles(g.m, BLOCK_M), tiles_n = num_tiles(g.n, U::N);
  const int units = num_tiles(tiles_m, UNIT_CTAS) * tiles_n, iters = num_k_tiles(g.k, BLOCK_K);
  // A cluster of UNIT_CTAS CTAs along x: blockIdx.x 2c and 2c + 1 (the pair), or c (alone). The persistent
  // grid's query also says how many clusters fit at once (stream-K's workers; the trace's estimate for CLC).
  PersistentGrid grid = persistent_grid(kernel, NUM_THREADS, U::SMEM_BYTES, UNIT_CTAS, tiles_m, tiles_n, "v8");
  // The plan (the Hopper twin's): data-parallel on v6's grid, at most one cluster per unit; stream-K and
  // hybrid on every cluster that can be resident (a finisher waits for other workers, which must all be
  // running), or only as many as the plan gives a stream-K range where it has no whole units. The picking
  // rule's constant is the Hopper twin's measurement: unmeasured on Blackwell.
  StreamKPolicy policy = POLICY;
  int min_iters        = MIN_SK_ITERS;
  if (PICK) {
    const StreamKChoice choice = pick_streamk(units, iters, grid.max_clusters, FIXUP_ITERS);
    policy                     = choice.policy;
    min_iters                  = choice.min_iters;
  }
  const int workers      = policy == StreamKPolicy::DataParallel ? grid.clusters : grid.max_clusters;
  const StreamKPlan plan = make_streamk_plan(units, iters, workers, policy, min_iters);
  grid.resize(plan.dp_units > 0 ? plan.workers : plan.sk_workers);
  std::shared_ptr<FixupMemory> fixup;
  if (plan.sk_workers > 0)  // one partial and one flag per epilogue warp of each CTA (common/fixup_memory.h)
    fixup = std::make_shared<FixupMemory>(size_t(grid.clusters * UNIT_CTAS) * NUM_EPILOGUE_WARPS, PARTIAL_FLOATS);
  float* workspace = fixup ? fixup->workspace : nullptr;
  uint32_t* flags  = fixup ? fixup->flags : nullptr;
  TraceBuffer buf;  // --trace: per CTA and warp, setup, 2 events per K tile or per piece, the tail, teardown
  if (trace) {
    uint32_t most = 0;
    for (int w = 0; w < grid.clusters; ++w) {
      uint32_t events = 0;
      StreamKWork work(plan, w);
      for (StreamKPiece p; work.next(p);) events += uint32_t(2 * (p.k_end - p.k_begin) + 2);
      most = events > most ? events : most;
    }
    buf = trace->allocate(grid.cfg.gridDim.x,
                          {"warp 0 TMA", "warp 1 MMA", "warp 2 epilogue", "warp 3 epilogue",
                           "warp 4 epilogue", "warp 5 epilogue"},
                          most + 8);
  }
  return [=](cudaStream_t stream) mutable {
    grid.launch(stream, kernel, a_map, b_map, c, m, n, k, plan, workspace, flags, buf);
    (void)fixup;  // held by the launch: the workspace lives as long as any copy of it
  };
}

// v8d: the unit, its width and the plan picked per shape (pick_unit and pick_width, common/streamk.h, the
// Hopper twin's rules), from the workers each unit can have resident at once (the occupancy query): the pair
// with pick_streamk's plan, or a CTA alone with whole units where that costs at most 3/4 of the pair's plan;
// then the narrow pair where half its plan's cost is less than that. The rules' constants were measured on an
// H100: unmeasured on Blackwell.
template <int UNIT_CTAS, int TILE_N = BLOCK_N>
int resident_workers() {
  return resident_clusters(matmul_v8_kernel<false, UNIT_CTAS, TILE_N>, NUM_THREADS,
                           Unit<UNIT_CTAS, TILE_N>::SMEM_BYTES, UNIT_CTAS, "v8");
}
Launch prepare_v8_picked(const GemmArgs& g, DeviceTrace* trace) {
  if (g.m <= decode::MAX_COLS) return decode::prepare_picked(g, trace);  // the tile turned around (v8s, v8t)
  if (Launch pair = decode::prepare_pair_picked(g, trace)) return pair;  // 65-256 rows (v8q .. v8r)
  if (Launch turned = decode::prepare_turned_picked(g, trace)) return turned;  // 129-192 rows (v8u, v8v)
  const int tiles_m = num_tiles(g.m, BLOCK_M), iters = num_k_tiles(g.k, BLOCK_K);
  const UnitChoice unit   = pick_unit(tiles_m, num_tiles(g.n, BLOCK_N), iters, resident_workers<CLUSTER_SIZE>(),
                                      resident_workers<1>(), FIXUP_ITERS);
  const WidthChoice width = pick_width(unit, narrow_units(tiles_m, num_tiles(g.n, NARROW_N), false), iters,
                                       resident_workers<CLUSTER_SIZE, NARROW_N>(), FIXUP_ITERS,
                                       NARROW_PERCENT_SM100);
  if (width.narrow) return prepare_v8<StreamKPolicy::DataParallel, true, CLUSTER_SIZE, NARROW_N>(g, trace);
  return unit.ctas == 1 ? prepare_v8<StreamKPolicy::DataParallel, false, 1>(g, trace)
                        : prepare_v8<StreamKPolicy::DataParallel, true, CLUSTER_SIZE>(g, trace);
}

constexpr int UNIT_PICKED = 0;  // a variant's UNIT_CTAS: the pair, a CTA alone or the narrow pair, per shape (v8d)
template <int UNIT_CTAS, int TILE_N = BLOCK_N>
Launch prepare_v8_untraced(const GemmArgs& g) {
  if constexpr (UNIT_CTAS == UNIT_PICKED) return prepare_v8_picked(g, nullptr);
  else return prepare_v8<StreamKPolicy::DataParallel, true, UNIT_CTAS, TILE_N>(g, nullptr);
}
template <int UNIT_CTAS, int TILE_N = BLOCK_N>
Launch prepare_v8_traced(const GemmArgs& g, DeviceTrace& trace) {
  if constexpr (UNIT_CTAS == UNIT_PICKED) return prepare_v8_picked(g, &trace);
  else return prepare_v8<StreamKPolicy::DataParallel, true, UNIT_CTAS, TILE_N>(g, &trace);
}

}  // namespace

std::vector<Variant> sm100_variants() {
  const ShapeRule any_mn = any_mn_shape_rule(2);  // any M and N; K a multiple of 8 (the TMA stride rule)
  const char* kernel = "sm_100a tcgen05 kernel (v8_tile_shapes/matmul_v8.cu)";
  SmemTiles tiles{A_TILE, Pair::B_TILE, BLOCK_M, /*tma_3d=*/false, Pair::NUM_STAGES, SLICE_K, TMA_BOXES,
                  tma_box};
  tiles.cta_group = Pair::CTA_GROUP;  // the MMA spans the pair: M = 2 x 128, N = 2 x B_TILE.rows
  // v8a: a CTA alone, cta_group::1 (M = 128, N = 256), all 256 rows of B in one box, 4 stages of 48 KB.
  const SmemTiles cta_tiles{A_TILE, Alone::B_TILE, BLOCK_M, /*tma_3d=*/false, Alone::NUM_STAGES, SLICE_K,
                            TMA_BOXES, tma_box};
  const SmemTiles picked = tiles.with_cluster(CLUSTER_PICKED);  // v8d: any of the three, per shape (the pair's)
  // v8n: the narrow pair, cta_group::2 M = 256, N = 64: 32 rows of B per CTA, 11 stages of 20 KB.
  SmemTiles narrow{A_TILE,   NarrowPair::B_TILE, BLOCK_M, /*tma_3d=*/false, NarrowPair::NUM_STAGES,
                   SLICE_K,  TMA_BOXES,          tma_box};
  narrow.cta_group = NarrowPair::CTA_GROUP;
  // The Hopper twin's units and rules. Which is fastest on Blackwell cannot be measured here (no Blackwell
  // GPU): the default, v8d, picks with the Hopper twin's rules and constants.
  return {
      {"v8a", "v7d's plans on 1-CTA units (128x256, cta_group::1, no cluster) at every shape", kernel, any_mn,
       cta_tiles, prepare_v8_untraced<1>, prepare_v8_traced<1>},
      {"v8n", "the narrow tile: 256x64 pair units (cta_group::2, N = 64), v7d's plan rule", kernel, any_mn,
       narrow, prepare_v8_untraced<CLUSTER_SIZE, NARROW_N>, prepare_v8_traced<CLUSTER_SIZE, NARROW_N>},
      {"v8s", "decode (M <= 16): B's 128 rows on the MMA's M side (M = 128, N = 16), K split to fill the GPU",
       kernel, decode::shape_rule<16>(any_mn), decode::smem_tiles<16>(), decode::prepare<16>},
      {"v8t", "decode 32 wide (M <= 32): v8s with A's side 32 rows (M = 128, N = 32)", kernel,
       decode::shape_rule<32>(any_mn), decode::smem_tiles<32>(), decode::prepare<32>},
      {"v8u", "the tile turned around 144 wide (M <= 144): v8s with A's side 144 rows (M = 128, N = 144)",
       kernel, decode::shape_rule<144>(any_mn), decode::smem_tiles<144>(), decode::prepare<144>},
      {"v8v", "the tile turned around 192 wide (M <= 192): v8s with A's side 192 rows (M = 128, N = 192)",
       kernel, decode::shape_rule<192>(any_mn), decode::smem_tiles<192>(), decode::prepare<192>},
      {"v8q", "the token pair 48 wide (M <= 96): v8x with 48 of A's rows per CTA (M = 128, N = 48)", kernel,
       decode::pair_shape_rule<48>(any_mn), decode::pair_smem_tiles<48>(), decode::prepare<48, decode::PAIR>},
      {"v8x", "the token pair (M <= 128): two CTAs of 64 of A's rows each (M = 128, N = 64), B's 128-row "
              "tile shared by multicast", kernel, decode::pair_shape_rule<64>(any_mn),
       decode::pair_smem_tiles<64>(), decode::prepare<64, decode::PAIR>},
      {"v8y", "the token pair 80 wide (M <= 160): v8x with 80 of A's rows per CTA (M = 128, N = 80)", kernel,
       decode::pair_shape_rule<80>(any_mn), decode::pair_smem_tiles<80>(), decode::prepare<80, decode::PAIR>},
      {"v8z", "the token pair 96 wide (M <= 192): v8x with 96 of A's rows per CTA (M = 128, N = 96)", kernel,
       decode::pair_shape_rule<96>(any_mn), decode::pair_smem_tiles<96>(), decode::prepare<96, decode::PAIR>},
      {"v8o", "the token pair 112 wide (M <= 224): v8x with 112 of A's rows per CTA (M = 128, N = 112)",
       kernel, decode::pair_shape_rule<112>(any_mn), decode::pair_smem_tiles<112>(),
       decode::prepare<112, decode::PAIR>},
      {"v8r", "the token pair 128 wide (M <= 256): v8x with 128 of A's rows per CTA (M = 128, N = 128)",
       kernel, decode::pair_shape_rule<128>(any_mn), decode::pair_smem_tiles<128>(),
       decode::prepare<128, decode::PAIR>},
      {"v8d", "picked per shape: the decode tile at M <= 32 (and 129-192 where B is long), the token pair at "
              "65-256 where B's tiles fit one wave of pairs, else v7d's pair, a 1-CTA unit or the narrow "
              "pair; the default",
       kernel, any_mn, picked, prepare_v8_untraced<UNIT_PICKED>, prepare_v8_traced<UNIT_PICKED>},
  };
}

}  // namespace gemm
