// The arithmetic of "any M and N" (common/edge.h) and the shape rule from v6 on (options.h
// any_mn_shape_rule): tile counts, the valid part of edge tiles, the short last K tile, the K rule and its
// refusals; and the whole-tile rule of v1-v5, which keeps refusing ragged shapes.
#include <catch2/catch.hpp>

#include <array>
#include <string>

#include "common/edge.h"
#include "common/options.h"
#include "common/tma.h"

using namespace gemm;

namespace {
bool mentions(const std::string& msg, const char* what) {
  return msg.find(what) != std::string::npos;
}
alignas(1024) unsigned char g_buffer[64];
}  // namespace

TEST_CASE("tiles are counted by ceil-division, at one tile and one above and below tile multiples") {
  CHECK(num_tiles(1, 128) == 1);
  CHECK(num_tiles(127, 128) == 1);
  CHECK(num_tiles(128, 128) == 1);
  CHECK(num_tiles(129, 128) == 2);
  CHECK(num_tiles(4095, 128) == 32);
  CHECK(num_tiles(4096, 128) == 32);
  CHECK(num_tiles(4097, 128) == 33);
  CHECK(num_tiles(4099, 256) == 17);  // a prime
  CHECK(num_tiles(8191, 256) == 32);  // a prime
}

TEST_CASE("an edge tile's valid rows: the rest of the extent, and none for a tile wholly outside") {
  CHECK(tile_extent(1, 128, 0) == 1);
  CHECK(tile_extent(127, 128, 0) == 127);
  CHECK(tile_extent(129, 128, 0) == 128);
  CHECK(tile_extent(129, 128, 1) == 1);
  CHECK(tile_extent(4097, 128, 31) == 128);
  CHECK(tile_extent(4097, 128, 32) == 1);
  CHECK(tile_extent(4099, 256, 16) == 3);
  // The padding tile of a 2-CTA pair with an odd number of M tiles: 3 tiles of 128 rows, M = 300; the
  // second CTA of the second pair gets tile 3, which holds nothing.
  CHECK(num_tiles(300, 128) == 3);
  CHECK(tile_extent(300, 128, 2) == 44);
  CHECK(tile_extent(300, 128, 3) == 0);
  // For any extent, the tiles' valid parts add up to it and only the last one is short.
  for (int block : {8, 64, 128, 256})
    for (int64_t extent = 1; extent <= 1200; ++extent) {
      const int tiles = num_tiles(extent, block);
      int64_t sum     = 0;
      for (int t = 0; t < tiles; ++t) {
        const int e = tile_extent(extent, block, t);
        REQUIRE(e >= 1);
        if (t + 1 < tiles) REQUIRE(e == block);
        sum += e;
      }
      REQUIRE(sum == extent);
      REQUIRE(tile_extent(extent, block, tiles) == 0);
    }
}

TEST_CASE("K tiles include a short last one: K a multiple of 8 but not of BLOCK_K") {
  CHECK(num_k_tiles(8, 64) == 1);
  CHECK(last_k_tile_extent(8, 64) == 8);
  CHECK(num_k_tiles(64, 64) == 1);
  CHECK(last_k_tile_extent(64, 64) == 64);
  CHECK(num_k_tiles(72, 64) == 2);
  CHECK(last_k_tile_extent(72, 64) == 8);
  CHECK(num_k_tiles(4104, 64) == 65);
  CHECK(last_k_tile_extent(4104, 64) == 8);
  CHECK(num_k_tiles(1000, 64) == 16);
  CHECK(last_k_tile_extent(1000, 64) == 40);
  CHECK(num_k_tiles(4096, 64) == 64);
  CHECK(last_k_tile_extent(4096, 64) == 64);
}

