// scheduler.h: which output tile a persistent CTA computes on each turn of its tile loop (v6 on), host and
// device, so that the CPU tests check the very code the kernels run.
//
// A persistent kernel launches one CTA per SM (a whole number of clusters) and lets each cluster loop over
// output tiles. The *order* of the tiles decides how well L2 serves the operands: the clusters running at the
// same moment (one "wave") read the A row-blocks and B column-blocks of their tiles, and a block read by one
// of them is an L2 hit for the others only while it is still in L2. Three orders:
//
//  - Static (seed 000, "Persistent kernel with static scheduling"): tile t of the row-major grid, N fastest
//    (the order in which v1-v5 launch their tiles), goes to cluster t % num_clusters. Simple and perfectly
//    balanced, but a wave of 132 tiles on a 64x64 grid spans 3 rows of tiles and all 64 columns: it touches 3
//    A row-blocks and all of B, so B is streamed from DRAM again by every wave once B outgrows L2 (at 8192^3
//    B alone is 128 MB, L2 50 MB).
//  - Grouped: GROUP_M rows of tiles are walked down M first, then one step along N (common/tile_order.h). A
//    wave then covers a near-square block of C: about sqrt(wave) A row-blocks and as many B column-blocks,
//    each read from DRAM once and shared through L2 by the whole wave.
//  - Hilbert (seed 001, "Optimization 6", and fast.cu's kernel 12): the tiles in Hilbert-curve order. Each
//    step goes to a neighbouring tile, and any run of consecutive tiles stays compact in both directions:
//    a wave is a near-square blob, and the next wave starts next to where this one ended, so it also
//    reuses what the last wave left in L2. No GROUP_M to tune.
//
// Clusters. With cluster_size 2 the two CTAs of a cluster compute vertically adjacent tiles (tcgen05
// cta_group::2 on Blackwell; the shared, multicast B tile on Hopper): what the orders walk is the grid of
// *pairs*, pairs_m = ceil(tiles_m / 2) rows by tiles_n columns, and on every turn CTA rank r of the pair gets
// tile_m = 2 * p + r, tile_n = n of the pair's unit (p, n). Both CTAs of a cluster get the same number of
// turns, in step.
//
// Odd tiles_m with clusters of 2: the last pair row has no second tile. The pair's rank-1 CTA then gets
// tile_m = tiles_m, one past the grid, with `valid == false`. It must still take its full part in the turn:
// every cluster barrier and every arrival its peer waits for, and, on Hopper, the multicast of its half of
// the shared B tile, which the rank-0 CTA needs. The simplest correct handling is to treat it as an edge
// tile with zero valid rows (edge.h: tile_extent() returns 0): TMA zero-fills the A rows past M, and the
// store writes nothing (a TMA store clips the whole box; a direct store's row predicate is false
// everywhere). A kernel may also skip the invalid CTA's own A load and MMA, but never its shared duties.
//
// Contract, for every order and cluster size (tests/test_scheduler.cpp checks all of it):
//  - over all CTAs, every tile (m < tiles_m, n < tiles_n) comes up exactly once with valid == true; the
//    only invalid tiles are the padding tiles (tiles_m, n) of rank-1 CTAs when tiles_m is odd;
//  - the cluster's units are units cluster_id, cluster_id + num_clusters, ... of the order, so the turns of
//    the clusters differ by at most one, and turn i of all clusters is one contiguous stretch of the order
//    (one wave, for the clusters that run together);
//  - nothing allocated, no table, no local array: a few integer registers; next() costs a division or two
//    (static, grouped) or at most 4 * log2(side) steps of a few integer operations (Hilbert, side <= 256
//    for any grid of <= 256 x 256 pair units: 32 steps), small next to one tile's main loop.
//
// Use in a kernel (each role that loops over tiles keeps its own copy; all copies see the same sequence):
//   TileSchedule<ScheduleKind::Hilbert> sched(tiles_m, tiles_n, gridDim.x / CLUSTER_SIZE,
//                                            blockIdx.x / CLUSTER_SIZE, CLUSTER_SIZE, cta_rank, GROUP_M);
//   for (ScheduledTile t; sched.next(t);) { ... t.m, t.n, t.valid ... }
#pragma once

