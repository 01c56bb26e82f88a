// The trimmer on a hand-made trace: which events a window keeps (worked out by hand), that the
// output is a valid trace the reader loads, and that the chunk size never changes it.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "core/session/session.h"
#include "core/session/views.h"
#include "core/trace/trace_reader.h"
#include "core/trace/trace_trimmer.h"
#include "test_util.h"

namespace {
std::string trim(const std::string& text, int64_t start_ns, int64_t end_ns, size_t chunk) {
  ks::TraceTrimmer t(start_ns, end_ns);
  for (size_t i = 0; i < text.size(); i += chunk) {
    const size_t n = std::min(chunk, text.size() - i);
    std::memcpy(t.prepare(n), text.data() + i, n);
    t.commit(n);
  }
  t.finish();
  REQUIRE(t.error().empty());
  return t.output();
}
bool has(const std::string& out, const char* name) { return out.find(std::string("\"") + name + "\"") != std::string::npos; }
}  // namespace

TEST_CASE("trim-window: events overlapping [100, 200] us, metadata, members, whole flows", "[trimmer]") {
  const std::string text = kstest::read_fixture("trim-window.json");
  const std::string out = trim(text, 100000, 200000, 1 << 20);
  CHECK(has(out, "process_name"));     // metadata always
  CHECK_FALSE(has(out, "before"));
  CHECK_FALSE(has(out, "touches-start"));  // [90, 100) ends where the window starts
  CHECK(has(out, "overlaps-start"));
  CHECK(out.find("a \\\"quoted\\\" {brace} ]") != std::string::npos);  // copied byte for byte
  CHECK(has(out, "inside"));
  CHECK(has(out, "spans-all"));
  CHECK(has(out, "zero-at-end"));
  CHECK_FALSE(has(out, "after"));      // 200.001 us: 1 ns past the window
  CHECK(has(out, "mark-in"));
  CHECK_FALSE(has(out, "mark-out"));
  CHECK(has(out, "counter-in"));
  CHECK(out.find("\"id\":7") != std::string::npos);   // both ends inside
  CHECK(out.find("\"id\":8") == std::string::npos);   // ends after the window
  CHECK(out.find("\"id\":9") == std::string::npos);   // starts before it
  CHECK(has(out, "deviceProperties"));  // members after traceEvents are kept too
  CHECK(has(out, "traceName"));

  // The output is a trace: the reader loads it without a health problem.
  ks::TraceReader r;
  r.feed(out.data(), out.size());
  r.finish();
  REQUIRE(r.error().empty());
  CHECK(r.model().event_count == 9);  // M, 4 X (zero-at-end included), i, C, 2 flow events
  for (size_t k = 0; k < size_t(ks::HealthReason::kCount); ++k)
    CHECK(r.model().health.get(ks::HealthReason(k)).count == 0);
  CHECK(r.model().devices.size() == 1);
  CHECK(r.model().trace_name == "trim-window");

  for (size_t chunk = 1; chunk <= 97; chunk += 3) CHECK(trim(text, 100000, 200000, chunk) == out);
}

TEST_CASE("trimmer: not a trace, and a bare array root", "[trimmer]") {
  ks::TraceTrimmer t(0, 1000);
  const std::string junk = "{\"name\": \"not a trace\"}";
  std::memcpy(t.prepare(junk.size()), junk.data(), junk.size());
  t.commit(junk.size());
  t.finish();
  CHECK_FALSE(t.error().empty());
  const std::string arr = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0.5,\"dur\":1},{\"ph\":\"X\",\"name\":\"b\",\"ts\":5,\"dur\":1}]";
  const std::string out = trim(arr, 0, 1000, 7);
  CHECK(has(out, "a"));
  CHECK_FALSE(has(out, "b"));
  CHECK(out.rfind("{\"traceEvents\": [", 0) == 0);
}

// The trim report (the trim view's answer): by hand on trim-window.json's [100, 200] µs: metadata
// 1 kept; durations overlaps-start, inside, spans-all, zero-at-end kept, before, touches-start,
// after dropped; instants mark-in and counter-in kept, mark-out dropped; flow 7's two events kept,
// flows 8 and 9 (one end outside) dropped whole. An event whose "ts" is no number is unreadable.
TEST_CASE("trim report: what a window kept and dropped, by kind of event", "[trimmer]") {
  auto run = [](const std::string& text, int64_t start_ns, int64_t end_ns) {
    ks::TraceTrimmer t(start_ns, end_ns);
    std::memcpy(t.prepare(text.size()), text.data(), text.size());
    t.commit(text.size());
    t.finish();
    REQUIRE(t.error().empty());
    return ks::trim_report_answer(t);
  };
  const ks::Answer a = run(kstest::read_fixture("trim-window.json"), 100000, 200000);
  REQUIRE(a.error.empty());
  REQUIRE(a.rows == 5);
  const std::vector<double>& kept = a.column("kept")->f64;
  const std::vector<double>& dropped = a.column("dropped")->f64;
  const std::vector<uint32_t>& kind = a.column("kind")->str;
  const char* kinds[] = {"metadata", "duration", "instant", "flow", "unreadable"};
  const double want_kept[] = {1, 4, 2, 2, 0}, want_dropped[] = {0, 3, 1, 4, 0};
  for (size_t k = 0; k < 5; ++k) {
    INFO(kinds[k]);
    CHECK(a.strings[kind[k]] == kinds[k]);
    CHECK(kept[k] == want_kept[k]);
    CHECK(dropped[k] == want_dropped[k]);
  }
  const std::string json = ks::answer_json(a);
  CHECK(json.rfind("{\"window_start_us\":100,\"window_end_us\":200,\"kept_events\":9,\"total_events\":17,\"bytes\":", 0) == 0);
  CHECK(json.find(",\"kinds\":[{\"kind\":\"metadata\",\"kept\":1,\"dropped\":0},") != std::string::npos);
  CHECK(json.find("\"input_error\":\"\"}") != std::string::npos);

  const ks::Answer odd = run("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":\"soon\",\"dur\":1}, {\"ph\":\"i\",\"name\":\"b\",\"ts\":0.5}]", 0, 1000);
  CHECK(odd.column("kept")->f64[2] == 1);      // b: an instant inside
  CHECK(odd.column("dropped")->f64[4] == 1);   // a
  // A Session has no trimmer: it says so rather than answer.
  ks::Session s;
  CHECK_FALSE(s.query("trim", {}).error.empty());
}
