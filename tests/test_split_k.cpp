// test_split_k.cpp: the decode kernels' split of K (common/split_k.h), the code v8s runs, on the CPU. Over a
// grid of shapes (one K tile, primes, fewer K tiles than splits wanted, more tiles than slots): every K tile
// of a tile is in exactly one split and no split is empty; the grid is one wave wherever the tiles fit, and
// K is not split where they do not; no split is shorter than the minimum unless the problem itself is; and
// the sweep's decode shapes get the splits common/split_k.h names, at both widths' minimum split. Where v8d
// takes the small tile, the turned tile and the token pair (and in row groups), and where a split's partial keeps each thread's
// values.
#include <catch2/catch.hpp>

#include <cstdio>
#include <utility>
#include <vector>

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

TEST_CASE("split_k: where v8d turns the tile around at 129-192 rows (pick_turned_width), on 132 SMs",
          "[split_k]") {
  const int slots = 132;
  const auto width = [&](long long m, int n, int k) {
    return gemm::pick_turned_width(m, (n + 127) / 128, (k + 63) / 64, slots);
  };
  // The shapes timed on an H200 (common/split_k.h): faster turned around, and not
  CHECK(width(144, 28672, 8192) == 144);  // 224 tiles of B: two waves, 85% full
  CHECK(width(144, 10240, 8192) == 144);  // 80 tiles: 60% of the SMs
  CHECK(width(144, 14336, 8192) == 144);
  CHECK(width(144, 53248, 8192) == 144);  // 416 tiles: 4 waves, 79% full
  CHECK(width(144, 28672, 2048) == 144);  // K 2048: v8d's ping-pong 2.3x slower
  CHECK(width(144, 8192, 28672) == 144);  // 64 tiles, K long
  CHECK(width(144, 8192, 16384) == 144);
  CHECK(width(144, 8192, 8192) == 0);     // 64 tiles, K 8192: a tie with v8d's pair
  CHECK(width(144, 4096, 4096) == 0);     // 32 tiles: v8d 1.4x faster
  CHECK(width(144, 4096, 14336) == 0);    // 32 tiles: v8d 1.16x faster
  CHECK(width(176, 28672, 8192) == 192);
  CHECK(width(176, 14336, 8192) == 192);  // 112 tiles: 85% of the SMs
  CHECK(width(176, 16384, 8192) == 192);
  CHECK(width(192, 53248, 8192) == 192);
  CHECK(width(176, 8192, 28672) == 192);  // 64 tiles, K 28672
  CHECK(width(176, 8192, 16384) == 0);    // 64 tiles, K 16384: a tie
  CHECK(width(176, 10240, 8192) == 0);    // 80 tiles: a tie at 192 wide
  CHECK(width(176, 20480, 8192) == 0);    // 160 tiles: 2 waves 61% full, 1.23x v8d's time
  CHECK(width(192, 8192, 8192) == 0);
  // The edges: M, the SMs, and the K below which no shape takes it
  CHECK(width(128, 28672, 8192) == 0);
  CHECK(width(129, 28672, 8192) == 144);
  CHECK(width(145, 28672, 8192) == 192);
  CHECK(width(193, 28672, 8192) == 0);
  CHECK(width(144, 28672, 1984) == 0);  // 31 K tiles
  CHECK(width(144, 7552, 8192) == 0);   // 59 tiles, below 60% of 132
  CHECK(width(144, 7680, 16384) == 144);  // 60 tiles, 45% of 132, K long
  CHECK(width(144, 7424, 16384) == 0);    // 58 tiles
  CHECK(gemm::pick_turned_width(144, 224, 128, 0) == 0);  // no SM: nothing picked (nor a division by 0)
  // Over M: a width that holds M wherever one is picked, and the same rule at twice the SMs twice the tiles
  for (long long m = 1; m <= 300; ++m)
    for (int n : {1000, 8192, 10240, 16384, 28672, 57344})
      for (int k : {512, 4096, 8192, 16384, 28672}) {
        const int w = width(m, n, k);
        INFO("M " << m << " N " << n << " K " << k << " -> " << w);
        CHECK((w == 0 || w == 144 || w == 192));
        if (w != 0) CHECK((m > 128 && m <= w && (w == 144 || m > 144)));
        CHECK(gemm::pick_turned_width(m, 2 * ((n + 127) / 128), (k + 63) / 64, 2 * slots) == w);
      }
}

