// trace_sample FILE: writes a synthetic Chrome trace with the harness's writer (common/trace.h), shaped like
// a traced v4 Hopper run (a producer and two consumer warpgroups per CTA, MMA spans that overlap, several
// CTAs one after another on each SM). CTest feeds it to tests/check_trace.py (Python's json module) and to
// tools/plot_trace.py, so both are exercised without a GPU.
#include <cstdio>
#include <string>
#include <vector>

#include "common/trace.h"

using namespace gemm;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  std::vector<TraceEvent> events;
  const uint64_t base = 1'700'000'000'000'000'000ull;  // a %globaltimer-like absolute time
  const int num_sms = 4, ctas_per_sm = 3, k_tiles = 16;
  for (int sm = 0; sm < num_sms; ++sm) {
    uint64_t t = base + uint64_t(sm) * 700;
    for (int i = 0; i < ctas_per_sm; ++i) {
      const uint32_t cta = uint32_t(i * num_sms + sm);
      for (uint32_t role = 0; role < 3; ++role)
        events.push_back({uint32_t(sm), cta, role, Ev::Setup, t, 1500});
      uint64_t p = t + 1500, c = t + 1500;
      for (int k = 0; k < k_tiles; ++k) {
        events.push_back({uint32_t(sm), cta, 0, Ev::WaitEmpty, p, k < 4 ? 20u : 600u});
        p += k < 4 ? 20 : 600;
        events.push_back({uint32_t(sm), cta, 0, Ev::IssueTma, p, 30});
        p += 30;
        for (uint32_t role = 1; role < 3; ++role) {
          const uint64_t c0 = c + role * 15;
          events.push_back({uint32_t(sm), cta, role, Ev::WaitFull, c0, k == 0 ? 900u : 60u});
          events.push_back({uint32_t(sm), cta, role, Ev::IssueMma, c0 + (k == 0 ? 900 : 60), 40});
          events.push_back({uint32_t(sm), cta, role, Ev::WaitMma, c0 + (k == 0 ? 940 : 100), 480});
          events.push_back({uint32_t(sm), cta, role, Ev::Mma, c0 + (k == 0 ? 900 : 60), 1160});
        }
        c += k == 0 ? 1520 : 680;
      }
      for (uint32_t role = 1; role < 3; ++role)
        events.push_back({uint32_t(sm), cta, role, Ev::Epilogue, c + 100, 2500});
      t = c + 2700;
    }
  }
  const std::vector<std::string> roles = {"producer", "consumer 0", "consumer 1"};
  const std::string json =
      chrome_trace_json(events, roles, "synthetic v4-like trace (tests/trace_sample.cpp)");
  FILE* f = std::fopen(argv[1], "w");
  if (!f || std::fwrite(json.data(), 1, json.size(), f) != json.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "trace_sample: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("%s", format_event_stats(event_stats(events)).c_str());
  return 0;
}
