#include "core/analysis/gpu_idle.h"

#include <algorithm>
#include <cmath>

namespace ks {

const char* idle_category_name(IdleCategory c) {
  switch (c) {
    case IdleCategory::kHostWait: return "host_wait";
    case IdleCategory::kKernelWait: return "kernel_wait";
    case IdleCategory::kOther: return "other";
  }
  return "";
}

namespace {

// pandas' quantile (linear interpolation between the two nearest ranks) of sorted values.
double quantile(const std::vector<int64_t>& sorted, double q) {
  const double at = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(at));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return double(sorted[lo]) + (at - double(lo)) * double(sorted[hi] - sorted[lo]);
}

IdleIntervalStats describe(std::vector<int64_t>& v) {
  IdleIntervalStats s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (int64_t x : v) sum += double(x);
  s.mean = sum / double(v.size());
  double sq = 0;
  for (int64_t x : v) sq += (double(x) - s.mean) * (double(x) - s.mean);
  s.std = v.size() > 1 ? std::sqrt(sq / double(v.size() - 1)) : std::nan("");
  s.min = double(v.front());
  s.max = double(v.back());
  s.p25 = quantile(v, 0.25);
  s.p50 = quantile(v, 0.5);
  s.p75 = quantile(v, 0.75);
  return s;
}

}  // namespace

void sort_idle_events(std::vector<ScopedGpuEvent>& events) {
  // By stream, then start (then end, so a tie is read the same way every time).
  std::sort(events.begin(), events.end(), [](const ScopedGpuEvent& a, const ScopedGpuEvent& b) {
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns < b.end_ns;
  });
}

std::vector<IdleGap> idle_gaps(const std::vector<ScopedGpuEvent>& events, const GpuIdleOptions& options) {
  const bool hta = options.rounding == GpuTimeRounding::kHta;
  std::vector<IdleGap> out;
  for (size_t i = 0; i < events.size();) {
    size_t j = i;
    while (j < events.size() && events[j].stream == events[i].stream) ++j;
    int64_t prev_end = events[i].end_ns;
    for (size_t k = i + 1; k < j; ++k) {
      const ScopedGpuEvent& e = events[k];
      const int64_t gap = hta ? e.start_ns - prev_end : std::max<int64_t>(e.start_ns - prev_end, 0);
      IdleCategory c = IdleCategory::kOther;
      if (e.launch_ns != kNoLaunch && e.launch_ns > prev_end) c = IdleCategory::kHostWait;
      else if (gap < options.kernel_wait_ns) c = IdleCategory::kKernelWait;
      out.push_back({e.stream, prev_end, gap, c, k});
      prev_end = hta ? e.end_ns : std::max(prev_end, e.end_ns);
    }
    i = j;
  }
  return out;
}

GpuIdleResult gpu_idle_of(std::vector<ScopedGpuEvent> events, const GpuIdleOptions& options) {
  sort_idle_events(events);
  const std::vector<IdleGap> all = idle_gaps(events, options);
  GpuIdleResult out;
  std::vector<std::pair<int64_t, size_t>> first_start;  // (first start, stream's index) for the order
  size_t g = 0;
  for (size_t i = 0; i < events.size();) {
    size_t j = i;
    while (j < events.size() && events[j].stream == events[i].stream) ++j;
    StreamIdle s;
    s.stream = events[i].stream;
    s.events = j - i;
    std::array<std::vector<int64_t>, kIdleCategories> gaps;
    for (; g < all.size() && all[g].next < j; ++g) {
      gaps[size_t(all[g].category)].push_back(all[g].gap_ns);
      s.idle_ns[size_t(all[g].category)] += all[g].gap_ns;
    }
    for (size_t c = 0; c < kIdleCategories; ++c) s.intervals[c] = describe(gaps[c]);
    first_start.emplace_back(events[i].start_ns, out.streams.size());
    out.streams.push_back(s);
    i = j;
  }
  std::stable_sort(first_start.begin(), first_start.end());
  GpuIdleResult ordered;
  for (const auto& [start, index] : first_start) ordered.streams.push_back(out.streams[index]);
  return ordered;
}

GpuIdleResult gpu_idle(const TraceModel& m, const GpuIdleOptions& options) {
  return gpu_idle_of(hta_scoped(m, options.rounding).events, options);
}

}  // namespace ks