TEST_CASE("split_k: where v8d takes the token pair at 65-256 rows (pick_token_pair), on 66 pair slots",
          "[split_k]") {
  const int pair_slots = 66;
  const auto width     = [&](long long m, int n) {
    return gemm::pick_token_pair(m, (n + 127) / 128, 128, pair_slots);  // K 8192
  };
  // The shapes timed on an H200 (common/split_k.h): faster as the token pair, and not
  CHECK(width(128, 8192) == 64);   // 64 tiles: 1.00x of cuBLAS at its best against v8d's 0.89x
  CHECK(width(112, 8192) == 64);
  CHECK(width(97, 8192) == 64);
  CHECK(width(96, 8192) == 48);    // 48 wide: 1.02x against 0.90x (64 wide lost at K = 28672)
  CHECK(width(80, 8192) == 48);
  CHECK(width(72, 8192) == 48);
  CHECK(width(72, 4096) == 48);    // 32 tiles, split: 16.0 us (18.6 before the split's partials were whole
                                   // lines) against 23.7 for v8d's other tiles
  CHECK(width(96, 6144) == 48);
  CHECK(width(128, 6144) == 64);   // 48 tiles, 73% of the slots
  CHECK(width(144, 8192) == 80);
  CHECK(width(160, 8192) == 80);
  CHECK(width(144, 4096) == 80);   // 32 tiles, split, K 8192: 27.1 us (34.5 before) against v8d's 42.7
  CHECK(width(176, 8192) == 96);
  CHECK(width(192, 8192) == 96);
  CHECK(width(192, 6144) == 96);
  CHECK(width(200, 8192) == 112);  // 0.92x against 0.81-0.87x 128 wide (0.74x v8d's tile of 256 rows)
  CHECK(width(224, 8192) == 112);  // 1.09-1.14x against 1.01x 128 wide
  CHECK(width(225, 8192) == 128);
  CHECK(width(200, 6144) == 112);  // 48 tiles, 73% of the slots: 0.92x against v8d's 0.82x
  CHECK(width(224, 6144) == 112);  // 0.97x against 0.86x
  CHECK(width(208, 4096) == 112);  // 32 tiles, split: 21.0 us against v8d's 27.8 (before the split's partials
                                   // were whole lines: 32.4)
  CHECK(width(224, 4096) == 112);  // 31.0 us against 38.6 at K 8192
  CHECK(width(256, 8192) == 128);  // 0.99x against 0.89x
  CHECK(width(240, 4096) == 128);  // 34.8 us against 42.5 at K 8192
  CHECK(width(128, 4096) == 64);   // 32 tiles at 128 rows: 17.2 us against 18.8 (1.01x against 0.92x before)
  CHECK(width(112, 4096) == 64);   // 16.9 us against 19.3
  CHECK(width(100, 2048) == 64);   // 16 tiles, 4 splits: 15.0 us against 15.2 at K 4096
  CHECK(width(256, 6144) == 128);  // 48 tiles at 256 rows: a tie (0.78x)
  CHECK(width(256, 4096) == 128);  // a tie: 22.8 us against 22.6 at K 4096
  CHECK(width(64, 8192) == 0);     // half the pair's rows padding at 64 wide: 0.81x against 0.94x
  CHECK(width(80, 10240) == 0);    // 80 tiles: more than one wave of pairs
  CHECK(width(128, 10240) == 0);
  CHECK(width(144, 10240) == 0);
  CHECK(width(192, 10240) == 0);
  CHECK(width(256, 10240) == 0);
  CHECK(width(128, 14336) == 0);
  CHECK(width(144, 28672) == 0);   // 224 tiles: the turned tile's (pick_turned_width)
  // The edges: M, the slots (any share of them: one wave)
  CHECK(width(65, 8192) == 48);
  CHECK(width(257, 8192) == 0);
  CHECK(width(129, 8192) == 80);
  CHECK(width(161, 8192) == 96);
  CHECK(width(193, 8192) == 112);
  CHECK(gemm::pick_token_pair(128, 66, 128, pair_slots) == 64);  // one full wave
  CHECK(gemm::pick_token_pair(128, 67, 128, pair_slots) == 0);   // one tile past it
  CHECK(gemm::pick_token_pair(96, 1, 128, pair_slots) == 48);    // any one wave
  CHECK(gemm::pick_token_pair(128, 1, 128, pair_slots) == 64);
  CHECK(gemm::pick_token_pair(144, 1, 128, pair_slots) == 80);
  CHECK(gemm::pick_token_pair(200, 16, 128, pair_slots) == 112);
  CHECK(gemm::pick_token_pair(256, 1, 128, pair_slots) == 128);
  CHECK(gemm::pick_token_pair(144, 64, 128, 0) == 0);            // no pair fits: nothing picked
  // K: at 225-256 rows no more than 128 K tiles (224 x 8192 x 28672 128 wide: 202 us against v8d's 191),
  // elsewhere any (112 wide at 224 x 8192 x 28672: 1.02-1.05x of cuBLAS at its best against v8d's 0.90x)
  CHECK(gemm::pick_token_pair(256, 64, 448, pair_slots) == 0);
  CHECK(gemm::pick_token_pair(240, 64, 129, pair_slots) == 0);
  CHECK(gemm::pick_token_pair(240, 64, 32, pair_slots) == 128);  // K 2048: 18.3 us against 18.8
  CHECK(gemm::pick_token_pair(224, 64, 448, pair_slots) == 112);
  CHECK(gemm::pick_token_pair(200, 64, 448, pair_slots) == 112); // 0.92x against 0.79x
  CHECK(gemm::pick_token_pair(192, 64, 448, pair_slots) == 96);  // 192 x 8192 x 28672: 173 us against 184
  CHECK(gemm::pick_token_pair(96, 64, 448, pair_slots) == 48);   // 96 x 8192 x 28672: 122 us against 124
  // Over M: the narrowest width whose two CTAs hold M wherever one is picked, and the same at twice the slots
  const int widths[] = {48, 64, 80, 96, 112, 128};
  for (long long m = 1; m <= 300; ++m)
    for (int tiles = 1; tiles <= 140; ++tiles) {
      const int w = gemm::pick_token_pair(m, tiles, 128, pair_slots);
      INFO("M " << m << " tiles " << tiles << " -> " << w);
      CHECK((w == 0 || w == 48 || w == 64 || w == 80 || w == 96 || w == 112 || w == 128));
      if (w != 0) {
        CHECK((m > 64 && m <= 2 * w && tiles <= pair_slots));
        for (int narrower : widths)
          if (narrower < w) CHECK(m > 2 * narrower);
      }
      CHECK(gemm::pick_token_pair(m, 2 * tiles, 128, 2 * pair_slots) == w);
    }
}

