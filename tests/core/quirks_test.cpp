// One case per fixture in tests/data, each named after the quirk it holds; expected values
// were worked out by hand from the fixture's text.
#include <catch2/catch.hpp>

#include "test_util.h"

using ks::HealthReason;

namespace {
struct Loaded {
  ks::TraceReader reader;
  explicit Loaded(const char* name, size_t chunk = 7) {
    kstest::feed_all(reader, kstest::read_fixture(name), chunk);
  }
  const ks::TraceModel& m() const { return reader.model(); }
  uint64_t health(HealthReason r) const { return reader.model().health.get(r).count; }
  std::string str(ks::StringId id) const { return std::string(reader.model().strings.get(id)); }
};
}  // namespace

TEST_CASE("bare-na-value: unquoted N/A is read as a string", "[quirks]") {
  Loaded l("bare-na-value.json");
  REQUIRE(l.reader.error().empty());
  CHECK(l.m().cpu_ops.size() == 2);
  CHECK(l.m().id_value(l.m().cpu_ops[0].s.external_id) == 7);
  CHECK(l.str(l.m().cpu_ops[0].input_type).find("N/A") != std::string::npos);
}

TEST_CASE("control-chars-in-strings: raw newlines and tabs inside names load", "[quirks]") {
  Loaded l("control-chars-in-strings.json");
  REQUIRE(l.reader.error().empty());
  REQUIRE(l.m().cpu_ops.size() == 2);
  CHECK(l.str(l.m().cpu_ops[0].s.name) == "line1\nline2\ttab");
  CHECK(l.health(HealthReason::kMalformedEvent) == 0);
}

TEST_CASE("string-pid-and-tid: kernel args and string thread ids", "[quirks]") {
  Loaded l("string-pid-and-tid.json");
  REQUIRE(l.m().kernels.size() == 1);
  const ks::KernelRow& k = l.m().kernels[0];
  CHECK(l.str(k.s.tid) == "stream 7");
  CHECK(l.str(k.s.pid) == "0");
  CHECK(l.m().id_value(k.s.correlation) == 5);
  CHECK(k.device == 0);
  CHECK(k.stream == 7);
  CHECK(k.grid == std::array<int32_t, 3>{{1, 2, 3}});
  CHECK(k.block == std::array<int32_t, 3>{{128, 1, 1}});
  CHECK(k.registers_per_thread == 32);
  CHECK(k.blocks_per_sm == Approx(0.5));
  CHECK(k.warps_per_sm == Approx(2));
  CHECK(k.occupancy_pct == Approx(12));
  REQUIRE(l.m().runtimes.size() == 1);
  CHECK(l.str(l.m().runtimes[0].pid) == "1234");
  CHECK(l.m().id_value(l.m().runtimes[0].external_id) == 9);
  REQUIRE(l.m().metadata.size() == 1);
  CHECK(l.str(l.m().metadata[0].value) == "stream 7");
}

TEST_CASE("ns-fractional-timestamps: microseconds with fractions become exact ns", "[quirks]") {
  Loaded l("ns-fractional-timestamps.json");
  REQUIRE(l.m().cpu_ops.size() == 2);
  CHECK(l.m().cpu_ops[0].s.ts_ns == 1712195495406752797LL);
  CHECK(l.m().dur_ns(l.m().cpu_ops[0].s) == 1500);
  CHECK(l.m().dur_ns(l.m().cpu_ops[1].s) == 2);  // 1.5 ns, rounded half away from zero
  CHECK(*l.m().base_time_ns == 1727743122000000000LL);
  CHECK(l.m().start_ns == 1712195495406752797LL);
  CHECK(l.m().end_ns == 1712195495406760002LL);
}

TEST_CASE("members-after-trace-events: devices and distributedInfo after the events", "[quirks]") {
  Loaded l("members-after-trace-events.json", 3);
  REQUIRE(l.m().devices.size() == 1);
  CHECK(l.m().devices[0].name == "NVIDIA A100-SXM4-40GB");
  CHECK(l.m().devices[0].memory_bytes == 42298834944LL);
  CHECK(l.m().devices[0].compute_major == 8);
  CHECK(l.m().devices[0].sms == 108);
  CHECK(l.m().distributed.present);
  CHECK(l.m().distributed.rank == 3);
  CHECK(l.m().distributed.world_size == 8);
  CHECK(l.m().distributed.backend == "nccl");
  CHECK(*l.m().schema_version == 1);
  CHECK(l.m().trace_name == "x");
}

