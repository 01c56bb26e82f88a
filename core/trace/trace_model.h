// TraceModel: what the reader keeps of a trace. One table per event kind, rows of small fixed
// records with interned strings (ids into `strings`), times as int64 nanoseconds. The later
// views (operators, kernels, memory, modules, distributed) read only this, never the JSON.
#pragma once
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/trace/trace_health.h"
#include "core/util/chunked_table.h"
#include "core/util/string_pool.h"

namespace ks {

constexpr int64_t kNoId = std::numeric_limits<int64_t>::min();  // "arg absent"

enum class EventKind : uint8_t {
  kCpuOp, kUserAnnotation, kPythonFunction, kRuntime, kDriver, kKernel, kMemcpy, kMemset,
  kGpuAnnotation, kMemory, kCounter, kFlow, kMetadata, kOther, kCount
};
const char* event_kind_name(EventKind k);

// An optional integer arg kept in 4 bytes where the view code never reads it: absent, the value
// when it fits, or kNarrowWide with the value in TraceModel::wide_args (exact either way).
using NarrowId = int32_t;
constexpr NarrowId kNarrowAbsent = std::numeric_limits<int32_t>::min();
constexpr NarrowId kNarrowWide = kNarrowAbsent + 1;
enum class WideField : uint8_t { kSequenceNumber, kFwdThreadId };

// An External id or correlation id in 4 bytes (TraceModel::pack_id / id_value): a value in
// [0, 2^31) as itself, absent as kPackedAbsent, any other value (negative, or 2^31 and beyond: none
// in the traces seen) as the StringId of its decimal text | kPackedText, exact either way and
// remapped with the strings when ranges read apart are merged. An enum, so that a comparison with
// an int64 id does not compile: every reader goes through id_value. 8 bytes a slice row (issue 21:
// 11.8 MB of the modern 480 MiB trace's 1.48 M slice rows).
enum class PackedId : uint32_t {};
constexpr PackedId kPackedAbsent = PackedId(0xFFFFFFFFu);
constexpr uint32_t kPackedText = 0x80000000u;

// A slice's start, ns, as two 4-byte halves: the slice row needs 4-byte alignment, not 8, so a
// row of nine 4-byte fields is 36 bytes, not 40 (issue 21). Read and assigned as an int64_t.
class SplitTime {
 public:
  SplitTime() = default;
  SplitTime(int64_t v) : lo_(uint32_t(uint64_t(v))), hi_(uint32_t(uint64_t(v) >> 32)) {}
  operator int64_t() const { return int64_t(uint64_t(hi_) << 32 | lo_); }

