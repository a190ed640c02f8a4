// Tensor-map parameters are validated on the host, before cuTensorMapEncodeTiled: each TMA rule, when broken,
// produces a message naming it. No driver is needed for any of this.
#include <catch2/catch.hpp>

#include "common/tma.h"

using namespace gemm;

namespace {
alignas(1024) unsigned char g_buffer[4096];
const void* aligned_ptr() { return g_buffer; }
const void* misaligned_ptr() { return g_buffer + 8; }
bool mentions(const std::string& msg, const char* what) { return msg.find(what) != std::string::npos; }
}  // namespace

TEST_CASE("the v1 tensor maps are valid") {
  // v1a: 2D boxes {8, rows}; v1b: 3D box {8, rows, 8}
  CHECK(validate_tma(kmajor_tma_2d(4096, 4096, 128, 8, 2, Swizzle::None), aligned_ptr()).empty());
  CHECK(validate_tma(kmajor_tma_2d(4096, 4096, 256, 8, 2, Swizzle::None), aligned_ptr()).empty());
  CHECK(validate_tma(kmajor_tma_3d(4096, 4096, 128, 64, 8, 2, Swizzle::None), aligned_ptr()).empty());
  CHECK(validate_tma(kmajor_tma_3d(768, 320, 256, 64, 8, 2, Swizzle::None), aligned_ptr()).empty());
}

TEST_CASE("the 128B-swizzled tensor maps are valid") {
  CHECK(validate_tma(kmajor_tma_2d(4096, 4096, 128, 64, 2, Swizzle::B128), aligned_ptr()).empty());
  CHECK(validate_tma(kmajor_tma_3d(4096, 4096, 256, 64, 64, 2, Swizzle::B128), aligned_ptr()).empty());
}

TEST_CASE("the 3D layout has the strides that put K slices side by side") {
  const TmaDesc d = kmajor_tma_3d(512, 1024, 128, 64, 8, 2, Swizzle::None);
  CHECK(d.rank == 3);
  CHECK(d.dims[0] == 8);
  CHECK(d.dims[1] == 512);
  CHECK(d.dims[2] == 1024 / 8);
  CHECK(d.strides[0] == 1024 * 2);  // next row: K bf16
  CHECK(d.strides[1] == 16);        // next slice: 16 B along K
  CHECK(d.box[0] == 8);
  CHECK(d.box[1] == 128);
  CHECK(d.box[2] == 8);
}

TEST_CASE("a row stride that is not a multiple of 16 bytes is refused") {
  // K = 1000 bf16 = 2000 B per row: fine (2000 = 125 * 16); K = 1001 is not
  CHECK(validate_tma(kmajor_tma_2d(128, 1000, 128, 8, 2, Swizzle::None), aligned_ptr()).empty());
  const std::string msg = validate_tma(kmajor_tma_2d(128, 1001, 128, 8, 2, Swizzle::None), aligned_ptr());
  CHECK(mentions(msg, "multiple of 16"));
  CHECK(mentions(msg, "2002"));
}

TEST_CASE("a box dimension above 256 or zero is refused") {
  const std::string big = validate_tma(kmajor_tma_2d(4096, 4096, 512, 8, 2, Swizzle::None), aligned_ptr());
  CHECK(mentions(big, "box dimension 1"));
  CHECK(mentions(big, "512"));
  TmaDesc zero = kmajor_tma_2d(4096, 4096, 128, 8, 2, Swizzle::None);
  zero.box[1]  = 0;
  CHECK(mentions(validate_tma(zero, aligned_ptr()), "box dimension 1"));
}

TEST_CASE("an inner box wider than the swizzle span is refused") {
  // 128 bf16 = 256 B > 128 B span
  const std::string msg = validate_tma(kmajor_tma_2d(4096, 4096, 128, 128, 2, Swizzle::B128), aligned_ptr());
  CHECK(mentions(msg, "256 B exceeds the 128 B swizzle span"));
  // 64 bf16 = 128 B > 64 B span
  CHECK(mentions(validate_tma(kmajor_tma_2d(4096, 4096, 128, 64, 2, Swizzle::B64), aligned_ptr()),
                 "swizzle span"));
  // exactly the span is fine
  CHECK(validate_tma(kmajor_tma_2d(4096, 4096, 128, 32, 2, Swizzle::B64), aligned_ptr()).empty());
}

TEST_CASE("an inner box that is not a multiple of 16 bytes is refused") {
  CHECK(mentions(validate_tma(kmajor_tma_2d(4096, 4096, 128, 4, 2, Swizzle::None), aligned_ptr()),
                 "inner box extent 8 B"));
}

TEST_CASE("a misaligned global address is refused") {
  CHECK(mentions(validate_tma(kmajor_tma_2d(128, 128, 128, 8, 2, Swizzle::None), misaligned_ptr()),
                 "16-byte aligned"));
}

TEST_CASE("dimension extents and rank are range-checked") {
  TmaDesc d = kmajor_tma_2d(128, 128, 128, 8, 2, Swizzle::None);
  d.dims[1] = 0;
  CHECK(mentions(validate_tma(d, aligned_ptr()), "dimension 1 extent 0"));
  d         = kmajor_tma_2d(128, 128, 128, 8, 2, Swizzle::None);
  d.dims[0] = (uint64_t(1) << 32) + 1;
  CHECK(mentions(validate_tma(d, aligned_ptr()), "dimension 0 extent"));
  d.rank = 6;
  CHECK(mentions(validate_tma(d, aligned_ptr()), "rank 6"));
  d            = kmajor_tma_2d(128, 128, 128, 8, 2, Swizzle::None);
  d.elem_bytes = 3;
  CHECK(mentions(validate_tma(d, aligned_ptr()), "element size 3"));
}

TEST_CASE("a 4D tensor map is accepted when valid (room for later stages)") {
  TmaDesc d;
  d.rank       = 4;
  d.dims[0]    = 8;
  d.dims[1]    = 256;
  d.dims[2]    = 64;
  d.dims[3]    = 4;
  d.strides[0] = 1024;
  d.strides[1] = 16;
  d.strides[2] = 256 * 1024;
  d.box[0]     = 8;
  d.box[1]     = 128;
  d.box[2]     = 8;
  d.box[3]     = 1;
  CHECK(validate_tma(d, aligned_ptr()).empty());
  d.strides[2] = 8;
  CHECK(mentions(validate_tma(d, aligned_ptr()), "global stride 3"));
}
