// The Ranges view on a hand-made trace (tests/data/README.md has the arithmetic): the tree of
// record_function ranges (ProfilerStep left out, calls merged per path across threads), host
// total/self, the device time launched on the range's own thread, the Tensor Core share, the
// GPU-side copies and the work inside them. The real trace's numbers: tests/golden/ranges_test.mjs.
#include <catch2/catch.hpp>

#include <string>

#include "core/session/session.h"
#include "core/analysis/diff.h"
#include "core/analysis/operators.h"
#include "core/analysis/ranges.h"
#include "test_util.h"

namespace {

constexpr int64_t us = 1000;

const ks::RangeRow& row(const ks::RangeTable& t, const std::string& key) {
  for (const ks::RangeRow& r : t.rows)
    if (r.key == key) return r;
  FAIL("no row " << key);
  return t.rows.front();
}

}  // namespace

TEST_CASE("user-ranges-nested: the tree, merged per path over calls and threads", "[ranges]") {
  kstest::LoadedFixture l("user-ranges-nested.json");
  const ks::OpTree tree = ks::build_op_tree(l.m());
  const ks::RangeTable t = ks::range_table(tree, l.m());
  REQUIRE(t.rows.size() == 3);
  CHECK(t.calls == 6);  // ProfilerStep#1 is the step, not a range
  CHECK(t.has_gpu);
  CHECK(t.has_gpu_copies);
  // Pre-order, siblings by first start: outer (10), its inner, prefetch (30).
  CHECK(t.rows[0].key == "outer");
  CHECK(t.rows[1].key == "outer/inner");
  CHECK(t.rows[1].parent == 0);
  CHECK(t.rows[1].depth == 1);
  CHECK(t.rows[2].key == "prefetch");
  CHECK(t.rows[2].parent == -1);

  const ks::RangeRow& outer = row(t, "outer");
  CHECK(outer.kind == ks::RangeKind::kRange);
  CHECK(outer.calls == 3);  // two on thread 100, one on thread 200: one path
  CHECK(outer.host_total_ns == (100 + 60 + 10) * us);
  CHECK(outer.host_self_ns == (170 - 60) * us);
  // Its own launches: aten::add's kernel (10) and the memset launched outside any operator (4);
  // the copy_ launched on thread 200 while thread 100's outer was open is not its.
  CHECK(outer.device_self_ns == 14 * us);
  CHECK(outer.device_total_ns == (14 + 50) * us);
  CHECK(outer.kernel_total_ns == (10 + 30 + 20) * us);
  CHECK(outer.tc_total_ns == 50 * us);
  CHECK(ks::range_tc_pct(outer) == Approx(100.0 * 50 / 60));
  CHECK(outer.gpu_copies == 1);
  CHECK(outer.gpu_span_ns == 14 * us);
  CHECK(outer.gpu_work_ns == 14 * us);
  CHECK(outer.first_start_ns - l.m().start_ns == 10 * us);
  CHECK(outer.first_end_ns - l.m().start_ns == 110 * us);

  const ks::RangeRow& inner = row(t, "outer/inner");
  CHECK(inner.calls == 2);
  CHECK(inner.host_total_ns == 60 * us);
  CHECK(inner.host_self_ns == 60 * us);
  CHECK(inner.device_total_ns == 50 * us);
  CHECK(inner.device_self_ns == 50 * us);
  CHECK(ks::range_tc_pct(inner) == Approx(100.0));
  // Its GPU-side copies span 30 + 20; inside the first ran thread 200's memcpy (6) too.
  CHECK(inner.gpu_copies == 2);
  CHECK(inner.gpu_span_ns == 50 * us);
  CHECK(inner.gpu_work_ns == (30 + 6 + 20) * us);

  const ks::RangeRow& prefetch = row(t, "prefetch");
  CHECK(prefetch.calls == 1);
  CHECK(prefetch.host_total_ns == 50 * us);
  CHECK(prefetch.device_total_ns == 6 * us);  // a memcpy: device time, no kernel
  CHECK(prefetch.kernel_total_ns == 0);
  CHECK(ks::range_tc_pct(prefetch) < 0);
  CHECK(prefetch.gpu_copies == 0);
}