TEST_CASE("split_k: where v8d takes the token pair in row groups (pick_token_pair_groups), on 66 pair slots",
          "[split_k]") {
  const int pair_slots = 66;
  const auto groups    = [&](long long m, int n) { return gemm::pick_token_pair_groups(m, (n + 127) / 128, pair_slots); };
  // The shapes timed on an H200 (common/split_k.h): faster in two row groups of the 64-wide pair, or level
  CHECK(groups(256, 4096));   // 256 x 4096 x 14336: 59.7-63.1 us against 65.2-65.7; x 4096, x 8192 too
  CHECK(groups(256, 2048));   // 256 x 2048 x 4096: 15.9-16.0 against 20.7-20.8; x 8192 level
  CHECK(groups(256, 1024));   // 256 x 1024 x 8192: 17.1 against 21.9
  CHECK(groups(240, 4096));
  CHECK(groups(225, 4096));
  // ... and where it was slower: past one wave of pairs (two groups of 48 and 64 tiles of B), at 224 rows
  CHECK_FALSE(groups(256, 8192));   // 44.3 against 30.7-31.4 at K 4096
  CHECK_FALSE(groups(256, 6144));   // 36.9 against 28.1-28.4
  CHECK_FALSE(groups(224, 4096));   // 39.3-39.7 against the pair 112 wide's 31.0-31.1 at K 8192
  CHECK_FALSE(groups(224, 2048));   // (16.1 against 18.8 at K 4096: the rule keeps 224 rows the 112-wide pair's)
  CHECK_FALSE(groups(192, 2048));
  CHECK_FALSE(groups(257, 2048));   // past 256 rows: v8d's other tiles
  // The edges: one wave exactly, one tile past it, no pair resident
  CHECK(gemm::pick_token_pair_groups(256, 33, pair_slots));
  CHECK_FALSE(gemm::pick_token_pair_groups(256, 34, pair_slots));
  CHECK_FALSE(gemm::pick_token_pair_groups(256, 1, 0));
}

