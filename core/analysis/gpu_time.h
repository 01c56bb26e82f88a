// The GPU time view's temporal breakdown (Holistic Trace Analysis's get_temporal_breakdown): over
// the span from the first GPU event's start to the last one's end, how much of it the GPU spent
// computing, doing other work (communication, copies, syncs) and idle — for the trace and for
// each step. One trace is one rank.
//
// As HTA (its source is the reference; docs/compatibility.md lists where Kinetoscope differs):
// - GPU work is every kernel, memcpy, memset and CUDA sync event recorded on a stream (stream
//   -1, or no stream, is host work: an event sync the host waits on);
// - its kind is read off the name: communication when it starts with "nccl" (RCCL's kernels
//   keep that prefix) or holds "gloo:", memory when it holds "Memcpy" or "Memset" (or it is a
//   memcpy/memset event), sync for CUDA sync events, computation otherwise;
// - compute is the union of the computation work, non-compute the union of all the GPU work
//   less compute (communication, copies and syncs not hidden under computation), idle the
//   span less the union of all of it;
// - the trace's row covers HTA's default scope: with two or more ProfilerStep ranges, the GPU
//   work launched (by correlation id) from host calls that start before the last ProfilerStep
//   range starts — HTA leaves the last step out, taking the latest start of any host-side range
//   named ProfilerStep*, its GPU-side copy (gpu_user_annotation) included; with fewer, all of it.
// Times are exact ns; HTA reads them as doubles and rounds them to whole µs when it loads a trace
// (start up, end down), which GpuTimeRounding::kHta reproduces (to compare with HTA's own
// numbers). Each step row (the steps of steps.h) is the GPU work of the whole trace clipped to
// the step's window. Where Kinetoscope differs from HTA on purpose: docs/compatibility.md.
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/steps.h"
#include "core/util/intervals.h"
#include "core/trace/trace_model.h"

namespace ks {

enum class GpuWorkKind : uint8_t { kComputation, kCommunication, kMemory, kSync };
inline constexpr size_t kGpuWorkKinds = 4;
const char* gpu_work_kind_name(GpuWorkKind k);  // "computation", "communication", "memory", "sync"
// A kernel's or copy's kind by its name, as HTA's get_kernel_type (memory: also by its table).
GpuWorkKind classify_gpu_work(std::string_view name, bool copy_event);

enum class GpuTimeRounding : uint8_t {
  kExact,  // ns as the trace gives them
  // As HTA loads a trace: µs as doubles, start rounded up and end down to whole µs; in the
  // trace's row an event that inverts counts as HTA counts it (-1 µs), the steps take it empty.
  kHta,
};
// "ns" / "hta"; false for any other word.
bool parse_gpu_time_rounding(std::string_view word, GpuTimeRounding& out);
const char* gpu_time_rounding_word(GpuTimeRounding r);

struct TemporalBreakdown {
  // The span, from the first event's start to the last one's end (0, 0 with no event).
  int64_t span_start_ns = 0, span_end_ns = 0;
  int64_t idle_ns = 0, compute_ns = 0, non_compute_ns = 0;
  uint64_t events = 0;  // GPU events in it (a step's: those that start in it)
  bool has_work = false;  // some GPU work lies in it (else its span and times mean nothing)
  int64_t span_ns() const { return span_end_ns - span_start_ns; }
};

struct StepTemporalBreakdown {
  std::string step;  // the step's name, as the steps view lists it
  int64_t step_start_ns = 0, step_end_ns = 0;
  TemporalBreakdown t;
};

struct GpuTimeOptions {
  GpuTimeRounding rounding = GpuTimeRounding::kExact;
};

struct GpuTimeResult {
  GpuTimeRounding rounding = GpuTimeRounding::kExact;
  // The trace's row: HTA's scope (above). No GPU work at all: events == 0.
  TemporalBreakdown overall;
  // True when the trace's row leaves out the last step (two or more ProfilerStep ranges); then
  // last_step_start_ns is the cut: work launched from host calls starting before it is in.
  bool last_step_left_out = false;
  int64_t last_step_start_ns = 0;
  std::vector<StepTemporalBreakdown> steps;  // empty without ProfilerStep ranges
  // GPU events of the whole trace and of the trace's row, by GpuWorkKind.
  std::array<uint64_t, kGpuWorkKinds> events{}, events_in_scope{};
  // GPU events of the trace's row whose duration HTA's µs rounding makes negative (a sub-µs
  // memset that starts and ends within one µs): HTA counts each as -1 µs of busy time, and when
  // that leaves its non-compute time below 0 (a lone memset) its assertion fails. Kinetoscope
  // counts them exactly (kHta: as HTA does).
  uint64_t negative_when_rounded = 0;
};

GpuTimeResult gpu_time(const TraceModel& m, const StepsResult& steps, const GpuTimeOptions& options = {});

// One GPU event of HTA's scope (the trace's row above) as HTA's other analyses read it (its idle
// time and kernel breakdowns, core/analysis/gpu_idle.h and gpu_kernels.h): a kernel, memcpy or
// memset — not a CUDA sync, which is the host waiting on the GPU (HTA's idle and kernel
// breakdowns see none: their goldens of alexnet_critical_path and event_sync_multi_stream match
// only without them) — its times as the rounding reads them (kHta: HTA's whole µs, where a sub-µs
// event may end before it starts) and the start of the runtime call that launched it (by
// correlation id; kNoLaunch when none did).
inline constexpr int64_t kNoLaunch = std::numeric_limits<int64_t>::min();
struct ScopedGpuEvent {
  int64_t start_ns = 0, end_ns = 0;
  int64_t stream = -1;
  int64_t launch_ns = kNoLaunch;
  int64_t correlation = kNoId;  // its correlation id (kNoId: none)
  StringId name = 0;
  GpuWorkKind kind = GpuWorkKind::kComputation;
};
// The events of HTA's scope in the trace's order of tables (kernels, memcpys, memsets).
std::vector<ScopedGpuEvent> hta_scoped_events(const TraceModel& m, GpuTimeRounding rounding);
// HTA's scope's events and its cut (hta_scope_cut), found in one pass over the host calls: the
// input of every analysis of the GPU time view (idle, kernels, launches, overlap, queue, idle
// gaps), which a Session builds once per rounding (Session::hta_scoped) instead of once per view.
struct HtaScoped {
  GpuTimeRounding rounding = GpuTimeRounding::kExact;
  int64_t cut = std::numeric_limits<int64_t>::max();
  std::vector<ScopedGpuEvent> events;
};
HtaScoped hta_scoped(const TraceModel& m, GpuTimeRounding rounding);
// HTA's scope's cut (the trace's row above): with two or more ProfilerStep names, the latest
// ProfilerStep start as the rounding reads it (host calls that start before it are in); else
// INT64_MAX (everything is in).
int64_t hta_scope_cut(const TraceModel& m, GpuTimeRounding rounding);
// A time as HTA loads it (kHta): a start rounded up, an end (start + duration) down, to whole µs.
int64_t hta_round_start(int64_t ts_ns);
int64_t hta_round_end(int64_t ts_ns, int64_t dur_ns);
// HTA's merge_kernel_intervals on ranges HTA rounded, an inverted one (end < start) kept as it is:
// sorted by start, a range joins the group before when it starts at or before the furthest end
// seen; a lone inverted range stays a group of negative length (HTA's -1 µs).
Ranges hta_merged_ranges(Ranges v);

}  // namespace ks