#include "common/descriptors.cuh"  // GEMM_HD
#include "common/tile_order.h"     // TileCoord, grouped_tile

namespace gemm {

enum class ScheduleKind : int { Static = 0, Grouped = 1, Hilbert = 2 };

// One turn of a CTA's tile loop.
struct ScheduledTile {
  int m = 0, n = 0;    // tile indices along M and N (the tile's first row is m * BLOCK_M)
  bool valid = false;  // false: a padding tile past the last M tile (see above): take part, store nothing
};

// ---- The Hilbert order over a pairs_m x tiles_n grid that need not be square or a power of two ----
//
// Choice: the Hilbert curve of the enclosing power-of-two square, with the cells outside the grid skipped.
// (The alternative, a generalized "Gilbert" curve that fills any rectangle exactly, keeps every step
// between neighbours even on odd sizes, but its index -> cell map is a recursion over uneven splits that is
// hard to follow and to make cheap on the GPU.) Skipping cells keeps the locality that matters here: a run
// of consecutive valid cells still lies in a few aligned sub-squares of the curve. Steps between valid
// cells can jump across a skipped stretch, but only along the grid's edge.
//
// The k-th valid cell is found top-down, without visiting the k - 1 before it: at each level the current
// square splits into 4 quadrants, visited by the curve in a known order; the number of valid cells in a
// quadrant is the area of its overlap with the grid, so we skip whole quadrants until k falls inside one.
//
// Orientation. In its base frame the curve runs (0,0) -> (0,1) -> (1,1) -> (1,0) over the quadrants
// (x = pair row along M, y = column along N), entering at the corner (0, 0) and leaving at (side - 1, 0).
// To connect, quadrant 0 holds the curve transposed (swap x and y), quadrants 1 and 2 hold it as is, and
// quadrant 3 holds it anti-transposed (swap, then flip both). A frame is two bits, bit 0 "swap" and bit 1
// "flip both"; those two maps commute, so composing frames is an XOR of the bits.
GEMM_HD constexpr TileCoord hilbert_cell(int k, int rows, int cols, int side) {
  int x = 0, y = 0, frame = 0;
  for (int half = side / 2; half >= 1; half /= 2) {
    for (int q = 0; q < 4; ++q) {
      int lx = q >> 1, ly = (q ^ (q >> 1)) & 1;  // base-frame quadrant of step q: (0,0) (0,1) (1,1) (1,0)
      if (frame & 1) {                           // swap
        const int t = lx;
        lx          = ly;
        ly          = t;
      }
      if (frame & 2) {  // flip both
        lx ^= 1;
        ly ^= 1;
      }
      const int qx = x + lx * half, qy = y + ly * half;
      const int in_x  = rows - qx < 0 ? 0 : (rows - qx < half ? rows - qx : half);  // overlap with the grid
      const int in_y  = cols - qy < 0 ? 0 : (cols - qy < half ? cols - qy : half);
      const int cells = in_x * in_y;
      if (k < cells || q == 3) {
        x = qx;
        y = qy;
        frame ^= q == 0 ? 1 : (q == 3 ? 3 : 0);  // the quadrant's own frame, composed with ours
        break;
      }
      k -= cells;
    }
  }
  return {x, y};
}

// The smallest power of two >= n (n >= 1).
GEMM_HD constexpr int pow2_ceil(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// ---- The schedule ----
template <ScheduleKind KIND>
class TileSchedule {
 public:
  // tiles_m, tiles_n: the output's tiles (edge.h: num_tiles(M, BLOCK_M), ...), each >= 1.
  // num_clusters, cluster_id: the persistent grid, in clusters (gridDim.x / cluster_size, and this CTA's
  //   blockIdx.x / cluster_size for a 1-D grid of clusters along x).
  // cluster_size: 1 or 2 (CTAs of a cluster along M); cta_rank: this CTA's rank in it (%cluster_ctarank).
  // group_m: Grouped only, rows of *tiles* per group (rounded up to whole pairs).
  GEMM_HD constexpr TileSchedule(int tiles_m, int tiles_n, int num_clusters, int cluster_id,
                                 int cluster_size = 1, int cta_rank = 0, int group_m = 16)
      : tiles_m_(tiles_m),
        tiles_n_(tiles_n),
        pairs_m_((tiles_m + cluster_size - 1) / cluster_size),
        num_clusters_(num_clusters),
        cluster_id_(cluster_id),
        cluster_size_(cluster_size),
        cta_rank_(cta_rank),
        group_pairs_(group_m > cluster_size ? (group_m + cluster_size - 1) / cluster_size : 1),
        side_(KIND == ScheduleKind::Hilbert ? pow2_ceil(pairs_m_ > tiles_n ? pairs_m_ : tiles_n) : 0),
        next_unit_(cluster_id) {}

  // Units (cluster tiles: pairs of tiles for cluster_size 2) in the whole grid.
  GEMM_HD constexpr int num_units() const { return pairs_m_ * tiles_n_; }

  // Turns of this cluster's loop: ceil over the round-robin, so they differ by at most one between clusters.
  GEMM_HD constexpr int num_turns() const {
    return cluster_id_ < num_units() ? (num_units() - 1 - cluster_id_) / num_clusters_ + 1 : 0;
  }

  // Unit u (0 .. num_units() - 1) of the order: the pair row (tile row for cluster_size 1) and column.
  GEMM_HD constexpr TileCoord unit(int u) const {
    if (KIND == ScheduleKind::Static) return {u / tiles_n_, u % tiles_n_};  // row-major, N fastest
    if (KIND == ScheduleKind::Grouped) return grouped_tile(u, pairs_m_, tiles_n_, group_pairs_);
    return hilbert_cell(u, pairs_m_, tiles_n_, side_);
  }

  // This CTA's tile on turn `turn` (0 .. num_turns() - 1), without touching the iterator.
  GEMM_HD constexpr ScheduledTile tile(int turn) const {
    return tile_of_unit(cluster_id_ + turn * num_clusters_);
  }

  // The next tile of this CTA: false once the cluster has no more.
  GEMM_HD constexpr bool next(ScheduledTile& t) {
    if (next_unit_ >= num_units()) return false;
    t = tile_of_unit(next_unit_);
    next_unit_ += num_clusters_;
    return true;
  }

  // This CTA's tile of unit u: what a kernel that hands out units itself (v7's and v8's stream-K plans) asks for.
  GEMM_HD constexpr ScheduledTile tile_of_unit(int u) const {
    const TileCoord c = unit(u);
    ScheduledTile t;
    t.m     = c.m * cluster_size_ + cta_rank_;
    t.n     = c.n;
    t.valid = t.m < tiles_m_;
    return t;
  }

 private:
  int tiles_m_, tiles_n_, pairs_m_;
  int num_clusters_, cluster_id_, cluster_size_, cta_rank_;
  int group_pairs_;  // Grouped: pair rows per group
  int side_;         // Hilbert: the enclosing power-of-two square of the pair grid
  int next_unit_;    // next(): the unit of this cluster's next turn
};

// ---- The persistent grid ----
// Clusters to launch: as many as can be resident at once (`max_active_clusters`, from
// cudaOccupancyMaxActiveClusters), but never more than there are units of work (a tile, or a pair of
// vertically adjacent tiles for cluster_size 2): a cluster without a unit would only set up and exit.
// 0 when nothing fits (the launcher reports it).
GEMM_HD constexpr int persistent_clusters(int max_active_clusters, int tiles_m, int tiles_n,
                                          int cluster_size) {
  const int units = (tiles_m + cluster_size - 1) / cluster_size * tiles_n;
  return max_active_clusters < 1 ? 0 : (max_active_clusters < units ? max_active_clusters : units);
}

}  // namespace gemm
