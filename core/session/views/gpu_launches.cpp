// The GPU time view's kernel launch statistics (core/analysis/gpu_launches.h) as three answers, one
// computation for them (Session::shared): gpu-launch-stats (the distributions as metadata, the
// launch delays' histogram as rows), gpu-launch-operators (per operator) and gpu-launches (per
// launch, or only the short kernels or one kind of outlier).
#include <cmath>
#include <string>

#include "core/analysis/gpu_launches.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"
#include "core/session/views/gpu_shared.h"

#define KS_DESCRIBE_TS "{ count: number; mean: number | null; std: number | null; min: number | null; p25: number | null; p50: number | null; p75: number | null; max: number | null }"

namespace ks {

namespace {

const std::vector<ParamSpec> kLaunchParams = {
    {"rounding", "ns (default): times as the trace gives them; hta: as HTA loads a trace (whole µs: start up, end down)"},
    {"runtime_cutoff_us", "a runtime call longer than this is a runtime outlier, one of at most this a short kernel's candidate; default 50 (HTA's)"},
    {"launch_delay_cutoff_us", "a launch delay longer than this is an outlier; default 100 (HTA's)"},
    {"calls", "all (default): every launch call HTA's queue length counts, the driver's cuLaunchKernel(Ex) included; hta: "
              "only those HTA's launch statistics read (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync)"},
};

struct LaunchAsked {
  LaunchStatsOptions options;
  std::string error;
};

LaunchAsked launch_params(QueryParamsRef params) {
  LaunchAsked a;
  const std::string_view rounding = param(params, "rounding", "ns");
  if (!parse_gpu_time_rounding(rounding, a.options.rounding)) {
    a.error = "unknown rounding: " + std::string(rounding) + " (ns or hta)";
    return a;
  }
  const std::string_view calls = param(params, "calls", "all");
  if (calls != "all" && calls != "hta") {
    a.error = "unknown calls: " + std::string(calls) + " (all or hta)";
    return a;
  }
  a.options.hta_calls_only = calls == "hta";
  for (auto [name, fallback, out] : {std::tuple{"runtime_cutoff_us", "50", &a.options.runtime_cutoff_ns},
                                     std::tuple{"launch_delay_cutoff_us", "100", &a.options.launch_delay_cutoff_ns}}) {
    const std::string_view text = param(params, name, fallback);
    const std::optional<int64_t> ns = parse_us_to_ns(text);
    if (!ns || *ns < 0) {
      a.error = std::string(name) + " is not a number of µs of 0 or more: " + std::string(text);
      return a;
    }
    *out = *ns;
  }
  return a;
}

}  // namespace

const LaunchStatsResult& shared_launch_stats(const Session& s, const LaunchStatsOptions& o) {
  const std::string key = std::string("gpu-launches:") + gpu_time_rounding_word(o.rounding) + ":" +
                          std::to_string(o.runtime_cutoff_ns) + ":" + std::to_string(o.launch_delay_cutoff_ns) + (o.hta_calls_only ? ":hta" : ":all");
  return s.shared<LaunchStatsResult>("gpu-launches", key, [&] { return gpu_launch_stats(s.model(), s.hta_scoped(o.rounding), &s.tree(), o); });
}

namespace {

const char* kNoLaunchNote =
    "The trace has no kernel launch with its GPU event (no cudaLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync or "
    "cuLaunchKernel call whose kernel, copy or memset was recorded): there are no launches to describe.";

void describe_json(JsonWriter& w, const Describe& d) {
  w.begin_object();
  w.key("count").value(d.count);
  for (auto [k, v] : {std::pair{"mean", d.mean}, {"std", d.std}, {"min", d.min}, {"p25", d.p25}, {"p50", d.p50}, {"p75", d.p75}, {"max", d.max}})
    w.key(k).value(v / 1e3);
  w.end_object();
}

}  // namespace

const ViewSchema kGpuLaunchStatsSchema = {
    "gpu-launch-stats",
    "GpuLaunchStats",
    "HTA's kernel launch statistics: per launch (a runtime call matched to its kernel, copy or memset by correlation id) "
    "the call's CPU duration, the GPU event's duration and the launch delay (its start less the call's end, 0 when it "
    "started first), described as pandas' describe() does, with the short kernels and the outliers counted (`kinetoscope "
    "gpu-time --json`'s launches). Rows: the launch delays' histogram, bins doubling from 1 µs (not in the JSON).",
    kLaunchParams,
    {
        {"bin_start_us", ColumnType::kF64, "us", "the bin's lower edge (0, 1, 2, 4, ... µs)"},
        {"bin_end_us", ColumnType::kF64, "us", "its upper edge (excluded)"},
        {"launches", ColumnType::kCount, "count", "launches whose delay falls in it"},
    },
    {
        {"launches",
         "{ count: number; calls_without_gpu_event: number; short_kernels: number; runtime_outliers: number; "
         "launch_delay_outliers: number; runtime_cutoff_us: number; launch_delay_cutoff_us: number; cpu_duration_us: " KS_DESCRIBE_TS
         "; gpu_duration_us: " KS_DESCRIBE_TS "; launch_delay_us: " KS_DESCRIBE_TS "; note: string | null }",
         "the launches' count, the launch calls without a recorded GPU event, the short kernels (call at most the runtime "
         "cutoff and longer than its GPU work), the runtime and launch delay outliers, the cutoffs, and describe() of the "
         "three durations (count, mean, std, min, p25, p50, p75, max in µs; null without a launch); note: why there are none"},
    },
    {"bin_start_us", "bin_end_us", "launches"},
    "",
};

const ViewSchema kGpuLaunchOperatorsSchema = {
    "gpu-launch-operators",
    "GpuLaunchOperators",
    "The kernel launches per operator (the innermost operator around the runtime call): how many, how many short, their "
    "mean CPU and GPU durations and launch delay (`kinetoscope gpu-time --json`'s launch_operators). Rows: launches "
    "descending.",
    kLaunchParams,
    {
        {"operator", ColumnType::kString, "", "the operator; null: no operator around the call"},
        {"launches", ColumnType::kCount, "count", "its launches"},
        {"short_kernels", ColumnType::kCount, "count", "of them short kernels"},
        {"mean_cpu_duration_us", ColumnType::kF64, "us", "the calls' mean duration"},
        {"mean_gpu_duration_us", ColumnType::kF64, "us", "the GPU events' mean duration"},
        {"mean_launch_delay_us", ColumnType::kF64, "us", "the mean launch delay"},
        {"launch_delay_us", ColumnType::kF64, "us", "the launch delays summed"},
    },
    {},
    {"operator", "launches", "short_kernels", "mean_cpu_duration_us", "mean_gpu_duration_us", "mean_launch_delay_us", "launch_delay_us"},
    "launch_operators",
};

const ViewSchema kGpuLaunchesSchema = {
    "gpu-launches",
    "GpuLaunches",
    "Every kernel launch of the launch statistics (HTA's get_cuda_kernel_launch_stats rows): its correlation id, call, GPU "
    "event, stream, CPU duration, GPU duration and launch delay, in order of the call's start; `--only` keeps the short "
    "kernels or one kind of outlier.",
    {kLaunchParams[0], kLaunchParams[1], kLaunchParams[2], kLaunchParams[3],
     {"only", "all (default), short, runtime_outliers or launch_delay_outliers"},
     {"limit", "at most this many rows (default: all)"}},
    {
        {"correlation", ColumnType::kCount, "", "the correlation id"},
        {"call", ColumnType::kString, "", "the runtime call (cudaLaunchKernel, ...)"},
        {"name", ColumnType::kString, "", "the kernel, copy or memset"},
        {"stream", ColumnType::kCount, "", "its stream"},
        {"cpu_start_us", ColumnType::kF64, "us", "the call's start, from the trace's start"},
        {"cpu_duration_us", ColumnType::kF64, "us", "the call's duration"},
        {"gpu_duration_us", ColumnType::kF64, "us", "the GPU event's duration"},
        {"launch_delay_us", ColumnType::kF64, "us", "the GPU event's start less the call's end (0 when it started first)"},
        {"short", ColumnType::kBool, "", "a short kernel: the call at most the runtime cutoff and longer than the GPU work"},
    },
    {{"total", "number", "the launches before --only and --limit"}},
    {"correlation", "call", "name", "stream", "cpu_start_us", "cpu_duration_us", "gpu_duration_us", "launch_delay_us", "short"},
    "launches",
};

Answer gpu_launch_stats_answer(const Session& s, QueryParamsRef params) {
  const LaunchAsked asked = launch_params(params);
  if (!asked.error.empty()) return error_answer(kGpuLaunchStatsSchema, asked.error);
  const LaunchStatsResult& r = shared_launch_stats(s, asked.options);
  // Bins [0, 1), [1, 2), [2, 4), ... µs up to the longest delay.
  std::vector<uint64_t> bins;
  for (const KernelLaunch& k : r.launches) {
    const double us = double(k.delay_ns) / 1e3;
    const size_t bin = us < 1 ? 0 : size_t(std::floor(std::log2(us))) + 1;
    if (bins.size() <= bin) bins.resize(bin + 1, 0);
    ++bins[bin];
  }
  AnswerBuilder b(kGpuLaunchStatsSchema, bins.size());
  {
    JsonWriter w;
    w.begin_object();
    w.key("count").value(uint64_t(r.launches.size()));
    w.key("calls_without_gpu_event").value(r.calls_without_gpu_event);
    w.key("short_kernels").value(r.short_kernels);
    w.key("runtime_outliers").value(r.runtime_outliers);
    w.key("launch_delay_outliers").value(r.delay_outliers);
    w.key("runtime_cutoff_us").value(double(asked.options.runtime_cutoff_ns) / 1e3);
    w.key("launch_delay_cutoff_us").value(double(asked.options.launch_delay_cutoff_ns) / 1e3);
    w.key("cpu_duration_us");
    describe_json(w, r.cpu);
    w.key("gpu_duration_us");
    describe_json(w, r.gpu);
    w.key("launch_delay_us");
    describe_json(w, r.delay);
    w.key("note");
    if (r.launches.empty()) w.value(kNoLaunchNote);
    else w.null();
    w.end_object();
    b.meta("launches", w.take());
  }
  b.rows_here();
  AnswerColumn& lo = b.add("bin_start_us");
  AnswerColumn& hi = b.add("bin_end_us");
  AnswerColumn& n = b.add("launches");
  for (size_t i = 0; i < bins.size(); ++i) {
    lo.f64.push_back(i == 0 ? 0 : std::ldexp(1.0, int(i) - 1));
    hi.f64.push_back(std::ldexp(1.0, int(i)));
    n.f64.push_back(double(bins[i]));
  }
  return b.take();
}

Answer gpu_launch_operators_answer(const Session& s, QueryParamsRef params) {
  const LaunchAsked asked = launch_params(params);
  if (!asked.error.empty()) return error_answer(kGpuLaunchOperatorsSchema, asked.error);
  const LaunchStatsResult& r = shared_launch_stats(s, asked.options);
  AnswerBuilder b(kGpuLaunchOperatorsSchema, r.operators.size());
  b.rows_here();
  AnswerColumn& op = b.add("operator");
  AnswerColumn& launches = b.add("launches");
  AnswerColumn& short_kernels = b.add("short_kernels");
  AnswerColumn& cpu = b.add("mean_cpu_duration_us");
  AnswerColumn& gpu = b.add("mean_gpu_duration_us");
  AnswerColumn& delay = b.add("mean_launch_delay_us");
  AnswerColumn& total = b.add("launch_delay_us");
  for (const LaunchOperator& o : r.operators) {
    const double n = double(o.launches);
    op.str.push_back(o.name.empty() ? kNullString : b.intern(o.name));
    launches.f64.push_back(n);
    short_kernels.f64.push_back(double(o.short_kernels));
    cpu.f64.push_back(double(o.cpu_ns) / 1e3 / n);
    gpu.f64.push_back(double(o.gpu_ns) / 1e3 / n);
    delay.f64.push_back(double(o.delay_ns) / 1e3 / n);
    total.f64.push_back(double(o.delay_ns) / 1e3);
  }
  return b.take();
}

Answer gpu_launches_answer(const Session& s, QueryParamsRef params) {
  const LaunchAsked asked = launch_params(params);
  if (!asked.error.empty()) return error_answer(kGpuLaunchesSchema, asked.error);
  const std::string_view only = param(params, "only", "all");
  if (only != "all" && only != "short" && only != "runtime_outliers" && only != "launch_delay_outliers")
    return error_answer(kGpuLaunchesSchema, "unknown --only: " + std::string(only) + " (all, short, runtime_outliers or launch_delay_outliers)");
  size_t limit = SIZE_MAX;
  const std::string_view limit_text = param(params, "limit", "");
  if (!limit_text.empty()) {
    char* end = nullptr;
    const std::string t(limit_text);
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (end != t.c_str() + t.size() || v < 0) return error_answer(kGpuLaunchesSchema, "--limit is not a count: " + t);
    limit = size_t(v);
  }
  const LaunchStatsOptions& o = asked.options;
  const LaunchStatsResult& r = shared_launch_stats(s, o);
  std::vector<const KernelLaunch*> rows;
  for (const KernelLaunch& k : r.launches) {
    if (rows.size() >= limit) break;
    const bool keep = only == "all" || (only == "short" && is_short_kernel(k, o)) ||
                      (only == "runtime_outliers" && k.cpu_dur_ns > o.runtime_cutoff_ns) ||
                      (only == "launch_delay_outliers" && k.delay_ns > o.launch_delay_cutoff_ns);
    if (keep) rows.push_back(&k);
  }
  const TraceModel& m = s.model();
  AnswerBuilder b(kGpuLaunchesSchema, rows.size());
  b.meta("total", std::to_string(r.launches.size()));
  b.rows_here();
  AnswerColumn& corr = b.add("correlation");
  AnswerColumn& call = b.add("call");
  AnswerColumn& name = b.add("name");
  AnswerColumn& stream = b.add("stream");
  AnswerColumn& start = b.add("cpu_start_us");
  AnswerColumn& cpu = b.add("cpu_duration_us");
  AnswerColumn& gpu = b.add("gpu_duration_us");
  AnswerColumn& delay = b.add("launch_delay_us");
  AnswerColumn& shrt = b.add("short");
  for (const KernelLaunch* k : rows) {
    corr.f64.push_back(double(k->correlation));
    call.str.push_back(b.intern(m.strings.get(k->call_name)));
    name.str.push_back(b.intern(m.strings.get(k->gpu_name)));
    stream.f64.push_back(double(k->stream));
    start.f64.push_back(double(k->cpu_start_ns - m.start_ns) / 1e3);
    cpu.f64.push_back(double(k->cpu_dur_ns) / 1e3);
    gpu.f64.push_back(double(k->gpu_dur_ns) / 1e3);
    delay.f64.push_back(double(k->delay_ns) / 1e3);
    shrt.u8.push_back(is_short_kernel(*k, o) ? 1 : 0);
  }
  return b.take();
}

}  // namespace ks
