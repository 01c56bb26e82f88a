#include "core/analysis/step_scope.h"

#include <algorithm>

namespace ks {

namespace {

// Time ranges (inclusive ends) of steps, answering "which step holds time t": the one that
// started last among those holding it. A running maximum of the ends lets the search stop as
// soon as no earlier range can reach t, so a time after the last step costs one comparison.
class RangeIndex {
 public:
  void add(int64_t start, int64_t end, int32_t step) { ranges_.push_back({start, end, step}); }
  void finish() {
    std::stable_sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
    max_end_.resize(ranges_.size());
    int64_t m = INT64_MIN;
    for (size_t i = 0; i < ranges_.size(); ++i) max_end_[i] = m = std::max(m, ranges_[i].end);
  }
  int32_t find(int64_t t) const {
    const auto after = std::upper_bound(ranges_.begin(), ranges_.end(), t, [](int64_t v, const Range& r) { return v < r.start; });
    for (size_t i = size_t(after - ranges_.begin()); i-- > 0;) {
      if (max_end_[i] < t) break;
      if (ranges_[i].end >= t) return ranges_[i].step;
    }
    return -1;
  }

 private:
  struct Range {
    int64_t start, end;
    int32_t step;
  };
  std::vector<Range> ranges_;
  std::vector<int64_t> max_end_;
};

template <class F>
void for_each_kernel_of(const OpTree& t, const Launch& l, F&& f) {
  for (uint32_t d = l.device_begin, end = launch_device_end(t, l); d < end; ++d)
    if (t.launched[d].kind == EventKind::kKernel) f(t.launched[d].row);
}

}  // namespace

StepAttribution attribute_steps(const OpTree& t, const TraceModel& m, const StepsResult& steps) {
  RangeIndex host, device;
  for (size_t i = 0; i < steps.steps.size(); ++i) {
    const Step& s = steps.steps[i];
    if (!s.on_gpu_stream) host.add(s.host_start_ns, s.host_end_ns, int32_t(i));
    device.add(s.start_ns, s.end_ns, int32_t(i));
  }
  host.finish();
  device.finish();

  StepAttribution a;
  a.node.assign(t.nodes.size(), -1);
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const OpNode& node = t.nodes[n];
    if (node.type != NodeType::kRoot) a.node[n] = host.find(node_slice(m, node).ts_ns);
  }

  a.kernel.assign(m.kernels.size(), -1);
  // A launch no node took (its thread has no host ranges) counts by its own start...
  for (const Launch& l : t.launches) {
    if (launch_kind(t, m, l) == EventKind::kOther) continue;  // tb_plugin's holder of unlaunched kernels: below
    const int32_t s = host.find(launch_slice(t, m, l)->ts_ns);
    for_each_kernel_of(t, l, [&](uint32_t k) { a.kernel[k] = s; });
  }
  // ...the others by the node that made them, as the operator tables count their device time.
  std::vector<int32_t> stack;
  for (int32_t root : t.roots) {
    stack.assign(1, root);
    while (!stack.empty()) {
      const int32_t n = stack.back();
      stack.pop_back();
      const OpNode& node = t.nodes[size_t(n)];
      for (int32_t l = node.first_launch; l >= 0; l = t.launches[size_t(l)].next) {
        const Launch& launch = t.launches[size_t(l)];
        if (launch_kind(t, m, launch) == EventKind::kOther) continue;
        const int32_t s = node.type == NodeType::kRoot ? host.find(launch_slice(t, m, launch)->ts_ns) : a.node[size_t(n)];
        for_each_kernel_of(t, launch, [&](uint32_t k) { a.kernel[k] = s; });
      }
      for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) stack.push_back(c);
    }
  }
  // Kernels whose launch is missing: by where they ran.
  for (DeviceRef d : t.unlaunched)
    if (d.kind == EventKind::kKernel) a.kernel[d.row] = device.find(m.kernels[d.row].s.ts_ns);
  return a;
}

std::optional<StepFilter> step_filter(const StepAttribution& a, const StepsResult& steps, std::string_view name) {
  StepFilter f;
  f.name = std::string(name);
  f.attribution = &a;
  f.chosen.assign(steps.steps.size(), 0);
  bool any = false;
  for (size_t i = 0; i < steps.steps.size(); ++i) {
    if (steps.steps[i].name != name) continue;
    f.chosen[i] = 1;
    any = true;
  }
  if (!any) return std::nullopt;
  return f;
}

std::string unknown_step_message(const StepsResult& steps, std::string_view name) {
  std::vector<std::string_view> names;
  for (const Step& s : steps.steps)
    if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
  std::string out = "no step ";
  out += name;
  if (names.empty()) return out + " (the trace has no steps)";
  out += names.size() == 1 ? " (the only step is " : " (the steps are ";
  // A capture of thousands of steps: the first and last ten say what the names look like.
  constexpr size_t kEnds = 10;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names.size() > 3 * kEnds && i == kEnds) {
      out += "…, ";
      i = names.size() - kEnds;
    }
    out += names[i];
    if (i + 1 < names.size()) out += ", ";
  }
  return out + ")";
}

}  // namespace ks
