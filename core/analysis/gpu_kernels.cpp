#include "core/analysis/gpu_kernels.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/util/intervals.h"

namespace ks {

const char* kernel_type_name(KernelType t) {
  switch (t) {
    case KernelType::kComputation: return "COMPUTATION";
    case KernelType::kCommunication: return "COMMUNICATION";
    case KernelType::kMemory: return "MEMORY";
  }
  return "";
}

KernelType kernel_type_of(GpuWorkKind k) {
  switch (k) {
    case GpuWorkKind::kCommunication: return KernelType::kCommunication;
    case GpuWorkKind::kMemory: return KernelType::kMemory;
    case GpuWorkKind::kComputation:
    case GpuWorkKind::kSync: return KernelType::kComputation;  // hta_scoped_events has none
  }
  return KernelType::kComputation;
}

std::string kernel_type_set_name(unsigned set) {
  std::string out;
  for (size_t t = 0; t < kKernelTypes; ++t) {
    if (!(set & (1u << t))) continue;
    if (!out.empty()) out += " overlapping ";
    out += kernel_type_name(KernelType(t));
  }
  return out;
}

namespace {

// Count, sum, min, max and the sum of squared deviations (Welford), mergeable (Chan et al.).
struct Moments {
  uint64_t n = 0;
  int64_t sum = 0, min = 0, max = 0;
  double mean = 0, m2 = 0;
  void add(int64_t x) {
    min = n ? std::min(min, x) : x;
    max = n ? std::max(max, x) : x;
    ++n;
    sum += x;
    const double d = double(x) - mean;
    mean += d / double(n);
    m2 += d * (double(x) - mean);
  }
  void merge(const Moments& o) {
    if (!o.n) return;
    if (!n) {
      *this = o;
      return;
    }
    const double d = o.mean - mean;
    const uint64_t total = n + o.n;
    m2 += o.m2 + d * d * double(n) * double(o.n) / double(total);
    mean += d * double(o.n) / double(total);
    min = std::min(min, o.min);
    max = std::max(max, o.max);
    sum += o.sum;
    n = total;
  }
  double stddev() const { return n > 1 ? std::sqrt(m2 / double(n - 1)) : 0.0; }
};

TopKernel row_of(KernelType type, std::string name, const Moments& m) {
  TopKernel k;
  k.type = type;
  k.name = std::move(name);
  k.calls = m.n;
  k.sum_ns = m.sum;
  k.min_ns = m.min;
  k.max_ns = m.max;
  k.mean_ns = double(m.sum) / double(m.n);
  k.stddev_ns = m.stddev();
  return k;
}

}  // namespace

GpuKernelsResult gpu_kernels_of(const std::vector<ScopedGpuEvent>& events, const StringPool& strings, const GpuKernelsOptions& options) {
  const bool hta = options.rounding == GpuTimeRounding::kHta;
  GpuKernelsResult out;
  // Kernel types: each type's work merged, then swept.
  std::array<Ranges, kKernelTypes> by_type;
  for (const ScopedGpuEvent& e : events) by_type[size_t(kernel_type_of(e.kind))].push_back({e.start_ns, e.end_ns});
  std::vector<std::pair<int64_t, int>> edges;  // (time, +bit at a start / -bit at an end)
  for (size_t t = 0; t < kKernelTypes; ++t) {
    const int bit = 1 << t;
    for (const Range& r : hta ? hta_merged_ranges(std::move(by_type[t])) : merge_ranges(std::move(by_type[t]))) {
      edges.emplace_back(r.start, bit);
      edges.emplace_back(r.end, -bit);
    }
  }
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::array<int64_t, 1u << kKernelTypes> time{};
  int running = 0;
  for (size_t i = 0; i < edges.size();) {
    const int64_t at = edges[i].first;
    while (i < edges.size() && edges[i].first == at) running += edges[i++].second;
    // With HTA's rounding an inverted range makes the running set briefly not a set (below 0 or
    // an end before its start): HTA counts no type there, nor does this.
    if (i < edges.size() && running > 0 && running < int(time.size())) time[size_t(running)] += edges[i].first - at;
  }
  for (unsigned set = 1; set < time.size(); ++set)
    if (time[set] != 0) {
      out.types.push_back({set, time[set]});
      out.busy_ns += time[set];
    }
  std::stable_sort(out.types.begin(), out.types.end(), [](const KernelTypeTime& a, const KernelTypeTime& b) { return a.ns > b.ns; });

  // Top kernels: per type and name.
  std::array<std::unordered_map<StringId, Moments>, kKernelTypes> names;
  for (const ScopedGpuEvent& e : events) names[size_t(kernel_type_of(e.kind))][e.name].add(e.end_ns - e.start_ns);
  for (size_t t = 0; t < kKernelTypes; ++t) {
    struct Named {
      std::string name;
      Moments m;
    };
    std::vector<Named> rows;
    for (const auto& [id, m] : names[t]) rows.push_back({std::string(strings.get(id)), m});
    std::sort(rows.begin(), rows.end(), [](const Named& a, const Named& b) { return a.m.sum != b.m.sum ? a.m.sum > b.m.sum : a.name < b.name; });
    std::vector<bool> named(rows.size(), true);
    if (rows.size() > options.num_kernels) {
      // HTA's rule: a name is kept when its running sum is at most the running sums'
      // duration_ratio quantile and it is among the first num_kernels.
      std::vector<double> running(rows.size());
      double acc = 0;
      for (size_t i = 0; i < rows.size(); ++i) running[i] = acc += double(rows[i].m.sum);
      std::vector<double> sorted = running;
      std::sort(sorted.begin(), sorted.end());
      const double at = options.duration_ratio * double(sorted.size() - 1);
      const size_t lo = size_t(std::floor(at)), hi = std::min(lo + 1, sorted.size() - 1);
      const double q = sorted[lo] + (at - double(lo)) * (sorted[hi] - sorted[lo]);
      for (size_t i = 0; i < rows.size(); ++i) named[i] = i < options.num_kernels && running[i] <= q;
    }
    Moments rest;
    uint64_t rest_names = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (named[i]) {
        out.top.push_back(row_of(KernelType(t), rows[i].name, rows[i].m));
      } else {
        rest.merge(rows[i].m);
        ++rest_names;
      }
    }
    if (rest_names) {
      TopKernel k = row_of(KernelType(t), "others", rest);
      k.others = true;
      k.kernels = rest_names;
      out.top.push_back(std::move(k));
    }
  }
  return out;
}

GpuKernelsResult gpu_kernels(const TraceModel& m, const GpuKernelsOptions& options) {
  return gpu_kernels_of(hta_scoped(m, options.rounding).events, m.strings, options);
}

}  // namespace ks
