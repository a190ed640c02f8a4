// options.h: command-line options shared by every stage executable, and the tile-shape rules of a variant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemm {

struct Options {
  int64_t m = 4096, n = 4096, k = 4096;
  std::string variant = "all";  // a variant name ("v1a"), "all", or "cublas" (time only the reference)
  int iters           = 100;    // timed launches per side (kernel and cuBLAS), at least; 0 = verify only
  int round           = 5;      // launches of one side per round of the paired timing (timing.h)
  double seconds      = 5.0;    // more rounds until both sides' timed launches add up to this
  int warmup          = 10;     // untimed launches of each side before timing
  uint64_t seed       = 0;      // 0 = draw a fresh seed (always printed)
  bool seed_given     = false;
  bool check          = true;   // --no-check skips verification (timing only)
  bool csv            = false;  // print a CSV table at the end
  std::string rounds_log;       // --rounds-log FILE: every timing round as CSV (timing.h)
  std::string trace;            // --trace FILE: one profiled launch, written as a Chrome trace (trace.h)
  bool emulate = false;         // --emulate: the sm_100a kernels on a Hopper GPU, through the tcgen05
                                // emulator (common/tcgen05_emu.h): verification only, no timing
  std::string schedule = "both";  // --schedule eager|late|strict|both: the emulator's MMA schedules to run
                                  // ("both": every one, schedule_selected)
  int cublas_best = 0;  // --cublas-best N: also pair against the fastest of the heuristic's first N picks
  double energy   = 0;  // --energy S: after the timing, joules per GEMM of each side over S s alone (0: off)
  bool help = false;
};

// Parses argv. Returns an empty string on success, else a message naming the bad option and what it accepts.
std::string parse_options(int argc, const char* const* argv, Options& opt);
std::string usage(const char* prog);
// Whether --schedule `option` runs the emulator's schedule `name` (tc5emu::schedule_name: eager, late,
// strict): the one it names, or every one for "both" (the default).
bool schedule_selected(const std::string& option, const char* name);

// What a variant needs of the problem shape: multiples of its tiles.
struct ShapeRule {
  int64_t m_multiple, n_multiple, k_multiple;
  const char* why;  // e.g. "v1 needs whole tiles: no edge handling yet"
  // What the M multiple is, for the message: BLOCK_M by default; "2*BLOCK_M" where the two CTAs of a cluster
  // take adjacent M tiles (v5), so that M must hold whole pairs of them.
  const char* m_name = "BLOCK_M";
  // What the N multiple is, for the message: BLOCK_N by default; the TMA stride unit where C is stored by TMA
  // only (v8p).
  const char* n_name = "BLOCK_N";
  // What the K multiple is, for the message: BLOCK_K by default; the TMA stride unit from v6 on.
  const char* k_name = "BLOCK_K";
  // The largest M the variant takes (0: no limit), and why (v8s: A's rows are its MMA's N).
  int64_t m_max          = 0;
  const char* m_max_why  = "";
};

// Empty string if M, N, K satisfy the rule (and are >= 1); else one line naming the constraint and the
// nearest valid value.
std::string check_shape(const ShapeRule& rule, const char* variant, int64_t m, int64_t n, int64_t k);

// The rule from v6 on (common/edge.h): any M >= 1 and N >= 1, and K a positive multiple of 16 / elem_bytes
// (8 for bf16, 16 for fp8), since K is the row length of the K-major A and B and a TMA global stride is a
// multiple of 16 bytes. Stages v1-v5 keep their whole-tile rules.
ShapeRule any_mn_shape_rule(int elem_bytes = 2);
// check_shape(any_mn_shape_rule(elem_bytes), ...).
std::string check_shape_any(const char* variant, int64_t m, int64_t n, int64_t k, int elem_bytes = 2);
// The multiple of `multiple` nearest to `value` (never below `multiple`).
int64_t nearest_multiple(int64_t value, int64_t multiple);

}  // namespace gemm
