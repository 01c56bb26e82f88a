#include "core/analysis/gpu_launches.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ks {

namespace {

// pandas' quantile (linear interpolation between the two nearest ranks) of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(at));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (at - double(lo)) * (sorted[hi] - sorted[lo]);
}

// The calls HTA's symbol table counts as launching GPU work (get_runtime_launch_events_mask).
constexpr std::array<std::string_view, 11> kLaunchCalls = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",     "cuLaunchKernelEx", "cudaMemcpyAsync",     "cudaMemsetAsync",
    "hipLaunchKernel",  "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",  "hipMemcpyWithStream",
};

}  // namespace

Describe describe_values(std::vector<double> v) {
  Describe d;
  d.count = v.size();
  if (v.empty()) {
    d.mean = d.std = d.min = d.p25 = d.p50 = d.p75 = d.max = std::nan("");
    return d;
  }
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / double(v.size());
  double sq = 0;
  for (double x : v) sq += (x - d.mean) * (x - d.mean);
  d.std = v.size() > 1 ? std::sqrt(sq / double(v.size() - 1)) : std::nan("");
  d.min = v.front();
  d.max = v.back();
  d.p25 = quantile(v, 0.25);
  d.p50 = quantile(v, 0.5);
  d.p75 = quantile(v, 0.75);
  return d;
}

bool is_hta_launch_call(std::string_view name) {
  return std::find(kLaunchCalls.begin(), kLaunchCalls.end(), name) != kLaunchCalls.end();
}

bool is_hta_launch_stats_call(std::string_view name) {
  return name == "cudaLaunchKernel" || name == "cudaLaunchKernelExC" || name == "cudaMemcpyAsync" || name == "cudaMemsetAsync";
}

bool is_short_kernel(const KernelLaunch& k, const LaunchStatsOptions& o) {
  return k.cpu_dur_ns <= o.runtime_cutoff_ns && k.gpu_dur_ns < k.cpu_dur_ns;
}

LaunchStatsResult gpu_launch_stats(const TraceModel& m, const OpTree* tree, const LaunchStatsOptions& o) {
  return gpu_launch_stats(m, hta_scoped(m, o.rounding), tree, o);
}

