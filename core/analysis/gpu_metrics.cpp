#include "core/analysis/gpu_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/util/intervals.h"

namespace ks {

namespace {

// The timeline's window: the "PyTorch Profiler (0)" trace range, else every event tb_plugin keeps.
std::pair<int64_t, int64_t> global_window(const TraceModel& m) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  bool from_trace = false;
  for (const InstantRow& r : m.others) {
    if (r.dur_ns >= 0 && m.strings.get(r.name) == "PyTorch Profiler (0)") {
      lo = r.ts_ns;
      hi = r.ts_ns + r.dur_ns;
      from_trace = true;
    }
  }
  if (from_trace) return {lo, hi};
  auto span = [&](const SliceRow& s) { lo = std::min<int64_t>(lo, s.ts_ns); hi = std::max(hi, s.ts_ns + m.dur_ns(s)); };
  for (const auto& r : m.cpu_ops) span(r.s);
  for (const auto& r : m.user_annotations) span(r.s);
  for (const auto& r : m.gpu_annotations) span(r.s);
  for (const auto& r : m.python_functions) span(r.s);
  for (const auto& r : m.runtimes) span(r);
  for (const auto& r : m.kernels) span(r.s);
  for (const auto& r : m.memcpys) span(r.s);
  for (const auto& r : m.memsets) span(r.s);
  for (const InstantRow& r : m.others) {
    const std::string_view cat = m.strings.get(r.cat);
    if (r.dur_ns >= 0 && (cat == "Trace" || cat == "trace")) {
      lo = std::min(lo, r.ts_ns);
      hi = std::max(hi, r.ts_ns + r.dur_ns);
    }
  }
  return {lo, hi};
}

}  // namespace

float kernel_occupancy(const KernelRow& k, bool tb_plugin) {
  if (!tb_plugin && k.occupancy_pct == 0 && k.warps_per_sm >= 1) return std::numeric_limits<float>::quiet_NaN();
  return k.occupancy_pct;
}

GpuMetricsResult gpu_metrics(const TraceModel& m, const StepsResult& steps, bool tb_plugin) {
  GpuMetricsResult out;
  if (steps.steps.empty()) return out;
  const int64_t S = steps.steps.front().start_ns, E = steps.steps.back().end_ns;
  out.window_start_ns = S;
  out.window_end_ns = E;
  const double window = double(E - S);
  std::map<int, std::vector<const KernelRow*>> by_device;
  for (const KernelRow& k : m.kernels)
    if (k.device >= 0) by_device[k.device].push_back(&k);

  const auto [gs, ge] = global_window(m);
  int64_t bucket = 1000;  // 1 us, grown by 10x until at most ~100 buckets
  while (ge > gs && double(ge - gs) / double(bucket) > 100) bucket *= 10;
  const int64_t n_buckets = ge > gs ? (ge - gs) / bucket : 0;
  out.bucket_ns = bucket;

  for (const auto& [device, kernels] : by_device) {
    GpuMetrics g;
    g.device = device;
    Ranges busy;
    busy.reserve(kernels.size());
    for (const KernelRow* k : kernels) busy.push_back({k->s.ts_ns, k->s.ts_ns + m.dur_ns(k->s)});
    busy = merge_ranges(std::move(busy));
    if (window > 0) g.utilization = double(overlap_sum(busy, S, E)) / window;

    // Est. SM efficiency: sweep over kernel starts/ends, starts first at equal times.
    // Allocated once at its size and sorted in place (`index`, the order of insertion, keeps
    // the sums' order that a stable sort gave): a growing vector and a stable sort's buffer
    // held up to four times the edges at the Overview's peak.
    struct Edge {
      int64_t t;
      double v;
      uint32_t index;
      bool start;
    };
    std::vector<Edge> edges;
    size_t with_blocks = 0;
    for (const KernelRow* k : kernels) with_blocks += k->blocks_per_sm > 0;
    edges.reserve(2 * with_blocks);
    for (const KernelRow* k : kernels) {
      const double v = k->blocks_per_sm;
      if (!(v > 0)) continue;
      ++g.blocks_per_sm_count;
      edges.push_back({k->s.ts_ns, v, uint32_t(edges.size()), true});
      edges.push_back({k->s.ts_ns + m.dur_ns(k->s), v, uint32_t(edges.size()), false});
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
      if (a.t != b.t) return a.t < b.t;
      if (a.start != b.start) return a.start;
      return a.index < b.index;
    });
    if (!edges.empty()) {
      double acc = edges[0].v, weighted = 0;
      bool any = false;
      for (size_t i = 1; i < edges.size(); ++i) {
        const int64_t a = edges[i - 1].t, b = edges[i].t;
        if (b > a && acc > 0) {
          const int64_t cs = std::max(a, S), ce = std::min(b, E);
          if (cs < ce) {
            weighted += double(ce - cs) * std::min(acc, 1.0);
            any = true;
          }
        }
        acc += edges[i].start ? edges[i].v : -edges[i].v;
      }
      if (any && window > 0) g.sm_efficiency = weighted / window;
    }

    // Est. achieved occupancy: duration-weighted over the window, kernels not merged.
    double num = 0, den = 0;
    for (const KernelRow* k : kernels) {
      const double o = kernel_occupancy(*k, tb_plugin);
      if (!(o >= 0)) continue;
      ++g.occupancy_count;
      const int64_t cs = std::max<int64_t>(k->s.ts_ns, S), ce = std::min(k->s.ts_ns + m.dur_ns(k->s), E);
      if (cs < ce) {
        num += o * double(ce - cs);
        den += double(ce - cs);
      }
    }
    if (den > 0) g.occupancy_pct = num / den;

    // Utilization timeline. Each bucket's busy time by a binary search to it: intersecting the
    // whole busy list with each of ~100 buckets walked and copied it ~100 times (15% of the
    // Overview's first part in wasm on a 480 MiB trace).
    for (int64_t i = 0; i < n_buckets; ++i) {
      const int64_t bs = gs + i * bucket, be = i + 1 == n_buckets ? ge : bs + bucket;
      g.timeline.emplace_back(bs, double(overlap_sum(busy, bs, be)) / double(be - bs));
    }
    if (n_buckets > 0) g.timeline.emplace_back(ge, 0.0);
    out.gpus.push_back(std::move(g));
  }
  return out;
}

}  // namespace ks
