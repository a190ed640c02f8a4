// test_cutlass_crosscheck.cpp: a second oracle for the encodings the kernels hand to the tensor cores (issue
// 8).
//
// The layout model (tests/layout_model.*) and the builders in common/ were written from the same reading of
// the PTX ISA, so a misreading shared by both passes both. CUTLASS/CuTe builds the same encodings with its
// own code, which runs on B200s every day. This test builds each encoding the way CuTe does, with CuTe's
// functions from the pinned nvidia-cutlass wheel (headers only, host code, compiled by g++), and compares it
// with ours bit for bit:
//  - shared-memory descriptors, for every row of tests/stage_configs.h: CuTe's canonical K-major layout atom
//    (the no-swizzle "interleaved" atom or the 128B-swizzle atom, UMMA:: for sm_100a, GMMA:: for sm_90a)
//    tiled to the row's tile, cut into the operand of each MMA instruction (each K step, each M sub-tile),
//    and turned into a descriptor by UMMA::make_umma_desc / GMMA::make_gmma_desc (through
//    make_tensor<smem_desc>, as the CUTLASS collectives do). Every field and all 64 bits against
//    kmajor_desc_sm100 / kmajor_desc_sm90; and every element's byte offset in CuTe's layout against the
//    address the layout model reads through ours;
//  - instruction descriptors: UMMA::make_instr_desc for kind::f16 BF16 x BF16 -> F32 at every M and N the
//    instruction allows (the stages' shapes of SM100_MMA_SHAPES and M = 256 of the 2-CTA stage included), and
//    UMMA::make_instr_desc_block_scaled / make_runtime_instr_desc_block_scaled for kind::mxf8f6f4 with UE8M0
//    scales and every scale-factor id;
//  - the MXFP8 scale-factor layout of common/mx_scale_layout.h against CUTLASS's Sm1xxBlockScaledConfig;
//  - the tcgen05.cp scale-source descriptor of mxfp8/matmul_mxfp8.cu (mx_sf_cp_desc_sm100) against
//    UMMA::make_umma_desc of CUTLASS's SF layout viewed as the copy's 32 x 16 B source (the steps of
//    get_utccp_smem_desc_tensor): SBO 128 agrees; LBO differs (CuTe 16 B, ours 0) in a field the layout model
//    shows is never read;
//  - TMEM: the accumulator address layout (tmem_frg_1sm) against gemm::tmem_addr and the layout model, and
//  the
//    tcgen05.ld 32x32b.x8 fragment (Copy_Traits<SM100_TMEM_LOAD_32dp32b8x>) against the layout model;
//  - the 32B and 64B swizzles (stage_configs.h SWIZZLE_TILES) as the stage rows, and the LayoutType codes;
//  - the CTA pair, the block-scaled MMA's scales in TMEM and tcgen05.cp.cta_group::2 (at the end)
//    against CuTe's MMA and copy traits and TMEM fragments, through the layout model.
//
// On the host CuTe cannot turn a shared-memory pointer into an address: cast_smem_ptr_to_uint prints
// "ERROR: cast_smem_ptr_to_uint not supported but used." and returns 0. So CuTe's descriptors start at a zero
// base, and the start-address field compares as an offset from the tile: CuTe's K-step and sub-tile advance
// (DescriptorIterator + the layout offset, in 16-byte units) against ours built at address 0, and ours at the
// table's tile address must be CuTe's plus that address / 16. The printed line is silenced (QuietStdout).
//
// What this cannot see: anything CuTe and we could both get wrong the same way (CuTe is far more widely run,
// but not proof), the TMA side (CuTe's layout is compared with where the model says the MMA reads, the round
// trip in test_layout_model ties that to TMA), timing, ordering and the hardware itself.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cute/tensor.hpp>
#include <cute/atom/copy_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/detail/sm100_blockscaled_layout.hpp>
#include <cutlass/detail/sm100_tmem_helper.hpp>

#include "common/descriptors.cuh"
#include "common/mx_scale_layout.h"
#include "layout_model.h"
#include "stage_configs.h"

namespace lm = layout_model;
namespace sc = stage_configs;

namespace {

constexpr int MMA_K_BYTES = 32;  // one MMA K step: k16 of bf16, k32 of fp8

// Silences CuTe's host-side "cast_smem_ptr_to_uint not supported" line while a descriptor is built.
class QuietStdout {
 public:
  QuietStdout() {
    std::fflush(stdout);
    saved_         = dup(1);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1), close(null);
  }
  ~QuietStdout() {
    std::fflush(stdout);
    if (saved_ >= 0) dup2(saved_, 1), close(saved_);
  }
  QuietStdout(const QuietStdout&)            = delete;
  QuietStdout& operator=(const QuietStdout&) = delete;

 private:
  int saved_;
};

std::string describe(const sc::StageConfig& c) {
  std::ostringstream s;
  s << c.stage << (c.arch == sc::Arch::SM100 ? " sm100 " : " sm90 ")
    << (c.operand == sc::Operand::A ? "A " : "B ") << c.rows << "x" << c.block_k << " swizzle "
    << uint32_t(c.swizzle) << " at " << c.tile_addr;
  return s.str();
}

// ----------------------------------------------------------------------------------------------------------
// CuTe's side of a table row, built at compile time from the row's constants
// ----------------------------------------------------------------------------------------------------------
template <int ELEM_BYTES>
using CuteElem = std::conditional_t<ELEM_BYTES == 2, cute::bfloat16_t, cute::float_e4m3_t>;

// CuTe's canonical K-major layout atoms; UMMA:: re-exports the GMMA:: ones (cute/atom/mma_traits_sm100.hpp).
template <class T, gemm::Swizzle S>
auto kmajor_atom() {
  if constexpr (S == gemm::Swizzle::None)
    return cute::UMMA::Layout_K_INTER_Atom<T>{};
  else if constexpr (S == gemm::Swizzle::B32)
    return cute::UMMA::Layout_K_SW32_Atom<T>{};
  else if constexpr (S == gemm::Swizzle::B64)
    return cute::UMMA::Layout_K_SW64_Atom<T>{};
  else
    return cute::UMMA::Layout_K_SW128_Atom<T>{};
}

template <class P>
struct IsSwizzlePtr : std::false_type {};
template <class S, class P>
struct IsSwizzlePtr<cute::swizzle_ptr<S, P>> : std::true_type {};

// The shared-memory byte address CuTe's pointer `p` designates (its swizzle applied), from a zero base.
template <class P>
uint32_t byte_address(P p) {
  if constexpr (IsSwizzlePtr<P>::value)
    return uint32_t(reinterpret_cast<uintptr_t>(cute::raw_pointer_cast(P::apply_swizzle(p.get()))));
  else
    return uint32_t(reinterpret_cast<uintptr_t>(cute::raw_pointer_cast(p)));
}

struct CuteTile {
  // desc[sub * k_steps + k]: the descriptor of MMA K step k of M sub-tile `sub`, from a zero base
  std::vector<uint64_t> desc;
  // byte[r * block_k + k]: byte offset of element (r, k) from the tile's start, CuTe's swizzle applied
  std::vector<uint32_t> byte;
  int subtiles = 0, k_steps = 0;
};

