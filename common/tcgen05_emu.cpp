// tcgen05_emu.cpp: the host side of the tcgen05 emulator (tcgen05_emu.h): the registry of emulated
// translation units, the emulator's memory, and the report of a trap.
#include "common/tcgen05_emu.h"

#include "common/check.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

namespace gemm::tc5emu {
namespace {

std::vector<Setter>& units() {
  static std::vector<Setter> list;  // filled by static initialisers: a function-local static, built on use
  return list;
}

struct State {
  bool allocated = false;
  Config config;
  size_t tmem_floats = 0;
  uint32_t maps_noted = 0;
};
State& state() {
  static State s;
  return s;
}

constexpr uint32_t PAIR_SLOTS = 1u << 16;
constexpr uint32_t GRANULES = 16;

size_t warp_state_bytes(const Config& c) { return size_t(c.num_sms) * WARP_SLOTS * WARP_STATE_BYTES; }
size_t tmem_readers_bytes(const Config& c) { return size_t(c.num_sms) * 4 * 512 * sizeof(uint32_t); }
size_t war_bars_bytes(const Config& c) {
  return size_t(c.num_sms) * WAR_BAR_SLOTS * WAR_BAR_WORDS * sizeof(uint32_t);
}

std::string cuda_error(const char* what, cudaError_t e) {
  return std::string("tcgen05 emulator: ") + what + ": " + cudaGetErrorString(e);
}

}  // namespace

bool register_unit(Setter set) {
  units().push_back(set);
  return true;
}
int registered_units() { return int(units().size()); }

std::string enable(Schedule schedule) {
  State& st = state();
  Config& c = st.config;
  cudaError_t e;
  if (!st.allocated) {
    int dev = 0, sms = 0;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess) return cuda_error("cudaGetDevice", e);
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
      return cuda_error("multiprocessor count", e);
    // %smid may exceed the SM count on parts with disabled SMs: size by the highest possible id, 2x.
    c.num_sms      = uint32_t(2 * sms);
    st.tmem_floats = size_t(c.num_sms) * 128 * 512;
    if ((e = cudaMalloc(&c.tmem, st.tmem_floats * sizeof(float))) != cudaSuccess) return cuda_error("TMEM", e);
    if ((e = cudaMalloc(&c.sm_alloc, c.num_sms * sizeof(uint32_t))) != cudaSuccess) return cuda_error("alloc", e);
    if ((e = cudaMalloc(&c.owner, size_t(c.num_sms) * GRANULES * 2 * sizeof(uint32_t))) != cudaSuccess)
      return cuda_error("owners", e);
    c.pair_slots = PAIR_SLOTS;
    if ((e = cudaMalloc(&c.pair_mail, size_t(2) * PAIR_SLOTS * sizeof(uint32_t))) != cudaSuccess)
      return cuda_error("pair mailboxes", e);
    if ((e = cudaMalloc(&c.queue, size_t(c.num_sms) * GRANULES * QUEUE_CAP * QUEUE_ENTRY_BYTES)) != cudaSuccess)
      return cuda_error("queues", e);
    if ((e = cudaMalloc(&c.maps, size_t(MAP_CAP) * MAP_WORDS * sizeof(uint32_t))) != cudaSuccess)
      return cuda_error("tensor map table", e);
    if ((e = cudaMalloc(&c.map_count, sizeof(uint32_t))) != cudaSuccess) return cuda_error("tensor map table", e);
    if ((e = cudaMalloc(&c.clc_cluster, CLC_SLOTS * sizeof(unsigned long long))) != cudaSuccess)
      return cuda_error("CLC table", e);
    if ((e = cudaMalloc(&c.clc_cursor, sizeof(unsigned long long))) != cudaSuccess)
      return cuda_error("CLC cursor", e);
    if ((e = cudaMalloc(&c.clc_stage, CLC_STAGE_SLOTS * 4 * sizeof(uint32_t))) != cudaSuccess)
      return cuda_error("CLC responses", e);
    if ((e = cudaMalloc(&c.warp_state, warp_state_bytes(c))) != cudaSuccess) return cuda_error("warp state", e);
    if ((e = cudaMalloc(&c.tmem_readers, tmem_readers_bytes(c))) != cudaSuccess)
      return cuda_error("TMEM readers", e);
    if ((e = cudaMalloc(&c.war_bars, war_bars_bytes(c))) != cudaSuccess) return cuda_error("barrier epochs", e);
    void* host = nullptr;
    if ((e = cudaHostAlloc(&host, 8 * sizeof(uint32_t), cudaHostAllocMapped)) != cudaSuccess)
      return cuda_error("trap report", e);
    std::memset(host, 0, 8 * sizeof(uint32_t));
    void* dev_ptr = nullptr;
    if ((e = cudaHostGetDevicePointer(&dev_ptr, host, 0)) != cudaSuccess) return cuda_error("trap report", e);
    // Under unified addressing (every platform CUDA 12+ supports) the device pointer of mapped pinned memory
    // is its host pointer: the host reads the words a trapping thread wrote through c.report itself.
    if (dev_ptr != host) return "tcgen05 emulator: mapped memory without unified addressing";
    c.report     = static_cast<volatile uint32_t*>(dev_ptr);
    st.allocated = true;
    // A failed CUDA call (check.h) then also prints the rule an emulated kernel trapped on.
    cuda_failure_note() = [] {
      static std::string note;
      note = trap_report();
      return note.c_str();
    };
  }
  for (int i = 0; i < 8; ++i) const_cast<uint32_t*>(c.report)[i] = 0;
  // TMEM poisoned with NaN (0xFF bytes): a read of a cell no MMA wrote shows up as NaN in C.
  if ((e = cudaMemset(c.tmem, 0xFF, st.tmem_floats * sizeof(float))) != cudaSuccess) return cuda_error("poison", e);
  if ((e = cudaMemset(c.sm_alloc, 0, c.num_sms * sizeof(uint32_t))) != cudaSuccess) return cuda_error("reset", e);
  if ((e = cudaMemset(c.owner, 0, size_t(c.num_sms) * GRANULES * 2 * sizeof(uint32_t))) != cudaSuccess)
    return cuda_error("reset", e);
  if ((e = cudaMemset(c.pair_mail, 0, size_t(2) * PAIR_SLOTS * sizeof(uint32_t))) != cudaSuccess)
    return cuda_error("reset", e);
  if ((e = cudaMemset(c.map_count, 0, sizeof(uint32_t))) != cudaSuccess) return cuda_error("reset", e);
  if ((e = cudaMemset(c.clc_cluster, 0, CLC_SLOTS * sizeof(unsigned long long))) != cudaSuccess)
    return cuda_error("reset", e);
  if ((e = cudaMemset(c.clc_cursor, 0, sizeof(unsigned long long))) != cudaSuccess) return cuda_error("reset", e);
  if ((e = cudaMemset(c.warp_state, 0, warp_state_bytes(c))) != cudaSuccess) return cuda_error("reset", e);
  if ((e = cudaMemset(c.tmem_readers, 0, tmem_readers_bytes(c))) != cudaSuccess) return cuda_error("reset", e);
  if ((e = cudaMemset(c.war_bars, 0, war_bars_bytes(c))) != cudaSuccess) return cuda_error("reset", e);
  st.maps_noted = 0;
  c.schedule = schedule;
  c.enabled  = 0x7C5E0001u;
  for (Setter set : units())
    if ((e = cudaError_t(set(c))) != cudaSuccess) return cuda_error("configuring an emulated unit", e);
  if ((e = cudaDeviceSynchronize()) != cudaSuccess) return cuda_error("enable", e);
  return "";
}