 private:
  uint32_t lo_ = 0, hi_ = 0;
};

// A slice's duration in 4 bytes (TraceModel::pack_dur / dur_ns): a value in [0, 2^31) ns (2.1 s)
// as itself, any other (longer: a whole-run annotation, a stalled op; the modern 480 MiB trace has
// none) as kWideDur | its index in TraceModel::wide_durs, exact either way and shifted when ranges
// read apart are merged. An enum, so that arithmetic on it does not compile: every reader goes
// through TraceModel::dur_ns (issue 21: 5.9 MB of the modern 480 MiB trace's 1.48 M slice rows).
enum class PackedDur : uint32_t {};
constexpr uint32_t kWideDur = 0x80000000u;

// Columns every duration event has.
struct SliceRow {
  SplitTime ts_ns;
  PackedDur dur = PackedDur(0);  // TraceModel::dur_ns reads it
  StringId name = 0;
  StringId cat = 0;
  StringId pid = 0;  // pid and tid as written: numbers or strings ("stream 7")
  StringId tid = 0;
  PackedId external_id = kPackedAbsent;  // TraceModel::id_value reads it (kNoId: absent)
  PackedId correlation = kPackedAbsent;
};
static_assert(sizeof(SliceRow) == 36 && alignof(SliceRow) == 4, "issue 21: the slice row's size is measured (tests/core/compact_layouts_test.cpp)");

// Whether the model keeps a cpu_op's "Concrete Inputs" (TraceModel::cpu_op_concrete): the ops
// whose FLOPs formula reads them (core/analysis/flops.cpp).
inline bool op_keeps_concrete_inputs(std::string_view name) {
  return name == "aten::convolution" || name == "aten::_convolution" || name == "aten::convolution_backward" ||
         name == "aten::_scaled_mm";
}

struct CpuOpRow {  // cpu_op / Operator, user_annotation, gpu_user_annotation
  SliceRow s;
  StringId input_dims = 0;   // raw JSON text of "Input Dims" / "Input dims"
  StringId input_type = 0;   // raw JSON text of "Input type"
  // "Call stack" and "Module Hierarchy": TraceModel::call_stack / module_hierarchy (OpArgRow).
};
static_assert(sizeof(CpuOpRow) == 44, "issue 21: the row's size is measured (tests/core/compact_layouts_test.cpp)");

// The "Call stack" or "Module Hierarchy" of the rows of one op table (`kKind`: cpu_ops,
// user_annotations, gpu_annotations) that have one, in row order: a trace recorded without
// with_stack / with_modules (the modern shape: none of its 2.2 M ops) pays nothing for them, not 8
// bytes in every op row (issue 21: 6.3 MB of the modern 480 MiB trace), and one recorded with them
// pays 8 bytes a row that has one, as before. Two tables per op table, not one of (row, stack,
// module), so a with_stack trace without module hierarchies pays no more than it did. Read through
// TraceModel::call_stack / module_hierarchy.
template <EventKind kKind> struct OpArgRow {
  static constexpr EventKind kind = kKind;
  uint32_t row = 0;
  StringId id = 0;
};
template <EventKind kKind> using OpArgTable = ChunkedTable<OpArgRow<kKind>>;

// The Sequence number and Fwd thread id of the op rows that have them (15-37% of the cpu_ops of
// the real traces here, 16% of the modern shape's), read by no view, only by the columns: kept
// here, `kind` and `row` saying whose, rather than 8 bytes in every op row (issue 21: 6.3 MB of
// the modern 480 MiB trace's rows, 2.0 MB here). Rows of one kind come in row order. 4 bytes each
// (TraceModel::narrow/widen, keyed by the op's row), not 8.
struct OpSequenceRow {
  EventKind kind = EventKind::kCpuOp;
  uint32_t row = 0;
  NarrowId sequence_number = kNarrowAbsent;
  NarrowId fwd_thread_id = kNarrowAbsent;
};

struct PythonFunctionRow {  // python_function / python
  SliceRow s;
  int64_t python_id = kNoId;
  int64_t python_parent_id = kNoId;
  int64_t python_module_id = kNoId;  // present: a module (nn.Module.forward) frame
};

// Collective arguments (record_param_comms, nccl:* ops and kernels), for the few rows that have
// them: `kind` and `row` say which table row they belong to.
struct CollectiveRow {
  EventKind kind = EventKind::kCpuOp;
  uint32_t row = 0;
  StringId collective_name = 0;
  StringId dtype = 0;
  StringId process_group_name = 0;
  StringId process_group_ranks = 0;  // raw JSON text
  int64_t in_msg_nelems = kNoId;
  int64_t out_msg_nelems = kNoId;
  int64_t group_size = kNoId;
};

// What a CUDA sync event (cat cuda_sync) waits on, where the trace says (PyTorch 2.x writes it on
// "Stream Wait Event" and "Event Sync"): the stream the CUDA event was recorded on and the
// correlation of its cudaEventRecord call (args wait_on_stream, wait_on_cuda_event_record_corr_id).
// Kept beside the sync's row in `others` (its index) for the few sync events that have them, not in
// every row of that table; the critical path's event-wait edges read it (core/analysis/critical_path.h).
struct SyncWaitRow {
  uint32_t row = 0;              // into TraceModel::others
  int32_t wait_on_stream = -1;   // -1: not written
  PackedId record_correlation = kPackedAbsent;
};

struct KernelRow {
  SliceRow s;
  int32_t device = -1;
  int32_t stream = -1;
  std::array<int32_t, 3> grid{{0, 0, 0}};
  std::array<int32_t, 3> block{{0, 0, 0}};
  int32_t registers_per_thread = -1;
  int32_t shared_memory = -1;
  float blocks_per_sm = std::numeric_limits<float>::quiet_NaN();
  float warps_per_sm = std::numeric_limits<float>::quiet_NaN();
  float occupancy_pct = std::numeric_limits<float>::quiet_NaN();  // est. achieved occupancy %
};

struct MemcpyRow {  // memcpy and memset
  SliceRow s;
  int32_t device = -1;
  int32_t stream = -1;
  int64_t bytes = -1;
  double bandwidth_gbps = std::numeric_limits<double>::quiet_NaN();
};

struct MemoryRow {  // [memory] instant events
  int64_t ts_ns = 0;
  StringId pid = 0, tid = 0;
  int32_t device_type = -1;
  int32_t device_id = -1;
  int64_t addr = 0;
  int64_t bytes = 0;
  int64_t total_allocated = -1;
  int64_t total_reserved = -1;
};

struct CounterRow {  // one series value of a "C" event
  int64_t ts_ns = 0;
  StringId name = 0, series = 0, pid = 0;
  double value = 0;
};

// A flow's "id" as written. Nearly every flow id is a decimal number of its own (a PyTorch 2.x
// trace has a new one every 3-4 events), and interning them as text took most of the string pool
// (its text, views and hash slots: a fifth of the model). A canonical decimal below 2^31 ("0",
// "42", as a number or a string) is kept as that number; any other text is interned and kept as
// its StringId | kFlowIdText. Equal texts give equal ids, different texts different ones.
using FlowId = uint32_t;
constexpr FlowId kFlowIdText = 0x80000000u;
FlowId flow_id(StringPool& strings, std::string_view text);

// A flow's cat and name are one of a few pairs (ac2g/ac2g, fwdbwd/fwdbwd), and its pid and tid
// one per thread: each pair is kept once in TraceModel::flow_pairs and the row holds its index
// (TraceModel::flow_cat/flow_name/flow_pid/flow_tid read them). 24 bytes a row instead of 32: a
// PyTorch 2.x trace has a flow every three events (issue 12 §4).
struct FlowRow {  // s / t / f
  int64_t ts_ns = 0;
  FlowId id = kFlowIdText;  // see FlowId
  uint32_t names = 0;   // TraceModel::flow_pairs[names]: (cat, name)
  uint32_t thread = 0;  // TraceModel::flow_pairs[thread]: (pid, tid)
  char phase = 's';
  bool binding_enclosing = false;  // "bp": "e"
};

struct MetadataRow {  // "M": process_name, thread_name, sort indexes, labels
  StringId name = 0, pid = 0, tid = 0, value = 0;
};

struct InstantRow {  // other instants and unrecognised slices
  int64_t ts_ns = 0;
  int64_t dur_ns = -1;  // -1: an instant
  StringId name = 0, cat = 0, pid = 0, tid = 0;
  // A slice's correlation id: a CUDA sync event's (cat cuda_sync) links it to its runtime call
  // (the GPU time view's scope reads it). In what was the row's padding: still 40 bytes.
  PackedId correlation = kPackedAbsent;
  char phase = 'i';
};
static_assert(sizeof(InstantRow) == 40, "the row's size is measured (tests/core/compact_layouts_test.cpp)");

struct DeviceInfo {
  int64_t id = -1;
  std::string name;
  int64_t memory_bytes = -1;
  int compute_major = -1, compute_minor = -1;
  int sms = -1;
  int64_t max_threads_per_block = -1, max_threads_per_sm = -1, regs_per_block = -1,
          regs_per_sm = -1, warp_size = -1, shared_mem_per_block = -1, shared_mem_per_sm = -1;
  std::string gcn_arch_name;  // "gfx90a:sramecc+:xnack-" where a ROCm writer records it
  bool hip_only_fields = false;  // maxSharedMemoryPerMultiProcessor: written only by Kineto's ROCm path
};

struct DistributedInfo {
  bool present = false;
  int64_t rank = -1;
  int64_t world_size = -1;
  std::string backend;
  int64_t pg_count = -1;
  std::string nccl_version;
};

struct TraceModel {
  StringPool strings;

