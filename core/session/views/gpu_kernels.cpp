// The GPU time view's kernel breakdown (core/analysis/gpu_kernels.h) as two answers:
// gpu-kernel-types, the time of each kernel type and overlapping combination, and gpu-top-kernels,
// the top kernels of each type with their statistics. One computation serves both (Session::shared).
#include <cmath>
#include <string>

#include "core/analysis/gpu_kernels.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

namespace {

const std::vector<ParamSpec> kKernelParams = {
    {"rounding", "ns (default): times as the trace gives them; hta: as HTA loads a trace (whole µs, a sub-µs event -1 µs)"},
    {"num_kernels", "gpu-top-kernels: at most this many kernels named per type, the rest \"others\"; default 10 (HTA's)"},
    {"duration_ratio",
     "gpu-top-kernels: HTA's cut, 0-1: a kernel is named when its running sum is at most this quantile of the running "
     "sums; default 0.8 (HTA's)"},
};

const std::vector<MetaSpec> kKernelMeta = {
    {"rounding", "'ns' | 'hta'", "how times were read (the rounding parameter)"},
    {"busy_us", "number", "the GPU's busy time: the kernel types' times summed (the shares' whole)"},
    {"note", "string | null", "why there are no rows (no GPU work), else null"},
};

}  // namespace

const ViewSchema kGpuKernelTypesSchema = {
    "gpu-kernel-types",
    "GpuKernelTypes",
    "The GPU's busy time by kernel type, as Holistic Trace Analysis's kernel breakdown: COMPUTATION, COMMUNICATION (nccl, "
    "gloo), MEMORY (memcpy, memset) and the times they overlap, named as HTA names them (\"COMPUTATION overlapping "
    "COMMUNICATION\"), in HTA's scope (`kinetoscope gpu-time --json`'s kernel_types). Rows: time descending.",
    kKernelParams,
    {
        {"type", ColumnType::kString, "", "the kernel type, or the types running together (\"A overlapping B\")"},
        {"us", ColumnType::kF64, "us", "time the GPU ran exactly these types"},
        {"pct", ColumnType::kF64, "percent", "its share of the busy time"},
    },
    kKernelMeta,
    {"type", "us", "pct"},
    "kernel_types",
};

const ViewSchema kGpuTopKernelsSchema = {
    "gpu-top-kernels",
    "GpuTopKernels",
    "The kernels that took the most GPU time, per kernel type, as Holistic Trace Analysis's kernel breakdown names them "
    "(at most num_kernels a type; the rest one \"others\" row), each with the sum, max, min, mean and standard deviation of "
    "its calls' durations (`kinetoscope gpu-time --json`'s top_kernels). Rows: COMPUTATION, COMMUNICATION, MEMORY, each by "
    "sum descending, others last.",
    kKernelParams,
    {
        {"type", ColumnType::kString, "", "COMPUTATION, COMMUNICATION or MEMORY"},
        {"name", ColumnType::kString, "", "the kernel's name; \"others\": the type's other kernels"},
        {"kernels", ColumnType::kCount, "count", "kernel names in the row (1; others: how many)"},
        {"calls", ColumnType::kCount, "count", "calls"},
        {"sum_us", ColumnType::kF64, "us", "their summed duration"},
        {"max_us", ColumnType::kF64, "us", "the longest call"},
        {"min_us", ColumnType::kF64, "us", "the shortest call"},
        {"mean_us", ColumnType::kF64, "us", "the mean call"},
        {"stddev_us", ColumnType::kF64, "us", "the standard deviation of the calls (n - 1; 0 for one call)"},
    },
    kKernelMeta,
    {"type", "name", "kernels", "calls", "sum_us", "max_us", "min_us", "mean_us", "stddev_us"},
    "top_kernels",
};

