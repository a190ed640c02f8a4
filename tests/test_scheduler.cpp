// The persistent tile schedules (common/scheduler.h): every tile exactly once, pairs adjacent, padding tiles
// flagged, work balanced, for every order over many grids; the Hilbert order against a plain walk of the
// curve; the L2 locality that is the point of the orders; and the checker itself catches broken schedules.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/scheduler.h"

using gemm::ScheduledTile;
using gemm::ScheduleKind;
using gemm::TileCoord;
using gemm::TileSchedule;

namespace {

const ScheduleKind KINDS[] = {ScheduleKind::Static, ScheduleKind::Grouped, ScheduleKind::Hilbert};
const char* kind_name(ScheduleKind k) {
  return k == ScheduleKind::Static ? "static" : k == ScheduleKind::Grouped ? "grouped" : "hilbert";
}

// A persistent launch: the tile grid and the grid of clusters.
struct Launch {
  int tiles_m, tiles_n, num_clusters, cluster_size, group_m;
};

std::string describe(const Launch& l) {
  std::ostringstream s;
  s << l.tiles_m << "x" << l.tiles_n << " tiles, " << l.num_clusters << " clusters of " << l.cluster_size
    << ", group_m " << l.group_m;
  return s.str();
}

template <ScheduleKind K>
TileSchedule<K> make(const Launch& l, int cluster, int rank) {
  return TileSchedule<K>(l.tiles_m, l.tiles_n, l.num_clusters, cluster, l.cluster_size, rank, l.group_m);
}

// The tiles CTA (cluster, rank) computes, turn by turn: the loop a kernel writes.
template <ScheduleKind K>
std::vector<ScheduledTile> tiles_of(const Launch& l, int cluster, int rank) {
  TileSchedule<K> s = make<K>(l, cluster, rank);
  std::vector<ScheduledTile> out;
  for (ScheduledTile t; s.next(t);) {
    out.push_back(t);
    if (out.size() > size_t(l.tiles_m + 1) * size_t(l.tiles_n)) break;  // a runaway loop is a failure too
  }
  return out;
}

std::vector<ScheduledTile> tiles_of(ScheduleKind k, const Launch& l, int cluster, int rank) {
  switch (k) {
    case ScheduleKind::Static:
      return tiles_of<ScheduleKind::Static>(l, cluster, rank);
    case ScheduleKind::Grouped:
      return tiles_of<ScheduleKind::Grouped>(l, cluster, rank);
    default:
      return tiles_of<ScheduleKind::Hilbert>(l, cluster, rank);
  }
}

using TilesOf = std::function<std::vector<ScheduledTile>(int cluster, int rank)>;

// The contract of scheduler.h, checked from outside on any schedule. "" if it holds, else the first broken
// rule, with where.
std::string check_contract(const Launch& l, const TilesOf& tiles) {
  std::ostringstream err;
  const int cs      = l.cluster_size;
  const int pairs_m = (l.tiles_m + cs - 1) / cs;
  std::vector<int> seen(size_t(l.tiles_m) * l.tiles_n, 0);
  long padding  = 0;
  int min_turns = INT_MAX, max_turns = 0;
  for (int c = 0; c < l.num_clusters; ++c) {
    std::vector<std::vector<ScheduledTile>> rank(cs);
    for (int r = 0; r < cs; ++r) rank[r] = tiles(c, r);
    const size_t turns = rank[0].size();
    min_turns          = std::min(min_turns, int(turns));
    max_turns          = std::max(max_turns, int(turns));
    for (int r = 1; r < cs; ++r) {
      if (rank[r].size() != turns) {
        err << "cluster " << c << ": rank " << r << " has " << rank[r].size() << " turns, rank 0 " << turns;
        return err.str();
      }
    }
    for (size_t i = 0; i < turns; ++i) {
      const ScheduledTile first = rank[0][i];
      if (first.m % cs != 0) {
        err << "cluster " << c << " turn " << i << ": rank 0 has M tile " << first.m << ", not 2p";
        return err.str();
      }
      for (int r = 0; r < cs; ++r) {
        const ScheduledTile t = rank[r][i];
        if (t.m != first.m + r || t.n != first.n) {
          err << "cluster " << c << " turn " << i << ": rank " << r << " has (" << t.m << ", " << t.n
              << "), rank 0 (" << first.m << ", " << first.n << "): not adjacent along M in one column";
          return err.str();
        }
        if (t.m < 0 || t.m >= pairs_m * cs || t.n < 0 || t.n >= l.tiles_n) {
          err << "cluster " << c << " turn " << i << " rank " << r << ": tile (" << t.m << ", " << t.n
              << ") outside the (padded) grid";
          return err.str();
        }
        if (t.valid != (t.m < l.tiles_m)) {
          err << "cluster " << c << " turn " << i << " rank " << r << ": tile (" << t.m << ", " << t.n
              << ") flagged valid=" << t.valid;
          return err.str();
        }
        if (!t.valid) {
          ++padding;
        } else if (seen[size_t(t.m) * l.tiles_n + t.n]++ != 0) {
          err << "tile (" << t.m << ", " << t.n << ") computed twice (again by cluster " << c << " rank " << r
              << " turn " << i << ")";
          return err.str();
        }
      }
    }
  }
  for (int m = 0; m < l.tiles_m; ++m)
    for (int n = 0; n < l.tiles_n; ++n)
      if (seen[size_t(m) * l.tiles_n + n] == 0) {
        err << "tile (" << m << ", " << n << ") never computed";
        return err.str();
      }
  const long expected_padding = long(pairs_m * cs - l.tiles_m) * l.tiles_n;
  if (padding != expected_padding) {
    err << padding << " padding tiles, expected " << expected_padding;
    return err.str();
  }
  if (max_turns - min_turns > 1) {
    err << "unbalanced: clusters have between " << min_turns << " and " << max_turns << " turns";
    return err.str();
  }
  return "";
}

// The grids of the tests: primes, a single tile, fewer tiles than CTAs, non-powers of two, odd tiles_m.
const int TILES_M[] = {1, 2, 3, 5, 7, 8, 13, 16, 31, 32, 33, 64};
const int TILES_N[] = {1, 2, 3, 6, 7, 17, 32, 61, 64};
const int CTAS[]    = {1, 2, 3, 6, 7, 64, 66, 128, 132, 148, 200};  // 132: H100 SMs; 148: B200 SMs

}  // namespace

