// matmul_v7.cu: stage 7 on Blackwell (sm_100a) is NOT WRITTEN YET. The stage's idea (stream-K over MAC
// iterations with a fixup, Cluster Launch Control for dynamic scheduling, a tile shape for skinny problems)
// is so far only in its Hopper twin, matmul_v7_sm90.cu. This file gives the stage binary an empty list of
// sm_100a kernels, so that matmul_v7 on a Blackwell GPU refuses with a message (run matmul_v6 there) instead
// of running something else under the v7 name; the stream-K partition it will use is common/streamk.h,
// already shared with the Hopper twin and tested on the CPU (tests/test_streamk.cpp).
#include "common/harness.h"

namespace gemm {

std::vector<Variant> sm100_variants() { return {}; }

}  // namespace gemm
