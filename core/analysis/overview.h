// The Overview's pieces in the analysis floor: the GPU summary's text, the steps a filter chose and
// the phases the page reports while the Overview is built. Its answer (steps and their average
// breakdown, the GPU summary, the recommendations) is core/session/views/overview.cpp.
#pragma once
#include <string>
#include <string_view>

#include "core/analysis/recommendations.h"

namespace ks {

// The GPU summary of one step, or of all of them (step nullptr): per GPU the utilization, est. SM
// efficiency and est. achieved occupancy over the step's window (gpu_metrics of that step alone;
// all steps: the steps' window, as the Overview) and the Tensor Core share of the kernels the step
// issued (all steps: of every kernel, as the Overview). `gpus`: gpu_metrics over that window.
// Its --json, and the Overview's, are the gpu_summary and overview views' answers
// (core/session/views/gpu_metrics.cpp, overview.cpp); this is the text of `kinetoscope gpus --step N`:
// "<file>: step N, over its time (...)" then per GPU "  GPU 0: utilization 44.49 %,
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
