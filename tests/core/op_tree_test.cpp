// Operator trees, the Operator/Kernel tables and the Tensor Core numbers on hand-made traces;
// expected values worked out by hand (the tb_plugin comparison on real traces is
// tests/golden/operators_kernels_test.mjs).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include <map>

#include "core/session/views.h"
#include "core/analysis/kernels.h"
#include "core/analysis/operators.h"
#include "core/analysis/tensor_cores.h"
#include "test_util.h"

namespace {

struct Loaded {
  ks::TraceReader reader;
  explicit Loaded(const char* fixture) {
    kstest::feed_all(reader, kstest::read_fixture(fixture), 5);
    REQUIRE(reader.error().empty());
  }
  const ks::TraceModel& m() const { return reader.model(); }
};

std::map<std::string, ks::OperatorGroup> by_name(const ks::OperatorTable& t, const ks::TraceModel& m) {
  std::map<std::string, ks::OperatorGroup> out;
  for (const auto& g : t.rows) out[std::string(m.strings.get(g.name))] = g;
  return out;
}

std::map<std::string, std::string> kernel_owner(const ks::KernelTable& t, const ks::TraceModel& m) {
  std::map<std::string, std::string> out;
  for (const auto& g : t.rows) out[std::string(m.strings.get(g.name))] = g.op;
  return out;
}

constexpr int64_t us = 1000;

}  // namespace

TEST_CASE("op-tree-linking: self times, launches by External id, by enclosing op and by driver", "[op_tree]") {
  Loaded l("op-tree-linking.json");
  const ks::OpTree tree = ks::build_op_tree(l.m());
  CHECK(tree.stats.dropped_nodes == 1);          // aten::zeros [155,165] overruns aten::empty [150,160]
  CHECK(tree.stats.by_external_id == 4);         // addmm x2, the two copy_ launches
  CHECK(tree.stats.by_enclosing_op == 3);        // External id 0, 999, and the cuLaunchKernel
  CHECK(tree.stats.unattached == 0);
  const auto t = ks::operator_table(tree, l.m(), ks::OpGroupBy::kName);
  CHECK(t.show_gpu);
  auto ops = by_name(t, l.m());
  REQUIRE(ops.size() == 6);  // ProfilerStep is not an operator; the two copy_ are one call
  // aten::addmm [15,55] launches [20,25] and [40,44]: kernels 20 us (h884: Tensor Cores) + 10 us
  CHECK(ops["aten::addmm"].stats.host_total_ns == 40 * us);
  CHECK(ops["aten::addmm"].stats.host_self_ns == 31 * us);
  CHECK(ops["aten::addmm"].stats.device_self_ns == 30 * us);
  CHECK(ops["aten::addmm"].stats.tc_self_ns == 20 * us);
  CHECK(ops["aten::addmm"].tc_eligible == ks::TcState::kYes);
  // aten::linear [10,60] holds addmm: self 10, device only through its child
  CHECK(ops["aten::linear"].stats.host_self_ns == 10 * us);
  CHECK(ops["aten::linear"].stats.device_self_ns == 0);
  CHECK(ops["aten::linear"].stats.device_total_ns == 30 * us);
  CHECK(ops["aten::linear"].stats.tc_total_ns == 20 * us);
  CHECK(ops["aten::linear"].has_call_stack);
  // External id 0 and an unknown External id: placed on the op running on the thread at launch
  CHECK(ops["aten::relu"].stats.host_self_ns == 13 * us);
  CHECK(ops["aten::relu"].stats.device_self_ns == 5 * us);
  CHECK(ops["aten::add_"].stats.host_self_ns == 6 * us);
  CHECK(ops["aten::add_"].stats.device_self_ns == 4 * us);
  // aten::copy_ holding only aten::copy_ counts once, with both launches (kernel 2 + memcpy 6)
  CHECK(ops["aten::copy_"].stats.calls == 1);
  CHECK(ops["aten::copy_"].stats.host_self_ns == 26 * us);
  CHECK(ops["aten::copy_"].stats.device_self_ns == 8 * us);
  // sorted by device self
  CHECK(l.m().strings.get(t.rows[0].name) == "aten::addmm");
  CHECK(l.m().strings.get(t.rows[1].name) == "aten::copy_");

  auto owners = kernel_owner(ks::kernel_table(tree, l.m(), ks::KernelGroupBy::kProps), l.m());
  CHECK(owners["relu_kernel"] == "aten::relu");
  CHECK(owners["add_kernel"] == "aten::add_");
  CHECK(owners["triton_poi_fused_0"] == "ProfilerStep#1");  // launched by cuLaunchKernel inside the step
  CHECK(owners["copy_kernel"] == "aten::copy_");

  // Tensor Cores: operator-owned kernels 20+10+5+4+2 = 41 us, 20 on Tensor Cores
  const auto ratio = ks::tc_ratio_by_gpu(tree, l.m(), {0});
  REQUIRE(ratio);
  CHECK((*ratio)[0] == Approx(20.0 / 41));
  CHECK(ks::tc_eligible_kernel_ratio(tree, l.m()) == Approx(30.0 / 41));  // addmm is the bottom eligible op
  // every kernel, triton's included; add_kernel is a name no rule knows: unknown, not "no"
  const ks::TcShare all = ks::tc_kernel_share(l.m(), false);
  CHECK(*all.ratio() == Approx(20.0 / 44));
  CHECK(all.unknown_ns == 4 * us);
  const auto shares = ks::tc_share_by_gpu(tree, l.m(), {0});
  REQUIRE(shares);
  CHECK((*shares)[0].total_ns == 41 * us);
  CHECK((*shares)[0].unknown_ns == 4 * us);  // aten::add_ launched it
  CHECK(ks::tc_kernel_share(l.m(), true).unknown_ns == 0);  // tb_plugin's allowlist knows only yes and no
}

