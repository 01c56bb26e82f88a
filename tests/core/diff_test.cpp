// The Diff view on a hand-made pair (tests/data/diff-baseline.json, diff-experiment.json; the
// arithmetic is in tests/data/README.md): which nodes are matched, both sides' numbers, the
// operators by name, and the gate's metrics. tb_plugin's own trees: tests/golden/diff_test.mjs.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/analysis/diff.h"
#include "core/analysis/steps.h"
#include "test_util.h"

namespace {

using Loaded = kstest::LoadedFixture;

constexpr int64_t us = 1000;

void check_side(const ks::DiffSide& s, const std::string& name, int64_t host_us, int64_t device_us, int64_t total_us) {
  INFO(name);
  CHECK(s.name == name);
  CHECK(s.host_ns == host_us * us);
  CHECK(s.device_ns == device_us * us);
  CHECK(s.total_ns == total_us * us);
}

void check_agg(const ks::DiffAgg& a, const std::string& name, uint64_t calls, int64_t host, int64_t device, int64_t self_host,
               int64_t self_device) {
  INFO(name);
  CHECK(a.name == name);
  CHECK(a.calls == calls);
  CHECK(a.host_total_ns == host * us);
  CHECK(a.device_total_ns == device * us);
  CHECK(a.host_self_ns == self_host * us);
  CHECK(a.device_self_ns == self_device * us);
}

const char* const kDl = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

}  // namespace

TEST_CASE("diff: the hand-made pair, matched at the dataloader, module and optimizer ranges", "[diff]") {
  Loaded base("diff-baseline.json"), exp("diff-experiment.json");
  for (bool tb : {false, true}) {
    INFO("tb_plugin " << tb);
    const ks::OpTree ta = ks::build_op_tree(base.m(), {tb}), te = ks::build_op_tree(exp.m(), {tb});
    const ks::DiffResult d = ks::diff_trees(ta, base.m(), te, exp.m(), tb);
    REQUIRE(d.compared);
    const ks::DiffNode& root = d.root;
    CHECK(root.path == "0");
    // Baseline: the two steps' children DL 10 + Net 50 + Opt 30 + DL 12 + conv2d 38 + Opt 40; device
    // 30 (Net's kernel) + 28; total per node device or host: 10 + 30 + 30 + 12 + 28 + 40.
    check_side(root.baseline, "CompositeNodes", 180, 58, 150);
    check_side(root.experiment, "CompositeNodes", 110, 20, 80);
    REQUIRE(root.baseline.aggs.size() == 4);
    // In collection order: post-order, children before their parent, first call first.
    check_agg(root.baseline.aggs[0], "aten::convolution", 2, 68, 58, 31 + 28, 58);
    check_agg(root.baseline.aggs[1], "aten::conv2d", 2, 76, 58, 2 + 6, 0);
    check_agg(root.baseline.aggs[2], "aten::relu", 1, 10, 0, 10, 0);
    check_agg(root.baseline.aggs[3], "aten::add_", 2, 16, 0, 16, 0);
    REQUIRE(root.experiment.aggs.size() == 4);
    check_agg(root.experiment.aggs[0], "aten::convolution", 1, 36, 20, 32, 20);
    check_agg(root.experiment.aggs[1], "aten::conv2d", 1, 38, 20, 2, 0);
    check_agg(root.experiment.aggs[2], "aten::mul", 1, 10, 0, 10, 0);
    check_agg(root.experiment.aggs[3], "aten::add_", 1, 10, 0, 10, 0);

    // DL | Net | Opt matched in order; step 2's nodes have no partner: the tail against a blank.
    REQUIRE(root.children.size() == 4);
    const ks::DiffNode& dl = root.children[0];
    CHECK(dl.path == "0-0");
    check_side(dl.baseline, kDl, 10, 0, 10);
    check_side(dl.experiment, kDl, 20, 0, 20);
    CHECK(dl.baseline.aggs.empty());
    CHECK(dl.children.empty());

    const ks::DiffNode& net = root.children[1];
    CHECK(net.name == "nn.Module: Net");
    check_side(net.baseline, "nn.Module: Net", 50, 30, 30);
    check_side(net.experiment, "nn.Module: Net", 50, 20, 20);
    REQUIRE(net.baseline.aggs.size() == 3);
    check_agg(net.baseline.aggs[1], "aten::conv2d", 1, 38, 30, 2, 0);
    check_agg(net.baseline.aggs[2], "aten::relu", 1, 10, 0, 10, 0);
    // One level down: the Conv2d modules match, relu and mul are the tail.
    REQUIRE(net.children.size() == 2);
    CHECK(net.children[0].path == "0-1-0");
    check_side(net.children[0].baseline, "nn.Module: Conv2d", 40, 30, 30);
    check_side(net.children[0].experiment, "nn.Module: Conv2d", 40, 20, 20);
    CHECK(net.children[0].children.empty());
    CHECK(net.children[1].path == "0-1-1");
    CHECK(net.children[1].name == "aten::relu");
    check_side(net.children[1].baseline, "aten::relu", 10, 0, 10);
    check_side(net.children[1].experiment, "aten::mul", 10, 0, 10);

    const ks::DiffNode& opt = root.children[2];
    check_side(opt.baseline, "Optimizer.step#SGD.step", 30, 0, 30);
    check_side(opt.experiment, "Optimizer.step#SGD.step", 40, 0, 40);
    REQUIRE(opt.experiment.aggs.size() == 1);
    check_agg(opt.experiment.aggs[0], "aten::add_", 1, 10, 0, 10, 0);

    const ks::DiffNode& tail = root.children[3];
    CHECK(tail.path == "0-3");
    check_side(tail.baseline, "CompositeNodes", 12 + 38 + 40, 28, 12 + 28 + 40);
    check_side(tail.experiment, "Blank", 0, 0, 0);
    CHECK(tail.experiment.nodes == 0);
    CHECK(tail.experiment.aggs.empty());
    CHECK(tail.children.empty());

    // Swapped, the experiment's anchors are matched against the baseline: same pairs, mirrored.
    const ks::DiffResult back = ks::diff_trees(te, exp.m(), ta, base.m(), tb);
    REQUIRE(back.root.children.size() == 4);
    CHECK(back.root.children[3].name == "CompositeNodes");
    check_side(back.root.children[3].baseline, "Blank", 0, 0, 0);
  }
}

