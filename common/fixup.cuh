// fixup.cuh: a finisher's sum of fp32 partials, which other CTAs left in a fixup's workspace
// (common/fixup_memory.h): the stream-K finisher on Hopper (v7 and v8, matmul_vN_sm90.cu, add_partials) and the
// last split of the split-K decode kernels (v8's on both architectures, bw's: count_split, then
// sum_split_partials). Device code only; the stream-K flags and the split counters are the kernels' memory.
#pragma once

#include <cuda_runtime.h>

#include "common/ptx.cuh"

namespace gemm {

// Thread t of the warpgroup (0..127) adds `count` partials (1..BATCH) to its ACC_REGS accumulators, in the
// order i = 0, 1, ...: the same sum whatever the order the partials were written in (bit-identical output).
// Partial i starts at part + i * stride (in float4), and thread t's float4 j of it is at j * 128 + t
// (partial_float4, common/streamk.h): coalesced, and the writer's thread t held the same elements. Loads are
// ld.global.cg (__ldcg): from L2, where the writer's SM left them.
// BATCH 1 (v7; v8's wide tile) adds each float4 as it comes: its 128 loaded floats on top of 128 accumulators
// would spill. BATCH > 1 (v8's narrow tile: 4 partials of 8 float4 per thread in flight) issues every load of
// the batch before the first add, so that a batch costs one round trip to L2 instead of one per partial; a
// partial past `count` reads the last one again, so that no branch sits between the loads.
template <int BATCH, int ACC_REGS>
__device__ __forceinline__ void add_partials(float (&acc)[ACC_REGS], const float4* mine, int count = 1,
                                             int stride = 0) {
  static_assert(BATCH >= 1 && ACC_REGS % 4 == 0, "whole partials, of whole float4 per thread");
  if constexpr (BATCH == 1) {
#pragma unroll
    for (int j = 0; j < ACC_REGS / 4; ++j) {
      const float4 v = __ldcg(mine + j * 128);
      acc[4 * j + 0] += v.x;
      acc[4 * j + 1] += v.y;
      acc[4 * j + 2] += v.z;
      acc[4 * j + 3] += v.w;
    }
  } else {
    float4 v[BATCH][ACC_REGS / 4];
#pragma unroll
    for (int i = 0; i < BATCH; ++i)
#pragma unroll
      for (int j = 0; j < ACC_REGS / 4; ++j)
        v[i][j] = __ldcg(mine + (i < count ? i : count - 1) * stride + j * 128);
#pragma unroll
    for (int i = 0; i < BATCH; ++i) {
      if (i < count) {
#pragma unroll
        for (int j = 0; j < ACC_REGS / 4; ++j) {
          acc[4 * j + 0] += v[i][j].x;
          acc[4 * j + 1] += v[i][j].y;
          acc[4 * j + 2] += v[i][j].z;
          acc[4 * j + 3] += v[i][j].w;
        }
      }
    }
  }
}

// The split counter of a split-K decode kernel (common/split_k.h), one per tile, 0 between launches. Once
// every thread of the group (`threads` of them, named barrier `bar`) has stored its part of this CTA's
// partial, one of them (`counts`) adds 1 to the tile's counter, acquire and release at GPU scope in one atom:
// the release, after the barrier, publishes the whole group's stores (it is cumulative over what happens
// before it), and the split that sees splits - 1 is the last, whose acquire sees every other split's partial.
// The last resets the counter for the next launch, which starts after this one ends. The second barrier hands
// the answer, through the kernel's __shared__ word `last`, and what the acquire made visible, to the whole
// group.
__device__ __forceinline__ bool count_split(uint32_t* counter, int splits, uint32_t bar, uint32_t threads,
                                            bool counts, uint32_t& last) {
  ptx::named_barrier_sync(bar, threads);
  if (counts) {
    const uint32_t before = ptx::atom_add_acq_rel_gpu(counter, 1u);
    last                  = before == uint32_t(splits - 1);
    if (last) *counter = 0;
  }
  ptx::named_barrier_sync(bar, threads);
  return last != 0;
}

// The last split of a split-K decode kernel (common/split_k.h) adds every split's partial, its own read back
// too, in split order: the same bits whoever is last. Partial s starts at first + s * partial_float4s (in
// float4), and this thread's N / 4 float4s of it at thread_float4 + i * float4_stride (common/split_k.h,
// split_partial_float4: each beside the same float4 of the next thread, so that a warp's loads are whole
// 128-byte lines). BATCH partials' loads are issued before the first of their adds, so that a batch costs one
// trip to L2; a split past the end reads the last one again, so that no branch sits between the loads.
// Writes the sum to `sum`.
template <int BATCH, int N>
__device__ __forceinline__ void sum_split_partials(float (&sum)[N], const float4* first, int splits,
                                                   int partial_float4s, int thread_float4,
                                                   int float4_stride) {
  static_assert(BATCH >= 1 && N % 4 == 0, "whole partials, of whole float4 per thread");
#pragma unroll
  for (int i = 0; i < N; ++i) sum[i] = 0.0f;
  for (int s0 = 0; s0 < splits; s0 += BATCH) {
    float4 v[BATCH][N / 4];
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const int s = s0 + b < splits ? s0 + b : splits - 1;  // past the end: the last again
#pragma unroll
      for (int i = 0; i < N / 4; ++i)
        v[b][i] = __ldcg(first + size_t(s) * partial_float4s + thread_float4 + i * float4_stride);
    }
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      if (s0 + b < splits) {
#pragma unroll
        for (int i = 0; i < N / 4; ++i) {
          sum[4 * i + 0] += v[b][i].x;
          sum[4 * i + 1] += v[b][i].y;
          sum[4 * i + 2] += v[b][i].z;
          sum[4 * i + 3] += v[b][i].w;
        }
      }
    }
  }
}

}  // namespace gemm
