// bw_quant_gpu.h: the GPU 1x128 and 128x128 block quantizers (mxfp8/bw_quant.cu), byte for byte the CPU
// reference of mxfp8/bw_quant.h. Library target mx_quant; kernels for sm_90a and sm_100a / sm_103a.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "mxfp8/bw_quant.h"
#include "mxfp8/mx_quant_gpu.h"  // MxInput: bf16 or fp32 input

namespace gemm {

// Quantizes in [rows, K] (row-major, K-major rows; bf16 or fp32) into data [rows, K] e4m3 and scales
// (bw_scale_count(g, rows, K) fp32, cuBLASLt's layout for g, padding included: mxfp8/bw_scale_layout.h),
// enqueued on `stream`. Every byte of both outputs is written, padding too; nothing else is launched.
// Returns "" once enqueued, or a message naming the broken constraint with nothing launched: the shape
// (bw_check_shape), null pointers, or pointers not 16-byte aligned. Launch failures exit through
// CUDA_CHECK.
std::string bw_quantize_gpu(const void* in, MxInput input, int64_t rows, int64_t k, BwGranularity g,
                            void* data, float* scales, cudaStream_t stream);

}  // namespace gemm
