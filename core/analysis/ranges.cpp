#include "core/analysis/ranges.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/analysis/step_breakdown.h"
#include "core/analysis/tensor_cores.h"

namespace ks {

namespace {

RangeKind kind_of(std::string_view name) {
  if (name.starts_with("[pl][")) return RangeKind::kLightning;
  if (name.starts_with("Optimizer.")) return RangeKind::kOptimizer;
  if (is_dataloader_op(name)) return RangeKind::kDataLoader;
  if (is_communication_op(name)) return RangeKind::kCommunication;
  return RangeKind::kRange;
}

struct Call {
  uint32_t row;  // user_annotations row
  int64_t start, end;
  int32_t table_row = -1;  // its RangeTable row (before the final ordering)
};

double us_of(int64_t ns) { return double(ns) / 1e3; }

}  // namespace

const char* range_kind_name(RangeKind k) {
  switch (k) {
    case RangeKind::kLightning: return "lightning";
    case RangeKind::kOptimizer: return "optimizer";
    case RangeKind::kDataLoader: return "dataloader";
    case RangeKind::kCommunication: return "communication";
    default: return "range";
  }
}

double range_tc_pct(const RangeRow& r) {
  return r.kernel_total_ns > 0 ? 100.0 * double(r.tc_total_ns) / double(r.kernel_total_ns) : -1.0;
}

RangeTable range_table(const OpTree& t, const TraceModel& m) { return range_table(t, m, nullptr); }

RangeTable range_table(const OpTree& t, const TraceModel& m, std::vector<std::pair<int32_t, uint32_t>>* launch_rows) {
  RangeTable out;
  // The calls by thread, each thread's in (start, −end) order: the order a stack nests them in.
  std::map<StringId, std::vector<Call>> by_thread;
  for (uint32_t i = 0; i < m.user_annotations.size(); ++i) {
    const SliceRow& s = m.user_annotations[i].s;
    if (m.strings.get(s.name).starts_with("ProfilerStep#")) continue;
    by_thread[s.tid].push_back({i, s.ts_ns, s.ts_ns + std::max<int64_t>(m.dur_ns(s), 0)});
  }
  for (auto& [tid, calls] : by_thread) {
    std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
      return a.start != b.start ? a.start < b.start : a.end != b.end ? a.end > b.end : a.row < b.row;
    });
  }

  // Rows by (parent row, name): the same name under the same path is one row.
  std::vector<RangeRow> rows;
  std::map<std::pair<int32_t, StringId>, int32_t> row_of;
  auto row_for = [&](int32_t parent, StringId name, const Call& c) {
    auto [it, fresh] = row_of.try_emplace({parent, name}, int32_t(rows.size()));
    if (fresh) {
      RangeRow r;
      r.name = std::string(m.strings.get(name));
      r.kind = kind_of(r.name);
      r.parent = parent;
      r.first_start_ns = c.start;
      r.first_end_ns = c.end;
      rows.push_back(std::move(r));
    } else if (c.start < rows[size_t(it->second)].first_start_ns) {
      rows[size_t(it->second)].first_start_ns = c.start;
      rows[size_t(it->second)].first_end_ns = c.end;
    }
    return it->second;
  };
  std::vector<int32_t> open;  // indices into the thread's calls
  for (auto& [tid, calls] : by_thread) {
    open.clear();
    for (size_t k = 0; k < calls.size(); ++k) {
      Call& c = calls[k];
      while (!open.empty() && calls[size_t(open.back())].end <= c.start) open.pop_back();
      // The deepest open range holding this one whole (a range that overlaps another only in
      // part is not nested in it).
      int32_t parent_row = -1;
      for (size_t j = open.size(); j-- > 0;) {
        const Call& p = calls[size_t(open[j])];
        if (p.start <= c.start && c.end <= p.end) {
          parent_row = p.table_row;
          break;
        }
      }
      c.table_row = row_for(parent_row, m.user_annotations[c.row].s.name, c);
      RangeRow& r = rows[size_t(c.table_row)];
      ++r.calls;
      r.host_total_ns += c.end - c.start;
      open.push_back(int32_t(k));
    }
    out.calls += calls.size();
  }

  // Device work of each launch, to the innermost range open on the launch's thread when it was
  // made (self), then summed up the tree.
  TcKernelNames tc(m.strings, false);
  struct LaunchAt {
    int64_t ts;
    uint32_t launch;
  };
  std::map<StringId, std::vector<LaunchAt>> launches;
  for (uint32_t l = 0; l < t.launches.size(); ++l) {
    const SliceRow* s = launch_slice(t, m, t.launches[l]);
    if (!s || t.launches[l].device_begin == launch_device_end(t, t.launches[l])) continue;
    if (by_thread.count(s->tid)) launches[s->tid].push_back({s->ts_ns, l});
  }
  for (auto& [tid, list] : launches) {
    std::sort(list.begin(), list.end(), [](const LaunchAt& a, const LaunchAt& b) { return a.ts != b.ts ? a.ts < b.ts : a.launch < b.launch; });
    const std::vector<Call>& calls = by_thread[tid];
    open.clear();
    size_t next = 0;
    for (const LaunchAt& at : list) {
      for (; next < calls.size() && calls[next].start <= at.ts; ++next) {
        while (!open.empty() && calls[size_t(open.back())].end <= calls[next].start) open.pop_back();
        open.push_back(int32_t(next));
      }
      while (!open.empty() && calls[size_t(open.back())].end <= at.ts) open.pop_back();
      if (open.empty()) continue;
      RangeRow& r = rows[size_t(calls[size_t(open.back())].table_row)];
      if (launch_rows) launch_rows->push_back({calls[size_t(open.back())].table_row, at.launch});
      const Launch& launch = t.launches[at.launch];
      for (uint32_t d = launch.device_begin, end = launch_device_end(t, launch); d < end; ++d) {
        const DeviceRef ref = t.launched[d];
        const SliceRow& s = device_slice(m, ref);
        r.device_self_ns += m.dur_ns(s);
        if (ref.kind != EventKind::kKernel) continue;
        r.kernel_total_ns += m.dur_ns(s);
        if (tc(s.name) == TcState::kYes) r.tc_total_ns += m.dur_ns(s);
      }
    }
  }

  // The GPU-side copies: gpu_user_annotation rows with the host range's External id (and name),
  // and the device work that started on their stream inside them.
  if (m.gpu_annotations.size()) {
    std::unordered_map<int64_t, std::vector<uint32_t>> copies;
    for (uint32_t i = 0; i < m.gpu_annotations.size(); ++i) {
      const SliceRow& s = m.gpu_annotations[i].s;
      if (m.id_value(s.external_id) != kNoId) copies[m.id_value(s.external_id)].push_back(i);
    }
    // Device work per stream (pid, tid as written), by start.
    std::map<std::pair<StringId, StringId>, std::vector<std::pair<int64_t, int64_t>>> work;
    auto add_work = [&](const SliceRow& s) { work[{s.pid, s.tid}].push_back({s.ts_ns, m.dur_ns(s)}); };
    for (const KernelRow& k : m.kernels) add_work(k.s);
    for (const MemcpyRow& k : m.memcpys) add_work(k.s);
    for (const MemcpyRow& k : m.memsets) add_work(k.s);
    for (auto& [stream, list] : work) std::sort(list.begin(), list.end());
    for (auto& [tid, calls] : by_thread) {
      for (const Call& c : calls) {
        const SliceRow& h = m.user_annotations[c.row].s;
        if (m.id_value(h.external_id) == kNoId) continue;
        auto it = copies.find(m.id_value(h.external_id));
        if (it == copies.end()) continue;
        RangeRow& r = rows[size_t(c.table_row)];
        for (uint32_t g : it->second) {
          const SliceRow& s = m.gpu_annotations[g].s;
          if (s.name != h.name) continue;
          ++r.gpu_copies;
          r.gpu_span_ns += m.dur_ns(s);
          out.has_gpu_copies = true;
          auto w = work.find({s.pid, s.tid});
          if (w == work.end()) continue;
          const int64_t end = s.ts_ns + m.dur_ns(s);
          auto lo = std::lower_bound(w->second.begin(), w->second.end(), std::pair<int64_t, int64_t>{s.ts_ns, INT64_MIN});
          for (; lo != w->second.end() && lo->first < end; ++lo) r.gpu_work_ns += lo->second;
        }
      }
    }
  }
  out.has_gpu = m.kernels.size() || m.memcpys.size() || m.memsets.size();

  // Totals: children come after their parent (a parent row is made before its children), so a
  // walk backwards adds each row into its parent.
  for (RangeRow& r : rows) {
    r.host_self_ns = r.host_total_ns;
    r.device_total_ns = r.device_self_ns;
  }
  for (size_t i = rows.size(); i-- > 0;) {
    const RangeRow& r = rows[i];
    if (r.parent < 0) continue;
    RangeRow& p = rows[size_t(r.parent)];
    p.host_self_ns -= r.host_total_ns;
    p.device_total_ns += r.device_total_ns;
    p.kernel_total_ns += r.kernel_total_ns;
    p.tc_total_ns += r.tc_total_ns;
  }

  // Pre-order, siblings by their first call's start (then name, for equal starts).
  std::vector<std::vector<int32_t>> kids(rows.size());
  std::vector<int32_t> tops;
  for (size_t i = 0; i < rows.size(); ++i) (rows[i].parent < 0 ? tops : kids[size_t(rows[i].parent)]).push_back(int32_t(i));
  auto order = [&](std::vector<int32_t>& v) {
    std::stable_sort(v.begin(), v.end(), [&](int32_t a, int32_t b) {
      const RangeRow &x = rows[size_t(a)], &y = rows[size_t(b)];
      return x.first_start_ns != y.first_start_ns ? x.first_start_ns < y.first_start_ns : x.name < y.name;
    });
  };
  std::unordered_map<std::string, int> used_keys;
  std::vector<int32_t> new_index(rows.size(), -1);
  std::vector<std::pair<int32_t, int32_t>> stack;  // (old row, new parent)
  order(tops);
  for (auto it = tops.rbegin(); it != tops.rend(); ++it) stack.push_back({*it, -1});
  while (!stack.empty()) {
    auto [old, parent] = stack.back();
    stack.pop_back();
    RangeRow r = std::move(rows[size_t(old)]);
    r.parent = parent;
    r.depth = parent < 0 ? 0 : out.rows[size_t(parent)].depth + 1;
    r.key = parent < 0 ? r.name : out.rows[size_t(parent)].key + "/" + r.name;
    const int n = ++used_keys[r.key];
    if (n > 1) r.key += "~" + std::to_string(n);
    const int32_t now = int32_t(out.rows.size());
    new_index[size_t(old)] = now;
    out.rows.push_back(std::move(r));
    order(kids[size_t(old)]);
    for (auto k = kids[size_t(old)].rbegin(); k != kids[size_t(old)].rend(); ++k) stack.push_back({*k, now});
  }
  if (launch_rows)
    for (auto& [row, launch] : *launch_rows) row = new_index[size_t(row)];
  return out;
}

