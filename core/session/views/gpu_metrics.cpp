// The GPU metrics views' schemas and answers. gpu_metrics: core/analysis/gpu_metrics.h over the
// steps' window, a row per GPU with its utilization timeline (`kinetoscope gpus --json`, the
// Overview's chart). gpu_summary: the same figures over one step's time, or all steps', with the
// Tensor Core share of the kernels it issued (`kinetoscope gpus --step N --json`, the Overview's
// GPU summary when a step is chosen).
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/accelerator.h"
#include "core/analysis/gpu_metrics.h"
#include "core/analysis/overview.h"
#include "core/analysis/tensor_cores.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"

namespace ks {

namespace {

const ColumnSpec kDevice = {"device", ColumnType::kI32, "", "the GPU's device id"};
const ColumnSpec kUtilization = {"utilization_pct", ColumnType::kF64, "percent", "time some kernel ran on it, of the window"};
const ColumnSpec kSmEfficiency = {"sm_efficiency_pct", ColumnType::kF64, "percent",
                                  "est. SM efficiency: blocks per SM (capped at 1) weighted by duration; null when no kernel recorded blocks per SM"};
const ColumnSpec kOccupancy = {"achieved_occupancy_pct", ColumnType::kF64, "percent",
                               "est. achieved occupancy, weighted by duration; null when no kernel recorded it"};
const ParamSpec kFileParam = {"file", "the name the answer gives the file (its `file`); absent: \"\""};

std::string json_of(std::string_view s) {
  JsonWriter w;
  w.value(s);
  return w.take();
}

std::string json_of(double v) {
  JsonWriter w;
  w.value(v);
  return w.take();
}

double pct_or_null(const std::optional<double>& v, double scale) { return v ? *v * scale : std::nan(""); }

// The columns both views share, in their --json order.
void add_metric_rows(AnswerBuilder& b, const GpuMetricsResult& r) {
  AnswerColumn& device = b.add("device");
  for (const GpuMetrics& g : r.gpus) device.i32.push_back(g.device);
  AnswerColumn& util = b.add("utilization_pct");
  for (const GpuMetrics& g : r.gpus) util.f64.push_back(g.utilization * 100);
  AnswerColumn& sm = b.add("sm_efficiency_pct");
  for (const GpuMetrics& g : r.gpus) sm.f64.push_back(pct_or_null(g.sm_efficiency, 100));
  AnswerColumn& occ = b.add("achieved_occupancy_pct");
  for (const GpuMetrics& g : r.gpus) occ.f64.push_back(pct_or_null(g.occupancy_pct, 1));
}

}  // namespace

const ViewSchema kGpuMetricsSchema = {
    "gpu_metrics",
    "GpuMetrics",
    "Per GPU over the steps' window (from the first step's start to the last one's end): utilization, est. SM "
    "efficiency, est. achieved occupancy and the utilization timeline (`kinetoscope gpus --json`). Rows: the GPUs "
    "with kernels, by device id.",
    {kFileParam},
    {
        kDevice,
        kUtilization,
        kSmEfficiency,
        kOccupancy,
        {"blocks_per_sm_count", ColumnType::kCount, "count", "kernels that recorded blocks per SM"},
        {"occupancy_count", ColumnType::kCount, "count", "kernels that recorded an est. achieved occupancy"},
        {"timeline", ColumnType::kF64Pairs, "",
         "the utilization timeline: (bucket start in absolute µs, utilization 0..1) per bucket, then (window end, 0)"},
    },
    {
        {"file", "string", "the file's name (the `file` parameter)"},
        {"window_start_us", "number", "the window's start: the first step's (absolute µs)"},
        {"window_end_us", "number", "the window's end: the last step's (absolute µs)"},
        {"bucket_us", "number", "the timeline's bucket (us)"},
    },
    {"device", "utilization_pct", "sm_efficiency_pct", "achieved_occupancy_pct", "blocks_per_sm_count", "occupancy_count"},
    "gpus",
};

Answer gpu_metrics_answer(const Session& s, QueryParamsRef params) {
  const GpuMetricsResult& r = s.gpus();
  AnswerBuilder b(kGpuMetricsSchema, r.gpus.size());
  b.meta("file", json_of(param(params, "file")));
  b.meta("window_start_us", json_of(double(r.window_start_ns) / 1e3));
  b.meta("window_end_us", json_of(double(r.window_end_ns) / 1e3));
  b.meta("bucket_us", json_of(double(r.bucket_ns) / 1e3));
  b.rows_here();
  add_metric_rows(b, r);
  AnswerColumn& blocks = b.add("blocks_per_sm_count");
  for (const GpuMetrics& g : r.gpus) blocks.f64.push_back(double(g.blocks_per_sm_count));
  AnswerColumn& occupancy = b.add("occupancy_count");
  for (const GpuMetrics& g : r.gpus) occupancy.f64.push_back(double(g.occupancy_count));
  AnswerColumn& timeline = b.add("timeline");
  for (const GpuMetrics& g : r.gpus) {
    for (const auto& [t, v] : g.timeline) {
      timeline.f64.push_back(double(t) / 1e3);
      timeline.f64.push_back(v);
    }
    timeline.ends.push_back(uint32_t(timeline.f64.size() / 2));
  }
  return b.take();
}

const ViewSchema kGpuSummarySchema = {
    "gpu_summary",
    "GpuSummary",
    "The GPU summary of one step, or of all of them: per GPU the utilization, est. SM efficiency and est. achieved "
    "occupancy over the step's time (from its start to the end of its GPU work; all steps: the steps' window) and the "
    "Tensor Core share of the kernels it issued (all steps: of every kernel) (`kinetoscope gpus --step N --json`). Rows: "
    "the GPUs with kernels in that window, by device id.",
    {{"step", "a step's name as the steps view lists it; absent: all steps"}, kFileParam},
    {
        kDevice,
        kUtilization,
        kSmEfficiency,
        kOccupancy,
        {"tensor_core_pct", ColumnType::kF64, "percent", "share of its kernels' time on Tensor Cores (Matrix Cores on AMD); null without kernels"},
        {"tensor_core_unknown_pct", ColumnType::kF64, "percent",
         "share of its kernels' time in kernels whose name does not tell (Triton, ...); null without kernels"},
    },
    {
        {"file", "string", "the file's name (the `file` parameter)"},
        {"step", "string | null", "the step's name; null: all steps"},
        {"window_start_us", "number", "the window's start (absolute µs)"},
        {"window_end_us", "number", "the window's end (absolute µs)"},
        {"scope", "{ metrics: string; tensor_cores: string }", "what each figure is over, in one sentence each"},
    },
    {"device", "utilization_pct", "sm_efficiency_pct", "achieved_occupancy_pct", "tensor_core_pct", "tensor_core_unknown_pct"},
    "gpus",
};

Answer gpu_summary_answer(const Session& s, QueryParamsRef params) {
  std::optional<StepFilter> filter;
  std::string error;
  if (!s.step_filter(param(params, "step"), filter, error)) {
    return error_answer(kGpuSummarySchema, error);
  }
  const TraceModel& m = s.model();
  // One step: gpu_metrics over that step alone (as tb_plugin's own metrics, whatever the mode);
  // all steps: the Overview's.
  const std::optional<GpuMetricsResult> own =
      filter ? std::optional<GpuMetricsResult>(gpu_metrics(m, chosen_steps(s.steps(), *filter))) : std::nullopt;
  const GpuMetricsResult& r = own ? *own : s.gpus();
  const StepFilter* step = filter ? &*filter : nullptr;
  const Accelerator acc = trace_accelerator(m);
  std::vector<int> ids;
  for (const GpuMetrics& g : r.gpus) ids.push_back(g.device);
  const std::vector<TcShare> tc = tc_kernel_share_by_gpu(m, s.tb_plugin(), ids, step);
  AnswerBuilder b(kGpuSummarySchema, r.gpus.size());
  b.meta("file", json_of(param(params, "file")));
  b.meta("step", step ? json_of(step->name) : "null");
  b.meta("window_start_us", json_of(double(r.window_start_ns) / 1e3));
  b.meta("window_end_us", json_of(double(r.window_end_ns) / 1e3));
  {
    JsonWriter w;
    w.begin_object();
    w.key("metrics").value(step ? "over step " + step->name + "'s time (from its start to the end of its GPU work)"
                                : std::string("over the steps' time (from the first step's start to the last one's end)"));
    w.key("tensor_cores").value(step ? gpu_all_kernels_tc_step_scope(acc, step->name) : gpu_all_kernels_tc_scope(acc));
    w.end_object();
    b.meta("scope", w.take());
  }
  b.rows_here();
  add_metric_rows(b, r);
  AnswerColumn& share = b.add("tensor_core_pct");
  for (const TcShare& t : tc) share.f64.push_back(pct_or_null(t.ratio(), 100));
  AnswerColumn& unknown = b.add("tensor_core_unknown_pct");
  for (const TcShare& t : tc) unknown.f64.push_back(pct_or_null(t.unknown_ratio(), 100));
  return b.take();
}

}  // namespace ks
