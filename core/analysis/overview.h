// The Overview's pieces in the analysis floor: the steps a filter chose (a step's GPU summary is
// gpu_metrics over them) and the phases the page reports while the Overview is built. Its answer (steps and their average
// breakdown, the GPU summary, the recommendations) is core/session/views/overview.cpp.
#pragma once
#include <string>
#include <string_view>

#include "core/analysis/recommendations.h"

namespace ks {

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
