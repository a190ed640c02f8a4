// test_layout_model.cpp: every shared-memory descriptor the kernels build, checked on the CPU against the
// independent model of tests/layout_model.h.
//  - round trips: each tile of tests/stage_configs.h is written by the TMA model with the kernel's boxes and
//    read back by the MMA model through the kernel's own descriptors (common/descriptors.cuh): every element
//    must come from the right global element and every byte TMA wrote must be read exactly once;
//  - encodings: instruction and shared-memory descriptors against hex constants computed by hand from the
//    ISA;
//  - accumulator fragments: the TMEM lanes/columns the tcgen05 epilogue loads and the wgmma registers the
//    Hopper epilogue stores, each covering the output tile exactly once;
//  - negative tests: broken descriptors and boxes must fail, which shows the round trip can tell.
#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/descriptors.cuh"
#include "common/mx_scale_layout.h"
#include "common/tma.h"
#include "layout_model.h"
#include "stage_configs.h"

namespace lm = layout_model;
namespace sc = stage_configs;

namespace {

constexpr uint32_t SMEM_BYTES =
    227 * 1024;                    // the most dynamic shared memory one CTA may opt in to (sm90, sm100)
constexpr int MMA_K_BYTES   = 32;  // one MMA K step: k16 of bf16 (k32 of fp8)
constexpr int64_t UNWRITTEN = -2;  // provenance of a shared-memory byte no TMA wrote

lm::SwizzleMode model_swizzle(gemm::Swizzle s) {
  switch (s) {
    case gemm::Swizzle::B32:
      return lm::SwizzleMode::B32;
    case gemm::Swizzle::B64:
      return lm::SwizzleMode::B64;
    case gemm::Swizzle::B128:
      return lm::SwizzleMode::B128;
    default:
      return lm::SwizzleMode::NONE;
  }
}

lm::MmaEncoding model_encoding(sc::Arch arch) {
  return arch == sc::Arch::SM100 ? lm::MmaEncoding::TCGEN05_SM100 : lm::MmaEncoding::WGMMA_SM90;
}

uint32_t tile_bytes(const sc::StageConfig& c) {
  return sc::tile_bytes(c.rows, c.block_k, c.elem_bytes);
}

std::string describe(const sc::StageConfig& c) {
  std::ostringstream s;
  s << c.stage << (c.arch == sc::Arch::SM100 ? " sm100 " : " sm90 ")
    << (c.operand == sc::Operand::A ? "A " : "B ") << c.rows << "x" << c.block_k
    << (c.tma == sc::TmaShape::BOX_3D ? " 3D box" : " 2D boxes") << " swizzle " << uint32_t(c.swizzle)
    << " at " << c.tile_addr;
  return s.str();
}

lm::TensorMap model_map(const gemm::TmaDesc& d) {
  return {d.rank,
          int(d.elem_bytes),
          {d.dims[0], d.dims[1], d.rank == 3 ? d.dims[2] : 1},
          {d.strides[0], d.rank == 3 ? d.strides[1] : 0},
          {d.box[0], d.box[1], d.rank == 3 ? d.box[2] : 1},
          model_swizzle(d.swizzle)};
}

// The tensor map the stage launchers encode for an operand stored K-major as [rows_total][k_total]: built by
// the launchers' own helpers from common/tma.h, from the table row's tile and box.
gemm::TmaDesc launcher_tensor_map(const sc::StageConfig& c, int rows_total, int k_total) {
  if (c.tma == sc::TmaShape::BOXES_2D)
    return gemm::kmajor_tma_2d(uint64_t(rows_total), uint64_t(k_total), c.box[1], c.box[0],
                               uint32_t(c.elem_bytes), c.swizzle);
  return gemm::kmajor_tma_3d(uint64_t(rows_total), uint64_t(k_total), c.box[1], uint32_t(c.block_k),
                             c.box[0], uint32_t(c.elem_bytes), c.swizzle);
}

// The TMA loads a kernel issues for the tile at (row0, k0): box coordinates and shared-memory destinations of
// the row (sc::row_tma_box), which tests/test_stage_table.cpp proves equal to the kernel's own tma_box(). 2D:
// box j from K offset k0 + j * box[0] to tile + j * step; 3D: one box from K slice k0 / box[0].
struct TmaLoad {
  lm::TensorMap map;
  std::array<int64_t, 3> coords;
  uint32_t smem_dst;
};

std::vector<TmaLoad> kernel_tma_loads(const sc::StageConfig& c, int rows_total, int k_total, int row0,
                                      int k0) {
  const lm::TensorMap map = model_map(launcher_tensor_map(c, rows_total, k_total));
  std::vector<TmaLoad> loads;
  for (int j = 0; j < sc::row_tma_boxes(c); ++j) {
    const sc::RowBox box = sc::row_tma_box(c, row0, k0, j);
    loads.push_back({map, {box.coords[0], box.coords[1], box.coords[2]}, c.tile_addr + box.smem_offset});
  }
  return loads;
}

// Descriptor of K step `k_step` of the MMA sub-tile starting at tile row `row`.
using DescFn = std::function<uint64_t(int k_step, int row)>;

// The kernels' descriptors: exactly the builder calls the stage kernels from v2 on make. v1 builds the same
// descriptors from numbers it writes out (LBO, SBO, K step, swizzle code); v2's comments and page list the
// numbers the builders compute for its tiles (the test after the hand-computed constants below checks both).
DescFn kernel_descriptors(const sc::StageConfig& c) {
  const gemm::KMajorTile tile{c.rows, c.block_k, c.elem_bytes, c.swizzle};
  const uint32_t addr = c.tile_addr;
  if (c.arch == sc::Arch::SM100)
    return [tile, addr](int k_step, int row) { return gemm::kmajor_desc_sm100(tile, addr, k_step, row); };
  return [tile, addr](int k_step, int row) { return gemm::kmajor_desc_sm90(tile, addr, k_step, row); };
}

struct RoundTrip {
  std::string error;       // a load or a descriptor the model rejects
  long written       = 0;  // bytes TMA wrote
  long read          = 0;  // bytes the MMAs read
  long mismatches    = 0;  // bytes read that do not hold the expected global byte
  long not_read_once = 0;  // bytes TMA wrote that the MMAs read zero times or more than once
};

// Writes the tile at (row0, k0) = (rows, block_k) of a 2 x 2-tile operand, so that both box coordinates are
// non-zero, and tracks the provenance (global byte offset) of every shared-memory byte instead of values: any
// byte read from the wrong place is caught, whatever the element size.
RoundTrip round_trip(const sc::StageConfig& c, const DescFn& make_desc) {
  RoundTrip rt;
  const int rows_total = 2 * c.rows, k_total = 2 * c.block_k, row0 = c.rows, k0 = c.block_k;
  std::vector<int64_t> source(SMEM_BYTES, UNWRITTEN);
  std::vector<lm::TmaByte> moved;
  for (const TmaLoad& load : kernel_tma_loads(c, rows_total, k_total, row0, k0)) {
    rt.error = lm::tma_box_bytes(load.map, load.coords, load.smem_dst, moved);
    if (!rt.error.empty()) return rt;
    for (const lm::TmaByte& m : moved) {
      if (m.smem_addr < c.tile_addr || m.smem_addr >= c.tile_addr + tile_bytes(c)) {
        rt.error = "a TMA byte lands outside the tile";
        return rt;
      }
      if (source[m.smem_addr] != UNWRITTEN) {
        rt.error = "two TMA bytes land on the same shared-memory byte";
        return rt;
      }
      source[m.smem_addr] = m.global_offset;
      ++rt.written;
    }
  }

  std::vector<int> reads(SMEM_BYTES, 0);
  const int k_steps = c.block_k * c.elem_bytes / MMA_K_BYTES, k_elems = MMA_K_BYTES / c.elem_bytes;
  std::vector<uint32_t> addr;
  for (int sub = 0; sub < c.rows; sub += c.mma_rows) {
    for (int s = 0; s < k_steps; ++s) {
      rt.error = lm::mma_kmajor_read(make_desc(s, sub), model_encoding(c.arch), c.mma_rows, MMA_K_BYTES,
                                     c.elem_bytes, addr);
      if (!rt.error.empty()) return rt;
      for (int r = 0; r < c.mma_rows; ++r) {
        for (int e = 0; e < k_elems; ++e) {
          const int64_t element = int64_t(row0 + sub + r) * k_total + (k0 + s * k_elems + e);
          for (int b = 0; b < c.elem_bytes; ++b) {
            const uint64_t a = uint64_t(addr[size_t(r) * k_elems + e]) + uint64_t(b);
            ++rt.read;
            if (a >= SMEM_BYTES || source[a] != element * c.elem_bytes + b) {
              ++rt.mismatches;
              continue;
            }
            ++reads[a];
          }
        }
      }
    }
  }
  for (uint32_t a = 0; a < SMEM_BYTES; ++a)
    if (source[a] != UNWRITTEN && reads[a] != 1) ++rt.not_read_once;
  return rt;
}

bool round_trips(const RoundTrip& rt, long expected_bytes) {
  return rt.error.empty() && rt.written == expected_bytes && rt.read == expected_bytes &&
         rt.mismatches == 0 && rt.not_read_once == 0;
}

const sc::StageConfig& find_row(const char* stage, sc::Arch arch, sc::Operand op) {
  for (const sc::StageConfig& c : sc::STAGE_CONFIGS)
    if (std::string(c.stage) == stage && c.arch == arch && c.operand == op) return c;
  FAIL("no table row " << stage);
  return sc::STAGE_CONFIGS[0];
}

}  // namespace