TEST_CASE("every order covers every tile exactly once, pairs adjacent, padding flagged, turns balanced") {
  int launches = 0;
  for (ScheduleKind kind : KINDS)
    for (int cs : {1, 2})
      for (int tm : TILES_M)
        for (int tn : TILES_N)
          for (int ctas : CTAS) {
            if (ctas % cs != 0) continue;
            for (int group_m : {1, 4, 16}) {
              if (kind != ScheduleKind::Grouped && group_m != 16) continue;  // group_m is Grouped's only
              const Launch l{tm, tn, ctas / cs, cs, group_m};
              const std::string why =
                  check_contract(l, [&](int c, int r) { return tiles_of(kind, l, c, r); });
              INFO(kind_name(kind) << ", " << describe(l) << ": " << why);
              REQUIRE(why.empty());
              ++launches;
            }
          }
  CHECK(launches == 10260);  // none skipped by mistake
}

TEST_CASE("tile(turn) and num_turns() agree with the next() loop") {
  for (ScheduleKind kind : KINDS) {
    for (const Launch& l : {Launch{33, 61, 66, 2, 16}, Launch{7, 5, 132, 1, 4}, Launch{64, 64, 74, 2, 16}}) {
      for (int c = 0; c < l.num_clusters; ++c) {
        for (int r = 0; r < l.cluster_size; ++r) {
          const std::vector<ScheduledTile> seq = tiles_of(kind, l, c, r);
          int turns                            = -1;
          bool same                            = true;
          auto cmp                             = [&](auto s) {
            turns = s.num_turns();
            for (size_t i = 0; i < seq.size(); ++i) {
              const ScheduledTile t = s.tile(int(i));
              same                  = same && t.m == seq[i].m && t.n == seq[i].n && t.valid == seq[i].valid;
            }
          };
          if (kind == ScheduleKind::Static) cmp(make<ScheduleKind::Static>(l, c, r));
          if (kind == ScheduleKind::Grouped) cmp(make<ScheduleKind::Grouped>(l, c, r));
          if (kind == ScheduleKind::Hilbert) cmp(make<ScheduleKind::Hilbert>(l, c, r));
          INFO(kind_name(kind) << ", " << describe(l) << ", cluster " << c << " rank " << r);
          CHECK(turns == int(seq.size()));
          CHECK(same);
        }
      }
    }
  }
}

