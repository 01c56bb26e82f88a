#include "core/analysis/memory.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>


namespace ks {

namespace {

// tb_plugin's profiler_start_ts (spec §2.5): the earliest event it keeps — duration events of the
// categories it knows, and the memory events.
int64_t time_origin(const TraceModel& m) {
  int64_t lo = INT64_MAX;
  auto slices = [&](const auto& table, auto get) {
    for (size_t i = 0; i < table.size(); ++i) lo = std::min<int64_t>(lo, get(table[i]));
  };
  slices(m.cpu_ops, [](const CpuOpRow& r) { return r.s.ts_ns; });
  slices(m.user_annotations, [](const CpuOpRow& r) { return r.s.ts_ns; });
  slices(m.gpu_annotations, [](const CpuOpRow& r) { return r.s.ts_ns; });
  slices(m.python_functions, [](const PythonFunctionRow& r) { return r.s.ts_ns; });
  slices(m.runtimes, [](const SliceRow& r) { return r.ts_ns; });
  slices(m.kernels, [](const KernelRow& r) { return r.s.ts_ns; });
  slices(m.memcpys, [](const MemcpyRow& r) { return r.s.ts_ns; });
  slices(m.memsets, [](const MemcpyRow& r) { return r.s.ts_ns; });
  slices(m.memory, [](const MemoryRow& r) { return r.ts_ns; });
  // The profiler's own "Trace" range (PyTorch 1.8/1.9) is a kept category too.
  for (size_t i = 0; i < m.others.size(); ++i) {
    const InstantRow& r = m.others[i];
    if (r.dur_ns < 0) continue;
    std::string cat(m.strings.get(r.cat));
    for (char& c : cat) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (cat == "trace") lo = std::min(lo, r.ts_ns);
  }
  return lo == INT64_MAX ? 0 : lo;
}

bool is_allocation(const MemoryRow& r) { return r.bytes > 0; }
bool has_addr(const MemoryRow& r) { return r.addr != 0; }  // the reader stores an absent Addr as 0

double us(int64_t ns) { return double(ns / 1000) + double(ns % 1000) / 1000.0; }

// Sums of Bytes saturate: a hostile trace's sizes near 2^63 must not overflow.
int64_t neg(int64_t v) { return v == INT64_MIN ? INT64_MAX : -v; }
void add(int64_t& a, int64_t b) {
  if (__builtin_add_overflow(a, b, &a)) a = b > 0 ? INT64_MAX : INT64_MIN;
}

// Python dict semantics for tb_plugin's pending maps: assigning an existing key keeps its place,
// deleting and assigning again moves it to the end.
class OrderedAddrMap {
 public:
  void set(int64_t addr, uint32_t row) {
    auto it = index_.find(addr);
    if (it != index_.end()) {
      entries_[it->second].row = row;
      return;
    }
    index_.emplace(addr, entries_.size());
    entries_.push_back({row, true});
  }
  bool take(int64_t addr, uint32_t& row) {
    auto it = index_.find(addr);
    if (it == index_.end()) return false;
    row = entries_[it->second].row;
    entries_[it->second].alive = false;
    index_.erase(it);
    return true;
  }
  template <class F>
  void for_each(F&& f) const {
    for (const Entry& e : entries_)
      if (e.alive) f(e.row);
  }

