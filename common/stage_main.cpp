// stage_main.cpp: main() of every stage executable. The stage's two files each define one list of variants;
// run_stage picks the list that fits the GPU it finds (and, with --emulate on a Hopper GPU, the third: the
// Blackwell kernels through the tcgen05 emulator).
#include "common/harness.h"

int main(int argc, char** argv) {
  return gemm::run_stage(argc, argv, GEMM_STAGE_NAME, gemm::sm100_variants(), gemm::sm90_variants(),
                         gemm::sm100_emulated_variants());
}
