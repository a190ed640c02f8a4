// trace.cpp: the host side of the in-kernel profiler (see trace.h): decode the device buffer, write the
// Chrome trace, the per-kind statistics.
#include "common/trace.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include <unistd.h>

#include <cuda_runtime.h>

#include "common/check.h"

namespace gemm {

std::string decode_trace(const std::vector<TraceRecord>& records, const std::vector<uint32_t>& counts,
                         uint32_t num_roles, uint32_t capacity, std::vector<TraceEvent>& events,
                         uint64_t& dropped) {
  events.clear();
  dropped = 0;
  if (num_roles == 0 || counts.size() % num_roles != 0 || records.size() != counts.size() * capacity)
    return "trace buffer sizes do not match: " + std::to_string(counts.size()) + " counters, " +
           std::to_string(records.size()) + " records, " + std::to_string(num_roles) + " roles of " +
           std::to_string(capacity) + " records";
  for (size_t slot = 0; slot < counts.size(); ++slot) {
    const uint32_t n = std::min(counts[slot], capacity);
    dropped += counts[slot] - n;
    for (uint32_t i = 0; i < n; ++i) {
      const TraceRecord& r = records[slot * capacity + i];
      const uint32_t cta = uint32_t(slot / num_roles), role = uint32_t(slot % num_roles);
      if (r.kind >= NUM_EVENT_KINDS)
        return "CTA " + std::to_string(cta) + " role " + std::to_string(role) + " record " +
               std::to_string(i) + " has an unknown event kind " + std::to_string(r.kind);
      if (i > 0 && r.sm != records[slot * capacity].sm)
        return "CTA " + std::to_string(cta) + " role " + std::to_string(role) +
               " has records from two SMs: " + std::to_string(records[slot * capacity].sm) + " and " +
               std::to_string(r.sm);
      events.push_back(TraceEvent{r.sm, cta, role, Ev(r.kind), r.start_ns, r.dur_ns});
    }
  }
  return "";
}

namespace {

// JSON string literal (role names come from code, but a trace must be valid JSON whatever they hold).
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += char(ch);
    } else if (ch < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      out += buf;
    } else {
      out += char(ch);
    }
  }
  return out + "\"";
}

// Microseconds with nanosecond resolution: 1500 ns -> "1.500".
std::string us(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", (unsigned long long)(ns / 1000),
                (unsigned long long)(ns % 1000));
  return buf;
}

}  // namespace

std::string chrome_trace_json(const std::vector<TraceEvent>& events, const std::vector<std::string>& roles,
                              const std::string& title) {
  uint64_t t0 = UINT64_MAX;
  for (const TraceEvent& e : events) t0 = std::min(t0, e.start_ns);

  // Group the events by (SM, CTA, role), each group in time order (longer first at equal starts).
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;
  std::map<Key, std::vector<const TraceEvent*>> groups;
  for (const TraceEvent& e : events) groups[Key{e.sm, e.cta, e.role}].push_back(&e);

  std::string out = "{\"traceEvents\":[\n";
  bool first      = true;
  auto emit       = [&](const std::string& line) {
    out += first ? "" : ",\n";
    out += line;
    first = false;
  };
  uint32_t last_sm = UINT32_MAX;
  int tid          = 0;  // one per track, unique over the whole trace, in display order
  for (auto& [key, evs] : groups) {
    const auto [sm, cta, role] = key;
    if (sm != last_sm) {
      const std::string pid = std::to_string(sm);
      emit("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"args\":{\"name\":\"SM " + pid +
           "\"}}");
      emit("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + pid +
           ",\"args\":{\"sort_index\":" + pid + "}}");
      last_sm = sm;
    }
    // Synchronous events first, then asynchronous ones; each group in time order (longer first at equal
    // starts).
    std::stable_sort(evs.begin(), evs.end(), [](const TraceEvent* a, const TraceEvent* b) {
      if (is_async(a->kind) != is_async(b->kind)) return is_async(b->kind);
      return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->dur_ns > b->dur_ns;
    });
    // Greedy interval partitioning: an event goes to the first track of its role that is free at its start;
    // asynchronous events skip the first track when the role has synchronous ones.
    std::vector<uint64_t> track_end;  // end time of the last event on each track of this role
    std::vector<int> track_of(evs.size());
    const bool has_sync = !is_async(evs.front()->kind);
    for (size_t i = 0; i < evs.size(); ++i) {
      size_t t = is_async(evs[i]->kind) && has_sync ? 1 : 0;
      while (t < track_end.size() && track_end[t] > evs[i]->start_ns) ++t;
      if (t >= track_end.size()) track_end.resize(t + 1, 0);
      track_end[t] = evs[i]->start_ns + evs[i]->dur_ns;
      track_of[i]  = int(t);
    }
    // Events in time order on each track, tracks in order: the file reads top to bottom.
    std::vector<size_t> order(evs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return track_of[a] != track_of[b] ? track_of[a] < track_of[b] : evs[a]->start_ns < evs[b]->start_ns;
    });
    const std::string role_name = role < roles.size() ? roles[role] : "role " + std::to_string(role);
    const std::string pid       = std::to_string(sm);
    for (size_t t = 0; t < track_end.size(); ++t) {
      const std::string id   = std::to_string(tid + int(t) + 1);
      const std::string name = "CTA " + std::to_string(cta) + " " + role_name +
                               (t == 0 ? std::string() : " #" + std::to_string(t + 1));
      emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + id +
           ",\"args\":{\"name\":" + json_string(name) + "}}");
      emit("{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + id +
           ",\"args\":{\"sort_index\":" + id + "}}");
    }
    for (const size_t i : order) {
      const TraceEvent& e = *evs[i];
      emit("{\"name\":" + json_string(EVENT_NAMES[int(e.kind)]) + ",\"cat\":" + json_string(role_name) +
           ",\"ph\":\"X\",\"pid\":" + pid + ",\"tid\":" + std::to_string(tid + track_of[i] + 1) +
           ",\"ts\":" + us(e.start_ns - t0) + ",\"dur\":" + us(e.dur_ns) +
           ",\"args\":{\"cta\":" + std::to_string(cta) + "}}");
    }
    tid += int(track_end.size());
  }
  out += "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"title\":" + json_string(title) +
         ",\"time_unit\":\"us from the first event\",\"clock\":\"%globaltimer\"}}\n";
  return out;
}

