// matmul_bw.h: what the blockwise-scaled FP8 GEMM kernel (mxfp8/matmul_bw_sm90.cu) takes, and the checks
// made before anything is launched.
//
// C[M,N] (bf16, row-major) = dequant(A)[M,K] * dequant(B)[N,K]^T, where A and B are e4m3 [rows, K] (K-major)
// with fp32 scales as mxfp8/bw_quant.h defines them: A one per 1x128 block (a row, 128 elements of K), B one
// per 128x128 block (DeepSeek-V3's recipe), in cuBLASLt's VEC128_32F and BLK128x128_32F layouts
// (mxfp8/bw_scale_layout.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"  // Launch
#include "common/trace.h"    // DeviceTrace

namespace gemm {

struct BwGemmArgs {
  const void* a;     // e4m3 [M, K]
  const float* sfa;  // fp32, 1x128 blocks: bw_1x128_scale_count(M, K) floats
  const void* b;     // e4m3 [N, K]
  const float* sfb;  // fp32, 128x128 blocks: bw_128x128_scale_count(N, K) floats
  void* c;           // bf16 [M, N]
  int64_t m, n, k;
  // Sizes of the buffers above in bytes, as the caller allocated them: checked against what the shape needs.
  uint64_t a_bytes, sfa_bytes, b_bytes, sfb_bytes, c_bytes;
};

// "" if the shape is one the kernel takes; else one line naming the constraint and the nearest valid value:
// every dimension >= 1, K a multiple of 16 (a 16-byte e4m3 row: TMA's stride rule, and the quantizer's),
// indices below 2^30. Any M and N.
std::string bw_sm90_check_shape(int64_t m, int64_t n, int64_t k);
// The shape, then null pointers, alignment, and every buffer size against what the shape needs.
std::string bw_sm90_check_args(const BwGemmArgs& g);

// Which kernel `bw` runs (docs/performance/mxfp8-bw-decode.md, measured on an H200): up to M = 128, the decode
// kernel (mxfp8/bw_decode_sm90.cuh: B's 128-row tiles on the MMA's M side, A's rows in groups of `cols` on its
// N, K split to fill the GPU), `per_sm` CTAs to an SM; past that, the wide kernel (cols = 0: 128 x 128 tiles,
// A's rows on the M side, clusters of two along M sharing B). The narrowest group that holds M up to 64 rows,
// two groups of 64 up to 128 (one cluster); two CTAs to an SM where the units (B's tiles times A's groups)
// outnumber the SMs, but at 16 rows, where B's stream alone bounds the kernel. At 65-128 rows, where the two
// groups' units outnumber the SMs, the wide kernel instead, its clusters along N sharing A (`along_n`): each
// stage of B reaches one CTA, not the two of a tile's groups; and where they leave the decode kernel no split
// of K (more than half the SMs) at K > 8192, the same, with K split over the idle clusters.
struct BwDecodePick {
  int cols;      // 16, 32 or 64 rows of A per CTA; 0: the wide kernel
  int per_sm;    // CTAs resident on an SM (the decode kernel's ring split among them)
  bool along_n;  // the wide kernel's clusters along N, sharing A's tile (M <= 128)
};
constexpr BwDecodePick bw_decode_pick(int64_t m, int64_t n, int64_t k, int sms) {
  if (m > 128) return {0, 1, false};
  const int cols      = m <= 16 ? 16 : m <= 32 ? 32 : 64;
  const int64_t units = (n + 127) / 128 * ((m + cols - 1) / cols);
  if (m > 64 && (units > sms || (2 * units > sms && k > 8192))) return {0, 1, true};
  return {cols, cols > 16 && units > sms ? 2 : 1, false};
}

// Along N (`along_n`), the wide kernel's clusters are pairs of CTAs, or quads where they pay: each CTA of a
// quad multicasts a quarter of A's tile, so that each SM asks the L2 for 20 KB per K tile instead of 24 and
// each read of A reaches four SMs (cuBLASLt's blockwise kernel runs clusters of four there), and at M <= 96
// the quarter past M is not loaded at all. Quads fit fewer SMs (30 clusters, 120 of an H200's 132), so
// they are taken where the N tiles make more than one wave of them and no more turns than the pairs
// (`pair_clusters`, `quad_clusters`: the clusters of each that are resident at once). Measured on an H200
// (docs/performance/mxfp8-bw-decode.md): at N = 28672 or 57344 3-9% faster at 72-100 rows, within 1% either
// way at 96-128; 1-2% slower in one wave at N = 10240 and 14336, 20-30% where pairs would split K over idle
// clusters (N = 8192).
constexpr bool bw_along_n_quads(int64_t n, int pair_clusters, int quad_clusters) {
  const int64_t tiles = (n + 127) / 128, pairs = (tiles + 1) / 2, quads = (tiles + 3) / 4;
  return quad_clusters > 0 && quads > quad_clusters &&
         (quads + quad_clusters - 1) / quad_clusters <= (pairs + pair_clusters - 1) / pair_clusters;
}

// A kernel variant: tensor maps, shared-memory size and the cluster launch are built by `prepare`, which exits
// with a message if bw_sm90_check_args(g) is not empty (callers check first).
struct BwVariant {
  const char* name;    // "bw"
  const char* what;    // one line for the table
  const char* kernel;  // which kernel and file
  Launch (*prepare)(const BwGemmArgs&);
  Launch (*prepare_traced)(const BwGemmArgs&, DeviceTrace& trace);  // the profiler compiled in; never timed
};
std::vector<BwVariant> bw_sm90_variants();

}  // namespace gemm