  ChunkedTable<CpuOpRow> cpu_ops;                     // cpu_op / Operator
  ChunkedTable<CpuOpRow> user_annotations;            // user_annotation
  ChunkedTable<PythonFunctionRow> python_functions;   // python_function / python
  ChunkedTable<CpuOpRow> gpu_annotations;             // gpu_user_annotation
  ChunkedTable<SliceRow> runtimes;                    // cuda_runtime / Runtime / *_runtime
  ChunkedTable<SliceRow> drivers;                     // cuda_driver
  ChunkedTable<KernelRow> kernels;
  ChunkedTable<MemcpyRow> memcpys;
  ChunkedTable<MemcpyRow> memsets;
  ChunkedTable<MemoryRow> memory;
  ChunkedTable<CounterRow> counters;
  ChunkedTable<FlowRow> flows;  // every flow but ac2g (counted in kind_counts, not kept)
  ChunkedTable<MetadataRow> metadata;
  ChunkedTable<InstantRow> others;
  ChunkedTable<CollectiveRow> collectives;
  ChunkedTable<SyncWaitRow> sync_waits;  // the cuda_sync rows of `others` that say what they wait on, in row order
  ChunkedTable<OpSequenceRow> op_sequences;  // cpu_op / user_annotation / gpu_annotation rows' ids
  // The ops' "Call stack" and "Module Hierarchy" (OpArgRow), by op table.
  OpArgTable<EventKind::kCpuOp> cpu_op_stacks;
  OpArgTable<EventKind::kCpuOp> cpu_op_modules;
  OpArgTable<EventKind::kUserAnnotation> user_annotation_stacks;
  OpArgTable<EventKind::kUserAnnotation> user_annotation_modules;
  OpArgTable<EventKind::kGpuAnnotation> gpu_annotation_stacks;
  OpArgTable<EventKind::kGpuAnnotation> gpu_annotation_modules;
  // The "Concrete Inputs" of the cpu_ops whose FLOPs formula reads them (op_keeps_concrete_inputs:
  // a convolution's stride, padding, dilation, groups; _scaled_mm's out_dtype), in row order. Every
  // op of a PyTorch 2.x trace recorded with shapes has them, but no view reads the others': kept
  // for all, they would cost 8 bytes a row and their texts (issue 25; docs/benchmarks.md "Worker
  // heap").
  OpArgTable<EventKind::kCpuOp> cpu_op_concrete;

