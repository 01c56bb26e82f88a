#include "core/analysis/gpu_queue.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace ks {

std::string memory_kind_of(std::string_view name) {
  if (name.substr(0, 6) == "Memset") return "Memset";
  if (name.substr(0, 6) != "Memcpy") return "Memcpy Unknown";
  return std::string(name.substr(0, 11));
}

namespace {

struct Change {
  int64_t t;
  uint8_t order;  // at equal times: launches (0) before GPU events (1)
  uint64_t seq;   // then the trace's order
  double delta;
};

std::vector<CounterPoint> accumulate(std::vector<Change>& changes, Describe* stats, bool positive_only) {
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.order != b.order) return a.order < b.order;
    return a.seq < b.seq;
  });
  std::vector<CounterPoint> out;
  std::vector<double> values;
  out.reserve(changes.size());
  values.reserve(changes.size());
  double v = 0;
  for (const Change& c : changes) {
    v += c.delta;
    // Bandwidths are sums of doubles: what should be 0 may be 1e-13.
    if (positive_only && std::abs(v) < 1e-9) v = 0;
    if (!positive_only || v > 0) values.push_back(v);
    if (!out.empty() && out.back().t_ns == c.t) out.back().value = v;
    else out.push_back({c.t, v});
  }
  *stats = describe_values(std::move(values));
  return out;
}

}  // namespace

GpuQueueResult gpu_queue(const TraceModel& m, const GpuQueueOptions& o) { return gpu_queue(m, hta_scoped(m, o.rounding), o); }

GpuQueueResult gpu_queue(const TraceModel& m, const HtaScoped& scoped, const GpuQueueOptions& o) {
  // Queue length: the launches of the launch statistics (their calls and GPU events).
  LaunchStatsOptions lo;
  lo.rounding = o.rounding;
  return gpu_queue(m, scoped, gpu_launch_stats(m, scoped, nullptr, lo), o);
}

