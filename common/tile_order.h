// tile_order.h: the grouped tile order, which v6's grouped schedule (common/scheduler.h, v6b) deals out to
// its clusters (host and device, so the CPU tests check it).
//
// The GPU starts clusters (and CTAs) roughly in order of their linear index, blockIdx.x fastest, and runs one
// wave of them at a time. The tiles of one wave share operands through L2 only if they sit close together:
// walking N fastest, as v1-v5 do, a wave at 8192^3 covers four 128-row M tiles and all 32 N tiles, so every
// wave reads all of B (128 MB, more than the 50 MB L2) from DRAM (docs/performance/v4-no-faster-than-v3.md,
// "The answer"). Grouped order walks `group_m` rows of tiles down M first, then steps along N: a wave covers
// a near-square block of C, whose A rows and B columns are read from DRAM once and then hit in L2.
#pragma once

#include "common/descriptors.cuh"  // GEMM_HD

namespace gemm {

struct TileCoord {
  int m, n;  // tile indices along M and N
};

// The tile of launch index `id` (0 .. tiles_m * tiles_n - 1) in a grid of tiles_m x tiles_n tiles, visited in
// groups of `group_m` rows of tiles: down M inside a group, then the next N column; the last group may be
// shorter. group_m >= tiles_m gives plain M-fastest order, group_m = 1 N-fastest. A bijection (tested).
GEMM_HD constexpr TileCoord grouped_tile(int id, int tiles_m, int tiles_n, int group_m) {
  const int per_group = group_m * tiles_n;  // tiles in a full group
  const int group     = id / per_group;
  const int first_m   = group * group_m;
  const int rows      = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;  // this group's rows
  const int in_group  = id - group * per_group;
  return {first_m + in_group % rows, in_group / rows};
}

}  // namespace gemm
