// Issue 12 §4 (bytes per event): the compact layouts keep every value exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/analysis/op_tree.h"
#include "core/analysis/operators.h"
#include "core/trace/model_columns.h"
#include "test_util.h"

namespace {

const ks::Column& col(const std::vector<ks::Column>& cols, const std::string& name) {
  for (const auto& c : cols)
    if (c.name == name) return c;
  FAIL("no column " << name);
  return cols.front();
}

}  // namespace

TEST_CASE("issue_12 flow ids: numbers inline, other texts interned, equal texts equal ids", "[issue_12]") {
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

TEST_CASE("issue_12 flow ids from a trace: a number and the same digits as a string are one flow", "[issue_12]") {
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

TEST_CASE("issue_12 sequence numbers and forward thread ids beyond 32 bits read back exactly", "[issue_12]") {
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

TEST_CASE("issue_12 operator nodes read their name, start, end and host total from the row, exactly beyond 32 bits", "[issue_12]") {
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
  CHECK(o.host_self_ns == 4000000003);
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
  CHECK(sizeof(ks::OpNode) == 48);
  CHECK(sizeof(ks::Launch) == 12);
}