GpuQueueResult gpu_queue(const TraceModel& m, const HtaScoped& scoped, const LaunchStatsResult& launches, const GpuQueueOptions& o) {
  const bool hta = o.rounding == GpuTimeRounding::kHta;
  GpuQueueResult out;
  std::map<int64_t, std::vector<Change>> by_stream;
  std::map<int64_t, uint64_t> launch_count;
  uint64_t seq = 0;
  for (const KernelLaunch& k : launches.launches) {
    by_stream[k.stream].push_back({k.cpu_start_ns, uint8_t(o.starts_first ? 1 : 0), seq++, 1.0});
    ++launch_count[k.stream];
  }
  // The GPU events in their own order (by start), after every call, as HTA concatenates them.
  std::vector<const KernelLaunch*> gpu_order;
  for (const KernelLaunch& k : launches.launches) gpu_order.push_back(&k);
  std::stable_sort(gpu_order.begin(), gpu_order.end(), [](const KernelLaunch* a, const KernelLaunch* b) { return a->gpu_start_ns < b->gpu_start_ns; });
  for (const KernelLaunch* k : gpu_order) by_stream[k->stream].push_back({k->gpu_start_ns, uint8_t(o.starts_first ? 0 : 1), seq++, -1.0});
  bool any = false;
  auto span = [&](const std::vector<CounterPoint>& s) {
    if (s.empty()) return;
    out.start_ns = any ? std::min(out.start_ns, s.front().t_ns) : s.front().t_ns;
    out.end_ns = any ? std::max(out.end_ns, s.back().t_ns) : s.back().t_ns;
    any = true;
  };
  for (auto& [stream, changes] : by_stream) {
    StreamQueue q;
    q.stream = stream;
    q.launches = launch_count[stream];
    // The values after each change, one per change (HTA's rows), for the summary.
    std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
      if (a.t != b.t) return a.t < b.t;
      if (a.order != b.order) return a.order < b.order;
      return a.seq < b.seq;
    });
    std::vector<double> values;
    values.reserve(changes.size());
    double v = 0;
    for (size_t i = 0; i < changes.size(); ++i) {
      v += changes[i].delta;
      values.push_back(v);
      if (v >= double(kCudaQueueLimit) && i + 1 < changes.size()) q.time_at_limit_ns += changes[i + 1].t - changes[i].t;
      if (!q.series.empty() && q.series.back().t_ns == changes[i].t) q.series.back().value = v;
      else q.series.push_back({changes[i].t, v});
    }
    q.stats = describe_values(std::move(values));
    span(q.series);
    out.streams.push_back(std::move(q));
  }

  // Memory bandwidth: the memcpys and memsets of HTA's scope, their kind read once per name.
  std::vector<CopyBandwidth> kinds;
  std::vector<std::vector<Change>> by_kind;
  std::vector<int32_t> kind_of_name(m.strings.size(), -1);
  auto kind_index = [&](StringId name) {
    if (name < kind_of_name.size() && kind_of_name[name] >= 0) return size_t(kind_of_name[name]);
    const std::string kind = memory_kind_of(m.strings.get(name));
    size_t k = 0;
    while (k < kinds.size() && kinds[k].kind != kind) ++k;
    if (k == kinds.size()) {
      kinds.emplace_back().kind = kind;
      by_kind.emplace_back();
    }
    if (name < kind_of_name.size()) kind_of_name[name] = int32_t(k);
    return k;
  };
  const int64_t cut = scoped.cut;
  std::vector<int64_t> in_scope_corr;
  if (cut != std::numeric_limits<int64_t>::max())
    for (const ScopedGpuEvent& e : scoped.events)
      if (e.kind == GpuWorkKind::kMemory && e.correlation != kNoId) in_scope_corr.push_back(e.correlation);
  std::sort(in_scope_corr.begin(), in_scope_corr.end());
  seq = 0;
  for (const auto* table : {&m.memcpys, &m.memsets})
    for (const MemcpyRow& c : *table) {
      if (c.stream == -1) continue;
      const int64_t corr = m.id_value(c.s.correlation);
      if (cut != std::numeric_limits<int64_t>::max() &&
          (c.stream <= 0 || (corr != kNoId && !std::binary_search(in_scope_corr.begin(), in_scope_corr.end(), corr))))
        continue;
      const int64_t ts = c.s.ts_ns;
      const int64_t dur = std::max<int64_t>(m.dur_ns(c.s), 0);
      int64_t start = hta ? hta_round_start(ts) : ts;
      int64_t end = hta ? hta_round_end(ts, dur) : ts + dur;
      // HTA gives an event of 0 µs 1 µs (its issue 20); exact times give it 1 ns.
      if (end <= start) end = start + (hta ? 1000 : 1);
      double gbps = c.bandwidth_gbps;
      if (!(gbps >= 0)) gbps = c.bytes >= 0 && dur > 0 ? double(c.bytes) / double(dur) : 0;
      const size_t ki = kind_index(c.s.name);
      CopyBandwidth& k = kinds[ki];
      ++k.events;
      if (c.bytes > 0) k.bytes += c.bytes;
      k.busy_ns += end - start;
      by_kind[ki].push_back({start, 0, seq++, gbps});
      by_kind[ki].push_back({end, 0, seq++, -gbps});
    }
  // By kind's name, as HTA groups them.
  std::vector<size_t> order(kinds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return kinds[a].kind < kinds[b].kind; });
  for (size_t i : order) {
    CopyBandwidth& k = kinds[i];
    std::vector<Change>& changes = by_kind[i];
    // At equal times an end (-) before a start (+): back-to-back copies do not add up.
    for (Change& c : changes) c.order = c.delta < 0 ? 0 : 1;
    k.series = accumulate(changes, &k.stats, true);
    span(k.series);
    out.bandwidth.push_back(std::move(k));
  }
  return out;
}

std::vector<CounterColumn> counter_columns(const std::vector<CounterPoint>& series, int64_t from_ns, int64_t to_ns, int columns) {
  std::vector<CounterColumn> out;
  if (columns <= 0 || to_ns <= from_ns) return out;
  out.resize(size_t(columns));
  const double width = double(to_ns - from_ns) / double(columns);
  // The value carried into the window.
  auto it = std::upper_bound(series.begin(), series.end(), from_ns, [](int64_t t, const CounterPoint& p) { return t < p.t_ns; });
  double v = it == series.begin() ? 0 : (it - 1)->value;
  for (int c = 0; c < columns; ++c) {
    const int64_t start = from_ns + int64_t(double(c) * width);
    const int64_t end = c + 1 == columns ? to_ns : from_ns + int64_t(double(c + 1) * width);
    CounterColumn& col = out[size_t(c)];
    col.start_ns = start;
    col.min = col.max = v;
    // The last column takes the window's end too: a series' last change (its fall to 0) is drawn.
    const bool last_column = c + 1 == columns;
    for (; it != series.end() && (it->t_ns < end || (last_column && it->t_ns == end)); ++it) {
      v = it->value;
      col.min = std::min(col.min, v);
      col.max = std::max(col.max, v);
    }
    col.last = v;
  }
  return out;
}

}  // namespace ks
