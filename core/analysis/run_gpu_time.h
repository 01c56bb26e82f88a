// The GPU time view's run-level part (issue 24 §1, "per rank on the run page"): what a rank's
// summary carries of its trace's GPU time — HTA's temporal breakdown, for the trace and each step
// (gpu_time.h), and HTA's communication/computation overlap (gpu_overlap.h) — so that the reduce
// of a run (the page's run page, `kinetoscope distributed --gpu-time`, a fleet's run file) lists
// every rank's numbers without any rank's trace. Each is computed as `kinetoscope gpu-time`
// computes it on that trace alone (exact ns, the default steps), so the numbers are the same.
#pragma once
#include <cstdint>
#include <vector>

#include "core/analysis/gpu_overlap.h"
#include "core/analysis/gpu_time.h"
#include "core/analysis/steps.h"
#include "core/trace/trace_model.h"

namespace ks {

struct RankGpuTime {
  bool present = false;   // false: a summary written before these numbers were (no rows for it)
  int64_t origin_ns = 0;  // the trace's start (gpu-time's times are from it)
  bool any_work = false;  // some GPU event at all (gpu-time then has rows)
  TemporalBreakdown overall;
  std::vector<StepTemporalBreakdown> steps;
  CommCompOverlap overlap;
};

// The rank's GPU time, from its model and its steps as the gpu-time view finds them (default
// step options: the same whether the run is reduced in tb_plugin's mode or not).
RankGpuTime rank_gpu_time(const TraceModel& m, const StepsResult& steps);
// The same, finding the steps itself (the CLI's map, which holds no Session).
RankGpuTime rank_gpu_time(const TraceModel& m);

}  // namespace ks
