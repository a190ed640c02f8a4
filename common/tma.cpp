#include "common/tma.h"

#include "common/tcgen05_emu.h"  // note_tensor_map

#include <cstdio>
#include <cstdlib>

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime.h>

namespace gemm {

std::string validate_tma(const TmaDesc& d, const void* global_address) {
  auto s = [](auto v) { return std::to_string(v); };
  if (d.rank < 2 || d.rank > 4) return "tensor map rank " + s(d.rank) + " is not in [2, 4]";
  if (d.elem_bytes != 1 && d.elem_bytes != 2 && d.elem_bytes != 4)
    return "element size " + s(d.elem_bytes) + " B is not 1, 2 or 4";
  if (reinterpret_cast<uintptr_t>(global_address) % 16 != 0) return "global address is not 16-byte aligned";
  for (int i = 0; i < d.rank; ++i) {
    if (d.dims[i] == 0 || d.dims[i] > (uint64_t(1) << 32))
      return "dimension " + s(i) + " extent " + s(d.dims[i]) + " is not in [1, 2^32]";
    if (d.box[i] == 0 || d.box[i] > 256)
      return "box dimension " + s(i) + " = " + s(d.box[i]) + " is not in [1, 256]";
  }
  for (int i = 0; i + 1 < d.rank; ++i) {
    if (d.strides[i] % 16 != 0)
      return "global stride " + s(i + 1) + " = " + s(d.strides[i]) +
             " B is not a multiple of 16 B (for a K-major bf16 operand: K must be a multiple of 8)";
    if (d.strides[i] >= (uint64_t(1) << 40)) return "global stride " + s(i + 1) + " is not below 2^40 B";
  }
  const uint64_t inner_bytes = uint64_t(d.box[0]) * d.elem_bytes;
  if (inner_bytes % 16 != 0) return "inner box extent " + s(inner_bytes) + " B is not a multiple of 16 B";
  if (d.swizzle != Swizzle::None && inner_bytes > swizzle_span_bytes(d.swizzle))
    return "inner box extent " + s(inner_bytes) + " B exceeds the " + s(swizzle_span_bytes(d.swizzle)) +
           " B swizzle span";
  return "";
}

namespace {

PFN_cuTensorMapEncodeTiled_v12000 get_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (fn) return fn;
  void* p                           = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
  if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || p == nullptr) {
    std::fprintf(
        stderr,
        "error: cannot reach cuTensorMapEncodeTiled through the driver (cuda error %d: %s, query result "
        "%d). Is an NVIDIA driver >= 12.0 installed?\n",
        int(err), cudaGetErrorString(err), int(q));
    std::exit(1);
  }
  fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  return fn;
}

CUtensorMapSwizzle to_cu_swizzle(Swizzle s) {
  switch (s) {
    case Swizzle::B32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case Swizzle::B64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case Swizzle::B128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    default:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

CUtensorMapL2promotion to_cu_promotion(L2Promotion p) {
  switch (p) {
    case L2Promotion::None:
      return CU_TENSOR_MAP_L2_PROMOTION_NONE;
    case L2Promotion::B64:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case L2Promotion::B128:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    default:
      return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
}

}  // namespace

CUtensorMap make_tensor_map(const TmaDesc& d, const void* global_address, const char* what) {
  const std::string problem = validate_tma(d, global_address);
  if (!problem.empty()) {
    std::fprintf(stderr, "error: tensor map for %s: %s\n", what, problem.c_str());
    std::exit(1);
  }
  const CUtensorMapDataType dtype = d.elem_bytes == 2   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                    : d.elem_bytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  cuuint64_t dims[4], strides[3];
  cuuint32_t box[4], elem_strides[4];
  for (int i = 0; i < d.rank; ++i) {
    dims[i]         = d.dims[i];
    box[i]          = d.box[i];
    elem_strides[i] = 1;
    if (i + 1 < d.rank) strides[i] = d.strides[i];
  }
  CUtensorMap map;
  const CUresult res =
      get_encoder()(&map, dtype, cuuint32_t(d.rank), const_cast<void*>(global_address), dims, strides, box,
                    elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, to_cu_swizzle(d.swizzle),
                    to_cu_promotion(d.l2_promotion), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS) {
    std::fprintf(stderr, "error: cuTensorMapEncodeTiled failed for %s with CUresult %d\n", what, int(res));
    std::exit(1);
  }
  uint32_t box_bytes = d.elem_bytes;
  for (int i = 0; i < d.rank; ++i) box_bytes *= d.box[i];
  tc5emu::note_tensor_map(&map, box_bytes);  // the tcgen05 emulator's table (a no-op unless it is enabled)
  return map;
}

TmaDesc kmajor_tma_2d(uint64_t rows_total, uint64_t k_total, uint32_t box_rows, uint32_t box_k,
                      uint32_t elem_bytes, Swizzle swizzle) {
  TmaDesc d;
  d.rank       = 2;
  d.dims[0]    = k_total;
  d.dims[1]    = rows_total;
  d.strides[0] = k_total * elem_bytes;
  d.box[0]     = box_k;
  d.box[1]     = box_rows;
  d.elem_bytes = elem_bytes;
  d.swizzle    = swizzle;
  return d;
}

TmaDesc kmajor_tma_3d(uint64_t rows_total, uint64_t k_total, uint32_t box_rows, uint32_t block_k,
                      uint32_t slice_elems, uint32_t elem_bytes, Swizzle swizzle) {
  return kmajor_tma_3d(rows_total, k_total, {slice_elems, box_rows, block_k / slice_elems},
                       slice_elems * elem_bytes, elem_bytes, swizzle);
}

TmaDesc kmajor_tma_3d(uint64_t rows_total, uint64_t k_total, const uint32_t (&box)[3], uint32_t slice_bytes,
                      uint32_t elem_bytes, Swizzle swizzle) {
  TmaDesc d;
  d.rank       = 3;
  d.dims[0]    = box[0];
  d.dims[1]    = rows_total;
  d.dims[2]    = k_total / box[0];
  d.strides[0] = k_total * elem_bytes;  // next row
  d.strides[1] = slice_bytes;           // next slice along K
  d.box[0]     = box[0];
  d.box[1]     = box[1];
  d.box[2]     = box[2];
  d.elem_bytes = elem_bytes;
  d.swizzle    = swizzle;
  return d;
}

}  // namespace gemm