  // An op row's "Call stack" / "Module Hierarchy" (0: none); `kind` is its table's.
  StringId call_stack(EventKind kind, size_t row) const {
    switch (kind) {
      case EventKind::kCpuOp: return op_arg(cpu_op_stacks, cpu_ops.size(), row);
      case EventKind::kUserAnnotation: return op_arg(user_annotation_stacks, user_annotations.size(), row);
      case EventKind::kGpuAnnotation: return op_arg(gpu_annotation_stacks, gpu_annotations.size(), row);
      default: return 0;
    }
  }
  StringId module_hierarchy(EventKind kind, size_t row) const {
    switch (kind) {
      case EventKind::kCpuOp: return op_arg(cpu_op_modules, cpu_ops.size(), row);
      case EventKind::kUserAnnotation: return op_arg(user_annotation_modules, user_annotations.size(), row);
      case EventKind::kGpuAnnotation: return op_arg(gpu_annotation_modules, gpu_annotations.size(), row);
      default: return 0;
    }
  }
  // A cpu_op row's "Concrete Inputs" (0: none, or an op that does not keep them).
  StringId concrete_inputs(size_t row) const { return op_arg(cpu_op_concrete, cpu_ops.size(), row); }
  // Where every row has one (a with_stack trace's call stacks), row i is entry i; else a binary
  // search of the entries, which are in row order (model_merge.cpp sorts the few that a merge of
  // ranges read apart appends out of order).
  template <class Table> static StringId op_arg(const Table& t, size_t rows, size_t row) {
    if (t.size() == rows) return row < rows ? t[row].id : 0;
    size_t lo = 0, hi = t.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (t[mid].row < row) lo = mid + 1;
      else hi = mid;
    }
    return lo < t.size() && t[lo].row == row ? t[lo].id : 0;
  }

  // The (cat, name) and (pid, tid) pairs of the flows (FlowRow::names, FlowRow::thread), each once.
  std::vector<std::pair<StringId, StringId>> flow_pairs;
  StringId flow_cat(const FlowRow& f) const { return flow_pairs[f.names].first; }
  StringId flow_name(const FlowRow& f) const { return flow_pairs[f.names].second; }
  StringId flow_pid(const FlowRow& f) const { return flow_pairs[f.thread].first; }
  StringId flow_tid(const FlowRow& f) const { return flow_pairs[f.thread].second; }

