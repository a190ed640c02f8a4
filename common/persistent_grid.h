// persistent_grid.h: the launch of a persistent kernel in clusters, shared by the kernels that loop over tiles
// (v6 to v8 and mxfp8, Hopper and Blackwell): a 1-D grid of clusters along x, as many as can be resident at once
// (cudaOccupancyMaxActiveClusters: one CTA per SM when the ring takes the shared memory), never more than there
// are units of work (persistent_clusters, common/scheduler.h). Host code only.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "common/check.h"
#include "common/problem.h"    // EXIT_FAIL
#include "common/scheduler.h"  // persistent_clusters

namespace gemm {

// The launch configuration of a persistent grid. Copy it into the launch lambda and call launch() there: the
// configuration's attribute pointer is set to the copy's own cluster attribute at each launch.
struct PersistentGrid {
  cudaLaunchConfig_t cfg      = {};
  cudaLaunchAttribute cluster = {};
  int clusters                = 0;  // clusters launched: cfg.gridDim.x / the cluster size
  int max_clusters            = 0;  // clusters that can be resident at once (the occupancy query)

  // Launch `count` clusters instead (1 <= count <= max_clusters): a schedule of work rather than of whole
  // units (the stream-K plans of v7 and v8) wants every resident cluster, or as many as its plan has work for.
  void resize(int count) {
    clusters    = count;
    cfg.gridDim = dim3(unsigned(count) * cluster.val.clusterDim.x);
  }

  template <typename... Params, typename... Args>
  void launch(cudaStream_t stream, void (*kernel)(Params...), Args&&... args) {
    cfg.stream   = stream;
    cfg.attrs    = &cluster;
    cfg.numAttrs = 1;
    CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
  }
};

// The clusters of `cluster_size` CTAs of `kernel` (its dynamic shared memory attribute already set) that fit
// on this GPU at once, 0 where none does: the occupancy query alone, which persistent_grid below exits on.
// For a rule that may fall back to another kernel where this one does not fit (bw's quads along N).
template <typename... Params>
int max_active_clusters(void (*kernel)(Params...), unsigned threads, unsigned smem_bytes, int cluster_size) {
  cudaLaunchAttribute cluster;
  cluster.id               = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = unsigned(cluster_size);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg   = {};
  cfg.blockDim             = dim3(threads);
  cfg.dynamicSmemBytes     = smem_bytes;
  cfg.attrs                = &cluster;
  cfg.numAttrs             = 1;
  cfg.gridDim              = dim3(unsigned(cluster_size));  // a multiple of the cluster: the query's only need
  int max_clusters         = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&max_clusters, kernel, &cfg));
  return max_clusters;
}

// The grid for `kernel` (its dynamic shared memory attribute already set) with `threads` per CTA and
// `smem_bytes` of dynamic shared memory, in clusters of `cluster_size` CTAs along x, over tiles_m x tiles_n
// tiles (a unit of work: cluster_size vertically adjacent tiles). Exits with a message naming `stage` when not
// even one cluster fits on this GPU.
template <typename... Params>
PersistentGrid persistent_grid(void (*kernel)(Params...), unsigned threads, unsigned smem_bytes, int cluster_size,
                               int tiles_m, int tiles_n, const char* stage) {
  PersistentGrid g;
  g.cluster.id               = cudaLaunchAttributeClusterDimension;
  g.cluster.val.clusterDim.x = unsigned(cluster_size);
  g.cluster.val.clusterDim.y = 1;
  g.cluster.val.clusterDim.z = 1;
  g.cfg.blockDim             = dim3(threads);
  g.cfg.dynamicSmemBytes     = smem_bytes;
  g.cfg.attrs                = &g.cluster;
  g.cfg.numAttrs             = 1;
  const int max_clusters     = max_active_clusters(kernel, threads, smem_bytes, cluster_size);
  g.max_clusters             = max_clusters;
  g.clusters     = persistent_clusters(max_clusters, tiles_m, tiles_n, cluster_size);
  if (g.clusters < 1) {
    std::fprintf(stderr,
                 "error: %s: no cluster of %d CTAs of %u threads with %u B of shared memory fits on this GPU\n", stage,
                 cluster_size, threads, smem_bytes);
    std::exit(EXIT_FAIL);
  }
  g.cfg.gridDim = dim3(unsigned(g.clusters * cluster_size));
  g.cfg.attrs   = nullptr;  // launch() points it at the copy's own attribute
  return g;
}

// The clusters of `kernel` that fit on this GPU at once (the occupancy query above; its dynamic shared memory
// attribute set here): what a rule that picks between kernels compares their work with (v8d).
template <typename... Params>
int resident_clusters(void (*kernel)(Params...), unsigned threads, unsigned smem_bytes, int cluster_size,
                      const char* stage) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)));
  return persistent_grid(kernel, threads, smem_bytes, cluster_size, 1, 1, stage).max_clusters;
}

}  // namespace gemm