void note_tensor_map(const void* map_128_bytes, uint32_t box_bytes) {
  State& st = state();
  if (!st.allocated || st.config.enabled == 0) return;
  if (st.maps_noted == MAP_CAP) {
    std::fprintf(stderr, "tcgen05 emulator: more than %u tensor maps since enable()\n", MAP_CAP);
    std::exit(1);
  }
  uint32_t entry[MAP_WORDS];
  std::memcpy(entry, map_128_bytes, 128);
  entry[32] = box_bytes;
  CUDA_CHECK(cudaMemcpy(st.config.maps + size_t(st.maps_noted) * MAP_WORDS, entry, sizeof entry,
                        cudaMemcpyHostToDevice));
  ++st.maps_noted;
  CUDA_CHECK(cudaMemcpy(st.config.map_count, &st.maps_noted, sizeof(uint32_t), cudaMemcpyHostToDevice));
}

std::string trap_report() {
  State& st = state();
  if (!st.allocated) return "";
  // The device pointer of mapped pinned memory equals its host pointer under unified addressing (every
  // 64-bit platform CUDA supports), so the host reads the same words the trapping thread wrote.
  const volatile uint32_t* r = st.config.report;
  if (r[0] == 0) return "";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "tcgen05 emulator trap: %s (SM %u, block (%u,%u,%u), thread %u, values 0x%x 0x%x)",
                rule_text(r[0]), r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
  return buf;
}

std::string check_all_freed() {
  State& st = state();
  if (!st.allocated) return "";
  std::vector<uint32_t> alloc(st.config.num_sms);
  const cudaError_t e =
      cudaMemcpy(alloc.data(), st.config.sm_alloc, alloc.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return cuda_error("reading the allocation state", e);
  for (uint32_t s = 0; s < st.config.num_sms; ++s)
    if (alloc[s] != 0) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "tcgen05 emulator: %s (SM %u, granules 0x%04x)", rule_text(RULE_EXIT_HOLDING),
                    s, alloc[s]);
      return buf;
    }
  return "";
}

}  // namespace gemm::tc5emu