// TABLE: sc::STAGE_CONFIGS or sc::SWIZZLE_TILES.
template <const auto& TABLE, size_t I>
CuteTile cute_tile() {
  using namespace cute;
  constexpr sc::StageConfig c = TABLE[I];
  using T                     = CuteElem<c.elem_bytes>;
  constexpr int K_ELEMS       = MMA_K_BYTES / c.elem_bytes;
  constexpr int SUBTILES      = c.rows / c.mma_rows;
  constexpr int K_STEPS       = c.block_k / K_ELEMS;
  static_assert(c.rows % c.mma_rows == 0 && c.block_k % K_ELEMS == 0, "whole MMA operands per tile");
  const auto atom = kmajor_atom<T, c.swizzle>();
  T* const base   = nullptr;  // the zero base: offsets are what CuTe can give on the host

  CuteTile out;
  out.subtiles = SUBTILES;
  out.k_steps  = K_STEPS;
  if constexpr (c.arch == sc::Arch::SM100) {
    // As the sm100 collectives do: the atom tiled to ((MMA_M, MMA_K), M sub-tiles, K steps), then a tensor of
    // UMMA descriptors: make_umma_desc of the first MMA's operand, advanced by the layout for the others.
    const auto layout = UMMA::tile_to_mma_shape(
        atom, make_shape(make_shape(Int<c.mma_rows>{}, Int<K_ELEMS>{}), Int<SUBTILES>{}, Int<K_STEPS>{}));
    const Tensor smem = make_tensor(make_smem_ptr(base), layout);
    const auto descs  = [&] {
      QuietStdout quiet;
      return make_tensor<UMMA::smem_desc<UMMA::Major::K>>(smem);
    }();
    for (int s = 0; s < SUBTILES; ++s)
      for (int k = 0; k < K_STEPS; ++k) out.desc.push_back(uint64_t(descs(0, s, k)));
  } else {
    // As the sm90 collectives do: the atom tiled to the tile, each warpgroup's wgmma operand (m64 x k16) a
    // piece of it, then a tensor of GMMA descriptors over the pieces.
    const auto layout = tile_to_shape(atom, make_shape(Int<c.rows>{}, Int<c.block_k>{}));
    const Tensor smem = make_tensor(make_smem_ptr(base), layout);
    const Tensor mmas = zipped_divide(smem, make_shape(Int<c.mma_rows>{}, Int<K_ELEMS>{}));  // ((m,k),(M,K))
    const auto descs  = [&] {
      QuietStdout quiet;
      return make_tensor<GMMA::smem_desc<GMMA::Major::K>>(mmas);
    }();
    for (int s = 0; s < SUBTILES; ++s)
      for (int k = 0; k < K_STEPS; ++k) out.desc.push_back(uint64_t(descs(0, make_coord(s, k))));
  }

  // Element (r, k) of the whole tile in CuTe's layout. The swizzle lives in the pointer: a swizzle_ptr
  // applies it to the address when dereferenced, so apply it the same way to the element's address from the
  // zero base.
  const Tensor tile =
      make_tensor(make_smem_ptr(base), tile_to_shape(atom, make_shape(Int<c.rows>{}, Int<c.block_k>{})));
  for (int r = 0; r < c.rows; ++r)
    for (int k = 0; k < c.block_k; ++k) out.byte.push_back(byte_address(tile.data() + tile.layout()(r, k)));
  return out;
}

// ----------------------------------------------------------------------------------------------------------
// Our side, and the comparison
// ----------------------------------------------------------------------------------------------------------
uint64_t our_desc(const sc::StageConfig& c, uint32_t tile_addr, int k_step, int row) {
  const gemm::KMajorTile tile{c.rows, c.block_k, c.elem_bytes, c.swizzle};
  return c.arch == sc::Arch::SM100 ? gemm::kmajor_desc_sm100(tile, tile_addr, k_step, row)
                                   : gemm::kmajor_desc_sm90(tile, tile_addr, k_step, row);
}

// Every field, named, through CuTe's own bit-field unions (so the bit positions are CuTe's too).
void compare_fields(const sc::StageConfig& c, uint64_t cute_desc, uint64_t ours, uint32_t start_delta) {
  if (c.arch == sc::Arch::SM100) {
    cute::UMMA::SmemDescriptor theirs, mine;
    theirs.desc_ = cute_desc;
    mine.desc_   = ours;
    CHECK(uint32_t(mine.start_address_) == uint32_t(theirs.start_address_) + start_delta);
    CHECK(mine.leading_byte_offset_ == theirs.leading_byte_offset_);  // LBO >> 4
    CHECK(mine.stride_byte_offset_ == theirs.stride_byte_offset_);    // SBO >> 4
    CHECK(mine.version_ == theirs.version_);                          // bits 46-47: the fixed 0b01 (CuTe: 1)
    CHECK(mine.base_offset_ == theirs.base_offset_);
    CHECK(mine.lbo_mode_ == theirs.lbo_mode_);
    CHECK(mine.layout_type_ == theirs.layout_type_);  // swizzle code, bits 61-63
  } else {
    cute::GmmaDescriptor theirs(cute_desc), mine(ours);
    CHECK(uint32_t(mine.bitfield.start_address_) == uint32_t(theirs.bitfield.start_address_) + start_delta);
    CHECK(mine.bitfield.leading_byte_offset_ == theirs.bitfield.leading_byte_offset_);
    CHECK(mine.bitfield.stride_byte_offset_ == theirs.bitfield.stride_byte_offset_);
    CHECK(mine.bitfield.base_offset_ == theirs.bitfield.base_offset_);
    CHECK(mine.bitfield.layout_type_ == theirs.bitfield.layout_type_);  // swizzle code, bits 62-63
  }
}

// Returns the number of descriptor comparisons made.
int check_row(const sc::StageConfig& c, const CuteTile& cute_side) {
  INFO(describe(c));
  REQUIRE(cute_side.desc.size() == size_t(cute_side.subtiles) * cute_side.k_steps);
  // CuTe's first descriptor starts at the zero base: its host cast returned 0, as the header comment says.
  CHECK((cute_side.desc[0] & 0x3FFF) == 0);
  const int k_elems = MMA_K_BYTES / c.elem_bytes;
  int compared      = 0;
  std::vector<uint32_t> addr;
  for (int s = 0; s < cute_side.subtiles; ++s) {
    for (int k = 0; k < cute_side.k_steps; ++k) {
      INFO("M sub-tile " << s << " (row " << s * c.mma_rows << "), K step " << k);
      const uint64_t theirs = cute_side.desc[size_t(s) * cute_side.k_steps + k];
      // From the zero base: all 64 bits, and field by field for a readable failure.
      const uint64_t ours0 = our_desc(c, 0, k, s * c.mma_rows);
      CHECK(ours0 == theirs);
      compare_fields(c, theirs, ours0, 0);
      // At the table's tile address: CuTe's descriptor with the address added to its start field.
      compare_fields(c, theirs, our_desc(c, c.tile_addr, k, s * c.mma_rows), c.tile_addr >> 4);
      ++compared;

      // Which bytes that MMA reads: the layout model's reading of our descriptor against CuTe's layout.
      const lm::MmaEncoding enc =
          c.arch == sc::Arch::SM100 ? lm::MmaEncoding::TCGEN05_SM100 : lm::MmaEncoding::WGMMA_SM90;
      const std::string error = lm::mma_kmajor_read(our_desc(c, c.tile_addr, k, s * c.mma_rows), enc,
                                                    c.mma_rows, MMA_K_BYTES, c.elem_bytes, addr);
      INFO("layout model: " << error);
      REQUIRE(error.empty());
      long wrong = 0;
      for (int r = 0; r < c.mma_rows; ++r)
        for (int e = 0; e < k_elems; ++e) {
          const int row = s * c.mma_rows + r, col = k * k_elems + e;
          wrong +=
              addr[size_t(r) * k_elems + e] != c.tile_addr + cute_side.byte[size_t(row) * c.block_k + col];
        }
      CHECK(wrong == 0);
    }
  }
  return compared;
}

template <const auto& TABLE, size_t... I>
std::vector<int> check_all_rows(std::index_sequence<I...>) {
  return {check_row(TABLE[I], cute_tile<TABLE, I>())...};
}

}  // namespace

// ==========================================================================================================
// Shared-memory descriptors: every row of the stage table
// ==========================================================================================================
TEST_CASE("every stage tile: our descriptors are CuTe's, bit for bit, for every K step and sub-tile",
          "[cutlass][desc]") {
  constexpr size_t ROWS           = sizeof(sc::STAGE_CONFIGS) / sizeof(sc::STAGE_CONFIGS[0]);
  const std::vector<int> compared = check_all_rows<sc::STAGE_CONFIGS>(std::make_index_sequence<ROWS>{});
  REQUIRE(compared.size() == ROWS);
  for (size_t i = 0; i < ROWS; ++i) {
    INFO(describe(sc::STAGE_CONFIGS[i]));
    const sc::StageConfig& c = sc::STAGE_CONFIGS[i];
    CHECK(compared[i] == (c.rows / c.mma_rows) * (c.block_k * c.elem_bytes / MMA_K_BYTES));
  }
}

