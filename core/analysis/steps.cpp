#include "core/analysis/steps.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "core/util/heartbeat.h"
#include "core/util/sort_runs.h"

namespace ks {

const SliceRow& device_slice(const TraceModel& m, DeviceRef d) {
  switch (d.kind) {
    case EventKind::kKernel: return m.kernels[d.row].s;
    case EventKind::kMemcpy: return m.memcpys[d.row].s;
    default: return m.memsets[d.row].s;
  }
}

namespace {

bool step_number(std::string_view name, std::string& number) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  // The first byte settles most names: the prefix compare is a memcmp call (musl's, a byte at a
  // time in wasm) for each of the host ops.
  if (name.size() < kPrefix.size() || name[0] != 'P' || name.substr(0, kPrefix.size()) != kPrefix) return false;
  number.assign(name.substr(kPrefix.size()));
  return true;
}

}  // namespace

LaunchLinks link_launches(const TraceModel& m, bool include_drivers) {
  // tb_plugin walks launches and device work in time order (launches first at equal times):
  // device work joins the launch last seen with its correlation id, else waits for the next one
  // to come with that id (its pending list); work whose id no launch has is never linked. Within
  // one correlation id that is: work goes to the latest launch before it, else the first after it.
  // So one in-place sort of 16-byte items by (correlation id, time order) does the same walk,
  // group by group, where a hash map of every launch and lists of pending work held ~40 bytes
  // per runtime call at the Overview's peak (issue 12 §4).
  struct Item {
    int64_t corr;
    uint32_t row;
    EventKind kind;  // kRuntime < kDriver < kKernel < kMemcpy < kMemset: the walk's tie order
    bool launch() const { return kind == EventKind::kRuntime || kind == EventKind::kDriver; }
    DeviceRef ref() const { return {kind, row}; }
  };
  const size_t drivers = include_drivers ? m.drivers.size() : 0;
  const size_t launchers = m.runtimes.size() + drivers;
  auto ts_of = [&](const Item& it) {
    if (it.kind == EventKind::kRuntime) return m.runtimes[it.row].ts_ns;
    if (it.kind == EventKind::kDriver) return m.drivers[it.row].ts_ns;
    return device_slice(m, it.ref()).ts_ns;
  };
  // The walk's order: time, then launches before device work, then table order.
  auto before = [&](const Item& a, const Item& b) {
    const int64_t ta = ts_of(a), tb = ts_of(b);
    if (ta != tb) return ta < tb;
    return a.kind != b.kind ? a.kind < b.kind : a.row < b.row;
  };
  // The output first, at its most (every piece of device work linked), the items after it: freed,
  // they give back the top of the heap rather than a hole under what stays.
  LaunchLinks out;
  out.begin.assign(launchers + 1, 0);
  out.refs.resize(m.kernels.size() + m.memcpys.size() + m.memsets.size());
  std::vector<Item> items;
  items.reserve(launchers + m.kernels.size() + m.memcpys.size() + m.memsets.size());
  for (size_t i = 0; i < m.runtimes.size(); ++i) items.push_back({m.runtimes[i].correlation, uint32_t(i), EventKind::kRuntime});
  for (size_t i = 0; i < drivers; ++i) items.push_back({m.drivers[i].correlation, uint32_t(i), EventKind::kDriver});
  for (size_t i = 0; i < m.kernels.size(); ++i) items.push_back({m.kernels[i].s.correlation, uint32_t(i), EventKind::kKernel});
  for (size_t i = 0; i < m.memcpys.size(); ++i) items.push_back({m.memcpys[i].s.correlation, uint32_t(i), EventKind::kMemcpy});
  for (size_t i = 0; i < m.memsets.size(); ++i) items.push_back({m.memsets[i].s.correlation, uint32_t(i), EventKind::kMemset});
  // The tables come in long runs of rising correlation ids (a stream's kernels in one; a
  // thread's runtime calls in a few): merged rather than sorted.
  sort_runs(items.data(), items.data() + items.size(), [&](const Item& a, const Item& b) { return a.corr != b.corr ? a.corr < b.corr : before(a, b); });
  heartbeat(items.size());
  auto index_of = [&](const Item& it) {
    return it.kind == EventKind::kRuntime ? it.row : uint32_t(m.runtimes.size() + it.row);
  };
  // Calls `f(launcher, ref)` for each linked piece of device work, in time order per launcher;
  // `none(ref)` for work of an id no launch has.
  auto walk = [&](auto&& f, auto&& none) {
    for (size_t i = 0; i < items.size();) {
      size_t j = i;
      size_t first = SIZE_MAX;  // the group's first launch
      for (; j < items.size() && items[j].corr == items[i].corr; ++j)
        if (first == SIZE_MAX && items[j].launch()) first = j;
      if (first == SIZE_MAX) {
        for (size_t k = i; k < j; ++k) none(items[k].ref());
      } else {
        uint32_t current = index_of(items[first]);
        for (size_t k = i; k < j; ++k) {
          if (items[k].launch()) current = index_of(items[k]);
          else f(current, items[k].ref());
        }
      }
      heartbeat(j - i);
      i = j;
    }
  };
  size_t linked = 0;
  walk([&](uint32_t launcher, DeviceRef) { ++out.begin[launcher]; ++linked; },
       [&](DeviceRef d) { out.unlaunched.push_back(d); });
  // begin[i] = where launch i's work starts; filled by advancing begin[i] to its end, then
  // shifted back by one (no second array of launchers).
  uint32_t sum = 0;
  for (size_t i = 0; i < launchers; ++i) {
    const uint32_t n = out.begin[i];
    out.begin[i] = sum;
    sum += n;
  }
  out.refs.resize(linked);
  walk([&](uint32_t launcher, DeviceRef d) { out.refs[out.begin[launcher]++] = d; }, [](DeviceRef) {});
  for (size_t i = launchers; i > 0; --i) out.begin[i] = out.begin[i - 1];
  out.begin[0] = 0;
  // What never met its launch, in time order.
  std::sort(out.unlaunched.begin(), out.unlaunched.end(), [&](DeviceRef a, DeviceRef b) {
    return before({0, a.row, a.kind}, {0, b.row, b.kind});
  });
  return out;
}