TEST_CASE("user-ranges-nested: a range's kernels", "[ranges]") {
  kstest::LoadedFixture l("user-ranges-nested.json");
  const ks::OpTree tree = ks::build_op_tree(l.m());
  bool found = false;
  const auto k = ks::range_kernels(tree, l.m(), "outer", found);
  REQUIRE(found);
  REQUIRE(k.size() == 2);
  CHECK(k[0].name.starts_with("nvjet_sm90"));
  CHECK(k[0].calls == 2);
  CHECK(k[0].total_ns == 50 * us);
  CHECK(k[0].tensor_cores == ks::TcState::kYes);
  CHECK(k[1].calls == 1);
  CHECK(k[1].total_ns == 10 * us);
  CHECK(k[1].tensor_cores == ks::TcState::kNo);
  ks::range_kernels(tree, l.m(), "inner", found);  // not a path: inner is under outer
  CHECK_FALSE(found);
}

TEST_CASE("ranges: JSON nests the rows as children", "[ranges]") {
  ks::Session s;
  kstest::feed_all(s.reader(), kstest::read_fixture("user-ranges-nested.json"), 7);
  const std::string j = ks::answer_json(s.query("ranges", {}));
  CHECK(j.rfind(R"({"calls":6,"show_gpu":true,"gpu_copies":true,"ranges":[)", 0) == 0);
  CHECK(j.find(R"("ranges":[{"name":"outer","kind":"range","calls":3,"host_us":170,"self_host_us":110,"device_us":64,)") != std::string::npos);
  CHECK(j.find(R"("children":[{"name":"inner",)") != std::string::npos);
  CHECK(j.find(R"("children":[]}]},{"name":"prefetch",)") != std::string::npos);
  CHECK(j.find(R"("tensor_core_pct":null,"gpu_ranges":0,"gpu_range_us":null,)") != std::string::npos);
}

TEST_CASE("ranges: a trace without user ranges has no rows", "[ranges]") {
  kstest::LoadedFixture l("lightning-modules.json");  // only [pl] ranges: they are rows, of kind lightning
  const ks::RangeTable t = ks::range_table(ks::build_op_tree(l.m()), l.m());
  REQUIRE_FALSE(t.rows.empty());
  for (const ks::RangeRow& r : t.rows) CHECK(r.kind == ks::RangeKind::kLightning);
  kstest::LoadedFixture d("diff-baseline.json");
  const ks::RangeTable none = ks::range_table(ks::build_op_tree(d.m()), d.m());
  for (const ks::RangeRow& r : none.rows) CHECK(r.kind != ks::RangeKind::kRange);
}

// The Diff view's trees hold the user's ranges (OpTreeOptions::user_ranges) and match the two
// traces at them; the operators' numbers must stay what the Operators view says, also where
// ranges overlap operators in part (the FLOP cases' FlopCounterMode ranges).
namespace {

void same_operators(const ks::TraceModel& m) {
  ks::OpTreeOptions with;
  with.user_ranges = true;
  const ks::OpTree a = ks::build_op_tree(m), b = ks::build_op_tree(m, with);
  const ks::OperatorTable x = ks::operator_table(a, m, ks::OpGroupBy::kName), y = ks::operator_table(b, m, ks::OpGroupBy::kName);
  REQUIRE(x.rows.size() == y.rows.size());
  for (size_t i = 0; i < x.rows.size(); ++i) {
    INFO(m.strings.get(x.rows[i].name));
    CHECK(x.rows[i].name == y.rows[i].name);
    CHECK(x.rows[i].stats.calls == y.rows[i].stats.calls);
    CHECK(x.rows[i].stats.host_total_ns == y.rows[i].stats.host_total_ns);
    CHECK(x.rows[i].stats.host_self_ns == y.rows[i].stats.host_self_ns);
    CHECK(x.rows[i].stats.device_total_ns == y.rows[i].stats.device_total_ns);
    CHECK(x.rows[i].stats.device_self_ns == y.rows[i].stats.device_self_ns);
    CHECK(x.rows[i].stats.tc_self_ns == y.rows[i].stats.tc_self_ns);
  }
}


}  // namespace

