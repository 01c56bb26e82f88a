#include "core/analysis/run_gpu_time.h"

namespace ks {

RankGpuTime rank_gpu_time(const TraceModel& m, const StepsResult& steps) {
  RankGpuTime out;
  out.present = true;
  out.origin_ns = m.start_ns;
  const GpuTimeResult r = gpu_time(m, steps);
  for (uint64_t n : r.events) out.any_work = out.any_work || n > 0;
  out.overall = r.overall;
  out.steps = r.steps;
  out.overlap = comm_comp_overlap(m);
  return out;
}

RankGpuTime rank_gpu_time(const TraceModel& m) { return rank_gpu_time(m, find_steps(m)); }

}  // namespace ks
