// Every field of every TraceModel row and every table, for code that must touch them all
// without knowing them: the merge of ranges read apart (model_merge.cpp remaps string ids and
// shifts row indices) and the tests that compare two models field by field. A change of a row
// layout (a new field, narrower ids with a side table) is followed here, and the merge and the
// tests follow it.
//
// A visitor has: num(T&) for a plain value, str(StringId&) for a string id, flow(FlowId&) for a
// flow id (text ids are string ids | kFlowIdText), id(PackedId&) for an External id or
// correlation (wide ones are string ids | kPackedText), pair(uint32_t&) for an index into
// TraceModel::flow_pairs, row(EventKind table, uint32_t&) for an index into another table's rows,
// dur(PackedDur&) for a slice's duration (wide ones are indices into TraceModel::wide_durs). Narrowed args (NarrowId) are plain values: their wide side table
// (TraceModel::wide_args) is keyed by row and is the merge's to shift.
#pragma once
#include "core/trace/trace_model.h"

namespace ks {

template <class V> void visit_fields(SliceRow& r, V& v) {
  v.num(r.ts_ns);
  v.dur(r.dur);
  v.str(r.name);
  v.str(r.cat);
  v.str(r.pid);
  v.str(r.tid);
  v.id(r.external_id);
  v.id(r.correlation);
}

template <class V> void visit_fields(CpuOpRow& r, V& v) {
  visit_fields(r.s, v);
  v.str(r.input_dims);
  v.str(r.input_type);
}

template <EventKind K, class V> void visit_fields(OpArgRow<K>& r, V& v) {
  v.row(K, r.row);
  v.str(r.id);
}

template <class V> void visit_fields(OpSequenceRow& r, V& v) {
  v.num(r.kind);
  v.row(r.kind, r.row);
  v.num(r.sequence_number);
  v.num(r.fwd_thread_id);
}

template <class V> void visit_fields(PythonFunctionRow& r, V& v) {
  visit_fields(r.s, v);
  v.num(r.python_id);
  v.num(r.python_parent_id);
  v.num(r.python_module_id);
}

template <class V> void visit_fields(SyncWaitRow& r, V& v) {
  v.row(EventKind::kOther, r.row);
  v.num(r.wait_on_stream);
  v.id(r.record_correlation);
}

template <class V> void visit_fields(CollectiveRow& r, V& v) {
  v.num(r.kind);
  v.row(r.kind, r.row);
  v.str(r.collective_name);
  v.str(r.dtype);
  v.str(r.process_group_name);
  v.str(r.process_group_ranks);
  v.num(r.in_msg_nelems);
  v.num(r.out_msg_nelems);
  v.num(r.group_size);
}

template <class V> void visit_fields(KernelRow& r, V& v) {
  visit_fields(r.s, v);
  v.num(r.device);
  v.num(r.stream);
  for (auto& x : r.grid) v.num(x);
  for (auto& x : r.block) v.num(x);
  v.num(r.registers_per_thread);
  v.num(r.shared_memory);
  v.num(r.blocks_per_sm);
  v.num(r.warps_per_sm);
  v.num(r.occupancy_pct);
}

template <class V> void visit_fields(MemcpyRow& r, V& v) {
  visit_fields(r.s, v);
  v.num(r.device);
  v.num(r.stream);
  v.num(r.bytes);
  v.num(r.bandwidth_gbps);
}

template <class V> void visit_fields(MemoryRow& r, V& v) {
  v.num(r.ts_ns);
  v.str(r.pid);
  v.str(r.tid);
  v.num(r.device_type);
  v.num(r.device_id);
  v.num(r.addr);
  v.num(r.bytes);
  v.num(r.total_allocated);
  v.num(r.total_reserved);
}

template <class V> void visit_fields(CounterRow& r, V& v) {
  v.num(r.ts_ns);
  v.str(r.name);
  v.str(r.series);
  v.str(r.pid);
  v.num(r.value);
}

template <class V> void visit_fields(FlowRow& r, V& v) {
  v.num(r.ts_ns);
  v.flow(r.id);
  v.pair(r.names);
  v.pair(r.thread);
  v.num(r.phase);
  v.num(r.binding_enclosing);
}

template <class V> void visit_fields(MetadataRow& r, V& v) {
  v.str(r.name);
  v.str(r.pid);
  v.str(r.tid);
  v.str(r.value);
}

template <class V> void visit_fields(InstantRow& r, V& v) {
  v.num(r.ts_ns);
  v.num(r.dur_ns);
  v.str(r.name);
  v.str(r.cat);
  v.str(r.pid);
  v.str(r.tid);
  v.id(r.correlation);
  v.num(r.phase);
}

// The tables, in a fixed order, each with its id: the EventKind whose rows it holds (slices of
// every other kind go to `others`, kOther), kCount for the collectives, kCount + 1 for the ops'
// sequence numbers and the seven after it for the ops' call stacks, module hierarchies and Concrete Inputs (whose
// rows point into the slice tables, so they come last), then the sync events' waits (into `others`). Works on a const model too (Model = const
// TraceModel).
constexpr size_t kCollectivesTable = static_cast<size_t>(EventKind::kCount);
constexpr size_t kOpSequencesTable = kCollectivesTable + 1;
constexpr size_t kOpArgTables = kOpSequencesTable + 1;  // seven: stacks and modules of the three op tables, cpu_ops' Concrete Inputs
constexpr size_t kSyncWaitsTable = kOpArgTables + 7;  // the sync events' waits (rows of `others`)
constexpr size_t kTableCount = kSyncWaitsTable + 1;
template <class Model, class F> void for_each_table(Model& m, F&& f) {
  f(size_t(EventKind::kCpuOp), m.cpu_ops);
  f(size_t(EventKind::kUserAnnotation), m.user_annotations);
  f(size_t(EventKind::kPythonFunction), m.python_functions);
  f(size_t(EventKind::kRuntime), m.runtimes);
  f(size_t(EventKind::kDriver), m.drivers);
  f(size_t(EventKind::kKernel), m.kernels);
  f(size_t(EventKind::kMemcpy), m.memcpys);
  f(size_t(EventKind::kMemset), m.memsets);
  f(size_t(EventKind::kGpuAnnotation), m.gpu_annotations);
  f(size_t(EventKind::kMemory), m.memory);
  f(size_t(EventKind::kCounter), m.counters);
  f(size_t(EventKind::kFlow), m.flows);
  f(size_t(EventKind::kMetadata), m.metadata);
  f(size_t(EventKind::kOther), m.others);
  f(kCollectivesTable, m.collectives);
  f(kOpSequencesTable, m.op_sequences);
  f(kOpArgTables, m.cpu_op_stacks);
  f(kOpArgTables + 1, m.cpu_op_modules);
  f(kOpArgTables + 2, m.user_annotation_stacks);
  f(kOpArgTables + 3, m.user_annotation_modules);
  f(kOpArgTables + 4, m.gpu_annotation_stacks);
  f(kOpArgTables + 5, m.gpu_annotation_modules);
  f(kOpArgTables + 6, m.cpu_op_concrete);
  f(kSyncWaitsTable, m.sync_waits);
}

// The table a slice of `kind` is filed in (TraceBuilder::add_slice), by table id.
inline size_t slice_table_of(EventKind kind) {
  return kind <= EventKind::kGpuAnnotation ? size_t(kind) : size_t(EventKind::kOther);
}

}  // namespace ks
