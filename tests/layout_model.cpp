// layout_model.cpp: the model declared in layout_model.h. Every rule cites the source tag of the header.
#include "layout_model.h"

namespace layout_model {

namespace {

// Bits [lo, hi] of v.
uint64_t bits(uint64_t v, int lo, int hi) {
  return (v >> lo) & ((uint64_t(1) << (hi - lo + 1)) - 1);
}

uint32_t swizzle_bits(SwizzleMode mode) {
  switch (mode) {
    case SwizzleMode::B32:
      return 1;
    case SwizzleMode::B64:
      return 2;
    case SwizzleMode::B128:
      return 3;
    default:
      return 0;
  }
}

bool is_pow2(int x) {
  return x > 0 && (x & (x - 1)) == 0;
}

}  // namespace

uint32_t swizzle_span(SwizzleMode mode) {
  return 16u << swizzle_bits(mode);
}

uint32_t swizzle_address(uint32_t addr, SwizzleMode mode) {
  // [tensor-map] Swizzle<b,4,3>: the 16-byte chunk index (bits 4..) XOR the 128-byte row index (bits 7..), b
  //              bits
  // wide. A function of the address, so the pattern restarts every 8 * span bytes of shared memory.
  const uint32_t mask = (1u << swizzle_bits(mode)) - 1;
  return addr ^ (((addr >> 7) & mask) << 4);
}

// ----------------------------------------------------------------------------------------------------------
// TMA
// ----------------------------------------------------------------------------------------------------------
std::string tma_box_bytes(const TensorMap& map, const std::array<int64_t, 3>& coords, uint32_t smem_dst,
                          std::vector<TmaByte>& out) {
  out.clear();
  const int rank = map.rank, eb = map.elem_bytes;
  if (rank != 2 && rank != 3) return "the model covers rank 2 and 3 tensor maps";
  if (eb != 1 && eb != 2 && eb != 4) return "element size must be 1, 2 or 4 bytes";
  for (int d = 0; d < rank; ++d) {
    if (map.box_dim[d] == 0 || map.box_dim[d] > 256) return "[tensor-map] boxDim[i] must be in 1..256";
    if (map.global_dim[d] == 0) return "[tensor-map] globalDim[i] must be non-zero";
  }
  for (int d = 0; d + 1 < rank; ++d)
    if (map.global_stride[d] % 16 != 0) return "[tensor-map] globalStrides must be multiples of 16 bytes";
  const uint32_t inner_bytes = map.box_dim[0] * uint32_t(eb);
  if (inner_bytes % 16 != 0) return "[tensor-map] boxDim[0] * elementSize must be a multiple of 16 bytes";
  const uint32_t span = swizzle_span(map.swizzle);
  if (map.swizzle != SwizzleMode::NONE) {
    if (inner_bytes > span) return "[tensor-map] box inner extent exceeds the swizzle span";
    // Narrower boxes are legal but their shared-memory padding is not documented: not modelled.
    if (inner_bytes < span) return "box inner extent narrower than the swizzle span: not modelled";
    // At a pattern boundary, XOR on the address and XOR on the offset inside the box agree, so the model does
    // not depend on which of the two the hardware implements. The kernels align swizzled tiles to 1024 B.
    if (smem_dst % (8 * span) != 0)
      return "swizzled destination not at a pattern boundary (8 x span): not modelled";
  }
  if (smem_dst % 128 != 0) return "[tma] shared-memory destination must be 128-byte aligned";

  const uint32_t box2 = rank == 3 ? map.box_dim[2] : 1;
  out.reserve(size_t(box2) * map.box_dim[1] * inner_bytes);
  for (uint32_t i2 = 0; i2 < box2; ++i2) {
    for (uint32_t i1 = 0; i1 < map.box_dim[1]; ++i1) {
      for (uint32_t i0 = 0; i0 < map.box_dim[0]; ++i0) {
        const int64_t g[3] = {coords[0] + i0, coords[1] + i1, rank == 3 ? coords[2] + i2 : 0};
        bool in_bounds     = true;
        for (int d = 0; d < rank; ++d) in_bounds &= g[d] >= 0 && uint64_t(g[d]) < map.global_dim[d];
        // [tma] natural order of the box: dimension 0 fastest, then 1, then 2
        const uint32_t box_offset = ((i2 * map.box_dim[1] + i1) * map.box_dim[0] + i0) * uint32_t(eb);
        const int64_t elem_offset = g[0] * eb + g[1] * int64_t(map.global_stride[0]) +
                                    (rank == 3 ? g[2] * int64_t(map.global_stride[1]) : 0);
        for (int b = 0; b < eb; ++b)
          out.push_back({swizzle_address(smem_dst + box_offset + uint32_t(b), map.swizzle),
                         in_bounds ? elem_offset + b : -1});
      }
    }
  }
  return "";
}

std::string tma_load(const TensorMap& map, const std::vector<uint8_t>& global,
                     const std::array<int64_t, 3>& coords, uint32_t smem_dst, std::vector<uint8_t>& smem) {
  std::vector<TmaByte> moved;
  const std::string error = tma_box_bytes(map, coords, smem_dst, moved);
  if (!error.empty()) return error;
  for (const TmaByte& m : moved) {
    if (m.smem_addr >= smem.size()) return "box runs past the end of shared memory";
    if (m.global_offset >= int64_t(global.size()))
      return "tensor map describes more bytes than the tensor has";
    smem[m.smem_addr] = m.global_offset < 0 ? 0 : global[size_t(m.global_offset)];  // [tma] OOB fill: zero
  }
  return "";
}

// ----------------------------------------------------------------------------------------------------------
// Shared-memory descriptors
// ----------------------------------------------------------------------------------------------------------
std::string decode_smem_descriptor(uint64_t desc, MmaEncoding enc, SmemDescriptor& out) {
  // The three 14-bit fields are byte values >> 4 (wgmma: matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4).
  out.start_addr  = uint32_t(bits(desc, 0, 13)) << 4;   // bits  0-13: matrix start address
  out.lbo         = uint32_t(bits(desc, 16, 29)) << 4;  // bits 16-29: leading dimension byte offset
  out.sbo         = uint32_t(bits(desc, 32, 45)) << 4;  // bits 32-45: stride dimension byte offset
  out.base_offset = uint32_t(bits(desc, 49, 51));       // bits 49-51: matrix base offset
  out.swizzle     = SwizzleMode::NONE;
  if (bits(desc, 14, 15) || bits(desc, 30, 31)) return "reserved bits 14-15 or 30-31 set";
  if (enc == MmaEncoding::WGMMA_SM90) {
    // [wgmma-desc] nothing is defined in bits 46-48 and 52-61: a tcgen05 descriptor (bit 46) fails here
    if (bits(desc, 46, 48) || bits(desc, 52, 61)) return "[wgmma-desc] reserved bits 46-48 or 52-61 set";
    switch (bits(desc, 62, 63)) {  // bits 62-63: 0 none, 1 128B, 2 64B, 3 32B
      case 0:
        out.swizzle = SwizzleMode::NONE;
        break;
      case 1:
        out.swizzle = SwizzleMode::B128;
        break;
      case 2:
        out.swizzle = SwizzleMode::B64;
        break;
      default:
        out.swizzle = SwizzleMode::B32;
        break;
    }
  } else {
    if (bits(desc, 46, 48) != 0b001) return "[tc5-desc] bits 46-48 must hold the fixed constant 0b001";
    if (bits(desc, 52, 52))
      return "[tc5-desc] LBO mode 1 (absolute address, 48-byte K tiles) is not modelled";
    if (bits(desc, 53, 60)) return "[tc5-desc] fixed-zero bits 53-60 set";
    switch (bits(desc, 61, 63)) {  // bits 61-63: 0 none, 1 128B with 32B atom, 2 128B, 4 64B, 6 32B
      case 0:
        out.swizzle = SwizzleMode::NONE;
        break;
      case 2:
        out.swizzle = SwizzleMode::B128;
        break;
      case 4:
        out.swizzle = SwizzleMode::B64;
        break;
      case 6:
        out.swizzle = SwizzleMode::B32;
        break;
      case 1:
        return "[tc5-desc] 128B swizzle with 32B atoms is not modelled";
      default:
        return "[tc5-desc] swizzle codes 3, 5 and 7 do not exist";
    }
  }
  // The base offset is (pattern start address >> 7) & 7 for a pattern that does not start on an 8 x span
  // boundary. The series keeps every swizzle atom aligned, so a non-zero value is a bug here.
  if (out.base_offset != 0) return "non-zero matrix base offset: not modelled (atoms are kept aligned)";
  return "";
}

std::string mma_kmajor_read(uint64_t desc, MmaEncoding enc, int rows, int k_bytes, int elem_bytes,
                            std::vector<uint32_t>& addr) {
  addr.clear();
  SmemDescriptor d;
  const std::string error = decode_smem_descriptor(desc, enc, d);
  if (!error.empty()) return error;
  if (rows <= 0 || rows % 8 != 0) return "rows must be a positive multiple of 8 (core matrices have 8 rows)";
  if (k_bytes <= 0 || k_bytes % 16 != 0) return "K extent must be a positive multiple of 16 bytes";
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4) return "element size must be 1, 2 or 4 bytes";
  const uint32_t span = swizzle_span(d.swizzle);
  // [tc5-desc] K-major swizzled layouts do not use LBO: the slice one MMA reads must stay inside one span.
  if (d.swizzle != SwizzleMode::NONE && uint32_t(k_bytes) > span)
    return "K extent wider than the swizzle span: K-major swizzled layouts have no LBO to reach past it";

