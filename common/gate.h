// gate.h: the gate in front of every timed round (common/timing.cpp).
//
// Where a launch takes the GPU less time than it takes the host to enqueue it (512^3: a few microseconds of
// GPU time against several of host time for the launch and its events; cuBLASLt's call costs the host more
// than a kernel launch does), launches enqueued one by one reach a GPU that has run dry, and the events
// around each launch then time the host as much as the GPU, and the side with the slower host path loses.
// So each round waits behind a gate: a one-thread kernel that polls a flag in pinned host memory. The host
// closes the gate (enqueues that kernel), enqueues the whole round behind it, and opens it (writes the flag):
// the round's launches are then all in the stream and run back to back on the GPU, whatever the host's pace.
//
// A gate never hangs a run: it opens on its own after `timeout_ms` (a launch that synchronises with the
// GPU, and so could never let the host reach open(), would otherwise deadlock), and counts those rounds.
// Only kernels already loaded belong behind a gate: under lazy module loading (CUDA's default) a kernel's
// first launch can wait for the kernels running on the GPU, the gate among them, so it holds the host until
// the gate times out. The timed rounds' warm-up launches (ungated) load every kernel first.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace gemm {

class Gate {
 public:
  explicit Gate(double timeout_ms = 200.0);
  ~Gate();
  Gate(const Gate&)            = delete;
  Gate& operator=(const Gate&) = delete;
  // Enqueues the gate on `stream`: work enqueued after it waits until the next open() (or the timeout).
  void close(cudaStream_t stream);
  // Opens the gate last closed.
  void open();
  // Gates that opened on their timeout, not on open(): readable once the stream has passed them.
  uint32_t timeouts() const;

 private:
  volatile uint32_t* flag_    = nullptr;  // pinned, mapped: the host writes the number of the gate to open
  volatile uint32_t* expired_ = nullptr;  // pinned, mapped: the gate kernel counts its timeouts here
  uint32_t closed_            = 0;        // gates closed so far; gate i opens when *flag_ reaches i
  uint64_t timeout_ns_        = 0;
};

}  // namespace gemm