// ==========================================================================================================
// c. Round trips for every row of the stage table
// ==========================================================================================================
TEST_CASE("every stage tile round-trips: TMA writes it, the kernel's descriptors read it back", "[layout]") {
  for (const sc::StageConfig& c : sc::STAGE_CONFIGS) {
    INFO(describe(c));
    CHECK(c.tile_addr != 0);
    CHECK(c.tile_addr % 1024 == 0);  // swizzle atoms aligned: descriptor base offset 0
    CHECK(c.tile_addr + tile_bytes(c) <= SMEM_BYTES);
    CHECK(c.rows % c.mma_rows == 0);
    CHECK(c.rows % int(c.box[1]) == 0);
    if (c.tma == sc::TmaShape::BOX_3D && int(c.box[1]) != c.rows) CHECK(c.box[2] == 1);  // row-split boxes
    if (c.tma == sc::TmaShape::BOXES_2D && int(c.box[1]) != c.rows) CHECK(int(c.box[0]) == c.block_k);
    const gemm::TmaDesc map =
        launcher_tensor_map(c, 2 * c.rows, 2 * c.block_k);  // the box the launcher encodes
    CHECK(map.rank == (c.tma == sc::TmaShape::BOX_3D ? 3 : 2));
    for (int d = 0; d < map.rank; ++d) CHECK(map.box[d] == c.box[d]);
    const RoundTrip rt = round_trip(c, kernel_descriptors(c));
    INFO("model: " << rt.error);
    CHECK(rt.error.empty());
    CHECK(rt.written == long(tile_bytes(c)));
    CHECK(rt.read == long(tile_bytes(c)));
    CHECK(rt.mismatches == 0);
    CHECK(rt.not_read_once == 0);
  }
}

TEST_CASE("32B and 64B swizzle tiles round-trip: TMA writes them, tcgen05 descriptors read them back",
          "[layout][swizzle]") {
  // tests/stage_configs.h SWIZZLE_TILES: tiles no stage uses, the same checks as the stage rows. Their
  // descriptors carry the tcgen05 swizzle codes 6 (32B) and 4 (64B), decoded by the model as 32B and 64B.
  int per_mode[2]  = {0, 0};
  for (const sc::StageConfig& c : sc::SWIZZLE_TILES) {
    INFO(describe(c));
    REQUIRE((c.swizzle == gemm::Swizzle::B32 || c.swizzle == gemm::Swizzle::B64));
    REQUIRE(c.arch == sc::Arch::SM100);
    ++per_mode[c.swizzle == gemm::Swizzle::B32 ? 0 : 1];
    CHECK(c.tile_addr % 1024 == 0);
    CHECK(c.rows % c.mma_rows == 0);
    const gemm::TmaDesc map = launcher_tensor_map(c, 2 * c.rows, 2 * c.block_k);
    CHECK(map.rank == (c.tma == sc::TmaShape::BOX_3D ? 3 : 2));
    for (int d = 0; d < map.rank; ++d) CHECK(map.box[d] == c.box[d]);
    CHECK(map.box[0] * uint32_t(c.elem_bytes) == gemm::swizzle_span_bytes(c.swizzle));  // one span per row
    const uint64_t desc = kernel_descriptors(c)(0, 0);
    CHECK((desc >> 61) == (c.swizzle == gemm::Swizzle::B32 ? 6u : 4u));
    lm::SmemDescriptor d;
    REQUIRE(lm::decode_smem_descriptor(desc, lm::MmaEncoding::TCGEN05_SM100, d).empty());
    CHECK(d.swizzle == model_swizzle(c.swizzle));
    CHECK(d.sbo == 8 * gemm::swizzle_span_bytes(c.swizzle));  // the next 8 rows: one 8-row atom further
    const RoundTrip rt = round_trip(c, kernel_descriptors(c));
    INFO("model: " << rt.error);
    CHECK(rt.error.empty());
    CHECK(rt.written == long(tile_bytes(c)));
    CHECK(rt.read == long(tile_bytes(c)));
    CHECK(rt.mismatches == 0);
    CHECK(rt.not_read_once == 0);
  }
  CHECK(per_mode[0] >= 2);  // A and B of each mode, 2D boxes and a 3D box
  CHECK(per_mode[1] >= 2);
}

TEST_CASE("the tiles one stage keeps in shared memory at once do not overlap", "[layout]") {
  // Rows of one stage (the name up to the first space: "v3 stage 2" belongs to "v3") and one architecture are
  // resident together: A and B, and every slot of a ring.
  const auto family = [](const sc::StageConfig& c) {
    const std::string s = c.stage;
    return s.substr(0, s.find(' ')) + (c.arch == sc::Arch::SM100 ? "/sm100" : "/sm90");
  };
  std::set<std::string> families;
  for (const sc::StageConfig& a : sc::STAGE_CONFIGS) {
    families.insert(family(a));
    for (const sc::StageConfig& b : sc::STAGE_CONFIGS) {
      if (&a == &b || family(a) != family(b)) continue;
      INFO(describe(a) << " vs " << describe(b));
      CHECK((a.tile_addr + tile_bytes(a) <= b.tile_addr || b.tile_addr + tile_bytes(b) <= a.tile_addr));
    }
  }
  // v1a v1b v2a v2b v3 v4 v5, each on both architectures; v6a v6b v6c on both; v7a v7b v7c v7d on both,
  // v7clc on sm100, v7e on sm90; v8a v8d v8n v8s v8t v8u v8v v8q v8x v8y v8z v8o v8r on both, v8m v8g v8h v8k
  // v8p v8w v8c on sm90
  CHECK(families.size() == 63);
}

TEST_CASE("a stage's expected bytes count the boxes that start inside the operand, whole", "[layout]") {
  // Hopper v8's wide tile: B's 256 rows in two boxes of 128, A's 128 rows in one (64 K elements of bf16).
  const gemm::KMajorTile b_tile{256, 64, 2, gemm::Swizzle::B128}, a_tile{128, 64, 2, gemm::Swizzle::B128};
  CHECK(gemm::kmajor_bytes_inside(b_tile, 0, 4096, 2, 128) == gemm::kmajor_tile_bytes(b_tile));  // both boxes inside
  CHECK(gemm::kmajor_bytes_inside(b_tile, 3840, 3969, 2, 128) == 2 * 128 * 128);  // box 1 starts at 3968 < 3969
  CHECK(gemm::kmajor_bytes_inside(b_tile, 3840, 3968, 2, 128) == 128 * 128);      // box 1 starts at the end: not issued
  CHECK(gemm::kmajor_bytes_inside(b_tile, 3840, 3841, 2, 128) == 128 * 128);      // one row: box 0 lands whole
  CHECK(gemm::kmajor_bytes_inside(a_tile, 128, 100, 1, 128) == 0);                // a padding tile loads nothing
  // the narrow pair's A: two boxes of 64 rows, one per CTA
  CHECK(gemm::kmajor_bytes_inside(a_tile, 0, 65, 2, 64) == gemm::kmajor_tile_bytes(a_tile));
  CHECK(gemm::kmajor_bytes_inside(a_tile, 0, 64, 2, 64) == 64 * 128);
}

