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

// Device work in time order, then kind, then table order: the walk's order among device work.
auto device_order(const TraceModel& m) {
  return [&m](DeviceRef a, DeviceRef b) {
    const int64_t ta = device_slice(m, a).ts_ns, tb = device_slice(m, b).ts_ns;
    if (ta != tb) return ta < tb;
    return a.kind != b.kind ? a.kind < b.kind : a.row < b.row;
  };
}

// Lays out out.begin and out.refs (begin sized launchers + 1, refs at least the linked count) from
// `visit(f, none)`, which calls f(launch, ref) for each linked piece of device work, in the order
// its launch's list is to have, and none(ref) for the rest (collected on the first pass only).
template <class Visit>
void lay_out(LaunchLinks& out, size_t launchers, Visit&& visit) {
  std::fill(out.begin.begin(), out.begin.end(), 0);
  size_t linked = 0;
  visit([&](uint32_t launcher, DeviceRef) { ++out.begin[launcher]; ++linked; },
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
  visit([&](uint32_t launcher, DeviceRef d) { out.refs[out.begin[launcher]++] = d; }, [](DeviceRef) {});
  for (size_t i = launchers; i > 0; --i) out.begin[i] = out.begin[i - 1];
  out.begin[0] = 0;
}

}  // namespace

// When every launch has a correlation id of its own, in a compact range of ids (as the profiler
// numbers them), each piece of device work belongs to the one launch of its id whatever the times:
// a table indexed by id finds it, and only a launch's own work is sorted into time order (most
// launches have one piece). The walk's LaunchLinks, without its sort of every launch and piece of
// device work (16 bytes each).
bool link_launches_by_table(const TraceModel& m, bool include_drivers, LaunchLinks& out) {
  const size_t drivers = include_drivers ? m.drivers.size() : 0;
  const size_t launchers = m.runtimes.size() + drivers;
  if (launchers == 0) return false;
  auto corr_of = [&](size_t i) { return i < m.runtimes.size() ? m.id_value(m.runtimes[i].correlation) : m.id_value(m.drivers[i - m.runtimes.size()].correlation); };
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < launchers; ++i) {
    const int64_t c = corr_of(i);
    if (c == kNoId) return false;
    lo = std::min(lo, c);
    hi = std::max(hi, c);
  }
  // The table is paged: 4096 ids a page, a page only where some launch has an id, so ids in a few
  // dense stretches far apart (several processes, or the copies of scripts/gen-trace) cost only
  // their stretches. It holds at most the walk's sort items' bytes (16 a launch or piece of device
  // work): profilers number more activities than they record (every fifth id is a recorded
  // launch in v100_ns_resolution_rank0), and ids spread thinner than that take the walk.
  constexpr unsigned kPageBits = 12;
  constexpr size_t kPage = size_t(1) << kPageBits;
  const uint64_t span = uint64_t(hi) - uint64_t(lo);  // hi >= lo: no overflow as unsigned
  const uint64_t device = m.kernels.size() + m.memcpys.size() + m.memsets.size();
  const uint64_t budget = 16 * (uint64_t(launchers) + device) + 4 * kPage;
  const uint64_t pages_in_range = (span >> kPageBits) + 1;
  if (4 * pages_in_range > budget) return false;
  // The output first, at its most, the table after it: freed, the table gives back the top of the
  // heap rather than a hole under what stays (as the walk does with its items).
  out.begin.assign(launchers + 1, 0);
  out.refs.resize(size_t(device));
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> page_of(size_t(pages_in_range), kNone);  // the page's start in `slot`
  size_t pages = 0;
  for (size_t i = 0; i < launchers; ++i) {
    uint32_t& p = page_of[size_t((uint64_t(corr_of(i)) - uint64_t(lo)) >> kPageBits)];
    if (p == kNone) p = uint32_t(pages++);  // numbered now, placed below
  }
  if (4 * pages_in_range + 4 * kPage * uint64_t(pages) > budget || pages * kPage > UINT32_MAX) return false;
  for (uint32_t& p : page_of)
    if (p != kNone) p = uint32_t(p * kPage);
  std::vector<uint32_t> slot(pages * kPage, kNone);
  auto at = [&](int64_t c) -> uint32_t* {  // the slot of id c, or null where no page is
    if (c < lo || c > hi) return nullptr;
    const uint64_t off = uint64_t(c) - uint64_t(lo);
    const uint32_t p = page_of[size_t(off >> kPageBits)];
    return p == kNone ? nullptr : &slot[p + size_t(off & (kPage - 1))];
  };
  for (size_t i = 0; i < launchers; ++i) {
    uint32_t* s = at(corr_of(i));
    if (*s != kNone) return false;  // two launches of one id: the walk decides by time
    *s = uint32_t(i);
  }
  heartbeat(launchers);
  auto launcher_of = [&](int64_t c) {
    const uint32_t* s = at(c);
    return s ? *s : kNone;
  };
  const auto before = device_order(m);
  // Every piece of device work, table by table, to its launch (f) or to none.
  auto each = [&](auto&& f, auto&& none) {
    auto one = [&](int64_t corr, DeviceRef d) {
      const uint32_t l = launcher_of(corr);
      if (l == kNone) none(d);
      else f(l, d);
    };
    for (size_t i = 0; i < m.kernels.size(); ++i) one(m.id_value(m.kernels[i].s.correlation), {EventKind::kKernel, uint32_t(i)});
    for (size_t i = 0; i < m.memcpys.size(); ++i) one(m.id_value(m.memcpys[i].s.correlation), {EventKind::kMemcpy, uint32_t(i)});
    for (size_t i = 0; i < m.memsets.size(); ++i) one(m.id_value(m.memsets[i].s.correlation), {EventKind::kMemset, uint32_t(i)});
  };
  lay_out(out, launchers, each);
  for (size_t i = 0; i < launchers; ++i)
    if (out.begin[i + 1] - out.begin[i] > 1) std::sort(out.refs.begin() + out.begin[i], out.refs.begin() + out.begin[i + 1], before);
  heartbeat(out.refs.size());
  std::sort(out.unlaunched.begin(), out.unlaunched.end(), before);
  return true;
}

