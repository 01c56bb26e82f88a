// Which step issued each operator and each kernel, so that the Operator and Kernel tables (and
// their detail panels) can be read for one step. tb_plugin could not do this: its tables always
// cover the whole trace, and that table stays exactly what it was (no StepFilter).
//
// "The work a step issued":
// - An operator (any node of the operator trees) belongs to the step whose host range — the
//   ProfilerStep#N range as recorded, not its extension to the end of its GPU work (steps.h) —
//   holds its start. On the thread of the ProfilerStep ranges that is the ProfilerStep it runs
//   under; on other threads (autograd, DataLoader workers) it is the step the main thread was in
//   when it started. Its numbers are its own: its device time follows its launches wherever
//   those ran, so a call late in step 1 whose kernel runs into step 2 counts in step 1.
// - A kernel belongs to the step of the node whose launch put it on the GPU (the launch's own
//   start when a thread's root took it, or no node did): a kernel launched in step 1 that runs
//   into step 2 is step 1's, as the Overview's step 1 (extended to its GPU work) already has it.
// - A kernel whose launch is not in the trace belongs to the step whose GPU-extended range holds
//   its start (those ranges are consecutive, so exactly one does, or none).
// - Where ranges overlap (nested ProfilerSteps), the one that started last wins; a time on the
//   boundary of two consecutive steps belongs to the later one.
// Work before the first step or after the last one (steps cut off at the end of a capture are
// dropped, steps.h) is in no step. Several steps may share a name (tb_plugin mode reads a second
// step N off a GPU stream, which has no host range): naming N chooses all of them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/analysis/steps.h"

namespace ks {

struct StepAttribution {
  std::vector<int32_t> node;    // per OpTree node: index into StepsResult::steps, -1 none
  std::vector<int32_t> kernel;  // per kernel row
};
StepAttribution attribute_steps(const OpTree& t, const TraceModel& m, const StepsResult& steps);

// The steps of one name, as a filter for the tables.
struct StepFilter {
  std::string name;
  const StepAttribution* attribution = nullptr;
  std::vector<char> chosen;  // per step index
  bool has_node(int32_t node) const { return chosen_step(attribution->node[size_t(node)]); }
  bool has_kernel(uint32_t row) const { return chosen_step(attribution->kernel[row]); }

 private:
  bool chosen_step(int32_t s) const { return s >= 0 && chosen[size_t(s)]; }
};

// The steps named `name` (as `kinetoscope steps --json` lists them); nullopt when none is.
std::optional<StepFilter> step_filter(const StepAttribution& a, const StepsResult& steps, std::string_view name);

// What to say to someone who named a step the trace does not have: "no step 9 (the steps are
// 1, 2, 3)" — one sentence without the final period, for "<file>: <sentence>".
std::string unknown_step_message(const StepsResult& steps, std::string_view name);

}  // namespace ks