std::vector<RangeKernel> range_kernels(const OpTree& t, const TraceModel& m, std::string_view key, bool& found) {
  std::vector<std::pair<int32_t, uint32_t>> launch_rows;
  const RangeTable table = range_table(t, m, &launch_rows);
  int32_t want = -1;
  for (size_t i = 0; i < table.rows.size(); ++i)
    if (table.rows[i].key == key) want = int32_t(i);
  found = want >= 0;
  std::vector<RangeKernel> out;
  if (!found) return out;
  // Rows are in pre-order: the row's subtree is the rows after it deeper than it.
  size_t end = size_t(want) + 1;
  while (end < table.rows.size() && table.rows[end].depth > table.rows[size_t(want)].depth) ++end;
  TcKernelNames tc(m.strings, false);
  std::unordered_map<StringId, size_t> index;
  for (const auto& [row, l] : launch_rows) {
    if (row < want || size_t(row) >= end) continue;
    const Launch& launch = t.launches[l];
    for (uint32_t d = launch.device_begin, end = launch_device_end(t, launch); d < end; ++d) {
      const DeviceRef ref = t.launched[d];
      if (ref.kind != EventKind::kKernel) continue;
      const SliceRow& s = device_slice(m, ref);
      auto [it, fresh] = index.try_emplace(s.name, out.size());
      if (fresh) out.push_back({std::string(m.strings.get(s.name)), 0, 0, tc(s.name)});
      ++out[it->second].calls;
      out[it->second].total_ns += m.dur_ns(s);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const RangeKernel& a, const RangeKernel& b) { return a.total_ns > b.total_ns; });
  return out;
}

