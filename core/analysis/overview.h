// The Overview as the CLI contract writes it (issue 3): steps and their average breakdown, the
// GPU summary (with the Tensor Core share of operator kernels) and the recommendations.
#pragma once
#include <string>
#include <string_view>

#include "core/analysis/recommendations.h"

namespace ks {

// {"file", "steps": [...], "average": {...}, "gpus": [{"device", "name", "memory_bytes",
// "compute_capability", "utilization_pct", "sm_efficiency_pct", "achieved_occupancy_pct",
// "tensor_core_pct"}], "tensor_cores": {"kernel_pct", "eligible_op_kernel_pct"},
// "recommendations": [{"id", "text", "view"}]}
std::string overview_json(const OverviewInputs& in, std::string_view file_name);

}  // namespace ks
