#include "core/analysis/kernel_sequences.h"

#include <algorithm>
#include <map>

namespace ks {


KernelSequencesResult kernel_sequences(const OpTree& t, const TraceModel& m, const KernelSequenceOptions& o) {
  KernelSequencesResult out;
  // Whether a name contains the filter, each name's text read once.
  std::vector<uint8_t> matches(m.strings.size(), 0);  // 0 unknown, 1 no, 2 yes
  auto match = [&](StringId id) {
    if (id >= matches.size()) return m.strings.get(id).find(o.operator_filter) != std::string_view::npos;
    if (!matches[id]) matches[id] = m.strings.get(id).find(o.operator_filter) != std::string_view::npos ? 2 : 1;
    return matches[id] == 2;
  };
  struct Agg {
    uint64_t count = 0;
    int64_t gpu_ns = 0, cpu_ns = 0, first_start = 0, first_end = 0;
    std::vector<StringId> stack;
  };
  std::map<std::vector<StringId>, Agg> patterns;  // key: the root's name, then the sequence's
  std::vector<int32_t> path;                        // the nodes above the one visited
  std::vector<DeviceRef> work;
  std::vector<int32_t> todo;
  // The GPU work launched under `root`, in order of start.
  auto collect = [&](int32_t root) {
    work.clear();
    todo.assign(1, root);
    while (!todo.empty()) {
      const int32_t n = todo.back();
      todo.pop_back();
      const OpNode& node = t.nodes[size_t(n)];
      for (int32_t l = node.first_launch; l >= 0; l = t.launches[size_t(l)].next) {
        const Launch& launch = t.launches[size_t(l)];
        for (uint32_t d = launch.device_begin, end = launch_device_end(t, launch); d < end; ++d) work.push_back(t.launched[d]);
      }
      for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) todo.push_back(c);
    }
    std::sort(work.begin(), work.end(), [&](const DeviceRef& a, const DeviceRef& b) {
      const int64_t x = device_slice(m, a).ts_ns, y = device_slice(m, b).ts_ns;
      return x != y ? x < y : (a.kind != b.kind ? a.kind < b.kind : a.row < b.row);
    });
  };
  // Depth first through each tree; a matching node is a root and its subtree is not searched further.
  struct Frame {
    int32_t node;
    int32_t next_child;
  };
  std::vector<Frame> stack;
  for (int32_t root : t.roots) {
    stack.assign(1, {root, t.nodes[size_t(root)].first_child});
    path.clear();
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next_child < 0) {
        stack.pop_back();
        if (!path.empty()) path.pop_back();
        continue;
      }
      const int32_t c = f.next_child;
      f.next_child = t.nodes[size_t(c)].next_sibling;
      const OpNode& node = t.nodes[size_t(c)];
      if (node.dropped) continue;
      const SliceRow& s = node_slice(m, node);
      if (!match(s.name)) {
        path.push_back(c);
        stack.push_back({c, node.first_child});
        continue;
      }
      ++out.roots;
      collect(c);
      if (work.size() < o.min_kernels) continue;
      ++out.counted;
      std::vector<StringId> key;
      key.reserve(work.size() + 1);
      key.push_back(s.name);
      int64_t gpu = 0;
      for (const DeviceRef& d : work) {
        const SliceRow& w = device_slice(m, d);
        key.push_back(w.name);
        gpu += std::max<int64_t>(m.dur_ns(w), 0);
      }
      Agg& a = patterns[std::move(key)];
      if (a.count++ == 0) {
        a.first_start = s.ts_ns;
        a.first_end = int64_t(s.ts_ns) + m.dur_ns(s);
        for (int32_t p : path) a.stack.push_back(node_slice(m, t.nodes[size_t(p)]).name);
      }
      a.gpu_ns += gpu;
      a.cpu_ns += std::max<int64_t>(m.dur_ns(s), 0);
    }
  }
  out.patterns = patterns.size();
  // Ordered by count, then by the pattern's text (HTA sorts the "|"-joined names).
  std::vector<std::pair<std::string, const std::pair<const std::vector<StringId>, Agg>*>> order;
  order.reserve(patterns.size());
  for (const auto& p : patterns) {
    std::string text;
    for (StringId id : p.first) {
      if (!text.empty()) text += '|';
      text += m.strings.get(id);
    }
    order.emplace_back(std::move(text), &p);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second->second.count != b.second->second.count) return a.second->second.count > b.second->second.count;
    return a.first < b.first;
  });
  for (size_t i = 0; i < order.size() && i < o.top; ++i) {
    const auto& [names, a] = *order[i].second;
    KernelSequence k;
    k.op = names.front();
    k.kernels.assign(names.begin() + 1, names.end());
    k.count = a.count;
    k.gpu_ns = a.gpu_ns;
    k.cpu_ns = a.cpu_ns;
    k.first_start_ns = a.first_start;
    k.first_end_ns = a.first_end;
    k.stack = a.stack;
    out.sequences.push_back(std::move(k));
  }
  return out;
}

}  // namespace ks
