#include "core/analysis/overview.h"

#include "core/analysis/accelerator.h"
#include "core/analysis/tensor_cores.h"
#include "core/util/format_pct.h"

namespace ks {

namespace {

// Each GPU's Tensor Core share, in the order of gpus.gpus (over the step's kernels when `step`).
std::vector<TcShare> tc_shares(const TraceModel& m, const GpuMetricsResult& gpus, bool tb_plugin, const StepFilter* step) {
  std::vector<int> ids;
  for (const GpuMetrics& g : gpus.gpus) ids.push_back(g.device);
  return tc_kernel_share_by_gpu(m, tb_plugin, ids, step);
}

}  // namespace

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

std::string gpu_summary_text(const TraceModel& m, const GpuMetricsResult& gpus, const StepFilter* step, bool tb_plugin,
                             std::string_view file_name) {
  const Accelerator acc = trace_accelerator(m);
  const std::vector<TcShare> tc = tc_shares(m, gpus, tb_plugin, step);
  std::string out(file_name);
  out += step ? ": step " + step->name + ", " : ": all steps, ";
  out += std::to_string(gpus.gpus.size()) + (gpus.gpus.size() == 1 ? " GPU" : " GPUs") + " with kernels\n";
  for (size_t i = 0; i < gpus.gpus.size(); ++i) {
    const GpuMetrics& g = gpus.gpus[i];
    out += "  GPU " + std::to_string(g.device) + ": utilization " + format_pct(g.utilization * 100);
    if (g.sm_efficiency) out += ", est. SM efficiency " + format_pct(*g.sm_efficiency * 100);
    if (g.occupancy_pct) out += ", est. achieved occupancy " + format_pct(*g.occupancy_pct);
    if (const std::optional<double> r = tc[i].ratio()) {
      out += ", " + std::string(matrix_units_term(acc)) + " " + format_pct(*r * 100);
      if (tc[i].unknown_ns > 0) out += " (+ " + format_pct(*tc[i].unknown_ratio() * 100) + " unknown)";
    }
    out += "\n";
  }
  return out;
}

StepsResult chosen_steps(const StepsResult& steps, const StepFilter& filter) {
  StepsResult out = steps;
  out.steps.clear();
  for (size_t i = 0; i < steps.steps.size(); ++i)
    if (i < filter.chosen.size() && filter.chosen[i]) out.steps.push_back(steps.steps[i]);
  return out;
}

}  // namespace ks
