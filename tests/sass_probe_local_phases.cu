// sass_probe_local_phases.cu: the pattern seed 001 lost 17% to, kept here so that the SASS test's
// local-memory rule is shown to fire (sass/mxfp8/local_phases_probe_fails, WILL_FAIL): per-stage parities in
// a register array indexed by the run-time stage. nvcc 13.0 puts a 6-entry array (NUM_STAGES of the MXFP8
// kernel) in local memory (STL/LDL); a 2-entry one it turns into selects. The kernel keeps one scalar phase
// per ring and addresses barriers in shared memory instead.
#include <cstdint>

__global__ void local_phases_probe_kernel(const int* order, int n, uint32_t* out) {
  __shared__ uint64_t bar[6];
  uint32_t phase[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const int stage = order[i];
    uint32_t done;
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, "
        "p;\n\t}"
        : "=r"(done)
        : "r"(uint32_t(__cvta_generic_to_shared(&bar[stage]))), "r"(phase[stage])
        : "memory");
    phase[stage] ^= done;
  }
  out[threadIdx.x] = phase[0] + phase[5];
}