TEST_CASE("bare-array-pytorch-1.8: old category names in a bare array", "[quirks]") {
  Loaded l("bare-array-pytorch-1.8.json");
  REQUIRE(l.reader.error().empty());
  CHECK(l.m().format == "array");
  CHECK(l.m().old_naming);
  CHECK(l.m().cpu_ops.size() == 1);
  CHECK(l.m().runtimes.size() == 1);
  CHECK(l.m().kernels.size() == 1);
  CHECK(l.m().memcpys.size() == 1);
  CHECK(l.m().memsets.size() == 1);
  CHECK(l.m().flows.size() == 2);
  CHECK(l.m().id_value(l.m().cpu_ops[0].s.external_id) == 1);  // "external id", lower case
  CHECK(l.str(l.m().cpu_ops[0].input_dims) == "[[1,3,224,224]]");
  CHECK(l.m().memcpys[0].bytes == 1024);
  CHECK(l.m().memcpys[0].bandwidth_gbps == Approx(1.5));
  CHECK(l.m().flows[1].binding_enclosing);
}

TEST_CASE("begin-end-pairs: B/E paired per thread, strays counted", "[quirks]") {
  Loaded l("begin-end-pairs.json");
  REQUIRE(l.m().user_annotations.size() == 2);
  // inner closes first
  CHECK(l.str(l.m().user_annotations[0].s.name) == "inner");
  CHECK(l.m().dur_ns(l.m().user_annotations[0].s) == 3000);
  CHECK(l.str(l.m().user_annotations[1].s.name) == "outer");
  CHECK(l.m().dur_ns(l.m().user_annotations[1].s) == 20000);
  CHECK(l.health(HealthReason::kUnmatchedEnd) == 1);
  CHECK(l.health(HealthReason::kUnclosedBegin) == 1);
  REQUIRE(l.m().memory.size() == 1);
  CHECK(l.m().memory[0].bytes == 512);
  CHECK(l.m().memory[0].total_allocated == 1024);
  CHECK(l.m().memory[0].total_reserved == 2048);
  REQUIRE(l.m().counters.size() == 1);
  CHECK(l.m().counters[0].value == Approx(0.75));
  CHECK(l.m().event_count == 8);
}

TEST_CASE("truncated-mid-event: what is complete loads, the cut is reported", "[quirks]") {
  const std::string text = kstest::read_fixture("truncated-mid-event.json");
  Loaded l("truncated-mid-event.json");
  REQUIRE(l.reader.error().empty());
  CHECK(l.m().event_count == 2);
  CHECK(l.m().truncated);
  CHECK(l.health(HealthReason::kTruncated) == 1);
  CHECK(l.m().health.get(HealthReason::kTruncated).sample_offset == text.find("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c"));
}

TEST_CASE("malformed-event-in-middle: bad events skipped, the rest loads", "[quirks]") {
  for (size_t chunk : {size_t(3), size_t(64), size_t(100000)}) {
    Loaded l("malformed-event-in-middle.json", chunk);
    REQUIRE(l.reader.error().empty());
    REQUIRE(l.m().cpu_ops.size() == 3);
    CHECK(l.str(l.m().cpu_ops[2].s.name) == "last");
    CHECK(l.health(HealthReason::kMalformedEvent) == 1);
    CHECK(l.health(HealthReason::kJunkBetweenEvents) == 1);
  }
}

