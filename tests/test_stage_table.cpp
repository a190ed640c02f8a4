// test_stage_table.cpp: the layout model's table (tests/stage_configs.h) covers every tile the kernels of one
// stage (GEMM_STAGE_NAME) really use. Built once per stage and linked with the stage's own code, so the
// values come from the kernels' constants (Variant::tiles), not from a copy: change a tile in a kernel, or
// add a stage, without updating the table, and this fails.
#include <catch2/catch.hpp>

#include <cstring>
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

void check_variant_is_listed(const gemm::Variant& v, sc::Arch arch) {
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
      tile_addrs.insert(row.tile_addr);
    }
    REQUIRE_FALSE(tile_addrs.empty());  // the variant has rows at all
    for (int s = 0; s < v.tiles.num_stages; ++s) {
      INFO("ring slot " << s << " of " << v.tiles.num_stages);
      CHECK(tile_addrs.count(sc::ring_addr(arch, s, op)) == 1);
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
