// The model's and the operator tree's compact layouts (interned flow ids, 36-byte operator nodes
// with a side table for wide values, 64-bit ids) keep every value exactly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <vector>
#include <string>

#include "core/analysis/kernels.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/operators.h"
#include "core/analysis/summary.h"
#include "core/trace/model_columns.h"
#include "core/session/views.h"
#include "test_util.h"

namespace {

const ks::Column& col(const std::vector<ks::Column>& cols, const std::string& name) {
  for (const auto& c : cols)
    if (c.name == name) return c;
  FAIL("no column " << name);
  return cols.front();
}

}  // namespace

TEST_CASE("flow ids: numbers inline, other texts interned, equal texts equal ids", "[compact_layouts]") {
  ks::StringPool sp;
  CHECK(ks::flow_id(sp, "0") == 0u);
  CHECK(ks::flow_id(sp, "42") == 42u);
  CHECK(ks::flow_id(sp, "2147483647") == 2147483647u);
  CHECK(sp.size() == 1);  // nothing interned (id 0 is the empty string)
  // Not canonical decimals below 2^31: interned, marked, and distinct from the number.
  for (const char* text : {"", "042", "2147483648", "99999999999", "-1", "1.5", "1e3", "abc"}) {
    const ks::FlowId id = ks::flow_id(sp, text);
    CHECK((id & ks::kFlowIdText) != 0);
    CHECK(sp.get(id & ~ks::kFlowIdText) == text);
    CHECK(ks::flow_id(sp, text) == id);
  }
  CHECK(ks::flow_id(sp, "042") != ks::flow_id(sp, "42"));
}

TEST_CASE("flow ids from a trace: a number and the same digits as a string are one flow", "[compact_layouts]") {
  const std::string trace = R"({"traceEvents":[
    {"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":7,"pid":1,"tid":1,"ts":10},
    {"ph":"f","cat":"fwdbwd","name":"fwdbwd","id":"7","pid":1,"tid":2,"ts":20,"bp":"e"},
    {"ph":"s","cat":"async","name":"async","id":"x7","pid":1,"tid":1,"ts":30},
    {"ph":"f","cat":"async","name":"async","id":4294967296,"pid":1,"tid":2,"ts":40}]})";
  ks::TraceReader r;
  kstest::feed_all(r, trace, 5);
  const ks::TraceModel& m = r.model();
  REQUIRE(m.flows.size() == 4);
  CHECK(m.flows[0].id == 7u);
  CHECK(m.flows[1].id == m.flows[0].id);
  CHECK(m.flows[1].binding_enclosing);
  CHECK(m.strings.get(m.flows[2].id & ~ks::kFlowIdText) == "x7");
  CHECK(m.strings.get(m.flows[3].id & ~ks::kFlowIdText) == "4294967296");
  // cat/name and pid/tid as pairs kept once: each row reads its own back.
  CHECK(m.flow_pairs.size() == 4);  // (fwdbwd, fwdbwd), (1, 1), (1, 2), (async, async)
  const char* const expect[4][4] = {{"fwdbwd", "fwdbwd", "1", "1"}, {"fwdbwd", "fwdbwd", "1", "2"},
                                    {"async", "async", "1", "1"}, {"async", "async", "1", "2"}};
  for (size_t i = 0; i < 4; ++i) {
    const ks::FlowRow& f = m.flows[i];
    CHECK(m.strings.get(m.flow_cat(f)) == expect[i][0]);
    CHECK(m.strings.get(m.flow_name(f)) == expect[i][1]);
    CHECK(m.strings.get(m.flow_pid(f)) == expect[i][2]);
    CHECK(m.strings.get(m.flow_tid(f)) == expect[i][3]);
  }
  CHECK(sizeof(ks::FlowRow) == 24);
}

