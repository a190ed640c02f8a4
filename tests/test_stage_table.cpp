// test_stage_table.cpp: the layout model's table (tests/stage_configs.h) covers every tile the kernels of one
// stage (GEMM_STAGE_NAME) really use. Built once per stage and linked with the stage's own code, so the
// values come from the kernels' constants and functions (Variant::tiles: tile shapes, the TMA boxes the
// kernel issues, its MMA shape), not from a copy: change a tile, a box step or an MMA shape in a kernel, or
// add a stage, without updating the table, and this fails.
#include <catch2/catch.hpp>

#include <array>
#include <cstring>
#include <string>
#include <set>

#include "common/harness.h"
#include "stage_configs.h"

namespace sc = stage_configs;

namespace {

// Table rows are named after the variant ("v1a") or the variant and a ring slot ("v3 stage 2").
bool row_belongs_to(const char* row_stage, const char* variant) {
  const size_t n = std::strlen(variant);
  return std::strncmp(row_stage, variant, n) == 0 && (row_stage[n] == '\0' || row_stage[n] == ' ');
}

// The boxes the kernel issues (its own tma_box(), which its TMA loop calls) are the row's boxes, which the
// layout model writes and reads back: a kernel whose box step, coordinates or box count drift fails here.
// An operand's boxes: num_boxes along K, or b_split (B) / a_split (A) stacked along the rows (one per CTA of
// a cluster that shares the operand: v5 Hopper's B, v8 Hopper's narrow pair's A).
void check_boxes_match(const gemm::Variant& v, const gemm::KMajorTile& t, const sc::StageConfig& row,
                       sc::Operand op) {
  REQUIRE(v.tiles.tma_box != nullptr);
  CHECK(v.tiles.box_k == int(row.box[0]));  // the launcher's tensor-map box is box_k wide, the model's box[0]
  const int split = op == sc::Operand::B ? v.tiles.b_split : v.tiles.a_split;
  REQUIRE(split >= 1);
  // One shared operand per cluster; the other's tile in one box, or (Hopper v8m, whose A and B tiles have the
  // same rows) in boxes as many as the shared one's, all its own.
  REQUIRE((v.tiles.a_split == 1 || v.tiles.b_split == 1 || v.tiles.a.rows == v.tiles.b.rows));
  if (split > 1) REQUIRE(v.tiles.num_boxes == 1);  // split along rows or along K, not both
  const int boxes = v.tiles.num_boxes * split;
  REQUIRE(boxes == sc::row_tma_boxes(row));
  // Tiles at the origin, at (1, 1) tiles and further out, so every coordinate term is exercised.
  const int origins[][2] = {{0, 0}, {t.rows, t.block_k}, {3 * t.rows, 5 * t.block_k}};
  for (const auto& o : origins) {
    for (int j = 0; j < boxes; ++j) {
      const gemm::TmaBox kernel = v.tiles.tma_box(t, o[0], o[1], j);
      const sc::RowBox model    = sc::row_tma_box(row, o[0], o[1], j);
      INFO("tile at row " << o[0] << ", k " << o[1] << ", box " << j);
      CHECK(kernel.smem_offset == model.smem_offset);
      for (int d = 0; d < 3; ++d) CHECK(int64_t(kernel.coords[d]) == model.coords[d]);
    }
  }
}

// The tcgen05 instruction shape of an sm_100a variant (M = A rows one MMA reads, N = the B tile) is listed in
// SM100_MMA_SHAPES, which the CUTLASS cross-check and the layout model's instruction-descriptor tests read.
// A cta_group::2 MMA (v5) spans the CTA pair: M and N are twice one CTA's rows of A and of B.
void check_mma_shape_is_listed(const gemm::Variant& v) {
  const int g = v.tiles.cta_group, m = v.tiles.a_mma_rows * g, n = v.tiles.b.rows * g;
  bool listed = false;
  for (const sc::MmaShape& s : sc::SM100_MMA_SHAPES)
    listed = listed || (s.cta_group == g && s.m == m && s.n == n);
  INFO("variant " << v.name << ": tcgen05 shape cta_group::" << g << " M=" << m << " N=" << n);
  CHECK(listed);
}

void check_variant_is_listed(const gemm::Variant& v, sc::Arch arch) {
  if (arch == sc::Arch::SM100) check_mma_shape_is_listed(v);
  for (const sc::Operand op : {sc::Operand::A, sc::Operand::B}) {
    const gemm::KMajorTile& t = op == sc::Operand::A ? v.tiles.a : v.tiles.b;
    const int mma_rows        = op == sc::Operand::A ? v.tiles.a_mma_rows : t.rows;
    INFO("variant " << v.name << (arch == sc::Arch::SM100 ? " sm100" : " sm90")
                    << (op == sc::Operand::A ? " operand A" : " operand B"));
    std::set<uint32_t> tile_addrs;
    for (const sc::StageConfig& row : sc::STAGE_CONFIGS) {
      if (!row_belongs_to(row.stage, v.name) || row.arch != arch || row.operand != op) continue;
      INFO("table row " << row.stage);
      CHECK(row.rows == t.rows);
      CHECK(row.block_k == t.block_k);
      CHECK(row.elem_bytes == t.elem_bytes);
      CHECK(row.swizzle == t.swizzle);
      CHECK(row.mma_rows == mma_rows);
      CHECK((row.tma == sc::TmaShape::BOX_3D) == v.tiles.tma_3d);
      check_boxes_match(v, t, row, op);
      tile_addrs.insert(row.tile_addr);
    }
    REQUIRE_FALSE(tile_addrs.empty());  // the variant has rows at all
    // The ring [A_s B_s] of the variant's own tiles (v8's CTA alone on Blackwell: a 256-row B, 48 KB stages).
    const uint32_t a_bytes = gemm::kmajor_tile_bytes(v.tiles.a), b_bytes = gemm::kmajor_tile_bytes(v.tiles.b);
    for (int s = 0; s < v.tiles.num_stages; ++s) {
      INFO("ring slot " << s << " of " << v.tiles.num_stages);
      CHECK(tile_addrs.count(sc::ring_addr_of(a_bytes, b_bytes, s, op)) == 1);
    }
  }
}

}  // namespace

