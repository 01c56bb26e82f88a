// The GPU time view's communication/computation overlap (Holistic Trace Analysis's
// get_comm_comp_overlap): the share of the time the GPU spent communicating (the union of the
// communication kernels, gpu_time.h's kinds: NCCL/RCCL and gloo) during which it also computed
// (the union of the computation kernels) — intersection over the communication's union. Memory
// work counts as neither. The kernels are those of HTA's scope (gpu_time.h hta_scoped_events),
// exact ns or HTA's whole µs (rounding=hta). No communication kernel: no share (null), never 0.
//
// The Distributed view's overlap (tb_plugin's) differs in what it measures: it splits each step's
// window into computation, communication, both and other, with communication by the collective
// operators' kernels and everything else computation (copies included), per step; this one is
// HTA's, over HTA's scope, by kernel name. Both are given (distributed_*) so the page can show
// them side by side.
#pragma once
#include <cstdint>

#include "core/analysis/gpu_time.h"
#include "core/trace/trace_model.h"

namespace ks {

struct CommCompOverlap {
  uint64_t communication_kernels = 0, computation_kernels = 0;
  int64_t communication_ns = 0, computation_ns = 0, overlap_ns = 0;
  bool has_communication() const { return communication_kernels > 0 && communication_ns > 0; }
  double pct() const { return 100.0 * double(overlap_ns) / double(communication_ns); }
};

CommCompOverlap comm_comp_overlap(const TraceModel& m, GpuTimeRounding rounding = GpuTimeRounding::kExact);
// The same from HTA's scope already found (Session::hta_scoped).
CommCompOverlap comm_comp_overlap(const HtaScoped& scoped);

}  // namespace ks