TEST_CASE("sequence numbers and forward thread ids beyond 32 bits read back exactly", "[compact_layouts]") {
  const std::string trace = R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":10,"dur":5,"args":{"Sequence number":5,"Fwd thread id":1}},
    {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":20,"dur":5,"args":{"Sequence number":8589934592,"Fwd thread id":-2147483647}},
    {"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":1,"ts":30,"dur":5},
    {"ph":"X","cat":"user_annotation","name":"u","pid":1,"tid":1,"ts":40,"dur":5,"args":{"Sequence number":-2147483648}}]})";
  ks::TraceReader r;
  kstest::feed_all(r, trace, 3);
  const ks::TraceModel& m = r.model();
  const auto ops = ks::table_columns(m, "cpu_op");
  const auto& seq = col(ops, "sequence_number").f64;
  const auto& fwd = col(ops, "fwd_thread_id").f64;
  REQUIRE(seq.size() == 3);
  CHECK(seq[0] == 5);
  CHECK(seq[1] == 8589934592.0);
  CHECK(std::isnan(seq[2]));
  CHECK(fwd[0] == 1);
  CHECK(fwd[1] == -2147483647.0);
  CHECK(std::isnan(fwd[2]));
  const auto ann = ks::table_columns(m, "user_annotation");
  CHECK(col(ann, "sequence_number").f64[0] == -2147483648.0);
}

TEST_CASE("operator nodes read their name, start, end and host total from the row, exactly beyond 32 bits", "[compact_layouts]") {
  // A 5 s operator (5e9 ns > 2^32) with a 1 s child, at ns timestamps near 1.7e18: the nodes no
  // longer keep these values, so the tree and the Operators view must read them back exact.
  const std::string trace = R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::outer","pid":1,"tid":1,"ts":1700000000000000.001,"dur":5000000.003},
    {"ph":"X","cat":"cpu_op","name":"aten::inner","pid":1,"tid":1,"ts":1700000001000000,"dur":1000000}]})";
  ks::TraceReader r;
  kstest::feed_all(r, trace, 7);
  const ks::TraceModel& m = r.model();
  const ks::OpTree t = ks::build_op_tree(m);
  REQUIRE(t.roots.size() == 1);
  const ks::OpNode& root = t.nodes[size_t(t.roots[0])];
  const int32_t outer = root.first_child;
  REQUIRE(outer >= 0);
  const ks::OpNode& o = t.nodes[size_t(outer)];
  CHECK(ks::node_name(t, m, outer) == "aten::outer");
  CHECK(ks::node_start_ns(t, m, o) == 1700000000000000001);
  CHECK(ks::node_end_ns(t, m, o) == 1700000005000000004);
  CHECK(ks::node_host_total_ns(t, m, o) == 5000000003);
  CHECK(ks::node_host_self_ns(t, o) == 4000000003);
  CHECK(o.wide);  // beyond int32: kept in OpTree::wide
  // The root spans its children.
  CHECK(ks::node_start_ns(t, m, root) == 1700000000000000001);
  CHECK(ks::node_end_ns(t, m, root) == 1700000005000000004);
  CHECK(ks::node_host_total_ns(t, m, root) == 0);
  const ks::OperatorTable table = ks::operator_table(t, m, ks::OpGroupBy::kName);
  bool seen = false;
  for (const ks::OperatorGroup& g : table.rows) {
    if (m.strings.get(g.name) != "aten::outer") continue;
    seen = true;
    CHECK(g.stats.host_total_ns == 5000000003);
    CHECK(g.stats.host_self_ns == 4000000003);
  }
  CHECK(seen);
  CHECK(sizeof(ks::OpNode) == 36);
  CHECK(sizeof(ks::Launch) == 8);
}