  const int k_elems = k_bytes / elem_bytes;
  addr.resize(size_t(rows) * k_elems);
  for (int r = 0; r < rows; ++r) {
    // [canonical] in bytes: the 8 rows of a core matrix (no swizzle) or of a swizzle atom are `span` apart
    // (1T = 16 B, or sT = span), groups of 8 rows are SBO apart.
    const uint32_t row_offset = uint32_t(r % 8) * span + uint32_t(r / 8) * d.sbo;
    for (int e = 0; e < k_elems; ++e) {
      const uint32_t kb = uint32_t(e * elem_bytes);
      // No swizzle: 16 contiguous bytes, then the next core matrix along K is LBO away ((T,2k):(1,LBO)).
      // Swizzled: K is contiguous inside the span ((T,2k):(1,T)); the XOR below permutes its 16-byte chunks.
      const uint32_t k_offset       = d.swizzle == SwizzleMode::NONE ? kb % 16 + (kb / 16) * d.lbo : kb;
      addr[size_t(r) * k_elems + e] = swizzle_address(d.start_addr + row_offset + k_offset, d.swizzle);
    }
  }
  return "";
}

// ----------------------------------------------------------------------------------------------------------
// Instruction descriptors
// ----------------------------------------------------------------------------------------------------------
std::string decode_instr_descriptor(uint32_t idesc, MmaKind kind, int cta_group, InstrDescriptor& out) {
  out = InstrDescriptor{};
  if (bits(idesc, 0, 2)) return "[tc5-idesc] sparsity (bits 0-2) is not used by this series";
  out.a_format   = uint32_t(bits(idesc, 7, 9));    // bits  7-9:  A format
  out.b_format   = uint32_t(bits(idesc, 10, 12));  // bits 10-12: B format
  out.a_negate   = bits(idesc, 13, 13);            // bit  13:    negate A
  out.b_negate   = bits(idesc, 14, 14);            // bit  14:    negate B
  out.a_mn_major = bits(idesc, 15, 15);            // bit  15:    transpose A (0 = K-major)
  out.b_mn_major = bits(idesc, 16, 16);            // bit  16:    transpose B (0 = K-major)
  out.n          = int(bits(idesc, 17, 22)) << 3;  // bits 17-22: N >> 3
  out.m          = int(bits(idesc, 24, 28)) << 4;  // bits 24-28: M >> 4

  if (kind == MmaKind::F16) {
    if (bits(idesc, 3, 3)) return "[tc5-idesc] saturate (bit 3) is for integer kinds only";
    if (bits(idesc, 6, 6) || bits(idesc, 23, 23) || bits(idesc, 29, 29))
      return "[tc5-idesc] reserved bit 6, 23 or 29 set";
    if (bits(idesc, 30, 31)) return "[tc5-idesc] max shift (bits 30-31) is for .ws only";
    out.d_format = uint32_t(bits(idesc, 4, 5));  // bits  4-5:  D format
    if (out.d_format > 1) return "[tc5-idesc] kind::f16 D format: F16 = 0, F32 = 1";
    if (out.a_format > 1 || out.b_format > 1) return "[tc5-idesc] kind::f16 A/B format: F16 = 0, BF16 = 1";
    if (out.a_format != out.b_format) return "[tc5-shapes] A and B must have the same type";
    if (out.a_format == 1 && out.d_format != 1) return "[tc5-shapes] BF16 inputs need an F32 accumulator";
  } else {
    if (bits(idesc, 3, 3) || bits(idesc, 6, 6) || bits(idesc, 31, 31))
      return "[tc5-idesc] reserved bit 3, 6 or 31 set";
    out.d_format   = 1;                              // D is F32: there is no field
    out.sfb_id     = uint32_t(bits(idesc, 4, 5));    // bits  4-5:  B scale-factor data id
    out.scale_type = uint32_t(bits(idesc, 23, 23));  // bit  23:    scale type (UE4M3 = 0, UE8M0 = 1)
    out.sfa_id     = uint32_t(bits(idesc, 29, 30));  // bits 29-30: A scale-factor data id
    for (uint32_t f : {out.a_format, out.b_format})
      if (f == 2 || f > 5) return "[tc5-idesc] mxf8f6f4 formats: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5";
    if (out.scale_type != 1) return "[tc5-idesc] kind::mxf8f6f4 takes UE8M0 scales (bit 23 = 1)";
    if ((out.a_mn_major && out.a_format > 1) || (out.b_mn_major && out.b_format > 1))
      return "[tc5-idesc] MN-major is valid for 8-bit formats only";
  }

  // [tc5-shapes] dense shapes per CTA group; the block-scaled kinds use M = 128 per CTA.
  const bool block_scaled = kind == MmaKind::MXF8F6F4;
  if (cta_group == 1) {
    if (!(out.m == 128 || (out.m == 64 && !block_scaled)))
      return "[tc5-shapes] cta_group::1: M must be 64 or 128";
    // The ISA table lists N in steps of 8 for both M; DeepGEMM's sm100 kernels and our stages' static_asserts
    // allow only steps of 16 at M = 128. The model takes the stricter rule: what passes it is valid either
    // way.
    const int n_step = out.m == 128 ? 16 : 8;
    if (out.n < n_step || out.n > 256 || out.n % n_step != 0)
      return out.m == 128 ? "[tc5-shapes] cta_group::1, M = 128: N 16..256, step 16 (ours; the ISA: 8)"
                          : "[tc5-shapes] cta_group::1, M = 64: N in 8..256, step 8";
  } else if (cta_group == 2) {
    if (out.m != 128 && out.m != 256) return "[tc5-shapes] cta_group::2: M must be 128 or 256";
    if (out.n < 16 || out.n > 256 || out.n % 16 != 0)
      return "[tc5-shapes] cta_group::2: N in 16..256, step 16";
  } else {
    return "cta_group is 1 or 2";
  }
  return "";
}

