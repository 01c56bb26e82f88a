// The Ranges view (not in tb_plugin): the user's `record_function("name")` ranges
// (cat user_annotation) as a tree, with their calls, host time, and the device time of the work
// launched inside them.
//
// A range's place in the tree is its path of enclosing ranges on its thread (time containment:
// the deepest range that holds it whole), so the same name at two places is two rows, and a row
// sums every call made at that place (over all steps and threads). ProfilerStep#N ranges are the
// profiler's own (the steps), not rows: a range's path starts below them, so the steps' calls of a
// range add up in one row. Lightning's `[pl][...]` ranges, the optimizer's `Optimizer.step#...`,
// DataLoader and communication ranges are rows too (they are what the user's framework recorded),
// told apart by `kind`.
//
// Device time (`device_*`): the kernels, memcpys and memsets launched by runtime or driver calls
// made on the range's thread while it was open (the operator trees' launch linking, op_tree.h),
// whatever stream they ran on and whenever they ran. Work launched by another thread (the
// autograd thread during `loss.backward()`) is not in it: the host thread did not launch it.
// The GPU-side copy (`gpu_*`): Kineto writes a `gpu_user_annotation` per stream spanning the
// kernels launched under the innermost range, with the host range's External id; its span and the
// device work that started on that stream inside it (from any thread) are a second, separately
// labelled reading, given for the range's own copies only (an outer range holding only inner
// ranges has none).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/analysis/op_tree.h"
#include "core/trace/trace_model.h"

namespace ks {

enum class RangeKind : uint8_t { kRange, kLightning, kOptimizer, kDataLoader, kCommunication };
const char* range_kind_name(RangeKind k);  // "range", "lightning", "optimizer", "dataloader", "communication"

struct RangeRow {
  std::string name;
  std::string key;        // unique: the path of names from the top, joined by "/" ("~2" if two paths read the same)
  RangeKind kind = RangeKind::kRange;
  int32_t parent = -1;    // row index, -1 at the top; a parent comes before its children
  int32_t depth = 0;
  uint64_t calls = 0;
  // Host: Σ duration of the calls; self = total − Σ the child rows' totals.
  int64_t host_total_ns = 0, host_self_ns = 0;
  // Device (see above): total of the calls' launches and those of the ranges inside them; self
  // = launched while no inner range was open.
  int64_t device_total_ns = 0, device_self_ns = 0;
  // Kernel time within device_total (no memcpy/memset) and its part in Tensor Core kernels.
  int64_t kernel_total_ns = 0, tc_total_ns = 0;
  // The GPU-side copies of the calls: how many, Σ span, Σ device work that started inside them.
  uint64_t gpu_copies = 0;
  int64_t gpu_span_ns = 0, gpu_work_ns = 0;
  // The first call (for "Show in timeline"), ns since the epoch.
  int64_t first_start_ns = 0, first_end_ns = 0;
};

struct RangeTable {
  std::vector<RangeRow> rows;  // pre-order; siblings by their first call's start
  uint64_t calls = 0;          // user ranges in the trace (ProfilerStep excluded)
  bool has_gpu = false;        // the trace has device work: the device columns mean something
  bool has_gpu_copies = false; // some range has a GPU-side copy
};

// `t`: the operator trees in the default mode (their launches and device work are read).
RangeTable range_table(const OpTree& t, const TraceModel& m);

// The same, and each launch placed in a range: (row, index into t.launches).
RangeTable range_table(const OpTree& t, const TraceModel& m, std::vector<std::pair<int32_t, uint32_t>>* launch_rows);

// The kernels launched in the row keyed `key` (its calls and the ranges inside them), by name,
// longest total first (`kinetoscope ranges --detail KEY`); `found` false: no such row.
struct RangeKernel {
  std::string name;
  uint64_t calls = 0;
  int64_t total_ns = 0;
  TcState tensor_cores = TcState::kNo;
};
std::vector<RangeKernel> range_kernels(const OpTree& t, const TraceModel& m, std::string_view key, bool& found);
// Its --json and columns: the range_kernels answer (core/session/views/range_kernels.cpp).

// Tensor Core share of a row's kernel time, %; negative when it launched no kernel.
double range_tc_pct(const RangeRow& r);

// A row's numbers, declared once: the Ranges view's schema (core/session/views/ranges.cpp) takes
// its columns from this list, in its order. `value` is NaN where the JSON has null.
struct RangeColumn {
  const char* name;  // JSON key, CSV header, wasm column
  const char* unit;  // "count", "us" or "percent"
  const char* description;
  double (*value)(const RangeRow& r, int64_t trace_start_ns);
};
const std::vector<RangeColumn>& range_columns();

// The table's --json (a tree: {"file", "calls", "show_gpu", "gpu_copies", "ranges": [{"name",
// "kind", the columns above..., "children": [...]}]}), --csv (one row per tree row, with its path)
// and the page's columns: its answer (core/session/views/ranges.cpp; docs/contracts.md).

}  // namespace ks