// Issue 21 (headroom): the heap with the Overview, Operators and Kernels built, toward 0.25x of
// the file. The rows' sizes are measured, not only asserted: a field added back to a row, ac2g
// flows kept again or a small table given a whole block fails here.
TEST_CASE("the model's bytes per row, measured from the tables' capacities", "[compact_layouts]") {
  std::string t = R"({"traceEvents":[)";
  auto ev = [&](const std::string& e) { t += e + ",\n"; };
  for (int i = 0; i < 20000; ++i) {
    const std::string ts = std::to_string(1000 + i * 10);
    // every fifth operator with a sequence number (15-37% of real traces' operators have one)
    ev(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" + ts + R"(,"dur":2,"args":{"External id":)" +
       std::to_string(i) + (i % 5 ? std::string() : R"(,"Sequence number":)" + std::to_string(i)) + "}}");
    ev(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + ts +
       R"(,"dur":1,"args":{"External id":)" + std::to_string(i) + R"(,"correlation":)" + std::to_string(i) + "}}");
    ev(R"({"ph":"s","cat":"ac2g","name":"ac2g","id":)" + std::to_string(i) + R"(,"pid":1,"tid":1,"ts":)" + ts + "}");
    if (i < 5000)
      ev(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + ts + R"(,"dur":1,"args":{"correlation":)" +
         std::to_string(i) + R"(,"device":0,"stream":7}})");
    if (i < 100)
      ev(R"({"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":)" + std::to_string(i) + R"(,"pid":1,"tid":1,"ts":)" + ts + "}");
  }
  t += R"({"ph":"X","cat":"user_annotation","name":"u","pid":1,"tid":1,"ts":1000,"dur":5}]})";
  ks::TraceReader r;
  kstest::feed_all(r, t, 1 << 20);
  const ks::TraceModel& m = r.model();
  REQUIRE(m.cpu_ops.size() == 20000);
  REQUIRE(m.runtimes.size() == 20000);
  REQUIRE(m.kernels.size() == 5000);
  // Blocks of 16,384 rows; a table's first block starts at 64 rows and doubles.
  CHECK(m.cpu_ops.bytes() == 2 * 16384 * 44);   // CpuOpRow: 44 bytes (56 with the call stack and module hierarchy ids and an 8-byte duration)
  CHECK(m.cpu_op_stacks.bytes() + m.cpu_op_modules.bytes() == 0);  // none here: nothing held for them
  REQUIRE(m.op_sequences.size() == 4000);       // the sequence numbers of the ops that have one
  CHECK(m.op_sequences.bytes() == 4096 * 16);
  CHECK(m.runtimes.bytes() == 2 * 16384 * 36);  // SliceRow: 36 bytes (40 with an 8-byte duration, 48 with 8-byte ids)
  CHECK(m.kernels.bytes() == 8192 * 88);        // KernelRow: 88 bytes (96, 104)
  CHECK(m.user_annotations.bytes() == 64 * 44); // one row: 64 rows, not 16,384
  CHECK(m.wide_durs.empty());
  // 20,100 flows, of which the 100 fwdbwd ones are kept: 128 rows of 24 bytes.
  CHECK(m.kind_counts[size_t(ks::EventKind::kFlow)] == 20100);
  REQUIRE(m.flows.size() == 100);
  CHECK(m.flows.bytes() == 128 * 24);
  for (const ks::FlowRow& f : m.flows) CHECK(m.strings.get(m.flow_cat(f)) == "fwdbwd");
  CHECK(ks::answer_json(ks::summary_model_answer(m, "f", r.error())).find("\"ac2g\":20000") != std::string::npos);
  CHECK(m.id_value(m.runtimes[19999].correlation) == 19999);
  CHECK(m.id_value(m.cpu_ops[19999].s.external_id) == 19999);
  CHECK(m.id_value(m.cpu_ops[19999].s.correlation) == ks::kNoId);
  const auto ops = ks::table_columns(m, "cpu_op");
  for (size_t i : {size_t(0), size_t(1), size_t(5), size_t(19995), size_t(19999)}) {
    INFO(i);
    if (i % 5) CHECK(std::isnan(col(ops, "sequence_number").f64[i]));
    else CHECK(col(ops, "sequence_number").f64[i] == double(i));
  }
  static_assert(sizeof(ks::SliceRow) == 36 && sizeof(ks::CpuOpRow) == 44 && sizeof(ks::OpSequenceRow) == 16 && sizeof(ks::KernelRow) == 88 &&
                sizeof(ks::MemcpyRow) == 64 && sizeof(ks::FlowRow) == 24);
}

// Issue 21, fourth pass: "Call stack" and "Module Hierarchy" are kept apart, (row, id) for the
// rows that have one. Every op of a with_stack trace has a call stack (row i is entry i); here
// some have one, some not, in all three op tables, as X events and a B/E pair, read in chunks of
// 7 bytes and at once: each row reads its own back, the others none.
TEST_CASE("call stacks and module hierarchies kept apart read back for the rows that have them", "[compact_layouts]") {
  std::string t = R"({"traceEvents":[)";
  auto op = [&](const char* cat, int i, bool stack, bool module) {
    std::string args;
    if (stack) args += R"("Call stack":"f.py()" + std::to_string(i) + R"(): g;h.py(2): k")";
    if (module) args += std::string(args.empty() ? "" : ",") + R"("Module Hierarchy":"top.layers.)" + std::to_string(i) + R"(")";
    t += std::string(R"({"ph":"X","cat":")") + cat + R"(","name":"op)" + std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" +
         std::to_string(10 * i) + R"(,"dur":5,"args":{)" + args + "}},\n";
  };
  for (int i = 0; i < 300; ++i) op("cpu_op", i, i % 3 == 0, i % 5 == 0);
  op("user_annotation", 1000, false, false);
  op("user_annotation", 1001, true, true);
  op("gpu_user_annotation", 1002, true, false);
  t += R"({"ph":"B","cat":"cpu_op","name":"op2000","pid":1,"tid":2,"ts":5,"args":{"Call stack":"be.py(1): pair"}},
    {"ph":"E","pid":1,"tid":2,"ts":9}]})";
  for (size_t chunk : {size_t(7), size_t(1) << 20}) {
    ks::TraceReader r;
    kstest::feed_all(r, t, chunk);
    const ks::TraceModel& m = r.model();
    REQUIRE(m.cpu_ops.size() == 301);
    CHECK(m.cpu_op_stacks.size() == 101);  // i % 3 == 0, and the B/E pair
    CHECK(m.cpu_op_modules.size() == 60);
    const auto ops = ks::table_columns(m, "cpu_op");
    for (uint32_t row = 0; row < m.cpu_ops.size(); ++row) {
      const std::string name(m.strings.get(m.cpu_ops[row].s.name));
      INFO(name);
      const int i = std::stoi(name.substr(2));
      const std::string stack(m.strings.get(m.call_stack(ks::EventKind::kCpuOp, row)));
      const std::string module(m.strings.get(m.module_hierarchy(ks::EventKind::kCpuOp, row)));
      if (i == 2000) CHECK(stack == "be.py(1): pair");
      else CHECK(stack == (i % 3 == 0 ? "f.py(" + std::to_string(i) + "): g;h.py(2): k" : ""));
      CHECK(module == (i % 5 == 0 && i < 300 ? "top.layers." + std::to_string(i) : ""));
      CHECK(col(ops, "call_stack").u32[row] == m.call_stack(ks::EventKind::kCpuOp, row));
      CHECK(col(ops, "module_hierarchy").u32[row] == m.module_hierarchy(ks::EventKind::kCpuOp, row));
    }
    CHECK(m.call_stack(ks::EventKind::kCpuOp, 301) == 0);  // past the rows
    REQUIRE(m.user_annotations.size() == 2);
    CHECK(m.call_stack(ks::EventKind::kUserAnnotation, 0) == 0);
    CHECK(m.strings.get(m.call_stack(ks::EventKind::kUserAnnotation, 1)) == "f.py(1001): g;h.py(2): k");
    CHECK(m.strings.get(m.module_hierarchy(ks::EventKind::kUserAnnotation, 1)) == "top.layers.1001");
    CHECK(m.strings.get(m.call_stack(ks::EventKind::kGpuAnnotation, 0)) == "f.py(1002): g;h.py(2): k");
    CHECK(m.module_hierarchy(ks::EventKind::kGpuAnnotation, 0) == 0);
    CHECK(m.call_stack(ks::EventKind::kRuntime, 0) == 0);
  }
  // Every op with one: entry i is row i, 8 bytes an op as before.
  ks::TraceReader all;
  kstest::feed_all(all, R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":{"Call stack":"x.py(1): a"}},
    {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Call stack":"x.py(2): b"}}]})", 1 << 20);
  CHECK(all.model().strings.get(all.model().call_stack(ks::EventKind::kCpuOp, 0)) == "x.py(1): a");
  CHECK(all.model().strings.get(all.model().call_stack(ks::EventKind::kCpuOp, 1)) == "x.py(2): b");
  CHECK(all.model().call_stack(ks::EventKind::kCpuOp, 2) == 0);
  static_assert(sizeof(ks::OpArgRow<ks::EventKind::kCpuOp>) == 8);
}