// ==========================================================================================================
// a. TMA write model against hand-worked examples
// ==========================================================================================================
TEST_CASE("TMA 128B swizzle: the 16-byte chunk index is XORed with the row inside each 1024-byte pattern",
          "[layout][tma]") {
  // 8 rows x 64 bf16 (128 B per row); every byte of chunk c of row r holds r * 16 + c.
  std::vector<uint8_t> global(8 * 128);
  for (int r = 0; r < 8; ++r)
    for (int b = 0; b < 128; ++b) global[size_t(r) * 128 + b] = uint8_t(r * 16 + b / 16);
  const lm::TensorMap map{2, 2, {64, 8, 1}, {128, 0}, {64, 8, 1}, lm::SwizzleMode::B128};
  for (uint32_t dst : {1024u, 2048u + 1024u}) {
    std::vector<uint8_t> smem(8192, 0xEE);
    REQUIRE(lm::tma_load(map, global, {0, 0, 0}, dst, smem).empty());
    // Worked by hand: row 0 is not permuted; chunk 5 of row 3 goes to chunk 5 ^ 3 = 6: dst + 3*128 + 96;
    // chunk 0 of row 7 goes to chunk 7: dst + 7*128 + 112.
    CHECK(smem[dst + 0] == 0x00);
    CHECK(smem[dst + 16] == 0x01);
    CHECK(smem[dst + 3 * 128 + 96] == 3 * 16 + 5);
    CHECK(smem[dst + 3 * 128 + 80] == 3 * 16 + 6);
    CHECK(smem[dst + 7 * 128 + 112] == 7 * 16 + 0);
    CHECK(smem[dst + 7 * 128 + 0] == 7 * 16 + 7);
    CHECK(smem[dst - 1] == 0xEE);  // nothing outside the box
    CHECK(smem[dst + 1024] == 0xEE);
  }
  // A destination off a pattern boundary is outside what the model covers (and the kernels never use one).
  std::vector<uint8_t> smem(8192);
  CHECK_FALSE(lm::tma_load(map, global, {0, 0, 0}, 1024 + 128, smem).empty());
}

TEST_CASE("TMA 64B and 32B swizzles XOR 2 and 1 chunk bits with address bits 7-8 and 7", "[layout][tma]") {
  std::vector<lm::TmaByte> moved;
  // 64B: 8 rows of 64 B at 1024. Row 2 starts at +128 (bits 7-8 = 1): its chunk 1 moves to chunk 0.
  // Row 6 starts at +384 (bits 7-8 = 3): its chunk 0 moves to chunk 3, i.e. +384 + 48.
  const lm::TensorMap map64{2, 2, {32, 8, 1}, {64, 0}, {32, 8, 1}, lm::SwizzleMode::B64};
  REQUIRE(lm::tma_box_bytes(map64, {0, 0, 0}, 1024, moved).empty());
  const auto landing = [&](int64_t global_offset) {
    for (const lm::TmaByte& m : moved)
      if (m.global_offset == global_offset) return int64_t(m.smem_addr);
    return int64_t(-1);
  };
  CHECK(landing(2 * 64 + 16) == 1024 + 128);
  CHECK(landing(6 * 64 + 0) == 1024 + 384 + 48);
  CHECK(landing(1 * 64 + 16) == 1024 + 64 + 16);  // bits 7-8 of +64 are 0: unchanged
  // 32B: rows of 32 B. Row 4 starts at +128 (bit 7 = 1): its chunk 0 moves to +128 + 16.
  const lm::TensorMap map32{2, 2, {16, 8, 1}, {32, 0}, {16, 8, 1}, lm::SwizzleMode::B32};
  REQUIRE(lm::tma_box_bytes(map32, {0, 0, 0}, 1024, moved).empty());
  CHECK(landing(4 * 32 + 0) == 1024 + 128 + 16);
  CHECK(landing(4 * 32 + 16) == 1024 + 128);
  CHECK(landing(3 * 32 + 0) == 1024 + 96);
}

TEST_CASE("TMA 3D box {8, rows, K/8} lands as K/8 contiguous slices of rows x 16 B", "[layout][tma]") {
  // A 16 x 32 bf16 operand (64 B rows) viewed as {8, 16, 4} with strides {64, 16} bytes.
  const lm::TensorMap map{3, 2, {8, 16, 4}, {64, 16}, {8, 16, 4}, lm::SwizzleMode::NONE};
  std::vector<lm::TmaByte> moved;
  REQUIRE(lm::tma_box_bytes(map, {0, 0, 0}, 2048, moved).empty());
  REQUIRE(moved.size() == 16 * 32 * 2);
  // Element (row 9, k 21) is in K slice 2, column 5: 2048 + 2*256 + 9*16 + 5*2 = 2714. It comes from global
  // byte (9*32 + 21) * 2.
  bool found = false;
  for (const lm::TmaByte& m : moved)
    if (m.smem_addr == 2714) found = m.global_offset == (9 * 32 + 21) * 2;
  CHECK(found);
}

TEST_CASE("TMA fills out-of-bounds box elements with zero", "[layout][tma]") {
  std::vector<uint8_t> global(8 * 16, 0x5A);  // 8 rows x 8 bf16
  const lm::TensorMap map{2, 2, {8, 8, 1}, {16, 0}, {8, 4, 1}, lm::SwizzleMode::NONE};
  std::vector<uint8_t> smem(1024, 0xEE);
  REQUIRE(lm::tma_load(map, global, {0, 6, 0}, 128, smem).empty());  // rows 6..9: 8 and 9 do not exist
  CHECK(smem[128 + 0] == 0x5A);
  CHECK(smem[128 + 16 + 15] == 0x5A);
  CHECK(smem[128 + 32] == 0x00);
  CHECK(smem[128 + 63] == 0x00);
  CHECK(smem[128 + 64] == 0xEE);
}

TEST_CASE("TMA maps the driver rejects are rejected", "[layout][tma]") {
  std::vector<lm::TmaByte> moved;
  const lm::TensorMap good{2, 2, {64, 8, 1}, {128, 0}, {64, 8, 1}, lm::SwizzleMode::B128};
  REQUIRE(lm::tma_box_bytes(good, {0, 0, 0}, 1024, moved).empty());
  lm::TensorMap wide = good;  // 128 bf16 = 256 B inner box > 128 B span
  wide.box_dim[0]    = 128;
  CHECK_FALSE(lm::tma_box_bytes(wide, {0, 0, 0}, 1024, moved).empty());
  lm::TensorMap stride    = good;  // stride not a multiple of 16
  stride.global_stride[0] = 120;
  CHECK_FALSE(lm::tma_box_bytes(stride, {0, 0, 0}, 1024, moved).empty());
  lm::TensorMap tall = good;  // boxDim > 256
  tall.box_dim[1]    = 257;
  CHECK_FALSE(lm::tma_box_bytes(tall, {0, 0, 0}, 1024, moved).empty());
  lm::TensorMap plain = good;  // no swizzle: 128-byte alignment is the only rule
  plain.swizzle       = lm::SwizzleMode::NONE;
  CHECK(lm::tma_box_bytes(plain, {0, 0, 0}, 1024 + 128, moved).empty());
  CHECK_FALSE(lm::tma_box_bytes(plain, {0, 0, 0}, 1024 + 64, moved).empty());
}

// ==========================================================================================================
// b. MMA read model against hand-worked examples
// ==========================================================================================================
TEST_CASE("MMA read, no swizzle: core matrices of 8 rows x 16 B, LBO along K, SBO along M/N",
          "[layout][mma]") {
  // start 1024, LBO 2048, SBO 128, tcgen05: 0x0000'4008'0080'0040 (fields worked by hand below).
  const uint64_t desc = 0x0000400800800040ull;
  std::vector<uint32_t> addr;
  REQUIRE(lm::mma_kmajor_read(desc, lm::MmaEncoding::TCGEN05_SM100, 128, 32, 2, addr).empty());
  REQUIRE(addr.size() == 128 * 16);
  // Element (row 9, k 10): 1024 + (9%8)*16 + (9/8)*SBO + (20%16) + (20/16)*LBO = 1024 + 16 + 128 + 4 + 2048.
  CHECK(addr[9 * 16 + 10] == 3220);
  CHECK(addr[0] == 1024);
  CHECK(addr[7 * 16 + 7] == 1024 + 7 * 16 + 14);
}

