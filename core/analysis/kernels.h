// The Kernel view (tb_plugin spec §12): kernels grouped by name (every kernel in the trace), or
// by launch properties and the operator that launched them (the kernels of the operator trees),
// with calls, Tensor Core use, total/mean/min/max duration and the duration-weighted mean blocks
// per SM and est. achieved occupancy.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/accelerator.h"
#include "core/analysis/op_tree.h"
#include "core/analysis/tensor_cores.h"

namespace ks {

enum class KernelGroupBy { kName, kProps };
// "name" / "props"; false for anything else.
bool parse_kernel_group_by(std::string_view s, KernelGroupBy& out);

struct KernelGroup {
  StringId name = 0;
  // kProps only: the launching node's name ("N/A": no operator took the launch), and the first
  // kernel's launch properties.
  std::string op;
  TcState op_tc_eligible = TcState::kNo;
  std::array<int32_t, 3> grid{{0, 0, 0}}, block{{0, 0, 0}};  // all 0: not recorded
  int32_t registers_per_thread = 0, shared_memory = 0;       // not recorded counts as 0
  TcState tensor_cores = TcState::kNo;
  const TcRule* tc_rule = nullptr;  // the rule that decided (null with --tb-plugin's allowlist)
  uint64_t calls = 0;
  int64_t total_ns = 0, min_ns = INT64_MAX, max_ns = INT64_MIN;
  double blocks_weighted = 0, occupancy_weighted = 0;  // Σ value × duration (ns); missing = 0
  double mean_ns() const { return calls ? double(total_ns) / double(calls) : 0; }
  double blocks_per_sm() const { return total_ns ? blocks_weighted / double(total_ns) : 0; }
  double occupancy_pct() const { return total_ns ? occupancy_weighted / double(total_ns) : 0; }
};

struct KernelTable {
  KernelGroupBy group_by = KernelGroupBy::kName;
  bool has_blocks_per_sm = false, has_occupancy = false;  // some kernel recorded the value
  std::vector<KernelGroup> rows;  // total desc
  TcShare tensor_cores;           // over every kernel
  Accelerator accelerator = Accelerator::kUnknown;  // for the word: Tensor Cores or Matrix Cores
};

KernelTable kernel_table(const OpTree& t, const TraceModel& m, KernelGroupBy group_by);

// {"group_by", "rows": [{"name", "operator", "grid", "block", "registers_per_thread",
// "shared_memory", "calls", "tensor_cores" (true, false, null: unknown), "tensor_cores_rule",
// "op_tc_eligible", "total_us", "mean_us", "min_us", "max_us", "blocks_per_sm", "occupancy_pct"}],
// "tensor_cores": {"tc_us", "unknown_us", "total_us", "term", "scope"} | null}
std::string kernel_table_json(const KernelTable& table, const TraceModel& m);
std::string kernel_table_csv(const KernelTable& table, const TraceModel& m);

}  // namespace ks
