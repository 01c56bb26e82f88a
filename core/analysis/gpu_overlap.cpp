#include "core/analysis/gpu_overlap.h"

#include <algorithm>

#include "core/util/intervals.h"

namespace ks {

CommCompOverlap comm_comp_overlap(const TraceModel& m, GpuTimeRounding rounding) { return comm_comp_overlap(hta_scoped(m, rounding)); }

CommCompOverlap comm_comp_overlap(const HtaScoped& scoped) {
  const bool hta = scoped.rounding == GpuTimeRounding::kHta;
  CommCompOverlap out;
  Ranges comm, comp;
  for (const ScopedGpuEvent& e : scoped.events) {
    if (e.kind == GpuWorkKind::kCommunication) {
      ++out.communication_kernels;
      comm.push_back({e.start_ns, e.end_ns});
    } else if (e.kind == GpuWorkKind::kComputation) {
      ++out.computation_kernels;
      comp.push_back({e.start_ns, e.end_ns});
    }
  }
  // HTA merges each kind's ranges as it rounded them (an inverted sub-µs one kept, its -1 µs
  // counted); exact ranges are merged as the other breakdowns merge them.
  comm = hta ? hta_merged_ranges(std::move(comm)) : merge_ranges(std::move(comm));
  comp = hta ? hta_merged_ranges(std::move(comp)) : merge_ranges(std::move(comp));
  for (const Range& r : comm) out.communication_ns += r.end - r.start;
  for (const Range& r : comp) out.computation_ns += r.end - r.start;
  // Both lists are sorted and (but for an inverted range, which overlaps nothing) disjoint.
  size_t i = 0, j = 0;
  while (i < comm.size() && j < comp.size()) {
    const int64_t lo = std::max(comm[i].start, comp[j].start), hi = std::min(comm[i].end, comp[j].end);
    if (hi > lo) out.overlap_ns += hi - lo;
    if (comm[i].end < comp[j].end) ++i;
    else ++j;
  }
  return out;
}

}  // namespace ks