// ==========================================================================================================
// Shared-memory descriptors: the 32B and 64B swizzles (tests/stage_configs.h SWIZZLE_TILES, no stage uses them)
// ==========================================================================================================
// CuTe names the tcgen05 swizzle codes in UMMA::LayoutType (cute/arch/mma_sm100_desc.hpp); ours are
// gemm::sm100_swizzle_code, the layout model's are its decoder's. The wgmma codes (GMMA::LayoutType) too.
static_assert(uint8_t(cute::UMMA::LayoutType::SWIZZLE_NONE) == gemm::sm100_swizzle_code(gemm::Swizzle::None));
static_assert(uint8_t(cute::UMMA::LayoutType::SWIZZLE_32B) == 6 &&
              gemm::sm100_swizzle_code(gemm::Swizzle::B32) == 6);
static_assert(uint8_t(cute::UMMA::LayoutType::SWIZZLE_64B) == 4 &&
              gemm::sm100_swizzle_code(gemm::Swizzle::B64) == 4);
static_assert(uint8_t(cute::UMMA::LayoutType::SWIZZLE_128B) == 2 &&
              gemm::sm100_swizzle_code(gemm::Swizzle::B128) == 2);
static_assert(uint8_t(cute::GMMA::LayoutType::B32) == gemm::sm90_swizzle_code(gemm::Swizzle::B32) &&
              uint8_t(cute::GMMA::LayoutType::B64) == gemm::sm90_swizzle_code(gemm::Swizzle::B64) &&
              uint8_t(cute::GMMA::LayoutType::B128) == gemm::sm90_swizzle_code(gemm::Swizzle::B128));