// Issue 21, fourth pass: a slice's duration in 4 bytes, the ones of 2^31 ns (2.1 s) and more in
// TraceModel::wide_durs; its start as two 4-byte halves (a 36-byte row, 4-byte aligned). Durations
// on both sides of 2^31 and beyond 2^32, in an op, a runtime call, a kernel and a user range, as X
// events and a B/E pair, starts whose low half has its top bit set, read in chunks of 7 bytes and
// at once: each exact from the row, in the table's columns, and in the Kernels and Operators views.
TEST_CASE("durations beyond 2^31 ns and starts beyond 32 bits read back exactly from 36-byte slice rows", "[compact_layouts]") {
  const int64_t durs[] = {0, 1, 2147483647, 2147483648, 4294967296 + 5, 10000000001};  // ns
  std::string t = R"({"traceEvents":[)";
  std::vector<int64_t> starts;
  for (size_t i = 0; i < std::size(durs); ++i) {
    // ns starts, written as µs with 3 decimals, 22 s apart: low halves with and without bit 31
    const int64_t ts = 1700000000000000000 + int64_t(i) * (20000000000 + 2147483648) + 3;
    starts.push_back(ts);
    const auto us = [](int64_t ns) { return std::to_string(ns / 1000) + "." + std::to_string(1000 + ns % 1000).substr(1); };
    const std::string id = std::to_string(100 + i);
    t += R"({"ph":"X","cat":"cpu_op","name":"op)" + std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" + us(ts) +
         R"(,"dur":)" + us(durs[i]) + R"(,"args":{"External id":)" + id + "}},\n";
    t += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + us(ts) +
         R"(,"dur":)" + us(durs[i]) + R"(,"args":{"External id":)" + id + R"(,"correlation":)" + id + "}},\n";
    t += R"({"ph":"X","cat":"kernel","name":"k)" + std::to_string(i) + R"(","pid":0,"tid":7,"ts":)" + us(ts) +
         R"(,"dur":)" + us(durs[i]) + R"(,"args":{"correlation":)" + id + R"(,"device":0,"stream":7}},)" + "\n";
    t += R"({"ph":"B","cat":"user_annotation","name":"range)" + std::to_string(i) + R"(","pid":1,"tid":2,"ts":)" + us(ts) + "},\n";
    t += R"({"ph":"E","pid":1,"tid":2,"ts":)" + us(ts + durs[i]) + "},\n";
  }
  t += R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":1,"dur":1}]})";
  for (size_t chunk : {size_t(7), size_t(1) << 20}) {
    INFO("chunk " << chunk);
    ks::TraceReader r;
    kstest::feed_all(r, t, chunk);
    REQUIRE(r.error().empty());
    const ks::TraceModel& m = r.model();
    REQUIRE(m.cpu_ops.size() == std::size(durs));
    REQUIRE(m.kernels.size() == std::size(durs));
    REQUIRE(m.user_annotations.size() == std::size(durs));
    REQUIRE(m.runtimes.size() == std::size(durs) + 1);
    // the three of 2^31 and more, in each of the four tables
    CHECK(m.wide_durs.size() == 12);
    const auto kdur = ks::table_columns(m, "kernel");
    for (size_t i = 0; i < std::size(durs); ++i) {
      INFO("slice " << i);
      CHECK(m.dur_ns(m.cpu_ops[i].s) == durs[i]);
      CHECK(m.dur_ns(m.runtimes[i]) == durs[i]);
      CHECK(m.dur_ns(m.kernels[i].s) == durs[i]);
      CHECK(m.dur_ns(m.user_annotations[i].s) == durs[i]);
      CHECK(int64_t(m.cpu_ops[i].s.ts_ns) == starts[i]);
      CHECK(int64_t(m.kernels[i].s.ts_ns) == starts[i]);
      CHECK(int64_t(m.user_annotations[i].s.ts_ns) == starts[i]);
      CHECK(col(kdur, "dur").f64[i] == double(durs[i]));
      CHECK(m.id_value(m.kernels[i].s.correlation) == int64_t(100 + i));
    }
    CHECK(m.dur_ns(m.runtimes[std::size(durs)]) == 1000);
    CHECK(m.end_ns == starts.back() + durs[std::size(durs) - 1]);
    // The views sum them exactly: each kernel its own row, each op its own device time.
    const ks::OpTree tree = ks::build_op_tree(m);
    const ks::KernelTable kt = ks::kernel_table(tree, m, ks::KernelGroupBy::kName, nullptr);
    size_t seen = 0;
    for (const auto& row : kt.rows) {
      const std::string name(m.strings.get(row.name));
      const size_t i = size_t(std::stoi(name.substr(1)));
      CHECK(row.total_ns == durs[i]);
      ++seen;
    }
    CHECK(seen >= std::size(durs) - 1);  // k0 (0 ns) may be left out
    const ks::OperatorTable ot = ks::operator_table(tree, m, ks::OpGroupBy::kName);
    for (const ks::OperatorGroup& g : ot.rows) {
      const std::string name(m.strings.get(g.name));
      if (name.rfind("op", 0) != 0) continue;
      const size_t i = size_t(std::stoi(name.substr(2)));
      INFO(name);
      CHECK(g.stats.host_total_ns == durs[i]);
      CHECK(g.stats.device_total_ns == durs[i]);
    }
  }
  CHECK(std::any_of(starts.begin(), starts.end(), [](int64_t s) { return (uint64_t(s) & 0x80000000u) != 0; }));
  CHECK(std::any_of(starts.begin(), starts.end(), [](int64_t s) { return (uint64_t(s) & 0x80000000u) == 0; }));
  static_assert(sizeof(ks::SliceRow) == 36 && alignof(ks::SliceRow) == 4);
}

