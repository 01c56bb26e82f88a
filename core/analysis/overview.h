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

}  // namespace ks
