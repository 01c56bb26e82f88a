// The GPU time view's critical path (issue 24 §8; Holistic Trace Analysis's critical_path_analysis
// is the model): the chain of host operators, launches, kernels and synchronizations that bounds
// one step, its length and what bounds each part of it.
//
// The graph (as HTA builds it, over the events of one ProfilerStep range as recorded, or of the
// whole trace when it has none):
// - a node at the start and one at the end of each host range that starts in the window with a
//   duration (operators, record_function ranges, the ProfilerStep itself, runtime and driver
//   calls) and of each kernel, memcpy and memset whose runtime call is one of them;
// - per host thread, the nesting walked depth first: an edge from each node to the next one the
//   walk meets (into a child, out of it, on to the next child), its weight the time between them,
//   charged to the range the time lies in (the child entered or left, or the parent between two
//   children); a blocking call's exit edge (cudaStreamSynchronize, cudaDeviceSynchronize,
//   cudaEventSynchronize, cudaEventQuery, cudaMemcpy, cudaMemcpyAsync) weighs 0, as its wait is
//   the GPU's time, reached through a sync edge; consecutive top-level ranges are joined by edges
//   of weight 0 (the time between them bounds nothing);
// - per GPU event an edge from its start to its end (its duration); into its start either a
//   launch edge from its runtime call's start (when the previous event on its stream had ended
//   before that call started: the GPU waited for the launch) or a kernel-kernel edge from the
//   previous event's end on the stream (the gap between them);
// - sync edges of weight 0 from the GPU to the host, read off the CUDA sync events (cat
//   cuda_sync) and their runtime call (by correlation): Stream Sync from the last event of its
//   stream that ended by then to the end of the call; Context Sync from the last event of every
//   stream; Event Sync from the GPU event its CUDA event stands for, where the sync event says
//   which (wait_on_stream and wait_on_cuda_event_record_corr_id, PyTorch 2.x: the last event
//   launched onto that stream before the cudaEventRecord call), else from the event, on any
//   stream, that ended last before the sync completed;
// - event-wait edges of weight 0 from GPU event to GPU event (HTA's rule): a Stream Wait Event
//   (cudaStreamWaitEvent) saying what it waits on makes the next GPU event launched onto the
//   waiting stream from the call's thread wait for the event recorded; that event then gets a
//   launch or kernel-kernel edge only if the call or the previous event came after the waited-for
//   one ended (else the wait, not the launch or the stream, held it back).
// The critical path is the longest path of that graph (a DAG: every edge goes forward in time,
// ties broken by the walk's order). Each edge of it is charged to one bound: cpu (a host range's
// time), data loading (a host range under enumerate(DataLoader)#...: tb_plugin's DataLoader rule),
// launch overhead (launch edges), GPU compute or GPU communication (a GPU event's duration, by
// its kind as gpu_time.h reads it), kernel-kernel (gaps on a stream). Sync and dependency edges
// weigh 0. So total = sum of the bounds, and total <= the span from the step's start to its last
// event's end. Times are exact ns; a negative weight (a child ending after its parent by a
// rounding) counts 0 (HTA: -1 µs counts 0, anything below fails) and is counted.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/steps.h"
#include "core/trace/trace_model.h"

namespace ks {

enum class PathBound : uint8_t { kCpu, kLaunchOverhead, kGpuCompute, kGpuComm, kKernelKernel, kDataLoading, kNone };
inline constexpr size_t kPathBounds = 6;  // kNone (sync edges) is no bound
// "cpu", "launch_overhead", "gpu_compute", "gpu_comm", "kernel_kernel", "data_loading", "sync".
const char* path_bound_name(PathBound b);

// One part of the path: consecutive edges charged to the same event (or one delay edge).
struct PathSegment {
  PathBound bound = PathBound::kNone;
  EventKind kind = EventKind::kOther;  // the event's table (kRuntime, kKernel, ...); kOther: a delay or sync
  uint32_t row = 0;                    // its row in that table
  int64_t start_ns = 0, end_ns = 0;    // the span of the edges (a sync: the GPU event's end, the call's end)
  int64_t time_ns = 0;                 // their weight
  int64_t stream = -1;                 // a GPU event's (or the delay's) stream; -1 on the host
  StringId name = 0;                   // the event's name; a launch delay: the kernel's; a gap: the next event's
};

struct CriticalPathResult {
  bool has_step = false;               // false: no window (no such step, or no host range at all)
  bool whole_trace = false;            // no ProfilerStep range: the window is the whole trace
  size_t step_index = 0;               // into StepsResult::steps (not whole_trace)
  // The step's range as recorded (whole_trace: the first host range's start to the last one's end).
  int64_t window_start_ns = 0, window_end_ns = 0;
  int64_t total_ns = 0;
  std::array<int64_t, kPathBounds> by_bound{};
  std::vector<PathSegment> path;       // in order
  uint64_t nodes = 0, edges = 0;
  uint64_t gpu_events = 0;             // GPU events in the graph
  uint64_t sync_edges = 0;             // GPU -> host sync edges in the graph
  uint64_t wait_edges = 0;             // GPU -> GPU event-wait edges (cudaStreamWaitEvent) in the graph
  uint64_t negative_edges = 0;         // edges whose time was negative, counted 0
};

// The critical path of steps.steps[step] (a ProfilerStep with a host range, [start, end): a step
// that starts where this one ends is not in it), or of the whole trace when it has no ProfilerStep
// range (as HTA's annotation ""); has_step false when the index is past the steps or there is no
// host range.
CriticalPathResult critical_path(const TraceModel& m, const StepsResult& steps, size_t step);

}  // namespace ks
