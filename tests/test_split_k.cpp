// test_split_k.cpp: the decode kernels' split of K (common/split_k.h), the code v8s runs, on the CPU. Over a
// grid of shapes (one K tile, primes, fewer K tiles than splits wanted, more tiles than slots): every K tile
// of a tile is in exactly one split and no split is empty; the grid is one wave wherever the tiles fit, and
// K is not split where they do not; no split is shorter than the minimum unless the problem itself is; and
// the sweep's decode shapes get the splits common/split_k.h names, at both widths' minimum split.
#include <catch2/catch.hpp>

#include <cstdio>

#include "common/split_k.h"

using gemm::pick_split_k;
using gemm::SplitK;

TEST_CASE("split_k: every K tile in exactly one non-empty split, one wave, no short split", "[split_k]") {
  int checked = 0;
  for (int tiles : {1, 2, 7, 32, 64, 80, 131, 132, 224, 263, 264, 400, 1000})
    for (int k_tiles : {1, 2, 3, 4, 5, 7, 8, 17, 64, 101, 128, 448})
      for (int slots : {1, 132, 264, 396})
        for (int min_k : {1, 2, 4, 8}) {
          const SplitK s = pick_split_k(tiles, k_tiles, slots, min_k);
          INFO("tiles " << tiles << " k_tiles " << k_tiles << " slots " << slots << " min " << min_k
                        << " -> splits " << s.splits << " x " << s.k_tiles);
          REQUIRE(s.splits >= 1);
          REQUIRE(s.k_tiles >= 1);
          // coverage: the splits tile [0, k_tiles) exactly, in order, none empty
          int next = 0;
          for (int i = 0; i < s.splits; ++i) {
            REQUIRE(s.begin(i) == next);
            REQUIRE(s.end(i, k_tiles) > s.begin(i));
            next = s.end(i, k_tiles);
          }
          REQUIRE(next == k_tiles);
          // one wave where the tiles fit, else no split; never more than K allows in splits of min_k
          const int most = k_tiles / min_k > 1 ? k_tiles / min_k : 1;
          int wanted     = 1;
          if (tiles <= slots) {
            REQUIRE(long(tiles) * s.splits <= slots);
            wanted = slots / tiles;
          } else {
            REQUIRE(s.splits == 1);
          }
          if (wanted > most) wanted = most;
          if (s.splits > 1) REQUIRE(s.k_tiles >= min_k);
          if (k_tiles < 2 * min_k) REQUIRE(s.splits == 1);
          REQUIRE(s.k_tiles == (k_tiles + wanted - 1) / wanted);
          REQUIRE(s.splits <= wanted);
          ++checked;
        }
  std::printf("split_k: %d configurations\n", checked);
}

TEST_CASE(
    "split_k: the H100 and H200 decode shapes (132 SMs, one decode CTA per SM, K tiles of 64, at least 4 at "
    "16 wide and 96 at 32)",
    "[split_k]") {
  const int slots = 132;
  struct Case {
    int n, k, min_k, splits, k_tiles;  // the last split has the rest
  } cases[] = {
      {4096, 4096, 4, 4, 16},     // 32 tiles: 4 splits, one wave of 128 CTAs
      {8192, 8192, 4, 2, 64},     // 64 tiles x 2
      {8192, 28672, 4, 2, 224},   // 64 tiles, 448 K tiles
      {10240, 8192, 4, 1, 128},   // 80 tiles: one split, 80 of 132 SMs (2 splits would be two waves)
      {28672, 4096, 4, 1, 64},    // 224 tiles: more than one wave, no split
      {57344, 8192, 4, 1, 128},   // 448 tiles: 3.4 waves of whole columns of K
      {4096, 4096, 96, 1, 64},    // 32 wide: 64 K tiles are one split's worth
      {8192, 8192, 96, 1, 128},   // 32 wide: 128 K tiles, not two of 96
      {8192, 28672, 96, 2, 224},  // 32 wide: two splits of 224
      {4096, 14336, 96, 2, 112},  // 32 wide: 4 splits would fill the wave, K allows 2
  };
  for (const Case& c : cases) {
    const int tiles = (c.n + 127) / 128, k_tiles = (c.k + 63) / 64;
    const SplitK s = pick_split_k(tiles, k_tiles, slots, c.min_k);
    INFO("N " << c.n << " K " << c.k << " min " << c.min_k << " -> " << s.splits << " x " << s.k_tiles);
    CHECK(s.splits == c.splits);
    CHECK(s.k_tiles == c.k_tiles);
    CHECK(s.end(s.splits - 1, k_tiles) == k_tiles);
  }
}
