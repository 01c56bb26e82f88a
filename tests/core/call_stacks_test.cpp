// Call stacks from python_function frames (issue 22 §2; core/analysis/call_stacks.h): the
// hand-made `python-function-call-stacks.json` (tests/data/README.md) and the real ModuleList GPT
// recorded with with_stack=True on an H200 (PyTorch 2.11), where no operator has a "Call stack" arg.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>

#include "core/analysis/call_stacks.h"
#include "core/analysis/kernels.h"
#include "core/analysis/memory.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/operators.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "test_util.h"

namespace {

using Loaded = kstest::LoadedFixture;

// The stack of the first cpu_op (or user_annotation) named `name` starting at `ts_us` (µs from
// the fixture's base; -1: any).
std::string stack_of(const ks::OpTree& t, const ks::TraceModel& m, const std::string& name, int64_t ts_us = -1,
                     ks::EventKind kind = ks::EventKind::kCpuOp) {
  const auto& table = kind == ks::EventKind::kCpuOp ? m.cpu_ops : m.user_annotations;
  for (uint32_t i = 0; i < table.size(); ++i) {
    const auto& r = table[i];
    if (m.strings.get(r.s.name) != name) continue;
    if (ts_us >= 0 && r.s.ts_ns != (1700000000000000 + ts_us) * 1000) continue;
    return ks::stack_text(t.stacks, m, ks::row_stack(t.stacks, m, kind, i));
  }
  FAIL("no " << name);
  return {};
}

}  // namespace

TEST_CASE("python-function-call-stacks: frames around each operator, innermost first, noise left out", "[call_stacks]") {
  Loaded l("python-function-call-stacks.json");
  const ks::OpTree t = ks::build_op_tree(l.m());
  REQUIRE(t.stacks.derived());
  // nn.Module frames and the <built-in method linear ...> frame are not stack frames.
  const std::string forward = "model.py(12): forward;torch/nn/modules/module.py(1783): _call_impl;train.py(20): train_step;train.py(90): <module>";
  CHECK(stack_of(t, l.m(), "aten::linear", 31) == forward);
  CHECK(stack_of(t, l.m(), "aten::addmm", 32) == forward);  // nested operators share their caller's frames
  CHECK(stack_of(t, l.m(), "aten::linear", 151) == "model.py(30): head;" + forward);
  // ProfilerStep#1 starts inside profiler.step(), record_function("optimizer") inside its
  // __enter__ and torch/_ops.py under it: the profiler's frames, and what they call, are dropped.
  CHECK(stack_of(t, l.m(), "ProfilerStep#1", -1, ks::EventKind::kUserAnnotation) == "train.py(20): train_step;train.py(90): <module>");
  CHECK(stack_of(t, l.m(), "optimizer", -1, ks::EventKind::kUserAnnotation) == "train.py(20): train_step;train.py(90): <module>");
  CHECK(stack_of(t, l.m(), "aten::add_") == "torch/optim/sgd.py(80): step;train.py(20): train_step;train.py(90): <module>");
  // Interned: the two aten::linear stacks share their outer frames; 6 distinct frames in all
  // (<module>, train_step, _call_impl, forward, head, sgd step).
  CHECK(t.stacks.frame.size() == 7);
  // No frames: the autograd thread, a thread of its own.
  CHECK(stack_of(t, l.m(), "aten::mm").empty());
  for (uint32_t i = 0; i < l.m().cpu_ops.size(); ++i) {
    const std::string_view n = l.m().strings.get(l.m().cpu_ops[i].s.name);
    const ks::NoStackReason r = ks::no_stack_reason(t.stacks, l.m(), ks::EventKind::kCpuOp, i);
    if (n == "aten::mm" || n.find("AddmmBackward0") != std::string_view::npos) CHECK(r == ks::NoStackReason::kAutograd);
    else if (n == "aten::copy_") CHECK(r == ks::NoStackReason::kNoFrames);
    else CHECK(r == ks::NoStackReason::kNone);
  }
  // tb_plugin reads the "Call stack" arg only: nothing here.
  const ks::OpTree tb = ks::build_op_tree(l.m(), {true});
  CHECK_FALSE(tb.stacks.derived());
  CHECK(ks::operator_stacks(tb, l.m(), ks::OpGroupBy::kName, "aten::linear", "").empty());
}