TEST_CASE("user ranges in the Diff trees leave the operators' numbers as they were", "[ranges][diff]") {
  kstest::LoadedFixture l("user-ranges-nested.json");
  same_operators(l.m());
  // A range inside an operator (its operator and launch stay the operator's) and one that an
  // operator overlaps in part (the operator keeps its place): aten::outer_op 100 total, 70 self
  // (100 − mm 28 − the launch 2), device 40 total, 10 self; aten::add 1 call.
  kstest::LoadedFixture in("user-ranges-inside-operators.json");
  same_operators(in.m());
  ks::OpTreeOptions with;
  with.user_ranges = true;
  const ks::OperatorTable ops = ks::operator_table(ks::build_op_tree(in.m(), with), in.m(), ks::OpGroupBy::kName);
  REQUIRE(ops.rows.size() == 3);
  for (const ks::OperatorGroup& g : ops.rows) {
    const std::string_view name = in.m().strings.get(g.name);
    if (name == "aten::outer_op") {
      CHECK(g.stats.host_self_ns == 70 * us);
      CHECK(g.stats.device_total_ns == 40 * us);
      CHECK(g.stats.device_self_ns == 10 * us);
    }
    if (name == "aten::add") CHECK(g.stats.calls == 1);
  }
#ifndef __EMSCRIPTEN__
  for (const char* rel : {"tests/data/h200_pt211/gpt_modulelist/gpt_rank0.1795735873838978949.pt.trace.json.gz",
                          "tests/data/h200_pt211/flops/flop_cases.pt.trace.json.gz"}) {
    INFO(rel);
    ks::TraceReader r;
    kstest::feed_all(r, kstest::read_path(kstest::repo_path(rel)), 1 << 20);
    REQUIRE(r.error().empty());
    REQUIRE(ks::has_user_ranges(r.model()));
    same_operators(r.model());
  }
#endif
}

TEST_CASE("user-ranges-nested: the Diff matches the traces at their ranges", "[ranges][diff]") {
  kstest::LoadedFixture a("user-ranges-nested.json"), b("user-ranges-nested.json");
  ks::OpTreeOptions o;
  o.user_ranges = true;
  const ks::OpTree ta = ks::build_op_tree(a.m(), o), tb = ks::build_op_tree(b.m(), o);
  const ks::DiffResult d = ks::diff_trees(ta, a.m(), tb, b.m(), false);
  REQUIRE(d.compared);
  // Every thread is compared, by role (the root's children): on the main thread (100) the step's
  // children are the two calls of outer, each matched, each holding inner; the second thread's
  // ranges are under "Other threads".
  REQUIRE(d.root.children.size() == 2);
  const ks::DiffNode& main = d.root.children[0];
  CHECK(main.name == "Main thread");
  REQUIRE(main.children.size() == 2);
  const ks::DiffNode& first = main.children[0];
  CHECK(first.name == "outer");
  CHECK(first.baseline.host_ns == 100 * us);
  CHECK(first.baseline.device_ns == (30 + 10 + 4) * us);  // mm's kernel (in inner), add's, the memset
  REQUIRE(first.children.size() >= 1);
  CHECK(first.children[0].name == "inner");
  CHECK(first.children[0].baseline.device_ns == 30 * us);
  CHECK(main.children[1].name == "outer");
  CHECK(main.children[1].baseline.device_ns == 20 * us);
  CHECK(d.root.children[1].name == "Other threads");
  // Without the ranges as nodes (the operator trees), nothing is matched below the step.
  const ks::DiffResult plain = ks::diff_trees(ks::build_op_tree(a.m()), a.m(), ks::build_op_tree(b.m()), b.m(), false);
  for (const ks::DiffNode& role : plain.root.children) CHECK(role.children.empty());
}