std::vector<EventStats> event_stats(const std::vector<TraceEvent>& events) {
  std::vector<std::vector<uint64_t>> by_kind(NUM_EVENT_KINDS);
  for (const TraceEvent& e : events) by_kind[int(e.kind)].push_back(e.dur_ns);
  std::vector<EventStats> stats;
  for (int k = 0; k < NUM_EVENT_KINDS; ++k) {
    std::vector<uint64_t>& d = by_kind[size_t(k)];
    if (d.empty()) continue;
    std::sort(d.begin(), d.end());
    const size_t n      = d.size();
    const double median = n % 2 ? double(d[n / 2]) : 0.5 * (double(d[n / 2 - 1]) + double(d[n / 2]));
    stats.push_back(EventStats{Ev(k), n, median, double(d.front()), double(d.back())});
  }
  return stats;
}

std::string format_event_stats(const std::vector<EventStats>& stats) {
  std::string out;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-14s %8s %12s %10s %10s\n", "event", "count", "median us", "min us",
                "max us");
  out += buf;
  for (const EventStats& s : stats) {
    std::snprintf(buf, sizeof buf, "%-14s %8zu %12.3f %10.3f %10.3f\n", EVENT_NAMES[int(s.kind)], s.count,
                  s.median_ns / 1000, s.min_ns / 1000, s.max_ns / 1000);
    out += buf;
  }
  return out;
}

// ---- the device buffer ----
DeviceTrace::~DeviceTrace() {
  release();
}

void DeviceTrace::release() {
  if (buf_.records) cudaFree(buf_.records);
  if (buf_.counts) cudaFree(buf_.counts);
  buf_ = TraceBuffer{};
}

TraceBuffer DeviceTrace::allocate(uint32_t num_ctas, std::vector<std::string> roles, uint32_t capacity) {
  release();
  roles_             = std::move(roles);
  num_ctas_          = num_ctas;
  const size_t slots = size_t(num_ctas) * roles_.size();
  CUDA_CHECK(cudaMalloc(&buf_.records, std::max<size_t>(1, slots * capacity) * sizeof(TraceRecord)));
  CUDA_CHECK(cudaMalloc(&buf_.counts, std::max<size_t>(1, slots) * sizeof(uint32_t)));
  CUDA_CHECK(cudaMemset(buf_.counts, 0, std::max<size_t>(1, slots) * sizeof(uint32_t)));
  buf_.num_roles = uint32_t(roles_.size());
  buf_.capacity  = capacity;
  return buf_;
}

std::string DeviceTrace::download(std::vector<TraceEvent>& events, uint64_t& dropped) const {
  const size_t slots = size_t(num_ctas_) * roles_.size();
  std::vector<TraceRecord> records(slots * buf_.capacity);
  std::vector<uint32_t> counts(slots);
  CUDA_CHECK(
      cudaMemcpy(records.data(), buf_.records, records.size() * sizeof(TraceRecord), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(counts.data(), buf_.counts, counts.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  return decode_trace(records, counts, buf_.num_roles, buf_.capacity, events, dropped);
}

// ---- --trace ----
std::string check_trace_path(const std::string& path) {
  const size_t slash     = path.find_last_of('/');
  const std::string dir  = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty()) return "--trace " + path + " names a folder, not a file";
  if (access(dir.c_str(), W_OK) != 0)
    return "--trace " + path + ": cannot write into the folder '" + dir + "'";
  return "";
}

std::string save_trace(const DeviceTrace& trace, const std::string& path, const std::string& title,
                       double untraced_median_ms) {
  std::vector<TraceEvent> events;
  uint64_t dropped      = 0;
  const std::string bad = trace.download(events, dropped);
  if (!bad.empty()) return bad;
  if (events.empty()) return "the traced launch recorded no events";
  const std::string json = chrome_trace_json(events, trace.roles(), title);
  FILE* f                = std::fopen(path.c_str(), "w");
  if (!f || std::fwrite(json.data(), 1, json.size(), f) != json.size() || std::fclose(f) != 0)
    return "cannot write " + path;

  uint64_t first = UINT64_MAX, last = 0;
  std::map<uint32_t, int> sms;
  for (const TraceEvent& e : events) {
    first = std::min(first, e.start_ns);
    last  = std::max(last, e.start_ns + e.dur_ns);
    sms[e.sm]++;
  }
  std::string vs;
  if (untraced_median_ms > 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf,
                  " (untraced median launch %.1f us: the difference is about the profiler's cost)",
                  untraced_median_ms * 1000);
    vs = buf;
  }
  std::printf(
      "trace: %zu events from %zu SMs, %llu dropped (slots full); kernel span %.1f us, first event to "
      "last%s\n",
      events.size(), sms.size(), (unsigned long long)dropped, double(last - first) / 1000, vs.c_str());
  std::printf("trace: wrote %s: open it in https://ui.perfetto.dev, or draw it with tools/plot_trace.py\n",
              path.c_str());
  std::printf("trace: durations per event kind (all roles, all CTAs)\n%s",
              format_event_stats(event_stats(events)).c_str());
  return "";
}

}  // namespace gemm