TEST_CASE("python-function-call-stacks: Operators by stack, the detail, kernels and memory show them", "[call_stacks]") {
  Loaded l("python-function-call-stacks.json");
  const ks::OpTree t = ks::build_op_tree(l.m());
  const auto stacks = ks::operator_stacks(t, l.m(), ks::OpGroupBy::kName, "aten::linear", "");
  REQUIRE(stacks.size() == 2);
  // Device self desc, then: the forward's call (60 us kernel) before head's (20 us).
  CHECK(stacks[0].call_stack.starts_with("model.py(12): forward;"));
  CHECK(stacks[0].stats.device_total_ns == 60000);
  CHECK(stacks[1].call_stack.starts_with("model.py(30): head;"));
  CHECK(stacks[1].stats.device_total_ns == 20000);
  const auto none = ks::operator_stackless_calls(t, l.m(), ks::OpGroupBy::kName, "aten::mm", "");
  CHECK(none.calls[size_t(ks::NoStackReason::kAutograd)] == 1);
  // The detail's answer says where the stacks come from and why aten::mm's call has none.
  ks::Session session;
  kstest::feed_all(session.reader(), kstest::read_fixture("python-function-call-stacks.json"), 1 << 20);
  const ks::Answer detail = session.query("operator_detail", {{"name", "aten::mm"}});
  REQUIRE(detail.error.empty());
  CHECK(detail.rows == 0);
  CHECK(ks::answer_meta(detail, "stack_source") == "\"python_function\"");
  const std::string_view no_stack = ks::answer_meta(detail, "no_stack");
  CHECK(no_stack.find("\"reason\":\"autograd_thread\"") != std::string::npos);
  CHECK(no_stack.find(ks::no_stack_text(ks::NoStackReason::kAutograd)) != std::string::npos);

  // Grouped by operator and stack: aten::linear and aten::addmm twice each, the others once.
  const ks::OperatorTable by_stack = ks::operator_table(t, l.m(), ks::OpGroupBy::kNameAndStack);
  CHECK(by_stack.rows.size() == 9);
  size_t linear = 0;
  for (const auto& g : by_stack.rows)
    if (l.m().strings.get(g.name) == "aten::linear") {
      ++linear;
      CHECK(g.has_call_stack);
      CHECK(g.stats.calls == 1);
    }
  CHECK(linear == 2);
  const ks::OperatorTable by_name = ks::operator_table(t, l.m(), ks::OpGroupBy::kName);
  for (const auto& g : by_name.rows) CHECK(g.has_call_stack == (l.m().strings.get(g.name).find("ackward") == std::string_view::npos &&
                                                               l.m().strings.get(g.name) != "aten::mm" &&
                                                               l.m().strings.get(g.name) != "aten::copy_"));

  // Kernels: the gemm kernel's launching operators with their stacks (aten::mm has none).
  ks::KernelKey key;
  key.name = "sm90_gemm_kernel";
  const ks::KernelDetail kd = ks::kernel_detail(t, l.m(), key);
  REQUIRE(kd.stacks.size() == 2);
  CHECK(kd.stacks[0].op == "aten::addmm");
  CHECK(kd.stacks[0].call_stack.starts_with("model.py(12): forward;"));

  // Memory: the 1 MB block aten::addmm allocated has its stack; the autograd thread's, a reason.
  const ks::MemoryIndex x = ks::build_memory_index(l.m(), t);
  const int d = ks::memory_device_index(x, "GPU0");
  REQUIRE(d >= 0);
  const std::string alive = ks::answer_json(ks::memory_alive_answer(x, t, l.m(), d, (1700000000000000 + 500) * 1000, 10));
  CHECK(alive.find("\"call_stack\":\"" + std::string("model.py(12): forward;")) != std::string::npos);
  CHECK(alive.find(ks::no_stack_text(ks::NoStackReason::kAutograd)) != std::string::npos);
}

TEST_CASE("real ModuleList GPT with with_stack=True (H200, PyTorch 2.11): stacks from python_function frames", "[call_stacks]") {
  namespace fs = std::filesystem;
  std::string text;
  for (const auto& e : fs::directory_iterator(kstest::repo_path("tests/data/h200_pt211/gpt_modulelist")))
    if (e.path().string().ends_with(".pt.trace.json.gz")) text = kstest::read_path(e.path());
  if (text.size() > 1 && uint8_t(text[0]) == 0x1f) return;  // gzip under wasm (no zlib there)
  ks::TraceReader r;
  kstest::feed_all(r, text, 1 << 20);
  REQUIRE(r.error().empty());
  const ks::TraceModel& m = r.model();
  for (uint32_t i = 0; i < m.cpu_ops.size(); ++i) REQUIRE(m.call_stack(ks::EventKind::kCpuOp, i) == 0);  // no arg: all derived
  const ks::OpTree t = ks::build_op_tree(m);
  const auto stacks = ks::operator_stacks(t, m, ks::OpGroupBy::kName, "aten::layer_norm", "");
  REQUIRE(!stacks.empty());
  // The block's LayerNorm: LayerNorm.forward, called from the block, from the model, from the step.
  CHECK(stacks[0].call_stack.starts_with("torch/nn/functional.py(2914): layer_norm;torch/nn/modules/normalization.py(228): forward;"
                                         "torch/nn/modules/module.py(1783): _call_impl;make_traces.py(54): forward;"));
  CHECK(stacks[0].call_stack.ends_with("make_traces.py(98): gpt_step;make_traces.py(127): part_gpt;make_traces.py(359): <module>"));
  uint64_t calls = 0;
  for (const auto& s : stacks) {
    calls += s.stats.calls;
    CHECK(s.call_stack.find("nn.Module") == std::string::npos);
    CHECK(s.call_stack.find("<built-in") == std::string::npos);
    CHECK(s.call_stack.find("torch/profiler") == std::string::npos);
  }
  // Every call has one: 2 LayerNorms in each of 4 blocks and ln_f twice, in 2 steps.
  CHECK(calls == 20);
  // aten::mm: the forward's calls have stacks, the backward's (autograd thread) a reason.
  const auto mm = ks::operator_stackless_calls(t, m, ks::OpGroupBy::kName, "aten::mm", "");
  CHECK(mm.calls[size_t(ks::NoStackReason::kAutograd)] == 68);
  CHECK(mm.calls[size_t(ks::NoStackReason::kNoFrames)] == 0);
}
