#include "core/analysis/tensor_cores.h"

#include <algorithm>
#include <array>

namespace ks {

bool is_tc_kernel_name(std::string_view name) {
  static constexpr std::array<std::string_view, 18> kMarkers = {
      "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
      "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
      "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm", "xmma_sparse_gemm",
      "c1688"};
  return std::any_of(kMarkers.begin(), kMarkers.end(),
                     [&](std::string_view m) { return name.find(m) != std::string_view::npos; });
}

bool is_tc_eligible_op_name(std::string_view name) {
  static constexpr std::array<std::string_view, 45> kOps = {
      "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
      "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
      "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
      "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr", "aten::matmul", "aten::mm",
      "aten::mv", "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
      "aten::chain_matmul", "aten::linalg_multi_dot", "aten::_thnn_fused_lstm_cell",
      "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell", "aten::rnn_tanh_cell",
      "aten::rnn_relu_cell", "CudnnConvolutionBackward", "BmmBackward0",
      "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward",
      "MmBackward", "aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward",
      "MvBackward", "aten::cudnn_convolution_transpose_backward_weight",
      "aten::cudnn_convolution_transpose_backward_input", "AddmmBackward",
      "aten::cudnn_convolution_backward_input", "AddbmmBackward",
      "aten::cudnn_convolution_backward"};
  return std::find(kOps.begin(), kOps.end(), name) != kOps.end();
}

bool TcKernelNames::operator()(StringId name) {
  if (name >= known_.size()) known_.resize(std::max<size_t>(strings_.size(), size_t(name) + 1), -1);
  int8_t& k = known_[name];
  if (k < 0) k = is_tc_kernel_name(strings_.get(name)) ? 1 : 0;
  return k == 1;
}

TcShare tc_kernel_share(const TraceModel& m) {
  TcShare share;
  TcKernelNames tc(m.strings);
  for (const KernelRow& k : m.kernels) {
    share.total_ns += k.s.dur_ns;
    if (tc(k.s.name)) share.tc_ns += k.s.dur_ns;
  }
  return share;
}

namespace {

// Σ duration of the kernels a node's own launches put on the GPU, by kernel device.
template <class F>
void own_kernels(const OpTree& t, const TraceModel& m, const OpNode& n, F&& f) {
  for (int32_t l = n.first_launch; l >= 0; l = t.launches[size_t(l)].next) {
    const Launch& launch = t.launches[size_t(l)];
    for (uint32_t d = launch.device_begin; d < launch.device_end; ++d)
      if (t.launched[d].kind == EventKind::kKernel) f(m.kernels[t.launched[d].row]);
  }
}

}  // namespace

std::optional<std::vector<double>> tc_ratio_by_gpu(const OpTree& t, const TraceModel& m, const std::vector<int>& gpu_ids) {
  std::vector<int64_t> tc(gpu_ids.size()), total(gpu_ids.size());
  TcKernelNames is_tc(m.strings);
  bool any = false;
  for (const OpNode& n : t.nodes) {
    if (!n.is_operator || n.parent == -2) continue;
    own_kernels(t, m, n, [&](const KernelRow& k) {
      any = true;
      const auto g = std::find(gpu_ids.begin(), gpu_ids.end(), k.device);
      if (g == gpu_ids.end()) return;
      const size_t i = size_t(g - gpu_ids.begin());
      const int64_t d = span_ns(k.s.ts_ns, k.s.dur_ns, t.tb_plugin);
      total[i] += d;
      if (is_tc(k.s.name)) tc[i] += d;
    });
  }
  if (!any) return std::nullopt;
  std::vector<double> out(gpu_ids.size(), 0.0);
  for (size_t i = 0; i < out.size(); ++i)
    if (total[i]) out[i] = double(tc[i]) / double(total[i]);
  return out;
}

double tc_eligible_kernel_ratio(const OpTree& t, const TraceModel& m) {
  // A node is a "bottom" eligible node when it is eligible and no node below it is.
  std::vector<char> below(t.nodes.size(), 0);  // the subtree holds a bottom eligible node
  int64_t eligible_ns = 0, all_ns = 0;
  walk_post_order(t, [](uint32_t, int32_t) {}, [&](int32_t n) {
    const OpNode& node = t.nodes[size_t(n)];
    bool child_has = false;
    for (int32_t c = node.first_child; c >= 0; c = t.nodes[size_t(c)].next_sibling) child_has |= below[size_t(c)] != 0;
    int64_t own = 0;
    own_kernels(t, m, node, [&](const KernelRow& k) { own += span_ns(k.s.ts_ns, k.s.dur_ns, t.tb_plugin); });
    if (node.is_operator) all_ns += own;
    if (node.tc_eligible && !child_has) {
      eligible_ns += own;
      below[size_t(n)] = 1;
    } else {
      below[size_t(n)] = child_has;
    }
  });
  return all_ns ? double(eligible_ns) / double(all_ns) : 0.0;
}

}  // namespace ks