TEST_CASE("split_k: where v8d takes the small tile (pick_small_tile), on 264 slots (two CTAs per SM)",
          "[split_k]") {
  const int slots = 264;  // 12 KB stages x 8: two of v8g's CTAs per SM of an H100 or H200
  // v8g's blocks: 64-row tiles of B (N) by 32-row groups of A (M); its split (K) fills each SM once (132)
  const auto small = [&](long long m, long long n, long long k) {
    return gemm::pick_small_tile(((n + 63) / 64) * ((m + 31) / 32), int((k + 63) / 64), slots);
  };
  const auto splits = [](long long m, long long n, long long k) {
    return pick_split_k(int(((n + 63) / 64) * ((m + 31) / 32)), int((k + 63) / 64), 132, 16).splits;
  };
  // The shapes timed on an H200 (common/split_k.h): where the small tile was faster than v8d's pick, or level
  CHECK(small(512, 512, 512));  // 128 blocks x 8 K tiles: 5.66 us against 6.56
  CHECK(small(640, 640, 640));  // 200 blocks, two on some SMs: 6.59 against 7.07
  CHECK(small(384, 384, 1024));
  CHECK(small(512, 512, 1024));  // 2048
  CHECK(small(256, 1024, 1024));
  CHECK(small(1024, 256, 1024));
  CHECK(small(768, 512, 512));
  CHECK(small(512, 1024, 512));  // 256 blocks: 6.46 against 6.75
  CHECK(small(300, 520, 512));
  CHECK(small(128, 1024, 1024));
  CHECK(small(200, 2048, 1024));  // 224 blocks x 16: 8.48 against 10.30
  CHECK(small(64, 1024, 2048));
  CHECK(small(128, 2048, 2048));  // 128 x 32 = 4096, the bound: 9.63 against 11.01 (in 2 splits: 11.39, 11.36)
  CHECK(small(256, 256, 4096));   // 32 blocks in 4 splits of 16 K tiles: 8.96 against 19.49
  CHECK(splits(256, 256, 4096) == 4);
  CHECK(small(128, 512, 4096));
  CHECK(splits(128, 512, 4096) == 4);
  CHECK(small(256, 256, 8192));  // 4 splits of 32: 11.49 us (8 of 16: 12.54) against 21.02
  CHECK(splits(256, 256, 8192) == 4);
  CHECK(small(64, 512, 16384));  // 16 blocks in 8 splits of 32: 14.24 (16 of 16: 15.17) against 17.54
  CHECK(splits(64, 512, 16384) == 8);
  CHECK(splits(64, 1024, 2048) == 2);  // 32 blocks: no split shorter than 16 K tiles
  CHECK(splits(512, 512, 512) == 1);   // 128 blocks: one each on 128 SMs
  // ... and where it was slower: more work, or more blocks than slots
  CHECK_FALSE(small(96, 4096, 2048));  // 6144: 13.41 against 11.97
  CHECK_FALSE(small(33, 8192, 2048));
  CHECK_FALSE(small(512, 512, 4096));  // 16.10 against 13.22
  CHECK_FALSE(small(384, 384, 8192));
  CHECK_FALSE(small(512, 512, 8192));  // 27.62 against 16.83
  CHECK_FALSE(small(128, 1024, 8192));
  CHECK_FALSE(small(768, 768, 768));    // 288 blocks: 9.89 against 7.87
  CHECK_FALSE(small(1024, 1024, 512));  // 512 blocks
  CHECK_FALSE(small(1024, 1024, 1024));
  // Missed: a little faster past the bound (16.83 against 17.76 at 64 x 4096 x 4096, 17.89 against 18.34 at
  // 64 x 2048 x 8192), level at 48 x 4096 x 4096
  CHECK_FALSE(small(64, 4096, 4096));
  CHECK_FALSE(small(64, 2048, 8192));
  // The edges: one wave of slots, the work's bound, and a slot count half as large
  CHECK(gemm::pick_small_tile(264, 15, slots));
  CHECK_FALSE(gemm::pick_small_tile(265, 1, slots));
  CHECK(gemm::pick_small_tile(1, 4096, slots));
  CHECK_FALSE(gemm::pick_small_tile(1, 4097, slots));
  CHECK_FALSE(gemm::pick_small_tile(200, 1, 132));
  CHECK_FALSE(gemm::pick_small_tile(1, 1, 0));  // no CTA fits: nothing picked
}

