// test_mx_scale_layout.cpp: the MXFP8 blocked scale-factor layout of common/mx_scale_layout.h, checked
// against NVIDIA's published examples for the cuBLASLt layout, hand-computed offsets, the padding rules, and
// that it maps the padded grid one to one onto its bytes.
#include <catch2/catch.hpp>

#include <vector>

#include "common/mx_scale_layout.h"

TEST_CASE("published examples of the cuBLASLt block-scale layout", "[mx]") {
  // nvmath-python docs, nvmath.linalg.advanced.helpers.matmul.get_block_scale_offset: an NVFP4 operand of
  // shape (M=128, K=128) with one scale per 16 elements (8 scale columns) puts the scale of block (row 5,
  // K-group 2) at offset 82 and that of (row 5, K-group 5) at 593. The docs note that MXFP8 differs only in
  // the block size (32 elements), so the same (row, scale column) grid maps identically.
  CHECK(gemm::mx_scale_offset(5, 2, 8) == 82);
  CHECK(gemm::mx_scale_offset(5, 5, 8) == 593);
  // The same operand in MXFP8 terms: K = 256 gives 8 scale columns; K-group 5 scales elements [160, 192).
  CHECK(gemm::mx_scale_cols(256) == 8);
  CHECK(gemm::mx_scale_offset(5, 160 / gemm::MX_BLOCK_K, gemm::mx_scale_cols(256)) == 593);
}

TEST_CASE("hand-computed offsets", "[mx]") {
  // 256 rows x 8 scale columns: 2 row blocks x 2 column blocks of 512 B, row-block-major.
  // (37, 6): tile (0, 1) at 512; inside: (37 % 32) * 16 + (37 / 32) * 4 + 6 % 4 = 80 + 4 + 2.
  CHECK(gemm::mx_scale_offset(37, 6, 8) == 512 + 86);
  // (200, 1): tile (1, 0) at 2 * 512; inside: (200 % 32) * 16 + ((200 % 128) / 32) * 4 + 1 = 128 + 8 + 1.
  CHECK(gemm::mx_scale_offset(200, 1, 8) == 1024 + 137);
  // (127, 3): the last byte of the first tile. (128, 0): the first byte of row block 1, which comes after
  // every K tile of row block 0.
  CHECK(gemm::mx_scale_offset(127, 3, 8) == 511);
  CHECK(gemm::mx_scale_offset(128, 0, 8) == 2 * 512);
  // Rows r, r + 32, r + 64, r + 96 share one 16-byte line.
  CHECK(gemm::mx_scale_offset(96 + 3, 2, 4) == 3 * 16 + 12 + 2);
}

TEST_CASE("padding: rows to 128, scale columns to 4", "[mx]") {
  CHECK(gemm::mx_padded_rows(1) == 128);
  CHECK(gemm::mx_padded_rows(128) == 128);
  CHECK(gemm::mx_padded_rows(129) == 256);
  CHECK(gemm::mx_scale_cols(32) == 1);
  CHECK(gemm::mx_scale_cols(33) == 2);
  CHECK(gemm::mx_padded_scale_cols(1) == 4);
  CHECK(gemm::mx_padded_scale_cols(5) == 8);
  CHECK(gemm::mx_padded_scale_cols(gemm::mx_scale_cols(4096)) == 128);
  CHECK(gemm::mx_scale_bytes(1, 1) == 512);              // one whole tile, even for one scale
  CHECK(gemm::mx_scale_bytes(4096, 128) == 4096 * 128);  // 4096 x 4096 operand: no padding
  CHECK(gemm::mx_scale_bytes(200, 5) == 256 * 8);
  static_assert(gemm::mx_scale_offset(5, 5, 8) == 593,
                "usable in constant expressions (kernels, static_assert)");
}

TEST_CASE("the layout maps the padded grid one to one onto the first padded-size bytes", "[mx]") {
  const int shapes[][2] = {{128, 4}, {256, 8}, {200, 5}, {1, 1}, {384, 12}, {512, 128}};
  for (const auto& shape : shapes) {
    const int rows = shape[0], cols = shape[1];
    const int prow = gemm::mx_padded_rows(rows), pcol = gemm::mx_padded_scale_cols(cols);
    const uint64_t bytes = gemm::mx_scale_bytes(rows, cols);
    INFO(rows << " x " << cols);
    REQUIRE(bytes == uint64_t(prow) * uint64_t(pcol));
    std::vector<int> hits(bytes, 0);
    for (int r = 0; r < prow; ++r)
      for (int j = 0; j < pcol; ++j) {
        const uint64_t offset = gemm::mx_scale_offset(r, j, cols);
        REQUIRE(offset < bytes);
        ++hits[offset];
        // Each 512-byte tile holds exactly its 128 x 4 block.
        REQUIRE(offset / gemm::MX_SF_TILE_BYTES == gemm::mx_scale_tile_offset(r / 128, j / 4, cols) / 512);
      }
    for (int h : hits) REQUIRE(h == 1);
  }
}
