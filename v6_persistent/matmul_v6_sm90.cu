// PLACEHOLDER, NOT THE HOPPER TWIN. The Hopper v6 (v6_persistent/matmul_v6_sm90.cu) is written on branch
// v6-hopper; this file only lets branch v6-blackwell build the v6 stage executable (add_stage needs both files)
// and is replaced by the Hopper twin at merge. It provides no Hopper kernel: on an sm_90 GPU, matmul_v6 of
// this branch has no variant to run, and the v6 tests that need one (cpu/v6/... sm_90a table, gpu/v6) fail.
#include "common/harness.h"

namespace gemm {
std::vector<Variant> sm90_variants() { return {}; }
}  // namespace gemm
