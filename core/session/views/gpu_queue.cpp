// The GPU time view's counters (core/analysis/gpu_queue.h) as three answers, one computation for
// them (Session::shared): gpu-queue (per stream the queue length's summary and time at CUDA's
// limit), gpu-memory-bandwidth (per copy kind) and gpu-counter-series (one series drawn over pixel
// columns, for the page's charts), and gpu-counter-track (the series as samples for the Timeline's
// counter tracks).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "core/analysis/gpu_queue.h"
#include "core/session/session.h"
#include "core/session/views.h"
#include "core/util/json_writer.h"
#include "core/util/numbers.h"
#include "core/session/views/gpu_shared.h"

namespace ks {

const GpuQueueResult& shared_gpu_queue(const Session& s, const GpuQueueOptions& o) {
  const std::string key = std::string(gpu_time_rounding_word(o.rounding)) + (o.starts_first ? ":starts_first" : ":launches_first");
  return s.shared<GpuQueueResult>("gpu-queue", key, [&] {
    const HtaScoped& scoped = s.hta_scoped(o.rounding);
    // With the operator trees built (the page's, after its Overview; gpu-time's), the launches of
    // the launch statistics view's default answer (computed once for both); else its launches alone.
    if (!s.tree_if_built()) return gpu_queue(s.model(), scoped, o);
    LaunchStatsOptions lo;
    lo.rounding = o.rounding;
    return gpu_queue(s.model(), scoped, shared_launch_stats(s, lo), o);
  });
}

namespace {

const ParamSpec kRoundingParam = {
    "rounding", "ns (default): times as the trace gives them; hta: as HTA loads a trace (whole µs: start up, end down)"};
const ParamSpec kTiesParam = {
    "ties", "launches_first (default): at equal times a launch's +1 before a GPU event's -1; starts_first: the other order"};

const GpuQueueResult* queue_of(const Session& s, QueryParamsRef params, std::string& error) {
  GpuQueueOptions o;
  const std::string_view rounding = param(params, "rounding", "ns");
  if (!parse_gpu_time_rounding(rounding, o.rounding)) {
    error = "unknown rounding: " + std::string(rounding) + " (ns or hta)";
    return nullptr;
  }
  const std::string_view ties = param(params, "ties", "launches_first");
  if (ties != "launches_first" && ties != "starts_first") {
    error = "unknown ties: " + std::string(ties) + " (launches_first or starts_first)";
    return nullptr;
  }
  o.starts_first = ties == "starts_first";
  return &shared_gpu_queue(s, o);
}

void stats_columns(AnswerBuilder& b, const std::vector<const Describe*>& d, double scale) {
  AnswerColumn& count = b.add("count");
  for (const Describe* x : d) count.f64.push_back(double(x->count));
  for (auto [name, field] : {std::pair{"mean", &Describe::mean}, {"std", &Describe::std}, {"min", &Describe::min},
                             {"p25", &Describe::p25}, {"p50", &Describe::p50}, {"p75", &Describe::p75}, {"max", &Describe::max}}) {
    AnswerColumn& c = b.add(name);
    for (const Describe* x : d) c.f64.push_back(x->*field * scale);
  }
}

}  // namespace

const ViewSchema kGpuQueueSchema = {
    "gpu-queue",
    "GpuQueue",
    "HTA's queue length per stream: the launches a stream has been given and not yet started (+1 when a launch call "
    "with a GPU event on it starts, -1 when that event starts), pandas' describe() of the values it takes (one per change, "
    "HTA's queue length summary) and the time it spent at CUDA's limit of 1024 (`kinetoscope gpu-time --json`'s queue, "
    "followed by queue_limit and queue_note). "
    "Rows: the streams in order.",
    {kRoundingParam, kTiesParam},
    {
        {"stream", ColumnType::kCount, "", "the CUDA stream"},
        {"launches", ColumnType::kCount, "count", "launches onto it"},
        {"count", ColumnType::kCount, "count", "changes of its queue length (2 per launch)"},
        {"mean", ColumnType::kF64, "", "the mean of the values after each change (not weighted by time, as HTA)"},
        {"std", ColumnType::kF64, "", "their standard deviation (n - 1); null with one"},
        {"min", ColumnType::kF64, "", "the least"},
        {"p25", ColumnType::kF64, "", "the first quartile (linear, as pandas)"},
        {"p50", ColumnType::kF64, "", "the median"},
        {"p75", ColumnType::kF64, "", "the third quartile"},
        {"max", ColumnType::kF64, "", "the longest queue"},
        {"time_at_limit_us", ColumnType::kF64, "us", "time with 1024 or more launches queued (the host blocks on the next launch)"},
    },
    {{"queue_limit", "number", "CUDA's limit of launches in flight on a stream (1024)"},
     {"queue_note", "string | null", "why there are no rows (no launch with a GPU event), else null"}},
    {"stream", "launches", "count", "mean", "std", "min", "p25", "p50", "p75", "max", "time_at_limit_us"},
    "queue",
    "",
    false,
    "",
    true,
};

const ViewSchema kGpuMemoryBandwidthSchema = {
    "gpu-memory-bandwidth",
    "GpuMemoryBandwidth",
    "HTA's memory bandwidth per copy kind (Memcpy HtoD, DtoH, DtoD, Memset, ...): the bandwidth of the memcpys and "
    "memsets running at each moment (each its \"memory bandwidth (GB/s)\", else bytes over duration, while it runs), "
    "pandas' describe() of the series' values above 0 (HTA's memory bandwidth summary), with the events, bytes and busy "
    "time (`kinetoscope gpu-time --json`'s memory_bandwidth). Rows: the kinds in order.",
    {kRoundingParam, kTiesParam},
    {
        {"kind", ColumnType::kString, "", "the copy kind, as HTA names it"},
        {"events", ColumnType::kCount, "count", "its memcpys or memsets"},
        {"bytes", ColumnType::kCount, "bytes", "the bytes they moved (those that say)"},
        {"busy_us", ColumnType::kF64, "us", "their durations summed"},
        {"count", ColumnType::kCount, "count", "the series' values above 0"},
        {"mean", ColumnType::kF64, "", "their mean, GB/s"},
        {"std", ColumnType::kF64, "", "their standard deviation, GB/s"},
        {"min", ColumnType::kF64, "", "the least, GB/s"},
        {"p25", ColumnType::kF64, "", "the first quartile, GB/s"},
        {"p50", ColumnType::kF64, "", "the median, GB/s"},
        {"p75", ColumnType::kF64, "", "the third quartile, GB/s"},
        {"max", ColumnType::kF64, "", "the greatest, GB/s"},
    },
    {},
    {"kind", "events", "bytes", "busy_us", "count", "mean", "std", "min", "p25", "p50", "p75", "max"},
    "memory_bandwidth",
};

const ViewSchema kGpuCounterSeriesSchema = {
    "gpu-counter-series",
    "GpuCounterSeries",
    "One counter of the GPU time view drawn over pixel columns: a stream's queue length or a copy kind's memory bandwidth "
    "(GB/s), per column the least and greatest value it takes there and its value at the column's end, so a chart of "
    "millions of changes gets a few thousand numbers. Rows: the columns in time order.",
    {kRoundingParam,
     kTiesParam,
     {"counter", "queue (default) or bandwidth"},
     {"key", "the stream (queue) or the copy kind (bandwidth); required"},
     {"columns", "how many columns (default 600, at most 20000)"},
     {"from_us", "the window's start from the trace's start (default: the first change of any counter)"},
     {"to_us", "its end (default: the last change of any counter)"}},
    {
        {"t_us", ColumnType::kF64, "us", "the column's start, from the trace's start"},
        {"min", ColumnType::kF64, "", "the least value in the column"},
        {"max", ColumnType::kF64, "", "the greatest value in the column"},
        {"last", ColumnType::kF64, "", "the value at the column's end"},
    },
    {{"from_us", "number", "the window's start"}, {"to_us", "number", "the window's end"}, {"points", "number", "the series' change points"}},
    {"t_us", "min", "max", "last"},
};

const ViewSchema kGpuCounterTrackSchema = {
    "gpu-counter-track",
    "GpuCounterTrack",
    "The GPU time view's counters as samples for counter tracks on the Timeline (Perfetto's \"ph\":\"C\" events): every "
    "stream's queue length or every copy kind's memory bandwidth (GB/s), each series' value at the window's start and at "
    "each change in it; a series with more changes than `points` is given as its greatest value per column of `points` "
    "equal columns (and its value at the window's end), so a trace of millions of launches adds a few thousand events. "
    "Rows: by series, in time order.",
    {kRoundingParam,
     kTiesParam,
     {"counter", "queue (default) or bandwidth"},
     {"points", "the most samples a series keeps change by change (default 5000, 2 to 100000)"},
     {"from_us", "the window's start from the trace's start (default: the first change of any counter)"},
     {"to_us", "its end (default: the last change of any counter)"}},
    {
        {"series", ColumnType::kString, "", "the stream (queue) or the copy kind (bandwidth)"},
        {"pid", ColumnType::kString, "", "the process of the series' GPU events, as the trace writes it (the track's process)"},
        {"ts", ColumnType::kF64, "us", "the sample's time, absolute µs as the trace writes them (a trace event's ts)"},
        {"value", ColumnType::kF64, "", "the counter's value from then on (a column's greatest when the series is reduced)"},
    },
    {{"counter", "string", "queue or bandwidth"},
     {"reduced", "number", "how many series had more changes than points and are given per column"},
     {"from_us", "number", "the window's start, from the trace's start"},
     {"to_us", "number", "its end"}},
    {"series", "pid", "ts", "value"},
};

Answer gpu_counter_track_answer(const Session& s, QueryParamsRef params) {
  std::string error;
  const GpuQueueResult* r = queue_of(s, params, error);
  if (!r) return error_answer(kGpuCounterTrackSchema, error);
  const std::string_view counter = param(params, "counter", "queue");
  if (counter != "queue" && counter != "bandwidth")
    return error_answer(kGpuCounterTrackSchema, "unknown counter: " + std::string(counter) + " (queue or bandwidth)");
  const TraceModel& m = s.model();
  int64_t from = r->start_ns, to = r->end_ns;
  for (auto [name, out] : {std::pair{"from_us", &from}, std::pair{"to_us", &to}}) {
    const std::string_view text = param(params, name, "");
    if (text.empty()) continue;
    const std::optional<int64_t> ns = parse_us_to_ns(text);
    if (!ns) return error_answer(kGpuCounterTrackSchema, std::string(name) + " is not a number of µs: " + std::string(text));
    *out = m.start_ns + *ns;
  }
  if (to < from) return error_answer(kGpuCounterTrackSchema, "to_us is before from_us");
  size_t points = 5000;
  const std::string_view pts = param(params, "points", "");
  if (!pts.empty()) {
    const std::string t(pts);
    char* end = nullptr;
    const long v = std::strtol(t.c_str(), &end, 10);
    if (end != t.c_str() + t.size() || v < 2 || v > 100000) return error_answer(kGpuCounterTrackSchema, "points is not a count from 2 to 100000: " + t);
    points = size_t(v);
  }
  // Each series with its name and the process of its GPU events (the first one's pid).
  struct Series {
    std::string name;
    StringId pid = 0;
    const std::vector<CounterPoint>* points;
  };
  std::vector<Series> series;
  if (counter == "queue") {
    std::map<int64_t, StringId> pid_of;
    for (const KernelRow& k : m.kernels) pid_of.emplace(k.stream, k.s.pid);
    for (const MemcpyRow& k : m.memcpys) pid_of.emplace(k.stream, k.s.pid);
    for (const MemcpyRow& k : m.memsets) pid_of.emplace(k.stream, k.s.pid);
    for (const StreamQueue& q : r->streams) series.push_back({std::to_string(q.stream), pid_of.count(q.stream) ? pid_of[q.stream] : 0, &q.series});
  } else {
    std::map<std::string, StringId> pid_of;
    for (const MemcpyRow& k : m.memcpys) pid_of.emplace(memory_kind_of(m.strings.get(k.s.name)), k.s.pid);
    for (const MemcpyRow& k : m.memsets) pid_of.emplace(memory_kind_of(m.strings.get(k.s.name)), k.s.pid);
    for (const CopyBandwidth& k : r->bandwidth) series.push_back({k.kind, pid_of.count(k.kind) ? pid_of[k.kind] : 0, &k.series});
  }
  struct Sample {
    uint32_t series;
    int64_t t_ns;
    double value;
  };
  std::vector<Sample> samples;
  uint32_t reduced = 0;
  for (uint32_t i = 0; i < series.size(); ++i) {
    const std::vector<CounterPoint>& p = *series[i].points;
    auto first = std::upper_bound(p.begin(), p.end(), from, [](int64_t t, const CounterPoint& c) { return t < c.t_ns; });
    auto last = std::upper_bound(first, p.end(), to, [](int64_t t, const CounterPoint& c) { return t < c.t_ns; });
    if (size_t(last - first) + 1 <= points) {
      samples.push_back({i, from, first == p.begin() ? 0 : (first - 1)->value});
      for (auto it = first; it != last; ++it) samples.push_back({i, it->t_ns, it->value});
      continue;
    }
    ++reduced;
    const std::vector<CounterColumn> cols = counter_columns(p, from, to, int(points - 1));
    for (const CounterColumn& c : cols) samples.push_back({i, c.start_ns, c.max});
    samples.push_back({i, to, cols.empty() ? 0 : cols.back().last});
  }
  AnswerBuilder b(kGpuCounterTrackSchema, samples.size());
  {
    JsonWriter w;
    w.value(counter);
    b.meta("counter", w.take());
  }
  b.meta("reduced", std::to_string(reduced));
  {
    JsonWriter w;
    w.value(double(from - m.start_ns) / 1e3);
    b.meta("from_us", w.take());
  }
  {
    JsonWriter w;
    w.value(double(to - m.start_ns) / 1e3);
    b.meta("to_us", w.take());
  }
  b.rows_here();
  AnswerColumn& name = b.add("series");
  AnswerColumn& pid = b.add("pid");
  AnswerColumn& ts = b.add("ts");
  AnswerColumn& value = b.add("value");
  std::vector<uint32_t> name_ids, pid_ids;
  for (const Series& x : series) {
    name_ids.push_back(b.intern(x.name));
    pid_ids.push_back(b.intern(m.strings.get(x.pid)));
  }
  for (const Sample& x : samples) {
    name.str.push_back(name_ids[x.series]);
    pid.str.push_back(pid_ids[x.series]);
    ts.f64.push_back(double(x.t_ns) / 1e3);
    value.f64.push_back(x.value);
  }
  return b.take();
}

Answer gpu_queue_answer(const Session& s, QueryParamsRef params) {
  std::string error;
  const GpuQueueResult* r = queue_of(s, params, error);
  if (!r) return error_answer(kGpuQueueSchema, error);
  AnswerBuilder b(kGpuQueueSchema, r->streams.size());
  b.meta("queue_limit", std::to_string(kCudaQueueLimit));
  {
    JsonWriter w;
    if (r->streams.empty()) w.value("The trace has no launch call with a GPU event: no stream has a queue.");
    else w.null();
    b.meta("queue_note", w.take());
  }
  b.rows_here();
  AnswerColumn& stream = b.add("stream");
  AnswerColumn& launches = b.add("launches");
  std::vector<const Describe*> d;
  for (const StreamQueue& q : r->streams) {
    stream.f64.push_back(double(q.stream));
    launches.f64.push_back(double(q.launches));
    d.push_back(&q.stats);
  }
  stats_columns(b, d, 1);
  AnswerColumn& at_limit = b.add("time_at_limit_us");
  for (const StreamQueue& q : r->streams) at_limit.f64.push_back(double(q.time_at_limit_ns) / 1e3);
  return b.take();
}

Answer gpu_memory_bandwidth_answer(const Session& s, QueryParamsRef params) {
  std::string error;
  const GpuQueueResult* r = queue_of(s, params, error);
  if (!r) return error_answer(kGpuMemoryBandwidthSchema, error);
  AnswerBuilder b(kGpuMemoryBandwidthSchema, r->bandwidth.size());
  b.rows_here();
  AnswerColumn& kind = b.add("kind");
  AnswerColumn& events = b.add("events");
  AnswerColumn& bytes = b.add("bytes");
  AnswerColumn& busy = b.add("busy_us");
  std::vector<const Describe*> d;
  for (const CopyBandwidth& k : r->bandwidth) {
    kind.str.push_back(b.intern(k.kind));
    events.f64.push_back(double(k.events));
    bytes.f64.push_back(double(k.bytes));
    busy.f64.push_back(double(k.busy_ns) / 1e3);
    d.push_back(&k.stats);
  }
  stats_columns(b, d, 1);
  return b.take();
}

Answer gpu_counter_series_answer(const Session& s, QueryParamsRef params) {
  std::string error;
  const GpuQueueResult* r = queue_of(s, params, error);
  if (!r) return error_answer(kGpuCounterSeriesSchema, error);
  const std::string_view counter = param(params, "counter", "queue");
  const std::string_view key = param(params, "key", "");
  if (key.empty())
    return error_answer(kGpuCounterSeriesSchema, "--key is required: the stream (counter queue) or the copy kind (counter bandwidth)");
  const std::vector<CounterPoint>* series = nullptr;
  if (counter == "queue") {
    for (const StreamQueue& q : r->streams)
      if (std::to_string(q.stream) == key) series = &q.series;
  } else if (counter == "bandwidth") {
    for (const CopyBandwidth& k : r->bandwidth)
      if (k.kind == key) series = &k.series;
  } else {
    return error_answer(kGpuCounterSeriesSchema, "unknown counter: " + std::string(counter) + " (queue or bandwidth)");
  }
  if (!series)
    return error_answer(kGpuCounterSeriesSchema, "no " + std::string(counter) + " series named " + std::string(key) +
                                                     (counter == "queue" ? " (a stream of gpu-queue)" : " (a kind of gpu-memory-bandwidth)"));
  const TraceModel& m = s.model();
  int64_t from = r->start_ns, to = r->end_ns;
  for (auto [name, out] : {std::pair{"from_us", &from}, std::pair{"to_us", &to}}) {
    const std::string_view text = param(params, name, "");
    if (text.empty()) continue;
    const std::optional<int64_t> ns = parse_us_to_ns(text);
    if (!ns) return error_answer(kGpuCounterSeriesSchema, std::string(name) + " is not a number of µs: " + std::string(text));
    *out = m.start_ns + *ns;
  }
  int columns = 600;
  const std::string_view cols = param(params, "columns", "");
  if (!cols.empty()) {
    const std::string t(cols);
    char* end = nullptr;
    const long v = std::strtol(t.c_str(), &end, 10);
    if (end != t.c_str() + t.size() || v < 1 || v > 20000) return error_answer(kGpuCounterSeriesSchema, "columns is not a count from 1 to 20000: " + t);
    columns = int(v);
  }
  if (to <= from) to = from + 1;
  const std::vector<CounterColumn> c = counter_columns(*series, from, to, columns);
  AnswerBuilder b(kGpuCounterSeriesSchema, c.size());
  {
    JsonWriter w;
    w.value(double(from - m.start_ns) / 1e3);
    b.meta("from_us", w.take());
  }
  {
    JsonWriter w;
    w.value(double(to - m.start_ns) / 1e3);
    b.meta("to_us", w.take());
  }
  b.meta("points", std::to_string(series->size()));
  b.rows_here();
  AnswerColumn& t = b.add("t_us");
  AnswerColumn& lo = b.add("min");
  AnswerColumn& hi = b.add("max");
  AnswerColumn& last = b.add("last");
  for (const CounterColumn& x : c) {
    t.f64.push_back(double(x.start_ns - m.start_ns) / 1e3);
    lo.f64.push_back(x.min);
    hi.f64.push_back(x.max);
    last.f64.push_back(x.last);
  }
  return b.take();
}

}  // namespace ks
