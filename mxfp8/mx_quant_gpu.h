// mx_quant_gpu.h: the GPU MXFP8 quantizer (mxfp8/mx_quant.cu), byte for byte the CPU reference of
// mxfp8/mx_quant.h. Library target mx_quant; kernels for sm_90a and sm_100a / sm_103a.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "mxfp8/mx_quant.h"

namespace gemm {

enum class MxInput { Bf16, F32 };

// Quantizes in [rows, K] (row-major, K-major rows; bf16 or fp32) into data [rows, K] e4m3 and scales
// (mx_scale_tensor_bytes(rows, K) bytes, the blocked layout of common/mx_scale_layout.h, padding 0x00),
// enqueued on `stream`. Returns "" once enqueued, or a message naming the broken constraint with nothing
// launched: the shape (mx_check_shape), null pointers, or pointers not aligned (in and data to 16 bytes,
// scales to 4). Launch failures exit through CUDA_CHECK.
// When the layout has padding (rows % 128 != 0 or K / 32 % 4 != 0) a cudaMemsetAsync of the scale tensor
// (1/32 of the data bytes) comes first.
std::string mx_quantize_gpu(const void* in, MxInput input, int64_t rows, int64_t k, MxRule rule, void* data,
                            void* scales, cudaStream_t stream);

}  // namespace gemm
