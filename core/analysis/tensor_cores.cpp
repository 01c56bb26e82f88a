#include "core/analysis/tensor_cores.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace ks {

std::string kernel_tc_scope(Accelerator a) {
  return "Share of the time of every kernel in the trace (whoever launched it, steps or not) spent in kernels "
         "known to use " + std::string(matrix_units_term(a)) + "; as tb_plugin's Kernel view pie.";
}

std::string kernel_tc_step_scope(Accelerator a, std::string_view step) {
  return "Share of the time of the kernels step " + std::string(step) +
         " issued (launched by its operators, or run in it when their launch is not in the trace) spent in kernels "
         "known to use " + std::string(matrix_units_term(a)) + ".";
}

std::string gpu_tc_scope(Accelerator a) {
  return "Share of the time of the kernels that operators launched themselves on this GPU, over the whole trace "
         "(not only the steps), spent in kernels known to use " + std::string(matrix_units_term(a)) +
         "; kernels launched outside operators (under nccl:* annotations, ProfilerStep ranges) are left out. "
         "As tb_plugin's GPU summary.";
}

std::string gpu_all_kernels_tc_scope(Accelerator a) {
  return "Share of the time of every kernel that ran on this GPU (whoever launched it, steps or not) spent in kernels "
         "known to use " + std::string(matrix_units_term(a)) + "; the Kernels view's pie counts the same.";
}

std::string gpu_all_kernels_tc_step_scope(Accelerator a, std::string_view step) {
  return "Share of the time of the kernels step " + std::string(step) + " issued on this GPU spent in kernels known to use " +
         std::string(matrix_units_term(a)) + "; the Kernels view of that step counts the same.";
}

std::string eligible_tc_scope(Accelerator a) {
  return "Share of operator-launched kernel time launched by the innermost operators that could use " +
         std::string(matrix_units_term(a)) + " (convolutions, matrix multiplies, attention).";
}

void write_tc_state(JsonWriter& w, TcState s) {
  if (s == TcState::kUnknown) w.null();
  else w.value(s == TcState::kYes);
}

TcShare tc_kernel_share(const TraceModel& m, bool tb_plugin, const StepFilter* step) {
  TcShare share;
  TcKernelNames tc(m.strings, tb_plugin);
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    if (step && !step->has_kernel(i)) continue;
    const KernelRow& k = m.kernels[i];
    share.add(tc(k.s.name), m.dur_ns(k.s));
  }
  return share;
}

std::vector<TcShare> tc_kernel_share_by_gpu(const TraceModel& m, bool tb_plugin, const std::vector<int>& gpu_ids,
                                            const StepFilter* step) {
  std::vector<TcShare> out(gpu_ids.size());
  TcKernelNames tc(m.strings, tb_plugin);
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    if (step && !step->has_kernel(i)) continue;
    const KernelRow& k = m.kernels[i];
    const auto g = std::find(gpu_ids.begin(), gpu_ids.end(), k.device);
    if (g != gpu_ids.end()) out[size_t(g - gpu_ids.begin())].add(tc(k.s.name), m.dur_ns(k.s));
  }
  return out;
}

namespace {

// Σ duration of the kernels a node's own launches put on the GPU, by kernel device.
template <class F>
void own_kernels(const OpTree& t, const TraceModel& m, const OpNode& n, F&& f) {
  for (int32_t l = n.first_launch; l >= 0; l = t.launches[size_t(l)].next) {
    const Launch& launch = t.launches[size_t(l)];
    for (uint32_t d = launch.device_begin, end = launch_device_end(t, launch); d < end; ++d)
      if (t.launched[d].kind == EventKind::kKernel) f(m.kernels[t.launched[d].row]);
  }
}

}  // namespace

std::optional<std::vector<TcShare>> tc_share_by_gpu(const OpTree& t, const TraceModel& m, const std::vector<int>& gpu_ids) {
  std::vector<TcShare> out(gpu_ids.size());
  TcKernelNames tc(m.strings, t.tb_plugin);
  bool any = false;
  for (const OpNode& n : t.nodes) {
    if (!n.is_operator || n.parent == -2) continue;
    own_kernels(t, m, n, [&](const KernelRow& k) {
      any = true;
      const auto g = std::find(gpu_ids.begin(), gpu_ids.end(), k.device);
      if (g == gpu_ids.end()) return;
      out[size_t(g - gpu_ids.begin())].add(tc(k.s.name), span_ns(k.s.ts_ns, m.dur_ns(k.s), t.tb_plugin));
    });
  }
  if (!any) return std::nullopt;
  return out;
}

std::optional<std::vector<double>> tc_ratio_by_gpu(const OpTree& t, const TraceModel& m, const std::vector<int>& gpu_ids) {
  const std::optional<std::vector<TcShare>> shares = tc_share_by_gpu(t, m, gpu_ids);
  if (!shares) return std::nullopt;
  std::vector<double> out;
  for (const TcShare& s : *shares) out.push_back(s.ratio().value_or(0.0));
  return out;
}

EligibleKernels tc_eligible_kernels(const OpTree& t, const TraceModel& m) {
  // A node is a "bottom" eligible node when it is eligible and no node below it is.
  EligibleKernels out;
  TcKernelNames tc(m.strings, t.tb_plugin);
  std::vector<char> below(t.nodes.size(), 0);  // the subtree holds a bottom eligible node
  std::unordered_map<StringId, int64_t> by_name;
  walk_post_order(t, [](uint32_t, int32_t) {}, [&](int32_t n) {
    const OpNode& node = t.nodes[size_t(n)];
    bool child_has = false;
    for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) child_has |= below[size_t(c)] != 0;
    const bool bottom = node.tc_eligible == TcState::kYes && !child_has;
    int64_t own = 0;
    own_kernels(t, m, node, [&](const KernelRow& k) {
      const int64_t d = span_ns(k.s.ts_ns, m.dur_ns(k.s), t.tb_plugin);
      own += d;
      if (!bottom) return;
      const TcState s = tc(k.s.name);
      if (s == TcState::kYes) out.eligible_tc_ns += d;
      else if (s == TcState::kUnknown) out.eligible_unknown_ns += d;
    });
    if (node.is_operator) out.all_ns += own;
    if (bottom) {
      out.eligible_ns += own;
      by_name[node_slice(m, node).name] += own;
    }
    below[size_t(n)] = bottom || child_has;
  });
  int64_t best = 0;
  for (const auto& [name, ns] : by_name)  // most time first, then the name's text: a stable answer
    if (ns > best || (ns == best && ns > 0 && m.strings.get(name) < m.strings.get(out.top_op))) {
      best = ns;
      out.top_op = name;
    }
  return out;
}

double tc_eligible_kernel_ratio(const OpTree& t, const TraceModel& m) { return tc_eligible_kernels(t, m).ratio(); }

}  // namespace ks
