// The GPU time view's frequent kernel sequences (core/analysis/kernel_sequences.h) as an answer.
#include <string>

#include "core/analysis/kernel_sequences.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/session/views/gpu_shared.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

const ViewSchema kGpuKernelSequencesSchema = {
    "gpu-kernel-sequences",
    "GpuKernelSequences",
    "The most frequent sequences of GPU work launched under one operator call (fusion candidates), as Holistic Trace "
    "Analysis's frequent CUDA kernel sequences: the calls whose name contains the operator filter and that have no such "
    "call above them are the roots; a root's sequence is the kernels, memcpys and memsets launched under it in order of "
    "start, counted when it has at least min_kernels (`kinetoscope gpu-time --json`'s kernel_sequences). Rows: the patterns "
    "by count (most first), then by their names.",
    {
        {"operator", "the roots' name filter (a substring); default aten:: (HTA's operator_name, which has no default)"},
        {"min_kernels", "the shortest sequence counted; default 3 (HTA's min_pattern_len)"},
        {"top", "how many patterns; default 10 (HTA's top_k is 5)"},
    },
    {
        {"operator", ColumnType::kString, "", "the root operator's name"},
        {"kernels", ColumnType::kString, "", "the sequence's GPU events, their names joined by \" | \""},
        {"length", ColumnType::kCount, "count", "GPU events in the sequence"},
        {"count", ColumnType::kCount, "count", "root calls with this pattern"},
        {"gpu_us", ColumnType::kF64, "us", "the GPU time of its events, every occurrence (HTA's GPU kernel duration)"},
        {"cpu_us", ColumnType::kF64, "us", "the host time of its root calls (HTA's CPU op duration)"},
        {"mean_event_us", ColumnType::kF64, "us", "the mean GPU time of one of its events"},
        {"stack", ColumnType::kString, "", "the operators above the first occurrence's root, outermost first, joined by \" > \"; null at the top"},
        {"first_start_us", ColumnType::kF64, "us", "the first occurrence's root start, from the trace's start"},
        {"first_end_us", ColumnType::kF64, "us", "its end"},
    },
    {
        {"operator", "string", "the filter used"},
        {"min_kernels", "number", "the shortest sequence counted"},
        {"roots", "number", "root calls (matching, none matching above them)"},
        {"counted", "number", "of them, those with at least min_kernels GPU events"},
        {"patterns", "number", "distinct patterns (rows: the first `top`)"},
        {"note", "string | null", "why there are no rows, else null"},
    },
    {"operator", "kernels", "length", "count", "gpu_us", "cpu_us", "mean_event_us", "stack", "first_start_us", "first_end_us"},
    "kernel_sequences",
};

const KernelSequencesResult& shared_kernel_sequences(const Session& s, const KernelSequenceOptions& o) {
  const std::string key = o.operator_filter + "\n" + std::to_string(o.min_kernels) + ":" + std::to_string(o.top);
  return s.shared<KernelSequencesResult>("gpu-kernel-sequences", key, [&] { return kernel_sequences(s.tree(), s.model(), o); });
}

Answer gpu_kernel_sequences_answer(const Session& s, QueryParamsRef params) {
  KernelSequenceOptions o;
  o.operator_filter = std::string(param(params, "operator", "aten::"));
  if (o.operator_filter.empty()) return error_answer(kGpuKernelSequencesSchema, "operator is empty: give a part of the operators' name (aten::)");
  const std::string_view min_text = param(params, "min_kernels", "3");
  const std::optional<int64_t> min = parse_int(min_text);
  if (!min || *min < 1) return error_answer(kGpuKernelSequencesSchema, "min_kernels is not a whole number of 1 or more: " + std::string(min_text));
  const std::string_view top_text = param(params, "top", "10");
  const std::optional<int64_t> top = parse_int(top_text);
  if (!top || *top < 1) return error_answer(kGpuKernelSequencesSchema, "top is not a whole number of 1 or more: " + std::string(top_text));
  o.min_kernels = size_t(*min);
  o.top = size_t(*top);
  const TraceModel& m = s.model();
  const KernelSequencesResult& r = shared_kernel_sequences(s, o);
  AnswerBuilder b(kGpuKernelSequencesSchema, r.sequences.size());
  {
    JsonWriter w;
    w.value(o.operator_filter);
    b.meta("operator", w.take());
  }
  b.meta("min_kernels", std::to_string(o.min_kernels));
  b.meta("roots", std::to_string(r.roots));
  b.meta("counted", std::to_string(r.counted));
  b.meta("patterns", std::to_string(r.patterns));
  {
    JsonWriter w;
    if (!r.sequences.empty()) w.null();
    else if (!r.roots)
      w.value("No operator call's name contains \"" + o.operator_filter + "\": there is no sequence to count.");
    else
      w.value("No call of an operator whose name contains \"" + o.operator_filter + "\" launched " + std::to_string(o.min_kernels) +
              " or more GPU events: there is no sequence that long.");
    b.meta("note", w.take());
  }
  b.rows_here();
  auto us = [&](int64_t ns) { return double(ns - m.start_ns) / 1e3; };
  AnswerColumn& op = b.add("operator");
  AnswerColumn& kernels = b.add("kernels");
  AnswerColumn& length = b.add("length");
  AnswerColumn& count = b.add("count");
  AnswerColumn& gpu = b.add("gpu_us");
  AnswerColumn& cpu = b.add("cpu_us");
  AnswerColumn& mean = b.add("mean_event_us");
  AnswerColumn& stack = b.add("stack");
  AnswerColumn& first_start = b.add("first_start_us");
  AnswerColumn& first_end = b.add("first_end_us");
  for (const KernelSequence& k : r.sequences) {
    op.str.push_back(b.intern(m.strings.get(k.op)));
    std::string names, above;
    for (StringId id : k.kernels) names += (names.empty() ? "" : " | ") + std::string(m.strings.get(id));
    for (StringId id : k.stack) above += (above.empty() ? "" : " > ") + std::string(m.strings.get(id));
    kernels.str.push_back(b.intern(names));
    length.f64.push_back(double(k.kernels.size()));
    count.f64.push_back(double(k.count));
    gpu.f64.push_back(double(k.gpu_ns) / 1e3);
    cpu.f64.push_back(double(k.cpu_ns) / 1e3);
    mean.f64.push_back(double(k.gpu_ns) / 1e3 / double(k.count * k.kernels.size()));
    stack.str.push_back(above.empty() ? kNullString : b.intern(above));
    first_start.f64.push_back(us(k.first_start_ns));
    first_end.f64.push_back(us(k.first_end_ns));
  }
  return b.take();
}

}  // namespace ks
