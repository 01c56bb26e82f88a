// Tensor Cores (tb_plugin spec §10): which kernels use them (by name) and which operators could
// (by name), and the trace-wide share of kernel time spent in Tensor Core kernels.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

// The kernel's name contains one of the known Tensor Core kernel markers (h884, hmma, xmma_gemm...).
bool is_tc_kernel_name(std::string_view name);
// The operator is one tb_plugin lists as able to use Tensor Cores (convolutions, matmuls, RNN cells).
bool is_tc_eligible_op_name(std::string_view name);

// is_tc_kernel_name by interned name, each name tested once.
class TcKernelNames {
 public:
  explicit TcKernelNames(const StringPool& strings) : strings_(strings) {}
  bool operator()(StringId name);

 private:
  const StringPool& strings_;
  std::vector<int8_t> known_;  // -1 unknown, 0 no, 1 yes
};

// Σ dur of Tensor Core kernels / Σ dur of all kernels; empty when the trace has no kernels.
struct TcShare {
  int64_t tc_ns = 0, total_ns = 0;
  std::optional<double> ratio() const {
    if (total_ns == 0) return std::nullopt;
    return double(tc_ns) / double(total_ns);
  }
};
TcShare tc_kernel_share(const TraceModel& m);

// Per GPU (kernel "device"), the Tensor Core share of the kernels operators launched themselves
// (tb_plugin's "Kernel time using Tensor Cores"): one value per id in gpu_ids (0 when no operator
// kernel ran there); empty when no operator launched any kernel.
std::optional<std::vector<double>> tc_ratio_by_gpu(const OpTree& t, const TraceModel& m, const std::vector<int>& gpu_ids);

// Of the kernel time operators launched themselves, the share launched by the innermost Tensor
// Core eligible operators (the mixed-precision recommendation's number); 0 when there is none.
double tc_eligible_kernel_ratio(const OpTree& t, const TraceModel& m);

}  // namespace ks
