// test_mxfp8_sm100.cpp: CPU tests of the Blackwell MXFP8 kernel (mxfp8/matmul_mxfp8.cu), which cannot run
// here.
//  - Bad input is refused before anything is launched: dimensions <= 0, K not a multiple of 32, buffers of
//    the wrong size, null or misaligned pointers; shapes the kernel does take are accepted.
//  - The scale tensor maps: every byte of every box is the byte of the blocked layout the kernel wants.
//  - The scale path, proved in the layout model (tests/layout_model.*, written from the PTX ISA): a scale
//  tile
//    TMA-loaded into shared memory, copied to TMEM by tcgen05.cp .32x128b.warpx4 with the kernel's descriptor
//    (mx_sf_cp_desc_sm100: LBO 0, SBO 128), is read by the block-scaled MMA as scale (row, j) for SF id j,
//    for A (128 rows) and for B (256 rows, two tiles 4 columns apart). SBO 128 is the only SBO that works;
//    LBO is never used (any value reads the same bytes). Seed 001 found "LBO 0 / SBO 128" by trial.
//  - The instruction descriptor of K step j carries SF ids (j, j), E4M3 operands, UE8M0 scales, M 256, N 256.
// What this cannot show: that the hardware agrees with the model (no Blackwell GPU here).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/descriptors.cuh"
#include "common/mx_scale_layout.h"
#include "common/tma.h"
#include "layout_model.h"
#include "mxfp8/matmul_mxfp8_sm100.h"
#include "mxfp8/mx_lt_ref_sm100.h"

namespace lm = layout_model;
using namespace gemm;

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A distinct, deterministic scale byte for (row, scale column), never 0 (0 would hide unwritten bytes).
uint8_t scale_value(int row, int col) {
  return uint8_t(1 + (row * 7 + col * 61) % 251);
}

// The blocked scale tensor of a rows x scale_cols grid, filled with scale_value (padding stays 0).
std::vector<uint8_t> blocked_scales(int rows, int scale_cols) {
  std::vector<uint8_t> t(mx_scale_bytes(rows, scale_cols), 0);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < scale_cols; ++j) t[mx_scale_offset(r, j, scale_cols)] = scale_value(r, j);
  return t;
}

// What the kernel's 4D box at coordinates {0, 0, k_tile, row_block} writes into shared memory: the box in its
// natural order (dimension 0 fastest) [tma], each element's global byte from the map's dims and strides;
// out-of-bound elements are zero.
std::vector<uint8_t> load_scale_box(const TmaDesc& d, const std::vector<uint8_t>& global, int k_tile,
                                    int row_block) {
  std::vector<uint8_t> smem;
  for (uint32_t x3 = 0; x3 < d.box[3]; ++x3)
    for (uint32_t x2 = 0; x2 < d.box[2]; ++x2)
      for (uint32_t x1 = 0; x1 < d.box[1]; ++x1)
        for (uint32_t x0 = 0; x0 < d.box[0]; ++x0) {
          const uint64_t c2 = uint64_t(k_tile) + x2, c3 = uint64_t(row_block) + x3;
          const bool inside  = x0 < d.dims[0] && x1 < d.dims[1] && c2 < d.dims[2] && c3 < d.dims[3];
          const uint64_t off = x0 + x1 * d.strides[0] + c2 * d.strides[1] + c3 * d.strides[2];
          smem.push_back(inside ? global.at(off) : 0);
        }
  return smem;
}

// TMEM after the kernel's tcgen05.cp of each 512-byte tile of `smem` (tile t at smem_base + 512 t into TMEM
// columns sf_col + 4 t): byte (lane, column, b) at [(lane * 512 + column) * 4 + b]; -1 where nothing was
// copied.
std::vector<int> copy_to_tmem(uint64_t (*desc_of)(uint32_t), const std::vector<uint8_t>& smem,
                              uint32_t smem_base, uint32_t sf_col, int tiles) {
  std::vector<int> tmem(128 * 512 * 4, -1);
  for (int t = 0; t < tiles; ++t) {
    std::vector<lm::CopiedByte> copied;
    const std::string error = lm::tcgen05_cp_32x128b_warpx4(desc_of(smem_base + 512u * uint32_t(t)),
                                                            sf_col + 4u * uint32_t(t), copied);
    REQUIRE(error.empty());
    for (const auto& c : copied) {
      const int64_t at = int64_t(c.smem_addr) - int64_t(smem_base);
      tmem[(c.dst.lane * 512 + c.dst.column) * 4 + c.dst.byte] =
          at >= 0 && at < int64_t(smem.size()) ? smem[size_t(at)] : -2;  // -2: read outside the stage's tiles
    }
  }
  return tmem;
}

