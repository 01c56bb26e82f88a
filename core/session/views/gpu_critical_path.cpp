// The GPU time view's critical path (core/analysis/critical_path.h) as an answer: the path's parts
// in order as rows, its total and its breakdown by bound in the metadata. `kinetoscope gpu-time
// --json` prints the whole answer as its critical_path object.
#include <cmath>
#include <string>

#include "core/analysis/critical_path.h"
#include "core/analysis/step_scope.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/session/views/gpu_shared.h"
#include "core/util/json_writer.h"

namespace ks {

const ViewSchema kGpuCriticalPathSchema = {
    "gpu-critical-path",
    "GpuCriticalPath",
    "The chain of host operators, launches, GPU events and synchronizations that bounds a step, as Holistic Trace Analysis's "
    "critical path analysis: the longest path of a graph of the step's host ranges (nested per thread), the GPU work they "
    "launched (launch edges, kernel-to-kernel edges on a stream) and the CUDA syncs that make the host wait (sync edges), "
    "with its total and its time by what bounds it (`kinetoscope gpu-time --json`'s critical_path). Rows: the path's parts "
    "in order.",
    {{"step", "the step's name as the steps view lists it; default the first step (HTA's default instance); without ProfilerStep ranges, the whole trace"}},
    {
        {"bound", ColumnType::kString, "", "cpu, launch_overhead, gpu_compute, gpu_comm, kernel_kernel, data_loading, or sync (a GPU event the host waited for: 0 µs)"},
        {"name", ColumnType::kString, "", "the host range or GPU event (a launch delay: the event launched; a kernel-kernel gap: the event after it; a sync: the call that waited, or the GPU event that waited on a CUDA event)"},
        {"stream", ColumnType::kF64, "", "the GPU stream (a sync: the one waited for); null on the host"},
        {"start_us", ColumnType::kF64, "us", "the part's start, from the trace's start"},
        {"end_us", ColumnType::kF64, "us", "its end"},
        {"time_us", ColumnType::kF64, "us", "the time it adds to the path"},
        {"pct", ColumnType::kF64, "percent", "its share of the path's total"},
    },
    {
        {"step", "string | null", "the step whose path it is; null without ProfilerStep ranges (the whole trace's path)"},
        {"step_start_us", "number | null", "the step's range as recorded (the whole trace's host span without steps), from the trace's start"},
        {"step_end_us", "number | null", "its end"},
        {"total_us", "number | null", "the path's length; null without a host range"},
        {"by_bound",
         "{ cpu_us: number; launch_overhead_us: number; gpu_compute_us: number; gpu_comm_us: number; kernel_kernel_us: number; data_loading_us: number } | null",
         "the path's time by what bounds it (they add up to total_us); null without a host range"},
        {"gpu_events", "number", "GPU events launched in the step (in the graph)"},
        {"sync_edges", "number", "GPU-to-host sync edges in the graph"},
        {"wait_edges", "number", "GPU-to-GPU event-wait edges in the graph (a cudaStreamWaitEvent whose sync event says what it waits on)"},
        {"negative_edges", "number", "edges whose time was negative (a range ending after its parent), counted 0"},
        {"note", "string | null", "why there is no path (no host range), that it is the whole trace's (no steps), or what it lacks (no GPU work, no CUDA sync events); else null"},
    },
    {"bound", "name", "stream", "start_us", "end_us", "time_us", "pct"},
    "path",
    "",
    false,
    "critical_path",
};

const CriticalPathResult& shared_critical_path(const Session& s, size_t index) {
  return s.shared<CriticalPathResult>("gpu-critical-path", std::to_string(index), [&] { return critical_path(s.model(), s.steps(), index); });
}

Answer gpu_critical_path_answer(const Session& s, QueryParamsRef params) {
  const TraceModel& m = s.model();
  const StepsResult& steps = s.steps();
  const std::string_view name = param(params, "step");
  size_t index = 0;
  if (!name.empty()) {
    index = SIZE_MAX;
    for (size_t i = 0; i < steps.steps.size() && steps.from_profiler_steps; ++i)
      if (steps.steps[i].name == name && !steps.steps[i].on_gpu_stream) {
        index = i;
        break;
      }
    if (index == SIZE_MAX) return error_answer(kGpuCriticalPathSchema, unknown_step_message(steps, name));
  }
  const CriticalPathResult& r = shared_critical_path(s, index);
  AnswerBuilder b(kGpuCriticalPathSchema, r.path.size());
  auto us = [&](int64_t ns) { return double(ns - m.start_ns) / 1e3; };
  {
    JsonWriter w;
    if (r.has_step && !r.whole_trace) w.value(steps.steps[r.step_index].name);
    else w.null();
    b.meta("step", w.take());
  }
  auto number_or_null = [&](const char* key, bool has, double v) {
    JsonWriter w;
    if (has) w.value(v);
    else w.null();
    b.meta(key, w.take());
  };
  number_or_null("step_start_us", r.has_step, us(r.window_start_ns));
  number_or_null("step_end_us", r.has_step, us(r.window_end_ns));
  number_or_null("total_us", r.has_step, double(r.total_ns) / 1e3);
  {
    JsonWriter w;
    if (!r.has_step) {
      w.null();
    } else {
      w.begin_object();
      for (size_t k = 0; k < kPathBounds; ++k)
        w.key(std::string(path_bound_name(PathBound(k))) + "_us").value(double(r.by_bound[k]) / 1e3);
      w.end_object();
    }
    b.meta("by_bound", w.take());
  }
  b.meta("gpu_events", std::to_string(r.gpu_events));
  b.meta("sync_edges", std::to_string(r.sync_edges));
  b.meta("wait_edges", std::to_string(r.wait_edges));
  b.meta("negative_edges", std::to_string(r.negative_edges));
  {
    JsonWriter w;
    if (!r.has_step)
      w.value("The trace has no host range (no operator or runtime call): there is no path to follow.");
    else if (r.whole_trace)
      w.value("The trace has no ProfilerStep range: the path covers the whole trace, from its first host range to its last.");
    else if (!r.gpu_events)
      w.value("The step launched no GPU work: its critical path is the host's alone.");
    else if (!r.sync_edges)
      w.value("The step has no CUDA sync event the host waited on (PyTorch 2.1+ records them with experimental_config=_ExperimentalConfig(enable_cuda_sync_events=True)): the path cannot go from the GPU back to the host.");
    else
      w.null();
    b.meta("note", w.take());
  }
  b.rows_here();
  AnswerColumn& bound = b.add("bound");
  AnswerColumn& label = b.add("name");
  AnswerColumn& stream = b.add("stream");
  AnswerColumn& start = b.add("start_us");
  AnswerColumn& end = b.add("end_us");
  AnswerColumn& time = b.add("time_us");
  AnswerColumn& pct = b.add("pct");
  for (const PathSegment& p : r.path) {
    bound.str.push_back(b.intern(path_bound_name(p.bound)));
    label.str.push_back(b.intern(m.strings.get(p.name)));
    stream.f64.push_back(p.stream >= 0 ? double(p.stream) : std::nan(""));
    start.f64.push_back(us(p.start_ns));
    end.f64.push_back(us(p.end_ns));
    time.f64.push_back(double(p.time_ns) / 1e3);
    pct.f64.push_back(r.total_ns > 0 ? 100.0 * double(p.time_ns) / double(r.total_ns) : std::nan(""));
  }
  return b.take();
}

}  // namespace ks
