// The host side of the in-kernel profiler (common/trace.h): decoding the device buffer, the Chrome trace
// JSON (parsed back with a strict parser: valid JSON, the right units, monotonic and non-overlapping tracks,
// the pid/tid mapping) and the per-kind medians.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/trace.h"
#include "tests/mini_json.h"

using gemm::chrome_trace_json;
using gemm::decode_trace;
using gemm::Ev;
using gemm::TraceEvent;
using gemm::TraceRecord;

namespace {

const std::vector<std::string> ROLES = {"producer", "consumer 0", "consumer 1"};

// The X ("complete") events and the metadata of a parsed trace.
struct Parsed {
  mini_json::Value root;
  std::vector<const mini_json::Value*> complete;           // ph == "X", in file order
  std::map<std::pair<int, int>, std::string> thread_name;  // (pid, tid) -> name
  std::map<int, std::string> process_name;                 // pid -> name
};

Parsed parse_trace(const std::string& json) {
  Parsed p;
  p.root = mini_json::parse(json);  // throws on invalid JSON
  REQUIRE(p.root.type == mini_json::Value::Object);
  const mini_json::Value& evs = p.root["traceEvents"];
  REQUIRE(evs.type == mini_json::Value::Array);
  for (const mini_json::Value& e : evs.array) {
    REQUIRE(e.type == mini_json::Value::Object);
    const std::string ph = e["ph"].string;
    const int pid        = int(e["pid"].number);
    if (ph == "X") {
      for (const char* key : {"name", "pid", "tid", "ts", "dur"}) REQUIRE(e.has(key));
      REQUIRE(e["ts"].type == mini_json::Value::Number);
      REQUIRE(e["dur"].type == mini_json::Value::Number);
      p.complete.push_back(&e);
    } else if (ph == "M") {
      if (e["name"].string == "thread_name")
        p.thread_name[{pid, int(e["tid"].number)}] = e["args"]["name"].string;
      if (e["name"].string == "process_name") p.process_name[pid] = e["args"]["name"].string;
    } else {
      FAIL("unexpected phase " << ph);
    }
  }
  return p;
}

TraceEvent ev(uint32_t sm, uint32_t cta, uint32_t role, Ev kind, uint64_t start, uint64_t dur) {
  return TraceEvent{sm, cta, role, kind, start, dur};
}

}  // namespace

TEST_CASE("decode_trace reads each slot's events, clips at the capacity and counts the overflow") {
  const uint32_t roles = 2, capacity = 3, ctas = 2;
  std::vector<TraceRecord> records(ctas * roles * capacity);
  std::vector<uint32_t> counts(ctas * roles, 0);
  // CTA 0 role 1 (slot 1): two events on SM 7
  records[1 * capacity + 0] = TraceRecord{1000, 50, uint16_t(Ev::WaitFull), 7};
  records[1 * capacity + 1] = TraceRecord{1060, 20, uint16_t(Ev::IssueMma), 7};
  counts[1]                 = 2;
  // CTA 1 role 0 (slot 2): 5 events recorded, 3 fit
  for (uint32_t i = 0; i < capacity; ++i) records[2 * capacity + i] = TraceRecord{2000 + i, 1, 0, 9};
  counts[2] = 5;
  std::vector<TraceEvent> events;
  uint64_t dropped = 0;
  REQUIRE(decode_trace(records, counts, roles, capacity, events, dropped).empty());
  REQUIRE(events.size() == 5);
  CHECK(dropped == 2);
  CHECK(events[0].cta == 0);
  CHECK(events[0].role == 1);
  CHECK(events[0].sm == 7);
  CHECK(events[0].kind == Ev::WaitFull);
  CHECK(events[0].start_ns == 1000);
  CHECK(events[0].dur_ns == 50);
  CHECK(events[2].cta == 1);
  CHECK(events[2].role == 0);
  CHECK(events[2].sm == 9);

  SECTION("an unknown event kind is an error") {
    records[1 * capacity + 1].kind = uint16_t(Ev::Count);
    CHECK_THAT(decode_trace(records, counts, roles, capacity, events, dropped),
               Catch::Contains("unknown event kind"));
  }
  SECTION("one slot with records from two SMs is an error") {
    records[1 * capacity + 1].sm = 8;
    CHECK_THAT(decode_trace(records, counts, roles, capacity, events, dropped), Catch::Contains("two SMs"));
  }
  SECTION("buffer sizes that do not match are an error") {
    records.pop_back();
    CHECK_THAT(decode_trace(records, counts, roles, capacity, events, dropped),
               Catch::Contains("sizes do not match"));
  }
}

