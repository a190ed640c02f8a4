// The grouped tile order (common/tile_order.h): every tile exactly once, in the intended order.
#include <catch2/catch.hpp>

#include <set>
#include <utility>

#include "common/tile_order.h"

TEST_CASE("grouped_tile visits every tile exactly once, for full and partial groups") {
  const int shapes[][3] = {{16, 16, 8}, {32, 32, 8}, {5, 7, 2}, {3, 4, 8}, {1, 9, 8}, {9, 1, 4}, {6, 6, 1}};
  for (const auto& sh : shapes) {
    const int tiles_m = sh[0], tiles_n = sh[1], group = sh[2];
    INFO("tiles " << tiles_m << " x " << tiles_n << ", group " << group);
    std::set<std::pair<int, int>> seen;
    for (int id = 0; id < tiles_m * tiles_n; ++id) {
      const gemm::TileCoord t = gemm::grouped_tile(id, tiles_m, tiles_n, group);
      REQUIRE(t.m >= 0);
      REQUIRE(t.m < tiles_m);
      REQUIRE(t.n >= 0);
      REQUIRE(t.n < tiles_n);
      seen.insert({t.m, t.n});
    }
    CHECK(seen.size() == size_t(tiles_m * tiles_n));
  }
}

TEST_CASE("grouped_tile walks down M inside a group, then along N, and group 1 is N-fastest") {
  // 6 x 4 tiles in groups of 4 rows: ids 0..3 are rows 0..3 of column 0, id 4 is row 0 of column 1; the last
  // group has 2 rows: id 16 is (4, 0), id 17 (5, 0), id 18 (4, 1).
  CHECK(gemm::grouped_tile(1, 6, 4, 4).m == 1);
  CHECK(gemm::grouped_tile(1, 6, 4, 4).n == 0);
  CHECK(gemm::grouped_tile(4, 6, 4, 4).m == 0);
  CHECK(gemm::grouped_tile(4, 6, 4, 4).n == 1);
  CHECK(gemm::grouped_tile(18, 6, 4, 4).m == 4);
  CHECK(gemm::grouped_tile(18, 6, 4, 4).n == 1);
  CHECK(gemm::grouped_tile(23, 6, 4, 4).m == 5);
  CHECK(gemm::grouped_tile(23, 6, 4, 4).n == 3);
  for (int id = 0; id < 24; ++id) {  // group 1: row-major, N fastest, as v1-v4's grids
    CHECK(gemm::grouped_tile(id, 6, 4, 1).m == id / 4);
    CHECK(gemm::grouped_tile(id, 6, 4, 1).n == id % 4);
  }
}