LaunchStatsResult gpu_launch_stats(const TraceModel& m, const HtaScoped& scoped, const OpTree* tree, const LaunchStatsOptions& o) {
  const bool hta = o.rounding == GpuTimeRounding::kHta;
  const int64_t cut = scoped.cut;
  // The launch calls in scope by correlation: (correlation, launch index), the first call of a
  // correlation when a writer repeats one.
  std::vector<uint8_t> is_launch_name(m.strings.size(), 2);
  auto launch_name = [&](StringId id) {
    auto test = [&](std::string_view n) { return o.hta_calls_only ? is_hta_launch_stats_call(n) : is_hta_launch_call(n); };
    if (id >= is_launch_name.size()) return test(m.strings.get(id));
    if (is_launch_name[id] == 2) is_launch_name[id] = test(m.strings.get(id)) ? 1 : 0;
    return is_launch_name[id] == 1;
  };
  std::vector<std::pair<int64_t, uint32_t>> calls;
  auto slice_of = [&](uint32_t i) -> const SliceRow& { return i < m.runtimes.size() ? m.runtimes[i] : m.drivers[i - m.runtimes.size()]; };
  const size_t n_calls = m.runtimes.size() + m.drivers.size();
  for (uint32_t i = 0; i < n_calls; ++i) {
    const SliceRow& r = slice_of(i);
    const int64_t c = m.id_value(r.correlation);
    if (c == kNoId || c <= 0 || !launch_name(r.name)) continue;
    const int64_t start = hta ? hta_round_start(r.ts_ns) : int64_t(r.ts_ns);
    if (start >= cut) continue;
    calls.emplace_back(c, i);
  }
  std::stable_sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint8_t> matched(calls.size(), 0);
  LaunchStatsResult out;
  for (const ScopedGpuEvent& e : scoped.events) {
    if (e.correlation == kNoId) continue;
    auto it = std::lower_bound(calls.begin(), calls.end(), e.correlation, [](const auto& a, int64_t c) { return a.first < c; });
    if (it == calls.end() || it->first != e.correlation) continue;
    matched[size_t(it - calls.begin())] = 1;
    const SliceRow& r = slice_of(it->second);
    const int64_t dur = std::max<int64_t>(m.dur_ns(r), 0);
    KernelLaunch k;
    k.correlation = e.correlation;
    k.call = it->second;
    k.cpu_start_ns = hta ? hta_round_start(r.ts_ns) : int64_t(r.ts_ns);
    const int64_t cpu_end = hta ? hta_round_end(r.ts_ns, dur) : int64_t(r.ts_ns) + dur;
    k.cpu_dur_ns = cpu_end - k.cpu_start_ns;
    k.gpu_start_ns = e.start_ns;
    k.gpu_dur_ns = e.end_ns - e.start_ns;
    k.delay_ns = std::max<int64_t>(e.start_ns - cpu_end, 0);
    k.stream = e.stream;
    k.call_name = r.name;
    k.gpu_name = e.name;
    out.launches.push_back(k);
  }
  for (uint8_t x : matched) out.calls_without_gpu_event += x ? 0 : 1;
  std::sort(out.launches.begin(), out.launches.end(), [](const KernelLaunch& a, const KernelLaunch& b) {
    if (a.cpu_start_ns != b.cpu_start_ns) return a.cpu_start_ns < b.cpu_start_ns;
    if (a.correlation != b.correlation) return a.correlation < b.correlation;
    return a.gpu_start_ns < b.gpu_start_ns;
  });

  std::vector<double> cpu, gpu, delay;
  cpu.reserve(out.launches.size());
  gpu.reserve(out.launches.size());
  delay.reserve(out.launches.size());
  for (const KernelLaunch& k : out.launches) {
    cpu.push_back(double(k.cpu_dur_ns));
    gpu.push_back(double(k.gpu_dur_ns));
    delay.push_back(double(k.delay_ns));
    out.short_kernels += is_short_kernel(k, o) ? 1 : 0;
    out.runtime_outliers += k.cpu_dur_ns > o.runtime_cutoff_ns ? 1 : 0;
    out.delay_outliers += k.delay_ns > o.launch_delay_cutoff_ns ? 1 : 0;
  }
  out.cpu = describe_values(std::move(cpu));
  out.gpu = describe_values(std::move(gpu));
  out.delay = describe_values(std::move(delay));

  // Each call's operator: the innermost operator node around the node that took the launch.
  std::vector<int32_t> node_of(tree ? tree->stats.launches : 0, -1);
  if (tree) {
    for (size_t n = 0; n < tree->nodes.size(); ++n)
      for (int32_t l = tree->nodes[n].first_launch; l >= 0; l = tree->launches[size_t(l)].next) {
        const uint32_t i = launch_index(*tree, tree->launches[size_t(l)]);
        if (i != kDummyLaunch && i < node_of.size()) node_of[i] = int32_t(n);
      }
  }
  // Summed per operator name: first by the name's id (its text made once per name, not per launch;
  // the last slot: no operator), then ordered by the text, equal texts joined, as a map by name.
  std::vector<int32_t> slot_of(m.strings.size() + 1, -1);
  std::vector<LaunchOperator> ops;
  for (const KernelLaunch& k : out.launches) {
    int32_t n = k.call < node_of.size() ? node_of[k.call] : -1;
    while (n >= 0 && !tree->nodes[size_t(n)].is_operator) n = tree->nodes[size_t(n)].parent;
    const StringId id = n >= 0 ? node_slice(m, tree->nodes[size_t(n)]).name : StringId(m.strings.size());
    const size_t at = id < m.strings.size() ? size_t(id) : m.strings.size();
    if (slot_of[at] < 0) {
      slot_of[at] = int32_t(ops.size());
      ops.emplace_back().name = n >= 0 ? std::string(m.strings.get(id)) : std::string();
    }
    LaunchOperator& op = ops[size_t(slot_of[at])];
    ++op.launches;
    op.short_kernels += is_short_kernel(k, o) ? 1 : 0;
    op.cpu_ns += k.cpu_dur_ns;
    op.gpu_ns += k.gpu_dur_ns;
    op.delay_ns += k.delay_ns;
  }
  std::sort(ops.begin(), ops.end(), [](const LaunchOperator& a, const LaunchOperator& b) { return a.name < b.name; });
  for (LaunchOperator& op : ops) {
    if (!out.operators.empty() && out.operators.back().name == op.name) {
      LaunchOperator& into = out.operators.back();
      into.launches += op.launches;
      into.short_kernels += op.short_kernels;
      into.cpu_ns += op.cpu_ns;
      into.gpu_ns += op.gpu_ns;
      into.delay_ns += op.delay_ns;
    } else {
      out.operators.push_back(std::move(op));
    }
  }
  std::stable_sort(out.operators.begin(), out.operators.end(),
                   [](const LaunchOperator& a, const LaunchOperator& b) { return a.launches > b.launches; });
  return out;
}

}  // namespace ks