TEST_CASE("the Hilbert curve on a power-of-two square: a bijection that steps to a neighbour every time") {
  for (int side = 1; side <= 128; side *= 2) {
    INFO("side " << side);
    std::set<std::pair<int, int>> cells;
    TileCoord prev{0, 0};
    int far_steps = 0;
    for (int k = 0; k < side * side; ++k) {
      const TileCoord c = gemm::hilbert_cell(k, side, side, side);
      REQUIRE(c.m >= 0);
      REQUIRE(c.m < side);
      REQUIRE(c.n >= 0);
      REQUIRE(c.n < side);
      cells.insert({c.m, c.n});
      if (k > 0 && std::abs(c.m - prev.m) + std::abs(c.n - prev.n) != 1) ++far_steps;
      prev = c;
    }
    CHECK(cells.size() == size_t(side) * side);
    CHECK(far_steps == 0);
    // It enters at one corner and leaves at the next one along M, so that the four quadrants chain.
    CHECK(gemm::hilbert_cell(0, side, side, side).m == 0);
    CHECK(gemm::hilbert_cell(0, side, side, side).n == 0);
    CHECK(gemm::hilbert_cell(side * side - 1, side, side, side).m == side - 1);
    CHECK(gemm::hilbert_cell(side * side - 1, side, side, side).n == 0);
  }
}

TEST_CASE("the Hilbert order on any grid is the square's curve with the cells outside skipped") {
  // The reference: walk the whole enclosing square's curve and keep the cells inside the grid (what a
  // host-built table would hold). hilbert_cell jumps straight to the k-th of them.
  for (int rows : {1, 2, 3, 5, 6, 13, 32, 33, 47})
    for (int cols : {1, 2, 4, 7, 17, 31, 64, 80}) {
      const int side = gemm::pow2_ceil(std::max(rows, cols));
      INFO(rows << " x " << cols << " in a square of " << side);
      int k = 0;
      for (int j = 0; j < side * side; ++j) {
        const TileCoord full = gemm::hilbert_cell(j, side, side, side);
        if (full.m >= rows || full.n >= cols) continue;
        const TileCoord c = gemm::hilbert_cell(k++, rows, cols, side);
        REQUIRE(c.m == full.m);
        REQUIRE(c.n == full.n);
      }
      CHECK(k == rows * cols);
    }
}

