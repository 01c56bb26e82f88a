// The GPU time view's recommendations (core/analysis/gpu_recommendations.h) as an answer, each row
// naming the view that holds its evidence. Asked with the same parameters as those views, it reads
// the same numbers they show.
#include <string>

#include "core/analysis/gpu_queue.h"
#include "core/analysis/gpu_recommendations.h"
#include "core/analysis/gpu_time.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/session/views/gpu_shared.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

const ViewSchema kGpuRecommendationsSchema = {
    "gpu-recommendations",
    "GpuRecommendations",
    "What the GPU time analyses recommend, each linked to its evidence: host-bound streams (host wait at least half of a "
    "stream's idle time and a tenth of the GPU's span; gpu-idle), streams at the queue limit (at CUDA's 1024 queued launches "
    "for at least a tenth of the span from their first launch to their last GPU event's start; gpu-queue), a launch-bound step (CPU, launch overhead and data "
    "loading at least half of its critical path; gpu-critical-path), fusion candidates (a repeated kernel sequence whose "
    "events average under 10 µs; gpu-kernel-sequences) (`kinetoscope gpu-time --json`'s recommendations). Rows: in that "
    "order.",
    {
        {"rounding", "as gpu-idle's"},
        {"kernel_wait_us", "as gpu-idle's"},
        {"step", "as gpu-critical-path's"},
        {"operator", "as gpu-kernel-sequences'"},
        {"min_kernels", "as gpu-kernel-sequences'"},
        {"top", "as gpu-kernel-sequences'"},
    },
    {
        {"kind", ColumnType::kString, "", "host_bound_stream, queue_limit_stream, launch_bound_step or fusion_candidate"},
        {"subject", ColumnType::kString, "", "the stream, step or operator it is about"},
        {"evidence", ColumnType::kString, "", "the view that shows the numbers: gpu-idle, gpu-queue, gpu-critical-path or gpu-kernel-sequences"},
        {"text", ColumnType::kString, "", "what it says, with the numbers"},
        {"value", ColumnType::kF64, "", "the share behind it (0-1), or a fusion candidate's count"},
    },
    {{"note", "string | null", "why there is nothing to recommend, else null"}},
    {"kind", "subject", "evidence", "text", "value"},
    "recommendations",
};

Answer gpu_recommendations_answer(const Session& s, QueryParamsRef params) {
  // The evidence views' own answers first: a bad parameter is theirs to name.
  for (std::string_view v : {"gpu-idle", "gpu-critical-path", "gpu-kernel-sequences"}) {
    const Answer a = s.query(v, params);
    if (!a.error.empty()) return error_answer(kGpuRecommendationsSchema, a.error);
  }
  const TraceModel& m = s.model();
  GpuIdleOptions io;
  parse_gpu_time_rounding(param(params, "rounding", "ns"), io.rounding);
  io.kernel_wait_ns = parse_us_to_ns(param(params, "kernel_wait_us", "30")).value_or(30000);
  const GpuIdleResult& idle = shared_gpu_idle(s, io);
  GpuTimeOptions to;
  to.rounding = io.rounding;
  const GpuTimeResult& time = shared_gpu_time(s, to);
  const StepsResult& steps = s.steps();
  size_t index = 0;
  const std::string_view name = param(params, "step");
  for (size_t i = 0; !name.empty() && i < steps.steps.size(); ++i)
    if (steps.steps[i].name == name && !steps.steps[i].on_gpu_stream) {
      index = i;
      break;
    }
  const CriticalPathResult& path = shared_critical_path(s, index);
  KernelSequenceOptions ko;
  ko.operator_filter = std::string(param(params, "operator", "aten::"));
  ko.min_kernels = size_t(parse_int(param(params, "min_kernels", "3")).value_or(3));
  ko.top = size_t(parse_int(param(params, "top", "10")).value_or(10));
  const KernelSequencesResult& seq = shared_kernel_sequences(s, ko);
  // The queue length as gpu-queue answers it with the same rounding (one computation, Session::shared).
  GpuQueueOptions qo;
  qo.rounding = io.rounding;
  const GpuQueueResult& queue = shared_gpu_queue(s, qo);
  const std::vector<GpuRecommendation> recs = gpu_recommendations(
      m, idle, time.overall.has_work ? time.overall.span_ns() : 0, path, path.has_step && !path.whole_trace ? steps.steps[path.step_index].name : "", seq,
      &queue);
  AnswerBuilder b(kGpuRecommendationsSchema, recs.size());
  {
    JsonWriter w;
    if (!recs.empty()) w.null();
    else w.value("Nothing to recommend: no stream waits mostly on the host or sits at the queue limit, the step's critical path is not mostly the host's, and no short kernel sequence repeats.");
    b.meta("note", w.take());
  }
  b.rows_here();
  AnswerColumn& kind = b.add("kind");
  AnswerColumn& subject = b.add("subject");
  AnswerColumn& evidence = b.add("evidence");
  AnswerColumn& text = b.add("text");
  AnswerColumn& value = b.add("value");
  for (const GpuRecommendation& r : recs) {
    kind.str.push_back(b.intern(r.kind));
    subject.str.push_back(b.intern(r.subject));
    evidence.str.push_back(b.intern(r.evidence));
    text.str.push_back(b.intern(r.text));
    value.f64.push_back(r.value);
  }
  return b.take();
}

}  // namespace ks
