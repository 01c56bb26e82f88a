// The Operator view (tb_plugin spec §11): operators grouped by name, or by name and input shape,
// with calls, host self/total, device self/total and Tensor Core shares, and the same numbers
// split by call stack for one group.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/analysis/step_scope.h"
#include "core/analysis/tensor_cores.h"

namespace ks {

enum class OpGroupBy { kName, kNameAndShape, kNameAndStack };
// "op" / "op+shape" / "op+stack"; false for anything else.
bool parse_op_group_by(std::string_view s, OpGroupBy& out);
const char* group_by_word(OpGroupBy g);

struct OperatorStats {
  uint64_t calls = 0;
  int64_t host_self_ns = 0, host_total_ns = 0, device_self_ns = 0, device_total_ns = 0;
  int64_t tc_self_ns = 0, tc_total_ns = 0;
  double tc_self_ratio() const { return device_self_ns ? double(tc_self_ns) / double(device_self_ns) : 0.0; }
  double tc_total_ratio() const { return device_total_ns ? double(tc_total_ns) / double(device_total_ns) : 0.0; }
};

struct OperatorGroup {
  StringId name = 0;
  std::string input_shape;   // Python repr of "Input Dims" ("[]" when absent); by-shape grouping only
  std::string call_stack;    // by-stack grouping only: its text (call_stacks.h; "": the calls without one)
  TcState tc_eligible = TcState::kNo;  // of the group's first call
  bool has_call_stack = false;
  OperatorStats stats;
};

struct OperatorTable {
  OpGroupBy group_by = OpGroupBy::kName;
  bool show_gpu = false;  // the trace has kernels (other than collectives') or memcpy/memset
  std::vector<OperatorGroup> rows;  // device self desc when show_gpu, else host self desc
  LinkStats linking;                // how the launches found their operators
};

// `step`: only the calls that step issued (step_scope.h); null: the whole trace, as tb_plugin.
OperatorTable operator_table(const OpTree& t, const TraceModel& m, OpGroupBy group_by, const StepFilter* step = nullptr);

// One group's calls split by their call stack (only calls that have one: a "Call stack" arg, or
// python_function frames around them, call_stacks.h), in table order.
struct StackGroup {
  StackKey key = 0;
  std::string call_stack;  // its text, innermost frame first, ';' between frames
  OperatorStats stats;
};
std::vector<StackGroup> operator_stacks(const OpTree& t, const TraceModel& m, OpGroupBy group_by,
                                        std::string_view name, std::string_view input_shape,
                                        const StepFilter* step = nullptr);
// The same group's calls that have no stack, counted by why (NoStackReason as the index).
struct StacklessCalls {
  std::array<uint64_t, 4> calls{};
  uint64_t total() const { return calls[1] + calls[2] + calls[3]; }
};
StacklessCalls operator_stackless_calls(const OpTree& t, const TraceModel& m, OpGroupBy group_by, std::string_view name,
                                        std::string_view input_shape, const StepFilter* step = nullptr);

// The kernels one group's calls put on the GPU through their own launches (what their device
// self time counts; kernels of the operators they called are those operators'), by kernel name,
// total time descending (ties in first-launch order).
struct OperatorKernel {
  StringId name = 0;
  uint64_t calls = 0;
  int64_t total_ns = 0;
  TcState tensor_cores = TcState::kNo;
};
std::vector<OperatorKernel> operator_kernels(const OpTree& t, const TraceModel& m, OpGroupBy group_by,
                                             std::string_view name, std::string_view input_shape,
                                             const StepFilter* step = nullptr);

// The table's and a row's detail's --json, --csv and columns: their answers
// (core/session/views/operators.cpp, operator_detail.cpp).

// Python's repr of a JSON value (how tb_plugin prints input shapes): "[[32,3],[]]" -> "[[32, 3], []]".
std::string python_repr_of_json(std::string_view json);

}  // namespace ks
