// The GPU time view's largest idle gaps (issue 24 §2, its last part): per stream, the N longest of
// the gaps that the idle time breakdown (gpu_idle.h) classifies, each with its start, length and
// category, the GPU event after it, the runtime call that launched that event (by correlation id)
// and the operator that made the call (the innermost operator around it: the operator trees'
// link). The gaps, their categories and the threshold are gpu_idle's, so the gaps of a stream
// add up to its idle time there.
#pragma once
#include <cstdint>
#include <vector>

#include "core/analysis/gpu_idle.h"
#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

struct IdleGapRow {
  int64_t stream = -1;
  int64_t start_ns = 0, gap_ns = 0;  // from the previous event's end (the furthest so far)
  IdleCategory category = IdleCategory::kOther;
  StringId event = 0;                // the GPU event after the gap
  int64_t event_start_ns = 0;
  int64_t launch_ns = kNoLaunch;     // its runtime call's start; kNoLaunch: none recorded
  StringId launch_name = 0;
  int32_t op_node = -1;              // the operator that made the call (OpTree node), -1: none
};

struct IdleGapsResult {
  std::vector<IdleGapRow> gaps;  // streams in gpu_idle's order, each stream's gaps longest first
  uint64_t streams = 0;
};

// The `per_stream` longest gaps of each stream (ties: the earlier first).
IdleGapsResult gpu_idle_gaps(const TraceModel& m, const OpTree& t, const GpuIdleOptions& options, size_t per_stream);
// The same from HTA's scope already found (`scoped`, of options.rounding: Session::hta_scoped).
IdleGapsResult gpu_idle_gaps(const TraceModel& m, const HtaScoped& scoped, const OpTree& t, const GpuIdleOptions& options, size_t per_stream);

}  // namespace ks