TEST_CASE("op-tree-linking: tb_plugin's linking loses and moves work", "[op_tree]") {
  Loaded l("op-tree-linking.json");
  const ks::OpTree tree = ks::build_op_tree(l.m(), {true});
  CHECK(tree.stats.unattached == 1);  // External id 999 matches no op
  auto ops = by_name(ks::operator_table(tree, l.m(), ks::OpGroupBy::kName), l.m());
  CHECK(ops["aten::relu"].stats.device_self_ns == 0);   // External id 0: the thread's root
  CHECK(ops["aten::add_"].stats.device_self_ns == 0);   // lost
  CHECK(ops["aten::copy_"].stats.host_self_ns == 28 * us);
  CHECK(ops["aten::copy_"].stats.device_self_ns == 6 * us);  // the outer copy_'s own kernel is discarded
  auto owners = kernel_owner(ks::kernel_table(tree, l.m(), ks::KernelGroupBy::kProps), l.m());
  CHECK(owners["relu_kernel"] == "CallTreeRoot");
  CHECK(owners["triton_poi_fused_0"] == "CallTreeRoot");  // driver launches are ignored
  CHECK(owners.count("add_kernel") == 0);
  CHECK(owners.count("copy_kernel") == 0);
  CHECK((*ks::tc_ratio_by_gpu(tree, l.m(), {0}))[0] == Approx(20.0 / 30));
  CHECK(ks::tc_eligible_kernel_ratio(tree, l.m()) == Approx(1.0));
}