TEST_CASE("the Chrome trace is valid JSON with microsecond timestamps from the first event") {
  // 1500 ns must become dur 1.5 (the seed's exporter wrote nanoseconds into the microsecond field).
  const std::vector<TraceEvent> events = {
      ev(3, 0, 0, Ev::Setup, 1'000'000'000'000ull, 1500),
      ev(3, 0, 0, Ev::WaitEmpty, 1'000'000'002'000ull, 250),
      ev(3, 0, 1, Ev::WaitFull, 1'000'000'002'100ull, 1),
  };
  const Parsed p = parse_trace(chrome_trace_json(events, ROLES, "unit \"test\""));
  REQUIRE(p.complete.size() == 3);
  std::map<std::string, const mini_json::Value*> by_name;
  for (const auto* e : p.complete) by_name[(*e)["name"].string] = e;
  REQUIRE(by_name.count("setup"));
  REQUIRE(by_name.count("wait empty"));
  REQUIRE(by_name.count("wait full"));
  CHECK((*by_name["setup"])["ts"].number == Approx(0.0).margin(1e-12));
  CHECK((*by_name["setup"])["dur"].number == Approx(1.5).epsilon(1e-12));
  CHECK((*by_name["wait empty"])["ts"].number == Approx(2.0).epsilon(1e-12));
  CHECK((*by_name["wait empty"])["dur"].number == Approx(0.25).epsilon(1e-12));
  CHECK((*by_name["wait full"])["ts"].number == Approx(2.1).epsilon(1e-12));
  CHECK((*by_name["wait full"])["dur"].number == Approx(0.001).epsilon(1e-12));
  CHECK(p.root["otherData"]["title"].string == "unit \"test\"");
}

TEST_CASE("pid is the SM, each (CTA, role) gets its own named track") {
  const std::vector<TraceEvent> events = {
      ev(5, 0, 0, Ev::IssueTma, 100, 10), ev(5, 0, 1, Ev::IssueMma, 100, 10),
      ev(5, 4, 0, Ev::IssueTma, 500, 10), ev(11, 1, 2, Ev::Epilogue, 120, 30),
      ev(11, 1, 2, Ev::Teardown, 150, 5),
  };
  const Parsed p = parse_trace(chrome_trace_json(events, ROLES, "t"));
  REQUIRE(p.complete.size() == events.size());
  CHECK(p.process_name.at(5) == "SM 5");
  CHECK(p.process_name.at(11) == "SM 11");
  std::map<std::string, std::set<int>> tids_of;  // track name -> tids
  std::set<int> tids;
  for (const auto* e : p.complete) {
    const int pid = int((*e)["pid"].number), tid = int((*e)["tid"].number);
    const std::string track = p.thread_name.at({pid, tid});
    tids_of[track].insert(tid);
    tids.insert(tid);
    const int cta = int((*e)["args"]["cta"].number);
    if ((*e)["name"].string == "issue TMA") {
      CHECK(pid == 5);
      CHECK(track == "CTA " + std::to_string(cta) + " producer");
    }
    if ((*e)["name"].string == "issue MMA") CHECK(track == "CTA 0 consumer 0");
    if ((*e)["name"].string == "epilogue" || (*e)["name"].string == "teardown") {
      CHECK(pid == 11);
      CHECK(track == "CTA 1 consumer 1");
    }
  }
  CHECK(tids.size() == 4);  // CTA 0 producer, CTA 0 consumer 0, CTA 4 producer, CTA 1 consumer 1
  for (const auto& kv : tids_of) CHECK(kv.second.size() == 1);
}

