#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "test_util.h"
#include "core/session/views.h"

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
      case 3: text += R"({"ph":"f","cat":"fwdbwd","name":"flow","id":)" + std::to_string(i) + R"(,"pid":0,"tid":"stream 7","ts":)" + ts + R"(,"bp":"e"})"; break;
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
    REQUIRE(ks::answer_json(ks::summary_model_answer(r.model(), "f", r.error())) == whole);
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
  CHECK(m.strings.get(m.call_stack(ks::EventKind::kCpuOp, 0)) == "a.py(1): f\nb.py(2): g");
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

TEST_CASE("every event's strings are its own, whichever recent ids the builder keeps", "[trace_reader]") {
  // The builder reuses the id of a text it met lately in the same way (trace_builder.h,
  // RecentIds), the way chosen by the length and three bytes. Texts of digits with one digit
  // flipped by 0x40 (to a letter) share their way with the unflipped text whichever byte
  // changed: every row's name, pid and tid must be the text written, in events of random order
  // (flows between them use the pid, tid and name caches too).
  kstest::Random rng{12};
  auto with_variants = [](const std::string& base) {
    std::vector<std::string> out{base};
    for (size_t at = 0; at < base.size(); ++at) {
      std::string v = base;
      v[at] = char(v[at] ^ 0x40);
      out.push_back(v);
    }
    return out;
  };
  std::vector<std::string> names = with_variants("1234567"), pids = with_variants("4711"), tids = with_variants("20230");
  for (const std::string& n : with_variants("123456789012345678")) names.push_back(n);
  struct Row {
    std::string name, pid, tid;
  };
  std::vector<Row> rows;
  std::string text = R"({"traceEvents":[)";
  for (int i = 0; i < 5000; ++i) {
    Row r{names[size_t(rng.below(names.size()))], pids[size_t(rng.below(pids.size()))], tids[size_t(rng.below(tids.size()))]};
    if (i) text += ",\n";
    text += R"({"ph":"X","cat":"cpu_op","name":")" + r.name + R"(","pid":")" + r.pid + R"(","tid":")" + r.tid +
            R"(","ts":)" + std::to_string(10 + i * 10) + R"(,"dur":5})";
    if (rng.below(4) == 0)
      text += R"(,{"ph":"f","id":)" + std::to_string(i) + R"(,"pid":")" + pids[size_t(rng.below(pids.size()))] +
              R"(","tid":")" + tids[size_t(rng.below(tids.size()))] + R"(","ts":1,"cat":"fwdbwd","name":")" +
              names[size_t(rng.below(names.size()))] + R"(","bp":"e"})";
    rows.push_back(r);
  }
  text += "]}";
  ks::TraceReader reader;
  kstest::feed_all(reader, text, 4093);
  reader.finish();
  const ks::TraceModel& m = reader.model();
  REQUIRE(m.cpu_ops.size() == rows.size());
  bool all = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ks::SliceRow& s = m.cpu_ops[i].s;
    all = all && m.strings.get(s.name) == rows[i].name && m.strings.get(s.pid) == rows[i].pid &&
          m.strings.get(s.tid) == rows[i].tid;
  }
  CHECK(all);
}
