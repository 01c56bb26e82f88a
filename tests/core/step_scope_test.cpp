// The Operator and Kernel tables of one step (step_scope.h) on tests/data/step-scope.json, whose
// numbers are worked out by hand below: two steps, a kernel launched at the end of step 1 that
// runs past it, an operator on a second thread that starts in step 2's host range before step 2's
// GPU-extended range begins, two kernels whose launch is missing, and an operator before the
// first step.
#include <catch2/catch.hpp>

#include <map>

#include "core/analysis/kernels.h"
#include "core/analysis/operators.h"
#include "core/analysis/step_scope.h"
#include "test_util.h"

namespace {

constexpr int64_t us = 1000;

struct Fixture {
  ks::TraceReader reader;
  ks::OpTree tree;
  ks::StepsResult steps;
  ks::StepAttribution attribution;
  Fixture() {
    kstest::feed_all(reader, kstest::read_fixture("step-scope.json"), 7);
    REQUIRE(reader.error().empty());
    tree = ks::build_op_tree(m());
    steps = ks::find_steps(m());
    attribution = ks::attribute_steps(tree, m(), steps);
  }
  const ks::TraceModel& m() const { return reader.model(); }
  ks::StepFilter step(const char* name) const {
    auto f = ks::step_filter(attribution, steps, name);
    REQUIRE(f);
    return *f;
  }
  std::map<std::string, ks::OperatorStats> ops(const ks::StepFilter* s) const {
    std::map<std::string, ks::OperatorStats> out;
    for (const auto& g : ks::operator_table(tree, m(), ks::OpGroupBy::kName, s).rows) out[std::string(m().strings.get(g.name))] = g.stats;
    return out;
  }
  // kernel name -> (calls, total ns)
  std::map<std::string, std::pair<uint64_t, int64_t>> kernels(const ks::StepFilter* s) const {
    std::map<std::string, std::pair<uint64_t, int64_t>> out;
    for (const auto& g : ks::kernel_table(tree, m(), ks::KernelGroupBy::kName, s).rows)
      out[std::string(m().strings.get(g.name))] = {g.calls, g.total_ns};
    return out;
  }
};

}  // namespace

TEST_CASE("step-scope: the steps and their host ranges", "[step_scope]") {
  Fixture f;
  REQUIRE(f.steps.steps.size() == 2);
  // Step 1 [10, 100] on the host, extended to the end of relu_kernel (130); step 2 [100, 200]
  // starts where step 1's GPU work ended.
  CHECK(f.steps.steps[0].host_start_ns == 10 * us);
  CHECK(f.steps.steps[0].host_end_ns == 100 * us);
  CHECK(f.steps.steps[0].end_ns == 130 * us);
  CHECK(f.steps.steps[1].host_start_ns == 100 * us);
  CHECK(f.steps.steps[1].start_ns == 130 * us);
  CHECK(f.steps.steps[1].end_ns == 200 * us);
}

TEST_CASE("step-scope: operators by the step their call started in", "[step_scope]") {
  Fixture f;
  const ks::StepFilter s1 = f.step("1"), s2 = f.step("2");
  auto one = f.ops(&s1), two = f.ops(&s2), all = f.ops(nullptr);
  // Step 1: aten::mm [12, 40] launching a 30 us kernel, aten::relu [50, 95] launching
  // relu_kernel [95, 130], which runs past the step's host end: it still counts here.
  REQUIRE(one.size() == 2);
  CHECK(one["aten::mm"].calls == 1);
  CHECK(one["aten::mm"].host_total_ns == 28 * us);
  CHECK(one["aten::mm"].host_self_ns == 23 * us);
  CHECK(one["aten::mm"].device_self_ns == 30 * us);
  CHECK(one["aten::mm"].tc_self_ns == 30 * us);
  CHECK(one["aten::relu"].host_self_ns == 42 * us);
  CHECK(one["aten::relu"].device_self_ns == 35 * us);
  // Step 2: the second mm and relu, and aten::add_ on thread 2, which starts at 105 (in step 2's
  // host range, before its GPU-extended range begins at 130).
  REQUIRE(two.size() == 3);
  CHECK(two["aten::mm"].host_total_ns == 30 * us);
  CHECK(two["aten::mm"].device_self_ns == 20 * us);
  CHECK(two["aten::relu"].host_self_ns == 17 * us);
  CHECK(two["aten::relu"].device_self_ns == 10 * us);
  CHECK(two["aten::add_"].host_self_ns == 18 * us);
  CHECK(two["aten::add_"].device_self_ns == 3 * us);
  // The whole trace also has aten::zeros [0, 5], before the first step: in no step.
  REQUIRE(all.size() == 4);
  CHECK(all["aten::zeros"].calls == 1);
  CHECK(one.count("aten::zeros") == 0);
  CHECK(two.count("aten::zeros") == 0);
  // Everything else splits exactly between the steps.
  for (const auto& [name, stats] : all) {
    if (name == "aten::zeros") continue;
    CHECK(one[name].calls + two[name].calls == stats.calls);
    CHECK(one[name].host_self_ns + two[name].host_self_ns == stats.host_self_ns);
    CHECK(one[name].host_total_ns + two[name].host_total_ns == stats.host_total_ns);
    CHECK(one[name].device_self_ns + two[name].device_self_ns == stats.device_self_ns);
    CHECK(one[name].device_total_ns + two[name].device_total_ns == stats.device_total_ns);
  }
}

