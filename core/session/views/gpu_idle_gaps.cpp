// The GPU time view's largest idle gaps (core/analysis/gpu_idle_gaps.h) as an answer: per stream
// the N longest gaps with their category, the GPU event after each, its runtime call and the
// operator that made it.
#include <cmath>
#include <string>

#include "core/analysis/gpu_idle_gaps.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

const ViewSchema kGpuIdleGapsSchema = {
    "gpu-idle-gaps",
    "GpuIdleGaps",
    "The longest idle gaps of each stream, as the idle time breakdown (gpu-idle) reads and classifies them: each gap's start "
    "and length, its category, the GPU event after it, the runtime call that launched that event (by correlation id) and "
    "the operator that made the call (`kinetoscope gpu-time --json`'s idle_gaps). Rows: per stream (gpu-idle's order) its "
    "gaps, longest first.",
    {
        {"rounding", "as gpu-idle's: ns (default) or hta"},
        {"kernel_wait_us", "as gpu-idle's: the kernel wait threshold, default 30"},
        {"gaps", "how many gaps of each stream, the longest; default 20"},
    },
    {
        {"stream", ColumnType::kCount, "", "the CUDA stream"},
        {"start_us", ColumnType::kF64, "us", "the gap's start (the previous event's end), from the trace's start"},
        {"gap_us", ColumnType::kF64, "us", "its length"},
        {"category", ColumnType::kString, "", "host_wait, kernel_wait or other (gpu-idle's rule)"},
        {"event", ColumnType::kString, "", "the kernel, memcpy or memset after the gap"},
        {"event_start_us", ColumnType::kF64, "us", "its start, from the trace's start"},
        {"launch", ColumnType::kString, "", "the runtime (or driver) call that launched it; null when none is recorded"},
        {"launch_us", ColumnType::kF64, "us", "that call's start, from the trace's start; null without one"},
        {"operator", ColumnType::kString, "", "the operator that made the call (the innermost around it); null when none"},
    },
    {
        {"gaps", "number", "the gaps asked for per stream"},
        {"streams", "number", "streams with GPU work"},
        {"note", "string | null", "why there are no rows (no GPU work), else null"},
    },
    {"stream", "start_us", "gap_us", "category", "event", "event_start_us", "launch", "launch_us", "operator"},
    "idle_gaps",
};

Answer gpu_idle_gaps_answer(const Session& s, QueryParamsRef params) {
  GpuIdleOptions o;
  const std::string_view rounding = param(params, "rounding", "ns");
  if (!parse_gpu_time_rounding(rounding, o.rounding))
    return error_answer(kGpuIdleGapsSchema, "unknown rounding: " + std::string(rounding) + " (ns or hta)");
  const std::string_view wait = param(params, "kernel_wait_us", "30");
  const std::optional<int64_t> ns = parse_us_to_ns(wait);
  if (!ns || *ns < 0) return error_answer(kGpuIdleGapsSchema, "kernel_wait_us is not a number of µs of 0 or more: " + std::string(wait));
  o.kernel_wait_ns = *ns;
  const std::string_view n_text = param(params, "gaps", "20");
  const std::optional<int64_t> n = parse_int(n_text);
  if (!n || *n < 1) return error_answer(kGpuIdleGapsSchema, "gaps is not a whole number of 1 or more: " + std::string(n_text));
  const TraceModel& m = s.model();
  const OpTree& t = s.tree();
  const IdleGapsResult r = gpu_idle_gaps(m, s.hta_scoped(o.rounding), t, o, size_t(*n));
  AnswerBuilder b(kGpuIdleGapsSchema, r.gaps.size());
  b.meta("gaps", std::to_string(*n));
  b.meta("streams", std::to_string(r.streams));
  {
    JsonWriter w;
    if (r.streams) w.null();
    else w.value("The trace has no GPU work on a stream (no kernel, memcpy or memset): the GPU has no idle gaps.");
    b.meta("note", w.take());
  }
  b.rows_here();
  auto us = [&](int64_t ns) { return double(ns - m.start_ns) / 1e3; };
  AnswerColumn& stream = b.add("stream");
  AnswerColumn& start = b.add("start_us");
  AnswerColumn& gap = b.add("gap_us");
  AnswerColumn& category = b.add("category");
  AnswerColumn& event = b.add("event");
  AnswerColumn& event_start = b.add("event_start_us");
  AnswerColumn& launch = b.add("launch");
  AnswerColumn& launch_us = b.add("launch_us");
  AnswerColumn& op = b.add("operator");
  for (const IdleGapRow& g : r.gaps) {
    stream.f64.push_back(double(g.stream));
    start.f64.push_back(us(g.start_ns));
    gap.f64.push_back(double(g.gap_ns) / 1e3);
    category.str.push_back(b.intern(idle_category_name(g.category)));
    event.str.push_back(b.intern(m.strings.get(g.event)));
    event_start.f64.push_back(us(g.event_start_ns));
    const bool launched = g.launch_ns != kNoLaunch;
    launch.str.push_back(launched ? b.intern(m.strings.get(g.launch_name)) : kNullString);
    launch_us.f64.push_back(launched ? us(g.launch_ns) : std::nan(""));
    op.str.push_back(g.op_node >= 0 ? b.intern(m.strings.get(node_slice(m, t.nodes[size_t(g.op_node)]).name)) : kNullString);
  }
  return b.take();
}

}  // namespace ks