// The scale the MMA applies to operand row `row` with SF id `sf_id` (scale address sf_col), the same in every
// quarter, or -4 when the quarters disagree.
int mma_scale(const std::vector<int>& tmem, uint32_t sf_col, int rows, int row, uint32_t sf_id) {
  int value = -3;
  for (int q = 0; q < 4; ++q) {
    lm::TmemByte cell;
    REQUIRE(lm::mma_scale_read_block32(sf_col, row, rows, sf_id, q, cell).empty());
    const int v = tmem[(cell.lane * 512 + cell.column) * 4 + cell.byte];
    if (q == 0) value = v;
    if (v != value) return -4;
  }
  return value;
}

uint64_t kernel_desc(uint32_t addr) {
  return mx_sf_cp_desc_sm100(addr);
}

template <uint32_t LBO, uint32_t SBO>
uint64_t other_desc(uint32_t addr) {
  return make_smem_desc_sm100(addr, LBO, SBO, Swizzle::None);
}

// Every (row, SF id) of a stage's scale tiles (rows of the operand, `tiles` 512-byte tiles) through TMA,
// tcgen05.cp and the MMA's read; returns the number of wrong scales.
int wrong_scales(uint64_t (*desc_of)(uint32_t), int operand_rows, int tiles, int k, int k_tile,
                 int row_block) {
  const int cols                    = mx_scale_cols(k);
  const std::vector<uint8_t> global = blocked_scales(operand_rows, cols);
  const TmaDesc d                   = mx_scale_tma_4d(operand_rows, k, uint32_t(tiles));
  const std::vector<uint8_t> smem   = load_scale_box(d, global, k_tile, row_block);
  REQUIRE(smem.size() == size_t(512 * tiles));
  const uint32_t smem_base =
      6 * 32768 + 3 * 1536;                    // a stage's SFA slot of the kernel's ring (any 16-B multiple)
  const uint32_t sf_col       = 384 + 3 * 12;  // a stage's TMEM scale slot (any multiple of 4 below 508)
  const std::vector<int> tmem = copy_to_tmem(desc_of, smem, smem_base, sf_col, tiles);
  int wrong                   = 0;
  for (int i = 0; i < 128 * tiles; ++i) {
    const int row = row_block * 128 + i;
    for (uint32_t j = 0; j < 4; ++j) {
      const int col    = k_tile * 4 + int(j);
      const int expect = row < operand_rows && col < cols ? scale_value(row, col) : 0;  // padding is 0
      if (mma_scale(tmem, sf_col, 128 * tiles, i, j) != expect) ++wrong;
    }
  }
  return wrong;
}

}  // namespace

TEST_CASE("mxfp8 sm100: shapes it takes", "[mxfp8][sm100][shape]") {
  CHECK(mxfp8_sm100_check_shape(256, 256, 128).empty());
  CHECK(mxfp8_sm100_check_shape(8192, 8192, 8192).empty());
  CHECK(mxfp8_sm100_check_shape(1, 1, 32).empty());         // any M, N: TMA zero-fills, stores are predicated
  CHECK(mxfp8_sm100_check_shape(1000, 777, 4064).empty());  // K: whole MX blocks, not whole K tiles of 128
  CHECK(mxfp8_sm100_check_shape(4096, 4096, 160).empty());  // a last K tile with one MX block
}

TEST_CASE("mxfp8 sm100: dimensions below 1 and K off the MX block are refused, naming the rule",
          "[mxfp8][sm100][shape]") {
  CHECK(contains(mxfp8_sm100_check_shape(0, 128, 128), "M=0 is below 1"));
  CHECK(contains(mxfp8_sm100_check_shape(256, -128, 128), "N=-128 is below 1"));
  CHECK(contains(mxfp8_sm100_check_shape(256, 128, 0), "K=0 is below 1"));
  CHECK(contains(mxfp8_sm100_check_shape(256, 128, -32), "K=-32 is below 1"));
  const std::string k1000 = mxfp8_sm100_check_shape(256, 256, 1000);
  CHECK(contains(k1000, "K=1000 is not a multiple of 32"));
  CHECK(contains(k1000, "try K=992"));
  CHECK(contains(mxfp8_sm100_check_shape(256, 256, 16), "try K=32"));
  CHECK(contains(mxfp8_sm100_check_shape(int64_t(1) << 31, 256, 128), "2^30"));
}

