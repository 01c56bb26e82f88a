// Recommendations of the Overview (tb_plugin spec §17): input loading, DataParallel, the DDP
// backend, communication, low GPU utilization, mixed precision and peak memory. --tb-plugin keeps
// tb_plugin's triggers and sentences; the default mode checks each rule against the evidence it
// cites (the backend the trace declares, the hardware, the numbers behind a threshold) and says
// where that evidence is (docs/compatibility.md lists each difference).
#pragma once
#include <string>
#include <vector>

#include "core/analysis/flops.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/step_breakdown.h"
#include "core/analysis/tensor_cores.h"

namespace ks {

// Where the page shows a recommendation's evidence, in the deep-link fields of docs/contracts.md
// ("" = absent): the view, and within it the step (its name), grouping, sorting
// ("<column id>.asc|desc"), search text and selected row (the table's row key).
struct Evidence {
  std::string view, step, group, sort, q, row;
};

struct Recommendation {
  std::string id;    // dataloader, data-parallel, nccl, communication, gpu-utilization, fp32-matmul, amp, small-matmuls, memory
  std::string text;  // plain text (tb_plugin mode: tb_plugin's exact HTML sentence)
  std::string view;  // the view that shows the evidence: overview, operators, kernels, memory, distributed
  Evidence evidence;
};

// What the Overview's analyses read: the model, its steps' breakdown, GPU metrics and operator trees.
struct OverviewInputs {
  const TraceModel& model;
  const StepBreakdown& steps;
  const GpuMetricsResult& gpus;
  const OpTree& tree;
  bool tb_plugin = false;
  // tc_eligible_kernels(tree, model), when the caller has it already (the Overview quotes it
  // too): a walk over every operator's kernels, done once instead of twice.
  const EligibleKernels* eligible = nullptr;
  // count_flops(tree, model), when the caller has it (the Session keeps it); else counted here.
  const FlopsResult* flops = nullptr;
};

std::vector<Recommendation> recommendations(const OverviewInputs& in);

}  // namespace ks