 private:
  struct Entry {
    uint32_t row;
    bool alive;
  };
  std::vector<Entry> entries_;
  std::unordered_map<int64_t, size_t> index_;
};

}  // namespace

MemoryIndex build_memory_index(const TraceModel& m, const OpTree& t, const MemoryOptions& options) {
  MemoryIndex x;
  x.tb_plugin = options.tb_plugin;
  const size_t n = m.memory.size();
  x.origin_ns = time_origin(m);
  x.device.assign(n, -1);
  x.node.assign(n, -1);
  x.name_node.assign(n, -1);
  x.allocated.assign(n, -1);
  x.processed.assign(t.nodes.size(), 0);

  // Devices (spec §13.1): type 0 is the CPU, type 1 GPU<id>; other types have no label.
  std::vector<std::string> labels;
  std::vector<std::string> row_label(n);
  for (size_t i = 0; i < n; ++i) {
    const MemoryRow& r = m.memory[i];
    if (r.device_type == 0) row_label[i] = "CPU";
    else if (r.device_type == 1) row_label[i] = "GPU" + std::to_string(r.device_id);
    else continue;
    labels.push_back(row_label[i]);
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  for (const std::string& l : labels) x.devices.push_back({l});
  for (size_t i = 0; i < n; ++i) {
    if (row_label[i].empty()) continue;
    x.device[i] = int16_t(std::lower_bound(labels.begin(), labels.end(), row_label[i]) - labels.begin());
  }
  for (size_t d = 0; d < labels.size() && x.default_device < 0; ++d)
    if (labels[d].starts_with("GPU")) x.default_device = int(d);
  if (x.default_device < 0 && !labels.empty()) x.default_device = 0;  // "CPU" (sorted first)

  x.order.resize(n);
  for (size_t i = 0; i < n; ++i) x.order[i] = uint32_t(i);
  std::stable_sort(x.order.begin(), x.order.end(), [&](uint32_t a, uint32_t b) { return m.memory[a].ts_ns < m.memory[b].ts_ns; });

  // Attribution (spec §13.2): per thread, walk records and the tree's nodes in pre-order together;
  // the open nodes holding ts ([start, end)) form the path to the deepest one.
  std::unordered_map<StringId, int32_t> root_of_tid;
  for (int32_t root : t.roots) {
    const int32_t first = t.nodes[size_t(root)].first_child;
    if (first < 0) continue;
    root_of_tid.emplace(node_slice(m, t.nodes[size_t(first)]).tid, root);
  }
  std::unordered_map<StringId, std::vector<uint32_t>> rows_of_tid;
  for (uint32_t row : x.order)
    if (root_of_tid.count(m.memory[row].tid)) rows_of_tid[m.memory[row].tid].push_back(row);
  for (auto& [tid, rows] : rows_of_tid) {
    const int32_t root = root_of_tid[tid];
    std::vector<int32_t> pre;
    {
      std::vector<int32_t> st;
      for (int32_t c = t.nodes[size_t(root)].first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) st.push_back(c);
      std::reverse(st.begin(), st.end());  // the first child on top
      while (!st.empty()) {
        const int32_t v = st.back();
        st.pop_back();
        pre.push_back(v);
        const size_t mark = st.size();
        for (int32_t c = t.nodes[size_t(v)].first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) st.push_back(c);
        std::reverse(st.begin() + std::ptrdiff_t(mark), st.end());
      }
    }
    std::vector<int32_t> open;
    size_t next = 0;
    for (uint32_t row : rows) {
      const int64_t ts = m.memory[row].ts_ns;
      auto start = [&](int32_t n) { return node_start_ns(t, m, t.nodes[size_t(n)]); };
      auto end = [&](int32_t n) { return node_end_ns(t, m, t.nodes[size_t(n)]); };
      while (next < pre.size() && start(pre[next]) <= ts) {
        const int64_t nd_start = start(pre[next]);
        while (!open.empty() && nd_start >= end(open.back())) open.pop_back();
        open.push_back(pre[next++]);
      }
      while (!open.empty() && end(open.back()) <= ts) open.pop_back();
      for (int32_t v : open) x.processed[size_t(v)] = 1;
      if (!open.empty() && t.nodes[size_t(open.back())].is_operator) {
        x.node[row] = open.back();
        if (is_allocation(m.memory[row])) x.name_node[row] = open.back();
      }
    }
  }
  // Releases take their allocation's operator, paired by address over the whole trace.
  {
    std::unordered_map<int64_t, uint32_t> live;
    for (uint32_t row : x.order) {
      const MemoryRow& r = m.memory[row];
      if (!has_addr(r)) continue;
      if (is_allocation(r)) {
        live[r.addr] = row;
      } else if (auto it = live.find(r.addr); it != live.end()) {
        x.name_node[row] = x.name_node[it->second];
        live.erase(it);
      }
    }
  }
  // Records per node (CSR), in time order.
  x.node_first.assign(t.nodes.size() + 1, 0);
  for (size_t i = 0; i < n; ++i)
    if (x.node[i] >= 0) ++x.node_first[size_t(x.node[i]) + 1];
  for (size_t i = 1; i < x.node_first.size(); ++i) x.node_first[i] += x.node_first[i - 1];
  x.node_records.resize(x.node_first.back());
  {
    std::vector<uint32_t> fill(x.node_first.begin(), x.node_first.end() - 1);
    for (uint32_t row : x.order)
      if (x.node[row] >= 0) x.node_records[fill[size_t(x.node[row])]++] = row;
  }
  // Per device: rows in time order, totals, the running sum where no totals exist, peaks.
  x.by_device.resize(x.devices.size());
  std::vector<uint8_t> device_has_totals(x.devices.size(), 0);
  for (uint32_t row : x.order) {
    const int d = x.device[row];
    if (d < 0) continue;
    x.by_device[size_t(d)].push_back(row);
    MemoryDevice& dev = x.devices[size_t(d)];
    ++dev.records;
    if (m.memory[row].total_allocated >= 0) device_has_totals[size_t(d)] = 1;
    if (has_addr(m.memory[row])) dev.has_addresses = true;
  }
  for (size_t d = 0; d < x.devices.size(); ++d) {
    MemoryDevice& dev = x.devices[d];
    dev.allocated_from_bytes = !device_has_totals[d] && !x.tb_plugin;
    int64_t sum = 0;
    for (uint32_t row : x.by_device[d]) {
      const MemoryRow& r = m.memory[row];
      if (dev.allocated_from_bytes) {
        add(sum, r.bytes);
        x.allocated[row] = sum;
      } else if (r.total_allocated >= 0) {
        x.allocated[row] = r.total_allocated;
      }
      if (x.allocated[row] >= 0 && (dev.peak_allocated < 0 || x.allocated[row] > dev.peak_allocated)) {
        dev.peak_allocated = x.allocated[row];
        dev.peak_ts_ns = r.ts_ns;
      }
      if (r.total_reserved >= 0) dev.peak_reserved = std::max(dev.peak_reserved, r.total_reserved);
    }
  }
  return x;
}

double memory_us_between(int64_t a, int64_t b) {
  int64_t d;
  if (__builtin_sub_overflow(a, b, &d)) return (double(a) - double(b)) / 1000.0;
  return double(d / 1000) + double(d % 1000) / 1000.0;
}

size_t memory_index_bytes(const MemoryIndex& x) {
  size_t b = sizeof(MemoryIndex) + x.order.capacity() * 4 + x.device.capacity() * 2 + x.node.capacity() * 4 +
             x.name_node.capacity() * 4 + x.allocated.capacity() * 8 + x.processed.capacity() + x.node_records.capacity() * 4 +
             x.node_first.capacity() * 4 + x.devices.capacity() * sizeof(MemoryDevice);
  for (const auto& v : x.by_device) b += sizeof(v) + v.capacity() * 4;
  return b;
}

int memory_device_index(const MemoryIndex& x, std::string_view label) {
  for (size_t d = 0; d < x.devices.size(); ++d)
    if (x.devices[d].label == label) return int(d);
  return -1;
}

MemoryWindow memory_window_us(const MemoryIndex& x, double from_us, double to_us) {
  // Absolute ns, saturated: a time beyond ±1e18 ns (31 years) from the origin is as good as open.
  auto at = [&](double us, int64_t open) {
    if (!std::isfinite(us)) return open;
    const double ns = double(x.origin_ns) + us * 1000.0;
    if (ns >= 9.2e18) return INT64_MAX;
    if (ns <= -9.2e18) return INT64_MIN;
    return x.origin_ns + int64_t(std::llround(us * 1000.0));
  };
  MemoryWindow w;
  w.from_ns = at(from_us, INT64_MIN);
  w.to_ns = at(to_us, INT64_MAX);
  return w;
}

// --- statistics (spec §13.3) --------------------------------------------------------------------
std::vector<std::vector<MemoryStatRow>> memory_stats(const MemoryIndex& x, const OpTree& t, const TraceModel& m,
                                                     const MemoryWindow& w) {
  const size_t nd = x.devices.size();
  constexpr size_t kInc = 0, kCount = 1, kSize = 2;
  struct Sums {
    int64_t v[6] = {0, 0, 0, 0, 0, 0};  // total inc, self inc, total count, self count, total size, self size
  };
  std::map<std::string, uint64_t, std::less<>> calls;
  std::vector<std::map<std::string, Sums, std::less<>>> agg(nd);
  std::vector<std::vector<int64_t>> scratch;  // per depth: nd x 3 totals

  // Returns the node's totals in scratch[depth].
  auto visit = [&](auto&& self, int32_t v, size_t depth) -> void {
    if (scratch.size() <= depth) scratch.emplace_back(nd * 3, 0);
    std::fill(scratch[depth].begin(), scratch[depth].end(), 0);
    const OpNode& node = t.nodes[size_t(v)];
    const std::string_view name = node_name(t, m, v);
    if (node.is_operator) ++calls[std::string(name)];
    if (!x.processed[size_t(v)]) return;
    std::vector<int64_t> self_vals;
    if (node.is_operator) {
      self_vals.assign(nd * 3, 0);
      for (uint32_t i = x.node_first[size_t(v)]; i < x.node_first[size_t(v) + 1]; ++i) {
        const uint32_t row = x.node_records[i];
        const MemoryRow& r = m.memory[row];
        const int d = x.device[row];
        if (d < 0 || !w.contains(r.ts_ns)) continue;
        int64_t* s = &self_vals[size_t(d) * 3];
        add(s[kInc], r.bytes);
        if (is_allocation(r)) {
          add(s[kSize], r.bytes);
          s[kCount] += 1;
        }
      }
      std::copy(self_vals.begin(), self_vals.end(), scratch[depth].begin());
    }
    for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) {
      const OpNode& child = t.nodes[size_t(c)];
      if (node_end_ns(t, m, child) < w.from_ns || node_start_ns(t, m, child) > w.to_ns) continue;
      self(self, c, depth + 1);
      for (size_t k = 0; k < nd * 3; ++k) add(scratch[depth][k], scratch[depth + 1][k]);
    }
    if (node.is_operator) {
      for (size_t d = 0; d < nd; ++d) {
        const int64_t* tot = &scratch[depth][d * 3];
        const int64_t* s = &self_vals[d * 3];
        if (!tot[0] && !tot[1] && !tot[2] && !s[0] && !s[1] && !s[2]) continue;
        Sums& a = agg[d][std::string(name)];
        add(a.v[0], tot[kInc]);
        add(a.v[1], s[kInc]);
        add(a.v[2], tot[kCount]);
        add(a.v[3], s[kCount]);
        add(a.v[4], tot[kSize]);
        add(a.v[5], s[kSize]);
      }
    }
  };
  for (int32_t root : t.roots) {
    for (int32_t c = t.nodes[size_t(root)].first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) {
      const OpNode& child = t.nodes[size_t(c)];
      if (node_end_ns(t, m, child) < w.from_ns || node_start_ns(t, m, child) > w.to_ns) continue;
      visit(visit, c, 0);
    }
  }
  std::vector<std::vector<MemoryStatRow>> out(nd);
  for (size_t d = 0; d < nd; ++d) {
    for (const auto& [name, s] : agg[d]) {
      if (!s.v[0] && !s.v[1] && !s.v[2] && !s.v[3] && !s.v[4] && !s.v[5]) continue;
      MemoryStatRow r;
      r.name = name;
      auto it = calls.find(name);
      r.calls = it == calls.end() ? 0 : it->second;
      r.size_increase = s.v[0];
      r.self_size_increase = s.v[1];
      r.allocation_count = s.v[2];
      r.self_allocation_count = s.v[3];
      r.allocation_size = s.v[4];
      r.self_allocation_size = s.v[5];
      out[d].push_back(std::move(r));
    }
  }
  return out;
}

// --- events (spec §13.5) ------------------------------------------------------------------------
std::vector<std::vector<MemoryEventRow>> memory_events(const MemoryIndex& x, const TraceModel& m, const MemoryWindow& w) {
  std::vector<std::vector<MemoryEventRow>> out(x.devices.size());
  OrderedAddrMap allocs, frees;
  for (uint32_t row : x.order) {
    const MemoryRow& r = m.memory[row];
    if (x.device[row] < 0 || !has_addr(r) || !w.contains(r.ts_ns)) continue;
    if (is_allocation(r)) {
      allocs.set(r.addr, row);
      continue;
    }
    uint32_t a = 0;
    if (allocs.take(r.addr, a)) {
      MemoryEventRow e;
      e.name_node = x.name_node[a];
      e.bytes = neg(r.bytes);
      e.alloc_ns = m.memory[a].ts_ns;
      e.release_ns = r.ts_ns;
      e.record = a;
      out[size_t(x.device[a])].push_back(e);
    } else {
      frees.set(r.addr, row);
    }
  }
  allocs.for_each([&](uint32_t a) {
    MemoryEventRow e;
    e.name_node = x.name_node[a];
    e.bytes = m.memory[a].bytes;
    e.alloc_ns = m.memory[a].ts_ns;
    e.record = a;
    out[size_t(x.device[a])].push_back(e);
  });
  frees.for_each([&](uint32_t f) {
    MemoryEventRow e;
    e.name_node = x.name_node[f];
    e.bytes = neg(m.memory[f].bytes);
    e.release_ns = m.memory[f].ts_ns;
    e.record = f;
    out[size_t(x.device[f])].push_back(e);
  });
  return out;
}

std::string memory_operator_label(const OpTree& t, const TraceModel& m, int32_t name_node) {
  if (name_node < 0) return "<unknown>";
  const std::string name(node_name(t, m, name_node));
  const int32_t parent = t.nodes[size_t(name_node)].parent;
  if (name.starts_with("aten::empty") && parent >= 0) return std::string(node_name(t, m, parent)) + " (" + name + ")";
  return name;
}

StackKey memory_call_stack(const OpTree& t, const TraceModel& m, int32_t name_node) {
  if (name_node < 0) return 0;
  const OpNode& n = t.nodes[size_t(name_node)];
  if (n.type == NodeType::kRoot || (n.kind != EventKind::kCpuOp && n.kind != EventKind::kUserAnnotation)) return 0;
  return row_stack(t.stacks, m, n.kind, n.row);
}

NoStackReason memory_no_stack_reason(const OpTree& t, const TraceModel& m, int32_t name_node) {
  if (name_node < 0) return NoStackReason::kNotRecorded;
  const OpNode& n = t.nodes[size_t(name_node)];
  if (n.type == NodeType::kRoot || (n.kind != EventKind::kCpuOp && n.kind != EventKind::kUserAnnotation)) return NoStackReason::kNotRecorded;
  return no_stack_reason(t.stacks, m, n.kind, n.row);
}

// --- curve (spec §13.4) -------------------------------------------------------------------------
namespace {

// numpy.array_split bins + tb_plugin's lttb_sample on (time, allocated).
std::vector<CurvePoint> lttb(const std::vector<CurvePoint>& p, size_t target) {
  if (p.size() <= target || target < 3) return p;
  std::vector<CurvePoint> out;
  out.reserve(target);
  out.push_back(p.front());
  const size_t inner = p.size() - 2, bins = target - 2;
  std::vector<size_t> begin(bins + 1);
  const size_t base = inner / bins, extra = inner % bins;
  begin[0] = 1;
  for (size_t i = 0; i < bins; ++i) begin[i + 1] = begin[i] + base + (i < extra ? 1 : 0);
  const CurvePoint* prev = &p.front();
  for (size_t b = 0; b < bins; ++b) {
    double cx, cy;
    if (b + 1 < bins) {
      double sx = 0, sy = 0;
      for (size_t k = begin[b + 1]; k < begin[b + 2]; ++k) {
        sx += double(p[k].ts_ns);
        sy += double(p[k].allocated);
      }
      const double cnt = double(begin[b + 2] - begin[b + 1]);
      cx = sx / cnt;
      cy = sy / cnt;
    } else {
      cx = double(p.back().ts_ns);
      cy = double(p.back().allocated);
    }
    double best = -1;
    size_t pick = begin[b];
    const double ax = double(prev->ts_ns), ay = double(prev->allocated);
    for (size_t k = begin[b]; k < begin[b + 1]; ++k) {
      const double area = std::fabs((ax - cx) * (double(p[k].allocated) - ay) - (ax - double(p[k].ts_ns)) * (cy - ay));
      if (area > best) {
        best = area;
        pick = k;
      }
    }
    out.push_back(p[pick]);
    prev = &p[pick];
  }
  out.push_back(p.back());
  return out;
}

// The device's rows inside the window: [lo, hi) of by_device.
std::pair<size_t, size_t> rows_in(const MemoryIndex& x, const TraceModel& m, int device, const MemoryWindow& w) {
  const std::vector<uint32_t>& rows = x.by_device[size_t(device)];
  const auto lo = std::lower_bound(rows.begin(), rows.end(), w.from_ns,
                                   [&](uint32_t r, int64_t v) { return m.memory[r].ts_ns < v; });
  const auto hi = std::upper_bound(lo, rows.end(), w.to_ns, [&](int64_t v, uint32_t r) { return v < m.memory[r].ts_ns; });
  return {size_t(lo - rows.begin()), size_t(hi - rows.begin())};
}

}  // namespace

std::vector<CurvePoint> memory_curve(const MemoryIndex& x, const TraceModel& m, int device, const MemoryWindow& w) {
  std::vector<CurvePoint> p;
  if (device < 0 || size_t(device) >= x.devices.size()) return p;
  const auto [lo, hi] = rows_in(x, m, device, w);
  const std::vector<uint32_t>& rows = x.by_device[size_t(device)];
  for (size_t i = lo; i < hi; ++i) {
    const MemoryRow& r = m.memory[rows[i]];
    if (x.tb_plugin) {
      if (!has_addr(r) || r.total_allocated < 0 || r.total_reserved < 0) continue;
      if (!p.empty()) p.push_back({r.ts_ns, p.back().allocated, p.back().reserved});  // the step
      p.push_back({r.ts_ns, r.total_allocated, r.total_reserved});
    } else if (x.allocated[rows[i]] >= 0) {
      p.push_back({r.ts_ns, x.allocated[rows[i]], r.total_reserved});
    }
  }
  return x.tb_plugin ? lttb(p, 10240) : p;
}

std::vector<CurvePoint> memory_curve_downsampled(const MemoryIndex& x, const TraceModel& m, int device,
                                                 const MemoryWindow& w, int columns) {
  std::vector<CurvePoint> out;
  if (device < 0 || size_t(device) >= x.devices.size()) return out;
  const std::vector<uint32_t>& rows = x.by_device[size_t(device)];
  const auto [lo, hi] = rows_in(x, m, device, w);
  auto point = [&](uint32_t row) { return CurvePoint{m.memory[row].ts_ns, x.allocated[row], m.memory[row].total_reserved}; };
  // The level the curve enters the window at.
  for (size_t i = lo; i-- > 0;) {
    if (x.allocated[rows[i]] < 0) continue;
    if (w.from_ns != INT64_MIN) {
      CurvePoint p = point(rows[i]);
      p.ts_ns = w.from_ns;
      out.push_back(p);
    }
    break;
  }
  // ...and the level it leaves at: a step holds until the next event, so the curve reaches the
  // window's end (a window beyond ±1e18 ns is open, and ends at the last point).
  auto close_window = [&] {
    if (!out.empty() && w.to_ns != INT64_MAX && out.back().ts_ns < w.to_ns) {
      CurvePoint p = out.back();
      p.ts_ns = w.to_ns;
      out.push_back(p);
    }
    return out;
  };
  size_t count = 0;
  for (size_t i = lo; i < hi; ++i) count += x.allocated[rows[i]] >= 0;
  columns = std::max(1, columns);
  if (count <= size_t(columns) * 4 || hi <= lo) {
    for (size_t i = lo; i < hi; ++i)
      if (x.allocated[rows[i]] >= 0) out.push_back(point(rows[i]));
    return close_window();
  }
  const int64_t t0 = m.memory[rows[lo]].ts_ns, t1 = m.memory[rows[hi - 1]].ts_ns;
  const int64_t from = w.from_ns == INT64_MIN ? t0 : w.from_ns, to = w.to_ns == INT64_MAX ? t1 : w.to_ns;
  const double width = std::max(1.0, double(to) - double(from));  // in doubles: a window may span int64
  size_t i = lo;
  std::vector<size_t> pick;
  while (i < hi) {
    if (x.allocated[rows[i]] < 0) {
      ++i;
      continue;
    }
    const int64_t col = std::min<int64_t>(columns - 1, int64_t((double(m.memory[rows[i]].ts_ns) - double(from)) / width * columns));
    size_t first = i, last = i, lo_a = i, hi_a = i, hi_r = i;
    for (; i < hi; ++i) {
      const uint32_t r = rows[i];
      if (x.allocated[r] < 0) continue;
      if (std::min<int64_t>(columns - 1, int64_t((double(m.memory[r].ts_ns) - double(from)) / width * columns)) != col) break;
      last = i;
      if (x.allocated[r] < x.allocated[rows[lo_a]]) lo_a = i;
      if (x.allocated[r] > x.allocated[rows[hi_a]]) hi_a = i;
      if (m.memory[r].total_reserved > m.memory[rows[hi_r]].total_reserved) hi_r = i;
    }
    pick = {first, lo_a, hi_a, hi_r, last};
    std::sort(pick.begin(), pick.end());
    pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
    for (size_t k : pick) out.push_back(point(rows[k]));
  }
  return close_window();
}

// --- alive at a moment ----------------------------------------------------------------------------
std::vector<AliveAllocation> memory_alive(const MemoryIndex& x, const TraceModel& m, int device, int64_t at_ns) {
  std::vector<AliveAllocation> out;
  if (device < 0 || size_t(device) >= x.devices.size()) return out;
  std::unordered_map<int64_t, uint32_t> live;
  for (uint32_t row : x.by_device[size_t(device)]) {
    const MemoryRow& r = m.memory[row];
    if (r.ts_ns > at_ns) break;
    if (!has_addr(r)) continue;
    if (is_allocation(r)) live[r.addr] = row;
    else live.erase(r.addr);
  }
  out.reserve(live.size());
  for (const auto& [addr, row] : live) out.push_back({row, x.name_node[row], m.memory[row].bytes, m.memory[row].ts_ns});
  std::sort(out.begin(), out.end(), [](const AliveAllocation& a, const AliveAllocation& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.alloc_ns != b.alloc_ns) return a.alloc_ns < b.alloc_ns;
    return a.record < b.record;
  });
  return out;
}

