// clc.cuh: Cluster Launch Control (sm_100; PTX ISA 8.6 "clusterlaunchcontrol", CUDA Programming Guide
// "Cluster Launch Control"), one wrapper per instruction.
//
// A persistent kernel sizes its grid to the GPU and loops; with CLC the grid keeps one cluster per work unit,
// and a running cluster asks the hardware to cancel the launch of one that has not started yet and does its
// work instead. The GPU then balances the work itself, and a cluster that never gets an SM (other kernels
// hold them) costs nothing: its work is taken by whoever runs.
//
// The protocol, per request (PTX ISA example of clusterlaunchcontrol.try_cancel):
//  1. Every CTA that will read the response announces its 16 bytes on its own mbarrier
//     (ptx::mbarrier_arrive_expect_tx(bar, CLC_RESPONSE_BYTES)).
//  2. One thread issues try_cancel (or try_cancel_multicast: the response lands at the same offset in every
//     CTA of the cluster, and completes on the barrier at the same offset in each).
//  3. Each reader waits on its barrier, loads the response (load_response) and decodes it: is_canceled, then
//     first_ctaid_x (the first CTA of the canceled cluster: whose work this cluster now does).
//  4. Before the response's buffer is handed to the next request: fence.proxy.async.shared::cta
//     (ptx::fence_proxy_async_shared), since the response is written by the async proxy.
// Two rules with undefined behaviour on the hardware (the emulator traps on both): no new request from a CTA
// that has observed a failed one; no first_ctaid of a failed response.
//
// SASS (read with cuobjdump from nvcc 13.0, sm_100a): try_cancel is UGETNEXTWORKID.SELFCAST, the multicast
// form UGETNEXTWORKID.BROADCAST; query_cancel has no instruction of its own (integer ops on the response).
// With GEMM_TCGEN05_EMULATE (a Blackwell file compiled for sm_90a), these are the emulator's
// (common/tcgen05_emu.cuh, "Cluster Launch Control").
#pragma once

#include <cstdint>

#include "common/ptx.cuh"
#include "common/tcgen05.cuh"  // GEMM_HAS_TCGEN05: CLC exists exactly where tcgen05 does, in this series

namespace gemm::clc {

constexpr uint32_t CLC_RESPONSE_BYTES = 16;

// The response as it sits in shared memory: 16 bytes, 16-byte aligned (.b128). Opaque: decode it only with
// is_canceled / first_ctaid_x.
struct alignas(16) Response {
  uint64_t lo, hi;
};

#if defined(GEMM_HAS_TCGEN05) && !defined(GEMM_TC5_EMULATED)

// Asks to cancel the launch of a cluster of this grid that has not started. The response is written to
// `response` of this CTA and completes 16 bytes on `bar` (complete_tx; the caller announced them).
// (cuda::ptx::clusterlaunchcontrol_try_cancel)
__device__ __forceinline__ void try_cancel(Response* response, uint64_t* bar) {
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(
          ptx::smem_addr(response)),
      "r"(ptx::smem_addr(bar))
      : "memory");
}

// The same request; the response is written to `response`'s offset in EVERY CTA of the cluster and completes
// on the barrier at `bar`'s offset in each. Undefined if a CTA of the cluster has exited.
// (cuda::ptx::clusterlaunchcontrol_try_cancel_multicast)
__device__ __forceinline__ void try_cancel_multicast(Response* response, uint64_t* bar) {
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all"
      ".b128 [%0], [%1];" ::"r"(ptx::smem_addr(response)),
      "r"(ptx::smem_addr(bar))
      : "memory");
}

// After the wait on the response's barrier (acquire): its 16 bytes into registers.
__device__ __forceinline__ Response load_response(const Response* response) {
  Response r;
  asm volatile("ld.shared.v2.b64 {%0, %1}, [%2];" : "=l"(r.lo), "=l"(r.hi) : "r"(ptx::smem_addr(response))
               : "memory");
  return r;
}

// Did the request cancel a cluster? (cuda::ptx::clusterlaunchcontrol_query_cancel_is_canceled)
__device__ __forceinline__ bool is_canceled(Response r) {
  uint32_t ok;
  asm volatile(
      "{\n\t.reg .b128 resp;\n\t.reg .pred p;\n\t"
      "mov.b128 resp, {%1, %2};\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, resp;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(ok)
      : "l"(r.lo), "l"(r.hi));
  return ok != 0;
}

// blockIdx.x of the first CTA of the canceled cluster; only for a response that is_canceled.
// (cuda::ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x)
__device__ __forceinline__ uint32_t first_ctaid_x(Response r) {
  uint32_t x;
  asm volatile(
      "{\n\t.reg .b128 resp;\n\t"
      "mov.b128 resp, {%1, %2};\n\t"
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, resp;\n\t}"
      : "=r"(x)
      : "l"(r.lo), "l"(r.hi));
  return x;
}

#endif  // GEMM_HAS_TCGEN05 && !GEMM_TC5_EMULATED

}  // namespace gemm::clc

#if defined(GEMM_TC5_EMULATED)
namespace gemm::clc {
__device__ __forceinline__ void try_cancel(Response* response, uint64_t* bar) {
  tc5emu::clc_try_cancel(tc5emu::smem_u32(response), tc5emu::smem_u32(bar), false);
}
__device__ __forceinline__ void try_cancel_multicast(Response* response, uint64_t* bar) {
  tc5emu::clc_try_cancel(tc5emu::smem_u32(response), tc5emu::smem_u32(bar), true);
}
__device__ __forceinline__ Response load_response(const Response* response) {
  Response r;
  asm volatile("ld.shared.v2.b64 {%0, %1}, [%2];" : "=l"(r.lo), "=l"(r.hi) : "r"(tc5emu::smem_u32(response))
               : "memory");
  return r;
}
__device__ __forceinline__ bool is_canceled(Response r) { return tc5emu::clc_is_canceled(r.lo, r.hi); }
__device__ __forceinline__ uint32_t first_ctaid_x(Response r) { return tc5emu::clc_first_ctaid_x(r.lo, r.hi); }
}  // namespace gemm::clc
#endif  // GEMM_TC5_EMULATED