TEST_CASE("split_k: where v8d takes the decode kernel over 64-row tiles (pick_decode_short_tile), on 132 slots",
          "[split_k]") {
  const int slots = 132;  // 10 KB stages x 16: one of v8h's CTAs per SM of an H100 or H200
  const int min64 = 16, min128 = 4;  // the shortest split of v8h's and of v8s's (decode_sm90.cuh)
  const auto short_tile = [&](long long n, long long k) {
    return gemm::pick_decode_short_tile(int((n + 63) / 64), int((k + 63) / 64), slots, min64);
  };
  const auto splits128 = [&](long long n, long long k) {
    return pick_split_k(int((n + 127) / 128), int((k + 63) / 64), slots, min128).splits;
  };
  // The shapes timed on an H200 (common/split_k.h) where v8h was faster: one wave, no split, K long; v8s
  // splits K in two there
  CHECK(short_tile(8192, 28672));  // 128 tiles x 448 K tiles: 110.4 us against 112.2 (8 and 16 rows)
  CHECK(splits128(8192, 28672) == 2);
  CHECK(short_tile(8192, 16384));  // 66.0 against 67.1
  CHECK(short_tile(8192, 8192));   // 128 K tiles, the bound: 36.6 against 37.8
  CHECK(splits128(8192, 8192) == 2);
  // ... and where it was slower or level: K of 64 K tiles, split itself, past one wave
  CHECK_FALSE(short_tile(8200, 4104));  // 129 tiles, 65 K tiles: 23.4 against 23.0
  CHECK_FALSE(short_tile(6144, 4096));  // 96 tiles: 18.0-18.2 against 18.0-18.1
  CHECK_FALSE(short_tile(4096, 4096));  // 64 tiles in 2 splits: 14.5 against 14.1
  CHECK_FALSE(short_tile(4096, 14336));
  CHECK_FALSE(short_tile(2048, 8192));
  CHECK_FALSE(short_tile(10240, 8192));  // 160 tiles: 51.8 against 44.5
  CHECK_FALSE(short_tile(12288, 8192));
  CHECK_FALSE(short_tile(14336, 8192));
  CHECK_FALSE(short_tile(16384, 8192));  // 256 tiles: 67.8 against 65.7
  CHECK_FALSE(short_tile(28672, 8192));
  CHECK_FALSE(short_tile(53248, 8192));
  CHECK_FALSE(short_tile(28672, 4096));
  CHECK_FALSE(short_tile(14336, 4096));
  // Missed: faster at 16 tiles in 8 splits (v8s: 8 in 16), and past one wave at 24576 and 57344 x 8192
  CHECK_FALSE(short_tile(1000, 30000));
  CHECK_FALSE(short_tile(24576, 8192));
  CHECK_FALSE(short_tile(57344, 8192));
  // The edges: one wave of slots (N = 8448: 132 tiles), the K bound, a tile count that v8h would split
  CHECK(short_tile(8448, 8192));
  CHECK_FALSE(short_tile(8449, 8192));
  CHECK_FALSE(short_tile(8192, 8128));  // 127 K tiles
  CHECK(short_tile(8192, 8129));        // 128, the last one part
  CHECK(gemm::pick_decode_short_tile(67, 128, slots, min64));       // 2 x 67 > 132: one split
  CHECK_FALSE(gemm::pick_decode_short_tile(66, 128, slots, min64));  // 66 tiles: two splits of 64
  CHECK_FALSE(gemm::pick_decode_short_tile(1, 4096, 0, min64));      // no CTA fits: nothing picked
  // Wherever it is taken, v8s would have split K: the rule trades v8s's partials for no split at all
  for (int tiles64 = 1; tiles64 <= 2 * slots; ++tiles64)
    for (int k_tiles : {1, 64, 127, 128, 129, 448, 4096}) {
      if (!gemm::pick_decode_short_tile(tiles64, k_tiles, slots, min64)) continue;
      INFO("tiles64 " << tiles64 << ", K tiles " << k_tiles);
      CHECK(pick_split_k((tiles64 + 1) / 2, k_tiles, slots, min128).splits >= 2);
      CHECK(pick_split_k(tiles64, k_tiles, slots, min64).splits == 1);
    }
}