// ----------------------------------------------------------------------------------------------------------
// The CTA pair
// ----------------------------------------------------------------------------------------------------------
std::string pair_row(PairOperand op, int m, int n, int row, PairRow& out) {
  if (m != 256) return "[tc5-pair] M = 256 only (M = 128: 64 rows of D per CTA, not modelled)";
  if (n < 16 || n > 256 || n % 16 != 0) return "[tc5-shapes] cta_group::2: N in 16..256, step 16";
  // [tc5-pair] A and D split by M, 128 rows per CTA; B split by N, N / 2 rows per CTA.
  const int half = op == PairOperand::B ? n / 2 : m / 2;
  if (row < 0 || row >= 2 * half) return "row outside the operand";
  out = {row / half, row % half};
  return "";
}

// ----------------------------------------------------------------------------------------------------------
// Accumulator fragments
// ----------------------------------------------------------------------------------------------------------
std::string tmem_ld_32x32b(uint32_t taddr, int warp_id, int lane_id, int reg, int num_regs, TmemCell& out) {
  if (!is_pow2(num_regs) || num_regs > 128) return "[tc5-ld] .32x32b takes .x1 .. .x128 (powers of two)";
  if (warp_id < 0 || lane_id < 0 || lane_id > 31 || reg < 0 || reg >= num_regs)
    return "no such thread/register";
  const uint32_t lane = taddr >> 16, column = taddr & 0xFFFF;  // [tc5-ld] lane in bits 31-16, column in 15-0
  // [tc5-ld] warp w of a warpgroup reaches lanes 32*(w%4) .. +31 only, and .32x32b covers 32 lanes from
  //          `lane`
  if (lane != 32u * uint32_t(warp_id % 4)) return "[tc5-ld] lane field must be 32 * (warp % 4) for this warp";
  if (column + uint32_t(num_regs) > 512) return "[tc5-ld] load runs past TMEM column 511";
  out = {lane + uint32_t(lane_id), column + uint32_t(reg)};
  return "";
}