TEST_CASE("op-tree-correlation-ids: runtime External ids that are correlation ids", "[op_tree]") {
  Loaded l("op-tree-correlation-ids.json");
  const ks::OpTree right = ks::build_op_tree(l.m());
  CHECK(right.stats.external_ids_are_correlations);
  auto ops = by_name(ks::operator_table(right, l.m(), ks::OpGroupBy::kName), l.m());
  CHECK(ops["aten::mm"].stats.device_self_ns == 10 * us);
  CHECK(ops["aten::mm"].stats.host_self_ns == 35 * us);
  CHECK(ops["aten::foo"].stats.device_self_ns == 4 * us);
  // tb_plugin: the runtime's id 200 happens to be aten::foo's External id
  auto tb = by_name(ks::operator_table(ks::build_op_tree(l.m(), {true}), l.m(), ks::OpGroupBy::kName), l.m());
  CHECK(tb["aten::mm"].stats.device_self_ns == 0);
  CHECK(tb["aten::foo"].stats.device_self_ns == 10 * us);
}

TEST_CASE("operators by input shape and call stacks", "[operators]") {
  Loaded l("op-tree-linking.json");
  const ks::OpTree tree = ks::build_op_tree(l.m());
  const auto t = ks::operator_table(tree, l.m(), ks::OpGroupBy::kNameAndShape);
  bool found = false;
  for (const auto& g : t.rows)
    if (l.m().strings.get(g.name) == "aten::linear") {
      CHECK(g.input_shape == "[[8, 16], [4, 16], [4]]");
      found = true;
    } else if (l.m().strings.get(g.name) == "aten::relu") {
      CHECK(g.input_shape == "[]");
    }
  CHECK(found);
  const auto stacks = ks::operator_stacks(tree, l.m(), ks::OpGroupBy::kNameAndShape, "aten::linear", "[[8, 16], [4, 16], [4]]");
  REQUIRE(stacks.size() == 1);
  CHECK(stacks[0].call_stack == "model.py(12): forward;train.py(40): step");
  CHECK(stacks[0].stats.host_total_ns == 50 * us);
  CHECK(ks::operator_stacks(tree, l.m(), ks::OpGroupBy::kNameAndShape, "aten::linear", "[]").empty());
  CHECK(ks::operator_stacks(tree, l.m(), ks::OpGroupBy::kName, "aten::addmm", "").empty());
}

TEST_CASE("kernels by name: duration-weighted blocks per SM and occupancy, a row with no occupancy has none (tb_plugin: 0)", "[kernels]") {
  Loaded l("op-tree-linking.json");
  const auto t = ks::kernel_table(ks::build_op_tree(l.m()), l.m(), ks::KernelGroupBy::kName);
  CHECK(t.has_blocks_per_sm);
  CHECK(t.has_occupancy);
  REQUIRE(t.rows.size() == 6);
  CHECK(l.m().strings.get(t.rows[0].name) == "volta_h884gemm_64x64");
  CHECK(t.rows[0].tensor_cores == ks::TcState::kYes);
  REQUIRE(t.rows[0].tc_rule);
  CHECK(t.rows[0].tc_rule->id == "mma-shape");
  CHECK(t.rows[0].blocks_per_sm() == Approx(1.0));
  CHECK(t.rows[0].occupancy_pct() == Approx(50.0));
  CHECK(std::isnan(t.rows[1].occupancy_pct()));  // elementwise_kernel recorded none
  const auto tb = ks::kernel_table(ks::build_op_tree(l.m(), {true}), l.m(), ks::KernelGroupBy::kName);
  CHECK(tb.rows[1].occupancy_pct() == 0.0);  // tb_plugin counts a missing value as 0
  CHECK(t.tensor_cores.tc_ns == 20 * us);
  CHECK(t.tensor_cores.total_ns == 44 * us);
  const auto props = ks::kernel_table(ks::build_op_tree(l.m()), l.m(), ks::KernelGroupBy::kProps);
  CHECK(props.rows[0].grid == std::array<int32_t, 3>{80, 1, 1});
  CHECK(props.rows[0].registers_per_thread == 64);
  CHECK(props.rows[0].shared_memory == 8192);
  CHECK(props.rows[0].op_tc_eligible == ks::TcState::kYes);
  int64_t total = 0;  // by props covers every kernel, as by name does
  for (const auto& g : props.rows) total += g.total_ns;
  CHECK(total == 44 * us);
}

