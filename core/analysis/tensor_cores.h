// Tensor Cores (tb_plugin spec §10): the shares of kernel time on them — over all kernels (Kernel
// view), per GPU over the kernels operators launched (GPU summary), and the eligible operators'
// share (mixed-precision advice) — and what each share covers. Which kernel uses them and which
// operator could is told by name in tensor_core_rules.h.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/accelerator.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/step_scope.h"
#include "core/analysis/tensor_core_rules.h"
#include "core/trace/trace_model.h"
#include "core/util/json_writer.h"

namespace ks {

// What each Tensor Core figure covers, one sentence for the page to show beside it ("Matrix
// Cores" on AMD). Kernel view: every kernel of the trace. GPU summary: the kernels operators
// launched themselves, over the whole trace (not only the steps), per GPU. Eligible operators:
// the mixed-precision advice's number.
std::string kernel_tc_scope(Accelerator a);
// The Kernel view of one step (kernel_table with a StepFilter): the kernels that step issued.
std::string kernel_tc_step_scope(Accelerator a, std::string_view step);
std::string gpu_tc_scope(Accelerator a);
// The default mode's GPU summary figure: every kernel that ran on the GPU, as the Kernel view
// counts them (over the whole trace, or over the kernels one step issued): one definition, so the
// GPU summary and the Kernels pie print the same number.
std::string gpu_all_kernels_tc_scope(Accelerator a);
std::string gpu_all_kernels_tc_step_scope(Accelerator a, std::string_view step);
std::string eligible_tc_scope(Accelerator a);

// true, false, or null for unknown.
void write_tc_state(JsonWriter& w, TcState s);

// Kernel time on Tensor Cores, of unknown use, and in all: Σ dur.
struct TcShare {
  int64_t tc_ns = 0, unknown_ns = 0, total_ns = 0;
  void add(TcState s, int64_t ns) {
    total_ns += ns;
    if (s == TcState::kYes) tc_ns += ns;
    else if (s == TcState::kUnknown) unknown_ns += ns;
  }
  // Known Tensor Core time / all kernel time; empty without kernels.
  std::optional<double> ratio() const {
    if (total_ns == 0) return std::nullopt;
    return double(tc_ns) / double(total_ns);
  }
  std::optional<double> unknown_ratio() const {
    if (total_ns == 0) return std::nullopt;
    return double(unknown_ns) / double(total_ns);
  }
};
// Over every kernel of the trace, with its recorded dur (tb_plugin's Kernel view pie); with
// `step`, over the kernels that step issued only (step_scope.h).
TcShare tc_kernel_share(const TraceModel& m, bool tb_plugin, const StepFilter* step = nullptr);

// Per GPU (kernel "device"), every kernel (tc_kernel_share split by GPU): one share per id in
// gpu_ids; with `step`, the kernels that step issued.
std::vector<TcShare> tc_kernel_share_by_gpu(const TraceModel& m, bool tb_plugin, const std::vector<int>& gpu_ids,
                                            const StepFilter* step = nullptr);
// Per GPU (kernel "device"), the kernels operators launched themselves, over the whole trace
// (tb_plugin's "Kernel time using Tensor Cores" of the GPU summary): one share per id in gpu_ids
// (empty when no operator kernel ran there); nothing when no operator launched any kernel.
std::optional<std::vector<TcShare>> tc_share_by_gpu(const OpTree& t, const TraceModel& m, const std::vector<int>& gpu_ids);
// The ratios of tc_share_by_gpu, 0 for a GPU without operator kernels (as tb_plugin).
std::optional<std::vector<double>> tc_ratio_by_gpu(const OpTree& t, const TraceModel& m, const std::vector<int>& gpu_ids);

// The kernels the innermost Tensor Core eligible operators launched themselves, against all
// operator-launched kernel time (the mixed-precision recommendation's evidence).
struct EligibleKernels {
  int64_t eligible_ns = 0;          // launched by bottom eligible operators
  int64_t eligible_tc_ns = 0;       // of which on Tensor Cores
  int64_t eligible_unknown_ns = 0;  // of which of unknown use
  int64_t all_ns = 0;               // launched by any operator
  StringId top_op = 0;              // the eligible operator (by name) with the most such time
  double ratio() const { return all_ns ? double(eligible_ns) / double(all_ns) : 0.0; }
};
EligibleKernels tc_eligible_kernels(const OpTree& t, const TraceModel& m);
// tc_eligible_kernels(...).ratio(): 0 when no operator launched a kernel.
double tc_eligible_kernel_ratio(const OpTree& t, const TraceModel& m);

}  // namespace ks
