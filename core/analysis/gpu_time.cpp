#include "core/analysis/gpu_time.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/util/intervals.h"

namespace ks {

const char* gpu_work_kind_name(GpuWorkKind k) {
  switch (k) {
    case GpuWorkKind::kComputation: return "computation";
    case GpuWorkKind::kCommunication: return "communication";
    case GpuWorkKind::kMemory: return "memory";
    case GpuWorkKind::kSync: return "sync";
  }
  return "";
}

GpuWorkKind classify_gpu_work(std::string_view name, bool copy_event) {
  // HTA's is_comm_kernel: NCCL's kernels (and RCCL's, which keep the prefix) and gloo's. Its
  // prefix test is case-sensitive; no GPU library names a kernel "NCCL…", and the rule
  // reads "any case", so any case it is.
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
  const bool nccl = name.size() >= 4 && lower(name[0]) == 'n' && lower(name[1]) == 'c' && lower(name[2]) == 'c' &&
                    lower(name[3]) == 'l';
  if (nccl || name.find("gloo:") != std::string_view::npos) return GpuWorkKind::kCommunication;
  if (copy_event || name.find("Memcpy") != std::string_view::npos || name.find("Memset") != std::string_view::npos)
    return GpuWorkKind::kMemory;
  return GpuWorkKind::kComputation;
}

bool parse_gpu_time_rounding(std::string_view word, GpuTimeRounding& out) {
  if (word == "ns") out = GpuTimeRounding::kExact;
  else if (word == "hta") out = GpuTimeRounding::kHta;
  else return false;
  return true;
}

const char* gpu_time_rounding_word(GpuTimeRounding r) { return r == GpuTimeRounding::kHta ? "hta" : "ns"; }

namespace {

// A time as HTA holds it: the trace's µs read as a double (Python's float). At today's epoch
// times doubles are 0.25 µs apart, so this is the nearest quarter µs, not the ns the text gives.
double hta_us(int64_t ns) { return double(ns / 1000) + double(ns % 1000) / 1000.0; }
// HTA's rounding when it loads a trace with fractional times (math.ceil of the start, math.floor
// of start + duration), in ns.
int64_t hta_start(int64_t ts) { return int64_t(std::ceil(hta_us(ts))) * 1000; }
int64_t hta_end(int64_t ts, int64_t dur) { return int64_t(std::floor(hta_us(ts) + hta_us(dur))) * 1000; }

// HTA's merge_kernel_intervals and its sums, on HTA's rounded ranges, where an event rounding
// inverted (end < start) stays inverted: sorted by start, a range joins the group before when it
// starts at or before the furthest end seen; a group is [its first start, its furthest end], and
// its length, negative for a lone inverted range, is added as it is (HTA's -1 µs per such event).
}  // namespace

Ranges hta_merged_ranges(Ranges v) {
  std::sort(v.begin(), v.end(), [](const Range& a, const Range& b) { return a.start != b.start ? a.start < b.start : a.end < b.end; });
  Ranges out;
  int64_t furthest = 0;
  for (const Range& r : v) {
    const bool first = out.empty();
    if (first || r.start > furthest) out.push_back(r);
    else out.back().end = std::max(out.back().end, r.end);
    furthest = first ? r.end : std::max(furthest, r.end);
  }
  return out;
}

namespace {

// Whether the names (by StringId) pass a test, each name's text read once.
class NameTest {
 public:
  NameTest(const StringPool& strings, bool (*test)(std::string_view)) : strings_(strings), test_(test), seen_(strings.size(), 0) {}
  bool operator()(StringId id) {
    if (id >= seen_.size()) return test_(strings_.get(id));
    if (!seen_[id]) seen_[id] = test_(strings_.get(id)) ? 1 : 2;
    return seen_[id] == 1;
  }

