// Steps: the iterations every Overview number is per (tb_plugin spec §6). Detected from
// ProfilerStep#N ranges, extended to the end of the GPU work launched inside each step, made
// consecutive, and trimmed of trailing steps whose GPU work is missing.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/trace/trace_model.h"
#include "core/util/intervals.h"

namespace ks {

struct StepOptions {
  // tb_plugin also makes steps of ProfilerStep#N on GPU streams (gpu_user_annotation), giving a
  // second, overlapping step N, and counts GPU annotations as CPU Exec. Off by default (see
  // docs/compatibility.md); on to reproduce tb_plugin's numbers.
  bool tb_plugin_gpu_annotations = false;
};

struct Step {
  std::string name;  // the N of ProfilerStep#N ("0" for the whole trace when there is none)
  int64_t start_ns = 0, end_ns = 0;
  // The ProfilerStep range as recorded, before the extension to its GPU work: the host work of
  // the step started in it (step_scope.h). A tb_plugin-mode step read off a GPU stream has none.
  int64_t host_start_ns = 0, host_end_ns = 0;
  bool on_gpu_stream = false;
};

struct StepsResult {
  std::vector<Step> steps;
  bool from_profiler_steps = false;
};

// Device activity (kernels, memcpy, memset): an index into the model's tables.
struct DeviceRef {
  EventKind kind;
  uint32_t row;
};
// The device work each launch put on the GPU, linked by correlation id as tb_plugin does
// (spec §4): runtimes (index = runtime row) and, with include_drivers, driver calls such as
// cuLaunchKernel (index = runtimes.size() + driver row); plus the device work whose launch was
// never recorded (in time order).
struct LaunchLinks {
  std::vector<uint32_t> begin;  // launch i's work is refs[begin[i], begin[i + 1])
  std::vector<DeviceRef> refs;
  std::vector<DeviceRef> unlaunched;
  std::span<const DeviceRef> of(size_t launch) const {
    return {refs.data() + begin[launch], refs.data() + begin[launch + 1]};
  }
  size_t launches() const { return begin.size() - 1; }
};
// kAuto: by a table of correlation ids when every launch has an id of its own (the usual trace),
// else by tb_plugin's walk in time order; kWalk: always the walk (tests compare the two).
enum class LinkPath { kAuto, kWalk };
LaunchLinks link_launches(const TraceModel& m, bool include_drivers, LinkPath path = LinkPath::kAuto);
// The table's way alone: false (and `out` to be dropped) when some launch shares its id or has
// none, or the ids are spread too thin for a table of at most the walk's bytes.
bool link_launches_by_table(const TraceModel& m, bool include_drivers, LaunchLinks& out);
const SliceRow& device_slice(const TraceModel& m, DeviceRef d);

// How runtimes are matched to steps for their GPU work: kAuto looks each one's step up when no
// runtime starts exactly at a step's end, else walks them in time order as tb_plugin does; kWalk
// always walks (tests compare the two).
enum class StepMatch { kAuto, kWalk };
StepsResult find_steps(const TraceModel& m, const StepOptions& options = {}, StepMatch match_by = StepMatch::kAuto);

}  // namespace ks