bool tmem_accumulator_m128(TmemCell cell, uint32_t d_taddr, int n, int& row, int& col) {
  const uint32_t d_lane = d_taddr >> 16, d_column = d_taddr & 0xFFFF;
  // [tc5-ld] Layout D, M = 128: the accumulator spans all 128 lanes, one f32 column per output column.
  if (d_lane != 0 || cell.lane >= 128 || cell.column < d_column || cell.column >= d_column + uint32_t(n))
    return false;
  row = int(cell.lane);
  col = int(cell.column - d_column);
  return true;
}

bool wgmma_accumulator_m64(int warp_in_group, int lane_id, int reg, int n, int& row, int& col) {
  if (warp_in_group < 0 || warp_in_group > 3 || lane_id < 0 || lane_id > 31 || reg < 0 || reg >= n / 2)
    return false;
  // [wgmma-frag] registers come in groups of 4 per 8 columns: {row, row} then {row + 8, row + 8}
  row = 16 * warp_in_group + lane_id / 4 + 8 * ((reg % 4) / 2);
  col = 8 * (reg / 4) + 2 * (lane_id % 4) + reg % 2;
  return true;
}

// ---- scale factors [tc5-cp] [tc5-sf] ----
std::string tcgen05_cp_32x128b_warpx4(uint64_t desc, uint32_t taddr, std::vector<CopiedByte>& out) {
  out.clear();
  const uint32_t lane0 = taddr >> 16, col0 = taddr & 0xFFFF;
  if (lane0 != 0) return "[tc5-cp] .warpx4 writes all 128 lanes: the address's lane field must be 0";
  if (col0 + 4 > 512) return "[tc5-cp] a 128-bit row fills 4 columns: past column 511";
  SmemDescriptor d;
  const std::string error = decode_smem_descriptor(desc, MmaEncoding::TCGEN05_SM100, d);
  if (!error.empty()) return error;
  if (d.swizzle != SwizzleMode::NONE) return "[tc5-cp] swizzled scale sources are not covered by this model";
  // The source: 32 rows of 16 bytes of the canonical K-major layout the descriptor describes [canonical].
  std::vector<uint32_t> addr;
  const std::string read_error = mma_kmajor_read(desc, MmaEncoding::TCGEN05_SM100, 32, 16, 1, addr);
  if (!read_error.empty()) return read_error;
  for (uint32_t quarter = 0; quarter < 4; ++quarter)
    for (uint32_t r = 0; r < 32; ++r)
      for (uint32_t b = 0; b < 16; ++b)
        out.push_back({{32 * quarter + r, col0 + b / 4, b % 4}, addr[r * 16 + b]});
  return "";
}