TEST_CASE("python_repr_of_json prints input shapes as tb_plugin does", "[operators]") {
  CHECK(ks::python_repr_of_json("[[32,3,224,224],[],[]]") == "[[32, 3, 224, 224], [], []]");
  CHECK(ks::python_repr_of_json("[ [1, 2] , null, true, false ]") == "[[1, 2], None, True, False]");
  CHECK(ks::python_repr_of_json("[\"float\", \"it's\"]") == "['float', \"it's\"]");
  CHECK(ks::python_repr_of_json("[[[2,3],[4]]]") == "[[[2, 3], [4]]]");
}

TEST_CASE("CSV of the tables quotes names holding commas and quotes", "[operators]") {
  Loaded l("op-tree-linking.json");
  const auto csv = ks::answer_csv(ks::operator_table_answer(
      ks::operator_table(ks::build_op_tree(l.m()), l.m(), ks::OpGroupBy::kNameAndShape), l.m()));
  CHECK(csv.rfind("name,input_shape,calls,host_self_us,host_total_us,device_self_us,device_total_us,tc_eligible,", 0) == 0);
  CHECK(csv.find("aten::linear,\"[[8, 16], [4, 16], [4]]\",1,10,50,0,30,yes,0,66.6666") != std::string::npos);
}

TEST_CASE("Tensor Core name lists", "[tensor_cores]") {
  CHECK(ks::is_tc_kernel_name("volta_h884gemm_64x64_ldg8_nn"));
  CHECK(ks::is_tc_kernel_name("sm80_xmma_gemm_f16f16_f16f32"));
  CHECK_FALSE(ks::is_tc_kernel_name("volta_sgemm_128x64_nn"));
  CHECK(ks::is_tc_eligible_op_name("aten::addmm"));
  CHECK_FALSE(ks::is_tc_eligible_op_name("aten::addmm_out"));  // names match exactly
}

TEST_CASE("op-tree-linking: node bytes and Tensor Core times only where there are some (issue 21 headroom)", "[op_tree]") {
  // The trees are most of what the heap gains after reading (27 B/event of the modern shape at
  // 64 B a node): a node's capacity is measured, not only its type, so a field added back fails here.
  Loaded l("op-tree-linking.json");
  const ks::OpTree tree = ks::build_op_tree(l.m());
  REQUIRE(tree.nodes.size() > 0);
  // A small tree's nodes sit in the table's first block: 64 rows, doubling to 16,384 (chunked_table.h).
  REQUIRE(tree.nodes.size() <= 64);
  CHECK(tree.nodes.bytes() == 64 * 36);
  // The Tensor Core times: addmm's own h884 kernel (20 us) and every node above it, nothing else.
  std::map<std::string, std::pair<int64_t, int64_t>> tc;
  size_t flagged = 0;
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    const ks::OpNode& n = tree.nodes[i];
    if (n.parent == -2) continue;  // merged away (the inner copy_)
    flagged += n.has_tc;
    const int64_t self = ks::node_tc_self_ns(tree, n), total = ks::node_tc_total_ns(tree, n);
    if (self || total) tc[std::string(ks::node_name(tree, l.m(), int32_t(i)))] = {self, total};
  }
  const std::map<std::string, std::pair<int64_t, int64_t>> expected = {
      {"aten::addmm", {20 * us, 20 * us}}, {"aten::linear", {0, 20 * us}},
      {"ProfilerStep#1", {0, 20 * us}}, {"CallTreeRoot", {0, 20 * us}}};
  CHECK(tc == expected);
  CHECK(flagged == expected.size());
  CHECK(tree.tc.size() == expected.size());
  CHECK(tree.tc.capacity() == tree.tc.size());
  CHECK(std::is_sorted(tree.tc.begin(), tree.tc.end(), [](const auto& a, const auto& b) { return a.key < b.key; }));
}