TEST_CASE("big-ints-and-non-ascii: ids beyond int64, UTF-8 names, a bad byte", "[quirks]") {
  Loaded l("big-ints-and-non-ascii.json", 1000);
  REQUIRE(l.reader.error().empty());
  CHECK(l.m().event_count == 5);
  REQUIRE(l.m().cpu_ops.size() == 2);
  CHECK(l.str(l.m().cpu_ops[0].s.name) == "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
  CHECK(l.str(l.m().cpu_ops[1].s.name) == "bad ? byte");
  CHECK(l.health(HealthReason::kRepairedInvalidUtf8) == 1);
  CHECK(l.health(HealthReason::kRecordWindowEnd) == 1);
  CHECK(l.m().end_ns == 10000);  // the far-future marker is not in the span
}

TEST_CASE("not-a-trace: JSON without traceEvents gets one sentence", "[quirks]") {
  Loaded l("not-a-trace.json");
  CHECK(l.reader.error().find("no \"traceEvents\"") != std::string::npos);
}

TEST_CASE("not-json: a PNG fails on its first bytes", "[quirks]") {
  ks::TraceReader r;
  const std::string text = kstest::read_fixture("not-json.png");
  r.feed(text.data(), 4);
  CHECK(r.failed());
  CHECK(r.error() == "This file is not JSON, so it is not a PyTorch profiler trace.");
}

TEST_CASE("empty input", "[quirks]") {
  ks::TraceReader r;
  r.finish();
  CHECK(r.error() == "The file is empty.");
}

TEST_CASE("an input error part-way keeps what was read and says so", "[quirks]") {
  const std::string text = kstest::read_fixture("string-pid-and-tid.json");
  ks::TraceReader r;
  r.feed(text.data(), 300);
  r.note_input_error(ks::TraceReader::InputError::kGzip);
  r.finish();
  CHECK(r.error().empty());
  CHECK(r.model().event_count == 1);
  CHECK(r.model().health.get(HealthReason::kGzipError).count == 1);
  CHECK(r.model().health.get(HealthReason::kGzipError).sample_offset == 300);
  CHECK(r.model().health.get(HealthReason::kTruncated).count == 1);

  ks::TraceReader nothing;
  nothing.note_input_error(ks::TraceReader::InputError::kGzip);
  nothing.finish();
  CHECK(nothing.error() == "The file starts like a gzip file but could not be decompressed.");
}

TEST_CASE("utf8-bom: a byte order mark before the JSON is skipped", "[quirks]") {
  Loaded l("utf8-bom.json", 1);  // found by the fuzzer: BOM bytes split across chunks
  REQUIRE(l.reader.error().empty());
  CHECK(l.m().cpu_ops.size() == 1);
}

TEST_CASE("trailing-data-after-trace: junk after the root is one health entry", "[quirks]") {
  Loaded l("trailing-data-after-trace.json", 5);  // found by the fuzzer: once per chunk before
  REQUIRE(l.reader.error().empty());
  CHECK(l.m().cpu_ops.size() == 1);
  CHECK(l.health(HealthReason::kTrailingData) == 1);
  CHECK(l.m().health.get(HealthReason::kTrailingData).sample_offset == 86);  // the first "]" after the newline
}

TEST_CASE("collective args and python ids go to their own tables", "[quirks]") {
  const std::string text = R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":1},
{"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":2,"dur":1,"args":{"Collective name":"allreduce","dtype":"Float","In msg nelems":1024,"Out msg nelems":1024,"Group size":8,"Process Group Name":"0","Process Group Ranks":[0,1]}},
{"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":7,"ts":3,"dur":5,"args":{"Collective name":"allreduce","In msg nelems":1024}},
{"ph":"X","cat":"python_function","name":"nn.Module: Linear_0","pid":1,"tid":1,"ts":1,"dur":3,"args":{"Python id":5,"Python parent id":2,"Python module id":0}}
]})";
  ks::TraceReader r;
  kstest::feed_all(r, text, 13);
  const ks::TraceModel& m = r.model();
  REQUIRE(m.collectives.size() == 2);
  CHECK(m.collectives[0].kind == ks::EventKind::kCpuOp);
  CHECK(m.collectives[0].row == 1);
  CHECK(m.strings.get(m.collectives[0].collective_name) == "allreduce");
  CHECK(m.strings.get(m.collectives[0].dtype) == "Float");
  CHECK(m.strings.get(m.collectives[0].process_group_ranks) == "[0,1]");
  CHECK(m.collectives[0].group_size == 8);
  CHECK(m.collectives[1].kind == ks::EventKind::kKernel);
  CHECK(m.collectives[1].row == 0);
  CHECK(m.collectives[1].in_msg_nelems == 1024);
  REQUIRE(m.python_functions.size() == 1);
  CHECK(m.python_functions[0].python_id == 5);
  CHECK(m.python_functions[0].python_parent_id == 2);
  CHECK(m.python_functions[0].python_module_id == 0);
}

TEST_CASE("extra-brace-after-malformed-event: a neighbour never changes how an event reads", "[quirks]") {
  for (size_t chunk : {size_t(8), size_t(100000)}) {
    Loaded l("extra-brace-after-malformed-event.json", chunk);
    REQUIRE(l.reader.error().empty());
    CHECK(l.m().event_count == 0);  // all three events are malformed
    CHECK(l.health(HealthReason::kMalformedEvent) == 3);
    CHECK(l.health(HealthReason::kJunkBetweenEvents) == 2);
  }
}
