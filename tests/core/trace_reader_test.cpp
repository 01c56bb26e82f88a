#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "test_util.h"

namespace {
const char* const kFixtures[] = {
    "bare-na-value.json",         "control-chars-in-strings.json", "string-pid-and-tid.json",
    "ns-fractional-timestamps.json", "members-after-trace-events.json",
    "bare-array-pytorch-1.8.json", "begin-end-pairs.json",          "truncated-mid-event.json",
    "malformed-event-in-middle.json", "big-ints-and-non-ascii.json", "not-a-trace.json",
    "not-json.png", "utf8-bom.json", "trailing-data-after-trace.json",
    "extra-brace-after-malformed-event.json"};
}

TEST_CASE("every chunk size from 1 byte gives the same summary", "[reader]") {
  for (const char* name : kFixtures) {
    const std::string text = kstest::read_fixture(name);
    REQUIRE(!text.empty());
    const std::string whole = kstest::summary_of(text, text.size());
    ks::TraceReader probe;
    kstest::feed_all(probe, text, text.size());
    for (size_t chunk = 1; chunk <= text.size(); ++chunk) {
      INFO(name << " chunk " << chunk);
      if (probe.failed()) {  // not a trace: reading stops early, so only the verdict is compared
        ks::TraceReader r;
        kstest::feed_all(r, text, chunk);
        REQUIRE(r.error() == probe.error());
      } else {
        REQUIRE(kstest::summary_of(text, chunk) == whole);
      }
    }
  }
}

TEST_CASE("a sample trace in random chunk sizes gives the same summary", "[reader]") {
  // A generated trace of ~2 MB mixing every phase, fed in random sizes.
  std::string text = R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"G","totalGlobalMem":1,"computeMajor":9,"computeMinor":0,"numSms":132}],"traceEvents":[)";
  for (int i = 0; i < 8000; ++i) {
    if (i) text += ",\n";
    const std::string ts = std::to_string(1000 + i * 10) + "." + std::to_string(i % 1000);
    switch (i % 5) {
      case 0: text += R"({"ph":"X","cat":"cpu_op","name":"aten::op)" + std::to_string(i % 37) + R"(","pid":1,"tid":2,"ts":)" + ts + R"(,"dur":4.5,"args":{"External id":)" + std::to_string(i) + R"(,"Input Dims":[[2,3],[]],"Call stack":"a.py(1): f\nb.py(2): g"}})"; break;
      case 1: text += R"J({"ph":"X","cat":"kernel","name":"void k<\"x\">()","pid":0,"tid":"stream 7","ts":)J" + ts + R"(,"dur":3,"args":{"correlation":)" + std::to_string(i) + R"(,"grid":[4,1,1],"block":[256,1,1]}})"; break;
      case 2: text += R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":2,"ts":)" + ts + R"(,"s":"t","args":{"Bytes":)" + std::to_string(i * 8) + R"(,"Total Allocated":9}})"; break;
      case 3: text += R"({"ph":"f","cat":"ac2g","name":"flow","id":)" + std::to_string(i) + R"(,"pid":0,"tid":"stream 7","ts":)" + ts + R"(,"bp":"e"})"; break;
      default: text += R"({"ph":"C","name":"util","pid":0,"ts":)" + ts + R"(,"args":{"GPU Utilization":0.5}})"; break;
    }
  }
  text += R"(],"distributedInfo":{"backend":"nccl","rank":1,"world_size":2}})";
  const std::string whole = kstest::summary_of(text, text.size());
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 20; ++trial) {
    ks::TraceReader r;
    size_t i = 0;
    while (i < text.size()) {
      const size_t n = std::min<size_t>(1 + rng() % 70000, text.size() - i);
      r.feed(text.data() + i, n);
      i += n;
    }
    r.finish();
    REQUIRE(ks::summary_json(r.model(), "f", r.error()) == whole);
  }
  ks::TraceReader r;
  kstest::feed_all(r, text, 4096);
  const ks::TraceModel& m = r.model();
  CHECK(m.event_count == 8000);
  CHECK(m.cpu_ops.size() == 1600);
  CHECK(m.kernels.size() == 1600);
  CHECK(m.memory.size() == 1600);
  CHECK(m.flows.size() == 1600);
  CHECK(m.counters.size() == 1600);
  CHECK(m.kernels[0].grid[0] == 4);
  CHECK(m.strings.get(m.kernels[0].s.name) == "void k<\"x\">()");
  CHECK(m.strings.get(m.cpu_ops[0].call_stack) == "a.py(1): f\nb.py(2): g");
  CHECK(m.strings.get(m.cpu_ops[0].input_dims) == "[[2,3],[]]");
  CHECK(m.devices.size() == 1);
  CHECK(m.devices[0].sms == 132);
  CHECK(m.distributed.rank == 1);
}

TEST_CASE("the reader holds only the unfinished tail, not the file", "[reader]") {
  std::string event = R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":1,"dur":1},)";
  ks::TraceReader r;
  r.feed("{\"traceEvents\":[", 16);
  for (int chunk = 0; chunk < 64; ++chunk) {
    std::string block;
    for (int i = 0; i < 4000; ++i) block += event;  // ~300 KB per chunk, ~19 MB in all
    r.feed(block.data(), block.size());
  }
  r.feed("{}]}", 4);
  r.finish();
  CHECK(r.model().event_count == 64 * 4000 + 1);
  CHECK(r.buffer_capacity() <= 1u << 20);
}
