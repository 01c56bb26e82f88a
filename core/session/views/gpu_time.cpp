// The GPU time view's schema and answer: core/analysis/gpu_time.h's temporal breakdown as
// columns, the trace's row first, then one row per step.
#include <cmath>
#include <string>

#include "core/analysis/gpu_time.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"
#include "core/session/views/gpu_shared.h"

namespace ks {

const ViewSchema kGpuTimeSchema = {
    "gpu-time",
    "GpuTime",
    "How the GPU spent the span of its work, as Holistic Trace Analysis's temporal breakdown: idle, compute and "
    "non-compute time (communication, copies and syncs not under computation) and their shares of the span, for the trace "
    "(HTA's scope: with two or more steps, the work launched before the last one) and for each step (`kinetoscope gpu-time "
    "--json`). Rows: the trace's, then the steps in order; none when the trace has no GPU work.",
    {{"rounding",
      "ns (default): times as the trace gives them; hta: as HTA loads a trace (µs read as doubles, start rounded up and "
      "end down, an event that inverts counted as -1 µs in the trace's row), to compare with HTA's own numbers"}},
    {
        {"scope", ColumnType::kString, "", "trace: the trace's row (HTA's scope); step: one step's window"},
        {"step", ColumnType::kString, "", "the step's name as the steps view lists it; null in the trace's row"},
        {"span_us", ColumnType::kF64, "us", "from the first GPU event's start to the last one's end (HTA's kernel_time); null: no GPU work"},
        {"idle_us", ColumnType::kF64, "us", "the span less the union of all the GPU work"},
        {"compute_us", ColumnType::kF64, "us", "the union of the computation kernels"},
        {"non_compute_us", ColumnType::kF64, "us", "the union of the communication, memory and sync work less compute"},
        {"idle_pct", ColumnType::kF64, "percent", "idle time's share of the span"},
        {"compute_pct", ColumnType::kF64, "percent", "compute time's share of the span"},
        {"non_compute_pct", ColumnType::kF64, "percent", "non-compute time's share of the span"},
        {"events", ColumnType::kCount, "count", "GPU events in the row (a step's: those that start in it)"},
        {"span_start_us", ColumnType::kF64, "us", "the span's start, from the trace's start"},
        {"span_end_us", ColumnType::kF64, "us", "the span's end, from the trace's start"},
    },
    {
        {"rank", "number | null", "the trace's rank (distributedInfo), null when it names none"},
        {"rounding", "'ns' | 'hta'", "how times were read (the rounding parameter)"},
        {"last_step_left_out", "boolean",
         "the trace's row leaves out the last step, as HTA does by default (two or more ProfilerStep ranges)"},
        {"last_step_start_us", "number | null",
         "then: the cut, from the trace's start (work launched from host calls that start before it is in the trace's row)"},
        {"events", "{ computation: number; communication: number; memory: number; sync: number }",
         "GPU events of the whole trace by kind"},
        {"events_in_scope", "{ computation: number; communication: number; memory: number; sync: number }",
         "GPU events of the trace's row by kind"},
        {"negative_when_rounded", "number",
         "GPU events of the trace's row that HTA's µs rounding gives a negative duration (sub-µs events within one µs; HTA's "
         "temporal breakdown fails when they leave its non-compute time below 0)"},
        {"note", "string | null", "why there are no rows (no GPU work), else null"},
    },
    {"scope", "step", "span_us", "idle_us", "compute_us", "non_compute_us", "idle_pct", "compute_pct", "non_compute_pct",
     "events", "span_start_us", "span_end_us"},
};

namespace {

std::string kinds_json(const std::array<uint64_t, kGpuWorkKinds>& n) {
  JsonWriter w;
  w.begin_object();
  for (size_t k = 0; k < kGpuWorkKinds; ++k) w.key(gpu_work_kind_name(GpuWorkKind(k))).value(n[k]);
  w.end_object();
  return w.take();
}

}  // namespace

const GpuTimeResult& shared_gpu_time(const Session& s, const GpuTimeOptions& o) {
  return s.shared<GpuTimeResult>("gpu-time", gpu_time_rounding_word(o.rounding), [&] { return gpu_time(s.model(), s.steps(), o); });
}

Answer gpu_time_answer(const Session& s, QueryParamsRef params) {
  GpuTimeOptions o;
  const std::string_view rounding = param(params, "rounding", "ns");
  if (!parse_gpu_time_rounding(rounding, o.rounding)) return error_answer(kGpuTimeSchema, "unknown rounding: " + std::string(rounding) + " (ns or hta)");
  const TraceModel& m = s.model();
  const GpuTimeResult& r = shared_gpu_time(s, o);
  uint64_t total = 0;
  for (uint64_t n : r.events) total += n;
  const bool any = total > 0;
  const size_t rows = any ? 1 + r.steps.size() : 0;
  AnswerBuilder b(kGpuTimeSchema, rows);
  auto us = [&](int64_t t) { return double(t - m.start_ns) / 1e3; };
  b.meta("rank", m.distributed.present && m.distributed.rank >= 0 ? std::to_string(m.distributed.rank) : "null");
  {
    JsonWriter w;
    w.value(gpu_time_rounding_word(r.rounding));
    b.meta("rounding", w.take());
  }
  b.meta("last_step_left_out", r.last_step_left_out ? "true" : "false");
  {
    JsonWriter w;
    if (r.last_step_left_out) w.value(us(r.last_step_start_ns));
    else w.null();
    b.meta("last_step_start_us", w.take());
  }
  b.meta("events", kinds_json(r.events));
  b.meta("events_in_scope", kinds_json(r.events_in_scope));
  b.meta("negative_when_rounded", std::to_string(r.negative_when_rounded));
  {
    JsonWriter w;
    if (any) w.null();
    else
      w.value("The trace has no GPU work on a stream (no kernel, memcpy, memset or CUDA sync event): there is no GPU time to "
              "break down.");
    b.meta("note", w.take());
  }
  b.rows_here();
  if (!any) return b.take();
  // The rows: the trace's, then each step's.
  std::vector<const TemporalBreakdown*> t{&r.overall};
  for (const StepTemporalBreakdown& st : r.steps) t.push_back(&st.t);
  AnswerColumn& scope = b.add("scope");
  AnswerColumn& step = b.add("step");
  scope.str.push_back(b.intern("trace"));
  step.str.push_back(kNullString);
  for (const StepTemporalBreakdown& st : r.steps) {
    scope.str.push_back(b.intern("step"));
    step.str.push_back(b.intern(st.step));
  }
  std::vector<double> events;
  for (const TemporalBreakdown* x : t) events.push_back(double(x->events));
  add_temporal_breakdown_columns(b, t, events, std::vector<int64_t>(t.size(), m.start_ns));
  return b.take();
}

void add_temporal_breakdown_columns(AnswerBuilder& b, const std::vector<const TemporalBreakdown*>& t,
                                    const std::vector<double>& events, const std::vector<int64_t>& origin_ns) {
  // A row without GPU work (a step that launched none) has no span: its times and shares are null.
  auto has = [&](size_t i) { return t[i] && t[i]->has_work; };
  auto number = [&](std::string_view col, auto value) {
    AnswerColumn& c = b.add(col);
    for (size_t i = 0; i < t.size(); ++i) c.f64.push_back(has(i) ? double(value(*t[i], origin_ns[i])) : std::nan(""));
  };
  auto pct = [&](std::string_view col, auto part) {
    AnswerColumn& c = b.add(col);
    for (size_t i = 0; i < t.size(); ++i)
      c.f64.push_back(has(i) && t[i]->span_ns() > 0 ? 100.0 * double(part(*t[i])) / double(t[i]->span_ns()) : std::nan(""));
  };
  number("span_us", [](const TemporalBreakdown& x, int64_t) { return double(x.span_ns()) / 1e3; });
  number("idle_us", [](const TemporalBreakdown& x, int64_t) { return double(x.idle_ns) / 1e3; });
  number("compute_us", [](const TemporalBreakdown& x, int64_t) { return double(x.compute_ns) / 1e3; });
  number("non_compute_us", [](const TemporalBreakdown& x, int64_t) { return double(x.non_compute_ns) / 1e3; });
  pct("idle_pct", [](const TemporalBreakdown& x) { return x.idle_ns; });
  pct("compute_pct", [](const TemporalBreakdown& x) { return x.compute_ns; });
  pct("non_compute_pct", [](const TemporalBreakdown& x) { return x.non_compute_ns; });
  AnswerColumn& ev = b.add("events");
  ev.f64.insert(ev.f64.end(), events.begin(), events.end());
  number("span_start_us", [](const TemporalBreakdown& x, int64_t origin) { return double(x.span_start_ns - origin) / 1e3; });
  number("span_end_us", [](const TemporalBreakdown& x, int64_t origin) { return double(x.span_end_ns - origin) / 1e3; });
}

}  // namespace ks