TEST_CASE("External ids and correlations of any 64-bit value read back exactly", "[compact_layouts]") {
  // 4 bytes a row: below 2^31 as the number, others as the text of the value (none seen in real
  // traces, so exact rather than small).
  const int64_t ids[] = {0, 5, 2147483647, 2147483648, 4294967296, -1, -2147483648, 9007199254740993};  // the last: 2^53 + 1, not a double
  std::string t = R"({"traceEvents":[)";
  for (size_t i = 0; i < std::size(ids); ++i) {
    const std::string id = std::to_string(ids[i]);
    t += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(10 + i * 10) +
         R"(,"dur":1,"args":{"External id":)" + id + R"(,"correlation":)" + id + "}},";
    // the same through a B/E pair (its fields are kept until the E comes)
    t += R"({"ph":"B","cat":"cuda_runtime","name":"cudaMemcpy","pid":1,"tid":2,"ts":)" + std::to_string(10 + i * 10) +
         R"(,"args":{"External id":)" + id + R"(,"correlation":)" + id + "}},";
    t += R"({"ph":"E","pid":1,"tid":2,"ts":)" + std::to_string(12 + i * 10) + "},";
  }
  t += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":500,"dur":1}]})";
  for (size_t chunk : {size_t(7), size_t(1) << 20}) {
    ks::TraceReader r;
    kstest::feed_all(r, t, chunk);
    const ks::TraceModel& m = r.model();
    REQUIRE(m.runtimes.size() == 2 * std::size(ids) + 1);
    std::vector<int64_t> x, b;
    for (const ks::SliceRow& s : m.runtimes) {
      if (m.strings.get(s.name) == "cudaMemcpy") b.push_back(m.id_value(s.correlation));
      else if (m.id_value(s.external_id) != ks::kNoId) x.push_back(m.id_value(s.external_id));
      if (m.strings.get(s.name) == "cudaLaunchKernel" && s.external_id != ks::kPackedAbsent)
        CHECK(m.id_value(s.external_id) == m.id_value(s.correlation));
    }
    CHECK(x == std::vector<int64_t>(std::begin(ids), std::end(ids)));
    CHECK(b == std::vector<int64_t>(std::begin(ids), std::end(ids)));
    CHECK(m.id_value(m.runtimes[m.runtimes.size() - 1].external_id) == ks::kNoId);
  }
}