LaunchLinks link_launches(const TraceModel& m, bool include_drivers, LinkPath path) {
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
  if (path == LinkPath::kAuto) {
    LaunchLinks fast;
    if (link_launches_by_table(m, include_drivers, fast)) return fast;
  }
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
  for (size_t i = 0; i < m.runtimes.size(); ++i) items.push_back({m.id_value(m.runtimes[i].correlation), uint32_t(i), EventKind::kRuntime});
  for (size_t i = 0; i < drivers; ++i) items.push_back({m.id_value(m.drivers[i].correlation), uint32_t(i), EventKind::kDriver});
  for (size_t i = 0; i < m.kernels.size(); ++i) items.push_back({m.id_value(m.kernels[i].s.correlation), uint32_t(i), EventKind::kKernel});
  for (size_t i = 0; i < m.memcpys.size(); ++i) items.push_back({m.id_value(m.memcpys[i].s.correlation), uint32_t(i), EventKind::kMemcpy});
  for (size_t i = 0; i < m.memsets.size(); ++i) items.push_back({m.id_value(m.memsets[i].s.correlation), uint32_t(i), EventKind::kMemset});
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
  lay_out(out, launchers, walk);
  // What never met its launch, in time order.
  std::sort(out.unlaunched.begin(), out.unlaunched.end(), device_order(m));
  return out;
}