TEST_CASE("overlapping events of one role go to separate tracks, each in time order and never overlapping") {
  // A consumer issues the MMAs of tile k while those of tile k-1 are still in flight ("MMA in flight" spans
  // from issue to the wait that saw them done): consecutive MMA spans overlap each other and the issues.
  std::vector<TraceEvent> events;
  uint64_t t = 10'000;
  for (int k = 0; k < 6; ++k) {
    events.push_back(ev(2, 7, 1, Ev::WaitFull, t, 100));
    events.push_back(ev(2, 7, 1, Ev::IssueMma, t + 100, 50));
    events.push_back(ev(2, 7, 1, Ev::WaitMma, t + 150, 300));
    events.push_back(ev(2, 7, 1, Ev::Mma, t + 100, 1000));  // until the wait of tile k + 1
    t += 500;
  }
  events.push_back(ev(2, 7, 1, Ev::Epilogue, t + 600, 2000));
  const Parsed p = parse_trace(chrome_trace_json(events, ROLES, "t"));
  REQUIRE(p.complete.size() == events.size());

  std::map<int, std::vector<std::pair<double, double>>> by_track;  // tid -> (ts, dur) in file order
  std::set<int> mma_tids, other_tids;
  for (const auto* e : p.complete) {
    const int tid = int((*e)["tid"].number);
    by_track[tid].emplace_back((*e)["ts"].number, (*e)["dur"].number);
    ((*e)["name"].string == "MMA in flight" ? mma_tids : other_tids).insert(tid);
  }
  CHECK(other_tids.size() == 1);  // the synchronous events keep one track
  CHECK(mma_tids.size() == 2);    // each MMA span overlaps the next one only
  for (const int tid : mma_tids) CHECK(other_tids.count(tid) == 0);
  for (const auto& [tid, evs] : by_track) {
    INFO("track " << p.thread_name.at({2, tid}));
    CHECK(p.thread_name.at({2, tid}).rfind("CTA 7 consumer 0", 0) == 0);
    for (size_t i = 1; i < evs.size(); ++i) {
      CHECK(evs[i].first >= evs[i - 1].first);                             // monotonic
      CHECK(evs[i].first >= evs[i - 1].first + evs[i - 1].second - 1e-9);  // no overlap
    }
  }
  // Extra tracks are named after their role with a number.
  int numbered = 0;
  for (const auto& kv : p.thread_name) numbered += kv.second.find(" #") != std::string::npos;
  CHECK(numbered == int(by_track.size()) - 1);
}

TEST_CASE("names are escaped so the trace stays valid JSON") {
  const std::vector<std::string> roles = {"a \"quoted\" role\\ with\nnewline"};
  const Parsed p = parse_trace(chrome_trace_json({ev(0, 0, 0, Ev::Setup, 0, 1)}, roles, "x\ty"));
  REQUIRE(p.complete.size() == 1);
  CHECK(p.thread_name.at({0, int((*p.complete[0])["tid"].number)}) == "CTA 0 " + roles[0]);
  CHECK(p.root["otherData"]["title"].string == "x\ty");
}

TEST_CASE("an empty trace is valid JSON") {
  const Parsed p = parse_trace(chrome_trace_json({}, ROLES, ""));
  CHECK(p.complete.empty());
}

TEST_CASE("the mini JSON parser refuses what is not JSON") {
  for (const char* bad :
       {"", "{", "{\"a\":}", "[1,]", "{\"a\":1}x", "01", "1.", "\"a\nb\"", "{'a':1}", "nul"}) {
    INFO(bad);
    CHECK_THROWS(mini_json::parse(bad));
  }
  CHECK(mini_json::parse(" {\"a\":[1,-2.5e3,true,null,\"\\u0041\"]} ")["a"].array[1].number == -2500.0);
}

TEST_CASE("event_stats gives the median duration of each kind") {
  const std::vector<TraceEvent> events = {
      ev(0, 0, 0, Ev::WaitFull, 0, 100),  ev(0, 0, 0, Ev::WaitFull, 0, 300),
      ev(0, 0, 0, Ev::WaitFull, 0, 200),  ev(0, 0, 1, Ev::IssueMma, 0, 40),
      ev(0, 0, 1, Ev::IssueMma, 0, 10),   ev(1, 1, 1, Ev::IssueMma, 0, 20),
      ev(1, 1, 1, Ev::IssueMma, 0, 1000),
  };
  const auto stats = gemm::event_stats(events);
  REQUIRE(stats.size() == 2);
  CHECK(stats[0].kind == Ev::WaitFull);
  CHECK(stats[0].count == 3);
  CHECK(stats[0].median_ns == 200);
  CHECK(stats[0].min_ns == 100);
  CHECK(stats[0].max_ns == 300);
  CHECK(stats[1].kind == Ev::IssueMma);
  CHECK(stats[1].count == 4);
  CHECK(stats[1].median_ns == 30);  // even count: the mean of the middle two
  const std::string text = gemm::format_event_stats(stats);
  CHECK_THAT(text, Catch::Contains("wait full") && Catch::Contains("0.200"));
  CHECK_THAT(text, Catch::Contains("issue MMA") && Catch::Contains("0.030"));
}
