// The Overview as the CLI contract writes it (issue 3): steps and their average breakdown, the
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
std::string overview_json(const OverviewInputs& in, std::string_view file_name);

// The parts of the Overview computed after reading, in the order they are built (issue 12: on a
// big trace they take as long as the reading, so the page reports them as progress, "operator
// trees (4 of 5)", and its watchdog counts each report as a sign of life). Numbered from 1.
enum class OverviewPhase : int { kSteps = 1, kBreakdown, kGpuMetrics, kOperatorTrees, kRecommendations };
inline constexpr int kOverviewPhaseCount = 5;
// "steps", "step breakdown", "GPU metrics", "operator trees", "recommendations".
std::string_view overview_phase_name(OverviewPhase phase);

}  // namespace ks