TEST_CASE("the TMA stride rule: rows of a multiple of 16 bytes, so K a multiple of 8 (bf16) or 16 (fp8)") {
  CHECK(tma_k_multiple(2) == 8);
  CHECK(tma_k_multiple(1) == 16);
  CHECK(tma_row_stride_ok(8, 2));
  CHECK(tma_row_stride_ok(4104, 2));
  CHECK_FALSE(tma_row_stride_ok(12, 2));
  CHECK_FALSE(tma_row_stride_ok(4097, 2));
  CHECK(tma_row_stride_ok(16, 1));
  CHECK_FALSE(tma_row_stride_ok(24, 1));
  // The same rule as the tensor-map validator (tma.h) applies to a 2D K-major map with a 128B-swizzled
  // 64-wide box: K = 8 with one row is a valid map (the box reaches past both extents, TMA fills zeros);
  // K = 12 is refused for its stride.
  CHECK(validate_tma(kmajor_tma_2d(1, 8, 128, 64, 2, Swizzle::B128), g_buffer).empty());
  CHECK(validate_tma(kmajor_tma_2d(4099, 4104, 128, 64, 2, Swizzle::B128), g_buffer).empty());
  const std::string bad = validate_tma(kmajor_tma_2d(128, 12, 128, 64, 2, Swizzle::B128), g_buffer);
  INFO(bad);
  CHECK_FALSE(bad.empty());
}

TEST_CASE("v6's shape rule takes any M and N, and K a positive multiple of 8") {
  CHECK(check_shape_any("v6", 1, 1, 8).empty());
  CHECK(check_shape_any("v6", 127, 129, 72).empty());      // one below / above tile multiples
  CHECK(check_shape_any("v6", 4097, 4095, 4104).empty());  // K a multiple of 8, not of 64
  CHECK(check_shape_any("v6", 4099, 4093, 4096).empty());  // primes in M and N
  CHECK(check_shape_any("v6", 8191, 1, 8).empty());
  CHECK(check_shape_any("v6", 1, 16384, 16384).empty());
  CHECK(check_shape_any("mx", 3, 5, 32, 1).empty());  // fp8: K a multiple of 16
}

TEST_CASE("v6's shape rule refuses other K, and sizes below 1, naming the constraint") {
  const std::string k_msg = check_shape_any("v6c", 4096, 4096, 1001);
  INFO(k_msg);
  CHECK(mentions(k_msg, "K=1001"));
  CHECK(mentions(k_msg, "=8"));
  CHECK(mentions(k_msg, "16 bytes"));  // why: the TMA stride rule
  CHECK(mentions(k_msg, "TMA global stride"));
  CHECK(mentions(k_msg, "try K=1000"));
  CHECK(mentions(k_msg, "v6c"));
  CHECK(mentions(check_shape_any("v6", 1, 1, 4), "try K=8"));  // never below one multiple
  CHECK(mentions(check_shape_any("v6", 1, 1, 12), "K=12"));
  const std::string fp8_msg = check_shape_any("mx", 128, 128, 24, 1);
  CHECK(mentions(fp8_msg, "K=24"));
  CHECK(mentions(fp8_msg, "=16"));

  CHECK(mentions(check_shape_any("v6", 0, 5, 8), "M=0 is below 1"));
  CHECK(mentions(check_shape_any("v6", 5, -3, 8), "N=-3 is below 1"));
  CHECK(mentions(check_shape_any("v6", 5, 5, 0), "K=0 is below 1"));
}

TEST_CASE("stages v1-v5 keep refusing ragged shapes with their whole-tile message") {
  const ShapeRule v4{128, 256, 64, "needs whole 128x256x64 tiles"};
  CHECK(check_shape(v4, "v4", 4096, 4096, 4096).empty());
  for (const auto& s : {std::array<int64_t, 3>{1, 1, 8},
                        {4097, 4096, 4096},
                        {4096, 4095, 4096},
                        {4096, 4096, 4104},
                        {4099, 4093, 4096}}) {
    const std::string msg = check_shape(v4, "v4", s[0], s[1], s[2]);
    INFO(msg);
    CHECK(mentions(msg, "is not a multiple of BLOCK_"));
    CHECK(mentions(msg, "whole 128x256x64 tiles"));
  }
  const ShapeRule v5{256, 256, 64, "pairs 128-row M tiles in a 2-CTA cluster", "2*BLOCK_M"};
  CHECK(mentions(check_shape(v5, "v5", 384, 256, 64), "2*BLOCK_M=256"));
  CHECK(mentions(check_shape(v5, "v5", 256, 256, 72), "BLOCK_K=64"));
}