TEST_CASE("step-scope: kernels by the step that launched them, unlaunched ones by where they ran", "[step_scope]") {
  Fixture f;
  const ks::StepFilter s1 = f.step("1"), s2 = f.step("2");
  auto one = f.kernels(&s1), two = f.kernels(&s2), all = f.kernels(nullptr);
  using P = std::pair<uint64_t, int64_t>;
  // relu_kernel [95, 130] was launched in step 1; orphan_kernel [120, 125] has no launch and
  // ran inside step 1's extended range [10, 130]; add_kernel [126, 129] ran there too, but
  // aten::add_ of step 2 launched it.
  CHECK(one == std::map<std::string, P>{{"volta_s1688gemm_128x64", {1, 30 * us}}, {"relu_kernel", {1, 35 * us}}, {"orphan_kernel", {1, 5 * us}}});
  CHECK(two == std::map<std::string, P>{{"volta_s1688gemm_128x64", {1, 20 * us}},
                                        {"relu_kernel", {1, 10 * us}},
                                        {"add_kernel", {1, 3 * us}},
                                        {"orphan_kernel", {1, 5 * us}}});
  // Every kernel ran in one of the two steps: they add up to the whole table.
  for (const auto& [name, v] : all) {
    CHECK(one[name].first + two[name].first == v.first);
    CHECK(one[name].second + two[name].second == v.second);
  }
  // The Tensor Core share of a step is over that step's kernels.
  const ks::KernelTable t1 = ks::kernel_table(f.tree, f.m(), ks::KernelGroupBy::kName, &s1);
  CHECK(t1.tensor_cores.tc_ns == 30 * us);
  CHECK(t1.tensor_cores.total_ns == 70 * us);
  // By properties + operator: the unlaunched kernel is N/A, the others under their operator.
  std::map<std::string, std::string> owner;
  for (const auto& g : ks::kernel_table(f.tree, f.m(), ks::KernelGroupBy::kProps, &s2).rows)
    owner[std::string(f.m().strings.get(g.name))] = g.op;
  CHECK(owner == std::map<std::string, std::string>{{"volta_s1688gemm_128x64", "aten::mm"},
                                                    {"relu_kernel", "aten::relu"},
                                                    {"add_kernel", "aten::add_"},
                                                    {"orphan_kernel", "N/A"}});
}

TEST_CASE("step-scope: a step the trace does not have", "[step_scope]") {
  Fixture f;
  CHECK_FALSE(ks::step_filter(f.attribution, f.steps, "3"));
  CHECK(ks::unknown_step_message(f.steps, "3") == "no step 3 (the steps are 1, 2)");
  ks::StepsResult none;
  CHECK(ks::unknown_step_message(none, "1") == "no step 1 (the trace has no steps)");
  ks::StepsResult many;
  for (int i = 0; i < 40; ++i) many.steps.push_back({std::to_string(i), 0, 0, 0, 0, false});
  CHECK(ks::unknown_step_message(many, "x") ==
        "no step x (the steps are 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, …, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39)");
}