TEST_CASE("the schedules are constexpr: usable in constant expressions") {
  constexpr TileSchedule<ScheduleKind::Hilbert> s(5, 3, 4, 1, 2,
                                                  1);  // 3 pairs x 3 columns, cluster 1, rank 1
  static_assert(s.num_units() == 9, "3 pair rows x 3 columns");
  static_assert(s.num_turns() == 2, "units 1 and 5 of 9, over 4 clusters");
  // Unit 1 of the curve over the 4x4 square: its first quadrant holds the curve transposed, so the first
  // step goes along M, to pair row 1 in column 0, whose rank-1 tile is M tile 3.
  constexpr ScheduledTile t = s.tile(0);
  static_assert(t.m == 3 && t.n == 0 && t.valid, "rank 1 of pair row 1");
  constexpr TileSchedule<ScheduleKind::Static> st(5, 3, 4, 3, 2, 1);
  static_assert(st.tile(1).m == 5 && !st.tile(1).valid, "unit 7 = pair row 2, whose rank-1 tile is padding");
  CHECK(t.m == 3);
}

namespace {

// Average over the full waves of a launch (turn i of every cluster) of the distinct A row-blocks and B
// column-blocks the wave's tiles read: what a wave pulls into L2.
double blocks_per_wave(ScheduleKind kind, const Launch& l) {
  std::vector<std::vector<ScheduledTile>> cta;
  for (int c = 0; c < l.num_clusters; ++c)
    for (int r = 0; r < l.cluster_size; ++r) cta.push_back(tiles_of(kind, l, c, r));
  size_t full_waves = cta.back().size();  // the last cluster has the fewest turns
  double sum        = 0;
  for (size_t w = 0; w < full_waves; ++w) {
    std::set<int> a_rows, b_cols;
    for (const auto& seq : cta) {
      a_rows.insert(seq[w].m);
      b_cols.insert(seq[w].n);
    }
    sum += double(a_rows.size() + b_cols.size());
  }
  return full_waves ? sum / double(full_waves) : 0;
}

}  // namespace

TEST_CASE("grouped and Hilbert waves read far fewer operand blocks than static ones") {
  // 64x64 tiles (8192^2 with 128x128 tiles), one wave = one tile per SM of an H100 (132) or a B200 (148),
  // in clusters of 1 and 2. Static: a wave spans 3 rows of tiles and all 64 columns (~67 blocks).
  // Grouped (16 rows) and Hilbert: a near-square patch, sqrt(132) ~ 11.5 a side (~25-30 blocks).
  for (int ctas : {132, 148})
    for (int cs : {1, 2}) {
      const Launch l{64, 64, ctas / cs, cs, 16};
      const double st = blocks_per_wave(ScheduleKind::Static, l);
      const double gr = blocks_per_wave(ScheduleKind::Grouped, l);
      const double hi = blocks_per_wave(ScheduleKind::Hilbert, l);
      std::printf(
          "%d CTAs in clusters of %d, 64x64 tiles: A+B blocks per wave: static %.1f, grouped %.1f, "
          "hilbert %.1f\n",
          ctas, cs, st, gr, hi);
      INFO(describe(l) << ": static " << st << ", grouped " << gr << ", hilbert " << hi);
      CHECK(st >= 64);        // all of B at least
      CHECK(gr <= 0.5 * st);  // at least twice as local
      CHECK(hi <= 0.5 * st);
      CHECK(gr <= 40);  // and close to the square's 2 * sqrt(wave)
      CHECK(hi <= 40);
    }
}