// --- a device in a window, the allocator's count at a moment -------------------------------------
MemoryDevice memory_device_in(const MemoryIndex& x, const TraceModel& m, int device, const MemoryWindow& w) {
  MemoryDevice out = x.devices[size_t(device)];
  if (w.whole()) return out;
  out.peak_allocated = out.peak_reserved = -1;
  out.peak_ts_ns = 0;
  out.records = 0;
  const auto [lo, hi] = rows_in(x, m, device, w);
  for (size_t i = lo; i < hi; ++i) {
    const uint32_t row = x.by_device[size_t(device)][i];
    ++out.records;
    if (x.allocated[row] > out.peak_allocated) {
      out.peak_allocated = x.allocated[row];
      out.peak_ts_ns = m.memory[row].ts_ns;
    }
    out.peak_reserved = std::max(out.peak_reserved, m.memory[row].total_reserved);
  }
  return out;
}

int64_t memory_allocated_at(const MemoryIndex& x, const TraceModel& m, int device, int64_t at_ns) {
  int64_t allocated = -1;
  if (device < 0 || size_t(device) >= x.devices.size()) return allocated;
  for (uint32_t row : x.by_device[size_t(device)]) {
    if (m.memory[row].ts_ns > at_ns) break;
    if (x.allocated[row] >= 0) allocated = x.allocated[row];
  }
  return allocated;
}

double memory_origin_us(const MemoryIndex& x) { return us(x.origin_ns); }

}  // namespace ks