TEST_CASE("32B and 64B swizzle tiles: our descriptors are CuTe's (layout types 6 and 4), every K step",
          "[cutlass][desc][swizzle]") {
  constexpr size_t ROWS           = sizeof(sc::SWIZZLE_TILES) / sizeof(sc::SWIZZLE_TILES[0]);
  const std::vector<int> compared = check_all_rows<sc::SWIZZLE_TILES>(std::make_index_sequence<ROWS>{});
  REQUIRE(compared.size() == ROWS);
  for (size_t i = 0; i < ROWS; ++i) {
    const sc::StageConfig& c = sc::SWIZZLE_TILES[i];
    INFO(describe(c));
    CHECK(compared[i] == (c.rows / c.mma_rows) * (c.block_k * c.elem_bytes / MMA_K_BYTES));
  }
  // CuTe's own descriptor of each mode's atom carries the code, and the layout model decodes it as that mode.
  const auto cute_code = [](auto atom) {
    using namespace cute;
    const Tensor t = make_tensor(make_smem_ptr(static_cast<bfloat16_t*>(nullptr)),
                                 tile_to_shape(atom, make_shape(Int<128>{}, size<1>(atom))));
    QuietStdout quiet;
    return uint64_t(UMMA::make_umma_desc<UMMA::Major::K>(t));
  };
  const uint64_t d32 = cute_code(cute::UMMA::Layout_K_SW32_Atom<cute::bfloat16_t>{});
  const uint64_t d64 = cute_code(cute::UMMA::Layout_K_SW64_Atom<cute::bfloat16_t>{});
  CHECK((d32 >> 61) == 6);
  CHECK((d64 >> 61) == 4);
  CHECK(((d32 >> 32) & 0x3FFF) == 256 / 16);  // SBO: the next 8 rows, 8 x 32 B
  CHECK(((d64 >> 32) & 0x3FFF) == 512 / 16);  // 8 x 64 B
  lm::SmemDescriptor d;
  REQUIRE(lm::decode_smem_descriptor(d32, lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK(d.swizzle == lm::SwizzleMode::B32);
  REQUIRE(lm::decode_smem_descriptor(d64, lm::MmaEncoding::TCGEN05_SM100, d).empty());
  CHECK(d.swizzle == lm::SwizzleMode::B64);
}

TEST_CASE("the cross-check can fail: a 32B or 64B tile's descriptor with the other code or SBO is not CuTe's",
          "[cutlass][desc][swizzle][negative]") {
  const CuteTile sw32 = cute_tile<sc::SWIZZLE_TILES, 0>();
  const CuteTile sw64 = cute_tile<sc::SWIZZLE_TILES, 4>();
  const sc::StageConfig &c32 = sc::SWIZZLE_TILES[0], &c64 = sc::SWIZZLE_TILES[4];
  REQUIRE((c32.swizzle == gemm::Swizzle::B32 && c64.swizzle == gemm::Swizzle::B64));
  const gemm::KMajorTile t32{c32.rows, c32.block_k, c32.elem_bytes, c32.swizzle};
  const gemm::KMajorTile t64{c64.rows, c64.block_k, c64.elem_bytes, c64.swizzle};
  for (int k = 0; k < 4; ++k) {
    INFO("K step " << k);
    const uint32_t s32 = gemm::kmajor_kstep_offset(t32, k), s64 = gemm::kmajor_kstep_offset(t64, k);
    REQUIRE(gemm::make_smem_desc_sm100(s32, 16, 256, gemm::Swizzle::B32) == sw32.desc[size_t(k)]);
    REQUIRE(gemm::make_smem_desc_sm100(s64, 16, 512, gemm::Swizzle::B64) == sw64.desc[size_t(k)]);
    CHECK(gemm::make_smem_desc_sm100(s32, 16, 256, gemm::Swizzle::B64) != sw32.desc[size_t(k)]);
    CHECK(gemm::make_smem_desc_sm100(s64, 16, 512, gemm::Swizzle::B32) != sw64.desc[size_t(k)]);
    CHECK(gemm::make_smem_desc_sm100(s32, 16, 512, gemm::Swizzle::B32) != sw32.desc[size_t(k)]);
    CHECK(gemm::make_smem_desc_sm100(s64, 16, 1024, gemm::Swizzle::B64) != sw64.desc[size_t(k)]);
    // K steps as in a 128B tile (+32 B along one row): CuTe's 32B layout moves a whole slice per step.
    if (k > 0)
      CHECK(gemm::make_smem_desc_sm100(32u * uint32_t(k), 16, 256, gemm::Swizzle::B32) != sw32.desc[size_t(k)]);
  }
  // And CuTe's byte layout is not the model's reading of the tile with the other swizzle.
  std::vector<uint32_t> addr;
  REQUIRE(lm::mma_kmajor_read(gemm::make_smem_desc_sm100(c32.tile_addr, 16, 256, gemm::Swizzle::B64),
                              lm::MmaEncoding::TCGEN05_SM100, 128, MMA_K_BYTES, 2, addr)
              .empty());
  long differ = 0;
  for (int r = 0; r < 128; ++r)
    for (int e = 0; e < 16; ++e) differ += addr[size_t(r) * 16 + e] != c32.tile_addr + sw32.byte[size_t(r) * 64 + e];
  CHECK(differ > 0);
}

TEST_CASE("the cross-check can fail: a descriptor with swapped LBO/SBO or another swizzle is not CuTe's",
          "[cutlass][desc][negative]") {
  // The v1 sm100 A tile (no swizzle) and the v2 sm90 B tile (128B swizzle), K step 1, against CuTe's.
  const sc::StageConfig& v1 = sc::STAGE_CONFIGS[0];
  REQUIRE((v1.arch == sc::Arch::SM100 && v1.swizzle == gemm::Swizzle::None));
  const CuteTile cute_v1 = cute_tile<sc::STAGE_CONFIGS, 0>();
  const gemm::KMajorTile t1{v1.rows, v1.block_k, v1.elem_bytes, v1.swizzle};
  const uint32_t start = gemm::kmajor_kstep_offset(t1, 1);
  REQUIRE(gemm::make_smem_desc_sm100(start, gemm::kmajor_lbo(t1), gemm::kmajor_sbo(t1), t1.swizzle) ==
          cute_v1.desc[1]);
  CHECK(gemm::make_smem_desc_sm100(start, gemm::kmajor_sbo(t1), gemm::kmajor_lbo(t1), t1.swizzle) !=
        cute_v1.desc[1]);
  CHECK(gemm::make_smem_desc_sm100(start, gemm::kmajor_lbo(t1), gemm::kmajor_sbo(t1), gemm::Swizzle::B128) !=
        cute_v1.desc[1]);
  CHECK(gemm::make_smem_desc_sm100(start + 32, gemm::kmajor_lbo(t1), gemm::kmajor_sbo(t1), t1.swizzle) !=
        cute_v1.desc[1]);
}

// ==========================================================================================================
// Instruction descriptors
// ==========================================================================================================
namespace {

void compare_idesc_fields(uint32_t theirs_bits, uint32_t ours_bits) {
  cute::UMMA::InstrDescriptor theirs, mine;
  theirs.desc_ = theirs_bits;
  mine.desc_   = ours_bits;
  CHECK(mine.sparse_id2_ == theirs.sparse_id2_);
  CHECK(mine.sparse_flag_ == theirs.sparse_flag_);
  CHECK(mine.saturate_ == theirs.saturate_);
  CHECK(mine.c_format_ == theirs.c_format_);
  CHECK(mine.a_format_ == theirs.a_format_);
  CHECK(mine.b_format_ == theirs.b_format_);
  CHECK(mine.a_negate_ == theirs.a_negate_);
  CHECK(mine.b_negate_ == theirs.b_negate_);
  CHECK(mine.a_major_ == theirs.a_major_);
  CHECK(mine.b_major_ == theirs.b_major_);
  CHECK(mine.n_dim_ == theirs.n_dim_);
  CHECK(mine.m_dim_ == theirs.m_dim_);
  CHECK(mine.max_shift_ == theirs.max_shift_);
  CHECK(ours_bits == theirs_bits);
}

template <int M, int N>
void check_f16_idesc() {
  using bf16           = cute::bfloat16_t;
  const uint32_t cute_ = uint32_t(
      cute::UMMA::make_instr_desc<bf16, bf16, float, M, N, cute::UMMA::Major::K, cute::UMMA::Major::K>());
  const uint32_t ours =
      gemm::make_idesc_f16(gemm::F16Kind::BF16, gemm::F16Kind::BF16, gemm::AccKind::F32, M, N);
  INFO("kind::f16 BF16 x BF16 -> F32, M " << M << " N " << N);
  compare_idesc_fields(cute_, ours);
}

template <int M, int... NS>
void check_f16_idesc_ns(std::integer_sequence<int, NS...>) {
  (check_f16_idesc<M, 8 * (NS + 1)>(), ...);
}

// The block-scaled descriptor as the CUTLASS collectives issue it: make_instr_desc_block_scaled, then the
// scale-factor ids taken from the top two bits of the scale TMEM addresses (the byte of the 32-bit column).
template <class TA, int M, int N>
void check_mx_idesc(gemm::MxKind a_kind) {
  using e4m3      = cute::float_e4m3_t;
  const auto desc = cute::UMMA::make_instr_desc_block_scaled<TA, e4m3, float, cute::float_ue8m0_t, M, N,
                                                             cute::UMMA::Major::K, cute::UMMA::Major::K>();
  for (uint32_t sfa = 0; sfa < 4; ++sfa)
    for (uint32_t sfb = 0; sfb < 4; ++sfb) {
      const uint32_t cute_ =
          uint32_t(cute::UMMA::make_runtime_instr_desc_block_scaled(desc, sfa << 30, sfb << 30) >> 32);
      const uint32_t ours = gemm::make_idesc_mxf8f6f4(a_kind, gemm::MxKind::E4M3, M, N, sfa, sfb);
      INFO("kind::mxf8f6f4 M " << M << " N " << N << " A format " << uint32_t(a_kind) << " SFA id " << sfa
                               << " SFB id " << sfb);
      cute::UMMA::InstrDescriptorBlockScaled theirs, mine;
      theirs.desc_ = cute_;
      mine.desc_   = ours;
      CHECK(mine.b_sf_id_ == theirs.b_sf_id_);
      CHECK(mine.a_sf_id_ == theirs.a_sf_id_);
      CHECK(mine.a_format_ == theirs.a_format_);
      CHECK(mine.b_format_ == theirs.b_format_);
      CHECK(mine.a_major_ == theirs.a_major_);
      CHECK(mine.b_major_ == theirs.b_major_);
      CHECK(mine.n_dim_ == theirs.n_dim_);
      CHECK(mine.scale_format_ == theirs.scale_format_);  // UE8M0 = 1
      CHECK(mine.m_dim_ == theirs.m_dim_);
      CHECK(mine.k_size_ == theirs.k_size_);
      CHECK(ours == cute_);
    }
}

template <int M, int... NS>
void check_mx_idesc_ns(std::integer_sequence<int, NS...>) {
  (check_mx_idesc<cute::float_e4m3_t, M, 16 * (NS + 1)>(gemm::MxKind::E4M3), ...);
}

// The shapes the stages issue (tests/stage_configs.h): CuTe's MMA atom for that shape must compile (its
// static_asserts hold the ISA's shape rules), the layout model must accept it, and the descriptors must
// agree.
template <size_t I>
void check_stage_shape() {
  constexpr sc::MmaShape s = sc::SM100_MMA_SHAPES[I];
  using bf16               = cute::bfloat16_t;
  constexpr auto K         = cute::UMMA::Major::K;
  if constexpr (s.cta_group == 1)
    static_assert(sizeof(cute::SM100_MMA_F16BF16_SS<bf16, bf16, float, s.m, s.n, K, K>) > 0);
  else
    static_assert(sizeof(cute::SM100_MMA_F16BF16_2x1SM_SS<bf16, bf16, float, s.m, s.n, K, K>) > 0);
  INFO("stages " << s.stages << ": cta_group::" << s.cta_group << " M " << s.m << " N " << s.n);
  check_f16_idesc<s.m, s.n>();
  lm::InstrDescriptor d;
  const uint32_t ours =
      gemm::make_idesc_f16(gemm::F16Kind::BF16, gemm::F16Kind::BF16, gemm::AccKind::F32, s.m, s.n);
  const std::string error = lm::decode_instr_descriptor(ours, lm::MmaKind::F16, s.cta_group, d);
  INFO("layout model: " << error);
  CHECK(error.empty());
}

template <size_t... I>
void check_stage_shapes(std::index_sequence<I...>) {
  (check_stage_shape<I>(), ...);
}

}  // namespace

TEST_CASE("kind::f16 instruction descriptors: ours are CuTe's make_instr_desc at every M and N",
          "[cutlass][idesc]") {
  constexpr size_t SHAPES = sizeof(sc::SM100_MMA_SHAPES) / sizeof(sc::SM100_MMA_SHAPES[0]);
  check_stage_shapes(std::make_index_sequence<SHAPES>{});
  // Every N the encoding can hold (8..256 in steps of 8) at M = 64, 128 and 256 (the 2-CTA stage's M).
  check_f16_idesc_ns<64>(std::make_integer_sequence<int, 32>{});
  check_f16_idesc_ns<128>(std::make_integer_sequence<int, 32>{});
  check_f16_idesc_ns<256>(std::make_integer_sequence<int, 32>{});
}

TEST_CASE("kind::mxf8f6f4 block-scaled instruction descriptors: ours are CuTe's for every SF id",
          "[cutlass][idesc]") {
  check_mx_idesc_ns<128>(std::make_integer_sequence<int, 16>{});
  check_mx_idesc_ns<256>(std::make_integer_sequence<int, 16>{});
  check_mx_idesc<cute::float_e5m2_t, 128, 256>(gemm::MxKind::E5M2);  // another A format
}

TEST_CASE("the cross-check can fail: an instruction descriptor with N off by 8 is not CuTe's",
          "[cutlass][idesc][negative]") {
  using bf16           = cute::bfloat16_t;
  const uint32_t cute_ = uint32_t(
      cute::UMMA::make_instr_desc<bf16, bf16, float, 128, 128, cute::UMMA::Major::K, cute::UMMA::Major::K>());
  CHECK(gemm::make_idesc_f16(gemm::F16Kind::BF16, gemm::F16Kind::BF16, gemm::AccKind::F32, 128, 128) ==
        cute_);
  CHECK(gemm::make_idesc_f16(gemm::F16Kind::BF16, gemm::F16Kind::BF16, gemm::AccKind::F32, 128, 136) !=
        cute_);
  CHECK(gemm::make_idesc_f16(gemm::F16Kind::F16, gemm::F16Kind::F16, gemm::AccKind::F32, 128, 128) != cute_);
}

// ==========================================================================================================
// MXFP8 scale-factor layout
// ==========================================================================================================
TEST_CASE("MX scale-factor layout: common/mx_scale_layout.h is CUTLASS's Sm1xx block-scaled SF layout",
          "[cutlass][mx]") {
  using Config = cutlass::detail::Sm1xxBlockScaledConfig<gemm::MX_BLOCK_K>;
  // (rows, K): whole tiles, rows and scale columns that need padding, a single row, a long K.
  const int shapes[][2] = {{128, 128}, {256, 512}, {200, 96}, {129, 160}, {1, 32}, {384, 4096}, {130, 100}};
  for (const auto& shape : shapes) {
    const int rows = shape[0], k = shape[1];
    INFO("rows " << rows << ", K " << k);
    // CUTLASS's layouts of SFA (M x K) and SFB (N x K): the same function of (row, K element, batch 0).
    const auto sfa = Config::tile_atom_to_shape_SFA(cute::make_shape(rows, 1, k, 1));
    const auto sfb = Config::tile_atom_to_shape_SFB(cute::make_shape(1, rows, k, 1));
    const int cols = gemm::mx_scale_cols(k);
    CHECK(uint64_t(cute::cosize(sfa)) == gemm::mx_scale_bytes(rows, cols));  // the padded allocation
    long wrong = 0, checked = 0;
    for (int r = 0; r < rows; ++r)
      for (int kk = 0; kk < k; ++kk) {  // every K element: its block's scale
        const uint64_t ours = gemm::mx_scale_offset(r, kk / gemm::MX_BLOCK_K, cols);
        wrong += uint64_t(sfa(r, kk, 0)) != ours;
        wrong += uint64_t(sfb(r, kk, 0)) != ours;
        ++checked;
      }
    CHECK(checked == long(rows) * k);
    CHECK(wrong == 0);
  }
}

TEST_CASE("the cross-check can fail: a scale offset with the 32-row lines and 4-byte groups swapped differs",
          "[cutlass][mx][negative]") {
  using Config   = cutlass::detail::Sm1xxBlockScaledConfig<gemm::MX_BLOCK_K>;
  const auto sfa = Config::tile_atom_to_shape_SFA(cute::make_shape(256, 1, 256, 1));
  long differ    = 0;
  for (int r = 0; r < 256; ++r)
    for (int j = 0; j < 8; ++j) {
      // (r % 32) * 4 + ((r % 128) / 32) * 16 instead of (r % 32) * 16 + ((r % 128) / 32) * 4
      const uint64_t wrong = gemm::mx_scale_tile_offset(r / 128, j / 4, 8) +
                             uint64_t((r % 32) * 4 + ((r % 128) / 32) * 16 + j % 4);
      differ += uint64_t(sfa(r, 32 * j, 0)) != wrong;
    }
  CHECK(differ > 0);
}

// ==========================================================================================================
// The scale-factor source descriptor of tcgen05.cp (mxfp8/matmul_mxfp8.cu): LBO 0, SBO 128
// ==========================================================================================================
// CUTLASS's block-scaled collective (sm100_blockscaled_mma_warpspecialized.hpp) builds the descriptor of each
// SM100_UTCCP_4x32dp128bit copy with get_utccp_smem_desc_tensor (cute/atom/mma_traits_sm100.hpp): the copy's
// source values, in the atom's order (32 rows "core_matrix_strided" x 128 bits "core_matrix_leading"), laid
// over the SF tensor in shared memory, then UMMA::make_umma_desc<UMMA::Major::K> of that (32 x 16 B) view.
// Here the same steps on the host: the view from CUTLASS's own SF layout (Sm1xxBlockScaledConfig), each
// value (r, b) being the scale of row r + 32 (b / 4), scale column b % 4 (the TMEM byte it goes to: lane r,
// column b / 4, byte b % 4 [tc5-cp], which the MMA reads as that scale [tc5-sf]); then make_umma_desc of it.
// What is not repeated: CUTLASS's partitioning (make_utccp_copy / partition_S), which only selects the tile.
TEST_CASE(
    "tcgen05.cp scale source: CuTe's UMMA descriptor of its SF layout's 32x16 B view is ours (LBO 0, "
    "SBO 128)",
    "[cutlass][mx][utccp]") {
  using namespace cute;
  using Config   = cutlass::detail::Sm1xxBlockScaledConfig<gemm::MX_BLOCK_K>;
  const auto sfa = Config::tile_atom_to_shape_SFA(make_shape(256, 1, 512, 1));
  const auto sfb = Config::tile_atom_to_shape_SFB(make_shape(1, 256, 512, 1));
  // The copy's source view of every 512-byte tile (row block rb, K tile kt) in CUTLASS's layouts: value (r,
  // b) must sit at tile start + 16 r + b, i.e. the view is the (32, 16):(16, 1) byte layout.
  long wrong = 0;
  for (int rb = 0; rb < 2; ++rb)
    for (int kt = 0; kt < 4; ++kt) {
      const int64_t start = int64_t(sfa(128 * rb, 128 * kt, 0));
      CHECK(start == int64_t(sfb(128 * rb, 128 * kt, 0)));
      for (int r = 0; r < 32; ++r)
        for (int b = 0; b < 16; ++b) {
          const int row = 128 * rb + r + 32 * (b / 4), k = 128 * kt + gemm::MX_BLOCK_K * (b % 4);
          wrong += int64_t(sfa(row, k, 0)) != start + 16 * r + b;
          wrong += int64_t(sfb(row, k, 0)) != start + 16 * r + b;
        }
    }
  REQUIRE(wrong == 0);
  // make_umma_desc<K> of that view, as get_utccp_smem_desc_tensor does (uint8 values, no swizzle).
  uint8_t* const base = nullptr;
  const auto view     = make_tensor(make_smem_ptr(base), Layout<Shape<_32, _16>, Stride<_16, _1>>{});
  const UMMA::SmemDescriptor theirs = [&] {
    QuietStdout quiet;
    return UMMA::make_umma_desc<UMMA::Major::K>(view);
  }();
  UMMA::SmemDescriptor mine;
  mine.desc_ = gemm::mx_sf_cp_desc_sm100(0);
  INFO("CuTe " << std::hex << theirs.desc_ << ", ours " << mine.desc_);
  // SBO: the same, 128 B (8 lines of 16 B), and so are the start, the fixed bits, base offset and layout
  // type.
  CHECK(uint32_t(theirs.stride_byte_offset_) == 128u / 16u);
  CHECK(uint32_t(mine.stride_byte_offset_) == uint32_t(theirs.stride_byte_offset_));
  CHECK(uint32_t(mine.start_address_) == uint32_t(theirs.start_address_));
  CHECK(uint32_t(mine.version_) == uint32_t(theirs.version_));
  CHECK(uint32_t(mine.base_offset_) == uint32_t(theirs.base_offset_));
  CHECK(uint32_t(mine.lbo_mode_) == uint32_t(theirs.lbo_mode_));
  CHECK(uint32_t(mine.layout_type_) == uint32_t(theirs.layout_type_));  // SWIZZLE_NONE
  // LBO: CuTe writes 1 (16 B: the stride its recast gives the size-1 K mode), the seed and we write 0. The
  // source is one 16-byte core matrix wide, so no byte is read at +LBO: the layout model reads exactly the
  // same bytes through both descriptors (and tests/test_mxfp8_sm100.cpp shows any LBO reads the same).
  CHECK(uint32_t(theirs.leading_byte_offset_) == 1u);
  CHECK(uint32_t(mine.leading_byte_offset_) == 0u);
  CHECK((theirs.desc_ & ~(uint64_t(0x3FFF) << 16)) == mine.desc_);  // every bit but the LBO field
  std::vector<lm::CopiedByte> by_theirs, by_ours;
  REQUIRE(lm::tcgen05_cp_32x128b_warpx4(theirs.desc_, 384, by_theirs).empty());
  REQUIRE(lm::tcgen05_cp_32x128b_warpx4(mine.desc_, 384, by_ours).empty());
  REQUIRE(by_theirs.size() == by_ours.size());
  long differ = 0;
  for (size_t i = 0; i < by_ours.size(); ++i) {
    differ += by_theirs[i].smem_addr != by_ours[i].smem_addr;
    // and every TMEM byte (lane r of each quarter, column b / 4, byte b % 4) gets view value (r, b)
    const auto& c = by_ours[i];
    differ += c.smem_addr != (c.dst.lane % 32) * 16 + (c.dst.column - 384) * 4 + c.dst.byte;
  }
  CHECK(differ == 0);
  // ours at a stage's address is CuTe's plus that address / 16 (LBO aside)
  CHECK(gemm::mx_sf_cp_desc_sm100(0x1A300) == (theirs.desc_ & ~(uint64_t(0x3FFF) << 16)) + (0x1A300 >> 4));
}

TEST_CASE("the tcgen05.cp cross-check can fail: a 4x1 grid of core matrices with LBO 128 is not CuTe's",
          "[cutlass][mx][utccp][negative]") {
  using namespace cute;
  uint8_t* const base = nullptr;
  const auto view     = make_tensor(make_smem_ptr(base), Layout<Shape<_32, _16>, Stride<_16, _1>>{});
  const UMMA::SmemDescriptor theirs = [&] {
    QuietStdout quiet;
    return UMMA::make_umma_desc<UMMA::Major::K>(view);
  }();
  CHECK(theirs.desc_ != gemm::make_smem_desc_sm100(0, 128, 128, gemm::Swizzle::None));
  CHECK(theirs.desc_ != gemm::make_smem_desc_sm100(0, 0, 512, gemm::Swizzle::None));
}

// ==========================================================================================================
// TMEM: the accumulator's addresses and the tcgen05.ld 32x32b fragment
// ==========================================================================================================
TEST_CASE("TMEM accumulator of an M=128 MMA: CuTe's tmem_frg addresses are ours and the layout model's",
          "[cutlass][tmem]") {
  using namespace cute;
  for (const int n : {128, 256}) {
    const auto check = [&](auto frg) {
      for (int m = 0; m < 128; ++m)
        for (int col = 0; col < n; ++col) {
          const uint32_t theirs = (frg.data() + frg.layout()(make_coord(m, col), 0, 0)).get();
          INFO("N " << n << ", row " << m << ", column " << col);
          REQUIRE(theirs == gemm::tmem_addr(0, uint32_t(m), uint32_t(col)));
          int row = -1, c = -1;
          REQUIRE(lm::tmem_accumulator_m128({theirs >> 16, theirs & 0xFFFF}, 0, n, row, c));
          REQUIRE((row == m && c == col));
        }
    };
    if (n == 128)
      check(UMMA::tmem_frg_1sm<float>::make(Shape<Shape<_128, _128>, _1, _1>{}));
    else
      check(UMMA::tmem_frg_1sm<float>::make(Shape<Shape<_128, _256>, _1, _1>{}));
  }
}

TEST_CASE("tcgen05.ld 32x32b.x8: CuTe's copy traits give each thread the lanes and columns the model does",
          "[cutlass][tmem]") {
  using namespace cute;
  using Traits = Copy_Traits<SM100_TMEM_LOAD_32dp32b8x>;
  // DstLayout: (thread, register bit) -> logical bit; ValID: logical bit -> TMEM bit address, lanes DP_b
  // apart.
  constexpr int DP_BITS = TMEM::DP_b::value;
  for (int warp = 0; warp < 4; ++warp)
    for (int chunk = 0; chunk < 4; ++chunk) {
      const uint32_t taddr = gemm::tmem_addr(0, 32u * uint32_t(warp), 8u * uint32_t(chunk));
      for (int t = 0; t < 32; ++t)
        for (int i = 0; i < 8; ++i) {
          const int bit = int(Traits::ValID{}(Traits::DstLayout{}(t, 32 * i)));
          lm::TmemCell cell;
          const std::string error = lm::tmem_ld_32x32b(taddr, warp, t, i, 8, cell);
          INFO("warp " << warp << " lane " << t << " register " << i << ": " << error);
          REQUIRE(error.empty());
          CHECK(bit % 32 == 0);
          CHECK(cell.lane == (taddr >> 16) + uint32_t(bit / DP_BITS));
          CHECK(cell.column == (taddr & 0xFFFF) + uint32_t((bit % DP_BITS) / 32));
        }
    }
}

// ==========================================================================================================
// The CTA pair (cta_group::2), the block-scaled MMA's scales in TMEM, and tcgen05.cp for the pair
// ==========================================================================================================
// Until here the emulator's reading of these three rested on the project's own reading of the PTX ISA (the
// layout model reads them the way the emulator does). Here each is compared with what CuTe encodes as a
// layout or a constant: the MMA atoms' thread-value layouts (cute/atom/mma_traits_sm100.hpp: ThrID, ALayout,
// BLayout, CLayout: (CTA of the pair, value) -> element of A, B or D), the TMEM fragments the CUTLASS
// collectives allocate (tmem_frg_2sm, tmem_sf_frg), the block-scaled collective's scale-factor layouts
// (cutlass/detail/sm100_blockscaled_layout.hpp) and the copy traits of tcgen05.cp
// (cute/atom/copy_traits_sm100.hpp, SM100_UTCCP_4x32dp128bit_2cta). The layout model is the link: the GPU
// tests (gpu/tcgen05/mma, gpu/tcgen05/mxf8) hold the emulator to the model, this holds the model to CuTe.
namespace {

// TMEM address of element `offset` of a CuTe TMEM tensor: lane (bits 16-23), column (0-15) and, for 8-bit
// values, the byte of the 32-bit cell in bits 30-31 (tmem_ptr keeps the sub-word index there; CUTLASS's
// make_runtime_instr_desc_block_scaled takes the SF id from those two bits).
template <class Tensor>
uint32_t tmem_address(const Tensor& t, int64_t offset) {
  return (t.data() + offset).get();
}
uint32_t tmem_lane(uint32_t a) {
  return (a >> 16) & 0xFFu;
}
uint32_t tmem_column(uint32_t a) {
  return a & 0xFFFFu;
}
uint32_t tmem_byte(uint32_t a) {
  return a >> 30;
}

// (a) The pair's MMA atom: CTA v holds A's and D's rows [v M/2, (v + 1) M/2) and B's rows [v N/2, (v + 1) N/2),
// each row whole along K (D along N); the layout model's pair_row must say the same for every element.
template <class Op>
void check_pair_split(int& compared) {
  using namespace cute;
  using Traits    = MMA_Traits<Op>;
  constexpr int M = size<0>(typename Traits::Shape_MNK{}), N = size<1>(typename Traits::Shape_MNK{});
  constexpr int K = size<2>(typename Traits::Shape_MNK{});
  static_assert(size(typename Traits::ThrID{}) == 2, "a pair: two CTAs");
  // One descriptor per operand and one D address for the pair: both CTAs' tiles at the same addresses.
  static_assert(std::extent_v<typename Op::ARegisters> == 1 && std::extent_v<typename Op::BRegisters> == 1 &&
                std::extent_v<typename Op::CRegisters> == 1);
  INFO("cta_group::2 M " << M << " N " << N << " K " << K);
  const auto check = [&](lm::PairOperand op, auto tv, int rows, int cols) {
    long wrong = 0;
    for (int v = 0; v < 2; ++v)
      for (int i = 0; i < rows / 2; ++i)
        for (int j = 0; j < cols; ++j) {
          const int idx = int(tv(v, i + (rows / 2) * j));  // (CTA, value) -> element, (rows x cols) col-major
          lm::PairRow at{};
          const std::string error = lm::pair_row(op, M, N, idx % rows, at);
          wrong += !error.empty() || at.cta != v || at.row != i || idx / rows != j;
          ++compared;
        }
    CHECK(wrong == 0);
  };
  check(lm::PairOperand::A, typename Traits::ALayout{}, M, K);
  check(lm::PairOperand::B, typename Traits::BLayout{}, N, K);
  check(lm::PairOperand::D, typename Traits::CLayout{}, M, N);
  // Each CTA's part of D in its TMEM: the accumulator the collectives allocate for this atom (tmem_frg_2sm of
  // the per-CTA partition), row i of the CTA's rows in lane i, column n in column n: the model's layout D.
  const auto tiled = make_tiled_mma(Op{});
  const auto acc   = make_tensor<typename Traits::FrgTypeC>(partition_shape_C(tiled, make_shape(Int<M>{}, Int<N>{})));
  static_assert(size<0, 0>(decltype(acc.layout()){}) == M / 2 && size<0, 1>(decltype(acc.layout()){}) == N);
  long wrong = 0;
  for (int i = 0; i < M / 2; ++i)
    for (int n = 0; n < N; ++n) {
      const uint32_t a = tmem_address(acc, acc.layout()(make_coord(i, n), 0, 0));
      int row = -1, col = -1;
      wrong += !lm::tmem_accumulator_m128({tmem_lane(a), tmem_column(a)}, 0, N, row, col) || row != i || col != n;
    }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("cta_group::2: CuTe's pair MMA atoms split A, B and D between the CTAs as the layout model does",
          "[cutlass][pair]") {
  using namespace cute;
  using bf16   = bfloat16_t;
  using e4m3   = float_e4m3_t;
  constexpr auto K_ = UMMA::Major::K;
  int compared = 0;
  check_pair_split<SM100_MMA_F16BF16_2x1SM_SS<bf16, bf16, float, 256, 256, K_, K_>>(compared);  // v5, v6
  check_pair_split<SM100_MMA_F16BF16_2x1SM_SS<bf16, bf16, float, 256, 64, K_, K_>>(compared);   // v8n
  check_pair_split<SM100_MMA_F16BF16_2x1SM_SS<bf16, bf16, float, 256, 16, K_, K_>>(compared);
  check_pair_split<SM100_MMA_MXF8F6F4_2x1SM_SS<e4m3, e4m3, float, float_ue8m0_t, 256, 256, K_, K_>>(compared);
  const auto elements = [](int m, int n, int k) { return m * k + n * k + m * n; };  // A, B, D
  CHECK(compared == elements(256, 256, 16) + elements(256, 64, 16) + elements(256, 16, 16) + elements(256, 256, 32));
  // M = 128 (legal, not emulated): CuTe gives each CTA 64 rows of A, in its "2x2" TMEM layout of D; the model
  // does not cover it and says so.
  using Pair128 = MMA_Traits<SM100_MMA_F16BF16_2x1SM_SS<bf16, bf16, float, 128, 128, K_, K_>>;
  CHECK(int(typename Pair128::ALayout{}(1, 0)) == 64);
  lm::PairRow at{};
  CHECK_FALSE(lm::pair_row(lm::PairOperand::A, 128, 128, 64, at).empty());
}

namespace {

// The MXFP8 stage's MMA (mxfp8/matmul_mxfp8.cu): cta_group::2, M = 256, N = 256, E4M3 x E4M3 with UE8M0
// scales, one 128-element K tile (4 MMAs, SF ids 0..3) per stage. CuTe's TMEM tensors of its scales, as the
// block-scaled collective (sm100_blockscaled_mma_warpspecialized.hpp) makes them: FrgTypeSFA / FrgTypeSFB of
// the atom over the shapes of the collective's shared-memory SF layouts (Sm1xxBlockScaledConfig::
// deduce_smem_layoutSFA / SFB for the tile 256 x 256 x 128).
using MxPairOp     = cute::SM100_MMA_MXF8F6F4_2x1SM_SS<cute::float_e4m3_t, cute::float_e4m3_t, float,
                                                       cute::float_ue8m0_t, 256, 256, cute::UMMA::Major::K,
                                                       cute::UMMA::Major::K>;
using MxPairTraits = cute::MMA_Traits<MxPairOp>;
using MxSfConfig   = cutlass::detail::Sm1xxBlockScaledConfig<gemm::MX_BLOCK_K>;
using MxTile       = cute::Shape<cute::_256, cute::_256, cute::_128>;

auto mx_smem_sfa() {
  return MxSfConfig::deduce_smem_layoutSFA(cute::make_tiled_mma(MxPairOp{}), MxTile{});
}
auto mx_smem_sfb() {
  return MxSfConfig::deduce_smem_layoutSFB(cute::make_tiled_mma(MxPairOp{}), MxTile{});
}
auto mx_tmem_sfa() {
  return cute::make_tensor<typename MxPairTraits::FrgTypeSFA>(cute::shape(mx_smem_sfa()));
}
auto mx_tmem_sfb() {
  return cute::make_tensor<typename MxPairTraits::FrgTypeSFB>(cute::shape(mx_smem_sfb()));
}

}  // namespace

TEST_CASE("block-scaled MMA: CuTe's TMEM scale tensors put the scale of row r, K block j where the model reads it",
          "[cutlass][mx][sf_tmem]") {
  using namespace cute;
  // The pair at M = 256 takes the "4x1" data path for both: each scale in all four lane quarters.
  static_assert(MxPairTraits::TmemAlloc == UMMA::TmemAllocMode::ScaleFactorDuplicated4by1);
  static_assert(MxPairTraits::SFVecSize == gemm::MX_BLOCK_K && MxPairTraits::K == gemm::MX_BLOCK_K,
                "one scale per MMA and row: .block32 with K = 32");
  const auto sfa = mx_tmem_sfa();
  const auto sfb = mx_tmem_sfb();
  // SFA: each CTA's own 128 rows of A (the atom's A split above); SFB: all N = 256 rows of B, in each CTA.
  static_assert(size<0, 0, 0>(decltype(sfa.layout()){}) == 128, "SFA: the CTA's 128 rows");
  static_assert(size<0, 0, 0>(decltype(sfb.layout()){}) == 256, "SFB: the pair's whole N, in each CTA");
  static_assert(size<0, 0, 1>(decltype(sfa.layout()){}) == 4, "replicated in the 4 lane quarters");
  static_assert(size(get<2>(sfa.shape())) == 4, "4 K blocks (MMAs) per 128-element K tile");
  const auto check = [](const auto& t, int rows) {
    long wrong = 0, compared = 0;
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < 4; ++q)
        for (int j = 0; j < 4; ++j)
          for (int v : {0, 31}) {  // every K element of the block shares the scale (stride 0)
            const uint32_t a =
                tmem_address(t, t.layout()(make_coord(make_coord(make_coord(r, q), make_coord(v, 0)), 0, j)));
            lm::TmemByte at{};
            const std::string error = lm::mma_scale_read_block32(0, r, rows, uint32_t(j), q, at);
            wrong += !error.empty() || tmem_lane(a) != at.lane || tmem_column(a) != at.column ||
                     tmem_byte(a) != at.byte;
            // and the kernel's own statement of it (common/mx_scale_layout.h), lane within each quarter
            const gemm::MxSfTmemCell k = gemm::mx_sf_tmem_cell(r, j);
            wrong += tmem_lane(a) != 32u * uint32_t(q) + k.lane || tmem_column(a) != k.column || tmem_byte(a) != k.byte;
            ++compared;
          }
    CHECK(compared == long(rows) * 4 * 4 * 2);
    return wrong;
  };
  CHECK(check(sfa, 128) == 0);
  CHECK(check(sfb, 256) == 0);

  // The SF ids of the MMAs: CUTLASS passes tCtSFA(_, _, j) / tCtSFB(_, _, j) for K block j, and
  // make_runtime_instr_desc_block_scaled takes the SF id from their addresses' top two bits. The kernel issues
  // every K step with the same scale addresses (the slot's first column) and SF ids (j, j) (idesc_for_k_step).
  const auto idesc = UMMA::make_instr_desc_block_scaled<float_e4m3_t, float_e4m3_t, float, float_ue8m0_t, 256,
                                                        256, UMMA::Major::K, UMMA::Major::K>();
  for (int j = 0; j < 4; ++j) {
    INFO("K block " << j);
    const uint32_t a = tmem_address(sfa, sfa.layout()(make_coord(0, 0, j)));
    const uint32_t b = tmem_address(sfb, sfb.layout()(make_coord(0, 0, j)));
    CHECK((tmem_lane(a) == 0 && tmem_column(a) == 0 && tmem_lane(b) == 0 && tmem_column(b) == 0));
    const uint32_t theirs = uint32_t(UMMA::make_runtime_instr_desc_block_scaled(idesc, a, b) >> 32);
    CHECK(theirs == gemm::make_idesc_mxf8f6f4(gemm::MxKind::E4M3, gemm::MxKind::E4M3, 256, 256, uint32_t(j),
                                              uint32_t(j)));
  }
  // Where CUTLASS puts SFB: right after SFA's columns (find_tmem_tensor_col_offset), 4 of them per K tile, as
  // the kernel's slot does (sfb = sfa + SFA_TILES * MX_SF_TMEM_COLS); SFB spans 8 (256 rows / 32).
  CHECK(cutlass::detail::find_tmem_tensor_col_offset(sfa) == int(gemm::MX_SF_TMEM_COLS));
  CHECK(cutlass::detail::find_tmem_tensor_col_offset(sfb) == 2 * int(gemm::MX_SF_TMEM_COLS));
}

TEST_CASE("tcgen05.cp.cta_group::2 .32x128b.warpx4: CuTe's copy traits are the model's copy, per CTA of the pair",
          "[cutlass][mx][utccp][pair]") {
  using namespace cute;
  using Pair   = Copy_Traits<SM100_UTCCP_4x32dp128bit_2cta>;
  using Single = Copy_Traits<SM100_UTCCP_4x32dp128bit_1cta>;
  // Two CTAs, each the single-CTA copy: the same value map, and the CTA mode of the source and destination
  // layouts has stride 0 (CTA 1's copy moves the same source positions to the same TMEM positions as CTA 0's,
  // in its own memory).
  static_assert(size(typename Pair::ThrID{}) == 2 && size(typename Single::ThrID{}) == 1);
  static_assert(std::is_same_v<typename Pair::ValID, typename Single::ValID>);
  static_assert(stride<0>(typename Pair::SrcLayout{}) == 0 && stride<0>(typename Pair::DstLayout{}) == 0);
  static_assert(size<0>(typename Pair::SrcLayout{}) == 2 && size<0>(typename Pair::DstLayout{}) == 2);
  for (int i = 0; i < int(size<1>(typename Pair::SrcLayout{})); i += 37)
    CHECK(int(typename Pair::SrcLayout{}(1, i)) == int(typename Pair::SrcLayout{}(0, i)));
  // ValID: logical bit (source row r, bit b of its 128, quarter q) -> TMEM bit address r DP_b + b + q 32 DP_b.
  // The model: row r's byte B to lane 32 q + r, column col0 + B / 4, byte B % 4, in each CTA from its own
  // shared memory (tcgen05_cp_32x128b_warpx4_pair).
  constexpr int DP_BITS = TMEM::DP_b::value;
  const uint32_t col0   = 384;
  std::vector<lm::PairCopiedByte> copied;
  REQUIRE(lm::tcgen05_cp_32x128b_warpx4_pair(gemm::mx_sf_cp_desc_sm100(0), col0, copied).empty());
  REQUIRE(copied.size() == 2 * 4 * 32 * 16);
  long wrong = 0, compared = 0;
  for (const lm::PairCopiedByte& c : copied) {
    const int q = int(c.byte.dst.lane / 32), r = int(c.byte.dst.lane % 32);
    const int b = 8 * int(c.byte.smem_addr % 16);  // the source: row r of 16 bytes at 16 r (SBO 128, no LBO)
    wrong += int(c.byte.smem_addr / 16) != r || c.src_cta != c.dst_cta;
    const int bit = int(typename Pair::ValID{}(r, b, q));
    wrong += bit % 8 != 0 || bit / DP_BITS != int(c.byte.dst.lane) ||
             uint32_t((bit % DP_BITS) / 32) != c.byte.dst.column - col0 || uint32_t((bit % 32) / 8) != c.byte.dst.byte;
    ++compared;
  }
  CHECK(compared == 2 * 4 * 32 * 16);
  CHECK(wrong == 0);

  // The whole path of the MXFP8 stage's scales, CuTe's layouts at both ends: scale (row n, K block j) sits in
  // shared memory where CUTLASS's SF layout puts it (the kernel's tiles: SFB's two 512-byte tiles, copied to
  // columns +0 and +4), and the model's copies must carry that byte to the TMEM byte CuTe's tmem_sf_frg gives
  // it, in every quarter: what the block-scaled MMA then reads (previous test).
  const auto s_sfb = mx_smem_sfb();
  const auto t_sfb = mx_tmem_sfb();
  std::vector<int64_t> smem_of(size_t(128) * 8 * 4, -1);  // [lane][column][byte]: the source byte copied there
  for (uint32_t tile = 0; tile < 2; ++tile) {
    std::vector<lm::CopiedByte> one;
    REQUIRE(lm::tcgen05_cp_32x128b_warpx4(gemm::mx_sf_cp_desc_sm100(512 * tile), 4 * tile, one).empty());
    for (const lm::CopiedByte& c : one)
      smem_of[(size_t(c.dst.lane) * 8 + c.dst.column) * 4 + c.dst.byte] = c.smem_addr;
  }
  long path_wrong = 0;
  for (int n = 0; n < 256; ++n)
    for (int j = 0; j < 4; ++j)
      for (int q = 0; q < 4; ++q) {
        const int64_t src = int64_t(s_sfb(make_coord(make_coord(n, make_coord(0, 0)), 0, j)));
        const uint32_t a  = tmem_address(t_sfb, t_sfb.layout()(make_coord(make_coord(make_coord(n, q), make_coord(0, 0)), 0, j)));
        path_wrong += smem_of[(size_t(tmem_lane(a)) * 8 + tmem_column(a)) * 4 + tmem_byte(a)] != src;
      }
  CHECK(path_wrong == 0);
}

TEST_CASE("the pair and scale cross-checks can fail: other readings of the split and of the scales are not CuTe's",
          "[cutlass][pair][sf_tmem][negative]") {
  using namespace cute;
  // B split between the CTAs row by row (n % 2) instead of by halves: CuTe's BLayout disagrees.
  using Traits = MMA_Traits<SM100_MMA_F16BF16_2x1SM_SS<bfloat16_t, bfloat16_t, float, 256, 256, UMMA::Major::K,
                                                       UMMA::Major::K>>;
  long differ = 0;
  for (int v = 0; v < 2; ++v)
    for (int i = 0; i < 128; ++i) differ += int(typename Traits::BLayout{}(v, i)) % 256 != 2 * i + v;
  CHECK(differ > 0);
  // The scales with the roles of column and byte swapped (K block j in column j, row group r / 32 in byte
  // r / 32), or without the replication in every quarter (lane r, as D): CuTe's TMEM tensor disagrees.
  const auto sfa = mx_tmem_sfa();
  long swapped = 0, unreplicated = 0;
  for (int r = 0; r < 128; ++r)
    for (int j = 0; j < 4; ++j) {
      const uint32_t a =
          tmem_address(sfa, sfa.layout()(make_coord(make_coord(make_coord(r, 0), make_coord(0, 0)), 0, j)));
      swapped += tmem_column(a) != uint32_t(j) || tmem_byte(a) != uint32_t(r / 32);
      unreplicated += tmem_lane(a) != uint32_t(r);
    }
  CHECK(swapped > 0);
  CHECK(unreplicated > 0);
}
