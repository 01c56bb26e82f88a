// The Overview as the CLI contract writes it: steps and their average breakdown, the
// GPU summary (with the Tensor Core share of operator kernels) and the recommendations.
#pragma once
#include <string>
#include <string_view>

#include "core/analysis/recommendations.h"

namespace ks {

// {"file", "steps": [...], "average": {...}, "accelerator", "gpus": [{"device", "name",
// "memory_bytes", "compute_capability", "vendor", "arch", "utilization_pct", "sm_efficiency_pct",
// "achieved_occupancy_pct", "tensor_core_pct", "tensor_core_unknown_pct"}], "tensor_cores":
// {"term", "kernel_pct", "kernel_unknown_pct", "eligible_op_kernel_pct", "scope": {"gpu",
// "kernel", "eligible_op_kernel"}}, "recommendations": [{"id", "text", "view", "evidence":
// {"view", "step"?, "group"?, "sort"?, "q"?, "row"?}}]} (docs/contracts.md)
// Default mode: each GPU's tensor_core_pct is over every kernel that ran on it (the Kernels pie's
// definition; "gpu_of": "all_kernels"); with tb_plugin, over the kernels operators launched
// ("operator_kernels").
std::string overview_json(const OverviewInputs& in, std::string_view file_name);

// The GPU summary of one step, or of all of them (step nullptr): per GPU the utilization, est. SM
// efficiency and est. achieved occupancy over the step's window (gpu_metrics of that step alone;
// all steps: the steps' window, as the Overview) and the Tensor Core share of the kernels the step
// issued (all steps: of every kernel, as the Overview). `gpus`: gpu_metrics over that window.
// {"file", "step": NAME|null, "window_start_us", "window_end_us", "scope", "gpus": [{"device",
// "utilization_pct", "sm_efficiency_pct", "achieved_occupancy_pct", "tensor_core_pct",
// "tensor_core_unknown_pct"}]} (docs/contracts.md "GPU summary of a step").
std::string gpu_summary_json(const TraceModel& m, const GpuMetricsResult& gpus, const StepFilter* step, bool tb_plugin,
                             std::string_view file_name);
// The same as text: "<file>: step N, over its time (...)" then per GPU "  GPU 0: utilization 44.49 %,
// est. SM efficiency …, est. achieved occupancy …, Tensor Cores 9.03 % (+ 0.02 % unknown)".
std::string gpu_summary_text(const TraceModel& m, const GpuMetricsResult& gpus, const StepFilter* step, bool tb_plugin,
                             std::string_view file_name);
// The steps a filter chose, in order (the window gpu_metrics is computed over for one step).
StepsResult chosen_steps(const StepsResult& steps, const StepFilter& filter);

// The parts of the Overview computed after reading, in the order they are built (on a big
// trace they take as long as the reading, so the page reports them as progress, "operator
// trees (4 of 5)", and its watchdog counts each report as a sign of life). Numbered from 1.
enum class OverviewPhase : int { kSteps = 1, kBreakdown, kGpuMetrics, kOperatorTrees, kRecommendations };
inline constexpr int kOverviewPhaseCount = 5;
// "steps", "step breakdown", "GPU metrics", "operator trees", "recommendations".
std::string_view overview_phase_name(OverviewPhase phase);

}  // namespace ks
