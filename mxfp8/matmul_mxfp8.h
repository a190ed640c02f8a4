// matmul_mxfp8.h: what the MXFP8 GEMM kernels take, and the checks made before anything is launched.
//
// C[M,N] (fp32, row-major) = dequant(A)[M,K] * dequant(B)[N,K]^T, where A and B are MXFP8 as
// mxfp8/mx_quant.h defines it: e4m3 data [rows, K] (K-major) and e8m0 scales in the blocked layout of
// common/mx_scale_layout.h, one per 1x32 block along K.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"  // Launch
#include "common/trace.h"    // DeviceTrace

namespace gemm {

struct MxGemmArgs {
  const void* a;    // e4m3 [M, K]
  const void* sfa;  // e8m0, blocked layout of an M x K/32 grid
  const void* b;    // e4m3 [N, K]
  const void* sfb;  // e8m0, blocked layout of an N x K/32 grid
  float* c;         // fp32 [M, N]
  int64_t m, n, k;
  // Sizes of the buffers above in bytes, as the caller allocated them: checked against what the shape needs.
  uint64_t a_bytes, sfa_bytes, b_bytes, sfb_bytes, c_bytes;
};

// "" if the shape is one the Hopper kernel takes; else one line naming the constraint and the nearest
// valid value: every dimension >= 1, K a multiple of 32 (whole MX blocks, mxfp8/matmul_mxfp8_sm90.cu says
// why that is the whole rule), indices below 2^30. Any M and N.
std::string mxfp8_sm90_check_shape(int64_t m, int64_t n, int64_t k);
// The shape, then null pointers and every buffer size against what the shape needs.
std::string mxfp8_sm90_check_args(const MxGemmArgs& g);

// A Hopper kernel variant: tensor maps, shared-memory size and the cluster launch are built by `prepare`,
// which exits with a message if mxfp8_sm90_check_args(g) is not empty (callers check first; this is the last
// guard before a launch).
struct MxVariant {
  const char* name;    // "mx"
  const char* what;    // one line for the table
  const char* kernel;  // which kernel and file
  Launch (*prepare)(const MxGemmArgs&);
  // The same kernel with the in-kernel profiler compiled in (common/profiler.cuh), recording into `trace`
  // (--trace); never timed.
  Launch (*prepare_traced)(const MxGemmArgs&, DeviceTrace& trace);
};
// The Hopper variants (mxfp8/matmul_mxfp8_sm90.cu), one kernel templated on the consumer layout: mx (2
// consumer warpgroups of m64n128k32, two partials) and mx4 (4 of m64n64k32, one partial each).
std::vector<MxVariant> mxfp8_sm90_variants();

}  // namespace gemm
