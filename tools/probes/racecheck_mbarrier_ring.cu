// racecheck_mbarrier_ring.cu: does compute-sanitizer racecheck follow mbarrier phases as synchronization?
//
// A correct two-slot ring in shared memory, the protocol of the MXFP8 kernel's decoded scales without the TMA:
// warp 0 (the writer) fills slot s with plain stores, then arrives on full[s] (release); warp 1 (the reader)
// waits on full[s] (acquire), reads the slot with plain loads, then arrives on empty[s] (release); the writer
// waits on empty[s] (acquire) before it writes slot s again. Every write of a slot's later use is ordered
// after every read of its earlier use by an acquire of the reader's release.
//
// Built by CMake as build/racecheck_mbarrier_ring (sm_90a, an H100 or H200), or by hand:
//   nvcc -arch=sm_90a -o ring tools/probes/racecheck_mbarrier_ring.cu
//   compute-sanitizer --tool racecheck ./ring          # a correct ring: racecheck reports 0 hazards
//   compute-sanitizer --tool racecheck ./ring racy     # the writer rewrites a handed-over slot: a race
//   compute-sanitizer --tool racecheck ./ring cluster  # the correct ring in both CTAs of a 2-CTA cluster
//   compute-sanitizer --tool racecheck ./ring elected  # the reader's lanes __syncwarp, one lane arrives
//   ./ring                                             # prints the checksum; "data ok" when it is right
// Measured on the H100 (CUDA 13.0's compute-sanitizer): correct 0 hazards, cluster 0, racy 8, elected 4. So
// racecheck follows an mbarrier's phases as ordering, in a cluster too, but only for the threads that
// arrive themselves: lanes ordered before an elected lane's arrival by __syncwarp are still reported.
#include <cstdio>
#include <cstdint>

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%0], %1;\n\t"
      "@!p bra WAIT_%=;\n\t}" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

constexpr int SLOTS = 2, WORDS = 256, ROUNDS = 16;

__global__ void ring(unsigned long long* out, bool racy, bool elected) {
  __shared__ float slot[SLOTS][WORDS];
  __shared__ uint64_t full[SLOTS], empty[SLOTS];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0)
    for (int s = 0; s < SLOTS; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&full[s])), "r"(32) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(&empty[s])), "r"(elected ? 1 : 32)
                   : "memory");
    }
  __syncthreads();
  unsigned long long sum = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    const int s = r % SLOTS;
    const uint32_t use = uint32_t(r / SLOTS);  // this slot's use: its barriers' phase
    if (warp == 0) {
      if (use > 0) wait(&empty[s], (use - 1) & 1);  // the reader is done with the slot's previous use
      for (int i = lane; i < WORDS; i += 32) slot[s][i] = float(r * WORDS + i);
      arrive(&full[s]);
      // racy: write the slot again (the same values) after handing it over: nothing orders these writes
      // against the reader's loads, a real race that racecheck must report
      if (racy)
        for (int i = lane; i < WORDS; i += 32) slot[s][i] = float(r * WORDS + i);
    } else if (warp == 1) {
      wait(&full[s], use & 1);
      for (int i = lane; i < WORDS; i += 32) sum += (unsigned long long)slot[s][i];
      if (elected) {  // the warp's loads, then one lane's arrival for the whole warp
        __syncwarp();
        if (lane == 0) arrive(&empty[s]);
      } else {
        arrive(&empty[s]);
      }
    }
  }
  if (warp == 1) atomicAdd(out, sum);
}

int main(int argc, char** argv) {
  // "racy": the writer also rewrites a slot it has handed over (a race); "cluster": the same correct ring in
  // each CTA of a 2-CTA cluster (two CTAs, each with its own shared memory, as the GEMM kernels run);
  // "elected": the reader's lanes sync with __syncwarp and one lane arrives on "empty" for the warp
  const bool racy = argc > 1 && argv[1][0] == 'r', cluster = argc > 1 && argv[1][0] == 'c',
             elected = argc > 1 && argv[1][0] == 'e';
  unsigned long long* d = nullptr;
  auto ok = [](cudaError_t e, const char* what) {
    if (e != cudaSuccess) std::fprintf(stderr, "racecheck_mbarrier_ring: %s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess;
  };
  if (!ok(cudaMalloc(&d, sizeof *d), "cudaMalloc") || !ok(cudaMemset(d, 0, sizeof *d), "cudaMemset")) return 1;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr;
  attr.id               = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster ? 2 : 1;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.gridDim = dim3(cluster ? 2 : 1);
  cfg.blockDim = dim3(64);
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  if (!ok(cudaLaunchKernelEx(&cfg, ring, d, racy, elected), "launch (needs an sm_90 GPU)")) return 1;
  unsigned long long got = 0;
  if (!ok(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost), "the kernel or the copy back")) return 1;
  const unsigned long long n = (unsigned long long)ROUNDS * WORDS, want = n * (n - 1) / 2 * (cluster ? 2 : 1);
  std::printf("%s ring: checksum %llu, expected %llu: %s\n", racy ? "racy" : cluster ? "cluster" : elected ? "elected" : "correct", got, want,
              got == want ? "data ok" : "data wrong");
  return got == want || racy ? 0 : 1;
}