StepsResult find_steps(const TraceModel& m, const StepOptions& options) {
  StepsResult result;
  // 6.1 detection: ProfilerStep#N as cpu_op or user_annotation (and, tb_plugin-style, on GPU
  // streams), in time order, ties in table order.
  struct Found {
    int64_t ts, end;
    std::string name;
    bool gpu = false;
  };
  std::vector<Found> found;
  std::string number;
  auto scan = [&](const ChunkedTable<CpuOpRow>& t, bool gpu) {
    for (const CpuOpRow& r : t)
      if (step_number(m.strings.get(r.s.name), number)) found.push_back({r.s.ts_ns, r.s.ts_ns + r.s.dur_ns, number, gpu});
    heartbeat(t.size());
  };
  scan(m.cpu_ops, false);
  scan(m.user_annotations, false);
  if (options.tb_plugin_gpu_annotations) scan(m.gpu_annotations, true);
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.ts < b.ts; });

  if (found.empty()) {
    // One step over the host work: cpu ops and "python" events (not python_function).
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const CpuOpRow& r : m.cpu_ops) { lo = std::min(lo, r.s.ts_ns); hi = std::max(hi, r.s.ts_ns + r.s.dur_ns); }
    for (const PythonFunctionRow& r : m.python_functions) {
      if (m.strings.get(r.s.cat) != "python") continue;
      lo = std::min(lo, r.s.ts_ns);
      hi = std::max(hi, r.s.ts_ns + r.s.dur_ns);
    }
    if (lo > hi) return result;
    found.push_back({lo, hi, "0", false});  // device-adjusted below like any step
  } else {
    result.from_profiler_steps = true;
  }

  // 6.2 device adjustment.
  const LaunchLinks devices = link_launches(m, false);
  std::vector<uint32_t> order(m.runtimes.size());
  std::iota(order.begin(), order.end(), 0);
  sort_runs(order.data(), order.data() + order.size(), [&](uint32_t a, uint32_t b) {
    return m.runtimes[a].ts_ns != m.runtimes[b].ts_ns ? m.runtimes[a].ts_ns < m.runtimes[b].ts_ns : a < b;
  });
  heartbeat(order.size());
  const size_t n = found.size();
  std::vector<int64_t> dev_min(n, INT64_MAX), dev_max(n, INT64_MIN);
  std::vector<size_t> matched(n, 0);
  std::vector<char> kernel_matched(m.kernels.size()), memcpy_matched(m.memcpys.size()), memset_matched(m.memsets.size());
  auto mark = [&](DeviceRef d) -> char& {
    return d.kind == EventKind::kKernel ? kernel_matched[d.row]
           : d.kind == EventKind::kMemcpy ? memcpy_matched[d.row] : memset_matched[d.row];
  };
  size_t any_matched = 0;
  {
    size_t s = 0, r = 0;
    while (s < n && r < order.size()) {
      const SliceRow& rt = m.runtimes[order[r]];
      const int64_t rs = rt.ts_ns, re = rt.ts_ns + rt.dur_ns;
      if (rs < found[s].ts) {
        ++r;
      } else if (re <= found[s].end) {
        for (DeviceRef d : devices.of(order[r])) {
          const SliceRow& ds = device_slice(m, d);
          dev_min[s] = std::min(dev_min[s], ds.ts_ns);
          dev_max[s] = std::max(dev_max[s], ds.ts_ns + ds.dur_ns);
          mark(d) = 1;
          ++matched[s];
          ++any_matched;
        }
        ++r;
      } else if (rs < found[s].end) {
        ++r;  // straddles the step's end
      } else {
        ++s;
      }
    }
  }
  std::vector<Step> steps;
  for (const Found& f : found) steps.push_back({f.name, f.ts, f.end, f.ts, f.end, f.gpu});
  if (any_matched == 0) {
    result.steps = std::move(steps);
    return result;
  }
  int64_t prev_end = found[0].ts;
  if (matched[0] > 0) {  // older GPU work still running when the first step began
    auto older = [&](const SliceRow& d, char was_matched) {
      const int64_t end = d.ts_ns + d.dur_ns;
      if (!was_matched && end < dev_min[0]) prev_end = std::max(prev_end, end);
    };
    for (size_t i = 0; i < m.kernels.size(); ++i) older(m.kernels[i].s, kernel_matched[i]);
    for (size_t i = 0; i < m.memcpys.size(); ++i) older(m.memcpys[i].s, memcpy_matched[i]);
    for (size_t i = 0; i < m.memsets.size(); ++i) older(m.memsets[i].s, memset_matched[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t start = std::max(prev_end, found[i].ts);
    int64_t end = matched[i] > 0 ? std::max(found[i].end, dev_max[i]) : std::max(found[i].end, start);
    if (end < start) end = start;
    steps[i].start_ns = start;
    steps[i].end_ns = end;
    prev_end = end;
  }
  // Trim trailing steps whose GPU work is missing (cut off by the end of the capture).
  if (n >= 2) {
    size_t k = n;
    for (size_t i = n; i-- > 0;)
      if (matched[i] > 0) { k = i; break; }
    if (k < n) {
      size_t keep = k + 1;
      if (k > 0 && 0.8 * double(matched[k - 1]) > double(matched[k])) keep = k;
      steps.resize(keep);
    }
  }
  result.steps = std::move(steps);
  return result;
}

}  // namespace ks