// tests/data/diff-threads-rank0.json / -rank1.json (arithmetic in tests/data/README.md): a step
// whose forward runs on the main thread, its backward on pt_autograd_0 and its all_reduce on gloo's
// threads (one on rank 0; two on rank 1, one of them named "python3").
TEST_CASE("diff: every thread, merged by role, the root's device time is the steps' device work", "[diff]") {
  Loaded base("diff-threads-rank0.json"), exp("diff-threads-rank1.json");
  const ks::OpTree ta = ks::build_op_tree(base.m()), te = ks::build_op_tree(exp.m());

  const std::vector<ks::DiffThread> threads = ks::diff_threads(te, exp.m());
  REQUIRE(threads.size() == 4);
  CHECK(threads[0].role == ks::ThreadRole::kMain);
  int comm = 0, autograd = 0;
  for (const ks::DiffThread& t : threads) {
    comm += t.role == ks::ThreadRole::kCommunication;  // by name, and by its gloo:* ranges
    autograd += t.role == ks::ThreadRole::kAutograd;
  }
  CHECK(comm == 2);
  CHECK(autograd == 1);

  const ks::DiffResult d = ks::diff_trees(ta, base.m(), te, exp.m(), false);
  REQUIRE(d.compared);
  const ks::DiffNode& root = d.root;
  // Rank 0: gemm 10 + add 2 (main) + backward gemm 20 + all_reduce's copy 5 = 37; the AccumulateGrad
  // before the step (7) is left out. Rank 1: 12 + 2 + 24 + 5 + 6 = 49.
  check_side(root.baseline, "CompositeNodes", 30 + 15 + 25 + 48, 37, 10 + 2 + 20 + 5);
  check_side(root.experiment, "CompositeNodes", 30 + 15 + 25 + 25 + 22, 49, 12 + 2 + 24 + 5 + 6);
  CHECK(root.baseline.threads == 3);
  CHECK(root.experiment.threads == 4);
  CHECK_FALSE(root.role);
  REQUIRE(root.children.size() == 3);

  const ks::DiffNode& main = root.children[0];
  CHECK(main.path == "0-0");
  CHECK(main.role == ks::ThreadRole::kMain);
  check_side(main.baseline, "Main thread", 45, 12, 12);
  check_side(main.experiment, "Main thread", 45, 14, 14);
  REQUIRE(main.children.size() == 2);  // Net and the optimizer, matched as before
  CHECK(main.children[0].path == "0-0-0");
  check_side(main.children[0].baseline, "nn.Module: Net", 30, 10, 10);
  check_side(main.children[1].experiment, "Optimizer.step#SGD.step", 15, 2, 2);

  const ks::DiffNode& bwd = root.children[1];
  CHECK(bwd.role == ks::ThreadRole::kAutograd);
  check_side(bwd.baseline, "Autograd (backward)", 25, 20, 20);
  check_side(bwd.experiment, "Autograd (backward)", 25, 24, 24);
  REQUIRE(bwd.baseline.aggs.size() == 2);
  check_agg(bwd.baseline.aggs[0], "aten::mm", 1, 22, 20, 19, 20);

  const ks::DiffNode& c = root.children[2];
  CHECK(c.role == ks::ThreadRole::kCommunication);
  check_side(c.baseline, "Communication", 48, 5, 5);
  check_side(c.experiment, "Communication", 25 + 22, 11, 11);
  CHECK(c.baseline.threads == 1);
  CHECK(c.experiment.threads == 2);
  CHECK(c.experiment.nodes == 2);

  // tb_plugin's reading: one thread, the first to appear (rank 0's autograd thread, whose
  // AccumulateGrad comes first), no level of roles.
  const ks::OpTree tta = ks::build_op_tree(base.m(), {true}), tte = ks::build_op_tree(exp.m(), {true});
  const ks::DiffResult tb = ks::diff_trees(tta, base.m(), tte, exp.m(), true);
  REQUIRE(tb.compared);
  CHECK(tb.root.baseline.device_ns == (7 + 20) * us);
  CHECK(tb.root.experiment.device_ns == 14 * us);
  for (const ks::DiffNode& n : tb.root.children) CHECK_FALSE(n.role);
}

