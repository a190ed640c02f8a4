// layout_model.h: an independent CPU model of the shared-memory traffic of a tensor-core matmul: which bytes
// a TMA tile load writes where, and which shared-memory byte a wgmma / tcgen05.mma reads for each operand
// element of a given 64-bit descriptor. Plus decoders for the tcgen05 instruction descriptor and the
// accumulator fragment maps (TMEM for tcgen05.ld, registers for wgmma) the epilogues rely on.
//
// Written from the documents below, never from common/descriptors.cuh, and it never calls those builders: the
// tests build descriptors with the kernels' builders and ask this model what the hardware would read with
// them. A misreading of the ISA shared by the builders and this model still passes: only a GPU run tells.
//
// Sources (section titles rather than numbers, which move between releases):
//  [tensor-map] CUDA Driver API, cuTensorMapEncodeTiled (cuda.h 13.0): dims and strides innermost first,
//               globalStrides in bytes and multiples of 16, boxDim[i] <= 256, boxDim[0]*elemsize a multiple
//               of 16, and with a swizzle the box inner extent <= the span; CUtensorMapSwizzle:
//               "Swizzle 16B chunks within {32,64,128}B span". CUTLASS maps these modes to the CuTe swizzles
//               Swizzle<1,4,3>, <2,4,3>, <3,4,3> (cute/atom/copy_traits_sm90_tma_swizzle.hpp): the 16-byte
//               chunk bits [4, 4+b) are XORed with bits [7, 7+b) of the byte address, b = log2(span / 16).
//  [tma]        PTX ISA "cp.async.bulk.tensor": the box lands in shared memory in its natural order
//               (dimension 0 fastest), destination 128-byte aligned; out-of-bound elements are filled with
//               zero.
//  [canonical]  PTX ISA "Shared Memory Matrix Layout" / "Canonical layouts" (the same table for wgmma and
//               tcgen05), in elements with T = elements per 16 bytes:
//                 K-major, no swizzle:  ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//                 K-major, swizzled:    ((8,m),(T,2k)):((sT,SBO),(1,T)) then Swizzle<b,4,3>, s = span / 16
//  [wgmma-desc] PTX ISA "Asynchronous Warpgroup Level Matrix ... Matrix Descriptor Format"
//  [tc5-desc]   PTX ISA "tcgen05 Shared Memory Descriptor" and "Leading Dimension Stride" (K-major swizzled:
//               LBO "not used, assumed to be 1")
//  [tc5-idesc]  PTX ISA "tcgen05 Instruction descriptor": the table for .kind::tf32/f16/f8f6f4/i8 and the one
//               for the block-scaled kinds (bit positions of the latter cross-checked with CUTLASS
//               cute/arch/mma_sm100_desc.hpp, InstrDescriptorBlockScaled)
//  [tc5-shapes] PTX ISA "tcgen05 Matrix Shape": kind::f16 dense, cta_group::1 M in {64, 128}, N 8..256 step
//               8; cta_group::2 M in {128, 256}, N 16..256 step 16. At cta_group::1 M = 128 the model takes
//               the stricter rule of DeepGEMM's sm100 kernels and of our stages, N in steps of 16 (CuTe's
//               SM100_MMA_F16BF16_SS, like the ISA table, accepts steps of 8; docs/layout-model.md)
//  [tc5-ld]     PTX ISA "tcgen05 Matrix fragments for .32x32b" (thread t of a warp: lane base + t, register
//               i: column base + i) and "tcgen05 Memory Consistency / Access restrictions" (warp w of a
//               warpgroup may only access lanes 32*(w%4) .. +31); "Data Path Layout Organization", Layout D
//               for M = 128: row i of D lives in TMEM lane i, column j in the j-th 32-bit column of the
//               accumulator
//  [tc5-cp]     PTX ISA "tcgen05.cp": the source is a matrix in shared memory described by a shared-memory
//               descriptor (the canonical layouts above); .32x128b copies 32 rows of 128 bits, row r to TMEM
//               lane taddr.lane + r, its bits to consecutive 32-bit columns from taddr.col; .warpx4
//               ("multicast to all four warps") writes the same 32 rows into the lanes of all four 32-lane
//               quarters. The address's lane field must be 0 for .warpx4 (all 128 lanes are written).
//  [tc5-sf]     PTX ISA "tcgen05 Matrix fragments / Scale factor A / B layout" for the block-scaled kinds
//  with
//               .block32 and K = 32 per MMA (one scale per row): the scales of rows [32c, 32c + 32) are in
//               TMEM column (sf_taddr.col + c), row i in lane i % 32, and the SF id of the instruction
//               descriptor picks the byte of that 32-bit cell; the 32 lanes are replicated in every quarter
//               (seed 001's reading of the ISA figures: SF id j selects "4 separate 32x1 strips"; CuTe's
//               tmem_sf_frg agrees: tests/test_cutlass_crosscheck.cpp).
//  [tc5-pair]   PTX ISA "tcgen05.mma" (.cta_group::2) and "Data Path Layout Organization" (Layout A, M = 256):
//               the MMA of a CTA pair reads A's rows [128c, 128c + 128) and B's rows [c N/2, (c + 1) N/2)
//               from CTA c's shared memory, at the addresses of the one descriptor per operand, and writes D's
//               rows [128c, 128c + 128) to CTA c's TMEM, row i of them in lane i, at the one D address;
//               tcgen05.cp.cta_group::2 fills each CTA's TMEM from that CTA's shared memory (the seed's
//               reading; tests/test_cutlass_crosscheck.cpp compares all three with CuTe's traits).
//  [wgmma-frag] PTX ISA "Asynchronous Warpgroup Level Matrix Register Fragment", accumulator D of .m64nNk16:
//               row = 16*warp + lane/4 (+8 for registers i with i%4 >= 2), col = 8*(i/4) + 2*(lane%4) + i%2
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace layout_model {

// ----------------------------------------------------------------------------------------------------------
// Swizzle: a function of the shared-memory byte ADDRESS, applied by TMA writes and by MMA reads alike.
// ----------------------------------------------------------------------------------------------------------
enum class SwizzleMode { NONE, B32, B64, B128 };

// Bytes of one swizzled row: 32/64/128, and 16 (one chunk) for NONE.
uint32_t swizzle_span(SwizzleMode mode);
// Swizzle<b,4,3> on an address: chunk bits [4, 4+b) ^= bits [7, 7+b).
uint32_t swizzle_address(uint32_t addr, SwizzleMode mode);

// ----------------------------------------------------------------------------------------------------------
// TMA tile load (cp.async.bulk.tensor ... tile) [tensor-map] [tma]
// ----------------------------------------------------------------------------------------------------------
// The fields of cuTensorMapEncodeTiled that decide where bytes land (interleave NONE, element strides 1).
struct TensorMap {
  int rank;                   // 2 or 3
  int elem_bytes;             // 1, 2 or 4
  uint64_t global_dim[3];     // elements, innermost first
  uint64_t global_stride[2];  // bytes between consecutive indices of dims 1 and 2 (dim 0 is packed)
  uint32_t box_dim[3];        // elements, innermost first
  SwizzleMode swizzle;
};

// One byte moved by a TMA load: where it lands, and which global byte it comes from (-1: out of bounds: 0).
struct TmaByte {
  uint32_t smem_addr;
  int64_t global_offset;
};

// Every byte of the box at element coordinates `coords` (innermost first) written to `smem_dst`. Returns an
// error message (empty on success) for a map or destination the driver or the ISA would reject, or one the
// model does not cover (a swizzled box narrower than its span, a destination off a swizzle-pattern start).
std::string tma_box_bytes(const TensorMap& map, const std::array<int64_t, 3>& coords, uint32_t smem_dst,
                          std::vector<TmaByte>& out);

// The same load on real bytes: `global` is the tensor as bytes, `smem` the shared memory window.
std::string tma_load(const TensorMap& map, const std::vector<uint8_t>& global,
                     const std::array<int64_t, 3>& coords, uint32_t smem_dst, std::vector<uint8_t>& smem);

// ----------------------------------------------------------------------------------------------------------
// Shared-memory matrix descriptors [wgmma-desc] [tc5-desc]
// ----------------------------------------------------------------------------------------------------------
enum class MmaEncoding { WGMMA_SM90, TCGEN05_SM100 };

struct SmemDescriptor {
  uint32_t start_addr;   // bytes
  uint32_t lbo;          // leading dimension byte offset, bytes
  uint32_t sbo;          // stride dimension byte offset, bytes
  uint32_t base_offset;  // bits 49-51
  SwizzleMode swizzle;
};

// Decodes the 64 bits per the ISA table of `enc`. Rejects reserved bits that are set, tcgen05 fixed bits
// 46-48 that are not 0b001, swizzle codes that do not exist, and encodings this model does not cover (a
// non-zero base offset, tcgen05 LBO mode 1, the tcgen05 "128B with 32B atom" swizzle).
std::string decode_smem_descriptor(uint64_t desc, MmaEncoding enc, SmemDescriptor& out);

// The shared-memory byte address of every element (row, k) of the K-major operand slice one MMA reads with
// `desc`: `rows` rows (M or N of the instruction) by `k_bytes` bytes of K. Row-major into `addr`:
// addr[row * (k_bytes / elem_bytes) + k] is the address of the element's first byte (its bytes are
// contiguous: swizzling moves whole 16-byte chunks) [canonical].
std::string mma_kmajor_read(uint64_t desc, MmaEncoding enc, int rows, int k_bytes, int elem_bytes,
                            std::vector<uint32_t>& addr);

// ----------------------------------------------------------------------------------------------------------
// tcgen05 instruction descriptors [tc5-idesc] [tc5-shapes]
// ----------------------------------------------------------------------------------------------------------
enum class MmaKind { F16, MXF8F6F4 };

struct InstrDescriptor {
  uint32_t d_format;  // f16 kind: 0 F16, 1 F32 (mxf8f6f4: D is always F32, no field)
  uint32_t a_format;  // f16 kind: 0 F16, 1 BF16; mxf8f6f4: 0 E4M3, 1 E5M2, 3 E2M3, 4 E3M2, 5 E2M1
  uint32_t b_format;
  bool a_negate, b_negate;
  bool a_mn_major, b_mn_major;  // "transpose A/B": false = K-major
  int m, n;
  uint32_t scale_type;  // mxf8f6f4: 1 = UE8M0
  uint32_t sfa_id, sfb_id;
};

// Rejects set reserved bits, format codes outside the table, sparsity / saturate / .ws max-shift (not used by
// this series) and shapes the kind does not support for `cta_group` (1 or 2).
std::string decode_instr_descriptor(uint32_t idesc, MmaKind kind, int cta_group, InstrDescriptor& out);

// ----------------------------------------------------------------------------------------------------------
// The CTA pair of a cta_group::2 MMA [tc5-pair]
// ----------------------------------------------------------------------------------------------------------
enum class PairOperand { A, B, D };
struct PairRow {
  int cta;  // 0: the even CTA of the pair (the issuer), 1: its peer
  int row;  // the row in that CTA: of its tile in shared memory (A, B), its TMEM lane (D, layout D M = 128)
};
// Row `row` of A (0..M-1), B (0..N-1) or D (0..M-1) of a cta_group::2 MMA of shape M x N. M = 256 only (M =
// 128 leaves 64 rows of D per CTA in another TMEM layout: not modelled); N 16..256 in steps of 16.
std::string pair_row(PairOperand op, int m, int n, int row, PairRow& out);

// ----------------------------------------------------------------------------------------------------------
// Accumulator fragments [tc5-ld] [wgmma-frag]
// ----------------------------------------------------------------------------------------------------------
struct TmemCell {
  uint32_t lane, column;
};

// tcgen05.ld.sync.aligned.32x32b.x{num_regs}.b32 issued by warp `warp_id` (of the CTA) with address `taddr`:
// the TMEM cell that register `reg` of lane `lane_id` receives. Rejects an address whose lane field is not
// the first lane of the quadrant the warp may access, and loads that run past column 511.
std::string tmem_ld_32x32b(uint32_t taddr, int warp_id, int lane_id, int reg, int num_regs, TmemCell& out);

// Layout D of a cta_group::1 M = 128 tcgen05.mma with f32 accumulators at `d_taddr`: the (row, col) of D held
// by `cell`, or false when the cell is outside the n-column accumulator.
bool tmem_accumulator_m128(TmemCell cell, uint32_t d_taddr, int n, int& row, int& col);

// wgmma .m64nNk16 f32 accumulator: the (row, col) of D that register `reg` of lane `lane_id` of warp
// `warp_in_group` (0..3) holds; false when reg >= n/2.
bool wgmma_accumulator_m64(int warp_in_group, int lane_id, int reg, int n, int& row, int& col);

// ----------------------------------------------------------------------------------------------------------
// Scale factors of the block-scaled MMA: shared memory -> TMEM (tcgen05.cp) and TMEM -> MMA [tc5-cp] [tc5-sf]
// ----------------------------------------------------------------------------------------------------------
struct TmemByte {
  uint32_t lane, column, byte;  // byte 0..3 of the 32-bit cell (lane, column)
};
struct CopiedByte {
  TmemByte dst;
  uint32_t smem_addr;  // the shared-memory byte it is copied from
};
// tcgen05.cp.32x128b.warpx4 [taddr], desc: every TMEM byte it writes (4 quarters x 32 lanes x 4 columns x 4
// bytes) and the shared-memory byte each comes from. Rejects an address whose lane field is not 0, a
// destination past column 511, and descriptors the model does not cover (swizzled sources).
std::string tcgen05_cp_32x128b_warpx4(uint64_t desc, uint32_t taddr, std::vector<CopiedByte>& out);
// The same with .cta_group::2 [tc5-pair]: the bytes each CTA of the pair receives in its TMEM, and the CTA
// whose shared memory each comes from (its own: dst_cta == src_cta), at the addresses of the one descriptor.
struct PairCopiedByte {
  int dst_cta, src_cta;
  CopiedByte byte;
};
std::string tcgen05_cp_32x128b_warpx4_pair(uint64_t desc, uint32_t taddr, std::vector<PairCopiedByte>& out);
// The TMEM byte a block-scaled .block32 MMA (K = 32) reads as the scale of operand row `row` (0..127 of A per
// CTA, 0..255 of B) with SF id `sf_id` from the scale address `sf_taddr`, in lane quarter `quarter` (the
// scales are replicated in all four; a copy must hold the same value in each). Rejects rows past the
// operand, sf ids past 3, and an address whose lane field is not 0.
std::string mma_scale_read_block32(uint32_t sf_taddr, int row, int rows, uint32_t sf_id, int quarter,
                                   TmemByte& out);

}  // namespace layout_model