TEST_CASE("split_k: where v8d takes the small tile at 17-32 rows (pick_small_tile_few_ctas), on 132 SMs",
          "[split_k]") {
  const int sms = 132;
  // v8t's CTAs: its 128-row tiles of B times its splits (no split shorter than 96 K tiles, 32 wide)
  const auto wide_ctas = [&](long long n, long long k) {
    const int tiles = int((n + 127) / 128);
    return tiles * pick_split_k(tiles, int((k + 63) / 64), sms, 96).splits;
  };
  const auto small = [&](long long n, long long k) { return gemm::pick_small_tile_few_ctas(wide_ctas(n, k), sms); };
  // The shapes timed on an H200 (common/split_k.h): where the small tile was faster, v8t on 16-32 CTAs
  CHECK(wide_ctas(2048, 8192) == 16);  // 128 K tiles: no split of 96 or more fits twice
  CHECK(small(2048, 8192));            // 14.9-15.2 us against 22.1
  CHECK(wide_ctas(4096, 4096) == 32);
  CHECK(small(4096, 4096));  // 24 and 32 rows: 15.0 against 15.7-16.0, 14.9 against 15.6-15.8
  // ... and where it was slower, or faster but not taken: 64 CTAs or more
  CHECK(wide_ctas(4096, 14336) == 64);  // 32 tiles x 2 splits: 34.6-34.9 against 34.0-34.3
  CHECK_FALSE(small(4096, 14336));
  CHECK(wide_ctas(8192, 8192) == 64);
  CHECK_FALSE(small(8192, 8192));  // 20 and 32 rows: 38.1-38.2 against 37.1, 37.7-37.9 against 37.2-37.3
  CHECK_FALSE(small(10240, 8192));
  CHECK_FALSE(small(57344, 8192));
  CHECK(wide_ctas(8192, 28672) == 128);
  CHECK_FALSE(small(8192, 28672));  // 114.0 against 115.3: not taken
  // The edges: a quarter of the SMs (33 CTAs), and no CTA at all
  CHECK(gemm::pick_small_tile_few_ctas(33, sms));
  CHECK_FALSE(gemm::pick_small_tile_few_ctas(34, sms));
  CHECK_FALSE(gemm::pick_small_tile_few_ctas(0, sms));
  CHECK(small(4224, 4096));        // 33 tiles, one split
  CHECK_FALSE(small(4225, 4096));  // 34
}

TEST_CASE("split_k: a split's partial in whole 128-byte lines per warp store (split_partial_float4)",
          "[split_k]") {
  // The kernels that store partials: {threads storing, float4s per thread}. v8's decode kernel on Hopper (one
  // consumer warpgroup at 16 and 32 wide, two from 48 wide: COLS / 8 float4s each), its Blackwell twin (128
  // TMEM lanes, COLS / 4 float4s each), bw's decode kernel (128 threads, 4).
  struct Kernel {
    int threads, float4s;
  };
  std::vector<Kernel> kernels = {{128, 4}, {128, 8}, {128, 4}};
  for (int cols : {48, 64, 80, 96, 112, 128, 144, 192}) kernels.push_back({256, cols / 8});
  for (int cols : {16, 32, 48, 64, 80, 96, 112, 128, 144, 192}) kernels.push_back({128, cols / 4});
  // A layout's float4s: every one of the partial's exactly once, and each warp's 32 of one store contiguous
  // and 512-byte aligned (the partial starts 512-byte aligned: 128 x COLS floats)
  const auto check = [](const Kernel& k, auto layout) {
    std::vector<int> seen(size_t(k.threads) * k.float4s, 0);
    bool whole_lines = true;
    for (int i = 0; i < k.float4s; ++i)
      for (int t = 0; t < k.threads; ++t) {
        const int f = layout(i, t, k);
        if (f < 0 || f >= int(seen.size())) return std::make_pair(false, false);
        ++seen[size_t(f)];
        const int first = layout(i, t - t % 32, k);
        if (first % 32 != 0 || f != first + t % 32) whole_lines = false;
      }
    bool once = true;
    for (int n : seen) once = once && n == 1;
    return std::make_pair(once, whole_lines);
  };
  for (const Kernel& k : kernels) {
    INFO(k.threads << " threads, " << k.float4s << " float4s each");
    const auto lines =
        check(k, [](int i, int t, const Kernel& kk) { return gemm::split_partial_float4(t, i, kk.threads); });
    CHECK(lines.first);
    CHECK(lines.second);
    // the layout before: each thread's float4s side by side, a permutation too but never whole lines
    const auto side_by_side = check(k, [](int i, int t, const Kernel& kk) { return t * kk.float4s + i; });
    CHECK(side_by_side.first);
    CHECK_FALSE(side_by_side.second);
  }
  CHECK(gemm::split_partial_float4(5, 3, 256) == 3 * 256 + 5);
}