TEST_CASE("MMA read, 128B swizzle: start + 32 B reads the second 32 B of each row through the XOR",
          "[layout][mma]") {
  // start 1024 + 32 (k step 1), LBO 16 (unused), SBO 1024, 128B swizzle, tcgen05: 0x4000'4040'0001'0042.
  const uint64_t desc = 0x4000404000010042ull;
  std::vector<uint32_t> addr;
  REQUIRE(lm::mma_kmajor_read(desc, lm::MmaEncoding::TCGEN05_SM100, 128, 32, 2, addr).empty());
  // Element (row 3, k 4): logical byte 32 + 8 = 40 of row 3 is chunk 2; chunk 2 ^ row 3 = chunk 1:
  // 1024 + 3*128 + 16 + 8 = 1432. Row 0 is not permuted; row 9 is row 1 of the next 1024-byte atom.
  CHECK(addr[3 * 16 + 4] == 1432);
  CHECK(addr[0] == 1024 + 32);
  CHECK(addr[9 * 16 + 0] == 2048 + 128 + ((2 ^ 1) * 16));
}

TEST_CASE("MMA read, 32B and 64B swizzle: chunk bits 4 (and 5) XORed with address bits 7 (and 8)",
          "[layout][mma][swizzle]") {
  std::vector<uint32_t> addr;
  // 32B: start 1024, LBO 16 (unused), SBO 256 (8 rows of 32 B), tcgen05 code 6: 0xC000'4010'0001'0040.
  // Rows are 32 B apart; a row whose address has bit 7 set (rows 4-7 of each 8) swaps its two chunks.
  const uint64_t desc32 = 0xC000401000010040ull;
  REQUIRE(lm::mma_kmajor_read(desc32, lm::MmaEncoding::TCGEN05_SM100, 128, 32, 2, addr).empty());
  CHECK(addr[3 * 16 + 0] == 1024 + 96);        // row 3 at +96: bit 7 clear, unchanged
  CHECK(addr[5 * 16 + 0] == 1024 + 160 + 16);  // row 5 at +160 = 0b1010'0000: chunk 0 -> chunk 1
  CHECK(addr[5 * 16 + 8] == 1024 + 160);       //   and its chunk 1 (k 8..15) -> chunk 0
  CHECK(addr[9 * 16 + 0] == 1024 + 256 + 32);  // row 9: the next 8-row atom (SBO), its row 1: unchanged
  CHECK(addr[13 * 16 + 3] == 1024 + 256 + 160 + 16 + 6);
  // A 32B read wider than its span has no LBO to reach the rest: rejected.
  CHECK_FALSE(lm::mma_kmajor_read(desc32, lm::MmaEncoding::TCGEN05_SM100, 128, 64, 2, addr).empty());
  // 64B: start 1024 + 32 (K step 1), SBO 512, tcgen05 code 4: 0x8000'4020'0001'0042. Rows 64 B apart; bits
  // 7-8 of the address pick the XOR of chunk bits 4-5.
  const uint64_t desc64 = 0x8000402000010042ull;
  REQUIRE(lm::mma_kmajor_read(desc64, lm::MmaEncoding::TCGEN05_SM100, 128, 32, 2, addr).empty());
  CHECK(addr[0 * 16 + 0] == 1024 + 32);            // row 0: unchanged
  CHECK(addr[3 * 16 + 0] == 1024 + 192 + 48);      // row 3: 1248, bits 7-8 = 1: chunk 2 -> 3
  CHECK(addr[3 * 16 + 8] == 1024 + 192 + 32);      //   chunk 3 -> 2
  CHECK(addr[6 * 16 + 0] == 1024 + 384 + 16);      // row 6: 1440, bits 7-8 = 3: chunk 2 -> 1
  CHECK(addr[6 * 16 + 8] == 1024 + 384 + 0);       //   chunk 3 -> 0
  CHECK(addr[8 * 16 + 0] == 1024 + 512 + 32);      // row 8: the next atom, unchanged
  // The model's decoder reads both codes back; the wgmma codes of the same modes are 3 and 2.
  lm::SmemDescriptor d;
  REQUIRE(lm::decode_smem_descriptor(desc32, lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK(d.swizzle == lm::SwizzleMode::B32);
  CHECK(d.sbo == 256);
  REQUIRE(lm::decode_smem_descriptor(desc64, lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK(d.swizzle == lm::SwizzleMode::B64);
  CHECK(d.sbo == 512);
  CHECK(d.start_addr == 1056);
  // The builders make exactly these: the sw32 and sw64 A tiles at 1024, K step 0 and 1.
  const gemm::KMajorTile t32{128, 64, 2, gemm::Swizzle::B32}, t64{128, 64, 2, gemm::Swizzle::B64};
  CHECK(gemm::kmajor_desc_sm100(t32, 1024, 0) == desc32);
  CHECK(gemm::kmajor_desc_sm100(t64, 1024, 1) == desc64);
  // K step 1 of the 32B tile is the next 32-byte slice, 128 rows x 32 B = 4096 B on: start 5120.
  CHECK(gemm::kmajor_desc_sm100(t32, 1024, 1) == 0xC000401000010140ull);
  CHECK(gemm::kmajor_desc_sm90(t32, 1024, 0) == 0xC000001000010040ull);  // wgmma code 3 at bit 62
  CHECK(gemm::kmajor_desc_sm90(t64, 1024, 1) == 0x8000002000010042ull);  // wgmma code 2 at bit 62
}

// ==========================================================================================================
// d. Encodings: the builders against constants computed by hand from the ISA tables
// ==========================================================================================================
TEST_CASE("kind::f16 instruction descriptors: BF16 x BF16 -> F32, K-major", "[layout][idesc]") {
  // By hand: D F32 (1 << 4) | A BF16 (1 << 7) | B BF16 (1 << 10) | N >> 3 at 17 | M >> 4 at 24.
  //   M=128 N=256: 0x10 | 0x80 | 0x400 | (32 << 17 = 0x400000) | (8 << 24 = 0x8000000)  = 0x08400490
  //   M=128 N=128: ... | (16 << 17 = 0x200000)                                           = 0x08200490
  //   M=256 N=256 (cta_group::2): ... | (16 << 24 = 0x10000000)                         = 0x10400490
  using gemm::AccKind;
  using gemm::F16Kind;
  CHECK(gemm::make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, 128, 256) == 0x08400490u);
  CHECK(gemm::make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, 128, 128) == 0x08200490u);
  CHECK(gemm::make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, 256, 256) == 0x10400490u);

  lm::InstrDescriptor d;
  const uint32_t built = gemm::make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, 128, 256);
  REQUIRE(lm::decode_instr_descriptor(built, lm::MmaKind::F16, 1, d).empty());
  CHECK(d.d_format == 1);
  CHECK(d.a_format == 1);
  CHECK(d.b_format == 1);
  CHECK(d.m == 128);
  CHECK(d.n == 256);
  CHECK_FALSE(d.a_mn_major);
  CHECK_FALSE(d.b_mn_major);
  CHECK_FALSE(d.a_negate);
  CHECK_FALSE(d.b_negate);
  REQUIRE(lm::decode_instr_descriptor(0x08200490u, lm::MmaKind::F16, 1, d).empty());
  CHECK(d.n == 128);
  REQUIRE(lm::decode_instr_descriptor(0x10400490u, lm::MmaKind::F16, 2, d).empty());
  CHECK(d.m == 256);
  CHECK_FALSE(
      lm::decode_instr_descriptor(0x10400490u, lm::MmaKind::F16, 1, d).empty());  // M 256 needs a pair
}