TEST_CASE("mxfp8 sm100: buffers of the wrong size, null or misaligned pointers are refused",
          "[mxfp8][sm100][args]") {
  alignas(64) static uint8_t buf[64];
  const int64_t m = 300, n = 200, k = 96;  // rows and scale columns that need padding
  MxGemmArgs g{};
  g.a = g.b = g.sfa = g.sfb = buf;
  g.c                       = reinterpret_cast<float*>(buf);
  g.m = m, g.n = n, g.k = k;
  g.a_bytes   = uint64_t(m * k);
  g.b_bytes   = uint64_t(n * k);
  g.sfa_bytes = 384 * 4;  // rows padded to 384, 3 scale columns padded to 4
  g.sfb_bytes = 256 * 4;
  g.c_bytes   = uint64_t(m * n * 4);
  REQUIRE(mxfp8_sm100_check_args(g).empty());
  {
    MxGemmArgs bad = g;
    bad.sfa_bytes  = uint64_t(m * 3);  // unpadded scales
    CHECK(contains(mxfp8_sm100_check_args(bad),
                   "A's scales (blocked layout) has 900 bytes; the shape needs 1536"));
  }
  {
    MxGemmArgs bad = g;
    bad.sfb_bytes -= 1;
    CHECK(contains(mxfp8_sm100_check_args(bad), "B's scales"));
  }
  {
    MxGemmArgs bad = g;
    bad.a_bytes += 1;
    CHECK(contains(mxfp8_sm100_check_args(bad), "A's e4m3 data"));
  }
  {
    MxGemmArgs bad = g;
    bad.c_bytes    = uint64_t(m * n * 2);  // bf16-sized output
    CHECK(contains(mxfp8_sm100_check_args(bad), "C (fp32)"));
  }
  {
    MxGemmArgs bad = g;
    bad.b          = nullptr;
    CHECK(contains(mxfp8_sm100_check_args(bad), "null"));
  }
  {
    MxGemmArgs bad = g;
    bad.sfb        = buf + 8;
    CHECK(contains(mxfp8_sm100_check_args(bad), "16-byte aligned"));
  }
  {
    MxGemmArgs bad = g;
    bad.k          = 100;  // the shape is checked first
    CHECK(contains(mxfp8_sm100_check_args(bad), "not a multiple of 32"));
  }
}

TEST_CASE("mxfp8 sm100: the 4D scale maps pass the TMA rules and each box is whole 512-byte tiles",
          "[mxfp8][sm100][tma]") {
  alignas(16) static uint8_t base[16];
  for (int rows : {128, 300, 4096}) {
    for (int k : {32, 128, 4064, 8192}) {
      for (uint32_t tiles : {1u, 2u}) {
        const TmaDesc d = mx_scale_tma_4d(rows, k, tiles);
        INFO("rows " << rows << " K " << k << " tiles per box " << tiles);
        CHECK(validate_tma(d, base).empty());
        CHECK(d.box[0] * d.box[1] * d.box[2] == 512u);
        // dims x strides span exactly the padded tensor
        CHECK(d.dims[3] * d.strides[2] == mx_scale_bytes(rows, mx_scale_cols(k)));
        // the box at (k_tile, row_block) is tile (row_block, k_tile), then tile (row_block + 1, k_tile)
        const std::vector<uint8_t> global = blocked_scales(rows, mx_scale_cols(k));
        const int k_tiles = int(d.dims[2]), row_blocks = int(d.dims[3]);
        for (int kt : {0, k_tiles - 1})
          for (int rb : {0, row_blocks - 1}) {
            const std::vector<uint8_t> box = load_scale_box(d, global, kt, rb);
            for (uint32_t t = 0; t < tiles; ++t)
              for (int byte = 0; byte < 512; ++byte) {
                const bool inside = rb + int(t) < row_blocks;
                const uint8_t want =
                    inside ? global[mx_scale_tile_offset(rb + int(t), kt, mx_scale_cols(k)) + byte] : 0;
                if (box[t * 512 + byte] != want) FAIL("box byte " << t * 512 + byte << " at k tile " << kt);
              }
          }
      }
    }
  }
}

