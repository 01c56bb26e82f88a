// GPU metrics of the Overview (tb_plugin spec §9), per GPU over the steps' window: utilization
// (time any kernel runs), est. SM efficiency (blocks per SM, capped at 1, summed over concurrent
// kernels) and est. achieved occupancy (duration-weighted), plus the utilization timeline.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/steps.h"

namespace ks {

struct GpuMetrics {
  int device = 0;
  double utilization = 0;                // 0..1
  std::optional<double> sm_efficiency;   // 0..1, when some kernel had "blocks per SM"
  std::optional<double> occupancy_pct;   // 0..100, when some kernel had "est. achieved occupancy %"
  size_t blocks_per_sm_count = 0, occupancy_count = 0;  // kernels that gave a value
  std::vector<std::pair<int64_t, double>> timeline;      // (bucket start ns, utilization), then (end, 0)
};

struct GpuMetricsResult {
  std::vector<GpuMetrics> gpus;  // by device id
  int64_t window_start_ns = 0, window_end_ns = 0;  // [first step start, last step end]
  int64_t bucket_ns = 0;                            // timeline bucket size
};

// `tb_plugin`: every recorded occupancy counts, 0s of cluster launches included (kernel_occupancy).
GpuMetricsResult gpu_metrics(const TraceModel& m, const StepsResult& steps, bool tb_plugin = false);

// A kernel's "est. achieved occupancy %", or NaN where the trace has none. Kineto writes 0 when its
// occupancy calculator fails, as it does for every cluster launch (nvjet, cuDNN and CUTLASS/xmma
// kernels on sm_90). An occupancy it did compute is at least one warp of at most 64 per SM, 1.56 %
// (written as 1), for a kernel with one warp or more per SM: a 0 there is "not computed", and
// counting it as 0 % drags every mean down (the ViT trace in ../shared: 45.51 % with them, 67.84 %
// without). A 0 of a kernel with less than a warp per SM (one block of a tiny elementwise kernel)
// is a real value, as is every value of a trace without "warps per SM". tb_plugin (`tb_plugin`)
// takes every 0 as a value.
float kernel_occupancy(const KernelRow& k, bool tb_plugin);

}  // namespace ks