namespace {

struct KernelsAsked {
  GpuKernelsOptions options;
  std::string error;
};

KernelsAsked kernel_params(QueryParamsRef params) {
  KernelsAsked a;
  const std::string_view rounding = param(params, "rounding", "ns");
  if (!parse_gpu_time_rounding(rounding, a.options.rounding)) {
    a.error = "unknown rounding: " + std::string(rounding) + " (ns or hta)";
    return a;
  }
  const std::string_view n = param(params, "num_kernels", "10");
  const std::optional<int64_t> kernels = parse_int(n);
  if (!kernels || *kernels < 1 || n.find('.') != std::string_view::npos) {
    a.error = "num_kernels is not a whole number of 1 or more: " + std::string(n);
    return a;
  }
  a.options.num_kernels = size_t(*kernels);
  const std::string_view r = param(params, "duration_ratio", "0.8");
  const std::optional<double> ratio = parse_double(r);
  if (!ratio || !(*ratio >= 0 && *ratio <= 1)) {
    a.error = "duration_ratio is not a number from 0 to 1: " + std::string(r);
    return a;
  }
  a.options.duration_ratio = *ratio;
  return a;
}

const GpuKernelsResult& kernels_of(const Session& s, const GpuKernelsOptions& o) {
  const std::string key = std::string("gpu-kernels:") + gpu_time_rounding_word(o.rounding) + ":" +
                          std::to_string(o.num_kernels) + ":" + std::to_string(o.duration_ratio);
  return s.shared<GpuKernelsResult>("gpu-kernels", key, [&] { return gpu_kernels_of(s.hta_scoped(o.rounding).events, s.model().strings, o); });
}

void kernel_meta(AnswerBuilder& b, const GpuKernelsOptions& o, const GpuKernelsResult& r) {
  {
    JsonWriter w;
    w.value(gpu_time_rounding_word(o.rounding));
    b.meta("rounding", w.take());
  }
  {
    JsonWriter w;
    w.value(double(r.busy_ns) / 1e3);
    b.meta("busy_us", w.take());
  }
  JsonWriter w;
  if (!r.top.empty()) w.null();
  else w.value("The trace has no GPU work on a stream (no kernel, memcpy or memset): there are no kernels to break down.");
  b.meta("note", w.take());
  b.rows_here();
}

}  // namespace

Answer gpu_kernel_types_answer(const Session& s, QueryParamsRef params) {
  const KernelsAsked asked = kernel_params(params);
  if (!asked.error.empty()) return error_answer(kGpuKernelTypesSchema, asked.error);
  const GpuKernelsResult& r = kernels_of(s, asked.options);
  AnswerBuilder b(kGpuKernelTypesSchema, r.types.size());
  kernel_meta(b, asked.options, r);
  AnswerColumn& type = b.add("type");
  AnswerColumn& us = b.add("us");
  AnswerColumn& pct = b.add("pct");
  for (const KernelTypeTime& t : r.types) {
    type.str.push_back(b.intern(kernel_type_set_name(t.set)));
    us.f64.push_back(double(t.ns) / 1e3);
    pct.f64.push_back(r.busy_ns > 0 ? 100.0 * double(t.ns) / double(r.busy_ns) : std::nan(""));
  }
  return b.take();
}

Answer gpu_top_kernels_answer(const Session& s, QueryParamsRef params) {
  const KernelsAsked asked = kernel_params(params);
  if (!asked.error.empty()) return error_answer(kGpuTopKernelsSchema, asked.error);
  const GpuKernelsResult& r = kernels_of(s, asked.options);
  AnswerBuilder b(kGpuTopKernelsSchema, r.top.size());
  kernel_meta(b, asked.options, r);
  AnswerColumn& type = b.add("type");
  AnswerColumn& name = b.add("name");
  AnswerColumn& kernels = b.add("kernels");
  AnswerColumn& calls = b.add("calls");
  AnswerColumn& sum = b.add("sum_us");
  AnswerColumn& max = b.add("max_us");
  AnswerColumn& min = b.add("min_us");
  AnswerColumn& mean = b.add("mean_us");
  AnswerColumn& stddev = b.add("stddev_us");
  for (const TopKernel& k : r.top) {
    type.str.push_back(b.intern(kernel_type_name(k.type)));
    name.str.push_back(b.intern(k.name));
    kernels.f64.push_back(double(k.kernels));
    calls.f64.push_back(double(k.calls));
    sum.f64.push_back(double(k.sum_ns) / 1e3);
    max.f64.push_back(double(k.max_ns) / 1e3);
    min.f64.push_back(double(k.min_ns) / 1e3);
    mean.f64.push_back(k.mean_ns / 1e3);
    stddev.f64.push_back(k.stddev_ns / 1e3);
  }
  return b.take();
}

}  // namespace ks