TEST_CASE(
    "model: tcgen05.cp 32x128b.warpx4 with the kernel's descriptor (LBO 0, SBO 128) puts scale (row, j) "
    "where the block32 MMA reads it with SF id j",
    "[mxfp8][sm100][model]") {
  // SFA: this CTA's 128 rows, one tile per K tile; edge shapes leave padding rows and scale columns.
  CHECK(wrong_scales(kernel_desc, 128, 1, 128, 0, 0) == 0);
  CHECK(wrong_scales(kernel_desc, 4096, 1, 4096, 7, 13) == 0);
  CHECK(wrong_scales(kernel_desc, 300, 1, 96, 0, 2) == 0);  // rows 256..383: 44 real; scale column 3 padding
  // SFB: the pair's 256 rows of N, two tiles into columns +0..3 and +4..7.
  CHECK(wrong_scales(kernel_desc, 256, 2, 256, 1, 0) == 0);
  CHECK(wrong_scales(kernel_desc, 8192, 2, 8192, 63, 62) == 0);
  CHECK(wrong_scales(kernel_desc, 200, 2, 160, 1, 0) == 0);  // second tile partly past N: zero-filled
}

TEST_CASE("model: LBO is never used by a 16-byte-wide source, SBO must be 128", "[mxfp8][sm100][model]") {
  // LBO: any value reads the same bytes (the source is one core matrix wide)
  CHECK(wrong_scales(other_desc<16, 128>, 256, 2, 256, 0, 0) == 0);
  CHECK(wrong_scales(other_desc<512, 128>, 256, 2, 256, 0, 0) == 0);
  // SBO: anything else reads other lines: most scales wrong
  CHECK(wrong_scales(other_desc<0, 256>, 256, 2, 256, 0, 0) > 500);
  CHECK(wrong_scales(other_desc<0, 16>, 256, 2, 256, 0, 0) > 500);
  CHECK(wrong_scales(other_desc<0, 512>, 256, 2, 256, 0, 0) > 500);
  // the field values of the kernel's descriptor
  lm::SmemDescriptor d;
  REQUIRE(
      lm::decode_smem_descriptor(mx_sf_cp_desc_sm100(0x1A300), lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK(d.start_addr == 0x1A300u);
  CHECK(d.lbo == 0u);
  CHECK(d.sbo == 128u);
  CHECK(d.swizzle == lm::SwizzleMode::NONE);
}

TEST_CASE("model: mx_sf_tmem_cell (the kernel's comment on where scales sit) is the model's MMA read",
          "[mxfp8][sm100][model]") {
  for (int row = 0; row < 256; ++row)
    for (int j = 0; j < 4; ++j) {
      lm::TmemByte cell;
      REQUIRE(lm::mma_scale_read_block32(0, row, 256, uint32_t(j), 0, cell).empty());
      const MxSfTmemCell ours = mx_sf_tmem_cell(row, j);
      CHECK(ours.lane == cell.lane);
      CHECK(ours.column == cell.column);
      CHECK(ours.byte == cell.byte);
    }
}

TEST_CASE("model: the idesc of K step j: E4M3 x E4M3, UE8M0 scales, M 256, N 256, SF ids (j, j)",
          "[mxfp8][sm100][model][idesc]") {
  for (uint32_t j = 0; j < 4; ++j) {
    const uint32_t idesc = make_idesc_mxf8f6f4(MxKind::E4M3, MxKind::E4M3, 256, 256, j, j);
    lm::InstrDescriptor d;
    REQUIRE(lm::decode_instr_descriptor(idesc, lm::MmaKind::MXF8F6F4, 2, d).empty());
    CHECK(d.a_format == 0u);
    CHECK(d.b_format == 0u);
    CHECK(d.scale_type == 1u);
    CHECK(d.m == 256);
    CHECK(d.n == 256);
    CHECK(d.sfa_id == j);
    CHECK(d.sfb_id == j);
    CHECK_FALSE(d.a_mn_major);
    CHECK_FALSE(d.b_mn_major);
    // K step j of a 128-wide K tile multiplies elements [32 j, 32 j + 32) of it: MX block j of the tile,
    // whose scale is column j of the tile's scale tile, the byte SF id j selects.
    for (int e = 32 * int(j); e < 32 * int(j) + 32; ++e) CHECK((e / MX_BLOCK_K) % MX_SF_TILE_COLS == int(j));
  }
}

TEST_CASE("the cuBLASLt MXFP8 reference refuses plainly where it cannot run (no GPU, or not compute 10.x)",
          "[mxfp8][sm100][reference]") {
  const std::string reason = lt_mxfp8_unavailable_reason();
  if (reason.empty()) return;  // a Blackwell GPU: the reference is built for real (the GPU test uses it)
  alignas(16) static uint8_t scales[512];
  LtMxfp8Gemm lt(256, 256, 128, scales, scales);
  CHECK_FALSE(lt.ok());
  CHECK(lt.error() == reason);
  CHECK((contains(reason, "no CUDA device") || contains(reason, "needs compute capability 10.x")));
}