std::string tcgen05_cp_32x128b_warpx4_pair(uint64_t desc, uint32_t taddr, std::vector<PairCopiedByte>& out) {
  out.clear();
  std::vector<CopiedByte> one;
  const std::string error = tcgen05_cp_32x128b_warpx4(desc, taddr, one);
  if (!error.empty()) return error;
  // [tc5-pair] each CTA: the single-CTA copy, from its own shared memory into its own TMEM
  for (int cta = 0; cta < 2; ++cta)
    for (const CopiedByte& b : one) out.push_back({cta, cta, b});
  return "";
}

std::string mma_scale_read_block32(uint32_t sf_taddr, int row, int rows, uint32_t sf_id, int quarter,
                                   TmemByte& out) {
  if (sf_taddr >> 16) return "[tc5-sf] the scale address's lane field must be 0";
  if (row < 0 || row >= rows || rows > 256)
    return "[tc5-sf] row outside the operand (M <= 128 per CTA, N <= 256)";
  if (sf_id > 3) return "[tc5-sf] SF ids are 2 bits";
  if (quarter < 0 || quarter > 3) return "[tc5-sf] 4 lane quarters";
  out = {uint32_t(32 * quarter + row % 32), (sf_taddr & 0xFFFF) + uint32_t(row / 32), sf_id};
  return "";
}

}  // namespace layout_model