TEST_CASE("diff: the gate's metrics and line", "[diff]") {
  bool slower = false;
  CHECK(ks::diff_gate_line("step", 100e3, 120e3, 10, slower) ==
        "step per step: baseline 100.0 us, experiment 120.0 us, +20.0 % (more than 10 % slower)");
  CHECK(slower);
  CHECK(ks::diff_gate_line("kernel", 29e3, 20e3, 10, slower) ==
        "kernel per step: baseline 29.0 us, experiment 20.0 us, -31.0 % (within 10 %)");
  CHECK_FALSE(slower);
  CHECK(ks::diff_gate_line("memset", 0, 0, 0, slower) == "memset per step: baseline 0.0 us, experiment 0.0 us, +0.0 % (within 0 %)");
  CHECK_FALSE(slower);
  CHECK(ks::diff_gate_line("memset", 0, 1e3, 50, slower) ==
        "memset per step: baseline 0.0 us, experiment 1.0 us, from 0 (more than 50 % slower)");
  CHECK(slower);
  // Exactly at the limit is not slower than it.
  ks::diff_gate_line("step", 100e3, 110e3, 10, slower);
  CHECK_FALSE(slower);

  Loaded base("diff-baseline.json");
  const ks::StepBreakdown b = ks::step_breakdown(base.m(), ks::find_steps(base.m()));
  double ns = -1;
  CHECK(ks::diff_metric_ns(b, "step", ns));
  CHECK(ns == b.average_total_ns);
  CHECK(ks::diff_metric_ns(b, "kernel", ns));
  CHECK(ns == b.average_ns[size_t(ks::Role::kKernel)]);
  CHECK_FALSE(ks::diff_metric_ns(b, "steps", ns));
  CHECK(ks::diff_metric_names().size() == 1 + ks::kRoleCount);
}