StepsResult find_steps(const TraceModel& m, const StepOptions& options, StepMatch match_by) {
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
      if (step_number(m.strings.get(r.s.name), number)) found.push_back({r.s.ts_ns, r.s.ts_ns + m.dur_ns(r.s), number, gpu});
    heartbeat(t.size());
  };
  scan(m.cpu_ops, false);
  scan(m.user_annotations, false);
  if (options.tb_plugin_gpu_annotations) scan(m.gpu_annotations, true);
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.ts < b.ts; });

  if (found.empty()) {
    // One step over the host work: cpu ops and "python" events (not python_function).
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const CpuOpRow& r : m.cpu_ops) { lo = std::min<int64_t>(lo, r.s.ts_ns); hi = std::max(hi, r.s.ts_ns + m.dur_ns(r.s)); }
    for (const PythonFunctionRow& r : m.python_functions) {
      if (m.strings.get(r.s.cat) != "python") continue;
      lo = std::min<int64_t>(lo, r.s.ts_ns);
      hi = std::max(hi, r.s.ts_ns + m.dur_ns(r.s));
    }
    if (lo > hi) return result;
    found.push_back({lo, hi, "0", false});  // device-adjusted below like any step
  } else {
    result.from_profiler_steps = true;
  }

  // 6.2 device adjustment.
  const LaunchLinks devices = link_launches(m, false);
  const size_t n = found.size();
  std::vector<int64_t> dev_min(n, INT64_MAX), dev_max(n, INT64_MIN);
  std::vector<size_t> matched(n, 0);
  std::vector<char> kernel_matched(m.kernels.size()), memcpy_matched(m.memcpys.size()), memset_matched(m.memsets.size());
  auto mark = [&](DeviceRef d) -> char& {
    return d.kind == EventKind::kKernel ? kernel_matched[d.row]
           : d.kind == EventKind::kMemcpy ? memcpy_matched[d.row] : memset_matched[d.row];
  };
  size_t any_matched = 0;
  auto match = [&](size_t s, uint32_t runtime) {
    for (DeviceRef d : devices.of(runtime)) {
      const SliceRow& ds = device_slice(m, d);
      dev_min[s] = std::min<int64_t>(dev_min[s], ds.ts_ns);
      dev_max[s] = std::max(dev_max[s], ds.ts_ns + m.dur_ns(ds));
      mark(d) = 1;
      ++matched[s];
      ++any_matched;
    }
  };
  // tb_plugin walks the runtimes in time order against the steps: a runtime that starts before
  // the current step is skipped, one that ends within it is the step's, one that straddles its end
  // is skipped, and one that starts at or past its end (and ends past it) moves on to the next step.
  // When no runtime starts exactly at a step's end, moving on depends on the start alone (a later
  // start moves on past every step an earlier one did), so a runtime's step is the first whose end
  // (or an earlier step's, if later) is after its start: found by a binary search, in table order,
  // with no sort of the runtimes. A start at a step's end moves on only when the call lasts, so
  // there the order of ties counts: the walk itself, over the runtimes sorted by start.
  std::vector<int64_t> end_max(n);
  for (size_t i = 0; i < n; ++i) end_max[i] = std::max(found[i].end, i > 0 ? end_max[i - 1] : INT64_MIN);
  std::vector<int64_t> ends(n);
  for (size_t i = 0; i < n; ++i) ends[i] = found[i].end;
  std::sort(ends.begin(), ends.end());
  bool walk = match_by == StepMatch::kWalk;
  if (!walk) {
    // Each runtime's step (n: none) first, so that a tie found part-way leaves nothing to undo.
    // The runtimes come in long runs of rising starts (a thread's calls): within one, both
    // searches move forward from where the last start left them; a new run searches anew.
    std::vector<uint32_t> step_of(m.runtimes.size(), uint32_t(n));
    size_t r = 0, s = 0, e = 0;  // first step whose end_max is after rs; first of `ends` >= rs
    int64_t last = INT64_MIN;
    for (const SliceRow& rt : m.runtimes) {
      const int64_t rs = rt.ts_ns, re = rt.ts_ns + m.dur_ns(rt);
      if (rs < last) {
        s = size_t(std::upper_bound(end_max.begin(), end_max.end(), rs) - end_max.begin());
        e = size_t(std::lower_bound(ends.begin(), ends.end(), rs) - ends.begin());
      }
      last = rs;
      while (e < n && ends[e] < rs) ++e;
      if (e < n && ends[e] == rs) {  // starts at a step's end: the walk decides
        walk = true;
        break;
      }
      while (s < n && end_max[s] <= rs) ++s;
      if (s < n && rs >= found[s].ts && re <= found[s].end) step_of[r] = uint32_t(s);
      ++r;
    }
    if (!walk)
      for (size_t i = 0; i < step_of.size(); ++i)
        if (step_of[i] < n) match(step_of[i], uint32_t(i));
  }
  if (walk) {
    std::vector<uint32_t> order(m.runtimes.size());
    std::iota(order.begin(), order.end(), 0);
    sort_runs(order.data(), order.data() + order.size(), [&](uint32_t a, uint32_t b) {
      return m.runtimes[a].ts_ns != m.runtimes[b].ts_ns ? m.runtimes[a].ts_ns < m.runtimes[b].ts_ns : a < b;
    });
    size_t s = 0, r = 0;
    while (s < n && r < order.size()) {
      const SliceRow& rt = m.runtimes[order[r]];
      const int64_t rs = rt.ts_ns, re = rt.ts_ns + m.dur_ns(rt);
      if (rs < found[s].ts) {
        ++r;
      } else if (re <= found[s].end) {
        match(s, order[r]);
        ++r;
      } else if (rs < found[s].end) {
        ++r;  // straddles the step's end
      } else {
        ++s;
      }
    }
  }
  heartbeat(m.runtimes.size());
  std::vector<Step> steps;
  for (const Found& f : found) steps.push_back({f.name, f.ts, f.end, f.ts, f.end, f.gpu});
  if (any_matched == 0) {
    result.steps = std::move(steps);
    return result;
  }
  int64_t prev_end = found[0].ts;
  if (matched[0] > 0) {  // older GPU work still running when the first step began
    auto older = [&](const SliceRow& d, char was_matched) {
      const int64_t end = d.ts_ns + m.dur_ns(d);
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