TEST_CASE("kind::mxf8f6f4 block-scaled instruction descriptor: E4M3 x E4M3, UE8M0 scales",
          "[layout][idesc]") {
  // By hand: A, B E4M3 = 0 | N >> 3 = 32 at 17 (0x400000) | UE8M0 bit 23 (0x800000) | M >> 4 = 8 at 24
  // (0x8000000) = 0x08C00000; with SFA id 2 at 29 (0x40000000) and SFB id 1 at 4 (0x10): 0x48C00010.
  using gemm::MxKind;
  CHECK(gemm::make_idesc_mxf8f6f4(MxKind::E4M3, MxKind::E4M3, 128, 256) == 0x08C00000u);
  CHECK(gemm::make_idesc_mxf8f6f4(MxKind::E4M3, MxKind::E4M3, 128, 256, 2, 1) == 0x48C00010u);
  CHECK(gemm::make_idesc_mxf8f6f4(MxKind::E5M2, MxKind::E4M3, 256, 256) == 0x10C00080u);  // A E5M2 = 1 << 7

  lm::InstrDescriptor d;
  REQUIRE(lm::decode_instr_descriptor(gemm::make_idesc_mxf8f6f4(MxKind::E4M3, MxKind::E4M3, 128, 256, 2, 1),
                                      lm::MmaKind::MXF8F6F4, 1, d)
              .empty());
  CHECK(d.a_format == 0);
  CHECK(d.b_format == 0);
  CHECK(d.scale_type == 1);
  CHECK(d.m == 128);
  CHECK(d.n == 256);
  CHECK(d.sfa_id == 2);
  CHECK(d.sfb_id == 1);
  CHECK_FALSE(d.a_mn_major);
  CHECK_FALSE(d.b_mn_major);
  REQUIRE(lm::decode_instr_descriptor(0x10C00080u, lm::MmaKind::MXF8F6F4, 2, d).empty());
  CHECK(d.a_format == 1);
  CHECK(d.m == 256);
}