TEST_CASE("the layout table lists every tile of this stage's sm_100a kernels") {
  const auto variants = gemm::sm100_variants();
  REQUIRE_FALSE(variants.empty());
  for (const gemm::Variant& v : variants) check_variant_is_listed(v, sc::Arch::SM100);
}

TEST_CASE("the layout table lists every tile of this stage's sm_90a kernels") {
  const auto variants = gemm::sm90_variants();
  REQUIRE_FALSE(variants.empty());
  for (const gemm::Variant& v : variants) check_variant_is_listed(v, sc::Arch::SM90);
}

// Which shapes a stage takes (README, "Which shapes each stage takes"): v1-v5 whole tiles only, each ragged
// dimension refused with a message that names its constraint; from v6 any M >= 1 and N >= 1, and K a multiple
// of 8 (the TMA stride rule), whose refusal says so.
TEST_CASE("stages before v6 refuse ragged shapes, v6 takes any M and N and K a multiple of 8") {
  const bool any_mn = std::strcmp(GEMM_STAGE_NAME, "v6") >= 0;  // "v1" .. "v5" sort before "v6"
  for (const auto& list : {gemm::sm100_variants(), gemm::sm90_variants()}) {
    for (const gemm::Variant& v : list) {
      const gemm::ShapeRule& r = v.shape;
      INFO(GEMM_STAGE_NAME << " variant " << v.name);
      if (!any_mn) {
        REQUIRE(r.m_multiple > 1);
        REQUIRE(r.n_multiple > 1);
        CHECK(gemm::check_shape(r, v.name, r.m_multiple, r.n_multiple, r.k_multiple).empty());
        for (const auto& bad : {std::array<int64_t, 3>{r.m_multiple + 1, r.n_multiple, r.k_multiple},
                                std::array<int64_t, 3>{r.m_multiple, r.n_multiple - 1, r.k_multiple},
                                std::array<int64_t, 3>{r.m_multiple, r.n_multiple, r.k_multiple + 8}}) {
          const std::string why = gemm::check_shape(r, v.name, bad[0], bad[1], bad[2]);
          INFO(why);
          CHECK(why.find("is not a multiple of") != std::string::npos);
        }
        continue;
      }
      // A decode kernel (v8s) takes M up to its m_max, and refuses M = m_max + 1 saying so. A kernel that
      // stores C by TMA only (v8p) takes N a multiple of 8 (C's row stride), and refuses N = 255 saying so.
      const int64_t m_top = r.m_max > 0 ? r.m_max : 8191;
      REQUIRE(r.m_multiple == 1);
      REQUIRE((r.n_multiple == 1 || r.n_multiple == 8));
      const auto n_ok = [&](int64_t n) { return (n + r.n_multiple - 1) / r.n_multiple * r.n_multiple; };
      for (const auto& ok : {std::array<int64_t, 3>{1, 1, 8}, std::array<int64_t, 3>{257, 255, 1000},
                             std::array<int64_t, 3>{8191, 7, 72}})
        CHECK(gemm::check_shape(r, v.name, ok[0] < m_top ? ok[0] : m_top, n_ok(ok[1]), ok[2]).empty());
      if (r.n_multiple > 1) {
        const std::string n_why = gemm::check_shape(r, v.name, 257, 255, 1000);
        INFO(n_why);
        CHECK(n_why.find("N=255 is not a multiple of 16 B / sizeof(bf16)=8") != std::string::npos);
        CHECK(n_why.find("try N=256") != std::string::npos);
        CHECK(n_why.find("TMA global stride") != std::string::npos);
      }
      if (r.m_max > 0) {
        const std::string above = gemm::check_shape(r, v.name, r.m_max + 1, 4096, 4096);
        INFO(above);
        CHECK(above.find("is above " + std::to_string(r.m_max)) != std::string::npos);
      }
      const std::string why = gemm::check_shape(r, v.name, m_top < 256 ? m_top : 256, 256, 100);
      INFO(why);
      CHECK(why.find("K=100 is not a multiple of 16 B / sizeof(bf16)=8") != std::string::npos);
      CHECK(why.find("TMA global stride") != std::string::npos);
    }
  }
}
