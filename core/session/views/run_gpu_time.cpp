// The GPU time view's run-level part as an answer (issue 24 §1, "per rank on the run page"): per
// span of a run, a row per rank for its trace and one per step of it, with HTA's temporal
// breakdown and (on the trace's row) HTA's communication/computation overlap — the numbers
// `kinetoscope gpu-time --json` prints for each rank's trace, read from the rank summaries (they
// carry them, run_gpu_time.h), so a run of thousands of ranks is listed without its traces. It is
// the reduce's fifth answer beside the Distributed view's four (distributed_run_answers), printed
// by `kinetoscope distributed --gpu-time --json` and written by kinetoscope-fleet into the run
// file beside "distributed" (which stays exactly `distributed --json`).
#include <cmath>
#include <map>
#include <string>

#include "core/analysis/distributed.h"
#include "core/analysis/run_gpu_time.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"
#include "simdjson.h"

namespace ks {

const ViewSchema kRunGpuTimeSchema = {
    "distributed_gpu_time",
    "DistributedGpuTime",
    "A run's GPU time per rank, one answer per span of the run (`kinetoscope distributed --gpu-time --json`, one line per "
    "span; a run file's \"gpu_time\"): for each worker of the span, in the Distributed view's order, its trace's row (HTA's "
    "scope) then one row per step, with the idle, compute and non-compute time and shares of `kinetoscope gpu-time` on "
    "that trace, and on the trace's row HTA's communication/computation overlap. A worker whose summary has no GPU time "
    "(written by an older kinetoscope) or whose trace has no GPU work has one row with null times.",
    {},
    {
        {"worker", ColumnType::kString, "", "the worker name (from the file name)"},
        {"rank", ColumnType::kI32, "", "its declared rank; null absent"},
        {"scope", ColumnType::kString, "", "trace: the trace's row (HTA's scope); step: one step's window"},
        {"step", ColumnType::kString, "", "the step's name; null in the trace's row"},
        {"status", ColumnType::kString, "",
         "ok; no_gpu_work: the trace has no GPU work (times null); no_summary: its summary carries no GPU time (times null)"},
        {"step_us", ColumnType::kF64, "us", "the step's window (its step time); null in the trace's row"},
        {"span_us", ColumnType::kF64, "us", "from the first GPU event's start to the last one's end; null: no GPU work"},
        {"idle_us", ColumnType::kF64, "us", "the span less the union of all the GPU work"},
        {"compute_us", ColumnType::kF64, "us", "the union of the computation kernels"},
        {"non_compute_us", ColumnType::kF64, "us", "the union of the communication, memory and sync work less compute"},
        {"idle_pct", ColumnType::kF64, "percent", "idle time's share of the span"},
        {"compute_pct", ColumnType::kF64, "percent", "compute time's share of the span"},
        {"non_compute_pct", ColumnType::kF64, "percent", "non-compute time's share of the span"},
        {"events", ColumnType::kCount, "count", "GPU events in the row (a step's: those that start in it)"},
        {"span_start_us", ColumnType::kF64, "us", "the span's start, from the trace's start"},
        {"span_end_us", ColumnType::kF64, "us", "the span's end, from the trace's start"},
        {"comm_comp_overlap_pct", ColumnType::kF64, "percent",
         "HTA's communication/computation overlap of the trace (trace rows); null without communication kernels, and on step rows"},
    },
    {
        {"span", "string", "the span key: \"default\" or 1..n"},
        {"ranks", "number", "workers in the span"},
        {"without_gpu_time", "number", "workers whose summary carries no GPU time (status no_summary)"},
    },
    {"worker", "rank", "scope", "step", "status", "step_us", "span_us", "idle_us", "compute_us", "non_compute_us", "idle_pct",
     "compute_pct", "non_compute_pct", "events", "span_start_us", "span_end_us", "comm_comp_overlap_pct"},
};

Answer run_gpu_time_session_answer(const Session&, QueryParamsRef) {
  return error_answer(kRunGpuTimeSchema,
                      "the run's GPU time is a run's: it reduces the rank summaries (distributed_rank) of the run's traces");
}

namespace {

void write_breakdown(JsonWriter& w, const TemporalBreakdown& t, int64_t origin) {
  w.key("has_work").value(t.has_work).key("span_start_ns").value(t.span_start_ns - origin);
  w.key("span_end_ns").value(t.span_end_ns - origin).key("idle_ns").value(t.idle_ns).key("compute_ns").value(t.compute_ns);
  w.key("non_compute_ns").value(t.non_compute_ns).key("events").value(t.events);
}

namespace dom = simdjson::dom;

bool read_breakdown(dom::object o, int64_t origin, TemporalBreakdown& t) {
  int64_t start = 0, end = 0;
  uint64_t events = 0;
  if (o["has_work"].get_bool().get(t.has_work) || o["span_start_ns"].get_int64().get(start) ||
      o["span_end_ns"].get_int64().get(end) || o["idle_ns"].get_int64().get(t.idle_ns) ||
      o["compute_ns"].get_int64().get(t.compute_ns) || o["non_compute_ns"].get_int64().get(t.non_compute_ns) ||
      o["events"].get_uint64().get(events))
    return false;
  t.span_start_ns = origin + start;
  t.span_end_ns = origin + end;
  t.events = events;
  return true;
}

}  // namespace

std::string rank_gpu_time_json(const RankGpuTime& g) {
  JsonWriter w;
  if (!g.present) {
    w.null();
    return w.take();
  }
  const int64_t o = g.origin_ns;
  w.begin_object().key("any_work").value(g.any_work).key("overall").begin_object();
  write_breakdown(w, g.overall, o);
  w.end_object().key("steps").begin_array();
  for (const StepTemporalBreakdown& s : g.steps) {
    w.begin_object().key("step").value(s.step).key("step_start_ns").value(s.step_start_ns - o);
    w.key("step_end_ns").value(s.step_end_ns - o);
    write_breakdown(w, s.t, o);
    w.end_object();
  }
  w.end_array().key("overlap").begin_object();
  w.key("communication_kernels").value(g.overlap.communication_kernels).key("computation_kernels").value(g.overlap.computation_kernels);
  w.key("communication_ns").value(g.overlap.communication_ns).key("computation_ns").value(g.overlap.computation_ns);
  w.key("overlap_ns").value(g.overlap.overlap_ns).end_object().end_object();
  return w.take();
}

bool rank_gpu_time_from_json(std::string_view json, int64_t origin, RankGpuTime& g, std::string& error) {
  g = RankGpuTime{};
  dom::parser parser;
  dom::element doc;
  const simdjson::padded_string text(json);
  if (parser.parse(text).get(doc)) {
    error = "a rank summary whose GPU time is not JSON";
    return false;
  }
  if (doc.is_null()) return true;  // a summary without GPU time: nothing to read
  dom::object o, overall, ov;
  dom::array steps;
  bool ok = !doc.get_object().get(o) && !o["any_work"].get_bool().get(g.any_work) && !o["overall"].get_object().get(overall) &&
            read_breakdown(overall, origin, g.overall) && !o["steps"].get_array().get(steps) &&
            !o["overlap"].get_object().get(ov) &&
            !ov["communication_kernels"].get_uint64().get(g.overlap.communication_kernels) &&
            !ov["computation_kernels"].get_uint64().get(g.overlap.computation_kernels) &&
            !ov["communication_ns"].get_int64().get(g.overlap.communication_ns) &&
            !ov["computation_ns"].get_int64().get(g.overlap.computation_ns) &&
            !ov["overlap_ns"].get_int64().get(g.overlap.overlap_ns);
  if (ok)
    for (dom::element e : steps) {
      dom::object s;
      StepTemporalBreakdown st;
      std::string_view name;
      int64_t start = 0, end = 0;
      ok = ok && !e.get_object().get(s) && !s["step"].get_string().get(name) && !s["step_start_ns"].get_int64().get(start) &&
           !s["step_end_ns"].get_int64().get(end) && read_breakdown(s, origin, st.t);
      if (!ok) break;
      st.step = std::string(name);
      st.step_start_ns = origin + start;
      st.step_end_ns = origin + end;
      g.steps.push_back(std::move(st));
    }
  if (!ok) {
    error = "a rank summary with a missing or mistyped GPU time field";
    g = RankGpuTime{};
    return false;
  }
  g.present = true;
  g.origin_ns = origin;
  return true;
}

Answer run_gpu_time_answer(const DistributedSpan& span, const std::vector<RankSummary>& ranks) {
  // The span's workers are the reduce's: each found among the summaries by its worker and span.
  std::map<std::pair<std::string, std::string>, const RankSummary*> by_name;
  for (const RankSummary& r : ranks) by_name.emplace(std::make_pair(r.worker, r.span), &r);
  struct Row {
    const DistWorker* w;
    const RankGpuTime* g;
    const StepTemporalBreakdown* step;  // null: the trace's row
  };
  std::vector<Row> rows;
  size_t without = 0;
  for (const DistWorker& w : span.workers) {
    const auto it = by_name.find({w.worker, w.span});
    const RankGpuTime* g = it == by_name.end() ? nullptr : &it->second->gpu_time;
    if (!g || !g->present) ++without;
    rows.push_back({&w, g, nullptr});
    if (g && g->present && g->any_work)
      for (const StepTemporalBreakdown& st : g->steps) rows.push_back({&w, g, &st});
  }
  AnswerBuilder b(kRunGpuTimeSchema, rows.size());
  {
    JsonWriter w;
    w.value(span.span);
    b.meta("span", w.take());
  }
  b.meta("ranks", std::to_string(span.workers.size()));
  b.meta("without_gpu_time", std::to_string(without));
  b.rows_here();
  auto ok = [](const Row& r) { return r.g && r.g->present && r.g->any_work; };
  auto breakdown = [](const Row& r) -> const TemporalBreakdown& { return r.step ? r.step->t : r.g->overall; };
  AnswerColumn& worker = b.add("worker");
  AnswerColumn& rank = b.add("rank");
  AnswerColumn& scope = b.add("scope");
  AnswerColumn& step = b.add("step");
  AnswerColumn& status = b.add("status");
  for (const Row& r : rows) {
    worker.str.push_back(b.intern(r.w->worker));
    rank.i32.push_back(r.w->rank < 0 || r.w->rank > INT32_MAX ? kNullI32 : int32_t(r.w->rank));
    scope.str.push_back(b.intern(r.step ? "step" : "trace"));
    step.str.push_back(r.step ? b.intern(r.step->step) : kNullString);
    status.str.push_back(b.intern(!r.g || !r.g->present ? "no_summary" : !r.g->any_work ? "no_gpu_work" : "ok"));
  }
  AnswerColumn& step_us = b.add("step_us");
  for (const Row& r : rows) step_us.f64.push_back(r.step ? double(r.step->step_end_ns - r.step->step_start_ns) / 1e3 : std::nan(""));
  // The gpu-time view's own columns (add_temporal_breakdown_columns), so the numbers are equal.
  std::vector<const TemporalBreakdown*> t;
  std::vector<double> events;
  std::vector<int64_t> origin;
  for (const Row& r : rows) {
    t.push_back(ok(r) ? &breakdown(r) : nullptr);
    events.push_back(ok(r) ? double(breakdown(r).events) : r.g && r.g->present ? 0.0 : std::nan(""));
    origin.push_back(r.g ? r.g->origin_ns : 0);
  }
  add_temporal_breakdown_columns(b, t, events, origin);
  AnswerColumn& overlap = b.add("comm_comp_overlap_pct");
  for (const Row& r : rows)
    overlap.f64.push_back(!r.step && r.g && r.g->present && r.g->overlap.has_communication() ? r.g->overlap.pct() : std::nan(""));
  return b.take();
}

std::string distributed_run_gpu_time_json(const DistributedRunAnswers& run) {
  if (!run.error.empty()) return error_json(run.error) + "\n";
  std::string out;
  for (const DistributedSpanAnswers& s : run.spans) out += answer_json(s.gpu_time) + "\n";
  return out;
}

}  // namespace ks