TEST_CASE("instruction descriptors the ISA does not allow are rejected", "[layout][idesc][negative]") {
  lm::InstrDescriptor d;
  const uint32_t good = 0x08400490u;
  REQUIRE(lm::decode_instr_descriptor(good, lm::MmaKind::F16, 1, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor((good & ~(7u << 7)) | (3u << 7), lm::MmaKind::F16, 1, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor(good | (1u << 23), lm::MmaKind::F16, 1, d).empty());  // reserved
  CHECK_FALSE(lm::decode_instr_descriptor(good & ~(1u << 4), lm::MmaKind::F16, 1, d).empty());  // bf16 -> f16
  CHECK_FALSE(
      lm::decode_instr_descriptor((good & ~(31u << 24)) | (6u << 24), lm::MmaKind::F16, 1, d).empty());
  // M = 128 at cta_group::1 takes N in steps of 16 (the stages' and DeepGEMM's rule); M = 64 in steps of 8.
  using gemm::AccKind;
  using gemm::F16Kind;
  const auto f16 = [](int m, int n) {
    return gemm::make_idesc_f16(F16Kind::BF16, F16Kind::BF16, AccKind::F32, m, n);
  };
  CHECK(lm::decode_instr_descriptor(f16(128, 16), lm::MmaKind::F16, 1, d).empty());
  CHECK(lm::decode_instr_descriptor(f16(128, 144), lm::MmaKind::F16, 1, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor(f16(128, 136), lm::MmaKind::F16, 1, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor(f16(128, 8), lm::MmaKind::F16, 1, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor(f16(128, 248), lm::MmaKind::F16, 1, d).empty());
  CHECK(lm::decode_instr_descriptor(f16(64, 8), lm::MmaKind::F16, 1, d).empty());
  CHECK(lm::decode_instr_descriptor(f16(64, 136), lm::MmaKind::F16, 1, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor(f16(256, 136), lm::MmaKind::F16, 2, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor(0x08C00000u & ~(1u << 23), lm::MmaKind::MXF8F6F4, 1, d).empty());
  CHECK_FALSE(lm::decode_instr_descriptor(0x08C00000u | (2u << 7), lm::MmaKind::MXF8F6F4, 1, d).empty());
}

TEST_CASE("shared-memory descriptors of v1 and v2, on both encodings, against hand-computed constants",
          "[layout][desc]") {
  // v1 A tile of 128 rows x 64 bf16 at 1024, K step 0: start 1024 >> 4 = 0x40; LBO 128 * 16 = 2048 >> 4 =
  // 0x80 at bit 16; SBO 128 >> 4 = 8 at bit 32; tcgen05 adds 0b001 at bit 46; no swizzle.
  // v2 A tile at 1024, K step 1: start (1024 + 32) >> 4 = 0x42; LBO 16 >> 4 = 1; SBO 1024 >> 4 = 0x40;
  // 128B swizzle: wgmma code 1 at bit 62, tcgen05 code 2 at bit 61 (the same bit).
  const gemm::KMajorTile v1{128, 64, 2, gemm::Swizzle::None};
  const gemm::KMajorTile v2{128, 64, 2, gemm::Swizzle::B128};
  CHECK(gemm::kmajor_desc_sm100(v1, 1024, 0) == 0x0000400800800040ull);
  CHECK(gemm::kmajor_desc_sm90(v1, 1024, 0) == 0x0000000800800040ull);
  CHECK(gemm::kmajor_desc_sm100(v2, 1024, 1) == 0x4000404000010042ull);
  CHECK(gemm::kmajor_desc_sm90(v2, 1024, 1) == 0x4000004000010042ull);

  // The model's decoder reads the same constants back field by field.
  lm::SmemDescriptor d;
  REQUIRE(lm::decode_smem_descriptor(0x0000400800800040ull, lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK(d.start_addr == 1024);
  CHECK(d.lbo == 2048);
  CHECK(d.sbo == 128);
  CHECK(d.swizzle == lm::SwizzleMode::NONE);
  REQUIRE(lm::decode_smem_descriptor(0x4000004000010042ull, lm::MmaEncoding::WGMMA_SM90, d).empty());
  CHECK(d.start_addr == 1056);
  CHECK(d.lbo == 16);
  CHECK(d.sbo == 1024);
  CHECK(d.swizzle == lm::SwizzleMode::B128);
}

TEST_CASE("a descriptor moved by desc_sm90_advance is the descriptor built at the moved address",
          "[layout][desc]") {
  // bw, v7 and v8 build their wgmma descriptors once and move them per stage and K step with one 32-bit add to
  // the start-address field. That equals building them afresh wherever the moved tile ends below 256 KB:
  // every ring of the project (the largest ends below 228 KB). Tiles of the kernels that use it, at every
  // 16-byte start from the ring's base up to the end of a 227 KB ring, moved by every stage offset.
  const gemm::KMajorTile tiles[] = {{128, 128, 1, gemm::Swizzle::B128},  // bw's A and B (fp8)
                                    {128, 64, 2, gemm::Swizzle::B128},   // v7's and v8's A (bf16)
                                    {256, 64, 2, gemm::Swizzle::B128},   // their wide B
                                    {128, 64, 2, gemm::Swizzle::None}};
  long long checked = 0;
  for (const auto& t : tiles)
    for (uint32_t base = 0; base < 4096; base += 16)
      for (uint32_t off = 0; base + off + gemm::kmajor_tile_bytes(t) <= 227u * 1024u; off += 1024 * 7 + 16)
        for (int k = 0; k < gemm::kmajor_ksteps(t); ++k)
          for (int row : {0, 64}) {
            const uint64_t desc0 = gemm::kmajor_desc_sm90(t, base, 0, row);
            const uint64_t moved = gemm::desc_sm90_advance(desc0, off + gemm::kmajor_kstep_offset(t, k));
            if (moved != gemm::kmajor_desc_sm90(t, base + off, k, row)) {
              FAIL_CHECK("base " << base << " offset " << off << " k step " << k << " row " << row);
            }
            ++checked;
          }
  CHECK(checked > 100000);
  // Past 256 KB the start-address field carries into the reserved bits: the add is no longer the same
  // descriptor (what the static_asserts of the kernels rule out).
  const gemm::KMajorTile b = tiles[0];
  const uint64_t at0 = gemm::kmajor_desc_sm90(b, 0, 0);
  CHECK(gemm::desc_sm90_advance(at0, 256u * 1024u) != at0);
  CHECK((gemm::desc_sm90_advance(at0, 256u * 1024u) >> 14 & 3) == 1);
}

TEST_CASE("the numbers v1 writes out and v2 lists (LBO, SBO, K step, swizzle code, 3D box) round-trip",
          "[layout][desc]") {
  // matmul_v1*.cu build their descriptors with make_smem_desc_* from literal numbers, and their 3D tensor
  // maps from a literal box and slice stride (their static_asserts tie each number to common/descriptors.cuh
  // and common/tma.h); matmul_v2*.cu call those builders and list, in comments and on their page, the
  // numbers the builders compute for v2's tiles. The same numbers here, through make_smem_desc_* and the
  // literal-box kmajor_tma_3d: the same descriptors and map as the tiles give, and the model reads the tile
  // back through them.
  struct Numbers {
    const char* stage;
    sc::Arch arch;
    sc::Operand op;
    uint32_t lbo, sbo, k_step, swizzle_code;
    uint32_t sub_tile_offset;  // where the next MMA sub-tile of rows starts (Hopper A: warpgroup 1's 64 rows)
    uint32_t box[3];           // the 3D TMA box
    uint32_t slice_bytes;      // the 3D map's stride of dimension 2
  };
  using sc::Arch;
  using sc::Operand;
  const Numbers stages[] = {
      {"v1b", Arch::SM100, Operand::A, 2048, 128, 4096, 0, 0, {8, 128, 8}, 16},
      {"v1b", Arch::SM100, Operand::B, 2048, 128, 4096, 0, 0, {8, 128, 8}, 16},
      {"v1b", Arch::SM90, Operand::A, 2048, 128, 4096, 0, 1024, {8, 128, 8}, 16},
      {"v1b", Arch::SM90, Operand::B, 4096, 128, 8192, 0, 0, {8, 256, 8}, 16},
      {"v2b", Arch::SM100, Operand::A, 16, 1024, 32, 2, 0, {64, 128, 1}, 128},
      {"v2b", Arch::SM100, Operand::B, 16, 1024, 32, 2, 0, {64, 128, 1}, 128},
      {"v2b", Arch::SM90, Operand::A, 16, 1024, 32, 1, 8192, {64, 128, 1}, 128},
      {"v2b", Arch::SM90, Operand::B, 16, 1024, 32, 1, 0, {64, 256, 1}, 128},
  };
  for (const Numbers& n : stages) {
    const sc::StageConfig& c = find_row(n.stage, n.arch, n.op);
    INFO(describe(c));
    const int rows_total = 2 * c.rows, k_total = 2 * c.block_k;
    const gemm::TmaDesc map = gemm::kmajor_tma_3d(uint64_t(rows_total), uint64_t(k_total), n.box,
                                                  n.slice_bytes, uint32_t(c.elem_bytes), c.swizzle);
    const gemm::TmaDesc from_tile = launcher_tensor_map(c, rows_total, k_total);
    REQUIRE(map.rank == from_tile.rank);
    for (int d = 0; d < 3; ++d) CHECK((map.dims[d] == from_tile.dims[d] && map.box[d] == from_tile.box[d]));
    for (int d = 0; d < 2; ++d) CHECK(map.strides[d] == from_tile.strides[d]);

    const bool sm100         = n.arch == Arch::SM100;
    const DescFn from_number = [&](int k_step, int row) {
      const uint32_t start =
          c.tile_addr + uint32_t(row / c.mma_rows) * n.sub_tile_offset + uint32_t(k_step) * n.k_step;
      return sm100 ? gemm::make_smem_desc_sm100(start, n.lbo, n.sbo, n.swizzle_code)
                   : gemm::make_smem_desc_sm90(start, n.lbo, n.sbo, n.swizzle_code);
    };
    const DescFn from_tile_desc = kernel_descriptors(c);
    for (int row = 0; row < c.rows; row += c.mma_rows) {
      for (int k = 0; k < c.block_k * c.elem_bytes / MMA_K_BYTES; ++k)
        CHECK(from_number(k, row) == from_tile_desc(k, row));
    }
    CHECK(round_trips(round_trip(c, from_number), long(tile_bytes(c))));
  }
}

// ==========================================================================================================
// e. Accumulator fragments: the tcgen05 (TMEM) and wgmma (register) epilogues
// ==========================================================================================================
TEST_CASE("v1 tcgen05 epilogue: 4 warps x tcgen05.ld 32x32b.x8 cover the 128x128 accumulator exactly once",
          "[layout][tmem]") {
  constexpr int BLOCK_M = 128, BLOCK_N = 128, CHUNK = 8;
  const uint32_t tmem_base = 0x00000000u | 128u;  // as tcgen05.alloc could return it: lane 0, column 128
  std::vector<int> hits(BLOCK_M * BLOCK_N, 0);
  for (int warp = 0; warp < 4; ++warp) {
    for (int c = 0; c < BLOCK_N / CHUNK; ++c) {
      const uint32_t taddr = gemm::tmem_addr(tmem_base, 32u * uint32_t(warp), uint32_t(CHUNK * c));
      for (int t = 0; t < 32; ++t) {
        for (int i = 0; i < CHUNK; ++i) {
          lm::TmemCell cell;
          const std::string error = lm::tmem_ld_32x32b(taddr, warp, t, i, CHUNK, cell);
          INFO("warp " << warp << " chunk " << c << ": " << error);
          REQUIRE(error.empty());
          int row = -1, col = -1;
          REQUIRE(lm::tmem_accumulator_m128(cell, tmem_base, BLOCK_N, row, col));
          // The epilogue stores register i of lane t of warp w to output (32w + t, 8c + i).
          CHECK(row == 32 * warp + t);
          CHECK(col == CHUNK * c + i);
          ++hits[size_t(row) * BLOCK_N + col];
        }
      }
    }
  }
  for (int h : hits) REQUIRE(h == 1);
}

// v6 (v6_persistent/matmul_v6.cu): the epilogue is warps 2-5 of 6, and TMEM holds two accumulators of
// BLOCK_N = 256 columns (all 512). Each CTA of the cta_group::2 pair holds its own 128 rows of the M = 256
// result in its 128 lanes, the M = 128 layout (PTX ISA "Matrix fragments", Layout A). Warp w maps its rows by
// gemm::tmem_warp_lane_base(w) = 32 * (w % 4), the kernel's own function, and reads accumulator a at column
// a * 256 + 8c: every (accumulator, row, column) exactly once, from the lane quarter the warp may access.
TEST_CASE(
    "v6 tcgen05 epilogue: warps 2-5 x tcgen05.ld 32x32b.x8 cover both 128x256 accumulators exactly once",
    "[layout][tmem]") {
  constexpr int BLOCK_M = 128, BLOCK_N = 256, CHUNK = 8, ACCUMULATORS = 2, EPILOGUE_WARP0 = 2;
  const uint32_t tmem_base = 0;  // a 512-column allocation can only start at column 0
  std::vector<int> hits(size_t(ACCUMULATORS) * BLOCK_M * BLOCK_N, 0);
  for (int acc = 0; acc < ACCUMULATORS; ++acc) {
    for (int warp = EPILOGUE_WARP0; warp < EPILOGUE_WARP0 + 4; ++warp) {
      const uint32_t lane0 = gemm::tmem_warp_lane_base(warp);
      for (int c = 0; c < BLOCK_N / CHUNK; ++c) {
        const uint32_t taddr = gemm::tmem_addr(tmem_base, lane0, uint32_t(acc * BLOCK_N + CHUNK * c));
        for (int t = 0; t < 32; ++t) {
          for (int i = 0; i < CHUNK; ++i) {
            lm::TmemCell cell;
            const std::string error = lm::tmem_ld_32x32b(taddr, warp, t, i, CHUNK, cell);
            INFO("accumulator " << acc << " warp " << warp << " chunk " << c << ": " << error);
            REQUIRE(error.empty());
            int row = -1, col = -1;
            REQUIRE(lm::tmem_accumulator_m128(cell, tmem_base + uint32_t(acc * BLOCK_N), BLOCK_N, row, col));
            // The other accumulator does not claim the cell: the two buffers are disjoint.
            int other_row = -1, other_col = -1;
            CHECK_FALSE(lm::tmem_accumulator_m128(cell, tmem_base + uint32_t((1 - acc) * BLOCK_N), BLOCK_N,
                                                  other_row, other_col));
            // The epilogue stores register i of lane t of warp w to tile row lane0 + t, column 8c + i.
            CHECK(row == int(lane0) + t);
            CHECK(col == CHUNK * c + i);
            ++hits[(size_t(acc) * BLOCK_M + size_t(row)) * BLOCK_N + size_t(col)];
          }
        }
      }
    }
  }
  for (int h : hits) REQUIRE(h == 1);
  // Rows mapped by the warp's place in the epilogue (warp - 2) instead: warps 2 and 3 would read lane
  // quarters 0 and 1, which they may not access.
  lm::TmemCell cell;
  CHECK_FALSE(
      lm::tmem_ld_32x32b(gemm::tmem_addr(tmem_base, 32u * (2 - EPILOGUE_WARP0), 0), 2, 0, 0, CHUNK, cell)
          .empty());
  CHECK_FALSE(
      lm::tmem_ld_32x32b(gemm::tmem_addr(tmem_base, 32u * (3 - EPILOGUE_WARP0), 0), 3, 0, 0, CHUNK, cell)
          .empty());
  // A third accumulator would run past column 511.
  CHECK_FALSE(
      lm::tmem_ld_32x32b(gemm::tmem_addr(tmem_base, 0, 2 * BLOCK_N + BLOCK_N - CHUNK), 4, 0, 0, CHUNK, cell)
          .empty());
}

TEST_CASE("cta_group::2: A and D split by M (128 rows per CTA) and B by N (N / 2 per CTA) and tcgen05.cp per CTA",
          "[layout][pair]") {
  lm::PairRow at{};
  REQUIRE(lm::pair_row(lm::PairOperand::A, 256, 256, 200, at).empty());
  CHECK((at.cta == 1 && at.row == 72));
  REQUIRE(lm::pair_row(lm::PairOperand::D, 256, 64, 127, at).empty());
  CHECK((at.cta == 0 && at.row == 127));
  REQUIRE(lm::pair_row(lm::PairOperand::B, 256, 256, 128, at).empty());  // v5: B's second 128 rows, CTA 1
  CHECK((at.cta == 1 && at.row == 0));
  REQUIRE(lm::pair_row(lm::PairOperand::B, 256, 64, 40, at).empty());  // v8n: N = 64, 32 rows per CTA
  CHECK((at.cta == 1 && at.row == 8));
  CHECK_FALSE(lm::pair_row(lm::PairOperand::A, 128, 64, 0, at).empty());   // M = 128: not modelled
  CHECK_FALSE(lm::pair_row(lm::PairOperand::B, 256, 72, 0, at).empty());   // N step 16
  CHECK_FALSE(lm::pair_row(lm::PairOperand::D, 256, 64, 256, at).empty()); // past M
  // tcgen05.cp.cta_group::2: each CTA gets the single-CTA copy from its own shared memory.
  std::vector<lm::CopiedByte> one;
  std::vector<lm::PairCopiedByte> pair;
  const uint64_t desc = gemm::mx_sf_cp_desc_sm100(2048);
  REQUIRE(lm::tcgen05_cp_32x128b_warpx4(desc, 388, one).empty());
  REQUIRE(lm::tcgen05_cp_32x128b_warpx4_pair(desc, 388, pair).empty());
  REQUIRE(pair.size() == 2 * one.size());
  long wrong = 0;
  for (size_t i = 0; i < pair.size(); ++i) {
    const lm::CopiedByte& o = one[i % one.size()];
    wrong += pair[i].dst_cta != int(i / one.size()) || pair[i].src_cta != pair[i].dst_cta;
    wrong += pair[i].byte.smem_addr != o.smem_addr || pair[i].byte.dst.lane != o.dst.lane ||
             pair[i].byte.dst.column != o.dst.column || pair[i].byte.dst.byte != o.dst.byte;
  }
  CHECK(wrong == 0);
}

TEST_CASE("tcgen05.ld from a lane quadrant the warp may not access is rejected", "[layout][tmem][negative]") {
  lm::TmemCell cell;
  CHECK(lm::tmem_ld_32x32b(gemm::tmem_addr(0, 32, 0), 1, 0, 0, 8, cell).empty());
  CHECK_FALSE(lm::tmem_ld_32x32b(gemm::tmem_addr(0, 0, 0), 1, 0, 0, 8, cell).empty());  // warp 1 at lane 0
  CHECK(lm::tmem_ld_32x32b(gemm::tmem_addr(0, 32, 0), 5, 0, 0, 8, cell).empty());       // warp 5: quadrant 1
  CHECK_FALSE(lm::tmem_ld_32x32b(gemm::tmem_addr(0, 0, 508), 0, 0, 0, 8, cell).empty());  // past column 511
}

TEST_CASE("wgmma m64nNk16 f32 accumulator: a warpgroup's registers cover the 64xN tile exactly once",
          "[layout][wgmma]") {
  for (int n : {128, 256}) {
    std::vector<int> hits(64 * n, 0);
    for (int w = 0; w < 4; ++w)
      for (int t = 0; t < 32; ++t)
        for (int reg = 0; reg < n / 2; ++reg) {
          int row = -1, col = -1;
          REQUIRE(lm::wgmma_accumulator_m64(w, t, reg, n, row, col));
          REQUIRE((row >= 0 && row < 64 && col >= 0 && col < n));
          ++hits[size_t(row) * n + col];
        }
    for (int h : hits) REQUIRE(h == 1);
  }
  // Worked by hand from the ISA figure: lane 5 of warp 2 holds rows 32 + 1 and 32 + 9, and in each group j
  // of 8 columns the columns 8j + 2 and 8j + 3.
  int row = -1, col = -1;
  REQUIRE(lm::wgmma_accumulator_m64(2, 5, 0, 256, row, col));
  CHECK((row == 33 && col == 2));
  REQUIRE(lm::wgmma_accumulator_m64(2, 5, 3, 256, row, col));
  CHECK((row == 41 && col == 3));
  REQUIRE(lm::wgmma_accumulator_m64(2, 5, 4 * 7 + 1, 256, row, col));
  CHECK((row == 33 && col == 59));
  CHECK_FALSE(lm::wgmma_accumulator_m64(0, 0, 128, 256, row, col));
}

// ==========================================================================================================
// f. Negative tests: the round trip must fail for each broken descriptor or box
// ==========================================================================================================
namespace {

// A descriptor the kernel would build for (k_step, row), with one field replaced.
struct Broken {
  int lbo = -1, sbo = -1;     // bytes; -1 keeps the kernel's value
  int addr_delta        = 0;  // added to the start address
  bool override_swizzle = false;
  gemm::Swizzle swizzle = gemm::Swizzle::None;
};

DescFn broken_descriptors(const sc::StageConfig& c, Broken b) {
  const gemm::KMajorTile tile{c.rows, c.block_k, c.elem_bytes, c.swizzle};
  const bool sm100    = c.arch == sc::Arch::SM100;
  const uint32_t base = c.tile_addr;
  return [tile, sm100, base, b](int k_step, int row) {
    const uint32_t start =
        uint32_t(int(base + gemm::kmajor_row_offset(tile, row) + gemm::kmajor_kstep_offset(tile, k_step)) +
                 b.addr_delta);
    const uint32_t lbo          = b.lbo >= 0 ? uint32_t(b.lbo) : gemm::kmajor_lbo(tile);
    const uint32_t sbo          = b.sbo >= 0 ? uint32_t(b.sbo) : gemm::kmajor_sbo(tile);
    const gemm::Swizzle swizzle = b.override_swizzle ? b.swizzle : tile.swizzle;
    return sm100 ? gemm::make_smem_desc_sm100(start, lbo, sbo, swizzle)
                 : gemm::make_smem_desc_sm90(start, lbo, sbo, swizzle);
  };
}

bool fails(const sc::StageConfig& c, Broken b) {
  return !round_trips(round_trip(c, broken_descriptors(c, b)), long(tile_bytes(c)));
}

}  // namespace

TEST_CASE("negative: wrong descriptor fields make the round trip fail", "[layout][negative]") {
  using sc::Arch;
  using sc::Operand;
  const sc::StageConfig* v1_rows[] = {&find_row("v1b", Arch::SM100, Operand::A),
                                      &find_row("v1a", Arch::SM90, Operand::B),
                                      &find_row("v1a", Arch::SM90, Operand::A)};
  const sc::StageConfig* v2_rows[] = {&find_row("v2b", Arch::SM100, Operand::A),
                                      &find_row("v2a", Arch::SM90, Operand::A),
                                      &find_row("v3 stage 3", Arch::SM90, Operand::B)};
  for (const sc::StageConfig* c : v1_rows) {
    INFO(describe(*c));
    REQUIRE_FALSE(fails(*c, Broken{}));  // unbroken, the same path round-trips
    const int lbo = c->rows * 16;
    CHECK(fails(*c, Broken{128, lbo}));                              // LBO and SBO swapped
    CHECK(fails(*c, Broken{lbo + 128}));                             // wrong LBO
    CHECK(fails(*c, Broken{lbo / 2}));                               // LBO of a half-height tile
    CHECK(fails(*c, Broken{-1, 256}));                               // wrong SBO
    CHECK(fails(*c, Broken{-1, -1, 16}));                            // start 16 B late
    CHECK(fails(*c, Broken{-1, -1, 1024}));                          // start 1024 B late
    CHECK(fails(*c, Broken{-1, -1, 0, true, gemm::Swizzle::B128}));  // swizzled read of an unswizzled tile
  }
  for (const sc::StageConfig* c : v2_rows) {
    INFO(describe(*c));
    REQUIRE_FALSE(fails(*c, Broken{}));
    CHECK(fails(*c, Broken{-1, 512}));  // SBO of a 64B-swizzle atom
    CHECK(fails(*c, Broken{-1, 128}));  // SBO of the no-swizzle layout
    CHECK(fails(*c, Broken{-1, -1, 16}));
    CHECK(fails(*c, Broken{-1, -1, 1024}));
    CHECK(fails(*c, Broken{-1, -1, 0, true, gemm::Swizzle::None}));
    CHECK(fails(*c, Broken{-1, -1, 0, true, gemm::Swizzle::B64}));
    CHECK(fails(*c, Broken{-1, -1, 0, true, gemm::Swizzle::B32}));
    // [tc5-desc] K-major swizzled layouts do not use LBO: any LBO reads the same bytes.
    CHECK_FALSE(fails(*c, Broken{4096}));
  }
}

TEST_CASE("negative: a 32B or 64B tile read with another swizzle, SBO or K step fails the round trip",
          "[layout][negative][swizzle]") {
  const gemm::Swizzle all[] = {gemm::Swizzle::None, gemm::Swizzle::B32, gemm::Swizzle::B64, gemm::Swizzle::B128};
  for (const sc::StageConfig& c : sc::SWIZZLE_TILES) {
    INFO(describe(c));
    REQUIRE_FALSE(fails(c, Broken{}));  // unbroken, the same path round-trips
    for (const gemm::Swizzle other : all) {
      if (other == c.swizzle) continue;
      INFO("read with swizzle " << uint32_t(other));
      CHECK(fails(c, Broken{-1, -1, 0, true, other}));  // only the descriptor's swizzle code differs
    }
    const int sbo = int(8 * gemm::swizzle_span_bytes(c.swizzle));
    CHECK(fails(c, Broken{-1, sbo == 256 ? 512 : 256}));  // the other mode's SBO
    CHECK(fails(c, Broken{-1, 1024}));                    // the 128B SBO
    CHECK(fails(c, Broken{-1, -1, 16}));                  // start one chunk late
    CHECK(fails(c, Broken{-1, -1, 128}));                 // start one pattern row late
    CHECK_FALSE(fails(c, Broken{4096}));                  // K-major swizzled: LBO is not read
    // K steps advanced as in a 128B tile (+32 B along the row) instead of the next slice (32B) / the second
    // half of the row then the next slice (64B): wrong for 32B, and for 64B from K step 2 on.
    const gemm::KMajorTile tile{c.rows, c.block_k, c.elem_bytes, c.swizzle};
    const gemm::KMajorTile as128{c.rows, c.block_k, c.elem_bytes, gemm::Swizzle::B128};
    const DescFn wrong_steps = [&](int k_step, int row) {
      return gemm::make_smem_desc_sm100(
          c.tile_addr + gemm::kmajor_row_offset(tile, row) + gemm::kmajor_kstep_offset(as128, k_step),
          gemm::kmajor_lbo(tile), gemm::kmajor_sbo(tile), tile.swizzle);
    };
    CHECK_FALSE(round_trips(round_trip(c, wrong_steps), long(tile_bytes(c))));
  }
  // TMA writing without the swizzle (the same boxes, a tensor map with no swizzle) and the MMA reading with
  // it: every byte lands, but rows 4-7 of each 8 (32B) / all but rows 0-1 (64B) hold their chunks unpermuted.
  for (const sc::StageConfig& row : sc::SWIZZLE_TILES) {
    sc::StageConfig c = row;
    c.swizzle         = gemm::Swizzle::None;
    const gemm::KMajorTile right{row.rows, row.block_k, row.elem_bytes, row.swizzle};
    const DescFn right_desc = [&](int k_step, int sub) {
      return gemm::kmajor_desc_sm100(right, row.tile_addr, k_step, sub);
    };
    INFO(describe(row) << ", written by TMA without swizzle");
    const RoundTrip rt = round_trip(c, right_desc);
    CHECK(rt.error.empty());  // a real data mismatch, not a rejected map
    CHECK(rt.written == long(tile_bytes(row)));
    CHECK(rt.mismatches > 0);
  }
}

TEST_CASE("negative: K steps advanced like the other layout make the round trip fail", "[layout][negative]") {
  // The classic mix-ups: +32 B per k16 on the core-matrix layout; two whole 16-byte slices on the 128B one.
  for (const char* stage : {"v1a", "v2a"}) {
    const sc::StageConfig& c = find_row(stage, sc::Arch::SM100, sc::Operand::B);
    const gemm::KMajorTile tile{c.rows, c.block_k, c.elem_bytes, c.swizzle};
    const gemm::KMajorTile other{
        c.rows, c.block_k, c.elem_bytes,
        c.swizzle == gemm::Swizzle::None ? gemm::Swizzle::B128 : gemm::Swizzle::None};
    const DescFn wrong_steps = [&](int k_step, int row) {
      return gemm::make_smem_desc_sm100(
          c.tile_addr + gemm::kmajor_row_offset(tile, row) + gemm::kmajor_kstep_offset(other, k_step),
          gemm::kmajor_lbo(tile), gemm::kmajor_sbo(tile), tile.swizzle);
    };
    INFO(describe(c));
    CHECK_FALSE(round_trips(round_trip(c, wrong_steps), long(tile_bytes(c))));
  }
}

TEST_CASE("negative: wrong tcgen05 fixed bits and the other architecture's encoding are rejected",
          "[layout][negative]") {
  const gemm::KMajorTile v2{128, 64, 2, gemm::Swizzle::B128};
  const uint64_t sm100 = gemm::kmajor_desc_sm100(v2, 1024, 0);
  const uint64_t sm90  = gemm::kmajor_desc_sm90(v2, 1024, 0);
  lm::SmemDescriptor d;
  REQUIRE(lm::decode_smem_descriptor(sm100, lm::MmaEncoding::TCGEN05_SM100, d).empty());
  REQUIRE(lm::decode_smem_descriptor(sm90, lm::MmaEncoding::WGMMA_SM90, d).empty());
  const uint64_t fixed_mask = uint64_t(7) << 46;
  CHECK_FALSE(lm::decode_smem_descriptor(sm100 & ~fixed_mask, lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK_FALSE(lm::decode_smem_descriptor((sm100 & ~fixed_mask) | (uint64_t(2) << 46),
                                         lm::MmaEncoding::TCGEN05_SM100, d)
                  .empty());
  CHECK_FALSE(
      lm::decode_smem_descriptor(sm100 | (uint64_t(1) << 48), lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK_FALSE(lm::decode_smem_descriptor(sm90, lm::MmaEncoding::TCGEN05_SM100, d).empty());  // bit 46 missing
  CHECK_FALSE(lm::decode_smem_descriptor(sm100, lm::MmaEncoding::WGMMA_SM90, d).empty());  // bit 46 reserved
  CHECK_FALSE(
      lm::decode_smem_descriptor(sm100 | (uint64_t(1) << 61), lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK_FALSE(
      lm::decode_smem_descriptor(sm100 | (uint64_t(1) << 49), lm::MmaEncoding::TCGEN05_SM100, d).empty());

  // And through the round trip: a v2 tile read with descriptors whose fixed bits are cleared.
  const sc::StageConfig& c = find_row("v2b", sc::Arch::SM100, sc::Operand::B);
  const DescFn base        = kernel_descriptors(c);
  const RoundTrip rt = round_trip(c, [&](int k_step, int row) { return base(k_step, row) & ~fixed_mask; });
  CHECK_FALSE(rt.error.empty());
}

TEST_CASE("negative: 2D boxes written at the wrong shared-memory step are caught", "[layout][negative]") {
  sc::StageConfig c = find_row("v1a", sc::Arch::SM100, sc::Operand::A);
  REQUIRE(round_trips(round_trip(c, kernel_descriptors(c)), long(tile_bytes(c))));
  c.box_smem_step = 128 * 16 + 128;  // a padded slice: the descriptors' LBO no longer matches
  CHECK_FALSE(round_trips(round_trip(c, kernel_descriptors(c)), long(tile_bytes(c))));
  c.box_smem_step = 16;  // boxes overwrite each other
  CHECK_FALSE(round_trips(round_trip(c, kernel_descriptors(c)), long(tile_bytes(c))));
}
