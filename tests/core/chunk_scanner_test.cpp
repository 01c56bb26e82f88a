#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/trace/chunk_scanner.h"

namespace {

struct Found {
  std::vector<std::string> events;
  std::vector<std::string> members;  // "key=value"
  ks::TraceHealth health;
  bool failed = false, done = false;
  size_t peak_buffer = 0;  // the most bytes the buffer held before the consumed ones were dropped
};

// Runs the scanner over `text` the way TraceReader does: growing buffer, chunks of `chunk`
// bytes, consumed bytes dropped after every call, a padded final call.
Found scan(const std::string& text, size_t chunk) {
  Found f;
  ks::ChunkScanner s;
  std::string buf;
  uint64_t base = 0;
  size_t i = 0;
  auto run = [&](bool final) {
    std::vector<ks::ChunkScanner::Span> spans;
    std::vector<ks::ChunkScanner::Member> members;
    const size_t size = buf.size();
    buf.append(64, ' ');
    s.scan(buf.data(), size, final, base, spans, members, f.health);
    for (auto& sp : spans) f.events.push_back(buf.substr(sp.begin, sp.end - sp.begin));
    for (auto& m : members)
      f.members.push_back(buf.substr(m.key.begin, m.key.end - m.key.begin) + "=" +
                          buf.substr(m.value.begin, m.value.end - m.value.begin));
    buf.resize(size);
    f.peak_buffer = std::max(f.peak_buffer, size);
    const size_t keep = s.keep_from();
    buf.erase(0, keep);
    base += keep;
    s.shift(keep);
  };
  while (i < text.size()) {
    const size_t n = std::min(chunk, text.size() - i);
    buf.append(text, i, n);
    i += n;
    run(false);
  }
  run(true);
  f.failed = s.failed();
  f.done = s.done();
  return f;
}

void check_all_chunk_sizes(const std::string& text, const std::vector<std::string>& events,
                           const std::vector<std::string>& members) {
  for (size_t chunk = 1; chunk <= text.size() + 1; ++chunk) {
    INFO("chunk size " << chunk);
    const Found f = scan(text, chunk);
    REQUIRE(f.events == events);
    REQUIRE(f.members == members);
    REQUIRE(f.done);
  }
}

}  // namespace

TEST_CASE("brackets and quotes inside strings do not end an event", "[scanner]") {
  const std::string e1 = R"({"name":"a]}\"{[","args":{"x":[1,2,{"y":"}"}]}})";
  const std::string e2 = R"({"name":"b\\","v":"\\\""})";
  const std::string text = R"({"schemaVersion":1,"traceEvents":[ )" + e1 + " ,\n" + e2 +
                           R"(],"traceName":"t}]\"x","deviceProperties":[{"id":0}]})";
  check_all_chunk_sizes(text, {e1, e2},
                        {"schemaVersion=1", R"(traceName="t}]\"x")", R"(deviceProperties=[{"id":0}])"});
}

TEST_CASE("backslash runs across 64-byte block boundaries", "[scanner]") {
  // Place runs of 1..4 backslashes (then a quote) at every offset around the block edges.
  for (int run = 1; run <= 4; ++run) {
    for (int pad = 0; pad < 140; ++pad) {
      const std::string name = std::string(size_t(pad), 'p') + std::string(size_t(run), '\\') +
                               (run % 2 ? "\"]}" : "") + "z";
      // an odd run escapes the next quote (kept inside the string); an even run does not
      const std::string e = "{\"name\":\"" + name + "\",\"k\":[{}]}";
      const std::string text = "[" + e + "," + e + "]";
      const Found f = scan(text, 64);
      INFO("run " << run << " pad " << pad);
      REQUIRE(f.events == std::vector<std::string>{e, e});
      REQUIRE(f.done);
    }
  }
}

TEST_CASE("bare array root and members after traceEvents", "[scanner]") {
  check_all_chunk_sizes(R"([{"a":1},{"b":[2]}])", {R"({"a":1})", R"({"b":[2]})"}, {});
  check_all_chunk_sizes(R"({"traceEvents":[{"a":1}],"distributedInfo":{"rank":3},"x":null})",
                        {R"({"a":1})"}, {R"(distributedInfo={"rank":3})", "x=null"});
}

TEST_CASE("non-object elements are counted, not returned", "[scanner]") {
  const Found f = scan(R"({"traceEvents":[[1,2],{"a":1},[]]})", 5);
  CHECK(f.events == std::vector<std::string>{R"({"a":1})"});
  CHECK(f.health.get(ks::HealthReason::kNonObjectElement).count == 2);
  CHECK(f.health.get(ks::HealthReason::kNonObjectElement).sample_offset == 16);
}

TEST_CASE("what is not a trace fails at once", "[scanner]") {
  CHECK(scan("\x89PNG....", 3).failed);
  CHECK(scan("hello", 100).failed);
  CHECK(scan("\x1f\x8b\x08", 100).failed);
  CHECK_FALSE(scan("  \n{\"a\":1}", 1).failed);
}

TEST_CASE("a cut-off file leaves the scanner incomplete with the complete events found", "[scanner]") {
  const Found f = scan(R"({"traceEvents":[{"a":1},{"b":"}]})", 7);
  CHECK_FALSE(f.done);
  CHECK_FALSE(f.failed);
}

TEST_CASE("a long gap between events is released as it is read, and still checked", "[scanner]") {
  // A gzip bomb's payload: megabytes of whitespace between two events. The buffer must not keep
  // it (the reader's memory would grow with it), yet a bare number or a second comma inside it
  // is still reported, at the offset where the gap began.
  const std::string head = R"({"traceEvents":[{"a":1})";  // the gap begins at offset 23
  const std::string mb(1 << 20, ' ');
  const std::string tail = R"({"b":2}]})";
  const std::vector<std::string> both = {R"({"a":1})", R"({"b":2})"};

  const Found clean = scan(head + mb + "," + mb + tail, 4096);
  CHECK(clean.events == both);
  CHECK(clean.done);
  CHECK(clean.health.get(ks::HealthReason::kJunkBetweenEvents).count == 0);
  CHECK(clean.peak_buffer < 3 * 4096);

  const Found number = scan(head + mb + ",7" + mb + tail, 4096);
  CHECK(number.events == both);
  CHECK(number.health.get(ks::HealthReason::kJunkBetweenEvents).count == 1);
  CHECK(number.health.get(ks::HealthReason::kJunkBetweenEvents).sample_offset == 23);
  CHECK(number.peak_buffer < 3 * 4096);

  const Found commas = scan(head + "," + mb + "," + tail, 4096);
  CHECK(commas.events == both);
  CHECK(commas.health.get(ks::HealthReason::kJunkBetweenEvents).count == 1);
  CHECK(commas.health.get(ks::HealthReason::kJunkBetweenEvents).sample_offset == 23);

  const Found missing = scan(head + mb + tail, 4096);  // no comma at all
  CHECK(missing.health.get(ks::HealthReason::kJunkBetweenEvents).count == 1);
}
