// The GPU time view's idle time breakdown (core/analysis/gpu_idle.h) as two answers: gpu-idle, a
// row per stream with its host wait, kernel wait and other time and their shares, and
// gpu-idle-intervals, a row per stream and category with the statistics of its gaps. One
// computation serves both (Session::shared).
#include <cmath>
#include <string>

#include "core/analysis/gpu_idle.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/session/views/gpu_shared.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"

namespace ks {

namespace {

const std::vector<ParamSpec> kIdleParams = {
    {"rounding",
     "ns (default): times as the trace gives them, a gap measured from the furthest end so far and never below 0; hta: as "
     "HTA loads a trace (whole µs) and reads a gap (from the previous event's end, negative where events overlap)"},
    {"kernel_wait_us",
     "a gap shorter than this (its launch not after the previous event's end) is kernel wait; default 30 (HTA's default "
     "consecutive_kernel_delay, which it documents as 30 ns but compares with µs)"},
};

const std::vector<MetaSpec> kIdleMeta = {
    {"rounding", "'ns' | 'hta'", "how times were read (the rounding parameter)"},
    {"kernel_wait_us", "number", "the kernel wait threshold used"},
    {"note", "string | null", "why there are no rows (no GPU work), else null"},
};

}  // namespace

const ViewSchema kGpuIdleSchema = {
    "gpu-idle",
    "GpuIdle",
    "Why each stream's GPU waits, as Holistic Trace Analysis's idle time breakdown: the gaps between the kernels, copies "
    "and memsets of a stream (HTA's scope, as the temporal breakdown's), each host wait (the event's launch started after the previous event "
    "ended), kernel wait (else, a gap under the threshold) or other, summed per stream with their shares of its idle time "
    "(`kinetoscope gpu-time --json`'s idle). Rows: the streams in order of their first event.",
    kIdleParams,
    {
        {"stream", ColumnType::kCount, "", "the CUDA stream"},
        {"events", ColumnType::kCount, "count", "GPU events on it (its gaps: one fewer)"},
        {"idle_us", ColumnType::kF64, "us", "its gaps summed"},
        {"host_wait_us", ColumnType::kF64, "us", "gaps where the host launched the next event after the previous one ended"},
        {"kernel_wait_us", ColumnType::kF64, "us", "other gaps shorter than the threshold: launch overhead between kernels"},
        {"other_us", ColumnType::kF64, "us", "the remaining gaps (waiting on an event, a sync, another stream)"},
        {"host_wait_ratio", ColumnType::kF64, "", "host wait's share of the stream's idle time (0-1); null without idle time"},
        {"kernel_wait_ratio", ColumnType::kF64, "", "kernel wait's share (0-1); null without idle time"},
        {"other_ratio", ColumnType::kF64, "", "other's share (0-1); null without idle time"},
    },
    kIdleMeta,
    {"stream", "events", "idle_us", "host_wait_us", "kernel_wait_us", "other_us", "host_wait_ratio", "kernel_wait_ratio",
     "other_ratio"},
    "idle",
};

const ViewSchema kGpuIdleIntervalsSchema = {
    "gpu-idle-intervals",
    "GpuIdleIntervals",
    "The statistics of the gaps of each stream and idle category (HTA's idle interval statistics, pandas' describe()): "
    "count, mean, standard deviation, min, quartiles and max (`kinetoscope gpu-time --json`'s idle_intervals). Rows: per "
    "stream (as gpu-idle orders them) host_wait, kernel_wait, other.",
    kIdleParams,
    {
        {"stream", ColumnType::kCount, "", "the CUDA stream"},
        {"category", ColumnType::kString, "", "host_wait, kernel_wait or other"},
        {"count", ColumnType::kCount, "count", "gaps in the category"},
        {"total_us", ColumnType::kF64, "us", "their sum"},
        {"mean_us", ColumnType::kF64, "us", "their mean; null without a gap"},
        {"std_us", ColumnType::kF64, "us", "their standard deviation (n - 1); null with fewer than two"},
        {"min_us", ColumnType::kF64, "us", "the shortest; null without a gap"},
        {"p25_us", ColumnType::kF64, "us", "the first quartile (linear, as pandas); null without a gap"},
        {"p50_us", ColumnType::kF64, "us", "the median; null without a gap"},
        {"p75_us", ColumnType::kF64, "us", "the third quartile; null without a gap"},
        {"max_us", ColumnType::kF64, "us", "the longest; null without a gap"},
    },
    kIdleMeta,
    {"stream", "category", "count", "total_us", "mean_us", "std_us", "min_us", "p25_us", "p50_us", "p75_us", "max_us"},
    "idle_intervals",
};

namespace {

struct IdleAsked {
  GpuIdleOptions options;
  std::string error;
};

IdleAsked idle_params(QueryParamsRef params) {
  IdleAsked a;
  const std::string_view rounding = param(params, "rounding", "ns");
  if (!parse_gpu_time_rounding(rounding, a.options.rounding)) {
    a.error = "unknown rounding: " + std::string(rounding) + " (ns or hta)";
    return a;
  }
  const std::string_view wait = param(params, "kernel_wait_us", "30");
  const std::optional<int64_t> ns = parse_us_to_ns(wait);
  if (!ns || *ns < 0) {
    a.error = "kernel_wait_us is not a number of µs of 0 or more: " + std::string(wait);
    return a;
  }
  a.options.kernel_wait_ns = *ns;
  return a;
}

void idle_meta(AnswerBuilder& b, const GpuIdleOptions& o, bool any) {
  {
    JsonWriter w;
    w.value(gpu_time_rounding_word(o.rounding));
    b.meta("rounding", w.take());
  }
  {
    JsonWriter w;
    w.value(double(o.kernel_wait_ns) / 1e3);
    b.meta("kernel_wait_us", w.take());
  }
  JsonWriter w;
  if (any) w.null();
  else
    w.value("The trace has no GPU work on a stream (no kernel, memcpy or memset): the GPU has no idle time to break down.");
  b.meta("note", w.take());
  b.rows_here();
}

}  // namespace

const GpuIdleResult& shared_gpu_idle(const Session& s, const GpuIdleOptions& o) {
  const std::string key = std::string(gpu_time_rounding_word(o.rounding)) + ":" + std::to_string(o.kernel_wait_ns);
  return s.shared<GpuIdleResult>("gpu-idle", key, [&] { return gpu_idle_of(s.hta_scoped(o.rounding).events, o); });
}

Answer gpu_idle_answer(const Session& s, QueryParamsRef params) {
  const IdleAsked asked = idle_params(params);
  if (!asked.error.empty()) return error_answer(kGpuIdleSchema, asked.error);
  const GpuIdleResult& r = shared_gpu_idle(s, asked.options);
  AnswerBuilder b(kGpuIdleSchema, r.streams.size());
  idle_meta(b, asked.options, !r.streams.empty());
  AnswerColumn& stream = b.add("stream");
  AnswerColumn& events = b.add("events");
  AnswerColumn& idle = b.add("idle_us");
  std::array<AnswerColumn*, kIdleCategories> time{&b.add("host_wait_us"), &b.add("kernel_wait_us"), &b.add("other_us")};
  std::array<AnswerColumn*, kIdleCategories> ratio{&b.add("host_wait_ratio"), &b.add("kernel_wait_ratio"), &b.add("other_ratio")};
  for (const StreamIdle& st : r.streams) {
    stream.f64.push_back(double(st.stream));
    events.f64.push_back(double(st.events));
    const int64_t total = st.total_ns();
    idle.f64.push_back(double(total) / 1e3);
    for (size_t c = 0; c < kIdleCategories; ++c) {
      time[c]->f64.push_back(double(st.idle_ns[c]) / 1e3);
      ratio[c]->f64.push_back(total != 0 ? double(st.idle_ns[c]) / double(total) : std::nan(""));
    }
  }
  return b.take();
}

Answer gpu_idle_intervals_answer(const Session& s, QueryParamsRef params) {
  const IdleAsked asked = idle_params(params);
  if (!asked.error.empty()) return error_answer(kGpuIdleIntervalsSchema, asked.error);
  const GpuIdleResult& r = shared_gpu_idle(s, asked.options);
  AnswerBuilder b(kGpuIdleIntervalsSchema, r.streams.size() * kIdleCategories);
  idle_meta(b, asked.options, !r.streams.empty());
  AnswerColumn& stream = b.add("stream");
  AnswerColumn& category = b.add("category");
  AnswerColumn& count = b.add("count");
  AnswerColumn& total = b.add("total_us");
  AnswerColumn& mean = b.add("mean_us");
  AnswerColumn& sd = b.add("std_us");
  AnswerColumn& min = b.add("min_us");
  AnswerColumn& p25 = b.add("p25_us");
  AnswerColumn& p50 = b.add("p50_us");
  AnswerColumn& p75 = b.add("p75_us");
  AnswerColumn& max = b.add("max_us");
  std::array<uint32_t, kIdleCategories> names{};
  for (size_t c = 0; c < kIdleCategories; ++c) names[c] = b.intern(idle_category_name(IdleCategory(c)));
  for (const StreamIdle& st : r.streams)
    for (size_t c = 0; c < kIdleCategories; ++c) {
      const IdleIntervalStats& x = st.intervals[c];
      const bool any = x.count > 0;
      auto us = [&](double ns) { return any ? ns / 1e3 : std::nan(""); };
      stream.f64.push_back(double(st.stream));
      category.str.push_back(names[c]);
      count.f64.push_back(double(x.count));
      total.f64.push_back(double(st.idle_ns[c]) / 1e3);
      mean.f64.push_back(us(x.mean));
      sd.f64.push_back(x.count > 1 ? x.std / 1e3 : std::nan(""));
      min.f64.push_back(us(x.min));
      p25.f64.push_back(us(x.p25));
      p50.f64.push_back(us(x.p50));
      p75.f64.push_back(us(x.p75));
      max.f64.push_back(us(x.max));
    }
  return b.take();
}

}  // namespace ks