  // An External id or correlation as kept in a row (PackedId) and back: kNoId <-> kPackedAbsent.
  PackedId pack_id(int64_t v) {
    if (v == kNoId) return kPackedAbsent;
    if (v >= 0 && v < int64_t(kPackedText)) return PackedId(uint32_t(v));
    return PackedId(strings.intern(std::to_string(v)) | kPackedText);
  }
  int64_t id_value(PackedId p) const {
    const uint32_t x = uint32_t(p);
    if (x < kPackedText) return int64_t(x);
    return p == kPackedAbsent ? kNoId : wide_id_value(x);
  }
  int64_t wide_id_value(uint32_t x) const {
    const std::string_view text = strings.get(StringId(x & ~kPackedText));
    int64_t v = kNoId;
    std::from_chars(text.data(), text.data() + text.size(), v);
    return v;
  }

  // A slice's duration, ns, as kept in its row (PackedDur) and back.
  int64_t dur_ns(const SliceRow& s) const { return dur_value(s.dur); }
  int64_t dur_value(PackedDur d) const {
    const uint32_t x = uint32_t(d);
    return x < kWideDur ? int64_t(x) : wide_durs[x & ~kWideDur];
  }
  PackedDur pack_dur(int64_t v) {
    if (v >= 0 && v < int64_t(kWideDur)) return PackedDur(uint32_t(v));
    wide_durs.push_back(v);
    return PackedDur(kWideDur | uint32_t(wide_durs.size() - 1));
  }
  // The durations of 2^31 ns and more (and any negative one), in the order they were read.
  std::vector<int64_t> wide_durs;

  // Values of narrowed args beyond int32, by (table, field, row): none in the traces seen.
  std::unordered_map<uint64_t, int64_t> wide_args;
  static uint64_t wide_key(EventKind table, WideField f, size_t row) {
    return uint64_t(table) << 40 | uint64_t(f) << 32 | uint64_t(row);
  }
  NarrowId narrow(int64_t v, EventKind table, WideField f, size_t row) {
    if (v == kNoId) return kNarrowAbsent;
    if (v > kNarrowWide && v <= std::numeric_limits<int32_t>::max()) return NarrowId(v);
    wide_args[wide_key(table, f, row)] = v;
    return kNarrowWide;
  }
  int64_t widen(NarrowId v, EventKind table, WideField f, size_t row) const {
    if (v == kNarrowAbsent) return kNoId;
    if (v != kNarrowWide) return v;
    auto it = wide_args.find(wide_key(table, f, row));
    return it == wide_args.end() ? kNoId : it->second;
  }

  // Bytes held by the tables and strings (for the summary and the memory benchmark).
  size_t table_bytes() const {
    return cpu_ops.bytes() + user_annotations.bytes() + python_functions.bytes() +
           gpu_annotations.bytes() + runtimes.bytes() + drivers.bytes() + kernels.bytes() +
           memcpys.bytes() + memsets.bytes() + memory.bytes() + counters.bytes() + flows.bytes() +
           metadata.bytes() + others.bytes() + collectives.bytes() + sync_waits.bytes() + op_sequences.bytes() + cpu_op_stacks.bytes() +
           cpu_op_modules.bytes() + user_annotation_stacks.bytes() + user_annotation_modules.bytes() +
           gpu_annotation_stacks.bytes() + gpu_annotation_modules.bytes() + cpu_op_concrete.bytes() + strings.bytes() +
           flow_pairs.capacity() * sizeof(flow_pairs[0]) + wide_durs.capacity() * sizeof(int64_t);
  }

  // Raw counts as written in the file.
  uint64_t event_count = 0;
  std::vector<uint64_t> category_counts;  // by category string id
  std::vector<uint64_t> phase_counts;     // by phase string id
  std::array<uint64_t, static_cast<size_t>(EventKind::kCount)> kind_counts{};

  // Top-level members.
  std::optional<int64_t> schema_version;
  std::string display_time_unit;
  std::string trace_name;
  std::optional<int64_t> base_time_ns;
  std::string framework;
  bool old_naming = false;  // PyTorch 1.8 categories (Operator, Runtime, Kernel, ...)
  std::vector<DeviceInfo> devices;
  bool devices_from_compute_properties = false;  // older traces' member (tb_plugin ignores it)
  DistributedInfo distributed;
  bool roctracer = false;  // a "roctracer_version" member: Kineto's ROCm (HIP) path wrote the trace

  // Time span of the work (duration events), ns.
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool has_span = false;

  std::string format;  // "object" (Kineto) or "array" (bare Chrome trace)
  uint64_t bytes_read = 0;
  bool truncated = false;
  TraceHealth health;
};

}  // namespace ks