 private:
  const StringPool& strings_;
  bool (*test_)(std::string_view);
  std::vector<uint8_t> seen_;
};

bool is_profiler_step(std::string_view name) { return name.starts_with("ProfilerStep"); }
bool is_cuda_sync(std::string_view cat) { return cat == "cuda_sync"; }

// A CUDA sync event's stream: its tid, which Kineto writes as the stream ("7", or "stream 7" in
// some writers); -1 when it is none (an event sync the host waits on has stream and tid -1).
int64_t sync_stream(std::string_view tid) {
  if (tid.starts_with("stream ")) tid.remove_prefix(7);
  int64_t v = -1;
  const auto [p, ec] = std::from_chars(tid.data(), tid.data() + tid.size(), v);
  return ec == std::errc() && p == tid.data() + tid.size() ? v : -1;
}

// One GPU event as the breakdown reads it.
struct GpuEvent {
  int64_t ts_ns, dur_ns, stream, correlation;
  GpuWorkKind kind;
  StringId name;
};

// Calls fn(GpuEvent) for every event on a stream: kernels, memcpys, memsets, CUDA syncs.
template <class F>
void for_each_gpu_event(const TraceModel& m, F&& fn) {
  NameTest sync_cat(m.strings, is_cuda_sync);
  for (const KernelRow& k : m.kernels)
    if (k.stream != -1)
      fn(GpuEvent{k.s.ts_ns, m.dur_ns(k.s), k.stream, m.id_value(k.s.correlation), classify_gpu_work(m.strings.get(k.s.name), false), k.s.name});
  for (const auto* table : {&m.memcpys, &m.memsets})
    for (const MemcpyRow& c : *table)
      if (c.stream != -1)
        fn(GpuEvent{c.s.ts_ns, m.dur_ns(c.s), c.stream, m.id_value(c.s.correlation), GpuWorkKind::kMemory, c.s.name});
  for (const InstantRow& r : m.others) {
    if (r.dur_ns < 0 || !sync_cat(r.cat)) continue;
    const int64_t stream = sync_stream(m.strings.get(r.tid));
    if (stream != -1) fn(GpuEvent{r.ts_ns, r.dur_ns, stream, m.id_value(r.correlation), GpuWorkKind::kSync, r.name});
  }
}

TemporalBreakdown breakdown_of(const Ranges& all, const Ranges& compute, uint64_t events) {
  TemporalBreakdown t;
  t.events = events;
  if (all.empty()) return t;
  t.has_work = true;
  t.span_start_ns = all.front().start;
  t.span_end_ns = all.back().end;
  const int64_t busy = ranges_sum(all);
  t.compute_ns = ranges_sum(compute);
  t.idle_ns = t.span_ns() - busy;
  t.non_compute_ns = busy - t.compute_ns;
  return t;
}

// The breakdown of [start, end) of the trace's merged ranges.
TemporalBreakdown window_breakdown(const Ranges& all, const Ranges& compute, int64_t start, int64_t end, uint64_t events) {
  TemporalBreakdown t;
  t.events = events;
  // Merged ranges are sorted and disjoint, so their ends are sorted too.
  auto first = std::partition_point(all.begin(), all.end(), [&](const Range& r) { return r.end <= start; });
  auto last = std::partition_point(first, all.end(), [&](const Range& r) { return r.start < end; });
  if (first == last) return t;
  t.has_work = true;
  t.span_start_ns = std::max(first->start, start);
  t.span_end_ns = std::min((last - 1)->end, end);
  const int64_t busy = overlap_sum(all, start, end);
  t.compute_ns = overlap_sum(compute, start, end);
  t.idle_ns = t.span_ns() - busy;
  t.non_compute_ns = busy - t.compute_ns;
  return t;
}

}  // namespace

namespace {

// HTA's default scope (gpu_time.h): with two or more ProfilerStep names, the GPU work launched
// from host calls that start before the last step starts.
struct HtaScope {
  bool last_step_left_out = false;
  int64_t last_start = 0;
  std::vector<int64_t> launched;  // correlation ids of the host calls before the cut, sorted
  // HTA keeps a GPU event (stream > 0) whose correlation matches a host call before the cut; an
  // event without one matches the host events without one (every operator), so it stays.
  bool contains(int64_t stream, int64_t correlation) const {
    if (!last_step_left_out) return true;
    if (stream <= 0) return false;
    return correlation == kNoId || std::binary_search(launched.begin(), launched.end(), correlation);
  }
};

HtaScope hta_scope(const TraceModel& m, bool hta) {
  HtaScope out;
  auto host_start = [&](int64_t ts) { return hta ? hta_start(ts) : ts; };
  NameTest step_name(m.strings, is_profiler_step);
  std::vector<StringId> step_names;
  bool any_step = false;
  for (const auto* table : {&m.cpu_ops, &m.user_annotations, &m.gpu_annotations})
    for (const CpuOpRow& r : *table) {
      if (!step_name(r.s.name)) continue;
      if (std::find(step_names.begin(), step_names.end(), r.s.name) == step_names.end()) step_names.push_back(r.s.name);
      const int64_t s = host_start(r.s.ts_ns);
      out.last_start = any_step ? std::max(out.last_start, s) : s;
      any_step = true;
    }
  out.last_step_left_out = step_names.size() >= 2;
  if (!out.last_step_left_out) {
    out.last_start = 0;
    return out;
  }
  for (const auto* table : {&m.runtimes, &m.drivers})
    for (const SliceRow& r : *table) {
      const int64_t c = m.id_value(r.correlation);
      if (c != kNoId && host_start(r.ts_ns) < out.last_start) out.launched.push_back(c);
    }
  std::sort(out.launched.begin(), out.launched.end());
  return out;
}

}  // namespace

HtaScoped hta_scoped(const TraceModel& m, GpuTimeRounding rounding) {
  const bool hta = rounding == GpuTimeRounding::kHta;
  const HtaScope scope = hta_scope(m, hta);
  HtaScoped out;
  out.rounding = rounding;
  if (scope.last_step_left_out) out.cut = scope.last_start;
  // The runtime (or driver) call of each correlation id, for the launch's start; the first by
  // correlation when a writer repeats one.
  std::vector<std::pair<int64_t, int64_t>> launches;
  for (const auto* table : {&m.runtimes, &m.drivers})
    for (const SliceRow& r : *table) {
      const int64_t c = m.id_value(r.correlation);
      if (c != kNoId) launches.emplace_back(c, hta ? hta_start(r.ts_ns) : int64_t(r.ts_ns));
    }
  std::stable_sort(launches.begin(), launches.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for_each_gpu_event(m, [&](const GpuEvent& e) {
    if (e.kind == GpuWorkKind::kSync || !scope.contains(e.stream, e.correlation)) return;
    ScopedGpuEvent x;
    const int64_t dur = std::max<int64_t>(e.dur_ns, 0);
    x.start_ns = hta ? hta_start(e.ts_ns) : e.ts_ns;
    x.end_ns = hta ? hta_end(e.ts_ns, dur) : e.ts_ns + dur;
    x.stream = e.stream;
    x.name = e.name;
    x.kind = e.kind;
    x.correlation = e.correlation;
    if (e.correlation != kNoId) {
      auto it = std::lower_bound(launches.begin(), launches.end(), e.correlation,
                                 [](const auto& a, int64_t c) { return a.first < c; });
      if (it != launches.end() && it->first == e.correlation) x.launch_ns = it->second;
    }
    out.events.push_back(x);
  });
  return out;
}

std::vector<ScopedGpuEvent> hta_scoped_events(const TraceModel& m, GpuTimeRounding rounding) { return hta_scoped(m, rounding).events; }

int64_t hta_scope_cut(const TraceModel& m, GpuTimeRounding rounding) {
  const HtaScope scope = hta_scope(m, rounding == GpuTimeRounding::kHta);
  return scope.last_step_left_out ? scope.last_start : std::numeric_limits<int64_t>::max();
}

int64_t hta_round_start(int64_t ts_ns) { return hta_start(ts_ns); }
int64_t hta_round_end(int64_t ts_ns, int64_t dur_ns) { return hta_end(ts_ns, dur_ns); }

GpuTimeResult gpu_time(const TraceModel& m, const StepsResult& found, const GpuTimeOptions& options) {
  GpuTimeResult out;
  out.rounding = options.rounding;
  const bool hta = options.rounding == GpuTimeRounding::kHta;
  // An event's [start, end) as the breakdown counts it, and as HTA rounds it (`rounded`: maybe
  // inverted, for the trace's row in kHta; the steps take it clamped to empty).
  auto range_of = [&](int64_t ts, int64_t dur, Range& rounded) {
    const int64_t end = ts + std::max<int64_t>(dur, 0);
    rounded = Range{hta_start(ts), hta_end(ts, std::max<int64_t>(dur, 0))};
    if (!hta) return Range{ts, end};
    return Range{rounded.start, std::max(rounded.start, rounded.end)};
  };

  const HtaScope scope = hta_scope(m, hta);
  out.last_step_left_out = scope.last_step_left_out;
  out.last_step_start_ns = scope.last_start;
  auto in_scope = [&](const GpuEvent& e) { return scope.contains(e.stream, e.correlation); };

  // Steps: each event counted in the step its start falls in.
  const bool per_step = found.from_profiler_steps;
  std::vector<uint64_t> step_events(per_step ? found.steps.size() : 0, 0);
  auto step_of = [&](int64_t t) -> int64_t {
    auto it = std::upper_bound(found.steps.begin(), found.steps.end(), t, [](int64_t x, const Step& s) { return x < s.start_ns; });
    if (it == found.steps.begin()) return -1;
    --it;
    return t < it->end_ns ? it - found.steps.begin() : -1;
  };

  // The ranges of all the work and of the computation, for the whole trace (the steps' rows) and
  // for HTA's scope (the trace's row; the same ranges when nothing is left out and times are
  // exact; with HTA's rounding, its own ranges, inverted ones kept).
  const bool own_scope = out.last_step_left_out || hta;
  Ranges all, compute, scoped_all, scoped_compute;
  uint64_t scoped_events = 0;
  for_each_gpu_event(m, [&](const GpuEvent& e) {
    Range rounded;
    const Range r = range_of(e.ts_ns, e.dur_ns, rounded);
    const bool scoped = in_scope(e);
    ++out.events[size_t(e.kind)];
    all.push_back(r);
    if (e.kind == GpuWorkKind::kComputation) compute.push_back(r);
    if (scoped) {
      ++out.events_in_scope[size_t(e.kind)];
      ++scoped_events;
      if (rounded.end < rounded.start) ++out.negative_when_rounded;
      if (own_scope) {
        const Range x = hta ? rounded : r;
        scoped_all.push_back(x);
        if (e.kind == GpuWorkKind::kComputation) scoped_compute.push_back(x);
      }
    }
    if (per_step) {
      const int64_t s = step_of(r.start);
      if (s >= 0) ++step_events[size_t(s)];
    }
  });
  all = merge_ranges(std::move(all));
  compute = merge_ranges(std::move(compute));
  if (hta) out.overall = breakdown_of(hta_merged_ranges(std::move(scoped_all)), hta_merged_ranges(std::move(scoped_compute)), scoped_events);
  else if (own_scope) out.overall = breakdown_of(merge_ranges(std::move(scoped_all)), merge_ranges(std::move(scoped_compute)), scoped_events);
  else out.overall = breakdown_of(all, compute, scoped_events);
  if (per_step) {
    out.steps.reserve(found.steps.size());
    for (size_t i = 0; i < found.steps.size(); ++i) {
      const Step& s = found.steps[i];
      out.steps.push_back({s.name, s.start_ns, s.end_ns, window_breakdown(all, compute, s.start_ns, s.end_ns, step_events[i])});
    }
  }
  return out;
}

}  // namespace ks
