// matmul_mxfp8_sm100.h: the Blackwell (sm_100a) MXFP8 kernel's entry points, in the style of the Hopper ones
// in mxfp8/matmul_mxfp8.h (MxGemmArgs, the check and prepare functions): its shape rule, its argument checks,
// its variants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/tma.h"
#include "mxfp8/matmul_mxfp8.h"

namespace gemm {

// The Blackwell kernel takes any M >= 1 and N >= 1 (TMA zero-fills the boxes past the edges, the epilogue
// stores only the valid part of an edge tile) and K a multiple of 32: one e8m0 scale per 32 elements of K,
// and a K tile of 128 whose last one may hold 1, 2 or 3 of its 4 MX blocks (the MMA thread issues only the
// K steps that exist; the A and B boxes past K are zero-filled, and the scale tile of the last K tile exists
// whole in the padded blocked layout). So the kernel's own K tile adds no rule beyond the MX block.
constexpr int MXFP8_SM100_K_MULTIPLE = 32;

// "" if the shape is one the Blackwell kernel takes; else one line naming the constraint and the nearest
// valid value. Every dimension >= 1 first, then K a multiple of 32, then the 32-bit index limits.
std::string mxfp8_sm100_check_shape(int64_t m, int64_t n, int64_t k);
// The shape, then null pointers, every buffer size against what the shape needs, and the alignments the
// tensor maps need (16 bytes).
std::string mxfp8_sm100_check_args(const MxGemmArgs& g);

// The 4D tensor map the kernel loads scales through, over a blocked scale tensor of `rows` rows and K/32
// scale columns: dims {16 B, 32 lines, K tiles, 128-row blocks}, strides {16, 512, 512 x K tiles} bytes, box
// {16, 32, 1, row_blocks_per_box}: whole 512-byte tiles of consecutive row blocks at one K tile.
TmaDesc mx_scale_tma_4d(int64_t rows, int64_t k, uint32_t row_blocks_per_box);

// The Blackwell variants (mxfp8/matmul_mxfp8.cu), one kernel with three tile orders: "mx" (the default,
// seed 001's rule: Hilbert when M, N and K are all >= 8192, static otherwise), "mx-static" and "mx-hilbert"
// (one order forced). `prepare` exits with a message if mxfp8_sm100_check_args(g) is not empty (callers check
// first; this is the last guard before a launch). Compiled and model-checked; not run on hardware here.
struct MxSm100Variant {
  const char* name;  // "mx"
  const char* what;  // one line for the table
  Launch (*prepare)(const MxGemmArgs&);
};
std::vector<MxSm100Variant> mxfp8_sm100_variants();
// The variant called `name`, or nullptr.
const MxSm100Variant* find_mxfp8_sm100_variant(const char* name);
const char* mxfp8_sm100_kernel_name();

// The same file compiled for sm_90a through the tcgen05 emulator (common/tcgen05_emu.h; CMakeLists.txt renames
// the functions above in that build): what `matmul_mxfp8 --emulate` and the emulated GPU test run on an H100.
std::vector<MxSm100Variant> mxfp8_sm100_emulated_variants();
const MxSm100Variant* find_mxfp8_sm100_emulated_variant(const char* name);
std::string mxfp8_sm100_emulated_check_args(const MxGemmArgs& g);

}  // namespace gemm