TEST_CASE("step-scope: a kernel's detail lists its operators, launch properties and call stacks", "[step_scope]") {
  Fixture f;
  ks::KernelKey key;
  key.name = "volta_s1688gemm_128x64";
  const ks::KernelDetail all = ks::kernel_detail(f.tree, f.m(), key);
  REQUIRE(all.found);
  CHECK(all.total.calls == 2);
  CHECK(all.total.total_ns == 50 * us);
  CHECK(all.total.min_ns == 20 * us);
  CHECK(all.total.max_ns == 30 * us);
  REQUIRE(all.operators.size() == 1);
  CHECK(all.operators[0].op == "aten::mm");
  CHECK(all.operators[0].calls == 2);
  // Two launch shapes, larger time first; blocks per SM weighted by duration within each.
  REQUIRE(all.launches.size() == 2);
  CHECK(all.launches[0].grid == std::array<int32_t, 3>{{8, 1, 1}});
  CHECK(all.launches[0].total_ns == 30 * us);
  CHECK(all.launches[0].registers_per_thread == 64);
  CHECK(all.launches[0].shared_memory == 1024);
  CHECK(all.launches[0].blocks_per_sm() == Approx(0.5));
  CHECK(all.launches[1].grid == std::array<int32_t, 3>{{16, 1, 1}});
  CHECK(all.launches[1].occupancy_pct() == Approx(60));
  // Over both: (0.5 * 30 + 1.0 * 20) / 50.
  CHECK(all.total.blocks_per_sm() == Approx(0.7));
  REQUIRE(all.stacks.size() == 2);
  CHECK(all.stacks[0].call_stack == "train.py(10): step;model.py(5): forward");
  CHECK(all.stacks[0].op == "aten::mm");
  CHECK(all.stacks[0].calls == 1);
  CHECK(all.stacks[0].total_ns == 30 * us);

  // Step 2 only: the second launch.
  const ks::StepFilter s2 = f.step("2");
  const ks::KernelDetail two = ks::kernel_detail(f.tree, f.m(), key, &s2);
  CHECK(two.total.calls == 1);
  REQUIRE(two.launches.size() == 1);
  CHECK(two.launches[0].grid == std::array<int32_t, 3>{{16, 1, 1}});
  REQUIRE(two.stacks.size() == 1);
  CHECK(two.stacks[0].call_stack == "train.py(10): step;model.py(7): forward");

  // A props row: that operator and those properties only.
  key.group_by = ks::KernelGroupBy::kProps;
  key.op = "aten::mm";
  key.grid = {{8, 1, 1}};
  key.block = {{128, 1, 1}};
  key.registers_per_thread = 64;
  key.shared_memory = 1024;
  const ks::KernelDetail row = ks::kernel_detail(f.tree, f.m(), key);
  CHECK(row.total.calls == 1);
  CHECK(row.total.total_ns == 30 * us);
  CHECK(row.launches.size() == 1);
  key.op = "aten::relu";
  CHECK_FALSE(ks::kernel_detail(f.tree, f.m(), key).found);

  // An unlaunched kernel: launched by nothing ("N/A"), no call stack.
  ks::KernelKey orphan;
  orphan.name = "orphan_kernel";
  const ks::KernelDetail o = ks::kernel_detail(f.tree, f.m(), orphan);
  CHECK(o.total.calls == 2);
  REQUIRE(o.operators.size() == 1);
  CHECK(o.operators[0].op == "N/A");
  CHECK(o.stacks.empty());
}

TEST_CASE("step-scope: an operator's detail lists the kernels its own calls launched", "[step_scope]") {
  Fixture f;
  auto kernels = ks::operator_kernels(f.tree, f.m(), ks::OpGroupBy::kName, "aten::mm", "");
  REQUIRE(kernels.size() == 1);
  CHECK(f.m().strings.get(kernels[0].name) == "volta_s1688gemm_128x64");
  CHECK(kernels[0].calls == 2);
  CHECK(kernels[0].total_ns == 50 * us);
  CHECK(kernels[0].tensor_cores == ks::TcState::kYes);
  const ks::StepFilter s1 = f.step("1");
  kernels = ks::operator_kernels(f.tree, f.m(), ks::OpGroupBy::kName, "aten::relu", "", &s1);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].total_ns == 35 * us);
  CHECK(kernels[0].tensor_cores == ks::TcState::kNo);
  // By input shape, and its call stacks in that step.
  kernels = ks::operator_kernels(f.tree, f.m(), ks::OpGroupBy::kNameAndShape, "aten::mm", "[[4, 4], [4, 4]]", &s1);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].calls == 1);
  const auto stacks = ks::operator_stacks(f.tree, f.m(), ks::OpGroupBy::kName, "aten::mm", "", &s1);
  REQUIRE(stacks.size() == 1);
  CHECK(stacks[0].call_stack == "train.py(10): step;model.py(5): forward");
  CHECK(ks::operator_kernels(f.tree, f.m(), ks::OpGroupBy::kNameAndShape, "aten::mm", "[]").empty());
}