namespace {

// The visit order as a picture: the unit number in each tile (rows: M tiles, columns: N tiles).
std::string visit_order(ScheduleKind kind, int tiles_m, int tiles_n, int cluster_size, int group_m) {
  std::vector<int> at(size_t(tiles_m) * tiles_n, -1);
  auto fill = [&](auto s) {
    for (int u = 0; u < s.num_units(); ++u) {
      const TileCoord c = s.unit(u);
      for (int r = 0; r < cluster_size; ++r)
        if (c.m * cluster_size + r < tiles_m) at[size_t(c.m * cluster_size + r) * tiles_n + c.n] = u;
    }
  };
  if (kind == ScheduleKind::Static)
    fill(TileSchedule<ScheduleKind::Static>(tiles_m, tiles_n, 1, 0, cluster_size, 0, group_m));
  if (kind == ScheduleKind::Grouped)
    fill(TileSchedule<ScheduleKind::Grouped>(tiles_m, tiles_n, 1, 0, cluster_size, 0, group_m));
  if (kind == ScheduleKind::Hilbert)
    fill(TileSchedule<ScheduleKind::Hilbert>(tiles_m, tiles_n, 1, 0, cluster_size, 0, group_m));
  std::string out;
  char cell[8];
  for (int m = 0; m < tiles_m; ++m) {
    for (int n = 0; n < tiles_n; ++n) {
      std::snprintf(cell, sizeof cell, "%3d", at[size_t(m) * tiles_n + n]);
      out += cell;
    }
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("docs/tile-schedules.md's pictures of the three orders on 8x6 tiles") {
  const std::string static_1  = visit_order(ScheduleKind::Static, 8, 6, 1, 16);
  const std::string grouped_1 = visit_order(ScheduleKind::Grouped, 8, 6, 1, 4);
  const std::string hilbert_1 = visit_order(ScheduleKind::Hilbert, 8, 6, 1, 16);
  const std::string hilbert_2 = visit_order(ScheduleKind::Hilbert, 8, 6, 2, 16);
  std::printf("static\n%s\ngrouped, GROUP_M 4\n%s\nhilbert\n%s\nhilbert, clusters of 2\n%s\n",
              static_1.c_str(), grouped_1.c_str(), hilbert_1.c_str(), hilbert_2.c_str());
  // Rows: M tiles; columns: N tiles; the number: when the tile comes up in the order. With C clusters,
  // turn i of the launch (one wave) is the numbers i*C .. i*C + C - 1.
  CHECK(static_1 ==
        "  0  1  2  3  4  5\n"
        "  6  7  8  9 10 11\n"
        " 12 13 14 15 16 17\n"
        " 18 19 20 21 22 23\n"
        " 24 25 26 27 28 29\n"
        " 30 31 32 33 34 35\n"
        " 36 37 38 39 40 41\n"
        " 42 43 44 45 46 47\n");
  CHECK(grouped_1 ==
        "  0  4  8 12 16 20\n"
        "  1  5  9 13 17 21\n"
        "  2  6 10 14 18 22\n"
        "  3  7 11 15 19 23\n"
        " 24 28 32 36 40 44\n"
        " 25 29 33 37 41 45\n"
        " 26 30 34 38 42 46\n"
        " 27 31 35 39 43 47\n");
  // The 8x8 square's curve with columns 6 and 7 skipped: 19 -> 20 and 27 -> 28 jump along the edge.
  CHECK(hilbert_1 ==
        "  0  1 14 15 16 19\n"
        "  3  2 13 12 17 18\n"
        "  4  7  8 11 22 21\n"
        "  5  6  9 10 23 20\n"
        " 42 41 38 37 24 27\n"
        " 43 40 39 36 25 26\n"
        " 44 45 34 35 30 29\n"
        " 47 46 33 32 31 28\n");
  // Clusters of 2: the curve walks the 4x6 grid of pairs; both tiles of a pair come up together.
  CHECK(hilbert_2 ==
        "  0  1 14 15 16 19\n"
        "  0  1 14 15 16 19\n"
        "  3  2 13 12 17 18\n"
        "  3  2 13 12 17 18\n"
        "  4  7  8 11 22 21\n"
        "  4  7  8 11 22 21\n"
        "  5  6  9 10 23 20\n"
        "  5  6  9 10 23 20\n");
}

TEST_CASE("the contract check catches broken schedules") {
  // Each mutation of a correct schedule must be refused: the checks above can fail.
  const Launch l{7, 5, 6, 2, 16};  // 4 pair rows (the last half padding) x 5 columns, 6 clusters of 2
  auto real = [&](int c, int r) { return tiles_of(ScheduleKind::Hilbert, l, c, r); };
  REQUIRE(check_contract(l, real).empty());

  SECTION("a tile skipped (cluster 0 loses its last turn, both ranks)") {
    CHECK_FALSE(check_contract(l, [&](int c, int r) {
                  auto s = real(c, r);
                  if (c == 0) s.pop_back();
                  return s;
                }).empty());
  }
  SECTION("a tile computed twice") {
    CHECK_FALSE(check_contract(l, [&](int c, int r) {
                  auto s = real(c, r);
                  if (c == 1) s[0] = real(0, r)[0];
                  return s;
                }).empty());
  }
  SECTION("the pair's order swapped") {
    CHECK_FALSE(check_contract(l, [&](int c, int r) { return real(c, 1 - r); }).empty());
  }
  SECTION("the pair split across two columns") {
    CHECK_FALSE(check_contract(l, [&](int c, int r) {
                  auto s = real(c, r);
                  if (r == 1 && c == 2) s[0].n = (s[0].n + 1) % l.tiles_n;
                  return s;
                }).empty());
  }
  SECTION("a padding tile flagged valid") {
    CHECK_FALSE(check_contract(l, [&](int c, int r) {
                  auto s = real(c, r);
                  for (auto& t : s) t.valid = true;
                  return s;
                }).empty());
  }
  SECTION("a turn moved from one cluster to another (unbalanced)") {
    CHECK_FALSE(check_contract(l, [&](int c, int r) {
                  auto s = real(c, r);
                  if (c == 0) s.pop_back();
                  if (c == 1) s.push_back(real(0, r).back());
                  return s;
                }).empty());
  }
  SECTION("the two ranks of a cluster with different turn counts") {
    CHECK_FALSE(check_contract(l, [&](int c, int r) {
                  auto s = real(c, r);
                  if (c == 3 && r == 1) s.push_back(s.back());
                  return s;
                }).empty());
  }
}

TEST_CASE("the persistent grid: every resident cluster up to the number of units, and each gets work") {
  using gemm::persistent_clusters;
  // By hand: min(resident clusters, units); units are pairs of tiles along M for clusters of 2.
  CHECK(persistent_clusters(74, 32, 16, 2) == 74);  // 4096 x 4096 in 128 x 256 tiles: 256 pair units
  CHECK(persistent_clusters(74, 1, 1, 2) == 1);     // a single tile: one cluster, its rank 1 on padding
  CHECK(persistent_clusters(74, 3, 5, 2) == 10);    // fewer units than SMs: 2 pair rows x 5
  CHECK(persistent_clusters(66, 7, 1, 1) == 7);
  CHECK(persistent_clusters(0, 32, 16, 2) == 0);  // nothing fits: the launcher refuses
  CHECK(persistent_clusters(-1, 1, 1, 2) == 0);
  static_assert(persistent_clusters(74, 33, 3, 2) == 51, "17 pair rows x 3");
  // Over the scheduler's grids: no cluster is launched without a turn, and the turns stay balanced (the
  // last wave is the only partial one).
  for (int cs : {1, 2})
    for (int tm : TILES_M)
      for (int tn : TILES_N)
        for (int resident : {1, 2, 7, 66, 74, 148}) {
          const int clusters = persistent_clusters(resident, tm, tn, cs);
          INFO(tm << "x" << tn << " tiles, clusters of " << cs << ", " << resident
                  << " resident: " << clusters);
          REQUIRE(clusters >= 1);
          REQUIRE(clusters <= resident);
          const int units = (tm + cs - 1) / cs * tn;
          CHECK(clusters == std::min(resident, units));
          const TileSchedule<ScheduleKind::Static> first(tm, tn, clusters, 0, cs, 0);
          const TileSchedule<ScheduleKind::Static> last(tm, tn, clusters, clusters - 1, cs, cs - 1);
          CHECK(last.num_turns() >= 1);
          CHECK(first.num_turns() - last.num_turns() <= 1);
          CHECK(first.num_turns() == (units + clusters - 1) / clusters);
        }
}