// Issue 21, third pass: a node's three statistics are 4 bytes each; one beyond int32 (2^31 ns =
// 2.1 s) puts all three of that node in OpTree::wide. A 10 s operator launching a kernel of
// exactly 2^31 ns, and a short one launching a kernel of 2^31 - 1 ns (the last value that fits),
// as X events and as a B/E pair, read in chunks of 7 bytes and at once: every number exact, and
// only the long operator and the root (4,294,967,295 ns of device time) kept wide.
TEST_CASE("operator statistics beyond int32 read back exactly from 36-byte nodes", "[compact_layouts]") {
  const std::string big_x = R"({"ph":"X","cat":"cpu_op","name":"aten::big","pid":1,"tid":1,"ts":1000,"dur":10000000.001,"args":{"External id":1}},)";
  const std::string big_be = R"({"ph":"B","cat":"cpu_op","name":"aten::big","pid":1,"tid":1,"ts":1000,"args":{"External id":1}},
    {"ph":"E","cat":"cpu_op","name":"aten::big","pid":1,"tid":1,"ts":10001000.001},)";
  const std::string rest = R"(
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2000,"dur":5,"args":{"External id":1,"correlation":7}},
    {"ph":"X","cat":"kernel","name":"k_long","pid":0,"tid":7,"ts":3000,"dur":2147483.648,"args":{"External id":1,"correlation":7,"device":0,"stream":7}},
    {"ph":"X","cat":"cpu_op","name":"aten::small","pid":1,"tid":1,"ts":20000000,"dur":10,"args":{"External id":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20000001,"dur":5,"args":{"External id":2,"correlation":8}},
    {"ph":"X","cat":"kernel","name":"k_fits","pid":0,"tid":7,"ts":20000010,"dur":2147483.647,"args":{"External id":2,"correlation":8,"device":0,"stream":7}}]})";
  for (const std::string& big : {big_x, big_be}) {
    for (size_t chunk : {size_t(7), size_t(1) << 20}) {
      ks::TraceReader r;
      kstest::feed_all(r, R"({"traceEvents":[)" + big + rest, chunk);
      const ks::TraceModel& m = r.model();
      const ks::OpTree t = ks::build_op_tree(m);
      REQUIRE(t.roots.size() == 1);
      CHECK(t.stats.by_external_id == 2);
      std::map<std::string, ks::OperatorStats> ops;
      for (const ks::OperatorGroup& g : ks::operator_table(t, m, ks::OpGroupBy::kName).rows) ops[std::string(m.strings.get(g.name))] = g.stats;
      REQUIRE(ops.size() == 2);
      CHECK(ops["aten::big"].host_total_ns == 10000000001);
      CHECK(ops["aten::big"].host_self_ns == 9999995001);  // less its launch's 5 us
      CHECK(ops["aten::big"].device_total_ns == 2147483648);
      CHECK(ops["aten::big"].device_self_ns == 2147483648);
      CHECK(ops["aten::small"].host_self_ns == 5000);
      CHECK(ops["aten::small"].device_total_ns == 2147483647);
      CHECK(ops["aten::small"].device_self_ns == 2147483647);
      const ks::OpNode& root = t.nodes[size_t(t.roots[0])];
      CHECK(ks::node_device_total_ns(t, root) == 4294967295);
      CHECK(ks::node_host_self_ns(t, root) == 0);
      // Only the two nodes beyond int32 are kept apart; the rest in their 4-byte fields.
      size_t wide = 0;
      for (size_t i = 0; i < t.nodes.size(); ++i) wide += t.nodes[i].wide;
      CHECK(wide == 2);
      CHECK(t.wide.size() == 2);
      CHECK(root.wide);
    }
  }
  static_assert(sizeof(ks::OpNode) == 36);
  static_assert(sizeof(ks::Launch) == 8);
}
