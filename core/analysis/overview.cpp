#include "core/analysis/overview.h"

namespace ks {

std::string_view overview_phase_name(OverviewPhase phase) {
  switch (phase) {
    case OverviewPhase::kSteps: return "steps";
    case OverviewPhase::kBreakdown: return "step breakdown";
    case OverviewPhase::kGpuMetrics: return "GPU metrics";
    case OverviewPhase::kOperatorTrees: return "operator trees";
    case OverviewPhase::kRecommendations: return "recommendations";
  }
  return "overview";
}

StepsResult chosen_steps(const StepsResult& steps, const StepFilter& filter) {
  StepsResult out = steps;
  out.steps.clear();
  for (size_t i = 0; i < steps.steps.size(); ++i)
    if (i < filter.chosen.size() && filter.chosen[i]) out.steps.push_back(steps.steps[i]);
  return out;
}

}  // namespace ks
