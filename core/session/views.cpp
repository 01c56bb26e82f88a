#include "core/session/views.h"

namespace ks {

const std::vector<ViewDef>& views() {
  static const std::vector<ViewDef> list = {
      {&kOperatorsSchema, &operators_answer},
      {&kKernelsSchema, &kernels_answer},
      {&kRangesSchema, &ranges_answer},
      {&kSummarySchema, &summary_answer},
      {&kStepsSchema, &steps_answer},
      {&kGpuMetricsSchema, &gpu_metrics_answer},
      {&kGpuSummarySchema, &gpu_summary_answer},
      {&kOverviewSchema, &overview_answer},
      {&kTrimSchema, nullptr},
  };
  return list;
}

}  // namespace ks