const std::vector<RangeColumn>& range_columns() {
  static const double nan = std::nan("");
  static const std::vector<RangeColumn> columns = {
      {"calls", "count", "Calls of the range at this place in the tree", [](const RangeRow& r, int64_t) { return double(r.calls); }},
      {"host_us", "us", "Σ duration of the calls on their thread", [](const RangeRow& r, int64_t) { return us_of(r.host_total_ns); }},
      {"self_host_us", "us", "Host time minus the ranges inside", [](const RangeRow& r, int64_t) { return us_of(r.host_self_ns); }},
      {"device_us", "us",
       "Kernels, memcpys and memsets launched on the range's thread while it was open (inner ranges included)",
       [](const RangeRow& r, int64_t) { return us_of(r.device_total_ns); }},
      {"self_device_us", "us", "Device time launched while no inner range was open",
       [](const RangeRow& r, int64_t) { return us_of(r.device_self_ns); }},
      {"tensor_core_pct", "percent", "Share of the device time's kernel time in kernels that use Tensor Cores",
       [](const RangeRow& r, int64_t) { return r.kernel_total_ns > 0 ? range_tc_pct(r) : nan; }},
      {"gpu_ranges", "count", "GPU-side copies (gpu_user_annotation) of the calls: Kineto writes one per stream for the innermost range around each kernel",
       [](const RangeRow& r, int64_t) { return double(r.gpu_copies); }},
      {"gpu_range_us", "us", "Σ span of the GPU-side copies", [](const RangeRow& r, int64_t) { return r.gpu_copies ? us_of(r.gpu_span_ns) : nan; }},
      {"gpu_range_device_us", "us", "Device work that started on the copy's stream inside it, from any thread",
       [](const RangeRow& r, int64_t) { return r.gpu_copies ? us_of(r.gpu_work_ns) : nan; }},
      {"first_start_us", "us", "Start of the first call, from the trace start",
       [](const RangeRow& r, int64_t s) { return us_of(r.first_start_ns - s); }},
      {"first_end_us", "us", "End of the first call, from the trace start",
       [](const RangeRow& r, int64_t s) { return us_of(r.first_end_ns - s); }},
  };
  return columns;
}

}  // namespace ks
