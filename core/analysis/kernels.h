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
#include "core/analysis/step_scope.h"
#include "core/analysis/tensor_cores.h"

namespace ks {

enum class KernelGroupBy { kName, kProps };
// "name" / "props"; false for anything else.
bool parse_kernel_group_by(std::string_view s, KernelGroupBy& out);
// A launch property as a row names it (the CLI's --grid/--registers, the detail views' params):
// "80,1,1" -> {80, 1, 1}, "255" -> 255; false (and `out` unchanged) when it is not three whole
// numbers / one, each within int32.
bool parse_launch_dims(std::string_view text, std::array<int32_t, 3>& out);
bool parse_launch_int(std::string_view text, int32_t& out);

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
  // The duration the occupancy is averaged over: the kernels that have one (kernel_occupancy in
  // gpu_metrics.h: a cluster launch's 0 is none), or with --tb-plugin all of them, missing as 0.
  int64_t occupancy_ns = 0;
  bool missing_occupancy_as_zero = false;  // --tb-plugin: a group of 0 ns has an occupancy of 0
  double mean_ns() const { return calls ? double(total_ns) / double(calls) : 0; }
  double blocks_per_sm() const { return total_ns ? blocks_weighted / double(total_ns) : 0; }
  // NaN: no kernel of the group has an occupancy (written as null, shown as absent).
  double occupancy_pct() const;
};

struct KernelTable {
  KernelGroupBy group_by = KernelGroupBy::kName;
  bool has_blocks_per_sm = false, has_occupancy = false;  // some kernel recorded the value
  std::vector<KernelGroup> rows;  // total desc
  TcShare tensor_cores;           // over every kernel (of the step)
  Accelerator accelerator = Accelerator::kUnknown;  // for the word: Tensor Cores or Matrix Cores
  std::string step;               // the step's name when the table is one step's, else ""
};

// `step`: only the kernels that step issued (step_scope.h); null: the whole trace, as tb_plugin.
// The columns (has_blocks_per_sm, has_occupancy) are the whole trace's either way, so that a
// step's table has the same columns as the trace's.
KernelTable kernel_table(const OpTree& t, const TraceModel& m, KernelGroupBy group_by, const StepFilter* step = nullptr);

// One row of the kernel table, as its identity: the name, and in kProps the launching node's
// name and the launch properties (0s where not recorded, as the table has them).
struct KernelKey {
  KernelGroupBy group_by = KernelGroupBy::kName;
  std::string name;
  std::string op;
  std::array<int32_t, 3> grid{{0, 0, 0}}, block{{0, 0, 0}};
  int32_t registers_per_thread = 0, shared_memory = 0;
};

// What a row of the kernel table is made of: its calls and durations (as the row counts them),
// the nodes that launched it ("N/A": none), its distinct launch properties, and the call stacks
// of the operators that launched it (call_stacks.h: their "Call stack" arg or Python frames), each with the calls
// and kernel time that came from it; lists by time descending. `found` is false when no kernel
// of the trace (or step) is in that row.
struct KernelStack {
  std::string op;
  std::string call_stack;  // text (call_stacks.h)
  uint64_t calls = 0;
  int64_t total_ns = 0;
};
struct KernelDetail {
  bool found = false;
  bool has_blocks_per_sm = false, has_occupancy = false;  // of the whole trace, as the table's columns
  KernelGroup total;
  std::vector<KernelGroup> operators;  // op, calls, total/min/max
  std::vector<KernelGroup> launches;   // grid, block, registers, shared memory, calls, total, blocks, occupancy
  std::vector<KernelStack> stacks;
  bool stacks_derived = false;  // the trace's stacks are python_function frames (call_stacks.h)
};
KernelDetail kernel_detail(const OpTree& t, const TraceModel& m, const KernelKey& key, const StepFilter* step = nullptr);


// The table's and a row's detail's --json, --csv and columns: their answers
// (core/session/views/kernels.cpp, kernel_detail.cpp).

}  // namespace ks
