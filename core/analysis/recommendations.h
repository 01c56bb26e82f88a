// Recommendations of the Overview (tb_plugin spec §17): input loading, DataParallel, the DDP
// backend, communication, low GPU utilization, mixed precision and peak memory, with tb_plugin's
// triggers and thresholds.
#pragma once
#include <string>
#include <vector>

#include "core/analysis/gpu_metrics.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/step_breakdown.h"

namespace ks {

struct Recommendation {
  std::string id;    // dataloader, data-parallel, nccl, communication, gpu-utilization, amp, memory
  std::string text;  // plain text (tb_plugin mode: tb_plugin's exact HTML sentence)
  std::string view;  // the view that shows the evidence: overview, operators, kernels, memory, distributed
};

// What the Overview's analyses read: the model, its steps' breakdown, GPU metrics and operator trees.
struct OverviewInputs {
  const TraceModel& model;
  const StepBreakdown& steps;
  const GpuMetricsResult& gpus;
  const OpTree& tree;
  bool tb_plugin = false;
};

std::vector<Recommendation> recommendations(const OverviewInputs& in);

}  // namespace ks
